"""KV Cache Planner - Streamlit entry point (minimal page; the full dashboard is built on top of kvcalc)."""
from __future__ import annotations

import json
import os

import streamlit as st

import kvcalc
from kvcalc.units import human_bytes

CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "configs")

st.set_page_config(page_title="KV Cache Planner", layout="wide")
st.title("KV Cache Planner")

names = sorted(f[:-5] for f in os.listdir(CONFIG_DIR) if f.endswith(".json"))
choice = st.selectbox("Model (bundled config)", names, index=names.index("meta-llama__Llama-3.1-8B")
                      if "meta-llama__Llama-3.1-8B" in names else 0, key="model")
pasted = st.text_area("...or paste a config.json", key="pasted", height=100)
col1, col2, col3 = st.columns(3)
batch = col1.number_input("Batch", min_value=1, max_value=kvcalc.kv.MAX_BATCH, value=1, key="batch")
context = col2.number_input("Context (tokens)", min_value=1, max_value=kvcalc.kv.MAX_CONTEXT, value=8192,
                            key="context")
runtime = col3.selectbox("Runtime", ["ideal", "transformers"], key="runtime")

try:
    if pasted.strip():
        config = json.loads(pasted)
    else:
        with open(os.path.join(CONFIG_DIR, choice + ".json"), encoding="utf-8") as f:
            config = json.load(f)
    result = kvcalc.kv_cache(config, batch=int(batch), context=int(context), runtime=runtime)
except (json.JSONDecodeError, kvcalc.KVCalcError) as e:
    st.error(f"Cannot plan this config: {e}")
    st.stop()

m1, m2 = st.columns(2)
m1.metric("KV cache per token (batch 1)", f"{result.bytes_per_token:,} B")
m2.metric("KV cache total", human_bytes(result.total_bytes), help=f"{result.total_bytes:,} bytes")
for w in result.warnings:
    st.warning(w)
st.dataframe([{"layer": l.index, "kind": l.kind, "tokens": l.tokens, "bytes": l.bytes} for l in result.layers],
             hide_index=True)
