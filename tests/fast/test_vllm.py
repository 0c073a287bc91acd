"""kvcalc.vllm against real vLLM startup logs, and vLLM's per-layer paging rules.

vLLM prints GiB as ``%.2f`` of ``bytes / 2**30``, so a printed ``x`` stands for any byte count in
``[x - 0.005, x + 0.005) * 2**30``. The tests build inputs as ``round(x * 2**30)`` and accept outputs
within the rounding of the inputs; block counts, token counts and the concurrency string must match
the log exactly when the exact KV budget is known (pinned by the logged block count itself).

Logs (public GitHub material, quoted figures only):

* Mistral-7B-based (llava-hf/llava-v1.6-mistral-7b-hf, vLLM v0.10.2, offline ``LLM`` class), H100 80GB:
  ``Model loading took 14.0786 GiB`` ... ``Available KV cache memory: 55.15 GiB`` /
  ``GPU KV cache size: 451,744 tokens`` / ``Maximum concurrency for 4,096 tokens per request: 110.29x`` /
  ``Free memory on device (78.66/79.19 GiB) on startup. Desired GPU memory utilization is (0.9, 71.27
  GiB). Actual usage is 14.08 GiB for weight, 1.97 GiB for peak activation, 0.07 GiB for non-torch
  memory, and 0.67 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with
  `--kv-cache-memory=58333988249` ... Current kv cache memory in use is 59212694937 bytes.``
* Llama-3.1-8B-Instruct on an RTX 3090 (vllm-project/vllm issue #10517, V0 engine):
  ``Loading model weights took 14.9888 GB`` / ``total_gpu_memory=23.58GiB ... peak_torch_memory=17.06GiB
  ... non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90`` /
  ``GPU blocks: 1952`` / ``Maximum concurrency for 20000 tokens per request: 1.56x``; the same thread's
  29k run: ``peak_torch_memory=17.98GiB``.
* Qwen2.5-7B-Instruct-AWQ on a 16 GB card (``vllm serve --max-model-len 32768
  --gpu-memory-utilization 0.90``): ``Available KV cache memory: 8.0 GiB`` / ``GPU KV cache size:
  149,712 tokens`` / ``Maximum concurrency for 32,768 tokens per request: 4.57x``; total 15.99 GiB,
  weights 5.29, peak activation 1.04, CUDA graph 0.48, non-torch 0.06 GiB; suggested
  ``--kv-cache-memory=7911991092`` to fit into requested memory.
"""
from __future__ import annotations

import re
from dataclasses import replace
from math import ceil

import pytest
from paths import load_config
from tiny_models import TINY

import kvcalc
from kvcalc import read_spec
from kvcalc.errors import InputError, UnsupportedError
from kvcalc.vllm import (
    CUDA_GRAPH_SAFETY_BYTES,
    DEFAULT_NON_TORCH_BYTES,
    ChunkedLocalAttentionSpec,
    CrossAttentionSpec,
    FullAttentionSpec,
    MambaSpec,
    MLAAttentionSpec,
    SlidingWindowSpec,
    attention_page_bytes,
    default_max_num_batched_tokens,
    default_max_num_seqs,
    estimate_activation_bytes,
    layer_caches,
    pp_layer_partition,
    sliding_window_blocks,
    vllm_dtypes,
    vllm_kv_cache,
    vllm_memory_plan,
)
from kvcalc.vllm.grouping import group_caches, is_uniform_type

GiB = 1 << 30
HALF_CENT = 0.005 * GiB   # half the last printed digit of a "%.2f GiB" figure


def gib(x: float) -> int:
    """Bytes for a printed GiB figure."""
    return round(x * GiB)


def printed(nbytes: float) -> str:
    """How vLLM prints a byte count in GiB."""
    return f"{nbytes / GiB:.2f}"


def spec(name: str) -> kvcalc.ModelSpec:
    return read_spec(load_config(name))


MISTRAL = "mistralai__Mistral-7B-Instruct-v0.3.json"
LLAMA8 = "meta-llama__Llama-3.1-8B.json"
QWEN7 = "Qwen__Qwen2.5-7B-Instruct.json"
LLAMA70 = "meta-llama__Llama-3.1-70B.json"
DEEPSEEK_V3 = "deepseek-ai__DeepSeek-V3.json"
GEMMA2 = "google__gemma-2-9b-it.json"


LOG_RELEASE = "0.10"
"""The release line of the three public logs (v0.6.4 V0 engine, v0.10.2 v1 engine): kvcalc's "0.10" rules."""


def log_plan(s: kvcalc.ModelSpec, **kw) -> kvcalc.vllm.VllmMemoryPlan:
    """``vllm_memory_plan`` under the logs' release."""
    return vllm_memory_plan(s, vllm_version=LOG_RELEASE, **kw)


# ----------------------------------------------------------------------------- log 1: Mistral on H100
def test_mistral_h100_budget_from_logged_figures():
    s = spec(MISTRAL)
    assert s.kinds() == {"full": 32}                       # sliding_window null: full attention
    plan = log_plan(s, total_gpu_bytes=gib(79.19), weights_bytes=gib(14.08), gpu_memory_utilization=0.9,
                            activation_bytes=gib(1.97), non_torch_bytes=gib(0.07), max_model_len=4096)
    assert plan.page_bytes == 16 * 8 * 128 * 2 * 2 == 65536          # one layer, one block of 16 tokens
    assert plan.page_bytes * 32 // 16 == 128 * 1024                  # 128 KiB per token in bf16
    assert printed(plan.requested_bytes) == "71.27"                  # "Desired ... (0.9, 71.27 GiB)"
    assert printed(plan.available_kv_bytes) == "55.15"
    # four printed inputs, each exact to +-0.005 GiB: the budget is known to +-0.0195 GiB = +-10 blocks of 2 MiB
    assert abs(plan.num_gpu_blocks - 28234) <= 10
    assert plan.max_num_batched_tokens == 8192 and plan.max_num_seqs == 1024   # vllm serve defaults on an H100
    assert plan.fits and plan.blocks_per_request == 256


