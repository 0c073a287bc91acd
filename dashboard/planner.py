"""The Planner page (home): one model on one deployment, with the formulas behind every number."""
from __future__ import annotations

import json
from typing import Any

import streamlit as st

import kvcalc
from kvcalc.capacity import Deployment, layer_bytes, memory_curve
from kvcalc.engines import get_engine, names
from kvcalc.errors import KVCalcError
from kvcalc.explain import pool_binds_text
from kvcalc.fixes import Fix, fixes
from kvcalc.gpus import CLASS_REPRESENTATIVES, get_gpu
from kvcalc.layer_table import PADDING, LayerRow
from kvcalc.scenarios import (
    kv_budget,
    loads_gguf,
    plan_scenario,
    served_options,
    serves_context,
    splits_tensors,
    total_limit,
)
from kvcalc.serve_command import ServeCommand
from kvcalc.speed import SpeedEstimate, decode_rate_grid, estimate_speed
from kvcalc.units import human_bytes
from kvcalc.variants import apply_variant
from kvcalc.verdict import Verdict, fewest_gpus_text, with_max_model_len
from kvcalc.weights import weight_bytes

from . import charts, engine_inputs, exports, inputs, page, paste, startup_box, state
from .text import code, compact, count, durations, md, safe_rows


def _sidebar() -> tuple[inputs.ModelChoice, dict[str, Any], int, int, dict[str, Any], Any]:
    """The deployment inputs; returns them and an empty sidebar slot for the chart's own controls
    and the share link, which :func:`_chart` fills (a fragment: they rerun only the chart)."""
    sb = st.sidebar
    choice, options, batch, ctx = inputs.deployment_inputs(sb, fallback=True)   # render plans the fallback
    variant = inputs.attention_inputs(sb)
    with sb.expander("Paste your vllm serve command (or sglang, trtllm-serve, llama-server)"):
        st.text_area("vllm serve ...", key="vllm_cmd", height=90,
                     placeholder="vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 -tp 2",
                     help="Also reads python -m sglang.launch_server / sglang serve, trtllm-serve and "
                          "llama-server / llama-cli lines")
        st.button("Fill the options", on_click=paste.apply_vllm_command, key="vllm_cmd_apply")
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


def binding_caption(p: kvcalc.PlanResult, v: Verdict, model_max: int | None) -> str:
    """The caption under the headline figures: what binds, and the fewest GPUs of this type (plain text, escaped
    where shown). A longest context at the model's maximum (``max_position_embeddings``) is capped there, not by
    memory: the caption says the model maximum binds it, and what kvcalc reports binds the batch."""
    words = fewest_gpus_text(get_engine(p.runtime), p)
    fewest = words[0].upper() + words[1:] + "."
    if v.longest and model_max and v.longest >= model_max:
        return (f"Binding constraint: the model maximum ({model_max:,} tokens, max_position_embeddings) caps the "
                f"longest context, not memory; the batch is bound by {p.binding_constraint}. {fewest}")
    return f"Binding constraint: {p.binding_constraint}. {fewest}"


