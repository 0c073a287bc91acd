"""vLLM's startup, step 4: the model length the pool serves and the capacity lines it logs (tokens, blocks).

Sources (vllm-project/vllm 0.33.0, read, not copied): ``v1/core/kv_cache_planning.py``
(``get_kv_cache_configs``: ``_auto_fit_max_model_len`` for ``--max-model-len -1``,
``check_enough_kv_cache_memory`` (one ``max_model_len`` request must fit, else the refusal with
``estimate_max_model_len``, ``_estimate_max_model_len_from_groups``) and ``v1/core/kv_cache_utils.py``
(``get_kv_cache_capacity`` and ``get_max_concurrency_for_kv_cache_config``: the "GPU KV cache size"
and "Maximum concurrency" figures ``update_kv_cache_capacity`` logs).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dtypes import ceil_div
from ..solve import largest_true
from .grouping import VllmCacheGroup, group_request_bytes, workers
from .pool import VllmKvPool
from .specs import KVCacheSpec
from .startup import VllmEngineConfig


@dataclass(frozen=True)
class VllmModelLength:
    """Step 4a's record: the ``max_model_len`` served and whether one such request fits (bytes, tokens).

    ``needed_kv_bytes``: per pipeline stage, the KV one ``max_model_len`` request needs there;
    ``fits``: a positive budget and every stage's need within its ``check_kv_bytes``;
    ``estimated_max_model_len``: the longest length that would fit (only when it does not; 0 = none).
    ``auto_fitted``: the length came from ``--max-model-len -1``, at most ``derived_max_model_len``.
    """

    max_model_len: int
    auto_fitted: bool
    derived_max_model_len: int
    needed_kv_bytes: tuple[int, ...]
    fits: bool
    estimated_max_model_len: int | None


def stage_needs(config: VllmEngineConfig, pool: VllmKvPool, tokens: int) -> tuple[int, ...]:
    """Per stage holding KV layers, the bytes one request of ``tokens`` needs there (``max_memory_usage_bytes``
    summed over groups, times the stage's group size and page)."""
    stages = workers(pool.groups, pool.uniform_type, pool.partition, max(pool.available_kv_bytes, 0), tokens,
                     config.max_in_flight_tokens, config.encoder_tokens)
    return tuple(w.needed_bytes for w in stages)


def longest_fitting_length(config: VllmEngineConfig, pool: VllmKvPool, limit: int) -> int:
    """Largest length in ``[1, limit]`` whose one request fits every stage's ``check_kv_bytes``, 0 if none
    (``_estimate_max_model_len_from_groups``, v1/core/kv_cache_planning.py: a bisection).

    Llama 3.1 8B, 2 MiB pool blocks of 16 tokens, an 8 GiB budget less the 2 MiB null block: a request
    may hold (8 GiB - 2 MiB) / 2 MiB = 4,095 blocks, 4,095 x 16 = 65,520 tokens:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> from kvcalc.vllm.pool import vllm_kv_pool
    >>> from kvcalc.vllm.startup import vllm_engine_config
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> c = vllm_engine_config(spec, total_gpu_bytes=80 * 2**30, max_model_len=131072)
    >>> longest_fitting_length(c, vllm_kv_pool(spec, c, 8 * 2**30), 131072)
    65520
    """
    checks = pool.check_kv_bytes

    def fits(length: int) -> bool:
        stages = workers(pool.groups, pool.uniform_type, pool.partition, max(list(checks) + [0]), length,
                         config.max_in_flight_tokens, config.encoder_tokens)
        return all(w.needed_bytes <= c for w, c in zip(stages, checks))

    return largest_true(fits, limit) or 0


def vllm_model_length(config: VllmEngineConfig, pool: VllmKvPool) -> VllmModelLength:
    """Step 4a: the length served and the one-request fit check (``check_enough_kv_cache_memory``).

    ``needed = group_size x page_bytes x sum over groups of cdiv(max_memory_usage_bytes, page)`` per
    stage; it fits when ``available > 0`` and ``needed <= check_kv_bytes`` on every stage. Auto-fit
    (0.33, ``_auto_fit_max_model_len``): the longest fitting length, at most the model's derived
    maximum (that maximum when none fits, and vLLM then refuses).

    Llama 3.1 8B with 4,096 blocks of 2 MiB (8 GiB): 8,192 tokens need 8,192 / 16 = 512 blocks =
    1 GiB and fit; 131,072 tokens need 8,192 blocks = 16 GiB and do not, the estimate being 65,520:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> from kvcalc.vllm.pool import vllm_kv_pool
    >>> from kvcalc.vllm.startup import vllm_engine_config
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> def length(max_model_len):
    ...     c = vllm_engine_config(spec, total_gpu_bytes=80 * 2**30, max_model_len=max_model_len,
    ...                            derived_max_model_len=131072)
    ...     return vllm_model_length(c, vllm_kv_pool(spec, c, 8 * 2**30))
    >>> short = length(8192)
    >>> short.fits, short.needed_kv_bytes == (2**30,)
    (True, True)
    >>> long = length(131072)
    >>> long.fits, long.needed_kv_bytes == (16 * 2**30,), long.estimated_max_model_len
    (False, True, 65520)
    >>> length(-1).max_model_len
    65520
    """
    max_model_len, derived = config.max_model_len, config.derived_max_model_len
    if config.auto_fit:
        max_model_len = longest_fitting_length(config, pool, derived) or derived
        needed = stage_needs(config, pool, max_model_len)
    else:
        needed = tuple(w.needed_bytes for w in pool.stages)
    fits = pool.available_kv_bytes > 0 and all(c > 0 and n <= c for n, c in zip(needed, pool.check_kv_bytes))
    estimated = None if fits else longest_fitting_length(config, pool, max_model_len)
    return VllmModelLength(max_model_len=max_model_len, auto_fitted=config.auto_fit, derived_max_model_len=derived,
                           needed_kv_bytes=needed, fits=fits, estimated_max_model_len=estimated)


@dataclass(frozen=True)
class VllmKvCapacity:
    """Step 4b's record: the "GPU KV cache size" and "Maximum concurrency" figures (tokens, blocks).

    ``groups``: each KV-cache group with the blocks one ``max_model_len`` request holds in it;
    ``blocks_per_request``: their sum; ``max_concurrency = num_gpu_blocks / blocks_per_request``;
    ``kv_cache_tokens``: 0.33 ``int(max_concurrency x max_model_len)``, 0.10 ``num_gpu_blocks //
    len(groups) x min block_size``.
    """

    groups: tuple[VllmCacheGroup, ...]
    page_bytes: int
    blocks_per_request: int
    max_concurrency: float
    kv_cache_tokens: int


def _group_view(config: VllmEngineConfig, pool: VllmKvPool, members: tuple[KVCacheSpec, ...],
                max_model_len: int) -> VllmCacheGroup:
    page, usage = group_request_bytes(members, pool.uniform_type, max_model_len, config.max_in_flight_tokens,
                                      config.encoder_tokens)
    return VllmCacheGroup(kind="+".join(sorted({c.kind for c in members})), layers=tuple(c.layer for c in members),
                          block_size=members[0].block_size, page_bytes=page, window=members[0].window,
                          blocks_per_request=ceil_div(usage, page), uniform_type=pool.uniform_type)


def vllm_kv_capacity(config: VllmEngineConfig, pool: VllmKvPool, max_model_len: int) -> VllmKvCapacity:
    """Step 4b: the capacity vLLM logs (``get_kv_cache_capacity``, ``get_max_concurrency_for_kv_cache_config``).

    Llama 3.1 8B, 4,096 blocks of 16 tokens, ``max_model_len`` 8,192: a request holds 8,192 / 16 = 512
    blocks, so 4,096 / 512 = 8.0 requests fit and the cache holds int(8.0 x 8,192) = 65,536 tokens
    (= 4,096 blocks x 16 tokens):

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> from kvcalc.vllm.pool import vllm_kv_pool
    >>> from kvcalc.vllm.startup import vllm_engine_config
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> c = vllm_engine_config(spec, total_gpu_bytes=80 * 2**30, max_model_len=8192)
    >>> cap = vllm_kv_capacity(c, vllm_kv_pool(spec, c, 8 * 2**30), 8192)
    >>> cap.blocks_per_request, cap.max_concurrency, cap.kv_cache_tokens
    (512, 8.0, 65536)
    """
    views = tuple(_group_view(config, pool, g, max_model_len) for g in pool.groups)
    blocks_per_request = sum(g.blocks_per_request for g in views)
    concurrency = pool.num_gpu_blocks / blocks_per_request
    if config.engine.tokens_from_concurrency:
        tokens = int(concurrency * max_model_len)
    else:
        tokens = pool.num_gpu_blocks // len(views) * min(g.block_size for g in views)
    return VllmKvCapacity(groups=views, page_bytes=views[0].page_bytes, blocks_per_request=blocks_per_request,
                          max_concurrency=concurrency, kv_cache_tokens=tokens)
