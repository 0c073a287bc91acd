"""Shared input widgets. Every widget that changes a view binds to a URL parameter (its key).

``model_inputs`` / ``gpu_inputs`` / ``runtime_inputs`` / ``attention_inputs`` draw a group of
widgets and return plain values; the pages combine them into kvcalc calls.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from kvcalc.catalog import DEFAULT_MODEL, catalog, find_entry
from kvcalc.errors import KVCalcError
from kvcalc.gpus import CLASS_REPRESENTATIVES, get_gpu, gpu_catalog
from kvcalc.scenarios import KvPreview, kv_preview, loads_gguf, plan_options, splits_tensors, takes_vllm_options
from kvcalc.units import human_bytes
from kvcalc.variants import VARIANTS

from . import engine_inputs, pickers, state
from .config_link import config_title, decode_config, encode_config
from .sources import ModelChoice, load_model
from .text import count, md


def _gpu_order() -> list[str]:
    """GPU keys with the 16 / 24 / 80 GB class representatives first, then by memory."""
    reps = [CLASS_REPRESENTATIVES[c] for c in sorted(CLASS_REPRESENTATIVES)]
    rest = [g.key for g in sorted(gpu_catalog(), key=lambda g: (g.memory_mib, g.key)) if g.key not in reps]
    return reps + rest + ["custom"]


DEFAULT_GPU = "h100-sxm"


def gpu_label(key: str) -> str:
    """The GPU picker's text for catalog key ``key`` (dashboard.pickers.gpu_label)."""
    if key == "custom":
        return pickers.CUSTOM_GPU_LABEL
    return pickers.gpu_label(get_gpu(key))


def _gpu_search_text(key: str) -> str:
    return pickers.CUSTOM_GPU_LABEL + " custom" if key == "custom" else pickers.gpu_search_text(get_gpu(key))


def model_label(hub_id: str) -> str:
    """The model picker's text for a bundled Hub id (dashboard.pickers.model_label)."""
    e = find_entry(hub_id)
    return pickers.model_label(e) if e else hub_id


def _model_search_text(hub_id: str) -> str:
    e = find_entry(hub_id)
    return pickers.model_search_text(e) if e else hub_id


def _search(container: Any, what: str, key: str, example: str) -> str:
    """A small search box that narrows a picker (fragments in any order, dashboard.pickers.matches)."""
    return str(container.text_input(f"Search {what}", key=key, placeholder=example,
                                    help="Fragments in any order, any case: every one must match."))


def model_inputs(container: Any, fallback: bool = False) -> ModelChoice:
    """Model source (bundled catalog / Hub id / pasted config) -> a loaded config or an error,
    the error shown right under the model input. ``fallback``: the page plans a Hub id the Hub cannot give
    with the bundled model of the same architecture (dashboard.paste.with_bundled_fallback, the Planner);
    then the message is an amber notice that says so, not a red error beside a page that plans."""
    choice = _model_source(container)
    # always one element here, empty or not: when the error goes (a config pasted), the widgets below must
    # keep their places, or Streamlit's frontend re-creates them without their link binding and later
    # changes never reach the URL (Streamlit 1.67; tests/browser/test_browser_share_links.py)
    slot = container.empty()
    if choice.error:
        planned = fallback_notice(choice) if fallback else None
        if planned:
            slot.warning(md(planned), icon="⚠️")
        else:
            slot.error(md(choice.error))
    return choice


def fallback_notice(choice: ModelChoice) -> str | None:
    """The sidebar's notice for a Hub id the Hub did not give whose page plans with a bundled config instead
    (plain text), or None when there is no bundled model of its architecture."""
    from .paste import with_bundled_fallback

    planned, _ = with_bundled_fallback(choice)
    if planned.config is None:
        return None
    label = (planned.notice or "").split(" (the Hub did not give", 1)[0]
    return (f"The Hub did not give this model's config, so the page planned with the bundled config instead "
            f"({label}). The Hub said: {choice.error}")