def test_mistral_h100_blocks_pinned_by_the_log():
    block_bytes = 32 * 65536                                         # 2 MiB: one block id over 32 layers
    # The logged block count pins the budget to [28234, 28235) blocks; the printed 55.15 to [55.145, 55.155) GiB.
    low, high = max(28234 * block_bytes, 55.145 * GiB), min(28235 * block_bytes, 55.155 * GiB)
    assert low < high                                                # consistent: 55.1450 .. 55.1465 GiB
    exact = 59212694937                                              # "Current kv cache memory in use is ... bytes"
    assert low <= exact < high
    # vLLM's suggestion = budget - CUDA graphs - 150 MiB safety: gives back the logged 0.67 GiB of graphs
    assert printed(exact - 58333988249 - CUDA_GRAPH_SAFETY_BYTES) == "0.67"
    plan = log_plan(spec(MISTRAL), total_gpu_bytes=gib(79.19), weights_bytes=gib(14.08),
                            max_model_len=4096, kv_cache_memory=exact)
    assert plan.kv_cache_memory_given and plan.available_kv_bytes == exact
    assert plan.num_gpu_blocks == 28234
    assert plan.kv_cache_tokens == 451_744
    assert plan.log_lines() == ("Available KV cache memory: 55.15 GiB",
                                "GPU KV cache size: 451,744 tokens",
                                "Maximum concurrency for 4,096 tokens per request: 110.29x")
    assert "kv_cache_memory" in plan.binding


# ----------------------------------------------------------------------------- log 2: Llama-3.1-8B on RTX 3090
def test_llama_3090_budget_from_logged_figures():
    weights = gib(14.9888)                      # "Loading model weights took 14.9888 GB" (GiB, 4 decimals)
    activation = gib(17.06) - weights           # V0 logs the torch peak including the weights
    plan = log_plan(spec(LLAMA8), total_gpu_bytes=gib(23.58), weights_bytes=weights,
                            activation_bytes=activation, non_torch_bytes=gib(0.35), max_model_len=20_000)
    assert printed(plan.available_kv_bytes) == "3.81"
    # 23.58 x 0.9, 17.06 and 0.35 are each exact to +-0.005 GiB: +-0.0145 GiB = +-8 blocks of 2 MiB
    assert abs(plan.num_gpu_blocks - 1952) <= 8


def test_llama_3090_blocks_pinned_by_the_log():
    block_bytes = 32 * 8 * 128 * 2 * 2 * 16
    low, high = max(1952 * block_bytes, 3.805 * GiB), min(1953 * block_bytes, 3.815 * GiB)
    assert low < high                                                # 3.8125 .. 3.8145 GiB
    plan = log_plan(spec(LLAMA8), total_gpu_bytes=gib(23.58), weights_bytes=gib(14.9888),
                            max_model_len=20_000, kv_cache_memory=int(low))
    assert plan.num_gpu_blocks == 1952
    assert plan.kv_cache_tokens == 31_232
    assert plan.blocks_per_request == 1250                           # ceil(20000 / 16)
    assert plan.max_concurrency_text == "1.56"                       # 1952 / 1250 = 1.5616
    assert printed(plan.available_kv_bytes) == "3.81"
    # the same log's 29k run: "maximum number of tokens that can be stored in KV cache (23648)" = 1478 blocks
    short = log_plan(spec(LLAMA8), total_gpu_bytes=gib(23.58), weights_bytes=gib(14.9888),
                             max_model_len=29_000, kv_cache_memory=1478 * block_bytes)
    assert not short.fits and short.estimated_max_model_len == 23_648
    assert short.max_concurrency_text == "0.82"                      # "Maximum concurrency for 29000 ...: 0.82x"
    assert "does not fit" in short.binding


# ----------------------------------------------------------------------------- log 3: Qwen2.5-7B-AWQ on 16 GB
def test_qwen_awq_budget_from_logged_figures():
    s = spec(QWEN7)                                                  # AWQ keeps the bf16 model's KV layout
    assert s.kinds() == {"full": 28}                                 # use_sliding_window false
    plan = log_plan(s, total_gpu_bytes=gib(15.99), weights_bytes=gib(5.29), activation_bytes=gib(1.04),
                            non_torch_bytes=gib(0.06), max_model_len=32_768)
    assert plan.page_bytes == 16 * 4 * 128 * 2 * 2
    assert round(plan.available_kv_bytes / GiB, 2) == 8.0            # printed "8.0 GiB" (round(x, 2))
    # 15.99 x 0.9, 5.29, 1.04, 0.06: +-0.0195 GiB = +-23 blocks of 896 KiB
    assert abs(plan.num_gpu_blocks - 9357) <= 23
    assert plan.max_num_batched_tokens == 2048 and plan.max_num_seqs == 256   # vllm serve defaults, < 70 GiB


def test_qwen_awq_blocks_pinned_by_the_log():
    block_bytes = 28 * 4 * 128 * 2 * 2 * 16                           # 917,504 B = 56 KiB x 16 tokens
    low, high = max(9357 * block_bytes, 7.995 * GiB), min(9358 * block_bytes, 8.005 * GiB)
    assert low < high                                                # 7.99536 .. 7.99622 GiB
    # vLLM's "--kv-cache-memory=7911991092" = budget - CUDA graphs (0.48 GiB printed) - 150 MiB: brackets it
    base = 7911991092 + CUDA_GRAPH_SAFETY_BYTES
    assert base + 0.475 * GiB < high and low < base + 0.485 * GiB
    plan = log_plan(spec(QWEN7), total_gpu_bytes=gib(15.99), weights_bytes=gib(5.29),
                            max_model_len=32_768, kv_cache_memory=int(low))
    assert plan.num_gpu_blocks == 9357
    assert plan.kv_cache_tokens == 149_712
    assert plan.max_concurrency_text == "4.57"                       # 9357 / 2048
    assert plan.log_lines()[1:] == ("GPU KV cache size: 149,712 tokens",
                                    "Maximum concurrency for 32,768 tokens per request: 4.57x")


