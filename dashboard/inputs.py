"""Shared input widgets. Every widget that changes a view binds to a URL parameter (its key).

``model_inputs`` / ``gpu_inputs`` / ``runtime_inputs`` / ``attention_inputs`` draw a group of
widgets and return plain values; the pages combine them into kvcalc calls.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from kvcalc.catalog import DEFAULT_MODEL, catalog
from kvcalc.gpus import CLASS_REPRESENTATIVES, gpu_catalog
from kvcalc.variants import VARIANTS
from kvcalc.vllm import DEFAULT_BLOCK_SIZE

from . import engine_inputs, state
from .sources import ModelChoice, load_model
from .text import md


def _gpu_order() -> list[str]:
    """GPU keys with the 16 / 24 / 80 GB class representatives first, then by memory."""
    reps = [CLASS_REPRESENTATIVES[c] for c in sorted(CLASS_REPRESENTATIVES)]
    rest = [g.key for g in sorted(gpu_catalog(), key=lambda g: (g.memory_mib, g.key)) if g.key not in reps]
    return reps + rest + ["custom"]


def gpu_label(key: str) -> str:
    if key == "custom":
        return "Custom memory"
    g = next(g for g in gpu_catalog() if g.key == key)
    return f"{g.name} ({g.memory_gib:.1f} GiB)"


def model_inputs(container: Any) -> ModelChoice:
    """Model source (bundled catalog / Hub id / pasted config) -> a loaded config or an error,
    the error shown right under the model input."""
    choice = _model_source(container)
    if choice.error:
        container.error(md(choice.error))
    return choice


def _model_source(container: Any) -> ModelChoice:
    # options are the URL values themselves: a bound widget writes its *label* into the link
    source = container.radio("Model source", state.SOURCES, **state.bound("source"), horizontal=True,
                             help="bundled: offline catalog; hub: a Hugging Face model id; paste: your config.json")
    ids = [e.hub_id for e in catalog()]
    if source == "bundled":
        model = container.selectbox("Model (type to search)", ids, index=ids.index(DEFAULT_MODEL),
                                    **state.bound("model"),
                                    help="Verbatim config.json files bundled with the app (offline).")
        return load_model("bundled", model)
    if source == "hub":
        hub = container.text_input("Hugging Face model id", placeholder="Qwen/Qwen3-32B", **state.bound("hub"))
        token_field(container)
        return load_model("hub", hub.strip(), token=st.session_state.get(TOKEN_KEY))
    pasted = container.text_area("Paste a config.json", height=160, key="pasted")
    upload = container.file_uploader("...or upload one", type=["json"], key="uploaded")
    data = upload.getvalue() if upload is not None else pasted
    return load_model("paste", data)


TOKEN_KEY = "_hf_token"          # session-only; never a widget value, so never echoed back into the page


def _stash_token() -> None:
    """Move a typed token out of the password field into session state and clear the field, so the
    page's HTML (the field's value) never holds it."""
    typed = (st.session_state.get("hf_token_input") or "").strip()
    if typed:
        st.session_state[TOKEN_KEY] = typed
    st.session_state["hf_token_input"] = ""


def _forget_token() -> None:
    st.session_state.pop(TOKEN_KEY, None)


def token_field(container: Any) -> None:
    """Password field for a Hub token used by this browser session only (not stored, not in the URL)."""
    container.text_input("HF token for gated models (this session only)", type="password", key="hf_token_input",
                         on_change=_stash_token, help="Kept in this session's memory only: never in the link, "
                         "the page or a log. Streamlit secrets / HF_TOKEN are used when no token is set here.")
    if st.session_state.get(TOKEN_KEY):
        container.caption("A token is set for this session.")
        container.button("Forget the token", on_click=_forget_token, key="forget_token")


def gpu_inputs(container: Any) -> dict[str, Any]:
    order = _gpu_order()
    gpu = container.selectbox("GPU", order, index=order.index("h100-sxm"), **state.bound("gpu"),
                              help="16 / 24 / 80 GB classes first. Memory is the total nvidia-smi reports.")
    container.caption(gpu_label(gpu))
    out: dict[str, Any] = {"gpu": gpu}
    if gpu == "custom":
        out["gpu_mem_gib"] = container.number_input("GPU memory (GiB)", min_value=1.0, max_value=4096.0, value=24.0,
                                                    step=1.0, **state.bound("gpu_mem"))
        out.pop("gpu")
    out["gpus"] = int(container.number_input("GPUs", min_value=1, max_value=state.MAX_GPUS_UI, value=1,
                                             **state.bound("gpus")))
    return out


def workload_inputs(container: Any) -> tuple[int, int]:
    c1, c2 = container.columns(2)
    batch = c1.number_input("Batch", min_value=1, max_value=state.MAX_BATCH_UI, value=1, **state.bound("batch"),
                            help=f"Concurrent sequences, 1 to {state.MAX_BATCH_UI:,}.")
    ctx = c2.number_input("Context (tokens)", min_value=1, max_value=state.MAX_CONTEXT_UI, value=8192, step=1024,
                          **state.bound("ctx"), help=f"Tokens per sequence, 1 to {state.MAX_CONTEXT_UI:,}.")
    return int(batch), int(ctx)


def dtype_inputs(container: Any) -> dict[str, Any]:
    c1, c2 = container.columns(2)
    w = c1.selectbox("Weights dtype", state.WEIGHT_DTYPES, **state.bound("wdtype"),
                     help="auto = the checkpoint's own (quantization_config / torch_dtype)")
    kv = c2.selectbox("KV-cache dtype", state.KV_DTYPES, **state.bound("kvdtype"), help="auto = the model dtype")
    return {"dtype": None if w == "auto" else w, "kv_dtype": None if kv == "auto" else kv}


def runtime_inputs(container: Any) -> dict[str, Any]:
    runtime = container.radio("Runtime", state.RUNTIMES, **state.bound("runtime"), horizontal=True,
                              help="vLLM (paged), transformers (plain generate) or the ideal minimum")
    out: dict[str, Any] = {"runtime": runtime}
    with container.expander("Parallelism and vLLM options", expanded=False):
        c1, c2 = st.columns(2)
        tp = int(c1.number_input("Tensor parallel", min_value=1, max_value=state.MAX_GPUS_UI, value=1,
                                 **state.bound("tp"),
                                 disabled=runtime == "transformers"))
        pp = int(c2.number_input("Pipeline parallel", min_value=1, max_value=state.MAX_GPUS_UI, value=1,
                                 **state.bound("pp")))
        out["parallel"] = (tp, pp)
        if runtime == "vllm":
            out["gpu_memory_utilization"] = float(st.slider("gpu_memory_utilization", 0.05, 1.0, 0.9, 0.01,
                                                            **state.bound("util")))
            mml = int(st.number_input("max_model_len (0 = not set)", min_value=0, help="Not set: the Planner serves "
                                      "the context asked for; vLLM itself would use the model's maximum",
                                      max_value=state.MAX_CONTEXT_UI, value=0, **state.bound("mml")))
            out["max_model_len"] = mml or None
            out["block_size"] = int(st.selectbox("block_size", state.BLOCK_SIZES,
                                                 index=state.BLOCK_SIZES.index(DEFAULT_BLOCK_SIZE),
                                                 **state.bound("block")))
            seqs = int(st.number_input("max_num_seqs (0 = vLLM default)", min_value=0, max_value=state.MAX_BATCH_UI,
                                       value=0, **state.bound("seqs")))
            out["max_num_seqs"] = seqs or None
            mnbt = int(st.number_input("max_num_batched_tokens (0 = vLLM default)", min_value=0,
                                       max_value=state.MAX_CONTEXT_UI, value=0, **state.bound("mnbt")))
            out["max_num_batched_tokens"] = mnbt or None
            out.update(_vllm_engine_inputs())
    out.update(engine_inputs.engine_inputs(container, runtime))      # SGLang / TensorRT-LLM / llama.cpp (issue 16)
    return out


def _vllm_engine_inputs() -> dict[str, Any]:
    """vLLM's release, speculative decoding, CPU offload, LoRA and the long-length switch, as plan options."""
    out: dict[str, Any] = {}
    out["vllm_version"] = st.selectbox("vLLM release (rules)", state.VLLM_VERSIONS, **state.bound("vllm_ver"),
                                       help="0.33: today's rules (default); 0.10: the releases before")
    c1, c2 = st.columns(2)
    method = c1.selectbox("Speculative method", state.SPEC_METHODS, **state.bound("spec"),
                          help="--speculative-config method: MTP / EAGLE add drafter KV layers")
    tokens = int(c2.number_input("num_speculative_tokens", min_value=1, max_value=64, value=1,
                                 **state.bound("spec_tokens"), disabled=method == "none"))
    if method != "none":
        out["speculative_config"] = {"method": method, "num_speculative_tokens": tokens}
    offload = float(st.number_input("cpu_offload_gb (GiB of weights per GPU in CPU memory)", min_value=0.0,
                                    max_value=4096.0, value=0.0, step=1.0, **state.bound("offload")))
    if offload:
        out["cpu_offload_gb"] = offload
    c1, c2 = st.columns(2)
    loras = int(c1.number_input("max_loras (0 = LoRA off)", min_value=0, max_value=state.MAX_LORAS_UI, value=0,
                                **state.bound("loras"), help="--enable-lora --max-loras: adapter slots per batch"))
    rank = int(c2.selectbox("max_lora_rank", state.LORA_RANKS, index=state.LORA_RANKS.index(16),
                            **state.bound("lora_rank"), disabled=loras == 0))
    if loras:
        out["lora"] = {"max_loras": loras, "max_lora_rank": rank}
    if st.toggle("allow_long_max_model_len (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)", value=False,
                 **state.bound("long_mml")):
        out["allow_long_max_model_len"] = True
    return out


