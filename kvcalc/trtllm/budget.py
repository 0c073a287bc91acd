"""TensorRT-LLM's KV-cache budget and block pool on one GPU (bytes; GiB = 2**30, printed ``%.2f``).

Sources (NVIDIA/TensorRT-LLM, read, not copied; release line in kvcalc.trtllm.defaults):

``tensorrt_llm/_torch/pyexecutor/_util.py``
    ``KvCacheCreator._cal_max_memory``: ``available_kv_mem = (total_gpu_memory - peak_memory) x fraction``
    after a profiling run (``peak_memory``: weights + activation peak + non-torch memory); with
    ``max_tokens`` the smaller of the two pools is used (``KvCacheConfig`` docs: "memory corresponding
    to the minimum will be used").
``cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp`` and ``docs/source/reference/memory.md``
    the C++ runtime's equivalent on the free memory after the engine and its activations ("90% of
    the remaining free GPU memory"): ``BaseKVCacheManager::calculateFreeMemBytes`` takes
    ``free x free_gpu_memory_fraction`` bytes, ``calculateMaxNumBlocks`` whole tokens of them
    (``min`` with ``max_tokens``) and rounds those UP to whole blocks, ``tc::ceilDiv(maxTokens,
    tokensPerBlock)`` (NVIDIA/TensorRT-LLM commit 002ba6a7cc5eb28f180d45d4a91142d9d927a606; the 0.1x
    ``KVCacheManager::calculateMaxNumBlocks`` does the same on ``fraction x free / bytes per token``): the
    pool, ``blocks x tokens_per_block`` tokens, may exceed the fraction by less than one block; and
    the startup lines "Number of blocks in KV cache primary pool: B" and "[MemUsageChange] Allocated
    X GiB for max tokens in paged KV cache (N)."; when one ``max_seq_len`` request does not fit, it
    is reduced (:data:`~kvcalc.trtllm.defaults.REDUCED_WINDOW_WARNING`).

``trtllm_version="1.0"`` (the mid-2025 PyTorch backend, kvcalc.trtllm.defaults.TRTLLM_VERSIONS): the pool's
whole tokens ``min(available // bytes per token, max_tokens)`` are rounded UP to whole blocks
(``resource_manager.py`` ``KVCacheManager.calculate_max_num_blocks``, ``math.ceil``); 1.3 (the default) rounds down.

The activation peak is estimated unless measured (``activation_gib``): one forward pass of
``max_num_tokens`` tokens (kvcalc.activations.forward_activation_bytes), plus the assumed runtime
buffers :data:`~kvcalc.trtllm.defaults.DEFAULT_RUNTIME_RESERVED_BYTES` (``non_torch_gib``).
"""
from __future__ import annotations

from ..dtypes import ceil_div
from ..engine import EngineMemoryPlan
from ..units import GiB
from .defaults import (
    DEFAULT_FREE_GPU_MEMORY_FRACTION,
    DEFAULT_MAX_BATCH_SIZE,
    DEFAULT_TOKENS_PER_BLOCK,
    REDUCED_WINDOW_WARNING,
    REDUCED_WINDOW_WARNING_PYTORCH,
)
from .options import TrtllmOptions

SOURCES = (
    "TensorRT-LLM tensorrt_llm/_torch/pyexecutor/_util.py: KvCacheCreator._cal_max_memory",
    "TensorRT-LLM cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp: primary pool blocks and log lines",
    "TensorRT-LLM tensorrt_llm/llmapi/llm_args.py: KvCacheConfig defaults (free_gpu_memory_fraction, tokens_per_block)",
    "TensorRT-LLM docs/source/reference/memory.md",
)


def _g(nbytes: float) -> str:
    return f"{nbytes / GiB:.2f}"