# ----------------------------------------------------------------------------- activation estimate vs the logs
def test_activation_estimate_qwen_sampler_bound():
    # vllm serve on a 16 GB card: 2048 batched tokens, 256 sampled requests, vocab 152,064.
    est = estimate_activation_bytes(spec(QWEN7), max_num_batched_tokens=2048, max_num_seqs=256,
                                    intermediate_size=18944)
    assert est.sampler_bytes > est.forward_bytes                     # 28 B x 256 x 152064 dominates
    assert abs(est.peak_bytes - gib(1.04)) < 0.02 * GiB              # 1.029 GiB vs 1.04 logged
    plan = vllm_memory_plan(spec(QWEN7), total_gpu_bytes=gib(15.99), weights_bytes=gib(5.29),
                            max_model_len=32_768, intermediate_size=18944, vllm_version=LOG_RELEASE)
    assert plan.activation_estimated and plan.non_torch_bytes == DEFAULT_NON_TORCH_BYTES
    assert abs(plan.num_gpu_blocks - 9357) <= 0.01 * 9357           # within 1% of the logged blocks


def test_activation_estimate_mistral_forward_bound():
    # offline LLM class on an H100: 16384 batched tokens, 1024 requests.
    total = gib(79.19)
    assert default_max_num_batched_tokens(total, "offline") == 16384
    est = estimate_activation_bytes(spec(MISTRAL), max_num_batched_tokens=16384,
                                    max_num_seqs=default_max_num_seqs(total, 16384), intermediate_size=14336)
    assert est.forward_bytes > est.sampler_bytes
    assert est.peak_bytes == 16384 * 2 * 3 * (4096 + 14336)         # 1.6875 GiB
    # the logged 1.97 GiB is ~0.28 GiB higher: llava's vision-encoder outputs (5 profiling images) and
    # compiled-graph buffers are not modelled; the estimate stays below the log.
    assert 0.25 * GiB < gib(1.97) - est.peak_bytes < 0.30 * GiB


def test_activation_forward_term_vs_the_llama_log():
    # V0 profiled max_model_len tokens in one pass: 20000 -> 17.06 GiB torch peak, 29000 -> 17.98 GiB,
    # weights 14.9888 GiB. The forward term reproduces both activation figures within 0.02 GiB.
    s = spec(LLAMA8)
    for tokens, peak in ((20_000, 17.06), (29_000, 17.98)):
        est = estimate_activation_bytes(s, max_num_batched_tokens=tokens, max_num_seqs=256, intermediate_size=14336)
        assert est.peak_bytes == est.forward_bytes
        assert abs(est.peak_bytes - (gib(peak) - gib(14.9888))) < 0.02 * GiB


def test_activation_estimate_assumes_mlp_width_when_missing():
    cfg = {k: v for k, v in load_config(LLAMA8).items() if k != "intermediate_size"}
    plan = vllm_memory_plan(read_spec(cfg), total_gpu_bytes=gib(79.19), weights_bytes=gib(14.99), max_model_len=8192)
    assert any("assumed 4 x hidden" in n for n in plan.notes)
    # with the config's own intermediate_size (14336) nothing is assumed
    plan = vllm_memory_plan(spec(LLAMA8), total_gpu_bytes=gib(79.19), weights_bytes=gib(14.99), max_model_len=8192)
    assert not any("assumed 4 x hidden" in n for n in plan.notes)


# ----------------------------------------------------------------------------- tensor parallel heads
@pytest.mark.parametrize("tp,heads", [(1, 8), (2, 4), (4, 2), (8, 1), (16, 1)])
def test_kv_heads_per_rank_llama_70b(tp, heads):
    s = spec(LLAMA70)
    model, kv = vllm_dtypes(s, None, None)
    caches = layer_caches(s, model, kv, 16, tp)
    assert len(caches) == 80
    assert {c.page_size_bytes for c in caches} == {16 * heads * 128 * 2 * 2}
    r = vllm_kv_cache(s, batch=2, context=1000, tensor_parallel_size=tp)
    assert r.total_bytes == 80 * 2 * 63 * 16 * heads * 128 * 2 * 2   # ceil(1000 / 16) = 63 blocks
    plan = vllm_memory_plan(s, total_gpu_bytes=gib(79.19), weights_bytes=gib(140 / tp), max_model_len=8192,
                            tensor_parallel_size=tp, kv_cache_memory=gib(20))
    assert plan.num_gpu_blocks == gib(20) // (16 * heads * 128 * 4) // 80


def test_kv_heads_helper():
    from kvcalc.vllm import kv_heads_per_rank
    assert [kv_heads_per_rank(8, t) for t in (1, 2, 4, 8, 16, 32)] == [8, 4, 2, 1, 1, 1]


