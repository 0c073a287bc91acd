"""One verdict everywhere: the Planner, GPU fit, Compare and the CLI give the same answer for the same inputs.

Bundled models x every runtime x two GPUs x two workloads run through each surface's own scenario function
(kvcalc.scenarios.plan_scenario for the Planner, gpu_fit for GPU fit, evaluate for Compare) and through
``kvcalc plan --json`` in-process (kvcalc.cli.main), typed as a user would: no ``--max-model-len``, so the CLI
must take the pages' default (vLLM serves the context asked for). Equal means: fits, the byte figures, the
longest context and refusals, scenario by scenario; on one GPU and workload (36 scenarios) the CLI's text
``verdict:`` and ``fix:`` lines are also the Planner's verdict and fixes (kvcalc.verdict, kvcalc.fixes).

The issue's own case is checked against hand arithmetic: Llama-3.1-8B (8,030,261,248 bf16 parameters =
14.96 GiB) on an RTX 4090 (24,564 MiB) at 1 x 8,192 tokens (32 layers x 8 KV heads x 128 x 2 x 2 B = 128 KiB per
token: 1 GiB) under vLLM's 0.9 budget (21.59 GiB): fits, on every surface.
"""
from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

from kvcalc.catalog import bundled_config
from kvcalc.cli import main
from kvcalc.errors import KVCalcError
from kvcalc.fixes import fixes
from kvcalc.gpus import get_gpu
from kvcalc.runtimes import RUNTIMES
from kvcalc.scenarios import DEFAULT_GGUF, Scenario, budget_use, evaluate, gpu_fit, kv_budget, plan_scenario

MODELS = ("meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B", "mistralai/Mistral-7B-v0.1", "google/gemma-3-4b-it",
          "Qwen/Qwen3-30B-A3B", "meta-llama/Llama-3.1-70B")
GPUS = ("rtx-4090", "h100-sxm")
WORKLOADS = ((1, 8192), (4, 32768))
SCENARIOS = [(m, rt, g, b, c) for m in MODELS for rt in RUNTIMES for g in GPUS for b, c in WORKLOADS]
FIGURES = ("fits", "weights_bytes", "kv_bytes", "overhead_bytes", "budget_bytes", "total_bytes", "max_batch")


def _options(runtime: str, gpu: str) -> dict[str, Any]:
    opts: dict[str, Any] = {"gpu": gpu, "gpus": 1, "runtime": runtime}
    if runtime == "llama_cpp":
        opts["gguf"] = DEFAULT_GGUF
    return opts


def _cli(model: str, runtime: str, gpu: str, batch: int, context: int, json_out: bool = True) -> Any:
    """``kvcalc plan --json`` (or its text) in-process; None when it refuses (exit 2)."""
    argv = ["plan", model, "--offline", "--gpu", gpu, "--runtime", runtime, "--batch", str(batch),
            "--context", str(context), *(["--json"] if json_out else [])]
    if runtime == "llama_cpp":
        argv += ["--gguf-type", DEFAULT_GGUF]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    if status == 2:
        return None
    assert status == 0, err.getvalue()
    return json.loads(out.getvalue()) if json_out else out.getvalue()


def _surfaces(model: str, runtime: str, gpu: str, batch: int, context: int) -> dict[str, Any]:
    """Each surface's answer, or the refusal's type name."""
    config, opts = bundled_config(model), _options(runtime, gpu)
    got: dict[str, Any] = {}
    try:
        got["planner"] = plan_scenario(config, opts, batch, context)
    except KVCalcError as e:
        got["planner"] = type(e).__name__
    try:
        got["gpu_fit"] = gpu_fit(config, opts, batch, context, batches=[batch], gpus=[get_gpu(gpu)])
    except KVCalcError as e:
        got["gpu_fit"] = type(e).__name__
    try:
        got["compare"] = evaluate(Scenario(model, "as configured", "auto", runtime), config,
                                  gpu={"gpu": gpu, "gpus": 1}, batch=batch, variant={}, contexts=[context],
                                  name="chosen")
    except KVCalcError as e:
        got["compare"] = type(e).__name__
    got["cli"] = _cli(model, runtime, gpu, batch, context)
    return got


