"""Plotly figures as plain dicts. Inputs are kvcalc results; nothing here computes a memory figure.

Figures are built as JSON-ready dicts (``{"data": [...], "layout": {...}}``), which
``st.plotly_chart`` accepts: building them with ``plotly.graph_objects`` and ``add_hline`` costs
tens of milliseconds per rerun, the dict a fraction of one.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kvcalc.capacity import CurvePoint
from kvcalc.units import GiB

COLORS = {"weights": "#4C78A8", "overhead": "#F58518", "kv": "#54A24B"}
Figure = dict[str, Any]


def context_points(max_context: int, log_x: bool, extra: Sequence[int] = (), n: int = 72) -> list[int]:
    """Context lengths to evaluate: ``n`` points (log- or linearly spaced) up to ``max_context``,
    plus ``extra`` points (windows, the chosen context, the longest context) so plateaus show."""
    max_context = max(2, max_context)
    if log_x:
        pts = {max(1, round(max_context ** (i / (n - 1)))) for i in range(n)}
    else:
        pts = {max(1, round(max_context * i / (n - 1))) for i in range(n)}
    pts |= {p for p in extra if 1 <= p <= max_context}
    pts |= {p + 1 for p in extra if 1 <= p < max_context}
    return sorted(pts)


def _gib(values: Sequence[int]) -> list[float]:
    return [round(v / GiB, 6) for v in values]


def _hline(label: str, nbytes: int) -> tuple[dict, dict]:
    y = nbytes / GiB
    shape = {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": y, "y1": y, "line": {"dash": "dash", "width": 1}}
    note = {"xref": "paper", "x": 0, "y": y, "text": label, "showarrow": False, "xanchor": "left", "yanchor": "bottom",
            "font": {"size": 11}}
    return shape, note


def _layout(title: str, log_x: bool, shapes: list, notes: list, height: int = 460) -> dict:
    return {"title": {"text": title}, "height": height, "hovermode": "x unified",
            "xaxis": {"title": {"text": "context (tokens per sequence)"}, "type": "log" if log_x else "linear"},
            "yaxis": {"title": {"text": "GiB per GPU"}, "rangemode": "tozero"},
            "legend": {"orientation": "h", "y": -0.2}, "margin": {"t": 50, "l": 10, "r": 10},
            "shapes": shapes, "annotations": notes}


def memory_chart(points: list[CurvePoint], *, log_x: bool, capacities: Sequence[tuple[str, int]],
                 longest: int | None, extra_curves: dict[int, list[CurvePoint]] | None = None,
                 title: str = "") -> Figure:
    """Stacked weights / overhead / KV per GPU against context, with GPU capacity lines."""
    x = [p.context for p in points]
    data = []
    for name, label, values in (("weights", "weights", [p.weights for p in points]),
                                ("overhead", "runtime overhead", [p.overhead for p in points]),
                                ("kv", "KV cache", [p.kv for p in points])):
        data.append({"type": "scatter", "x": x, "y": _gib(values), "name": label, "stackgroup": "mem", "mode": "lines",
                     "line": {"width": 0.5, "color": COLORS[name]},
                     "hovertemplate": "%{y:.2f} GiB<extra>" + label + "</extra>"})
    for batch, curve in (extra_curves or {}).items():
        data.append({"type": "scatter", "x": [p.context for p in curve], "y": _gib([p.total for p in curve]),
                     "mode": "lines", "name": f"total, batch {batch}", "line": {"dash": "dot"}})
    shapes, notes = [], []
    for label, nbytes in capacities:
        shape, note = _hline(label, nbytes)
        shapes.append(shape)
        notes.append(note)
    if longest:
        shapes.append({"type": "line", "yref": "paper", "y0": 0, "y1": 1, "x0": longest, "x1": longest,
                       "line": {"color": "#E45756", "width": 2}})
        notes.append({"yref": "paper", "y": 1, "x": longest, "text": f"longest context {longest:,}", "showarrow": False,
                      "xanchor": "left", "yanchor": "top", "font": {"color": "#E45756"}})
    return {"data": data, "layout": _layout(title, log_x, shapes, notes)}


def curves_chart(series: dict[str, list[CurvePoint]], *, log_x: bool, capacities: Sequence[tuple[str, int]],
                 title: str = "") -> Figure:
    """One total-memory line per scenario (Compare page)."""
    data = [{"type": "scatter", "x": [p.context for p in pts], "y": _gib([p.total for p in pts]), "mode": "lines",
             "name": name} for name, pts in series.items()]
    shapes, notes = [], []
    for label, nbytes in capacities:
        shape, note = _hline(label, nbytes)
        shapes.append(shape)
        notes.append(note)
    return {"data": data, "layout": _layout(title, log_x, shapes, notes)}


def fit_heatmap(batches: Sequence[int], contexts: Sequence[int], used: list[list[float]], title: str = "") -> Figure:
    """Share of the GPU budget used at each batch x context (>1 does not fit)."""
    return {"data": [{
        "type": "heatmap", "z": used, "x": [f"{c:,}" for c in contexts], "y": [str(b) for b in batches],
        "zmin": 0, "zmax": 1.2,
        "colorscale": [[0, "#1a9850"], [0.8, "#fee08b"], [0.8333, "#d73027"], [1, "#67001f"]],
        "colorbar": {"title": {"text": "of budget"}},
        "hovertemplate": "batch %{y}, %{x} tokens: %{z:.0%}<extra></extra>"}],
        "layout": {"title": {"text": title}, "xaxis": {"title": {"text": "context (tokens)"}, "type": "category"},
                   "yaxis": {"title": {"text": "batch"}, "type": "category"}, "height": 420}}


def speed_chart(contexts: Sequence[int], rates: dict[int, Sequence[float]], *, log_x: bool, title: str = "") -> Figure:
    """Estimated decode tokens/s per sequence against context, one line per batch size."""
    data = [{"type": "scatter", "mode": "lines", "name": f"batch {b:,}", "x": list(contexts),
             "y": [round(float(v), 3) for v in values],
             "hovertemplate": f"batch {b:,}: %{{y:,.1f}} tokens/s per sequence at %{{x:,}} tokens<extra></extra>"}
            for b, values in rates.items()]
    layout = _layout(title, log_x, [], [], height=320)
    layout["yaxis"] = {"title": {"text": "decode tokens/s per sequence (estimated)"}, "rangemode": "tozero"}
    return {"data": data, "layout": layout}
