"""``plan --json``'s ``overhead_parts``: the engine's split of ``overhead_bytes`` into named parts.

Every plan of the golden scenarios (tests/golden/plans.json.gz, 1,134 scenarios over every bundled model and
runtime) has parts that are non-negative integers summing exactly to ``overhead_bytes``, named by what each
engine's budget subtracts (vLLM's gpu_worker.determine_available_memory: activation peak, non-torch memory,
CUDA graphs; SGLang: memory in use before the load and the share outside mem_fraction_static; TensorRT-LLM:
activation peak and runtime buffers; llama.cpp: compute buffer and recurrent state). Measured flags come
back as the parts they measure, byte for byte (GiB x 2**30).
"""
from __future__ import annotations

import contextlib
import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from kvcalc.cli import main

GOLDEN = Path(ROOT) / "tests" / "golden" / "plans.json.gz"
PART_NAMES = {
    "vllm": {"activation_peak", "non_torch", "cuda_graphs"},
    "sglang": {"used_before_load", "outside_mem_fraction_static"},
    "tensorrt_llm": {"activation_peak", "runtime_buffers"},
    "llama_cpp": {"compute_buffer", "recurrent_state"},
    "transformers": {"activation_peak", "non_torch"},
    "ideal": set(),
}


def _plans() -> list[dict[str, Any]]:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        recorded = json.load(f)
    return [r["json"] for r in recorded if r["rc"] == 0 and r["argv"][0] == "plan"]


def test_overhead_parts_sum_to_the_overhead_over_the_golden_scenarios() -> None:
    plans = _plans()
    assert len(plans) >= 700
    seen: set[str] = set()
    for p in plans:
        parts = p["overhead_parts"]
        assert all(isinstance(v, int) and v >= 0 for v in parts.values()), parts
        assert sum(parts.values()) == p["overhead_bytes"], (p["runtime"], parts, p["overhead_bytes"])
        assert set(parts) == PART_NAMES[p["runtime"]], (p["runtime"], parts)
        seen.add(p["runtime"])
    assert seen == set(PART_NAMES)


def _plan(argv: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["plan", "meta-llama/Llama-3.1-8B", "--offline", *argv, "--json"]) == 0
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


@pytest.mark.parametrize(("runtime", "flags", "want"), [
    ("vllm", ["--activation-gib", "1.26", "--non-torch-gib", "1.79", "--cuda-graph-gib", "0.5"],
     {"activation_peak": round(1.26 * 2**30), "non_torch": round(1.79 * 2**30), "cuda_graphs": 2**29}),
    ("tensorrt_llm", ["--activation-gib", "2", "--non-torch-gib", "0.75"],
     {"activation_peak": 2 * 2**30, "runtime_buffers": 3 * 2**28}),
    ("sglang", ["--non-torch-gib", "1.5"], {"used_before_load": 3 * 2**29}),
])
def test_measured_flags_come_back_as_their_parts(runtime: str, flags: list[str], want: dict[str, int]) -> None:
    p = _plan(["--runtime", runtime, "--gpu", "h100-sxm", *flags])
    assert {k: p["overhead_parts"][k] for k in want} == want
    assert sum(p["overhead_parts"].values()) == p["overhead_bytes"]