# ----------------------------------------------------------------------------- MLA
@pytest.mark.parametrize("tp", [1, 8])
def test_mla_deepseek_v3_latent_not_split(tp):
    s = spec(DEEPSEEK_V3)
    assert s.kinds() == {"mla": 61}
    model, kv = vllm_dtypes(s, None, None)
    caches = layer_caches(s, model, kv, 16, tp)
    assert {c.page_size_bytes for c in caches} == {16 * 576 * 2}          # kv_lora_rank 512 + rope 64, one tensor, bf16
    r = vllm_kv_cache(s, batch=3, context=4096, tensor_parallel_size=tp)
    assert r.bytes_per_token == 61 * 576 * 2
    assert r.total_bytes == 61 * 3 * 256 * 16 * 576 * 2
    fp8 = vllm_kv_cache(s, batch=3, context=4096, kv_dtype="fp8", tensor_parallel_size=tp)
    assert fp8.total_bytes * 2 == r.total_bytes
    plan = vllm_memory_plan(s, total_gpu_bytes=gib(139.8), weights_bytes=gib(80), max_model_len=32_768,
                            tensor_parallel_size=tp, kv_cache_memory=gib(40))
    assert plan.page_bytes == 18432 and plan.num_gpu_blocks == gib(40) // 18432 // 61


# ----------------------------------------------------------------------------- sliding window
def test_sliding_window_blocks_gemma2():
    s = spec(GEMMA2)
    assert s.kinds() == {"sliding": 21, "full": 21}
    w = 4096
    # cdiv(min(W - 1 + chunk, T), 16) + 1, never more than the blocks T itself spans
    assert sliding_window_blocks(8192, w, 16, 2048) == 385           # cdiv(6143, 16) + 1
    assert sliding_window_blocks(4096, w, 16, 2048) == 256           # 257 capped at ceil(4096 / 16)
    assert sliding_window_blocks(4097, w, 16, 2048) == 257           # 258 capped at 257
    assert sliding_window_blocks(100_000, w, 16, 1) == 257           # steady decode: window + 1 block
    assert sliding_window_blocks(4096, w, 16, 2048, cap=False) == 257
    r = vllm_kv_cache(s, batch=2, context=8192, max_num_batched_tokens=2048, vllm_version="0.10")
    page = 16 * 8 * 256 * 2 * 2
    # 0.33 (async scheduling, 2 x 2048 in flight): cdiv(min(4095 + 4096, 8192), 16) + 1 = 513, capped at 512
    new = vllm_kv_cache(s, batch=2, context=8192, max_num_batched_tokens=2048)
    assert {l.bytes for l in new.layers if l.kind == "sliding"} == {2 * 512 * page}
    sliding = [l for l in r.layers if l.kind == "sliding"]
    full = [l for l in r.layers if l.kind == "full"]
    assert {l.tokens for l in sliding} == {385 * 16} and {l.bytes for l in sliding} == {2 * 385 * page}
    assert {l.tokens for l in full} == {8192} and {l.bytes for l in full} == {2 * 512 * page}
    assert r.total_bytes == 21 * 2 * (385 + 512) * page
    assert r.bytes_per_token == 42 * page // 16


@pytest.mark.parametrize("release,sliding_blocks", [
    ("0.10", 385),    # cdiv(min(4095 + 2048, 8192), 16) + 1: one batch of 2,048 tokens in flight
    ("0.33", 513),    # cdiv(min(4095 + 2 x 2048, 8192), 16) + 1: async scheduling keeps two batches in flight
])
def test_sliding_window_capacity_gemma2_groups(release, sliding_blocks):
    plan = vllm_memory_plan(spec(GEMMA2), total_gpu_bytes=gib(79.19), weights_bytes=gib(17.2), max_model_len=8192,
                            max_num_batched_tokens=2048, kv_cache_memory=gib(30), vllm_version=release)
    page = 16 * 8 * 256 * 2 * 2
    assert [(g.kind, len(g.layers)) for g in plan.groups] == [("sliding", 21), ("full", 21)]
    assert plan.group_size == 21
    assert plan.num_gpu_blocks == gib(30) // page // 21
    assert [g.blocks_per_request for g in plan.groups] == [sliding_blocks, 512]
    assert plan.max_concurrency == plan.num_gpu_blocks / (sliding_blocks + 512)
    if release == "0.10":
        assert plan.kv_cache_tokens == plan.num_gpu_blocks // 2 * 16
    else:   # get_kv_cache_capacity: int(max_concurrency x max_model_len)
        assert plan.kv_cache_tokens == int(plan.num_gpu_blocks / (sliding_blocks + 512) * 8192)


# ----------------------------------------------------------------------------- one spec class per vLLM kind
def test_layer_caches_are_the_vllm_spec_classes():
    def classes(s):
        model, kv = vllm_dtypes(s, None, None)
        return [type(c) for c in layer_caches(s, model, kv)]

    assert classes(spec(GEMMA2)) == [SlidingWindowSpec, FullAttentionSpec] * 21      # Gemma 2 alternates
    assert set(classes(spec(DEEPSEEK_V3))) == {MLAAttentionSpec}
    assert issubclass(MLAAttentionSpec, FullAttentionSpec)                            # as in vLLM
    vision = classes(spec("meta-llama__Llama-3.2-90B-Vision-Instruct.json"))
    assert vision.count(CrossAttentionSpec) == 20 and vision.count(FullAttentionSpec) == 80
    llama4 = read_spec(dict(TINY["llama4_text"], model_type="llama4_text"))
    assert classes(llama4) == [ChunkedLocalAttentionSpec] * 3 + [FullAttentionSpec]   # every 4th layer global
    mamba = read_spec({"model_type": "mamba", "hidden_size": 768, "num_hidden_layers": 2, "vocab_size": 50280,
                       "intermediate_size": 1536, "state_size": 16, "conv_kernel": 4})
    assert classes(mamba) == [MambaSpec, MambaSpec]


