"""kvcalc.params for Inkling 2, Dory, Mistral 4 / Mistral Large 4, the VQ early-fusion models (Chameleon, Emu3),
Cohere Compass, DeepSeek V4 and DiffusionGemma: counts == what transformers 5.24 builds on the meta device.

The class-default configs are replayed from the committed fixture by tests/reference/test_transformers_coverage.py; here
each family gets configs that differ from the defaults (other sizes, GQA, biases, tying, dense-first layers,
no q LoRA, VQ-VAE shapes, ...). Every expected total below was counted by transformers 5.24.0 (torch 2.13 CPU):
``with torch.device("meta"): m = <Class>._from_config(AutoConfig.for_model(**config))`` then
``sum(p.numel() for p in m.parameters())``, the class named beside each case. None is kvcalc output.
"""
from __future__ import annotations

from typing import Any

import pytest

import kvcalc
from kvcalc.errors import UnsupportedError
from kvcalc.params import count_params

_ROPE_FULL = {"full_attention": {"rope_theta": 10000.0, "rope_type": "default"}}
_COHERE_TEXT = dict(model_type="cohere_compass_text", vocab_size=1000, hidden_size=256, intermediate_size=512,
                    num_attention_heads=8, num_key_value_heads=2, rope_parameters=_ROPE_FULL)

