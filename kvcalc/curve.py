"""Memory against context for one deployment: the points a chart draws (bytes per GPU).

By the same rules as kvcalc.plan, and equal to its figures at the plan's own context: ``ideal`` /
``transformers`` from the deployment's compiled caches (kvcalc.sweep, equal to the per-layer
table), vLLM as ``batch x blocks(T) x block bytes`` of the busiest stage (kvcalc.layer_table).
vLLM preallocates its pool, so there the KV figure is what ``batch`` requests of that length
occupy and the overhead the profiled activation + non-torch + CUDA graphs. llama.cpp likewise: the
cells ``batch`` requests occupy per layer on the GPU (sliding-window layers capped at their window;
kvcalc.layer_table), the ``-ngl`` share of the weights and the estimated compute buffer.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .deployment import Deployment
from .layer_table import llama_layer_cells, vllm_block_bytes
from .limits import MAX_BATCH, check_count
from .plan import busiest_stage_kv, overhead_bytes
from .runtimes import ENGINE_RUNTIMES


@dataclass(frozen=True)
class CurvePoint:
    """Memory on the busiest GPU at one context length (bytes)."""

    context: int
    weights: int
    overhead: int
    kv: int
    budget: int

    @property
    def total(self) -> int:
        return self.weights + self.overhead + self.kv


def memory_curve(d: Deployment, batch: int, contexts: Sequence[int]) -> list[CurvePoint]:
    """Weights / overhead / KV per GPU at each context (module docstring)."""
    batch = check_count("batch", batch, 1, MAX_BATCH)
    if d.runtime == "vllm":
        vp = d.vllm_plan()
        blocks, block = d.request_blocks(), vllm_block_bytes(d)
        overhead = vp.activation_bytes + vp.non_torch_bytes + vp.cuda_graph_bytes
        return [CurvePoint(t, vp.weights_bytes, overhead, batch * blocks(min(t, vp.max_model_len)) * block,
                           vp.requested_bytes) for t in contexts]
    if d.runtime == "llama_cpp":
        ep = d.engine_plan()
        cells = [c for c in llama_layer_cells(d) if c.on_gpu]
        return [CurvePoint(t, ep.weights_bytes, ep.overhead_bytes,
                           batch * sum(c.tokens(t) * c.cell_bytes for c in cells), ep.budget_bytes) for t in contexts]
    if d.runtime in ENGINE_RUNTIMES:     # SGLang / TensorRT-LLM: batch x page-rounded slots x per-token cell
        ep = d.engine_plan()
        return [CurvePoint(t, ep.weights_bytes, ep.overhead_bytes, ep.occupied_bytes(batch, t),
                           ep.budget_bytes) for t in contexts]
    return [CurvePoint(t, d.weights_rank, overhead_bytes(d, batch, t),
                       busiest_stage_kv(d, batch, t), d.gpu.memory_bytes) for t in contexts]
