"""The Planner page (home): one model on one deployment, with the formulas behind every number."""
from __future__ import annotations

from typing import Any

import streamlit as st

import kvcalc
from kvcalc.capacity import Deployment, deploy, layer_bytes, memory_curve
from kvcalc.errors import KVCalcError
from kvcalc.gpus import CLASS_REPRESENTATIVES, get_gpu
from kvcalc.layer_table import PADDING, LayerRow
from kvcalc.speed import SpeedEstimate, decode_rate_grid, estimate_speed
from kvcalc.units import human_bytes
from kvcalc.variants import apply_variant
from kvcalc.vllm_command import parse_vllm_serve

from . import charts, exports, inputs, page, state
from .text import code, md, safe_rows


def _apply_vllm_command() -> None:
    """Callback: fill the bound widgets from a pasted ``vllm serve`` command."""
    text = st.session_state.get("vllm_cmd", "")
    try:
        cmd = parse_vllm_serve(text)
    except KVCalcError as e:
        st.session_state["vllm_cmd_error"] = str(e)
        return
    st.session_state["vllm_cmd_error"] = None
    s = st.session_state
    s["runtime"] = "vllm"
    if cmd.model:
        entry = kvcalc.catalog.find_entry(cmd.model)
        if entry:
            s["source"], s["model"] = "bundled", entry.hub_id
        else:
            s["source"], s["hub"] = "hub", cmd.model
    o = cmd.options
    for opt, key in state.VLLM_OPTIONS.items():
        if opt in o:
            s[key] = o[opt]
    if "block_size" in o and o["block_size"] in state.BLOCK_SIZES:
        s["block"] = o["block_size"]
    if "kv_dtype" in o:
        kv = o["kv_dtype"] or "auto"
        s["kvdtype"] = {"fp8": "fp8_e4m3"}.get(kv, kv) if kv in state.KV_DTYPES or kv == "fp8" else "auto"
    tp, pp = o.get("tensor_parallel_size", 1), o.get("pipeline_parallel_size", 1)
    s["gpus"] = tp * pp
    if "max_model_len" in o:
        s["ctx"] = o["max_model_len"]
    ignored = list(cmd.ignored)
    spec = o.get("speculative_config") or {}
    n = spec.get("num_speculative_tokens")
    if spec.get("method") in state.SPEC_METHODS and isinstance(n, int) and 1 <= n <= 64:
        s["spec"], s["spec_tokens"] = spec["method"], n
    elif spec:
        ignored.append(f"--speculative-config (method {str(spec.get('method'))[:30]!r}, tokens {str(n)[:10]})")
    if "lora" in o:
        lora = o["lora"]
        s["loras"] = min(lora.get("max_loras", 1), state.MAX_LORAS_UI)      # vLLM's defaults: 1 x rank 16
        s["lora_rank"] = lora.get("max_lora_rank", 16)
        ignored += [f"--{k.replace('_', '-')} (not a Planner option)" for k in lora
                    if k not in ("max_loras", "max_lora_rank")]
    if ignored:
        st.session_state["vllm_cmd_error"] = "not modelled, ignored: " + ", ".join(ignored)


def _sidebar() -> tuple[inputs.ModelChoice, dict[str, Any], int, int, dict[str, Any], Any]:
    """The deployment inputs; returns them and an empty sidebar slot for the chart's own controls
    and the share link, which :func:`_chart` fills (a fragment: they rerun only the chart)."""
    sb = st.sidebar
    choice, options, batch, ctx = inputs.deployment_inputs(sb)
    variant = inputs.attention_inputs(sb)
    with sb.expander("Paste your vllm serve command"):
        st.text_area("vllm serve ...", key="vllm_cmd", height=90,
                     placeholder="vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 -tp 2")
        st.button("Fill the options", on_click=_apply_vllm_command, key="vllm_cmd_apply")
        if st.session_state.get("vllm_cmd_error"):
            st.caption(md(st.session_state["vllm_cmd_error"]))
    return choice, options, batch, ctx, variant, sb.container()


