"""How it works, per serving engine: each engine's rule and sources, read from the kvcalc module that
implements it (its docstring and ``SOURCES``), so the page repeats nothing kvcalc does not say."""
from __future__ import annotations

from types import ModuleType

import streamlit as st

from kvcalc.engines import get_engine
from kvcalc.llama_cpp import seam as llama_seam
from kvcalc.sglang import SGLANG_VERSION
from kvcalc.sglang import budget as sglang_budget
from kvcalc.trtllm import TRTLLM_VERSION
from kvcalc.trtllm import budget as trtllm_budget

from .text import code, md

ENGINE_MODULES: dict[str, tuple[ModuleType, str]] = {
    "sglang": (sglang_budget, f"v{SGLANG_VERSION} line"),
    "tensorrt_llm": (trtllm_budget, f"{TRTLLM_VERSION} line"),
    "llama_cpp": (llama_seam, llama_seam.VERSION),
}
"""runtime -> (the kvcalc module whose docstring states the rule and whose SOURCES name the files, release)."""


def rule_summary(module: ModuleType) -> str:
    """The first sentence block of the module's docstring (its one-line rule)."""
    return (module.__doc__ or "").strip().split("\n\n", 1)[0].replace("\n", " ")


def render() -> None:
    """One short section per engine: the rule, the engine files it follows, the full docstring folded."""
    st.header("Serving engines")
    st.caption("Each engine turns the same per-layer KV bytes into its own pool (kvcalc.engine.EngineMemoryPlan); "
               "the rules and the logs they reproduce: docs/engines.md.")
    for runtime, (module, release) in ENGINE_MODULES.items():
        st.subheader(f"{md(get_engine(runtime).label)} ({code('--runtime ' + runtime)}, {md(release)})")
        st.markdown(md(rule_summary(module)))
        for source in getattr(module, "SOURCES", ()):
            st.markdown(f"- {md(source)}")
        with st.expander(f"The rule as kvcalc states it ({md(module.__name__)})"):
            st.text((module.__doc__ or "").strip())
