"""Vectorized sweeps: KV bytes and fit for many (batch, context) points at once, with numpy.

Each layer's cache is a sum of terms ``B x per_token x min(T, cap) + B x per_sequence + fixed``
(kvcalc.kv.CacheTerm). Terms with the same cap are summed once per model, so a sweep costs one
``minimum`` per distinct cap (full attention, each window size) over the whole grid, instead of a
Python loop over layers per point. Results are exact integers (int64; asserted against
``kv_cache`` in the tests and the benchmark).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from .dtypes import DType
from .kv import model_terms, resolve_dtypes
from .runtimes import RUNTIMES
from .spec import ModelSpec


@dataclass(frozen=True)
class CompiledCache:
    """A model's whole cache as ``{cap: per_token_bytes}`` (cap 0 = unbounded) + per-sequence + fixed bytes."""

    per_token_by_cap: tuple[tuple[int, int], ...]
    per_sequence: int
    fixed: int
    encoder_per_token: int
    default_encoder_tokens: int | None = None


def compile_cache(spec: ModelSpec, *, dtype: "str | DType | None" = None, kv_dtype: "str | DType | None" = None,
                  runtime: str = "ideal", prefill_only: bool = True) -> CompiledCache:
    """Collapse every layer's terms by cap (see module docstring). Runtimes: ideal, transformers."""
    if runtime not in RUNTIMES or runtime == "vllm":
        raise ValueError("sweeps cover the ideal and transformers runtimes")
    model, kv = resolve_dtypes(spec, dtype, kv_dtype)
    by_cap: dict[int, int] = defaultdict(int)
    per_seq = fixed = enc = 0
    for terms in model_terms(spec, model, kv, runtime, prefill_only):
        for t in terms:
            if t.cross:
                enc += t.per_token_bytes
            elif t.per_token_bytes:
                by_cap[t.cap or 0] += t.per_token_bytes
            per_seq += t.per_sequence_bytes
            fixed += t.fixed_bytes
    return CompiledCache(tuple(sorted(by_cap.items())), per_seq, fixed, enc, spec.default_encoder_tokens)


def cache_bytes(cache: CompiledCache, batch: int, context: int, encoder_tokens: int | None = None) -> int:
    """Total KV bytes at one (batch, context): the scalar twin of :func:`kv_grid`."""
    per_seq = sum(p * (context if cap == 0 else min(context, cap)) for cap, p in cache.per_token_by_cap)
    if encoder_tokens is None:
        encoder_tokens = cache.default_encoder_tokens or context
    return batch * (per_seq + cache.encoder_per_token * encoder_tokens + cache.per_sequence) + cache.fixed


def kv_grid(cache: CompiledCache, batches: Sequence[int], contexts: Sequence[int],
            encoder_tokens: int | None = None):
    """``int64[len(batches), len(contexts)]`` of total KV bytes (numpy array).

    ``encoder_tokens`` defaults as in :func:`kvcalc.kv_cache`: the model's own (Whisper, Mllama), else
    the context (cross-attention over an input as long as the output)."""
    import numpy as np

    t = np.asarray(contexts, dtype=np.int64)
    b = np.asarray(batches, dtype=np.int64)[:, None]
    per_seq = np.zeros_like(t)
    for cap, per_token in cache.per_token_by_cap:
        per_seq += per_token * (t if cap == 0 else np.minimum(t, cap))
    if encoder_tokens is None:
        encoder_tokens = cache.default_encoder_tokens
    enc = t if encoder_tokens is None else np.int64(encoder_tokens)
    per_seq = per_seq + cache.encoder_per_token * enc + cache.per_sequence
    return b * per_seq[None, :] + cache.fixed