def test_the_table_has_at_least_thirty_scenarios():
    assert len(SCENARIOS) >= 30 and len(set(RUNTIMES)) == 6


@pytest.mark.parametrize("model,runtime,gpu,batch,context", SCENARIOS)
def test_planner_gpu_fit_compare_and_cli_agree(model: str, runtime: str, gpu: str, batch: int, context: int):
    got = _surfaces(model, runtime, gpu, batch, context)
    planned = got["planner"]
    if isinstance(planned, str):                         # refused: refused everywhere
        assert isinstance(got["gpu_fit"], str) and got["cli"] is None
        return
    p, v = planned.plan, planned.verdict
    assert (v.state == "fits") == p.fits
    view = got["gpu_fit"]
    assert not isinstance(view, str), view
    assert view.planned.verdict == v and view.planned.plan.to_dict() == p.to_dict()
    row = view.rows[0]
    assert row[f"fits {batch:,} x {context:,}"] == ("yes" if p.fits else "no")
    assert row[f"longest context @ batch {batch:,}"] == (v.longest or 0)
    assert row["KV budget GiB"] >= 0 and kv_budget(p) >= 0
    if context in view.contexts:
        assert view.cells[0][view.contexts.index(context)].fits == p.fits
    share, _ = view.share
    assert not p.fits or share <= 1, f"{share:.1%} beside Fits"
    if not isinstance(got["compare"], str):               # Compare plots up to the model's maximum only
        r = got["compare"]
        assert r.longest["longest context, chosen"] == (v.longest or 0)
        assert r.weights_bytes == p.weights_bytes and r.budget_bytes == p.budget_bytes or runtime == "vllm"
    cli = got["cli"]
    assert cli is not None
    assert {k: cli[k] for k in FIGURES} == {k: getattr(p, k) for k in FIGURES}
    if gpu == "rtx-4090" and batch == 4:                  # the CLI's verdict and fixes, in its text
        text = _cli(model, runtime, gpu, batch, context, json_out=False).splitlines()
        verdict = [t[len("verdict: "):] for t in text if t.startswith("verdict: ")]
        assert verdict == ([] if p.fits else [v.sentence + (f"; fix: {v.fix}" if v.fix else "")])
        assert [t[len("fix: "):] for t in text if t.startswith("fix: ")] == \
            [f.text for f in fixes(planned.setup, p, v.longest)]


def test_llama_8b_on_a_4090_fits_on_every_surface():
    """Issue 25: GPU fit said "Fits: no" (it served vLLM's default max_model_len 131,072) where the Planner fits."""
    got = _surfaces("meta-llama/Llama-3.1-8B", "vllm", "rtx-4090", 1, 8192)
    weights, kv = 8_030_261_248 * 2, 8192 * 32 * 8 * 128 * 2 * 2
    budget = int(0.9 * 24_564 * 2**20)
    assert weights + kv < budget
    assert got["planner"].plan.fits and got["planner"].verdict.state == "fits"
    assert got["gpu_fit"].rows[0]["fits 1 x 8,192"] == "yes" and got["cli"]["fits"] is True
    assert got["planner"].plan.weights_bytes == weights and got["planner"].plan.kv_bytes == kv


def test_budget_use_never_reads_over_one_beside_fits():
    assert budget_use(110, 100, 200, True) == (0.55, "GPU memory")
    assert budget_use(110, 100, 200, False) == (1.1, "budget")


def test_every_worked_example_in_kvcalc_scenarios_runs():
    import doctest

    import kvcalc.scenarios

    result = doctest.testmod(kvcalc.scenarios)
    assert result.failed == 0 and result.attempted >= 19
