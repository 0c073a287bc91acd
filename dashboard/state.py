"""URL query-string state: every input that changes a view lives in the URL.

Widgets bind to query parameters (``bind="query-params"``, key = parameter name). Streamlit drops
values it cannot use silently; :func:`sanitize` checks every parameter first against
:data:`SCHEMA`, removes the ones that are invalid, unknown or repeated, and returns one notice per
problem, so a tampered or truncated link falls back to defaults *with* a visible notice.

A few parameters (:attr:`Param.url_only`: the GPU and model pickers, whose labels are not their
URL values, and a pasted config in ``cfg``) are written by the page (:func:`synced`, :func:`publish`).
:func:`carry_over` keeps every value when the user moves to another page (Streamlit's navigation
drops the link and the widget state of the page left); the link, when it has a value, wins.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from kvcalc.catalog import catalog
from kvcalc.gpus import gpu_catalog
from kvcalc.variants import VARIANTS
from kvcalc.vllm.lora import MAX_LORA_RANKS
from kvcalc.vllm.speculative import EAGLE_METHODS, MODEL_FREE_METHODS

from .calibration_state import CALIBRATION_PARAMS
from .config_link import CONFIG_LINK_MAX_CHARS, link_error
from .option_params import BLOCK_SIZES, option_params  # noqa: F401 - BLOCK_SIZES: the Planner's vLLM block sizes
from .url_params import (  # noqa: F401 - the page names and Param are part of this module's interface
    _DEPLOY,
    _GPU,
    _MODEL,
    _OPTIONS,
    COMPARE,
    GPU_FIT,
    HOW_IT_WORKS,
    MAX_VALUE_CHARS,
    PLANNER,
    WORKLOAD,
    Param,
    _bool,
    _choice,
    _float,
    _fraction,
    _int,
    _pattern,
    _text,
)
from .workload_state import WORKLOAD_PARAMS

MAX_BATCH_UI = 65_536
MAX_CONTEXT_UI = 1 << 24          # 16,777,216 tokens
DEFAULT_CONTEXT = 8192            # tokens per sequence of a fresh page (and after a pasted command that sets none)
MAX_GPUS_UI = 64

WEIGHT_DTYPES = ["auto", "float32", "float16", "bfloat16", "fp8_e4m3", "int8", "int4"]
KV_DTYPES = ["auto", "float32", "float16", "bfloat16", "fp8_e4m3", "fp8_e5m2", "int8", "int4", "int2"]
RUNTIMES = ["vllm", "transformers", "ideal", "sglang", "tensorrt_llm", "llama_cpp"]
SOURCES = ["bundled", "hub", "paste"]
SPEC_METHODS = ["none", "mtp", *EAGLE_METHODS, *MODEL_FREE_METHODS]   # --speculative-config method
LORA_RANKS = list(MAX_LORA_RANKS)
MAX_LORAS_UI = 1024


def _hub_id(v: str) -> str | None:
    """The Hub's own rule (kvcalc.hub.validate_hub_id), plus the owner/name form the app asks for."""
    from kvcalc.errors import KVCalcError
    from kvcalc.hub import validate_hub_id

    try:
        ok = validate_hub_id(v) == v and v.count("/") == 1
    except KVCalcError:
        ok = False
    return None if ok else "is not a valid Hub id (owner/name: letters, digits, '-', '_', '.')"


def _config_link(v: str) -> str | None:
    """A pasted config carried in the link: the same checks as a paste (dashboard.config_link)."""
    return link_error(v)


CURVE_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def _models() -> list[str]:
    return [e.hub_id for e in catalog()]


OPTION_PARAMS = option_params()
"""Every engine's declared options with a URL key (dashboard.option_params: vLLM's util, mml, block, ...;
SGLang's sg_*, TensorRT-LLM's trt_*, llama.cpp's ll_*), generated from the engines' declarations."""
ENGINE_PARAMS: tuple[Param, ...] = tuple(p.param() for p in OPTION_PARAMS)

