"""Fit kvcalc.speed's free constants on data/speed_measurements.csv; prints them and the rows each was fitted on.

Run: ``python benchmarks/fit_speed_constants.py``. Each constant is fitted on its own rows (below) by a
grid search minimising the sum of squared log(measured seconds / estimated seconds); the two
efficiencies are then re-derived as kvcalc.speed_reference.derived_efficiencies (medians of the
clean rows, fixed costs taken off), and the loop repeats. Only data/speed_measurements.csv is read:
data/speed_heldout.csv is kept aside to judge the result (benchmarks/speed_validation.py --heldout)."""
from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kvcalc import speed  # noqa: E402
from kvcalc.speed_reference import (  # noqa: E402
    Measurement,
    category,
    derived_efficiencies,
    estimate_for,
    measured_deployment,
    published_measurements,
    speed_ratio,
)


def _moe(m: Measurement) -> bool:
    return bool(measured_deployment(m).spec.moe_experts)


ROWS = list(published_measurements())
SELECT: dict[str, Callable[[Measurement], bool]] = {
    "LAYER_OVERHEAD_S": lambda m: category(m) == "dense" and m.batch == 1,
    # gpt-oss on A100 (no FP4 tensor path: vLLM unpacks the MXFP4 experts, an unmodelled cost) stays out
    "EXPERT_OVERHEAD_S": lambda m: _moe(m) and m.batch == 1 and not m.weights_format.startswith("MXFP4"),
    "ALLREDUCE_LATENCY_S": lambda m: category(m) == "tensor parallel" and m.is_decode and m.batch == 1 and not _moe(m),
    "QUANTIZED_BANDWIDTH_SHARE": lambda m: category(m) == "quantized" and m.batch == 1,
    "TTFT_FIXED_S": lambda m: m.metric == "ttft_ms" and m.gpus == 1,
    "PREFILL_OVERLAP": lambda m: not m.is_decode and m.gpus == 1 and m.weights_format != "fp8",
    "FP8_RATE_SHARE": lambda m: not m.is_decode and m.gpus == 1 and m.weights_format == "fp8",
}
GRID = {
    "LAYER_OVERHEAD_S": [i * 1e-6 for i in range(0, 41)],
    "EXPERT_OVERHEAD_S": [i * 0.5e-6 for i in range(0, 121)],
    "ALLREDUCE_LATENCY_S": [i * 1e-6 for i in range(0, 61)],
    "QUANTIZED_BANDWIDTH_SHARE": [0.5 + i * 0.01 for i in range(0, 51)],
    "TTFT_FIXED_S": [i * 0.1e-3 for i in range(0, 61)],
    "PREFILL_OVERLAP": [i * 0.05 for i in range(0, 61)],
    "FP8_RATE_SHARE": [0.5 + i * 0.025 for i in range(0, 21)],
}


def loss(rows: list[Measurement]) -> float:
    eff = dict(bandwidth_efficiency=speed.DEFAULT_BANDWIDTH_EFFICIENCY,
               compute_efficiency=speed.DEFAULT_COMPUTE_EFFICIENCY)
    return sum(math.log(speed_ratio(m, estimate_for(m, **eff))) ** 2 for m in rows)


def fit() -> None:
    for _ in range(4):
        for name, values in GRID.items():
            rows = [m for m in ROWS if SELECT[name](m)]
            best = min(values, key=lambda v: (setattr(speed, name, v), loss(rows))[1])
            setattr(speed, name, best)
        bw, comp = derived_efficiencies()
        speed.DEFAULT_BANDWIDTH_EFFICIENCY, speed.DEFAULT_COMPUTE_EFFICIENCY = round(bw, 2), round(comp, 2)
    for name in GRID:
        rows = [m.id for m in ROWS if SELECT[name](m)]
        print(f"{name} = {getattr(speed, name):.3g}   fitted on {len(rows)} rows: {', '.join(rows)}")
    print(f"DEFAULT_BANDWIDTH_EFFICIENCY = {speed.DEFAULT_BANDWIDTH_EFFICIENCY}")
    print(f"DEFAULT_COMPUTE_EFFICIENCY = {speed.DEFAULT_COMPUTE_EFFICIENCY}")


if __name__ == "__main__":
    fit()
