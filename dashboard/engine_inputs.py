"""The serving engines' own options as widgets: SGLang, TensorRT-LLM, llama.cpp (any engine but vLLM, whose
options dashboard.inputs draws in its expander).

Each widget is generated from the engine's declaration of the option (dashboard.option_params: label =
the engine's own flag, help, range and default from kvcalc.engines.base.Option) and binds to the URL
parameter of the same key in :data:`dashboard.state.PARAMS` (``sg_*``, ``trt_*``, ``ll_*``). Values at the
engine's default are not passed (kvcalc applies the default itself: kvcalc.sglang.defaults,
kvcalc.trtllm.defaults, kvcalc.llama_cpp.options), so a plan says "default" where the engine does.

A ``.gguf`` upload is read with :func:`kvcalc.gguf.reader.read_gguf_header`: only the first
:data:`UPLOAD_READ_BYTES` of what the uploader holds (the header and tensor table; the tensor data is
never read), and the upload is not part of the link (files never are).
"""
from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from kvcalc.engines import get_engine
from kvcalc.errors import KVCalcError
from kvcalc.gguf.reader import MAX_HEADER_BYTES, GGUFHeader, read_gguf_header
from kvcalc.scenarios import DEFAULT_GGUF, loads_gguf, takes_vllm_options  # noqa: F401 - DEFAULT_GGUF: the pages' default

from . import state
from .option_params import OptionParam, of_runtime
from .text import md

UPLOAD_READ_BYTES = MAX_HEADER_BYTES
"""At most this much of an uploaded .gguf is read (kvcalc.gguf.reader's own cap, 64 MiB)."""


EngineFlag = OptionParam
"""One declared engine option as a URL parameter and widget (dashboard.option_params.OptionParam)."""
ENGINE_FLAGS: tuple[OptionParam, ...] = tuple(p for p in state.OPTION_PARAMS
                                              if not any(takes_vllm_options(r) for r in p.runtimes))
"""The options this module draws: every engine's but vLLM's (dashboard.inputs draws those in its expander)."""
BY_KEY: dict[str, OptionParam] = {f.key: f for f in state.OPTION_PARAMS}
BY_OPTION: dict[tuple[str, str], OptionParam] = {(r, f.dest): f for f in ENGINE_FLAGS for r in f.runtimes}
ENGINE_RESET: dict[str, Any] = {f.key: f.default for f in ENGINE_FLAGS}
"""What a pasted engine command resets before it fills what it sets: each engine's defaults."""


def draw(p: OptionParam, where: Any) -> Any:
    """Draw ``p``'s widget in ``where`` (a column or ``st``), bound to its URL parameter: labelled with the
    engine's flag, its help the declaration's, its range the engine's bounds (dashboard.option_params)."""
    kw: dict[str, Any] = {**state.bound(p.key), "help": p.option.help}
    label = p.flag + (" (0 = not set: the engine's default)" if p.unset else "")
    if p.widget == "toggle":
        return where.toggle(label, value=bool(p.default), **kw)
    if p.widget == "text":
        return where.text_input(label, value=str(p.default), placeholder="e.g. 3,1", **kw)
    if p.widget == "select":
        choices = p.choices
        return where.selectbox(label, choices, index=choices.index(p.default) if p.default in choices else 0, **kw)
    lo, hi = p.bounds()
    if p.widget == "slider":        # from 0: a pasted 0.01 fits; 0 itself is the engine's refusal
        return where.slider(label, lo, hi, float(p.default), 0.01, format="%.3f", **kw)
    if p.option.kind == "float":
        fraction = p.option.unit == "fraction"
        return where.number_input(label, min_value=lo, max_value=hi, value=float(p.default),
                                  step=0.01 if fraction else 1.0, format="%.3f" if fraction else None, **kw)
    return where.number_input(label, min_value=int(lo), max_value=int(hi), value=int(p.default), **kw)


