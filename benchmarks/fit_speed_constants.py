"""Fit kvcalc.speed's free constants on data/speed_measurements.csv; prints them and the rows each was fitted on.

Run: ``python benchmarks/fit_speed_constants.py``. Each constant is fitted on its own rows (below) by a
grid search minimising the sum of squared log(measured seconds / estimated seconds) (the pairs of
:data:`JOINT` together); the two efficiencies are then re-derived as
kvcalc.speed_reference.derived_efficiencies (medians of the clean rows, fixed costs taken off), and the
loop repeats until nothing changes (at most 8 rounds). Only data/speed_measurements.csv is read:
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


def _mla(m: Measurement) -> bool:
    return speed.latent_attention(measured_deployment(m).spec)


def _apple(m: Measurement) -> bool:
    return measured_deployment(m).gpu.vendor == "Apple"


def _serving(m: Measurement) -> bool:
    return measured_deployment(m).runtime in speed.SERVING_RUNTIMES


def _path(m: Measurement) -> str:
    return speed.expert_path(measured_deployment(m))


def _amd(m: Measurement) -> bool:
    return measured_deployment(m).gpu.vendor == "AMD"


def _sm_limited_engine(m: Measurement) -> bool:
    d = measured_deployment(m)
    return d.engine.sm_stream_limited and d.gpu.sm_count is not None


ALL_ROWS = list(published_measurements())
ROWS = [m for m in ALL_ROWS if measured_deployment(m).gpu.vendor not in speed.UNCALIBRATED_VENDORS]
"""The rows the per-kernel constants are fitted on: data/ but the GPUs of kvcalc.speed.UNCALIBRATED_VENDORS, whose
rows set only :data:`VENDOR_CONSTANTS` (and their own category's range)."""
VENDOR_CONSTANTS = ("AMD_BANDWIDTH_FACTOR", "AMD_FIXED_FACTOR")


def _rows(name: str) -> list[Measurement]:
    return [m for m in (ALL_ROWS if name in VENDOR_CONSTANTS else ROWS) if SELECT[name](m)]


SELECT: dict[str, Callable[[Measurement], bool]] = {
    "LAYER_OVERHEAD_S": lambda m: category(m) == "dense" and m.batch == 1 and not _apple(m),
    "METAL_LAYER_OVERHEAD_S": lambda m: _apple(m) and m.is_decode and m.batch == 1 and not _moe(m),
    "EXPERT_OVERHEAD_S": lambda m: _moe(m) and m.is_decode and m.batch == 1 and _path(m) == "fused_moe",
    # SGLang 0.4's row alone: vLLM 0.10's (the gpt-oss launch image) share the constant and check it
    "EARLIER_RELEASE_EXPERT_OVERHEAD_S": lambda m: _moe(m) and m.is_decode and m.batch == 1
    and _path(m) == "sglang 0.4",
    "TRTLLM_EXPERT_OVERHEAD_S": lambda m: _moe(m) and m.is_decode and m.batch == 1 and _path(m) == "trtllm",
    "MOE_LAYER_OVERHEAD_S": lambda m: _moe(m) and m.is_decode and m.batch == 1 and not _serving(m) and not _apple(m),
    "MLA_LAYER_OVERHEAD_S": lambda m: _moe(m) and _mla(m) and m.is_decode and m.batch == 1 and not _serving(m)
    and not _apple(m),
    "METAL_MOE_LAYER_OVERHEAD_S": lambda m: _moe(m) and m.is_decode and m.batch == 1 and _apple(m),
    "FUSED_EXPERT_OVERHEAD_S": lambda m: _moe(m) and not m.is_decode and not _serving(m),
    "ALLREDUCE_LATENCY_S": lambda m: category(m) == "tensor parallel" and m.is_decode and m.batch == 1 and not _moe(m),
    "QUANTIZED_BANDWIDTH_SHARE": lambda m: category(m) == "quantized" and m.batch == 1,
    "TTFT_FIXED_S": lambda m: m.metric == "ttft_ms" and not m.client_timed_prefill,
    "PREFILL_LAYER_OVERHEAD_S": lambda m: m.metric == "ttft_ms" and not m.client_timed_prefill,
    "SGLANG_PREFILL_LAYER_OVERHEAD_S": lambda m: m.metric == "ttft_ms" and measured_deployment(m).runtime == "sglang",
    "PREFILL_OVERLAP": lambda m: not m.is_decode and m.gpus == 1 and m.weights_format != "fp8"
    and not m.client_timed_prefill,
    "FP8_RATE_SHARE": lambda m: not m.is_decode and m.gpus == 1 and m.weights_format == "fp8"
    and not m.client_timed_prefill,
    "AMD_BANDWIDTH_FACTOR": _amd,
    "AMD_FIXED_FACTOR": _amd,
    # the limit binds only where a GPU's bandwidth per SM is above it; the rows below it bound it from beneath
    "LLAMA_CPP_SM_STREAM_GBPS": lambda m: m.is_decode and _sm_limited_engine(m),
}
GRID = {
    "LAYER_OVERHEAD_S": [i * 1e-6 for i in range(0, 41)],
    "METAL_LAYER_OVERHEAD_S": [i * 2e-6 for i in range(0, 101)],
    "EXPERT_OVERHEAD_S": [i * 0.5e-6 for i in range(0, 161)],
    "TRTLLM_EXPERT_OVERHEAD_S": [i * 0.5e-6 for i in range(0, 161)],
    "EARLIER_RELEASE_EXPERT_OVERHEAD_S": [i * 0.5e-6 for i in range(0, 161)],
    "MOE_LAYER_OVERHEAD_S": [i * 2e-6 for i in range(0, 151)],
    "MLA_LAYER_OVERHEAD_S": [i * 2e-6 for i in range(0, 151)],
    "METAL_MOE_LAYER_OVERHEAD_S": [i * 2e-6 for i in range(0, 151)],
    "FUSED_EXPERT_OVERHEAD_S": [i * 0.5e-6 for i in range(0, 121)],
    "ALLREDUCE_LATENCY_S": [i * 1e-6 for i in range(0, 61)],
    "QUANTIZED_BANDWIDTH_SHARE": [0.5 + i * 0.01 for i in range(0, 51)],
    "TTFT_FIXED_S": [i * 0.25e-3 for i in range(0, 25)],
    "PREFILL_LAYER_OVERHEAD_S": [i * 10e-6 for i in range(0, 31)],
    "SGLANG_PREFILL_LAYER_OVERHEAD_S": [i * 20e-6 for i in range(0, 151)],
    "PREFILL_OVERLAP": [i * 0.05 for i in range(0, 61)],
    "FP8_RATE_SHARE": [0.5 + i * 0.025 for i in range(0, 21)],
    "AMD_BANDWIDTH_FACTOR": [1 + i * 0.05 for i in range(0, 61)],
    "AMD_FIXED_FACTOR": [0.5 + i * 0.05 for i in range(0, 31)],
    "LLAMA_CPP_SM_STREAM_GBPS": [8 + i * 0.1 for i in range(0, 121)],
}


def loss(rows: list[Measurement]) -> float:
    eff = dict(bandwidth_efficiency=speed.DEFAULT_BANDWIDTH_EFFICIENCY,
               compute_efficiency=speed.DEFAULT_COMPUTE_EFFICIENCY)
    return sum(math.log(speed_ratio(m, estimate_for(m, **eff))) ** 2 for m in rows)


JOINT = (("TTFT_FIXED_S", "PREFILL_LAYER_OVERHEAD_S"), ("AMD_BANDWIDTH_FACTOR", "AMD_FIXED_FACTOR"))
"""Pairs fitted together on a 2-D grid (each pair one row set): a prefill's fixed cost once and per layer trade off,
and only the layer counts of the rows (32, 80) tell them apart; an AMD GPU's roofline and fixed seconds trade off,
and only the rows' mix of the two (batch 1 to concurrency 256) tells them apart."""


def fit(rounds: int = 8) -> None:
    for _ in range(rounds):
        before = {name: getattr(speed, name) for name in GRID}
        for name, values in GRID.items():
            if any(name in pair for pair in JOINT):
                continue
            rows = _rows(name)
            best = min(values, key=lambda v: (setattr(speed, name, v), loss(rows))[1])
            setattr(speed, name, best)
        for a, b in JOINT:
            rows = _rows(a)
            pair = min(((x, y) for x in GRID[a] for y in GRID[b]),
                       key=lambda xy: (setattr(speed, a, xy[0]), setattr(speed, b, xy[1]), loss(rows))[2])
            setattr(speed, a, pair[0])
            setattr(speed, b, pair[1])
        bw, comp = derived_efficiencies()
        speed.DEFAULT_BANDWIDTH_EFFICIENCY, speed.DEFAULT_COMPUTE_EFFICIENCY = round(bw, 2), round(comp, 2)
        if before == {name: getattr(speed, name) for name in GRID}:
            break
    for name in GRID:
        rows = [m.id for m in _rows(name)]
        print(f"{name} = {getattr(speed, name):.3g}   fitted on {len(rows)} rows: {', '.join(rows)}")
    print(f"DEFAULT_BANDWIDTH_EFFICIENCY = {speed.DEFAULT_BANDWIDTH_EFFICIENCY}")
    print(f"DEFAULT_COMPUTE_EFFICIENCY = {speed.DEFAULT_COMPUTE_EFFICIENCY}")


if __name__ == "__main__":
    fit()
