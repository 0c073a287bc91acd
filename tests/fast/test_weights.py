"""Weight bytes per storage format, against published parameter counts and a vLLM log."""
from __future__ import annotations

import pytest
from paths import load_config

import kvcalc
from kvcalc.weights import gptq_bytes, weight_bytes

GiB = 2**30


def test_float_checkpoints_are_params_times_width():
    cfg = load_config("meta-llama__Llama-3.1-8B.json")            # 8,030,261,248 parameters (Hub safetensors total)
    assert weight_bytes(cfg).total_bytes == 8_030_261_248 * 2
    assert weight_bytes(cfg, "float32").total_bytes == 8_030_261_248 * 4
    assert weight_bytes(cfg).scheme == "bfloat16"


def test_awq_matches_vllm_log_within_runtime_extras():
    # vLLM loading Qwen2.5-7B-Instruct-AWQ logged "Model loading took 5.29 GiB"; the checkpoint is the
    # Qwen2.5-7B architecture with 4-bit AWQ (group 128) linear layers and fp16 embeddings / head / norms.
    cfg = dict(load_config("Qwen__Qwen2.5-7B-Instruct.json"), torch_dtype="float16",
               quantization_config={"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
                                    "version": "gemm"})
    w = weight_bytes(cfg)
    assert w.scheme == "awq 4-bit g128"
    assert set(w.unquantized) == {"embedding", "lm_head", "norms"}
    assert 5.29 - 0.15 < w.total_bytes / GiB <= 5.29        # vLLM adds rotary caches / kernel workspaces
    # 152,064 x 3,584 fp16 embeddings, untied head of the same size
    assert {p.name: p.bytes for p in w.parts}["embedding"] == 152_064 * 3_584 * 2


def test_gptq_layout_arithmetic():
    # 4,096 x 4,096 weights, 4-bit, group 128: packed 8 MiB + fp16 scales 2 x 131,072 + 4-bit zeros 65,536
    assert gptq_bytes(4096 * 4096, 4, 128) == 4096 * 4096 // 2 + 131_072 * 2 + 131_072 // 2


def test_mxfp4_quantizes_only_the_experts():
    cfg = load_config("openai__gpt-oss-20b.json")
    w = weight_bytes(cfg)
    p = kvcalc.count_params(cfg)
    parts = {x.name: x for x in w.parts}
    experts = p.moe_experts
    assert parts["mlp"].bytes == -(-experts * 17 // 32) + (p.mlp - experts) * 2
    assert parts["attention"].bytes == p.attention * 2 and "embedding" in w.unquantized


def test_fp8_block_scales_deepseek_v3():
    cfg = load_config("deepseek-ai__DeepSeek-V3.json")
    w = weight_bytes(cfg)
    assert w.scheme == "fp8 block 128x128"
    mlp = next(x for x in w.parts if x.name == "mlp")
    assert mlp.bytes == mlp.params + -(-mlp.params // (128 * 128)) * 4


def test_user_chosen_quantization_keeps_embeddings_16_bit():
    cfg = load_config("meta-llama__Llama-3.1-8B.json")
    w = weight_bytes(cfg, "int4")
    parts = {x.name: x for x in w.parts}
    assert parts["embedding"].bytes == 128_256 * 4096 * 2
    assert parts["attention"].bytes == gptq_bytes(parts["attention"].params, 4, 128)
    fp8 = weight_bytes(cfg, "fp8")
    assert {x.name: x.bytes for x in fp8.parts}["mlp"] == parts["mlp"].params


def test_unknown_quantization_is_refused():
    cfg = dict(load_config("meta-llama__Llama-3.1-8B.json"), quantization_config={"quant_method": "exl9"})
    with pytest.raises(kvcalc.UnsupportedError, match="exl9"):
        weight_bytes(cfg)


def test_uncountable_model_plans_with_given_weights():
    """Weights never block a plan: a config kvcalc cannot count is refused without weights (naming the
    option), and with weights_gib the plan uses exactly those bytes per GPU and says so."""
    cfg = {"model_type": "brand_new_lm", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64,
           "vocab_size": 100, "torch_dtype": "bfloat16"}
    with pytest.raises(kvcalc.UnsupportedError, match="weights_gib"):
        kvcalc.plan(cfg, gpu="h100-sxm", runtime="ideal")
    for runtime, gpus in (("ideal", 1), ("vllm", 1), ("transformers", 2)):
        p = kvcalc.plan(cfg, gpu="h100-sxm", runtime=runtime, gpus=gpus, weights_gib=1.5)
        assert p.weights_bytes == 3 * 2**29                      # 1.5 GiB per GPU, as given
        assert p.weights_quality == "given" and p.kv_quality == "estimated" and p.quality == "estimated"
        assert any("as given (weights_gib)" in w and "cannot count" in w for w in p.warnings)
    counted = kvcalc.plan(load_config("meta-llama__Llama-3.1-8B.json"), gpu="h100-sxm", runtime="ideal")
    assert (counted.quality, counted.weights_quality, counted.kv_quality) == ("exact", "exact", "exact")


def test_uncountable_hub_model_plans_with_its_checkpoint_size():
    """A Hub config kvcalc cannot count still plans: the checkpoint's safetensors size is the weights."""
    cfg = {"model_type": "brand_new_lm", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64,
           "vocab_size": 100, "torch_dtype": "bfloat16"}
    p = kvcalc.plan(cfg, gpu="h100-sxm", runtime="ideal", checkpoint_bytes=3 * GiB)
    assert p.weights_bytes == 3 * GiB and p.weights_quality == "given"
    assert any("as given (checkpoint size)" in w for w in p.warnings)
    with pytest.raises(kvcalc.UnsupportedError, match="weights_gib"):     # a chosen dtype re-quantizes: no size
        kvcalc.plan(cfg, gpu="h100-sxm", runtime="ideal", checkpoint_bytes=3 * GiB, dtype="int4")


def test_a_wrappers_quantization_config_in_its_text_config_is_read():
    """Kimi-K2.5's checkpoint declares compressed-tensors int4 in text_config only (AIC copy of its config.json):
    before, kvcalc read the top level only and sized the 1T parameters as bf16, labelled exact."""
    from kvcalc.errors import UnsupportedError
    from kvcalc.weights import weight_bytes

    text = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000}
    wrapped = {"model_type": "llava", "text_config": {**text, "quantization_config": {
        "quant_method": "compressed-tensors", "format": "pack-quantized"}}}
    with pytest.raises(UnsupportedError, match="compressed-tensors"):
        weight_bytes(wrapped)
    gptq = {**text, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}}
    nested = {"model_type": "llava", "text_config": {**gptq}}
    assert "gptq 4-bit" in weight_bytes(nested).scheme
