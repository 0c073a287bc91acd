"""The GPU fit page: one model, a batch x context heatmap on one GPU, and every catalog GPU in a table.

Every figure comes from :func:`kvcalc.scenarios.gpu_fit`, which plans and judges the headline as the
Planner does (:func:`kvcalc.scenarios.plan_scenario`: vLLM's ``max_model_len`` is the context asked for
unless set) and moves the same deployment to each cell and each card; this module only lays them out.
"""
from __future__ import annotations

import time
from typing import Any, Literal

import streamlit as st

from kvcalc.errors import KVCalcError
from kvcalc.explain import pool_binds_text
from kvcalc.scenarios import FIT_BATCHES, FitView, HeatCell, gpu_fit, heat_grid

from . import charts, inputs, page, state
from .text import count, md, safe_rows, short_name


def _headline(view: FitView) -> None:
    p, v = view.planned.plan, view.planned.verdict
    box = st.success if v.state == "fits" else st.warning if v.state == "fits_if" else st.error
    box(f"**{md(v.sentence)}.**" + (f"  \nFix: {md(v.fix)}." if v.fix else "")
        + (f"  \nvLLM {md(v.max_model_len_note)}." if v.max_model_len_note else ""))
    share, of = view.share
    page.metric_grid([
        (f"{'Budget' if of == 'budget' else 'GPU memory'} used @ {p.batch:,} x {p.context:,}", f"{share:.1%}",
         f"{p.total_bytes:,} bytes per GPU of the runtime's budget {p.budget_bytes:,}"
         + ("" if of == "budget" else f" (the runtime's overhead {p.overhead_bytes:,} sits outside its budget; GPU "
            f"memory {p.gpu_memory_bytes:,})")),
        ("Fits", "yes" if p.fits else "no", None),
        (f"Longest context @ batch {p.batch:,}", f"{v.longest:,}" if v.longest else "none", None),
        (f"Largest batch @ {p.context:,}", f"{p.max_batch:,}" if p.max_batch else "none", None)])
    st.caption(f"Binding constraint: {md(p.binding_constraint)}.")
    why = pool_binds_text(p)
    if why:
        st.caption(md(why))


def grid(view: FitView, context: int) -> tuple[list[int], list[list[HeatCell]]]:
    """The heatmap's contexts and cells with the user's ``context`` among them: a context between two grid
    columns (or below the first) gets its own column, planned as the others (kvcalc.scenarios.heat_grid), so the
    chosen cell is the user's own batch x context, not its nearest neighbour; one past the grid's end (over the
    model's maximum) gets none."""
    contexts, cells = list(view.contexts), [list(r) for r in view.cells]
    if context in contexts or not contexts or context > contexts[-1]:
        return contexts, cells
    j = next(k for k, c in enumerate(contexts) if c > context)
    column = heat_grid(view.planned, view.batches, [context])
    contexts.insert(j, context)
    for row, extra in zip(cells, column):
        row.insert(j, extra[0])
    return contexts, cells


def sorted_rows(rows: list[dict[str, Any]], batch: int, context: int) -> list[dict[str, Any]]:
    """The GPU table's order: the cards that fit ``batch`` x ``context`` first, then the longest context at that
    batch (longest first), then the memory (least first: of cards that go as far, the smallest, the cheaper
    answer, comes first), then the name.

    >>> rows = [{"GPU": "a", "memory GiB": 80, "fits 1 x 8": "no", "longest context @ batch 1": 0},
    ...         {"GPU": "b", "memory GiB": 80, "fits 1 x 8": "yes", "longest context @ batch 1": 9},
    ...         {"GPU": "c", "memory GiB": 24, "fits 1 x 8": "yes", "longest context @ batch 1": 9},
    ...         {"GPU": "d", "memory GiB": 16, "fits 1 x 8": "yes", "longest context @ batch 1": 8}]
    >>> [r["GPU"] for r in sorted_rows(rows, 1, 8)]
    ['c', 'b', 'd', 'a']
    """
    fit, longest, _ = _columns(batch, context)
    return sorted(rows, key=lambda r: (r[fit] != "yes", -int(r[longest]), r["memory GiB"], r["GPU"]))


