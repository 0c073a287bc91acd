"""The Compare page: several scenarios (model x attention variant x KV dtype x runtime) side by side.

One total-memory curve per scenario on the chosen GPU, and a table of the longest context each
scenario reaches on the 16 / 24 / 80 GB class representatives and on the chosen GPU.
"""
from __future__ import annotations

import csv
import io
import itertools
from dataclasses import dataclass
from typing import Any

import streamlit as st

import kvcalc
from kvcalc.capacity import CurvePoint, deploy, memory_curve, plan
from kvcalc.catalog import bundled_config, find_entry
from kvcalc.errors import KVCalcError
from kvcalc.gpus import CLASS_REPRESENTATIVES, custom_gpu, get_gpu
from kvcalc.speed import DEFAULT_BANDWIDTH_EFFICIENCY, DEFAULT_COMPUTE_EFFICIENCY, estimate_speed
from kvcalc.units import GiB
from kvcalc.variants import VARIANTS, apply_variant

from . import charts, inputs, page, state
from .engine_inputs import compare_defaults
from .sources import load_model
from .text import md, safe_rows

MAX_SCENARIOS = 12
DEFAULT_MODELS = ["meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B"]
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


def evaluate(s: Scenario, config: dict[str, Any], *, gpu: dict[str, Any], batch: int, variant: dict[str, Any],
             contexts: list[int], name: str) -> ScenarioResult:
    """Curve + longest contexts for one scenario; raises KVCalcError when kvcalc refuses it."""
    spec = apply_variant(kvcalc.read_spec(config), s.attn, kv_heads=variant.get("kv_heads"),
                         window=variant.get("window"), pattern=variant.get("pattern"))
    kv_dtype = None if s.kvdtype == "auto" else s.kvdtype
    opts: dict[str, Any] = {**gpu, "runtime": s.runtime, "kv_dtype": kv_dtype, **compare_defaults(s.runtime)}
    setup = deploy(spec, config_dict=config, **opts)       # once: every figure below reads it
    pts = [c for c in contexts if c <= setup.context_cap]
    curve = memory_curve(setup, batch, pts)
    here = plan(setup, batch=batch, context=pts[-1], solve_gpus=False)
    longest = {f"longest context, {name}": here.max_context or 0}
    for gb in CLASSES:
        p = plan(setup.with_gpu(CLASS_REPRESENTATIVES[gb]), batch=batch, context=pts[-1], solve_gpus=False)
        longest[gpu_class_label(gb)] = p.max_context or 0
    per_token = kvcalc.kv_cache(spec, batch=1, context=1, kv_dtype=kv_dtype).bytes_per_token
    speed = estimate_speed(setup, batch, min(SPEED_CONTEXT, setup.context_cap))
    return ScenarioResult(s, "", curve, setup.weights_rank, per_token, here.kv_dtype, here.budget_bytes, longest,
                          speed.decode_tokens_per_s_per_sequence,
                          None if speed.ttft_seconds is None else speed.ttft_seconds * 1e3)


@st.cache_data(show_spinner=False, max_entries=256)
def _evaluate_bundled(model: str, attn: str, kvdtype: str, runtime: str, gpu: tuple, batch: int, variant: tuple,
                      contexts: tuple, name: str) -> ScenarioResult:
    """:func:`evaluate` for a bundled model, cached on hashable inputs (a rerun recomputes only new scenarios)."""
    return evaluate(Scenario(model, attn, kvdtype, runtime), bundled_config(model), gpu=dict(gpu), batch=batch,
                    variant=dict(variant), contexts=list(contexts), name=name)


def table_rows(results: list[ScenarioResult], batch: int) -> list[dict[str, Any]]:
    rows = []
    for r in results:
        s = r.scenario
        row: dict[str, Any] = {"scenario": r.label, "model": s.model, "attention": s.attn,
                               "KV dtype": r.kv_dtype, "runtime": s.runtime, "batch": batch,
                               "KV bytes / token": r.kv_bytes_per_token, "weights bytes / GPU": r.weights_bytes,
                               "weights GiB / GPU": round(r.weights_bytes / GiB, 2),
                               SPEED_COLUMN: None if r.decode_tokens_per_s is None else round(r.decode_tokens_per_s, 1),
                               TTFT_COLUMN: None if r.ttft_ms is None else round(r.ttft_ms, 1)}
        row.update(r.longest)
        rows.append(row)
    return rows


def to_csv(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def _sidebar() -> tuple[list[str], list[str], list[str], list[str], dict[str, Any], int, dict[str, Any], bool]:
    sb = st.sidebar
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
    runtimes = sb.multiselect("Runtime", state.RUNTIMES, default=["ideal"], **state.bound("runtimes"),
                              help="ideal minimum, transformers (plain generate) or vLLM (paged)")
    gpu = inputs.gpu_inputs(sb)
    batch = int(sb.number_input("Batch", min_value=1, max_value=state.MAX_BATCH_UI, value=1, **state.bound("batch"),
                                help=f"Concurrent sequences, 1 to {state.MAX_BATCH_UI:,}."))
    log_x = sb.toggle("Log-scale context axis", value=True, **state.bound("logx"))
    return list(models), list(attns), list(kvdtypes), list(runtimes), gpu, batch, variant, log_x


def render() -> None:
    page.start("Compare scenarios", state.COMPARE)
    st.caption("Models x attention variants x KV-cache dtypes x runtimes side by side: total memory per GPU "
               "against context, and the longest context each scenario reaches on each GPU class.")
    models, attns, kvdtypes, runtimes, gpu, batch, variant, log_x = _sidebar()
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
                                  tuple(sorted(variant.items())), tuple(contexts), f"chosen: {gpu_name}")
        except KVCalcError as e:
            refused.setdefault(str(e), []).append(lab)
            continue
        results.append(ScenarioResult(r.scenario, lab, r.curve, r.weights_bytes, r.kv_bytes_per_token, r.kv_dtype,
                                      r.budget_bytes, r.longest))
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
    st.dataframe(safe_rows(rows), hide_index=True, width="stretch", key="compare_table")
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
