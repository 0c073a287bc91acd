"""llama.cpp / Ollama runtime rules: options and defaults (:mod:`.options`), KV cells and caches
(:mod:`.cache`), the per-device plan (:mod:`.plan`, entry point :func:`llama_cpp_plan`) and a
``llama-server`` / ``llama-cli`` command-line reader (:mod:`.command`)."""
from .options import KV_CACHE_TYPES, LlamaCppOptions
from .plan import LlamaCppPlan, llama_cpp_plan, plan_from_config

__all__ = ["KV_CACHE_TYPES", "LlamaCppOptions", "LlamaCppPlan", "llama_cpp_plan", "plan_from_config"]
