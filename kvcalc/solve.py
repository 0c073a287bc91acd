"""The one search every solver uses: the largest integer that still satisfies a monotone test."""
from __future__ import annotations

from collections.abc import Callable


def largest_true(test: Callable[[int], bool], hi: int, lo: int = 1) -> int | None:
    """Largest ``x`` in ``[lo, hi]`` with ``test(x)`` for a test that is true up to some point and
    false after it; None when ``test(lo)`` is false. ``O(log(hi - lo))`` calls.

    7 x 7 = 49 <= 50 < 64 = 8 x 8, so 7 is the largest square root within 50:

    >>> largest_true(lambda x: x * x <= 50, 100), largest_true(lambda x: x < 1, 100)
    (7, None)
    """
    if not test(lo):
        return None
    if test(hi):
        return hi
    best = lo
    lo += 1
    hi -= 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if test(mid):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return best