def test_spec_pages_and_max_memory_usage_hand_arithmetic():
    kw = dict(max_num_batched_tokens=2048, encoder_tokens=6404)
    full = FullAttentionSpec(0, 16, 8, 128, 128, 2)
    assert full.page_size_bytes == 16 * 8 * (128 + 128) * 2 == 65536
    assert full.max_memory_usage_bytes(1000, **kw) == 63 * 65536                        # cdiv(1000, 16)
    sliding = SlidingWindowSpec(1, 16, 8, 256, 256, 2, sliding_window=4096)
    assert sliding.max_memory_usage_bytes(8192, **kw) == (ceil(6143 / 16) + 1) * 131072  # 385 blocks
    assert sliding.max_memory_usage_bytes(1000, **kw) == (ceil(1000 / 16) + 1) * 131072  # min(W-1+chunk, T) = T
    chunked = ChunkedLocalAttentionSpec(2, 16, 8, 128, 128, 2, attention_chunk_size=8192)
    assert chunked.max_memory_usage_bytes(100_000, **kw) == ceil((8192 + 2048) / 16) * 65536   # 640 blocks
    assert chunked.max_memory_usage_bytes(5000, **kw) == ceil(5000 / 16) * 65536
    cross = CrossAttentionSpec(3, 16, 8, 128, 128, 2)
    assert cross.max_memory_usage_bytes(1, **kw) == ceil(6404 / 16) * 65536               # the encoder's length
    assert cross.token_slots(401) == (0, 401 * 16) and cross.bytes_per_token == 0
    mla = MLAAttentionSpec(4, 16, 1, 512 + 64, 0, 2)
    assert mla.page_size_bytes == 16 * 576 * 2                                         # one latent, no V
    mamba = MambaSpec(5, 16, (1536 * 3, 1536 * 16), 2)
    assert mamba.page_size_bytes == (1536 * 3 + 1536 * 16) * 2
    assert mamba.max_memory_usage_bytes(10**6, **kw) == mamba.page_size_bytes           # one state per request
    assert mamba.bytes_per_token == 0 and mamba.token_slots(1) == (0, 0)


def test_uniform_type_and_page_unification():
    full, mla = FullAttentionSpec(0, 16, 8, 128, 128, 2), MLAAttentionSpec(1, 16, 1, 576, 0, 2)
    sliding = SlidingWindowSpec(1, 16, 4, 128, 128, 2, sliding_window=4096)
    assert is_uniform_type([full, mla])                       # full and MLA: one UniformTypeKVCacheSpecs group
    assert not is_uniform_type([full, sliding])
    assert not is_uniform_type([sliding, replace(sliding, layer=2, sliding_window=1024)])
    groups, uniform = group_caches([full, mla])
    assert uniform and len(groups) == 1
    # unify_kv_cache_spec_page_size: the sliding page (32 KiB) grows to the full page (64 KiB) by doubling its block
    groups, uniform = group_caches([full, sliding])
    assert not uniform and [[type(c) for c in g] for g in groups] == [[FullAttentionSpec], [SlidingWindowSpec]]
    grown = groups[1][0]
    assert grown.block_size == 32 and grown.page_size_bytes == 65536 and grown.window == 4096
    with pytest.raises(UnsupportedError):
        group_caches([full, MambaSpec(1, 16, (1024,), 2)])     # mamba pages are padded, not grown: not modelled


# ----------------------------------------------------------------------------- pipeline parallel, defaults, misc
def test_pipeline_partition_and_min_over_stages():
    assert pp_layer_partition(32, 3) == (11, 11, 10)
    assert pp_layer_partition(61, 4) == (15, 15, 16, 15)
    assert pp_layer_partition(32, 2) == (16, 16)
    plan = vllm_memory_plan(spec(LLAMA8), total_gpu_bytes=gib(23.58), weights_bytes=gib(5), max_model_len=8192,
                            pipeline_parallel_size=3, kv_cache_memory=gib(10))
    assert plan.layers_per_stage == (11, 11, 10)
    assert plan.num_gpu_blocks == gib(10) // 65536 // 11
    with pytest.raises(InputError):
        pp_layer_partition(4, 5)


def test_engine_defaults():
    h100, card16, a100 = gib(79.19), 16380 << 20, 81920 << 20
    assert default_max_num_batched_tokens(h100) == 8192
    assert default_max_num_batched_tokens(h100, "offline") == 16384
    assert default_max_num_batched_tokens(card16) == 2048
    assert default_max_num_batched_tokens(card16, "offline") == 8192
    assert default_max_num_batched_tokens(a100, gpu_name="NVIDIA A100-SXM4-80GB") == 2048
    assert default_max_num_seqs(h100, 8192) == 1024 and default_max_num_seqs(card16, 2048) == 256
    assert default_max_num_seqs(card16, 128) == 128
    # vLLM 0.33's third tier (EngineArgs.get_batch_defaults: device_memory >= 160 GiB, B200 / B300): 16384 tokens
    # for vllm serve too; before it, a 180 GB card got the H100 tier's 8192
    b200 = 183 * GiB
    assert default_max_num_batched_tokens(b200) == 16384 and default_max_num_seqs(b200, 16384) == 1024
    assert default_max_num_batched_tokens(b200, vllm_version="0.10") == 8192
    assert default_max_num_batched_tokens(gib(159.9)) == 8192


def test_kv_cache_runtime_vllm_matches():
    cfg = load_config(LLAMA8)
    r = kvcalc.kv_cache(cfg, batch=4, context=1000, runtime="vllm")
    assert r.runtime == "vllm"
    assert r == vllm_kv_cache(read_spec(cfg), batch=4, context=1000)
    assert r.total_bytes == 32 * 4 * 63 * 65536                      # blocks round 1000 up to 1008 tokens
    assert {l.tokens for l in r.layers} == {1008}
    ideal = kvcalc.kv_cache(cfg, batch=4, context=1008)
    assert ideal.total_bytes == r.total_bytes


