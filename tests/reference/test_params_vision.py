"""kvcalc.params_vision: vision-language wrappers' parameters == what transformers 5.24 builds.

Ground truth: the ``...ForConditionalGeneration`` model transformers builds on the meta device
(tests/hf_reference.meta_model) for configs that differ from the class defaults (the defaults themselves are
replayed from the committed fixture by tests/reference/test_transformers_coverage.py and built live by
tests/reference/test_params.py): other image and patch sizes, depths, feature layers, merge sizes, biases, norms and
tying. The total must be equal, and so must ``vision`` (every parameter outside the text decoder and the
lm_head: tower + projector). Configs kvcalc cannot count are refused with a typed error, never guessed.
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import sys
from typing import Any
from unittest import mock

import pytest
from hf_reference import meta_model
from paths import load_fixture

from kvcalc.errors import ConfigError, UnsupportedError
from kvcalc.models.model_type import ModelType
from kvcalc.models.registry import lookup
from kvcalc.params import ParamCount, count_params

_TYPES = load_fixture("transformers_5_24_coverage.json")["types"]

# a small decoder per text type, so the variants build in well under a second each
_TINY = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
             vocab_size=512)
_TEXT_NOT_VISION = ("language_model.", "text_model.", "lm_head.", "image_newline")


def _variant(model_type: str, text: dict[str, Any] | None = None, vision: dict[str, Any] | None = None,
             **top: Any) -> dict[str, Any]:
    """The fixture's class-default config of ``model_type`` with ``text`` / ``vision`` / ``top`` fields replaced
    (a changed layer count drops the derived ``layer_types``)."""
    cfg = copy.deepcopy(_TYPES[model_type]["default_config"])
    cfg["model_type"] = model_type
    for name, changes in (("text_config", text), ("vision_config", vision)):
        if changes:
            cfg[name].update(changes)
            if "num_hidden_layers" in changes:
                cfg[name].pop("layer_types", None)
    cfg.update(top)
    return cfg


def _transformers_counts(cfg: dict[str, Any]) -> tuple[int, int]:
    """(total, vision) of the meta-device model: vision = every parameter outside the decoder and lm_head."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    model = meta_model(cfg)
    total = vision = 0
    for name, p in model.named_parameters():
        total += p.numel()
        if not any(part in name for part in _TEXT_NOT_VISION):
            vision += p.numel()
    return total, vision


