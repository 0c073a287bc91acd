"""Request-length distributions: the expected concurrency and the chance a request waits (tokens).

The model (named in every result, :data:`MODEL`):

* lengths: input and output tokens independent, each lognormal fitted to its mean ``m`` and 95th
  percentile ``q``: ``sigma = z - sqrt(z**2 - 2 ln(q / m))`` (``z = 1.6449``, the normal's 95 % point;
  the smaller root), ``mu = ln m - sigma**2 / 2``; its variance ``(exp(sigma**2) - 1) m**2``. No lognormal
  has ``q / m > exp(z**2 / 2) = 3.87``: give a histogram (:class:`Histogram`) instead;
* occupancy: a request holds on average ``X = input + output / 2 + page / 2`` tokens over its life
  (its prompt, then one more token per decode step, plus half a page of a partly filled last page);
* token budget: ``n`` running requests fit while the sum of their ``X`` is within the pool
  (``pool_tokens``); by the central limit theorem the sum is normal, mean ``n E[X]``, variance
  ``n Var[X]``, so ``P(wait | n running) = 1 - Phi((pool - n E[X]) / sqrt(n Var[X]))``;
* ``expected_concurrency = pool / E[X]`` (at most the engine's running cap); ``concurrency_at_5pct``
  the most requests with a wait chance of at most 5 %; ``worst_case_concurrency`` every request at
  the engine's longest length (vLLM's "Maximum concurrency").

Queueing (arrival rates, Erlang C) is not modelled: the chance is of the KV pool being full with ``n`` running.
Units: tokens, requests.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from math import exp, inf, log, sqrt
from statistics import NormalDist
from typing import Any

from ..errors import InputError, UnsupportedError
from ..limits import MAX_CONTEXT

MODEL = ("lognormal input and output lengths fitted to mean and p95 (or a histogram); occupancy input + "
         "output/2 + page/2 tokens; token-budget pool with a normal (CLT) sum")
Z95 = NormalDist().inv_cdf(0.95)
"""The standard normal's 95th percentile, 1.6449."""
WAIT_TARGET = 0.05
"""The wait chance :attr:`LengthConcurrency.concurrency_at_5pct` allows."""


@dataclass(frozen=True)
class LengthStats:
    """A length distribution's ``mean`` and ``variance`` (tokens, tokens**2) and how they were found."""

    mean: float
    variance: float
    source: str


@dataclass(frozen=True)
class Histogram:
    """Request lengths as ``(tokens, count)`` bins."""

    bins: tuple[tuple[int, float], ...]


def lognormal_stats(mean: float, p95: float) -> LengthStats:
    """Mean and variance of the lognormal with this ``mean`` and 95th percentile (tokens; module docstring).

    Mean 1,000, p95 2,000: ``sigma = 1.6449 - sqrt(1.6449**2 - 2 ln 2) = 1.6449 - 1.1486 = 0.4963``,
    variance ``(exp(0.4963**2) - 1) x 1,000**2 = 0.2793 x 10**6``:

    >>> s = lognormal_stats(1000, 2000)
    >>> round(s.variance, -3)
    279000.0
    """
    if not (0 < mean <= MAX_CONTEXT and mean <= p95 <= MAX_CONTEXT):
        raise InputError(f"lengths need 0 < mean <= p95 <= {MAX_CONTEXT:,} tokens, got mean {mean!r:.20}, "
                         f"p95 {p95!r:.20}")
    ratio = log(p95 / mean)
    if ratio > Z95 ** 2 / 2:
        raise InputError(f"no lognormal has p95 / mean = {p95 / mean:.2f} (at most {exp(Z95 ** 2 / 2):.2f}): "
                         "give a histogram of the lengths instead")
    sigma = Z95 - sqrt(Z95 ** 2 - 2 * ratio)
    return LengthStats(mean=float(mean), variance=(exp(sigma ** 2) - 1) * mean ** 2,
                       source=f"lognormal (sigma {sigma:.4f}) fitted to mean {mean:g} and p95 {p95:g}")


def histogram_stats(h: Histogram) -> LengthStats:
    """Mean and variance of a histogram's lengths (weights normalised).

    Three requests of 100 tokens and one of 500: mean 200, variance (3 x 100**2 + 300**2) / 4 = 30,000:

    >>> s = histogram_stats(Histogram(((100, 3), (500, 1))))
    >>> s.mean, s.variance
    (200.0, 30000.0)
    """
    total = sum(w for _, w in h.bins)
    if not h.bins or total <= 0 or any(not 0 <= w < inf or not 0 <= t <= MAX_CONTEXT for t, w in h.bins):
        raise InputError("a histogram needs (tokens, count) bins with tokens in range and a positive total count")
    mean = sum(t * w for t, w in h.bins) / total
    return LengthStats(mean=mean, variance=sum(w * (t - mean) ** 2 for t, w in h.bins) / total,
                       source=f"histogram of {len(h.bins)} bins")


