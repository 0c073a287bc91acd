"""SGLang's defaults and its own words, by release (tokens, MiB as SGLang counts them).

The current rules are SGLang 0.5.23's (the PyPI wheel of October 2026, read, not run; file:line in
tests/oracles/sglang_oracle.py, which transcribes them): ``python/sglang/srt/arg_groups/memory_hook.py``
``handle_gpu_memory_settings`` (GPU tiers, the reserve with the prefill CUDA-graph term),
``mem_cache/kv_cache_configurator.py`` (``_profile_available_bytes``, ``resolve_max_num_reqs``),
``model_executor/pool_configurator.py`` (the default and hybrid SWA pools). ``sglang_version="0.5.9"``
keeps the late-2025 rules the v0.5 logs of tests/fast/test_engine_logs.py came from
(``server_args.py`` ``ServerArgs._handle_gpu_memory_settings``, stored copy id 8356329;
``model_runner.py`` ``profile_max_num_token``, commit 0005834cdb2a5b7472789ccbf0d3361b5cf853b8 and its
v0.5.9 backport). ``sglang_version="0.4"`` keeps the v0.4.1-0.4.2 rules (the logs of January / February
2025; stored copies of ``server_args.py`` ``ServerArgs.__post_init__``, ``model_runner.py``
``profile_max_num_token`` / ``init_memory_pool`` and ``tp_worker.py`` ``TpModelWorker.__init__``): the same
token pool (``rest = available_after_load - pre_load_free x (1 - mem_fraction_static)``, one
``MHATokenToKVPool`` / ``MLATokenToKVPool`` for every layer, no hybrid SWA pool), the default
``mem_fraction_static`` a table by TP size (:data:`MEM_FRACTION_BY_TP_0_4`), ``chunked_prefill_size`` 2048
below 25,000 MiB else 8192 (it does not enter the budget there), and one more running request
(:func:`running_requests_0_4`).
"""
from __future__ import annotations

from ..units import GiB, MiB

SGLANG_VERSION = "0.5.23"
"""The release whose rules apply by default."""

SGLANG_VERSIONS = ("0.5.23", "0.5.9", "0.4")
"""Releases whose rules kvcalc keeps (``--sglang-version``)."""

MEM_FRACTION_BY_TP_0_4 = ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88))
"""v0.4 ``ServerArgs.__post_init__``: the default ``mem_fraction_static`` by ``tp_size`` (the first row whose TP
size it reaches), whatever the GPU; the v0.4.1 / v0.4.2 logs' server_args print 0.88 at TP 1."""

CHUNKED_PREFILL_SMALL_GPU_MIB_0_4 = 25_000
"""v0.4 ``ServerArgs.__post_init__``: ``chunked_prefill_size`` 2048 below this GPU memory (MiB), else 8192."""

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

SWA_POOL_TOO_SMALL = (
    "ValueError: SWA pool ({swa} tokens) cannot hold even one request: the prefill admission floor is "
    "sliding_window_size ({window}) + page_size ({page}). Increase --swa-full-tokens-ratio or the total KV budget.")
"""0.5.23 ``pool_configurator.py`` ``validate_swa_pool_size`` (:198-216) when the SWA pool is that small."""

LONG_CONTEXT_ENV = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"

