"""A decode step reads the weights resident on the GPU, for every runtime (issue 24 item 1).

Reference: hand arithmetic from config.json. A batch-1 step of a dense model reads every resident
weight except the rows of an untied input embedding table it does not look up (vocab x hidden x 2
bytes in bf16, split over tensor-parallel ranks); a MoE step at batch 1 reads at least the
non-expert weights plus top-k experts per layer. The roofline's speed can then never beat
bandwidth / those bytes."""
from __future__ import annotations

import pytest

from kvcalc import deploy
from kvcalc.catalog import bundled_config
from kvcalc.speed import estimate_speed

RUNTIMES = ("ideal", "transformers", "vllm", "sglang", "tensorrt_llm", "llama_cpp")


def _embedding_bytes(config: dict, tp: int) -> int:
    """Bytes of an untied bf16 input embedding table on one rank (0 when tied to the LM head)."""
    if config.get("tie_word_embeddings"):
        return 0
    return config["vocab_size"] * config["hidden_size"] * 2 // tp


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("gpus", [1, 2])
def test_batch_one_step_reads_at_least_the_resident_dense_weights(runtime, gpus):
    if runtime == "llama_cpp" and gpus > 1:
        pytest.skip("llama.cpp's multi-GPU split is not modelled (one GPU planned)")
    config = bundled_config("meta-llama/Llama-2-7b-hf")
    extra = {"gguf": "Q4_K_M"} if runtime == "llama_cpp" else {}
    d = deploy(config, gpu="h100-sxm", gpus=gpus, runtime=runtime, **extra)
    e = estimate_speed(d, 1, 1024)
    # llama.cpp keeps token_embd on the host: its resident weights hold no embedding table to skip
    unread = 0 if runtime == "llama_cpp" else _embedding_bytes(config, d.tp)
    resident = d.weights_rank - unread
    assert resident > 0
    assert e.decode_weight_bytes >= resident
    assert e.decode_tokens_per_s_per_sequence <= d.gpu.bandwidth_gbps * 1e9 / resident


@pytest.mark.parametrize("runtime", RUNTIMES[:5])
def test_moe_batch_one_step_reads_the_shared_weights_and_top_k_experts(runtime):
    config = bundled_config("mistralai/Mixtral-8x7B-v0.1")
    d = deploy(config, gpu="h100-sxm", gpus=2, runtime=runtime)
    e = estimate_speed(d, 1, 1024)
    h, inter, n_layers = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"]
    experts, k = config["num_local_experts"], config["num_experts_per_tok"]
    # gate, up, down per expert, bf16, on one GPU (transformers splits the layers over the GPUs: pp)
    expert_bytes = n_layers * experts * 3 * h * inter * 2 // (d.tp * d.pp)
    unread = expert_bytes * (experts - k) // experts + _embedding_bytes(config, d.tp)
    # the estimate applies the experts' share of the parameter count to the rank's bytes: equal to the
    # byte arithmetic within 1e-4 (norms and the router sit in the shared share)
    assert e.decode_weight_bytes >= (d.weights_rank - unread) * (1 - 1e-4)
    assert e.decode_tokens_per_s_per_sequence <= d.gpu.bandwidth_gbps * 1e9 / (d.weights_rank - unread)
