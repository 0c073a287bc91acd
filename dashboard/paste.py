"""The Planner's paste box: a pasted ``vllm serve`` command sets the bound widgets (kvcalc.vllm_command
reads it), and a Hub id the Hub cannot give plans with the bundled model of the same architecture
(kvcalc.bundled_match), labelled."""
from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

import kvcalc
from kvcalc.bundled_match import bundled_match
from kvcalc.errors import KVCalcError
from kvcalc.vllm import DEFAULT_BLOCK_SIZE, DEFAULT_GPU_MEMORY_UTILIZATION, DEFAULT_VLLM_VERSION
from kvcalc.vllm_command import parse_vllm_serve, weights_dtype

from . import state
from .sources import ModelChoice, load_model

PASTE_RESET: dict[str, Any] = {
    "util": DEFAULT_GPU_MEMORY_UTILIZATION, "mml": 0, "block": DEFAULT_BLOCK_SIZE, "seqs": 0, "mnbt": 0, "tp": 1,
    "pp": 1, "offload": 0.0, "long_mml": False, "spec": "none", "spec_tokens": 1, "loras": 0, "lora_rank": 16,
    "kvdtype": "auto", "wdtype": "auto", "vllm_ver": DEFAULT_VLLM_VERSION,
}
"""What a pasted command resets before it fills what it sets: vLLM's defaults (kvcalc.vllm), as the
widgets in dashboard.inputs show them (0 = vLLM's default; 'auto' = the checkpoint's dtype)."""


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
        kv = {"fp8": "fp8_e4m3"}.get(kv, kv)
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


def apply_vllm_command() -> None:
    """Callback: set the bound widgets from a pasted ``vllm serve`` command. Every option the command
    does not set goes back to vLLM's default (:data:`PASTE_RESET`), so a second paste keeps nothing of
    the first."""
    text = st.session_state.get("vllm_cmd", "")
    try:
        cmd = parse_vllm_serve(text)
    except KVCalcError as e:
        st.session_state["vllm_cmd_error"] = str(e)
        return
    st.session_state["vllm_cmd_error"] = None
    s = st.session_state
    s["runtime"] = "vllm"
    s.update(PASTE_RESET)
    notes: list[str] = []
    if cmd.model:
        _paste_model(cmd.model, notes)
    o = cmd.options
    for opt, key in state.VLLM_OPTIONS.items():
        if opt in o:
            s[key] = o[opt]
    if "block_size" in o:
        if o["block_size"] in state.BLOCK_SIZES:
            s["block"] = o["block_size"]
        else:
            notes.append(f"--block-size {o['block_size']} (not a Planner choice; the default used)")
    _paste_dtypes(o, notes)
    tp, pp = o.get("tensor_parallel_size", 1), o.get("pipeline_parallel_size", 1)
    s["gpus"] = tp * pp
    if "max_model_len" in o:
        s["ctx"] = o["max_model_len"]
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
