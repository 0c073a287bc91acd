"""Concurrency curves for the workload page's charts: against the shared-prefix length and against the mean
request length. Each point is :func:`kvcalc.workload.prefix.prefix_sharing` or
:func:`kvcalc.workload.lengths.length_concurrency` at one x; nothing here adds a rule.

What is plotted never exceeds the engine's running cap (vLLM's ``max_num_seqs``, SGLang's
``max_running_requests``, llama.cpp's slots) and is never negative: ``concurrency = min(effective, cap)``.
Units: tokens (x), requests (y).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from .lengths import length_concurrency
from .prefix import PrefixSharing, prefix_sharing, with_hit_rate

CACHING_OFF_NOTE = "prefix caching off (--no-enable-prefix-caching): every request holds its own copy of the prefix"


@dataclass(frozen=True)
class ConcurrencyPoint:
    """One chart point: ``tokens`` (x: shared-prefix tokens, or mean request tokens), ``concurrency`` (requests
    at once on the engine's reporting basis, at most ``running_cap``), ``whole`` (whole requests resident at
    once / the most with a wait chance of at most 5 %) and ``worst_case`` (every request at the engine's longest
    length, at most ``running_cap``)."""

    tokens: int
    concurrency: float
    whole: int
    worst_case: float
    running_cap: int


def shared(d: Any, prefix: int, *, hit_rate: float = 1.0, caching: bool = True) -> PrefixSharing:
    """:func:`prefix_sharing` of ``prefix`` shared tokens at ``hit_rate``; with ``caching`` off nothing is shared
    (the plain figures, the prefix still named and checked).

    Llama 3.1 8B under vLLM 0.33, 10,240 blocks of 16, ``max_model_len`` 8,192, a 4,096-token prefix:
    (10,240 - 256) / 256 = 39.0 with prefix caching, 10,240 / 512 = 20.0 without:

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=20 * 2**30)
    >>> shared(d, 4096).effective_concurrency, shared(d, 4096, caching=False).effective_concurrency
    (39.0, 20.0)
    """
    s = prefix_sharing(d, prefix)
    if not caching:
        plain = prefix_sharing(d, 0)
        return replace(plain, shared_prefix_tokens=s.shared_prefix_tokens, notes=plain.notes + (CACHING_OFF_NOTE,))
    return with_hit_rate(s, hit_rate) if hit_rate != 1 else s


def capped(s: PrefixSharing) -> float:
    """``min(effective_concurrency, running_cap)``: what the engine runs at once (requests)."""
    return min(max(s.effective_concurrency, 0.0), float(s.running_cap))


def _points(lo: int, hi: int, n: int, extra: Iterable[int]) -> list[int]:
    step = max((hi - lo) / max(n - 1, 1), 1.0)
    xs = {min(hi, lo + round(i * step)) for i in range(n)} | {x for x in extra if lo <= x <= hi}
    return sorted(xs)


def prefix_curve(d: Any, *, hit_rate: float = 1.0, caching: bool = True, points: int = 49,
                 extra: Iterable[int] = ()) -> tuple[ConcurrencyPoint, ...]:
    """Concurrency against the shared-prefix length, 0 to the engine's longest request less one token
    (tokens), ``points`` evenly spaced plus ``extra`` (the current prefix).

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=20 * 2**30)
    >>> [(p.tokens, p.concurrency, p.whole) for p in prefix_curve(d, points=3)]
    [(0, 20.0, 19), (4096, 39.0, 38), (8191, 1024.0, 1024)]
    """
    length = d.engine.request_length(d)
    out = []
    for x in _points(0, length - 1, points, extra):
        s = shared(d, x, hit_rate=hit_rate, caching=caching)
        out.append(ConcurrencyPoint(x, capped(s), s.requests_at_once, min(s.plain_concurrency, s.running_cap),
                                    s.running_cap))
    return tuple(out)


def scaled(mean_in: float, p95_in: float, mean_out: float, p95_out: float, total: float
           ) -> tuple[float, float, float, float]:
    """The four lengths scaled by one factor so the mean request (input + output) is ``total`` tokens: the
    distributions keep their shape (p95 / mean).

    >>> scaled(1500, 3000, 300, 600, 900)
    (750.0, 1500.0, 150.0, 300.0)
    """
    f = total / (mean_in + mean_out)
    return mean_in * f, p95_in * f, mean_out * f, p95_out * f


def length_curve(d: Any, mean_in: float, p95_in: float, mean_out: float, p95_out: float, *, points: int = 40
                 ) -> tuple[ConcurrencyPoint, ...]:
    """Concurrency against the mean request length (input + output tokens), the distributions scaled
    (:func:`scaled`) from 1/64 of the engine's longest request (at least 16 tokens) to it, log-spaced, plus
    the given lengths' own point. ``concurrency``: the expected number at once; ``whole``: the most with a
    wait chance of at most 5 %.

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=20 * 2**30)
    >>> p = [q for q in length_curve(d, 1500, 3000, 300, 600) if q.tokens == 1800][0]
    >>> round(p.concurrency, 1), p.whole, p.worst_case
    (98.8, 91, 20.0)
    """
    length = d.engine.request_length(d)
    lo = max(16, length // 64)
    n = max(points - 1, 1)
    xs = {round(lo * (length / lo) ** (i / n)) for i in range(points)} if length > lo else {length}
    xs.add(round(mean_in + mean_out))
    out = []
    for x in sorted(xs):
        c = length_concurrency(d, *scaled(mean_in, p95_in, mean_out, p95_out, x))
        out.append(ConcurrencyPoint(x, min(c.expected_concurrency, c.running_cap), c.concurrency_at_5pct,
                                    min(c.worst_case_concurrency, c.running_cap), c.running_cap))
    return tuple(out)
