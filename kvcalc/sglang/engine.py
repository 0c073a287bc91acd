"""SGLang on kvcalc's engine seam: its options declared once, its refusals, its budget (kvcalc.sglang.budget).

``mem_fraction_static x free-before-load - weights`` in a token pool of ``page_size`` pages (and the
hybrid SWA pool for sliding-window layers, kvcalc.sglang.swa); the rest is kvcalc.engines.paged.

>>> from kvcalc.engines import get_engine
>>> get_engine("sglang").options_from_flags({"page_size": 16}).page_size
16
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engines.base import Engine, KvQuantization
from ..engines.paged import PagedEngine
from ..errors import InputError
from .budget import sglang_memory_plan
from .defaults import DEFAULT_PRELOAD_USED_BYTES, LONG_CONTEXT_ERROR, SGLANG_VERSION
from .options import DECLARATIONS, SglangOptions, sglang_options

if TYPE_CHECKING:
    from ..deployment import Deployment
    from ..spec import ModelSpec



class SglangEngine(PagedEngine):
    """SGLang (module docstring)."""

    name = "sglang"
    startup_log = "kvcalc.startup_log.sglang"
    label = "SGLang"
    article = "an"
    version = SGLANG_VERSION
    options_type = SglangOptions
    declarations = DECLARATIONS
    concurrency_field = "max_running_requests"
    gpu_vendors = ("NVIDIA", "AMD")
    """SGLang's GPU backends are CUDA and ROCm (docs: get_started/install)."""
    tp_flag = "--tp"
    pp_flag = "--pp-size"
    overhead_outside_budget = True     # mem_fraction_static: weights + KV pool; the rest of the GPU holds the rest
    vllm_names = {"max_model_len": "context_length", "block_size": "page_size", "max_num_seqs": "max_running_requests",
                  "gpu_memory_utilization": "mem_fraction_static"}
    kv_dtypes = ("bfloat16", "float16", "fp8_e4m3", "fp8_e5m2")
    kv_dtypes_text = "auto, bf16, fp8_e4m3, fp8_e5m2"
    sliding_ok = True

    def quantized_kv(self, d: Deployment) -> KvQuantization | None:
        """``--kv-cache-dtype fp8_e4m3`` (python/sglang/srt/server_args.py ``kv_cache_dtype`` choices)."""
        return None if d.kv.bits <= 8 else KvQuantization("fp8_e4m3", None, "--kv-cache-dtype fp8_e4m3")

    def build_options(self, flags: dict[str, Any]) -> Any:
        flags = dict(flags)
        flags["allow_long_context"] = flags.pop("allow_overwrite_longer_context_len", False)
        return sglang_options(**flags)

    def flags_of(self, options: Any) -> dict[str, Any]:
        out = super().flags_of(options)
        out["allow_overwrite_longer_context_len"] = options.allow_long_context
        return out

    def foreign_text(self, key: str) -> str:
        return ("mem_fraction_static, context_length, max_running_requests, page_size and max_total_tokens "
                "are SGLang options: use runtime 'sglang'")

    def check_context(self, spec: ModelSpec, options: Any) -> None:
        model_max = spec.max_position_embeddings
        o: SglangOptions = options
        if o.context_length and model_max and o.context_length > model_max and not o.allow_long_context:
            raise InputError(f"SGLang refuses: {LONG_CONTEXT_ERROR.format(given=o.context_length, derived=model_max)}")

    def context_cap(self, options: Any) -> int | None:
        cap: int | None = options.context_length
        return cap

    def memory_plan(self, d: Deployment) -> Any:
        """The pool, with a multimodal model's reservations (kvcalc.sglang.vlm); UnsupportedError where
        SGLang's VLM serving of the model on that GPU is not modelled."""
        from ..errors import UnsupportedError
        from ..parallel import stage_specs
        from .vlm import unmodelled_vlm, vlm_rule

        vlm = None
        if d.options.sglang_version == SGLANG_VERSION:
            why = unmodelled_vlm(d.config, d.gpu.name, d.gpu.memory_mib)
            if why:
                raise UnsupportedError(f"SGLang: {why}; not modelled: use runtime 'vllm'")
            vlm = vlm_rule(d.config)
        return sglang_memory_plan(stage_specs(d.rank, d.pp), d.kv, total_gpu_bytes=d.gpu.memory_bytes,
                                  weights_bytes=d.weights_rank, options=d.options, context_len=d.context_cap,
                                  tp=d.tp, pp=d.pp, used_before_load_bytes=d.measured.non_torch_bytes,
                                  architectures=d.architectures, vlm=vlm)

    def overhead_parts(self, d: Deployment, p: Any) -> dict[str, int]:
        """The memory in use before the weights load (CUDA context, NCCL; measured by SGLang, assumed
        unless ``non_torch_gib`` is given) and the share ``mem_fraction_static`` leaves out of the pool
        for activations and CUDA graphs (model_runner.py profile_max_num_token)."""
        before = min(d.measured.non_torch_bytes if d.measured.non_torch_bytes is not None
                     else DEFAULT_PRELOAD_USED_BYTES, p.overhead_bytes)
        return {"used_before_load": before, "outside_mem_fraction_static": p.overhead_bytes - before}

    def launch_command(self, model: str, d: Deployment) -> Any:
        from ..serve_command import sglang_launch

        return sglang_launch(model, d)


ENGINE: Engine = SglangEngine()
"""SGLang (kvcalc.engines.registry)."""
