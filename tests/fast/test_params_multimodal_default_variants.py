"""Vision-language wrappers counted exactly on variants of their class defaults (Llama 4, Idefics2, MiniMax-M3-VL,
Molmo2, Ovis2, Step-3.7, Muse Glimmer / Spark, Unlimited-OCR, Nemotron-H Omni, Janus, Phi-4-multimodal).

The class-default configs are replayed against the committed fixture by tests/reference/test_transformers_coverage.py.
Here: one or more NON-default variant per family (other widths, depths, layer mixes, biases, tying), each
built from the fixture's default config with the fields below replaced. The expected totals were obtained by
building each variant with transformers 5.24.0 on the meta device
(``tests/hf_reference.meta_model(cfg)``, then ``sum(p.numel() for p in model.parameters())``; torch 2.13 CPU)
and are written here as numbers: kvcalc's own output is never the reference. Configs kvcalc cannot count are
refused with a typed error, never guessed.
"""
from __future__ import annotations

import copy
from typing import Any

import pytest
from paths import load_fixture

from kvcalc.errors import ConfigError, UnsupportedError
from kvcalc.params import count_params

_TYPES = load_fixture("transformers_5_24_coverage.json")["types"]

# a small decoder, so the variants build on the meta device in about a second each
_TEXT = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
             head_dim=16, vocab_size=512)


def _variant(model_type: str, **parts: dict[str, Any] | Any) -> dict[str, Any]:
    """The fixture's default config of ``model_type``, each nested config named in ``parts`` (``text_config``,
    ``vision_config``, ...) updated with the dict given, every other part set at the top level; a changed layer
    count drops the derived per-layer lists."""
    cfg = copy.deepcopy(_TYPES[model_type]["default_config"])
    cfg["model_type"] = model_type
    for name, value in parts.items():
        if name.endswith("_config") and isinstance(value, dict) and isinstance(cfg.get(name), dict):
            cfg[name].update(value)
            if "num_hidden_layers" in value:
                for derived in ("layer_types", "mlp_layer_types", "rope_scaling_layers", "layer_rope_theta"):
                    if derived not in value:
                        cfg[name].pop(derived, None)
        else:
            cfg[name] = value
    return cfg


