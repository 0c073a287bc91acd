"""URL query-string state: every input that changes a view lives in the URL.

Widgets bind to query parameters (``bind="query-params"``, key = parameter name). Streamlit drops
values it cannot use silently; :func:`sanitize` checks every parameter first against
:data:`SCHEMA`, removes the ones that are invalid, unknown or repeated, and returns one notice per
problem, so a tampered or truncated link falls back to defaults *with* a visible notice.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from kvcalc.catalog import catalog
from kvcalc.gpus import gpu_catalog
from kvcalc.variants import VARIANTS

MAX_BATCH_UI = 65_536
MAX_CONTEXT_UI = 1 << 24          # 16,777,216 tokens
MAX_GPUS_UI = 64
MAX_VALUE_CHARS = 200

WEIGHT_DTYPES = ["auto", "float32", "float16", "bfloat16", "fp8_e4m3", "int8", "int4"]
KV_DTYPES = ["auto", "float32", "float16", "bfloat16", "fp8_e4m3", "fp8_e5m2", "int8", "int4", "int2"]
RUNTIMES = ["vllm", "transformers", "ideal"]
SOURCES = ["bundled", "hub", "paste"]
BLOCK_SIZES = [8, 16, 32, 64, 128]


@dataclass(frozen=True)
class Param:
    """One URL parameter: ``check`` returns an error text for a bad raw value, else None."""

    check: Callable[[str], str | None]
    multi: bool = False


def _choice(options: Callable[[], Iterable[str]]) -> Callable[[str], str | None]:
    def check(v: str) -> str | None:
        return None if v in set(options()) else "is not one of the choices"
    return check


def _int(lo: int, hi: int) -> Callable[[str], str | None]:
    def check(v: str) -> str | None:
        if not re.fullmatch(r"\d{1,12}", v.strip()):
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


def _bool(v: str) -> str | None:
    return None if v.lower() in ("true", "false") else "must be true or false"


def _hub_id(v: str) -> str | None:
    """The Hub's own rule (kvcalc.hub.validate_hub_id), plus the owner/name form the app asks for."""
    from kvcalc.errors import KVCalcError
    from kvcalc.hub import validate_hub_id

    try:
        ok = validate_hub_id(v) == v and v.count("/") == 1
    except KVCalcError:
        ok = False
    return None if ok else "is not a valid Hub id (owner/name: letters, digits, '-', '_', '.')"


def _pattern(v: str) -> str | None:
    return None if v == "all" or re.fullmatch(r"\d{1,4}:1", v) else "must look like 5:1 or all"