def kv_token_formula(spec: kvcalc.ModelSpec, kv_dtype: Any, bytes_per_token: int) -> str:
    """The KV formula line: bytes per token = layers x 2 x kv_heads x head_dim x dtype bytes with the model's
    numbers (one term per group of identical layers), equal to kvcalc's own figure ``bytes_per_token``
    (kvcalc.kv_cache(...).bytes_per_token: every layer's K and V of one token, batch 1, below every window).
    A model whose cache is not plain K/V heads (MLA latents, recurrent states, cross-attention, a packed KV
    dtype), or whose terms do not add up to kvcalc's figure, shows kvcalc's figure alone.

    Llama-3.1-8B in bf16: 32 x 2 x 8 x 128 x 2 = 131,072 B per token (kvcalc.kv docstring).
    """
    total = f"{bytes_per_token:,} B ({human_bytes(bytes_per_token)}) per token"
    groups: dict[tuple[int, int, int], int] = {}
    for layer in spec.layers:
        caches = layer.attention
        plain = (len(caches) == 1 and not layer.states and layer.shares_with is None
                 and caches[0].source == "self" and not caches[0].latent_dim and not caches[0].indexer_dim
                 and not caches[0].prefix_tokens and not caches[0].compress_rate)
        if not plain:
            return f"KV bytes per token = {total} (kvcalc.kv_cache, every layer's cache of one token)"
        a = caches[0]
        key = (a.kv_heads, a.k_head_dim, a.v_head_dim)
        groups[key] = groups.get(key, 0) + 1
    size = kv_dtype.bits / 8 if not getattr(kv_dtype, "group_size", 0) else None
    terms, check = [], 0.0
    for (heads, k, v), n in groups.items():
        dims = f"2 x {heads:,} x {k:,}" if k == v else f"{heads:,} x ({k:,} + {v:,})"
        terms.append(f"{n:,} x {dims} x {size:g}" if size else "")
        check += n * heads * (k + v) * (size or 0)
    if not size or check != bytes_per_token:
        return f"KV bytes per token = {total} (kvcalc.kv_cache, every layer's cache of one token)"
    windowed = any(a.window for layer in spec.layers for a in layer.attention)
    return (f"KV bytes per token = layers x 2 x kv_heads x head_dim x {kv_dtype.name} bytes = "
            f"{' + '.join(terms)} = {total}" + (" (sliding-window layers stop growing at their window)"
                                                if windowed else ""))


def _metrics(p: kvcalc.PlanResult, v: Verdict, setup: Deployment | None = None) -> None:
    """Six figures two a row (dashboard.page.metric_grid): the parts, the total against the budget, the answers;
    short labels and values with units."""
    st.markdown(f"KV cache {badge(p.kv_quality)} · weights {badge(p.weights_quality)}"
                + (" - the assumptions are listed under *Config fields used and warnings*"
                   if "estimated" in (p.kv_quality, p.weights_quality) else ""))
    page.metric_grid([
        ("Weights / GPU", human_bytes(p.weights_bytes), f"{p.weights_bytes:,} bytes ({md(p.weights_scheme)})"),
        ("KV cache / GPU", human_bytes(p.kv_bytes), f"{p.kv_bytes:,} bytes"),
        ("Total / GPU", human_bytes(p.total_bytes), f"weights + KV + overhead {human_bytes(p.overhead_bytes)}"),
        ("Budget / GPU", human_bytes(p.budget_bytes),
         "what the runtime may use (vLLM: gpu_memory_utilization x the GPU's memory)"),
        ("Longest context", count(v.longest, "token") if v.longest else "none",
         f"per sequence at batch {p.batch:,}" + (f" ({md(runtime_label(p.runtime))}: served with --max-model-len set "
                                                 "to it)" if serves_context(p.runtime) else "")),
        ("Largest batch", count(p.max_batch, "sequence") if p.max_batch else "none",
         f"sequences of {count(p.context, 'token')}")])
    st.caption(md(binding_caption(p, v, setup.spec.max_position_embeddings if setup else None)))
    if p.fits and p.total_bytes > p.budget_bytes:
        st.caption(md(_outside_budget(p)))
    elif why := pool_binds_text(p):
        st.caption(md(why))
    with st.expander("Formulas behind these numbers"):
        if setup is not None:
            st.markdown(f"- {code(_kv_line(setup))}")
        for line in p.formulas:
            st.markdown(f"- {code(line)}")
        if p.engine_lines:
            st.markdown(f"What {md(runtime_label(p.runtime))} prints at startup for this deployment:")
            st.code("\n".join(p.engine_lines), language=None)


def _kv_line(setup: Deployment) -> str:
    """:func:`kv_token_formula` for the deployment's model and KV dtype, against kvcalc's own per-token figure."""
    try:
        per_token = kvcalc.kv_cache(setup.spec, batch=1, context=1, kv_dtype=setup.kv).bytes_per_token
    except KVCalcError as e:
        return f"KV bytes per token: not computed ({e})"
    return kv_token_formula(setup.spec, setup.kv, per_token)


