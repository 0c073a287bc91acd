"""The Planner's round-three leftovers (issue 25, item 7) and its speed changes (item 6), under AppTest.

Reference figures are the models' published configs (the bundled verbatim config.json files) and plain
arithmetic on them, or kvcalc's own figure where the page must agree with it:

- Llama-3.1-8B: 32 layers, 8 KV heads, head_dim 128, bf16: 32 x 2 x 8 x 128 x 2 = 131,072 B per token
  (kvcalc.kv_cache's docstring); ``max_position_embeddings`` 131,072.
- Gemma-3-1B: 26 layers, 1 KV head, head_dim 256, window 512, pattern 5 sliding : 1 full; a full layer
  at 4,096 tokens holds 4,096 x 2 x 256 x 2 B = 4 MiB, a sliding one 512 x 1,024 B = 512 KiB.
- vLLM issue 10517's RTX 3090 startup log (tests/fixtures/startup_logs): it prints non-torch memory, which
  ``kvcalc plan --json`` has no separate figure for (not compared).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from apptest import MARKDOWN_ESCAPES, PLANNER, caption_text, rerun, run_page
from paths import ROOT

import kvcalc
from dashboard.planner import SPEED_CHART_OPEN
from kvcalc.catalog import bundled_config

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest
LLAMA = "meta-llama/Llama-3.1-8B"
KV_LLAMA = 32 * 2 * 8 * 128 * 2
MiB = 1 << 20


def _text(values) -> str:
    return " ".join(v.value for v in values).translate(MARKDOWN_ESCAPES)


# --------------------------------------------------------------------------- binding constraint
def test_a_longest_context_at_the_model_maximum_says_the_model_maximum_binds():
    """Llama-3.1-8B on an H100 at 1 x 8,192: the pool holds far more than one sequence of 131,072 tokens
    (26,882 blocks of 16 tokens = 430,112 tokens), so the longest context stops at the model's maximum."""
    assert bundled_config(LLAMA)["max_position_embeddings"] == 131_072
    at = run_page(PLANNER, model=LLAMA, gpu="h100-sxm", batch="1", ctx="8192", open_runtimes=False)
    assert next(m.value for m in at.metric if m.label == "Longest context") == "131,072 tokens"
    text = caption_text(at)
    assert "the model maximum (131,072 tokens, max_position_embeddings) caps the longest context, not memory" \
        in text
    assert "the batch is bound by KV pages" in text


def test_a_longest_context_memory_caps_keeps_the_plain_binding_caption():
    """Llama-3.1-8B on an RTX 4090 (24,564 MiB) at batch 8: memory ends the context long before 131,072."""
    at = run_page(PLANNER, model=LLAMA, gpu="rtx-4090", batch="8", ctx="4096", open_runtimes=False)
    longest = next(m.value for m in at.metric if m.label == "Longest context")
    assert longest != "131,072 tokens"
    text = caption_text(at)
    assert "Binding constraint: " in text and "model maximum" not in text


# --------------------------------------------------------------------------- per-layer table
def test_per_layer_table_shows_sizes_with_units_and_hides_the_raw_bytes():
    at = run_page(PLANNER, model="google/gemma-3-1b-it", runtime="ideal", batch="1", ctx="4096",
                  open_runtimes=False)
    table = at.dataframe[0]
    rows = table.value.to_dict("records")
    assert rows[0]["layers"] == "0-4" and rows[0]["size each"] == "512.00 KiB" and rows[0]["size in run"] == \
        "2.50 MiB"
    assert rows[1]["layers"] == "5" and rows[1]["size each"] == "4.00 MiB"           # 4,096 x 1,024 B
    assert rows[1]["bytes each"] == 4 * MiB                                           # exact, in the data
    hidden = {k for k, v in json.loads(table.proto.columns).items() if v.get("hidden")}
    assert {"bytes each", "bytes in run"} <= hidden                                  # not drawn


# --------------------------------------------------------------------------- KV formula
def test_the_formulas_expander_gives_the_kv_per_token_formula_with_the_model_numbers():
    at = run_page(PLANNER, model=LLAMA, gpu="h100-sxm", open_runtimes=False)
    per_token = kvcalc.kv_cache(bundled_config(LLAMA), batch=1, context=1).bytes_per_token
    assert per_token == KV_LLAMA == 131_072
    text = _text(at.markdown)
    assert "KV bytes per token = layers x 2 x kv_heads x head_dim x bfloat16 bytes = 32 x 2 x 8 x 128 x 2 = " \
           "131,072 B (128.00 KiB) per token" in text


def test_kv_formula_of_a_hybrid_and_an_mla_model():
    """Gemma-3-1B: one group of 26 layers (the window only caps sliding layers later); DeepSeek-V2-Lite caches
    a latent, not K/V heads: kvcalc's figure alone."""
    from dashboard.planner import kv_token_formula
    from kvcalc.dtypes import get_dtype

    gemma = kvcalc.read_spec(bundled_config("google/gemma-3-1b-it"))
    line = kv_token_formula(gemma, get_dtype("bfloat16"), 26 * 2 * 1 * 256 * 2)
    assert "26 x 2 x 1 x 256 x 2 = 26,624 B" in line and "window" in line
    mla = kvcalc.read_spec(bundled_config("deepseek-ai/DeepSeek-V2-Lite"))
    per = kvcalc.kv_cache(mla, batch=1, context=1).bytes_per_token
    assert kv_token_formula(mla, get_dtype("bfloat16"), per) == \
        f"KV bytes per token = {per:,} B (30.38 KiB) per token (kvcalc.kv_cache, every layer's cache of one token)"
    # a figure the terms do not reproduce is never shown as their product
    assert "x 2 x" not in kv_token_formula(gemma, get_dtype("bfloat16"), 1)


