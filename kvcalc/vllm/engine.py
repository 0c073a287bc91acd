"""vLLM (v1 engine) on kvcalc's engine seam: options, refusals, the plan, rows, curve and verdict words.

``gpu_memory_utilization x total`` minus weights, the profiled activation peak, non-torch memory and
CUDA graphs is the KV pool (kvcalc.vllm.budget), cut into blocks of ``block_size`` tokens; ``batch``
requests of ``context`` tokens fit when their blocks fit the pool, ``batch <= max_num_seqs`` and
``context <= max_model_len``. vLLM refuses to start when one ``max_model_len`` request does not fit
(vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory``). Release rules: kvcalc.vllm.defaults.

>>> from kvcalc.engines import get_engine
>>> get_engine("vllm").options_from_flags({"block_size": 32}).block_size
32
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..engines.base import Engine, KvQuantization
from ..errors import InputError, UnsupportedError
from ..solve import largest_true
from .defaults import DEFAULT_GPU_MEMORY_UTILIZATION, DEFAULT_VLLM_VERSION, vllm_dtypes
from .deployed import max_model_len as deployed_max_model_len
from .deployed import request_blocks, startup_plan
from .lora import check_lora_model, check_lora_parallel
from .model_len import check_max_model_len
from .options import DECLARATIONS, VllmOptions, vllm_options
from .removed import served_note
from .speculative import speculative_kv_layers

if TYPE_CHECKING:
    from ..curve import CurvePoint
    from ..deployment import Deployment
    from ..dtypes import DType
    from ..gpus import GPU
    from ..layer_table import LayerRow
    from ..plan import PlanResult
    from ..spec import ModelSpec
    from ..verdict import MaxLenSource, Verdict
    from .budget import VllmMemoryPlan

_VLLM_ONLY = ("speculative_config", "cpu_offload_gb", "lora")


def pool_blocks(vp: VllmMemoryPlan) -> int:
    """Blocks vLLM's KV pool holds (0 when no memory is left for it)."""
    return vp.num_gpu_blocks if vp.available_kv_bytes > 0 else 0


