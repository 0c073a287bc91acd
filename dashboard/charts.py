"""Plotly figures. Inputs are kvcalc results; nothing here computes a memory figure."""
from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from kvcalc.capacity import CurvePoint
from kvcalc.units import GiB

COLORS = {"weights": "#4C78A8", "overhead": "#F58518", "kv": "#54A24B", "total": "#333333"}


def context_points(max_context: int, log_x: bool, extra: Sequence[int] = (), n: int = 160) -> list[int]:
    """Context lengths to evaluate: ``n`` points (log- or linearly spaced) up to ``max_context``,
    plus ``extra`` points (windows, the chosen context, the longest context) so plateaus show."""
    max_context = max(2, max_context)
    if log_x:
        pts = {max(1, round(max_context ** (i / (n - 1)))) for i in range(n)}
    else:
        pts = {max(1, round(max_context * i / (n - 1))) for i in range(n)}
    pts |= {p for p in extra if 1 <= p <= max_context}
    return sorted(pts)


def memory_chart(points: list[CurvePoint], *, log_x: bool, capacities: Sequence[tuple[str, int]],
                 longest: int | None, extra_curves: dict[int, list[CurvePoint]] | None = None,
                 title: str = "") -> go.Figure:
    """Stacked weights / overhead / KV per GPU against context, with GPU capacity lines."""
    x = [p.context for p in points]
    fig = go.Figure()
    for name, values in (("weights", [p.weights for p in points]), ("overhead", [p.overhead for p in points]),
                         ("kv", [p.kv for p in points])):
        fig.add_trace(go.Scatter(x=x, y=[v / GiB for v in values], name={"kv": "KV cache"}.get(name, name),
                                 stackgroup="mem", mode="lines", line={"width": 0.5, "color": COLORS[name]},
                                 hovertemplate="%{y:.2f} GiB at %{x:,} tokens<extra>" + name + "</extra>"))
    for batch, curve in (extra_curves or {}).items():
        fig.add_trace(go.Scatter(x=[p.context for p in curve], y=[p.total / GiB for p in curve], mode="lines",
                                 name=f"total, batch {batch}", line={"dash": "dot"}))
    for label, nbytes in capacities:
        fig.add_hline(y=nbytes / GiB, line={"dash": "dash", "width": 1}, annotation_text=label,
                      annotation_position="top left")
    if longest:
        fig.add_vline(x=longest, line={"color": "#E45756", "width": 2},
                      annotation_text=f"longest context {longest:,}", annotation_position="top right")
    fig.update_layout(title=title, xaxis_title="context (tokens per sequence)", yaxis_title="GiB per GPU",
                      xaxis_type="log" if log_x else "linear", hovermode="x unified", height=460,
                      legend={"orientation": "h", "y": -0.2}, margin={"t": 50, "l": 10, "r": 10})
    return fig


def curves_chart(series: dict[str, list[CurvePoint]], *, log_x: bool, capacities: Sequence[tuple[str, int]],
                 title: str = "") -> go.Figure:
    """One total-memory line per scenario (Compare page)."""
    fig = go.Figure()
    for name, pts in series.items():
        fig.add_trace(go.Scatter(x=[p.context for p in pts], y=[p.total / GiB for p in pts], mode="lines", name=name))
    for label, nbytes in capacities:
        fig.add_hline(y=nbytes / GiB, line={"dash": "dash", "width": 1}, annotation_text=label)
    fig.update_layout(title=title, xaxis_title="context (tokens per sequence)", yaxis_title="GiB per GPU",
                      xaxis_type="log" if log_x else "linear", height=460, legend={"orientation": "h", "y": -0.2})
    return fig


def fit_heatmap(batches: Sequence[int], contexts: Sequence[int], used: list[list[float]], title: str = "") -> go.Figure:
    """Share of the GPU budget used at each batch x context (>1 does not fit)."""
    fig = go.Figure(go.Heatmap(
        z=used, x=[f"{c:,}" for c in contexts], y=[str(b) for b in batches], zmin=0, zmax=1.2,
        colorscale=[[0, "#1a9850"], [0.8, "#fee08b"], [0.8333, "#d73027"], [1, "#67001f"]],
        colorbar={"title": "of budget"}, hovertemplate="batch %{y}, %{x} tokens: %{z:.0%}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title="context (tokens)", yaxis_title="batch", height=420)
    return fig
