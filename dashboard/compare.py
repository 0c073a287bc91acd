"""The Compare page: several scenarios (model x attention variant x KV dtype x runtime) side by side.

One total-memory curve per scenario on the chosen GPU, and a table of the longest context each
scenario reaches on the 16 / 24 / 80 GB class representatives and on the chosen GPU.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import itertools
from dataclasses import dataclass
from typing import Any

import streamlit as st

import kvcalc
from kvcalc.capacity import CurvePoint, Deployment, deploy, memory_curve, plan
from kvcalc.catalog import bundled_config, find_entry
from kvcalc.errors import KVCalcError
from kvcalc.gpus import CLASS_REPRESENTATIVES, custom_gpu, get_gpu
from kvcalc.plan import PlanResult
from kvcalc.speed import DEFAULT_BANDWIDTH_EFFICIENCY, DEFAULT_COMPUTE_EFFICIENCY, estimate_speed
from kvcalc.units import GiB
from kvcalc.variants import VARIANTS, apply_variant
from kvcalc.verdict import judge

from . import charts, inputs, page, state
from .engine_inputs import compare_defaults
from .sources import load_model
from .text import md, safe_rows

MAX_SCENARIOS = 12
DEFAULT_MODELS = ["meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B"]
DEFAULT_RUNTIME = state.RUNTIMES[0]       # the Planner's default runtime (vllm), so both pages agree
CURVE_POINTS = 96
CLASSES = tuple(sorted(CLASS_REPRESENTATIVES))


@dataclass(frozen=True)
class Scenario:
    model: str          # Hub id of a bundled model
    attn: str           # a kvcalc.variants.VARIANTS name
    kvdtype: str        # a state.KV_DTYPES name ("auto" = the model dtype)
    runtime: str        # ideal / transformers / vllm


@dataclass(frozen=True)
class ScenarioResult:
    scenario: Scenario
    label: str
    curve: list[CurvePoint]
    weights_bytes: int              # per GPU on the chosen GPU
    kv_bytes_per_token: int         # ideal layout, batch 1, below every window
    kv_dtype: str
    budget_bytes: int               # the chosen GPU's budget under this runtime
    longest: dict[str, int]         # column name -> longest context (0 = nothing fits)
    decode_tokens_per_s: float | None = None   # estimated, per sequence at SPEED_CONTEXT (None: GPU figure unknown)
    ttft_ms: float | None = None               # estimated time to first token for one SPEED_CONTEXT-token prompt


SPEED_CONTEXT = 4096
"""Context at which the table's decode speed is estimated (tokens per sequence)."""
SPEED_COLUMN = f"decode tok/s per sequence @ {SPEED_CONTEXT:,} (estimated)"
TTFT_COLUMN = f"time to first token, {SPEED_CONTEXT:,}-token prompt, ms (estimated)"


def display_name(hub_id: str) -> str:
    e = find_entry(hub_id)
    return e.display_name if e else hub_id


def scenarios(models: list[str], attns: list[str], kvdtypes: list[str], runtimes: list[str]) -> list[Scenario]:
    """Every combination, models outermost, in the order picked."""
    return [Scenario(*c) for c in itertools.product(models, attns, kvdtypes, runtimes)]


def label(s: Scenario, varying: dict[str, bool]) -> str:
    """Legend text: the model plus only the dimensions that differ between scenarios."""
    parts = [display_name(s.model)] if varying["models"] or not any(varying.values()) else []
    if varying["attns"]:
        parts.append(s.attn)
    if varying["kvdtypes"]:
        parts.append(f"KV {s.kvdtype}")
    if varying["runtimes"]:
        parts.append(s.runtime)
    return " · ".join(parts)


def gpu_class_label(gb: int) -> str:
    return f"longest context, {gb} GB ({get_gpu(CLASS_REPRESENTATIVES[gb]).name})"