def _model_source(container: Any) -> ModelChoice:
    # options are the URL values themselves: a bound widget writes its *label* into the link
    source = container.radio("Model source", state.SOURCES, **state.bound("source"), horizontal=True,
                             help="bundled: offline catalog; hub: a Hugging Face model id; paste: your config.json")
    ids = [e.hub_id for e in catalog()]
    if source == "bundled":
        query = _search(container, "models", "model_q", "llama 8b, qwen3 30b, gemma")
        current = st.session_state.get("model", st.query_params.get("model", DEFAULT_MODEL))
        shown = pickers.narrow(query, ids, _model_search_text, keep=current)
        if query and not any(pickers.matches(query, _model_search_text(m)) for m in shown):
            container.caption(f"No bundled model matches '{md(query)}': try fewer fragments.")
        model = container.selectbox("Model (type to search)", shown, format_func=model_label,
                                    **state.synced("model", shown, DEFAULT_MODEL),
                                    help="Verbatim config.json files bundled with the app (offline): "
                                         "name, parameter count, family.")
        state.publish("model", model, DEFAULT_MODEL)
        return load_model("bundled", model)
    state.publish("model", None)
    if source == "hub":
        hub = container.text_input("Hugging Face model id", placeholder="Qwen/Qwen3-32B", **state.bound("hub"))
        container.caption("Fetched from huggingface.co (needs the network). Gated models (Llama, Gemma, "
                          "Mistral) also need a token whose account accepted the license; offline, pick the "
                          "bundled model of the same architecture.")
        token_field(container)
        return load_model("hub", hub.strip(), token=st.session_state.get(TOKEN_KEY))
    return _pasted_config(container)


def _pasted_config(container: Any) -> ModelChoice:
    """A pasted or uploaded config.json; also the one a share link carries (``cfg``). A config that
    plans goes into the link when it fits (dashboard.config_link), else a notice says why not."""
    link = st.query_params.get("cfg")
    fresh = state.arrived() or (not st.session_state.get("pasted") and st.session_state.get("uploaded") is None)
    if link and fresh:
        try:
            st.session_state["pasted"] = json.dumps(decode_config(link), indent=2, ensure_ascii=False)
        except KVCalcError:
            pass                  # sanitize already showed the notice and dropped it
    pasted = container.text_area("Paste a config.json", height=160, key="pasted")
    upload = container.file_uploader("...or upload one", type=["json"], key="uploaded")
    data = upload.getvalue() if upload is not None else pasted
    file_name = upload.name if upload is not None else None
    choice = load_model("paste", data, file_name=file_name)
    if choice.config is not None and upload is None and link and encode_config(choice.config) == link:
        file_name = st.query_params.get("cfg_name")     # still the link's config: keep the link's file name
        choice = dataclasses.replace(choice, name=config_title(choice.config, file_name))
    if choice.config is None:
        state.publish("cfg", None)
        state.publish("cfg_name", None)
        return choice
    value = encode_config(choice.config)
    if len(value) > state.CONFIG_LINK_MAX_CHARS:
        state.publish("cfg", None)
        state.publish("cfg_name", None)
        container.info(f"This config is too large to share in a link ({len(value):,} characters compressed, "
                       f"more than {state.CONFIG_LINK_MAX_CHARS:,}): the share link opens the paste box empty. "
                       "Send the file itself.")
        return choice
    state.publish("cfg", value)
    state.publish("cfg_name", file_name if file_name and file_name.isprintable() else None)
    return choice


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
    query = _search(container, "GPUs", "gpu_q", "a100 80, 24gb, nvidia, 4090")
    current = st.session_state.get("gpu", st.query_params.get("gpu", DEFAULT_GPU))
    shown = pickers.narrow(query, order, _gpu_search_text, keep=current)
    if query and not any(pickers.matches(query, _gpu_search_text(g)) for g in shown):
        container.caption(f"No GPU matches '{md(query)}': try fewer fragments, or Custom memory.")
    gpu = container.selectbox("GPU", shown, format_func=gpu_label, **state.synced("gpu", shown, DEFAULT_GPU),
                              help="16 / 24 / 80 GB classes first. Memory is the total nvidia-smi reports, "
                                   "in GiB (2^30 bytes).")
    state.publish("gpu", gpu, DEFAULT_GPU)
    container.caption(gpu_label(gpu))         # in full: a narrow sidebar cuts the box's text
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
    ctx = c2.number_input("Context (tokens)", min_value=1, max_value=state.MAX_CONTEXT_UI,
                          value=state.DEFAULT_CONTEXT, step=1024, **state.bound("ctx"),
                          help=f"Tokens per sequence, 1 to {state.MAX_CONTEXT_UI:,}.")
    return int(batch), int(ctx)


