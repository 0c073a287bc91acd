"""Every public startup log in tests/fixtures/startup_logs read by kvcalc.startup_log.

Each value is asserted from the log's own text: the number and unit as printed, and its amount in
base units by hand (GiB and the "GB" of vLLM < 0.8 and SGLang = 2**30 bytes, MiB = 2**20). The
robustness tests feed the same lines through colours, prefixes, wrapping, interleaved ranks and
hostile input.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from paths import ROOT

from kvcalc.errors import KVCalcError
from kvcalc.startup_log import MAX_LOG_BYTES, StartupLogError, parse_startup_log
from kvcalc.startup_log.text import MAX_LINES, MAX_RAW_CHARS

LOGS = Path(ROOT) / "tests" / "fixtures" / "startup_logs"
SOURCES = {row["file"]: row for row in csv.DictReader((LOGS / "SOURCES.csv").open(encoding="utf-8"))}
FILES = sorted(p.name for p in LOGS.glob("*.log"))
SCALE = {"GiB": 2**30, "GB": 2**30, "MiB": 2**20, "bytes": 1}

# file stem -> (engine, version as the log states it, {quantity: "number unit" as printed in the log})
EXPECT: dict[str, tuple[str, str | None, dict[str, str]]] = {
    "vllm__llama-3.2-1b-instruct__2": ("vllm", None, {"cuda_graph": "0.21 GiB", "graph_s": "14 s"}),
    "vllm__qwen3-0.6b__1": ("vllm", None, {"requested": "63.35 GiB", "weights": "1.12 GiB", "available_kv": "61.84 GiB",
                                           "gpu_blocks": "36184 blocks", "max_concurrency": "70.67 x",
                                           "cuda_graph": "0.13 GiB"}),
    "vllm__meta-llama-3.1-8b-instruct__2": ("vllm", None, {"tensor_parallel_size": "2"}),
    "vllm__model-runner-v2__1": ("vllm", None, {"weights": "7.64 GiB", "load_s": "32.969258 s"}),
    "vllm__meta-llama-3-70b__1": ("vllm", None, {"gpu_blocks": "378 blocks", "cpu_blocks": "1638 blocks"}),
    "vllm__llama-3.2-1b-instruct__1": ("vllm", None, {"max_model_len": "1024 tokens",
                                                       "gpu_memory_utilization": "0.35"}),
    "vllm__meta-llama-3.1-8b-instruct__1": ("vllm", "0.6.4.post1", {"tensor_parallel_size": "1"}),
    "vllm__qwen3-vl-30b-a3b__1": ("vllm", None, {"available_kv": "13.69 GiB"}),
    "llama_cpp__qwen3-8b-ollama__1": ("llama_cpp", None, {"n_embd_k_gqa": "1024", "n_embd_head_k": "128"}),
    "llama_cpp__deepseek-gguf-cpu__1": ("llama_cpp", None, {"layer": "0", "device": "CPU text"}),
    "llama_cpp__deepseek-r1-distill-qwen-7b__1": (
        "llama_cpp",
        None,
        {"n_embd_k_gqa": "512", "kv_buffer": "112.00 MiB", "kv_total": "112.00 MiB", "k_size": "56.00 MiB"},
    ),
    "llama_cpp__deepseek-r1-ik__1": ("llama_cpp", None, {"compute_buffer": "5718.01 MiB"}),
    "llama_cpp__deepseek-r1-ik__2": ("llama_cpp", None, {"model_buffer": "20681.56 MiB", "n_ctx": "32768 tokens"}),
    "llama_cpp__deepseek-v4-flash__1": (
        "llama_cpp",
        None,
        {"output_buffer": "0.49 MiB", "cells": "64000 tokens", "kv_total": "0.00 MiB", "kv_buffer": "182.75 MiB"},
    ),
    "llama_cpp__llama-3.1-70b-q4_0__1": ("llama_cpp", None, {"file_size": "37.22 GiB", "file_type": "Q4_0 text"}),
    "llama_cpp__llama-3.1-70b__1": (
        "llama_cpp",
        None,
        {"cells": "128000 tokens", "n_layer": "80", "n_embd_k_gqa": "1024"},
    ),
    "llama_cpp__mistral-large-q8_0__1": ("llama_cpp", None, {"n_layer": "88", "n_head_kv": "8"}),
    "llama_cpp__qwen2.5-coder-32b__1": (
        "llama_cpp",
        None,
        {"cells": "32768 tokens", "n_layer": "64", "kv_buffer": "2788.00 MiB", "kv_total": "4352.00 MiB"},
    ),
    "sglang__llama-3.1-8b-instruct__1": (
        "sglang",
        None,
        {"weights": "15.11 GB", "kv_tokens": "442750 tokens", "k_size": "27.02 GB"},
    ),
    "sglang__llama-3.1-8b-instruct__2": ("sglang", None, {"dist_mem": "0.00 GB", "free_before_load": "46.81 GB"}),
    "sglang__qwen3-0.6b__1": (
        "sglang",
        None,
        {"free_before_load": "3.23 GB", "weights": "1.20 GB", "kv_tokens": "15387 tokens", "k_size": "0.82 GB"},
    ),
    "sglang__qwen3-0.6b__2": (
        "sglang",
        None,
        {
            "weights": "1.25 GB",
            "kv_tokens": "104273 tokens",
            "k_size": "5.57 GB",
            "max_total_num_tokens": "104273 tokens",
            "context_len": "40960 tokens",
            "available_gpu_mem": "1.70 GB",
        },
    ),
    "sglang__qwen3-235b-a22b-fp8__1": ("sglang", None, {"kv_tokens": "367404 tokens", "k_size": "8.23 GB"}),
    "sglang__qwen3-30b-a3b-instruct__1": (
        "sglang",
        None,
        {"kv_tokens": "1669816 tokens", "k_size": "76.44 GB", "free_after_pool": "74.01 GB", "weights": "56.98 GB"},
    ),
    "sglang__qwq-32b__1": (
        "sglang",
        None,
        {
            "mem_fraction_static": "0.85",
            "tp_size": "4",
            "free_before_load": "21.63 GB",
            "weights": "15.54 GB",
            "max_running_requests": "2049",
        },
    ),
    "sglang__tp8-moe__1": ("sglang", None, {"dist_mem": "1.96 GB", "free_before_load": "137.34 GB"}),
    "tensorrt_llm__llama-2-7b__1": ("tensorrt_llm", None, {"kv_tokens": "10718 tokens"}),
    "tensorrt_llm__llama-3.1-8b-instruct__1": (
        "tensorrt_llm",
        None,
        {
            "total_gpu_memory": "31.84 GiB",
            "available": "17.83 GiB",
            "blocks": "8219 blocks",
            "tokens_per_block": "32 tokens",
        },
    ),
    "tensorrt_llm__llama-3.1-8b__1": (
        "tensorrt_llm",
        None,
        {
            "tokens_per_block": "64 tokens",
            "kv_allocated": "26.91 GiB",
            "kv_tokens": "220480 tokens",
            "max_seq_len": "131072 tokens",
        },
    ),
    "tensorrt_llm__qwen1.5-7b__1": (
        "tensorrt_llm",
        "0.13.0.dev2024082000",
        {"total_gpu_memory": "39.39 GiB", "available": "21.89 GiB", "blocks": "631 blocks"},
    ),
    "tensorrt_llm__qwen3-reranker-0.6b__1": (
        "tensorrt_llm",
        None,
        {"kv_allocated": "68.69 GiB", "kv_tokens": "643136 tokens"},
    ),
    "tensorrt_llm__smoothquant-a100__1": (
        "tensorrt_llm",
        None,
        {"kv_allocated": "69524783104 bytes", "kv_tokens": "132608 tokens"},
    ),
    "tensorrt_llm__speculative-triton__1": (
        "tensorrt_llm",
        None,
        {
            "tokens_per_block": "32 tokens",
            "blocks": "116617 blocks",
            "kv_allocated": "78.30 GiB",
            "kv_tokens": "3731744 tokens",
        },
    ),
    "tensorrt_llm__unit-test-gpt__1": (
        "tensorrt_llm",
        "0.21.0rc0",
        {"max_seq_len": "384 tokens", "engine_size": "240 MiB"},
    ),
    "tensorrt_llm__unknown__1": (
        "tensorrt_llm",
        None,
        {
            "engine_size": "6695 MiB",
            "total_gpu_memory": "79.10 GiB",
            "available": "70.48 GiB",
            "blocks": "4060 blocks",
        },
    ),
    "tensorrt_llm__unknown__2": (
        "tensorrt_llm",
        None,
        {
            "total_gpu_memory": "22.18 GiB",
            "available": "1.42 GiB",
            "blocks": "82 blocks",
            "max_seq_len": "5185 tokens",
        },
    ),
    "vllm__gpt-oss-120b__1": ("vllm", None, {"available_kv": "1.71 GiB"}),
    "vllm__llama-3.1-405b-instruct-fp8__1": ("vllm", None, {"weights": "57.7520 GB"}),
    "vllm__llama-3.1-70b-instruct-w8a8__1": (
        "vllm",
        None,
        {
            "weights": "67.7229 GB",
            "gpu_blocks": "1381 blocks",
            "max_model_len": "2048 tokens",
            "max_concurrency": "10.79 x",
        },
    ),
    "vllm__llama-3.1-8b-instruct__1": (
        "vllm",
        None,
        {
            "weights": "14.9888 GB",
            "non_torch": "0.35 GiB",
            "available_kv": "3.81 GiB",
            "total_gpu_memory": "23.58 GiB",
            "gpu_blocks": "1952 blocks",
            "max_concurrency": "1.56 x",
        },
    ),
    "vllm__llama-3.1-8b-instruct__2": (
        "vllm",
        None,
        {
            "weights": "14.9888 GB",
            "available_kv": "2.89 GiB",
            "gpu_blocks": "1478 blocks",
            "kv_capacity": "23648 tokens",
        },
    ),
    "vllm__llama-3.2-11b-vision__1": (
        "vllm",
        None,
        {"requested": "71.29 GiB", "weights": "19.86 GiB", "activation": "36.63 GiB", "gpu_blocks": "6001 blocks"},
    ),
    "vllm__meta-llama-3-8b__1": (
        "vllm",
        None,
        {
            "total_gpu_memory": "79.22 GiB",
            "gpu_memory_utilization": "0.90",
            "weights": "14.96 GiB",
            "available_kv": "53.29 GiB",
        },
    ),
    "vllm__meta-llama-3-8b__2": (
        "vllm",
        None,
        {"weights": "7.48 GiB", "non_torch": "3.58 GiB", "activation": "1.26 GiB"},
    ),
    "vllm__moe-wna16-4gpu__1": (
        "vllm",
        None,
        {"weights": "21.21 GiB", "non_torch": "0.20 GiB", "activation": "0.37 GiB", "available_kv": "1.57 GiB"},
    ),
    "vllm__pp-worker__1": ("vllm", None, {"available_kv": "9.05 GiB"}),
    "vllm__qwen2.5-0.5b__1": (
        "vllm",
        None,
        {
            "weights": "0.9277 GB",
            "total_gpu_memory": "23.65 GiB",
            "gpu_memory_utilization": "0.50",
            "requested": "11.82 GiB",
        },
    ),
    "vllm__qwen2.5-32b-instruct__1": (
        "vllm",
        None,
        {"max_model_len": "32768 tokens", "max_concurrency": "10.64 x"},
    ),
    "vllm__qwen3-14b__1": (
        "vllm",
        None,
        {
            "available_kv": "6.51 GiB",
            "kv_tokens": "42,656 tokens",
            "max_model_len": "32,768 tokens",
            "max_concurrency": "1.30 x",
        },
    ),
    "vllm__qwen3-235b-a22b-fp8__1": ("vllm", None, {"available_kv": "8.11 GiB", "kv_tokens": "178,880 tokens"}),
    "vllm__qwen3-30b-a3b__1": (
        "vllm",
        None,
        {"kv_tokens": "198,784 tokens", "max_model_len": "8,192 tokens", "max_concurrency": "24.27 x"},
    ),
    "vllm__qwen3-30b-a3b__2": ("vllm", None, {"weights": "14.2474 GiB", "load_s": "558.868858 s"}),
    "vllm__qwen3-8b-gguf__1": (
        "vllm",
        "0.18.0",
        {
            "max_model_len": "16384 tokens",
            "gpu_memory_utilization": "0.79",
            "kv_cache_dtype": "fp8 text",
            "max_num_seqs": "16",
        },
    ),
    "vllm__qwen3-xpu-kv-bytes__1": ("vllm", None, {"free_memory": "31.16 GiB", "reserved_kv": "4.25 GiB"}),
    "vllm__qwen3.6-27b-fp8-tp2__1": (
        "vllm",
        None,
        {
            "available_kv": "5.33 GiB",
            "kv_tokens": "300,220 tokens",
            "max_model_len": "262,144 tokens",
            "max_concurrency": "1.15 x",
        },
    ),
    "vllm__qwen3.6-27b-int4-tp2__1": (
        "vllm",
        None,
        {
            "kv_tokens": "620,944 tokens",
            "max_concurrency": "2.37 x",
            "tensor_parallel_size": "2",
            "kv_cache_dtype": "fp8_e5m2 text",
        },
    ),
    "vllm__qwen3.6-27b-int4-tp2__2": (
        "vllm",
        None,
        {
            "available_kv": "9.84 GiB",
            "gpu_memory_utilization": "0.8800",
            "utilization_without_graphs": "0.8592",
            "kv_tokens": "619,202 tokens",
        },
    ),
    "vllm__qwen3.6-35b-a3b-nvfp4__1": (
        "vllm",
        "0.24.0",
        {
            "available_kv": "5.98 GiB",
            "kv_tokens": "567,978 tokens",
            "max_concurrency": "4.33 x",
            "max_num_batched_tokens": "8192 tokens",
        },
    ),
    "vllm__qwen3.6-35b-a3b-nvfp4__2": (
        "vllm",
        None,
        {
            "available_kv": "6.01 GiB",
            "kv_tokens": "569,878 tokens",
            "max_model_len": "131,072 tokens",
            "max_concurrency": "4.35 x",
        },
    ),
    "vllm__qwen3.6-xpu-tp2__1": (
        "vllm",
        None,
        {
            "available_kv": "10.68 GiB",
            "kv_tokens": "218,154 tokens",
            "max_model_len": "200,000 tokens",
            "max_concurrency": "1.09 x",
        },
    ),
    "vllm__qwen3.8-27b-fp8-tp2__1": ("vllm", None, {"kv_tokens": "302,921 tokens", "max_concurrency": "2.31 x"}),
    "vllm__unknown-fp8-kv__1": (
        "vllm",
        None,
        {
            "available_kv": "10.55 GiB",
            "kv_tokens": "230,528 tokens",
            "max_model_len": "100,000 tokens",
            "max_concurrency": "2.31 x",
        },
    ),
    "vllm__unknown__1": (
        "vllm",
        None,
        {"gpu_blocks": "127626 blocks", "max_model_len": "2048 tokens", "max_concurrency": "997.08 x"},
    ),
    "vllm__unknown__2": (
        "vllm",
        None,
        {"kv_tokens": "2,042,016 tokens", "max_model_len": "2,048 tokens", "max_concurrency": "997.08 x"},
    ),
    "vllm__unknown__3": (
        "vllm",
        None,
        {"weights": "7.9692 GB", "total_gpu_memory": "23.55 GiB", "requested": "21.19 GiB"},
    ),
    "vllm__qwen2.5-7b-rtx4060__1": (
        "vllm",
        None,
        {"weights": "5.2032 GB", "available_kv": "-1.05 GiB", "gpu_blocks": "0 blocks", "max_concurrency": "0.00 x"},
    ),
    "llama_cpp__qwen2-32b-ollama__1": (
        "llama_cpp",
        None,
        {
            "cells": "8192 tokens",
            "n_layer": "64",
            "kv_total": "2048.00 MiB",
            "k_size": "1024.00 MiB",
        },
    ),
    "llama_cpp__qwen3-30b-a3b-ik__1": (
        "llama_cpp",
        "3673 (4084ca73)",
        {
            "n_ctx": "32768 tokens",
            "n_layer": "48",
            "kv_total": "3072.00 MiB",
            "k_size": "1536.00 MiB",
        },
    ),
    "llama_cpp__qwen3-32b-ik__1": (
        "llama_cpp",
        "3732 (9e567e38)",
        {
            "n_ctx": "16896 tokens",
            "n_layer": "64",
            "kv_total": "2244.00 MiB",
            "k_size": "1122.00 MiB",
        },
    ),
    "llama_cpp__qwen3-32b-ik__2": (
        "llama_cpp",
        None,
        {
            "n_ctx": "8192 tokens",
            "n_layer": "64",
            "kv_total": "2048.00 MiB",
            "k_size": "1024.00 MiB",
        },
    ),
    "llama_cpp__llama-3.1-8b-ik__1": (
        "llama_cpp",
        None,
        {
            "n_ctx": "1024 tokens",
            "n_layer": "32",
            "kv_total": "82.00 MiB",
            "k_size": "18.00 MiB",
        },
    ),
    "llama_cpp__llama-2-13b-ik__1": (
        "llama_cpp",
        "3638 (8bff04c9)",
        {
            "n_ctx": "512 tokens",
            "n_layer": "40",
            "kv_total": "400.00 MiB",
            "k_size": "200.00 MiB",
        },
    ),
    "llama_cpp__qwen3-30b-a3b-ik__2": (
        "llama_cpp",
        None,
        {
            "n_ctx": "4096 tokens",
            "n_layer": "48",
            "kv_total": "384.00 MiB",
            "k_size": "192.00 MiB",
        },
    ),
    "llama_cpp__qwen3-30b-a3b__1": (
        "llama_cpp",
        "5622 (97340b4c)",
        {
            "n_ctx": "16384 tokens",
            "cells": "16384 tokens",
            "n_layer": "48",
            "kv_total": "1536.00 MiB",
            "k_size": "768.00 MiB",
        },
    ),
    "llama_cpp__llama-3.1-8b__1": (
        "llama_cpp",
        "5781 (ba3ef86c5)",
        {
            "n_ctx": "16384 tokens",
            "cells": "16384 tokens",
            "n_layer": "32",
            "kv_total": "2048.00 MiB",
            "k_size": "1024.00 MiB",
        },
    ),
    "llama_cpp__qwen3-235b-a22b-ik__1": (
        "llama_cpp",
        "3772 (5236c98b)",
        {
            "n_ctx": "32768 tokens",
            "n_layer": "94",
            "kv_total": "6016.00 MiB",
            "k_size": "3008.00 MiB",
        },
    ),
    "llama_cpp__qwen3-235b-a22b-ik__2": (
        "llama_cpp",
        "3728 (8ffad187)",
        {
            "n_ctx": "32768 tokens",
            "n_layer": "94",
            "kv_total": "3196.00 MiB",
            "k_size": "1598.00 MiB",
        },
    ),
    "sglang__deepseek-r1-distill-qwen-7b__1": (
        "sglang",
        None,
        {
            "max_total_num_tokens": "105531 tokens",
            "k_size": "2.82 GB",
            "free_after_load": "8.37 GB",
        },
    ),
    "sglang__kimi-k2.5-mi355x__1": (
        "sglang",
        None,
        {
            "kv_tokens": "2454421 tokens",
            "kv_size": "160.63 GB",
            "weights": "73.58 GB",
            "free_after_load": "209.98 GB",
        },
    ),
    "sglang__llama-3.1-8b-instruct__3": (
        "sglang",
        None,
        {
            "kv_tokens": "38141 tokens",
            "max_total_num_tokens": "38141 tokens",
            "k_size": "2.33 GB",
            "weights": "15.02 GB",
            "free_after_load": "7.37 GB",
        },
    ),
    "sglang__meta-llama-3.1-8b-instruct__1": (
        "sglang",
        None,
        {
            "max_total_num_tokens": "444500 tokens",
            "k_size": "27.13 GB",
            "free_after_load": "63.72 GB",
        },
    ),
    "vllm__mistral-7b-instruct-v0.2-gptq__1": (
        "vllm",
        "0.11.0+582e4e37.nv25.11",
        {
            "weights": "3.8844 GiB",
            "available_kv": "102.56 GiB",
            "kv_tokens": "840,160 tokens",
            "max_concurrency": "25.64 x",
            "max_model_len": "32768 tokens",
        },
    ),
    "llama_cpp__llama-3.3-70b-q3_k_m__1": (
        "llama_cpp",
        None,
        {"cells": "4096 tokens", "n_layer": "80", "kv_buffer": "784.00 MiB", "kv_total": "1280.00 MiB"},
    ),
    "sglang__qwen3-30b-a3b__1": (
        "sglang",
        None,
        {"kv_tokens": "122420 tokens", "k_size": "5.60 GB", "free_after_pool": "5.97 GB", "weights": "2.91 GB"},
    ),
    "tensorrt_llm__llama-3.1-8b-fp8__1": (
        "tensorrt_llm",
        None,
        {"kv_allocated": "52.51 GiB", "kv_tokens": "860320 tokens", "tokens_per_block": "32 tokens"},
    ),
    "tensorrt_llm__gpt-oss-120b-dgx-spark__1": (
        "tensorrt_llm",
        "1.1.0rc3",
        {"kv_allocated": "0.56 GiB", "kv_tokens": "8224 tokens", "max_batch_size": "64"},
    ),
    "tensorrt_llm__gpt-oss-20b__1": (
        "tensorrt_llm",
        None,
        {"kv_allocated": "0.19 GiB", "kv_tokens": "4128 tokens"},
    ),
    "tensorrt_llm__mistral-7b-cortex__1": (
        "tensorrt_llm",
        None,
        {"kv_allocated": "16777216 bytes", "kv_tokens": "128 tokens", "pages_per_seq": "16 blocks"},
    ),
    "tensorrt_llm__qwen3-8b-fp8__1": (
        "tensorrt_llm",
        "1.2.0rc2",
        {"blocks": "257 blocks", "kv_allocated": "0.56 GiB", "kv_tokens": "8224 tokens",
         "tokens_per_block": "32 tokens"},
    ),
}


def _read(name: str):
    return parse_startup_log((LOGS / name).read_text(encoding="utf-8"))


def test_startup_log_fixtures_are_many_sourced_and_listed() -> None:
    """At least 20 public logs (aim 30), several per engine, each with its row in SOURCES.csv."""
    assert len(FILES) >= 30 and set(FILES) == set(SOURCES)
    per_engine = {
        e: sum(f.startswith(e + "__") for f in FILES) for e in ("vllm", "sglang", "llama_cpp", "tensorrt_llm")
    }
    assert min(per_engine.values()) >= 5, per_engine
    for row in SOURCES.values():
        assert row["source"] and row["engine"] == row["file"].split("__")[0] and row["lines"]


@pytest.mark.parametrize("name", FILES)
def test_startup_log_engine_version_and_values_as_printed(name: str) -> None:
    """Engine from the file's own lines, the version where the log states it, each value with its unit."""
    engine, version, values = EXPECT[name[:-4]]
    log = _read(name)
    assert (log.engine, log.version) == (engine, version)
    assert log.other_engines == ()
    for key, printed in values.items():
        number, _, unit = printed.partition(" ")
        q = log.value(key)
        assert q is not None, key
        assert (q.text, q.unit) == (number, unit)
        line = next(x for x in log.lines if q in x.values)
        assert number in line.raw
        if unit in SCALE:
            assert q.amount == round(float(number.replace(",", "")) * SCALE[unit])
        elif unit in ("tokens", "blocks", ""):
            assert q.amount == float(number.replace(",", ""))


