"""TensorRT-LLM's paged KV-cache budget (NVIDIA/TensorRT-LLM, read, not copied).

``defaults``  the pinned release line, ``KvCacheConfig`` / ``BaseLlmArgs`` defaults, the runtime's words.
``options``   :class:`TrtllmOptions`, its option names.
``budget``    :func:`trtllm_memory_plan` -> kvcalc.engine.EngineMemoryPlan.
"""
from .budget import trtllm_memory_plan
from .defaults import (
    DEFAULT_FREE_GPU_MEMORY_FRACTION,
    DEFAULT_MAX_BATCH_SIZE,
    DEFAULT_MAX_NUM_TOKENS,
    DEFAULT_RUNTIME_RESERVED_BYTES,
    DEFAULT_TOKENS_PER_BLOCK,
    KV_CACHE_DTYPES,
    TRTLLM_VERSION,
)
from .options import TrtllmOptions, trtllm_options

__all__ = ["DEFAULT_FREE_GPU_MEMORY_FRACTION", "DEFAULT_MAX_BATCH_SIZE", "DEFAULT_MAX_NUM_TOKENS",
           "DEFAULT_RUNTIME_RESERVED_BYTES", "DEFAULT_TOKENS_PER_BLOCK", "KV_CACHE_DTYPES", "TRTLLM_VERSION",
           "TrtllmOptions", "trtllm_memory_plan", "trtllm_options"]