def _outside_budget(p: kvcalc.PlanResult) -> str:
    """Why a plan that fits shows a total above its budget: the engine's fraction covers the weights and the KV
    pool; its own overhead (activations, CUDA graphs, buffers) sits in the rest of the GPU's memory (plain text)."""
    return (f"{runtime_label(p.runtime)}'s budget {human_bytes(p.budget_bytes)} covers the weights "
            f"({human_bytes(p.weights_bytes)}) and the KV pool ({human_bytes(kv_budget(p))} set aside, "
            f"{human_bytes(p.kv_bytes)} of it in use here); its overhead {human_bytes(p.overhead_bytes)} sits outside "
            f"it, in the rest of the GPU's {human_bytes(p.gpu_memory_bytes)}: {human_bytes(p.total_bytes)} in use "
            f"in all ({p.total_bytes / p.gpu_memory_bytes:.1%} of the GPU).")


def _verdict(v: Verdict, what_if: str = "as configured", changes: tuple[Fix, ...] = ()) -> None:
    """The answer first, in its colour (green fits / amber fits if / red does not fit), with the fix,
    the max_model_len the plan used and why, and the other changes that fit (kvcalc.fixes, each with its number:
    the CLI's ``fix:`` lines). Under an attention what-if the model does not exist: the verdict says it is
    hypothetical, in neutral blue, and offers no fix to launch."""
    text = f"**{md(v.sentence)}.**"
    if what_if != "as configured":
        st.info(f"**Hypothetical** (attention what-if {md(what_if)}: no such checkpoint exists, so there is no "
                f"command to run): **{md(v.sentence)}.**")
        return
    box = st.success if v.state == "fits" else st.warning if v.state == "fits_if" else st.error
    box(text + (f"  \nFix: {md(v.fix)}." if v.fix and v.state == "does_not_fit" else "")
        + (f"  \nvLLM {md(v.max_model_len_note)}." if v.max_model_len_note else "")
        + ("\n\nOther changes, each planned again:\n" + "\n".join(f"- {md(f.text)}" for f in changes)
           if changes else ""))


def _as_configured(config: dict[str, Any], options: dict[str, Any], choice: inputs.ModelChoice,
                   p: kvcalc.PlanResult) -> tuple[kvcalc.PlanResult, Deployment] | None:
    """The plan of the model as configured (no attention what-if) at the same inputs, or None."""
    try:
        s = plan_scenario(config, {**options, **_extras(choice, options)}, p.batch, p.context, solve_gpus=False)
    except KVCalcError:
        return None
    return s.plan, s.setup


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


def _served(setup: Deployment, p: kvcalc.PlanResult, v: Verdict) -> tuple[Deployment, str]:
    """The deployment the command serves and its title: on the fewest GPUs that fit (a plan that does not
    fit), with the fix's ``--max-model-len`` or engine flags (a "fits if" one), else the plan's own."""
    if v.state == "does_not_fit" and p.min_gpus and p.min_gpus != setup.gpus:
        return setup.with_gpus(p.min_gpus), f"Command that fits: {p.min_gpus} x {p.gpu}"
    if v.state == "fits_if" and v.serve_max_model_len and v.serve_max_model_len != v.max_model_len:
        return with_max_model_len(setup, v.serve_max_model_len), "Command to run (with the fix)"
    if v.state == "fits_if" and v.serve_options is not None:
        return setup.with_cache(setup.kv_dtype, v.serve_options), "Command to run (with the fix)"
    return setup, "Command to run"