@dataclass(frozen=True)
class LengthConcurrency:
    """Concurrency for a length distribution beside the worst case (:data:`MODEL`; tokens, requests).

    ``occupancy_mean`` / ``occupancy_std``: tokens one request holds on average; ``pool_tokens``: the
    pool; ``running_cap``: the engine's cap on running requests."""

    model: str
    pool_tokens: int
    page_size: int
    input: LengthStats
    output: LengthStats
    occupancy_mean: float
    occupancy_std: float
    running_cap: int
    worst_case_concurrency: float
    expected_concurrency: float
    concurrency_at_5pct: int
    notes: tuple[str, ...] = ()

    def wait_probability(self, running: int) -> float:
        """The chance ``running`` requests' KV exceeds the pool, so one more waits (normal approximation)."""
        if running <= 0:
            return 0.0
        if running > self.running_cap:
            return 1.0
        spread = sqrt(running) * self.occupancy_std
        gap = self.pool_tokens - running * self.occupancy_mean
        if spread == 0:
            return 0.0 if gap >= 0 else 1.0
        return 1 - NormalDist().cdf(gap / spread)

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


def _pool(d: Any) -> tuple[int, int, int, float, tuple[str, ...]]:
    """(pool tokens, page size, running cap, worst-case concurrency, notes) of a paged engine's deployment."""
    from ..engine import EngineMemoryPlan

    ep = d.engine.memory_plan(d)
    if ep is None:
        raise UnsupportedError(f"runtime {d.runtime!r} has no KV pool to share between requests")
    if isinstance(ep, EngineMemoryPlan):
        return ep.pool_tokens, ep.page_size, ep.max_running, ep.max_concurrency, ()
    vp = ep                                     # vLLM's block plan (kvcalc.vllm.budget.VllmMemoryPlan)
    notes: tuple[str, ...] = ()
    if len(vp.groups) != 1 or not set(vp.groups[0].kind.split("+")) <= {"full", "mla"}:
        notes = ("several KV-cache groups: the pool is vLLM's 'GPU KV cache size' in tokens (estimated)",)
        return vp.kv_cache_tokens, vp.block_size, vp.max_num_seqs, vp.max_concurrency, notes
    # one block is vLLM's null block (v1/core/block_pool.py BlockPool.__init__)
    return (vp.num_gpu_blocks - 1) * vp.block_size, vp.block_size, vp.max_num_seqs, vp.max_concurrency, notes


def _stats(name: str, mean: float | None, p95: float | None, hist: Histogram | Sequence[Any] | None) -> LengthStats:
    if hist is not None:
        return histogram_stats(hist if isinstance(hist, Histogram) else Histogram(tuple(map(tuple, hist))))
    if mean is None or p95 is None:
        raise InputError(f"give mean and p95 {name} tokens, or a histogram")
    return lognormal_stats(mean, p95)


def length_concurrency(d: Any, mean_input_tokens: float | None = None, p95_input_tokens: float | None = None,
                       mean_output_tokens: float | None = None, p95_output_tokens: float | None = None, *,
                       input_histogram: Histogram | None = None,
                       output_histogram: Histogram | None = None) -> LengthConcurrency:
    """Expected concurrency and wait chances on deployment ``d`` for these request lengths (:data:`MODEL`).

    Llama 3.1 8B under vLLM 0.33, 10,240 blocks of 16 tokens less the null block: 163,824 tokens. Input
    mean 1,500 (p95 3,000), output mean 300 (p95 600): a request holds 1,500 + 300 / 2 + 16 / 2 = 1,658
    tokens on average, so about 163,824 / 1,658 = 98.8 run at once, beside 20 at ``max_model_len`` 8,192:

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=20 * 2**30)
    >>> c = length_concurrency(d, 1500, 3000, 300, 600)
    >>> c.pool_tokens, c.occupancy_mean, round(c.expected_concurrency, 1), c.worst_case_concurrency
    (163824, 1658.0, 98.8, 20.0)
    >>> c.wait_probability(c.concurrency_at_5pct) <= 0.05 < c.wait_probability(c.concurrency_at_5pct + 1)
    True
    """
    pool, page, cap, worst, notes = _pool(d)
    inp = _stats("input", mean_input_tokens, p95_input_tokens, input_histogram)
    out = _stats("output", mean_output_tokens, p95_output_tokens, output_histogram)
    mean = inp.mean + out.mean / 2 + page / 2
    std = sqrt(inp.variance + out.variance / 4)
    partial = LengthConcurrency(model=MODEL, pool_tokens=pool, page_size=page, input=inp, output=out,
                                occupancy_mean=mean, occupancy_std=std, running_cap=cap,
                                worst_case_concurrency=worst, expected_concurrency=min(pool / mean, cap),
                                concurrency_at_5pct=0, notes=notes)
    lo, hi = 0, min(int(pool / mean) + 1, cap)
    while lo < hi:                                   # the wait chance grows with n: bisect
        mid = (lo + hi + 1) // 2
        if partial.wait_probability(mid) <= WAIT_TARGET:
            lo = mid
        else:
            hi = mid - 1
    return replace(partial, concurrency_at_5pct=lo)
