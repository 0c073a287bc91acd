"""The Workload page: capacity for the workload served, beside the plain worst case.

Four sections on one deployment (the shared sidebar, dashboard.inputs): a shared prompt prefix
(kvcalc.workload.curves.shared over kvcalc.workload.prefix), a request-length distribution
(kvcalc.workload.lengths), a KV offload tier (kvcalc.workload.offload) and several models on one GPU
(kvcalc.workload.colocate). Every figure comes from kvcalc.workload; this module lays them out.
Units: tokens, blocks (pages) of the engine's pool, bytes shown in GiB (2**30), seconds shown in ms.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import streamlit as st

from kvcalc.capacity import deploy
from kvcalc.catalog import bundled_config, catalog
from kvcalc.engines import get_engine
from kvcalc.errors import KVCalcError
from kvcalc.limits import finite_json
from kvcalc.runtimes import RUNTIMES
from kvcalc.scenarios import Planned, plan_scenario
from kvcalc.units import GiB, human_bytes
from kvcalc.workload import LINKS, colocate, length_concurrency, offload_tier
from kvcalc.workload.colocate import Colocation
from kvcalc.workload.curves import capped, length_curve, prefix_curve, shared

from . import exports, inputs, page, state, workload_charts
from .text import code, count, md, safe_rows
from .workload_state import (
    CONNECTORS,
    DEFAULT_INSTANCES,
    DEFAULTS,
    LINK_KEYS,
    MAX_INSTANCES,
    MAX_TOKENS_UI,
    InstanceRow,
    decode_instances,
    encode_instances,
)

EXPORT_SCHEMA = "kv-cache-planner/workload-export/1"
PAGE_PATH = "Workload"          # the page's URL path (pages/4_Workload.py)
_BASE, _LAST, _TABLE = "_wl_colo_base", "_wl_colo_last", "wl_colo_table"


def _kv_memory(container: Any, runtime: str) -> dict[str, Any]:
    """vLLM's ``--kv-cache-memory-bytes``, typed in GiB (0: sized from gpu_memory_utilization), for an engine
    that takes it."""
    if "kv_cache_memory" not in get_engine(runtime).option_names():
        return {}
    gib = float(container.number_input("kv_cache_memory (GiB; 0 = from gpu_memory_utilization)", min_value=0.0,
                                       max_value=4096.0, value=DEFAULTS["wl_kvmem"], step=1.0,
                                       **state.bound("wl_kvmem"),
                                       help="vLLM --kv-cache-memory-bytes: the KV pool's size, given instead of "
                                            "the profiled budget"))
    return {"kv_cache_memory": int(gib * GiB)} if gib else {}


def _requests(n: int) -> str:
    return f"{n:,} request" + ("" if n == 1 else "s")


def _headline(planned: Planned) -> None:
    p, v = planned.plan, planned.verdict
    box = st.success if v.state == "fits" else st.warning if v.state == "fits_if" else st.error
    box(f"**{md(v.sentence)}.**" + (f"  \nvLLM {md(v.max_model_len_note)}." if v.max_model_len_note else ""))
    if p.max_concurrency is not None:
        st.caption(f"The plain worst case: every request at the engine's longest length, nothing shared, "
                   f"{p.max_concurrency:,.2f}x requests at once (the engine's own \"Maximum concurrency\").")


def _prefix_section(d: Any) -> dict[str, Any]:
    """Shared prefix: inputs, figures and the chart; returns the export's ``prefix_sharing`` entry."""
    st.subheader("1. Shared prompt prefix")
    c1, c2, c3 = st.columns(3)
    caching = bool(c1.toggle("Prefix caching (--enable-prefix-caching)", value=DEFAULTS["wl_pc"],
                             **state.bound("wl_pc")))
    prefix = int(c2.number_input("Shared-prefix tokens", min_value=0, max_value=MAX_TOKENS_UI,
                                 value=DEFAULTS["wl_prefix"], step=256, **state.bound("wl_prefix"),
                                 help="Tokens of prompt every request starts with (a system prompt), tokens"))
    hit = float(c3.number_input("Hit rate (share of requests with the prefix)", min_value=0.0, max_value=1.0,
                                value=DEFAULTS["wl_hit"], step=0.05, format="%.2f", **state.bound("wl_hit")))
    try:
        s = shared(d, prefix, hit_rate=hit, caching=caching)
        curve = prefix_curve(d, hit_rate=hit, caching=caching, extra=[prefix])
    except KVCalcError as e:
        st.info(f"Prefix sharing: {md(e)}")
        return {"error": str(e)}
    tokens = f"{s.request_tokens:,}-token requests"
    st.caption(f"Requests of {count(s.request_tokens, 'token')} each (the engine's longest request); "
               "x = requests at once.")
    page.metric_grid([
        ("Effective concurrency", f"{s.effective_concurrency:,.2f}x",
         "Requests at once on the engine's own reporting basis (vLLM's \"Maximum concurrency\"): "
         "(pool - shared blocks) / (blocks a request - shared blocks)"),
        ("Whole requests at once", md(_requests(s.requests_at_once)),
         f"Whole requests that fit beside the {count(s.reserved_blocks, 'reserved block')} (vLLM's null "
         f"block), at most the running cap {s.running_cap:,}"),
        ("Blocks resident", count(s.blocks_resident, "block"),
         f"Of the pool's {count(s.pool_blocks, 'block')}: what those requests hold, the shared "
         f"{count(s.shared_blocks, 'block')} once"),
        ("Worst case (nothing shared)", f"{s.plain_concurrency:,.2f}x",
         f"pool {s.pool_blocks:,} / {count(s.blocks_per_request, 'block')} a request")])
    size = ", ".join(f"{g.kind}: {count(g.block_size, 'token')} a block" for g in s.groups)
    st.caption(f"{md(s.engine)} {md(s.version)} ({md(s.quality)}): a request holds "
               f"{count(s.blocks_per_request, 'block')} ({md(size)}), {s.shared_blocks:,} of them the shared prefix "
               "stored once"
               + (f"; ({s.pool_blocks:,} - {s.shared_blocks:,}) / ({s.blocks_per_request:,} - "
                  f"{s.shared_blocks:,}) = {s.effective_concurrency:,.2f}" if s.hit_rate == 1 else "")
               + (f". At most {s.running_cap:,} run at once (the engine's cap)." if capped(s) < s.effective_concurrency
                  else "."))
    for note in (*(f"{g.kind}: {g.rule}" for g in s.groups), *s.notes):
        st.caption(f"- {md(note)}")
    st.plotly_chart(workload_charts.prefix_chart(curve, prefix, title=f"Requests at once against the shared "
                                                 f"prefix ({tokens})"), width="stretch", key="wl_prefix_chart")
    return {**s.to_dict(), "prefix_caching": caching}