GGUF_DTYPES_HELP = "llama.cpp's weights are the GGUF file's types and its KV cache is -ctk / -ctv (its options below)"
"""The help of the dtype selects, greyed out while the runtime reads a GGUF file (llama.cpp)."""


def weights_dtype_input(container: Any, disabled: bool = False) -> str | None:
    """The weights dtype (None = the checkpoint's own); ``disabled`` greys it out (a GGUF runtime)."""
    w = container.selectbox("Weights dtype", state.WEIGHT_DTYPES, **state.bound("wdtype"), disabled=disabled,
                            help=f"Not used: {GGUF_DTYPES_HELP}" if disabled else
                            "auto = the checkpoint's own (quantization_config / torch_dtype)")
    return None if w == "auto" else str(w)


def _current_runtime() -> str:
    """The runtime radio's value before it is drawn: this session's, else the link's (sanitized by then), else the
    first runtime (the radio's default)."""
    v = st.session_state.get("runtime", st.query_params.get("runtime", state.RUNTIMES[0]))
    return str(v) if v in state.RUNTIMES else state.RUNTIMES[0]


def weights_ask(reason: str, config: dict[str, Any], options: dict[str, Any], batch: int, ctx: int) -> float:
    """Inline, where the plan would be: why kvcalc cannot size the weights, the KV cache of ``batch`` x ``ctx``
    tokens it can compute at once (kvcalc.scenarios.kv_preview) and the field for the weights per GPU (URL key
    ``wgib``, as the CLI's --weights-gib). Returns the GiB entered (0: not yet)."""
    try:
        kv: KvPreview | None = kv_preview(config, options, batch, ctx)
    except KVCalcError:
        kv = None
    if not st.session_state.get("wgib"):          # until the weights are entered: what to do and why
        st.warning(f"{md(reason)}. Enter the weights per GPU below (the checkpoint's size / GPUs) to plan it: "
                   "the KV cache and everything else are computed from the config as usual.")
    left, right = st.columns(2)
    if kv is not None:
        left.metric(f"KV cache, {kv.batch:,} x {count(kv.context, 'token')} (all GPUs)", human_bytes(kv.total_bytes),
                    help=f"{kv.bytes_per_token:,} B per token of one sequence in {md(kv.kv_dtype)}, {md(kv.quality)}; "
                         "the cache itself, before the runtime's pages and budget")
    return float(right.number_input(
        "Weights per GPU (GiB): kvcalc cannot size this model's weights", min_value=0.0, max_value=float(1 << 20),
        value=0.0, step=0.5, **state.bound("wgib"),
        help="The size of the checkpoint's weight files divided by the GPUs (tensor x pipeline parallel); "
             "the plan then marks the weights as given"))


def kept_dtypes() -> dict[str, Any]:
    """The weights and KV-cache dtypes the two selects hold (plan options), also while a GGUF runtime greys them out
    (:func:`dtype_inputs`): what the Planner's other-runtimes table plans those runtimes with."""
    w, kv = (st.session_state.get(k, "auto") for k in ("wdtype", "kvdtype"))
    return {"dtype": None if w == "auto" else w, "kv_dtype": None if kv == "auto" else kv}


def dtype_inputs(container: Any) -> dict[str, Any]:
    """The weights and KV-cache dtypes as plan options. Under a runtime that reads a GGUF file (llama.cpp, whose
    own -ctk / -ctv and file type set both) the two selects are greyed out and give nothing, their values kept for
    the other runtimes, with a notice when they hold one, instead of a plan refused for an option it lacks."""
    gguf = loads_gguf(_current_runtime())
    c1, c2 = container.columns(2)
    weights_dtype_input(c1, disabled=gguf)
    c2.selectbox("KV-cache dtype", state.KV_DTYPES, **state.bound("kvdtype"), disabled=gguf,
                 help=f"Not used: {GGUF_DTYPES_HELP}" if gguf else "auto = the model dtype")
    dtypes = kept_dtypes()                   # the two selects' values, as plan options
    if not gguf:
        return dtypes
    chosen = [f"{label} {dtypes[k]}" for label, k in (("Weights dtype", "dtype"), ("KV-cache dtype", "kv_dtype"))
              if dtypes[k]]
    if chosen:
        verb = "is" if len(chosen) == 1 else "are"
        container.info(md(f"{' and '.join(chosen)} {verb} not used here, only kept for the other runtimes: "
                          f"{GGUF_DTYPES_HELP}."))
    return {"dtype": None, "kv_dtype": None}


