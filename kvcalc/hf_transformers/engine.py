"""The ``transformers`` runtime's engine: plain ``generate`` without paging.

Budget per GPU (bytes): ``weights_rank + kv_rank + activation + non_torch <= gpu_memory``, with the
transformers cache (kvcalc.kv, right after the prefill) and the prefill's activation peak
(kvcalc.activations): the larger of one forward of ``batch x context`` tokens and the last-position
logits ``generate`` keeps with their float32 copies (the two are not live at the same time). Several
GPUs split layers (``device_map="auto"``, pipeline style); the KV cache is stored in the model dtype
(DynamicCache), so a quantized or fp8 KV dtype is refused. transformers 5.x (``generation/utils.py``
``GenerationMixin.generate``, ``cache_utils.py`` ``DynamicCache``).

>>> from kvcalc.engines import get_engine
>>> get_engine("transformers").more_gpus(4)
'pipeline stages'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..activations import forward_activation_bytes, generate_logits_bytes
from ..engines.base import CacheRules, Engine
from ..errors import UnsupportedError
from ..ideal.engine import MAX_MODEL_LEN, IdealEngine

if TYPE_CHECKING:
    from ..deployment import Deployment
    from ..dtypes import DType
    from ..spec import ModelSpec


@dataclass(frozen=True)
class TransformersOptions:
    """``max_model_len``: the longest context planned (tokens; None = the model's maximum)."""

    max_model_len: int | None = None


class TransformersEngine(IdealEngine):
    """transformers' ``generate`` (module docstring)."""

    name = "transformers"
    label = "transformers"
    version = "5.x"
    options_type = TransformersOptions
    declarations = (MAX_MODEL_LEN,)
    counts_overhead = True
    prefill_cache = True
    tensor_parallel = False
    pp_flag = None
    cache_rules = CacheRules(float32_states=True, float32_indexer=True, expands_kv_heads=True, sliding_views=True,
                             model_dtype_kv=True, layouts=True)
    """DynamicCache / StaticCache as transformers 5.24 holds them (kvcalc.kv's module docstring)."""

    def dtypes(self, spec: ModelSpec, dtype: str | None, kv_dtype: str | None) -> tuple[DType, DType]:
        model, kv = super().dtypes(spec, dtype, kv_dtype)
        if kv != model:
            raise UnsupportedError("transformers' DynamicCache stores K/V in the model dtype; "
                                   "use runtime 'ideal' or 'vllm' for a quantized or fp8 KV cache")
        return model, kv

    def overhead_bytes(self, d: Deployment, batch: int, context: int) -> int:
        """The prefill's activation peak (or the measured one) + measured non-torch memory, per GPU."""
        act = d.measured.activation_bytes
        if act is None:
            b = d.model_dtype.bits // 8
            width = d.spec.mlp_width or 4 * d.spec.hidden_size
            act = forward_activation_bytes(batch * context, d.spec.hidden_size, width, b)
            act = max(act, generate_logits_bytes(batch, d.spec.vocab_size, b))
        return act + (d.measured.non_torch_bytes or 0)

    def overhead_parts(self, d: Deployment, p: Any) -> dict[str, int]:
        """The prefill's activation peak (or generate's logits, or the measured peak) and measured non-torch memory."""
        non_torch = d.measured.non_torch_bytes or 0
        return {"activation_peak": p.overhead_bytes - non_torch, "non_torch": non_torch}

    def more_gpus(self, n: int) -> str:
        return "pipeline stages"

    def quantized_kv(self, d: Deployment) -> Any:
        """None: DynamicCache holds K/V in the model dtype (:meth:`dtypes`)."""
        return None

    def launch_command(self, model: str, d: Deployment) -> Any:
        """The ``from_pretrained`` / ``generate`` calls at the model's context (kvcalc.serve_command)."""
        from ..serve_command import transformers_call

        return transformers_call(model, d, 1, d.context_cap)

    def plan_command(self, model: str, d: Deployment, batch: int, context: int) -> Any:
        """The calls for ``batch`` prompts at ``context`` tokens (the plan's, not the model's maximum)."""
        from ..serve_command import transformers_call

        return transformers_call(model, d, batch, context)


ENGINE: Engine = TransformersEngine()
"""The ``transformers`` runtime (kvcalc.engines.registry)."""

__all__ = ["ENGINE", "TransformersEngine", "TransformersOptions"]
