"""Estimated vs published speed, per category (data/speed_measurements.csv through kvcalc.speed).

Run: ``python benchmarks/speed_validation.py [--before] [--rows] [--heldout]``; ``--heldout`` judges
the set kept aside (data/speed_heldout.csv, never fitted on) instead; ``--svg PATH`` draws both.
``--before`` zeroes the fixed per-layer (CUDA and Metal), per-expert (serving and fused), all-reduce,
prefill-floor and time-to-first-token terms (SGLang's too), reads quantized weights at the full bandwidth
share, drops the two AMD factors and costs every prefill at the bf16 rate (the estimator before they were
added; the split GEMM / attention roofline stays).
r = measured seconds / estimated seconds: above 1 the estimate is optimistic. Prints, per category,
the count, the median r, the share within +-30 % (|r - 1| <= 0.3) and the most optimistic r."""
from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kvcalc import speed  # noqa: E402
from kvcalc.speed_reference import (  # noqa: E402
    category,
    estimate_for,
    heldout_measurements,
    measured_spread,
    published_measurements,
    ratios_by_category,
    speed_ratio,
)

FIXED_TERMS = ("LAYER_OVERHEAD_S", "METAL_LAYER_OVERHEAD_S", "EXPERT_OVERHEAD_S", "TRTLLM_EXPERT_OVERHEAD_S",
               "EARLIER_RELEASE_EXPERT_OVERHEAD_S", "MOE_LAYER_OVERHEAD_S", "MLA_LAYER_OVERHEAD_S",
               "METAL_MOE_LAYER_OVERHEAD_S", "FUSED_EXPERT_OVERHEAD_S",
               "ALLREDUCE_LATENCY_S", "PREFILL_OVERLAP", "TTFT_FIXED_S", "PREFILL_LAYER_OVERHEAD_S",
               "SGLANG_PREFILL_LAYER_OVERHEAD_S")
"""kvcalc.speed's fitted fixed-cost constants, zeroed by :func:`without_fitted_terms`."""


@contextmanager
def without_fitted_terms() -> Iterator[None]:
    """The estimator without its fitted terms (the fixed costs, the quantized share, the AMD factors, the engines'
    own tensor rates): the roofline alone, as ``--before`` prints it."""
    saved = {name: getattr(speed, name) for name in FIXED_TERMS + ("QUANTIZED_BANDWIDTH_SHARE", "AMD_BANDWIDTH_FACTOR",
                                                                   "AMD_FIXED_FACTOR", "_tensor_rate",
                                                                   "_allreduce_seconds")}
    for name in FIXED_TERMS:
        setattr(speed, name, 0.0)
    speed.QUANTIZED_BANDWIDTH_SHARE = speed.AMD_BANDWIDTH_FACTOR = speed.AMD_FIXED_FACTOR = 1.0
    speed._tensor_rate = lambda d: (d.gpu.bf16_tflops or d.gpu.fp16_tflops, "bf16")    # type: ignore[assignment]
    speed._allreduce_seconds = lambda d, layers, tokens: 0.0            # type: ignore[assignment]
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(speed, name, value)


def within(r: float) -> bool:
    """|estimated speed / measured speed - 1| <= 30 %."""
    return abs(r - 1) <= 0.3


def table(show_rows: bool, heldout: bool = False) -> list[str]:
    rows = heldout_measurements() if heldout else published_measurements()
    ratios = ratios_by_category(rows)
    lines = []
    if show_rows:
        for m in rows:
            e = estimate_for(m)
            lines.append(f"{category(m, e):15s} {speed_ratio(m, e):5.2f}  {m.id}")
    lines.append("| category | rows | median r | within +-30 % | most optimistic r |")
    lines.append("|---|---:|---:|---:|---:|")
    for cat, rs in sorted(ratios.items()):
        share = sum(within(r) for r in rs) / len(rs)
        lines.append(f"| {cat} | {len(rs)} | {statistics.median(rs):.2f} | {share:.0%} | {max(rs):.2f} |")
    return lines


def svg(ratios: dict[str, list[float]], before: dict[str, list[float]],
        heldout: dict[str, list[float]] | None = None) -> str:
    """A strip plot, hand-written SVG: one row per category, r on a log axis from 0.5 to 4, each figure
    a dot (grey before, blue after, orange the held-out set after), the +-30 % band shaded."""
    heldout = heldout or {}
    import math as _m

    w, left, top, row = 720, 130, 30, 34

    def x(r: float) -> float:
        return left + (w - left - 20) * (_m.log(min(max(r, 0.5), 4)) - _m.log(0.5)) / (_m.log(4) - _m.log(0.5))

    cats = sorted(set(ratios) | set(heldout))
    row = 44
    h = top + row * len(cats) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect x="{x(0.7):.1f}" y="{top - 10}" width="{x(1.3) - x(0.7):.1f}" height="{row * len(cats)}" '
           'fill="#e8f4e8"/>']
    for tick in (0.5, 0.7, 1, 1.3, 1.5, 2, 3, 4):
        out.append(f'<line x1="{x(tick):.1f}" y1="{top - 10}" x2="{x(tick):.1f}" y2="{top + row * len(cats) - 10}" '
                   f'stroke="#bbb" stroke-width="{1.5 if tick == 1 else 0.5}"/>')
        out.append(f'<text x="{x(tick):.1f}" y="{top + row * len(cats) + 6}" text-anchor="middle">{tick:g}</text>')
    for i, cat in enumerate(cats):
        y = top + row * i + 8
        label = f"{cat} ({len(ratios.get(cat, []))} + {len(heldout.get(cat, []))})"
        out.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{label}</text>')
        for r in before.get(cat, []):
            out.append(f'<circle cx="{x(r):.1f}" cy="{y - 6}" r="3" fill="#999" fill-opacity="0.6"/>')
        for r in ratios.get(cat, []):
            out.append(f'<circle cx="{x(r):.1f}" cy="{y + 4}" r="3" fill="#1f77b4" fill-opacity="0.8"/>')
        for r in heldout.get(cat, []):
            out.append(f'<circle cx="{x(r):.1f}" cy="{y + 14}" r="3" fill="#ff7f0e" fill-opacity="0.9"/>')
    out.append(f'<text x="{left}" y="{h - 8}">r = measured / estimated s (log, 0.5-4); data/: grey before, blue '
               'after; orange: held-out set; green +-30 % (label: data/ + held-out rows)</text></svg>')
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", action="store_true")
    ap.add_argument("--rows", action="store_true")
    ap.add_argument("--heldout", action="store_true", help="judge data/speed_heldout.csv (kept aside)")
    ap.add_argument("--spread", action="store_true", help="print kvcalc.speed.SPREAD as the data gives it")
    ap.add_argument("--svg", help="write the strip plot (before and after) to this path")
    args = ap.parse_args()
    if args.svg:
        with without_fitted_terms():
            old = ratios_by_category()
        Path(args.svg).write_text(svg(ratios_by_category(), old, ratios_by_category(heldout_measurements())),
                                  encoding="utf-8")
        return
    if args.spread:
        print(measured_spread())
        return
    if args.before:
        with without_fitted_terms():
            print("\n".join(table(args.rows, args.heldout)))
    else:
        print("\n".join(table(args.rows, args.heldout)))


if __name__ == "__main__":
    main()