def _command(choice: inputs.ModelChoice, setup: Deployment, p: kvcalc.PlanResult, v: Verdict) -> None:
    """The command that serves this plan (the fix's, when there is one), with a copy button, in a bordered section
    of its own under its title as a subheader: after the verdict and its fixes, never read as one more of them
    (a new-user review found it under the "Fits if" list, as if it were one of the fixes)."""
    model = _model_for_command(choice)
    served, title = _served(setup, p, v)
    cmd: ServeCommand | None
    try:
        # transformers' engine writes its call for one prompt at the model's maximum; the Planner's is the plan's
        cmd = served.engine.plan_command(model, served, p.batch, p.context)
    except KVCalcError:
        cmd = None            # a runtime without a launch command (ideal)
    if cmd is None:
        return
    box = st.container(border=True, key="command_box")
    box.subheader(md(title), anchor=False)
    box.code(cmd.text, language=cmd.language, wrap_lines=True)
    if v.state != "fits" and served is setup:
        box.caption("The deployment as configured: this command does not include the fix above.")
    for n in cmd.notes:
        box.caption(md(n))


def _given_weights(config: dict[str, Any], choice: inputs.ModelChoice, options: dict[str, Any], batch: int,
                   ctx: int) -> dict[str, Any] | None:
    """For a model whose weights kvcalc cannot size (kvcalc.params refuses its parameters, or kvcalc.weights its
    checkpoint's quantization_config) and whose checkpoint size is unknown: its KV cache at once and a field for the
    weights per GPU, inline (dashboard.inputs.weights_ask), as the CLI's --weights-gib. Returns the plan option
    (``weights_gib``), ``{}`` when the weights are known, or None while the field is empty."""
    if loads_gguf(options.get("runtime", "vllm")) or _extras(choice, options) or options.get("dtype") == "gguf":
        return {}
    try:
        kvcalc.count_params(config)
        if options.get("dtype") is None:
            weight_bytes(config)
        return {}
    except KVCalcError as e:
        reason = str(e).split(" (", 1)[0]
    gib = inputs.weights_ask(reason, config, options, batch, ctx)
    return {"weights_gib": gib} if gib > 0 else None


def _extras(choice: inputs.ModelChoice, options: dict[str, Any]) -> dict[str, Any]:
    """The model's extra plan options (the Hub checkpoint's size); none where the weights are a GGUF file's
    (llama.cpp: kvcalc.deployment refuses a checkpoint size there)."""
    return {} if loads_gguf(options.get("runtime", "vllm")) else choice.plan_extras()


def runtime_label(runtime: str) -> str:
    """The runtime's name in text, its engine's own ("vLLM", "SGLang", "llama.cpp")."""
    return str(get_engine(runtime).label)


_SHARED = ("gpu", "gpu_mem_gib", "gpus", "dtype", "kv_dtype", "tensor_parallel_size", "pipeline_parallel_size")
"""The plan options every runtime of the side-by-side table shares (the rest are the runtime's own)."""


def runtime_options(options: dict[str, Any], runtime: str) -> dict[str, Any]:
    """The plan options of ``runtime`` for the side-by-side table: the current ones when it is the runtime
    selected, else the shared ones (GPU, count, dtypes, parallel sizes) with the runtime's own defaults
    (a GGUF runtime: the default GGUF file type and its cache types instead of the dtypes; a runtime that
    splits layers only: every GPU a pipeline stage); vLLM's max_model_len is the headline's rule
    (kvcalc.scenarios.served_options)."""
    if options.get("runtime") == runtime:
        base = dict(options)
    else:
        base = {k: options[k] for k in _SHARED if k in options}
        base["runtime"] = runtime
        base.update(engine_inputs.options_from(runtime, {}))
    if not splits_tensors(runtime):
        base.pop("tensor_parallel_size", None)
        base["pipeline_parallel_size"] = base.get("gpus", 1)
    if loads_gguf(runtime):
        base.pop("dtype", None)
        base.pop("kv_dtype", None)
    return base


