"""Per-layer KV bytes of a deployment: the rows the plan's KV figure is the sum of.

``layer_bytes(deployment, batch, context)`` gives one row per decoder layer: the pipeline stage
it sits on and the bytes its cache holds on ONE GPU of that stage (one tensor-parallel rank), at
``batch`` sequences of ``context`` tokens, by the deployment's own runtime rules:

``ideal`` / ``transformers``
    kvcalc.kv on the rank's spec (KV heads ``max(1, kv // tp)``, MLA whole, states / tp).
``vllm``
    Blocks of the shared pool (kvcalc.vllm): a request of ``T`` tokens holds, per KV-cache group,
    the blocks its spec needs (``max_memory_usage_bytes`` / page; ``T`` capped at ``max_model_len``),
    and a layer holds ``batch x blocks(group) x page_bytes``. Where groups have fewer layers on a
    stage than the stage's group size, a block still costs ``group_size x page`` bytes
    (``get_kv_cache_config_from_groups``): the unused slots are a ``padding`` row of their own.

``sglang`` / ``tensorrt_llm``
    The engine's pool (kvcalc.engine): a request holds ``ceil(T / page_size)`` pages of
    ``page_size`` token slots (``T`` capped at the engine's maximum), every layer
    ``batch x slots x its per-token cell``; under SGLang's hybrid SWA pool a sliding layer holds
    ``ceil(min(T, window) / page_size)`` pages of the SWA pool instead.

``llama_cpp``
    The cells ``batch`` requests of ``T`` tokens occupy in llama.cpp's preallocated cache
    (kvcalc.llama_cpp.seam.LayerCells): a full-attention layer ``min(T, n_ctx_seq)`` per request, a
    sliding-window layer at most its window, times the layer's bytes per cell (its cache's K/V types;
    the SWA cache's own). Layers ``-ngl`` leaves on the host (or all, with ``-nkvo``) are rows with
    ``device = "host"``: not in the GPU sums.

``LayerTable.per_gpu_bytes`` (the busiest stage) is the plan's ``kv_bytes`` and
``LayerTable.all_gpus_bytes`` (every stage x tp ranks) its ``kv_bytes_total``, exactly: kvcalc.plan
takes them from here. Units: bytes; ``tokens`` is the token slots a layer keeps per sequence.
"""
from __future__ import annotations

from dataclasses import dataclass

from .deployment import Deployment
from .engine import layer_cell_bytes
from .kv import kv_cache
from .limits import MAX_BATCH, MAX_CONTEXT, check_count
from .llama_cpp.seam import LayerCells, layer_cells
from .parallel import stage_specs
from .runtimes import ENGINE_RUNTIMES
from .vllm import KVCacheSpec, vllm_dtypes
from .vllm.grouping import group_blocks, group_caches, kv_layer_partition
from .vllm.hybrid import engine_caches

PADDING = "padding"
"""``LayerRow.kind`` of the unused slots of shared vLLM blocks (``index`` is -1)."""

DRAFT = "draft"
"""``LayerRow.kind`` of a speculative drafter's KV layer under vLLM (MTP / EAGLE; index from the layer count)."""


@dataclass(frozen=True)
class LayerRow:
    """One layer's cache on one GPU of its pipeline stage (or a stage's vLLM block padding)."""

    index: int
    kind: str
    stage: int
    tokens: int
    bytes: int
    device: str = "gpu"          # "host": llama.cpp keeps this layer's cache in host memory (-ngl / -nkvo)


@dataclass(frozen=True)
class LayerTable:
    """Every layer's row, in layer order (padding rows last), and the sums the plan reports."""

    rows: tuple[LayerRow, ...]
    runtime: str
    batch: int
    context: int
    tensor_parallel_size: int
    pipeline_parallel_size: int

    def stage_bytes(self, stage: int) -> int:
        """Bytes on one GPU of pipeline stage ``stage``."""
        return sum(r.bytes for r in self.rows if r.stage == stage and r.device == "gpu")

    @property
    def busiest_stage(self) -> int:
        """The stage whose GPUs hold the most KV bytes (the first such stage)."""
        totals = [self.stage_bytes(s) for s in range(self.pipeline_parallel_size)]
        return totals.index(max(totals))

    @property
    def per_gpu_bytes(self) -> int:
        """KV bytes on the busiest GPU (the plan's ``kv_bytes``)."""
        return self.stage_bytes(self.busiest_stage)

    @property
    def all_gpus_bytes(self) -> int:
        """KV bytes across every GPU: each stage's rank bytes x tp (the plan's ``kv_bytes_total``)."""
        return sum(r.bytes for r in self.rows if r.device == "gpu") * self.tensor_parallel_size

    @property
    def host_bytes(self) -> int:
        """KV bytes kept in host memory (llama.cpp layers off the GPU)."""
        return sum(r.bytes for r in self.rows if r.device == "host")


