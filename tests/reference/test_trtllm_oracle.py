"""kvcalc's TensorRT-LLM engine against TensorRT-LLM's PyTorch-backend sizing (tests/fixtures/trtllm_oracle.json).

The fixture is written by tests/oracles/trtllm_oracle.py, a transcription of ``KvCacheCreator`` and
``KVCacheManager`` (NVIDIA/TensorRT-LLM, the commit it names), fed what TensorRT-LLM profiles (the peak
memory outside the KV cache); kvcalc is given the same figure as measured weights and must agree exactly on
the bytes per token, the blocks, the pool and the reduced maximum sequence length.
"""
from __future__ import annotations

from typing import Any

import pytest
from paths import load_config, load_fixture

import kvcalc
from kvcalc.deployment import MeasuredOverrides

FIXTURE = load_fixture("trtllm_oracle.json")
CASES = FIXTURE["cases"]
ASIDE = FIXTURE["aside"]
FLAGS = {"tokens_per_block": "tokens_per_block", "free_gpu_memory_fraction": "free_gpu_memory_fraction",
         "max_tokens": "max_tokens_in_paged_kv_cache", "max_seq_len": "max_seq_len"}


def _check(entry: dict[str, Any]) -> None:
    case, want = entry["input"], entry["expect"]
    tp, pp = case.get("tp", 1), case.get("pp", 1)
    flags = {ours: case[theirs] for theirs, ours in FLAGS.items() if case.get(theirs) is not None}
    d = kvcalc.deploy(load_config(case["config"]), runtime="tensorrt_llm", gpus=tp * pp, tensor_parallel_size=tp,
                      pipeline_parallel_size=pp, gpu_mem_gib=case["gpu_mib"] / 1024,
                      kv_dtype="fp8_e4m3" if case.get("fp8_kv") else None,
                      measured=MeasuredOverrides(weights_bytes=case["peak_without_kv_bytes"], activation_bytes=0,
                                                 non_torch_bytes=0), **flags)
    ep = d.engine_plan()
    assert ep.cell_bytes == want["bytes_per_token"]
    if "refused" in want:
        assert ep.refusal is not None and ep.pool_tokens == 0
        return
    assert ep.refusal is None
    assert (ep.pool_pages, ep.pool_tokens) == (want["blocks"], want["tokens"])
    assert ep.max_context == want["max_seq_len"]


def test_fixture_names_the_source_and_counts() -> None:
    assert FIXTURE["backend"] == "pytorch" and len(FIXTURE["commit"]) == 40
    assert len(CASES) >= 30 and len(ASIDE) >= 10


@pytest.mark.parametrize("entry", CASES, ids=[c["input"]["name"] for c in CASES])
def test_trtllm_matches_its_own_arithmetic(entry: dict[str, Any]) -> None:
    _check(entry)


@pytest.mark.parametrize("entry", ASIDE, ids=[c["input"]["name"] for c in ASIDE])
def test_trtllm_cases_kept_aside(entry: dict[str, Any]) -> None:
    _check(entry)


def test_per_layer_head_dims_are_refused_naming_the_manager() -> None:
    # Gemma 4's full-attention layers: global_head_dim 512, num_global_key_value_heads 2 vs 256 / 8 on the
    # sliding layers; TensorRT-LLM's _util.py _non_hybrid_kv_cache_manager_cls sends them to KVCacheManagerV2
    with pytest.raises(kvcalc.UnsupportedError, match="KVCacheManagerV2"):
        kvcalc.deploy(load_config("google/gemma-4-26B-A4B"), runtime="tensorrt_llm", gpu_mem_gib=80)


def test_sliding_window_plan_says_its_pool_is_full_length() -> None:
    # resource_manager.py KVCacheManager.__init__: max_attention_window unset -> [max_seq_len] for every layer
    ep = kvcalc.deploy(load_config("openai/gpt-oss-20b"), runtime="tensorrt_llm", gpu_mem_gib=80).engine_plan()
    assert any("window 128" in n and "full length" in n for n in ep.notes)
    assert ep.swa_cell_bytes == 0 and ep.cell_bytes == 24 * 2 * 8 * 64 * 2    # layers x K,V x heads x dim x bf16
