"""The runtimes kvcalc models: the one list, and its validator.

``ideal``        the least the cache must hold (kvcalc.kv).
``transformers`` Hugging Face transformers' default DynamicCache (kvcalc.kv) + generate's peak.
``vllm``         vLLM v1's paged blocks and startup budget (kvcalc.vllm).
``sglang``       SGLang's token pool and ``mem_fraction_static`` budget (kvcalc.sglang).
``tensorrt_llm`` TensorRT-LLM's paged blocks on ``free_gpu_memory_fraction`` of the free memory (kvcalc.trtllm).
``llama_cpp``    llama.cpp's preallocated ``n_ctx`` cells, GGUF weights and ``-ngl`` offload (kvcalc.llama_cpp).

Each runtime is an engine object in kvcalc.engines.registry (the one list; a runtime registered there
is a runtime here). The tuples below are derived from the built-in engines' attributes for callers that
list them (the CLI's choices, the pages), on first use (module ``__getattr__``: the engines import the
core, which imports this module); code that needs to know what a runtime does asks its engine instead.

>>> from kvcalc.runtimes import ENGINE_LABELS, ENGINE_RUNTIMES, KV_RUNTIMES
>>> ENGINE_RUNTIMES, KV_RUNTIMES
(('sglang', 'tensorrt_llm', 'llama_cpp'), ('ideal', 'transformers', 'vllm'))
>>> ENGINE_LABELS["llama_cpp"]
'llama.cpp'
"""
from __future__ import annotations

from functools import cache
from typing import Any, Literal

from .engines.registry import BUILTIN, get_engine

Runtime = Literal["ideal", "transformers", "vllm", "sglang", "tensorrt_llm", "llama_cpp"]
RUNTIMES: tuple[Runtime, ...] = tuple(BUILTIN)  # type: ignore[arg-type]

_DERIVED = {
    "ENGINE_RUNTIMES": "Runtimes planned through kvcalc.engine.EngineMemoryPlan (their engine is ``pooled``).",
    "KV_RUNTIMES": "Runtimes ``kvcalc.kv_cache`` gives per-layer bytes for (the pooled engines' are planned).",
    "ENGINE_LABELS": "Each pooled engine's name in text (its ``label``).",
}


@cache
def _derived() -> dict[str, Any]:
    pooled = tuple(n for n in RUNTIMES if get_engine(n).pooled)
    return {"ENGINE_RUNTIMES": pooled, "KV_RUNTIMES": tuple(n for n in RUNTIMES if n not in pooled),
            "ENGINE_LABELS": {n: get_engine(n).label for n in pooled}}


def __getattr__(name: str) -> Any:
    """:data:`_DERIVED`'s tuples, read from the built-in engines on first use."""
    if name in _DERIVED:
        return _derived()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_runtime(runtime: object) -> Runtime:
    """``runtime`` if it names an engine (kvcalc.engines.registry), else InputError naming the choices."""
    name: Runtime = get_engine(runtime).name
    return name