def scenario_options(s: Scenario, gpu: dict[str, Any], options: dict[str, Any] | None = None,
                     dtype: str | None = None) -> dict[str, Any]:
    """kvcalc.plan options of one scenario: the GPU, the weights dtype, the scenario's KV dtype and
    runtime, and the shared parallelism / vLLM options (the vLLM ones for a vLLM scenario only),
    merged by the Planner's own rule (dashboard.inputs.plan_options)."""
    runtime = {k: v for k, v in (options or {}).items() if s.runtime == "vllm" or k not in inputs.VLLM_OPTION_KEYS}
    kv_dtype = None if s.kvdtype == "auto" else s.kvdtype
    return inputs.plan_options(gpu, {"dtype": dtype, "kv_dtype": kv_dtype}, {**runtime, "runtime": s.runtime})


def served_longest(setup: Deployment, p: PlanResult) -> int:
    """The longest context per sequence at the plan's batch as the Planner's verdict states it
    (kvcalc.verdict.judge: under vLLM the longest ``--max-model-len`` with which vLLM starts and
    holds the batch), so both pages give one number; 0 when nothing fits."""
    return judge(setup, p).longest or 0


def evaluate(s: Scenario, config: dict[str, Any], *, gpu: dict[str, Any], batch: int, variant: dict[str, Any],
             contexts: list[int], name: str, options: dict[str, Any] | None = None,
             dtype: str | None = None) -> ScenarioResult:
    """Curve + longest contexts for one scenario; raises KVCalcError when kvcalc refuses it."""
    spec = apply_variant(kvcalc.read_spec(config), s.attn, kv_heads=variant.get("kv_heads"),
                         window=variant.get("window"), pattern=variant.get("pattern"))
    kv_dtype = None if s.kvdtype == "auto" else s.kvdtype
    opts = {**scenario_options(s, gpu, options, dtype), **compare_defaults(s.runtime)}
    setup = deploy(spec, config_dict=config, **opts)       # once: every figure below reads it
    pts = [c for c in contexts if c <= setup.context_cap]
    curve = memory_curve(setup, batch, pts)
    here = plan(setup, batch=batch, context=pts[-1], solve_gpus=False)
    longest = {f"longest context, {name}": served_longest(setup, here)}
    for gb in CLASSES:
        there = setup.with_gpu(CLASS_REPRESENTATIVES[gb])
        p = plan(there, batch=batch, context=pts[-1], solve_gpus=False)
        longest[gpu_class_label(gb)] = served_longest(there, p)
    per_token = kvcalc.kv_cache(spec, batch=1, context=1, kv_dtype=kv_dtype).bytes_per_token
    speed = estimate_speed(setup, batch, min(SPEED_CONTEXT, setup.context_cap))
    return ScenarioResult(s, "", curve, setup.weights_rank, per_token, here.kv_dtype, here.budget_bytes, longest,
                          speed.decode_tokens_per_s_per_sequence,
                          None if speed.ttft_seconds is None else speed.ttft_seconds * 1e3)


@st.cache_data(show_spinner=False, max_entries=256)
def _evaluate_bundled(model: str, attn: str, kvdtype: str, runtime: str, gpu: tuple, batch: int, variant: tuple,
                      contexts: tuple, name: str, options: dict[str, Any] | None = None,
                      dtype: str | None = None) -> ScenarioResult:
    """:func:`evaluate` for a bundled model, cached on its inputs (a rerun recomputes only new scenarios).
    ``options`` are the plan options as the widgets give them, engine option records included
    (llama.cpp's LlamaCppOptions, an uploaded GGUFHeader): Streamlit's cache hashes those dataclasses itself."""
    return evaluate(Scenario(model, attn, kvdtype, runtime), bundled_config(model), gpu=dict(gpu), batch=batch,
                    variant=dict(variant), contexts=list(contexts), name=name, options=options,
                    dtype=dtype)