def parallel_split(gpus: int, tp: int, pp: int) -> tuple[int, int, str | None]:
    """(tensor parallel, pipeline parallel, notice) for ``gpus`` GPUs. The rule: the GPU count
    wins and tensor parallel follows it, TP = GPUs / PP (kvcalc.deploy needs TP x PP = GPUs); when
    PP does not divide the GPU count, PP falls back to 1. The notice says what changed, or None."""
    if tp * pp == gpus:
        return tp, pp, None
    new_pp = pp if gpus % pp == 0 else 1
    new_tp = gpus // new_pp
    if tp == 1 and pp == new_pp:
        return new_tp, new_pp, None          # TP left at its default: it simply follows the GPU count
    why = (f"pipeline parallel {pp} does not divide {count(gpus, 'GPU')}, so PP is 1 and " if new_pp != pp
           else "tensor parallel follows GPUs / pipeline parallel: ")
    return new_tp, new_pp, (f"GPUs = {gpus} but tensor parallel {tp} x pipeline parallel {pp} = {tp * pp}; the GPU "
                            f"count wins: {why}planning TP {new_tp} x PP {new_pp}. To plan another split, set "
                            "GPUs to TP x PP.")


def runtime_inputs(container: Any, gpus: int = 1) -> dict[str, Any]:
    """Runtime and its options; tensor parallel follows ``gpus`` / pipeline parallel
    (:func:`parallel_split`), with a notice when the link or the inputs disagreed."""
    runtime = container.radio("Runtime", state.RUNTIMES, **state.bound("runtime"), horizontal=True,
                              help="vLLM (paged), transformers (plain generate) or the ideal minimum")
    return {"runtime": runtime, **runtime_options(container, runtime, gpus)}


def runtime_options(container: Any, runtime: str, gpus: int = 1) -> dict[str, Any]:
    """The "Parallelism and vLLM options" expander (the vLLM ones when ``runtime``'s engine takes them:
    kvcalc.scenarios.takes_vllm_options), shared by the Planner, GPU fit and Compare so the same link gives
    the same options on each."""
    out: dict[str, Any] = {}
    with container.expander("Parallelism and vLLM options", expanded=False):
        c1, c2 = st.columns(2)
        if splits_tensors(runtime):              # TP follows GPUs / PP (transformers splits layers only)
            now_tp, now_pp = (_current_int(k) for k in ("tp", "pp"))
            want_tp, want_pp, note = parallel_split(gpus, now_tp, now_pp)
            from_link = "tp" not in st.session_state and "tp" in st.query_params
            if (want_tp, want_pp) != (now_tp, now_pp):
                state.override(("tp", want_tp), ("pp", want_pp))
            if note and (from_link or want_pp != now_pp):      # TP typed nowhere else: it just follows
                container.warning(md(note), icon="⚠️")
        # no value=: the default is min_value (1), and a default beside state.override's Session State write
        # makes Streamlit log a warning with its stack ('created with a default value but also had its value set')
        tp = int(c1.number_input("Tensor parallel (= GPUs / PP)", min_value=1, max_value=state.MAX_GPUS_UI,
                                 **state.bound("tp"), disabled=True,
                                 help="Follows the GPU count: set GPUs and pipeline parallel."))
        pp = int(c2.number_input("Pipeline parallel", min_value=1, max_value=state.MAX_GPUS_UI,
                                 **state.bound("pp")))
        out["parallel"] = (tp, pp)
        if takes_vllm_options(runtime):
            # vLLM's declared options (kvcalc.vllm.options.DECLARATIONS), then the ones the page composes
            out.update(engine_inputs.set_values(runtime, engine_inputs.draw_options(runtime)))
            out.update(_vllm_composed_inputs())
    out.update(engine_inputs.engine_inputs(container, runtime))      # SGLang / TensorRT-LLM / llama.cpp (issue 16)
    return out


