"""vLLM's per-layer rows of a deployment: blocks of the shared pool, per layer and stage (kvcalc.layer_table).

A request of ``T`` tokens holds, per KV-cache group, the blocks its spec needs (``max_memory_usage_bytes``
/ page; ``T`` capped at ``max_model_len``), and a layer holds ``batch x blocks(group) x page_bytes``.
Where groups have fewer layers on a stage than the stage's group size, a block still costs
``group_size x page`` bytes (vllm/v1/core/kv_cache_utils.py ``get_kv_cache_config_from_groups``):
the unused slots are a ``padding`` row of their own. Bytes; ``tokens`` per sequence.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..layer_table import DRAFT, PADDING, LayerRow
from .defaults import vllm_dtypes
from .deployed import startup_plan
from .grouping import group_blocks, group_caches, kv_layer_partition
from .hybrid import engine_caches
from .specs import KVCacheSpec

if TYPE_CHECKING:
    from ..deployment import Deployment



@dataclass(frozen=True)
class VllmLayout:
    """A vLLM deployment's KV-cache groups and what one pool block costs on each stage (built once)."""

    groups: tuple[tuple[KVCacheSpec, ...], ...]
    uniform: bool
    stages: tuple[range, ...]
    stage_block_bytes: tuple[int, ...]   # one block of the shared pool, on one GPU of each stage
    mnbt: int                            # tokens in flight (max_in_flight_tokens), what windows hold beyond W - 1
    encoder_tokens: int
    max_model_len: int


def vllm_layout(d: Deployment) -> VllmLayout:
    """The deployment's :class:`VllmLayout`, memoized."""
    if "vllm_layout" not in d._memo:
        vp = startup_plan(d)
        model, kv = vllm_dtypes(d.spec, d.dtype, d.kv_dtype)
        groups, uniform = group_caches(engine_caches(d.spec, model, kv, vp.block_size, d.tp, vp.vllm_version,
                                                     vp.draft_layers)[0])
        stages, start = [], 0
        for n in kv_layer_partition(d.spec.num_layers, d.pp, vp.draft_layers):
            stages.append(range(start, start + n))
            start += n
        block_bytes = []
        for layers in stages:
            if uniform:
                block_bytes.append(sum(c.page_size_bytes for c in groups[0] if c.layer in layers))
            else:
                size = max(sum(1 for c in g if c.layer in layers) for g in groups)
                block_bytes.append(size * groups[0][0].page_size_bytes)
        d._memo["vllm_layout"] = VllmLayout(tuple(tuple(g) for g in groups), uniform, tuple(stages),
                                            tuple(block_bytes), vp.max_in_flight_tokens or vp.max_num_batched_tokens,
                                            d.spec.default_encoder_tokens or vp.max_num_batched_tokens,
                                            vp.max_model_len)
    layout: VllmLayout = d._memo["vllm_layout"]
    return layout


def vllm_block_bytes(d: Deployment) -> int:
    """Bytes one block of vLLM's shared pool costs on the busiest GPU (the largest over stages)."""
    return max(vllm_layout(d).stage_block_bytes)


def vllm_rows(d: Deployment, batch: int, context: int) -> list[LayerRow]:
    """One row per KV layer (drafter layers included) and one padding row per stage with unused slots."""
    lay = vllm_layout(d)
    tokens = min(context, lay.max_model_len)

    blocks = [group_blocks(g if lay.uniform else g[:1], tokens, lay.mnbt, lay.encoder_tokens) for g in lay.groups]
    per_layer: dict[int, int] = {}
    self_slots: dict[int, int] = {}
    cross_slots: dict[int, int] = {}
    for g, b in zip(lay.groups, blocks):
        for c in g:
            per_layer[c.layer] = per_layer.get(c.layer, 0) + batch * b * c.page_size_bytes
            context_slots, encoder_slots = c.token_slots(b)
            self_slots[c.layer] = max(self_slots.get(c.layer, 0), context_slots)
            cross_slots[c.layer] = max(cross_slots.get(c.layer, 0), encoder_slots)
    rows: list[LayerRow] = []
    padding: list[LayerRow] = []
    for stage, layers in enumerate(lay.stages):
        for index in layers:
            kind = d.spec.layers[index].kind if index < d.spec.num_layers else DRAFT
            held = self_slots.get(index) or cross_slots.get(index, 0)
            rows.append(LayerRow(index, kind, stage, held, per_layer.get(index, 0)))
        used = sum(per_layer.get(i, 0) for i in layers)
        unused = batch * sum(blocks) * lay.stage_block_bytes[stage] - used
        if unused:
            padding.append(LayerRow(-1, PADDING, stage, 0, unused))
    return rows + padding
