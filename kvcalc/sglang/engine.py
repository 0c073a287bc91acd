"""SGLang on kvcalc's engine seam: its options declared once, its refusals, its budget (kvcalc.sglang.budget).

``mem_fraction_static x free-before-load - weights`` in a token pool of ``page_size`` pages (and the
hybrid SWA pool for sliding-window layers, kvcalc.sglang.swa); the rest is kvcalc.engines.paged.

>>> from kvcalc.engines import get_engine
>>> get_engine("sglang").options_from_flags({"page_size": 16}).page_size
16
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engines.base import Engine, Option
from ..engines.paged import PagedEngine
from ..errors import InputError
from ..limits import MAX_CONTEXT
from .budget import sglang_memory_plan
from .defaults import LONG_CONTEXT_ERROR, SGLANG_VERSION
from .options import SglangOptions, sglang_options

if TYPE_CHECKING:
    from ..deployment import Deployment
    from ..spec import ModelSpec

DECLARATIONS: tuple[Option, ...] = (
    Option("mem_fraction_static", ("--mem-fraction-static",), "float",
           "share of the memory free before the weights load for weights + KV pool "
           "(default: by GPU memory and TP, as SGLang's server_args)", "fraction", 0, 1, None, "mfs"),
    Option("context_length", ("--context-length",), "int", "longest request (default: the model's)", "tokens", 1,
           MAX_CONTEXT, None, "ctxlen"),
    Option("max_running_requests", ("--max-running-requests",), "int", "requests run at once", "requests", 1,
           1 << 20, None, "mrr"),
    Option("page_size", ("--page-size",), "int", "tokens per KV page (default 1)", "tokens", 1, 1 << 16, None,
           "page"),
    Option("max_total_tokens", ("--max-total-tokens",), "int", "cap on the token pool", "tokens", 1, 1 << 40, None,
           "mtt"),
    Option("swa_full_tokens_ratio", ("--swa-full-tokens-ratio",), "float",
           "hybrid SWA models (gpt-oss): SWA-pool tokens per full-pool token (default 0.8)", "fraction", 0, 1, None,
           "swar"),
    Option("disable_hybrid_swa_memory", ("--disable-hybrid-swa-memory",), "bool",
           "pool sliding-window layers at full length even for hybrid SWA models", "", None, None, False, "noswa"),
    Option("allow_overwrite_longer_context_len", ("--allow-overwrite-longer-context-len",), "bool",
           "accept a context length above the model's (SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1)", "", None,
           None, False, "sglong"),
)
"""SGLang's flags kvcalc models (python/sglang/srt/server_args.py ``ServerArgs``), declared once."""


class SglangEngine(PagedEngine):
    """SGLang (module docstring)."""

    name = "sglang"
    label = "SGLang"
    article = "an"
    version = SGLANG_VERSION
    options_type = SglangOptions
    declarations = DECLARATIONS
    tp_flag = "--tp"
    vllm_names = {"max_model_len": "context_length", "block_size": "page_size", "max_num_seqs": "max_running_requests",
                  "gpu_memory_utilization": "mem_fraction_static"}
    kv_dtypes = ("bfloat16", "float16", "fp8_e4m3", "fp8_e5m2")
    kv_dtypes_text = "auto, bf16, fp8_e4m3, fp8_e5m2"
    sliding_ok = True

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
        from ..parallel import stage_specs

        return sglang_memory_plan(stage_specs(d.rank, d.pp), d.kv, total_gpu_bytes=d.gpu.memory_bytes,
                                  weights_bytes=d.weights_rank, options=d.options, context_len=d.context_cap,
                                  tp=d.tp, pp=d.pp, used_before_load_bytes=d.measured.non_torch_bytes,
                                  architectures=d.architectures)

    def launch_command(self, model: str, d: Deployment) -> Any:
        from ..serve_command import sglang_launch

        return sglang_launch(model, d)


ENGINE: Engine = SglangEngine()
"""SGLang (kvcalc.engines.registry)."""
