"""Tiny configs (as config.json dicts) for the ground-truth tests: every layer kind kvcalc models.

Each entry is ``model_type -> dict`` of the fields that make the model tiny; transformers fills
in the rest from its own defaults, and the test passes ``config.to_dict()`` (what
``save_pretrained`` writes) to kvcalc, so kvcalc sees what a Hub config.json holds.
"""
from __future__ import annotations

_DEC = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=4, num_attention_heads=4,
            num_key_value_heads=2, vocab_size=128, max_position_embeddings=256)

TINY: dict[str, dict] = {
    "llama": dict(_DEC),
    "mistral": dict(_DEC, sliding_window=6),
    "qwen2": dict(_DEC, use_sliding_window=True, sliding_window=6, max_window_layers=2),
    "qwen2_moe": dict(_DEC, use_sliding_window=True, sliding_window=6, max_window_layers=2,
                      moe_intermediate_size=32, shared_expert_intermediate_size=32, num_experts=4,
                      num_experts_per_tok=2),
    "qwen3": dict(_DEC, head_dim=24),
    "qwen3_moe": dict(_DEC, head_dim=24, moe_intermediate_size=32, num_experts=4, num_experts_per_tok=2),
    "gemma": dict(_DEC, head_dim=32, num_key_value_heads=1),
    "gemma2": dict(_DEC, head_dim=32, sliding_window=6),
    "gemma3_text": dict(_DEC, head_dim=32, sliding_window=6, num_hidden_layers=7),
    "cohere2": dict(_DEC, sliding_window=6, num_hidden_layers=5),
    "gpt_oss": dict(_DEC, head_dim=16, sliding_window=6, num_local_experts=4, num_experts_per_tok=2),
    "phi3": dict(_DEC, sliding_window=6, pad_token_id=0),
    "mixtral": dict(_DEC, num_local_experts=4, num_experts_per_tok=2),
    "starcoder2": dict(_DEC, sliding_window=6),
    "gpt2": dict(n_embd=64, n_layer=3, n_head=4, vocab_size=128, n_positions=256),
    "gpt_bigcode": dict(n_embd=64, n_layer=3, n_head=4, vocab_size=128, n_positions=256, multi_query=True),
    "gpt_neox": dict(hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
                     vocab_size=128, max_position_embeddings=256),
    "falcon": dict(hidden_size=64, num_hidden_layers=3, num_attention_heads=8, num_kv_heads=2,
                   new_decoder_architecture=True, vocab_size=128),
    "bloom": dict(hidden_size=64, n_layer=3, n_head=4, vocab_size=128),
    "opt": dict(hidden_size=64, ffn_dim=96, num_hidden_layers=3, num_attention_heads=4, vocab_size=128,
                word_embed_proj_dim=64, max_position_embeddings=256),
    "deepseek_v2": dict(_DEC, kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=8, qk_nope_head_dim=16,
                        v_head_dim=12, moe_intermediate_size=32, n_routed_experts=4, num_experts_per_tok=2,
                        n_shared_experts=1, first_k_dense_replace=1, n_group=1, topk_group=1, num_key_value_heads=4),
    "deepseek_v3": dict(_DEC, kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8, qk_nope_head_dim=16,
                        v_head_dim=12, moe_intermediate_size=32, n_routed_experts=4, num_experts_per_tok=2,
                        n_shared_experts=1, first_k_dense_replace=1, n_group=1, topk_group=1, num_key_value_heads=4),
    "llama4_text": dict(_DEC, head_dim=16, attention_chunk_size=6, intermediate_size_mlp=96,
                        num_local_experts=2, num_experts_per_tok=1, interleave_moe_layer_step=1),
    "mamba": dict(hidden_size=64, num_hidden_layers=3, state_size=8, vocab_size=128),
    "mamba2": dict(hidden_size=64, num_hidden_layers=3, state_size=8, num_heads=8, head_dim=16, n_groups=2,
                   vocab_size=128, expand=2),
    "jamba": dict(_DEC, num_hidden_layers=4, attn_layer_period=2, attn_layer_offset=1, expert_layer_period=2,
                  expert_layer_offset=1, num_experts=2, num_experts_per_tok=1, mamba_d_state=8,
                  mamba_d_conv=4, mamba_expand=2, mamba_dt_rank=8, use_mamba_kernels=False),
    "bamba": dict(_DEC, attn_layer_indices=[1, 3], mamba_n_heads=8, mamba_d_head=16, mamba_n_groups=1,
                  mamba_d_state=8, mamba_d_conv=4, mamba_expand=2),
    "falcon_h1": dict(_DEC, head_dim=16, mamba_d_ssm=64, mamba_n_heads=4, mamba_d_head=16, mamba_n_groups=1,
                      mamba_d_state=8, mamba_d_conv=4, mamba_expand=2),
    "zamba2": dict(hidden_size=64, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=4,
                   vocab_size=128, mamba_d_state=8, mamba_headdim=16, n_mamba_heads=8, mamba_ngroups=1,
                   hybrid_layer_ids=[1, 3], layers_block_type=["mamba", "hybrid", "mamba", "hybrid"],
                   max_position_embeddings=256),
    "nemotron_h": dict(_DEC, layers_block_type=["mamba", "attention", "mamba", "moe"], mamba_num_heads=8,
                       mamba_head_dim=16, n_groups=1, ssm_state_size=8, conv_kernel=4, expand=2,
                       n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                       moe_shared_expert_intermediate_size=32, n_group=1, topk_group=1),
    "qwen3_next": dict(_DEC, head_dim=16, layer_types=["linear_attention", "linear_attention", "linear_attention",
                       "full_attention"], linear_num_value_heads=4, linear_num_key_heads=2,
                       linear_key_head_dim=16, linear_value_head_dim=16, linear_conv_kernel_dim=4,
                       moe_intermediate_size=32, shared_expert_intermediate_size=32, num_experts=4,
                       num_experts_per_tok=2),
    "minimax": dict(_DEC, head_dim=16, num_local_experts=2, num_experts_per_tok=1),
    "lfm2": dict(_DEC, full_attn_idxs=[1, 3]),
    "granitemoehybrid": dict(_DEC, layer_types=["mamba", "attention", "mamba", "attention"], mamba_n_heads=8,
                             mamba_d_head=16, mamba_d_state=8, mamba_n_groups=1, num_local_experts=2,
                             num_experts_per_tok=1),
    "falcon_mamba": dict(hidden_size=64, num_hidden_layers=3, state_size=8, vocab_size=128),
    "deepseek_v32": dict(_DEC, num_hidden_layers=3, num_key_value_heads=4, kv_lora_rank=16, q_lora_rank=24,
                         qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=12, moe_intermediate_size=32,
                         n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1,
                         n_group=1, topk_group=1, index_head_dim=16, index_n_heads=2, index_topk=4),
    "gemma3n_text": dict(_DEC, num_hidden_layers=10, head_dim=16, sliding_window=6, num_kv_shared_layers=4,
                         hidden_size_per_layer_input=8, vocab_size_per_layer_input=128, laurel_rank=4,
                         altup_num_inputs=2),
    "gemma4_text": dict(_DEC, num_hidden_layers=8, head_dim=16, sliding_window=6, global_head_dim=32,
                        num_kv_shared_layers=2, hidden_size_per_layer_input=8, vocab_size_per_layer_input=128),
    "kimi_linear": dict(_DEC, num_key_value_heads=4, kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=16,
                        v_head_dim=16, q_lora_rank=None, pad_token_id=0, num_experts=2, num_experts_per_token=1,
                        moe_intermediate_size=32,
                        linear_attn_config={"head_dim": 16, "num_heads": 4, "short_conv_kernel_size": 4,
                                            "full_attn_layers": [2, 4], "kda_layers": [1, 3]}),
    "mllama_text_model": dict(_DEC, cross_attention_layers=[1, 3], pad_token_id=0),
    "qwen3_5_text": dict(_DEC, head_dim=16, layer_types=["linear_attention", "full_attention", "linear_attention",
                         "full_attention"], linear_num_value_heads=4, linear_num_key_heads=2,
                         linear_key_head_dim=16, linear_value_head_dim=16, linear_conv_kernel_dim=4),
    "qwen3_5_moe_text": dict(_DEC, head_dim=16, num_hidden_layers=8, linear_num_value_heads=4,
                             linear_num_key_heads=2, linear_key_head_dim=16, linear_value_head_dim=16,
                             linear_conv_kernel_dim=4, moe_intermediate_size=32, shared_expert_intermediate_size=32,
                             num_experts=4, num_experts_per_tok=2),
    # Llama-style types counted by params._llama_like (entries matched to the coverage fixture)
    "cohere": dict(_DEC, use_qk_norm=True),
    "cohere2_moe": dict(_DEC, num_experts=4, num_experts_per_tok=2, sliding_window=6),
    "cwm": dict(_DEC, sliding_window=6),
    "ernie4_5": dict(_DEC),
    "exaone": dict(_DEC),
    "exaone4": dict(_DEC, sliding_window=6, sliding_window_pattern=2),
    "flex_olmo": dict(_DEC, num_experts=4, num_experts_per_tok=2, pad_token_id=0),
    "glm": dict(_DEC, pad_token_id=0),
    "glm4": dict(_DEC, pad_token_id=0),
    "granite": dict(_DEC),
    "granitemoe": dict(_DEC, num_local_experts=4, num_experts_per_tok=2),
    "hyperclovax": dict(_DEC),
    "internlm3": dict(_DEC),
    "iquestcoder": dict(_DEC),
    "mellum": dict(_DEC, num_local_experts=4, num_experts_per_tok=2, moe_intermediate_size=32),
    "ministral3": dict(_DEC, sliding_window=6),
    "olmo2": dict(_DEC),
    "olmo3": dict(_DEC, sliding_window=6),
    "olmoe": dict(_DEC, num_experts=4, num_experts_per_tok=2),
    "seed_oss": dict(_DEC),
    "smollm3": dict(_DEC, sliding_window=6, pad_token_id=0),
    "vaultgemma": dict(_DEC, sliding_window=6),
    "glm4_moe": dict(_DEC, n_routed_experts=4, n_shared_experts=1, first_k_dense_replace=1, moe_intermediate_size=32,
                     num_experts_per_tok=2, use_qk_norm=True, pad_token_id=0, n_group=1, topk_group=1),
    "minimax_m2": dict(_DEC, head_dim=16, num_local_experts=4, num_experts_per_tok=2),
    "glm4_moe_lite": dict(_DEC, num_key_value_heads=4, kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8,
                          qk_nope_head_dim=16, v_head_dim=12, moe_intermediate_size=32, n_routed_experts=4,
                          num_experts_per_tok=2, n_shared_experts=1, n_group=1, topk_group=1, pad_token_id=0),
    "sarvam_moe": dict(_DEC, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                       first_k_dense_replace=1, n_shared_experts=1, pad_token_id=0),
    "mimo_v2_flash": dict(_DEC, num_hidden_layers=7, head_dim=16, v_head_dim=8, sliding_window=6,
                          n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=32),
    "longcat_flash": dict(hidden_size=64, num_layers=3, num_attention_heads=4, vocab_size=128, kv_lora_rank=16,
                          q_lora_rank=24, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=12, head_dim=8,
                          ffn_hidden_size=96, expert_ffn_hidden_size=32, n_routed_experts=4, zero_expert_num=2,
                          moe_topk=2, max_position_embeddings=256),
}

