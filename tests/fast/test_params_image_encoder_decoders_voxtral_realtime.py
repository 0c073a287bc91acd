"""Parameter counts of Voxtral Realtime, VisionEncoderDecoder and PP-FormulaNet against transformers' meta-device
counts of NON-default shapes.

The class defaults are replayed from the coverage fixture by tests/reference/test_transformers_coverage.py; here each
family is checked on another shape. Every expected number was obtained in transformers 5.24 by building the
config below with ``<Config class>.from_dict(config)`` and the model class on ``torch.device("meta")``, and
summing ``p.numel()`` over ``model.parameters()`` (tied weights once).
"""
from __future__ import annotations

import pytest

import kvcalc
from kvcalc.errors import UnsupportedError

# VoxtralRealtimeConfig.from_dict(VOXTRAL_REALTIME) -> VoxtralRealtimeForConditionalGeneration on the meta device:
# 2,512,256 parameters. Untied lm_head, GQA text decoder with its own head_dim, an audio tower of another width,
# head_dim and mel bins, downsample_factor 2 (the projector's input width).
VOXTRAL_REALTIME = {
    "model_type": "voxtral_realtime", "tie_word_embeddings": False, "downsample_factor": 2,
    "text_config": {"model_type": "voxtral_realtime_text", "vocab_size": 1000, "hidden_size": 256,
                    "intermediate_size": 512, "num_hidden_layers": 3, "num_attention_heads": 4,
                    "num_key_value_heads": 2, "head_dim": 32},
    "audio_config": {"model_type": "voxtral_realtime_encoder", "hidden_size": 128, "intermediate_size": 256,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 16, "num_mel_bins": 80}}

# VisionEncoderDecoderConfig.from_dict(VED_BERT) -> VisionEncoderDecoderModel on the meta device: 384,632
# parameters. A ViT without qkv biases, a non-square image, its own pooler width, a BERT decoder of another
# width (enc_to_dec_proj) with an untied head.
VED_BERT = {
    "model_type": "vision-encoder-decoder",
    "encoder": {"model_type": "vit", "hidden_size": 96, "num_attention_heads": 4, "intermediate_size": 192,
                "num_hidden_layers": 2, "image_size": [64, 32], "patch_size": 8, "qkv_bias": False,
                "pooler_output_size": 48},
    "decoder": {"model_type": "bert", "is_decoder": True, "add_cross_attention": True, "hidden_size": 64,
                "num_attention_heads": 4, "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 500,
                "tie_word_embeddings": False}}

# VisionEncoderDecoderConfig.from_dict(VED_GPT2) -> VisionEncoderDecoderModel on the meta device: 248,384
# parameters. A GPT-2 decoder with cross-attention blocks, the same width as the ViT (no enc_to_dec_proj).
VED_GPT2 = {
    "model_type": "vision-encoder-decoder",
    "encoder": {"model_type": "vit", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128,
                "num_hidden_layers": 1, "image_size": 32, "patch_size": 16},
    "decoder": {"model_type": "gpt2", "is_decoder": True, "add_cross_attention": True, "n_embd": 64, "n_head": 4,
                "n_layer": 2, "vocab_size": 300, "n_positions": 128}}

# PPFormulaNetConfig.from_dict(PP_FORMULANET) -> PPFormulaNetForConditionalGeneration on the meta device: 339,496
# parameters. No absolute positions, no qkv biases, windowed and global layers of relative positions, other
# neck / projector channels, tie_word_embeddings true (the class ties nothing: _tied_weights_keys = {}).
PP_FORMULANET = {
    "model_type": "pp_formulanet", "tie_word_embeddings": True,
    "text_config": {"model_type": "pp_formulanet_text", "d_model": 48, "decoder_attention_heads": 6,
                    "decoder_layers": 3, "decoder_ffn_dim": 80, "vocab_size": 700, "max_position_embeddings": 100,
                    "tie_word_embeddings": True},
    "vision_config": {"model_type": "pp_formulanet_vision", "hidden_size": 64, "num_attention_heads": 4,
                      "num_hidden_layers": 3, "mlp_dim": 96, "image_size": 128, "patch_size": 16, "window_size": 3,
                      "global_attn_indexes": [1], "qkv_bias": False, "use_abs_pos": False, "output_channels": 32,
                      "post_conv_in_channels": 32, "post_conv_mid_channels": 40, "post_conv_out_channels": 56,
                      "decoder_hidden_size": 48}}

# PPFormulaNetConfig.from_dict(PP_FORMULANET_NO_REL) -> the same class on the meta device: 170,216 parameters.
# Without relative positions (use_rel_pos false), no global layers, class-default max_position_embeddings.
PP_FORMULANET_NO_REL = {
    "model_type": "pp_formulanet",
    "text_config": {"model_type": "pp_formulanet_text", "d_model": 32, "decoder_attention_heads": 4,
                    "decoder_layers": 2, "decoder_ffn_dim": 64, "vocab_size": 300},
    "vision_config": {"model_type": "pp_formulanet_vision", "hidden_size": 32, "num_attention_heads": 2,
                      "num_hidden_layers": 2, "mlp_dim": 64, "image_size": 64, "patch_size": 8,
                      "global_attn_indexes": [], "use_rel_pos": False, "output_channels": 16,
                      "post_conv_in_channels": 16, "post_conv_mid_channels": 24, "post_conv_out_channels": 40,
                      "decoder_hidden_size": 32}}


@pytest.mark.parametrize(("config", "expected"),
                         [(VOXTRAL_REALTIME, 2_512_256), (VED_BERT, 384_632), (VED_GPT2, 248_384),
                          (PP_FORMULANET, 339_496), (PP_FORMULANET_NO_REL, 170_216)],
                         ids=["voxtral_realtime", "ved_bert", "ved_gpt2", "pp_formulanet", "pp_formulanet_no_rel"])
def test_non_default_shape_equals_meta_device_count(config: dict, expected: int) -> None:
    count = kvcalc.count_params(config)
    assert count.total == expected
    assert count.quality == "exact"


def test_vision_encoder_decoder_other_encoder_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="swin"):
        kvcalc.count_params({"model_type": "vision-encoder-decoder", "encoder": {"model_type": "swin"}})
