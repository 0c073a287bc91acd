"""llama.cpp's ``-ts`` on the Planner: the ``ll_ts`` link key and its text box (generated from the declaration in
kvcalc.llama_cpp.options), a pasted ``llama-server ... -ts 3,1`` and the split shown per GPU.

Layers per GPU worked by hand from src/llama-model.cpp ``llama_model::load_tensors`` (commit 0c1e57098, quoted in
kvcalc/llama_cpp/split.py): -ts 3,1 gives points 0.75, 1.0 and slot il (33 slots: 32 blocks + output) goes to
GPU 0 while il / 33 < 0.75, i.e. blocks 0..24 (25 blocks); blocks 25..31 and the output layer to GPU 1.
"""
from __future__ import annotations

import pytest
from apptest import PLANNER, paste_launch_line, rerun, run_page

pytest.importorskip("streamlit.testing.v1")

SPLIT_LINE = "-ts 3,1 (--split-mode layer): blocks per GPU 25, 7, output layer on GPU 1"
# Llama-3.1-8B Q8_0 (34 B per 32 weights): one block 231,768,064 B; 25 blocks 5,794,201,600 B = 5.40 GiB; KV 25
# blocks x 8,192 cells x (K + V: 2 x 1,024 x 2 B) = 800 MiB = 0.78 GiB
GPU0 = "GPU 0 = weights 5.40 GiB + KV 0.78 GiB"


def _page_text(at) -> str:
    return "\n".join([*(c.value for c in at.code), *(m.value for m in at.markdown)])


def test_link_round_trip_plans_the_split_and_prints_it() -> None:
    at = run_page(PLANNER, runtime="llama_cpp", ll_ts="3,1", gpus="2", ll_ctx="8192", ll_np="1", ll_gguf="Q8_0",
                  gpu="rtx-4090")
    assert at.text_input(key="ll_ts").value == "3,1"
    text = _page_text(at)
    assert SPLIT_LINE in text and GPU0 in text
    assert "llama-server -m /path/to/Llama-3.1-8B-Q8_0.gguf -c 8192 -np 1 -ts 3,1" in [c.value for c in at.code]
    assert any(c.value.startswith("?") and "ll_ts=3%2C1" in c.value for c in at.code)      # the page's link
    at.text_input(key="ll_ts").set_value("1,1")
    rerun(at)
    # -ts 1,1: points 0.5, 1.0; il / 33 < 0.5 for il <= 16: 17 blocks on GPU 0, 15 + output on GPU 1
    assert "blocks per GPU 17, 15, output layer on GPU 1" in _page_text(at)


@pytest.mark.parametrize("bad", ["-1,1", "1,x", ",".join(["1"] * 16)])
def test_bad_link_values_are_dropped_with_the_reason(bad: str) -> None:
    from dashboard import state

    keys = state.page_keys(state.PLANNER)
    assert state.problems({"ll_ts": ["3/1"]}, keys) == ([], [])
    drop, notes = state.problems({"ll_ts": [bad]}, keys)
    assert drop == ["ll_ts"] and "using the default" in notes[0]


def test_pasted_llama_server_line_sets_the_split_and_the_gpu_count() -> None:
    at = paste_launch_line("llama-server -hf unsloth/Llama-3.1-8B-Instruct-GGUF:Q8_0 -c 8192 -np 1 --tensor-split 3/1")
    assert at.radio(key="runtime").value == "llama_cpp"
    assert at.text_input(key="ll_ts").value == "3,1" and at.query_params["ll_ts"] == "3,1"
    assert at.number_input(key="gpus").value == 2                  # one -ts proportion per GPU
    assert SPLIT_LINE in _page_text(at)
