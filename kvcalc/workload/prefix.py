"""Prefix sharing: how many requests run at once when they share a prompt prefix (blocks, tokens).

Each serving engine stores a shared prefix by its own rule (sources read, not copied):

* vLLM 0.33.0 (``vllm/v1/core/``): ``block_pool.py`` ``BlockPool`` keeps one block per block hash
  (``cached_block_hash_to_block``; a hit raises ``ref_cnt``), so only a prefix's FULL blocks are shared:
  ``floor(P / block_size)`` per full-attention group. ``kv_cache_manager.py`` ``get_computed_blocks``
  caps a hit at ``num_tokens - 1`` (the last token is recomputed for its logits), so a request of ``L``
  tokens shares at most ``floor((L - 1) / block_size)``. ``single_type_kv_cache_manager.py``:
  ``SlidingWindowManager.get_num_skipped_tokens`` frees blocks before the window
  (``remove_skipped_blocks``), so a sliding-window layer holds the prefix only while it is inside the
  window: no saving once ``L - P >= window + block_size`` (exact), else counted as no saving
  (``estimated``: a lower bound); ``ChunkedLocalAttentionManager`` likewise per chunk;
  ``MambaManager.get_num_skipped_tokens`` = ``num_computed_tokens - 1``: each request keeps its own
  state pages (no saving, exact). ``kv_cache_coordinator.py`` ``HybridKVCacheCoordinator``: a hybrid
  model's hit is aligned to the scheduler block size (the lcm of the groups' block sizes here).
  The pool holds ``num_gpu_blocks`` of which ``BlockPool.__init__`` takes one as the null block.
  ``config/model.py`` ``ModelConfig.is_prefix_caching_supported``: off (nothing shared) for
  encoder-decoder and attention-free models.
* SGLang 0.5.23 (``sglang/srt/mem_cache/radix_cache.py``): ``RadixKey.page_aligned`` /
  ``RadixCache.match_prefix`` truncate a match to whole pages, ``len // page_size * page_size``;
  ``managers/schedule_batch.py`` ``Req._compute_max_prefix_len``: ``max_prefix_len = input_len - 1``.
  The shared prefix's pages are stored once in the radix tree. The sliding-window pool (``SWAKVPool``)
  is counted as not shared (``estimated`` unless ``L - P`` covers the window).
* llama.cpp (``tools/server/server.cpp``, master 2026-04): each slot keeps its own prompt cache
  (``server_slot`` ``cache_tokens``; ``--cache-reuse`` and ``--slot-prompt-similarity`` reuse a slot's
  own cells): no saving across slots, the effective concurrency is the plain one.

Formula: a request of ``L`` tokens holds ``B = blocks(L)``; ``S`` of them are the shared prefix, stored once,
so ``n`` requests hold ``n (B - S) + S`` blocks and the pool of ``N`` blocks holds
``effective_concurrency = (N - S) / (B - S)`` (``N / B``, vLLM's "Maximum concurrency", when ``S = 0``).
``requests_at_once`` is the whole number that fits with the engine's reserved blocks (vLLM's null block)
held back, at most the engine's running cap (``max_num_seqs`` / ``max_running_requests``).
Units: blocks (pages) of the engine's pool, tokens.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from math import lcm
from typing import Any

from ..dtypes import ceil_div
from ..errors import InputError, UnsupportedError
from ..limits import MAX_CONTEXT, check_count

Quality = str
"""``exact`` (the engine's rule followed) or ``estimated`` (a rule not modelled: a lower bound)."""


@dataclass(frozen=True)
class GroupSharing:
    """One KV-cache group (vLLM) or pool (SGLang, llama.cpp): ``blocks_per_request`` at the request length,
    ``shared_blocks`` of them the prefix stored once, and why (``rule``)."""

    kind: str
    block_size: int
    blocks_per_request: int
    shared_blocks: int
    rule: str
    quality: Quality = "exact"


@dataclass(frozen=True)
class PrefixSharing:
    """Requests at once with a shared prefix, per the engine's prefix cache (module docstring; blocks).

    ``pool_blocks``: the engine's pool; ``reserved_blocks``: blocks the engine holds back from requests
    (vLLM's null block); ``blocks_per_request`` / ``shared_blocks``: summed over groups;
    ``plain_concurrency = pool / blocks_per_request`` (vLLM's logged figure); ``effective_concurrency =
    (pool - shared) / (blocks_per_request - shared)``; ``blocks_resident``: the blocks
    ``requests_at_once`` requests hold (shared ones once); ``running_cap``: the engine's limit on running
    requests. ``quality``: ``exact`` or ``estimated`` (see ``notes``)."""

    engine: str
    version: str
    shared_prefix_tokens: int
    request_tokens: int
    pool_blocks: int
    reserved_blocks: int
    groups: tuple[GroupSharing, ...]
    blocks_per_request: int
    shared_blocks: int
    plain_concurrency: float
    effective_concurrency: float
    requests_at_once: int
    blocks_resident: int
    running_cap: int
    quality: Quality
    notes: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    hit_rate: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (the CLI's ``plan --json`` adds ``effective_concurrency``)."""
        from dataclasses import asdict

        return asdict(self)


VLLM_SOURCES = (
    "vllm 0.33.0 v1/core/block_pool.py BlockPool (cached_block_hash_to_block, null_block)",
    "vllm 0.33.0 v1/core/kv_cache_manager.py KVCacheManager.get_computed_blocks (hit <= num_tokens - 1)",
    "vllm 0.33.0 v1/core/single_type_kv_cache_manager.py SlidingWindowManager / MambaManager "
    "get_num_skipped_tokens, remove_skipped_blocks",
    "vllm 0.33.0 v1/core/kv_cache_coordinator.py HybridKVCacheCoordinator (hit alignment)",
)
SGLANG_SOURCES = (
    "sglang 0.5.23 srt/mem_cache/radix_cache.py RadixKey.page_aligned, RadixCache.match_prefix",
    "sglang 0.5.23 srt/managers/schedule_batch.py Req._compute_max_prefix_len (max_prefix_len = input_len - 1)",
)
LLAMA_SOURCES = ("llama.cpp tools/server/server.cpp server_slot cache_tokens, --cache-reuse (per slot)",)


def _hit_tokens(prefix: int, length: int, align: int) -> int:
    """Tokens of the prefix a request of ``length`` tokens finds cached: whole ``align`` units, at most
    ``length - 1`` (the last token is recomputed)."""
    return min(prefix, length - 1) // align * align


def _shared_in_window(kind: str, window: int | None, block_size: int, hit: int, length: int
                      ) -> tuple[int, str, Quality]:
    """(shared blocks, rule, quality) of a group that frees blocks behind its window or chunk."""
    if window is not None and length - hit >= window + block_size:
        return 0, f"{kind}: the prefix left the {window:,}-token window (blocks freed)", "exact"
    return 0, f"{kind}: prefix blocks inside the window may be shared; counted as not shared", "estimated"


def _vllm_group(g: Any, hit: int, length: int, block_blocks: Callable[[Any], int]) -> GroupSharing:
    blocks = block_blocks(g)
    kinds = set(g.kind.split("+"))
    if kinds <= {"full", "mla"}:
        shared = hit // g.block_size
        return GroupSharing(g.kind, g.block_size, blocks, shared, f"{shared:,} full blocks shared by hash")
    if kinds <= {"sliding", "chunked"}:
        shared, rule, q = _shared_in_window(g.kind, g.window, g.block_size, hit, length)
        return GroupSharing(g.kind, g.block_size, blocks, shared, rule, q)
    if kinds <= {"mamba", "cross"}:
        return GroupSharing(g.kind, g.block_size, blocks, 0, f"{g.kind}: each request keeps its own pages")
    return GroupSharing(g.kind, g.block_size, blocks, 0, f"{g.kind}: prefix sharing not modelled", "estimated")


def _vllm_prefix_caching_off(kinds: set[str]) -> str | None:
    """Why vLLM 0.33 turns prefix caching off for this model by default, else None (``config/model.py``
    ``ModelConfig.is_prefix_caching_supported``: encoder-decoder and attention-free models have none)."""
    if "cross" in kinds:
        return ("cross-attention taken as vLLM 0.33's encoder-decoder attn_type, which has no prefix caching "
                "(ModelConfig.is_prefix_caching_supported; estimated: is_encoder_decoder reads the HF config)")
    if kinds <= {"mamba"}:
        return "vLLM 0.33 has no prefix caching for attention-free models (ModelConfig.is_prefix_caching_supported)"
    return None


def vllm_prefix_sharing(d: Any, prefix: int, length: int) -> PrefixSharing:
    """vLLM 0.33's rule on deployment ``d`` (module docstring)."""
    vp = d.vllm_plan()
    if vp.vllm_version != "0.33":
        raise UnsupportedError("prefix sharing follows vLLM 0.33's KV cache manager: use vllm_version 0.33")
    if length > vp.max_model_len:
        raise InputError(f"request_tokens ({length:,}) exceed max_model_len ({vp.max_model_len:,})")
    from ..resolve import default_encoder_tokens
    from ..vllm.grouping import group_blocks, group_caches
    from ..vllm.hybrid import engine_caches

    caches = engine_caches(d.spec, d.model_dtype, d.kv, vp.block_size, d.tp, vp.vllm_version, vp.draft_layers)[0]
    groups, uniform = group_caches(caches)
    align = lcm(*(g.block_size for g in vp.groups))
    off = _vllm_prefix_caching_off({k for g in vp.groups for k in g.kind.split("+")})
    hit = 0 if off else _hit_tokens(prefix, length, align)
    by_layers = {tuple(c.layer for c in g): g for g in groups}

    def blocks(view: Any) -> int:
        members = by_layers[view.layers]
        return group_blocks(members if uniform else members[:1], length, vp.max_in_flight_tokens,
                            default_encoder_tokens(d.spec, vp.max_num_batched_tokens))

    rows = tuple(_vllm_group(g, hit, length, blocks) for g in vp.groups)
    if off and "estimated" in off:
        rows = tuple(replace(r, quality="estimated") for r in rows)
    aligned = f"cache hits aligned to {align:,} tokens (the lcm of the groups' block sizes)"
    notes = ((aligned,) if align != vp.block_size else ()) + ((off,) if off else ())
    return _result("vllm", "0.33", prefix, length, vp.num_gpu_blocks, 1, rows, vp.max_num_seqs, notes,
                   VLLM_SOURCES)


def sglang_prefix_sharing(d: Any, prefix: int, length: int) -> PrefixSharing:
    """SGLang's radix cache on deployment ``d``: whole pages of the prefix stored once (module docstring)."""
    ep = d.engine_plan()
    if length > ep.max_context:
        raise InputError(f"request_tokens ({length:,}) exceed context_length ({ep.max_context:,})")
    ps = ep.page_size
    hit = _hit_tokens(prefix, length, ps)
    rows = [GroupSharing("full", ps, ceil_div(length, ps), hit // ps, f"{hit // ps:,} pages matched in the radix tree")]
    pool = ep.pool_pages
    if ep.swa_cell_bytes:
        raise UnsupportedError("prefix sharing with SGLang's sliding-window pool (SWAKVPool) is not modelled")
    return _result("sglang", d.engine.version, prefix, length, pool, 0, tuple(rows), ep.max_running, (),
                   SGLANG_SOURCES)


def llama_cpp_prefix_sharing(d: Any, prefix: int, length: int) -> PrefixSharing:
    """llama.cpp's server: every slot holds its own copy of the prefix (no saving across slots)."""
    ep = d.engine_plan()
    if length > ep.max_context:
        raise InputError(f"request_tokens ({length:,}) exceed the slot's context ({ep.max_context:,})")
    rows = (GroupSharing("cells", 1, length, 0, "each slot keeps its own prompt cache (no sharing across slots)"),)
    return _result("llama_cpp", d.engine.version, prefix, length, ep.pool_tokens, 0, rows, ep.max_running, (),
                   LLAMA_SOURCES)


def _result(engine: str, version: str, prefix: int, length: int, pool: int, reserved: int,
            rows: tuple[GroupSharing, ...], cap: int, notes: tuple[str, ...],
            sources: tuple[str, ...]) -> PrefixSharing:
    per_request = sum(r.blocks_per_request for r in rows)
    shared = sum(r.shared_blocks for r in rows)
    own = per_request - shared
    effective = (pool - shared) / own if pool > shared else 0.0
    at_once = min(max((pool - reserved - shared) // own, 0), cap)
    resident = at_once * own + (shared if at_once else 0)
    quality = "estimated" if any(r.quality != "exact" for r in rows) else "exact"
    extra = tuple(f"{r.kind}: {r.rule}" for r in rows if r.quality != "exact")
    return PrefixSharing(engine=engine, version=version, shared_prefix_tokens=prefix, request_tokens=length,
                         pool_blocks=pool, reserved_blocks=reserved, groups=rows, blocks_per_request=per_request,
                         shared_blocks=shared, plain_concurrency=pool / per_request, effective_concurrency=effective,
                         requests_at_once=at_once, blocks_resident=resident, running_cap=cap, quality=quality,
                         notes=notes + extra, sources=sources)


RULES: dict[str, Callable[[Any, int, int], PrefixSharing]] = {
    "vllm": vllm_prefix_sharing, "sglang": sglang_prefix_sharing, "llama_cpp": llama_cpp_prefix_sharing}
"""The engines whose prefix cache is modelled, by runtime name (WIRING.md: an ``Engine`` method later)."""


def with_hit_rate(s: PrefixSharing, hit_rate: float) -> PrefixSharing:
    """``s`` when only ``hit_rate`` of the requests carry the prefix: on average a request holds
    ``B - hit_rate x S`` blocks of its own, the prefix's ``S`` still once (expected values).

    Half the requests sharing the issue's 256 blocks: (10,240 - 256) / (512 - 128) = 26.0:

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=20 * 2**30)
    >>> with_hit_rate(prefix_sharing(d, 4096), 0.5).effective_concurrency
    26.0
    """
    if isinstance(hit_rate, bool) or not isinstance(hit_rate, (int, float)) or not 0 <= hit_rate <= 1:
        raise InputError(f"hit_rate must be in [0, 1], got {hit_rate!r:.20}")
    if not s.shared_blocks or hit_rate == 1:
        return replace(s, hit_rate=float(hit_rate))
    own = s.blocks_per_request - hit_rate * s.shared_blocks
    at_once = min(max(int((s.pool_blocks - s.reserved_blocks - s.shared_blocks) // own), 0), s.running_cap)
    return replace(s, hit_rate=float(hit_rate), effective_concurrency=(s.pool_blocks - s.shared_blocks) / own,
                   requests_at_once=at_once, blocks_resident=round(at_once * own) + (s.shared_blocks if at_once else 0),
                   notes=s.notes + (f"{hit_rate:g} of the requests carry the prefix: expected values",))


def prefix_sharing(d: Any, shared_prefix_tokens: int, request_tokens: int | None = None) -> PrefixSharing:
    """Requests at once on deployment ``d`` when each shares a ``shared_prefix_tokens`` prefix (tokens).

    ``request_tokens``: each request's length (default: the engine's longest, vLLM's ``max_model_len``).
    UnsupportedError for a runtime without a modelled prefix cache (ideal, transformers, TensorRT-LLM).

    Llama 3.1 8B under vLLM 0.33, 10,240 blocks of 16 tokens (2 MiB each: 20 GiB), ``max_model_len``
    8,192: a request holds 8,192 / 16 = 512 blocks, vLLM logs 10,240 / 512 = 20.00x. A 4,096-token
    prefix is 256 full blocks stored once, so a request adds 512 - 256 = 256 of its own:
    (10,240 - 256) / 256 = 39.0. One block is vLLM's null block, so 38 fit whole at once
    (38 x 256 + 256 = 9,984 blocks; 39 would need all 10,240):

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=20 * 2**30)
    >>> s = prefix_sharing(d, 4096)
    >>> s.plain_concurrency, s.shared_blocks, s.effective_concurrency, s.requests_at_once, s.blocks_resident
    (20.0, 256, 39.0, 38, 9984)
    >>> prefix_sharing(d, 0).effective_concurrency
    20.0
    """
    rule = RULES.get(d.runtime)
    if rule is None:
        raise UnsupportedError(f"prefix sharing is modelled for {', '.join(sorted(RULES))}, not {d.runtime!r}")
    prefix = check_count("shared_prefix_tokens", shared_prefix_tokens, 0, MAX_CONTEXT)
    if request_tokens is None:
        length = d.engine.request_length(d)
    else:
        length = check_count("request_tokens", request_tokens, 1, MAX_CONTEXT)
    if prefix >= length:
        raise InputError(f"shared_prefix_tokens ({prefix:,}) must be shorter than the request ({length:,} tokens)")
    return rule(d, prefix, length)