def _lengths_section(d: Any) -> dict[str, Any]:
    """Request-length distribution: inputs, figures, the wait chances and the chart."""
    st.subheader("2. Request lengths")
    c = st.columns(4)
    keys = ("wl_in", "wl_in95", "wl_out", "wl_out95")
    labels = ("Mean input tokens", "p95 input tokens", "Mean output tokens", "p95 output tokens")
    vals = [int(c[i].number_input(labels[i], min_value=1, max_value=MAX_TOKENS_UI, value=DEFAULTS[k], step=100,
                                  **state.bound(k))) for i, k in enumerate(keys)]
    try:
        lc = length_concurrency(d, *vals)
        curve = length_curve(d, *vals)
    except KVCalcError as e:
        st.info(f"Request lengths: {md(e)}")
        return {"error": str(e)}
    page.metric_grid([
        ("Expected at once", f"{lc.expected_concurrency:,.1f} requests",
         f"pool {lc.pool_tokens:,} tokens / {lc.occupancy_mean:,.1f} tokens a request holds on "
         "average (input + output / 2 + page / 2), at most the running cap"),
        ("At most 5 % wait chance", md(_requests(lc.concurrency_at_5pct)),
         "The most requests running with at most a 5 % chance that the next one waits"),
        ("Worst case (every request at max length)", f"{lc.worst_case_concurrency:,.2f}x", None)])
    rows = sorted({max(int(lc.worst_case_concurrency), 1), lc.concurrency_at_5pct, round(lc.expected_concurrency)})
    st.dataframe(safe_rows([{"requests running": n, "chance a new request waits (%)":
                             round(100 * lc.wait_probability(n), 2)} for n in rows if n > 0]),
                 hide_index=True, key="wl_wait_table")
    st.caption(f"Model: {md(lc.model)}. Input: {md(lc.input.source)}; output: {md(lc.output.source)}. "
               "Queueing (arrival rates) is not modelled: the chance is of the KV pool being full.")
    for note in lc.notes:
        st.caption(f"- {md(note)}")
    st.plotly_chart(workload_charts.length_chart(curve, vals[0] + vals[2], title="Requests at once against the "
                                                 "mean request length"), width="stretch", key="wl_length_chart")
    return lc.to_dict()


