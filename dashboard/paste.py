"""The Planner's paste box: a pasted ``vllm serve`` command sets the bound widgets (kvcalc.vllm_command
reads it), as does an SGLang, TensorRT-LLM or llama.cpp launch line (kvcalc.engine_commands: runtime and
its options set, everything else back to the defaults), and a Hub id the Hub cannot give plans with the
bundled model of the same architecture (kvcalc.bundled_match), labelled."""
from __future__ import annotations

import contextlib
import re
from dataclasses import replace
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

import kvcalc
from kvcalc.bundled_match import bundled_match
from kvcalc.command_line import split_shell_tail
from kvcalc.engine_commands import EngineCommand, parse_engine_command
from kvcalc.errors import KVCalcError
from kvcalc.gguf.mixes import file_type_names
from kvcalc.scenarios import loads_gguf
from kvcalc.vllm_command import parse_vllm_serve, weights_dtype

from . import engine_inputs, state
from .option_params import of_runtime
from .sources import ModelChoice, load_model

PASTE_RESET: dict[str, Any] = {
    **{p.key: p.default for p in of_runtime("vllm", state.OPTION_PARAMS)},
    "tp": 1, "pp": 1, "spec": "none", "spec_tokens": 1, "loras": 0, "lora_rank": 16,
    "kvdtype": "auto", "wdtype": "auto", "ctx": state.DEFAULT_CONTEXT,
}
"""What a pasted command resets before it fills what it sets: vLLM's declared options at their widgets'
defaults (dashboard.option_params: 0 = vLLM's default), the options the page composes, the parallel sizes
and dtypes ('auto' = the checkpoint's dtype) and the context."""