# --------------------------------------------------------------------------- copy button, downloads
def test_code_blocks_keep_their_copy_button_visible():
    """Streamlit hides a code block's copy button until hovered; the page's CSS shows it (both themes:
    the rule sets no colour). tests/browser/test_browser_planner_leftovers.py checks it drawn."""
    from dashboard.page import COPY_BUTTON_CSS

    at = run_page(PLANNER, model=LLAMA, open_runtimes=False)
    assert any(c.value.startswith("vllm serve ") for c in at.code)                  # the launch command
    assert any(COPY_BUTTON_CSS in h.proto.body for h in at.get("html"))


# --------------------------------------------------------------------------- offline Hub fallback
def test_an_offline_hub_id_planned_with_the_bundled_config_is_amber_not_red(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = run_page(PLANNER, source="hub", hub="hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4",
                  gpu="h100-sxm", gpus="2", ctx="8192", open_runtimes=False)
    assert not at.sidebar.error
    notice = _text(at.sidebar.warning)
    assert "planned with the bundled config" in notice and "meta-llama/Llama-3.1-70B" in notice
    # 80 layers x 8 KV heads x 256 x 2 B / 2 GPUs per token: the page did plan
    per_gpu = 8192 * 80 * 8 * 256 * 2 // 2
    assert next(m.value for m in at.metric if m.label == "KV cache / GPU") == f"{per_gpu / 2**30:.2f} GiB"


def test_an_offline_hub_id_without_a_bundled_match_stays_red(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = run_page(PLANNER, source="hub", hub="acme/nothing-like-it", open_runtimes=False)
    assert at.sidebar.error


# --------------------------------------------------------------------------- startup-log table
def test_the_calibration_table_says_not_compared_instead_of_a_dash():
    """st.table renders cells as Markdown, where a lone "-" is an empty bullet."""
    at = run_page(PLANNER, model=LLAMA, open_runtimes=False)
    log = Path(ROOT) / "tests" / "fixtures" / "startup_logs" / "vllm__llama-3.1-8b-instruct__1.log"
    at.text_area(key="startup_log_text").set_value(log.read_text(encoding="utf-8"))
    rerun(at)
    rows = {r["figure"]: r for t in at.table for r in t.value.to_dict("records")}
    assert rows["non_torch"]["observed"] == "0.35 GiB" and rows["non_torch"]["agrees"] == "not compared"
    assert all(r["agrees"] in ("yes", "NO", "not compared") for r in rows.values())


# --------------------------------------------------------------------------- speed (item 6)
def test_the_runtimes_table_is_computed_only_when_opened():
    closed = run_page(PLANNER, model=LLAMA, gpu="h100-sxm", open_runtimes=False)
    assert not any("binding constraint or refusal" in t.value.columns for t in closed.dataframe)
    assert any(e.label.startswith("Runtimes side by side") for e in closed.expander)
    opened = run_page(PLANNER, model=LLAMA, gpu="h100-sxm")
    table = next(t.value for t in opened.dataframe if "binding constraint or refusal" in t.value.columns)
    assert "vLLM" in set(table["runtime"]) and len(table) == len(kvcalc.engines.names())


def test_the_decode_speed_chart_is_drawn_only_when_opened():
    at = run_page(PLANNER, model=LLAMA, gpu="h100-sxm", open_runtimes=False)
    assert len(at.get("plotly_chart")) == 1                  # the memory chart
    assert any(e.label == "Decode speed vs context (estimated)" for e in at.expander)


@pytest.mark.parametrize("query", [
    {},
    {"logx": "false", "curves": ["8", "32"], "yall": "true"},
    {"model": "google/gemma-3-1b-it", "runtime": "ideal", "ctx": "4096"},
    {"gpu": "rtx-4090", "batch": "8", "ctx": "32768"},
])
def test_charts_sent_without_plotly_validation_are_the_validated_json(query):
    """dashboard.page.prevalidated skips plotly's Figure validation in st.plotly_chart: each chart the Planner
    sends must be exactly what validation gives (plotly.graph_objects.Figure raises on any invalid property)."""
    import plotly.graph_objects as go
    import plotly.io as pio

    at = AppTest.from_file(os.path.join(ROOT, PLANNER), default_timeout=60)
    at.session_state[SPEED_CHART_OPEN] = True                 # the decode-speed chart's lazy expander opened
    for k, v in query.items():
        at.query_params[k] = v
    charts = rerun(at).get("plotly_chart")
    assert len(charts) == 2                                   # memory and decode speed
    for c in charts:
        sent = json.loads(c.proto.spec)
        plain = {**sent, "layout": {k: v for k, v in sent["layout"].items() if k != "template"}}
        validated = json.loads(pio.to_json(go.Figure(plain).to_dict(), validate=False))
        assert _no_empty_lists(sent) == validated      # validation drops an empty list (no shapes): the same chart


def _no_empty_lists(value):
    """``value`` without the keys whose value is an empty list (plotly.js reads "annotations": [] as none)."""
    if isinstance(value, dict):
        return {k: _no_empty_lists(v) for k, v in value.items() if v != []}
    if isinstance(value, list):
        return [_no_empty_lists(v) for v in value]
    return value
