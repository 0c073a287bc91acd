"""Compare's KV dtype under llama.cpp: the scenario's dtype is its -ctk / -ctv cache type where llama.cpp has one
(kvcalc.llama_cpp.options.cache_type), and a typed refusal naming llama.cpp's types where it has none (fp8).

References: llama.cpp ``common/arg.cpp`` ``kv_cache_types`` = F32, F16, BF16, Q8_0, Q4_0, Q4_1, IQ4_NL, Q5_0,
Q5_1 (no fp8 type); ``ggml/src/ggml.c`` ``type_traits``: F32 4 bytes an element, F16 and BF16 2 bytes each.
Llama-3.1-8B: 32 layers x 8 KV heads x (128 + 128) head dims = 65,536 K and V elements a token.
"""
from __future__ import annotations

import pytest

from kvcalc.catalog import bundled_config
from kvcalc.errors import InputError, UnsupportedError
from kvcalc.llama_cpp.options import KV_CACHE_TYPES, NoCacheType, cache_type
from kvcalc.scenarios import ComparePicks, Scenario, compare, scenario_options

LLAMA = "meta-llama/Llama-3.1-8B"
ELEMENTS = 32 * 8 * (128 + 128)
LLAMA_CPP_TYPES = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")   # common/arg.cpp


@pytest.mark.parametrize(("dtype", "expected"), [
    ("bfloat16", "bf16"), ("bf16", "bf16"), ("float16", "f16"), ("fp16", "f16"), ("float32", "f32"),
    ("fp32", "f32"), ("q8_0", "q8_0"), ("Q4_0", "q4_0")])
def test_dtypes_llama_cpp_stores_as_they_are(dtype, expected):
    assert cache_type(dtype) == expected


@pytest.mark.parametrize("dtype", ["fp8", "fp8_e4m3", "fp8_e5m2", "int8", "int4", "int2"])
def test_no_such_cache_type_is_a_typed_refusal_naming_llama_cpp_s_types(dtype):
    with pytest.raises(NoCacheType) as e:
        cache_type(dtype)
    assert isinstance(e.value, UnsupportedError)          # as vLLM / SGLang / TensorRT-LLM refuse a KV dtype
    assert "llama.cpp has no " in str(e.value) and "-ctk / -ctv take " + ", ".join(LLAMA_CPP_TYPES) in str(e.value)
    if dtype.startswith("fp8"):
        assert str(e.value).startswith("llama.cpp has no fp8 KV-cache type")
    assert KV_CACHE_TYPES == LLAMA_CPP_TYPES


def test_int8_points_at_q8_0_without_pretending_it_is_the_same():
    with pytest.raises(NoCacheType) as e:
        cache_type("int8")
    assert e.value.nearest == "q8_0" and "is not kvcalc's int8" in str(e.value)


def test_an_unknown_dtype_stays_an_input_error():
    with pytest.raises(InputError) as e:
        cache_type("int3")
    assert not isinstance(e.value, NoCacheType)


def test_scenario_options_map_the_kv_dtype_over_the_options_cache_types():
    gpu = {"gpu": "rtx-4090", "gpus": 1}
    shared = {"engine": {"cache_type_k": "q8_0", "cache_type_v": "q8_0"}}
    o = scenario_options(Scenario(LLAMA, "as configured", "bfloat16", "llama_cpp"), gpu, shared)
    assert (o["cache_type_k"], o["cache_type_v"]) == ("bf16", "bf16") and "kv_dtype" not in o
    o = scenario_options(Scenario(LLAMA, "as configured", "auto", "llama_cpp"), gpu, shared)
    assert (o["cache_type_k"], o["cache_type_v"]) == ("q8_0", "q8_0")            # auto: the options' own
    o = scenario_options(Scenario(LLAMA, "as configured", "bfloat16", "vllm"), gpu)
    assert o["kv_dtype"] == "bfloat16" and "cache_type_k" not in o               # other engines unchanged


def test_compare_keeps_llama_cpp_for_a_16_or_32_bit_kv_dtype_and_lists_fp8_as_not_compared():
    assert bundled_config(LLAMA)["max_position_embeddings"] == 131_072
    picks = ComparePicks((LLAMA,), ("as configured",), ("auto", "bfloat16", "float32", "fp8_e4m3"),
                         ("llama_cpp",), {"gpu": "rtx-4090", "gpus": 1})
    v = compare(picks, curve_points=8)
    by = {r.scenario.kvdtype: r for r in v.results}
    assert {k: r.kv_dtype for k, r in by.items()} == {"auto": "f16/f16", "bfloat16": "bf16/bf16",
                                                       "float32": "f32/f32"}
    # bf16 and f16 are both 2 bytes an element: the same cache, the same longest contexts
    assert by["bfloat16"].longest == by["auto"].longest
    assert by["float32"].kv_bytes_per_token == ELEMENTS * 4 and by["bfloat16"].kv_bytes_per_token == ELEMENTS * 2
    t4 = "longest context, 16 GB (Tesla T4 16GB)"
    assert by["float32"].longest[t4] < by["auto"].longest[t4]            # twice the bytes a token
    [(s, lab, why)] = v.not_compared
    assert s.kvdtype == "fp8_e4m3" and lab == "KV fp8_e4m3" and why.startswith("llama.cpp has no fp8 KV-cache type")
    assert v.refused == ((why, ("KV fp8_e4m3",)),)
