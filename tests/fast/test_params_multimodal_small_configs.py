"""Vision-language wrappers built from small configs (Aya Vision, Gemma 4 Unified, Granite Docling, Aria,
DeepSeek-VL hybrid, Cosmos3 Edge, GLM-OCR, Apertus 1.5, Florence-2, GIT, ERNIE 4.5 VL, DeepSeek-OCR2, Evolla):
kvcalc.count_params == transformers 5.24's meta-device count.

The class defaults are replayed from tests/fixtures/transformers_5_24_coverage.json by
tests/reference/test_transformers_coverage.py; here each family gets configs that differ from them (other sizes, tying,
optional towers present or absent). Every expected total below is
``sum(p.numel() for p in model.parameters())`` of the class the fixture names for the type
(``AyaVisionForConditionalGeneration``, ...), built by transformers 5.24 on the meta device from the config
shown (``CONFIG_MAPPING[model_type](**fields)``, then ``cls._from_config(config)`` under
``torch.device("meta")``); none is kvcalc's own output.
"""
from __future__ import annotations

import copy
from typing import Any

import pytest

from kvcalc.errors import ConfigError, UnsupportedError
from kvcalc.params import count_params

_COHERE2 = dict(model_type="cohere2", hidden_size=256, intermediate_size=512, num_hidden_layers=4,
                num_attention_heads=4, num_key_value_heads=2, vocab_size=1000)
_GEMMA4U_TEXT = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=6, num_attention_heads=4,
                     num_key_value_heads=2, head_dim=64, vocab_size=1000)

# Apertus1p5Config.validate_architecture: image_token_offset + the VQ codebook = audio_token_offset, the audio
# codebook inside the vocabulary; WavTokenizer: codebook_dim = hidden_size
_APERTUS_TOP = dict(model_type="apertus1p5", image_token_offset=100, audio_token_offset=612)
_APERTUS_TEXT = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                     vocab_size=1000)
_APERTUS_VQ = dict(codebook_size=512, embed_dim=64, latent_channels=32, base_channels=64, channel_multiplier=[2],
                   num_res_blocks=1, attn_resolutions=[], resolution=64)
_APERTUS_AUDIO = dict(model_type="wavtokenizer_encoder", codebook_size=128, num_filters=8, upsampling_ratios=[2],
                      hidden_size=32, codebook_dim=32)

_ERNIE_SHARED3 = dict(model_type="ernie4_5_vl_moe", text_config=dict(
    hidden_size=512, intermediate_size=512, num_hidden_layers=3, num_attention_heads=4, vocab_size=1000,
    moe_intermediate_size=[96, 64], moe_k=1, moe_num_experts=3, moe_num_shared_experts=3),
    vision_config=dict(depth=1, hidden_size=128, num_heads=4, intermediate_size=256))

_DEEPSEEK_OCR2 = dict(model_type="deepseek_ocr2", tie_word_embeddings=True, text_config=dict(
    hidden_size=256, intermediate_size=512, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
    vocab_size=1000, attention_bias=True, mlp_bias=True, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2,
    moe_intermediate_size=96, mlp_layer_types=["dense", "sparse", "sparse"]), vision_config=dict(
    sam_config=dict(hidden_size=128, output_channels=64, num_hidden_layers=2, num_attention_heads=4, image_size=256,
                    window_size=4, global_attn_indexes=[1], downsample_channels=[96, 160]),
    encoder_config=dict(hidden_size=160, intermediate_size=320, num_hidden_layers=2, num_attention_heads=4,
                        num_key_value_heads=2)))

