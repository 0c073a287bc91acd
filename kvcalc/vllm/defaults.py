"""vLLM's engine defaults and constants, and its dtype resolution (bytes; GiB = 2**30).

Every release-dependent number kvcalc uses for vLLM lives in one :class:`EngineDefaults` record,
``ENGINE_DEFAULTS`` (the v1 engine as the startup logs in tests/test_vllm.py show it, v0.10.x).
A later release with other numbers is a second record built with ``dataclasses.replace``; a
``vllm_version`` switch then picks the record (and, where a rule rather than a number changes, a
spec subclass in :mod:`kvcalc.vllm.specs`). The module-level names below are that record's
fields, kept as the names the rest of kvcalc and the tests import.

Sources (vllm-project/vllm, read, not copied): ``config/cache.py`` (``CacheConfig.block_size``,
``gpu_memory_utilization``), ``config/scheduler.py`` (``DEFAULT_MAX_NUM_BATCHED_TOKENS``),
``engine/arg_utils.py`` (``EngineArgs`` batch defaults per usage context and GPU size),
``v1/worker/gpu_worker.py`` (the ``--kv-cache-memory`` suggestion), ``config/model.py`` (the
``dtype="auto"`` resolution).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..dtypes import BFLOAT16, DType
from ..errors import InputError, UnsupportedError
from ..resolve import resolve_dtypes
from ..spec import ModelSpec
from ..units import GiB, MiB

UsageContext = Literal["server", "offline"]


@dataclass(frozen=True)
class EngineDefaults:
    """The numbers one vLLM release line uses when the user sets nothing (bytes, tokens, requests).

    Pairs are ``(other GPUs, large GPUs)``: a large GPU has at least ``large_gpu_bytes`` and is not
    an A100 (``EngineArgs``).
    """

    block_size: int = 16                       # CacheConfig.block_size on CUDA (tokens per block)
    gpu_memory_utilization: float = 0.9        # CacheConfig.gpu_memory_utilization
    scheduler_max_num_batched_tokens: int = 2048   # SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS
    server_max_num_batched_tokens: tuple[int, int] = (2048, 8192)     # vllm serve (OpenAI server)
    offline_max_num_batched_tokens: tuple[int, int] = (8192, 16384)   # the offline LLM class
    max_num_seqs: tuple[int, int] = (256, 1024)
    large_gpu_bytes: int = 70 * GiB
    non_torch_bytes: int = 64 * MiB
    sampler_bytes_per_logit: int = 28
    cuda_graph_safety_bytes: int = 150 * MiB


ENGINE_DEFAULTS = EngineDefaults()
"""The v1 engine's defaults (v0.10.x, the releases of the startup logs the tests reproduce)."""

DEFAULT_BLOCK_SIZE = ENGINE_DEFAULTS.block_size
"""vLLM ``CacheConfig.block_size`` default on CUDA (tokens per block)."""

DEFAULT_GPU_MEMORY_UTILIZATION = ENGINE_DEFAULTS.gpu_memory_utilization
"""``--gpu-memory-utilization`` default: the fraction of the device total vLLM may use (``requested_memory``)."""

SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS = ENGINE_DEFAULTS.scheduler_max_num_batched_tokens
"""``SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS``; also the online-server default on GPUs < 70 GiB."""

SAMPLER_BYTES_PER_LOGIT = ENGINE_DEFAULTS.sampler_bytes_per_logit
"""Bytes the profiling sampler holds at its peak per element of the ``[num_reqs, vocab]`` logits.

vLLM's ``_dummy_sampler_run`` samples with temperature 0.5, top-k = vocab - 1 and top-p = 0.9, so the
PyTorch top-k/top-p path (``apply_top_k_top_p``) runs on every row. At the re-scatter, alive at once:
the model-dtype logits (2 B, still referenced by the caller), their float32 copy (4,
``Sampler.forward``), the sorted values (4) and int64 sort indices (8), the top-k bool mask (1), the
top-p softmax/cumsum buffer (4), the top-p bool mask (1) and the scattered output (4): 28 B.
Releases with FlashInfer or Triton top-k/top-p kernels hold less.
"""

