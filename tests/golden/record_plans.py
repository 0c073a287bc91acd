"""Record (or check) the golden file of ``kvcalc plan --json`` over a grid of scenarios.

Refactoring guard: every bundled model x every runtime x GPUs, contexts, batches, dtypes and engine
options, run through the CLI's own ``main`` in-process. ``python tests/golden/record_plans.py``
rewrites tests/golden/plans.json.gz; tests/golden/test_golden_plans.py replays every scenario and
asserts the JSON (or the error line) is identical. An intended change of a figure regenerates this
file in the same commit that names the change.
"""
from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("plans.json.gz")

RUNTIME_OPTIONS: dict[str, list[list[str]]] = {
    "ideal": [[]],
    "transformers": [[], ["--dtype", "float16"]],
    "vllm": [[], ["--gpu-memory-utilization", "0.8", "--max-model-len", "16384"], ["--kv-cache-dtype", "fp8_e4m3"],
             ["--max-num-seqs", "64", "--max-num-batched-tokens", "4096", "--block-size", "32"]],
    "sglang": [[], ["--mem-fraction-static", "0.8", "--page-size", "16"], ["--context-length", "8192"]],
    "tensorrt_llm": [[], ["--free-gpu-memory-fraction", "0.85", "--tokens-per-block", "64"]],
    "llama_cpp": [["--gguf-type", "Q4_K_M"], ["--gguf-type", "Q8_0", "-c", "8192", "-np", "2"],
                  ["--gguf-type", "F16", "-ctk", "q8_0", "-ctv", "q8_0", "-fa", "on"]],
}
SHAPES: list[list[str]] = [
    ["--gpu", "h100-sxm", "--batch", "1", "--context", "8192"],
    ["--gpu", "rtx-4090", "--batch", "4", "--context", "4096"],
    ["--gpu", "a100-80gb", "--gpus", "2", "--batch", "16", "--context", "32768"],
]


def models() -> list[str]:
    with open(ROOT / "data" / "models.csv", newline="") as f:
        return [row["hub_id"] for row in csv.DictReader(f)]


def scenarios() -> list[list[str]]:
    out: list[list[str]] = []
    for i, model in enumerate(models()):
        for runtime, options in RUNTIME_OPTIONS.items():
            for j, extra in enumerate(options):
                shape = SHAPES[(i + j) % len(SHAPES)]
                out.append(["plan", model, "--offline", "--runtime", runtime, *shape, *extra, "--json"])
        # a few extra shapes per model under vLLM (the default runtime): no context, tensor parallel, bf16 weights
        out.append(["plan", model, "--offline", "--gpu", "l4", "--batch", "2", "--json"])
        out.append(["plan", model, "--offline", "--gpu", "h200", "--gpus", "4", "-tp", "4", "--batch", "8",
                    "--context", "65536", "--json"])
        # an AMD GPU (its own speed category and time factors: kvcalc.speed.UNCALIBRATED_VENDORS)
        out.append(["plan", model, "--offline", "--gpu", "mi300x", "--gpus", "8", "-tp", "8", "--batch", "32",
                    "--context", "8192", "--json"])
        out.append(["plan", model, "--offline", "--gpu-mem-gib", "23.5", "--dtype", "bfloat16",
                    "--kv-dtype", "fp8_e5m2", "--batch", "1", "--context", "2048", "--json"])
        for runtime in ("ideal", "transformers", "vllm"):
            out.append(["kv", model, "--offline", "--runtime", runtime, "--batch", "2", "--context", "4096", "--json"])
    return out


def run(argv: list[str]) -> dict[str, object]:
    from kvcalc.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    text = out.getvalue()
    return {"argv": argv, "rc": rc, "json": json.loads(text) if rc == 0 and text.strip() else None,
            "stderr": err.getvalue()}


def record() -> list[dict[str, object]]:
    os.environ["HF_HUB_OFFLINE"] = "1"
    return [run(a) for a in scenarios()]


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    results = record()
    with gzip.open(GOLDEN, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump(results, f, sort_keys=True, separators=(",", ":"))
    ok = sum(1 for r in results if r["rc"] == 0)
    print(f"{len(results)} scenarios ({ok} planned, {len(results) - ok} refused) -> {GOLDEN.relative_to(ROOT)}")