def side_by_side(config: dict[str, Any], options: dict[str, Any], batch: int, ctx: int,
                 extras: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per runtime (kvcalc.engines.names: every registered engine) for this model / GPU / batch /
    context, each planned and judged as the headline is (kvcalc.scenarios.plan_scenario): the KV budget per
    GPU (never below 0), the pool in tokens, the longest context at this batch, the largest batch at this
    context (0: none) and whether it fits, or the runtime's refusal in its own words (kvcalc's typed errors)."""
    rows = []
    for rt in names():
        row: dict[str, Any] = {"runtime": runtime_label(rt), "KV budget / GPU": "", "KV pool (tokens)": "",
                               f"longest context @ batch {batch:,}": 0, f"largest batch @ {count(ctx, 'token')}": 0}
        try:
            opts = runtime_options(options, rt)
            s = plan_scenario(config, {**opts, **({} if loads_gguf(rt) else extras)}, batch, ctx,
                              solve_gpus=False)
            p = s.plan
            pool = "grows (not paged)" if p.kv_cache_tokens is None else f"{p.kv_cache_tokens:,}"
            row.update({"KV budget / GPU": human_bytes(kv_budget(p)), "KV pool (tokens)": pool,
                        f"longest context @ batch {batch:,}": s.verdict.longest or 0,
                        f"largest batch @ {count(ctx, 'token')}": p.max_batch or 0,
                        f"fits {batch:,} x {ctx:,}": "yes" if p.fits else "no",
                        "binding constraint or refusal": p.binding_constraint})
        except KVCalcError as e:
            row.update({f"fits {batch:,} x {ctx:,}": "refused", "binding constraint or refusal": str(e)})
        rows.append(row)
    return rows


def _side_by_side_key(config: dict[str, Any], options: dict[str, Any], batch: int, ctx: int,
                      extras: dict[str, Any]) -> str:
    import hashlib

    blob = json.dumps(config, sort_keys=True, default=str) + repr(sorted((k, repr(v)) for k, v in options.items())) \
        + repr(sorted((k, repr(v)) for k, v in extras.items())) + f"{batch}x{ctx}"
    return hashlib.sha256(blob.encode("utf-8", "replace")).hexdigest()


_SIDE_CACHE = "_kvp_side_by_side"


RUNTIMES_OPEN = "runtimes_open"
"""Session key of the runtimes table's expander (open or closed; not in the link)."""


def _runtimes_table(config: dict[str, Any], options: dict[str, Any], batch: int, ctx: int,
                    extras: dict[str, Any]) -> None:
    """The runtimes side by side, in an expander computed only while open (Streamlit 1.67's lazy expander:
    ``on_change="rerun"`` and ``.open``): planning every runtime is the costliest part of a rerun, and most
    reruns never show it. Built once per distinct input while open (kept in the session)."""
    box = st.expander("Runtimes side by side (every runtime planned at these inputs)", key=RUNTIMES_OPEN,
                      on_change="rerun")
    if not box.open:
        return
    with box:
        _runtimes_body(config, options, batch, ctx, extras)


def _runtimes_body(config: dict[str, Any], options: dict[str, Any], batch: int, ctx: int,
                   extras: dict[str, Any]) -> None:
    if loads_gguf(options.get("runtime", "vllm")):     # the dtypes greyed out for llama.cpp apply to the others
        options = {**options, **inputs.kept_dtypes()}
    key = _side_by_side_key(config, options, batch, ctx, extras)
    cached = st.session_state.get(_SIDE_CACHE)
    if not cached or cached[0] != key:
        cached = (key, side_by_side(config, options, batch, ctx, extras))
        st.session_state[_SIDE_CACHE] = cached
    st.caption("The same model, GPU, batch and context under each runtime's own rules: the runtime selected with "
               f"its options as set, the others at their defaults (llama.cpp: GGUF {md(engine_inputs.DEFAULT_GGUF)}, "
               "f16 cache).")
    st.dataframe(safe_rows(cached[1]), hide_index=True, width="stretch", key="runtimes_table")


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


