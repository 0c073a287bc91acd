"""The speed figures on the Planner and Compare pages (AppTest, one run each): time to first token
labelled per prompt and for the whole batch, the speed greyed out with the reason when the plan does not
fit, and Compare's speed columns at the user's context, per sequence and in total.

References are hand arithmetic: a batch's prefill does ``batch`` times one prompt's FLOPs (2 x parameters
x tokens + attention), so at a compute-bound 8,192-token prompt it takes about ``batch`` times as long; a
batch's total decode rate is ``batch`` times one sequence's (one step serves every sequence)."""
from __future__ import annotations

import pytest
from apptest import COMPARE, PLANNER, run_page

pytest.importorskip("streamlit.testing.v1")


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _ms(value: str) -> float:
    return float(value.removesuffix(" ms").replace(",", ""))


def test_planner_labels_time_to_first_token_per_prompt_and_for_the_whole_batch() -> None:
    """Llama-3.1-8B on one H100 at batch 4 x 8,192 tokens (fits: 14.96 GiB + 4 GiB of KV)."""
    m = _metrics(run_page(PLANNER, gpu="h100-sxm", batch="4", ctx="8192"))
    one = _ms(m["Time to first token, one 8,192-token prompt (est.)"])
    whole = _ms(m["Prefill of the whole batch, 4 prompts (est.)"])
    assert 3.5 < whole / one <= 4.0
    assert "Decode total, batch 4 (est.)" in m and "Decode / sequence (est.)" in m


def test_planner_greys_the_speed_out_with_the_reason_when_the_plan_does_not_fit() -> None:
    """Llama-3.1-70B's 131 GiB of bf16 weights cannot fit one 24 GB RTX 4090: no speed tiles, the
    figures in grey under the verdict's reason."""
    at = run_page(PLANNER, model="meta-llama/Llama-3.1-70B", gpu="rtx-4090")
    assert not any(label.startswith("Decode") for label in _metrics(at))
    caption = next(c.value for c in at.caption if c.value.startswith("Speed greyed out"))
    assert "the plan does not fit (Does not fit" in caption
    assert any(":gray[Decode / sequence (est.)" in md.value for md in at.markdown)


def test_compare_speed_columns_use_the_context_given_and_say_per_sequence_and_total() -> None:
    at = run_page(COMPARE, gpu="h100-sxm", batch="2", ctx="8192", models=["meta-llama/Llama-3.1-8B"])
    row = at.dataframe[0].value.iloc[0]
    per = row["decode tok/s per sequence @ 8,192 tokens (estimated)"]
    total = row["decode tok/s total, whole batch @ 8,192 tokens (estimated)"]
    assert abs(total - 2 * per) <= 0.2                       # each rounded to 0.1
    one = row["time to first token, one 8,192-token prompt, ms (estimated)"]
    whole = row["prefill of the whole batch, 8,192-token prompts, ms (estimated)"]
    assert 1.8 < whole / one <= 2.0
