"""The speed figures on the Planner and Compare pages (AppTest, one run each): time to first token
labelled per prompt and for the whole batch, the speed greyed out with the reason when the plan does not
fit, and Compare's speed columns at the user's context, per sequence and in total.

References are hand arithmetic: a batch's prefill does ``batch`` times one prompt's FLOPs (2 x parameters
x tokens + attention), so at a compute-bound 8,192-token prompt it takes about ``batch`` times as long; a
batch's total decode rate is ``batch`` times one sequence's (one step serves every sequence)."""
from __future__ import annotations

import pandas as pd
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
    one = _ms(m["TTFT, one 8,192-token prompt (est.)"])
    whole = _ms(m["Prefill, all 4 prompts (est.)"])
    assert 3.5 < whole / one <= 4.0
    assert "Decode total, batch 4 (est.)" in m and "Decode / sequence (est.)" in m


def test_planner_greys_the_speed_out_with_the_reason_when_the_plan_does_not_fit() -> None:
    """Llama-3.1-70B's 131 GiB of bf16 weights cannot fit one 24 GB RTX 4090: no speed tiles, the
    figures in grey under the verdict's reason."""
    at = run_page(PLANNER, model="meta-llama/Llama-3.1-70B", gpu="rtx-4090")
    assert not any(label.startswith("Decode") for label in _metrics(at))
    caption = next(c.value for c in at.caption if c.value.startswith("Speed greyed out"))
    assert "the plan does not run as asked (Does not fit" in caption
    assert any(":gray[Decode / sequence (est.)" in md.value for md in at.markdown)


def test_planner_greys_the_speed_out_when_only_a_smaller_batch_fits() -> None:
    """Llama-3.1-8B at batch 8 x 32,768 tokens on a 24 GB RTX 4090: 14.96 GiB of bf16 weights plus
    8 x 32,768 x 128 KiB = 32 GiB of KV cache; "Fits if you lower the batch" is no deployment of batch 8."""
    at = run_page(PLANNER, gpu="rtx-4090", batch="8", ctx="32768")
    assert not any(label.startswith("Decode") for label in _metrics(at))
    caption = next(c.value for c in at.caption if c.value.startswith("Speed greyed out"))
    assert "(Fits if you lower the batch" in caption


def test_compare_leaves_the_speed_empty_with_a_note_where_the_batch_does_not_fit() -> None:
    """The same 8B plan on Compare: the chosen GPU's longest context at batch 8 is below 32,768, so the speed
    cells are empty and the note gives the verdict; at batch 1 x 8,192 the same scenario has its figures."""
    at = run_page(COMPARE, gpu="rtx-4090", batch="8", ctx="32768", models=["meta-llama/Llama-3.1-8B"])
    row = at.dataframe[0].value.iloc[0]
    for column in ("decode tok/s per sequence @ 32,768 tokens (estimated)",
                   "time to first token, one 32,768-token prompt, ms (estimated)"):
        assert pd.isna(row[column]), column
    assert row["note"].startswith("speed not shown: Fits if you lower the batch to ")
    ok = run_page(COMPARE, gpu="rtx-4090", batch="1", ctx="8192", models=["meta-llama/Llama-3.1-8B"])
    fits = ok.dataframe[0].value.iloc[0]
    assert fits["decode tok/s per sequence @ 8,192 tokens (estimated)"] > 0 and fits["note"] == ""


def test_compare_speed_columns_use_the_context_given_and_say_per_sequence_and_total() -> None:
    at = run_page(COMPARE, gpu="h100-sxm", batch="2", ctx="8192", models=["meta-llama/Llama-3.1-8B"])
    row = at.dataframe[0].value.iloc[0]
    per = row["decode tok/s per sequence @ 8,192 tokens (estimated)"]
    total = row["decode tok/s total, whole batch @ 8,192 tokens (estimated)"]
    assert abs(total - 2 * per) <= 0.2                       # each rounded to 0.1
    one = row["time to first token, one 8,192-token prompt, ms (estimated)"]
    whole = row["prefill of the whole batch, 8,192-token prompts, ms (estimated)"]
    assert 1.8 < whole / one <= 2.0


def test_speed_tile_labels_fit_a_tile_at_1440_px() -> None:
    """A browser check (Chromium at 1,440 px, four speed tiles in a row, before they went two a row:
    dashboard.page.METRICS_PER_ROW) measured each tile's label box at 211 px and
    the labels at 5.6 px a character: 'Time to first token, one 8,192-token prompt (est.)' (285 px) and 'Prefill
    of the whole batch, 8 prompts (est.)' were cut. Every label stays within 37 characters at a six-digit context
    (131,072) and a four-digit batch, and at the largest context and batch kvcalc takes: a prompt of a million
    tokens or more is written 1.05M / 1.07B in the label (dashboard.text.compact), exactly in the tile's help."""
    from paths import load_config

    from dashboard.planner import _speed_tiles
    from kvcalc.deployment import deploy
    from kvcalc.speed import estimate_speed

    cfg = load_config("meta-llama/Llama-3.1-8B")
    e = estimate_speed(deploy(cfg, gpu="h200", gpus=1), 1024, 131_072)
    labels = [label for label, _, _ in _speed_tiles(e)]
    assert len(labels) == 4 and max(map(len, labels)) <= 37, labels
    from kvcalc.limits import MAX_BATCH, MAX_CONTEXT

    for batch, prompt in ((MAX_BATCH, MAX_CONTEXT), (8, 1_048_576)):
        tiles = _speed_tiles(estimate_speed(deploy(cfg, gpu="h200", gpus=1), batch, 4096, prompt_tokens=prompt))
        assert max(len(label) for label, _, _ in tiles) <= 37, [label for label, _, _ in tiles]
        assert f"one {prompt:,}-token prompt" in tiles[2][2]