def test_fp8_kv_cache_halves_pages_and_doubles_blocks():
    s = spec(LLAMA8)
    bf16 = vllm_memory_plan(s, total_gpu_bytes=gib(79.19), weights_bytes=gib(15), max_model_len=8192,
                            kv_cache_memory=gib(40))
    fp8 = vllm_memory_plan(s, total_gpu_bytes=gib(79.19), weights_bytes=gib(15), max_model_len=8192,
                           kv_cache_memory=gib(40), kv_cache_dtype="fp8")
    assert fp8.page_bytes * 2 == bf16.page_bytes and fp8.num_gpu_blocks == 2 * bf16.num_gpu_blocks
    assert fp8.kv_dtype == "fp8_e4m3"


def test_no_room_for_kv():
    plan = vllm_memory_plan(spec(LLAMA8), total_gpu_bytes=gib(15.99), weights_bytes=gib(14.99), max_model_len=8192,
                            activation_bytes=gib(1))
    assert plan.available_kv_bytes < 0 and plan.num_gpu_blocks == 0 and plan.max_concurrency == 0
    assert not plan.fits and plan.estimated_max_model_len == 0
    assert plan.binding.startswith("no KV cache")


VLLM_NO_MEMORY = ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                  "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, "
                  "despite its name). See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ "
                  "for more details.")   # vLLM 0.33.0 vllm/v1/core/kv_cache_planning.py, _check_enough_kv_cache_memory


@pytest.mark.parametrize("weights,activation,graphs,first", [
    # 0.9 x 15.99 = 14.391 GiB requested; the figures are the inputs, each printed %.2f
    (16, 1, 0, "No KV cache memory: the weights alone (16.00 GiB) exceed the requested 14.39 GiB (0.9 x 15.99 GiB)"),
    (13.5, 1, 0, "No KV cache memory: weights 13.50 GiB + activation 1.00 GiB + non-torch 0.07 GiB = 14.57 GiB "
                 "alone exceed the requested 14.39 GiB (0.9 x 15.99 GiB)"),            # 13.5 + 1 + 0.07
    (13.5, 0.5, 0.5, "No KV cache memory: weights 13.50 GiB + activation 0.50 GiB + non-torch 0.07 GiB + "
                     "CUDA graphs 0.50 GiB = 14.57 GiB alone exceed the requested 14.39 GiB (0.9 x 15.99 GiB)"),
])
def test_no_kv_memory_lines_say_what_exceeds_the_budget(weights, activation, graphs, first):
    # Before: the first line was the raw "Available KV cache memory: -2.68 GiB" (-0.18 GiB in the other two
    # cases), then "GPU KV cache size: 0 tokens" and "Maximum concurrency ... 0.00x", lines vLLM never
    # reaches: it raises VLLM_NO_MEMORY instead.
    plan = vllm_memory_plan(spec(LLAMA8), total_gpu_bytes=gib(15.99), weights_bytes=gib(weights), max_model_len=8192,
                            activation_bytes=gib(activation), non_torch_bytes=gib(0.07), cuda_graph_bytes=gib(graphs))
    assert plan.available_kv_bytes <= 0 and not plan.fits
    assert plan.log_lines() == (first, "vLLM refuses to start: " + VLLM_NO_MEMORY)
    assert plan.binding == "n" + first[1:]
    assert not re.search(r"-\s*\d", " ".join(plan.log_lines()))                       # no negative figure
    assert plan.to_dict()["log_lines"] == list(plan.log_lines())


def test_no_kv_memory_in_the_cli_plan(capsys):
    from kvcalc.cli import main
    assert main(["plan", "meta-llama/Llama-3.1-8B", "--offline", "--gpu-mem-gib", "15.99", "--weights-gib", "13.5",
                 "--activation-gib", "1", "--non-torch-gib", "0.07", "--max-model-len", "8192"]) == 0
    out = capsys.readouterr().out
    assert "Available KV cache memory" not in out and not re.search(r"-\s*\d+\.\d+ GiB", out)
    # vLLM 0.33 also subtracts CUDA graphs: kvcalc's stated 0.67 GiB assumption (13.5 + 1 + 0.07 + 0.67)
    assert ("weights 13.50 GiB + activation 1.00 GiB + non-torch 0.07 GiB + CUDA graphs 0.67 GiB = 15.24 GiB "
            "alone exceed") in out
    assert VLLM_NO_MEMORY in out


def test_cuda_graph_bytes_are_subtracted():
    kw = dict(total_gpu_bytes=gib(15.99), weights_bytes=gib(5.29), activation_bytes=gib(1.04),
              non_torch_bytes=gib(0.06), max_model_len=32_768)
    a = vllm_memory_plan(spec(QWEN7), **kw, cuda_graph_bytes=0)
    b = vllm_memory_plan(spec(QWEN7), **kw, cuda_graph_bytes=gib(0.48))
    assert a.available_kv_bytes - b.available_kv_bytes == gib(0.48)
    # 0.33 subtracts its CUDA-graph estimate by default; it is measured on the GPU, so kvcalc assumes the
    # 0.67 GiB of the public H100 log (log 1) and says so; 0.10 subtracted nothing by default
    c = vllm_memory_plan(spec(QWEN7), **kw)
    assert a.available_kv_bytes - c.available_kv_bytes == round(0.67 * GiB)
    assert any("CUDA graphs assumed 0.67 GiB" in n for n in c.notes)
    old = vllm_memory_plan(spec(QWEN7), **kw, vllm_version="0.10")
    assert old.available_kv_bytes == a.available_kv_bytes and old.cuda_graph_bytes == 0


