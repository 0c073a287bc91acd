"""The Compare page through AppTest: scenarios of every runtime, llama.cpp alone included.

Expected values come from the bundled config.json files read here (their maximum context, layers and
KV heads) and hand arithmetic: K + V per token = layers x KV heads x head dim x 2 (K and V) x 2 bytes (f16).
"""
from __future__ import annotations

import json
import os

import pytest
from apptest import COMPARE, run_page
from paths import ROOT

pytest.importorskip("streamlit.testing.v1")


def _config(hub_id: str) -> dict:
    with open(os.path.join(ROOT, "data", "configs", hub_id.replace("/", "__") + ".json"), encoding="utf-8") as f:
        return json.load(f)


def _f16_kv_per_token(c: dict) -> int:
    head_dim = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    return c["num_hidden_layers"] * c["num_key_value_heads"] * head_dim * 2 * 2


def test_compare_with_llama_cpp_as_its_only_runtime_plans_every_model():
    # used to crash: the cache key was the options as JSON, and llama.cpp's options are a LlamaCppOptions record
    at = run_page(COMPARE, runtimes="llama_cpp")
    assert not at.error
    table = at.dataframe[0].value
    assert list(table["runtime"]) == ["llama_cpp", "llama_cpp"]
    for _, row in table.iterrows():
        c = _config(row["model"])
        assert row["KV bytes / token"] == _f16_kv_per_token(c)
        # on an 80 GB H100 a 4-bit 8B model and 128 Ki f16 cells (16 GiB) fit: the longest context is the
        # model's training context (llama.cpp's -c 0 default: n_ctx_train)
        chosen = next(col for col in table.columns if col.startswith("longest context, chosen: "))
        assert row[chosen] == c["max_position_embeddings"]


def test_compare_with_llama_cpp_and_a_non_default_cache_type_plans():
    # the llama.cpp options record differs from its default (q8_0 cache): still a valid cache key
    at = run_page(COMPARE, runtimes=["llama_cpp", "vllm"], ll_ctk="q8_0", ll_ctv="q8_0", ll_fa="on")
    assert not at.error
    table = at.dataframe[0].value
    assert sorted(set(table["runtime"])) == ["llama_cpp", "vllm"]


def test_a_weights_dtype_applies_to_the_runtimes_that_take_one_and_llama_cpp_is_still_compared():
    # llama.cpp's weights are its GGUF file's (Q4_K_M by default), so a weights dtype does not refuse it: the
    # scenario is planned, a caption says where the dtype applies, and vLLM's weights are the dtype's
    at = run_page(COMPARE, runtimes=["llama_cpp", "vllm"], wdtype="float16")
    assert not at.error
    table = at.dataframe[0].value
    assert sorted(set(table["runtime"])) == ["llama_cpp", "vllm"]
    assert not any("Not compared" in i.value for i in at.info)
    assert any("Weights dtype float16 applies to the other runtimes: llama.cpp reads a GGUF file" in c.value
               for c in at.caption)
