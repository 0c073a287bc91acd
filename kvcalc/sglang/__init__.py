"""SGLang's KV token pool and startup budget (sgl-project/sglang, read, not copied).

``defaults``  the pinned release line, defaults (page size 1, ``mem_fraction_static`` by GPU
              memory and TP) and SGLang's error texts.
``options``   :class:`SglangOptions`, SGLang's flags under its names.
``budget``    :func:`sglang_memory_plan` -> kvcalc.engine.EngineMemoryPlan.
"""
from .budget import sglang_memory_plan
from .defaults import (
    DEFAULT_PAGE_SIZE,
    KV_CACHE_DTYPES,
    LONG_CONTEXT_ENV,
    LONG_CONTEXT_ERROR,
    NOT_ENOUGH_MEMORY,
    SGLANG_VERSION,
    default_max_running_requests,
    default_mem_fraction_static,
)
from .options import SglangOptions, sglang_options

__all__ = ["DEFAULT_PAGE_SIZE", "KV_CACHE_DTYPES", "LONG_CONTEXT_ENV", "LONG_CONTEXT_ERROR", "NOT_ENOUGH_MEMORY",
           "SGLANG_VERSION", "SglangOptions", "default_max_running_requests", "default_mem_fraction_static",
           "sglang_memory_plan", "sglang_options"]
