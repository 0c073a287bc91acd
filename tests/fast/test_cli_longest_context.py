"""The CLI's "longest context" line is the figure the pages show (kvcalc.verdict.judge's ``longest``: under vLLM
the longest ``--max-model-len`` vLLM still starts with and holds the batch), with this run's own cap beside it.

Hand arithmetic (bundled Llama-3.1-8B on an RTX 4090, vLLM 0.33, batch 1, context 8,192 as max_model_len): the
CLI prints 2,574 blocks of 16 tokens ("GPU KV cache size: 41,184 tokens"); one of them is vLLM's null block
(vllm/v1/core/block_pool.py ``BlockPool.__init__`` takes block 0 as ``null_block``), so a request can hold
2,573 x 16 = 41,168 tokens.
"""
from __future__ import annotations

import contextlib
import io

from kvcalc.cli import main


def _text(*flags: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["plan", "meta-llama/Llama-3.1-8B", "--offline", "--gpu", "rtx-4090", *flags]) == 0
    return out.getvalue()


def test_the_longest_context_is_the_served_one_with_the_runs_cap_beside_it() -> None:
    text = _text("--batch", "1", "--context", "8192")
    assert "GPU KV cache size: 41,184 tokens" in text
    assert ("longest context at batch 1: 41,168 tokens (served with max_model_len set to it; as configured, "
            "8,192 caps a request)") in text


def test_a_longest_context_under_the_cap_is_printed_alone() -> None:
    # 8 x 8,192 does not fit 2,574 blocks: 2,573 // 8 = 321 blocks a request = 5,136 tokens
    assert "longest context at batch 8: 5,136 tokens\n" in _text("--batch", "8", "--max-model-len", "8192")
