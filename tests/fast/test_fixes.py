"""The fixes a plan that does not fit offers (kvcalc.fixes): lower batch, shorter context, an 8-bit KV cache,
tensor and pipeline parallel, each with the number it gives, and the same list in ``kvcalc plan``'s text.

Hand arithmetic under the ideal runtime (no overhead, the whole GPU): Llama-3.1-8B holds 8,030,261,248 bf16
parameters = 16,060,522,496 B and 32 layers x 8 KV heads x 128 x (K, V) x 2 B = 131,072 B of KV a token. An RTX
4090 reports 24,564 MiB = 25,757,220,864 B, leaving 9,696,698,368 B = 73,979 tokens of bf16 KV (147,959 of fp8).
At 8 x 32,768 tokens: the largest batch is 73,979 // 32,768 = 2, the longest context at batch 8 is
73,979 // 8 = 9,247 (fp8: 147,959 // 8 = 18,494), and 2 GPUs split 16,060,522,496 + 8 x 32,768 x 131,072 =
50,420,260,864 B to 25,210,130,432 B each (< 25,757,220,864), one GPU cannot.
"""
from __future__ import annotations

import contextlib
import doctest
import io

import pytest

import kvcalc.fixes
from kvcalc.catalog import bundled_config
from kvcalc.cli import main
from kvcalc.fixes import fixes
from kvcalc.plan import fits
from kvcalc.scenarios import plan_scenario

LLAMA = "meta-llama/Llama-3.1-8B"
WEIGHTS, KV_TOKEN, GPU = 8_030_261_248 * 2, 32 * 8 * 128 * 2 * 2, 24_564 * 2**20


def _fixes(runtime: str, batch: int, context: int, model: str = LLAMA, gpu: str = "rtx-4090", **extra):
    s = plan_scenario(bundled_config(model), {"gpu": gpu, "runtime": runtime, **extra}, batch, context)
    return s, {f.kind: f for f in fixes(s.setup, s.plan, s.verdict.longest)}


def test_ideal_fixes_match_hand_arithmetic():
    tokens = (GPU - WEIGHTS) // KV_TOKEN
    assert tokens == 73_979
    _, got = _fixes("ideal", 8, 32768)
    assert got["batch"].value == tokens // 32768 == 2 and got["batch"].text == "batch 8 -> 2 fits"
    assert got["context"].value == tokens // 8 == 9_247 and got["context"].text == "context 32,768 -> 9,247 fits"
    fp8 = (GPU - WEIGHTS) // (KV_TOKEN // 2) // 8
    assert got["kv_dtype"].value == fp8 == 18_494 and not got["kv_dtype"].fits
    assert got["kv_dtype"].text == "kv_dtype fp8: max context 18,494 at batch 8"
    assert (WEIGHTS + 8 * 32768 * KV_TOKEN) // 2 < GPU < WEIGHTS + 8 * 32768 * KV_TOKEN
    assert got["tensor_parallel"].value == 2 and got["pipeline_parallel"].value == 2
    assert got["pipeline_parallel"].text.startswith("--pipeline-parallel-size 2 fits on 2 x")


def test_a_plan_that_fits_has_no_fixes():
    _, got = _fixes("vllm", 1, 8192)
    assert got == {}


@pytest.mark.parametrize("runtime,extra", [("vllm", {}), ("sglang", {}), ("tensorrt_llm", {}),
                                           ("llama_cpp", {"gguf": "Q4_K_M"})])
def test_each_fix_is_what_the_solver_says_fits(runtime: str, extra: dict):
    """Re-planned with the fix applied it fits, and one step further it does not (the solvers' edge)."""
    s, got = _fixes(runtime, 4, 131072, **extra)
    d, p = s.setup, s.plan
    assert not p.fits and "context" in got
    if "batch" in got:
        b = got["batch"].value
        assert fits(d, b, p.context) and not fits(d, b + 1, p.context)
    n = got["context"].value
    served = d.engine.served_longest(d, p)
    assert n == served and n < p.context
    if "kv_dtype" in got:
        assert got["kv_dtype"].value > n            # half the bytes a token: a longer context at the same batch


def test_each_engine_names_its_own_flags():
    words = {rt: {f.kind: f.text for f in _fixes(rt, 4, 32768, model="meta-llama/Llama-3.1-70B",
                                                 gpu="h100-sxm")[1].values()}
             for rt in ("vllm", "sglang", "tensorrt_llm")}
    assert words["vllm"]["pipeline_parallel"].startswith("--pipeline-parallel-size 4 ")
    assert words["sglang"]["pipeline_parallel"].startswith("--pp-size 4 ")
    assert words["tensorrt_llm"]["tensor_parallel"].startswith("--tp_size 4 ")
    _, cpp = _fixes("llama_cpp", 4, 131072, gguf="Q4_K_M")
    assert cpp["kv_dtype"].text.startswith("-ctk q8_0 -ctv q8_0")
    n = cpp["context"].value                      # a run sized to the request: -np 4 slots of n cells each
    assert cpp["context"].text.endswith(f"fits (-np 4 -c {4 * n})")
    assert "pipeline_parallel" not in cpp and "tensor_parallel" not in cpp      # one GPU planned


def test_int4_weights_fix_is_what_the_planner_says_with_int4_weights():
    """Qwen3-30B-A3B's 30.5e9 bf16 parameters (57 GiB) do not fit a 24 GB card; 4-bit weights (about a quarter,
    plus scales) do, and planning with int4 chosen says the same, with the same longest context."""
    model = "Qwen/Qwen3-30B-A3B"
    s, got = _fixes("vllm", 1, 8192, model=model)
    assert not s.plan.fits and got["weights"].fits and got["weights"].text == "int4 weights (an AWQ checkpoint) fits"
    s4 = plan_scenario(bundled_config(model), {"gpu": "rtx-4090", "dtype": "int4"}, 1, 8192)
    assert s4.plan.fits and s4.verdict.longest == got["weights"].value
    _, none = _fixes("vllm", 1, 131072, model=model, dtype="int4")       # already 4-bit: no weights fix
    assert "weights" not in none


def test_vllm_shorter_context_names_max_model_len():
    _, got = _fixes("vllm", 1, 131072)
    n = got["context"].value
    assert got["context"].text.endswith(f"fits (--max-model-len {n})")


def test_cli_plan_prints_the_same_fixes():
    s, got = _fixes("vllm", 8, 32768)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["plan", LLAMA, "--offline", "--gpu", "rtx-4090", "--batch", "8", "--context", "32768",
                     "--max-model-len", "32768"]) == 0
    lines = [line[len("fix: "):] for line in out.getvalue().splitlines() if line.startswith("fix: ")]
    assert lines == [f.text for f in got.values()] and len(lines) == 6


def test_worked_example_runs():
    assert doctest.testmod(kvcalc.fixes).failed == 0
