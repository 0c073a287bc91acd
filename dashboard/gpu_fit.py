"""The GPU fit page: one model, a batch x context heatmap on one GPU, and every catalog GPU in a table.

Every figure comes from :func:`kvcalc.scenarios.gpu_fit`, which plans and judges the headline as the
Planner does (:func:`kvcalc.scenarios.plan_scenario`: vLLM's ``max_model_len`` is the context asked for
unless set) and moves the same deployment to each cell and each card; this module only lays them out.
"""
from __future__ import annotations

import time

import streamlit as st

from kvcalc.errors import KVCalcError
from kvcalc.scenarios import FitView, gpu_fit

from . import charts, inputs, page, state
from .text import md, safe_rows


def _headline(view: FitView) -> None:
    p, v = view.planned.plan, view.planned.verdict
    box = st.success if v.state == "fits" else st.warning if v.state == "fits_if" else st.error
    box(f"**{md(v.sentence)}.**" + (f"  \nFix: {md(v.fix)}." if v.fix else "")
        + (f"  \nvLLM {md(v.max_model_len_note)}." if v.max_model_len_note else ""))
    share, of = view.share
    cols = st.columns(4)
    cols[0].metric(f"{'Budget' if of == 'budget' else 'GPU memory'} used @ {p.batch:,} x {p.context:,}",
                   f"{share:.1%}",
                   help=f"{p.total_bytes:,} bytes per GPU of the runtime's budget {p.budget_bytes:,}"
                        + ("" if of == "budget" else f" (the runtime's overhead {p.overhead_bytes:,} sits outside "
                           f"its budget; GPU memory {p.gpu_memory_bytes:,})"))
    cols[1].metric("Fits", "yes" if p.fits else "no")
    cols[2].metric(f"Longest context @ batch {p.batch:,}", f"{v.longest:,}" if v.longest else "none")
    cols[3].metric(f"Largest batch @ {p.context:,}", f"{p.max_batch:,}" if p.max_batch else "none")
    st.caption(f"Binding constraint: {md(p.binding_constraint)}.")


def render() -> None:
    t0 = time.perf_counter()
    page.start("GPU fit", state.GPU_FIT)
    st.caption("Which batch x context fits one GPU, and how far every GPU in the catalog goes for this model.")
    choice, options, batch, ctx = inputs.deployment_inputs(st.sidebar)
    inputs.share_box(state.GPU_FIT, "GPU_fit")
    config = choice.config
    if not page.model_ready(choice) or config is None:
        return
    try:
        view = gpu_fit(config, {**options, **choice.plan_extras()}, batch, ctx, max_context=state.MAX_CONTEXT_UI)
    except KVCalcError as e:
        st.error(f"Cannot plan this: {md(e)}")
        return
    setup = view.planned.setup
    st.subheader(f"{md(choice.name)} on {setup.gpus} x {md(setup.gpu.name)}, {setup.runtime}")
    _headline(view)
    fig = charts.fit_heatmap(list(view.batches), list(view.contexts), view.cells,
                             title=f"Share of the {setup.runtime} budget used per GPU "
                                   f"({setup.gpu.memory_gib:.1f} GiB GPU)")
    st.plotly_chart(fig, width="stretch", key="fit_heatmap")
    mml = "each column served with max_model_len = its context" if view.planned.source != "given" else \
        f"max_model_len {setup.max_model_len:,}" if setup.max_model_len else "the model maximum"
    st.caption("Colour: (weights + KV cache + runtime overhead) / the runtime's budget, per GPU (of the GPU's "
               "memory where the runtime's overhead sits outside its budget). Green fits; a cell marked x does "
               f"not fit. Contexts run up to {view.contexts[-1]:,} tokens ({md(mml)}).")

    p = view.planned.plan
    st.subheader(f"Every GPU in the catalog: {setup.gpus} GPU(s), batch {p.batch:,}, context {p.context:,}")
    for err in view.errors:
        st.info(f"Not planned on {md(err)}")
    if view.rows:
        st.dataframe(safe_rows(list(view.rows)), hide_index=True, width="stretch", key="gpu_table")
    st.caption("0 = nothing fits (at this batch / context). The budget is the GPU memory (ideal, transformers) "
               "or the engine's share of it (vLLM: gpu_memory_utilization x memory); the KV budget is never "
               "below 0.")
    st.caption(f"Computed in {(time.perf_counter() - t0) * 1000:.0f} ms.")