def test_hybrid_allocator_by_hand():
    # Jamba-v0.1 (4 attention + 28 Mamba-1 layers), bf16, TP 1. Attention: 8 KV heads x 128 x (K+V) x 2 B =
    # 4,096 B per token. Mamba state: conv 8192 x (4 - 1) + ssm 8192 x 16 = 155,648 values x 2 B = 311,296 B.
    # Block = 16 x cdiv(311,296, 16 x 4,096) = 80 tokens; attention page 80 x 4,096 = 327,680 B, the mamba
    # page padded to it. Groups of 4 layers (4 attention, 28 mamba = 7 groups): one block id = 4 x 327,680 B.
    # Per request at 65,536 tokens: 820 attention blocks + 7 groups x 2 mamba pages ('align' mode) = 834.
    jamba = read_spec(load_config("ai21labs__Jamba-v0.1.json"))
    plan = vllm_memory_plan(jamba, total_gpu_bytes=gib(79.19), weights_bytes=0, max_model_len=65_536,
                            kv_cache_memory=8 * GiB)
    assert plan.block_size == 16 * ceil(311_296 / (16 * 4096)) == 80
    assert plan.page_bytes == 80 * 4096 == 327_680 and plan.block_bytes == 4 * 327_680
    assert plan.num_gpu_blocks == 8 * GiB // (4 * 327_680) == 6553
    assert plan.blocks_per_request == 820 + 7 * 2
    assert plan.kv_cache_tokens == int(6553 / 834 * 65_536)
    with pytest.raises(UnsupportedError, match="vllm_version 0.33 only"):
        vllm_memory_plan(jamba, total_gpu_bytes=gib(79.19), weights_bytes=0, max_model_len=65_536,
                         kv_cache_memory=8 * GiB, vllm_version="0.10")


def test_mamba_states_per_request_and_capacity_unsupported():
    cfg = {"model_type": "mamba", "hidden_size": 768, "num_hidden_layers": 2, "vocab_size": 50280,
           "intermediate_size": 1536, "state_size": 16, "conv_kernel": 4, "torch_dtype": "float32"}
    r = vllm_kv_cache(read_spec(cfg), batch=3, context=5000)
    assert r.dtype == "bfloat16"                                     # dtype auto: float32 served in 16 bits
    # vLLM keeps conv_kernel - 1 = 3 conv columns, plus the 1536 x 16 SSM state, in bf16
    assert [l.bytes for l in r.layers] == [3 * (1536 * 3 + 1536 * 16) * 2] * 2
    assert r.bytes_per_token == 0
    # attention-free: vLLM turns prefix caching off and sizes the state block by max_model_len (MambaModelConfig):
    # one page of both layers' states per request, reported as 2048 tokens per block
    # (tests/fixtures/vllm_0_33_oracle.json: mamba2_default_len32768, falcon_mamba_default_len32768)
    p = vllm_memory_plan(read_spec(cfg), total_gpu_bytes=gib(23.58), weights_bytes=gib(0.3), max_model_len=2048,
                         kv_cache_memory=gib(1))
    page = (1536 * 3 + 1536 * 16) * 2
    assert p.num_gpu_blocks == gib(1) // (2 * page) and p.blocks_per_request == 1
    assert p.kv_cache_tokens == p.num_gpu_blocks * 2048 and p.max_concurrency == p.num_gpu_blocks
    with pytest.raises(UnsupportedError, match="auto-fit"):
        vllm_memory_plan(read_spec(cfg), total_gpu_bytes=gib(23.58), weights_bytes=gib(0.3), max_model_len=-1,
                         derived_max_model_len=2048)


def test_input_errors():
    s = spec(LLAMA8)
    base = dict(total_gpu_bytes=gib(23.58), weights_bytes=gib(15), max_model_len=8192)
    for bad in (0, 1.5, True):
        with pytest.raises(InputError):
            vllm_memory_plan(s, **base, gpu_memory_utilization=bad)
    with pytest.raises(InputError):
        vllm_memory_plan(s, total_gpu_bytes=gib(23.58), weights_bytes=-1, max_model_len=8192)
    with pytest.raises(InputError):
        vllm_memory_plan(s, **base, usage_context="batch")
    with pytest.raises(UnsupportedError):
        vllm_kv_cache(s, batch=1, context=10, kv_dtype="int4")
    with pytest.raises(InputError):
        vllm_kv_cache(s, batch=0, context=10)


def test_page_bytes_formula():
    a = kvcalc.AttentionCache(kv_heads=8, k_head_dim=128, v_head_dim=128, query_heads=32)
    assert attention_page_bytes(a, kvcalc.get_dtype("bf16"), 16) == 16 * 8 * 128 * 2 * 2
    assert attention_page_bytes(a, kvcalc.get_dtype("bf16"), 16, 4) == 16 * 2 * 128 * 2 * 2


def test_cpu_offload_moves_weights_off_the_gpu():
    # --cpu-offload-gb 4 (OffloadConfig: int(4 x 1024**3) bytes): 4 GiB fewer weights on the GPU, 4 GiB more KV
    kw = dict(total_gpu_bytes=gib(23.58), weights_bytes=gib(14.99), max_model_len=8192, activation_bytes=gib(1),
              non_torch_bytes=gib(0.07), cuda_graph_bytes=0)
    base = vllm_memory_plan(spec(LLAMA8), **kw)
    off = vllm_memory_plan(spec(LLAMA8), **kw, cpu_offload_bytes=4 * GiB)
    assert off.weights_bytes == gib(14.99) - 4 * GiB and off.weights_offloaded_bytes == 4 * GiB
    assert off.available_kv_bytes - base.available_kv_bytes == 4 * GiB
    whole = vllm_memory_plan(spec(LLAMA8), **kw, cpu_offload_bytes=100 * GiB)    # at most the weights themselves
    assert whole.weights_bytes == 0 and whole.weights_offloaded_bytes == gib(14.99)


