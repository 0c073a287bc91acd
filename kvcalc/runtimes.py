"""The runtimes kvcalc models: the one list, and its validator.

``ideal``        the least the cache must hold (kvcalc.kv).
``transformers`` Hugging Face transformers' default DynamicCache (kvcalc.kv) + generate's peak.
``vllm``         vLLM v1's paged blocks and startup budget (kvcalc.vllm).
"""
from __future__ import annotations

from typing import Literal

from .errors import InputError

Runtime = Literal["ideal", "transformers", "vllm"]
RUNTIMES: tuple[Runtime, ...] = ("ideal", "transformers", "vllm")


def check_runtime(runtime: object) -> Runtime:
    """``runtime`` if it is one of :data:`RUNTIMES`, else InputError naming the choices."""
    for r in RUNTIMES:
        if runtime == r:
            return r
    raise InputError(f"unknown runtime '{str(runtime)[:40]}'; choose one of {', '.join(RUNTIMES)}")
