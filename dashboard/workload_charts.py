"""The workload page's two charts as plain plotly dicts (dashboard.charts' style): concurrency against the
shared-prefix length and against the mean request length, the current point marked.

Inputs are kvcalc.workload.curves points; nothing here computes a figure. Units: x tokens, y requests
at once (never negative, at most the engine's running cap: the curves cap them).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kvcalc.workload.curves import ConcurrencyPoint

from .charts import MARKERS, PALETTE, Figure, titled

CAP_LINE = "#8C8C8C"


def _line(name: str, xs: list[int], ys: list[float], color: str, hover: str, dash: str = "solid") -> dict[str, Any]:
    return {"type": "scatter", "mode": "lines", "name": name, "x": xs, "y": ys,
            "line": {"color": color, "width": 2, "dash": dash, "shape": "hv"}, "hovertemplate": hover}


def _marker(x: int, y: float, text: str) -> dict[str, Any]:
    return {"type": "scatter", "mode": "markers", "name": "current", "x": [x], "y": [y], "showlegend": True,
            "marker": {"color": MARKERS["chosen"], "size": 11, "symbol": "diamond"},
            "hovertemplate": text + "<extra>current</extra>"}


def _layout(title: str, x_title: str, log_x: bool, cap: int, top: float, log_y: bool = False) -> dict[str, Any]:
    """A log y axis (the prefix chart: 20 at no prefix, hundreds near the request length) autoranges; a linear
    one starts at 0 (requests at once are never negative)."""
    y_axis: dict[str, Any] = {"title": {"text": "requests at once" + (" (log scale)" if log_y else "")}}
    y_axis.update({"type": "log"} if log_y else {"range": [0, max(top, 1.0) * 1.1]})
    head, extra = titled(title)
    return {"title": head, "height": 380 + extra, "margin": {"t": 60 + extra, "b": 50, "l": 60, "r": 20},
            "xaxis": {"title": {"text": x_title}, "type": "log" if log_x else "linear"},
            "yaxis": y_axis,
            "legend": {"orientation": "h", "y": -0.25}, "hovermode": "x unified",
            "shapes": [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": cap, "y1": cap,
                        "line": {"color": CAP_LINE, "dash": "dot", "width": 1}}] if cap <= top * 1.05 else []}


def prefix_chart(points: Sequence[ConcurrencyPoint], current: int, *, title: str) -> Figure:
    """Effective and whole-request concurrency against shared-prefix tokens, the worst case (nothing
    shared) beside, the current prefix marked; the cap drawn when the curve reaches it."""
    xs = [p.tokens for p in points]
    data = [
        _line("effective concurrency", xs, [round(p.concurrency, 3) for p in points], PALETTE[0],
              "effective: %{y:,.2f} requests at %{x:,} prefix tokens<extra></extra>"),
        _line("whole requests resident", xs, [float(p.whole) for p in points], PALETTE[3],
              "whole requests: %{y:,} at %{x:,} prefix tokens<extra></extra>", "dash"),
        _line("worst case (nothing shared)", xs, [round(p.worst_case, 3) for p in points], PALETTE[2],
              "worst case: %{y:,.2f} requests<extra></extra>", "dot"),
    ]
    at = min(points, key=lambda p: abs(p.tokens - current))
    data.append(_marker(at.tokens, round(at.concurrency, 3),
                        f"{at.tokens:,} prefix tokens: {at.concurrency:,.2f} requests at once"))
    cap = points[0].running_cap
    top = max(p.concurrency for p in points)
    return {"data": data, "layout": _layout(title, "shared-prefix tokens", False, cap, top, log_y=True)}


def length_chart(points: Sequence[ConcurrencyPoint], current: int, *, title: str) -> Figure:
    """Expected concurrency and the most at a 5 % wait chance against the mean request length (input + output
    tokens, log axis), the worst case beside, the current lengths marked."""
    xs = [p.tokens for p in points]
    data = [
        _line("expected concurrency", xs, [round(p.concurrency, 3) for p in points], PALETTE[0],
              "expected: %{y:,.1f} requests at a mean of %{x:,} tokens<extra></extra>"),
        _line("at most 5 % wait chance", xs, [float(p.whole) for p in points], PALETTE[3],
              "5 % wait chance: %{y:,} requests<extra></extra>", "dash"),
        _line("worst case (every request at max length)", xs, [round(p.worst_case, 3) for p in points], PALETTE[2],
              "worst case: %{y:,.2f} requests<extra></extra>", "dot"),
    ]
    at = min(points, key=lambda p: abs(p.tokens - current))
    data.append(_marker(at.tokens, round(at.concurrency, 3),
                        f"mean {at.tokens:,} tokens a request: {at.concurrency:,.1f} expected at once"))
    cap = points[0].running_cap
    top = max(max(p.concurrency for p in points), max(p.worst_case for p in points))
    for d in data[:3]:
        d["line"]["shape"] = "linear"
    return {"data": data, "layout": _layout(title, "mean request tokens (input + output)", True, cap, top)}