VARIANTS: dict[str, dict[str, Any]] = {
    # Llama 4: 2 of 4 layers MoE, a smaller tower and adapter; the head ties by the text_config's flag (its
    # lm_head lives in Llama4ForCausalLM), not the wrapper's
    "llama4_text_tied": _variant(
        "llama4", tie_word_embeddings=False,
        text_config=dict(_TEXT, tie_word_embeddings=True, num_hidden_layers=4, intermediate_size_mlp=80,
                         num_local_experts=4, num_experts_per_tok=1, interleave_moe_layer_step=2, no_rope_layers=None),
        vision_config=dict(hidden_size=128, intermediate_size=256, num_hidden_layers=2, num_attention_heads=4,
                           image_size=224, patch_size=16, vision_output_dim=160, projector_input_dim=96,
                           projector_output_dim=80)),
    # Idefics2: a 2-layer perceiver with its own heads; its hidden_size (999) is overridden by the decoder's
    "idefics2_perceiver": _variant(
        "idefics2", text_config=dict(_TEXT),
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           image_size=112, patch_size=14),
        perceiver_config=dict(hidden_size=999, resampler_depth=2, resampler_n_heads=4, resampler_head_dim=24,
                              num_key_value_heads=2, resampler_n_latents=16)),
    # the Hub's remote-code configs name the wrapper's type in the sub-configs; Idefics2Config drops it
    "idefics2_remote_code_types": _variant(
        "idefics2", text_config=dict(_TEXT),
        vision_config=dict(model_type="idefics2", hidden_size=64, intermediate_size=96, num_hidden_layers=1,
                           num_attention_heads=4, image_size=56, patch_size=14),
        perceiver_config=dict(model_type="idefics2", resampler_depth=1, resampler_n_heads=4, resampler_head_dim=16,
                              num_key_value_heads=4, resampler_n_latents=8)),
    # MiniMax-M3-VL: a 3x3 merge and another projector width
    "minimax_m3_vl_merge3": _variant(
        "minimax_m3_vl", projector_hidden_size=48,
        text_config=dict(_TEXT, num_local_experts=4, num_experts_per_tok=2, dense_intermediate_size=80,
                         shared_intermediate_size=40, index_n_heads=2, index_head_dim=16),
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           spatial_merge_size=3)),
    # Molmo2: OLMo-style full-projection q/k norms, q/k/v biases, extra vocabulary, a non-square image, three
    # feature layers, MLP biases and another projection width in the adapter
    "molmo2_olmo": _variant(
        "molmo2",
        text_config=dict(_TEXT, qk_norm_type="olmo", attention_bias=True, additional_vocab_size=7),
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=3, num_attention_heads=4,
                           num_key_value_heads=2, head_dim=24, image_size=[224, 336], num_position_embeddings=None),
        adapter_config=dict(hidden_size=96, num_attention_heads=4, num_key_value_heads=4, head_dim=24,
                            intermediate_size=112, text_hidden_size=64, mlp_bias=True,
                            vision_feature_layer=[-1, -2, -3])),
    "molmo2_qwen3": _variant(
        "molmo2", text_config=dict(_TEXT, additional_vocab_size=0),
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           num_key_value_heads=4, head_dim=24, num_position_embeddings=None),
        adapter_config=dict(hidden_size=96, num_attention_heads=4, num_key_value_heads=4, head_dim=24,
                            intermediate_size=112, text_hidden_size=64, vision_feature_layer=[-1])),
    # the checkpoints' own field names, which Molmo2VisionConfig / Molmo2AdapterConfig.__post_init__ read
    "molmo2_checkpoint_names": _variant(
        "molmo2", text_config=dict(_TEXT),
        vision_config=dict(hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
                           num_key_value_heads=4, head_dim=16, image_size=None, num_position_embeddings=None,
                           image_default_input_size=[112, 168], image_patch_size=28),
        adapter_config=dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=4, head_dim=16,
                            intermediate_size=80, text_hidden_size=64, vision_feature_layer=None, vit_layers=[-1, -3])),
    # Molmo2ForConditionalGeneration declares no tied weights: both flags true still build an untied head
    "molmo2_tie_ignored": _variant(
        "molmo2", tie_word_embeddings=True, text_config=dict(_TEXT, tie_word_embeddings=True),
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           num_key_value_heads=4, head_dim=24, num_position_embeddings=None),
        adapter_config=dict(hidden_size=96, num_attention_heads=4, num_key_value_heads=4, head_dim=24,
                            intermediate_size=112, text_hidden_size=64, vision_feature_layer=[0])),
    # Ovis2: hidden_stride 2, biased attention and MLP, another visual vocabulary and wrapper width
    "ovis2_stride2": _variant(
        "ovis2", hidden_size=80,
        text_config=dict(_TEXT, num_key_value_heads=4),
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           hidden_stride=2, qkv_bias=True, mlp_bias=True, vocab_size=300,
                           num_visual_indicator_tokens=3, image_size=112)),
    # Step-3.7: listed dense / sparse layers, a full-width output gate (gating false), projector bias, other
    # mlp_ratio (the tower's intermediate_size is derived from it)
    "step3p7_gate_full": _variant(
        "step3p7", projector_bias=True,
        text_config=dict(_TEXT, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                         share_expert_dim=48, gating=False, mlp_layer_types=["dense", "sparse", "dense"],
                         per_layer_config={}),
        vision_config=dict(hidden_size=96, num_hidden_layers=2, num_attention_heads=4, image_size=224, mlp_ratio=2.5)),
    "step3p7_default_dense_first": _variant(
        "step3p7",
        text_config=dict(_TEXT, num_hidden_layers=5, n_routed_experts=4, num_experts_per_tok=2,
                         moe_intermediate_size=32, share_expert_dim=24, per_layer_config={}),
        vision_config=dict(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, image_size=112)),
    # the checkpoint's vision names (width / layers / heads), which Step3p7VisionConfig.__post_init__ reads
    "step3p7_checkpoint_vision_names": _variant(
        "step3p7",
        text_config=dict(_TEXT, num_hidden_layers=4, n_routed_experts=4, num_experts_per_tok=2,
                         moe_intermediate_size=32, share_expert_dim=24, per_layer_config={}),
        vision_config=dict(width=96, layers=2, heads=4, image_size=112)),
    # Muse Glimmer: 5 layers (the class's every-4th-from-the-end window pattern), a smaller tower and adapter
    "muse_glimmer_small": _variant(
        "muse_glimmer", out_hidden_size=384, projector_hidden_size=48,
        text_config=dict(_TEXT, num_hidden_layers=5, sliding_window=8),
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           pos_emb_height=8, pos_emb_width=6, patch_temporal=1)),
    "muse_glimmer_tied": _variant(
        "muse_glimmer", tie_word_embeddings=True, out_hidden_size=384, projector_hidden_size=48,
        text_config=dict(_TEXT, num_hidden_layers=2, sliding_window=8),
        vision_config=dict(hidden_size=64, intermediate_size=96, num_hidden_layers=1, num_attention_heads=4,
                           pos_emb_height=4, pos_emb_width=4)),
    # Muse Spark: dense and sparse layers, other expert widths, a 3-stage audio tower
    "muse_spark_mixed": _variant(
        "muse_spark", out_hidden_size=384, projector_hidden_size=48,
        text_config=dict(_TEXT, num_local_experts=4, num_experts_per_tok=2, moe_hidden_size=40,
                         moe_intermediate_size=24, mlp_layer_types=["dense", "sparse", "sparse"], sliding_window=8),
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           pos_emb_height=8, pos_emb_width=8),
        audio_config=dict(num_hidden_layers=3, hidden_sizes=[16, 32, 64], patch_sizes=[4, 3, 2], depths=[1, 2, 0],
                          mlp_ratio=2.5, conv_kernel_size=5, out_hidden_size=64)),
    # Nemotron-H Omni: a smaller RADIO tower (SwiGLU MLP, 3-frame video patches, no q/k/v biases), another
    # downsample ratio; both tie flags true still build an untied head (NemotronHForCausalLM ties nothing)
    "nemotron_h_omni_swiglu": _variant(
        "nemotron_h_omni", downsample_ratio=0.25, projector_hidden_size=48, vision_hidden_size=96,
        video_temporal_patch_size=3, tie_word_embeddings=True,
        text_config=dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                         intermediate_size=96, vocab_size=512, mamba_num_heads=4, mamba_head_dim=16, n_groups=2,
                         ssm_state_size=8, n_routed_experts=4, moe_intermediate_size=32,
                         moe_shared_expert_intermediate_size=24, tie_word_embeddings=True),
        vision_config=dict(hidden_size=96, num_hidden_layers=2, num_attention_heads=4, mlp_ratio=3.0,
                           use_swiglu_ffn=True, qkv_bias=False, max_img_size=256, num_registers=2,
                           video_temporal_patch_size=3)),
    # with MTP layers in the text_config the wrapper adds vision_final_layernorm (the MTP layers are not built)
    "nemotron_h_omni_mtp": _variant(
        "nemotron_h_omni", projector_hidden_size=48, vision_hidden_size=64,
        text_config=dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                         intermediate_size=96, vocab_size=512, mamba_num_heads=4, mamba_head_dim=16, n_groups=2,
                         ssm_state_size=8, n_routed_experts=4, moe_intermediate_size=32,
                         moe_shared_expert_intermediate_size=24, num_nextn_predict_layers=1),
        vision_config=dict(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, max_img_size=128)),
    # Janus: qk norms, no q/k/v biases, a 3-layer aligner; a 3-level VQ model with one resnet block per level,
    # a doubled latent and other widths; untied head
    "janus_small_vq": _variant(
        "janus", tie_word_embeddings=False, text_config=dict(_TEXT),
        vision_config=dict(hidden_size=96, num_hidden_layers=2, num_attention_heads=4, image_size=128, patch_size=16,
                           mlp_ratio=2.5, attention_bias=False, use_qk_norm=True, projection_dim=48, depth=3),
        vq_config=dict(embed_dim=4, num_embeddings=100, double_latent=True, latent_channels=64, base_channels=32,
                       channel_multiplier=[1, 2, 3], num_res_blocks=1, projection_dim=40, num_hidden_layers=3,
                       image_token_embed_dim=64)),
    # Phi-4-multimodal: a tied Phi-3 decoder at the top level; a smaller SigLIP tower; a conformer audio encoder
    # with a symmetric bias table, 4x time reduction, depthwise multiplier 2 and 2x downsampled speech features
    "phi4_multimodal_small": _variant(
        "phi4_multimodal", tie_word_embeddings=True, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, vocab_size=512, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        vision_config=dict(hidden_size=96, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                           image_size=112, patch_size=14),
        audio_config=dict(hidden_size=64, intermediate_size=80, num_blocks=2, num_attention_heads=4,
                          ext_pw_out_channel=48, depthwise_separable_out_channel=56, depthwise_multiplier=2,
                          kernel_size=5, input_size=30, time_reduction=4, bias_max_distance=50, bias_symmetric=True,
                          nemo_conv_channels=32, downsample_rate=2)),
    # a saved nemo_final_size (the fixture's 10) overrides the one the audio config derives from input_size
    "phi4_multimodal_saved_final_size": _variant(
        "phi4_multimodal", hidden_size=64, intermediate_size=96, num_hidden_layers=1, num_attention_heads=4,
        num_key_value_heads=2, vocab_size=512, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        vision_config=dict(hidden_size=64, intermediate_size=96, num_hidden_layers=1, num_attention_heads=4,
                           image_size=56, patch_size=14),
        audio_config=dict(hidden_size=64, intermediate_size=80, num_blocks=1, num_attention_heads=4,
                          ext_pw_out_channel=64, depthwise_separable_out_channel=64, input_size=30,
                          nemo_conv_channels=32)),
    # Unlimited-OCR: a smaller SAM (other windows, downsample widths) and CLIP encoder, two dense-first layers
    "unlimited_ocr_small": _variant(
        "unlimited_ocr",
        text_config=dict(_TEXT, num_key_value_heads=4, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2,
                         moe_intermediate_size=32, mlp_layer_types=["dense", "dense", "sparse"]),
        vision_config=dict(
            sam_config=dict(hidden_size=96, output_channels=32, num_hidden_layers=3, num_attention_heads=4,
                            image_size=256, patch_size=16, window_size=4, global_attn_indexes=[1], mlp_dim=128,
                            downsample_channels=[48, 80]),
            encoder_config=dict(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                                image_size=112, patch_size=14))),
}