def table_rows(results: list[ScenarioResult], batch: int) -> list[dict[str, Any]]:
    rows = []
    for r in results:
        s = r.scenario
        # the answer first: the longest contexts, then the speed, then what the scenario is
        row: dict[str, Any] = {"scenario": r.label, **r.longest,
                               SPEED_COLUMN: None if r.decode_tokens_per_s is None else round(r.decode_tokens_per_s, 1),
                               TTFT_COLUMN: None if r.ttft_ms is None else round(r.ttft_ms, 1),
                               "model": s.model, "attention": s.attn,
                               "KV dtype": r.kv_dtype, "runtime": s.runtime, "batch": batch,
                               "KV bytes / token": r.kv_bytes_per_token, "weights bytes / GPU": r.weights_bytes,
                               "weights GiB / GPU": round(r.weights_bytes / GiB, 2)}
        rows.append(row)
    return rows


def short_header(column: str) -> str:
    """A narrow header for a wide column, so the longest-context columns fit beside the scenario at
    1,440 px ('longest context, 24 GB (GeForce RTX 4090 24GB)' -> 'longest @ 24 GB'); the full name
    is the column's help, and the CSV keeps it."""
    if column.startswith("longest context, chosen: "):
        return "longest @ chosen GPU"
    if column.startswith("longest context, "):
        return "longest @ " + column.removeprefix("longest context, ").partition(" (")[0]
    return {SPEED_COLUMN: "decode tok/s (est.)", TTFT_COLUMN: "TTFT ms (est.)"}.get(column, column)