def test_startup_log_version_lines_are_kept() -> None:
    assert "Initializing a V1 LLM engine (v0.24.0)" in (
        _read("vllm__qwen3.6-35b-a3b-nvfp4__1.log").version_line or ""
    )
    assert "Engine version 0.21.0rc0" in (_read("tensorrt_llm__unit-test-gpt__1.log").version_line or "")


def test_startup_log_truncated_logs_name_what_is_missing() -> None:
    """A log cut after 'Available KV cache memory' says which expected lines never came."""
    log = _read("vllm__gpt-oss-120b__1.log")
    assert [m.split(":")[0] for m in log.missing] == ["weights", "KV size", "concurrency"]
    assert "GPU KV cache size: N tokens" in log.missing[1]
    assert log.unknown_count == 2 and "EngineCore failed to start." in log.unknown[0]
    assert _read("sglang__qwq-32b__1.log").missing == ()
    assert [m.split(":")[0] for m in _read("tensorrt_llm__llama-2-7b__1.log").missing] == [
        "free memory",
        "blocks",
        "block size",
    ]


def test_startup_log_interleaved_ranks_keep_each_rank_and_rank_zero_speaks() -> None:
    """SGLang TP0..TP7 printed out of order: every rank kept, the head value is TP0's (137.34 GB)."""
    log = _read("sglang__tp8-moe__1.log")
    assert sorted(log.ranks()) == [f"TP{i}" for i in range(8)]
    assert log.value("free_before_load").text == "137.34"
    assert log.value("free_before_load", rank="TP7").text == "137.52"
    assert len(log.values("free_before_load")) == 8
    vllm = _read("vllm__qwen3-30b-a3b__2.log")  # VllmWorker rank=0..3, rank 0 first of four
    assert [r for r, _q in vllm.values("weights")] == ["rank0", "rank2", "rank1", "rank3"]
    llama = _read("llama_cpp__deepseek-r1-ik__1.log")  # per-device compute buffers
    assert [r for r, _q in llama.values("compute_buffer")][:2] == ["CUDA1", "CUDA2"]
    assert llama.value("compute_buffer", rank="CUDA_Host").text == "174.02"