def _vllm_composed_inputs() -> dict[str, Any]:
    """vLLM's speculative decoding and LoRA, as plan options: options the page composes from two widgets each
    (``--speculative-config`` from its method and token count, ``--enable-lora`` from its slots and rank)."""
    out: dict[str, Any] = {}
    c1, c2 = st.columns(2)
    method = c1.selectbox("Speculative method", state.SPEC_METHODS, **state.bound("spec"),
                          help="--speculative-config method: MTP / EAGLE add drafter KV layers")
    tokens = int(c2.number_input("num_speculative_tokens", min_value=1, max_value=64, value=1,
                                 **state.bound("spec_tokens"), disabled=method == "none"))
    if method != "none":
        out["speculative_config"] = {"method": method, "num_speculative_tokens": tokens}
    c1, c2 = st.columns(2)
    loras = int(c1.number_input("max_loras (0 = LoRA off)", min_value=0, max_value=state.MAX_LORAS_UI, value=0,
                                **state.bound("loras"), help="--enable-lora --max-loras: adapter slots per batch"))
    rank = int(c2.selectbox("max_lora_rank", state.LORA_RANKS, index=state.LORA_RANKS.index(16),
                            **state.bound("lora_rank"), disabled=loras == 0))
    if loras:
        out["lora"] = {"max_loras": loras, "max_lora_rank": rank}
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


def _current_int(key: str) -> int:
    """A bound number widget's value before it is drawn: this session's, else the link's, else 1."""
    v = st.session_state.get(key, st.query_params.get(key, 1))
    try:
        return max(1, int(v))
    except (TypeError, ValueError):
        return 1


def deployment_inputs(container: Any, fallback: bool = False) -> tuple[ModelChoice, dict[str, Any], int, int]:
    """The sidebar every planning page shares: model, GPU, batch x context, dtypes, runtime.
    Returns the loaded model, kvcalc.plan options, batch and context (``fallback``: :func:`model_inputs`)."""
    choice = model_inputs(container, fallback)
    gpu = gpu_inputs(container)
    batch, ctx = workload_inputs(container)
    dtypes = dtype_inputs(container)
    runtime = runtime_inputs(container, gpu["gpus"])
    return choice, plan_options(gpu, dtypes, runtime), batch, ctx


def _widget_default(key: str) -> Any:
    """The value widget ``key`` takes when the link does not set it (its ``value=`` / ``default=``), read from
    Streamlit's widget metadata (private API: a KeyError when it moved, and the caller keeps the value)."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    inner = get_session_state()._state  # noqa: SLF001
    widget_id = inner._key_id_mapper.get_id_from_key(key)  # noqa: SLF001
    meta = inner._new_widget_state.widget_metadata.get(widget_id) if widget_id else None  # noqa: SLF001
    if meta is None:
        raise KeyError(key)
    return meta.deserializer(None)


def _link_text(value: Any) -> list[str]:
    """A widget value as the link writes it (a multiselect: one entry per item; a toggle: true / false)."""
    items = value if isinstance(value, list | tuple) else [value]
    return [str(v).lower() if isinstance(v, bool) else str(v) for v in items]


def unlinked_values(page: str) -> list[tuple[str, str]]:
    """(key, value) of every bound input of ``page`` whose widget holds a value other than its default that the
    address bar lacks: one the page set before the widget's first draw (carried over from another page,
    seeded by Compare), which Streamlit 1.67 never writes into the URL."""
    out: list[tuple[str, str]] = []
    for key in state.page_keys(page):
        if state.SCHEMA[key].url_only or key in st.query_params or key not in st.session_state:
            continue
        value = st.session_state[key]
        try:
            if value == _widget_default(key):
                continue
        except Exception:  # noqa: BLE001 - widget not drawn this run, or the private API moved: keep the value
            pass
        if value is None or value == []:
            continue
        out += [(key, v) for v in _link_text(value)]
    return out


def share_link(page: str, page_path: str = "") -> str:
    """The link of this exact view: the address bar's parameters (dashboard.state.share_link) and the inputs it
    lacks (:func:`unlinked_values`), so a link opened in a fresh browser shows the same numbers."""
    link = state.share_link(page_path)
    extra = unlinked_values(page)
    if not extra:
        return link
    return link + ("&" if "?" in link else "?") + urlencode(extra)


def share_box(page: str, page_path: str = "", container: Any = None) -> None:
    """The "Copy share link" control (:func:`share_link`, with a copy button); drawn in ``container``
    (default: the sidebar)."""
    box = st.sidebar if container is None else container
    box.markdown("**Copy share link**")
    box.code(share_link(page, page_path) or "(open the app in a browser to get a link)", language=None,
             wrap_lines=True)