SCHEMA: dict[str, Param] = {
    "source": Param(_choice(lambda: SOURCES)),
    "model": Param(_choice(lambda: [e.hub_id for e in catalog()])),
    "models": Param(_choice(lambda: [e.hub_id for e in catalog()]), multi=True),
    "hub": Param(_hub_id),
    "gpu": Param(_choice(lambda: [g.key for g in gpu_catalog()] + ["custom"])),
    "gpu_mem": Param(_float(1, 4096)),
    "gpus": Param(_int(1, MAX_GPUS_UI)),
    "wdtype": Param(_choice(lambda: WEIGHT_DTYPES)),
    "kvdtype": Param(_choice(lambda: KV_DTYPES)),
    "kvdtypes": Param(_choice(lambda: KV_DTYPES), multi=True),
    "batch": Param(_int(1, MAX_BATCH_UI)),
    "ctx": Param(_int(1, MAX_CONTEXT_UI)),
    "runtime": Param(_choice(lambda: RUNTIMES)),
    "runtimes": Param(_choice(lambda: RUNTIMES), multi=True),
    "util": Param(_float(0.05, 1.0)),
    "mml": Param(_int(1, MAX_CONTEXT_UI)),
    "block": Param(_choice(lambda: [str(b) for b in BLOCK_SIZES])),
    "seqs": Param(_int(1, MAX_BATCH_UI)),
    "mnbt": Param(_int(1, MAX_CONTEXT_UI)),
    "tp": Param(_int(1, MAX_GPUS_UI)),
    "pp": Param(_int(1, MAX_GPUS_UI)),
    "attn": Param(_choice(lambda: list(VARIANTS))),
    "attns": Param(_choice(lambda: list(VARIANTS)), multi=True),
    "attn_kv": Param(_int(1, 1024)),
    "attn_window": Param(_int(1, MAX_CONTEXT_UI)),
    "attn_pattern": Param(_pattern),
    "logx": Param(_bool),
    "curves": Param(_choice(lambda: [str(b) for b in CURVE_BATCHES]), multi=True),
}
CURVE_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def problems(params: dict[str, list[str]], allowed: Iterable[str]) -> tuple[list[str], list[str]]:
    """(keys to drop, notices) for a query string given as key -> list of values."""
    allowed = set(allowed)
    drop: list[str] = []
    notes: list[str] = []
    for key, values in params.items():
        shown_key = key[:40]
        if key not in allowed or key not in SCHEMA:
            drop.append(key)
            notes.append(f"unknown link parameter '{shown_key}' ignored")
            continue
        spec = SCHEMA[key]
        if not spec.multi and len(values) > 1:
            drop.append(key)
            notes.append(f"'{shown_key}' was given {len(values)} times; using the default")
            continue
        if spec.multi and values in ([], [""]):
            continue          # an emptied multiselect writes "key=": an empty selection
        for v in values:
            if len(v) > MAX_VALUE_CHARS:
                err = f"is longer than {MAX_VALUE_CHARS} characters"
            elif v == "":
                err = "is empty"
            else:
                err = spec.check(v)
            if err:
                if spec.multi:
                    # Streamlit keeps a multiselect's valid entries and skips the others
                    notes.append(f"link value {shown_key}={v[:40]!r} {err}; ignored")
                    continue
                drop.append(key)
                notes.append(f"link value {shown_key}={v[:40]!r} {err}; using the default")
                break
    return drop, notes


def sanitize(allowed: Iterable[str]) -> list[str]:
    """Drop invalid / unknown / repeated query parameters from the current URL; return notices."""
    import contextlib

    import streamlit as st
    from streamlit.errors import StreamlitAPIException

    qp = st.query_params
    params = {k: qp.get_all(k) for k in qp.keys()}
    drop, notes = problems(params, allowed)
    for key, values in params.items():
        if key not in drop and SCHEMA.get(key) and SCHEMA[key].multi:
            valid = [v for v in values if v and len(v) <= MAX_VALUE_CHARS and SCHEMA[key].check(v) is None]
            if len(valid) != len([v for v in values if v]):
                # a parameter already bound to a widget cannot be rewritten; the widget ignores bad entries
                with contextlib.suppress(StreamlitAPIException):
                    qp[key] = valid
    for key in drop:
        with contextlib.suppress(KeyError, StreamlitAPIException):
            del qp[key]
    _forget_initial_values(drop)
    return notes


def _forget_initial_values(keys: list[str]) -> None:
    """Also drop rejected keys from the URL snapshot Streamlit seeds bound widgets from.

    Streamlit 1.67 seeds a bound widget from the query string as first loaded, not from
    ``st.query_params``, and some values crash that seeding instead of being ignored (a 5,000-digit
    batch -> ``OverflowError`` in number_input). The snapshot is private API, hence the guard: if it
    moves, the validation notice still shows and Streamlit's own checks still apply."""
    try:
        from streamlit.runtime.state.session_state_proxy import get_session_state

        initial = get_session_state()._state.query_params._initial_query_params  # noqa: SLF001
    except Exception:  # noqa: BLE001 - private API changed: nothing more to do
        return
    for key in keys:
        initial.pop(key, None)


def share_link(page_path: str = "") -> str:
    """A link that reproduces the current view: the app's URL + page + the current query string."""
    import streamlit as st

    base = ""
    try:
        base = (st.context.url or "").split("?")[0]
    except Exception:  # noqa: BLE001 - no browser context (tests)
        base = ""
    if page_path and base and not base.rstrip("/").endswith(page_path):
        base = base.rstrip("/") + "/" + page_path
    pairs = [(k, v) for k in st.query_params.keys() for v in st.query_params.get_all(k)]
    return base + ("?" + urlencode(pairs) if pairs else "")
