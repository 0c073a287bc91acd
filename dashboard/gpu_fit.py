"""The GPU fit page: one model, a batch x context heatmap on one GPU, and every catalog GPU in a table.

The heatmap's colour is the share of the runtime's budget used, ``total_bytes / budget_bytes`` as
:func:`kvcalc.plan` computes them (via :func:`kvcalc.capacity.memory_curve`, which applies the
same rules to one deployment, built once); above 1 it does not fit.
"""
from __future__ import annotations

import math
import time
from typing import Any

import streamlit as st

import kvcalc
from kvcalc.capacity import Deployment, deploy, memory_curve, plan
from kvcalc.errors import KVCalcError
from kvcalc.gpus import gpu_catalog
from kvcalc.limits import MAX_CONTEXT
from kvcalc.units import GiB

from . import charts, inputs, page, state
from .compare import served_longest
from .text import md, safe_rows

BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
FALLBACK_MAX_CONTEXT = 131072      # for configs that state no maximum


def heat_contexts(max_context: int) -> list[int]:
    """Log-spaced context lengths up to ``max_context``: 2^k and 1.5 x 2^k over the top ~9 octaves, plus
    the maximum itself."""
    hi = max(1, max_context)
    lo = min(hi, max(16, 2 ** (int(math.log2(hi)) - 9)))
    grid = {v for k in range(0, 31) for v in (2 ** k, 3 * 2 ** k) if lo <= v <= hi}
    return sorted(grid | {hi})


def heat_grid(setup: Deployment, batches: list[int], contexts: list[int]) -> list[list[float]]:
    """share[i][j] = total / budget at batches[i] x contexts[j] (rows = batch)."""
    out = []
    for b in batches:
        out.append([p.total / p.budget for p in memory_curve(setup, b, contexts)])
    return out


def gpu_table(setup: Deployment, batch: int, context: int) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per catalog GPU at ``batch`` x ``context``: the same deployment (GPU count, runtime,
    options) moved to each card (``Deployment.with_gpu``)."""
    rows, errors = [], []
    for g in gpu_catalog():
        try:
            p = plan(setup.with_gpu(g), batch=batch, context=context, solve_gpus=False)
        except KVCalcError as e:
            errors.append(f"{g.name}: {e}")
            continue
        rows.append({
            "GPU": g.name, "key": g.key, "memory GiB": round(g.memory_gib, 2),
            "budget GiB": round(p.budget_bytes / GiB, 2), "weights GiB / GPU": round(p.weights_bytes / GiB, 2),
            "KV budget GiB": round(max(p.budget_bytes - p.weights_bytes - p.overhead_bytes
                                       if p.available_kv_bytes is None else p.available_kv_bytes, 0) / GiB, 2),
            f"fits {batch:,} x {context:,}": "yes" if p.fits else "no",
            f"longest context @ batch {batch:,}": served_longest(setup.with_gpu(g), p),
            f"largest batch @ {context:,} tokens": p.max_batch or 0,
            "binding constraint": p.binding_constraint,
        })
    return rows, errors


def render() -> None:
    t0 = time.perf_counter()
    page.start("GPU fit", state.GPU_FIT)
    st.caption("Which batch x context fits one GPU, and how far every GPU in the catalog goes for this model.")
    choice, options, batch, ctx = inputs.deployment_inputs(st.sidebar)
    page.share_box("GPU_fit")
    config = choice.config
    if not page.model_ready(choice) or config is None:
        return
    options = {**options, **choice.plan_extras()}
    try:
        spec = kvcalc.read_spec(config)
        setup = deploy(spec, config_dict=config, **options)      # once per rerun
    except KVCalcError as e:
        st.error(f"Cannot plan this: {md(e)}")
        return

    cap = setup.context_cap if setup.context_cap < MAX_CONTEXT else max(ctx, FALLBACK_MAX_CONTEXT)
    contexts = heat_contexts(min(cap, state.MAX_CONTEXT_UI))
    try:
        used = heat_grid(setup, BATCHES, contexts)
    except KVCalcError as e:
        st.error(f"Cannot draw the heatmap: {md(e)}")
        return
    st.subheader(f"{md(choice.name)} on {setup.gpus} x {md(setup.gpu.name)}, {setup.runtime}")
    try:
        here = plan(setup, batch=batch, context=ctx, solve_gpus=False)
    except KVCalcError as e:
        st.error(f"Cannot plan batch {batch:,} x {ctx:,}: {md(e)}")
        return
    cols = st.columns(4)
    cols[0].metric(f"Budget used @ {batch:,} x {ctx:,}", f"{here.total_bytes / here.budget_bytes:.1%}",
                   help=f"{here.total_bytes:,} of {here.budget_bytes:,} bytes per GPU")
    cols[1].metric("Fits", "yes" if here.fits else "no")
    longest = served_longest(setup, here)
    cols[2].metric(f"Longest context @ batch {batch:,}", f"{longest:,}" if longest else "none")
    cols[3].metric(f"Largest batch @ {ctx:,}", f"{here.max_batch:,}" if here.max_batch else "none")
    st.caption(f"Binding constraint: {md(here.binding_constraint)}.")
    fig = charts.fit_heatmap(BATCHES, contexts, used,
                             title=f"Share of the {setup.runtime} budget used per GPU "
                                   f"({setup.gpu.memory_gib:.1f} GiB GPU)")
    st.plotly_chart(fig, width="stretch", key="fit_heatmap")
    st.caption("Colour: (weights + KV cache + runtime overhead) / the runtime's budget, per GPU. Green fits, "
               "red (above 100%) does not. Contexts run up to "
               f"{contexts[-1]:,} tokens ({'max_model_len' if setup.max_model_len else 'the model maximum'}).")

    st.subheader(f"Every GPU in the catalog: {setup.gpus} GPU(s), batch {batch:,}, context {ctx:,}")
    rows, errors = gpu_table(setup, batch, ctx)
    for err in errors:
        st.info(f"Not planned on {md(err)}")
    if rows:
        st.dataframe(safe_rows(rows), hide_index=True, width="stretch", key="gpu_table")
    st.caption("0 = nothing fits (at this batch / context). The budget is the GPU memory (ideal, transformers) "
               "or gpu_memory_utilization x memory (vLLM).")
    st.caption(f"Computed in {(time.perf_counter() - t0) * 1000:.0f} ms.")
