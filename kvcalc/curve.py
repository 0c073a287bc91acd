"""Memory against context for one deployment: the points a chart draws (bytes per GPU).

By the same rules as kvcalc.plan, and equal to its figures at the plan's own context: ``ideal`` /
``transformers`` from the deployment's compiled caches (kvcalc.sweep, equal to the per-layer
table), vLLM as ``batch x blocks(T) x block bytes`` of the busiest stage (kvcalc.layer_table).
vLLM preallocates its pool, so there the KV figure is what ``batch`` requests of that length
occupy and the overhead the profiled activation + non-torch + CUDA graphs. llama.cpp likewise: the
cells ``batch`` requests occupy per layer on the GPU (sliding-window layers capped at their window;
kvcalc.layer_table), the ``-ngl`` share of the weights and the estimated compute buffer. Each
runtime's points come from its engine (``Engine.curve``, kvcalc.engines).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .deployment import Deployment
from .limits import MAX_BATCH, check_count


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
    """Weights / overhead / KV per GPU at each context (module docstring; ``Engine.curve``)."""
    batch = check_count("batch", batch, 1, MAX_BATCH)
    return d.engine.curve(d, batch, contexts)
