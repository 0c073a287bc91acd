"""SGLang and TensorRT-LLM against their own startup logs (tests/fixtures/engine_logs/*.json).

Each fixture keeps a public log excerpt verbatim with its source. What a log pins exactly is
reproduced exactly: SGLang's "KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB" (the
pool's K and V buffers of N + page_size token slots) and TensorRT-LLM's "Allocated X GiB for max
tokens in paged KV cache (N)" (N tokens x bytes per token), both through kvcalc's plan with the
pool capped at the log's N; TensorRT-LLM's reduced maximum sequence length. Where the log gives
the free memory, kvcalc's budget rule must land within the fixture's stated band (the log rounds
its GiB figures to 0.01); the reason for each band is in the fixture.
"""
from __future__ import annotations

import re
from typing import Any

import pytest
from paths import load_config, load_fixture

import kvcalc
from kvcalc.sglang import default_max_running_requests
from kvcalc.trtllm import trtllm_memory_plan, trtllm_options
from kvcalc.units import GiB

SGLANG = load_fixture("engine_logs/sglang.json")["logs"]
TRTLLM = load_fixture("engine_logs/tensorrt_llm.json")["logs"]
BIG_GPU_GIB = 1024.0       # room for any pool: the cap (the log's own token count) then sets the pool


def _line(log: dict[str, Any], marker: str) -> str:
    """The excerpt's line containing ``marker``, without its timestamp / rank / engine prefix."""
    line = next(x for x in log["excerpt"] if marker in x)
    return line[line.index(marker):]


def _ids(logs: list[dict[str, Any]]) -> list[str]:
    return [log["id"] for log in logs]


# ---------------------------------------------------------------------------------------------- SGLang
@pytest.mark.parametrize("log", SGLANG, ids=_ids(SGLANG))
def test_sglang_k_and_v_sizes_reproduce_the_log_line(log: dict[str, Any]) -> None:
    """The pool of the log's #tokens has the log's K / V sizes: the plan's line equals the engine's."""
    tokens = log["pins"]["tokens"]
    d = kvcalc.deploy(load_config(log["config"]), runtime="sglang", gpus=log["tp"], gpu_mem_gib=BIG_GPU_GIB,
                      kv_dtype=log["kv_dtype"], max_total_tokens=tokens)
    ep = d.engine_plan()
    assert ep.pool_tokens == tokens
    assert ep.log_lines[0] == _line(log, "KV Cache is allocated.")
    assert f"K size: {log['pins']['k_gb']} GB, V size: {log['pins']['v_gb']} GB" in ep.log_lines[0]


@pytest.mark.parametrize("log", [x for x in SGLANG if "budget" in x], ids=_ids([x for x in SGLANG if "budget" in x]))
def test_sglang_budget_rule_lands_in_the_band(log: dict[str, Any]) -> None:
    """rest = mem_fraction_static x free-before-load - weights, // cell: within the rounding band."""
    b = log["budget"]
    d = kvcalc.deploy(load_config(log["config"]), runtime="sglang", gpus=log["tp"],
                      gpu_mem_gib=b["free_before_load_gib"] + 1.0, non_torch_gib=1.0, weights_gib=b["weights_gib"],
                      mem_fraction_static=b["mem_fraction_static"])
    assert abs(d.engine_plan().pool_tokens - log["pins"]["tokens"]) <= log["band_tokens"], log["band_reason"]


def test_sglang_v0_5_scheduler_line() -> None:
    """max_running_requests = min(max(int(104273 / 40960 x 512), 2048), 4096) = 2048 and the model's
    context_len 40960, as the 2025-08 log prints them."""
    log = next(x for x in SGLANG if x["id"] == "qwen3-0.6b-v0.5")
    d = kvcalc.deploy(load_config(log["config"]), runtime="sglang", gpu_mem_gib=BIG_GPU_GIB,
                      max_total_tokens=log["pins"]["tokens"])
    printed = dict(re.findall(r"(\w+)=(\d+)", _line(log, "max_total_num_tokens=")))
    ours = dict(re.findall(r"(\w+)=(\d+)", d.engine_plan().log_lines[1]))
    assert ours == {k: printed[k] for k in ("max_total_num_tokens", "max_running_requests", "context_len")}


def test_sglang_v0_4_printed_one_more_running_request() -> None:
    """v0.4.3's QwQ log prints 2049 = the clamp (2048: int(46611 / 131072 x 512) = 182 < 2048) + its padding slot."""
    log = next(x for x in SGLANG if x["id"] == "qwq-32b-4xL4")
    assert default_max_running_requests(log["pins"]["tokens"], log["pins"]["context_len"]) + 1 == 2049


# ---------------------------------------------------------------------------------------------- TensorRT-LLM
WITH_CONFIG = [x for x in TRTLLM if x["config"]]


