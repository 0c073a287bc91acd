"""The Planner page (home): one model on one deployment, with the formulas behind every number."""
from __future__ import annotations

import csv
import io
import json
from typing import Any

import streamlit as st

import kvcalc
from kvcalc.capacity import Deployment, deploy, layer_bytes, memory_curve
from kvcalc.errors import InputError, KVCalcError
from kvcalc.gpus import CLASS_REPRESENTATIVES, get_gpu
from kvcalc.layer_table import PADDING, LayerRow
from kvcalc.serve_command import ServeCommand, transformers_call, vllm_serve
from kvcalc.speed import SpeedEstimate, decode_rate_grid, estimate_speed
from kvcalc.units import human_bytes
from kvcalc.variants import apply_variant
from kvcalc.verdict import MaxLenSource, Verdict, judge

from . import charts, inputs, page, paste, state
from .text import code, md, safe_rows


def _sidebar() -> tuple[inputs.ModelChoice, dict[str, Any], int, int, dict[str, Any], Any]:
    """The deployment inputs; returns them and an empty sidebar slot for the chart's own controls
    and the share link, which :func:`_chart` fills (a fragment: they rerun only the chart)."""
    sb = st.sidebar
    choice, options, batch, ctx = inputs.deployment_inputs(sb)
    variant = inputs.attention_inputs(sb)
    with sb.expander("Paste your vllm serve command"):
        st.text_area("vllm serve ...", key="vllm_cmd", height=90,
                     placeholder="vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 -tp 2")
        st.button("Fill the options", on_click=paste.apply_vllm_command, key="vllm_cmd_apply")
        if st.session_state.get("vllm_cmd_error"):
            st.caption(md(st.session_state["vllm_cmd_error"]))
    return choice, options, batch, ctx, variant, sb.container()


def _chart_controls(container: Any) -> tuple[bool, list[int]]:
    """The two inputs that change only the chart (and its CSV): log axis, extra batch curves."""
    log_x = container.toggle("Log-scale context axis", value=True, **state.bound("logx"))
    curves = container.multiselect("Extra curves: batch sizes", state.CURVE_BATCHES, **state.bound("curves"))
    return bool(log_x), [int(b) for b in curves]


QUALITY_BADGES = {"exact": ":green-badge[exact]", "estimated": ":orange-badge[estimated]",
                  "given": ":blue-badge[given]"}
"""How each figure was obtained (kvcalc's quality), as a visible badge."""


def badge(quality: str) -> str:
    """The badge of a quality kvcalc reports (unknown words read as estimated: never shown raw)."""
    return QUALITY_BADGES.get(quality, QUALITY_BADGES["estimated"])


def _metrics(p: kvcalc.PlanResult, v: Verdict) -> None:
    """Six figures in two rows of three, short labels and values with units (they fit at 1280 px)."""
    st.markdown(f"KV cache {badge(p.kv_quality)} · weights {badge(p.weights_quality)}"
                + (" - the assumptions are listed under *Config fields used and warnings*"
                   if "estimated" in (p.kv_quality, p.weights_quality) else ""))
    row1, row2 = st.columns(3), st.columns(3)
    row1[0].metric("Weights / GPU", human_bytes(p.weights_bytes),
                   help=f"{p.weights_bytes:,} bytes ({md(p.weights_scheme)})")
    row1[1].metric("KV cache / GPU", human_bytes(p.kv_bytes), help=f"{p.kv_bytes:,} bytes")
    row1[2].metric("Total / GPU", human_bytes(p.total_bytes),
                   help=f"weights + KV + overhead {human_bytes(p.overhead_bytes)}")
    row2[0].metric("Longest context", f"{v.longest:,} tokens" if v.longest else "none",
                   help=f"per sequence at batch {p.batch:,}"
                        + (" (vLLM: served with --max-model-len set to it)" if p.runtime == "vllm" else ""))
    row2[1].metric("Largest batch", f"{p.max_batch:,} seqs" if p.max_batch else "none",
                   help=f"sequences of {p.context:,} tokens")
    row2[2].metric("Budget / GPU", human_bytes(p.budget_bytes),
                   help="what the runtime may use (vLLM: gpu_memory_utilization x the GPU's memory)")
    st.caption(f"Binding constraint: {md(p.binding_constraint)}. Fewest GPUs of this type: "
               f"{p.min_gpus if p.min_gpus else 'more than 64'}.")
    with st.expander("Formulas behind these numbers"):
        for line in p.formulas:
            st.markdown(f"- {code(line)}")
        if p.engine_lines:
            st.markdown("What vLLM prints at startup for this deployment:")
            st.code("\n".join(p.engine_lines), language=None)


