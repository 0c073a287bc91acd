"""The serving engines' own options as widgets: SGLang, TensorRT-LLM and llama.cpp (issue 16).

Each widget binds to one URL parameter of :data:`dashboard.state.PARAMS` (the ``sg_*``, ``trt_*``,
``ll_*`` block) and is labelled with the engine's own flag name; :data:`ENGINE_FLAGS` maps each
parameter to that flag and to the keyword of :func:`kvcalc.deployment.deploy` it fills. Values at the
engine's default are not passed (kvcalc applies the default itself: kvcalc.sglang.defaults,
kvcalc.trtllm.defaults, kvcalc.llama_cpp.options), so a plan says "default" where the engine does.

A ``.gguf`` upload is read with :func:`kvcalc.gguf.reader.read_gguf_header`: only the first
:data:`UPLOAD_READ_BYTES` of what the uploader holds (the header and tensor table; the tensor data is
never read), and the upload is not part of the link (files never are).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import streamlit as st

from kvcalc.engines import get_engine
from kvcalc.errors import KVCalcError
from kvcalc.gguf.mixes import file_type_names
from kvcalc.gguf.reader import MAX_HEADER_BYTES, GGUFHeader, read_gguf_header
from kvcalc.llama_cpp.options import LLAMA_MAX_SEQ, LlamaCppOptions
from kvcalc.scenarios import DEFAULT_GGUF
from kvcalc.sglang.defaults import DEFAULT_PAGE_SIZE
from kvcalc.trtllm.defaults import DEFAULT_FREE_GPU_MEMORY_FRACTION, DEFAULT_MAX_BATCH_SIZE, DEFAULT_TOKENS_PER_BLOCK

from . import state
from .text import md

UPLOAD_READ_BYTES = MAX_HEADER_BYTES
"""At most this much of an uploaded .gguf is read (kvcalc.gguf.reader's own cap, 64 MiB)."""
_LLAMA = LlamaCppOptions()


@dataclass(frozen=True)
class EngineFlag:
    """URL key -> the engine's flag (as its command line spells it), the deploy() keyword, the default."""

    key: str
    runtime: str
    flag: str
    option: str
    default: Any


ENGINE_FLAGS: tuple[EngineFlag, ...] = (
    EngineFlag("sg_mem", "sglang", "--mem-fraction-static", "mem_fraction_static", 0.0),
    EngineFlag("sg_ctx", "sglang", "--context-length", "context_length", 0),
    EngineFlag("sg_mrr", "sglang", "--max-running-requests", "max_running_requests", 0),
    EngineFlag("sg_page", "sglang", "--page-size", "page_size", DEFAULT_PAGE_SIZE),
    EngineFlag("trt_frac", "tensorrt_llm", "free_gpu_memory_fraction", "free_gpu_memory_fraction",
               DEFAULT_FREE_GPU_MEMORY_FRACTION),
    EngineFlag("trt_max_tokens", "tensorrt_llm", "max_tokens_in_paged_kv_cache", "max_tokens_in_paged_kv_cache", 0),
    EngineFlag("trt_tpb", "tensorrt_llm", "tokens_per_block", "tokens_per_block", DEFAULT_TOKENS_PER_BLOCK),
    EngineFlag("trt_mseq", "tensorrt_llm", "max_seq_len", "max_seq_len", 0),
    EngineFlag("trt_mbs", "tensorrt_llm", "max_batch_size", "max_batch_size", DEFAULT_MAX_BATCH_SIZE),
    EngineFlag("ll_prog", "llama_cpp", "program", "program", _LLAMA.program),
    EngineFlag("ll_ctx", "llama_cpp", "-c", "n_ctx", _LLAMA.n_ctx),
    EngineFlag("ll_np", "llama_cpp", "-np", "n_parallel", _LLAMA.n_parallel),
    EngineFlag("ll_kvu", "llama_cpp", "-kvu", "kv_unified", _LLAMA.kv_unified),
    EngineFlag("ll_ctk", "llama_cpp", "-ctk", "cache_type_k", _LLAMA.cache_type_k),
    EngineFlag("ll_ctv", "llama_cpp", "-ctv", "cache_type_v", _LLAMA.cache_type_v),
    EngineFlag("ll_ngl", "llama_cpp", "-ngl", "n_gpu_layers", _LLAMA.n_gpu_layers),
    EngineFlag("ll_swa_full", "llama_cpp", "--swa-full", "swa_full", _LLAMA.swa_full),
    EngineFlag("ll_fa", "llama_cpp", "-fa", "flash_attn", _LLAMA.flash_attn),
    EngineFlag("ll_gguf", "llama_cpp", "GGUF file type", "gguf", DEFAULT_GGUF),
)
BY_KEY: dict[str, EngineFlag] = {f.key: f for f in ENGINE_FLAGS}
BY_OPTION: dict[tuple[str, str], EngineFlag] = {(f.runtime, f.option): f for f in ENGINE_FLAGS}
ENGINE_RESET: dict[str, Any] = {f.key: f.default for f in ENGINE_FLAGS}
"""What a pasted engine command resets before it fills what it sets: each engine's defaults."""


def _label(key: str, what: str) -> str:
    return f"{BY_KEY[key].flag} ({what})"


def _sglang() -> dict[str, Any]:
    c1, c2 = st.columns(2)
    c1.number_input(_label("sg_mem", "0 = SGLang's default for this GPU"), min_value=0.0, max_value=0.99,
                    value=0.0, step=0.01, format="%.3f", **state.bound("sg_mem"),
                    help="Share of the memory free before loading that weights + the token pool may use")
    c2.number_input(_label("sg_ctx", "0 = the model's"), min_value=0, max_value=state.MAX_CONTEXT_UI, value=0,
                    **state.bound("sg_ctx"))
    c1, c2 = st.columns(2)
    c1.number_input(_label("sg_mrr", "0 = SGLang's default"), min_value=0, max_value=state.MAX_BATCH_UI, value=0,
                    **state.bound("sg_mrr"))
    c2.number_input(_label("sg_page", "tokens per page"), min_value=1, max_value=1 << 16, value=DEFAULT_PAGE_SIZE,
                    **state.bound("sg_page"))
    return _read("sglang")


def _trtllm() -> dict[str, Any]:
    st.slider(_label("trt_frac", "of the free memory"), 0.0, 1.0, DEFAULT_FREE_GPU_MEMORY_FRACTION, 0.01,
              format="%.3f", **state.bound("trt_frac"))       # down to 0: TensorRT-LLM takes any share above 0
    c1, c2 = st.columns(2)
    c1.number_input(_label("trt_max_tokens", "0 = not set"), min_value=0, max_value=1 << 40, value=0,
                    **state.bound("trt_max_tokens"))
    c2.selectbox(BY_KEY["trt_tpb"].flag, state.TRT_TOKENS_PER_BLOCK,
                 index=state.TRT_TOKENS_PER_BLOCK.index(DEFAULT_TOKENS_PER_BLOCK), **state.bound("trt_tpb"))
    c1, c2 = st.columns(2)
    c1.number_input(_label("trt_mseq", "0 = the model's"), min_value=0, max_value=state.MAX_CONTEXT_UI, value=0,
                    **state.bound("trt_mseq"))
    c2.number_input(BY_KEY["trt_mbs"].flag, min_value=1, max_value=1 << 20, value=DEFAULT_MAX_BATCH_SIZE,
                    **state.bound("trt_mbs"))
    return _read("tensorrt_llm")


def _llama_cpp() -> dict[str, Any]:
    st.radio("Program", state.LLAMA_PROGRAMS, horizontal=True, **state.bound("ll_prog"),
             help="llama-server with -np auto (-1, its default) runs 4 unified slots; an explicit -np 1 stays one "
                  "slot (tools/server/server.cpp)")
    c1, c2 = st.columns(2)
    c1.number_input(_label("ll_ctx", "cells; 0 = the model's n_ctx_train"), min_value=0,
                    max_value=state.MAX_CONTEXT_UI, value=0, step=1024, **state.bound("ll_ctx"))
    c2.number_input(_label("ll_np", "slots; -1 = auto"), min_value=-1, max_value=LLAMA_MAX_SEQ, value=-1,
                    **state.bound("ll_np"))
    c1, c2 = st.columns(2)
    c1.selectbox(BY_KEY["ll_ctk"].flag, state.LLAMA_KV_TYPES, index=state.LLAMA_KV_TYPES.index("f16"),
                 **state.bound("ll_ctk"))
    c2.selectbox(BY_KEY["ll_ctv"].flag, state.LLAMA_KV_TYPES, index=state.LLAMA_KV_TYPES.index("f16"),
                 **state.bound("ll_ctv"), help="A quantized V cache needs Flash Attention (-fa on)")
    c1, c2 = st.columns(2)
    c1.number_input(_label("ll_ngl", "layers on the GPU; -1 = all"), min_value=-1, max_value=1 << 20, value=-1,
                    **state.bound("ll_ngl"))
    c2.selectbox(BY_KEY["ll_fa"].flag, ["auto", "on", "off"], **state.bound("ll_fa"))
    c1, c2 = st.columns(2)
    c1.toggle(BY_KEY["ll_swa_full"].flag, value=False, **state.bound("ll_swa_full"))
    c2.toggle(BY_KEY["ll_kvu"].flag, value=False, **state.bound("ll_kvu"))
    types = file_type_names()
    st.selectbox("GGUF file type", types, index=types.index(DEFAULT_GGUF), **state.bound("ll_gguf"),
                 help="The quant mix llama.cpp's quantizer writes (kvcalc.gguf.mixes); an uploaded header wins")
    out = _read("llama_cpp")
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


_DRAW = {"sglang": _sglang, "tensorrt_llm": _trtllm, "llama_cpp": _llama_cpp}


def _read(runtime: str) -> dict[str, Any]:
    """The deploy() keywords of ``runtime``'s widgets that differ from the engine's default."""
    return options_from(runtime, {f.key: st.session_state.get(f.key, f.default) for f in ENGINE_FLAGS
                                  if f.runtime == runtime})


def options_from(runtime: str, values: dict[str, Any]) -> dict[str, Any]:
    """deploy() keywords from URL-key values (missing keys: the default; values at the default are left out):
    the options its engine declares as flat flags (kvcalc.engines: ``Engine.option_names``, validated by
    deploy), the GGUF file type as ``gguf=``, and the others (llama.cpp's ``program``) in one options
    object of the engine's own type (``options=``)."""
    engine = get_engine(runtime)
    declared = set(engine.option_names())
    out: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for f in ENGINE_FLAGS:
        if f.runtime != runtime:
            continue
        v = values.get(f.key, f.default)
        if f.option == "gguf":
            out["gguf"] = v
        elif v != f.default:
            (out if f.option in declared else rest)[f.option] = v
    if rest:
        out["options"] = engine.options_type(**rest)
    return out


def engine_inputs(container: Any, runtime: str) -> dict[str, Any]:
    """Draw ``runtime``'s option widgets (nothing for a runtime that is not an engine); returns
    ``{"engine": deploy keywords}`` for :func:`kvcalc.scenarios.plan_options`."""
    if runtime not in _DRAW:
        return {}
    with container.expander(f"{md(get_engine(runtime).label)} options (the engine's own names)", expanded=True):
        return {"engine": _DRAW[runtime]()}