def column_config(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Short headers, with the full column name as help."""
    cols = list(rows[0]) if rows else []
    return {c: st.column_config.Column(short_header(c), help=c) for c in cols if short_header(c) != c}


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


@dataclass(frozen=True)
class Picks:
    """What the Compare sidebar picked."""

    models: list[str]
    attns: list[str]
    kvdtypes: list[str]
    runtimes: list[str]
    gpu: dict[str, Any]
    batch: int
    variant: dict[str, Any]
    log_x: bool
    options: dict[str, Any]
    dtype: str | None


def _sidebar() -> Picks:
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
    dtype = inputs.weights_dtype_input(sb)
    options = inputs.runtime_options(sb, "vllm" if "vllm" in runtimes else (runtimes or [DEFAULT_RUNTIME])[0],
                                     gpu["gpus"])
    log_x = sb.toggle("Log-scale context axis", value=True, **state.bound("logx"))
    return Picks(list(models), list(attns), list(kvdtypes), list(runtimes), gpu, batch, variant, log_x, options,
                 dtype)


def render() -> None:
    page.start("Compare scenarios", state.COMPARE)
    st.caption("Models x attention variants x KV-cache dtypes x runtimes side by side: total memory per GPU "
               "against context, and the longest context each scenario reaches on each GPU class.")
    picks = _sidebar()
    models, attns, kvdtypes, runtimes, gpu, batch, variant, log_x = (
        picks.models, picks.attns, picks.kvdtypes, picks.runtimes, picks.gpu, picks.batch, picks.variant, picks.log_x)
    page.share_box("Compare")
    picked = {"models": models, "attns": attns, "kvdtypes": kvdtypes, "runtimes": runtimes}
    missing = [k for k, v in picked.items() if not v]
    if missing:
        names = {"models": "a model", "attns": "an attention variant", "kvdtypes": "a KV-cache dtype",
                 "runtimes": "a runtime"}
        st.info("Pick at least " + ", ".join(names[k] for k in missing) + " to compare.")
        return
    every = scenarios(models, attns, kvdtypes, runtimes)
    shown = every[:MAX_SCENARIOS]
    if len(every) > MAX_SCENARIOS:
        st.info(f"{len(every)} combinations picked; showing the first {MAX_SCENARIOS} "
                f"(models first, then attention, KV dtype, runtime). Remove some choices to see the rest.")
    varying = {k: len(v) > 1 for k, v in picked.items()}

    configs: dict[str, dict[str, Any]] = {}
    for m in dict.fromkeys(s.model for s in shown):
        choice = load_model("bundled", m)
        if choice.error or choice.config is None:
            st.error(f"{md(display_name(m))}: {md(choice.error or 'not loaded')}")
        else:
            configs[m] = choice.config
    device = get_gpu(gpu["gpu"]) if "gpu" in gpu else custom_gpu(gpu["gpu_mem_gib"])
    gpu_name = device.name if "gpu" in gpu else f"Custom GPU ({gpu['gpu_mem_gib']:g} GiB)"
    caps = []
    for cfg in configs.values():
        try:
            caps.append(kvcalc.read_spec(cfg).max_position_embeddings or 131072)
        except KVCalcError:
            pass
    top = min(max(caps or [131072]), state.MAX_CONTEXT_UI)
    contexts = charts.context_points(top, log_x, extra=caps, n=CURVE_POINTS)

    results: list[ScenarioResult] = []
    refused: dict[str, list[str]] = {}
    for s in shown:
        if s.model not in configs:
            continue
        lab = label(s, varying)
        try:
            r = _evaluate_bundled(s.model, s.attn, s.kvdtype, s.runtime, tuple(sorted(gpu.items())), batch,
                                  tuple(sorted(variant.items())), tuple(contexts), f"chosen: {gpu_name}",
                                  picks.options, picks.dtype)
        except KVCalcError as e:
            refused.setdefault(str(e), []).append(lab)
            continue
        results.append(dataclasses.replace(r, label=lab))
    for reason, labels in refused.items():
        st.info(f"Not plotted ({md(', '.join(labels))}): {md(reason)}")
    if not results:
        st.error("None of the picked scenarios can be planned; see the notes above.")
        return

    fixed = [f"{display_name(models[0])}"] if not varying["models"] else []
    fixed += [attns[0]] if not varying["attns"] else []
    fixed += [f"KV {kvdtypes[0]}"] if not varying["kvdtypes"] else []
    fixed += [runtimes[0]] if not varying["runtimes"] else []
    capacities: list[tuple[str, int]] = [(gpu_name, device.memory_bytes)]
    vllm_budget = next((r.budget_bytes for r in results if r.scenario.runtime == "vllm"), None)
    if vllm_budget:
        capacities.append(("vLLM budget (gpu_memory_utilization x memory)", vllm_budget))
    for gb in CLASSES:
        g = get_gpu(CLASS_REPRESENTATIVES[gb])
        if g.key != gpu.get("gpu"):
            capacities.append((f"{gb} GB class ({g.name})", g.memory_bytes))
    title = f"Total memory per GPU vs context, batch {batch:,}, {gpu.get('gpus', 1)} x {gpu_name}"
    if fixed:
        title += " - " + ", ".join(fixed)
    fig = charts.curves_chart({r.label: r.curve for r in results}, log_x=log_x, capacities=capacities, title=title)
    st.plotly_chart(fig, width="stretch", key="compare_chart")

    st.subheader(f"Longest context at batch {batch:,}")
    rows = table_rows(results, batch)
    st.dataframe(safe_rows(rows), hide_index=True, width="stretch", key="compare_table",
                 column_config=column_config(rows))
    st.caption(f"{gpu.get('gpus', 1)} GPU(s) of each kind; bytes are per GPU. 0 = not even one token fits at this "
               "batch (the weights or the runtime's overhead exceed the budget). vLLM: the longest max_model_len "
               "whose requests fit the KV pool. Contexts stop at each model's maximum. KV bytes / token: the ideal "
               "layout at batch 1 in the scenario's KV dtype.")
    st.caption(f"Speed columns are estimates (kvcalc.speed), at the chosen batch and {SPEED_CONTEXT:,} tokens on "
               "the chosen GPU: decode step = (weights read + every sequence's KV cache) / (memory bandwidth x "
               f"{DEFAULT_BANDWIDTH_EFFICIENCY:g}); time to first token = (2 x active parameters x prompt + "
               f"attention) FLOPs / (bf16 tensor rate x {DEFAULT_COMPUTE_EFFICIENCY:g}); efficiencies are medians "
               "of published measurements; MoE under uniform routing; dequantization, GPU-to-GPU communication "
               "and launch overheads are not modelled. Empty: the GPU's bandwidth or tensor rate is unknown.")
    st.download_button("Table (CSV)", to_csv(rows), file_name="kv_planner_compare.csv", mime="text/csv",
                       on_click="ignore",
                       key="dl_compare_csv")