# name -> (config, transformers 5.24 meta-device total)
CASES: dict[str, tuple[dict[str, Any], int]] = {
    # AyaVision: pixel shuffle 3, an explicit alignment_intermediate_size, SigLIP without its head, untied
    "aya_vision_align_1024_shuffle_3": (dict(
        model_type="aya_vision", downsample_factor=3, alignment_intermediate_size=1024, tie_word_embeddings=False,
        text_config=_COHERE2, vision_config=dict(
            model_type="siglip_vision_model", hidden_size=192, intermediate_size=384, num_hidden_layers=3,
            num_attention_heads=4, image_size=448, patch_size=14, vision_use_head=False)), 5979008),
    # AyaVision: the checkpoints' SigLIP-so400m tower; no alignment_intermediate_size (the decoder width)
    "aya_vision_so400m_tower": (dict(
        model_type="aya_vision", text_config=_COHERE2, vision_config=dict(
            model_type="siglip_vision_model", hidden_size=1152, intermediate_size=4304, patch_size=14,
            image_size=384, num_hidden_layers=26, num_attention_heads=16, vision_use_head=False)), 401586464),
    # Gemma 4 Unified: both optional embedders present, other patch / pooling / widths
    "gemma4_unified_vision_and_audio": (dict(
        model_type="gemma4_unified", text_config=_GEMMA4U_TEXT, audio_config=dict(audio_embed_dim=320),
        vision_config=dict(patch_size=14, pooling_kernel_size=2, mm_embed_dim=512, mm_posemb_size=100,
                           output_proj_dims=512)), 6706144),
    # Gemma 4 Unified: the vision embedder's class defaults, untied lm_head
    "gemma4_unified_default_vision_untied": (dict(
        model_type="gemma4_unified", text_config=_GEMMA4U_TEXT, vision_config={}, tie_word_embeddings=False),
                                             41595008),
    # Granite-Docling: density router, both attention and MLP biases, untied, pixel shuffle 6 (fine path 3),
    # two DeepStack mergers per path
    "granite_docling_router_biases_untied": (dict(
        model_type="granite_docling", density_router_hidden_size=64, tie_word_embeddings=False,
        text_config=dict(hidden_size=256, intermediate_size=512, num_hidden_layers=3, num_attention_heads=4,
                         num_key_value_heads=2, vocab_size=100400, attention_bias=True, mlp_bias=True),
        vision_config=dict(hidden_size=192, intermediate_size=384, num_hidden_layers=5, num_attention_heads=4,
                           image_size=384, patch_size=16, out_hidden_size=256, scale_factor=6,
                           deepstack_visual_indexes=[1, 3])), 61940162),
    # Granite-Docling: no fine path, no DeepStack mergers, MHA decoder
    "granite_docling_coarse_only": (dict(
        model_type="granite_docling", text_config=dict(
            hidden_size=256, intermediate_size=512, num_hidden_layers=3, num_attention_heads=4, vocab_size=100400),
        vision_config=dict(hidden_size=192, intermediate_size=384, num_hidden_layers=2, num_attention_heads=4,
                           image_size=256, patch_size=16, out_hidden_size=256, scale_factor=2, use_fine_route=False,
                           deepstack_visual_indexes=[])), 28725056),
    # Aria: other query table (48 queries), a small MoE decoder with one shared expert, tied lm_head
    "aria_queries_48_tied": (dict(
        model_type="aria", projector_patch_to_query_dict={"100": 32, "400": 48}, tie_word_embeddings=True,
        text_config=dict(model_type="aria_text", hidden_size=256, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, vocab_size=1000, moe_num_experts=4, moe_topk=2,
                         moe_num_shared_experts=1),
        vision_config=dict(model_type="idefics3_vision", hidden_size=192, intermediate_size=384, num_hidden_layers=3,
                           num_attention_heads=4, image_size=224, patch_size=14)), 3110208),
    # DeepSeek-VL hybrid: smaller SigLIP without head, SAM of 4 layers with mlp_ratio 3 (mlp_dim derived), untied
    "deepseek_vl_hybrid_sam_mlp_ratio_3_untied": (dict(
        model_type="deepseek_vl_hybrid", tie_word_embeddings=False, text_config=dict(
            model_type="llama", hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, vocab_size=1000),
        vision_config=dict(model_type="siglip_vision_model", hidden_size=192, intermediate_size=384,
                           num_hidden_layers=2, num_attention_heads=4, image_size=384, patch_size=16,
                           vision_use_head=False),
        high_res_vision_config=dict(model_type="sam_vision_model", hidden_size=128, output_channels=64,
                                    num_hidden_layers=4, num_attention_heads=4, image_size=512, patch_size=16,
                                    window_size=7, global_attn_indexes=[1, 3], mlp_ratio=3.0)), 4028993),
    # DeepSeek-VL hybrid: SAM with an explicit mlp_dim, no relative positions, no qkv bias
    "deepseek_vl_hybrid_sam_mlp_dim_no_rel_pos": (dict(
        model_type="deepseek_vl_hybrid", text_config=dict(
            model_type="llama", hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
            vocab_size=1000),
        vision_config=dict(model_type="siglip_vision_model", hidden_size=192, intermediate_size=384,
                           num_hidden_layers=2, num_attention_heads=4),
        high_res_vision_config=dict(model_type="sam_vision_model", hidden_size=128, output_channels=64,
                                    num_hidden_layers=2, num_attention_heads=4, mlp_dim=200, use_rel_pos=False,
                                    qkv_bias=False, global_attn_indexes=[1])), 4085329),
    # Cosmos3-Edge: tie_word_embeddings true ties nothing (_tied_weights_keys = {}); merge 3, other head_dim,
    # biases, vision_use_head ignored (the tower has no head)
    "cosmos3_edge_tie_flag_ignored": (dict(
        model_type="cosmos3_edge", projector_hidden_size=640, tie_word_embeddings=True,
        text_config=dict(hidden_size=256, intermediate_size=512, num_hidden_layers=3, num_attention_heads=4,
                         num_key_value_heads=2, head_dim=96, vocab_size=1000, attention_bias=True, mlp_bias=True,
                         rope_parameters=dict(rope_type="default", rope_theta=10000.0, mrope_section=[16, 16, 16])),
        vision_config=dict(hidden_size=192, intermediate_size=384, num_hidden_layers=2, num_attention_heads=4,
                           num_patches=576, patch_size=14, spatial_merge_size=3, vision_use_head=True)), 4279488),
    # GLM-OCR: 4 input channels (the merger's MLP width is out_hidden_size * in_channels), merge 3, no vision
    # biases, tied lm_head
    "glm_ocr_four_channels_tied": (dict(
        model_type="glm_ocr", tie_word_embeddings=True, text_config=dict(
            hidden_size=256, intermediate_size=512, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=1000),
        vision_config=dict(hidden_size=192, intermediate_size=384, depth=2, num_heads=4, out_hidden_size=256,
                           patch_size=16, spatial_merge_size=3, attention_bias=False, in_channels=4)), 4455744),
    # Apertus 1.5: a pruned untied head (output_vocab_size), 3 VQ stages with attention at two resolutions,
    # a WavTokenizer encoder with time_group_norm convs, two residual layers per ratio, no conv shortcut
    "apertus1p5_pruned_head_group_norm": (dict(
        _APERTUS_TOP, tie_word_embeddings=False,
        text_config=dict(_APERTUS_TEXT, output_vocab_size=600, num_key_value_heads=2),
        vision_config=dict(_APERTUS_VQ, channel_multiplier=[1, 2, 4], num_res_blocks=2, attn_resolutions=[64, 32],
                           resolution=128),
        audio_config=dict(model_type="wavtokenizer_encoder", codebook_size=128, num_filters=16,
                          upsampling_ratios=[4, 2], num_residual_layers=2, compress=4, use_conv_shortcut=False,
                          norm_type="time_group_norm", num_lstm_layers=1, hidden_size=128, codebook_dim=128,
                          kernel_size=5, last_kernel_size=3, residual_kernel_size=5)), 7765676),
    # Apertus 1.5: one VQ stage without attention, tied head
    "apertus1p5_one_stage_tied": (dict(
        _APERTUS_TOP, tie_word_embeddings=True, text_config=_APERTUS_TEXT, vision_config=_APERTUS_VQ,
        audio_config=_APERTUS_AUDIO), 2276596),
    # Apertus 1.5: tied with output_vocab_size: tie_weights makes the head the embedding table
    "apertus1p5_pruned_head_tied": (dict(
        _APERTUS_TOP, tie_word_embeddings=True, text_config=dict(_APERTUS_TEXT, output_vocab_size=600),
        vision_config=_APERTUS_VQ, audio_config=_APERTUS_AUDIO), 2276596),
    # Florence-2: a 3-stage DaViT (4 input channels, mixed patch pre-norms, mlp_ratio 3, no qkv bias), a small
    # BART, untied lm_head
    "florence2_three_stage_davit_untied": (dict(
        model_type="florence2", tie_word_embeddings=False, text_config=dict(
            model_type="bart", vocab_size=1000, d_model=128, encoder_layers=2, decoder_layers=2, encoder_ffn_dim=256,
            decoder_ffn_dim=256, encoder_attention_heads=4, decoder_attention_heads=4, max_position_embeddings=256),
        vision_config=dict(depths=[1, 2, 1], patch_size=[5, 3, 3], patch_stride=[4, 2, 2], patch_padding=[2, 1, 1],
                           patch_prenorm=[True, False, True], embed_dim=[32, 64, 96], num_heads=[2, 4, 4],
                           num_groups=[2, 4, 4], mlp_ratio=3.0, qkv_bias=False, projection_dim=128,
                           max_position_embeddings=20, in_channels=4)), 1460424),
    # GIT: tied output (its bias stays), 3 temporal image embeddings, smaller CLIP-style tower
    "git_tied_three_frames": (dict(
        model_type="git", tie_word_embeddings=True, num_image_with_embedding=3, vocab_size=1000, hidden_size=128,
        num_hidden_layers=3, num_attention_heads=4, intermediate_size=256, max_position_embeddings=300,
        vision_config=dict(hidden_size=96, intermediate_size=192, num_hidden_layers=2, num_attention_heads=4,
                           image_size=112, patch_size=14)), 790792),
    # ERNIE-4.5-VL: mlp_layer_types given, attention / MLP biases, no shared experts, merge 3 x 3 frames, untied
    "ernie4_5_vl_moe_layer_types_biases_untied": (dict(
        model_type="ernie4_5_vl_moe", tie_word_embeddings=False, text_config=dict(
            hidden_size=512, intermediate_size=512, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=1000, use_bias=True, moe_intermediate_size=[96, 64], moe_k=2, moe_num_experts=4,
            moe_num_shared_experts=0, mlp_layer_types=["dense", "sparse", "dense", "sparse"]),
        vision_config=dict(depth=2, hidden_size=128, num_heads=4, patch_size=16, spatial_merge_size=3,
                           intermediate_size=200, temporal_merge_size=3)), 16628128),
    # ERNIE-4.5-VL: the default layer types (first dense), three shared experts
    "ernie4_5_vl_moe_three_shared": (_ERNIE_SHARED3, 8599180),
    # DeepSeek-OCR-2: small SAM (other downsample widths) and GQA encoder, biased MoE decoder with given top-k, tied
    "deepseek_ocr2_small_tied": (_DEEPSEEK_OCR2, 3321376),
    # Evolla: all biases, adapters on every 3rd layer (6 // 2), no aligner out_proj bias, a small SaProt with an
    # absolute position table and the embedding LayerNorm, other resampler sizes
    "evolla_biases_absolute_positions": (dict(
        model_type="evolla", vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=6,
        num_attention_heads=4, num_key_value_heads=2, attention_bias=True, mlp_bias=True, aligner_ffn_mult=2,
        aligner_enable_bias=False, aligner_num_add_layers=2, resampler_depth=2, resampler_dim_head=16,
        resampler_heads=4, resampler_num_latents=8, resampler_ff_mult=3, protein_encoder_config=dict(
            vocab_size=50, hidden_size=96, num_hidden_layers=2, num_attention_heads=4, intermediate_size=192,
            position_embedding_type="absolute", max_position_embeddings=130, emb_layer_norm_before=True)), 5472452),
    # Evolla: tie_word_embeddings true ties nothing (the class declares no tied weights); 5 layers // 8 adapters
    # -> an adapter on every layer
    "evolla_tie_flag_ignored_adapter_every_layer": (dict(
        model_type="evolla", tie_word_embeddings=True, vocab_size=1000, hidden_size=256, intermediate_size=512,
        num_hidden_layers=5, num_attention_heads=4, num_key_value_heads=4, aligner_num_add_layers=8,
        protein_encoder_config=dict(hidden_size=64, num_hidden_layers=1, num_attention_heads=4,
                                    intermediate_size=128)), 8801482),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_total_equals_transformers_meta_device_count(name: str) -> None:
    cfg, expected = CASES[name]
    result = count_params(cfg)
    assert result.total == expected
    assert result.quality == "exact"
    assert sum(result.parts().values()) == result.total


@pytest.mark.parametrize("model_type, text_type", [
    ("gemma4_unified", "gemma4_unified_text"), ("aria", "aria_text"), ("cosmos3_edge", "cosmos3_edge_text")])
def test_fixed_text_class_whatever_text_type_is_named(model_type: str, text_type: str) -> None:
    """Gemma4UnifiedConfig / AriaConfig.sub_configs_defaults["text_config"] is one class (Gemma4UnifiedTextConfig,
    AriaTextConfig): a text_config naming another type is not read as that type's decoder (kvcalc refuses rather
    than guess which fields apply)."""
    with pytest.raises(UnsupportedError, match=text_type):
        count_params(dict(model_type=model_type, text_config=dict(_COHERE2)))


def test_aya_vision_default_tower_heads_must_divide() -> None:
    """Without a vision_config AyaVisionConfig builds SigLIP with 1152 wide, 14 heads, which transformers
    itself cannot build (SiglipAttention: embed_dim must be divisible by num_heads): a ConfigError, no count."""
    with pytest.raises(ConfigError):
        count_params(dict(model_type="aya_vision", text_config=_COHERE2))


def test_granite_docling_connector_width_must_be_the_decoder_width() -> None:
    """GraniteDoclingConfig.validate_architecture: vision_config.out_hidden_size must equal text_config.hidden_size
    (transformers refuses to build the model otherwise)."""
    with pytest.raises(ConfigError, match="out_hidden_size"):
        count_params(dict(model_type="granite_docling", text_config=dict(hidden_size=256),
                          vision_config=dict(out_hidden_size=128)))


def test_ernie4_5_vl_moe_active_is_a_text_tokens() -> None:
    """A text token runs moe_k text experts and no vision expert (Ernie4_5_VLMoeMoeBlock routes image / video
    tokens to vision_moe only). In _ERNIE_SHARED3, layers 1 and 2 are sparse; transformers' parameter shapes give
    a text expert ``mlp.text_moe.experts`` / 3 = 3 * 512 * 96 = 147,456 and a vision expert 3 * 512 * 64 =
    98,304, so routed experts = 2 * 3 * (147,456 + 98,304) = 1,474,560 and
    active = 8,599,180 - 1,474,560 + 2 * 1 * 147,456 = 7,419,532."""
    result = count_params(_ERNIE_SHARED3)
    assert result.moe_experts == 1474560
    assert result.active == 7419532


def test_deepseek_ocr2_null_top_k_refuses_active_only() -> None:
    """DeepseekOcr2TextConfig's default num_experts_per_tok is null: the total stays exact, ``active`` is refused."""
    cfg = copy.deepcopy(_DEEPSEEK_OCR2)
    del cfg["text_config"]["num_experts_per_tok"]
    result = count_params(cfg)
    assert result.total == 3321376 and result.active_count is None
    with pytest.raises(ConfigError, match="num_experts_per_tok"):
        _ = result.active


def test_deepseek_ocr2_needs_mlp_layer_types() -> None:
    """DeepseekOcr2TextConfig has no mlp_layer_types default and transformers cannot build the decoder without one."""
    cfg = copy.deepcopy(_DEEPSEEK_OCR2)
    del cfg["text_config"]["mlp_layer_types"]
    with pytest.raises(ConfigError, match="mlp_layer_types"):
        count_params(cfg)