def _verdict(v: Verdict) -> None:
    """The answer first, in its colour (green fits / amber fits if / red does not fit), with the fix
    and the max_model_len the plan used and why."""
    box = st.success if v.state == "fits" else st.warning if v.state == "fits_if" else st.error
    box(f"**{md(v.sentence)}.**" + (f"  \nFix: {md(v.fix)}." if v.fix and v.state == "does_not_fit" else "")
        + (f"  \nvLLM {md(v.max_model_len_note)}." if v.max_model_len_note else ""))


def _as_configured(config: dict[str, Any], options: dict[str, Any], choice: inputs.ModelChoice,
                   p: kvcalc.PlanResult) -> tuple[kvcalc.PlanResult, Deployment] | None:
    """The plan of the model as configured (no attention what-if) at the same inputs, or None."""
    try:
        base_setup = deploy(kvcalc.read_spec(config), config_dict=config, **options, **choice.plan_extras())
        return kvcalc.plan(base_setup, batch=p.batch, context=p.context, solve_gpus=False), base_setup
    except KVCalcError:
        return None


def _badges(p: kvcalc.PlanResult, what_if: str, base: kvcalc.PlanResult | None) -> None:
    """Visible badges for an attention what-if (its KV saving against the model as configured) and
    for an estimated architecture."""
    if what_if != "as configured" and base is not None and base.kv_bytes:
        saved = base.kv_bytes - p.kv_bytes
        st.markdown(f":orange-badge[attention what-if {md(what_if)}: KV {'-' if saved >= 0 else '+'}"
                    f"{human_bytes(abs(saved))} ({-saved / base.kv_bytes:+.1%}) against the model as configured]")
    elif what_if != "as configured":
        st.markdown(f":orange-badge[attention what-if {md(what_if)}]")
    if p.kv_quality == "estimated":
        st.markdown(":orange-badge[estimated architecture: assumptions under Config fields used and warnings]")


def _model_for_command(choice: inputs.ModelChoice) -> str:
    return choice.name if paste.is_hub_id(choice.name) else "/path/to/your/model"


def _command(choice: inputs.ModelChoice, setup: Deployment, p: kvcalc.PlanResult, v: Verdict) -> None:
    """The command that serves this plan (the fix's, when there is one), with a copy button."""
    model = _model_for_command(choice)
    cmd: ServeCommand | None = None
    title = "Command to run"
    try:
        if setup.runtime == "vllm":
            if v.state == "does_not_fit" and p.min_gpus:
                cmd = vllm_serve(model, setup.with_gpus(p.min_gpus), v.max_model_len)
                title = f"Command that fits: {p.min_gpus} x {p.gpu}"
            else:
                cmd = vllm_serve(model, setup, v.serve_max_model_len)
                title += " (with the fix)" if v.state == "fits_if" and v.serve_max_model_len != v.max_model_len \
                    else ""
        elif setup.runtime == "transformers":
            cmd = transformers_call(model, setup, p.batch, p.context)
    except KVCalcError:
        cmd = None
    if cmd is None:
        return
    st.markdown(f"**{md(title)}**")
    st.code(cmd.text, language=cmd.language, wrap_lines=True)
    for n in cmd.notes:
        st.caption(md(n))


def _max_model_len(options: dict[str, Any], ctx: int) -> tuple[dict[str, Any], MaxLenSource]:
    """vLLM's max_model_len: the one set, else the context asked for (not the model's maximum, which
    often does not fit and makes vLLM refuse to start)."""
    if options.get("runtime") != "vllm" or options.get("max_model_len"):
        return options, "given"
    return {**options, "max_model_len": ctx}, "context"


