"""Calibrated plans against the public startup logs they were calibrated from.

A log's measured lines become ``kvcalc plan`` flags (kvcalc.startup_log.calibration_flags); the plan run
in-process through ``kvcalc.cli.main([... "--json"])`` must then print the log's own KV lines exactly:
vLLM's "GPU KV cache size: N tokens" and "Maximum concurrency for L tokens per request: X.XXx",
SGLang's "KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB", TensorRT-LLM's "Allocated
X GiB for max tokens in paged KV cache (N)". What-ifs at other max_model_len values for the same KV
memory follow vLLM 0.33's arithmetic, checked first against vLLM's own outputs in
tests/fixtures/vllm_0_33_oracle.json. Logs of another model are recognised from their KV figures.
"""
from __future__ import annotations

import json
from math import ceil
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from kvcalc.catalog import bundled_config
from kvcalc.cli import build_parser, main
from kvcalc.startup_log import (
    calibration_argv,
    calibration_flags,
    check_model,
    parse_startup_log,
    predicted_vs_observed,
    vllm_block_bytes,
)

LOGS = Path(ROOT) / "tests" / "fixtures" / "startup_logs"
ORACLE = json.loads((Path(ROOT) / "tests" / "fixtures" / "vllm_0_33_oracle.json").read_text(encoding="utf-8"))
BIG_GPU = ["--gpu-mem-gib", "1024"]      # room for any pool: the log's own token count then sets it

# (log, bundled config with the logged model's geometry, tensor parallel size; why that config)
VLLM = [
    ("vllm__llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", 1),       # Instruct = base geometry
    ("vllm__llama-3.1-8b-instruct__2.log", "meta-llama/Llama-3.1-8B", 1),
    ("vllm__llama-3.1-70b-instruct-w8a8__1.log", "meta-llama/Llama-3.1-70B", 1),  # w8a8 weights, bf16 KV
    ("vllm__qwen3-30b-a3b__1.log", "Qwen/Qwen3-30B-A3B", 4),                    # SOURCES.csv: inferred model, -tp 4
    ("vllm__qwen3-235b-a22b-fp8__1.log", "Qwen/Qwen3-235B-A22B", 4),            # FP8 weights, bf16 KV
    ("vllm__meta-llama-3-70b__1.log", "meta-llama/Llama-3.1-70B", 4),           # Llama 3 70B geometry; TP not stated
    ("vllm__qwen3-0.6b__1.log", "Qwen/Qwen3-0.6B", 1),                          # SOURCES.csv: inferred model
]
SGLANG = [
    ("sglang__qwq-32b__1.log", "Qwen/Qwen2.5-32B", 4),
    ("sglang__llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", 1),
    ("sglang__qwen3-0.6b__1.log", "Qwen/Qwen3-0.6B", 1),
    ("sglang__qwen3-0.6b__2.log", "Qwen/Qwen3-0.6B", 1),
    ("sglang__qwen3-235b-a22b-fp8__1.log", "Qwen/Qwen3-235B-A22B", 4),
    ("sglang__qwen3-30b-a3b-instruct__1.log", "Qwen/Qwen3-30B-A3B", 1),
]
TRTLLM = [     # (log, config, extra flags the source states but the log does not)
    ("tensorrt_llm__llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", ["--kv-dtype", "fp8"]),
    ("tensorrt_llm__llama-3.1-8b__1.log", "meta-llama/Llama-3.1-8B", []),
    ("tensorrt_llm__qwen3-reranker-0.6b__1.log", "Qwen/Qwen3-0.6B", []),
    # 0.8's "Allocate 69524783104 bytes": 132,608 tokens x 524,288 B = a 7B of Llama-2's shape in fp16
    # (2 x 32 layers x 32 KV heads x 128 x 2 B), the "7 GB" smoothquant model of the issue
    ("tensorrt_llm__smoothquant-a100__1.log", "meta-llama/Llama-2-7b-hf", []),
]


def _log(name: str):
    return parse_startup_log((LOGS / name).read_text(encoding="utf-8"))


