"""Gemma 4 under TensorRT-LLM: refused, and the refusal says why (kvcalc.trtllm.windows).

Source: NVIDIA/TensorRT-LLM at commit 0004396720054fd8e205cbf616f21f0b57c6b412,
``tensorrt_llm/_torch/pyexecutor/_util.py`` ``_non_hybrid_kv_cache_manager_cls`` ("Models with per-layer
head_dim (e.g., Gemma4 hybrid attention) require KVCacheManagerV2") and
``kv_cache/kv_cache_manager_v2.py`` ``KVCacheManagerV2._build_base_config``, which hands the split of its one
GPU quota over pool groups to ``tensorrt_llm/runtime/kv_cache_manager_v2`` (``typical_step`` and
``initial_pool_ratio`` unset by default); ``enable_kv_pool_rebalance`` re-splits it at run time.
"""
from __future__ import annotations

import pytest
from paths import load_config

import kvcalc

GEMMA_4 = load_config("google/gemma-4-26B-A4B")


def test_gemma_4_config_has_two_kv_shapes() -> None:
    # the bundled config (data/configs/google__gemma-4-26B-A4B.json): full layers 512-wide, 2 KV heads;
    # sliding layers 256-wide, 8 KV heads, window 1024
    text = GEMMA_4.get("text_config", GEMMA_4)
    assert (text["global_head_dim"], text["num_global_key_value_heads"]) == (512, 2)
    assert (text["head_dim"], text["num_key_value_heads"], text["sliding_window"]) == (256, 8, 1024)


def test_refusal_names_the_manager_its_router_and_what_is_not_pinned() -> None:
    with pytest.raises(kvcalc.UnsupportedError) as err:
        kvcalc.deploy(GEMMA_4, runtime="tensorrt_llm", gpu_mem_gib=80)
    msg = str(err.value)
    for words in ("KVCacheManagerV2", "_non_hybrid_kv_cache_manager_cls", "global_head_dim",
                  "tensorrt_llm/runtime/kv_cache_manager_v2", "rebalanced at run time", "'vllm' or 'sglang'"):
        assert words in msg, words


def test_other_runtimes_still_plan_gemma_4() -> None:
    # the refusal is TensorRT-LLM's alone: vLLM and SGLang size per-layer shapes
    kvcalc.deploy(GEMMA_4, runtime="vllm", gpu_mem_gib=80)
    assert kvcalc.deploy(GEMMA_4, runtime="sglang", gpu_mem_gib=80).engine_plan().pool_tokens > 0
