"""Parameter counts of BLIP-2, InstructBLIP-Video, UDOP and Pix2Struct against transformers' meta-device counts of
NON-default shapes.

The class defaults are replayed from the coverage fixture by tests/reference/test_transformers_coverage.py; here each
family is checked on another shape. Every expected number was obtained in transformers 5.24 by building the
config below on the meta device and summing ``p.numel()`` over ``model.parameters()`` (tied weights once).
"""
from __future__ import annotations

import kvcalc

# Blip2Config(**BLIP2) -> Blip2ForConditionalGeneration on torch.device("meta"): 269,072 parameters. A vision
# tower without qkv biases, a Q-Former with cross-attention in every layer (frequency 1), an untied OPT head.
BLIP2 = dict(
    vision_config=dict(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                       image_size=28, patch_size=14, qkv_bias=False),
    qformer_config=dict(hidden_size=48, num_hidden_layers=3, num_attention_heads=4, intermediate_size=80,
                        cross_attention_frequency=1),
    text_config=dict(model_type="opt", hidden_size=32, ffn_dim=64, num_hidden_layers=2, num_attention_heads=4,
                     vocab_size=1000, tie_word_embeddings=False, max_position_embeddings=128),
    num_query_tokens=5)

# InstructBlipVideoConfig(**INSTRUCTBLIP_VIDEO) -> InstructBlipVideoForConditionalGeneration on the meta device:
# 240,896 parameters. Its Q-Former reads the prompt (word / position tables of 500 / 64, text-input FFNs), a
# cross-attention every 2nd layer; the OPT head tied (OPTConfig's default).
INSTRUCTBLIP_VIDEO = dict(
    vision_config=dict(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                       image_size=28, patch_size=14),
    qformer_config=dict(hidden_size=48, num_hidden_layers=2, num_attention_heads=4, intermediate_size=80,
                        vocab_size=500, max_position_embeddings=64, cross_attention_frequency=2),
    text_config=dict(model_type="opt", hidden_size=32, ffn_dim=64, num_hidden_layers=2, num_attention_heads=4,
                     vocab_size=1000, max_position_embeddings=128),
    num_query_tokens=6)


def test_instructblip_video_non_default_shape_equals_meta_device_count():
    count = kvcalc.count_params({"model_type": "instructblipvideo", **INSTRUCTBLIP_VIDEO})
    assert count.total == 240_896
    assert count.quality == "exact"


def test_blip2_non_default_shape_equals_meta_device_count():
    count = kvcalc.count_params({"model_type": "blip-2", **BLIP2})
    assert count.total == 269_072
    assert count.quality == "exact"


def test_blip2_refuses_an_encoder_decoder_language_model():
    config = {"model_type": "blip-2", **BLIP2, "text_config": {"model_type": "t5"}}
    try:
        kvcalc.count_params(config)
    except kvcalc.UnsupportedError as exc:
        assert "t5" in str(exc)
    else:
        raise AssertionError("a T5 language model must be refused")


# UdopConfig(**UDOP) -> UdopForConditionalGeneration on the meta device: 136,080 parameters. Gated FF, 16 buckets
# for block 0's bias while the horizontal table keeps its own default 32 buckets (RelativePositionBiasBase).
UDOP = dict(vocab_size=500, d_model=48, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=3, num_heads=3,
            relative_attention_num_buckets=16, feed_forward_proj="gated-gelu", max_2d_position_embeddings=100,
            patch_size=8, image_size=32, relative_bias_args=[{"type": "1d"}, {"type": "horizontal"}])


def test_udop_non_default_shape_equals_meta_device_count():
    count = kvcalc.count_params({"model_type": "udop", **UDOP})
    assert count.total == 136_080
    assert count.quality == "exact"


# Pix2StructConfig(**PIX2STRUCT) -> Pix2StructForConditionalGeneration on the meta device: 117,152 parameters.
# The vision attention projects to heads x d_kv (3 x 8 = 24 of 48), the text attention to hidden_size (40).
PIX2STRUCT = dict(
    vision_config=dict(hidden_size=48, patch_embed_hidden_size=30, d_ff=64, d_kv=8, num_hidden_layers=2,
                       num_attention_heads=3, seq_len=50),
    text_config=dict(vocab_size=300, hidden_size=40, d_kv=12, d_ff=56, num_layers=3, num_heads=2,
                     relative_attention_num_buckets=8))


def test_pix2struct_non_default_shape_equals_meta_device_count():
    count = kvcalc.count_params({"model_type": "pix2struct", **PIX2STRUCT})
    assert count.total == 117_152
    assert count.quality == "exact"
