"""The How it works page: the KV-cache formula, what each attention design and cache dtype changes, with
the selected model's own numbers (all computed by kvcalc), and where the figures and bundled data come from."""
from __future__ import annotations

import csv
import os
from collections import Counter
from typing import Any
from urllib.parse import quote

import streamlit as st

import kvcalc
from kvcalc.catalog import CONFIG_DIR, DATA_DIR, bundled_config, find_entry
from kvcalc.dtypes import DTYPES, get_dtype
from kvcalc.engines import get_engine, names
from kvcalc.errors import KVCalcError
from kvcalc.spec import ModelSpec
from kvcalc.units import human_bytes
from kvcalc.variants import VARIANTS, apply_variant
from kvcalc.vllm import DEFAULT_BLOCK_SIZE

from . import engine_rules, inputs, page, state
from .text import count, md, plain, safe_rows

MLA_EXAMPLE = "deepseek-ai/DeepSeek-V2-Lite"
QUANT_DTYPES = ("float32", "bfloat16", "float16", "fp8_e4m3", "int8", "int4", "int2")
LINKS = {
    "transformers_cache": "https://github.com/huggingface/transformers/blob/main/src/transformers/cache_utils.py",
    "vllm_spec": "https://github.com/vllm-project/vllm/blob/main/vllm/v1/kv_cache_interface.py",
    "vllm_utils": "https://github.com/vllm-project/vllm/blob/main/vllm/v1/core/kv_cache_utils.py",
    "vllm_worker": "https://github.com/vllm-project/vllm/blob/main/vllm/v1/worker/gpu_worker.py",
}


def _fmt(n: int) -> str:
    return f"{n:,}"


def _ratio(x: int, base: int) -> str:
    return f"{x / base:.3g}x" if base > 0 else "-"


def per_token(spec: ModelSpec, kv_dtype: str | None = None) -> int:
    """Ideal bytes one more token adds at batch 1 (below every window), through kvcalc."""
    return kvcalc.kv_cache(spec, batch=1, context=1, kv_dtype=kv_dtype).bytes_per_token


def at_context(spec: ModelSpec, context: int, kv_dtype: str | None = None, runtime: str = "ideal") -> int:
    return kvcalc.kv_cache(spec, batch=1, context=context, kv_dtype=kv_dtype, runtime=runtime).total_bytes


def geometry_groups(spec: ModelSpec) -> list[tuple[int, Any]]:
    """(layer count, attention cache) for each distinct self-attention geometry, most frequent first."""
    c = Counter(a for l in spec.layers if l.kind not in ("shared", "none") for a in l.attention if a.source == "self")
    return sorted(((n, a) for a, n in c.items()), key=lambda t: -t[0])


def tex_int(n: int) -> str:
    """1,234 as LaTeX (a bare comma in math mode is punctuation with a space after it)."""
    return f"{n:,}".replace(",", "{,}")


def latent_split(config: dict[str, Any], latent_dim: int) -> str:
    """'512 + 64' (kv_lora_rank + qk_rope_head_dim) when the config states both and they add up."""
    r, k = config.get("kv_lora_rank"), config.get("qk_rope_head_dim")
    if isinstance(r, int) and isinstance(k, int) and r + k == latent_dim:
        return f"{r} + {k}"
    return str(latent_dim)


def formula_terms(spec: ModelSpec, elem_bytes: float, config: dict[str, Any] | None = None) -> list[str]:
    """LaTeX terms 'L x heads x (dk + dv) x s' per geometry group (the model's own numbers)."""
    terms = []
    for n, a in geometry_groups(spec):
        s = f"{elem_bytes:g}"
        if a.latent_dim:
            extra = f" + {a.indexer_dim}" if a.indexer_dim else ""
            terms.append(rf"{n} \times ({latent_split(config or {}, a.latent_dim)}{extra}) \times {s}")
        else:
            win = rf"\ [\text{{window }} {a.window:,}]" if a.window else ""
            terms.append(rf"{n} \times {a.kv_heads} \times ({a.k_head_dim} + {a.v_head_dim}) \times {s}{win}")
    return terms