VARIANTS: dict[str, dict[str, Any]] = {
    # CLIP towers: image size, patch, depth, several feature layers concatenated, projector without bias, tying
    "llava_clip_224_p16_feature_layers": _variant(
        "llava", text=_TINY, vision=dict(image_size=224, patch_size=16, num_hidden_layers=3, hidden_size=96,
                                         intermediate_size=160, num_attention_heads=4),
        vision_feature_layer=[-2, -3], multimodal_projector_bias=False, tie_word_embeddings=True),
    "llava_next_video_clip": _variant("llava_next_video", text=_TINY, vision=dict(image_size=168, num_hidden_layers=2)),
    "video_llava_two_towers": _variant("video_llava", text=_TINY, vision=dict(image_size=112, num_hidden_layers=2)),
    "vipllava_three_feature_layers": _variant("vipllava", text=_TINY, vision=dict(num_hidden_layers=4),
                                              vision_feature_layers=[-1, -2, 1]),
    # SigLIP towers with and without the pooling head
    "llava_onevision_siglip_head": _variant(
        "llava_onevision", text=_TINY, vision=dict(num_hidden_layers=2, vision_use_head=True, image_size=224)),
    "paligemma_448": _variant("paligemma", text=_TINY, vision=dict(image_size=448, num_hidden_layers=2),
                              projection_dim=64),
    "cohere2_vision_downsample_3": _variant(
        "cohere2_vision", text=dict(_TINY, num_key_value_heads=4), vision=dict(num_hidden_layers=2),
        downsample_factor=3, alignment_intermediate_size=256),
    "deepseek_vl_untied": _variant("deepseek_vl", text=_TINY, vision=dict(num_hidden_layers=3),
                                   tie_word_embeddings=False),
    # Pixtral: merge size, projector bias, wider heads
    "mistral3_merge1_bias": _variant(
        "mistral3", text=dict(_TINY, head_dim=16), vision=dict(num_hidden_layers=2, hidden_size=128,
                                                               intermediate_size=192, head_dim=32),
        spatial_merge_size=1, multimodal_projector_bias=True),
    "lighton_ocr_merge3": _variant("lighton_ocr", text=dict(_TINY, head_dim=16), vision=dict(num_hidden_layers=2),
                                   spatial_merge_size=3),
    # Qwen-VL towers (merger inside the tower)
    "qwen2_vl_small": _variant(
        "qwen2_vl", text=dict(_TINY, num_hidden_layers=2), vision=dict(
            depth=3, embed_dim=96, num_heads=4, mlp_ratio=3, hidden_size=64, spatial_merge_size=3, patch_size=16)),
    "qwen2_5_vl_small": _variant(
        "qwen2_5_vl", text=dict(_TINY, num_hidden_layers=2), vision=dict(
            depth=3, hidden_size=96, intermediate_size=120, num_heads=4, out_hidden_size=64, temporal_patch_size=1)),
    "qwen3_vl_deepstack_2": _variant(
        "qwen3_vl", text=dict(_TINY, head_dim=16), vision=dict(
            depth=4, hidden_size=64, intermediate_size=96, num_heads=4, out_hidden_size=64,
            num_position_embeddings=256, deepstack_visual_indexes=[1, 2])),
    "qwen3_5_vision_small": _variant(
        "qwen3_5", vision=dict(depth=3, hidden_size=64, intermediate_size=96, num_heads=4, out_hidden_size=4096,
                               num_position_embeddings=144, spatial_merge_size=1)),
    "exaone4_5_gqa_tower": _variant(
        "exaone4_5", vision=dict(depth=2, hidden_size=128, intermediate_size=96, num_heads=8, num_key_value_heads=2,
                                 out_hidden_size=4096)),
    # InternViT: RMS norms, q/k norms, final LayerNorm, attention biases, another downsample ratio
    "internvl_variants": _variant(
        "internvl", text=_TINY, vision=dict(
            num_hidden_layers=2, norm_type="rms_norm", use_qk_norm=True, use_mean_pooling=False,
            attention_bias=True, image_size=[224, 336], use_mask_token=True),
        downsample_ratio=0.25),
    "qianfan_ocr_no_positions": _variant("qianfan_ocr", text=dict(_TINY, head_dim=16), vision=dict(
        num_hidden_layers=2, use_absolute_position_embeddings=False)),
    # SigLIP without head, pixel shuffle
    "idefics3_scale_3": _variant("idefics3", text=_TINY, scale_factor=3,
                                 vision=dict(num_hidden_layers=2, image_size=384, patch_size=16)),
    "smolvlm_small": _variant("smolvlm", text=_TINY, vision=dict(num_hidden_layers=1, hidden_size=64,
                                                                  num_attention_heads=4)),
    # SAM-style GOT-OCR2 tower
    "got_ocr2_no_rel_pos": _variant("got_ocr2", text=_TINY, vision=dict(
        num_hidden_layers=3, global_attn_indexes=[1], use_rel_pos=False, output_channels=64)),
    "pp_chart2table_window_8": _variant("pp_chart2table", text=_TINY, vision=dict(
        num_hidden_layers=4, global_attn_indexes=[3], window_size=8, image_size=512, qkv_bias=False)),
    # MoonViT + projector
    "kimi_k25_small": _variant(
        "kimi_k25", text=dict(num_hidden_layers=2, first_k_dense_replace=1, n_routed_experts=8, hidden_size=64,
                              intermediate_size=96, moe_intermediate_size=32, num_attention_heads=4,
                              num_key_value_heads=4, vocab_size=512, q_lora_rank=16, kv_lora_rank=16,
                              qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, n_group=1, topk_group=1,
                              num_experts_per_tok=2),
        vision=dict(num_hidden_layers=2, pos_emb_height=32, pos_emb_width=48, merge_kernel_size=[2, 3]),
        projection_hidden_size=1152),
    # GLM-4V tower: positions, downsample conv, gated merger
    "glm4v_small": _variant("glm4v", text=dict(_TINY, num_key_value_heads=4), vision=dict(
        depth=2, hidden_size=96, num_heads=4, out_hidden_size=80, intermediate_size=120, image_size=224,
        attention_bias=True, spatial_merge_size=1)),
    "paddleocr_vl_biases_merge3": _variant(
        "paddleocr_vl", text=dict(_TINY, head_dim=16, use_bias=True),
        vision=dict(num_hidden_layers=2, image_size=224, spatial_merge_size=3)),
    "video_llama_3_small": _variant("video_llama_3", text=_TINY, vision=dict(num_hidden_layers=2, patch_size=14)),
    "minicpmv4_6_merger_times_2": _variant(
        "minicpmv4_6", vision=dict(num_hidden_layers=3, insert_layer_id=1, image_size=448, window_kernel_size=[1, 2]),
        merger_times=2),
    "minicpm_ocr_small": _variant("minicpm_ocr", vision=dict(num_hidden_layers=2, patch_size=14, hidden_size=96,
                                                              intermediate_size=64, num_attention_heads=4)),
    # LFM2-VL's tower and projector, on a Llama decoder (the wrapper builds any text_config with AutoModel)
    "lfm2_vl_siglip2_on_llama": _variant(
        "lfm2_vl", vision=dict(num_hidden_layers=2, num_patches=196), text_config=dict(_TINY, model_type="llama"),
        downsample_factor=3, projector_use_layernorm=False, projector_hidden_size=48),
    # Gemma 4's tower and embedder, on a small gemma4_text decoder (Gemma4Config builds any text_config as one)
    "gemma4_vision_small": dict(_variant("gemma4"), text_config=dict(
        _TINY, model_type="gemma4_text", head_dim=16, hidden_size_per_layer_input=8, vocab_size_per_layer_input=96,
        global_head_dim=32), vision_config=dict(
        model_type="gemma4_vision", hidden_size=96, intermediate_size=160, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=32, patch_size=14, position_embedding_size=512)),
    "hyperclovax_vision_v2_small": _variant("hyperclovax_vision_v2", text=_TINY, vision=dict(
        depth=2, hidden_size=96, intermediate_size=64, num_heads=4, out_hidden_size=80)),
}


