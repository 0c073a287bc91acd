"""Pasted launch lines whose values lie outside a widget's range (AppTest, the Planner's paste box).

A value the engine accepts is kept and planned (vLLM's ``gpu_memory_utilization`` and TensorRT-LLM's
``free_gpu_memory_fraction`` are any share above 0 and at most 1: vllm/config/cache.py, tensorrt_llm
KvCacheConfig); a value past the Planner's own bounds (64 GPUs, 16,777,216 tokens, 65,536 sequences) is
reported with the range and not used. Before, the first crashed the page (StreamlitValueBelowMinError) and
the second vanished without a word.
"""
from __future__ import annotations

import pytest
from apptest import PLANNER, run_page
from apptest import caption_text as note
from apptest import paste_launch_line as paste

pytest.importorskip("streamlit.testing.v1")
LLAMA = "meta-llama/Llama-3.1-8B"

def test_a_vllm_utilization_below_the_old_slider_is_kept_and_planned():
    at = paste(f"vllm serve {LLAMA} --gpu-memory-utilization 0.01")
    assert at.slider(key="util").value == pytest.approx(0.01)
    assert at.query_params["util"] in ("0.01", ["0.01"])
    # 1 % of an 80 GB H100 is 0.8 GiB: less than Llama-3.1-8B's 14.96 GiB of bf16 weights
    assert at.error and at.error[0].value.startswith("**Does not fit")
    fresh = run_page(PLANNER, util="0.01")                     # the share link keeps it
    assert fresh.slider(key="util").value == pytest.approx(0.01)
    assert not any("link were not usable" in w.value for w in fresh.warning)


def test_a_trtllm_free_fraction_below_the_old_slider_is_kept():
    at = paste(f"trtllm-serve {LLAMA} --kv_cache_free_gpu_memory_fraction 0.001")
    assert at.radio(key="runtime").value == "tensorrt_llm"
    assert at.slider(key="trt_frac").value == pytest.approx(0.001)
    assert at.query_params["trt_frac"] in ("0.001", ["0.001"])


@pytest.mark.parametrize("line,reported", [
    (f"vllm serve {LLAMA} -tp 100000000", "100,000,000 GPUs: must be between 1 and 64"),
    (f"python -m sglang.launch_server --model-path {LLAMA} --tp 1000000", "1,000,000 GPUs: must be between 1 and 64"),
    # the widget's range is vLLM's own (kvcalc.limits.MAX_CONTEXT = 2**30 tokens; 0 = not set)
    (f"vllm serve {LLAMA} --max-model-len 10T", "--max-model-len 10995116277760: must be between 0 and "
                                              "1,073,741,824"),
    # past vLLM's own bound (kvcalc.vllm.options: 2**20 requests) the line is refused, naming that range
    (f"vllm serve {LLAMA} --max-num-seqs 99999999999", "--max-num-seqs has an invalid value '99999999999': "
                                                      "must be at least 1 and at most 1,048,576"),
])
def test_an_out_of_range_pasted_value_is_reported_with_the_range(line: str, reported: str):
    at = paste(line)
    assert reported in note(at) and ("not used" in note(at) or "invalid value" in reported)
    # 10T = 10 x 2**40 (vLLM's human_readable_int: binary T) tokens; the widgets keep their defaults
    assert at.number_input(key="gpus").value == 1 and at.number_input(key="tp").value == 1
    assert at.number_input(key="ctx").value == 8192