# (config, transformers' meta-device count, the class it was counted with)
CASES: list[tuple[str, dict[str, Any], int]] = [
    # Mistral4ForCausalLM: no q LoRA (q_proj), two dense-first layers, two shared experts, tied embeddings
    ("mistral4_no_q_lora_dense_first", dict(
        model_type="mistral4", vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=4, q_lora_rank=None, kv_lora_rank=32, qk_nope_head_dim=16,
        qk_rope_head_dim=8, v_head_dim=24, head_dim=24, first_k_dense_replace=2, n_routed_experts=8,
        n_shared_experts=2, moe_intermediate_size=64, num_experts_per_tok=2, tie_word_embeddings=True), 2290048),
    # CohereCompassForCausalLM: GQA, attention biases, untied head
    ("cohere_compass_text_gqa_bias", dict(_COHERE_TEXT, num_hidden_layers=3, tie_word_embeddings=False,
                                          attention_bias=True), 2186112),
    # CohereCompassForConditionalGeneration: a 3-block tower with one deepstack merger, tied head
    ("cohere_compass_small_tower", dict(
        model_type="cohere_compass", tie_word_embeddings=True, text_config=dict(_COHERE_TEXT, num_hidden_layers=2),
        vision_config=dict(model_type="cohere_compass_vision", depth=3, hidden_size=64, intermediate_size=128,
                           num_heads=4, out_hidden_size=256, num_position_embeddings=64,
                           deepstack_visual_indexes=[1])), 1837568),
    # ChameleonForConditionalGeneration: GQA, biases, tied, swin_norm; a VQ-VAE with attention at 32 px, a
    # doubled latent, one res block per level
    ("chameleon_small_vq", dict(
        model_type="chameleon", vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=3,
        num_attention_heads=8, num_key_value_heads=2, attention_bias=True, mlp_bias=True, tie_word_embeddings=True,
        swin_norm=True, vocabulary_map={"<image>": 5}, vq_config=dict(
            base_channels=32, channel_multiplier=[1, 2, 2], resolution=64, attn_resolutions=[32],
            double_latent=True, num_embeddings=100, embed_dim=16, latent_channels=32, num_res_blocks=1)), 2355664),
    # DoryForCausalLM: 6 layers (no "mlp" blocks listed: not halved), head_dim 48, every bias, tied (the
    # DoryLMHead logit_scale stays)
    ("dory_biases_tied", dict(
        model_type="dory", vocab_size=1000, hidden_size=128, intermediate_size=256, num_hidden_layers=6,
        num_attention_heads=4, num_key_value_heads=2, head_dim=48, n_input_layers=1, n_output_layers=1,
        attention_bias=True, mlp_bias=True, tie_word_embeddings=True), 1322472),
    # DiffusionGemmaForBlockDiffusion: 6 layers, one full layer with head_dim 32, 4 experts, a 2-layer tower;
    # tied (one decoder: 1130168) and untied (transformers then ties nothing: the decoder's own copy, 1603056)
    *((f"diffusion_gemma_small_{'tied' if tied else 'untied'}", dict(
        model_type="diffusion_gemma", tie_word_embeddings=tied, text_config=dict(
            model_type="diffusion_gemma_text", vocab_size=1000, hidden_size=64, intermediate_size=96,
            num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=2, head_dim=16, num_experts=4,
            top_k_experts=2, moe_intermediate_size=32, sliding_window=8, per_layer_config={"5": {"head_dim": 32}}),
        vision_config=dict(model_type="gemma4_vision", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=2, num_key_value_heads=2, head_dim=16)), n)
      for tied, n in ((True, 1130168), (False, 1603056))),
    # MistralLarge4ForConditionalGeneration: KV sharing (kv_source_layers 0,0,2,2: layers 1 and 3 have no kv_a),
    # a NoPE layer 1, a shared indexer on layer 1, dense layers 0 and 2, two shared experts, tied; small Pixtral
    ("mistral_large4_sharing", dict(
        model_type="mistral_large4", tie_word_embeddings=True, text_config=dict(
            model_type="mistral_large4_text", vocab_size=1000, hidden_size=64, intermediate_size=96,
            moe_intermediate_size=32, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=4,
            kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=16, index_n_heads=2,
            index_head_dim=16, n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=2,
            no_rope_layers=[1, 0, 1, 1], kv_source_layers=[0, 0, 2, 2],
            indexer_types=["full", "shared", "full", "full"], mlp_layer_types=["dense", "sparse", "dense", "sparse"],
            tie_word_embeddings=True),
        vision_config=dict(model_type="pixtral", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=2, patch_size=14, image_size=224)), 278064),
    # InklingForCausalLM: local_layer_ids 0 and 2 (swa heads 2 x 24), one dense-first layer (dense_mlp_idx) whose
    # width is the checkpoint's dense_intermediate_size (intermediate_size then is the experts'), kernel 3
    ("inkling_text_dense_first", dict(
        model_type="inkling_text", vocab_size=1000, hidden_size=64, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, swa_num_attention_heads=2, swa_num_key_value_heads=1, swa_head_dim=24,
        sliding_window_size=8, d_rel=4, rel_extent=32, local_layer_ids=[0, 2], intermediate_size=48,
        dense_intermediate_size=96, dense_mlp_idx=1, n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=1,
        conv_kernel_size=3), 335044),
    # Inkling2ForCausalLM: a hand-set full/sliding pattern, swa heads 2 x 24, an unpadded head of 990 rows, kernel 3
    ("inkling2_text_pattern", dict(
        model_type="inkling2_text", vocab_size=1000, unpadded_vocab_size=990, hidden_size=64, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, head_dim=16, swa_num_attention_heads=2,
        swa_num_key_value_heads=1, swa_head_dim=24, sliding_window_size=8, d_rel=4, rel_extent=32,
        layer_types=["hybrid", "hybrid_sliding", "hybrid", "hybrid_sliding"], moe_intermediate_size=32,
        n_routed_experts=4, num_experts_per_tok=2, conv_kernel_size=3, n_layers_per_attn_res_block=2), 293744),
    # Inkling2LoopForCausalLM: loop layers 3..5 (their message gates, rank 8), kernel 4
    ("inkling2_loop_text_small", dict(
        model_type="inkling2_loop_text", vocab_size=1000, unpadded_vocab_size=1000, hidden_size=64,
        num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=2, head_dim=16, swa_num_attention_heads=4,
        swa_num_key_value_heads=2, swa_head_dim=16, sliding_window_size=8, d_rel=4, rel_extent=32,
        moe_intermediate_size=32, n_routed_experts=4, num_experts_per_tok=2, loop_layer_index_start=3,
        loop_layer_index_end=6, loop_num_passes=2, loop_gate_rank=8, n_layers_per_attn_res_block=3), 416640),
    # Inkling2ForConditionalGeneration: a 2-layer vision tower (mlp_ratio 2, projector biases)
    ("inkling2_small_tower", dict(
        model_type="inkling2", text_config=dict(
            model_type="inkling2_text", vocab_size=1000, unpadded_vocab_size=990, hidden_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
            swa_num_attention_heads=4, swa_num_key_value_heads=2, swa_head_dim=16, sliding_window_size=8, d_rel=4,
            rel_extent=32, moe_intermediate_size=32, n_routed_experts=4, num_experts_per_tok=2,
            n_layers_per_attn_res_block=1),
        vision_config=dict(
            model_type="inkling2_vision", hidden_size=32, num_hidden_layers=2, num_attention_heads=2, patch_size=4,
            mlp_ratio=2.0, posemb_grid_size=4, projection_hidden_dim=48, projector_bias=True, text_hidden_size=64)),
     243472),
    # DeepseekV4ForCausalLM: the Hub's legacy compress_ratios (a sliding, two CSA and an HCA layer), a CSA rate of 8
    # (compress_rate_csa), 2 hyper-connection streams, 2 output groups, one hash-routed layer, tied
    ("deepseek_v4_legacy_ratios", dict(
        model_type="deepseek_v4", vocab_size=1000, hidden_size=64, moe_intermediate_size=32, num_hidden_layers=4,
        num_attention_heads=4, head_dim=32, q_lora_rank=24, num_experts_per_tok=2, n_routed_experts=4, hc_mult=2,
        sliding_window=8, o_groups=2, o_lora_rank=16, index_n_heads=2, index_head_dim=16, index_topk=4,
        compress_ratios=[0, 4, 128, 4], compress_rate_csa=8, tie_word_embeddings=True, num_hash_layers=1), 276491),
    # Emu3ForConditionalGeneration: GQA with attention biases, tied; a VQ-VAE with attention on both levels, a
    # doubled latent, one res block, a temporal factor of 2
    ("emu3_small_vq", dict(
        model_type="emu3", tie_word_embeddings=True, vocabulary_map={"<image>": 5}, image_token_id=5,
        text_config=dict(model_type="emu3_text_model", vocab_size=1000, hidden_size=64, intermediate_size=96,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, attention_bias=True,
                         pad_token_id=0, bos_token_id=1, eos_token_id=2),
        vq_config=dict(model_type="emu3_vqgan", codebook_size=100, embed_dim=8, latent_channels=8, double_latent=True,
                       base_channels=32, channel_multiplier=[1, 2], num_res_blocks=1, attn_resolutions=[0, 1],
                       hidden_size=32, num_attention_heads=2, temporal_downsample_factor=2, out_channels=3)), 839307),
]


@pytest.mark.parametrize("config,expected", [pytest.param(c, n, id=name) for name, c, n in CASES])
def test_count_equals_transformers_meta_device(config, expected):
    result = count_params(config)
    assert result.total == expected
    assert result.quality == "exact"


def test_deepseek_v4_cache_stays_refused():
    """Parameters are counted, the compressed HCA / CSA caches are not modelled: refused, never guessed."""
    with pytest.raises(UnsupportedError, match="compress"):
        kvcalc.kv_cache({"model_type": "deepseek_v4"}, batch=1, context=4096)
