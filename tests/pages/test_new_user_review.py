"""Defects a new-user review of the pages found (AppTest): counts in the singular for one ("1 sequence", never
"1 seqs"), llama.cpp scenarios kept in Compare under a KV dtype (its -ctk / -ctv cache type, or listed as not
compared with the reason), and the Planner's command in a section of its own after the verdict and its fixes.

Reference figures (see tests/pages/test_pages.py): Llama-3.1-8B has 8,030,261,248 parameters x 2 B = 16,060,522,496
B of bf16 weights and 32 x 8 x (128 + 128) x 2 B = 131,072 B of KV a token; an RTX 4090 has 24,564 MiB. The ideal
runtime may use the whole GPU: 25,757,220,864 - 16,060,522,496 = 9,696,698,368 B for the KV cache, i.e.
9,696,698,368 / (8,192 x 131,072) = 9.03 -> 9 sequences of 8,192 tokens and 9,696,698,368 / (40,000 x 131,072) =
1.85 -> 1 sequence of 40,000 tokens. llama.cpp's cache types: ``common/arg.cpp`` ``kv_cache_types``.
"""
from __future__ import annotations

import pytest
from apptest import PLANNER, run_page

from dashboard.text import count

pytest.importorskip("streamlit.testing.v1")

MiB = 1 << 20
LLAMA = "meta-llama/Llama-3.1-8B"
KV_LLAMA = 32 * 8 * (128 + 128) * 2
FREE_4090_IDEAL = 24_564 * MiB - 8_030_261_248 * 2


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_count_says_one_in_the_singular():
    assert [count(1, "sequence"), count(8, "sequence"), count(1, "token"), count(32_768, "token"),
            count(1, "GPU"), count(2, "GPU")] == ["1 sequence", "8 sequences", "1 token", "32,768 tokens",
                                                  "1 GPU", "2 GPUs"]


@pytest.mark.parametrize(("ctx", "shown"), [("40000", "1 sequence"), ("8192", "9 sequences")])
def test_largest_batch_reads_sequences_in_the_right_number(ctx, shown):
    assert FREE_4090_IDEAL // (int(ctx) * KV_LLAMA) == int(shown.split()[0])
    at = run_page(PLANNER, open_runtimes=False, runtime="ideal", gpu="rtx-4090", batch="1", ctx=ctx)
    assert metric(at, "Largest batch") == shown
    assert not any("seqs" in m.value for m in at.metric)
