"""Engines as plug-ins: the :class:`~kvcalc.engines.base.Engine` seam and the one registry.

``get_engine("vllm")`` is vLLM's engine object; ``ENGINES`` every one by name; ``register`` adds one
(kvcalc.engines.registry). Each engine lives in its own package (kvcalc.ideal, kvcalc.hf_transformers,
kvcalc.vllm, kvcalc.sglang, kvcalc.trtllm, kvcalc.llama_cpp).
"""
from .base import Engine, Option
from .registry import ENGINES, get_engine, names, register, unregister

__all__ = ["ENGINES", "Engine", "Option", "get_engine", "names", "register", "unregister"]
