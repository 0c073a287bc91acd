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