@pytest.mark.parametrize("log", WITH_CONFIG, ids=_ids(WITH_CONFIG))
def test_trtllm_allocated_line_reproduces(log: dict[str, Any]) -> None:
    """N tokens x the model's bytes per token = the log's "Allocated X GiB ... (N)"."""
    pins = log["pins"]
    d = kvcalc.deploy(load_config(log["config"]), runtime="tensorrt_llm", gpus=log["tp"], gpu_mem_gib=BIG_GPU_GIB,
                      kv_dtype=log["kv_dtype"], tokens_per_block=pins.get("tokens_per_block"),
                      max_tokens_in_paged_kv_cache=pins["tokens"])
    ep = d.engine_plan()
    assert ep.pool_tokens == pins["tokens"]
    ours = next(x for x in ep.log_lines if x.startswith("[MemUsageChange] Allocated"))
    assert ours.rstrip(".") == _line(log, "[MemUsageChange] Allocated").rstrip(".")


WITH_BUDGET = [x for x in TRTLLM if "budget" in x]


@pytest.mark.parametrize("log", WITH_BUDGET, ids=_ids(WITH_BUDGET))
def test_trtllm_blocks_from_the_free_fraction(log: dict[str, Any]) -> None:
    """The C++ runtime (these lines are its kvCacheManager.cpp): blocks = ceil(whole tokens of free_gpu_memory_fraction
    x available / bytes per token, tokens_per_block), in the band of the printed figure's rounding."""
    b, pins = log["budget"], log["pins"]
    if log["config"]:
        d = kvcalc.deploy(load_config(log["config"]), runtime="tensorrt_llm", kv_dtype=log["kv_dtype"])
        cell = d.engine_plan().cell_bytes
    else:
        cell = log["bytes_per_token"]
    total = round(b["total_gib"] * GiB)
    ep = trtllm_memory_plan(cell, total_gpu_bytes=total, weights_bytes=total - round(b["available_gib"] * GiB),
                            activation_bytes=0, runtime_bytes=0, max_seq_len=2048,
                            options=trtllm_options(free_gpu_memory_fraction=b["free_gpu_memory_fraction"],
                                                   tokens_per_block=pins["tokens_per_block"], trtllm_backend="cpp"))
    assert abs(ep.pool_pages - pins["blocks"]) <= log["band_blocks"], log["band_reason"]
    assert pins["tokens"] == pins["blocks"] * pins["tokens_per_block"]     # the log's own pool: whole blocks
    assert ep.log_lines[0] == _line(log, "Memory usage when calculating")


def test_trtllm_reduces_the_sequence_length_as_the_log() -> None:
    """82 blocks of 64 cannot hold one longer request: reduced to 82 x 64 - 64 + 1 = 5185, in its words."""
    log = next(x for x in TRTLLM if x["id"] == "guide-24gb-reduced")
    ep = trtllm_memory_plan(log["bytes_per_token"], total_gpu_bytes=round(BIG_GPU_GIB * GiB), weights_bytes=0,
                            activation_bytes=0, runtime_bytes=0, max_seq_len=8192,
                            options=trtllm_options(tokens_per_block=64, max_tokens_in_paged_kv_cache=5248,
                                                   trtllm_backend="cpp"))
    assert ep.pool_pages == 82 and ep.max_context == log["pins"]["reduced_to"]
    assert _line(log, "maxAttentionWindow and maxSequenceLen") in ep.log_lines
    assert ep.log_lines[-1] == _line(log, "[MemUsageChange] Allocated")


def test_trtllm_default_plan_within_the_estimate_band() -> None:
    """Qwen3-0.6B on an H100 with every default: the estimated budget lands within 2% of the log's pool."""
    log = next(x for x in TRTLLM if x["id"] == "qwen3-0.6b-h100-pytorch")
    d = kvcalc.deploy(load_config(log["config"]), runtime="tensorrt_llm", gpu=log["gpu"])
    got = d.engine_plan().pool_tokens
    assert abs(got / log["pins"]["tokens"] - 1) <= log["estimate_band"], log["estimate_reason"]


def test_trtllm_defaults_match_the_dynamo_worker() -> None:
    """max_seq_len defaults to the model's 131072 (2048 pages of 64 per sequence) and max_batch_size to 2048."""
    log = next(x for x in TRTLLM if x["id"] == "dynamo-trtllm-worker")
    d = kvcalc.deploy(load_config(log["config"]), runtime="tensorrt_llm", gpu_mem_gib=BIG_GPU_GIB,
                      tokens_per_block=64)
    ep = d.engine_plan()
    assert ep.max_context == log["pins"]["max_seq_len"]
    assert ep.max_context // ep.page_size == log["pins"]["pages_per_sequence"]
    assert ep.max_running == log["pins"]["max_batch_size"]
