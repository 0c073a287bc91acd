"""The runtimes kvcalc models: the one list, and its validator.

``ideal``        the least the cache must hold (kvcalc.kv).
``transformers`` Hugging Face transformers' default DynamicCache (kvcalc.kv) + generate's peak.
``vllm``         vLLM v1's paged blocks and startup budget (kvcalc.vllm).
``sglang``       SGLang's token pool and ``mem_fraction_static`` budget (kvcalc.sglang).
``tensorrt_llm`` TensorRT-LLM's paged blocks on ``free_gpu_memory_fraction`` of the free memory (kvcalc.trtllm).
``llama_cpp``    llama.cpp's preallocated ``n_ctx`` cells, GGUF weights and ``-ngl`` offload (kvcalc.llama_cpp).

Each runtime is an engine object in kvcalc.engines.registry (the one list; a runtime registered there
is a runtime here). The tuples below are the built-in names for callers that list them (the CLI's
choices, the pages); code that needs to know what a runtime does asks its engine instead.
"""
from __future__ import annotations

from typing import Literal

from .engines.registry import BUILTIN, get_engine

Runtime = Literal["ideal", "transformers", "vllm", "sglang", "tensorrt_llm", "llama_cpp"]
RUNTIMES: tuple[Runtime, ...] = tuple(BUILTIN)  # type: ignore[arg-type]
ENGINE_RUNTIMES: tuple[Runtime, ...] = ("sglang", "tensorrt_llm", "llama_cpp")
"""Runtimes planned through kvcalc.engine.EngineMemoryPlan."""
KV_RUNTIMES: tuple[Runtime, ...] = ("ideal", "transformers", "vllm")
"""Runtimes ``kvcalc.kv_cache`` gives per-layer bytes for (the engines' pools are planned, not listed there)."""
ENGINE_LABELS: dict[str, str] = {"sglang": "SGLang", "tensorrt_llm": "TensorRT-LLM", "llama_cpp": "llama.cpp"}


def check_runtime(runtime: object) -> Runtime:
    """``runtime`` if it names an engine (kvcalc.engines.registry), else InputError naming the choices."""
    name: Runtime = get_engine(runtime).name
    return name