def variant_rows(spec: ModelSpec, context: int, gqa_heads: int, window: int) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per attention design applied to this model (kvcalc.variants), and one note per refusal."""
    designs: list[tuple[str, str, dict[str, Any]]] = [("as configured", "as configured", {})]
    if "full" in VARIANTS and any(a.window for l in spec.layers for a in l.attention):
        designs.append(("no window: every layer full attention", "full", {}))
    designs += [("MHA", "mha", {}), (f"GQA, {gqa_heads} KV heads", "gqa", {"kv_heads": gqa_heads}), ("MQA", "mqa", {}),
               (f"sliding window {window:,}, every layer", "sliding", {"window": window, "pattern": "all"}),
               (f"sliding window {window:,}, 5 local : 1 global", "sliding", {"window": window, "pattern": "5:1"})]
    base = at_context(spec, context)
    rows, notes = [], []
    for name, variant, kw in designs:
        try:
            v = apply_variant(spec, variant, **kw)
            heads = sorted({a.kv_heads if not a.latent_dim else 1 for l in v.layers for a in l.attention
                            if a.source == "self"})
            total = at_context(v, context)
            rows.append({"attention": name, "KV heads per layer": ", ".join(map(str, heads)) or "-",
                         "bytes / token (below the window)": per_token(v),
                         f"bytes at {count(context, 'token')}": total, "vs as configured": _ratio(total, base)})
        except KVCalcError as e:
            notes.append(f"{name}: {e}")
    return rows, notes


def mla_numbers(spec: ModelSpec) -> tuple[int, int]:
    """(latent bytes / token as configured, expanded per-head K/V bytes / token) for an MLA model."""
    return per_token(spec), per_token(apply_variant(spec, "mha"))


def dtype_rows(spec: ModelSpec, context: int) -> tuple[list[dict[str, Any]], list[str]]:
    model_dtype = kvcalc.kv_cache(spec, batch=1, context=1).kv_dtype
    base = at_context(spec, context)
    rows, notes = [], []
    for d in QUANT_DTYPES:
        try:
            total = at_context(spec, context, kv_dtype=d)
            rows.append({"KV dtype": d + (" (model dtype)" if d == model_dtype else ""),
                         "bytes / token": per_token(spec, d), f"bytes at {count(context, 'token')}": total,
                         "vs model dtype": _ratio(total, base)})
        except KVCalcError as e:
            notes.append(f"{d}: {e}")
    return rows, notes


_UNPOOLED = tuple(n for n in names() if not get_engine(n).pooled)
"""The runtimes whose cache is per-layer tensors (ideal, transformers, vLLM), not an engine's token pool."""


def runtime_rows(spec: ModelSpec, context: int) -> tuple[list[dict[str, Any]], list[str]]:
    rows, notes = [], []
    base = None
    for rt in _UNPOOLED:
        try:
            total = at_context(spec, context, runtime=rt)
        except KVCalcError as e:
            notes.append(f"{rt}: {e}")
            continue
        base = total if base is None else base
        rows.append({"runtime": rt, f"bytes at {count(context, 'token')} (batch 1)": total,
                     "vs ideal": _ratio(total, base)})
    return rows, notes


