"""Floats are accepted only finite and in a stated range; JSON output is always valid JSON (issue 26).

Expected values are hand arithmetic and the JSON standard (RFC 8259 has no NaN / Infinity): a
bandwidth efficiency of 5e-324 (the smallest denormal) once gave "inf ms" and ``Infinity`` in ``--json``.
"""
from __future__ import annotations

import argparse
import json
import math

import pytest
from paths import load_config

from kvcalc.capacity import deploy, plan
from kvcalc.cli import _number, main
from kvcalc.errors import InputError
from kvcalc.limits import MIN_EFFICIENCY, check_finite, finite_json
from kvcalc.speed import estimate_speed

QWEN = "Qwen/Qwen3-8B"


def _strict(text: str) -> object:
    """json.loads that refuses the non-standard NaN / Infinity / -Infinity constants."""
    def refuse(name: str) -> None:
        raise ValueError(f"not JSON: {name}")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 5e-324, 1e-4, 1.0000001, -0.5, 10**400, True, "0.5"])
def test_check_finite_refuses_what_is_not_a_finite_number_in_range(value: object) -> None:
    with pytest.raises(InputError, match="efficiency"):
        check_finite("efficiency", value, MIN_EFFICIENCY, 1.0)


def test_check_finite_accepts_the_range_ends_and_an_open_lower_end() -> None:
    assert check_finite("x", MIN_EFFICIENCY, MIN_EFFICIENCY, 1.0) == 0.001
    assert check_finite("x", 1, MIN_EFFICIENCY, 1.0) == 1.0
    with pytest.raises(InputError, match="more than 0 and at most 1"):
        check_finite("x", 0.0, 0.0, 1.0, lo_open=True)


def test_finite_json_names_the_non_finite_field() -> None:
    assert _strict(finite_json({"a": [1, 2.5]})) == {"a": [1, 2.5]}
    with pytest.raises(InputError, match=r"speed\.steps\[1\] is not a finite number \(nan\)"):
        finite_json({"speed": {"steps": [0.1, math.nan]}})


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-Infinity", "1e999", "5e-324", "1e-10", "-2.5e-310", "1e13"])
def test_cli_number_refuses_non_finite_and_denormal_ish_values(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        _number(text)


@pytest.mark.parametrize(("text", "value"), [("0", 0.0), ("0.9", 0.9), ("1e-9", 1e-9), ("80", 80.0), ("-0", 0.0)])
def test_cli_number_accepts_ordinary_values(text: str, value: float) -> None:
    assert _number(text) == value


def test_library_refuses_a_denormal_efficiency() -> None:
    d = deploy(load_config(QWEN), gpu="h100-sxm")
    for kw in ({"bandwidth_efficiency": 5e-324}, {"compute_efficiency": 5e-324}, {"bandwidth_efficiency": math.nan}):
        with pytest.raises(InputError, match="finite number from 0.001 to 1"):
            estimate_speed(d, 1, 1024, **kw)
    slow = estimate_speed(d, 1, 1024, bandwidth_efficiency=MIN_EFFICIENCY, compute_efficiency=MIN_EFFICIENCY)
    assert math.isfinite(slow.decode_step_seconds) and math.isfinite(slow.ttft_seconds)


@pytest.mark.parametrize("flag", ["--bandwidth-efficiency", "--compute-efficiency"])
@pytest.mark.parametrize("value", ["5e-324", "1e-5", "nan"])
def test_cli_refuses_a_denormal_efficiency_in_one_line(flag: str, value: str, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["plan", QWEN, "--offline", "--gpu", "h100-sxm", flag, value, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "inf" not in err.replace("info", "").lower()


def test_cli_json_at_the_slowest_efficiency_is_strict_json(capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["plan", QWEN, "--offline", "--gpu", "h100-sxm", "--bandwidth-efficiency", "0.001",
                 "--compute-efficiency", "0.001", "--json"]) == 0
    speed = _strict(capsys.readouterr().out)["speed"]
    assert math.isfinite(speed["decode_step_seconds"]) and math.isfinite(speed["ttft_seconds"])


@pytest.mark.parametrize("kw", [
    {"gpu_memory_utilization": 5e-324}, {"gpu_mem_gib": 1e-3}, {"weights_gib": 5e-324}, {"cpu_offload_gb": 5e-324},
    {"cuda_graph_gib": 5e-324}, {"activation_gib": 1e6}, {"runtime": "sglang", "mem_fraction_static": 5e-324},
    {"runtime": "sglang", "swa_full_tokens_ratio": 5e-324},
    {"runtime": "tensorrt_llm", "free_gpu_memory_fraction": 5e-324},
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_every_float_at_the_end_of_its_range_gives_a_finite_plan(kw: dict) -> None:
    """deploy()'s own validators accept these (each in its stated range); the plan and the speed estimate
    built from them hold only finite numbers (strict JSON), however little memory is left."""
    where = {} if "gpu_mem_gib" in kw else {"gpu": "h100-sxm"}
    d = deploy(load_config(QWEN), **where, **kw)
    p = plan(d, batch=1, context=1024)
    s = estimate_speed(d, 1, 1024)
    _strict(finite_json({**p.to_dict(), "speed": s.to_dict()}))


@pytest.mark.parametrize("kw", [{"gpu_memory_utilization": math.nan}, {"gpu_mem_gib": math.inf},
                                {"weights_gib": math.nan}, {"runtime": "sglang", "mem_fraction_static": math.nan}],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_non_finite_floats_are_refused_by_deploy(kw: dict) -> None:
    where = {} if "gpu_mem_gib" in kw else {"gpu": "h100-sxm"}
    with pytest.raises(InputError):
        deploy(load_config(QWEN), **where, **kw)