def _offload_section(d: Any) -> dict[str, Any]:
    """KV offload tier: size, connector and link -> tokens held off the GPU and the reload cost."""
    st.subheader("3. KV offload tier (CPU / NVMe)")
    c1, c2, c3 = st.columns(3)
    gib = float(c1.number_input("Offload tier (GiB; 0 = none)", min_value=0.0, max_value=float(1 << 20),
                                value=DEFAULTS["wl_off"], step=10.0, **state.bound("wl_off"),
                                help="vLLM: all ranks' --kv-offloading-size; SGLang: --hicache-size per rank"))
    conn = str(c2.selectbox("Connector", CONNECTORS, **state.bound("wl_conn"),
                            help="default: the engine's own (vLLM native, SGLang hierarchical cache)"))
    # no format_func: a bound selectbox writes its label into the link (dashboard.inputs)
    link = str(c3.selectbox("Host link", LINK_KEYS, **state.bound("wl_link"),
                            help=", ".join(f"{k}: {v.name}, {v.gbps:,.1f} GB/s a direction" for k, v in LINKS.items())))
    if not gib:
        st.caption("No offload tier (0 GiB).")
        return {}
    try:
        t = offload_tier(d, gib, connector=None if conn == "default" else conn, link=link)
    except KVCalcError as e:
        st.info(f"KV offload: {md(e)}")
        return {"error": str(e)}
    page.metric_grid([
        ("Off the GPU (tokens)", f"{t.tokens:,}", f"{t.bytes_per_token:,} bytes a token"),
        ("GPU pool (tokens)", f"{t.gpu_pool_tokens:,}", None),
        ("Requests held", md(_requests(t.requests_held)), f"of {count(t.request_tokens, 'token')} each"),
        ("Reload one request", f"{t.reload_seconds * 1e3:,.1f} ms",
         f"the KV of {count(t.request_tokens, 'token')} over {md(t.link.name)} ({t.link.gbps:,.1f} GB/s a "
         "direction)")])
    st.caption(f"{md(t.connector)} ({md(t.quality)}): {code(t.formula)}. Flags: {code(' '.join(t.flags))}. "
               f"Link: {md(t.link.source)}.")
    return t.to_dict()


def _table_base() -> tuple[InstanceRow, ...]:
    """The co-location table the editor starts from: the link's, else this session's last, else the default;
    rebuilt on a page's first run and on arriving from another page (the editor's own edits are dropped then)."""
    if _BASE not in st.session_state or state.arrived():
        link = decode_instances(st.query_params.get("wl_colo"))
        last = decode_instances(st.session_state.get(_LAST)) if state.arrived() else None
        st.session_state[_BASE] = link or last or DEFAULT_INSTANCES
        st.session_state.pop(_TABLE, None)
    return tuple(st.session_state[_BASE])


