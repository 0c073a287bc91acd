"""TensorRT-LLM's options kvcalc models, under its names (``KvCacheConfig`` fields and ``trtllm-serve`` flags)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine import check_fraction
from ..engines.base import Option
from ..engines.readers import human_readable_int
from ..errors import InputError
from ..limits import MAX_CONTEXT, check_count
from .defaults import (
    DEFAULT_FREE_GPU_MEMORY_FRACTION,
    DEFAULT_MAX_BATCH_SIZE,
    DEFAULT_TOKENS_PER_BLOCK,
    TRTLLM_BACKENDS,
    TRTLLM_VERSION,
    TRTLLM_VERSIONS,
)

POWERS_OF_TWO = tuple(str(1 << i) for i in range(17))
"""``tokens_per_block`` values TensorRT-LLM's paged KV kernels take: powers of two up to 65,536."""


@dataclass(frozen=True)
class TrtllmOptions:
    """``None`` = TensorRT-LLM's default (kvcalc.trtllm.defaults). ``free_gpu_memory_fraction`` and
    ``max_tokens_in_paged_kv_cache`` (``KvCacheConfig.max_tokens``; with both, the smaller pool
    wins), ``tokens_per_block``, ``max_seq_len`` (default the model's maximum), ``max_batch_size``,
    ``max_num_tokens`` (the forward pass the activation profile runs); ``trtllm_backend``: "pytorch" (default)
    or "cpp" (the C++ runtime of ``trtllm-build`` engines), whose pool rounding and reduced length differ;
    ``trtllm_version`` the release line whose rules apply (kvcalc.trtllm.defaults.TRTLLM_VERSIONS); ``xqa``: the
    generation phase serves a GQA / MQA layer with the XQA kernel (the default since v0.8), False for the masked
    MHA kernel alone (releases before v0.8, or an engine built with ``--disable_xqa``), which changes the speed
    estimate only (kvcalc.trtllm.engine.TrtllmEngine.kv_reads)."""

    free_gpu_memory_fraction: float | None = None
    max_tokens_in_paged_kv_cache: int | None = None
    tokens_per_block: int | None = None
    max_seq_len: int | None = None
    max_batch_size: int | None = None
    max_num_tokens: int | None = None
    trtllm_backend: str = "pytorch"
    trtllm_version: str = TRTLLM_VERSION
    xqa: bool = True

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.free_gpu_memory_fraction, self.max_tokens_in_paged_kv_cache,
                                           self.tokens_per_block, self.max_seq_len, self.max_batch_size,
                                           self.max_num_tokens))


def trtllm_options(free_gpu_memory_fraction: Any = None, max_tokens_in_paged_kv_cache: Any = None,
                   tokens_per_block: Any = None, max_seq_len: Any = None, max_batch_size: Any = None,
                   max_num_tokens: Any = None, trtllm_backend: Any = "pytorch",
                   trtllm_version: Any = TRTLLM_VERSION, xqa: Any = True) -> TrtllmOptions:
    """Validated :class:`TrtllmOptions` (InputError in TensorRT-LLM's terms, with the fix)."""
    if free_gpu_memory_fraction is not None:
        free_gpu_memory_fraction = check_fraction(
            "free_gpu_memory_fraction", free_gpu_memory_fraction,
            source="KvCacheConfig: the share of the free memory the KV cache takes; 0.9 by default")
    if tokens_per_block is not None:
        tokens_per_block = check_count("tokens_per_block", tokens_per_block, 1, 1 << 16)
        if tokens_per_block & (tokens_per_block - 1):
            raise InputError(f"tokens_per_block {tokens_per_block} is not a power of two: TensorRT-LLM's paged KV "
                             "kernels need one (use 32, the default, or 64)")
    if max_tokens_in_paged_kv_cache is not None:
        max_tokens_in_paged_kv_cache = check_count("max_tokens_in_paged_kv_cache", max_tokens_in_paged_kv_cache,
                                                   1, 1 << 40)
    if max_seq_len is not None:
        max_seq_len = check_count("max_seq_len", max_seq_len, 1, MAX_CONTEXT)
    if max_batch_size is not None:
        max_batch_size = check_count("max_batch_size", max_batch_size, 1, 1 << 20)
    if max_num_tokens is not None:
        max_num_tokens = check_count("max_num_tokens", max_num_tokens, 1, MAX_CONTEXT)
    if trtllm_backend not in TRTLLM_BACKENDS:
        raise InputError(f"trtllm_backend must be one of {', '.join(TRTLLM_BACKENDS)}, got {trtllm_backend!r:.20}")
    if trtllm_version not in TRTLLM_VERSIONS:
        raise InputError(f"trtllm_version must be one of {', '.join(TRTLLM_VERSIONS)}, got {trtllm_version!r:.20}")
    if not isinstance(xqa, bool):
        raise InputError(f"xqa must be true or false, got {xqa!r:.20}")
    return TrtllmOptions(free_gpu_memory_fraction, max_tokens_in_paged_kv_cache, tokens_per_block, max_seq_len,
                         max_batch_size, max_num_tokens, trtllm_backend, trtllm_version, xqa)


