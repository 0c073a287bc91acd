"""The URL parameter record and the checks of raw link values, shared by every table of parameters.

:data:`dashboard.state.PARAMS` is assembled from several tables (the core inputs in dashboard.state,
the workload page's in dashboard.workload_state, a calibration's in dashboard.calibration_state);
each builds its rows from :class:`Param` and the checks here, so no table imports another.
A check takes the raw text of one link value and returns an error text, or None when it is valid.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

MAX_VALUE_CHARS = 200

PLANNER, COMPARE, GPU_FIT, HOW_IT_WORKS = "planner", "compare", "gpu_fit", "how_it_works"
WORKLOAD = "workload"
_MODEL = frozenset({PLANNER, GPU_FIT, HOW_IT_WORKS, WORKLOAD})  # pages with the model source inputs
_DEPLOY = frozenset({PLANNER, GPU_FIT, WORKLOAD})              # pages with the whole deployment sidebar
_GPU = frozenset({PLANNER, COMPARE, GPU_FIT, WORKLOAD})
_OPTIONS = _DEPLOY | {COMPARE}                                 # parallelism and vLLM options



@dataclass(frozen=True)
class Param:
    """One URL parameter, which is also the key of the widget bound to it.

    ``check`` returns an error text for a bad raw value, else None; ``multi``: a multiselect (the
    key may repeat); ``pages``: the pages whose widgets bind it; ``vllm``: the option name of
    :func:`kvcalc.vllm_command.parse_vllm_serve` that fills this widget as is, if any."""

    key: str
    check: Callable[[str], str | None]
    pages: frozenset[str]
    multi: bool = False
    vllm: str | None = None
    max_chars: int = 0             # longest raw value accepted; 0 = MAX_VALUE_CHARS
    url_only: bool = False         # no widget binds it: the page writes st.query_params itself (synced)
    typed: bool = False            # free text: a value the user typed in this session is checked by the page

    @property
    def limit(self) -> int:
        return self.max_chars or MAX_VALUE_CHARS


def _choice(options: Callable[[], Iterable[str]]) -> Callable[[str], str | None]:
    def check(v: str) -> str | None:
        return None if v in set(options()) else "is not one of the choices"
    return check


def _int(lo: int, hi: int) -> Callable[[str], str | None]:
    def check(v: str) -> str | None:
        if not re.fullmatch(r"-?\d{1,18}", v.strip()):          # 18 digits: every engine bound (2**40 tokens)
            return f"must be a whole number between {lo:,} and {hi:,}"
        n = int(v)
        return None if lo <= n <= hi else f"must be between {lo:,} and {hi:,}"
    return check


def _float(lo: float, hi: float) -> Callable[[str], str | None]:
    def check(v: str) -> str | None:
        try:
            x = float(v)
        except ValueError:
            return f"must be a number between {lo:g} and {hi:g}"
        if not math.isfinite(x) or not lo <= x <= hi:
            return f"must be a number between {lo:g} and {hi:g}"
        return None
    return check


def _fraction(v: str) -> str | None:
    """A memory fraction as the engines take it: above 0, at most 1 (vLLM's gpu_memory_utilization,
    TensorRT-LLM's free_gpu_memory_fraction)."""
    try:
        x = float(v)
    except ValueError:
        x = math.nan
    return None if math.isfinite(x) and 0 < x <= 1 else "must be a number above 0 and at most 1"


def _bool(v: str) -> str | None:
    return None if v.lower() in ("true", "false") else "must be true or false"


def _text(v: str) -> str | None:
    return None if v.isprintable() else "has control characters"


def _pattern(v: str) -> str | None:
    return None if v == "all" or re.fullmatch(r"\d{1,4}:1", v) else "must look like 5:1 or all"