def _instance_rows() -> tuple[list[InstanceRow], list[str]]:
    """The editor's rows (complete ones, at most MAX_INSTANCES) and a notice for each one left out."""
    base = _table_base()
    models = sorted(e.hub_id for e in catalog())
    df = st.data_editor(
        [{"model": r.model, "engine": r.engine, "memory share": r.share, "max_model_len": r.max_len} for r in base],
        num_rows="dynamic", key=_TABLE, hide_index=True,
        column_config={
            "model": st.column_config.SelectboxColumn("model", options=models, required=True),
            "engine": st.column_config.SelectboxColumn("engine", options=list(RUNTIMES), required=True),
            "memory share": st.column_config.NumberColumn("memory share (gpu_memory_utilization)", min_value=0.01,
                                                          max_value=1.0, step=0.01, format="%.2f", required=True),
            "max_model_len": st.column_config.NumberColumn("max_model_len (tokens)", min_value=1,
                                                           max_value=MAX_TOKENS_UI, step=1, required=True)})
    records: list[Any] = list(df)            # a list of rows in, a list of rows out
    rows, notes = [], []
    for i, r in enumerate(records, 1):
        try:
            row = InstanceRow(str(r["model"]), str(r["engine"]), round(float(r["memory share"]), 4),
                              int(r["max_model_len"]))
        except (TypeError, ValueError, KeyError):
            notes.append(f"row {i} is incomplete: left out")
            continue
        if row.model not in models or row.engine not in RUNTIMES or not 0 < row.share <= 1 or row.max_len < 1:
            notes.append(f"row {i} is incomplete: left out")
            continue
        rows.append(row)
    if len(rows) > MAX_INSTANCES:
        notes.append(f"at most {MAX_INSTANCES} instances: the rows after the {MAX_INSTANCES}th are left out")
        rows = rows[:MAX_INSTANCES]
    encoded = encode_instances(rows) if rows else None
    st.session_state[_LAST] = encoded
    state.publish("wl_colo", encoded, encode_instances(DEFAULT_INSTANCES))
    return rows, notes