class VllmEngine(Engine):
    """vLLM's v1 engine (module docstring)."""

    name = "vllm"
    startup_log = "kvcalc.startup_log.vllm"
    label = "vLLM"
    version = DEFAULT_VLLM_VERSION
    options_type = VllmOptions
    declarations = DECLARATIONS
    concurrency_field = "max_num_seqs"
    gpu_vendors = ("NVIDIA", "AMD")
    """vLLM's GPU backends are CUDA and ROCm (docs: getting_started/installation/gpu); on Apple silicon it runs on
    the CPU only."""
    tp_flag = "--tensor-parallel-size"
    cli_flags = ("enable_lora", "cuda_graph_gib")
    cache_rules = None
    colocates = True
    kv_bytes_all_ranks = True

    def layer_kv(self, spec: ModelSpec, *, batch: int, context: int, dtype: Any, kv_dtype: Any,
                 encoder_tokens: int | None) -> Any:
        """vLLM's paged per-layer bytes (kvcalc.vllm.vllm_kv_cache); CPM-Ant's prompt tokens and reference
        sliding-window layers (Unlimited-OCR) are refused."""
        from dataclasses import replace

        from .cache import vllm_kv_cache

        self.check_prefix_tokens(spec)
        if any(a.keeps_prefill for layer in spec.layers for a in layer.attention):
            raise UnsupportedError("vLLM's handling of reference sliding-window layers (Unlimited-OCR: every "
                                   "prefill token kept) is not modelled; use runtime 'ideal' or 'transformers'")
        return replace(vllm_kv_cache(spec, batch=batch, context=context, dtype=dtype, kv_dtype=kv_dtype,
                                     encoder_tokens=encoder_tokens), quality=spec.quality)

    # ------------------------------------------------------------------ options and refusals
    def build_options(self, flags: dict[str, Any]) -> Any:
        return vllm_options(**flags)

    def flags_of(self, options: Any) -> dict[str, Any]:
        out = super().flags_of(options)
        if options.auto_fit_max_model_len:
            out["max_model_len"] = -1
        return out

    def foreign_text(self, key: str) -> str:
        if key in _VLLM_ONLY:
            return "speculative_config, cpu_offload_gb and lora are vLLM options; use runtime 'vllm'"
        return f"{key} is a vLLM option: use runtime 'vllm'"

    def check_model(self, raw: Mapping[str, Any], spec: ModelSpec, options: Any, dtype: str | None,
                    kv_dtype: str | None) -> None:
        """vLLM's startup refusals: an unusable speculative method, LoRA on 0.10 or an unsupported model,
        prompt-prefix tokens, a model vLLM no longer serves, a ``max_model_len`` above the derived maximum."""
        from ..deployment import architectures

        o: VllmOptions = options
        speculative_kv_layers(raw, o.speculative_config)      # an unusable method fails here, at deploy
        if o.lora is not None:
            if o.vllm_version == "0.10":
                raise UnsupportedError("LoRA memory is modelled for vLLM 0.33; use vllm_version 0.33")
            check_lora_model(raw, spec)
        self.check_prefix_tokens(spec)                          # CPM-Ant's prompt tokens
        served_note(architectures(raw), spec, o.vllm_version)   # refuses what vLLM refuses at startup
        if o.max_model_len is not None and not o.allow_long_max_model_len:
            check_max_model_len(raw, o.max_model_len, o.vllm_version, spec.max_position_embeddings)

    def check_parallel(self, spec: ModelSpec, options: Any, tp: int, pp: int) -> None:
        if options.lora is not None:
            check_lora_parallel(spec, options.lora, tp, pp)

    def dtypes(self, spec: ModelSpec, dtype: str | None, kv_dtype: str | None) -> tuple[DType, DType]:
        if kv_dtype == "fp8_ds_mla":    # vLLM's own DSA format (kvcalc.vllm.defaults.FP8_DS_MLA)
            return vllm_dtypes(spec, dtype, kv_dtype)
        return super().dtypes(spec, dtype, kv_dtype)

    # ------------------------------------------------------------------ planning
    def memory_plan(self, d: Deployment) -> Any:
        return startup_plan(d)

    def request_length(self, d: Deployment) -> int:
        """The longest request: vLLM's ``max_model_len``."""
        return startup_plan(d).max_model_len

    def default_context(self, d: Deployment) -> int | None:
        """vLLM 0.33's auto-fit: the ``max_model_len`` it settled on."""
        return startup_plan(d).max_model_len if d.vllm.auto_fit_max_model_len else None

    def fits(self, d: Deployment, batch: int, context: int) -> bool:
        vp = startup_plan(d)
        return (vp.fits and context <= vp.max_model_len and batch <= vp.max_num_seqs
                and batch * request_blocks(d)(context) <= pool_blocks(vp))

    def plan_at(self, d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
        from ..explain import vllm_binding, vllm_formulas
        from ..layer_table import layer_bytes
        from ..plan import PlanResult, common_fields

        vp = startup_plan(d)
        note = served_note(d.architectures, d.spec, vp.vllm_version)
        served = (note,) if note else ()
        max_model_len = vp.max_model_len
        blocks = request_blocks(d)
        pool = pool_blocks(vp)
        per_req = blocks(min(context, max_model_len))
        ok = self.fits(d, batch, context)
        table = layer_bytes(d, batch, context)
        max_context = largest_true(lambda t: batch * blocks(t) <= pool, max_model_len) \
            if pool and batch <= vp.max_num_seqs else None
        max_batch = min(pool // per_req, vp.max_num_seqs) if pool and context <= max_model_len else 0
        overhead = vp.activation_bytes + vp.non_torch_bytes + vp.cuda_graph_bytes
        kv_gpu = table.per_gpu_bytes
        binding = vllm_binding(d, vp, batch, context, per_req, pool, ok, bool(max_context or max_batch), max_batch)
        common = common_fields(d, batch, context)
        common["weights_bytes"] = vp.weights_bytes       # on the GPU: less what --cpu-offload-gb keeps on the CPU
        return PlanResult(
            **common, kv_dtype=vp.kv_dtype, kv_bytes=kv_gpu, kv_bytes_total=table.all_gpus_bytes,
            overhead_bytes=overhead, budget_bytes=vp.requested_bytes,
            total_bytes=vp.weights_bytes + kv_gpu + overhead, fits=ok, max_context=max_context,
            max_batch=max_batch or None, min_gpus=None, binding_constraint=binding,
            kv_cache_tokens=vp.kv_cache_tokens, num_gpu_blocks=vp.num_gpu_blocks, max_concurrency=vp.max_concurrency,
            available_kv_bytes=vp.available_kv_bytes, formulas=vllm_formulas(d, vp), engine_lines=vp.log_lines(),
            warnings=tuple(warnings) + vp.notes + served)

    def layer_rows(self, d: Deployment, batch: int, context: int) -> list[LayerRow]:
        from .rows import vllm_rows

        return vllm_rows(d, batch, context)

    def curve(self, d: Deployment, batch: int, contexts: Sequence[int]) -> list[CurvePoint]:
        """``batch x blocks(T) x block bytes`` of the busiest stage; the pool is preallocated, so the KV figure
        is what the requests occupy and the overhead the profiled activation + non-torch + CUDA graphs."""
        from ..curve import CurvePoint
        from .rows import vllm_block_bytes

        vp = startup_plan(d)
        blocks, block = request_blocks(d), vllm_block_bytes(d)
        overhead = vp.activation_bytes + vp.non_torch_bytes + vp.cuda_graph_bytes
        return [CurvePoint(t, vp.weights_bytes, overhead, batch * blocks(min(t, vp.max_model_len)) * block,
                           vp.requested_bytes) for t in contexts]

    def startup_lines(self, d: Deployment) -> tuple[str, ...]:
        return tuple(startup_plan(d).log_lines())

    def overhead_parts(self, d: Deployment, p: PlanResult) -> dict[str, int]:
        """The profiled activation peak, non-torch memory (CUDA context, NCCL buffers) and CUDA graphs
        (vllm/v1/worker/gpu_worker.py determine_available_memory), each estimated unless measured."""
        vp = startup_plan(d)
        return {"activation_peak": vp.activation_bytes, "non_torch": vp.non_torch_bytes,
                "cuda_graphs": vp.cuda_graph_bytes}

    def report_lines(self, p: PlanResult) -> list[str]:
        return ["", *p.engine_lines]

    def launch_command(self, model: str, d: Deployment) -> Any:
        from ..serve_command import vllm_serve

        return vllm_serve(model, d)

    def parse_command(self, text: str) -> Any:
        from ..vllm_command import parse_vllm_serve

        return parse_vllm_serve(text)

    # ------------------------------------------------------------------ the verdict's words
    def context_limit(self, d: Deployment) -> int:
        return deployed_max_model_len(d)

    def over_context(self, source: MaxLenSource) -> str | None:
        return " (vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set)" if source == "model" else None

    def served_longest(self, d: Deployment, p: PlanResult) -> int | None:
        """The longest ``--max-model-len`` with which vLLM still starts and holds the batch."""
        from ..plan import plan_at
        from ..verdict import longest_served, with_max_model_len

        default = with_max_model_len(d, None) if d.max_model_len else d
        hi = plan_at(default, p.batch, 1).max_context if default is not d else p.max_context
        hi = min(hi, deployed_max_model_len(default)) if hi else None
        return longest_served(d, p.batch, hi) if hi else None

    def max_len_note(self, d: Deployment, source: MaxLenSource) -> tuple[int | None, str]:
        used = startup_plan(d).max_model_len
        if source == "context":
            return used, f"max_model_len {used:,}: the context asked for (no max_model_len was set)"
        if source == "given":
            return used, f"max_model_len {used:,}: as set"
        return used, f"max_model_len {used:,}: the model's default, derived from its config as vLLM does"

    def length_verdict(self, d: Deployment, p: PlanResult, mml: int | None, note: str, longest: int | None,
                       source: MaxLenSource) -> Verdict | None:
        from ..verdict import Verdict, sequences

        if mml is None or longest is None or longest < p.context:
            return None
        what = "the model's default" if source == "model" else "max_model_len"
        fix = f"--max-model-len {longest}"
        verb = "fits" if p.batch == 1 else "fit"
        return Verdict("fits_if", f"Fits if you serve with {fix} ({what} {mml:,} does not)",
                       f"serve with {fix}: {sequences(p.batch)} of up to {longest:,} tokens {verb}", mml, note,
                       longest, longest)

    def check_device(self, gpu: GPU, raw: Mapping[str, Any], dtype: str | None) -> None:
        """Beside the vendor: vLLM refuses a quantization method below its minimum compute capability
        (vllm/config/vllm.py ``VllmConfig._get_quantization_config``: "The quantization method ... is not
        supported for the current GPU. Minimum capability: 80. Current capability: 70"), by
        :data:`QUANT_MIN_CAPABILITY`.

        >>> from kvcalc.gpus import get_gpu
        >>> try:
        ...     VllmEngine().check_device(get_gpu("v100-32gb"), {}, "fp8_e4m3")
        ... except UnsupportedError as e:
        ...     print(str(e).split(": ")[1])
        compute capability 70, its minimum 75
        """
        super().check_device(gpu, raw, dtype)
        method = _quant_method(raw, dtype)
        need = QUANT_MIN_CAPABILITY.get(method or "")
        if need is not None and gpu.cuda_capability is not None and gpu.cuda_capability < need:
            raise UnsupportedError(f"vLLM refuses --quantization {method} on {gpu.name}: compute capability "
                                   f"{gpu.cuda_capability}, its minimum {need}")

    def speculative(self, d: Deployment) -> str | None:
        """``--speculative-config``'s method and tokens a step proposes (kvcalc.vllm.speculative)."""
        sc = d.vllm.speculative_config
        return None if sc is None else f"{sc.method}, {sc.num_speculative_tokens} tokens a step"

    def longest_words(self, mml: int | None, longest: int) -> str:
        """A request longer than ``max_model_len`` is refused (vllm/v1/engine/input_processor.py
        ``InputProcessor._validate_prompt_len``, vLLM 0.33: "The decoder prompt (length N) is longer than the
        maximum model length of M"): the verdict's longest (:meth:`served_longest`) needs the flag raised to it.

        >>> VllmEngine().longest_words(8192, 81904), VllmEngine().longest_words(131072, 81904)
        (' with --max-model-len 81904', '')
        """
        return f" with --max-model-len {longest}" if mml is not None and longest > mml else ""

    def request_words(self, d: Deployment, batch: int, context: int) -> str:
        """vLLM checks at startup that one ``--max-model-len`` request fits its pool: a shorter length is a flag."""
        return "" if context == startup_plan(d).max_model_len else f" (--max-model-len {context})"

    def quantized_kv(self, d: Deployment) -> KvQuantization | None:
        """``--kv-cache-dtype fp8`` (vllm/config/cache.py ``CacheDType``; e4m3 on CUDA) for a cache above 8 bits."""
        return None if d.kv.bits <= 8 else KvQuantization("fp8", None, "--kv-cache-dtype fp8")

    def serving_hint(self, d: Deployment) -> str:
        """When the profiling run's sampler warm-up (one dummy request per ``max_num_seqs``,
        kvcalc.vllm.activation) is the activation peak: the smaller ``--max-num-seqs`` that frees it."""
        from ..verdict import gib
        from .activation import estimate_activation_bytes

        vp = startup_plan(d)
        est = estimate_activation_bytes(d.spec, max_num_batched_tokens=vp.max_num_batched_tokens,
                                        max_num_seqs=vp.max_num_seqs, dtype=d.dtype, tensor_parallel_size=d.tp,
                                        intermediate_size=d.spec.mlp_width)
        if not vp.activation_estimated or est.sampler_bytes <= est.forward_bytes:
            return ""
        return (f"; or a smaller --max-num-seqs (vLLM's sampler warm-up for {vp.max_num_seqs:,} requests reserves "
                f"{gib(est.sampler_bytes)}, its forward pass {gib(est.forward_bytes)})")


QUANT_MIN_CAPABILITY = {"fp8": 75, "awq": 75, "gptq": 60, "mxfp4": 80}
"""vLLM 0.33's minimum compute capability (x 10) per quantization method it would load, each config class's
``get_min_capability``: vllm/model_executor/layers/quantization/fp8.py ``Fp8Config`` 75, auto_awq.py
``AutoAWQConfig`` 75, auto_gptq.py ``AutoGPTQConfig`` 60, mxfp4.py ``Mxfp4Config`` 80."""


def _quant_method(raw: Mapping[str, Any], dtype: str | None) -> str | None:
    """The ``--quantization`` vLLM loads with: the chosen weights dtype's (kvcalc.vllm_command.DTYPE_QUANTIZATION),
    else the checkpoint's (kvcalc.weights.checkpoint_quant_method)."""
    from ..vllm_command import DTYPE_QUANTIZATION
    from ..weights import checkpoint_quant_method

    return DTYPE_QUANTIZATION.get(dtype) if dtype is not None else checkpoint_quant_method(raw)


ENGINE: Engine = VllmEngine()
"""vLLM (kvcalc.engines.registry)."""

__all__ = ["DEFAULT_GPU_MEMORY_UTILIZATION", "ENGINE", "InputError", "VllmEngine", "pool_blocks"]