def layer_bytes(deployment: Deployment, batch: int, context: int) -> LayerTable:
    """The per-layer table of ``deployment`` at ``batch`` x ``context`` (module docstring)."""
    batch = check_count("batch", batch, 1, MAX_BATCH)
    context = check_count("context", context, 1, MAX_CONTEXT)
    if deployment.runtime == "vllm":
        rows = _vllm_rows(deployment, batch, context)
    elif deployment.runtime == "llama_cpp":
        rows = _llama_rows(deployment, batch, context)
    elif deployment.runtime in ENGINE_RUNTIMES:
        rows = _engine_rows(deployment, batch, context)
    else:
        rows = _direct_rows(deployment, batch, context)
    return LayerTable(tuple(rows), deployment.runtime, batch, context, deployment.tp, deployment.pp)


def _direct_rows(d: Deployment, batch: int, context: int) -> list[LayerRow]:
    rows: list[LayerRow] = []
    for stage, spec in enumerate(stage_specs(d.rank, d.pp)):
        if not spec.layers:
            continue
        r = kv_cache(spec, batch=batch, context=context, dtype=d.model_dtype, kv_dtype=d.kv, runtime=d.runtime)
        rows.extend(LayerRow(l.index, l.kind, stage, l.tokens, l.bytes) for l in r.layers)
    return rows


def _engine_rows(d: Deployment, batch: int, context: int) -> list[LayerRow]:
    ep = d.engine_plan()
    full, swa = ep.request_tokens(context), ep.request_swa_tokens(context)
    rows = []
    for stage, spec in enumerate(stage_specs(d.rank, d.pp)):
        for layer in spec.layers:
            windowed = ep.swa_cell_bytes and any(a.window for a in layer.attention)
            slots = swa if windowed else full
            rows.append(LayerRow(layer.index, layer.kind, stage, slots, batch * slots * layer_cell_bytes(layer, d.kv)))
    return rows


def llama_layer_cells(d: Deployment) -> tuple[LayerCells, ...]:
    """The deployment's llama.cpp layers (kvcalc.llama_cpp.seam.layer_cells), memoized."""
    if "llama_cells" not in d._memo:
        d._memo["llama_cells"] = layer_cells(d.spec, d.llama_plan())
    cells: tuple[LayerCells, ...] = d._memo["llama_cells"]
    return cells


def _llama_rows(d: Deployment, batch: int, context: int) -> list[LayerRow]:
    cached: dict[int, list[LayerCells]] = {}
    for c in llama_layer_cells(d):
        cached.setdefault(c.index, []).append(c)
    rows = []
    for layer in d.spec.layers:
        held = cached.get(layer.index, [])
        tokens = max((c.tokens(context) for c in held), default=0)
        nbytes = sum(batch * c.tokens(context) * c.cell_bytes for c in held)
        device = "gpu" if not held or held[0].on_gpu else "host"
        rows.append(LayerRow(layer.index, layer.kind, 0, tokens, nbytes, device))
    return rows


@dataclass(frozen=True)
class _VllmLayout:
    """A vLLM deployment's KV-cache groups and what one pool block costs on each stage (built once)."""

    groups: tuple[tuple[KVCacheSpec, ...], ...]
    uniform: bool
    stages: tuple[range, ...]
    stage_block_bytes: tuple[int, ...]   # one block of the shared pool, on one GPU of each stage
    mnbt: int                            # tokens in flight (max_in_flight_tokens), what windows hold beyond W - 1
    encoder_tokens: int
    max_model_len: int


def _vllm_layout(d: Deployment) -> _VllmLayout:
    if "vllm_layout" not in d._memo:
        vp = d.vllm_plan()
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
        d._memo["vllm_layout"] = _VllmLayout(tuple(tuple(g) for g in groups), uniform, tuple(stages),
                                             tuple(block_bytes), vp.max_in_flight_tokens or vp.max_num_batched_tokens,
                                             d.spec.default_encoder_tokens or vp.max_num_batched_tokens,
                                             vp.max_model_len)
    layout: _VllmLayout = d._memo["vllm_layout"]
    return layout


def vllm_block_bytes(d: Deployment) -> int:
    """Bytes one block of vLLM's shared pool costs on the busiest GPU (the largest over stages)."""
    return max(_vllm_layout(d).stage_block_bytes)


def _vllm_rows(d: Deployment, batch: int, context: int) -> list[LayerRow]:
    lay = _vllm_layout(d)
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
