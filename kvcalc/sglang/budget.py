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
from typing import TYPE_CHECKING

from ..dtypes import DType
from ..engine import EngineMemoryPlan, key_value_cell_bytes, layer_cell_bytes
from ..spec import ModelSpec
from ..units import GiB, MiB
from .defaults import (
    DEFAULT_PAGE_SIZE,
    DEFAULT_PRELOAD_USED_BYTES,
    NOT_ENOUGH_MEMORY,
    SGLANG_VERSION,
    SWA_POOL_TOO_SMALL,
    chunked_prefill_size_0_4,
    default_max_running_requests,
    default_mem_fraction_static,
    running_requests_0_4,
)
from .options import SglangOptions
from .swa import DEFAULT_SWA_FULL_TOKENS_RATIO, hybrid_tokens, is_hybrid_swa, split_hybrid_tokens
from .vlm import VlmRule

if TYPE_CHECKING:
    from ..deployment import Deployment

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


def is_mla(spec: ModelSpec) -> bool:
    """Whether SGLang runs ``spec`` on its MLA backend (a latent KV row, no per-head K / V)."""
    return any(a.latent_dim for layer in spec.layers for a in layer.attention)


def mem_fraction(options: SglangOptions, total_gpu_bytes: int, tp: int, pp: int, mla: bool,
                 vlm: VlmRule | None = None) -> float:
    """``--mem-fraction-static``: the option, else SGLang's default for the GPU, TP / PP, the MLA backend
    and the running-request / token caps (kvcalc.sglang.defaults.default_mem_fraction_static), scaled for a
    multimodal model's ViT (kvcalc.sglang.vlm)."""
    if options.mem_fraction_static is not None:
        return options.mem_fraction_static
    mf = default_mem_fraction_static(total_gpu_bytes, tp, pp, mla=mla, version=options.sglang_version,
                                     max_running_requests=options.max_running_requests,
                                     max_total_tokens=options.max_total_tokens,
                                     prefill_graph=vlm is None or vlm.prefill_graph)
    return vlm.mem_fraction(mf) if vlm is not None else mf


def sglang_mem_fraction(d: Deployment) -> float:
    """The ``--mem-fraction-static`` SGLang runs ``d`` with: the option, else its default for the GPU.

    >>> from kvcalc.catalog import bundled_config
    >>> from kvcalc.deployment import deploy
    >>> sglang_mem_fraction(deploy(bundled_config("Qwen/Qwen3-8B"), runtime="sglang", mem_fraction_static=0.8))
    0.8
    """
    from .vlm import vlm_rule

    vlm = vlm_rule(d.config) if d.options.sglang_version == SGLANG_VERSION else None
    return mem_fraction(d.options, d.gpu.memory_bytes, d.tp, d.pp, is_mla(d.rank), vlm)


def _gb(nbytes: float) -> str:
    return f"{nbytes / GiB:.2f}"