def _speed_tiles(e: SpeedEstimate) -> list[tuple[str, str, str]]:
    """(label, value, help) of each speed figure: decode per sequence and for the whole batch, time to
    first token of one prompt and, at batch > 1, the prefill of the whole batch; each help gives its
    range (kvcalc.speed.SPREAD of its category, the fast end stopped at the datasheet bandwidth and rate)."""
    def rate(x: float | None, lo: float | None, hi: float | None) -> tuple[str, str]:
        return f"{x or 0:,.1f} tok/s", f"range {lo or 0:,.1f}-{hi or 0:,.1f} tok/s"

    def ms(x: float | None, lo: float | None, hi: float | None) -> tuple[str, str]:
        if x is None:
            return "unknown", ""
        point, low, high = durations(x, lo or 0.0, hi or 0.0)
        return point, f"range {low}-{high}"

    per, per_help = rate(e.decode_tokens_per_s_per_sequence, e.decode_tokens_per_s_per_sequence_low,
                         e.decode_tokens_per_s_per_sequence_high)
    tot, tot_help = rate(e.decode_tokens_per_s_total, e.decode_tokens_per_s_total_low,
                         e.decode_tokens_per_s_total_high)
    one, one_help = ms(e.ttft_seconds_per_prompt, e.ttft_seconds_per_prompt_low, e.ttft_seconds_per_prompt_high)
    tiles = [("Decode / sequence (est.)", per, f"{per_help} ({e.decode_category}); {e.decode_bound} bound; one step "
              f"reads {e.decode_bytes_per_step:,} bytes per GPU"),
             (f"Decode total, batch {e.batch:,} (est.)", tot,
              f"{tot_help}: " + ("the one sequence" if e.batch == 1 else f"all {e.batch:,} sequences together")),
             (f"TTFT, one {compact(e.prompt_tokens)}-token prompt (est.)", one,
              f"time to first token of one {e.prompt_tokens:,}-token prompt alone: {one_help}"
              + (f", {e.prefill_bound} bound" if e.prefill_bound else ""))]
    if e.batch > 1:
        whole, whole_help = ms(e.ttft_seconds, e.ttft_seconds_low, e.ttft_seconds_high)
        tiles.append((f"Prefill, all {e.batch:,} prompts (est.)", whole,
                      f"the whole batch's prefill: {whole_help}; all {e.batch:,} prompts in one forward pass "
                      f"({e.prefill_category})"))
    return tiles


def _speed(e: SpeedEstimate, v: Verdict | None = None) -> None:
    """Decode tokens/s and time to first token: always labelled estimated, with the range and the
    assumptions; greyed out with the reason when the batch does not run at its context (kvcalc's
    ``Verdict.runs_as_asked``: no deployment to be that fast)."""
    st.markdown("**Speed** :orange-badge[estimated]")
    if e.decode_tokens_per_s_per_sequence is None:
        for u in e.unavailable:
            st.info(md(u))
        return
    tiles = _speed_tiles(e)
    if v is not None and not v.runs_as_asked:
        st.caption(f"Speed greyed out: the plan does not run as asked ({md(v.sentence)}); the figures are what "
                   "the deployment would reach if it did.")
        st.markdown("  \n".join(f":gray[{md(label)}: {md(value)}]" for label, value, _ in tiles))
    else:
        page.metric_grid([(md(label), md(value), md(help_text)) for label, value, help_text in tiles])
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
        st.caption(f"Sizes on one GPU of each pipeline stage; the busiest stage ({table.busiest_stage}) holds the "
                   f"headline's {human_bytes(table.per_gpu_bytes)}.")
    st.dataframe(safe_rows(layer_rows(table.rows, stages=setup.pp > 1)), hide_index=True, width="stretch",
                 column_config=LAYER_HIDDEN)


LAYER_HIDDEN: dict[str, None] = {"bytes each": None, "bytes in run": None}
"""The per-layer table's exact byte columns, kept in its data (they add up to the headline to the byte) but not
drawn: the reader sees the sizes with units (GiB = 2**30 bytes, kvcalc.units.human_bytes)."""


def layer_rows(layers: tuple[LayerRow, ...], stages: bool = False) -> list[dict[str, Any]]:
    """One row per run of consecutive layers with the same stage, kind, tokens and bytes ("layers 0-4");
    a stage's vLLM block padding (unused slots of shared blocks) is a row of its own. Sizes with units
    (kvcalc.units.human_bytes) for the reader; the exact bytes last, hidden on the page (:data:`LAYER_HIDDEN`)."""
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
        row = {"layers": label, "kind": r["kind"], "tokens held": r["tokens held"],
               "size each": human_bytes(r["bytes each"]), "layers in run": r["count"],
               "size in run": human_bytes(r["bytes each"] * r["count"]),
               "bytes each": r["bytes each"], "bytes in run": r["bytes each"] * r["count"]}
        out.append({"stage": r["stage"], **row} if stages else row)
    return out


