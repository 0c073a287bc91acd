"""Parameter counts of IDEFICS and Kosmos-2 against transformers' meta-device counts of NON-default shapes.

The class defaults are replayed from the coverage fixture by tests/reference/test_transformers_coverage.py; here each
family is checked on other shapes. Every expected number was obtained in transformers 5.24 by building the
config below with ``AutoConfig.for_model(model_type, **config)`` and the named class on ``torch.device("meta")``,
then summing ``p.numel()`` over ``model.parameters()`` (tied weights once).
"""
from __future__ import annotations

import pytest

import kvcalc

_SMALL_VISION = dict(intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, image_size=56, patch_size=14)

# IdeficsForVisionText2Text on the meta device: 265,824 parameters. Perceiver resampler on (with its q/k
# LayerNorms), gated cross-attention every 2nd layer with vector alphas and q/k RMSNorms, 2 additional tokens,
# lm_head tied to the embeddings (both the regular and the additional rows).
IDEFICS_RESAMPLER = dict(
    hidden_size=64, intermediate_size=96, num_hidden_layers=4, num_attention_heads=4, vocab_size=128,
    additional_vocab_size=2, tie_word_embeddings=True, qk_layer_norms=True, alpha_type="vector",
    cross_layer_interval=2, use_resampler=True,
    perceiver_config=dict(resampler_depth=2, resampler_n_heads=2, resampler_head_dim=8, resampler_n_latents=4,
                          qk_layer_norms_perceiver=True),
    vision_config=dict(embed_dim=32, **_SMALL_VISION))

# IdeficsForVisionText2Text on the meta device: 287,780 parameters. 5 layers with cross_layer_interval 2 (2 gated
# cross-attention layers), float alphas, no resampler, 3 additional tokens, an untied lm_head (IdeficsConfig's
# default) with its additional_fc.
IDEFICS_UNTIED = dict(
    hidden_size=64, intermediate_size=96, num_hidden_layers=5, num_attention_heads=4, vocab_size=128,
    additional_vocab_size=3, cross_layer_interval=2, vision_config=dict(embed_dim=32, **_SMALL_VISION))

# Kosmos2ForConditionalGeneration on the meta device: 209,600 parameters. Text blocks with add_cross_attention
# (an encoder_attn and its LayerNorm each), both tie flags false (an lm_head of its own), 8 latent queries.
KOSMOS2_SMALL = dict(
    latent_query_num=8, tie_word_embeddings=False,
    text_config=dict(tie_word_embeddings=False, add_cross_attention=True, embed_dim=64, ffn_dim=96, layers=3,
                     attention_heads=4, vocab_size=128),
    vision_config=dict(hidden_size=32, **_SMALL_VISION))


@pytest.mark.parametrize(("config", "expected"), [
    (IDEFICS_RESAMPLER, 265_824),
    (IDEFICS_UNTIED, 287_780),
])
def test_idefics_non_default_shapes_equal_meta_device_counts(config: dict, expected: int) -> None:
    count = kvcalc.count_params({"model_type": "idefics", **config})
    assert count.total == expected
    assert count.quality == "exact"


def test_idefics_resampler_is_counted_as_vision() -> None:
    # IDEFICS_RESAMPLER with use_resampler false: 244,704 on the meta device; the model.perceiver_resampler.*
    # parameters of IDEFICS_RESAMPLER sum to 21,120 (= 265,824 - 244,704)
    with_resampler = kvcalc.count_params({"model_type": "idefics", **IDEFICS_RESAMPLER})
    without = kvcalc.count_params({"model_type": "idefics", **IDEFICS_RESAMPLER, "use_resampler": False})
    assert without.total == 244_704
    assert with_resampler.vision - without.vision == 21_120


def test_idefics_refuses_an_unknown_alpha_type() -> None:
    with pytest.raises(kvcalc.ConfigError, match="alpha_type"):
        kvcalc.count_params({"model_type": "idefics", **IDEFICS_UNTIED, "alpha_type": "matrix"})


def test_kosmos2_non_default_shape_equals_meta_device_count() -> None:
    count = kvcalc.count_params({"model_type": "kosmos-2", **KOSMOS2_SMALL})
    assert count.total == 209_600
    assert count.lm_head == 8_192 and not count.tied_embeddings    # text_model.lm_head.weight: 128 x 64 (meta)


@pytest.mark.parametrize(("config", "expected"), [
    # Kosmos2Config(tie_word_embeddings=False): 1,664,485,376 on the meta device, still tied (the text config's
    # own flag, true by default, ties Kosmos2TextForCausalLM's lm_head)
    ({"tie_word_embeddings": False}, 1_664_485_376),
    # both flags false: 1,797,681,152 on the meta device (an lm_head of 65037 x 2048)
    ({"tie_word_embeddings": False, "text_config": {"tie_word_embeddings": False}}, 1_797_681_152),
])
def test_kosmos2_either_tie_flag_ties_the_head(config: dict, expected: int) -> None:
    assert kvcalc.count_params({"model_type": "kosmos-2", **config}).total == expected
