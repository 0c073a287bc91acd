"""The Compare page: several scenarios (model x attention variant x KV dtype x runtime) side by side.

One total-memory curve per scenario on the chosen GPU, and a table of the longest context each
scenario reaches on the 16 / 24 / 80 GB class representatives and on the chosen GPU.
"""
from __future__ import annotations

import csv
import io
import itertools
from typing import Any

import streamlit as st

import kvcalc
from kvcalc.engines import get_engine
from kvcalc.scenarios import (
    SPEED_CONTEXT,
    ComparePicks,
    CompareView,
    Scenario,
    ScenarioResult,
    compare,
    display_name,
    evaluate,
    loads_gguf,
    takes_vllm_options,
    total_limit,
)
from kvcalc.speed import (
    AMD_BANDWIDTH_FACTOR,
    AMD_FIXED_FACTOR,
    DEFAULT_BANDWIDTH_EFFICIENCY,
    DEFAULT_COMPUTE_EFFICIENCY,
    LLAMA_CPP_SM_STREAM_GBPS,
    LLAMA_CPP_VECTOR_BATCH,
)
from kvcalc.units import GiB
from kvcalc.variants import VARIANTS

from . import charts, inputs, page, state
from .text import count, md, safe_rows, short_name

MAX_SCENARIOS = 12
DEFAULT_MODELS = ["meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B"]
DEFAULT_RUNTIME = state.RUNTIMES[0]       # the Planner's default runtime (vllm), so both pages agree
CURVE_POINTS = 96
_SPEED_SHORT = {"decode tok/s per sequence @ ": "decode tok/s / sequence (est.)",
                "decode tok/s total, whole batch @ ": "decode tok/s, whole batch (est.)",
                "time to first token, one ": "TTFT / prompt ms (est.)",
                "prefill of the whole batch, ": "prefill, whole batch ms (est.)"}
"""Each speed column's name up to its context -> its short header."""


def speed_columns(context: int) -> tuple[str, str, str, str]:
    """The speed columns' full names at ``context`` tokens: decode per sequence and for the whole batch,
    time to first token of one prompt and the whole batch's prefill (kvcalc.speed.SpeedEstimate)."""
    return (f"decode tok/s per sequence @ {count(context, 'token')} (estimated)",
            f"decode tok/s total, whole batch @ {count(context, 'token')} (estimated)",
            f"time to first token, one {context:,}-token prompt, ms (estimated)",
            f"prefill of the whole batch, {context:,}-token prompts, ms (estimated)")


SPEED_COLUMN, TOTAL_COLUMN, TTFT_COLUMN, TTFT_BATCH_COLUMN = speed_columns(SPEED_CONTEXT)


@st.cache_data(show_spinner=False, max_entries=256)
def _evaluate(s: Scenario, config: dict[str, Any], **kw: Any) -> ScenarioResult:
    """:func:`kvcalc.scenarios.evaluate`, cached per scenario (a rerun that adds a pick computes only the new
    ones). Streamlit hashes the inputs itself, the plan options' engine records (llama.cpp's LlamaCppOptions,
    an uploaded GGUFHeader) included: no hand-made key to fall out of step with them."""
    return evaluate(s, config, **kw)


def _view(picks: ComparePicks) -> CompareView:
    """:func:`kvcalc.scenarios.compare` with the cached evaluator."""
    return compare(picks, max_scenarios=MAX_SCENARIOS, curve_points=CURVE_POINTS, max_context=state.MAX_CONTEXT_UI,
                   evaluator=_evaluate)


def _round(x: float | None, digits: int = 1) -> float | None:
    return None if x is None else round(x, digits)


def table_rows(results: list[ScenarioResult], batch: int, context: int = SPEED_CONTEXT) -> list[dict[str, Any]]:
    """One row per scenario; the speed columns at ``context`` tokens (the user's context), per sequence
    and for the whole batch (a scenario whose model stops earlier is estimated at its maximum). A scenario
    whose batch does not run at that context on the chosen GPU (``ScenarioResult.speed_runs``) has its
    speed cells empty and the verdict's reason in ``note`` (no deployment to be that fast), beside any class card
    the runtime refuses (its longest context 0)."""
    per_seq, total, ttft, ttft_batch = speed_columns(context)
    rows = []
    for r in results:
        s = r.scenario
        shown = (r.decode_tokens_per_s, r.decode_tokens_per_s_total, r.ttft_ms, r.ttft_batch_ms) if r.speed_runs \
            else (None,) * 4
        # the answer first: the longest contexts, then the speed, then what the scenario is
        row: dict[str, Any] = {"scenario": r.label, **r.longest,
                               per_seq: _round(shown[0]), total: _round(shown[1]),
                               ttft: _round(shown[2]), ttft_batch: _round(shown[3]), "note": r.note,
                               "model": s.model, "attention": s.attn,
                               "KV dtype": r.kv_dtype, "runtime": s.runtime, "batch": batch,
                               "KV bytes / token": r.kv_bytes_per_token, "weights bytes / GPU": r.weights_bytes,
                               "weights GiB / GPU": round(r.weights_bytes / GiB, 2)}
        rows.append(row)
    return rows


