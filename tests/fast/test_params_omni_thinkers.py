"""Parameter counts of the Qwen Omni thinkers against transformers' meta-device counts of NON-default shapes.

The Qwen2.5-Omni / Qwen3-Omni thinkers' class defaults are replayed from the coverage fixture by
tests/reference/test_transformers_coverage.py; here each is checked on another shape. Every expected number was
obtained in transformers 5.24 by building the config below with ``AutoConfig.for_model`` and
``<class>._from_config(config)`` on ``torch.device("meta")`` (tests/hf_reference.py ``meta_model``), summing
``p.numel()`` over ``model.parameters()`` (tied weights once); the routed-expert figure sums the
``.experts.`` tensors (``Qwen3OmniMoeThinkerTextExperts.gate_up_proj`` / ``down_proj``).
"""
from __future__ import annotations

import pytest

import kvcalc

# Qwen2_5OmniThinkerForConditionalGeneration on the meta device: 230,496 parameters. lm_head tied to the
# decoder's embed_tokens by the top-level tie_word_embeddings (the class default is false); a 2-block vision
# tower (RMSNorm merger to 64) and a 2-layer audio encoder with 16 mel bins.
QWEN2_5_OMNI = dict(
    tie_word_embeddings=True,
    text_config=dict(model_type="qwen2_5_omni_text", vocab_size=1000, hidden_size=64, intermediate_size=96,
                     num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2),
    vision_config=dict(model_type="qwen2_5_omni_vision_encoder", hidden_size=32, intermediate_size=48, depth=2,
                       num_heads=4, patch_size=14, out_hidden_size=64, fullatt_block_indexes=[1]),
    audio_config=dict(model_type="qwen2_5_omni_audio_encoder", d_model=32, encoder_attention_heads=4,
                      encoder_layers=2, encoder_ffn_dim=64, num_mel_bins=16, output_dim=64))

# Qwen3OmniMoeThinkerForConditionalGeneration on the meta device: 428,496 parameters, 61,440 of them routed
# experts (2 MoE layers x 4 experts x 3 x 64 x 40). Layer 0 dense (mlp_only_layers), head_dim 24 given
# (not 64 / 4), attention biases on, two deepstack mergers, untied lm_head (the class default).
QWEN3_OMNI = dict(
    text_config=dict(model_type="qwen3_omni_moe_text", vocab_size=1000, hidden_size=64, intermediate_size=96,
                     num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=24,
                     attention_bias=True, mlp_only_layers=[0], num_experts=4, num_experts_per_tok=2,
                     moe_intermediate_size=40),
    vision_config=dict(model_type="qwen3_omni_moe_vision_encoder", hidden_size=32, intermediate_size=48, depth=2,
                       num_heads=4, patch_size=16, out_hidden_size=64, num_position_embeddings=64,
                       deepstack_visual_indexes=[0, 1]),
    audio_config=dict(model_type="qwen3_omni_moe_audio_encoder", d_model=32, encoder_attention_heads=4,
                      encoder_layers=2, encoder_ffn_dim=64, num_mel_bins=20, output_dim=64,
                      downsample_hidden_size=8))


def test_qwen2_5_omni_thinker_tied_small_shape_equals_meta_device_count():
    count = kvcalc.count_params({"model_type": "qwen2_5_omni_thinker", **QWEN2_5_OMNI})
    assert count.total == 230_496
    assert count.quality == "exact"


def test_qwen3_omni_moe_thinker_small_shape_equals_meta_device_count():
    count = kvcalc.count_params({"model_type": "qwen3_omni_moe_thinker", **QWEN3_OMNI})
    assert count.total == 428_496
    assert count.moe_experts == 61_440
    # top-k 2 of 4 experts: the meta-device total less half of its routed-expert tensors
    assert count.active == 428_496 - 61_440 // 2
    assert count.quality == "exact"


@pytest.mark.parametrize("model_type,config", [("qwen2_5_omni_thinker", QWEN2_5_OMNI),
                                               ("qwen3_omni_moe_thinker", QWEN3_OMNI)])
def test_omni_thinker_refuses_another_audio_tower(model_type, config):
    bad = {"model_type": model_type, **config, "audio_config": {"model_type": "whisper"}}
    with pytest.raises(kvcalc.UnsupportedError, match="audio_config"):
        kvcalc.count_params(bad)