# Variants of a type whose rule differs with a flag: name -> (model_type, tiny fields).
TINY_VARIANTS: dict[str, tuple[str, dict]] = {
    # transformers windows every qwen3_moe layer (no max_window_layers field), unlike qwen2 / qwen3
    "qwen3_moe+sliding": ("qwen3_moe", dict(TINY["qwen3_moe"], use_sliding_window=True, sliding_window=6,
                                            max_window_layers=2)),
    # use_sliding_window false: the config class drops the window, every layer is full
    "qwen3+no_window": ("qwen3", dict(TINY["qwen3"], use_sliding_window=False, sliding_window=6)),
}


def tiny(name: str) -> tuple[str, dict]:
    """(model_type, tiny fields) for a TINY, TINY_SEQ2SEQ or TINY_VARIANTS name."""
    if name in TINY_VARIANTS:
        return TINY_VARIANTS[name]
    return name, (TINY_SEQ2SEQ if name in TINY_SEQ2SEQ else TINY)[name]

# Encoder-decoder models (built with their ...ForConditionalGeneration class).
_SEQ2SEQ = dict(d_model=32, encoder_layers=2, decoder_layers=3, encoder_attention_heads=4, decoder_attention_heads=4,
                encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=100, max_position_embeddings=64)
TINY_SEQ2SEQ: dict[str, dict] = {
    "t5": dict(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=3, num_heads=4, vocab_size=100),
    "bart": dict(_SEQ2SEQ),
    "whisper": dict(_SEQ2SEQ, num_mel_bins=8, max_source_positions=10, max_target_positions=32, pad_token_id=1,
                    bos_token_id=1, eos_token_id=2, decoder_start_token_id=3, begin_suppress_tokens=None,
                    suppress_tokens=None),
}


# T5Gemma 2 with a tiny SigLIP encoder tower: 7 decoder layers, 1 KV head x 32, window 5, no layer_types
# (T5Gemma2DecoderConfig: every 6th layer full); read by the KV and the parameter tests of nested decoders
T5GEMMA2_TEXT = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 300, "sliding_window": 6}
T5GEMMA2 = {"model_type": "t5gemma2", "image_token_index": 299,
            "encoder": {"model_type": "t5gemma2_encoder",
                        "text_config": {**T5GEMMA2_TEXT, "model_type": "t5gemma2_text"},
                        "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 32,
                                          "intermediate_size": 48, "num_hidden_layers": 1, "num_attention_heads": 2,
                                          "image_size": 32, "patch_size": 16},
                        "mm_tokens_per_image": 4, "boi_token_index": 297, "eoi_token_index": 298,
                        "image_token_index": 299},
            "decoder": {"model_type": "t5gemma2_decoder", "hidden_size": 64, "intermediate_size": 96,
                        "num_hidden_layers": 7, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 32,
                        "sliding_window": 5, "vocab_size": 300}}
