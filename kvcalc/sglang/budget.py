"""SGLang's startup budget and token pool on one GPU (bytes; SGLang's 'GB' is 2**30 bytes).

Sources (sgl-project/sglang, read, not copied; release line in kvcalc.sglang.defaults):

``python/sglang/srt/model_executor/model_runner.py`` / ``model_runner_kv_cache_mixin.py``
    ``profile_max_num_token``: ``rest = available_after_load - pre_load_free x (1 - mem_fraction_static)``
    (both in GiB, the free memory after and before the weights load, the minimum over TP ranks),
    ``max_total_num_tokens = int(rest x 2**30 // cell_size)``; ``cell_size`` is
    ``kv_heads_per_rank x head_dim x layers x 2 x dtype bytes`` (MLA:
    ``(kv_lora_rank + qk_rope_head_dim) x layers x dtype bytes``). ``init_memory_pool``: the count is
    rounded down to a multiple of ``page_size``, capped by ``--max-total-tokens``, and an empty pool
    raises :data:`~kvcalc.sglang.defaults.NOT_ENOUGH_MEMORY`.
``python/sglang/srt/mem_cache/memory_pool.py``
    ``MHATokenToKVPool._create_buffers``: per layer K and V buffers of ``size + page_size`` tokens
    (slot 0 is padding), logged as "KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB";
    ``MLATokenToKVPool``: one buffer, "KV size: X GB".
``python/sglang/srt/server_args.py``
    ``_handle_gpu_memory_settings``: the default ``mem_fraction_static`` (kvcalc.sglang.defaults).

kvcalc takes ``pre_load_free = total - used_before_load`` (measured ``non_torch_gib``, else the
assumed :data:`~kvcalc.sglang.defaults.DEFAULT_PRELOAD_USED_BYTES`) and ``available_after_load =
pre_load_free - weights``, so the KV budget is ``mem_fraction_static x pre_load_free - weights``.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..dtypes import DType
from ..engine import EngineMemoryPlan, key_value_cell_bytes, layer_cell_bytes
from ..spec import ModelSpec
from ..units import GiB
from .defaults import (
    DEFAULT_PAGE_SIZE,
    DEFAULT_PRELOAD_USED_BYTES,
    NOT_ENOUGH_MEMORY,
    SGLANG_VERSION,
    default_max_running_requests,
    default_mem_fraction_static,
)
from .options import SglangOptions
from .swa import DEFAULT_SWA_FULL_TOKENS_RATIO, is_hybrid_swa, split_hybrid_tokens

SOURCES = (
    "sglang python/sglang/srt/model_executor/model_runner.py: profile_max_num_token, init_memory_pool",
    "sglang python/sglang/srt/mem_cache/memory_pool.py: MHATokenToKVPool / MLATokenToKVPool",
    "sglang python/sglang/srt/server_args.py: ServerArgs._handle_gpu_memory_settings",
    "sglang python/sglang/srt/configs/model_config.py: is_hybrid_swa_model (sliding-window layers' pool)",
    "sglang python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py: set_num_tokens_hybrid_swa",
)


def _window_cells(spec: ModelSpec, kv: DType) -> tuple[int, int, int]:
    """(full-attention layers' bytes per token, sliding layers' bytes per token, largest window)."""
    full = swa = window = 0
    for layer in spec.layers:
        w = max((a.window or 0 for a in layer.attention), default=0)
        if w:
            swa += layer_cell_bytes(layer, kv)
            window = max(window, w)
        else:
            full += layer_cell_bytes(layer, kv)
    return full, swa, window


def _gb(nbytes: float) -> str:
    return f"{nbytes / GiB:.2f}"


def sglang_memory_plan(stage_rank_specs: list[ModelSpec], kv: DType, *, total_gpu_bytes: int, weights_bytes: int,
                       options: SglangOptions, context_len: int, tp: int = 1, pp: int = 1,
                       used_before_load_bytes: int | None = None, architectures: Sequence[str] = ()
                       ) -> EngineMemoryPlan:
    """SGLang's pool on the busiest GPU (module docstring). ``stage_rank_specs``: one rank's spec per
    pipeline stage; ``context_len``: the validated context length (``--context-length`` or the model's);
    ``architectures``: the config's, which decide whether sliding-window layers get SGLang's hybrid SWA
    pool (kvcalc.sglang.swa) or the single pool at full length."""
    notes: list[str] = []
    mf = options.mem_fraction_static
    if mf is None:
        mf = default_mem_fraction_static(total_gpu_bytes, tp, pp)
        notes.append(f"mem_fraction_static {mf:g}: SGLang {SGLANG_VERSION}'s default for this GPU and TP "
                     "(server_args.py _handle_gpu_memory_settings; v0.4 releases used 0.88 / 0.87 / 0.85 by TP size)")
    page = options.page_size or DEFAULT_PAGE_SIZE
    if used_before_load_bytes is None:
        used_before_load_bytes = DEFAULT_PRELOAD_USED_BYTES
        notes.append(f"assumed {used_before_load_bytes / GiB:.2f} GiB in use before the weights load (CUDA context, "
                     "NCCL; SGLang measures it): give non_torch_gib to use a measured figure")
    pre_load_free = total_gpu_bytes - used_before_load_bytes
    cells = [key_value_cell_bytes(s, kv) for s in stage_rank_specs]
    busiest = max(range(len(cells)), key=lambda i: sum(cells[i]))
    k_cell, v_cell = cells[busiest]
    cell = k_cell + v_cell
    full_cell, swa_cell, window = _window_cells(stage_rank_specs[busiest], kv)
    hybrid = bool(swa_cell) and is_hybrid_swa(architectures, options.disable_hybrid_swa_memory)
    if swa_cell and not hybrid:
        why = ("--disable-hybrid-swa-memory" if options.disable_hybrid_swa_memory else
               f"{'/'.join(architectures)[:60] or 'this architecture'} is not one of is_hybrid_swa_model's")
        notes.append(f"sliding-window layers pooled at full length ({why}): SGLang's MHATokenToKVPool keeps "
                     "every layer's K and V for every token")
    budget = int(pre_load_free * mf)
    rest = budget - weights_bytes
    tokens = int(rest // cell) if rest > 0 and cell else 0
    tokens = tokens // page * page
    if options.max_total_tokens is not None and tokens > options.max_total_tokens:
        tokens = options.max_total_tokens // page * page
        notes.append(f"--max-total-tokens {options.max_total_tokens:,} caps the pool")
    refusal = NOT_ENOUGH_MEMORY if tokens <= 0 else None
    tokens = max(tokens, 0)
    running = options.max_running_requests or (default_max_running_requests(tokens, context_len) if tokens else 0)
    pool_bytes = (tokens + page) * cell if tokens else 0
    swa_tokens = 0
    hybrid_line: tuple[str, ...] = ()
    if hybrid and tokens:
        ratio = options.swa_full_tokens_ratio or DEFAULT_SWA_FULL_TOKENS_RATIO
        single = tokens
        tokens, swa_tokens = split_hybrid_tokens(single, full_cell, swa_cell, ratio, page)
        pool_bytes = (tokens + page) * full_cell + (swa_tokens + page) * swa_cell
        hybrid_line = (f"Use sliding window memory pool. full_layer_tokens={tokens}, swa_layer_tokens={swa_tokens}",)
        notes.append(f"hybrid SWA pool: {single:,} single-pool tokens re-split with swa_full_tokens_ratio {ratio:g} "
                     f"(model_runner_kv_cache_mixin.py set_num_tokens_hybrid_swa); a request keeps at most its "
                     f"window of {window:,} tokens in the SWA pool")
    mla = v_cell == 0
    if refusal:
        lines: tuple[str, ...] = (
            f"no KV-cache memory: {mf:g} x {_gb(pre_load_free)} GiB free before load = {_gb(budget)} GiB "
            f"<= weights {_gb(weights_bytes)} GiB", f"SGLang refuses to start: {refusal}")
    else:
        size = (f"KV size: {_gb(pool_bytes)} GB" if mla else
                f"K size: {_gb((tokens + page) * k_cell)} GB, V size: {_gb((tokens + page) * v_cell)} GB")
        alloc = () if hybrid else (f"KV Cache is allocated. #tokens: {tokens}, {size}",)
        lines = (*hybrid_line, *alloc,
                 f"max_total_num_tokens={tokens}, max_running_requests={running}, context_len={context_len}")
    formulas = (
        f"KV budget = mem_fraction_static {mf:g} x {_gb(pre_load_free)} GiB free before load - weights "
        f"{_gb(weights_bytes)} GiB = {_gb(rest)} GiB",
        f"tokens = {_gb(max(rest, 0))} GiB // {cell:,} B per token (all layers, K+V), in pages of {page} "
        f"= {tokens:,}",
    )
    return EngineMemoryPlan(
        engine="sglang", version=SGLANG_VERSION, total_gpu_bytes=total_gpu_bytes, budget_bytes=budget,
        weights_bytes=weights_bytes, overhead_bytes=max(total_gpu_bytes - budget, 0),
        available_kv_bytes=max(rest, 0), cell_bytes=full_cell if hybrid else cell, page_size=page,
        pool_tokens=tokens, pool_bytes=pool_bytes, max_context=context_len, max_running=running, log_lines=lines,
        formulas=formulas, notes=tuple(notes), sources=SOURCES, refusal=refusal,
        swa_cell_bytes=swa_cell if hybrid else 0, swa_pool_tokens=swa_tokens, swa_window=window if hybrid else 0)