def curve_deployment(setup: Deployment, p: kvcalc.PlanResult) -> tuple[Deployment, tuple[int, str] | None]:
    """The deployment the memory curve is drawn from and where its engine refuses: an engine served with a
    ``max_model_len`` below the model's maximum (vLLM) caps every request there, so a curve of the served
    deployment would run flat past it as if longer requests fit. The curve is drawn as served at the model's
    maximum (what a request of each length needs) and the range past the served length is shaded as refused."""
    served = setup.max_model_len
    model_max = setup.spec.max_position_embeddings
    if not serves_context(p.runtime) or not served or not model_max or served >= model_max:
        return setup, None
    return with_max_model_len(setup, model_max), (served, runtime_label(p.runtime))


@st.fragment
def _chart(spec: kvcalc.ModelSpec, setup: Deployment, p: kvcalc.PlanResult, speed: SpeedEstimate, batch: int,
           ctx: int, slot: Any, choice: inputs.ModelChoice, options: dict[str, Any], longest: int | None) -> None:
    """Memory chart, its controls (drawn into the sidebar ``slot``), its exports and the share link:
    a fragment, so changing the log axis or the extra curves reruns only this, not the plan."""
    log_x, curves, show_all = _chart_controls(slot)
    inputs.share_box(state.PLANNER, "", slot)        # here, so the link includes the controls after a fragment rerun
    top = max(ctx, longest or 0, spec.max_position_embeddings or 0, 1024)
    windows = [a.window for l in spec.layers for a in l.attention if a.window]
    pts = charts.context_points(min(top, state.MAX_CONTEXT_UI), log_x, extra=[ctx, longest or 0, *windows])
    curve_setup, refused = curve_deployment(setup, p)
    curve = memory_curve(curve_setup, batch, pts)
    extra = {b: memory_curve(curve_setup, b, pts) for b in curves if b != batch}
    classes = []
    for gb, key in sorted(CLASS_REPRESENTATIVES.items()):
        g = get_gpu(key)
        if g.name != p.gpu:
            classes.append((f"{gb} GB class ({g.name})", g.memory_bytes))
    limit = total_limit(p.runtime, p.budget_bytes, p.overhead_bytes)     # SGLang: its overhead sits outside its budget
    name = f"{p.runtime} budget" + (" + its overhead" if limit != p.budget_bytes else "")
    budget = (f"{name} ({human_bytes(limit)})", limit) if limit != p.gpu_memory_bytes else None
    fig = charts.memory_chart(curve, log_x=log_x, capacities=classes, longest=longest, extra_curves=extra,
                              chosen=ctx, chosen_gpu=(f"{p.gpu} ({human_bytes(p.gpu_memory_bytes)})",
                                                      p.gpu_memory_bytes),
                              budget=budget, show_all=show_all, refused_from=refused,
                              limit=limit if limit != p.budget_bytes else None,
                              title=exports.chart_title(choice.name, p.gpu, p.gpus, batch))
    stem = exports.file_stem(choice.name, p.gpu, p.gpus)
    st.plotly_chart(page.prevalidated(fig), width="stretch", key="memory_chart",
                    config={"toImageButtonOptions": {"filename": stem}})

    if setup.gpu.bandwidth_gbps and setup.weights.params.active_count is not None:   # p4: no speed without top-k
        _speed_chart(setup, batch, curves, pts, log_x)

    c1, c2 = st.columns(2)       # each button fills its column: together they span the page
    # deferred: the files are built when clicked, not on every rerun; "ignore": a click does not
    # rerun the page, which would race the deferred file it asks for
    c1.download_button("Chart data (CSV)", lambda: exports.curve_csv({batch: curve, **extra}, model=choice.name,
                                                                     gpu=p.gpu, gpus=p.gpus, runtime=p.runtime),
                       file_name=f"{stem}_curve.csv", mime="text/csv", key="dl_csv", on_click="ignore",
                       width="stretch")
    # read now: the file is built later, outside this run
    link = {k: st.query_params.get_all(k) for k in st.query_params.keys()}
    widgets = {k: st.session_state[k] for k in state.page_keys(state.PLANNER) if k in st.session_state}
    share = inputs.share_link(state.PLANNER, "")
    c2.download_button("Plan (JSON)", lambda: exports.plan_json(
                           model=choice.name, model_source=choice.origin, plan=p.to_dict(), speed=speed.to_dict(),
                           batch=batch, context=ctx, options=options, link_inputs=link, widgets=widgets,
                           share_link=share),
                       file_name=f"{stem}_plan.json", mime="application/json", key="dl_json", on_click="ignore",
                       width="stretch")


