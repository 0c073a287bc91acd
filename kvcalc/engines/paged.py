"""A serving engine planned through its :class:`~kvcalc.engine.EngineMemoryPlan` (SGLang, TensorRT-LLM, llama.cpp).

The engine's ``memory_plan`` builds the record (budget, pool, page size, limits, its log lines); this
class answers the rest from it: ``batch`` requests of ``T`` tokens hold ``ceil(T / page_size)`` pages
each (``T`` capped at the engine's maximum) and fit when their pages fit the pool, ``T`` is at most the
engine's maximum and ``batch`` at most its concurrent-request cap (kvcalc.engine). Per layer, a request
holds its page-rounded slots x the layer's per-token cell; under SGLang's hybrid SWA pool a sliding
layer holds ``ceil(min(T, window) / page_size)`` pages of the SWA pool instead. Bytes, tokens.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import UnsupportedError
from .base import Engine

if TYPE_CHECKING:
    from ..curve import CurvePoint
    from ..deployment import Deployment
    from ..dtypes import DType
    from ..layer_table import LayerRow
    from ..plan import PlanResult
    from ..spec import ModelSpec


class PagedEngine(Engine):
    """The shared half of a serving engine on kvcalc.engine's seam (module docstring)."""

    pooled = True
    cache_rules = None
    kv_dtypes: ClassVar[tuple[str, ...]] = ()
    """The KV-cache dtypes (kvcalc.dtypes names) the engine's pool has."""
    kv_dtypes_text: ClassVar[str] = ""
    """How the engine's own flag spells them, for the refusal."""
    sliding_ok: ClassVar[bool] = False
    """Whether sliding-window layers are pooled (SGLang's SWA pool); else refused with recurrent layers."""

    def check_model(self, raw: Mapping[str, Any], spec: ModelSpec, options: Any, dtype: str | None,
                    kv_dtype: str | None) -> None:
        """Layers the engine's pools are not modelled for are refused (kvcalc.engine.check_full_attention);
        so are prompt-prefix tokens (kvcalc.kv.check_no_prefix_tokens)."""
        from ..engine import check_full_attention

        check_full_attention(spec, self.label, sliding_ok=self.sliding_ok)
        self.check_context(spec, options)
        self.check_prefix_tokens(spec)

    def ignores(self, key: str, value: Any) -> bool:
        """vLLM's ``gpu_memory_utilization`` at its default is accepted and ignored (callers of the flat
        keywords pass it for every runtime); any other vLLM value is refused in the engine's words."""
        from ..vllm.defaults import DEFAULT_GPU_MEMORY_UTILIZATION

        return key == "gpu_memory_utilization" and value == DEFAULT_GPU_MEMORY_UTILIZATION

    def check_context(self, spec: ModelSpec, options: Any) -> None:
        """The engine's refusal of a context above the model's (default: none)."""

    def dtypes(self, spec: ModelSpec, dtype: str | None, kv_dtype: str | None) -> tuple[DType, DType]:
        model, kv = super().dtypes(spec, dtype, kv_dtype)
        if self.kv_dtypes and kv.name not in self.kv_dtypes:
            raise UnsupportedError(f"{self.label} has no '{kv.name}' KV-cache dtype: use {self.kv_dtypes_text}")
        return model, kv

    def default_context(self, d: Deployment) -> int | None:
        return d.engine_plan().max_context or d.context_cap

    def fits(self, d: Deployment, batch: int, context: int) -> bool:
        return d.engine_plan().fits(batch, context)

    def plan_at(self, d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
        from ..explain import engine_binding
        from ..layer_table import layer_bytes
        from ..plan import PlanResult, common_fields

        ep = d.engine_plan()
        table = layer_bytes(d, batch, context)
        kv_gpu = table.per_gpu_bytes
        ok = ep.fits(batch, context)
        max_batch = ep.largest_batch(context)
        return PlanResult(
            **common_fields(d, batch, context), kv_dtype=d.kv.name, kv_bytes=kv_gpu,
            kv_bytes_total=table.all_gpus_bytes, overhead_bytes=ep.overhead_bytes, budget_bytes=ep.budget_bytes,
            total_bytes=ep.weights_bytes + kv_gpu + ep.overhead_bytes, fits=ok, max_context=ep.longest_context(batch),
            max_batch=max_batch, min_gpus=None, binding_constraint=engine_binding(ep, batch, context, ok, max_batch),
            kv_cache_tokens=ep.pool_tokens, num_gpu_blocks=ep.pool_pages, max_concurrency=ep.max_concurrency,
            available_kv_bytes=ep.available_kv_bytes, formulas=ep.formulas, engine_lines=ep.log_lines,
            warnings=tuple(warnings) + ep.notes)

    def layer_rows(self, d: Deployment, batch: int, context: int) -> list[LayerRow]:
        from ..engine import layer_cell_bytes
        from ..layer_table import LayerRow
        from ..parallel import stage_specs

        ep = d.engine_plan()
        full, swa = ep.request_tokens(context), ep.request_swa_tokens(context)
        rows = []
        for stage, spec in enumerate(stage_specs(d.rank, d.pp)):
            for layer in spec.layers:
                windowed = ep.swa_cell_bytes and any(a.window for a in layer.attention)
                slots = swa if windowed else full
                rows.append(LayerRow(layer.index, layer.kind, stage, slots,
                                     batch * slots * layer_cell_bytes(layer, d.kv)))
        return rows

    def curve(self, d: Deployment, batch: int, contexts: Sequence[int]) -> list[CurvePoint]:
        """``batch`` x page-rounded slots x per-token cell, against the engine's budget."""
        from ..curve import CurvePoint

        ep = d.engine_plan()
        return [CurvePoint(t, ep.weights_bytes, ep.overhead_bytes, ep.occupied_bytes(batch, t),
                           ep.budget_bytes) for t in contexts]

    def startup_lines(self, d: Deployment) -> tuple[str, ...]:
        return d.engine_plan().log_lines

    def report_lines(self, p: PlanResult) -> list[str]:
        return ["", *p.engine_lines]

    def parse_command(self, text: str) -> Any:
        from ..engine_commands import parse_engine_command

        return parse_engine_command(text)
