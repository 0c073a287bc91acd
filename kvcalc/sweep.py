"""Vectorized sweeps: KV bytes and fit for many (batch, context) points at once, with numpy.

Each layer's cache is a sum of terms ``B x per_token x min(T, cap) + B x per_sequence + fixed``
(kvcalc.kv.CacheTerm). Terms with the same cap are summed once per model, so a sweep costs one
``minimum`` per distinct cap (full attention, each window size) over the whole grid, instead of a
Python loop over layers per point. Results are exact integers: int64 when the largest value the
grid can reach fits in int64 (checked up front), else Python ints in an object array, so a grid
never wraps around (asserted against ``kv_cache`` and hand arithmetic in the tests).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from .dtypes import DType
from .engines.registry import get_engine
from .errors import InputError, UnsupportedError
from .kv import model_terms, resolve_dtypes
from .spec import ModelSpec


@dataclass(frozen=True)
class CompiledCache:
    """A model's whole cache as ``{cap: per_token_bytes}`` (cap 0 = unbounded) + per-sequence + fixed bytes."""

    per_token_by_cap: tuple[tuple[int, int], ...]
    per_sequence: int
    fixed: int
    encoder_per_token: int
    default_encoder_tokens: int | None = None


def _unpaged(runtime: str) -> bool:
    """Whether ``runtime``'s engine caches by kvcalc.kv's unpaged rules (``cache_rules``: ideal, transformers)."""
    try:
        return get_engine(runtime).cache_rules is not None
    except InputError:
        return False


def compile_cache(spec: ModelSpec, *, dtype: "str | DType | None" = None, kv_dtype: "str | DType | None" = None,
                  runtime: str = "ideal", prefill_only: bool = True) -> CompiledCache:
    """Collapse every layer's terms by cap (see module docstring). Runtimes: ideal, transformers.

    Mistral 7B v0.1: all 32 layers slide over 4,096 tokens at 131,072 B per token (32 x 8 KV heads
    x 256 x 2 B), so the whole model is one cap:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> cache = compile_cache(read_spec(read_data_json("configs", "mistralai__Mistral-7B-v0.1.json")))
    >>> cache.per_token_by_cap, cache.per_sequence, cache.fixed
    (((4096, 131072),), 0, 0)
    """
    if not _unpaged(runtime):
        raise UnsupportedError(f"sweeps cover the ideal and transformers runtimes, not {runtime!r:.40}")
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
    """Total KV bytes at one (batch, context): the scalar twin of :func:`kv_grid`.

    Mistral 7B v0.1 (one 4,096-token cap of 131,072 B per token), 2 sequences of 8,192 tokens:
    2 x 4,096 x 131,072 = 2**30 B:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> cache = compile_cache(read_spec(read_data_json("configs", "mistralai__Mistral-7B-v0.1.json")))
    >>> cache_bytes(cache, 2, 8192) == 2**30
    True
    """
    per_seq = sum(p * (context if cap == 0 else min(context, cap)) for cap, p in cache.per_token_by_cap)
    if encoder_tokens is None:
        encoder_tokens = cache.default_encoder_tokens or context
    return batch * (per_seq + cache.encoder_per_token * encoder_tokens + cache.per_sequence) + cache.fixed


INT64_MAX = (1 << 63) - 1


def _counts(name: str, values: Sequence[int]) -> list[int]:
    """``values`` as Python ints >= 0 (numpy integers accepted, bool refused); InputError otherwise."""
    out = []
    for v in values:
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise InputError(f"{name} must be whole numbers, got {v!r:.40}")
        if v.__index__() < 0:
            raise InputError(f"{name} must be 0 or more, got {v.__index__():,}")
        out.append(v.__index__())
    return out


def kv_grid(cache: CompiledCache, batches: Sequence[int], contexts: Sequence[int],
            encoder_tokens: int | None = None):
    """``[len(batches), len(contexts)]`` numpy array of total KV bytes, exact.

    dtype int64 when the largest value the grid can reach (:func:`cache_bytes` at the largest batch
    and context, batch at least 1: every term is >= 0, so the total grows with both) is at most 2**63 - 1; otherwise
    ``object`` holding Python ints (slower, never wrapped). ``encoder_tokens`` defaults as in
    :func:`kvcalc.kv_cache`: the model's own (Whisper, Mllama), else the context (cross-attention
    over an input as long as the output).

    Mistral 7B v0.1 at batches 1 and 2 and contexts 1,000 and 8,192: 1,000 x 131,072 = 131,072,000
    B below the window, 4,096 x 131,072 = 536,870,912 B once it caps; batch 2 doubles both:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> cache = compile_cache(read_spec(read_data_json("configs", "mistralai__Mistral-7B-v0.1.json")))
    >>> kv_grid(cache, [1, 2], [1000, 8192]).tolist()
    [[131072000, 536870912], [262144000, 1073741824]]
    """
    import numpy as np

    bs, ts = _counts("batches", batches), _counts("contexts", contexts)
    if encoder_tokens is not None:
        encoder_tokens = _counts("encoder_tokens", [encoder_tokens])[0]
    if not bs or not ts:
        return np.zeros((len(bs), len(ts)), dtype=np.int64)
    largest = cache_bytes(cache, max(1, *bs), max(ts), encoder_tokens)   # batch >= 1 bounds the per-sequence sums too
    dtype = np.int64 if largest <= INT64_MAX else object
    t = np.array(ts, dtype=dtype)
    b = np.array(bs, dtype=dtype)[:, None]
    per_seq = np.zeros_like(t)
    for cap, per_token in cache.per_token_by_cap:
        per_seq = per_seq + per_token * (t if cap == 0 else np.minimum(t, cap))
    if encoder_tokens is None:
        encoder_tokens = cache.default_encoder_tokens
    enc = t if encoder_tokens is None else encoder_tokens
    per_seq = per_seq + cache.encoder_per_token * enc + cache.per_sequence
    return b * per_seq[None, :] + cache.fixed