# without the saved nemo_final_size, Phi4MultimodalAudioConfig derives it from input_size (30 -> 15 -> 8)
del VARIANTS["phi4_multimodal_small"]["audio_config"]["nemo_final_size"]

for _name in ("hidden_size", "num_hidden_layers", "num_attention_heads"):   # only the checkpoint's names remain
    del VARIANTS["step3p7_checkpoint_vision_names"]["vision_config"][_name]

# transformers 5.24.0 meta-device totals of VARIANTS (see the module docstring for how they were obtained)
EXPECTED: dict[str, int] = {
    "idefics2_perceiver": 507104,
    "idefics2_remote_code_types": 311072,
    "janus_small_vq": 2390651,
    "llama4_text_tied": 882496,
    "minimax_m3_vl_merge3": 624512,
    "molmo2_checkpoint_names": 450880,
    "molmo2_olmo": 533472,
    "nemotron_h_omni_mtp": 343340,
    "nemotron_h_omni_swiglu": 710220,
    "molmo2_qwen3": 475552,
    "molmo2_tie_ignored": 483744,
    "muse_glimmer_small": 451072,
    "muse_glimmer_tied": 232672,
    "muse_spark_mixed": 458760,
    "ovis2_stride2": 489074,
    "phi4_multimodal_saved_final_size": 316096,
    "phi4_multimodal_small": 530136,
    "step3p7_checkpoint_vision_names": 1410528,
    "step3p7_default_dense_first": 735765,
    "step3p7_gate_full": 1290496,
    "unlimited_ocr_small": 604080,
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_matches_transformers(name: str) -> None:
    assert count_params(VARIANTS[name]).total == EXPECTED[name]


def test_every_variant_has_a_reference() -> None:
    assert set(VARIANTS) == set(EXPECTED)


@pytest.mark.parametrize("cfg, match", [
    # MiniMaxM3VLConfig.__post_init__ ties the head from the text_config alone: not modelled
    (_variant("minimax_m3_vl", text_config=dict(tie_word_embeddings=True)), "tie_word_embeddings"),
    # Ovis2's untied lm_head is sized by the wrapper's own fields
    (_variant("ovis2", tie_word_embeddings=False), "tie_word_embeddings"),
    # Nemotron-H Omni's audio tower is not counted
    (_variant("nemotron_h_omni", audio_config={"hidden_size": 64}), "audio_config"),
    # Step-3.7 sliding layers with their own head count (per_layer_config)
    (_variant("step3p7", text_config=dict(layer_types=["sliding_attention"] * 45, sliding_window=512,
                                          num_sliding_attention_heads=32, per_layer_config=None)),
     "num_sliding_attention_heads"),
    (_variant("step3p7", text_config=dict(per_layer_config={"3": {"num_attention_heads": 32}})), "per_layer_config"),
    # Molmo2's legacy vit_config (a ViT the config class trims) is not counted as the class-default tower
    ({"model_type": "molmo2", "vit_config": {"num_hidden_layers": 27}}, "vit_config"),
    # Step checkpoint text names the counter does not read are refused, not ignored
    (_variant("step3p7", text_config=dict(moe_layers_enum="3,4,5")), "moe_layers_enum"),
    # a checkpoint-style language_config is not silently replaced by the class-default decoder
    ({"model_type": "unlimited_ocr", "language_config": dict(_TEXT)}, "language_config"),
    # gated_q_proj would put a bias on Muse's gate_proj, which has none
    (_variant("muse_glimmer", text_config=dict(attention_bias=True)), "attention_bias"),
])
def test_refused_not_guessed(cfg: dict[str, Any], match: str) -> None:
    with pytest.raises(UnsupportedError, match=match):
        count_params(cfg)


def test_molmo2_unknown_qk_norm_type_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="qk_norm_type"):
        count_params(_variant("molmo2", text_config=dict(qk_norm_type="gemma")))
