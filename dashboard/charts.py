"""Plotly figures as plain dicts. Inputs are kvcalc results; nothing here computes a memory figure.

Figures are built as JSON-ready dicts (``{"data": [...], "layout": {...}}``), which
``st.plotly_chart`` accepts: building them with ``plotly.graph_objects`` and ``add_hline`` costs
tens of milliseconds per rerun, the dict a fraction of one.

Units: the y axis is GiB per GPU (GiB = 2**30 bytes), the x axis tokens per sequence. Colours are
mid-tone and set per trace, so the figures read on Streamlit's light and dark themes alike (the
theme supplies background and text colours). On a log x axis plotly places shapes in data units
but annotations in log10 units (plotly.js ``annotations.x``: "If the axis type is log, then you
must take the log of your desired range"): :func:`_x_note` converts.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kvcalc.capacity import CurvePoint
from kvcalc.scenarios import context_points  # noqa: F401  (re-exported: the pages draw these points)
from kvcalc.units import GiB

COLORS = {"weights": "#4C78A8", "overhead": "#F58518", "kv": "#54A24B"}
# Vega's "tableau10" qualitative scheme: ten hues far apart in lightness and hue, readable on a
# white and on a near-black background; past ten, the dash pattern changes too.
PALETTE = ("#4C78A8", "#F58518", "#E45756", "#54A24B", "#B279A2", "#EECA3B", "#72B7B2", "#FF9DA6",
           "#9D755D", "#BAB0AC")
DASHES = ("solid", "dash", "dot", "dashdot")
MARKERS = {"chosen": "#B279A2", "longest": "#E45756"}        # vertical context markers
GPU_LINE = {"chosen": "#8C8C8C", "other": "#B0B0B0", "budget": "#17BECF"}
CLAMP = 1.3          # the y axis ends at 1.3 x the largest GPU line or the chosen point's total
LABEL_GAP_PX = 15    # least vertical distance between two GPU line labels (11 px text + padding)
PLOT_PX = 270        # plot area height of a 460 px figure (title, marker rows, axis and legend off)
TITLE_CHARS = 44
"""Characters a line of a figure's title holds at 390 px (a phone): the plot is about 358 px wide and the 17 px
title about 8 px a character; a longer line ran off the right edge."""
TITLE_LINE_PX = 22   # one more line of a figure's title (17 px text); the figure grows by it
Figure = dict[str, Any]


def title_lines(text: str, chars: int = TITLE_CHARS) -> str:
    """A figure's title broken into lines of at most ``chars`` characters, at its joints (after ", " and ": ",
    before " - " and " on ") where it can, else between words (a longer word keeps a line of its own), joined by
    ``<br>``: the figure's own text, so its PNG carries the same lines.

    >>> title_lines("Total memory per GPU vs context, batch 1, 1 x GeForce RTX 4090 24GB - as configured, KV auto")
    'Total memory per GPU vs context, batch 1,<br>1 x GeForce RTX 4090 24GB - as configured,<br>KV auto'
    """
    lines: list[str] = []
    for part in re.split(r"(?<=[,:]) | (?=- )| (?=on )", text):
        pieces = [part] if len(part) <= chars else part.split(" ")
        for piece in pieces:
            if lines and len(lines[-1]) + 1 + len(piece) <= chars:
                lines[-1] += " " + piece
            else:
                lines.append(piece)
    return "<br>".join(lines)


def titled(title: str) -> tuple[dict[str, Any], int]:
    """(a layout's ``title``, the pixels its lines past the first add) for ``title`` (:func:`title_lines`)."""
    text = title_lines(title)
    return {"text": text}, TITLE_LINE_PX * text.count("<br>")


def series_style(i: int) -> dict[str, Any]:
    """Line style of the ``i``-th curve: a palette colour, and a new dash pattern every ten."""
    return {"color": PALETTE[i % len(PALETTE)], "dash": DASHES[(i // len(PALETTE)) % len(DASHES)], "width": 2}


def _gib(values: Sequence[int]) -> list[float]:
    return [round(v / GiB, 6) for v in values]


def _x_note(x: int, log_x: bool) -> float:
    """An annotation's x in axis units: log10 of the context on a log axis (module docstring)."""
    return math.log10(max(x, 1)) if log_x else float(x)


def y_top(totals: Sequence[float], lines: Sequence[float], chosen_total: float | None,
          show_all: bool) -> tuple[float, bool]:
    """(upper end of the y axis in GiB, whether it cuts the curves off). ``show_all``: 5 % above
    everything drawn. Otherwise at most ``CLAMP`` x the largest GPU line or the chosen point's
    total, whichever is larger, so a curve climbing to hundreds of GiB does not squash the lines."""
    data_top = max([*totals, *lines, 1e-9])
    full = data_top * 1.05
    if show_all:
        return full, False
    interesting = CLAMP * max([*lines, chosen_total or 0.0, 1e-9])
    return (interesting, True) if interesting < full else (full, False)


def _gpu_lines(lines: Sequence[tuple[str, float, str]], top: float, *, plot_px: float = PLOT_PX,
               xref: str = "paper", yref: str = "y", font: int = 11) -> tuple[list[dict], list[dict]]:
    """Horizontal GPU lines (label, GiB, kind: chosen / other / budget) with their labels at the
    right edge, staggered upwards so no two are closer than ``LABEL_GAP_PX`` (of a plot ``plot_px`` high);
    lines at the same height share one label ("RTX 4090 = ideal budget": an engine whose budget is the
    GPU's memory); lines above ``top`` are left out (their labels would sit outside the plot). ``xref`` /
    ``yref``: the axes they belong to (a small-multiples panel's ``x3 domain`` / ``y3``)."""
    shapes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    placed = -1e9
    for label, y, kind in sorted(lines, key=lambda t: t[1]):
        if y > top:
            continue
        dash = {"budget": "dashdot", "chosen": "dash"}.get(kind, "dot")
        width = 2 if kind in ("budget", "chosen") else 1
        shapes.append({"type": "line", "xref": xref, "yref": yref, "x0": 0, "x1": 1, "y0": y, "y1": y,
                       "layer": "above", "line": {"dash": dash, "width": width, "color": GPU_LINE[kind]},
                       "name": label})
        if notes and abs(notes[-1]["y"] - y) < 1e-9:          # same height: one label for both
            join = " = " if kind == "budget" else " · "
            notes[-1]["text"] += join + label
            notes[-1]["name"] += join + label
            continue
        px = y / top * plot_px
        pos = max(px, placed + LABEL_GAP_PX)
        placed = pos
        notes.append({"xref": xref, "yref": yref, "x": 1, "y": y, "yshift": round(pos - px, 1), "text": label,
                      "showarrow": False, "xanchor": "right", "yanchor": "bottom", "name": f"gpu: {label}",
                      "font": {"size": font, **({"color": GPU_LINE[kind]} if kind == "budget" else {})}})
    return shapes, notes


def _context_markers(markers: Sequence[tuple[str, int, str]], log_x: bool,
                     x_max: int) -> tuple[list[dict], list[dict]]:
    """Vertical lines at the given contexts (label, tokens, kind: chosen / longest), labelled above
    the plot in one row each, so they never overlap each other or a GPU line's label; a label sits
    right of its line, or left of it in the right 30 % of the axis, so it stays over the plot."""
    shapes, notes = [], []
    for i, (label, x, kind) in enumerate(sorted(markers, key=lambda m: m[1])):
        color = MARKERS[kind]
        shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
                       "layer": "above", "name": label,
                       "line": {"color": color, "width": 2, "dash": "solid" if kind == "longest" else "dash"}})
        share = _x_note(x, log_x) / _x_note(max(x_max, 2), log_x)
        left_of_line = share > 0.7
        notes.append({"xref": "x", "yref": "paper", "x": _x_note(x, log_x), "y": 1, "yshift": 2 + 17 * i,
                      "text": label, "showarrow": False, "xanchor": "right" if left_of_line else "left",
                      "yanchor": "bottom", "xshift": -3 if left_of_line else 3, "name": f"marker: {kind}",
                      "font": {"color": color, "size": 12}})
    return shapes, notes


def _layout(title: str, log_x: bool, shapes: list, notes: list, height: int = 460,
            y_range: float | None = None, markers: int = 0, x_max: int | None = None) -> dict:
    """Axes in tokens and GiB; ``markers`` context labels get a row each in the top margin. The x
    axis ends at ``x_max`` (no autorange padding below 0 tokens; log axes take log10 bounds)."""
    yaxis: dict[str, Any] = {"title": {"text": "GiB per GPU"}, "rangemode": "tozero", "ticksuffix": " GiB",
                             "hoverformat": ".2f"}
    if y_range is not None:
        yaxis["range"] = [0, y_range]
    head, extra = titled(title)
    return {"title": head, "height": height + extra, "hovermode": "x unified",
            "xaxis": {"title": {"text": "context (tokens per sequence)"}, "type": "log" if log_x else "linear",
                      "hoverformat": ",d",
                      **({"range": [0, math.log10(max(x_max, 2))] if log_x else [0, x_max]} if x_max else {})},
            "yaxis": yaxis, "legend": {"orientation": "h", "y": -0.2},
            "margin": {"t": 50 + 17 * markers + extra, "l": 10, "r": 10},
            "shapes": shapes, "annotations": notes}


def total_hover(points: Sequence[CurvePoint], *, head: str = "", of: str = "the budget",
                extra: str = "", limit: int | None = None) -> tuple[list[list[float]], str]:
    """(customdata, hovertemplate) of a trace over ``points``: per point [total GiB, total / the point's budget],
    and a template naming both with their units ("total: 17.00 GiB, 85.0 % of the budget, at 8,192 tokens"),
    after ``head`` (plotly template text) and with ``extra`` in the hover's side box. The one hover builder of the
    Planner's stacked chart and Compare's curves; a budget of 0 reads 0 %. ``limit`` (bytes) replaces the points'
    budget as the denominator: kvcalc.scenarios.total_limit, for an engine whose overhead sits outside its budget.

    >>> pt = CurvePoint(context=8192, weights=15 * GiB, overhead=GiB, kv=GiB, budget=20 * GiB)
    >>> total_hover([pt])[0]
    [[17.0, 0.85]]
    """
    data = [[round(p.total / GiB, 6), (p.total / b) if (b := limit or p.budget) else 0.0] for p in points]
    template = (f"{head}<b>total: %{{customdata[0]:.2f}} GiB</b>, %{{customdata[1]:.1%}} of {of}, "
                f"at %{{x:,}} tokens<extra>{extra}</extra>")
    return data, template


def _at(points: Sequence[CurvePoint], context: int | None) -> CurvePoint | None:
    """The curve point at ``context`` (the nearest one when it is not on the curve)."""
    if context is None or not points:
        return None
    return min(points, key=lambda p: abs(p.context - context))


def memory_chart(points: list[CurvePoint], *, log_x: bool, capacities: Sequence[tuple[str, int]],
                 longest: int | None, extra_curves: dict[int, list[CurvePoint]] | None = None,
                 title: str = "", chosen: int | None = None, chosen_gpu: tuple[str, int] | None = None,
                 budget: tuple[str, int] | None = None, show_all: bool = False,
                 refused_from: tuple[int, str] | None = None, limit: int | None = None) -> Figure:
    """Stacked weights / overhead / KV per GPU (GiB) against context (tokens).

    ``refused_from`` (tokens, engine label): past that length the engine as configured refuses a request
    (vLLM past its ``max_model_len``); the curve there shows what a request of that length would need, in a
    shaded region named so (:func:`refused_region`).

    Horizontal lines: ``chosen_gpu`` and ``capacities`` are full GPU memory (label, bytes), the
    chosen one darker; ``budget`` is what the runtime may use (vLLM: ``gpu_memory_utilization x
    memory``), its own dash-dot line. Vertical lines mark the ``chosen`` context and the
    ``longest`` one that fits. The y axis is clamped (:func:`y_top`) unless ``show_all``."""
    x = [p.context for p in points]
    totals = _gib([p.total for p in points])
    data: list[dict[str, Any]] = []
    for name, label, values in (("weights", "weights", [p.weights for p in points]),
                                ("overhead", "runtime overhead", [p.overhead for p in points]),
                                ("kv", "KV cache", [p.kv for p in points])):
        trace = {"type": "scatter", "x": x, "y": _gib(values), "name": label, "stackgroup": "mem", "mode": "lines",
                 "line": {"width": 0.5, "color": COLORS[name]},
                 "hovertemplate": f"{label}: %{{y:.2f}} GiB<extra></extra>"}
        if name == "kv":
            trace["customdata"], trace["hovertemplate"] = total_hover(points, head="KV cache: %{y:.2f} GiB<br>",
                                                                      limit=limit,
                                                                      of="the budget" if not limit else "the limit")
        data.append(trace)
    extra_totals: list[float] = []
    for i, (batch, curve) in enumerate((extra_curves or {}).items()):
        ys = _gib([p.total for p in curve])
        extra_totals += ys
        data.append({"type": "scatter", "x": [p.context for p in curve], "y": ys, "mode": "lines",
                     "name": f"total, batch {batch}", "line": {**series_style(i + 4), "dash": "dot"},
                     "hovertemplate": f"total, batch {batch:,}: %{{y:.2f}} GiB<extra></extra>"})
    lines = [(label, nbytes / GiB, "other") for label, nbytes in capacities]
    if chosen_gpu:
        lines.append((chosen_gpu[0], chosen_gpu[1] / GiB, "chosen"))
    if budget:
        lines.append((budget[0], budget[1] / GiB, "budget"))
    at = _at(points, chosen)
    top, clamped = y_top(totals + extra_totals, [y for _, y, _ in lines], at.total / GiB if at else None, show_all)
    shapes, notes = _gpu_lines(lines, top)
    if clamped:
        notes.append({"xref": "paper", "yref": "paper", "x": 0, "y": 1, "xanchor": "left", "yanchor": "top",
                      "showarrow": False, "name": "clamp", "font": {"size": 11},
                      "text": f"y axis cut at {top:,.0f} GiB: the curves go higher<br>(turn on Show all)"})
    markers = []
    if chosen:
        markers.append((f"chosen {chosen:,} token" + ("" if chosen == 1 else "s"), chosen, "chosen"))
    if longest:
        markers.append((f"longest context {longest:,}", longest, "longest"))
    s, n = _context_markers(markers, log_x, max(x, default=2))
    if refused_from and x and refused_from[0] < max(x):
        rect, refused_note = refused_region(refused_from[0], max(x), refused_from[1], log_x)
        s, n = [rect, *s], [*n, refused_note]
    return {"data": data, "layout": _layout(title, log_x, shapes + s, notes + n, y_range=top, markers=len(markers),
                                            x_max=max(x, default=None))}


REFUSED_FILL = "rgba(128, 128, 128, 0.18)"


def refused_region(start: int, end: int, engine: str, log_x: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The shaded x range (``start``..``end`` tokens, full height) where ``engine`` refuses a request longer
    than its ``max_model_len`` ``start``, and its label at the top of the range."""
    rect = {"type": "rect", "xref": "x", "yref": "paper", "x0": start, "x1": end, "y0": 0, "y1": 1,
            "fillcolor": REFUSED_FILL, "line": {"width": 0}, "layer": "below", "name": "refused"}
    label = {"xref": "x", "yref": "paper", "x": _x_note(end, log_x), "y": 0.5, "xanchor": "right",
             "showarrow": False, "name": "refused", "font": {"size": 11},
             "text": f"{engine} refuses: longer than max_model_len {start:,}"}
    return rect, label


@dataclass(frozen=True)
class Series:
    """One Compare curve: its name, kvcalc's points on the chosen GPU, the engine's label ("vLLM") and the bytes
    per GPU that engine may use there (its budget; None: not drawn)."""

    name: str
    points: list[CurvePoint]
    engine: str = ""
    budget: int | None = None
    budget_name: str = ""      # the budget line's label when it is not "<engine> budget" (kvcalc.scenarios.total_limit)


def _as_series(series: Mapping[str, list[CurvePoint]] | Sequence[Series]) -> list[Series]:
    if isinstance(series, Mapping):
        return [Series(name, pts) for name, pts in series.items()]
    return list(series)


def budget_lines(series: Sequence[Series]) -> list[tuple[str, int]]:
    """One (label, bytes) budget line per engine present, labelled with the engine ("vLLM budget"), in the
    order the engines first appear; an engine whose scenarios have different budgets (a different
    ``gpu_memory_utilization`` cannot differ here, a per-model reservation could) gets one line per budget,
    each with its size in the label.

    >>> pt = [CurvePoint(context=1, weights=1, overhead=0, kv=0, budget=9)]
    >>> budget_lines([Series("a", pt, "vLLM", 90), Series("b", pt, "vLLM", 90), Series("c", pt, "SGLang", 70)])
    [('vLLM budget', 90), ('SGLang budget', 70)]
    """
    per_engine: dict[str, list[int]] = {}
    for s in series:
        if s.budget is not None and s.budget not in per_engine.setdefault(s.engine, []):
            per_engine[s.engine].append(s.budget)
    names = {(s.engine, s.budget): s.budget_name for s in series if s.budget_name}
    out = []
    for engine, budgets in per_engine.items():
        for b in budgets:
            name = names.get((engine, b)) or f"{engine} budget".strip()
            out.append((name if len(budgets) == 1 else f"{name} {b / GiB:.1f} GiB", b))
    return out


def _series_trace(i: int, s: Series, xaxis: str = "x", yaxis: str = "y") -> dict[str, Any]:
    """Scenario ``s``'s total-memory line (GiB per GPU), hover with the total and the share of its own budget."""
    of = s.budget_name or (f"the {s.engine} budget" if s.engine else "its budget")
    data, template = total_hover(s.points, of=of if not s.budget_name else f"the {of}", extra=s.name[:60],
                                 limit=s.budget)
    return {"type": "scatter", "x": [p.context for p in s.points], "y": _gib([p.total for p in s.points]),
            "mode": "lines", "name": s.name, "line": series_style(i), "customdata": data, "hovertemplate": template,
            "xaxis": xaxis, "yaxis": yaxis}


def curves_chart(series: Mapping[str, list[CurvePoint]] | Sequence[Series], *, log_x: bool,
                 capacities: Sequence[tuple[str, int]], title: str = "", show_all: bool = False) -> Figure:
    """One total-memory line (GiB per GPU) per scenario (Compare page, fewer than :data:`PANELS_FROM`
    scenarios), each in its own palette colour (:func:`series_style`), with the GPU lines of ``capacities``
    (label, bytes; the first is the chosen GPU) and one budget line per engine present (:func:`budget_lines`).
    The y axis is clamped near the chosen GPU and the budgets (:func:`y_top`, with a note saying so; a class
    GPU line above that is left out) unless ``show_all``, so a scenario climbing to hundreds of GiB still
    shows where each crosses its budget."""
    items = _as_series(series)
    data = [_series_trace(i, s) for i, s in enumerate(items)]
    totals = [y for t in data for y in t["y"]]
    lines = [(label, nbytes / GiB, "chosen" if i == 0 else "other") for i, (label, nbytes) in enumerate(capacities)]
    lines += [(label, nbytes / GiB, "budget") for label, nbytes in budget_lines(items)]
    near = [y for _, y, kind in lines if kind != "other"] or [y for _, y, _ in lines]
    top, clamped = y_top(totals, near, None, show_all)
    shapes, notes = _gpu_lines(lines, top)
    if clamped:
        notes.append(_clamp_note(top))
    for t in data:
        t.pop("xaxis"), t.pop("yaxis")
    return {"data": data, "layout": _layout(title, log_x, shapes, notes, y_range=top)}


def _clamp_note(top: float) -> dict[str, Any]:
    """The note of a y axis cut at ``top`` GiB."""
    return {"xref": "paper", "yref": "paper", "x": 0, "y": 1, "xanchor": "left", "yanchor": "top",
            "showarrow": False, "name": "clamp", "font": {"size": 11},
            "text": f"y axis cut at {top:,.0f} GiB: the curves go higher"}


PANELS_FROM = 5       # Compare draws one panel per scenario from this many scenarios up
PANEL_COLUMNS = 3
PANEL_PX = 170        # plot height of one panel
PANEL_GAP_PX = 48     # between two rows of panels: the lower one's title and the upper one's tick labels
PANEL_LINE_PX = 14    # one more line of a panel's title (11 px text)
PANEL_TITLE_CHARS = {2: 24, 3: 16}
"""Characters a line of a panel's title holds at 390 px (a phone): a panel is about 140 px wide two across and
90 px three across, about 5.8 px a character at 11 px; wider lines ran into the next panel's title."""


def panel_columns(n: int) -> int:
    """Panels across for ``n`` scenarios: two up to six (three rows; on a phone two titles fit side by side),
    :data:`PANEL_COLUMNS` from seven up (Compare shows at most twelve: four rows).

    >>> panel_columns(5), panel_columns(6), panel_columns(9)
    (2, 2, 3)
    """
    return 2 if n <= 6 else PANEL_COLUMNS


def panel_title(name: str, chars: int) -> str:
    """A scenario's legend name (parts joined by " · ", kvcalc.scenarios.label) as a panel title of lines of at
    most ``chars`` characters, broken between parts, and a part longer than that after one of its hyphens.

    >>> panel_title("Mistral-7B-Instruct-v0.3 · KV fp8_e4m3 · llama_cpp", 16)
    'Mistral-7B-<br>Instruct-v0.3<br>KV fp8_e4m3<br>llama_cpp'
    >>> panel_title("Llama-3.1-8B · KV auto · vllm", 24)
    'Llama-3.1-8B · KV auto<br>vllm'
    """
    lines: list[str] = []
    for part in name.split(" · "):
        if lines and len(lines[-1]) + 3 + len(part) <= chars:
            lines[-1] += " · " + part
            continue
        lines.append("")
        for piece in re.findall(r"[^-]*-|[^-]+", part) if len(part) > chars else [part]:
            if lines[-1] and len(lines[-1]) + len(piece) > chars:
                lines.append("")
            lines[-1] += piece
    return "<br>".join(lines)


def _axis(i: int) -> str:
    return "" if i == 1 else str(i)


def panels_chart(series: Sequence[Series], *, log_x: bool, gpu: tuple[str, int], title: str = "",
                 show_all: bool = False, columns: int | None = None) -> Figure:
    """Small multiples for Compare from :data:`PANELS_FROM` scenarios up: one panel per scenario, ``columns``
    across, every panel on the same x and y axes (tokens per sequence, GiB per GPU), each with its scenario's
    total-memory line, its own engine's budget line (dash-dot, :func:`budget_lines`) and the chosen GPU's
    memory ``gpu`` (label, bytes; dashed). The shared y axis is clamped near the GPU and the budgets
    (:func:`y_top`) unless ``show_all``; a panel whose curve lies wholly above it says from where. ``columns``:
    :func:`panel_columns` unless given; each panel's title is broken into lines (:func:`panel_title`) and its lines'
    labels are short ("GPU", "budget"), so that at a phone's 390 px no text runs into the next panel's."""
    n = len(series)
    columns = columns or panel_columns(n)
    titles = [panel_title(s.name[:48], PANEL_TITLE_CHARS.get(columns, 16)) for s in series]
    extra = PANEL_LINE_PX * (max((t.count("<br>") for t in titles), default=0))     # title lines past the first
    gap_px = PANEL_GAP_PX + extra
    rows = max(1, math.ceil(n / columns))
    height = 90 + extra + 60 + rows * PANEL_PX + (rows - 1) * gap_px
    plot_h = rows * PANEL_PX + (rows - 1) * gap_px
    gpu_gib = gpu[1] / GiB
    budgets = {s.name: b for s in series for _, b in budget_lines([s])}
    totals = [p.total / GiB for s in series for p in s.points]
    top, clamped = y_top(totals, [gpu_gib, *(b / GiB for b in budgets.values())], None, show_all)
    x_max = max((p.context for s in series for p in s.points), default=2)
    x_range = [0, math.log10(max(x_max, 2))] if log_x else [0, x_max]
    gap = 0.04
    width = (1 - gap * (columns - 1)) / columns
    data, shapes, notes = [], [], []
    # the title pinned to the top: the first row's titles and the clamp note fill the margin under it
    head, title_px = titled(title)
    layout: dict[str, Any] = {"title": {**head, "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 14}},
                              "height": height + title_px, "hovermode": "x unified", "showlegend": False,
                              "margin": {"t": 90 + extra + title_px, "b": 60, "l": 60, "r": 10}}
    for k, s in enumerate(series):
        i, r, c = k + 1, k // columns, k % columns
        ax = _axis(i)
        y1 = 1 - r * (PANEL_PX + gap_px) / plot_h
        y0 = max(0.0, y1 - PANEL_PX / plot_h)
        bottom = k + columns >= n
        layout[f"xaxis{ax}"] = {"domain": [c * (width + gap), c * (width + gap) + width], "anchor": f"y{ax}",
                                "type": "log" if log_x else "linear", "range": x_range, "hoverformat": ",d",
                                "tickformat": "~s", "showticklabels": bottom, **({"matches": "x"} if i > 1 else {}),
                                **({"title": {"text": "context (tokens)"}} if bottom else {})}
        layout[f"yaxis{ax}"] = {"domain": [y0, y1], "anchor": f"x{ax}", "range": [0, top], "hoverformat": ".2f",
                                "showticklabels": c == 0, **({"matches": "y"} if i > 1 else {}),
                                **({"title": {"text": "GiB per GPU"}} if c == 0 else {})}
        data.append(_series_trace(k, s, f"x{ax}", f"y{ax}"))
        lines = [("GPU", gpu_gib, "chosen")]        # short labels: a panel is 90 px wide on a phone
        budget_name = s.budget_name or f"{s.engine} budget"
        if s.name in budgets:
            lines.append((budget_name, budgets[s.name] / GiB, "budget"))
        sh, nt = _gpu_lines(lines, top, plot_px=PANEL_PX, xref=f"x{ax} domain", yref=f"y{ax}", font=10)
        for a in nt:              # the panel's title names its engine: its line says "budget" (shapes keep the name)
            a["text"] = a["text"].replace(budget_name, "budget+ovh" if s.budget_name else "budget")
        if len(nt) == 2:          # the budget below the GPU: its label under its line, the GPU's above its own
            low_note = min(nt, key=lambda a: a["y"])
            low_note.update(yanchor="top", yshift=0)
            max(nt, key=lambda a: a["y"])["yshift"] = 0
        for shape in sh:
            shape["name"] = f"panel {i}: {shape['name']}"
        shapes += sh
        notes += nt
        notes.append({"xref": f"x{ax} domain", "yref": f"y{ax} domain", "x": 0, "y": 1, "xanchor": "left",
                      "yanchor": "bottom", "showarrow": False, "text": titles[k], "name": f"panel {i}", "align": "left",
                      "font": {"size": 11}})
        low = min((p.total / GiB for p in s.points), default=0.0)
        if low > top:
            notes.append({"xref": f"x{ax} domain", "yref": f"y{ax} domain", "x": 0.5, "y": 0.05, "yanchor": "bottom",
                          "showarrow": False, "name": f"panel {i}: above", "font": {"size": 11},
                          "text": f"off the axis: {low:,.0f}+ GiB"})
    if clamped:
        notes.append({**_clamp_note(top), "y": 1, "yanchor": "bottom", "yshift": 22 + extra})
    layout["shapes"], layout["annotations"] = shapes, notes
    return {"data": data, "layout": layout}


HEAT_SCALE = [[0, "#1a9850"], [0.6, "#a6d96a"], [0.85, "#fee08b"], [0.999, "#f46d43"], [1, "#67001f"]]
"""Green (little of the budget used) to yellow (85 %) to orange (just under 100 %), then a step to the dark top
colour at 100 %, which every share above 100 % takes too (plotly clamps z to ``zmax``): a cell at 99 % still reads
orange, one over the budget dark red."""
CHOSEN_CELL = ("#FFFFFF", "#111111")     # outer and inner outline of the chosen cell: seen on every colour


def fit_heatmap(batches: Sequence[int], contexts: Sequence[int], cells: Sequence[Sequence[Any]],
                title: str = "", chosen: tuple[int, int] | None = None) -> Figure:
    """The share used at each batch x context (kvcalc.scenarios.HeatCell: ``share``, ``of``, ``fits``);
    a cell that does not fit is marked x (its share may be below 1: a context over max_model_len).

    The colour bar reads 0 to 100 % (``zmax`` 1: a share above 100 % takes the top colour; the hover gives the
    share itself); ``chosen`` (batch, context), when both are on the grid, is outlined (two rectangles, white
    around black, named "chosen"), on category axes whose numeric coordinates are the category's index
    (plotly.js ``layout.shapes.x0``: "If the axis `type` is "category", it should be numbers, using the scale
    where each category is assigned a serial number from zero in the order it appears")."""
    head, extra = titled(title)
    z = [[round(c.share, 6) for c in row] for row in cells]
    text = [["" if c.fits else "x" for c in row] for row in cells]
    hover = [[f"{c.share:.0%} of the {c.of}, " + ("fits" if c.fits else "does not fit") for c in row]
             for row in cells]
    shapes = []
    if chosen and chosen[0] in batches and chosen[1] in contexts:
        i, j = list(batches).index(chosen[0]), list(contexts).index(chosen[1])
        for color, width in zip(CHOSEN_CELL, (5, 2)):
            shapes.append({"type": "rect", "xref": "x", "yref": "y", "x0": j - 0.5, "x1": j + 0.5, "y0": i - 0.5,
                           "y1": i + 0.5, "line": {"color": color, "width": width}, "layer": "above",
                           "name": "chosen"})
    return {"data": [{
        "type": "heatmap", "z": z, "x": [f"{c:,}" for c in contexts], "y": [str(b) for b in batches],
        "zmin": 0, "zmax": 1, "text": text, "texttemplate": "%{text}", "customdata": hover, "colorscale": HEAT_SCALE,
        "colorbar": {"title": {"text": "of budget"}, "tickvals": [0, 0.25, 0.5, 0.75, 1],
                     "ticktext": ["0 %", "25 %", "50 %", "75 %", "100 %+"]},
        "hovertemplate": "batch %{y}, %{x} tokens: %{customdata}<extra></extra>"}],
        "layout": {"title": head, "xaxis": {"title": {"text": "context (tokens)"}, "type": "category"},
                   "yaxis": {"title": {"text": "batch"}, "type": "category"}, "height": 420 + extra,
                   "margin": {"t": 100 + extra}, "shapes": shapes}}


def speed_chart(contexts: Sequence[int], rates: dict[int, Sequence[float]], *, log_x: bool, title: str = "") -> Figure:
    """Estimated decode tokens/s per sequence against context, one line per batch size."""
    data = [{"type": "scatter", "mode": "lines", "name": f"batch {b:,}", "x": list(contexts),
             "y": [round(float(v), 3) for v in values], "line": series_style(i),
             "hovertemplate": f"batch {b:,}: %{{y:,.1f}} tokens/s per sequence at %{{x:,}} tokens<extra></extra>"}
            for i, (b, values) in enumerate(rates.items())]
    layout = _layout(title, log_x, [], [], height=320)
    layout["yaxis"] = {"title": {"text": "decode tokens/s per sequence (estimated)"}, "rangemode": "tozero"}
    return {"data": data, "layout": layout}
