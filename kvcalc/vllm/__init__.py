"""vLLM (v1 engine) paged KV cache: per-layer specs, blocks per request, and the startup memory budget.

Everything here restates, in plain integer arithmetic, what vLLM's v1 engine does at startup and
while it serves (vllm-project/vllm, ``vllm/`` package; read, not copied). One module per job, each
naming its vLLM sources:

``defaults``    engine defaults and constants (block size, ``gpu_memory_utilization``, batch
                defaults, non-torch and sampler bytes), and vLLM's dtype resolution.
``specs``       one frozen dataclass per ``KVCacheSpec`` kind (``v1/kv_cache_interface.py``).
``grouping``    KV-cache groups, page-size unification, workers, the pipeline partition.
``activation``  the estimate of the profiled activation peak.
``budget``      ``vllm_memory_plan`` / ``VllmMemoryPlan``: the budget and its log lines.
``blocks``      ``RequestBlocks``: blocks one request holds, for the capacity solvers.
``cache``       ``vllm_kv_cache``: the ``runtime='vllm'`` per-layer bytes of ``kvcalc.kv_cache``.

Dependencies point down only: this package uses kvcalc's spec, dtype, limit and result modules and
kvcalc.resolve, never kvcalc.kv (which imports it for the ``vllm`` runtime). Release-dependent
numbers sit in ``defaults.ENGINE_DEFAULTS`` (see there for adding a ``vllm_version`` switch).

Units: bytes everywhere; GiB = 2**30 bytes, as vLLM prints it (``%.2f`` of ``bytes / 2**30``).
Per-rank: vLLM sizes every tensor-parallel rank alike, so the figures here are for ONE GPU.
"""
from .activation import ActivationEstimate, estimate_activation_bytes
from .blocks import RequestBlocks
from .budget import NO_MEMORY_ERROR, VllmMemoryPlan, vllm_memory_plan
from .cache import vllm_kv_cache
from .defaults import (
    CUDA_GRAPH_SAFETY_BYTES,
    DEFAULT_BLOCK_SIZE,
    DEFAULT_GPU_MEMORY_UTILIZATION,
    DEFAULT_NON_TORCH_BYTES,
    ENGINE_DEFAULTS,
    LARGE_GPU_BYTES,
    SAMPLER_BYTES_PER_LOGIT,
    SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS,
    EngineDefaults,
    UsageContext,
    default_max_num_batched_tokens,
    default_max_num_seqs,
    vllm_dtypes,
)
from .grouping import VllmCacheGroup, pp_layer_partition
from .specs import (
    AttentionSpec,
    ChunkedLocalAttentionSpec,
    CrossAttentionSpec,
    FullAttentionSpec,
    KVCacheSpec,
    MambaSpec,
    MLAAttentionSpec,
    SlidingWindowSpec,
    attention_page_bytes,
    kv_heads_per_rank,
    layer_caches,
    sliding_window_blocks,
)

__all__ = [
    "ActivationEstimate", "AttentionSpec", "CUDA_GRAPH_SAFETY_BYTES", "ChunkedLocalAttentionSpec",
    "CrossAttentionSpec", "DEFAULT_BLOCK_SIZE", "DEFAULT_GPU_MEMORY_UTILIZATION", "DEFAULT_NON_TORCH_BYTES",
    "ENGINE_DEFAULTS", "EngineDefaults", "FullAttentionSpec", "KVCacheSpec", "LARGE_GPU_BYTES", "MLAAttentionSpec",
    "MambaSpec", "NO_MEMORY_ERROR", "RequestBlocks", "SAMPLER_BYTES_PER_LOGIT",
    "SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS", "SlidingWindowSpec", "UsageContext", "VllmCacheGroup",
    "VllmMemoryPlan", "attention_page_bytes", "default_max_num_batched_tokens", "default_max_num_seqs",
    "estimate_activation_bytes", "kv_heads_per_rank", "layer_caches", "pp_layer_partition",
    "sliding_window_blocks", "vllm_dtypes", "vllm_kv_cache", "vllm_memory_plan",
]