# The one table: URL schema, widget keys, each page's keys and the `vllm serve` paste mapping: the core rows
# here, the engines' options (generated), the workload page's and a calibration's.
PARAMS: tuple[Param, ...] = (
    Param("source", _choice(lambda: SOURCES), _MODEL),
    Param("model", _choice(_models), _MODEL, url_only=True),
    Param("models", _choice(_models), frozenset({COMPARE}), multi=True),
    Param("hub", _hub_id, _MODEL, typed=True),
    Param("cfg", _config_link, _MODEL, max_chars=CONFIG_LINK_MAX_CHARS, url_only=True),
    Param("cfg_name", _text, _MODEL, url_only=True),
    Param("gpu", _choice(lambda: [g.key for g in gpu_catalog()] + ["custom"]), _GPU, url_only=True),
    Param("gpu_mem", _float(1, 4096), _GPU),
    Param("gpus", _int(1, MAX_GPUS_UI), _GPU),
    Param("wdtype", _choice(lambda: WEIGHT_DTYPES), _OPTIONS),
    Param("kvdtype", _choice(lambda: KV_DTYPES), _DEPLOY),
    Param("kvdtypes", _choice(lambda: KV_DTYPES), frozenset({COMPARE}), multi=True),
    Param("batch", _int(1, MAX_BATCH_UI), _GPU),
    Param("ctx", _int(1, MAX_CONTEXT_UI), _MODEL | {COMPARE}),
    Param("runtime", _choice(lambda: RUNTIMES), _DEPLOY),
    Param("runtimes", _choice(lambda: RUNTIMES), frozenset({COMPARE}), multi=True),
    Param("tp", _int(1, MAX_GPUS_UI), _OPTIONS, vllm="tensor_parallel_size"),
    Param("pp", _int(1, MAX_GPUS_UI), _OPTIONS, vllm="pipeline_parallel_size"),
    Param("spec", _choice(lambda: SPEC_METHODS), _OPTIONS),
    Param("spec_tokens", _int(1, 64), _OPTIONS),
    Param("wgib", _float(0, 1 << 20), frozenset({PLANNER})),   # weights per GPU (GiB) of a model kvcalc cannot count
    Param("loras", _int(0, MAX_LORAS_UI), _OPTIONS),
    Param("lora_rank", _choice(lambda: [str(r) for r in LORA_RANKS]), _OPTIONS),
    Param("attn", _choice(lambda: list(VARIANTS)), frozenset({PLANNER})),
    Param("attns", _choice(lambda: list(VARIANTS)), frozenset({COMPARE}), multi=True),
    Param("attn_kv", _int(1, 1024), frozenset({PLANNER, COMPARE, HOW_IT_WORKS})),
    Param("attn_window", _int(1, MAX_CONTEXT_UI), frozenset({PLANNER, COMPARE, HOW_IT_WORKS})),
    Param("attn_pattern", _pattern, frozenset({PLANNER, COMPARE})),
    Param("logx", _bool, frozenset({PLANNER, COMPARE})),
    Param("yall", _bool, frozenset({PLANNER})),          # memory chart: y axis not clamped (dashboard.charts.y_top)
    Param("curves", _choice(lambda: [str(b) for b in CURVE_BATCHES]), frozenset({PLANNER}), multi=True),
) + ENGINE_PARAMS + WORKLOAD_PARAMS + CALIBRATION_PARAMS
SCHEMA: dict[str, Param] = {p.key: p for p in PARAMS}
VLLM_OPTIONS: dict[str, str] = {p.vllm: p.key for p in PARAMS if p.vllm}   # parse_vllm_serve option -> key
DROPPED_KEY = "link_dropped"     # set by the page's link-size check when Streamlit ignored the whole link


def page_keys(page: str) -> tuple[str, ...]:
    """The URL keys (= bound widget keys) of one page, in table order."""
    keys = tuple(p.key for p in PARAMS if page in p.pages)
    if not keys:
        raise KeyError(f"no URL parameters for page {page!r}")
    return keys


_PAGE = "_kvp_page"     # session-state key: the page whose script is running (set by dashboard.page.start)


