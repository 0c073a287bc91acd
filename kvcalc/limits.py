"""Input limits every planning entry point shares, the one validator for counts and the one for floats.

Counts are plain ints (bool is refused); floats are finite and inside a stated range
(:func:`check_finite`), and JSON output never holds NaN or infinities (:func:`finite_json`). The
bounds are generous sanity limits, not engine limits: an engine's own limits (vLLM's
``max_model_len``, say) are checked where its rules live.
"""
from __future__ import annotations

import json
import math
from typing import Any

from .errors import InputError

MAX_BATCH = 1 << 20           # 1,048,576 sequences
MAX_CONTEXT = 1 << 30         # 1,073,741,824 tokens
MAX_GPUS = 4096               # GPUs in one deployment
MAX_CHECKPOINT_BYTES = 1 << 50    # 1 PiB of weights (deploy's checkpoint_bytes bound; the largest are ~2 TiB)
MAX_PARAMETERS = 1 << 50          # elements of one dtype in a checkpoint (the largest models: ~2e12)


def check_count(name: str, value: Any, minimum: int, maximum: int) -> int:
    """Validate a planning count (batch, context, ...) and return it as int; InputError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a whole number, got {value!r:.40}")
    if not minimum <= value <= maximum:
        raise InputError(f"{name} must be between {minimum:,} and {maximum:,}, got {value:,}")
    return value
MIN_MAGNITUDE = 1e-9          # a float option's smallest non-zero size (below: a denormal-ish typo, 5e-324)
MAX_MAGNITUDE = 1e12          # and its largest (every option's own bound is far below)
MIN_EFFICIENCY = 1e-3         # a share of a GPU's bandwidth or tensor rate: 0.1 % .. 100 %


def check_finite(name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False) -> float:
    """Validate a float input: a real number (bool refused), finite, in ``[lo, hi]`` (``(lo, hi]`` with
    ``lo_open``); returned as float, InputError naming ``name`` and the range otherwise.

    >>> check_finite("bandwidth_efficiency", 0.6, MIN_EFFICIENCY, 1.0)
    0.6
    >>> check_finite("bandwidth_efficiency", 5e-324, MIN_EFFICIENCY, 1.0)
    Traceback (most recent call last):
    ...
    kvcalc.errors.InputError: bandwidth_efficiency must be a finite number from 0.001 to 1, got 5e-324
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{name} must be a number, got {value!r:.40}")
    v = float(value) if abs(value) < 1e308 else math.inf          # an int beyond float range is not finite
    if not math.isfinite(v) or not (lo < v if lo_open else lo <= v) or not v <= hi:
        bound = f"more than {lo:g} and at most {hi:g}" if lo_open else f"from {lo:g} to {hi:g}"
        raise InputError(f"{name} must be a finite number {bound}, got {value!r:.30}")
    return v


def _non_finite(value: Any, path: str) -> tuple[str, float] | None:
    """(path, value) of the first non-finite float in a JSON-able value, None when there is none."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (path, value)
    if isinstance(value, dict):
        items: Any = ((f"{path}.{k}", v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((hit for hit in (_non_finite(v, k) for k, v in items) if hit), None)


def finite_json(value: Any) -> str:
    """``json.dumps(value, indent=2)``, refusing NaN and infinities (which would be written as the
    non-JSON ``NaN`` / ``Infinity``): InputError naming the first such field instead.

    >>> finite_json({"ms": 1.5})
    '{\\n  "ms": 1.5\\n}'
    >>> finite_json({"speed": {"ttft_seconds": float("inf")}})
    Traceback (most recent call last):
    ...
    kvcalc.errors.InputError: the result's speed.ttft_seconds is not a finite number (inf): no valid JSON can hold it
    """
    try:
        return json.dumps(value, indent=2, allow_nan=False)
    except ValueError:
        hit = _non_finite(value, "") or (".value", math.nan)
        raise InputError(f"the result's {hit[0].lstrip('.')[:80]} is not a finite number ({hit[1]!r}): "
                         "no valid JSON can hold it") from None
