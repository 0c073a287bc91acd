"""The Planner (home page) renders with no exception and shows the headline numbers (AppTest)."""
from __future__ import annotations

import pytest
from apptest import PLANNER, run_page

pytest.importorskip("streamlit.testing.v1")


def run(**query):
    return run_page(PLANNER, **query)


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_default_view():
    at = run()
    assert not at.exception
    m = metrics(at)
    # Llama-3.1-8B in bf16: 8,030,261,248 parameters x 2 bytes = 14.96 GiB
    assert m["Weights / GPU"] == "14.96 GiB"


def test_ideal_runtime_from_the_link():
    at = run(runtime="ideal", batch="8", ctx="8192", gpu="rtx-4090")
    assert not at.exception
    m = metrics(at)
    # 8 x 8,192 tokens x 128 KiB per token = 8 GiB of KV cache
    assert m["KV cache / GPU"] == "8.00 GiB"
    # 14.96 + 8.00 GiB <= 24,564 MiB (23.99 GiB): the verdict, in green, replaced the "Fits" metric (issue 14)
    assert any(s.value.startswith("**Fits: 8 sequences of 8,192 tokens") for s in at.success)


def test_bad_link_values_fall_back_with_a_notice():
    at = run(batch="abc", gpu="nope", zzz="1")
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    assert "batch='abc'" in text and "gpu='nope'" in text and "zzz" in text
    assert metrics(at)["Weights / GPU"] == "14.96 GiB"