LONG_CONTEXT_ERROR = (
    "User-specified context_length ({given}) is greater than the derived context_length ({derived}). "
    "This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length may differ "
    "from max_position_embeddings in the model's config. To allow overriding this maximum, set the env var "
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")
"""``ModelConfig.__init__`` (configs/model_config.py) when ``--context-length`` exceeds the model's."""


def gpu_tier(gpu_mem_mib: float, tp_size: int, version: str = SGLANG_VERSION) -> tuple[int, int]:
    """(chunked_prefill_size, decode cuda_graph_max_bs) SGLang picks by GPU memory on CUDA
    (0.5.23: ``arg_groups/memory_hook.py`` :90-160; 0.5.9: ``ServerArgs._handle_gpu_memory_settings``;
    MiB as nvidia-smi reports). 0.5.23 moved 20-35 GiB cards to 4096 / 48 (160 at tp >= 4).

    >>> gpu_tier(24564, 1), gpu_tier(24564, 1, "0.5.9")
    ((4096, 48), (2048, 24))
    """
    small_tp = tp_size < 4
    if gpu_mem_mib < 20 * 1024:
        return 2048, 8
    if gpu_mem_mib < 35 * 1024:
        if version == "0.5.9":
            return 2048, 24 if small_tp else 80
        return 4096, 48 if small_tp else 160
    if gpu_mem_mib < 60 * 1024:
        return 4096, 32 if small_tp else 160
    if gpu_mem_mib < 160 * 1024:
        return 8192, 256 if small_tp else 512
    return 16384, 512


def prefill_graph_count(max_bs: int) -> int:
    """Token buckets of the prefill CUDA graph up to ``max_bs`` (0.5.23 ``cuda_graph_hook.py``
    ``generate_prefill_cuda_graph_batch_sizes``: 4..32 by 4, 48..256 by 16, 288..512 by 32, 576..1024 by 64,
    1280..4096 by 256, then by 512).

    >>> prefill_graph_count(4096), prefill_graph_count(8192)
    (50, 58)
    """
    sizes = (*range(4, 33, 4), *range(48, 257, 16), *range(288, 513, 32), *range(576, 1025, 64),
             *range(1280, 4097, 256), *range(4608, max_bs + 1, 512))
    return sum(1 for s in sizes if s <= max_bs)


def graph_reserve_mib(decode_bs: int, chunked: int, *, pp_size: int, mla: bool, max_total_tokens: int | None,
                      prefill_graph: bool = True) -> float:
    """0.5.23 ``reserve_for_graph_mb``: 2 MiB per decode batch size, plus the prefill graph (breakable by
    default on CUDA, off under pipeline parallelism and for most multimodal models, ``prefill_graph``
    False: kvcalc.sglang.vlm): 8 MiB per token bucket up to ``chunked_prefill_size`` (capped by
    ``--max-total-tokens``), or 1.5 GiB for MLA."""
    reserve = decode_bs * 2.0
    if pp_size == 1 and prefill_graph:
        if mla:
            reserve += 1.5 * 1024
        else:
            top = chunked if max_total_tokens is None else min(chunked, max_total_tokens)
            reserve += prefill_graph_count(top) * 8
    return reserve


def default_mem_fraction_static(total_gpu_bytes: int, tp_size: int = 1, pp_size: int = 1, *, mla: bool = False,
                                max_running_requests: int | None = None, max_total_tokens: int | None = None,
                                version: str = SGLANG_VERSION, prefill_graph: bool = True) -> float:
    """SGLang's default ``--mem-fraction-static`` (``handle_gpu_memory_settings``).

    0.4: :data:`MEM_FRACTION_BY_TP_0_4`. 0.5:
    ``reserved = 512 + max(chunked_prefill_size, 2048) x 1.5 + tp x pp / 8 x 1024 + graphs`` MiB, at least
    10 GiB on GPUs above 60 GiB; ``round((gpu_mem - reserved) / gpu_mem, 3)``, gpu_mem in MiB.
    ``graphs``: 0.5.23 :func:`graph_reserve_mib` (the decode graph's max batch capped by
    ``--max-running-requests``); 0.5.9 ``cuda_graph_max_bs x 2``. ``prefill_graph`` False drops the prefill
    graph term (multimodal models; their ViT scaling is kvcalc.sglang.vlm). Not modelled: DP attention,
    speculative decoding and DeepEP, each of which reserves more.

    Llama-3.1-8B on a 24 GiB RTX 4090 (24,564 MiB): 512 + 6,144 + 128 + 48 x 2 + 50 x 8 = 7,280 MiB reserved:

    >>> from kvcalc.units import MiB
    >>> default_mem_fraction_static(24564 * MiB), default_mem_fraction_static(24564 * MiB, version="0.5.9")
    (0.704, 0.847)
    >>> default_mem_fraction_static(24564 * MiB, 8, version="0.4")
    0.81
    """
    if version == "0.4":
        return next(f for t, f in MEM_FRACTION_BY_TP_0_4 if tp_size >= t)
    gpu_mem = total_gpu_bytes / MiB
    chunked, graph_bs = gpu_tier(gpu_mem, tp_size, version)
    reserved = RESERVED_BASE_MIB + max(chunked, 2048) * 1.5 + tp_size * pp_size / 8 * 1024
    if version == "0.5.9":
        reserved += graph_bs * 2
    else:
        if max_running_requests is not None:
            graph_bs = min(graph_bs, max_running_requests)
        reserved += graph_reserve_mib(graph_bs, chunked, pp_size=pp_size, mla=mla, max_total_tokens=max_total_tokens,
                                      prefill_graph=prefill_graph)
    if gpu_mem > 60 * 1024:
        reserved = max(reserved, RESERVED_FLOOR_MIB_LARGE_GPU)
    return round((gpu_mem - reserved) / gpu_mem, 3)


def default_max_running_requests(max_total_num_tokens: int, context_len: int) -> int:
    """Requests the scheduler runs at once when ``--max-running-requests`` is not given, before 0.5.23's
    cap at half the pool (``kvcalc.sglang.budget``; ``kv_cache_configurator.py`` :3119-3132).

    ``min(max(int(max_total_num_tokens / context_len x 512), 2048), 4096)`` (``max_num_reqs``,
    model_runner.py ``init_memory_pool`` / ``resolve_max_num_reqs``): the v0.5 logs print 2048 and
    4096 (tests/fast/test_engine_logs.py); v0.4 printed one more (:func:`running_requests_0_4`).

    >>> default_max_running_requests(104273, 40960)
    2048
    """
    return min(max(int(max_total_num_tokens / context_len * 512), 2048), 4096)


def chunked_prefill_size_0_4(gpu_mem_mib: float) -> int:
    """v0.4's default ``--chunked-prefill-size`` (tokens): 2048 below 25,000 MiB, else 8192.

    >>> chunked_prefill_size_0_4(24576), chunked_prefill_size_0_4(81559)
    (2048, 8192)
    """
    return 2048 if gpu_mem_mib < CHUNKED_PREFILL_SMALL_GPU_MIB_0_4 else 8192


def running_requests_0_4(max_total_num_tokens: int, context_len: int, given: int | None = None) -> int:
    """v0.4's ``max_running_requests`` (``tp_worker.py`` ``TpModelWorker.__init__``):
    ``min(given or max_total_num_tokens // 2, req_to_token_pool.size)``, where ``model_runner.py``
    ``init_memory_pool`` sized the request pool ``ReqToTokenPool(size=max_num_reqs + 1)`` and ``max_num_reqs``
    is ``given`` or :func:`default_max_running_requests`' rule; 0.5 dropped the extra slot from the count.

    The v0.4.1 log on an 80 GB card: 444,500 tokens at context 131,072 -> ``min(222,250, 2,048 + 1)``:

    >>> running_requests_0_4(444500, 131072), running_requests_0_4(444500, 131072, given=64)
    (2049, 64)
    """
    reqs = given if given is not None else default_max_running_requests(max_total_num_tokens, context_len)
    return min(given if given is not None else max_total_num_tokens // 2, reqs + 1)
