"""vLLM (v1 engine) paged KV cache: per-layer specs, blocks per request, and the startup memory budget.

Everything here restates, in plain integer arithmetic, what vLLM's v1 engine does at startup and
while it serves (vllm-project/vllm, ``vllm/`` package; read, not copied). One module per job, each
naming its vLLM sources:

``defaults``    one ``EngineDefaults`` record per release line (``ENGINES``: "0.33", the default, and
                "0.10"): defaults, constants and the rules that changed between them; vLLM's
                dtype resolution and the backends' default block sizes.
``model_len``   the derived maximum model length (RoPE factors) and vLLM's refusal of a longer one.
``specs``       one frozen dataclass per ``KVCacheSpec`` kind (``v1/kv_cache_interface.py``).
``hybrid``      the hybrid allocator (attention blocks aligned to mamba pages, pages padded).
``speculative`` the speculative drafter's KV layers (MTP / EAGLE).
``lora``        ``--enable-lora``: the adapter slots and punica buffers, counted with the weights.
``grouping``    KV-cache groups, page-size unification, workers, the pipeline partition.
``activation``  the estimate of the profiled activation peak.
``budget``      ``vllm_memory_plan`` / ``VllmMemoryPlan``: the budget and its log lines.
``blocks``      ``RequestBlocks``: blocks one request holds, for the capacity solvers.
``cache``       ``vllm_kv_cache``: the ``runtime='vllm'`` per-layer bytes of ``kvcalc.kv_cache``.

Dependencies point down only: this package uses kvcalc's spec, dtype, limit and result modules and
kvcalc.resolve, never kvcalc.kv (which imports it for the ``vllm`` runtime). Release-dependent
numbers and rules sit in ``defaults.ENGINES``; ``vllm_version`` picks one (default "0.33").
The vLLM 0.33 rules are replayed against vLLM 0.33.0's own planning code in
tests/fast/test_vllm_oracle.py (fixtures tests/fixtures/vllm_0_33_oracle.json and, for LoRA,
vllm_0_33_lora.json).

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
    DEFAULT_VLLM_VERSION,
    ENGINE_DEFAULTS,
    ENGINES,
    LARGE_GPU_BYTES,
    SAMPLER_BYTES_PER_LOGIT,
    SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS,
    EngineDefaults,
    UsageContext,
    default_max_num_batched_tokens,
    default_max_num_seqs,
    engine,
    vllm_dtypes,
)
from .grouping import VllmCacheGroup, pp_layer_partition
from .lora import LoraConfig, lora_bytes
from .model_len import check_max_model_len, derived_max_model_len
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
from .speculative import SpeculativeConfig, speculative_kv_layers

__all__ = [
    "ActivationEstimate", "AttentionSpec", "CUDA_GRAPH_SAFETY_BYTES", "ChunkedLocalAttentionSpec",
    "CrossAttentionSpec", "DEFAULT_BLOCK_SIZE", "DEFAULT_GPU_MEMORY_UTILIZATION", "DEFAULT_NON_TORCH_BYTES",
    "DEFAULT_VLLM_VERSION", "ENGINES", "ENGINE_DEFAULTS", "EngineDefaults", "FullAttentionSpec", "KVCacheSpec",
    "LARGE_GPU_BYTES", "LoraConfig", "MLAAttentionSpec", "MambaSpec", "NO_MEMORY_ERROR", "RequestBlocks",
    "SAMPLER_BYTES_PER_LOGIT", "SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS", "SlidingWindowSpec", "SpeculativeConfig",
    "UsageContext", "VllmCacheGroup", "VllmMemoryPlan", "attention_page_bytes", "check_max_model_len",
    "default_max_num_batched_tokens", "default_max_num_seqs", "derived_max_model_len", "engine",
    "estimate_activation_bytes", "kv_heads_per_rank", "layer_caches", "lora_bytes", "pp_layer_partition",
    "sliding_window_blocks", "speculative_kv_layers", "vllm_dtypes", "vllm_kv_cache", "vllm_memory_plan",
]