def range_error(key: str, value: Any) -> str | None:
    """Why a pasted ``value`` cannot go into widget ``key``: its link parameter's check, which states the
    range (dashboard.state.SCHEMA: the widget's own bounds); None when it can. A value put in a widget
    past its bounds would crash the page (StreamlitValueBelowMinError) or be dropped unseen."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return state.SCHEMA[key].check(text)


def _put(key: str, value: Any, flag: str, notes: list[str]) -> bool:
    """Set widget ``key`` to a pasted ``value`` when it is in the widget's range; else a note that names
    the flag, the value and the range, and the widget keeps its default."""
    err = range_error(key, value)
    if err:
        notes.append(f"{flag} {str(value)[:30]}: {err} in the Planner; not used")
        return False
    st.session_state[key] = value
    return True


def _put_parallel(tp: int, pp: int, flag: str, notes: list[str]) -> bool:
    """Tensor x pipeline parallel and the GPU count they make, when all three are in range."""
    if any(range_error(k, v) for k, v in (("tp", tp), ("pp", pp), ("gpus", tp * pp))):
        notes.append(f"{flag} {tp:,} x pipeline parallel {pp:,} = {tp * pp:,} GPUs: "
                     f"{range_error('gpus', tp * pp) or range_error('tp', tp) or range_error('pp', pp)} "
                     "in the Planner; not used")
        return False
    s = st.session_state
    s["tp"], s["pp"], s["gpus"] = tp, pp, tp * pp
    return True


def is_hub_id(text: str) -> bool:
    from kvcalc.hub import validate_hub_id

    try:
        return validate_hub_id(text) == text and text.count("/") == 1
    except KVCalcError:
        return False


def _paste_model(model: str, notes: list[str]) -> None:
    """Point the model inputs at a pasted command's model: bundled when it is, else the Hub id (the page
    falls back to the bundled model of the same architecture when the Hub cannot give it), else for a
    local path the bundled model of the same architecture; else the model is left as it was."""
    s = st.session_state
    entry = kvcalc.catalog.find_entry(model)
    if entry:
        s["source"], s["model"] = "bundled", entry.hub_id
        return
    if is_hub_id(model):
        s["source"], s["hub"] = "hub", model
        # the Hub id widget is not drawn in this run, so its URL parameter would stay unwritten and the
        # share link would read ?source=hub with no id (issue 14): write it here
        with contextlib.suppress(StreamlitAPIException):
            st.query_params["hub"] = model
        return
    match = bundled_match(model)
    if match:
        s["source"], s["model"] = "bundled", match.hub_id
        s["wdtype"] = match.weights_dtype or "auto"
        notes.append(match.label)
    else:
        notes.append(f"model {model[:80]!r} is neither bundled nor a Hub id; the model was not changed")


def _paste_dtypes(o: dict[str, Any], notes: list[str]) -> None:
    s = st.session_state
    kv = o.get("kv_dtype")
    if kv is not None:
        kv = {"fp8": "fp8_e4m3", "bf16": "bfloat16"}.get(kv, kv)      # vLLM / SGLang spellings
        if kv in state.KV_DTYPES:
            s["kvdtype"] = kv
        else:
            notes.append(f"--kv-cache-dtype {str(kv)[:30]} (not a Planner choice; auto used)")
    w = weights_dtype(o)
    q = o.get("quantization")
    if w in state.WEIGHT_DTYPES:
        s["wdtype"] = w
        if q and q not in ("fp8", "fbgemm_fp8", "ptpc_fp8"):
            notes.append(f"--quantization {q}: weights planned as {w} (4-bit + fp16 scales per 128)")
    elif w is not None:
        notes.append(f"weights dtype {str(w)[:30]} (not a Planner choice; the checkpoint's used)")
    elif q:
        notes.append(f"--quantization {q}: the checkpoint's own quantization_config decides the weights")


ENGINE_PROGRAM = re.compile(r"(^|[\s/])(sglang\.launch_server|sglang\s+serve|trtllm-serve|llama-server|llama-cli)\b")
"""A launch line of one of the engines kvcalc.engine_commands reads (else the text is read as vllm serve)."""


def _gguf_stem(model: str) -> str:
    """The model name in a GGUF repo id or file path: 'unsloth/Qwen3-8B-GGUF' -> 'unsloth/Qwen3-8B',
    '/models/Llama-3.1-8B-Instruct-Q4_K_M.gguf' -> '/models/Llama-3.1-8B-Instruct'."""
    name = re.sub(r"(?i)\.gguf$", "", model.strip())
    name = re.sub(r"(?i)-gguf$", "", name)
    types = "|".join(re.escape(t) for t in file_type_names())
    return re.sub(rf"(?i)[-.]({types})$", "", name)


def _paste_engine_model(cmd: EngineCommand, notes: list[str]) -> None:
    if not cmd.model:
        return
    if not loads_gguf(cmd.runtime):           # a GGUF file's name: the model is its stem
        _paste_model(cmd.model, notes)
        return
    stem = _gguf_stem(cmd.model)
    entry = kvcalc.catalog.find_entry(stem)
    match = None if entry else bundled_match(stem)
    hub_id = entry.hub_id if entry else match.hub_id if match else None
    if hub_id:
        st.session_state["source"], st.session_state["model"] = "bundled", hub_id
        if match:
            notes.append(f"{match.label} (GGUF {cmd.model[:80]})")
    else:
        notes.append(f"model {cmd.model[:80]!r}: no bundled model of the same name; the model was not changed")


def _tail_note(tail: str) -> list[str]:
    """The note for what a pasted line has after its first shell operator (kvcalc.command_line.shell_tail):
    never run, never read."""
    return [f"ignored after the command (not read, never run): {tail[:80]}{'...' if len(tail) > 80 else ''}"] \
        if tail else []


def apply_engine_command(text: str, tail: str = "") -> None:
    """Set the runtime and its option widgets from an SGLang / TensorRT-LLM / llama.cpp launch line;
    every option the line does not set goes back to the defaults (vLLM's and the engines'). ``tail`` is
    what followed a shell operator in the pasted text (noted, not read)."""
    s = st.session_state
    try:
        cmd = parse_engine_command(text)
    except KVCalcError as e:
        s["vllm_cmd_error"] = str(e)
        return
    s["vllm_cmd_error"] = None
    s.update(PASTE_RESET)
    s.update(engine_inputs.ENGINE_RESET)
    s["runtime"] = cmd.runtime
    notes: list[str] = _tail_note(tail)
    _paste_engine_model(cmd, notes)
    o = dict(cmd.options)
    ll = o.pop("llama_cpp", None)
    gguf = o.pop("gguf", None)
    if ll is not None:
        for f in engine_inputs.ENGINE_FLAGS:
            value = f.widget_value(getattr(ll, f.dest)) if cmd.runtime in f.runtimes and f.dest != "gguf" else None
            if value is not None and value != f.default:
                _put(f.key, value, f.flag, notes)
        if not ll.kv_offload or ll.n_batch != ll.__class__().n_batch or ll.n_ubatch != ll.__class__().n_ubatch:
            notes.append("-nkvo / -b / -ub: not Planner options (their defaults are planned)")
    if gguf is not None:
        if gguf in file_type_names():
            s["ll_gguf"] = gguf
        else:
            notes.append(f"GGUF file type {str(gguf)[:20]} is not modelled; {engine_inputs.DEFAULT_GGUF} used")
    tp, pp = o.pop("tensor_parallel_size", 1), o.pop("pipeline_parallel_size", 1)
    if ll is not None and len(ll.tensor_split) > 1:      # llama.cpp's -ts: one proportion per GPU, layers split
        tp, pp = 1, len(ll.tensor_split)
    _put_parallel(tp, pp, "tensor parallel", notes)
    if o.pop("allow_overwrite_longer_context_len", False):
        notes.append("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1: not a Planner option (SGLang's check applies)")
    _paste_dtypes({k: o.pop(k) for k in ("kv_dtype", "dtype") if k in o}, notes)
    for option, value in o.items():
        flag = engine_inputs.BY_OPTION.get((cmd.runtime, option))
        if flag is None:
            notes.append(f"{option}: not a Planner option, ignored")
        else:
            _put(flag.key, value, flag.flag, notes)
    ctx = s.get("sg_ctx") or s.get("trt_mseq") or 0
    if ll is not None and ll.n_ctx:
        # -c cells shared by -np slots: each slot holds n_ctx / n_parallel unless the cache is unified
        # (llama.cpp's llama_context: n_ctx_seq = kv_unified ? n_ctx : n_ctx / n_seq_max)
        seqs, unified, _ = ll.slots()        # -np auto: llama-server's 4 unified slots (LlamaCppOptions.slots)
        ctx = ll.n_ctx if unified else max(1, ll.n_ctx // seqs)
        _put("batch", seqs, "-np (the batch)", notes)
    if ctx:
        _put("ctx", ctx, "the context", notes)
    _write_engine_link(cmd.runtime)
    if cmd.ignored:
        notes.append("not modelled, ignored: " + ", ".join(cmd.ignored))
    if notes:
        s["vllm_cmd_error"] = "; ".join(notes)


def _write_engine_link(runtime: str) -> None:
    """Write the pasted engine options into the link too: their widgets may not exist yet (another runtime
    was selected), and a widget first drawn with a value from session state does not write its URL
    parameter (the same case as the Hub id in :func:`_paste_model`)."""
    for f in engine_inputs.ENGINE_FLAGS:
        value = st.session_state.get(f.key, f.default)
        with contextlib.suppress(StreamlitAPIException, KeyError):
            if runtime in f.runtimes and value != f.default:
                st.query_params[f.key] = str(value).lower() if isinstance(value, bool) else str(value)
            elif f.key in st.query_params:
                del st.query_params[f.key]


def apply_vllm_command() -> None:
    """Callback: set the bound widgets from a pasted ``vllm serve`` command (or an engine's launch line:
    :func:`apply_engine_command`). Every option the command does not set goes back to vLLM's default
    (:data:`PASTE_RESET`), so a second paste keeps nothing of the first."""
    text = st.session_state.get("vllm_cmd", "")
    tail = ""
    if isinstance(text, str):
        text, tail = split_shell_tail(text)       # `&& curl ... | sh`: the launch command alone is read
    if isinstance(text, str) and ENGINE_PROGRAM.search(text[:400]):
        apply_engine_command(text, tail)
        return
    try:
        cmd = parse_vllm_serve(text)
    except KVCalcError as e:
        st.session_state["vllm_cmd_error"] = str(e)
        return
    st.session_state["vllm_cmd_error"] = None
    s = st.session_state
    s["runtime"] = "vllm"
    s.update(PASTE_RESET)
    s.update(engine_inputs.ENGINE_RESET)
    _write_engine_link("vllm")
    notes: list[str] = _tail_note(tail)
    if cmd.model:
        _paste_model(cmd.model, notes)
    o = cmd.options
    for opt, key in state.VLLM_OPTIONS.items():
        if opt in o and key not in ("tp", "pp"):
            _put(key, o[opt], "--" + opt.replace("_", "-"), notes)
    _paste_dtypes(o, notes)
    _put_parallel(o.get("tensor_parallel_size", 1), o.get("pipeline_parallel_size", 1), "--tensor-parallel-size",
                  notes)
    if "max_model_len" in o and s.get("mml") == o["max_model_len"]:
        _put("ctx", o["max_model_len"], "--max-model-len (the context)", notes)
    ignored = list(cmd.ignored)
    if "kv_cache_memory" in o:
        ignored.append("--kv-cache-memory-bytes (not a Planner option)")
    if "enable_prefix_caching" in o:
        notes.append("--enable-prefix-caching: vLLM's default, no memory change" if o["enable_prefix_caching"]
                     else "--no-enable-prefix-caching: not modelled (planned as vLLM's default, on)")
    spec = o.get("speculative_config") or {}
    n = spec.get("num_speculative_tokens")
    if spec.get("method") in state.SPEC_METHODS and isinstance(n, int) and 1 <= n <= 64:
        s["spec"], s["spec_tokens"] = spec["method"], n
    elif spec:
        ignored.append(f"--speculative-config (method {str(spec.get('method'))[:30]!r}, tokens {str(n)[:10]})")
    if "lora" in o:
        lora = o["lora"]
        s["loras"] = min(lora.get("max_loras", 1), state.MAX_LORAS_UI)      # vLLM's defaults: 1 x rank 16
        s["lora_rank"] = lora.get("max_lora_rank", 16)
        ignored += [f"--{k.replace('_', '-')} (not a Planner option)" for k in lora
                    if k not in ("max_loras", "max_lora_rank")]
    if ignored:
        notes.append("not modelled, ignored: " + ", ".join(ignored))
    if notes:
        st.session_state["vllm_cmd_error"] = "; ".join(notes)


def with_bundled_fallback(choice: ModelChoice) -> tuple[ModelChoice, str | None]:
    """A Hub id that could not be loaded (offline, gated, not found) plans with the bundled model of the
    same architecture (kvcalc.bundled_match), labelled; with it the weights dtype a quantized
    re-upload's name says (None: the config's own). Any other choice as it is."""
    if choice.config is not None or choice.origin != "hub":
        return choice, None
    hub = str(st.session_state.get("hub") or "").strip()
    match = bundled_match(hub) if hub else None
    if match is None:
        return choice, None
    got = load_model("bundled", match.hub_id)
    if got.config is None:
        return choice, None
    return replace(got, name=hub, notice=f"{match.label} (the Hub did not give its config: {choice.error})"), \
        match.weights_dtype