def _plan(capsys: pytest.CaptureFixture[str], model: str, runtime: str, argv: list[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["plan", model, "--offline", "--runtime", runtime, *argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _vllm_plan(capsys: pytest.CaptureFixture[str], name: str, model: str, tp: int,
               extra: list[str] | None = None) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    log = _log(name)
    flags = calibration_flags(log, block_bytes=vllm_block_bytes(bundled_config(model), tensor_parallel_size=tp))
    flags.setdefault("--gpu-mem-gib", 80.0)
    flags["-tp"], flags["--gpus"] = tp, tp
    return log, flags, _plan(capsys, model, "vllm", calibration_argv(flags) + (extra or []))


@pytest.mark.parametrize(("name", "model", "tp"), VLLM, ids=[c[0] for c in VLLM])
def test_vllm_calibrated_plan_prints_the_logs_kv_lines(capsys: pytest.CaptureFixture[str], name: str, model: str,
                                                       tp: int) -> None:
    """"GPU KV cache size: N tokens" (or V0's "# GPU blocks: B" = N / 16) and "Maximum concurrency
    for L tokens per request: X.XXx" come out of the calibrated plan exactly as the log prints them."""
    log, flags, plan = _vllm_plan(capsys, name, model, tp)
    tokens = log.value("kv_tokens")
    if tokens is not None:          # vLLM >= 0.7.3 prints tokens
        assert plan["kv_cache_tokens"] == tokens.amount and plan["num_gpu_blocks"] == tokens.amount // 16
        assert f"GPU KV cache size: {tokens.text} tokens" in plan["engine_lines"][-1]
    else:                           # older releases print blocks
        assert plan["num_gpu_blocks"] == log.value("gpu_blocks").amount
    conc = log.value("max_concurrency")
    if conc is not None:
        length = int(log.value("max_model_len").amount)
        assert f"{plan['max_concurrency']:.2f}" == conc.text
        capacity = log.value("kv_capacity")
        if capacity is not None:     # the log's engine refused this length, naming its capacity: so does the plan
            assert not plan["fits"] and "vLLM refuses to start" in plan["binding_constraint"]
            assert f"estimated maximum model length {capacity.amount:,}" in plan["binding_constraint"]
            assert rows_agree(plan, log, "kv_capacity")
        else:
            assert f"Maximum concurrency for {length:,} tokens per request: {conc.text}x" in plan["engine_lines"][-1]
    rows = {r.name: r for r in predicted_vs_observed(plan, log)}
    for key in ("kv_tokens", "gpu_blocks", "max_concurrency", "max_model_len"):
        if key in rows:
            assert rows[key].agrees, (key, rows[key])
    if "weights" in rows:       # the measured weights replaced the estimate
        assert rows["weights"].agrees and plan["weights_bytes"] == round(float(log.value("weights").text) * 2**30)


def rows_agree(plan: dict[str, Any], log: Any, name: str) -> bool:
    return bool(next(r for r in predicted_vs_observed(plan, log) if r.name == name).agrees)


def _vllm_0_33(kv_memory: int, bytes_per_block: int, max_model_len: int, block_size: int = 16) -> dict[str, Any]:
    """vLLM 0.33's arithmetic for a uniform full-attention model (vllm/v1/core/kv_cache_utils.py):
    num_blocks = kv_memory // bytes_per_block; one request needs cdiv(len, block_size) blocks plus the
    null block to start; max_concurrency = num_blocks / cdiv(len, block_size); "GPU KV cache size" =
    int(max_concurrency x len). Checked against vLLM's own outputs below."""
    blocks = kv_memory // bytes_per_block
    per_request = ceil(max_model_len / block_size)
    if per_request + 1 > blocks:
        return {"refused": True, "num_gpu_blocks": blocks}
    conc = blocks / per_request
    return {"refused": False, "num_gpu_blocks": blocks, "kv_cache_size_tokens": int(conc * max_model_len),
            "max_concurrency": conc}


def test_vllm_0_33_arithmetic_matches_vllms_own_outputs() -> None:
    cases = [c for c in ORACLE["cases"] if c["inputs"]["model_file"].endswith("meta-llama__Llama-3.1-8B.json")
             and c["inputs"]["tensor_parallel_size"] == 1 and c["inputs"]["kv_cache_dtype"] == "auto"
             and c["inputs"]["block_size"] is None and (c["inputs"]["max_model_len"] or 0) > 0
             and c["inputs"]["max_model_len"] <= 131072]
    assert len(cases) >= 5
    for c in cases:
        got = _vllm_0_33(c["inputs"]["kv_cache_memory"], 2097152, c["inputs"]["max_model_len"])
        out = c["outputs"]
        if out.get("num_gpu_blocks") is None:
            assert got["refused"], c["name"]
            continue
        assert out["bytes_per_block"] == 2097152
        assert (got["num_gpu_blocks"], got["kv_cache_size_tokens"]) == (out["num_gpu_blocks"],
                                                                         out["kv_cache_size_tokens"]), c["name"]
        assert got["max_concurrency"] == pytest.approx(out["max_concurrency"], rel=1e-12)


@pytest.mark.parametrize("length", [2048, 4000, 8192, 12345, 20000, 31216, 31217, 65536])
def test_vllm_calibrated_what_if_lengths_follow_vllms_arithmetic(capsys: pytest.CaptureFixture[str],
                                                                  length: int) -> None:
    """The RTX 3090 log's KV memory (1,952 blocks x 2 MiB) planned at other max_model_len values."""
    log, flags, _ = _vllm_plan(capsys, "vllm__llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", 1)
    flags["--max-model-len"], flags["--vllm-version"] = length, "0.33"     # as vLLM 0.33 would plan it
    plan = _plan(capsys, "meta-llama/Llama-3.1-8B", "vllm", calibration_argv(flags))
    want = _vllm_0_33(int(flags["--kv-cache-memory"]), 2097152, length)
    if want["refused"]:
        longest = (want["num_gpu_blocks"] - 1) * 16       # the longest length that still fits (null block)
        assert not plan["fits"] and f"estimated maximum model length {longest:,}" in plan["binding_constraint"]
        return
    assert plan["fits"] and plan["num_gpu_blocks"] == want["num_gpu_blocks"] == 1952
    assert plan["kv_cache_tokens"] == want["kv_cache_size_tokens"]
    assert f"{plan['max_concurrency']:.2f}" == f"{want['max_concurrency']:.2f}"


@pytest.mark.parametrize(("name", "model", "tp"), SGLANG, ids=[c[0] for c in SGLANG])
def test_sglang_calibrated_plan_prints_the_logs_kv_line(capsys: pytest.CaptureFixture[str], name: str, model: str,
                                                        tp: int) -> None:
    log = _log(name)
    flags = calibration_flags(log)
    assert flags["--max-total-tokens"] == log.value("kv_tokens").amount
    flags["-tp"], flags["--gpus"] = tp, tp
    plan = _plan(capsys, model, "sglang", calibration_argv(flags) + BIG_GPU)
    k, v = log.value("k_size").text, log.value("v_size").text
    assert f"#tokens: {log.value('kv_tokens').text}, K size: {k} GB, V size: {v} GB" in plan["engine_lines"][0]
    rows = {r.name: r for r in predicted_vs_observed(plan, log)}
    assert rows["kv_tokens"].agrees and rows["k_size"].agrees and rows["v_size"].agrees


@pytest.mark.parametrize(("name", "model", "extra"), TRTLLM, ids=[c[0] for c in TRTLLM])
def test_tensorrt_llm_calibrated_plan_prints_the_logs_allocation(capsys: pytest.CaptureFixture[str], name: str,
                                                                 model: str, extra: list[str]) -> None:
    log = _log(name)
    flags = calibration_flags(log)
    assert "--gpu-mem-gib" not in flags      # the token count pins the pool; the planning GPU is the user's
    plan = _plan(capsys, model, "tensorrt_llm", calibration_argv(flags) + extra + BIG_GPU)
    alloc, tokens = log.value("kv_allocated"), log.value("kv_tokens")
    gib = alloc.text if alloc.unit == "GiB" else f"{alloc.amount / 2**30:.2f}"
    assert f"Allocated {gib} GiB for max tokens in paged KV cache ({tokens.amount})" in plan["engine_lines"][-1]
    if alloc.unit == "bytes":       # the exact byte count: tokens x 2 x layers x KV heads x head_dim x 2 B
        assert tokens.amount * 2 * 32 * 32 * 128 * 2 == alloc.amount
    rows = {r.name: r for r in predicted_vs_observed(plan, log)}
    assert rows["kv_allocated"].agrees and rows["kv_tokens"].agrees
    if log.value("blocks") is not None:
        assert rows["blocks"].agrees


def test_calibration_flags_of_every_log_are_plan_flags() -> None:
    """Whatever a log calibrates is a flag ``kvcalc plan`` accepts today."""
    parser = build_parser()
    for path in sorted(LOGS.glob("*.log")):
        argv = calibration_argv(calibration_flags(parse_startup_log(path.read_text(encoding="utf-8"))))
        parser.parse_args(["plan", "Qwen/Qwen3-0.6B", *argv])


def test_vllm_measured_parts_become_flags() -> None:
    """Weights, non-torch, activation and total memory as printed, in GiB; utilization and length."""
    flags = calibration_flags(_log("vllm__meta-llama-3-8b__1.log"))
    assert flags == {"--gpu-memory-utilization": 0.9, "--kv-cache-memory": round(53.29 * 2**30),
                     "--vllm-version": "0.10", "--weights-gib": 14.96, "--activation-gib": 1.26,
                     "--non-torch-gib": 1.79, "--gpu-mem-gib": 79.22}
    tp2 = calibration_flags(_log("vllm__qwen3.6-27b-int4-tp2__1.log"))
    assert (tp2["-tp"], tp2["--kv-cache-dtype"], tp2["--max-model-len"], tp2["--max-num-seqs"]) == (2, "fp8_e5m2",
                                                                                                  262144, 2)
    assert calibration_flags(_log("vllm__qwen3.6-35b-a3b-nvfp4__1.log"))["--vllm-version"] == "0.33"
    old = parse_startup_log("vLLM API server version 0.6.4\nGPU KV cache size: 16 tokens")
    assert calibration_flags(old)["--vllm-version"] == "0.10"


def test_truncated_log_calibrates_what_it_can_and_names_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    """gpt-oss-120b's log stops after 'Available KV cache memory: 1.71 GiB' (the engine failed)."""
    log = _log("vllm__gpt-oss-120b__1.log")
    flags = calibration_flags(log, block_bytes=vllm_block_bytes(bundled_config("openai/gpt-oss-120b")))
    assert flags == {"--kv-cache-memory": round(1.71 * 2**30)}      # sliding-window model: the rounded figure
    assert [m.split(":")[0] for m in log.missing] == ["weights", "KV size", "concurrency"]
    plan = _plan(capsys, "openai/gpt-oss-120b", "vllm", calibration_argv(flags) + ["--gpu", "h100-sxm"])
    assert plan["available_kv_bytes"] == flags["--kv-cache-memory"]


def test_log_of_another_model_is_recognised() -> None:
    llama8b, qwen7b = bundled_config("meta-llama/Llama-3.1-8B"), bundled_config("Qwen/Qwen2.5-7B-Instruct")
    vllm_log = _log("vllm__llama-3.1-8b-instruct__1.log")
    assert check_model(vllm_log, llama8b).consistent is True
    wrong = check_model(vllm_log, qwen7b)
    assert wrong.consistent is False and "another model" in wrong.reasons[0] and "57,344 B" in wrong.reasons[0]
    trt = _log("tensorrt_llm__llama-3.1-8b__1.log")
    assert check_model(trt, llama8b).consistent is True
    assert check_model(trt, bundled_config("Qwen/Qwen3-0.6B")).consistent is False
    sgl = _log("sglang__qwen3-0.6b__2.log")
    assert check_model(sgl, bundled_config("Qwen/Qwen3-0.6B")).consistent is True
    assert check_model(sgl, llama8b).consistent is False
    gguf = _log("llama_cpp__qwen2.5-coder-32b__1.log")
    assert check_model(gguf, bundled_config("Qwen/Qwen2.5-32B")).consistent is True
    other = check_model(gguf, llama8b)
    assert other.consistent is False and "64 layers; the config has 32" in other.reasons[0]
    assert check_model(_log("vllm__qwen3-30b-a3b__2.log"), llama8b).consistent is None    # weights only


def test_predicted_vs_observed_lists_every_logged_figure() -> None:
    """Parts the plan's JSON does not break out (non-torch, activation) are shown with no prediction."""
    log = _log("vllm__moe-wna16-4gpu__1.log")
    rows = predicted_vs_observed({"weights_bytes": round(21.21 * 2**30), "gpu_memory_bytes": round(23.58 * 2**30)}, log)
    by = {r.name: r for r in rows}
    assert set(by) == {"weights", "non_torch", "activation", "available_kv", "total_gpu_memory",
                       "gpu_memory_utilization", "requested"}
    assert by["weights"].agrees and by["total_gpu_memory"].agrees
    assert by["non_torch"].predicted is None and "overhead_bytes" in by["non_torch"].note


@pytest.mark.parametrize("name", ["vllm__llama-3.1-8b-instruct__1.log", "vllm__llama-3.1-8b-instruct__2.log"])
def test_vllm_measured_parts_rebuild_the_logs_budget(capsys: pytest.CaptureFixture[str], name: str) -> None:
    """Without pinning the KV memory, the log's measured parts (total x utilization - weights - torch
    activation peak - non-torch; vLLM 0.6.4 worker.determine_num_available_blocks) give the log's
    blocks within what its printed rounding allows: total +-0.005 GiB x 0.9, peak +-0.005 GiB,
    non-torch +-0.005 GiB, weights +-0.00005 GiB, at 2 MiB a block."""
    log = _log(name)
    flags = calibration_flags(log)
    del flags["--kv-cache-memory"]
    assert flags["--vllm-version"] == "0.10" and flags["--activation-gib"] == round(
        float(log.value("peak_torch").text) - float(log.value("weights").text), 4)
    plan = _plan(capsys, "meta-llama/Llama-3.1-8B", "vllm", calibration_argv(flags))
    band = (0.005 * 0.9 + 0.005 + 0.005 + 0.00005) * 2**30 / 2**21
    assert abs(plan["num_gpu_blocks"] - log.value("gpu_blocks").amount) <= band
    assert next(r for r in predicted_vs_observed(plan, log) if r.name == "available_kv").agrees


def test_vllm_tp2_profile_shows_the_non_torch_memory_the_plan_assumes_away() -> None:
    """vLLM's own TP 2 profile of Meta-Llama-3-8B: non_torch 3.58 GiB (NCCL buffers) against 1.79 GiB at
    TP 1; calibration passes the measured figure on instead of the 64 MiB default."""
    tp1, tp2 = (calibration_flags(_log(f"vllm__meta-llama-3-8b__{i}.log")) for i in (1, 2))
    assert (tp1["--non-torch-gib"], tp2["--non-torch-gib"]) == (1.79, 3.58)
    assert tp2["--weights-gib"] == 7.48 and "--kv-cache-memory" not in tp2   # the log is cut before it


def test_vllm_v0_refusal_at_the_issue_length_names_the_logs_capacity(capsys: pytest.CaptureFixture[str]) -> None:
    """OpenRLHF's Llama-3-70B actor: 378 blocks, and vLLM refused max_model_len 8192 because only
    378 x 16 = 6048 tokens fit (the issue's title quotes the message)."""
    log, flags, plan = _vllm_plan(capsys, "vllm__meta-llama-3-70b__1.log", "meta-llama/Llama-3.1-70B", 4,
                                  ["--max-model-len", "8192"])
    assert flags["--vllm-version"] == "0.10" and plan["num_gpu_blocks"] == 378
    assert not plan["fits"] and "estimated maximum model length 6,048" in plan["binding_constraint"]


def test_llama_cpp_calibrated_plan_prints_the_logs_kv_size(capsys: pytest.CaptureFixture[str]) -> None:
    """Qwen2.5-Coder-32B with a q8_0 KV cache of 32,768 cells: 'KV self size = 4352.00 MiB, K (q8_0):
    2176.00 MiB, V (q8_0): 2176.00 MiB' (the GGUF weight type does not enter the KV figure)."""
    log = _log("llama_cpp__qwen2.5-coder-32b__1.log")
    flags = calibration_flags(log)
    assert flags == {"-c": 32768, "-ctk": "q8_0", "-ctv": "q8_0"}
    plan = _plan(capsys, "Qwen/Qwen2.5-32B", "llama_cpp", calibration_argv(flags) + ["--gguf-type", "q8_0"] + BIG_GPU)
    rows = {r.name: r for r in predicted_vs_observed(plan, log)}
    assert rows["kv_total"].agrees and rows["k_size"].agrees and rows["v_size"].agrees and rows["cells"].agrees
    assert check_model(log, bundled_config("Qwen/Qwen2.5-32B")).consistent is True


def test_calibrate_takes_tp_kv_dtype_and_block_size_from_the_log() -> None:
    """One call for the CLI: the 30B-A3B log at TP 4 pins 12,424 blocks of 48 x 1 x 128 x 2 x 2 x 16 B."""
    from kvcalc.startup_log import calibrate

    flags = calibrate(_log("vllm__qwen3-30b-a3b__1.log"), bundled_config("Qwen/Qwen3-30B-A3B"), tensor_parallel_size=4)
    assert flags["--kv-cache-memory"] == 198784 // 16 * 48 * 1 * 128 * 2 * 2 * 16
    fp8 = parse_startup_log("'kv_cache_dtype': 'fp8', 'tensor_parallel_size': 2\nGPU KV cache size: 32 tokens")
    assert calibrate(fp8, bundled_config("meta-llama/Llama-3.1-8B"))["--kv-cache-memory"] == 2 * 32 * 4 * 128 * 16 * 2


def test_startup_log_report_is_json_ready_and_prints_one_line_per_figure(capsys: pytest.CaptureFixture[str]) -> None:
    from kvcalc.startup_log import startup_log_lines, startup_log_report

    log, flags, plan = _vllm_plan(capsys, "vllm__llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", 1)
    check = check_model(log, bundled_config("Qwen/Qwen2.5-7B-Instruct"))
    report = json.loads(json.dumps(startup_log_report(plan, log, flags, check)))
    assert report["engine"] == "vllm" and report["flags"]["--kv-cache-memory"] == 1952 * 2**21
    assert report["model_check"]["consistent"] is False and report["missing"] == []
    rows = {r["name"]: r for r in report["rows"]}
    assert rows["max_concurrency"] == {**rows["max_concurrency"], "observed": "1.56", "predicted": "1.56",
                                       "agrees": True}
    text = startup_log_lines(report)
    assert text[0].startswith("startup log: vllm; calibrated with --gpu-memory-utilization 0.9")
    assert any(line.split()[:2] == ["gpu_blocks", "1952"] and line.endswith("yes") for line in text)
    assert any("model check:" in line and "another model" in line for line in text)


def test_vllm_cuda_graph_and_profile_parts_become_flags(capsys: pytest.CaptureFixture[str]) -> None:
    """Qwen3-0.6B's V0 profile: 63.35 - 1.12 - 0.16 - 0.23 = 61.84 GiB for KV (the log's own figure);
    the CUDA graphs it captured afterwards (0.13 GiB) stay out of that budget."""
    log = _log("vllm__qwen3-0.6b__1.log")
    flags = calibration_flags(log)
    assert (flags["--weights-gib"], flags["--non-torch-gib"], flags["--activation-gib"], flags["--gpu-mem-gib"],
            flags["--gpu-memory-utilization"], flags["--vllm-version"]) == (1.12, 0.16, 0.23, 79.19, 0.8, "0.10")
    assert "--cuda-graph-gib" not in flags        # V0 sized the KV cache before capturing the graphs
    assert calibration_flags(_log("vllm__llama-3.2-1b-instruct__2.log")) == {"--cuda-graph-gib": 0.21}
    del flags["--kv-cache-memory"]
    plan = _plan(capsys, "Qwen/Qwen3-0.6B", "vllm", calibration_argv(flags))
    assert next(r for r in predicted_vs_observed(plan, log) if r.name == "available_kv").agrees
    assert abs(plan["num_gpu_blocks"] - 36184) <= (0.005 * 0.8 + 3 * 0.005) * 2**30 / (28 * 8 * 128 * 2 * 2 * 16)


def test_vllm_profile_parts_reproduce_the_logged_kv_memory(capsys: pytest.CaptureFixture[str]) -> None:
    """vLLM's own H100 profile of Meta-Llama-3-8B: 79.22 x 0.90 - 14.96 - 1.79 - 1.26 = 53.288 GiB,
    printed 53.29 GiB as the log prints it, with nothing pinned."""
    log = _log("vllm__meta-llama-3-8b__1.log")
    flags = calibration_flags(log)
    del flags["--kv-cache-memory"]
    plan = _plan(capsys, "meta-llama/Meta-Llama-3-8B", "vllm", calibration_argv(flags))
    assert plan["engine_lines"][0] == "Available KV cache memory: 53.29 GiB"
    row = next(r for r in predicted_vs_observed(plan, log) if r.name == "available_kv")
    assert row.agrees and row.predicted_text == "53.29"
