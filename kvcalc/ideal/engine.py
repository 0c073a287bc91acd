"""The ``ideal`` runtime's engine, and the unpaged planning it shares with ``transformers``.

Budget per GPU (bytes): ``weights_rank + kv_rank(batch, context) + overhead <= gpu_memory``, with the
cache of kvcalc.kv on one rank's spec (``ideal``: the least it must hold; ``transformers``: its
DynamicCache) and ``overhead`` the runtime's (0 here; kvcalc.hf_transformers adds generate's peak).
The solvers read the deployment's compiled stage caches (kvcalc.sweep), equal point by point to
the per-layer table (kvcalc.layer_table). The options: ``max_model_len`` only, a cap on the context.

>>> from kvcalc.engines import get_engine
>>> get_engine("ideal").options_from_flags({"max_model_len": 4096})
IdealOptions(max_model_len=4096)
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..engines.base import Engine, KvQuantization, Option
from ..limits import MAX_BATCH, MAX_CONTEXT
from ..plan import PlanResult, busiest_stage_kv, common_fields
from ..solve import largest_true

if TYPE_CHECKING:
    from ..curve import CurvePoint
    from ..deployment import Deployment
    from ..layer_table import LayerRow


@dataclass(frozen=True)
class IdealOptions:
    """``max_model_len``: the longest context planned (tokens; None = the model's maximum)."""

    max_model_len: int | None = None


MAX_MODEL_LEN = Option("max_model_len", ("--max-model-len",), "length", "tokens per request (a cap on the context)",
                       "tokens", 1, MAX_CONTEXT, None, "mml", cli=False)
"""The one option of the library runtimes (the CLI's ``--max-model-len``, shared with vLLM's)."""


def check_max_model_len(value: Any) -> int | None:
    """A context cap in [1, MAX_CONTEXT]; -1 (vLLM 0.33's auto-fit) is refused for these runtimes."""
    if value is None:
        return None
    from ..vllm.options import check_max_len

    return check_max_len(value, None)[0]


class IdealEngine(Engine):
    """Nothing but the cache kvcalc.kv counts, unpaged (module docstring)."""

    name = "ideal"
    label = "ideal"
    article = "an"
    options_type: ClassVar[type] = IdealOptions
    declarations = (MAX_MODEL_LEN,)
    compiles_caches = True
    counts_overhead = False

    def build_options(self, flags: dict[str, Any]) -> Any:
        return self.options_type(max_model_len=check_max_model_len(flags.get("max_model_len")))

    def quantized_kv(self, d: Deployment) -> KvQuantization | None:
        """An fp8 cache (kv_dtype ``fp8``: 1 byte an element) for a cache above 8 bits."""
        return None if d.kv.bits <= 8 else KvQuantization("fp8", None, "kv_dtype fp8")

    def overhead_bytes(self, d: Deployment, batch: int, context: int) -> int:
        """Per-GPU bytes beside weights and KV (none under ``ideal``)."""
        return 0

    def busiest_stage_kv(self, d: Deployment, batch: int, context: int) -> int:
        """:func:`busiest_stage_kv`."""
        return busiest_stage_kv(d, batch, context)

    def _fits_memory(self, d: Deployment, batch: int, context: int) -> bool:
        kv = self.busiest_stage_kv(d, batch, context)
        return d.weights_rank + kv + self.overhead_bytes(d, batch, context) <= d.gpu.memory_bytes

    def fits(self, d: Deployment, batch: int, context: int) -> bool:
        return context <= d.context_cap and self._fits_memory(d, batch, context)

    def _kv_grows_faster(self, d: Deployment, batch: int, at: int) -> bool:
        """Whether the KV cache (not the overhead) fills the GPU as context grows past ``at``."""
        k0, k1 = self.busiest_stage_kv(d, batch, at), self.busiest_stage_kv(d, batch, at + 1)
        return self.overhead_bytes(d, batch, at + 1) - self.overhead_bytes(d, batch, at) <= k1 - k0

    def plan_at(self, d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
        from ..explain import direct_binding, direct_formulas, growth_binding
        from ..layer_table import layer_bytes

        table = layer_bytes(d, batch, context)
        kv_gpu, overhead = table.per_gpu_bytes, self.overhead_bytes(d, batch, context)
        budget, cap = d.gpu.memory_bytes, d.context_cap
        total = d.weights_rank + kv_gpu + overhead
        fits = total <= budget and context <= cap
        max_context = largest_true(lambda t: self._fits_memory(d, batch, t), cap)
        max_batch = largest_true(lambda b: self._fits_memory(d, b, context), MAX_BATCH) if context <= cap else None
        binding = direct_binding(d, batch, context, kv_gpu, overhead, fits, max_context)
        if binding is None:
            binding = growth_binding(self._kv_grows_faster(d, batch, max_context or 1), budget)
        return PlanResult(
            **common_fields(d, batch, context), kv_dtype=d.kv.name, kv_bytes=kv_gpu,
            kv_bytes_total=table.all_gpus_bytes, overhead_bytes=overhead, budget_bytes=budget, total_bytes=total,
            fits=fits, max_context=max_context, max_batch=max_batch, min_gpus=None, binding_constraint=binding,
            formulas=direct_formulas(d, batch, context, kv_gpu, overhead, fits), warnings=tuple(warnings))

    def layer_rows(self, d: Deployment, batch: int, context: int) -> list[LayerRow]:
        """kvcalc.kv on each stage's rank spec (KV heads ``max(1, kv // tp)``, MLA whole, states / tp)."""
        from ..kv import kv_cache
        from ..layer_table import LayerRow
        from ..parallel import stage_specs

        rows: list[LayerRow] = []
        for stage, spec in enumerate(stage_specs(d.rank, d.pp)):
            if not spec.layers:
                continue
            r = kv_cache(spec, batch=batch, context=context, dtype=d.model_dtype, kv_dtype=d.kv, runtime=d.runtime)
            rows.extend(LayerRow(layer.index, layer.kind, stage, layer.tokens, layer.bytes) for layer in r.layers)
        return rows

    def curve(self, d: Deployment, batch: int, contexts: Sequence[int]) -> list[CurvePoint]:
        from ..curve import CurvePoint

        return [CurvePoint(t, d.weights_rank, self.overhead_bytes(d, batch, t), self.busiest_stage_kv(d, batch, t),
                           d.gpu.memory_bytes) for t in contexts]


ENGINE: Engine = IdealEngine()
"""The ``ideal`` runtime (kvcalc.engines.registry)."""

__all__ = ["ENGINE", "MAX_MODEL_LEN", "IdealEngine", "IdealOptions"]