def test_startup_log_colours_prefixes_and_crlf_do_not_change_values() -> None:
    plain = (LOGS / "vllm__qwen3-14b__1.log").read_text(encoding="utf-8")
    coloured = "\r\n".join(f"\x1b[32mINFO\x1b[0m \x1b[1m{line}\x1b[0m" for line in plain.splitlines())
    a, b = parse_startup_log(plain), parse_startup_log(coloured.encode())
    assert [(q.name, q.text) for x in a.lines for q in x.values] == [
        (q.name, q.text) for x in b.lines for q in x.values
    ]
    lost_esc = _read("llama_cpp__deepseek-v4-flash__1.log")  # "[34m1.14.610.021[0m [32mI [0m" prefixes
    assert lost_esc.value("kv_buffer", rank="CUDA0").text == "182.75"


def test_startup_log_wrapped_line_is_joined() -> None:
    log = parse_startup_log(
        "INFO [kv_cache_utils.py:864] GPU KV cache size: 42,656\n tokens\n"
        "Maximum concurrency for 32,768 tokens\nper request: 1.30x"
    )
    assert log.value("kv_tokens").amount == 42656 and log.value("max_concurrency").text == "1.30"


def test_startup_log_unknown_text_is_kept_as_text_only() -> None:
    hostile = "<script>alert(1)</script>\n'; DROP TABLE logs; --\n{{7*7}} ${jndi:ldap://x}\n"
    log = parse_startup_log(hostile + "GPU KV cache size: 16 tokens\n")
    assert log.engine == "vllm" and log.unknown[0] == "<script>alert(1)</script>" and log.unknown_count == 3
    nothing = parse_startup_log(hostile)
    assert nothing.engine == "unknown" and nothing.lines == () and "no line of a known engine" in nothing.missing[0]