@pytest.mark.parametrize("kv, per_token_mla", [("fp8_ds_mla", 656), (None, 576 * 2)])
def test_dsa_indexer_is_its_own_spec_and_fp8_ds_mla(kv, per_token_mla):
    # DeepSeek-V3 with V3.2's DSA fields (index_topk 2048, index_head_dim 128 as in DeepSeek-V3.2-Exp's config).
    # vLLM 0.33: the MLA latent (576 values; fp8_ds_mla packs it into 656 B: 512 fp8 + 4 x fp32 scales + 64 bf16)
    # and a separate indexer key cache of uint8, 128 + 128 // 128 x 4 = 132 B per token; FLASHMLA_SPARSE's
    # 64-token blocks. Before: the indexer was folded into the MLA head at the KV width (704 x 2 B per token).
    cfg = dict(load_config(DEEPSEEK_V3), index_topk=2048, index_head_dim=128, index_n_heads=64)
    plan = vllm_memory_plan(read_spec(cfg), total_gpu_bytes=gib(79.19), weights_bytes=0, max_model_len=65_536,
                            kv_cache_memory=40 * GiB, kv_cache_dtype=kv, tensor_parallel_size=8)
    assert plan.block_size == 64
    assert plan.block_bytes == 61 * 64 * (per_token_mla + 132)
    assert plan.num_gpu_blocks == 40 * GiB // plan.block_bytes
    assert [(g.kind, len(g.layers)) for g in plan.groups] == [("indexer+mla", 122)]


def test_vllm_kv_dtype_errors_name_vllms_choices():
    with pytest.raises(UnsupportedError, match="fp8_ds_mla is vLLM's DeepSeek sparse-attention"):
        vllm_memory_plan(spec(LLAMA8), total_gpu_bytes=gib(79.19), weights_bytes=0, max_model_len=8192,
                         kv_cache_dtype="fp8_ds_mla")
    with pytest.raises(InputError, match="kv_cache_dtype 'fp7' is not one of vLLM's: auto, float16, bfloat16, fp8"):
        vllm_memory_plan(spec(LLAMA8), total_gpu_bytes=gib(79.19), weights_bytes=0, max_model_len=8192,
                         kv_cache_dtype="fp7")


# --------------------------------------------------------------------------- architectures vLLM 0.33 removed
def test_removed_architectures_are_refused_or_served_by_the_transformers_backend():
    """vLLM 0.33's registry (_PREVIOUSLY_SUPPORTED_MODELS, kvcalc.vllm.removed): MPT is refused at startup (the
    oracle case mpt_default_refused quotes vLLM's error), Persimmon is served by the Transformers backend,
    Bamba's mamba layers cannot run there; the 0.10 rules predate the removals."""
    import kvcalc
    from kvcalc.vllm.removed import REMOVED, served_note

    mpt = {"model_type": "mpt", "architectures": ["MptForCausalLM"], "d_model": 256, "n_heads": 4, "n_layers": 2,
           "vocab_size": 1000, "max_seq_len": 2048}
    with pytest.raises(UnsupportedError, match=r"Model architecture MptForCausalLM was supported in vLLM until "
                                               r"v0\.28\.0, and is not supported anymore\."):
        kvcalc.deploy(mpt, runtime="vllm", weights_gib=1)
    kvcalc.deploy(mpt, runtime="vllm", weights_gib=1, vllm_version="0.10")            # still implemented in 0.10
    kvcalc.deploy(mpt, runtime="transformers", weights_gib=1)
    persimmon = read_spec({"model_type": "persimmon", "hidden_size": 256, "num_hidden_layers": 2,
                           "num_attention_heads": 4, "vocab_size": 1000})
    assert "Transformers backend" in (served_note(["PersimmonForCausalLM"], persimmon, "0.33") or "")
    bamba = read_spec({"model_type": "bamba", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
                       "num_key_value_heads": 2, "vocab_size": 1000, "attn_layer_indices": [1]})
    with pytest.raises(UnsupportedError, match="BambaForCausalLM was supported in vLLM until v0.23.0"):
        served_note(["BambaForCausalLM"], bamba, "0.33")
    assert served_note(["LlamaForCausalLM"], persimmon, "0.33") is None
    assert REMOVED["MllamaForConditionalGeneration"] == "0.10.2"


def test_encoder_decoders_but_whisper_are_refused_under_vllm_0_33():
    """vLLM 0.33 registers Whisper and NemotronParse as its encoder-decoders; BART / mBART / Florence-2 are
    out-of-tree (bart-plugin) and the Transformers backend fails on T5 / BART (the oracle: "Argument position_ids
    not found in the forward method of T5Stack")."""
    from paths import load_config

    import kvcalc

    with pytest.raises(UnsupportedError, match="serves no encoder-decoder model but Whisper"):
        kvcalc.deploy(load_config("google-t5/t5-small"), runtime="vllm")
    kvcalc.deploy(load_config("google-t5/t5-small"), runtime="transformers")
    bart = {"model_type": "bart", "architectures": ["BartForConditionalGeneration"], "d_model": 256,
            "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4,
            "vocab_size": 1000, "max_position_embeddings": 1024}
    with pytest.raises(UnsupportedError, match="bart-plugin"):
        kvcalc.deploy(bart, runtime="vllm", weights_gib=1)
    whisper = {"model_type": "whisper", "architectures": ["WhisperForConditionalGeneration"], "d_model": 384,
               "encoder_layers": 4, "decoder_layers": 4, "encoder_attention_heads": 6, "decoder_attention_heads": 6,
               "vocab_size": 51865, "max_source_positions": 1500, "max_target_positions": 448}
    kvcalc.deploy(whisper, runtime="vllm", weights_gib=1)
