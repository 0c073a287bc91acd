"""KV-cache bytes per layer, for each runtime, from a :class:`~kvcalc.spec.ModelSpec`.

Every layer's cache is a sum of *terms*; a term's bytes at context ``T`` and batch ``B`` are::

    B * per_token_bytes * tokens(T) + B * per_sequence_bytes + fixed_bytes

where ``tokens(T)`` is ``T`` for a growing cache, ``min(T, cap)`` for a capped one (sliding or
chunked window) and the encoder length for cross-attention. The runtime decides the caps:

``ideal``
    The least the cache must hold: full layers ``T`` tokens, sliding / chunked layers
    ``min(T, W)`` (a reference sliding window, R-SWA: ``min(T, P + W)`` after a prefill of ``P``),
    MLA the latent (``kv_lora_rank + qk_rope_head_dim`` per token), recurrent /
    conv states at their fixed size in the model dtype, shared layers nothing. Learned prompt tokens
    (``AttentionCache.prefix_tokens``, CPM-Ant) add their bytes per sequence in every runtime here.
``transformers``
    What Hugging Face transformers' default ``DynamicCache`` (v5.24) pins in memory after a
    prefill of ``prefill`` tokens and ``T - prefill`` one-token decode steps, counted per tensor
    storage. A sliding layer keeps a *view* of the last ``W - 1`` tokens, so right after a prefill
    its storage is all ``T`` prefill tokens, and after any decode step ``min(T, W)`` tokens; each
    sliding layer also holds an int64 window tensor (8 bytes). Falcon's new decoder architecture
    caches K/V repeated to every query head. Recurrent (SSM) states are float32 whatever the
    model dtype; conv states follow the model dtype, except those a mixer computes in float32
    (``RecurrentState.float32``: Inkling's short convolutions), and DSA indexer keys marked
    ``AttentionCache.indexer_float32`` (Dots3-Note). KV-shared layers hold nothing. DeepSeek-V4's
    compressed layers: ``_compressed_terms``.
    With ``cache_implementation="static"`` (``StaticCache``, what ``torch.compile`` users get) every
    attention layer preallocates ``max_cache_len`` tokens (sliding / chunked layers
    ``min(W, max_cache_len)``) whatever the context, plus an int64 ``cumulative_length`` (8 bytes;
    DSA layers a second one for the indexer): ``cache_utils.StaticLayer.lazy_initialization``.
    With ``beam_search=True``, the state after ``Cache.reorder_cache``: ``index_select`` replaces each
    sliding layer's view by a fresh tensor of the last ``min(T, W - 1)`` tokens
    (``DynamicSlidingWindowLayer.update`` keeps ``W - 1``); pass ``batch`` = sequences x beams.
``vllm``
    Paged blocks; see :mod:`kvcalc.vllm` (per-layer specs, capacity planning).

Which rules apply is the runtime's engine's answer (``Engine.cache_rules``, kvcalc.engines.base.CacheRules);
an engine that pages its cache itself gives its own per-layer bytes (``Engine.layer_kv``: vLLM's,
kvcalc.vllm), a pooled one is refused here. kvcalc.resolve gives the dtype and encoder-length defaults
(re-exported here).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .architectures import read_spec
from .dtypes import FLOAT32, DType
from .engines.registry import get_engine
from .engines.rules import CacheRules
from .errors import InputError, UnsupportedError
from .limits import MAX_BATCH, MAX_CONTEXT, check_count
from .models.quirks import Quirk
from .resolve import default_encoder_tokens, resolve_dtypes
from .results import KVCacheResult, LayerBytes
from .runtimes import RUNTIMES, check_runtime
from .spec import AttentionCache, LayerSpec, ModelSpec

__all__ = ["MAX_BATCH", "MAX_CONTEXT", "RUNTIMES", "CacheTerm", "KVCacheResult", "LayerBytes", "check_count",
           "check_no_compressed_layers", "check_no_prefix_tokens",
           "kv_cache", "layer_terms", "model_terms", "resolve_dtypes", "default_encoder_tokens"]


CACHE_IMPLEMENTATIONS = ("dynamic", "static")


@dataclass(frozen=True)
class TransformersCache:
    """Which transformers cache and state (runtime ``transformers``; module docstring).

    ``implementation``: ``dynamic`` (``DynamicCache``, the default) or ``static`` (``StaticCache``,
    ``max_cache_len`` tokens preallocated); ``beam_search``: the state after a beam reorder."""

    implementation: str = "dynamic"
    max_cache_len: int | None = None
    beam_search: bool = False


DYNAMIC = TransformersCache()


@dataclass(frozen=True)
class CacheTerm:
    """One cached tensor family of a layer (see the module docstring for the formula)."""

    per_token_bytes: int = 0
    cap: int | None = None          # tokens held at most; None = grows with context
    cross: bool = False             # tokens are encoder tokens, not context
    per_sequence_bytes: int = 0
    fixed_bytes: int = 0
    held_tokens: int = 0            # tokens a preallocated (static) cache holds in per_sequence_bytes
    stride: int = 0                 # compressed entries: one per ``stride`` tokens (``T // stride``)
    remainder_of: int = 0           # a compressor's buffer: the ``T % remainder_of`` tokens not yet compressed
    min_context: int = 0            # per-sequence bytes held only once ``T >= min_context`` (CSA overlap state)

    def tokens(self, context: int, encoder_tokens: int) -> int:
        if self.cross:
            return encoder_tokens
        if self.stride:
            return context // self.stride
        if self.remainder_of:
            return context % self.remainder_of
        return context if self.cap is None else min(context, self.cap)

    def nbytes(self, batch: int, context: int, encoder_tokens: int) -> int:
        """``batch x (per_token x tokens + per_sequence) + fixed`` bytes (module docstring).

        A term of 10 B per token capped at 100 tokens, 5 B per sequence and 1 fixed byte, at batch 2 and
        context 500: 2 x (10 x 100 + 5) + 1 = 2,011:

        >>> CacheTerm(per_token_bytes=10, cap=100, per_sequence_bytes=5, fixed_bytes=1).nbytes(2, 500, 0)
        2011
        """
        per_sequence = 0 if context < self.min_context else self.per_sequence_bytes
        return (batch * (self.per_token_bytes * self.tokens(context, encoder_tokens) + per_sequence)
                + self.fixed_bytes)


def _rules(runtime: str) -> CacheRules:
    """The runtime's unpaged cache rules (its engine's ``cache_rules``; a paged engine's terms are the least the
    cache holds)."""
    return get_engine(runtime).cache_rules or CacheRules()


def _attention_term(a: AttentionCache, kv: DType, rules: CacheRules, prefill_only: bool,
                    quirks: tuple[Quirk, ...], layout: TransformersCache = DYNAMIC,
                    prefill: int | None = None) -> list[CacheTerm]:
    if a.compress_rate:
        return _compressed_terms(a, kv, rules, layout)
    if a.latent_dim:
        indexer = FLOAT32 if rules.float32_indexer and a.indexer_float32 else kv
        per_token = kv.nbytes(a.latent_dim) + (indexer.nbytes(a.indexer_dim) if a.indexer_dim else 0)
    else:
        heads = a.query_heads if rules.expands_kv_heads and Quirk.KV_EXPANDED_TO_QUERY_HEADS in quirks else a.kv_heads
        per_token = heads * (kv.nbytes(a.k_head_dim) + kv.nbytes(a.v_head_dim)) + kv.nbytes(a.indexer_dim)
    if a.source == "cross":
        if layout.implementation == "static":
            raise UnsupportedError("a static cache for cross-attention (encoder-decoder) is not modelled; "
                                   "use the dynamic cache")
        return [CacheTerm(per_token_bytes=per_token, cross=True)]
    if a.keeps_prefill and a.window is not None:
        return _reference_sliding_terms(a, per_token, rules, prefill_only, layout, prefill)
    if a.prefix_tokens:
        return _prefix_terms(a, per_token, layout)
    if layout.implementation == "static":
        assert layout.max_cache_len is not None
        held = layout.max_cache_len if a.window is None else min(a.window, layout.max_cache_len)
        counters = 16 if a.indexer_dim else 8      # int64 cumulative_length (+ the indexer's)
        return [CacheTerm(per_sequence_bytes=per_token * held, held_tokens=held), CacheTerm(fixed_bytes=counters)]
    if a.window is None:
        return [CacheTerm(per_token_bytes=per_token)]
    if rules.sliding_views:
        if layout.beam_search:          # a fresh tensor of the W - 1 tokens the view showed
            return [CacheTerm(per_token_bytes=per_token, cap=max(a.window - 1, 1)), CacheTerm(fixed_bytes=8)]
        cap = None if prefill_only else a.window
        return [CacheTerm(per_token_bytes=per_token, cap=cap), CacheTerm(fixed_bytes=8)]
    return [CacheTerm(per_token_bytes=per_token, cap=a.window)]


def _compressed_terms(a: AttentionCache, kv: DType, rules: CacheRules, layout: TransformersCache) -> list[CacheTerm]:
    """A DeepSeek-V4 compressed layer (transformers 5.24 modeling_deepseek_v4.py ``DeepseekV4HCACache`` /
    ``DeepseekV4CSACache``), rate ``m``, head ``d`` (``k_head_dim``), indexer ``d_i`` (``indexer_dim``, CSA only):
    the shared K=V window ``min(T, W - 1) x d`` (``update`` keeps ``full[:, :, -W + 1:]``, keys and values one
    tensor) + its int64 window tensor; ``T // m`` compressed entries of ``d + d_i``; the buffer of the
    ``T % m`` tokens not yet compressed, kv and gate (``store_compression_weights``), ``2d + 2d_i`` wide with
    CSA's two overlapping series, else ``d``; with CSA, once a window closed, the overlap state
    ``m x (d + d_i)`` kv plus the same in float32 gates (``update_overlap_state``). Counted per tensor (the
    elements each holds, as the real-file oracle measures; checked against a CPU-built model at 3, 13 and 300
    tokens): after a prefill longer than ``W`` the window and the buffer are views whose storage (the
    prefill's) stays pinned until the next step, which this does not add. Ideal: the same without the
    window tensor, the window ``min(T, W)``."""
    if layout.implementation == "static" or layout.beam_search:
        raise UnsupportedError("a static cache or beam search over DeepSeek-V4's compressed-KV layers is not "
                               "modelled; use the dynamic cache without beams")
    assert a.window is not None
    m, d, di = a.compress_rate, a.k_head_dim, a.indexer_dim
    width = 2 * (d + di) if di else d
    terms = [CacheTerm(per_token_bytes=kv.nbytes(d), cap=a.window - 1 if rules.sliding_views else a.window),
             CacheTerm(per_token_bytes=kv.nbytes(d + di), stride=m),
             CacheTerm(per_token_bytes=2 * kv.nbytes(width), remainder_of=m)]
    if di:
        terms.append(CacheTerm(per_sequence_bytes=m * (kv.nbytes(d + di) + FLOAT32.nbytes(d + di)), min_context=m))
    return terms + [CacheTerm(fixed_bytes=8)] if rules.sliding_views else terms


def check_no_compressed_layers(spec: ModelSpec, what: str) -> None:
    """UnsupportedError for DeepSeek-V4's compressed-KV layers where ``what`` (a serving engine, a sweep) has no
    rule for them: their cache is neither per token nor capped (``T // m`` entries, a ``T % m`` buffer)."""
    if any(a.compress_rate for layer in spec.layers for a in layer.attention):
        raise UnsupportedError(f"{what} does not model DeepSeek-V4's compressed-KV layers (compress_ratios: an "
                               "entry per N tokens, a buffer of the tokens not yet compressed); kvcalc.kv_cache "
                               "(`kvcalc kv`) with runtime 'transformers' or 'ideal' gives their bytes")


def _reference_sliding_terms(a: AttentionCache, per_token: int, rules: CacheRules, prefill_only: bool,
                             layout: TransformersCache, prefill: int | None) -> list[CacheTerm]:
    """A reference sliding window (R-SWA): all ``P`` prefill tokens plus at most ``W`` decoded ones, i.e.
    ``min(T, P + W)`` tokens (``P = T`` after a single prefill: every token); in transformers the
    prefill tensors stay whole, the decoded ones sit in a ``DynamicSlidingWindowLayer`` (its 8-byte
    window tensor included): ``UnlimitedOcrDynamicReferenceSlidingWindowLayer.update``."""
    assert a.window is not None
    if layout.implementation == "static" or layout.beam_search:
        raise UnsupportedError("a static cache or beam search over reference sliding-window layers "
                               "(Unlimited-OCR) is not modelled; use the dynamic cache without beams")
    cap = None if prefill_only or prefill is None else prefill + a.window
    terms = [CacheTerm(per_token_bytes=per_token, cap=cap)]
    return terms + [CacheTerm(fixed_bytes=8)] if rules.sliding_views else terms


def _prefix_terms(a: AttentionCache, per_token: int, layout: TransformersCache) -> list[CacheTerm]:
    """A full layer that caches ``P`` learned prompt tokens before every sequence's input (CPM-Ant): ``T``
    growing tokens plus ``P * per_token`` bytes per sequence (``modeling_cpmant.CpmAntModel.forward`` prepends
    ``prompt_length`` prompt ids, and every ``CpmAntAttention`` writes them to its ``DynamicCache`` layer)."""
    if a.window is not None or layout.implementation == "static":
        raise UnsupportedError("learned prompt tokens (CPM-Ant's prompt_length) in a static cache or a windowed "
                               "layer are not modelled; use the dynamic cache")
    return [CacheTerm(per_token_bytes=per_token), CacheTerm(per_sequence_bytes=per_token * a.prefix_tokens)]


def check_no_prefix_tokens(spec: ModelSpec, runtime_label: str) -> None:
    """UnsupportedError for a model that caches learned prompt tokens (CPM-Ant) under a serving engine: none
    implements CpmAntForCausalLM (vLLM 0.33 registers no such architecture and transformers' class has no
    ``_supports_attention_backend`` for its Transformers backend)."""
    check_no_compressed_layers(spec, runtime_label)
    if any(a.prefix_tokens for layer in spec.layers for a in layer.attention):
        raise UnsupportedError(f"{runtime_label} does not serve CPM-Ant (no CpmAntForCausalLM implementation), whose "
                               "layers cache prompt_length learned prompt tokens before every input; use runtime "
                               "'transformers' or 'ideal'")


def layer_terms(layer: LayerSpec, model: DType, kv: DType, runtime: str, prefill_only: bool,
                quirks: tuple[Quirk, ...] = (), layout: TransformersCache = DYNAMIC,
                prefill: int | None = None) -> list[CacheTerm]:
    """The cache terms of one layer under ``runtime`` (``layout``: which transformers cache; ``prefill``:
    the first pass's tokens, which a reference sliding window keeps whole; None = the whole context).

    A Mistral 7B v0.1 layer: 8 KV heads x (128 + 128) x 2 B = 4,096 B per token, capped at its 4,096-token
    window; transformers adds the sliding layer's 8-byte int64 window tensor:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> from kvcalc.dtypes import BFLOAT16
    >>> layer = read_spec(read_data_json("configs", "mistralai__Mistral-7B-v0.1.json")).layers[0]
    >>> [(t.per_token_bytes, t.cap) for t in layer_terms(layer, BFLOAT16, BFLOAT16, "ideal", False)]
    [(4096, 4096)]
    >>> terms = layer_terms(layer, BFLOAT16, BFLOAT16, "transformers", False)
    >>> [(t.per_token_bytes, t.cap, t.fixed_bytes) for t in terms]
    [(4096, 4096, 0), (0, None, 8)]
    """
    if layer.kind in ("shared", "none"):
        return []
    rules = _rules(runtime)
    terms: list[CacheTerm] = []
    for a in layer.attention:
        terms.extend(_attention_term(a, kv, rules, prefill_only, quirks, layout, prefill))
    for s in layer.states:
        state_dtype = FLOAT32 if rules.float32_states and (s.role == "ssm" or s.float32) else model
        terms.append(CacheTerm(per_sequence_bytes=state_dtype.nbytes(s.elements)))
    return terms


def model_terms(spec: ModelSpec, model: DType, kv: DType, runtime: str, prefill_only: bool,
                layout: TransformersCache = DYNAMIC, prefill: int | None = None,
                compressed_ok: bool = False) -> list[list[CacheTerm]]:
    """Every layer's terms; compressed-KV layers only for a caller that evaluates ``CacheTerm.nbytes``
    (``compressed_ok``: kv_cache), refused for one that collapses terms by cap (kvcalc.sweep)."""
    if not compressed_ok:
        check_no_compressed_layers(spec, "kvcalc's capacity planning (terms collapsed by cap)")
    return [layer_terms(l, model, kv, runtime, prefill_only, spec.quirks, layout, prefill) for l in spec.layers]


def _transformers_cache(rules: CacheRules, context: int, implementation: str, max_cache_len: int | None,
                        beam_search: bool) -> TransformersCache:
    """The validated transformers cache options (InputError / UnsupportedError for misuse)."""
    if implementation not in CACHE_IMPLEMENTATIONS:
        raise InputError(f"cache_implementation must be one of {', '.join(CACHE_IMPLEMENTATIONS)}, "
                         f"got {implementation!r:.40}")
    if not rules.layouts and (implementation != "dynamic" or max_cache_len is not None or beam_search):
        raise InputError("cache_implementation, max_cache_len and beam_search apply to runtime 'transformers' only")
    if implementation == "dynamic":
        if max_cache_len is not None:
            raise InputError("max_cache_len applies to cache_implementation 'static' only")
        return TransformersCache(beam_search=bool(beam_search))
    if beam_search:
        raise UnsupportedError("beam search with a static cache is not modelled")
    length = context if max_cache_len is None else check_count("max_cache_len", max_cache_len, 1, MAX_CONTEXT)
    if length < context:
        raise InputError(f"context {context:,} exceeds max_cache_len {length:,}: a StaticCache cannot hold it")
    return TransformersCache("static", length)


def _layer_tokens(terms: list[CacheTerm], context: int, encoder_tokens: int) -> int:
    token_terms = [t for t in terms if t.per_token_bytes and not t.cross]
    held = [t.held_tokens for t in terms if t.held_tokens]
    if held:
        return max(held)
    if token_terms:
        return max(t.tokens(context, encoder_tokens) for t in token_terms)
    cross = [t for t in terms if t.cross]
    return encoder_tokens if cross else 0


def kv_cache(config: "Mapping[str, Any] | ModelSpec", *, batch: int, context: int,
             dtype: "str | DType | None" = None, kv_dtype: "str | DType | None" = None,
             runtime: str = "ideal", encoder_tokens: int | None = None,
             prefill: int | None = None, cache_implementation: str = "dynamic",
             max_cache_len: int | None = None, beam_search: bool = False) -> KVCacheResult:
    """KV-cache bytes for ``batch`` sequences of ``context`` tokens each.

    ``config`` is a config.json dict (or an already-read ModelSpec). ``dtype`` defaults to the
    config's ``torch_dtype`` / ``dtype``, else bfloat16; ``kv_dtype`` to the model dtype.
    ``encoder_tokens`` is the encoder (or vision) length cached by cross-attention layers;
    it defaults to the model's own (Whisper: ``max_source_positions``; Mllama: one image of
    ``max_num_tiles`` tiles), else to ``context``. ``prefill`` (transformers runtime only) is the
    length of the first forward pass; the default, ``context``, is the state right after a
    single prefill. ``cache_implementation`` (``"static"``: transformers' ``StaticCache`` of
    ``max_cache_len`` tokens, default ``context``) and ``beam_search`` (the state after a beam
    reorder) apply to the transformers runtime (module docstring). Returns exact integers (bytes).

    Llama 3.1 8B caches 32 layers x 8 KV heads x (128 + 128) x 2 B = 131,072 B per token, so 2
    sequences of 1,000 tokens hold 262,144,000 B; vLLM rounds each sequence up to whole 16-token
    blocks, 63 x 16 = 1,008 tokens, 2 x 1,008 x 131,072 = 264,241,152 B:

    >>> from kvcalc.data_files import read_data_json
    >>> llama = read_data_json("configs", "meta-llama__Llama-3.1-8B.json")
    >>> r = kv_cache(llama, batch=2, context=1000)
    >>> r.bytes_per_token, r.total_bytes, r.kv_dtype
    (131072, 262144000, 'bfloat16')
    >>> kv_cache(llama, batch=2, context=1000, runtime="vllm").total_bytes
    264241152

    Mistral 7B v0.1 has the same per-token size and a 4,096-token sliding window: 4,096 x 131,072 B
    = 0.5 GiB at 8,192 tokens. Right after an 8,192-token prefill transformers still holds every
    token, 8,192 x 131,072 B plus an 8-byte window tensor per layer (+ 32 x 8); after decode steps
    the window caps it again:

    >>> mistral = read_data_json("configs", "mistralai__Mistral-7B-v0.1.json")
    >>> kv_cache(mistral, batch=1, context=8192).total_bytes == 2**29
    True
    >>> kv_cache(mistral, batch=1, context=8192, runtime="transformers").total_bytes == 2**30 + 256
    True
    >>> kv_cache(mistral, batch=1, context=8192, runtime="transformers", prefill=8000).total_bytes == 2**29 + 256
    True
    """
    spec = config if isinstance(config, ModelSpec) else read_spec(config)
    batch = check_count("batch", batch, 1, MAX_BATCH)
    context = check_count("context", context, 1, MAX_CONTEXT)
    runtime = check_runtime(runtime)
    engine = get_engine(runtime)
    paged = engine.layer_kv(spec, batch=batch, context=context, dtype=dtype, kv_dtype=kv_dtype,
                            encoder_tokens=encoder_tokens)
    if paged is not None:
        return paged
    rules = _rules(runtime)
    model, kv = resolve_dtypes(spec, dtype, kv_dtype)
    if rules.model_dtype_kv and kv != model:
        raise UnsupportedError("transformers' DynamicCache stores K/V in the model dtype; "
                               "use runtime 'ideal' or 'vllm' for a quantized or fp8 KV cache")
    if prefill is None:
        prefill = context
    prefill = check_count("prefill", prefill, 1, context)
    layout = _transformers_cache(rules, context, cache_implementation, max_cache_len, beam_search)
    enc = default_encoder_tokens(spec, context) if encoder_tokens is None else check_count(
        "encoder_tokens", encoder_tokens, 1, MAX_CONTEXT)
    terms = model_terms(spec, model, kv, runtime, prefill_only=prefill == context, layout=layout, prefill=prefill,
                        compressed_ok=True)
    layers = tuple(
        LayerBytes(l.index, l.kind, _layer_tokens(t, context, enc), sum(x.nbytes(batch, context, enc) for x in t))
        for l, t in zip(spec.layers, terms)
    )
    per_token = sum(x.per_token_bytes for t in terms for x in t if not x.cross)
    return KVCacheResult(
        total_bytes=sum(l.bytes for l in layers), layers=layers, runtime=runtime, batch=batch, context=context,
        encoder_tokens=enc, dtype=model.name, kv_dtype=kv.name, model_type=spec.model_type,
        bytes_per_token=per_token, fields_used=spec.fields_used, warnings=spec.warnings, quality=spec.quality,
    )