def test_startup_log_refuses_over_4_mib_with_a_typed_error() -> None:
    with pytest.raises(StartupLogError) as err:
        parse_startup_log(b"x" * (MAX_LOG_BYTES + 1))
    assert isinstance(err.value, KVCalcError) and "4 MiB" in str(err.value)
    with pytest.raises(StartupLogError):
        parse_startup_log("é" * (MAX_LOG_BYTES // 2 + 1))  # 2 bytes each in UTF-8
    with pytest.raises(StartupLogError):
        parse_startup_log(12345)  # type: ignore[arg-type]


def test_startup_log_reads_at_most_max_lines() -> None:
    log = parse_startup_log("\n" * (MAX_LINES + 10) + "GPU KV cache size: 16 tokens\n")
    assert log.truncated and log.line_count == MAX_LINES and log.engine == "unknown"


@pytest.mark.parametrize(
    "line",
    [
        "GPU KV cache size: " + "9," * 500_000 + " tokens",
        "Maximum concurrency for " + "1" * 1_000_000,
        "(" * 1_000_000 + "Load weight end. type=" + "A" * 100_000,
        "llama_kv_cache: size = " + " " * 1_000_000 + "1 MiB (",
        "KV Cache is allocated. #tokens: " + "1" * 1_048_576,
    ],
)
def test_startup_log_hostile_megabyte_line_finishes_and_is_not_misread(line: str) -> None:
    """A 1 MiB line built to make a naive regex backtrack: read (bounded patterns), nothing invented."""
    log = parse_startup_log(line + "\nAvailable KV cache memory: 1.00 GiB\n")
    assert log.value("available_kv").amount == 2**30
    assert all(len(x) <= MAX_RAW_CHARS for x in log.unknown)
    assert log.value("kv_tokens") is None and log.value("weights") is None


def test_startup_log_read_from_file_and_stdin_bounded(tmp_path: Path) -> None:
    import io

    from kvcalc.startup_log import read_startup_log

    path = tmp_path / "serve.log"
    path.write_bytes((LOGS / "vllm__qwen3-14b__1.log").read_bytes())
    assert read_startup_log(str(path)).value("kv_tokens").amount == 42656
    stdin = io.BytesIO(b"KV Cache is allocated. #tokens: 15387, K size: 0.82 GB, V size: 0.82 GB\n")
    assert read_startup_log("-", stdin=stdin).engine == "sglang"
    big = tmp_path / "big.log"
    big.write_bytes(b"x" * (MAX_LOG_BYTES + 10))
    with pytest.raises(StartupLogError):
        read_startup_log(str(big))
    with pytest.raises(StartupLogError, match="cannot read"):
        read_startup_log(str(tmp_path / "missing.log"))
