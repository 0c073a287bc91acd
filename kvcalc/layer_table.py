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
takes them from here. Each runtime's rows come from its engine (``Engine.layer_rows``, kvcalc.engines).
Units: bytes; ``tokens`` is the token slots a layer keeps per sequence.
"""
from __future__ import annotations

from dataclasses import dataclass

from .deployment import Deployment
from .limits import MAX_BATCH, MAX_CONTEXT, check_count

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
    busiest: int | None = None   # the engine's busiest stage (Engine.busiest_stage); None = the most KV

    def stage_bytes(self, stage: int) -> int:
        """Bytes on one GPU of pipeline stage ``stage``."""
        return sum(r.bytes for r in self.rows if r.stage == stage and r.device == "gpu")

    @property
    def busiest_stage(self) -> int:
        """The stage the plan reports: the engine's busiest (llama.cpp's split: the GPU with the most bytes
        in all), else the stage whose GPUs hold the most KV bytes (the first such stage)."""
        if self.busiest is not None:
            return self.busiest
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
    """The per-layer table of ``deployment`` at ``batch`` x ``context`` (module docstring; ``Engine.layer_rows``)."""
    batch = check_count("batch", batch, 1, MAX_BATCH)
    context = check_count("context", context, 1, MAX_CONTEXT)
    rows = deployment.engine.layer_rows(deployment, batch, context)
    return LayerTable(tuple(rows), deployment.runtime, batch, context, deployment.tp, deployment.pp,
                      deployment.engine.busiest_stage(deployment))