def _chart_controls(container: Any) -> tuple[bool, list[int], bool]:
    """The inputs that change only the chart (and its CSV): log axis, extra batch curves, y axis
    clamped to the interesting range or showing everything (dashboard.charts.y_top)."""
    log_x = container.toggle("Log-scale context axis", value=True, **state.bound("logx"))
    show_all = container.toggle("Show all (y axis not clamped)", value=False, **state.bound("yall"))
    curves = container.multiselect("Extra curves: batch sizes", state.CURVE_BATCHES, **state.bound("curves"))
    return bool(log_x), [int(b) for b in curves], bool(show_all)


QUALITY_BADGES = {"exact": ":green-badge[exact]", "estimated": ":orange-badge[estimated]",
                  "given": ":blue-badge[given]"}
"""How each figure was obtained (kvcalc's quality), as a visible badge."""


def badge(quality: str) -> str:
    """The badge of a quality kvcalc reports (unknown words read as estimated: never shown raw)."""
    return QUALITY_BADGES.get(quality, QUALITY_BADGES["estimated"])


def _metrics(p: kvcalc.PlanResult) -> None:
    st.markdown(f"KV cache {badge(p.kv_quality)} · weights {badge(p.weights_quality)}"
                + (" - the assumptions are listed under *Config fields used and warnings*"
                   if "estimated" in (p.kv_quality, p.weights_quality) else ""))
    cols = st.columns(6)
    cols[0].metric("Weights / GPU", human_bytes(p.weights_bytes),
                   help=f"{p.weights_bytes:,} bytes ({md(p.weights_scheme)})")
    cols[1].metric("KV cache / GPU", human_bytes(p.kv_bytes), help=f"{p.kv_bytes:,} bytes")
    cols[2].metric("Total / GPU", human_bytes(p.total_bytes),
                   help=f"weights + KV + overhead {human_bytes(p.overhead_bytes)}; "
                        f"budget {human_bytes(p.budget_bytes)}")
    cols[3].metric("Fits", "yes" if p.fits else "no")
    cols[4].metric(f"Longest context @ batch {p.batch:,}", f"{p.max_context:,}" if p.max_context else "none")
    cols[5].metric(f"Largest batch @ {p.context:,}", f"{p.max_batch:,}" if p.max_batch else "none")
    st.caption(f"Binding constraint: {md(p.binding_constraint)}. Fewest GPUs of this type: "
               f"{p.min_gpus if p.min_gpus else 'more than 64'}.")
    with st.expander("Formulas behind these numbers"):
        for line in p.formulas:
            st.markdown(f"- {code(line)}")
        if p.engine_lines:
            st.markdown("What vLLM prints at startup for this deployment:")
            st.code("\n".join(p.engine_lines), language=None)


def _what_if(name: str, config: dict[str, Any], options: dict[str, Any], choice: inputs.ModelChoice,
             p: kvcalc.PlanResult, speed: SpeedEstimate) -> None:
    """The attention what-if against the model as configured: memory and (estimated) speed side by side."""
    try:
        base_setup = deploy(kvcalc.read_spec(config), config_dict=config, **options, **choice.plan_extras())
        base = kvcalc.plan(base_setup, batch=p.batch, context=p.context, solve_gpus=False)
        base_speed = estimate_speed(base_setup, p.batch, p.context)
    except KVCalcError:
        st.warning(f"Attention what-if active: {md(name)} (the model as configured cannot be planned here).")
        return
    kv_change = (p.kv_bytes - base.kv_bytes) / base.kv_bytes if base.kv_bytes else 0.0
    new, old = speed.decode_tokens_per_s_per_sequence, base_speed.decode_tokens_per_s_per_sequence
    st.warning(f"Attention what-if active: **{md(name)}**. KV cache per GPU {human_bytes(p.kv_bytes)} against "
               f"{human_bytes(base.kv_bytes)} as configured ({kv_change:+.1%})"
               + (f"; decode {new:,.1f} against {old:,.1f} tokens/s per sequence ({(new - old) / old:+.1%}, "
                  "estimated)." if new is not None and old else "."))