def attention_inputs(container: Any) -> dict[str, Any]:
    with container.expander("What if: attention override", expanded=False):
        variant = st.selectbox("Attention", list(VARIANTS), **state.bound("attn"),
                               help="Switch the model's attention to see what MHA / GQA / MQA / sliding window cost")
        out: dict[str, Any] = {"variant": variant}
        if variant == "gqa":
            out["kv_heads"] = int(st.number_input("KV heads", min_value=1, max_value=1024, value=8,
                                                  **state.bound("attn_kv")))
        if variant == "sliding":
            out["window"] = int(st.number_input("Window (tokens)", min_value=1, max_value=state.MAX_CONTEXT_UI,
                                                value=4096, **state.bound("attn_window")))
            out["pattern"] = st.text_input("Pattern: 'all' or local:global like 5:1", value="all",
                                           **state.bound("attn_pattern"))
    return out


@dataclass(frozen=True)
class PlanInputs:
    """Everything a plan needs, as read from the widgets."""

    options: dict[str, Any] = field(default_factory=dict)
    batch: int = 1
    context: int = 8192
    variant: dict[str, Any] = field(default_factory=dict)


def deployment_inputs(container: Any) -> tuple[ModelChoice, dict[str, Any], int, int]:
    """The sidebar every planning page shares: model, GPU, batch x context, dtypes, runtime.
    Returns the loaded model, kvcalc.plan options, batch and context."""
    choice = model_inputs(container)
    gpu = gpu_inputs(container)
    batch, ctx = workload_inputs(container)
    dtypes = dtype_inputs(container)
    runtime = runtime_inputs(container)
    return choice, plan_options(gpu, dtypes, runtime), batch, ctx


def plan_options(gpu: dict[str, Any], dtypes: dict[str, Any], runtime: dict[str, Any]) -> dict[str, Any]:
    """Merge widget groups into kvcalc.plan keyword options."""
    opts: dict[str, Any] = {**gpu, **dtypes}
    opts["runtime"] = runtime["runtime"]
    tp, pp = runtime.get("parallel", (1, 1))
    if runtime["runtime"] == "transformers":
        opts["pipeline_parallel_size"] = opts["gpus"]
    elif tp * pp == opts["gpus"]:
        opts["tensor_parallel_size"], opts["pipeline_parallel_size"] = tp, pp
    for k in ("gpu_memory_utilization", "max_model_len", "block_size", "max_num_seqs", "max_num_batched_tokens",
              "vllm_version", "speculative_config", "cpu_offload_gb", "lora", "allow_long_max_model_len"):
        if runtime.get(k) is not None:
            opts[k] = runtime[k]
    opts.update(runtime.get("engine", {}))
    return opts