DEFAULT_NON_TORCH_BYTES = ENGINE_DEFAULTS.non_torch_bytes
"""Default non-torch increase during profiling (CUDA / cuBLAS / NCCL allocations outside torch).

The v1 logs in tests/test_vllm.py show 0.07 GiB (H100, v0.10.2) and 0.06 GiB (16 GB card):
64 MiB (0.0625 GiB). Multi-GPU runs can show more (NCCL, custom all-reduce buffers); pass a
measured figure.
"""

CUDA_GRAPH_SAFETY_BYTES = ENGINE_DEFAULTS.cuda_graph_safety_bytes
"""``redundancy_buffer_memory`` vLLM subtracts in its ``--kv-cache-memory`` suggestion (gpu_worker.py)."""

LARGE_GPU_BYTES = ENGINE_DEFAULTS.large_gpu_bytes
"""``EngineArgs``: GPUs with at least this much memory (except A100s) get the larger batch defaults."""


def _is_large_gpu(total_gpu_bytes: int, gpu_name: str) -> bool:
    return total_gpu_bytes >= LARGE_GPU_BYTES and "a100" not in gpu_name.lower()


def default_max_num_batched_tokens(total_gpu_bytes: int, usage_context: UsageContext = "server",
                                   gpu_name: str = "") -> int:
    """vLLM v1's default ``max_num_batched_tokens`` (``EngineArgs``, chunked prefill on), in tokens.

    GPUs with >= 70 GiB that are not A100s (H100, H200, MI300X): 8192 for the OpenAI server
    (``vllm serve``), 16384 for the offline ``LLM`` class; other GPUs: 2048 / 8192. (It is *not*
    ``max(max_model_len, ...)``: that was the V0 rule without chunked prefill.)
    """
    if usage_context == "server":
        pair = ENGINE_DEFAULTS.server_max_num_batched_tokens
    elif usage_context == "offline":
        pair = ENGINE_DEFAULTS.offline_max_num_batched_tokens
    else:
        raise InputError(f"usage_context must be 'server' or 'offline', got {str(usage_context)[:40]!r}")
    return pair[_is_large_gpu(total_gpu_bytes, gpu_name)]


def default_max_num_seqs(total_gpu_bytes: int, max_num_batched_tokens: int, gpu_name: str = "") -> int:
    """vLLM v1's default ``max_num_seqs``: 1024 on >= 70 GiB non-A100 GPUs, else 256; at most the token budget."""
    return min(ENGINE_DEFAULTS.max_num_seqs[_is_large_gpu(total_gpu_bytes, gpu_name)], max_num_batched_tokens)


def vllm_dtypes(spec: ModelSpec, dtype: "str | DType | None",
                kv_dtype: "str | DType | None") -> tuple[DType, DType]:
    """(model dtype, KV-cache dtype) as vLLM resolves them.

    ``dtype="auto"`` (here ``None``) serves a float32 checkpoint in 16 bits (float16 in older
    releases, the platform's preferred type, bfloat16 here, since v0.10.1), and a config dtype
    narrower than 16 bits computes in 16 bits too; ``kv_cache_dtype="auto"`` (``None``) is the
    model dtype (``config/model.py``).
    vLLM's KV cache is a floating type (16-bit, or fp8 via ``--kv-cache-dtype fp8``); the integer
    group-quantized types of :mod:`kvcalc.dtypes` have no vLLM equivalent.
    """
    model, kv = resolve_dtypes(spec, dtype, kv_dtype)
    if dtype is None and (model.bits != 16 or not model.is_float):
        model = BFLOAT16
        if kv_dtype is None:
            kv = model
    if not kv.is_float:
        raise UnsupportedError(f"vLLM has no '{kv.name}' KV-cache dtype; use fp8 or a 16-bit type")
    return model, kv


def element_bytes(d: DType) -> int:
    """Bytes per element of a floating dtype (vLLM's ``get_dtype_size``)."""
    return d.bits // 8