def _speed(e: SpeedEstimate) -> None:
    """Decode tokens/s and time to first token: always labelled estimated, with the assumptions."""
    st.markdown("**Speed** :orange-badge[estimated]")
    if e.decode_tokens_per_s_per_sequence is None:
        for u in e.unavailable:
            st.info(md(u))
        return
    cols = st.columns(3)
    cols[0].metric("Decode / sequence (est.)", f"{e.decode_tokens_per_s_per_sequence:,.1f} tok/s",
                   help=f"{e.decode_bound} bound; one step reads {e.decode_bytes_per_step:,} bytes per GPU")
    cols[1].metric(f"Decode total @ batch {e.batch:,} (est.)", f"{e.decode_tokens_per_s_total:,.0f} tok/s")
    cols[2].metric(f"Time to first token, {e.prompt_tokens:,}-token prompt (est.)",
                   f"{e.ttft_seconds * 1e3:,.0f} ms" if e.ttft_seconds is not None else "unknown",
                   help=f"{e.prefill_bound} bound" if e.prefill_bound else None)
    with st.expander("How the speed is estimated"):
        for line in e.formulas:
            st.markdown(f"- {code(line)}")
        for a in e.assumptions:
            st.markdown(f"- {md(a)}")
        for u in e.unavailable:
            st.markdown(f"- {md(u)}")


def _layer_table(setup: Deployment, batch: int, ctx: int) -> None:
    """The per-layer rows of the same deployment as the headline (kvcalc.layer_bytes): they add up to it."""
    try:
        table = layer_bytes(setup, batch, ctx)
    except KVCalcError as e:
        st.info(f"Per-layer table unavailable: {md(e)}")
        return
    if setup.pp > 1:
        st.caption(f"Bytes on one GPU of each pipeline stage; the busiest stage ({table.busiest_stage}) holds the "
                   f"headline's {table.per_gpu_bytes:,} bytes.")
    st.dataframe(safe_rows(layer_rows(table.rows, stages=setup.pp > 1)), hide_index=True, width="stretch")


def layer_rows(layers: tuple[LayerRow, ...], stages: bool = False) -> list[dict[str, Any]]:
    """One row per run of consecutive layers with the same stage, kind, tokens and bytes ("layers 0-4");
    a stage's vLLM block padding (unused slots of shared blocks) is a row of its own."""
    rows: list[dict[str, Any]] = []
    for l in layers:
        last = rows[-1] if rows else None
        if last and l.kind != PADDING and (last["stage"], last["kind"], last["tokens held"], last["bytes each"]) \
                == (l.stage, l.kind, l.tokens, l.bytes) and last["_to"] == l.index - 1:
            last["_to"] = l.index
            last["count"] += 1
        else:
            rows.append({"_from": l.index, "_to": l.index, "stage": l.stage, "kind": l.kind,
                         "tokens held": l.tokens, "bytes each": l.bytes, "count": 1})
    out = []
    for r in rows:
        label = ("padding" if r["kind"] == PADDING else
                 f"{r['_from']}" if r["_from"] == r["_to"] else f"{r['_from']}-{r['_to']}")
        row = {"layers": label, "kind": r["kind"], "tokens held": r["tokens held"], "bytes each": r["bytes each"],
               "size each": human_bytes(r["bytes each"]), "layers in run": r["count"],
               "bytes in run": r["bytes each"] * r["count"]}
        out.append({"stage": r["stage"], **row} if stages else row)
    return out


