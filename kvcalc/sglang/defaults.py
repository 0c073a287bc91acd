"""SGLang's defaults and its own words, pinned to one release line (tokens, MiB as SGLang counts them).

Pinned: the v0.5 line of late 2025, read from stored copies of sgl-project/sglang (code index):
``python/sglang/srt/server_args.py`` ``ServerArgs._handle_gpu_memory_settings`` (stored copy id 8356329),
``python/sglang/srt/model_executor/model_runner.py`` / ``model_runner_kv_cache_mixin.py``
``profile_max_num_token`` (commit 0005834cdb2a5b7472789ccbf0d3361b5cf853b8 and its v0.5.9 backport).
SGLang's main of 2026 (server_args.py at 001067fffe33427bee0ed2f007fb7551a1d76b44) restructured
both files; its defaults may differ. The token-pool rule is the same in the v0.4 logs the tests
reproduce (tests/fast/test_engine_logs.py); the default ``mem_fraction_static`` changed in v0.5 (v0.4: a
table by TP size, 0.88 / 0.87 / 0.85 / 0.81 / 0.79 for tp 1 / 2 / 4 / 8 / 16), so give
``mem_fraction_static`` for an older release.
"""
from __future__ import annotations

from ..units import GiB, MiB

SGLANG_VERSION = "0.5"
"""The release line whose rules apply."""

DEFAULT_PAGE_SIZE = 1
"""``ServerArgs.page_size`` default: the token pool pages one token at a time."""

DEFAULT_PRELOAD_USED_BYTES = round(0.86 * GiB)
"""GPU memory in use before the weights load (CUDA context, NCCL, torch distributed): an assumption.
SGLang measures the free memory at that point (``get_available_gpu_memory`` before ``load_model``);
kvcalc cannot, so it takes 0.86 GiB, what the public QwQ-32B log on 4 x L4 shows (22.49 GiB card,
'Load weight begin. avail mem=21.63 GB'). Measure it with ``non_torch_gib``."""

RESERVED_BASE_MIB = 512
"""``_handle_gpu_memory_settings``: constant metadata (attention backend) in the reserved memory."""

RESERVED_FLOOR_MIB_LARGE_GPU = 10 * 1024
"""... and at least 10 GiB reserved on GPUs above 60 GiB."""

KV_CACHE_DTYPES = ("auto", "bf16", "bfloat16", "fp8_e4m3", "fp8_e5m2")
"""``--kv-cache-dtype`` choices kvcalc models (server_args.py; fp4_e2m1 is not modelled)."""

NOT_ENOUGH_MEMORY = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
"""``ModelRunner.init_memory_pool`` when the token pool would be empty."""

LONG_CONTEXT_ENV = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"

LONG_CONTEXT_ERROR = (
    "User-specified context_length ({given}) is greater than the derived context_length ({derived}). "
    "This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length may differ "
    "from max_position_embeddings in the model's config. To allow overriding this maximum, set the env var "
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")
"""``ModelConfig.__init__`` (configs/model_config.py) when ``--context-length`` exceeds the model's."""


def gpu_tier(gpu_mem_mib: float, tp_size: int) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) SGLang picks by GPU memory on CUDA
    (``ServerArgs._handle_gpu_memory_settings``; MiB as ``get_device_memory_capacity`` reports)."""
    small_tp = tp_size < 4
    if gpu_mem_mib < 20 * 1024:
        return 2048, 8
    if gpu_mem_mib < 35 * 1024:
        return 2048, 24 if small_tp else 80
    if gpu_mem_mib < 60 * 1024:
        return 4096, 32 if small_tp else 160
    if gpu_mem_mib < 160 * 1024:
        return 8192, 256 if small_tp else 512
    return 16384, 512


def default_mem_fraction_static(total_gpu_bytes: int, tp_size: int = 1, pp_size: int = 1) -> float:
    """SGLang's default ``--mem-fraction-static`` (``ServerArgs._handle_gpu_memory_settings``).

    ``reserved = 512 + max(chunked_prefill_size, 2048) x 1.5 + cuda_graph_max_bs x 2 + tp x pp / 8 x 1024``
    MiB, at least 10 GiB on GPUs above 60 GiB; ``round((gpu_mem - reserved) / gpu_mem, 3)``, gpu_mem in MiB.
    Not modelled: DP attention, speculative decoding and the multimodal adjustment, each of which
    reserves more.
    """
    gpu_mem = total_gpu_bytes / MiB
    chunked, graph_bs = gpu_tier(gpu_mem, tp_size)
    reserved = RESERVED_BASE_MIB + max(chunked, 2048) * 1.5 + graph_bs * 2 + tp_size * pp_size / 8 * 1024
    if gpu_mem > 60 * 1024:
        reserved = max(reserved, RESERVED_FLOOR_MIB_LARGE_GPU)
    return round((gpu_mem - reserved) / gpu_mem, 3)


def default_max_running_requests(max_total_num_tokens: int, context_len: int) -> int:
    """Requests the scheduler runs at once when ``--max-running-requests`` is not given.

    ``min(max(int(max_total_num_tokens / context_len x 512), 2048), 4096)`` (``max_num_reqs``,
    model_runner.py ``init_memory_pool`` / ``resolve_max_num_reqs``): the v0.5 logs print 2048 and
    4096 (tests/fast/test_engine_logs.py). v0.4.3 printed one more (2049: its request pool had a padding slot).
    """
    return min(max(int(max_total_num_tokens / context_len * 512), 2048), 4096)