def sources_row(file: str) -> str | None:
    """This config's row of data/configs/SOURCES.md (its provenance), or None."""
    try:
        with open(os.path.join(CONFIG_DIR, "SOURCES.md"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and file in cells[1]:
            return f"source: {cells[3]}" + (f"; notes: {cells[4]}" if cells[4] else "")
    return None


def int_groups() -> tuple[int, int]:
    """(values per group, overhead bytes per group) of the integer KV dtypes: the defaults of kvcalc's
    dtype table (kvcalc.dtypes.DTYPES; int8 / int4 / int2 share them)."""
    d = next(d for d in DTYPES.values() if d.group_size)
    return d.group_size, d.group_overhead_bytes


def _csv_rows(name: str, columns: list[str]) -> list[dict[str, str]]:
    with open(os.path.join(DATA_DIR, name), encoding="utf-8", newline="") as f:
        return [{c: r.get(c, "") for c in columns} for r in csv.DictReader(f)]


def _notes(notes: list[str]) -> None:
    for n in notes:
        st.info(f"Not applicable to this model: {md(n)}")


def _sidebar() -> tuple[inputs.ModelChoice, int, int, int]:
    sb = st.sidebar
    choice = inputs.model_inputs(sb)
    ctx = int(sb.number_input("Example context (tokens)", min_value=1, max_value=state.MAX_CONTEXT_UI, value=32768,
                              step=1024, **state.bound("ctx"), help="The context the tables below use."))
    kv = int(sb.number_input("GQA example: KV heads", min_value=1, max_value=1024, value=4, **state.bound("attn_kv")))
    window = int(sb.number_input("Sliding example: window (tokens)", min_value=1, max_value=state.MAX_CONTEXT_UI,
                                 value=4096, **state.bound("attn_window")))
    return choice, ctx, kv, window


def _formula(spec: ModelSpec, config: dict[str, Any], name: str, ctx: int) -> None:
    st.header("The formula")
    st.markdown("Every attention layer caches, for every token of every sequence, a key and a value vector per KV "
                "head. Summed over layers:")
    st.latex(r"\text{KV bytes} = B \times \sum_{\ell=1}^{L} T_\ell \times n_{kv,\ell} \times "
             r"(d_{k,\ell} + d_{v,\ell}) \times s")
    st.markdown(r"$B$ sequences, $T_\ell$ tokens layer $\ell$ holds (the context $T$; $\min(T, W)$ for a sliding "
                r"window $W$), $n_{kv}$ KV heads, $d_k$ / $d_v$ key / value head dims, $s$ bytes per element "
                f"({get_dtype('bfloat16').bytes_per_element:g} for bf16 / fp16).")
    r = kvcalc.kv_cache(spec, batch=1, context=1)
    s = get_dtype(r.kv_dtype).bytes_per_element
    terms = formula_terms(spec, s, config)
    st.markdown(f"**{md(name)}** ({md(spec.model_type)}, {count(spec.num_layers, 'layer')}, cache in {r.kv_dtype}), "
                "bytes per token at batch 1:")
    if terms:
        st.latex(" + ".join(terms) + rf" = {tex_int(r.bytes_per_token)}\ \text{{bytes / token}}")
    kinds = ", ".join(f"{n} {k}" for k, n in spec.kinds().items())
    st.caption(f"Layer kinds: {md(kinds)}. Groups of layers with the same cache geometry; MLA layers cache one latent "
               "vector per token instead of per-head K and V.")
    one, at_ctx = r.bytes_per_token, at_context(spec, ctx)
    batch8 = kvcalc.kv_cache(spec, batch=8, context=ctx).total_bytes
    page.metric_grid([("KV bytes / token", human_bytes(one), f"{one:,} bytes"),          # GiB = 2**30 bytes
                      (f"KV at {count(ctx, 'token')}, batch 1", human_bytes(at_ctx), f"{at_ctx:,} bytes"),
                      (f"KV at {count(ctx, 'token')}, batch 8", human_bytes(batch8), f"{batch8:,} bytes")])
    if spec.max_position_embeddings and ctx > spec.max_position_embeddings:
        st.caption(f"The example context {ctx:,} is beyond this model's maximum of "
                   f"{spec.max_position_embeddings:,} tokens: the figures show the arithmetic only.")
    if any(a.source == "cross" for l in spec.layers for a in l.attention):
        st.caption("Cross-attention layers also cache K and V of the encoder (or image) tokens: fixed by the "
                   "encoder length, not by the generated context.")
    if any(l.states for l in spec.layers):
        st.caption("Recurrent layers (Mamba / linear attention / short conv) hold a fixed-size state per sequence "
                   "instead of a growing cache.")


def _attention(spec: ModelSpec, ctx: int, gqa: int, window: int) -> None:
    st.header("Attention designs: MHA, GQA, MQA, sliding window")
    st.markdown(
        "- **MHA** (multi-head): one KV head per query head, the most cache.\n"
        "- **GQA** (grouped-query): query heads share fewer KV heads (`num_key_value_heads`); the cache shrinks by "
        "query heads / KV heads.\n"
        "- **MQA** (multi-query): one KV head for all query heads.\n"
        "- **Sliding window** `W`: a layer keeps only the last `W` tokens, so its cache stops growing at `W` "
        "(Mistral 7B v0.1: every layer; Gemma 3: 5 local layers per global one).\n\n"
        "The same model with each design (kvcalc.variants.apply_variant; layer count, head dims and dtype kept), "
        "batch 1:")
    rows, notes = variant_rows(spec, ctx, gqa, window)
    if rows:
        st.dataframe(safe_rows(rows), hide_index=True, width="stretch")
    _notes(notes)
    st.caption("Bytes per token count a token while every window still has room, so a sliding window saves "
               "only past the window; the column at the example context shows it.")


def _mla(spec: ModelSpec, name: str) -> None:
    st.header("MLA: multi-head latent attention")
    st.markdown("DeepSeek V2 / V3 and Kimi K2 cache one compressed latent per token and layer "
                "(`kv_lora_rank`) plus a shared RoPE key (`qk_rope_head_dim`), and expand it to per-head K and V "
                "inside attention. Expanded, each head would cache K (`qk_nope_head_dim + qk_rope_head_dim`) and "
                "V (`v_head_dim`).")
    mla = any(a.latent_dim for l in spec.layers for a in l.attention)
    example, ex_name = spec, name
    if not mla:
        try:
            entry = find_entry(MLA_EXAMPLE)
            example = kvcalc.read_spec(bundled_config(MLA_EXAMPLE))
            ex_name = entry.display_name if entry else MLA_EXAMPLE
        except KVCalcError as e:
            st.info(f"MLA example unavailable: {md(e)}")
            return
        st.caption(f"{md(name)} does not use MLA; the numbers below are for the bundled {md(ex_name)}.")
    try:
        latent, expanded = mla_numbers(example)
    except KVCalcError as e:
        st.info(f"MLA comparison unavailable: {md(e)}")
        return
    a = next(a for l in example.layers for a in l.attention if a.latent_dim)
    page.metric_grid([
        (f"{md(ex_name)}: latent bytes / token", human_bytes(latent),
         f"{latent:,} bytes: {a.latent_dim} latent elements per layer" + (f" + {a.indexer_dim} indexer"
                                                                          if a.indexer_dim else "")),
        ("expanded per-head K/V bytes / token", human_bytes(expanded),
         f"{expanded:,} bytes: {a.kv_heads} heads x ({a.k_head_dim} + {a.v_head_dim}) per layer"),
        ("latent saves", _ratio(expanded, latent), None)])


def _dtypes(spec: ModelSpec, ctx: int) -> None:
    st.header("Quantized and fp8 KV caches")
    group, overhead = int_groups()
    st.markdown("A narrower cache dtype scales the cache by its width. fp8 (vLLM `--kv-cache-dtype fp8`) keeps one "
                "scale per tensor, which does not grow with tokens. Integer caches (transformers' quantized caches) "
                f"store {overhead} bytes (an fp16 scale and zero point) per group of {group} values, so a head "
                "vector of $n$ elements at $b$ bits takes")
    st.latex(rf"\lceil n b / 8 \rceil + {overhead} \lceil n / {group} \rceil\ \text{{bytes}}")
    rows, notes = dtype_rows(spec, ctx)
    if rows:
        st.dataframe(safe_rows(rows), hide_index=True, width="stretch")
    _notes(notes)


def _runtimes(spec: ModelSpec, ctx: int) -> None:
    st.header("Runtimes")
    st.markdown(
        "- **ideal**: the least the cache must hold (the formula above).\n"
        "- **transformers**: what the default `DynamicCache` pins: right after a prefill a sliding layer still "
        "holds the whole prompt; recurrent states are float32; some architectures cache K/V repeated per query "
        "head.\n"
        f"- **vllm**: paged blocks of {DEFAULT_BLOCK_SIZE} tokens per layer (vLLM's default `block_size`; a "
        "request's last block is rounded up), sliding layers keep `W - 1 + max_num_batched_tokens` tokens of "
        "blocks.")
    rows, notes = runtime_rows(spec, ctx)
    if rows:
        st.dataframe(safe_rows(rows), hide_index=True, width="stretch")
    _notes(notes)


def coverage_line() -> str:
    """The coverage count, from data/coverage.csv (written by tests/oracles/coverage_table.py with
    docs/architectures.md, from transformers' own measurements of every text-generation type)."""
    c = {r["count"]: int(r["value"]) for r in _csv_rows("coverage.csv", ["count", "value"])}
    if not {"both_exact", "in_scope", "kv_exact", "measured", "params_exact"} <= c.keys():
        return "- **coverage**: data/coverage.csv is unavailable."
    return (f"- **coverage, by enumeration**: {c['both_exact']:,} of {c['in_scope']:,} text-generation architectures "
            f"in transformers 5.24 verified exactly (KV cache per layer and parameter count); KV cache alone "
            f"{c['kv_exact']:,} of {c['measured']:,} measured types, parameters {c['params_exact']:,}; every type "
            "and the reason for each miss in `docs/architectures.md`.")


def _provenance(choice: inputs.ModelChoice) -> None:
    st.header("Where the numbers come from")
    st.markdown(
        "- **transformers** runtime: checked tensor by tensor against the caches real tiny models of each "
        "architecture build in transformers (`tests/reference/test_groundtruth_transformers.py` sums the storage of "
        f"every tensor in the returned cache and compares per layer); cache classes in "
        f"[transformers `cache_utils.py`]({LINKS['transformers_cache']}).\n"
        "- **vllm** runtime: vLLM v1's allocation rules restated in integer arithmetic, each with the vLLM file "
        "it comes from in the docstrings of `kvcalc/vllm/`: "
        f"[`kv_cache_interface.py`]({LINKS['vllm_spec']}) (page sizes, blocks per request), "
        f"[`kv_cache_utils.py`]({LINKS['vllm_utils']}) (groups, number of blocks), "
        f"[`gpu_worker.py`]({LINKS['vllm_worker']}) (the memory budget).\n"
        "- **ideal** runtime and the what-if variants: the formula above, per layer (`kvcalc/kv.py`, "
        "`kvcalc/variants.py`).\n" + coverage_line())
    st.subheader("Bundled data")
    entry = find_entry(choice.name) if choice.origin == "bundled" else None
    if entry is not None:
        row = sources_row(entry.file)
        st.markdown(f"**{entry.display_name}**: config `data/configs/{entry.file}`, a verbatim copy of "
                    f"[{entry.hub_id}'s config.json](https://huggingface.co/{entry.hub_id}/blob/main/config.json)"
                    + (f" ({row})" if row else "") + f". Parameters: {_fmt(entry.params) if entry.params else '-'} "
                    f"({entry.params_source}).")
    elif choice.origin != "paste" and choice.name:
        st.markdown(f"**{md(choice.name)}**: fetched from the Hub, [config.json](https://huggingface.co/"
                    f"{quote(plain(choice.name), safe='/')}/blob/main/config.json).")
    st.markdown("- `data/configs/SOURCES.md`: where each bundled config.json was found, and how it was checked.\n"
                "- `data/gpus.csv`: GPU memory as nvidia-smi reports it, with a `source` column per card.\n"
                "- `data/params.csv`: published parameter totals (Hub safetensors), with a `source` column.")
    with st.expander("data/configs/SOURCES.md"):
        try:
            with open(os.path.join(CONFIG_DIR, "SOURCES.md"), encoding="utf-8") as f:
                st.markdown(f.read())
        except OSError as e:
            st.info(f"SOURCES.md unavailable: {md(e)}")
    with st.expander("data/gpus.csv (memory and source per GPU)"):
        st.dataframe(safe_rows(_csv_rows("gpus.csv", ["name", "memory_mib", "source"])), hide_index=True,
                     width="stretch")
    with st.expander("data/params.csv (parameter totals and their sources)"):
        st.dataframe(safe_rows(_csv_rows("params.csv", ["model", "total_params", "source"])), hide_index=True,
                     width="stretch")


def render() -> None:
    page.start("How it works", state.HOW_IT_WORKS)
    st.caption("The arithmetic behind every number in this app, with the selected model's own figures.")
    choice, ctx, gqa, window = _sidebar()
    inputs.share_box(state.HOW_IT_WORKS, "How_it_works")
    if not page.model_ready(choice):
        _provenance(choice)
        return
    entry, config = find_entry(choice.name), choice.config
    name = entry.display_name if entry else choice.name
    if config is None:
        return
    try:
        spec = kvcalc.read_spec(config)
        _formula(spec, config, name, ctx)
    except KVCalcError as e:
        st.error(f"Cannot read this config: {md(e)}")
        _provenance(choice)
        return
    _attention(spec, ctx, gqa, window)
    _mla(spec, name)
    _dtypes(spec, ctx)
    _runtimes(spec, ctx)
    engine_rules.render()          # SGLang, TensorRT-LLM, llama.cpp (issue 16)
    _provenance(choice)