def _count(cfg: dict[str, Any]) -> ParamCount:
    """count_params, also for a wrapper whose registry entry waits for its usual decoder to be counted
    (``vision`` set, ``params`` not yet): counted with the decoder the variant gives."""
    entry = lookup(cfg["model_type"])
    if entry is None or entry.params is not None or entry.vision is None:
        return count_params(cfg)
    patched = dataclasses.replace(entry, params="multimodal")
    def patched_lookup(mt: str) -> ModelType | None:
        return patched if mt == patched.name else lookup(mt)
    readers = [m for name, m in sys.modules.items() if name.startswith("kvcalc.models.") and hasattr(m, "lookup")]
    with contextlib.ExitStack() as patches:
        for module in readers:
            patches.enter_context(mock.patch.object(module, "lookup", patched_lookup))
        return count_params(cfg)


# variants of which only the tower and projector are compared (none since gemma4_text is counted)
VISION_ONLY: tuple[str, ...] = ()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_matches_transformers(name):
    cfg = VARIANTS[name]
    total, vision = _transformers_counts(cfg)
    ours = _count(cfg)
    assert ours.vision == vision
    if name not in VISION_ONLY:
        assert ours.total == total
    assert ours.quality == "exact" and ours.total == sum(ours.parts().values())


def test_llava_sub_configs_omitted_take_the_wrapper_class_defaults():
    """LlavaConfig without vision_config builds CLIP ViT-L/14-336 (not CLIPVisionConfig's own defaults)."""
    cfg = {"model_type": "llava", "text_config": {"model_type": "llama", **_TINY}}
    assert count_params(cfg).total == _transformers_counts(cfg)[0]


# --------------------------------------------------------------------------- refused, never guessed
def test_unknown_vision_tower_is_refused():
    cfg = _variant("llava", vision=dict(model_type="made_up_vision"))
    with pytest.raises(UnsupportedError, match="vision_config.model_type 'made_up_vision' is not counted"):
        count_params(cfg)


def test_uncounted_text_decoder_is_refused():
    cfg = _variant("llava", text=dict(model_type="made_up_decoder"))
    with pytest.raises(UnsupportedError, match="text_config.model_type 'made_up_decoder'"):
        count_params(cfg)


@pytest.mark.parametrize("field, value", [("vision_config", [1, 2]), ("text_config", "llama")])
def test_sub_config_must_be_an_object(field, value):
    cfg = dict(_variant("llava"), **{field: value})
    with pytest.raises(ConfigError, match=field):
        count_params(cfg)


def test_gemma4_audio_tower_is_refused():
    cfg = dict(VARIANTS["gemma4_vision_small"], audio_config={"model_type": "gemma4_audio"})
    with pytest.raises(UnsupportedError, match="audio_config"):
        _count(cfg)


def test_gemma4_other_text_type_is_refused():
    """Gemma4Config builds a llama text_config as Gemma4TextConfig (configuration_gemma4.Gemma4Config.sub_configs):
    counting it as Llama would be wrong, so it is refused."""
    cfg = dict(VARIANTS["gemma4_vision_small"], text_config=dict(_TINY, model_type="llama"))
    with pytest.raises(UnsupportedError, match="gemma4_text"):
        count_params(cfg)


def test_internvl_unknown_norm_type_is_refused():
    with pytest.raises(ConfigError, match="norm_type"):
        count_params(_variant("internvl", vision=dict(norm_type="batch_norm")))