_CARRY = "_kvp_carry"    # session-state key: the last value of every PARAMS key, carried between pages
_ARRIVED = "_kvp_arrived"   # session-state key: True on the first run of a page reached from another page


def set_page(page: str) -> None:
    """Record the running page, so :func:`bound` can check each widget key against its row, and
    carry the inputs over from the page before (:func:`carry_over`)."""
    import streamlit as st

    keys = page_keys(page)
    prev = st.session_state.get(_PAGE)
    carry_over(st.session_state, st.query_params, keys, arrived=prev is not None and prev != page)
    st.session_state[_PAGE] = page


def carry_over(session: Any, query: Any, keys: Iterable[str], *, arrived: bool) -> None:
    """Inputs follow the user from page to page (Streamlit's navigation drops the link and the widget
    state of the page left): every run first records the current value of each PARAMS key
    (widget values from session state, :attr:`Param.url_only` values from the link) in one session
    dict; on the first run of a page reached from another (``arrived``), each of its ``keys`` the
    link does not set takes the recorded value (the link wins). Carried values are the widgets'
    own typed values, so they are valid options of the same widgets."""
    keys = tuple(keys)
    carry: dict[str, Any] = session.get(_CARRY) or {}
    for p in PARAMS:
        if p.key in session:
            carry[p.key] = session[p.key]
        elif p.url_only and not arrived and p.key in keys:
            carry[p.key] = query.get(p.key)          # None once this page removed it from its link; a page
            # without the key (Compare has no `model`) keeps the value carried from the page before
    if arrived:
        for key in keys:
            if key in carry and key not in query and carry[key] is not None:
                if SCHEMA[key].url_only:
                    query[key] = str(carry[key])
                else:
                    session[key] = carry[key]
    session[_CARRY] = carry
    session[_ARRIVED] = arrived


def arrived() -> bool:
    """True on the first run of a page reached from another page (see :func:`carry_over`)."""
    import streamlit as st

    return bool(st.session_state.get(_ARRIVED))


def carried(key: str) -> Any:
    """The value of ``key`` carried from another page, when this run is the first after arriving
    from it and the link does not set ``key``; else None (a page uses it to seed derived inputs,
    e.g. Compare's runtimes from the Planner's runtime)."""
    import streamlit as st

    if not st.session_state.get(_ARRIVED):
        return None
    return (st.session_state.get(_CARRY) or {}).get(key)


def seed(key: str, value: Any) -> None:
    """Give widget ``key`` the value ``value`` before it is drawn, unless the link sets it."""
    import streamlit as st

    if value is not None and key not in st.query_params:
        st.session_state[key] = value


def override(*pairs: tuple[str, Any]) -> None:
    """Set bound widgets (before they are drawn) to values the page decided, over what the link
    says: a bound widget's first draw otherwise takes the link's value."""
    import streamlit as st

    for key, value in pairs:
        st.session_state[key] = value
    _forget_initial_values([k for k, _ in pairs])


def synced(key: str, options: list[Any], default: Any) -> dict[str, Any]:
    """Keyword arguments (``key=``, ``index=``) for a selectbox whose URL parameter is written by the
    page (:func:`publish`), not bound: its labels (``format_func``) are not its URL values. The
    first draw takes the link's value (already checked by :func:`sanitize`), else ``default``."""
    import streamlit as st

    spec = SCHEMA[key]
    page = st.session_state.get(_PAGE)
    if page is not None and page not in spec.pages:
        raise KeyError(f"URL parameter {key!r} is not listed for page {page!r} in dashboard.state.PARAMS")
    if not spec.url_only:
        raise KeyError(f"URL parameter {key!r} is bound to its widget; use state.bound")
    current = st.session_state.get(key, st.query_params.get(key))
    index = options.index(current) if current in options else options.index(default)
    return {"key": key, "index": index}