def _columns(batch: int, context: int) -> tuple[str, str, str]:
    """The names of kvcalc.scenarios.gpu_row's fits / longest context / largest batch columns."""
    return (f"fits {batch:,} x {context:,}", f"longest context @ batch {batch:,}",
            f"largest batch @ {count(context, 'token')}")


def table_config(batch: int, context: int) -> tuple[list[str], dict[str, Any]]:
    """(column order, column config) of the GPU table: the name narrow, then the answers (fits, longest context,
    largest batch) and the memory, so a 390 px phone shows numbers beside each name; short headers, each with its
    full name as help. The catalog key stays in the data (the URL value), not on screen."""
    fit, longest, largest = _columns(batch, context)
    short: dict[str, tuple[str, Literal["small", "large"]]] = {
        "GPU": ("GPU", "small"), fit: ("fits", "small"), longest: ("longest ctx", "small"),
        largest: ("max batch", "small"), "memory GiB": ("GiB", "small"), "budget GiB": ("budget GiB", "small"),
        "KV budget GiB": ("KV GiB", "small"), "weights GiB / GPU": ("weights GiB", "small"),
        "binding constraint": ("binding constraint", "large")}
    config: dict[str, Any] = {}
    for name, (label, width) in short.items():
        help_text = name if name != "GPU" else "The card, without its vendor and brand words (NVIDIA, GeForce, ...)"
        if name in (longest, largest):
            config[name] = st.column_config.NumberColumn(label, help=help_text, width=width, format="localized")
        else:
            config[name] = st.column_config.Column(label, help=help_text, width=width)
    return list(short), config


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
        view = gpu_fit(config, {**options, **choice.plan_extras()}, batch, ctx, max_context=state.MAX_CONTEXT_UI,
                       batches=sorted({*FIT_BATCHES, batch}))
    except KVCalcError as e:
        st.error(f"Cannot plan this: {md(e)}")
        return
    setup = view.planned.setup
    st.subheader(f"{md(choice.name)} on {setup.gpus} x {md(setup.gpu.name)}, {setup.runtime}")
    _headline(view)
    contexts, cells = grid(view, ctx)
    fig = charts.fit_heatmap(list(view.batches), contexts, cells, chosen=(batch, ctx),
                             title=f"Share of the {setup.runtime} budget used per GPU "
                                   f"({setup.gpu.memory_gib:.1f} GiB GPU)")
    st.plotly_chart(fig, width="stretch", key="fit_heatmap")
    mml = "each column served with max_model_len = its context" if view.planned.source != "given" else \
        f"max_model_len {setup.max_model_len:,}" if setup.max_model_len else "the model maximum"
    st.caption("Colour: (weights + KV cache + runtime overhead) / the runtime's budget, per GPU (of the GPU's "
               "memory where the runtime's overhead sits outside its budget). Green fits; a cell marked x does "
               "not fit; the colour bar stops at 100 % (a cell over it takes the top colour, its hover gives the "
               "share). "
               + (f"Outlined: your {batch:,} x {ctx:,}." if ctx in contexts else
                  f"Your {batch:,} x {ctx:,} is off the grid (longer than its {contexts[-1]:,} tokens): nothing "
                  "outlined.")
               + f" Contexts run up to {contexts[-1]:,} tokens ({md(mml)}).")

    p = view.planned.plan
    st.subheader(f"Every GPU in the catalog: {count(setup.gpus, 'GPU')}, batch {p.batch:,}, context {p.context:,}")
    for err in view.errors:
        st.info(f"Not planned on {md(err)}")
    if view.rows:
        order, config = table_config(p.batch, p.context)
        rows = [{**r, "GPU": short_name(r["GPU"])} for r in sorted_rows(list(view.rows), p.batch, p.context)]
        st.dataframe(safe_rows(rows), hide_index=True, width="stretch", key="gpu_table", column_order=order,
                     column_config=config)
    st.caption(f"Sorted: the GPUs that fit {p.batch:,} x {p.context:,} first, then by the longest context at batch "
               f"{p.batch:,} (longest first), then by memory (of cards that go as far, the smallest first). "
               "0 = nothing fits (at this batch / context). The budget is the GPU memory (ideal, transformers) "
               "or the engine's share of it (vLLM: gpu_memory_utilization x memory); the KV budget is never "
               "below 0.")
    st.caption(f"Computed in {(time.perf_counter() - t0) * 1000:.0f} ms.")
