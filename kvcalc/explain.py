"""The words and formulas a plan shows: its binding constraint and the arithmetic behind it.

Pure text from numbers kvcalc.plan already computed (bytes; shown as GiB = 2**30 bytes, ``%.2f``).
"""
from __future__ import annotations

from typing import Any

from .deployment import Deployment
from .engine import EngineMemoryPlan
from .limits import MAX_CONTEXT
from .units import GiB
from .vllm import VllmMemoryPlan


def gib(x: float) -> str:
    """``'12.34 GiB'`` (2**30 bytes, two decimals)."""
    return f"{x / GiB:.2f} GiB"


def _cap_owner(d: Deployment) -> str:
    return "max_model_len" if d.max_model_len else "the model's maximum"


def direct_binding(d: Deployment, batch: int, context: int, kv_gpu: int, overhead: int, fits: bool,
                   max_context: int | None) -> str | None:
    """What binds under ``ideal`` / ``transformers``; None when only the growth test can tell
    (then :func:`growth_binding`)."""
    budget, cap = d.gpu.memory_bytes, d.context_cap
    if d.weights_rank > budget:
        return f"weights alone exceed the GPU: {gib(d.weights_rank)} of weights per GPU > {gib(budget)}"
    if context > cap:
        return f"context {context:,} exceeds {_cap_owner(d)} of {cap:,} tokens"
    if not fits:
        what = "KV cache" if overhead == 0 or kv_gpu >= overhead else "activation peak"
        return f"{what}: weights {gib(d.weights_rank)} + KV {gib(kv_gpu)} + overhead {gib(overhead)} > {gib(budget)}"
    if max_context == cap and cap != MAX_CONTEXT:
        whose = "max_model_len" if d.max_model_len else "the model's maximum context"
        return f"{whose} ({cap:,} tokens) binds before memory"
    return None


def growth_binding(kv_grows_faster: bool, budget: int) -> str:
    """Which term fills the GPU as context grows: the KV cache or the activation peak."""
    what = "KV cache" if kv_grows_faster else "activation peak"
    return f"{what} grows until GPU memory ({gib(budget)}) is full"


def direct_formulas(d: Deployment, batch: int, context: int, kv_gpu: int, overhead: int, fits: bool) -> tuple[str, ...]:
    """The three lines of arithmetic behind an ``ideal`` / ``transformers`` plan."""
    total = d.weights_rank + kv_gpu + overhead
    return (
        f"weights per GPU = {d.weights.scheme} weights {gib(d.weights.total_bytes)} split over tp={d.tp} x pp={d.pp}"
        f" -> {gib(d.weights_rank)}",
        f"KV per GPU = batch {batch} x per-layer cache at {context:,} tokens ({d.kv.name}) = {gib(kv_gpu)}",
        f"total per GPU = {gib(d.weights_rank)} + {gib(kv_gpu)} + overhead {gib(overhead)} = {gib(total)}"
        f" {'<=' if fits else '>'} {gib(d.gpu.memory_bytes)}",
    )


def vllm_binding(d: Deployment, vp: VllmMemoryPlan, batch: int, context: int, per_req: int, pool: int, fits: bool,
                 solvers_answered: bool, max_batch: int) -> str:
    """What binds under vLLM (its refusal in its terms when it would not start)."""
    if vp.available_kv_bytes <= 0 or not vp.fits:
        binding = vp.binding
        if pool and solvers_answered:
            binding += "; the longest context and largest batch shown assume max_model_len is lowered to fit"
        if vp.weights_bytes > vp.requested_bytes:
            binding = (f"weights alone exceed the GPU: {gib(vp.weights_bytes)} per GPU > "
                       f"{vp.gpu_memory_utilization:g} x {gib(d.gpu.memory_bytes)}")
        return binding
    if context > vp.max_model_len:
        return f"context {context:,} exceeds max_model_len {vp.max_model_len:,}"
    if batch > vp.max_num_seqs:
        return f"batch {batch:,} exceeds max_num_seqs {vp.max_num_seqs:,}"
    if not fits:
        return f"KV pages: {batch} requests x {per_req:,} blocks > {pool:,} blocks in the pool"
    if max_batch == vp.max_num_seqs:
        return f"max_num_seqs ({vp.max_num_seqs:,}) caps the batch before KV pages run out"
    return f"KV pages: {pool:,} blocks of {vp.block_size} tokens ({gib(vp.available_kv_bytes)} available)"