def publish(key: str, value: Any, default: Any = None) -> None:
    """Write a :attr:`Param.url_only` value into the link (removed when it is the default or None)."""
    import streamlit as st

    qp = st.query_params
    if value is None or value == default:
        if key in qp:
            del qp[key]
    elif qp.get(key) != str(value):
        qp[key] = str(value)


def bound(key: str) -> dict[str, Any]:
    """Widget keyword arguments binding a widget to URL parameter ``key`` (``key=``, ``bind=``).
    A key missing from :data:`PARAMS`, or not listed there for the running page, raises KeyError:
    a widget cannot bind a parameter its page's link schema would reject."""
    import streamlit as st

    spec = SCHEMA[key]
    page = st.session_state.get(_PAGE)
    if page is not None and page not in spec.pages:
        raise KeyError(f"URL parameter {key!r} is not listed for page {page!r} in dashboard.state.PARAMS")
    return {"key": key, "bind": BIND}


BIND: Any = "query-params"


def problems(params: dict[str, list[str]], allowed: Iterable[str]) -> tuple[list[str], list[str]]:
    """(keys to drop, notices) for a query string given as key -> list of values."""
    allowed = set(allowed)
    drop: list[str] = []
    notes: list[str] = []
    for key, values in params.items():
        shown_key = key[:40]
        if key == DROPPED_KEY:
            drop.append(key)
            notes.append(dropped_link_note(values[0] if values else ""))
            continue
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
            err: str | None
            if len(v) > spec.limit:
                err = f"is longer than {spec.limit:,} characters"
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
    if "cfg" in drop and params.get("source") == ["paste"] and "source" not in drop:
        drop.append("source")        # the pasted config is gone: back to the default model, not an empty paste
        notes.append("the pasted config in the link could not be used; showing the default model instead")
    return drop, notes


def link_limits() -> tuple[int, int]:
    """(most parameters, most characters) of a query string Streamlit accepts; past either it
    ignores the whole query string (streamlit.runtime.state.query_params.sanitize_query_string,
    which counts ``query.count("&") + 1`` parameters). Streamlit 1.67: 1,000 and 512 Ki."""
    try:
        from streamlit.runtime.state import query_params as qp

        return int(qp.CLIENT_STATE_QUERY_STRING_MAX_FIELDS), int(qp.CLIENT_STATE_QUERY_STRING_MAX_LENGTH)
    except (ImportError, AttributeError):      # moved in another Streamlit version: its 1.67 values
        return 1000, 512 * 1024


def dropped_link_note(count: str) -> str:
    """The notice for a link Streamlit ignored whole (``count``: its parameter count, from the page)."""
    fields, chars = link_limits()
    n = f"{int(count):,} parameters" if re.fullmatch(r"\d{1,9}", count) else "too many parameters"
    return (f"the link had {n}, more than the {fields:,} parameters (or {chars:,} characters) Streamlit "
            "accepts, so all of it was ignored")


def sanitize(allowed: Iterable[str]) -> list[str]:
    """Drop invalid / unknown / repeated query parameters from the current URL; return notices."""
    import contextlib

    import streamlit as st
    from streamlit.errors import StreamlitAPIException

    qp = st.query_params
    allowed = set(allowed)
    if st.session_state.get(_ARRIVED):
        # just arrived from another page: its parameters left in the link are not a bad link
        for key in [k for k in qp.keys() if k in SCHEMA and k not in allowed]:
            with contextlib.suppress(KeyError, StreamlitAPIException):
                del qp[key]
    params = {k: qp.get_all(k) for k in qp.keys()}
    # a free-text value the user just typed (it equals its widget's value) is not a bad link: the
    # page reports it under the box ("not found on the Hub", "not a valid Hub id")
    params = {k: v for k, v in params.items()
              if not (SCHEMA.get(k) and SCHEMA[k].typed and v == [st.session_state.get(k)])}
    drop, notes = problems(params, allowed)
    for key, values in params.items():
        if key not in drop and SCHEMA.get(key) and SCHEMA[key].multi:
            valid = [v for v in values if v and len(v) <= SCHEMA[key].limit and SCHEMA[key].check(v) is None]
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