def _running(options: SglangOptions, tokens: int, context_len: int) -> int:
    """``resolve_max_num_reqs``; 0.5.23 caps it (given or not) at half the pool's tokens; 0.4 counts the
    request pool's extra slot (kvcalc.sglang.defaults.running_requests_0_4)."""
    if not tokens:
        return 0
    if options.sglang_version == "0.4":
        return running_requests_0_4(tokens, context_len, options.max_running_requests)
    if options.sglang_version == "0.5.9":
        return options.max_running_requests or default_max_running_requests(tokens, context_len)
    want = options.max_running_requests or default_max_running_requests(tokens, context_len)
    return min(want, tokens // 2)


def _single_pool(rest: int, cell: int, page: int, options: SglangOptions, notes: list[str]) -> int:
    tokens = int(rest // cell) if rest > 0 and cell else 0
    tokens = tokens // page * page
    if options.max_total_tokens is not None and tokens > options.max_total_tokens:
        tokens = options.max_total_tokens // page * page
        notes.append(f"--max-total-tokens {options.max_total_tokens:,} caps the pool")
    return max(tokens, 0)


def sglang_memory_plan(stage_rank_specs: list[ModelSpec], kv: DType, *, total_gpu_bytes: int, weights_bytes: int,
                       options: SglangOptions, context_len: int, tp: int = 1, pp: int = 1,
                       used_before_load_bytes: int | None = None, architectures: Sequence[str] = (),
                       vlm: VlmRule | None = None) -> EngineMemoryPlan:
    """SGLang's pool on the busiest GPU (module docstring). ``stage_rank_specs``: one rank's spec per
    pipeline stage; ``context_len``: the validated context length (``--context-length`` or the model's);
    ``architectures``: the config's, which decide whether sliding-window layers get SGLang's hybrid SWA
    pool (kvcalc.sglang.swa) or the single pool at full length; ``vlm``: a multimodal model's
    reservations (kvcalc.sglang.vlm), None for a text model."""
    notes: list[str] = []
    version = options.sglang_version
    mf = mem_fraction(options, total_gpu_bytes, tp, pp, is_mla(stage_rank_specs[0]), vlm)
    if options.mem_fraction_static is None and version == "0.4":
        notes.append(f"mem_fraction_static {mf:g}: SGLang 0.4's default for TP {tp} (server_args.py "
                     f"ServerArgs.__post_init__); chunked_prefill_size "
                     f"{chunked_prefill_size_0_4(total_gpu_bytes / MiB)} (not in 0.4's budget)")
    elif options.mem_fraction_static is None:
        notes.append(f"mem_fraction_static {mf:g}: SGLang {version}'s default for this GPU and TP "
                     "(memory_hook.py handle_gpu_memory_settings; v0.4 releases used 0.88 / 0.87 / 0.85 by TP size)")
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
    hybrid = bool(swa_cell) and is_hybrid_swa(architectures, options.disable_hybrid_swa_memory, version)
    if swa_cell and not hybrid:
        why = ("--disable-hybrid-swa-memory" if options.disable_hybrid_swa_memory else
               f"{'/'.join(architectures)[:60] or 'this architecture'} is not one of is_hybrid_swa_model's")
        notes.append(f"sliding-window layers pooled at full length ({why}): SGLang's MHATokenToKVPool keeps "
                     "every layer's K and V for every token")
    budget = int(pre_load_free * mf)
    rest = budget - weights_bytes
    if vlm is not None:
        rest -= vlm.cache_bytes
        notes.append(f"multimodal: {vlm.cache_bytes / MiB:g} MiB embedding cache (SGLANG_VLM_CACHE_SIZE_MB) off the KV "
                     f"budget" + ("" if options.mem_fraction_static is not None else
                                  f"; default mem_fraction_static scaled for its {vlm.vit_layers}-layer, "
                                  f"{vlm.vit_hidden:,}-wide ViT (memory_hook.py adjust_mem_fraction_for_vlm)"))
    ratio = options.swa_full_tokens_ratio or DEFAULT_SWA_FULL_TOKENS_RATIO
    swa_tokens = 0
    if hybrid and version == SGLANG_VERSION:
        tokens, swa_tokens = hybrid_tokens(max(rest, 0), full_cell, swa_cell, ratio, page, options.max_total_tokens)
        running = _running(options, tokens or swa_tokens, context_len)
    else:
        tokens = _single_pool(rest, cell, page, options, notes)
        running = _running(options, tokens, context_len)
        if hybrid and tokens:
            tokens, swa_tokens = split_hybrid_tokens(tokens, full_cell, swa_cell, ratio, page)
    refusal = NOT_ENOUGH_MEMORY if tokens <= 0 and swa_tokens <= 0 else None
    if hybrid and not refusal and window and full_cell and window + page >= swa_tokens:
        refusal = SWA_POOL_TOO_SMALL.format(swa=swa_tokens, window=window, page=page)
    return _plan(stage_rank_specs, kv, options, total_gpu_bytes=total_gpu_bytes, weights_bytes=weights_bytes,
                 budget=budget, rest=rest, pre_load_free=pre_load_free, mf=mf, page=page, tokens=tokens,
                 swa_tokens=swa_tokens, running=running if not refusal else 0, context_len=context_len,
                 hybrid=hybrid, cells=(k_cell, v_cell, full_cell, swa_cell, window), refusal=refusal, notes=notes)


def _plan(stage_rank_specs: list[ModelSpec], kv: DType, options: SglangOptions, *, total_gpu_bytes: int,
          weights_bytes: int, budget: int, rest: int, pre_load_free: int, mf: float, page: int, tokens: int,
          swa_tokens: int, running: int, context_len: int, hybrid: bool, cells: tuple[int, int, int, int, int],
          refusal: str | None, notes: list[str]) -> EngineMemoryPlan:
    """The plan's bytes, log lines and formulas from the sized pool(s)."""
    k_cell, v_cell, full_cell, swa_cell, window = cells
    cell = k_cell + v_cell
    pool_bytes = (tokens + page) * cell if tokens else 0
    hybrid_line: tuple[str, ...] = ()
    if hybrid and not refusal:
        pool_bytes = (tokens + page) * full_cell + (swa_tokens + page) * swa_cell
        hybrid_line = (f"Use sliding window memory pool. full_layer_tokens={tokens}, swa_layer_tokens={swa_tokens}",)
        ratio = options.swa_full_tokens_ratio or DEFAULT_SWA_FULL_TOKENS_RATIO
        notes.append(f"hybrid SWA pool: swa_full_tokens_ratio {ratio:g} (pool_configurator.py "
                     f"HybridSWAPoolConfigurator); a request keeps at most its window of {window:,} tokens in the "
                     "SWA pool")
    if refusal:
        tokens = swa_tokens = pool_bytes = 0
        lines: tuple[str, ...] = (
            f"no KV-cache memory: {mf:g} x {_gb(pre_load_free)} GiB free before load = {_gb(budget)} GiB "
            f"<= weights {_gb(weights_bytes)} GiB" if rest <= 0 else "the SWA pool holds no request",
            f"SGLang refuses to start: {refusal}")
    else:
        size = (f"KV size: {_gb(pool_bytes)} GB" if v_cell == 0 else
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
        engine="sglang", version=options.sglang_version, total_gpu_bytes=total_gpu_bytes, budget_bytes=budget,
        weights_bytes=weights_bytes, overhead_bytes=max(total_gpu_bytes - budget, 0),
        available_kv_bytes=max(rest, 0), cell_bytes=full_cell if hybrid else cell, page_size=page,
        pool_tokens=tokens, pool_bytes=pool_bytes, max_context=context_len, max_running=running, log_lines=lines,
        formulas=formulas, notes=tuple(notes), sources=SOURCES, refusal=refusal,
        swa_cell_bytes=swa_cell if hybrid else 0, swa_pool_tokens=swa_tokens, swa_window=window if hybrid else 0)
