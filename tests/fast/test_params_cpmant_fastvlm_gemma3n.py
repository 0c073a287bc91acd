"""CPM-Ant, FastVLM and Gemma 3n against transformers 5.24 on NON-default shapes.

The class defaults are replayed from the coverage fixture by tests/reference/test_transformers_coverage.py; here a
smaller shape with other prompt / segment / bucket sizes and dim_head != hidden_size / heads. The expected
numbers were obtained in transformers 5.24 (CPU):

* parameters: ``CpmAntForCausalLM(CpmAntConfig(**CPMANT))`` built under ``torch.device("meta")``, summing
  ``p.numel()`` over ``model.parameters()``: 115,548;
* cache: the same config, random init, ``.to(torch.bfloat16)``, one forward of ``input_ids`` of shape (2, 7)
  with ``use_cache=True``; every ``DynamicCache`` layer holds keys and values of shape (2, 3, 12, 20)
  (5 prompt + 7 input tokens, 3 heads x dim_head 20): 5,760 bytes of key + value storage per layer.
"""
from __future__ import annotations

import pytest

import kvcalc

CPMANT = dict(vocab_size=500, hidden_size=48, num_attention_heads=3, dim_head=20, dim_ff=72, num_hidden_layers=3,
              position_bias_num_buckets=64, position_bias_max_distance=128, prompt_types=4, prompt_length=5,
              segment_types=6)
CONFIG = {"model_type": "cpmant", **CPMANT}


def test_cpmant_non_default_shape_equals_meta_device_count():
    count = kvcalc.count_params(CONFIG)
    assert count.total == 115_548
    assert count.quality == "exact" and not count.tied_embeddings   # CpmAntForCausalLM: _tied_weights_keys = {}


@pytest.mark.parametrize("runtime", ["transformers", "ideal"])
def test_cpmant_cache_holds_the_prompt_tokens_with_dim_head_wide_heads(runtime):
    r = kvcalc.kv_cache(CONFIG, batch=2, context=7, dtype="bfloat16", runtime=runtime)
    assert [layer.bytes for layer in r.layers] == [5_760] * 3
    assert r.quality == "exact"


@pytest.mark.parametrize("runtime", ["vllm", "sglang", "llama_cpp"])
def test_cpmant_serving_engines_are_refused(runtime):
    # vLLM 0.33 registers no CpmAntForCausalLM and transformers 5.24's class has no _supports_attention_backend
    with pytest.raises(kvcalc.UnsupportedError, match="CPM-Ant"):
        if runtime == "vllm":
            kvcalc.kv_cache(CONFIG, batch=1, context=8, runtime=runtime)
        kvcalc.deploy(CONFIG, runtime=runtime)


def test_cpmant_static_cache_is_refused():
    with pytest.raises(kvcalc.UnsupportedError, match="prompt_length"):
        kvcalc.kv_cache(CONFIG, batch=1, context=8, runtime="transformers", cache_implementation="static")


# FastVlmConfig(**FAST_VLM) -> FastVlmForConditionalGeneration on torch.device("meta") (transformers 5.24 with
# timm 1.0.31): 318,879,424 parameters, 318,423,168 of them in vision_tower (TimmWrapperModel over timm's
# fastvit_mci4, the larger FastViT-HD, in inference mode); a small Qwen2 decoder and a projector without biases.
FAST_VLM = dict(
    vision_config=dict(model_type="timm_wrapper", architecture="fastvit_mci4", hidden_size=4096,
                       model_args={"inference_mode": True}),
    text_config=dict(model_type="qwen2", hidden_size=64, intermediate_size=96, num_attention_heads=4,
                     num_key_value_heads=2, num_hidden_layers=2, vocab_size=1000),
    multimodal_projector_bias=False)


def test_fast_vlm_non_default_tower_equals_meta_device_count():
    count = kvcalc.count_params({"model_type": "fast_vlm", **FAST_VLM})
    assert count.total == 318_879_424
    assert count.quality == "exact"


@pytest.mark.parametrize("vision", [
    {"model_type": "timm_wrapper", "architecture": "resnet50", "hidden_size": 2048},
    {"model_type": "timm_wrapper", "architecture": "fastvit_mci3", "hidden_size": 3072, "model_args": None},
])
def test_fast_vlm_other_timm_models_are_refused(vision):
    # without inference_mode timm builds FastViT's train-time branches (BatchNorm / scale convs), not counted
    with pytest.raises(kvcalc.UnsupportedError, match="inference_mode"):
        kvcalc.count_params({"model_type": "fast_vlm", **FAST_VLM, "vision_config": vision})


# Gemma3nConfig(**GEMMA3N) -> Gemma3nForConditionalGeneration on torch.device("meta") (transformers 5.24 with
# timm 1.0.31): 294,892,016 parameters, 204,616 of them in audio_tower. A 4-layer text model (2 KV-shared), a
# 2-layer Conformer of width 64 with other subsampling channels / feature size / kernel, other embedder vocabularies,
# and an untied lm_head; the vision tower is timm's mobilenetv5_300m_enc (the only one Gemma 3n builds).
GEMMA3N = dict(
    text_config=dict(hidden_size=64, intermediate_size=[96] * 4, num_hidden_layers=4, num_attention_heads=4,
                     num_key_value_heads=2, head_dim=16, hidden_size_per_layer_input=8, vocab_size=1000,
                     vocab_size_per_layer_input=500, laurel_rank=4, num_kv_shared_layers=2, sliding_window=8,
                     layer_types=["sliding_attention", "full_attention"] * 2, activation_sparsity_pattern=[0.0] * 4),
    audio_config=dict(hidden_size=64, conf_num_attention_heads=4, conf_num_hidden_layers=2, conf_conv_kernel_size=3,
                      sscp_conv_channel_size=[16, 8], input_feat_size=40, vocab_size=50),
    vision_config=dict(vocab_size=60), tie_word_embeddings=False)


def test_gemma3n_non_default_shape_equals_meta_device_count():
    count = kvcalc.count_params({"model_type": "gemma3n", **GEMMA3N})
    assert count.total == 294_892_016
    assert count.quality == "exact" and not count.tied_embeddings


@pytest.mark.parametrize("change", [
    {"vision_config": {"architecture": "mobilenetv5_base"}},
    {"audio_config": {"sscp_conv_channel_size": [16, 8, 4]}},
])
def test_gemma3n_other_towers_are_refused(change):
    with pytest.raises(kvcalc.UnsupportedError):
        kvcalc.count_params({"model_type": "gemma3n", **GEMMA3N, **change})