SPEED_CHART_OPEN = "speed_chart_open"
"""Session key of the decode-speed chart's expander (open or closed; not in the link)."""


def _speed_chart(setup: Deployment, batch: int, curves: list[int], pts: list[int], log_x: bool) -> None:
    """The decode-speed chart (kvcalc.speed.decode_rate_grid), in an expander drawn only while open (Streamlit
    1.67's lazy expander): a second Plotly chart costs every rerun its grid and the browser a second plot."""
    box = st.expander("Decode speed vs context (estimated)", key=SPEED_CHART_OPEN, on_change="rerun")
    if not box.open:
        return
    batches = [batch, *(b for b in curves if b != batch)]
    grid = decode_rate_grid(setup, batches, pts)
    box.plotly_chart(page.prevalidated(charts.speed_chart(pts, {b: grid[i] for i, b in enumerate(batches)},
                                                          log_x=log_x, title="Decode speed vs context (estimated)")),
                     width="stretch", key="speed_chart")


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
        inputs.share_box(state.PLANNER, "", slot)
        return
    given = _given_weights(config, choice, options, batch, ctx)
    if given is None:
        _chart_controls(slot)
        inputs.share_box(state.PLANNER, "", slot)
        return
    options = {**options, **given}
    what_if = variant.get("variant", "as configured")
    try:
        spec = apply_variant(kvcalc.read_spec(config), what_if, kv_heads=variant.get("kv_heads"),
                             window=variant.get("window"), pattern=variant.get("pattern"))
        planned = startup_box.plan_with_log(spec, {**options, **_extras(choice, options)}, batch, ctx, config)
        setup, p, verdict = planned.setup, planned.plan, planned.verdict
        speed = estimate_speed(setup, p.batch, p.context)
    except KVCalcError as e:
        _chart_controls(slot)
        inputs.share_box(state.PLANNER, "", slot)
        st.error(f"Cannot plan this: {md(e)}")
        return
    base = _as_configured(config, options, choice, p) if what_if != "as configured" else None
    st.subheader(f"{md(choice.name)} on {p.gpus} x {md(p.gpu)}, {p.runtime}")
    _verdict(verdict, what_if, fixes(setup, p, verdict.longest) if what_if == "as configured" else ())
    _badges(p, what_if, base[0] if base else None)
    if what_if == "as configured":
        _command(choice, setup, p, verdict)      # a what-if model cannot be launched
    _metrics(p, verdict, setup)
    if what_if != "as configured":
        _what_if(what_if, choice, p, speed, base)
    _speed(speed, verdict)

    served = served_options(options, ctx)[0] if planned.source == "context" else options
    _chart(spec, setup, p, speed, batch, ctx, slot, choice, served, verdict.longest)  # the verdict's longest

    st.subheader("Per layer (consecutive identical layers grouped)")
    _layer_table(setup, p.batch, p.context)
    with st.expander("Config fields used and warnings"):
        st.markdown(md(", ".join(p.fields_used)) or "(none)")
        for w in p.warnings:
            st.warning(md(w))

    _runtimes_table(config, options, batch, ctx, choice.plan_extras())
