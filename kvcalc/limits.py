"""Input limits every planning entry point shares, and the one validator for counts.

Counts are plain ints (bool is refused). The bounds are generous sanity limits, not engine limits:
an engine's own limits (vLLM's ``max_model_len``, say) are checked where its rules live.
"""
from __future__ import annotations

from typing import Any

from .errors import InputError

MAX_BATCH = 1 << 20           # 1,048,576 sequences
MAX_CONTEXT = 1 << 30         # 1,073,741,824 tokens
MAX_GPUS = 4096               # GPUs in one deployment


def check_count(name: str, value: Any, minimum: int, maximum: int) -> int:
    """Validate a planning count (batch, context, ...) and return it as int; InputError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a whole number, got {value!r:.40}")
    if not minimum <= value <= maximum:
        raise InputError(f"{name} must be between {minimum:,} and {maximum:,}, got {value:,}")
    return value