def _what_if(name: str, choice: inputs.ModelChoice, p: kvcalc.PlanResult, speed: SpeedEstimate,
             base: tuple[kvcalc.PlanResult, Deployment] | None) -> None:
    """The attention what-if against the model as configured: memory and (estimated) speed side by side."""
    if base is None:
        st.warning(f"Attention what-if active: {md(name)} (the model as configured cannot be planned here).")
        return
    base_plan, base_setup = base
    try:
        base_speed = estimate_speed(base_setup, p.batch, p.context)
    except KVCalcError:
        base_speed = None
    kv_change = (p.kv_bytes - base_plan.kv_bytes) / base_plan.kv_bytes if base_plan.kv_bytes else 0.0
    new = speed.decode_tokens_per_s_per_sequence
    old = base_speed.decode_tokens_per_s_per_sequence if base_speed else None
    st.warning(f"Attention what-if active: **{md(name)}**. KV cache per GPU {human_bytes(p.kv_bytes)} against "
               f"{human_bytes(base_plan.kv_bytes)} as configured ({kv_change:+.1%})"
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


def _curve_csv(points: dict[int, list[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["batch", "context", "weights_bytes", "overhead_bytes", "kv_bytes", "total_bytes", "budget_bytes"])
    for batch, pts in points.items():
        for pt in pts:
            w.writerow([batch, pt.context, pt.weights, pt.overhead, pt.kv, pt.total, pt.budget])
    return buf.getvalue()


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
           ctx: int, slot: Any, longest: int | None) -> None:
    """Memory chart, its controls (drawn into the sidebar ``slot``), its exports and the share link:
    a fragment, so changing the log axis or the extra curves reruns only this, not the plan."""
    log_x, curves = _chart_controls(slot)
    page.share_box("", slot)        # here, so the link includes the controls after a fragment rerun
    top = max(ctx, longest or 0, spec.max_position_embeddings or 0, 1024)
    windows = [a.window for l in spec.layers for a in l.attention if a.window]
    pts = charts.context_points(min(top, state.MAX_CONTEXT_UI), log_x, extra=[ctx, longest or 0, *windows])
    curve = memory_curve(setup, batch, pts)
    extra = {b: memory_curve(setup, b, pts) for b in curves if b != batch}
    budget = [(f"{p.gpu} budget", p.budget_bytes)]
    for gb, key in sorted(CLASS_REPRESENTATIVES.items()):
        g = get_gpu(key)
        if g.name != p.gpu:
            budget.append((f"{gb} GB class ({g.name})", g.memory_bytes))
    fig = charts.memory_chart(curve, log_x=log_x, capacities=budget, longest=longest, extra_curves=extra,
                              title=f"Memory per GPU vs context, batch {batch:,}")
    st.plotly_chart(fig, width="stretch", key="memory_chart")

    if setup.gpu.bandwidth_gbps and setup.weights.params.active_count is not None:   # p4: no speed without top-k
        batches = [batch, *(b for b in curves if b != batch)]
        grid = decode_rate_grid(setup, batches, pts)
        st.plotly_chart(charts.speed_chart(pts, {b: grid[i] for i, b in enumerate(batches)}, log_x=log_x,
                                           title="Decode speed vs context (estimated)"),
                        width="stretch", key="speed_chart")

    c1, c2 = st.columns(2)
    # deferred: the files are built when clicked, not on every rerun; "ignore": a click does not
    # rerun the page, which would race the deferred file it asks for
    c1.download_button("Chart data (CSV)", lambda: _curve_csv({batch: curve, **extra}),
                       file_name="kv_planner_curve.csv", mime="text/csv", key="dl_csv", on_click="ignore")
    c2.download_button("Plan (JSON)", lambda: json.dumps({**p.to_dict(), "speed": speed.to_dict()}, indent=2),
                       file_name="kv_planner_plan.json",
                       mime="application/json", key="dl_json", on_click="ignore")


def render() -> None:
    page.start("KV Cache Planner", state.PLANNER)
    st.caption("How much GPU memory a model needs for its weights and KV cache, and how long a context or how "
               "large a batch fits. Exact per-layer arithmetic from the model's config.json.")
    choice, options, batch, ctx, variant, slot = _sidebar()
    choice, quantized = paste.with_bundled_fallback(choice)
    if quantized and options.get("dtype") is None:
        options = {**options, "dtype": quantized}
    config = choice.config
    if not page.model_ready(choice) or config is None:
        _chart_controls(slot)
        page.share_box("", slot)
        return
    raw_options = options
    options, mml_source = _max_model_len(options, ctx)
    what_if = variant.get("variant", "as configured")
    try:
        spec = apply_variant(kvcalc.read_spec(config), what_if, kv_heads=variant.get("kv_heads"),
                             window=variant.get("window"), pattern=variant.get("pattern"))
        try:
            setup = deploy(spec, config_dict=config, **options, **choice.plan_extras())   # once per rerun
        except InputError:
            if mml_source != "context":
                raise
            # the context is longer than vLLM allows as max_model_len: plan at the model's default, and
            # the verdict says the context is too long
            options, mml_source = raw_options, "model"
            setup = deploy(spec, config_dict=config, **options, **choice.plan_extras())
        p = kvcalc.plan(setup, batch=batch, context=ctx)
        speed = estimate_speed(setup, p.batch, p.context)
        verdict = judge(setup, p, mml_source)
    except KVCalcError as e:
        _chart_controls(slot)
        page.share_box("", slot)
        st.error(f"Cannot plan this: {md(e)}")
        return
    base = _as_configured(config, options, choice, p) if what_if != "as configured" else None
    st.subheader(f"{md(choice.name)} on {p.gpus} x {md(p.gpu)}, {p.runtime}")
    _verdict(verdict)
    _badges(p, what_if, base[0] if base else None)
    _command(choice, setup, p, verdict)
    _metrics(p, verdict)
    if what_if != "as configured":
        _what_if(what_if, choice, p, speed, base)
    _speed(speed)

    _chart(spec, setup, p, speed, batch, ctx, slot, verdict.longest)   # the verdict's longest (served at it)

    st.subheader("Per layer (consecutive identical layers grouped)")
    _layer_table(setup, p.batch, p.context)
    with st.expander("Config fields used and warnings"):
        st.markdown(md(", ".join(p.fields_used)) or "(none)")
        for w in p.warnings:
            st.warning(md(w))