def _gpu_options(options: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("gpu", "gpu_mem_gib", "gpus", "tensor_parallel_size", "pipeline_parallel_size")
    return {k: options[k] for k in keys if k in options}


def _colocation(rows: list[InstanceRow], options: Mapping[str, Any]) -> Colocation | str:
    """The instances deployed on the page's GPU(s) and checked in launch order, or the refusal's text."""
    plan = []
    for i, r in enumerate(rows, 1):
        names = get_engine(r.engine).option_names()
        asked: dict[str, Any] = {"gpu_memory_utilization": r.share, "max_model_len": r.max_len}
        extra = {k: v for k, v in asked.items() if k in names}
        try:
            plan.append((r.model, deploy(bundled_config(r.model), runtime=r.engine, **_gpu_options(options), **extra)))
        except KVCalcError as e:
            return f"instance {i} ({r.model}): {e}"
    try:
        return colocate(plan)
    except KVCalcError as e:
        return str(e)


def _colocate_section(options: Mapping[str, Any]) -> dict[str, Any]:
    """Several models on one GPU: the table, the sum against the device, the launch order, one command each."""
    st.subheader("4. Several models on one GPU")
    st.caption("One row per instance, in launch order, on the GPU(s) chosen in the sidebar (bundled models).")
    rows, notes = _instance_rows()
    for n in notes:
        st.caption(f"- {md(n)}")
    if not rows:
        st.info("Add an instance to the table.")
        return {}
    c = _colocation(rows, options)
    if isinstance(c, str):
        st.error(f"Cannot run these together: {md(c)}")
        return {"error": c}
    over = [(k, i) for k, i in enumerate(c.instances, 1) if not i.starts]
    small = [(k, i) for k, i in enumerate(c.instances, 1) if i.starts and not i.kv_fits]
    page.metric_grid([
        ("Asked in all", f"{c.requested_bytes / GiB:,.2f} GiB",
         "the sum of ceil(total x gpu_memory_utilization) over the instances"),
        ("GPU memory", f"{c.total_bytes / GiB:,.2f} GiB", f"{c.total_bytes:,} bytes ({md(c.gpu)})"),
        ("Left after the last", f"{c.headroom_bytes / GiB:,.2f} GiB",
         f"after every budget and {len(c.instances)} CUDA contexts of {human_bytes(c.context_bytes)} each "
         "(estimated)")])
    if over or small:
        st.error("Refused: " + "; ".join(
            [f"instance {k:d} ({md(i.model)}) asks {i.requested_bytes / GiB:,.2f} GiB but {i.free_at_start / GiB:,.2f} "
             "GiB are free when it starts, so vLLM refuses to start it" for k, i in over]
            + [f"instance {k:d} ({md(i.model)}): its KV cache holds {i.kv_cache_tokens:,} tokens, "
               f"{i.max_concurrency:.2f}x one max_model_len request, so vLLM refuses to start it (give it a larger "
               "memory share or a shorter max_model_len)" for k, i in small]))
    else:
        st.success(f"All {len(c.instances)} instances fit on one {md(c.gpu)}.")
    st.dataframe(safe_rows([{
        "launch": k, "model": i.model, "memory share": i.gpu_memory_utilization,
        "asks (GiB)": round(i.requested_bytes / GiB, 2), "free at its start (GiB)": round(i.free_at_start / GiB, 2),
        "starts": "yes" if i.starts and i.kv_fits else "no", "KV cache (tokens)": i.kv_cache_tokens,
        "max concurrency (x)": round(i.max_concurrency, 2)} for k, i in enumerate(c.instances, 1)]),
        hide_index=True, key="wl_colo_result")
    st.caption(f"Order: {md(c.order)}.")
    st.code("\n".join(i.command for i in c.instances), language="bash", wrap_lines=True)
    from dataclasses import asdict

    return asdict(c)


def export_json(*, model: str, model_source: str, planned: Planned, sections: Mapping[str, Any],
                widgets: Mapping[str, Any], link: Mapping[str, Any], share_link: str) -> str:
    """The page's JSON: what it describes (model, GPU, count), every input by URL key, the link, kvcalc's
    version, the plain plan and the workload figures (the keys of ``kvcalc plan --json``'s ``workload``
    object, plus ``colocation``); ``effective_concurrency`` as in ``plan --json``."""
    p = planned.plan
    prefix = sections.get("prefix_sharing") or {}
    effective = prefix.get("effective_concurrency", p.max_concurrency)
    doc = {"schema": EXPORT_SCHEMA, "kvcalc_version": exports.kvcalc_version(),
           "title": exports.describe(model, p.gpu, p.gpus), "model": {"id": model, "source": model_source},
           "inputs": {"widgets": {k: v for k, v in widgets.items()}, "link": dict(link)}, "share_link": share_link,
           "plan": p.to_dict(), "effective_concurrency": effective, "workload": dict(sections)}
    return json.dumps(json.loads(finite_json(doc)), indent=2)


def render() -> None:
    page.start("Workload", state.WORKLOAD)
    st.caption("Capacity for the workload you serve: a shared prompt prefix, request-length distributions, a KV "
               "offload tier and several models on one GPU, beside the plain worst case (every request at "
               "max_model_len, nothing shared).")
    choice, options, batch, ctx = inputs.deployment_inputs(st.sidebar)
    options = {**options, **_kv_memory(st.sidebar, options["runtime"])}
    page.share_box(PAGE_PATH)
    config = choice.config
    if not page.model_ready(choice) or config is None:
        return
    try:
        planned = plan_scenario(config, {**options, **choice.plan_extras()}, batch, ctx)
    except KVCalcError as e:
        st.error(f"Cannot plan this: {md(e)}")
        return
    d = planned.setup
    st.subheader(f"{md(choice.name)} on {d.gpus:,} x {md(d.gpu.name)}, {md(d.engine.label)}")
    _headline(planned)
    sections = {"prefix_sharing": _prefix_section(d), "lengths": _lengths_section(d),
                "offload": _offload_section(d), "colocation": _colocate_section(options)}
    link = {k: st.query_params.get_all(k) for k in st.query_params.keys()}
    widgets = {k: st.session_state[k] for k in state.page_keys(state.WORKLOAD) if k in st.session_state}
    share = state.share_link(PAGE_PATH)
    stem = exports.file_stem(choice.name, d.gpu.name, d.gpus)
    st.download_button("Workload (JSON)", lambda: export_json(
        model=choice.name, model_source=choice.origin, planned=planned, sections=sections, widgets=widgets,
        link=link, share_link=share), file_name=f"{stem}_workload.json", mime="application/json",
        key="wl_dl_json", on_click="ignore")