@st.fragment
def _chart(spec: kvcalc.ModelSpec, setup: Deployment, p: kvcalc.PlanResult, speed: SpeedEstimate, batch: int,
           ctx: int, slot: Any, choice: inputs.ModelChoice, options: dict[str, Any]) -> None:
    """Memory chart, its controls (drawn into the sidebar ``slot``), its exports and the share link:
    a fragment, so changing the log axis or the extra curves reruns only this, not the plan."""
    log_x, curves, show_all = _chart_controls(slot)
    page.share_box("", slot)        # here, so the link includes the controls after a fragment rerun
    top = max(ctx, p.max_context or 0, spec.max_position_embeddings or 0, 1024)
    windows = [a.window for l in spec.layers for a in l.attention if a.window]
    pts = charts.context_points(min(top, state.MAX_CONTEXT_UI), log_x, extra=[ctx, p.max_context or 0, *windows])
    curve = memory_curve(setup, batch, pts)
    extra = {b: memory_curve(setup, b, pts) for b in curves if b != batch}
    classes = []
    for gb, key in sorted(CLASS_REPRESENTATIVES.items()):
        g = get_gpu(key)
        if g.name != p.gpu:
            classes.append((f"{gb} GB class ({g.name})", g.memory_bytes))
    budget = ((f"{p.runtime} budget ({human_bytes(p.budget_bytes)})", p.budget_bytes)
              if p.budget_bytes != p.gpu_memory_bytes else None)
    fig = charts.memory_chart(curve, log_x=log_x, capacities=classes, longest=p.max_context, extra_curves=extra,
                              chosen=ctx, chosen_gpu=(f"{p.gpu} ({human_bytes(p.gpu_memory_bytes)})",
                                                      p.gpu_memory_bytes),
                              budget=budget, show_all=show_all,
                              title=exports.chart_title(choice.name, p.gpu, p.gpus, batch))
    stem = exports.file_stem(choice.name, p.gpu, p.gpus)
    st.plotly_chart(fig, width="stretch", key="memory_chart", config={"toImageButtonOptions": {"filename": stem}})

    if setup.gpu.bandwidth_gbps:
        batches = [batch, *(b for b in curves if b != batch)]
        grid = decode_rate_grid(setup, batches, pts)
        st.plotly_chart(charts.speed_chart(pts, {b: grid[i] for i, b in enumerate(batches)}, log_x=log_x,
                                           title="Decode speed vs context (estimated)"),
                        width="stretch", key="speed_chart")

    c1, c2 = st.columns(2)
    # deferred: the files are built when clicked, not on every rerun; "ignore": a click does not
    # rerun the page, which would race the deferred file it asks for
    c1.download_button("Chart data (CSV)", lambda: exports.curve_csv({batch: curve, **extra}, model=choice.name,
                                                                     gpu=p.gpu, gpus=p.gpus, runtime=p.runtime),
                       file_name=f"{stem}_curve.csv", mime="text/csv", key="dl_csv", on_click="ignore")
    # read now: the file is built later, outside this run
    link = {k: st.query_params.get_all(k) for k in st.query_params.keys()}
    widgets = {k: st.session_state[k] for k in state.page_keys(state.PLANNER) if k in st.session_state}
    share = state.share_link("")
    c2.download_button("Plan (JSON)", lambda: exports.plan_json(
                           model=choice.name, model_source=choice.origin, plan=p.to_dict(), speed=speed.to_dict(),
                           batch=batch, context=ctx, options=options, link_inputs=link, widgets=widgets,
                           share_link=share),
                       file_name=f"{stem}_plan.json", mime="application/json", key="dl_json", on_click="ignore")


def render() -> None:
    page.start("KV Cache Planner", state.PLANNER)
    st.caption("How much GPU memory a model needs for its weights and KV cache, and how long a context or how "
               "large a batch fits. Exact per-layer arithmetic from the model's config.json.")
    choice, options, batch, ctx, variant, slot = _sidebar()
    config = choice.config
    if not page.model_ready(choice) or config is None:
        _chart_controls(slot)
        page.share_box("", slot)
        return
    try:
        spec = apply_variant(kvcalc.read_spec(config), variant.get("variant", "as configured"),
                             kv_heads=variant.get("kv_heads"), window=variant.get("window"),
                             pattern=variant.get("pattern"))
        setup = deploy(spec, config_dict=config, **options, **choice.plan_extras())   # once per rerun
        p = kvcalc.plan(setup, batch=batch, context=ctx)
        speed = estimate_speed(setup, p.batch, p.context)
    except KVCalcError as e:
        _chart_controls(slot)
        page.share_box("", slot)
        st.error(f"Cannot plan this: {md(e)}")
        return
    st.subheader(f"{md(choice.name)} on {p.gpus} x {md(p.gpu)}, {p.runtime}")
    _metrics(p)
    what_if = variant.get("variant", "as configured")
    if what_if != "as configured":
        _what_if(what_if, config, options, choice, p, speed)
    _speed(speed)

    _chart(spec, setup, p, speed, batch, ctx, slot, choice, options)

    st.subheader("Per layer (consecutive identical layers grouped)")
    _layer_table(setup, p.batch, p.context)
    with st.expander("Config fields used and warnings"):
        st.markdown(md(", ".join(p.fields_used)) or "(none)")
        for w in p.warnings:
            st.warning(md(w))
