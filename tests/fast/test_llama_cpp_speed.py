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


def test_a_geforce_cards_fp16_accumulate_rate_is_twice_its_listed_fp32_accumulate_one() -> None:
    """data/gpus.csv's fp16_acc16_tflops_dense: set on the GeForce cards only (NVIDIA's whitepapers: RTX 3090 142 with
    FP16 accumulate against 71 with FP32, RTX 4090 330.3 against 165.2), within 1 % of twice their bf16 figure; the
    data-center and workstation cards run both at one rate, so they leave it blank."""
    from kvcalc.gpus import gpu_catalog

    for g in gpu_catalog():
        if g.fp16_acc16_tflops is not None:
            assert g.name.startswith("GeForce") and abs(g.fp16_acc16_tflops / (2 * g.bf16_tflops) - 1) < 0.01, g.key
        else:
            assert not g.name.startswith("GeForce"), g.key


def test_llama_cpps_prefill_runs_at_its_share_of_the_fp16_accumulate_rate() -> None:
    """llama.cpp's cuBLAS GEMMs accumulate in fp16 (ggml_cuda_op_mul_mat_cublas, CUBLAS_COMPUTE_16F): on an RTX 4090
    the prefill is costed at LLAMA_CPP_RATE_SHARE x 330.3 TFLOP/s, about the 165.2 FP32-accumulate figure the other
    engines use; on an L40S, whose two rates are both 362, at half of it; vLLM keeps the bf16 rate on both."""
    from kvcalc import speed

    config = load_config("meta-llama__Llama-3.1-8B.json")
    for gpu, full in (("rtx-4090", 330.3), ("l40s", 362.0)):
        d = deploy(config, gpu=gpu, runtime="llama_cpp", gguf="F16")
        assert speed._tensor_rate(d) == (full * speed.LLAMA_CPP_RATE_SHARE, "fp16 (fp16-accumulate)")
        v = deploy(config, gpu=gpu, runtime="vllm")
        assert speed._tensor_rate(v) == (v.gpu.bf16_tflops, "bf16")
    mi = deploy(config, gpu="mi300x", runtime="llama_cpp", gguf="F16")
    assert speed._tensor_rate(mi)[1] == "bf16"          # ROCm: no fp16-accumulate rule