def draw_options(runtime: str) -> dict[str, Any]:
    """Draw ``runtime``'s declared option widgets two by two; returns URL key -> widget value."""
    rows = of_runtime(runtime, state.OPTION_PARAMS)
    values: dict[str, Any] = {}
    for i in range(0, len(rows), 2):
        for column, p in zip(st.columns(2), rows[i:i + 2], strict=False):
            values[p.key] = draw(p, column)
    return values


def set_values(runtime: str, values: dict[str, Any]) -> dict[str, Any]:
    """deploy() keywords of the options of ``runtime`` that are set (0 = not set left out) and differ from the
    declared default (vLLM's: a widget that shows the engine's usual value, its block size, is passed)."""
    out: dict[str, Any] = {}
    for p in of_runtime(runtime, state.OPTION_PARAMS):
        value = p.value(values.get(p.key, p.default))
        if value is not None and value != p.option.default:
            out[p.dest] = value
    return out


def _draw_engine(runtime: str) -> dict[str, Any]:
    draw_options(runtime)
    out = _read(runtime)
    if loads_gguf(runtime):              # llama.cpp: an uploaded GGUF header wins over the file type
        header = gguf_upload()
        if header is not None:
            out["gguf"] = header
    return out


def gguf_upload() -> GGUFHeader | None:
    """A .gguf header the user uploaded (its first MiBs are enough: ``head -c 16M model.gguf``), parsed
    once per file; an unreadable one shows kvcalc's message and is not used."""
    upload = st.file_uploader("...or upload a .gguf header (the file's first MiBs)", type=["gguf"],
                              key="gguf_upload")
    if upload is None:
        return None
    data = upload.getvalue()[:UPLOAD_READ_BYTES]
    digest = hashlib.sha256(data).hexdigest()
    cached = st.session_state.get("_gguf_header")
    if cached and cached[0] == digest:
        header: GGUFHeader | None = cached[1]
        err: str | None = cached[2]
    else:
        header, err = None, None
        try:
            header = read_gguf_header(data, max_bytes=UPLOAD_READ_BYTES)
        except KVCalcError as e:
            err = str(e)
        st.session_state["_gguf_header"] = (digest, header, err)
    if err:
        st.error(f"GGUF header not used: {md(err)}")
        return None
    st.caption(f"GGUF header read: {len(header.tensors):,} tensors" if header is not None else "")
    return header


def _read(runtime: str) -> dict[str, Any]:
    """The deploy() keywords of ``runtime``'s widgets that differ from the engine's default."""
    return options_from(runtime, {f.key: st.session_state.get(f.key, f.default) for f in ENGINE_FLAGS
                                  if runtime in f.runtimes})


def options_from(runtime: str, values: dict[str, Any]) -> dict[str, Any]:
    """deploy() keywords from URL-key values (missing keys: the default; values at the default are left out):
    the options its engine declares as flat flags (kvcalc.engines: ``Engine.option_names``, validated by
    deploy), the GGUF file type as ``gguf=``, and the others (llama.cpp's ``program``) in one options
    object of the engine's own type (``options=``)."""
    engine = get_engine(runtime)
    declared = set(engine.option_names())
    out: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for f in of_runtime(runtime, ENGINE_FLAGS):
        v = values.get(f.key, f.default)
        if f.dest == "gguf":
            out["gguf"] = v
        elif v != f.default:
            (out if f.dest in declared else rest)[f.dest] = v
    if rest:
        out["options"] = engine.options_type(**rest)
    return out


def engine_inputs(container: Any, runtime: str) -> dict[str, Any]:
    """Draw ``runtime``'s option widgets (nothing for a runtime that is not an engine); returns
    ``{"engine": deploy keywords}`` for :func:`kvcalc.scenarios.plan_options`."""
    if not of_runtime(runtime, ENGINE_FLAGS):
        return {}
    with container.expander(f"{md(get_engine(runtime).label)} options (the engine's own names)", expanded=True):
        return {"engine": _draw_engine(runtime)}