DECLARATIONS: tuple[Option, ...] = (
    Option("free_gpu_memory_fraction", ("--free-gpu-memory-fraction", "--kv-cache-free-gpu-memory-fraction"),
           "float", "share of the memory free after weights and activations for the KV cache (default 0.9)",
           "fraction", 0, 1, None, "trt_frac", usual=DEFAULT_FREE_GPU_MEMORY_FRACTION),
    Option("max_tokens_in_paged_kv_cache", ("--max-tokens-in-paged-kv-cache",), "int",
           "cap on the KV pool in tokens (KvCacheConfig.max_tokens)", "tokens", 1, 1 << 40, None, "trt_max_tokens"),
    Option("tokens_per_block", ("--tokens-per-block",), "int", "tokens per KV block, a power of two (default 32; 64 "
           "in 0.x engines)", "tokens", 1, 1 << 16, None, "trt_tpb", POWERS_OF_TWO, usual=DEFAULT_TOKENS_PER_BLOCK),
    Option("max_seq_len", ("--max-seq-len",), "int", "longest request (default: the model's)", "tokens", 1,
           MAX_CONTEXT, None, "trt_mseq"),
    Option("max_batch_size", ("--max-batch-size",), "int", "requests run at once (default 2048)", "requests", 1,
           1 << 20, None, "trt_mbs", usual=DEFAULT_MAX_BATCH_SIZE),
    Option("max_num_tokens", ("--max-num-tokens",), "int",
           "tokens in one forward pass (default 8192; sizes the estimated activation peak)", "tokens", 1,
           MAX_CONTEXT, None, None, parse=human_readable_int),
    Option("trtllm_backend", ("--trtllm-backend",), "text", "pytorch (default: trtllm-serve, the LLM API) or cpp "
           "(trtllm-build engines)", "", None, None, "pytorch", None, command=False),
    Option("trtllm_version", ("--trtllm-version",), "text", "the TensorRT-LLM release line whose rules apply: "
           f"{TRTLLM_VERSION} (default; main of mid-2026: a max_tokens pool rounds down to whole blocks) or 1.0 "
           "(1.0 through 1.1.0rc3, checked on public logs: it rounds up)",
           "", None, None, TRTLLM_VERSION, None, command=False),
    Option("xqa", ("--disable-xqa",), "bool", "generation attention without the XQA kernel: the masked MHA kernel "
           "alone, as in releases before v0.8 or an engine built without it (the v0.8 docs' trtllm-build "
           "--disable_xqa; speed only: each query head reads its KV head)", "", None, None, True, None, negate=True,
           command=False),
)
"""TensorRT-LLM's options kvcalc models (``KvCacheConfig`` / ``trtllm-serve``), declared once."""


def serve_flag(dest: str) -> str:
    """trtllm-serve's spelling of option ``dest``'s flag: its click options use underscores
    (tensorrt_llm/commands/serve.py).

    >>> serve_flag("max_batch_size")
    '--max_batch_size'
    """
    option = next(o for o in DECLARATIONS if o.dest == dest)
    return option.flags[-1].replace("-", "_").replace("__", "--", 1)
