"""kvcalc's SGLang engine against SGLang 0.5.23's own arithmetic (tests/fixtures/sglang_oracle.json).

The fixture is written by tests/oracles/sglang_oracle.py, a line-by-line transcription of the wheel's
memory rules (server_args' default ``mem_fraction_static``, the token pool, ``max_running_requests``, the
context length), fed the figures SGLang measures (the free memory before the weights load and the
weights): kvcalc is given the same measurements and must agree exactly on every number, in the main set
and in the set kept aside.
"""
from __future__ import annotations

from typing import Any

import pytest
from paths import load_config, load_fixture

import kvcalc
from kvcalc.deployment import MeasuredOverrides
from kvcalc.sglang.budget import sglang_mem_fraction
from kvcalc.units import MiB

FIXTURE = load_fixture("sglang_oracle.json")
CASES = FIXTURE["cases"]
ASIDE = FIXTURE["aside"]
FLAGS = ("page_size", "mem_fraction_static", "context_length", "max_running_requests", "max_total_tokens")


def _deploy(case: dict[str, Any]) -> Any:
    tp, pp = case.get("tp", 1), case.get("pp", 1)
    kv = case.get("kv_dtype", "auto")
    flags = {k: case[k] for k in FLAGS if case.get(k) is not None}
    return kvcalc.deploy(load_config(case["config"]), runtime="sglang", gpus=tp * pp, tensor_parallel_size=tp,
                         pipeline_parallel_size=pp, gpu_mem_gib=case["gpu_mib"] / 1024,
                         kv_dtype=None if kv == "auto" else {"bf16": "bfloat16"}.get(kv, kv),
                         measured=MeasuredOverrides(weights_bytes=case["weights_bytes"],
                                                    non_torch_bytes=case["used_before_load_mib"] * MiB), **flags)


def _check(entry: dict[str, Any]) -> None:
    case, want = entry["input"], entry["expect"]
    d = _deploy(case)
    ep = d.engine_plan()
    assert sglang_mem_fraction(d) == want["mem_fraction_static"]
    assert ep.max_context == want["context_len"]
    if "refused" in want:
        assert ep.refusal is not None and ep.pool_tokens == 0
        return
    assert ep.refusal is None
    assert ep.pool_tokens == want["max_total_num_tokens"]
    assert ep.swa_pool_tokens == want.get("swa_max_total_num_tokens", 0)
    assert ep.max_running == want["max_running_requests"]


def test_fixture_names_the_release_and_counts() -> None:
    assert FIXTURE["version"] == "0.5.23" and FIXTURE["script"] == "tests/oracles/sglang_oracle.py"
    assert len(CASES) >= 40 and len(ASIDE) >= 10


@pytest.mark.parametrize("entry", CASES, ids=[c["input"]["name"] for c in CASES])
def test_sglang_matches_its_own_arithmetic(entry: dict[str, Any]) -> None:
    _check(entry)


@pytest.mark.parametrize("entry", ASIDE, ids=[c["input"]["name"] for c in ASIDE])
def test_sglang_cases_kept_aside(entry: dict[str, Any]) -> None:
    _check(entry)


def test_qwen3_vl_on_a_large_hopper_gpu_is_refused_naming_the_override() -> None:
    # 0.5.23 arg_groups/model_overrides/qwen3_vl.py large_hopper_qwen3_vl_model_type: SM90 and >= 60 GiB switch
    # the embedding cache off, the feature transport to cuda_ipc and the decode graph; kvcalc does not model them
    d = kvcalc.deploy(load_config("Qwen/Qwen3-VL-32B-Instruct"), runtime="sglang", gpu="h100-sxm", gpus=2,
                      tensor_parallel_size=2)
    with pytest.raises(kvcalc.UnsupportedError, match="large-Hopper"):
        d.engine_plan()
