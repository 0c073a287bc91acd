"""vLLM's KV-cache groups, page-size unification, and per-worker block counts (bytes, blocks).

Sources (vllm-project/vllm, read, not copied): ``v1/core/kv_cache_utils.py``
(``get_kv_cache_groups``: one group when every layer has the same spec; ``UniformTypeKVCacheSpecs``
when all layers are one type with different page sizes; otherwise ``unify_kv_cache_spec_page_size``
and ``_get_kv_cache_groups_uniform_page_size``, groups of ``group_size`` layers;
``_project_kv_cache_groups_to_worker``, ``get_kv_cache_config_from_groups``: per worker
``available // page_size // group_size`` blocks) and ``distributed/utils.py`` (``get_pp_indices``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..dtypes import ceil_div
from ..errors import InputError, UnsupportedError
from .specs import KVCacheSpec, SpecKey

Groups = list[list[KVCacheSpec]]
GroupSpecs = Sequence[Sequence[KVCacheSpec]]
"""Groups as the pool record holds them (tuples) or :func:`group_caches` returns them (lists)."""


def pp_layer_partition(num_layers: int, pipeline_parallel_size: int) -> tuple[int, ...]:
    """Decoder layers per pipeline stage (``vllm.distributed.utils.get_pp_indices``).

    ``num_layers // pp`` each; the remainder goes one layer each to the stages just before the last
    (the last stage also holds the LM head). ``VLLM_PP_LAYER_PARTITION`` overrides are not modelled.

    32 layers over 3 stages: 10 each, the 2 left over to the two stages before the last:

    >>> pp_layer_partition(32, 3), pp_layer_partition(32, 2)
    ((11, 11, 10), (16, 16))
    """
    if pipeline_parallel_size > num_layers:
        raise InputError(f"pipeline_parallel_size ({pipeline_parallel_size}) exceeds the {num_layers} layers")
    parts = [num_layers // pipeline_parallel_size] * pipeline_parallel_size
    for i in range(2, num_layers % pipeline_parallel_size + 2):
        parts[-i] += 1
    return tuple(parts)


def kv_layer_partition(num_layers: int, pipeline_parallel_size: int, draft_layers: int = 0) -> tuple[int, ...]:
    """KV-cache layers per pipeline stage: :func:`pp_layer_partition`, plus the speculative drafter's
    ``draft_layers`` on the last stage (where vLLM runs the drafter, kvcalc.vllm.speculative).

    >>> kv_layer_partition(32, 2, draft_layers=1)
    (16, 17)
    """
    parts = list(pp_layer_partition(num_layers, pipeline_parallel_size))
    parts[-1] += draft_layers
    return tuple(parts)


@dataclass(frozen=True)
class VllmCacheGroup:
    """One KV-cache group: layers sharing a block table (``KVCacheGroupSpec``).

    ``uniform_type`` marks vLLM's ``UniformTypeKVCacheSpecs`` (all layers full attention with
    different page sizes: one group whose block spans every layer); ``page_bytes`` is then the sum
    of the layers' pages. ``blocks_per_request`` is at ``max_model_len``, as vLLM's
    ``max_memory_usage_bytes`` counts it.
    """

    kind: str
    layers: tuple[int, ...]
    block_size: int
    page_bytes: int
    window: int | None
    blocks_per_request: int
    uniform_type: bool = False


def is_uniform_type(caches: Sequence[KVCacheSpec]) -> bool:
    """``UniformTypeKVCacheSpecs.is_uniform_type``: one block size, and every layer of one type."""
    first = caches[0]
    return len({c.block_size for c in caches}) == 1 and all(first.same_type(c) for c in caches)


def group_caches(caches: Sequence[KVCacheSpec]) -> tuple[Groups, bool]:
    """Split the model's layer specs into KV-cache groups (``get_kv_cache_groups``); True if uniform-type.

    Gemma 2 9B's 21 sliding and 21 full layers have equal pages (16 x 8 x 512 x 2 B), so no block
    grows; the group size is min(21, 21) = 21, one group per type:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> from kvcalc.dtypes import BFLOAT16
    >>> from kvcalc.vllm.specs import layer_caches
    >>> gemma = read_spec(read_data_json("configs", "google__gemma-2-9b-it.json"))
    >>> groups, uniform = group_caches(layer_caches(gemma, BFLOAT16, BFLOAT16))
    >>> [(g[0].kind, len(g)) for g in groups], uniform
    ([('sliding', 21), ('full', 21)], False)
    """
    if len({c.key for c in caches}) == 1:
        return [list(caches)], False
    if is_uniform_type(caches):
        return [list(caches)], True
    # unify_kv_cache_spec_page_size: grow the block size of layers with smaller pages
    max_page = max(c.page_size_bytes for c in caches)
    unified: list[KVCacheSpec] = []
    for c in caches:
        if c.page_size_bytes == max_page:
            unified.append(c)
            continue
        if max_page % c.page_size_bytes:
            raise UnsupportedError("vLLM cannot unify these layers' page sizes by growing block sizes "
                                   f"({c.page_size_bytes} B does not divide {max_page} B)")
        unified.append(c.grown(max_page // c.page_size_bytes))
    # _get_kv_cache_groups_uniform_page_size
    same_type: dict[SpecKey, list[KVCacheSpec]] = {}
    for c in unified:
        same_type.setdefault(c.key, []).append(c)
    sizes = [len(v) for v in same_type.values()]
    group_size = min(sizes)
    if max(sizes) < group_size * 1.5:
        group_size = max(sizes)
    groups: Groups = []
    for members in same_type.values():
        num_groups = ceil_div(len(members), group_size)
        for i in range(num_groups):
            groups.append(members[i::num_groups])
    return groups, False


def group_blocks(members: Sequence[KVCacheSpec], tokens: int, mnbt: int, enc: int) -> int:
    """Blocks one request of ``tokens`` holds in one group: the most any of ``members`` holds.

    Pass every member of a uniform-type group; a plain group's members share one spec, so one
    (or one per distinct key) is enough. ``max_memory_usage_bytes / page_size`` (``cap=False``).
    """
    return max(c.blocks(tokens, max_num_batched_tokens=mnbt, encoder_tokens=enc) for c in members)


def group_request_bytes(members: Sequence[KVCacheSpec], uniform: bool, tokens: int, mnbt: int,
                        enc: int) -> tuple[int, int]:
    """(page bytes of the group, max_memory_usage_bytes of its merged spec) for one request of ``tokens``."""
    if uniform:
        page = sum(c.page_size_bytes for c in members)
        return page, group_blocks(members, tokens, mnbt, enc) * page
    return members[0].page_size_bytes, members[0].max_memory_usage_bytes(tokens, max_num_batched_tokens=mnbt,
                                                                         encoder_tokens=enc)


@dataclass(frozen=True)
class Worker:
    """Blocks one pipeline stage can hold, and the KV bytes it needs for one max-length request."""

    stage: int
    layers: int
    group_size: int
    num_blocks: int
    needed_bytes: int
    block_bytes: int          # bytes one block of the shared pool costs on this stage


def _worker(stage: int, groups: GroupSpecs, uniform: bool, layer_range: range,
            available: int, tokens: int, mnbt: int, enc: int) -> Worker | None:
    """One pipeline stage's view (``_project_kv_cache_groups_to_worker`` + ``get_kv_cache_config_from_groups``)."""
    projected = [[c for c in g if c.layer in layer_range] for g in groups]
    if not any(projected):
        return None
    page = groups[0][0].page_size_bytes
    if uniform:
        members = projected[0]
        page_sum, needed = group_request_bytes(members, True, tokens, mnbt, enc)
        return Worker(stage, len(members), len(members), max(available // page_sum, 0), needed, page_sum)
    group_size = max(len(g) for g in projected)
    num_blocks = max(int(available // page // group_size), 0)
    blocks_needed = sum(ceil_div(group_request_bytes(g, False, tokens, mnbt, enc)[1], page) for g in groups)
    return Worker(stage, sum(len(g) for g in projected), group_size, num_blocks, group_size * page * blocks_needed,
                  group_size * page)


def workers(groups: GroupSpecs, uniform: bool, partition: Sequence[int],
            available: int, tokens: int, mnbt: int, enc: int) -> list[Worker]:
    """The pipeline stages that hold KV-cache layers, in stage order (``get_kv_cache_configs``)."""
    out, start = [], 0
    for stage, n in enumerate(partition):
        w = _worker(stage, groups, uniform, range(start, start + n), available, tokens, mnbt, enc)
        if w is not None:
            out.append(w)
        start += n
    return out
