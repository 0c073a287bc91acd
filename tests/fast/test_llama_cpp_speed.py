"""llama.cpp's decode estimate reads the GGUF weights resident on the GPU (issue 24 item 1): with every
layer offloaded (-ngl -1) that is the file's tensor data less token_embd, which llama.cpp keeps in host
memory (src/llama-model.cpp ``load_tensors``: the input layer is always on the CPU)."""
from __future__ import annotations

from paths import load_config

from kvcalc import deploy
from kvcalc.gguf.mixes import gguf_weights
from kvcalc.speed import estimate_speed


def _config() -> dict:
    return load_config("Qwen__Qwen2-7B.json")


def test_decode_reads_the_gguf_weights_on_the_gpu():
    config = _config()
    g = gguf_weights(config, "Q8_0")
    d = deploy(config, runtime="llama_cpp", gguf="Q8_0", gpu="h100-sxm")
    e = estimate_speed(d, 1, 1024)
    assert e.decode_weight_bytes == sum(g.layer_bytes) + g.output_bytes == g.total_bytes - g.input_bytes
    assert e.decode_weight_bytes > 0


def test_fewer_offloaded_layers_read_fewer_weight_bytes():
    config = _config()
    g = gguf_weights(config, "Q8_0")
    d = deploy(config, runtime="llama_cpp", gguf="Q8_0", gpu="h100-sxm", n_gpu_layers=10)
    # -ngl 10 (llama.cpp master, src/llama-model.cpp load_tensors: i_gpu_start = n_layer + 1 - 10): the
    # output layer first, then the last 9 blocks
    assert estimate_speed(d, 1, 1024).decode_weight_bytes == g.output_bytes + sum(g.layer_bytes[-9:])