def vllm_formulas(d: Deployment, vp: VllmMemoryPlan) -> tuple[str, ...]:
    """vLLM's budget arithmetic (without its startup lines: ``VllmMemoryPlan.log_lines``)."""
    requested = f"requested = {vp.gpu_memory_utilization:g} x {gib(d.gpu.memory_bytes)} = {gib(vp.requested_bytes)}"
    if vp.available_kv_bytes <= 0:
        return requested, vp.no_memory_text()
    return (
        requested,
        f"available KV = requested - weights {gib(vp.weights_bytes)} - activation {gib(vp.activation_bytes)}"
        f" - non-torch {gib(vp.non_torch_bytes)} - CUDA graphs {gib(vp.cuda_graph_bytes)}"
        f" = {gib(vp.available_kv_bytes)}",
        f"blocks = available / {vp.block_bytes:,} B per block ({vp.group_size} layers x {vp.block_size} tokens)"
        f" = {vp.num_gpu_blocks:,}",
    )


def engine_binding(ep: EngineMemoryPlan, batch: int, context: int, fits: bool, max_batch: int | None) -> str:
    """What binds under an engine (SGLang, TensorRT-LLM, llama.cpp): its refusal in its words when it
    would not start, else the context cap, the concurrency cap or the pool."""
    unit = {"sglang": "pages", "llama_cpp": "cells"}.get(ep.engine, "blocks")
    if ep.refusal is not None:
        return ep.refusal
    if ep.weights_bytes > ep.total_gpu_bytes:
        return f"weights alone exceed the GPU: {gib(ep.weights_bytes)} per GPU > {gib(ep.total_gpu_bytes)}"
    if context > ep.max_context:
        return f"context {context:,} exceeds the engine's maximum of {ep.max_context:,} tokens"
    if batch > ep.max_running:
        return f"batch {batch:,} exceeds the {ep.max_running:,} requests the engine runs at once"
    if not fits:
        return (f"KV pool: {batch} requests x {ep.request_tokens(context):,} tokens > {ep.pool_tokens:,} tokens "
                f"({ep.pool_pages:,} {unit} of {ep.page_size})")
    if max_batch == ep.max_running:
        return f"the concurrent-request cap ({ep.max_running:,}) binds before the KV pool runs out"
    return (f"KV pool: {ep.pool_tokens:,} tokens in {ep.pool_pages:,} {unit} of {ep.page_size} "
            f"({gib(ep.available_kv_bytes)} set aside)")


def pool_binds_text(p: Any) -> str | None:
    """Why a plan (a kvcalc.plan.PlanResult) that does not fit shows a total within its budget, in plain text,
    where the engine's pool binds (:func:`engine_binding`'s "KV pool: ..."); None otherwise. The KV figure is
    what the requests occupy; the engine sizes and lays out its pool at startup in its own way (SGLang splits it
    between full-attention and sliding-window layers, a paged pool rounds to pages), and that pool binds."""
    if p.fits or p.total_bytes > p.budget_bytes or not p.binding_constraint.startswith("KV pool"):
        return None         # fits, is over its budget anyway, or a length / concurrency cap binds (its own words)
    from .engines import get_engine
    from .units import human_bytes

    return (f"The total ({human_bytes(p.total_bytes)}) is within the budget ({human_bytes(p.budget_bytes)}), yet "
            f"{get_engine(p.runtime).label} does not hold the requests: {p.binding_constraint}. The KV figure is what "
            "the requests occupy; the engine sizes and lays out its pool at startup, and that pool binds.")
