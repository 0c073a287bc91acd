"""Prefix sharing per engine (kvcalc.workload.prefix), against hand arithmetic from the engines' rules.

vLLM 0.33.0: v1/core/block_pool.py (one block per hash, the null block), kv_cache_manager.py
get_computed_blocks (hit <= num_tokens - 1), single_type_kv_cache_manager.py (SlidingWindowManager,
MambaManager). SGLang 0.5.23: srt/mem_cache/radix_cache.py RadixKey.page_aligned. llama.cpp server: per slot.
"""
import pytest

from kvcalc import deploy
from kvcalc.catalog import bundled_config
from kvcalc.errors import InputError, UnsupportedError
from kvcalc.workload import prefix_sharing

MiB = 2**20


def llama8b(**kw):
    return deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, **kw)


def test_issue_hand_check_llama_8b_10240_blocks_4096_prefix():
    # 10,240 blocks x 2 MiB (32 layers x 16 tokens x 8 heads x 256 x 2 B); 8,192 / 16 = 512 blocks a request
    s = prefix_sharing(llama8b(kv_cache_memory=10240 * 2 * MiB), 4096)
    assert s.pool_blocks == 10240 and s.blocks_per_request == 512
    assert s.plain_concurrency == 20.0                       # vLLM's "Maximum concurrency ... 20.00x"
    assert s.shared_blocks == 4096 // 16 == 256
    assert s.effective_concurrency == (10240 - 256) / (512 - 256) == 39.0
    # the null block (BlockPool.__init__) leaves 10,239: 38 x 256 + 256 = 9,984 blocks; 39 would need 10,240
    assert s.requests_at_once == 38 and s.blocks_resident == 9984
    assert s.quality == "exact"


def test_nothing_shared_equals_plain_concurrency():
    s = prefix_sharing(llama8b(kv_cache_memory=10240 * 2 * MiB), 0)
    assert s.effective_concurrency == s.plain_concurrency == 20.0 and s.shared_blocks == 0


def test_partial_block_of_the_prefix_is_not_shared():
    # 4,100 tokens: floor(4,100 / 16) = 256 full blocks; the 4 tokens left sit in each request's own block
    s = prefix_sharing(llama8b(kv_cache_memory=10240 * 2 * MiB), 4100)
    assert s.shared_blocks == 256


def test_hit_is_capped_one_token_short_of_the_request():
    # request of 4,097 tokens, prefix 4,096: hit <= 4,096 tokens -> 256 blocks; request of 4,096: hit 4,095 -> 255
    d = llama8b(kv_cache_memory=10240 * 2 * MiB)
    assert prefix_sharing(d, 4096, 4097).shared_blocks == 256
    assert prefix_sharing(d, 4095, 4096).shared_blocks == 4095 // 16 == 255


def test_sliding_window_group_shares_nothing_once_the_prefix_left_the_window():
    # Gemma 2 9B: 21 sliding (4,096 window) + 21 full layers, one group each, 16-token blocks.
    d = deploy(bundled_config("google/gemma-2-9b-it"), max_model_len=8192, max_num_batched_tokens=8192)
    s = prefix_sharing(d, 2048, 8192)
    full = next(g for g in s.groups if g.kind == "full")
    sliding = next(g for g in s.groups if g.kind == "sliding")
    assert full.shared_blocks == 2048 // 16 == 128 and sliding.shared_blocks == 0
    assert s.quality == "exact"                      # 8,192 - 2,048 >= 4,096 + 16
    near = prefix_sharing(d, 6144, 8192)             # 2,048 tokens after the prefix: still inside the window
    assert near.quality == "estimated" and any("window" in n for n in near.notes)


def test_hybrid_mamba_groups_keep_their_own_pages_and_hits_align_to_the_block():
    d = deploy(bundled_config("Qwen/Qwen3.5-27B"), max_model_len=8192)
    s = prefix_sharing(d, 2048, 8192)
    bs = s.groups[0].block_size
    assert all(g.shared_blocks == 0 for g in s.groups if g.kind == "mamba")
    assert sum(g.shared_blocks for g in s.groups if g.kind == "full") == 2048 // bs


def test_sglang_radix_cache_shares_whole_pages():
    d = deploy(bundled_config("Qwen/Qwen3-8B"), runtime="sglang", page_size=64)
    ep = d.engine_plan()
    s = prefix_sharing(d, 2000, 8192)
    assert s.shared_blocks == 2000 // 64 == 31 and s.blocks_per_request == 8192 // 64
    assert s.effective_concurrency == (ep.pool_pages - 31) / (128 - 31)
    assert s.requests_at_once == min((ep.pool_pages - 31) // 97, ep.max_running)


def test_llama_cpp_slots_do_not_share():
    d = deploy(bundled_config("Qwen/Qwen3-8B"), runtime="llama_cpp", gguf="Q4_K_M")
    s = prefix_sharing(d, 1024)
    assert s.shared_blocks == 0 and s.effective_concurrency == s.plain_concurrency


def test_unmodelled_runtime_and_bad_lengths_are_refused():
    with pytest.raises(UnsupportedError):
        prefix_sharing(deploy(bundled_config("Qwen/Qwen3-8B"), runtime="ideal"), 100)
    with pytest.raises(InputError):
        prefix_sharing(llama8b(), 8192)
    with pytest.raises(InputError):
        prefix_sharing(llama8b(), 100, 9000)


def test_hit_rate_gives_expected_values():
    from kvcalc.workload import with_hit_rate

    s = prefix_sharing(llama8b(kv_cache_memory=10240 * 2 * MiB), 4096)
    half = with_hit_rate(s, 0.5)
    assert half.effective_concurrency == (10240 - 256) / (512 - 0.5 * 256) == 26.0
    assert half.requests_at_once == (10240 - 1 - 256) // 384 == 25
    assert with_hit_rate(s, 0).effective_concurrency == (10240 - 256) / 512      # the prefix stored, never hit
    assert with_hit_rate(s, 1) == s
    with pytest.raises(InputError):
        with_hit_rate(s, 1.5)


def test_cross_attention_model_shares_nothing_under_vllm():
    # vLLM 0.33 config/model.py ModelConfig.is_prefix_caching_supported: encoder_decoder -> no prefix caching
    d = deploy(bundled_config("meta-llama/Llama-3.2-90B-Vision-Instruct"), max_model_len=4096)
    s = prefix_sharing(d, 2048)
    assert s.shared_blocks == 0 and s.effective_concurrency == s.plain_concurrency
    assert s.quality == "estimated"