def short_header(column: str) -> str:
    """A narrow header for a wide column, so the longest-context columns fit beside the scenario at
    1,440 px ('longest context, 80 GB (NVIDIA H100 80GB HBM3 (SXM))' -> 'longest @ 80 GB (H100)': the class's card
    named, so an A100 80GB chosen is not read as the 80 GB column); the full name is the column's help, and the
    CSV keeps it."""
    if column.startswith("longest context, chosen: "):
        return "longest @ chosen GPU"
    if column.startswith("longest context, "):
        size, _, card = column.removeprefix("longest context, ").partition(" (")
        model = " ".join(itertools.takewhile(lambda w: "GB" not in w, short_name(card.removesuffix(")")).split(" ")))
        return f"longest @ {size} ({model})" if model else f"longest @ {size}"
    return next((short for head, short in _SPEED_SHORT.items() if column.startswith(head)), column)


def _is_speed(column: str) -> bool:
    return any(column.startswith(head) for head in _SPEED_SHORT)


def column_config(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Short headers, with the full column name as help; the speed columns show one decimal each (147.0 beside
    150.2, not 147: the cells are rounded to 0.1 by :func:`table_rows`)."""
    cols = list(rows[0]) if rows else []
    return {c: (st.column_config.NumberColumn(short_header(c), help=c, format="%.1f") if _is_speed(c)
                else st.column_config.Column(short_header(c), help=c))
            for c in cols if short_header(c) != c}


def to_csv(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def _seed_from_other_pages() -> None:
    """Arriving from the Planner or GPU fit: compare their model, KV dtype and runtime (unless the
    link says otherwise); the GPU, batch and options carry over by themselves (state.carry_over)."""
    model, kvdtype, runtime = (state.carried(k) for k in ("model", "kvdtype", "runtime"))
    source = state.carried("source")
    if model and source in (None, "bundled"):
        state.seed("models", [model] + [m for m in DEFAULT_MODELS if m != model][:1])
    state.seed("kvdtypes", [kvdtype] if kvdtype else None)
    state.seed("runtimes", [runtime] if runtime else None)


def _sidebar() -> ComparePicks:
    sb = st.sidebar
    _seed_from_other_pages()
    ids = [e.hub_id for e in kvcalc.catalog.catalog()]
    models = sb.multiselect("Models", ids, default=DEFAULT_MODELS, **state.bound("models"),
                            help="Bundled configs (offline), by Hub id.")
    attns = sb.multiselect("Attention", list(VARIANTS), default=["as configured"], **state.bound("attns"),
                           help="What-if variants: the same model with MHA / GQA / MQA / a sliding window.")
    variant: dict[str, Any] = {}
    if "gqa" in attns:
        variant["kv_heads"] = int(sb.number_input("GQA: KV heads", min_value=1, max_value=1024, value=8,
                                                  **state.bound("attn_kv")))
    if "sliding" in attns:
        variant["window"] = int(sb.number_input("Sliding: window (tokens)", min_value=1,
                                                max_value=state.MAX_CONTEXT_UI, value=4096,
                                                **state.bound("attn_window")))
        variant["pattern"] = sb.text_input("Sliding: 'all' or local:global like 5:1", value="all",
                                           **state.bound("attn_pattern"))
    kvdtypes = sb.multiselect("KV-cache dtype", state.KV_DTYPES, default=["auto"], **state.bound("kvdtypes"),
                              help="auto = the model dtype")
    runtimes = sb.multiselect("Runtime", state.RUNTIMES, default=[DEFAULT_RUNTIME], **state.bound("runtimes"),
                              help="vLLM (paged, the Planner's default), transformers (plain generate) or the "
                                   "ideal minimum")
    gpu = inputs.gpu_inputs(sb)
    batch = int(sb.number_input("Batch", min_value=1, max_value=state.MAX_BATCH_UI, value=1, **state.bound("batch"),
                                help=f"Concurrent sequences, 1 to {state.MAX_BATCH_UI:,}."))
    context = int(sb.number_input("Context for the speed columns (tokens)", min_value=1,
                                  max_value=state.MAX_CONTEXT_UI, value=SPEED_CONTEXT, **state.bound("ctx"),
                                  help="Tokens per sequence the decode speed and the prompt length the time to "
                                       "first token are estimated at (the Planner's context carries over)."))
    dtype = inputs.weights_dtype_input(sb)
    # the options of the first runtime that takes vLLM's (they are the shared ones), else of the first picked
    shown = next((r for r in runtimes if takes_vllm_options(r)), (runtimes or [DEFAULT_RUNTIME])[0])
    options = inputs.runtime_options(sb, shown, gpu["gpus"])
    log_x = sb.toggle("Log-scale context axis", value=True, **state.bound("logx"))
    return ComparePicks(tuple(models), tuple(attns), tuple(kvdtypes), tuple(runtimes), gpu, batch, variant,
                        bool(log_x), options, dtype, context)


_NAMES = {"models": "a model", "attns": "an attention variant", "kvdtypes": "a KV-cache dtype",
          "runtimes": "a runtime"}


def render() -> None:
    page.start("Compare scenarios", state.COMPARE)
    st.caption("Models x attention variants x KV-cache dtypes x runtimes side by side: total memory per GPU "
               "against context, and the longest context each scenario reaches on each GPU class.")
    picks = _sidebar()
    inputs.share_box(state.COMPARE, "Compare")
    missing = [k for k in _NAMES if not getattr(picks, k)]
    if missing:
        st.info("Pick at least " + ", ".join(md(_NAMES[k]) for k in missing) + " to compare.")
        return
    view = _view(picks)
    if view.picked > view.shown:
        st.info(f"{view.picked:,} combinations picked; showing the first {view.shown:,} "
                f"(models first, then attention, KV dtype, runtime). Remove some choices to see the rest.")
    for err in view.load_errors:
        st.error(md(err))
    for reason, labels in view.refused:
        st.info(f"Not compared ({md(', '.join(labels))}): {md(reason)}")
    gguf = [get_engine(r).label for r in picks.runtimes if loads_gguf(r)]
    if picks.dtype and gguf and len(gguf) < len(picks.runtimes):
        st.caption(f"Weights dtype {md(picks.dtype)} applies to the other runtimes: {md(', '.join(gguf))} reads a "
                   "GGUF file, whose types are its weights (the file type in its options).")
    if not view.results:
        st.error("None of the picked scenarios can be planned; see the notes above.")
        _not_compared(view)
        return
    st.plotly_chart(chart(view, picks.log_x), width="stretch", key="compare_chart")
    st.caption(md(chart_caption(series(view), view.capacities[0])))
    _table(view, picks.batch, picks.gpu.get("gpus", 1), picks.context)


def series(view: CompareView) -> list[charts.Series]:
    """The chart's curves: each scenario's kvcalc curve with its engine's label and its budget on the chosen GPU."""
    return [_series(r) for r in view.results]


def _series(r: ScenarioResult) -> charts.Series:
    """Scenario ``r``'s curve against the line its total is read against: the engine's budget, or its budget plus
    its overhead where that sits outside the budget (SGLang; kvcalc.scenarios.total_limit)."""
    eng = get_engine(r.scenario.runtime)
    limit = total_limit(r.scenario.runtime, r.budget_bytes, r.curve[0].overhead if r.curve else 0)
    return charts.Series(r.label, r.curve, eng.label, limit,
                         f"{eng.label} budget + its overhead" if limit != r.budget_bytes else "")


def chart(view: CompareView, log_x: bool) -> charts.Figure:
    """Fewer than :data:`dashboard.charts.PANELS_FROM` scenarios: one chart, one budget line per engine and the
    GPU lines (the chosen GPU, the 16 / 24 / 80 GB classes); from there up, one panel per scenario on shared axes,
    each with its engine's budget and the chosen GPU (nine lines in one plot cannot be told apart)."""
    items = series(view)
    gpu = view.capacities[0]
    if len(items) >= charts.PANELS_FROM:
        return charts.panels_chart(items, log_x=log_x, gpu=gpu, title=view.title)
    classes = [c for c in view.capacities[1:] if " GB class (" in c[0]]
    return charts.curves_chart(items, log_x=log_x, capacities=[gpu, *classes], title=view.title)


def chart_caption(items: list[charts.Series], gpu: tuple[str, int]) -> str:
    """What the chart's lines are, and each engine's budget on the chosen GPU ``gpu`` (label, bytes) in GiB (plain
    text: the caller escapes it)."""
    n = len(items)
    outside = "".join(sorted({f" {s.engine}'s own budget covers the weights and the KV pool; its overhead sits "
                              f"outside it, so its line is the budget plus that overhead." for s in items
                              if s.budget_name}))
    sizes = ", ".join(f"{label.removesuffix(' budget')} {b / GiB:.2f} GiB" + (" (the whole GPU)" if b == gpu[1] else "")
                      for label, b in charts.budget_lines(items))
    lines = ("each panel: its scenario's total, its engine's budget (dash-dot) and the chosen GPU's memory (dashed); "
             "the panels share both axes." if n >= charts.PANELS_FROM else
             "one budget line (dash-dot) per engine, labelled with it; the chosen GPU dashed, the 16 / 24 / 80 GB "
             "classes dotted.")
    return ("Total = weights + KV cache + the runtime's overhead per GPU (GiB = 2^30 bytes); "
            + lines + f" The budget is what the engine may use on the {gpu[0]} ({gpu[1] / GiB:.2f} GiB): "
            f"{sizes}." + outside + " The y axis ends near the GPU and the budgets; hover for the total and its share "
            "of the scenario's budget.")


def _table(view: CompareView, batch: int, gpus: int, context: int = SPEED_CONTEXT) -> None:
    st.subheader(f"Longest context at batch {batch:,}")
    rows = table_rows(list(view.results), batch, context)
    st.dataframe(safe_rows(rows), hide_index=True, width="stretch", key="compare_table",
                 column_config=column_config(rows))
    st.caption(f"{count(gpus, 'GPU')} of each kind; bytes are per GPU. 0 = not even one token fits at this "
               "batch (the weights or the runtime's overhead exceed the budget). vLLM: the longest max_model_len "
               "whose requests fit the KV pool. Contexts stop at each model's maximum. KV bytes / token: the ideal "
               "layout at batch 1 in the scenario's KV dtype.")
    st.caption(f"Speed columns are estimates (kvcalc.speed) at batch {batch:,} and "
               f"{count(context, 'token')} per sequence on the chosen GPU: decode tok/s per sequence (one stream) and "
               "total (the whole batch); time to first "
               "token for one prompt of that length and the prefill of the whole batch's prompts. Decode step = "
               f"(weights read + every sequence's KV cache) / (memory bandwidth x {DEFAULT_BANDWIDTH_EFFICIENCY:g}) "
               "or the FLOPs where longer, + fitted per-layer, per-expert and all-reduce costs; prefill = (2 x active "
               f"parameters x prompt + attention) FLOPs / (tensor rate x {DEFAULT_COMPUTE_EFFICIENCY:g}); on an AMD "
               f"GPU memory read at 1/{AMD_BANDWIDTH_FACTOR:g} of that share and the fixed costs x "
               f"{AMD_FIXED_FACTOR:g} (fitted on published MI300X figures); under llama.cpp on an NVIDIA GPU, at up "
               f"to {LLAMA_CPP_VECTOR_BATCH:d} sequences, the bandwidth is at most {LLAMA_CPP_SM_STREAM_GBPS:g} GB/s x "
               "its SMs; constants "
               "from published measurements (docs/speed.md); MoE under uniform routing. Empty: the GPU's bandwidth "
               "or tensor rate is unknown, or the batch does not run at that context on the chosen GPU (note).")
    st.download_button("Table (CSV)", to_csv(rows), file_name="kv_planner_compare.csv", mime="text/csv",
                       on_click="ignore", key="dl_compare_csv")
    _not_compared(view)


def not_compared_lines(view: CompareView) -> list[str]:
    """One plain-text line per scenario kvcalc refused (kvcalc.scenarios.CompareView.not_compared), in the order
    picked: the whole scenario (model, attention, KV dtype, runtime) and the engine's reason, so a refused scenario
    stays on the page beside the rows compared instead of dropping out of the table."""
    return [f"{display_name(s.model)} · {s.attn} · KV {s.kvdtype} · {s.runtime}: {reason}"
            for s, _, reason in view.not_compared]


def _not_compared(view: CompareView) -> None:
    """The refused scenarios under their own heading after the table, each with the engine's reason (e.g. llama.cpp
    has no fp8 KV-cache type), as a list: a reason is a sentence, too long for a table cell."""
    lines = not_compared_lines(view)
    if not lines:
        return
    st.subheader("Not compared")
    st.markdown("\n".join(f"- {md(line)}" for line in lines))