def trtllm_memory_plan(cell_bytes: int, *, total_gpu_bytes: int, weights_bytes: int, activation_bytes: int,
                       runtime_bytes: int, options: TrtllmOptions, max_seq_len: int,
                       notes: tuple[str, ...] = ()) -> EngineMemoryPlan:
    """TensorRT-LLM's pool on the busiest GPU (module docstring). ``cell_bytes``: KV bytes per token on
    that GPU; ``max_seq_len``: the validated longest request (``max_seq_len`` or the model's)."""
    fraction = options.free_gpu_memory_fraction
    if fraction is None:
        fraction = DEFAULT_FREE_GPU_MEMORY_FRACTION
    tpb = options.tokens_per_block or DEFAULT_TOKENS_PER_BLOCK
    free = total_gpu_bytes - weights_bytes - activation_bytes - runtime_bytes
    available = int(free * fraction) if free > 0 else 0
    block_bytes = cell_bytes * tpb
    blocks = available // block_bytes if block_bytes else 0
    extra = list(notes)
    pytorch = options.trtllm_backend == "pytorch"
    round_up = not pytorch or options.trtllm_version == "1.0"
    if round_up and cell_bytes:
        # whole tokens, then rounded UP to whole blocks: the C++ runtime's
        # BaseKVCacheManager::calculateMaxNumBlocks (maxTokens = allotted bytes / bytes per token, then
        # tc::ceilDiv(maxTokens, tokensPerBlock)); the PyTorch backend of 1.0: estimate_max_kv_cache_tokens,
        # then calculate_max_num_blocks' math.ceil
        blocks = ceil_div(available // cell_bytes, tpb)
    if options.max_tokens_in_paged_kv_cache is not None:
        # PyTorch 1.3: KvCacheCreator.configure_kv_cache_capacity then KVCacheManager.calculate_max_num_blocks,
        # int(max_tokens // tokens_per_block); the C++ runtime and the PyTorch backend of 1.0 round up
        given = options.max_tokens_in_paged_kv_cache
        cap = ceil_div(given, tpb) if round_up else given // tpb
        if cap < blocks:
            blocks = cap
            extra.append(f"max_tokens_in_paged_kv_cache {given:,} caps the pool "
                         f"(rounded {'up' if round_up else 'down'} to {cap:,} blocks of {tpb})")
    tokens = blocks * tpb
    max_context = max_seq_len
    lines = [f"Memory usage when calculating max tokens in paged kv cache: total: {_g(total_gpu_bytes)} GiB, "
             f"available: {_g(max(free, 0))} GiB",
             f"Number of blocks in KV cache primary pool: {blocks}"]
    refusal = None
    if blocks == 0:
        refusal = (f"no KV-cache block fits: {fraction:g} x {_g(max(free, 0))} GiB free after weights and "
                   f"activations < one block of {tpb} tokens ({block_bytes:,} B); lower the weights or raise "
                   "free_gpu_memory_fraction (kvcalc's words: TensorRT-LLM fails to allocate the pool)")
        max_context = 0
    elif tokens < max_seq_len:
        max_context = tokens if pytorch else tokens - tpb + 1
        warning = (REDUCED_WINDOW_WARNING_PYTORCH if pytorch else REDUCED_WINDOW_WARNING).format(n=max_context)
        lines.append(warning)
        extra.append(f"TensorRT-LLM: {warning} (max_seq_len {max_seq_len:,} does not fit the pool)")
    lines += [f"Number of tokens per block: {tpb}.",
              f"[MemUsageChange] Allocated {_g(tokens * cell_bytes)} GiB for max tokens in paged KV cache ({tokens})."]
    if refusal:
        lines.append(f"TensorRT-LLM cannot start: {refusal}")
    formulas = (
        f"free = {_g(total_gpu_bytes)} GiB - weights {_g(weights_bytes)} - activation {_g(activation_bytes)} - "
        f"runtime {_g(runtime_bytes)} = {_g(free)} GiB",
        f"KV = free_gpu_memory_fraction {fraction:g} x free = {_g(available)} GiB -> {blocks:,} blocks of {tpb} "
        f"tokens x {cell_bytes:,} B",
    )
    overhead = activation_bytes + runtime_bytes
    return EngineMemoryPlan(
        engine="tensorrt_llm", version=options.trtllm_version, total_gpu_bytes=total_gpu_bytes,
        budget_bytes=weights_bytes + overhead + available, weights_bytes=weights_bytes, overhead_bytes=overhead,
        available_kv_bytes=available, cell_bytes=cell_bytes, page_size=tpb, pool_tokens=tokens,
        pool_bytes=tokens * cell_bytes, max_context=max_context,
        max_running=options.max_batch_size or DEFAULT_MAX_BATCH_SIZE, log_lines=tuple(lines), formulas=formulas,
        notes=tuple(extra), sources=SOURCES, refusal=refusal)
