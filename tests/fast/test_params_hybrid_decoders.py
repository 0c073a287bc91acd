"""kvcalc.params.count_params on hybrid / linear-attention decoders, at geometries other than the class defaults.

Every expected number is transformers 5.24's own count, not kvcalc's: ``sum(p.numel() for p in
model.parameters())`` of the named class built from the same config dict on the meta device
(``with torch.device("meta"): m = Class(Class.config_class(**cfg))``; pad / bos / eos token ids set to 0 where
the class default lies outside the small vocabulary, which changes no parameter), run once by hand with torch
2.13 CPU and written in here so this fast test needs no torch. The class-default configs are replayed from the
committed fixture by tests/reference/test_transformers_coverage.py; each case here changes what the counter branches on
(tying, MoE layout, low-rank vs null q_lora_rank, gates, sandwich norms, nested linear_attn_config, ...).
"""
from __future__ import annotations

from typing import Any

import pytest

from kvcalc import kv_cache
from kvcalc.errors import ConfigError
from kvcalc.params import count_params

_MLA = dict(kv_lora_rank=32, qk_rope_head_dim=16, qk_nope_head_dim=32, v_head_dim=48)

_ZAMBA = dict(model_type="zamba", vocab_size=1000, hidden_size=128, intermediate_size=320, num_hidden_layers=11,
              num_attention_heads=4, num_key_value_heads=2, attention_head_dim=40, n_mamba_heads=4, mamba_d_state=8,
              mamba_d_conv=3, mamba_expand=3, mamba_dt_rank=12, mamba_conv_bias=False, mamba_proj_bias=True,
              attn_layer_period=4, attn_layer_offset=1)
_ZAMBA2 = dict(model_type="zamba2", vocab_size=1000, hidden_size=128, intermediate_size=320, num_hidden_layers=7,
               num_attention_heads=4, num_key_value_heads=2, n_mamba_heads=4, mamba_d_state=16, mamba_d_conv=3,
               mamba_ngroups=2, mamba_expand=2, num_mem_blocks=2, use_shared_attention_adapter=True, adapter_rank=8,
               add_bias_linear=True,
               layers_block_type=["mamba", "hybrid", "mamba", "hybrid", "hybrid", "mamba", "hybrid"])

# (id, config, transformers' total, its active count or None for dense). Active, from the same meta build:
# total - R + R * k / E, R = the numel of the routed-expert tensors (``...experts.gate_up_proj`` and
# ``...experts.down_proj``; shared experts and routers stay), k experts per token of E.
CASES: list[tuple[str, dict[str, Any], int, int | None]] = [
    # KimiLinearForCausalLM: q_lora_rank set, attention biases, the Hub's nested linear_attn_config, 2 dense-first
    # layers, tie_word_embeddings true (ignored: the class ties nothing)
    ("kimi_linear", dict(
        model_type="kimi_linear", vocab_size=1000, hidden_size=256, intermediate_size=512, moe_intermediate_size=64,
        num_hidden_layers=6, num_attention_heads=8, q_lora_rank=96, attention_bias=True, **_MLA, num_experts=8,
        num_experts_per_token=2, num_shared_experts=2, first_k_dense_replace=2, tie_word_embeddings=True,
        linear_attn_config=dict(num_heads=4, head_dim=24, short_conv_kernel_size=3, full_attn_layers=[3, 6],
                                kda_layers=[1, 2, 4, 5])), 4130960, 2951312),
    # BailingHybridForCausalLM: KDA heads / head dim / kernel from num_attention_heads, head_dim and
    # short_conv_kernel_size; groups of 4; q_lora_rank set
    ("bailing_hybrid", dict(
        model_type="bailing_hybrid", vocab_size=1000, hidden_size=256, intermediate_size=512,
        moe_intermediate_size=64, num_hidden_layers=8, num_attention_heads=8, head_dim=24, short_conv_kernel_size=3,
        layer_group_size=4, q_lora_rank=96, **_MLA, num_experts=16, num_experts_per_token=4,
        num_shared_experts=1, first_k_dense_replace=1, tie_word_embeddings=False, n_group=4, topk_group=2),
     8970176, 4841408),
    # Lfm2MoeForCausalLM: one dense layer, conv biases, untied head
    ("lfm2_moe", dict(
        model_type="lfm2_moe", vocab_size=1000, hidden_size=256, intermediate_size=512, moe_intermediate_size=64,
        num_hidden_layers=6, num_attention_heads=8, num_key_value_heads=2, num_dense_layers=1, num_experts=8,
        num_experts_per_tok=2, conv_L_cache=4, conv_bias=True, tie_word_embeddings=False,
        layer_types=["conv", "full_attention", "conv", "conv", "full_attention", "conv"]), 4270464, 2795904),
    # the Hub's tie_embedding: false beats tie_word_embeddings: true (Lfm2MoeConfig.__post_init__), no dense layer
    ("lfm2_moe_tie_embedding", dict(
        model_type="lfm2_moe", vocab_size=1000, hidden_size=256, intermediate_size=512, moe_intermediate_size=64,
        num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2, num_dense_layers=0, num_experts=4,
        num_experts_per_tok=1, tie_embedding=False, tie_word_embeddings=True,
        layer_types=["conv", "full_attention", "conv", "conv"]), 2257472, 1667648),
    # Lfm3ForCausalLM: no attention gate, no sandwich norms, attention and conv biases, the class's layer rule
    ("lfm3", dict(
        model_type="lfm3", vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=9,
        num_attention_heads=8, num_key_value_heads=2, head_dim=48, conv_L_cache=5, conv_bias=True,
        attention_bias=True, use_attention_gate=False, use_sandwich_norm=False, tie_word_embeddings=False),
     6366080, None),
    # Lfm3VlForConditionalGeneration: untied, projector without biases, a 5-layer tower with merge 3
    ("lfm3_vl", dict(
        model_type="lfm3_vl", projector_hidden_size=320, projector_bias=False, tie_word_embeddings=False,
        text_config=dict(model_type="lfm3", vocab_size=1000, hidden_size=256, intermediate_size=512,
                         num_hidden_layers=5, num_attention_heads=8, num_key_value_heads=2),
        vision_config=dict(model_type="lfm3_vl_vision", hidden_size=128, intermediate_size=192,
                           num_hidden_layers=5, num_attention_heads=4, num_key_value_heads=2, patch_size=14,
                           temporal_patch_size=1, spatial_merge_size=3, conv_kernel_size=5)), 5791360, None),
    # ZambaForCausalLM, tied (default): one shared block; the layer list from attn_layer_period / offset (no
    # layers_block_type), a given attention_head_dim and mamba_dt_rank, in/out biases, no conv bias
    ("zamba", dict(_ZAMBA), 2260096, None),
    # the same untied: transformers then ties nothing, so each of the 3 hybrid layers keeps its own block
    ("zamba_untied", dict(_ZAMBA, tie_word_embeddings=False), 2839424, None),
    # Zamba2ForCausalLM: legacy "mamba" names, 2 memory blocks over 4 hybrid layers, q/k/v adapters, biases
    ("zamba2", dict(_ZAMBA2), 1608880, None),
    # the same untied: 4 blocks, each with the adapters of its num_mem_blocks slot (2 each)
    ("zamba2_untied", dict(_ZAMBA2, tie_word_embeddings=False), 2386352, None),
    # OlmoHybridForCausalLM with no linear_* fields: OlmoHybridConfig derives heads = num_attention_heads, key head
    # dim int(0.75 * H / heads), value head dim twice that; 3 layers, so its rule makes only the last one full
    ("olmo_hybrid_derived", dict(
        model_type="olmo_hybrid", vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=3,
        num_attention_heads=8, attention_bias=True, tie_word_embeddings=True, linear_conv_kernel_dim=3),
     2500480, None),
    # GQA, a given head_dim and linear geometry, untied
    ("olmo_hybrid", dict(
        model_type="olmo_hybrid", vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=6,
        num_attention_heads=8, num_key_value_heads=2, head_dim=40, linear_num_key_heads=4, linear_num_value_heads=8,
        linear_key_head_dim=24, tie_word_embeddings=False), 4832464, None),
    # LaraMiniForCausalLM: the class's period-5 layer pattern over 7 layers (sliding layers are attention too),
    # attention biases, a shared expert wider than the routed ones, untied
    ("lara_mini", dict(
        model_type="lara_mini", vocab_size=1000, hidden_size=256, num_hidden_layers=7, num_attention_heads=8,
        num_key_value_heads=2, head_dim=40, attention_bias=True, linear_num_key_heads=2, linear_num_value_heads=4,
        linear_key_head_dim=24, linear_value_head_dim=40, linear_conv_kernel_dim=3, moe_intermediate_size=64,
        shared_expert_intermediate_size=96, num_experts=8, num_experts_per_tok=2, tie_word_embeddings=False),
     5072208, 3007824),
    # ZayaForCausalLM: attention biases, an lm_head bias kept though the weight is tied, other conv widths
    ("zaya", dict(
        model_type="zaya", vocab_size=1000, hidden_size=256, num_hidden_layers=3, num_attention_heads=4,
        num_key_value_heads=2, head_dim=48, attention_bias=True, lm_head_bias=True, tie_word_embeddings=True,
        moe_intermediate_size=96, num_experts=6, num_experts_per_tok=1, router_hidden_size=32, cca_time0=3,
        cca_time1=4), 2238894, 1132974),
    ("zaya_untied", dict(
        model_type="zaya", vocab_size=1000, hidden_size=256, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=4, head_dim=32, tie_word_embeddings=False, moe_intermediate_size=96, num_experts=4,
        num_experts_per_tok=1, router_hidden_size=16), 1414200, 971832),
    # Glm5NextForConditionalGeneration: tied head, the last indexed layer sharing its indexer, dense layers given by
    # mlp_layer_types, 2 hyper-connection streams, a tower without biases
    ("glm5_next", dict(
        model_type="glm5_next", tie_word_embeddings=True, text_config=dict(
            model_type="glm5_next_text", vocab_size=1000, hidden_size=128, intermediate_size=256,
            moe_intermediate_size=32, num_hidden_layers=8, num_attention_heads=4, num_key_value_heads=4,
            kv_lora_rank=32, q_lora_rank=48, qk_rope_head_dim=0, qk_nope_head_dim=16, v_head_dim=24,
            n_routed_experts=8, n_shared_experts=2, num_experts_per_tok=2, index_n_heads=2, index_head_dim=16,
            index_kpool=4, index_topk=8, hc_mult=2, linear_num_heads=4, linear_head_dim=16, linear_conv_kernel_dim=3,
            indexer_types=["full"] * 7 + ["shared"],
            mlp_layer_types=["dense", "sparse", "sparse", "sparse", "dense", "sparse", "sparse", "sparse"]),
        vision_config=dict(model_type="glm5_next_vision", depth=2, hidden_size=64, num_heads=4, intermediate_size=96,
                           out_hidden_size=80, projection_intermediate_size=112, attention_bias=False, patch_size=7,
                           temporal_patch_size=1, spatial_merge_size=3)), 1570328, 1127960),
    # a flat config (the decoder fields at the top level, which Glm5NextConfig takes as text_config), the layer
    # and dense-first rules of the class, indexers from index_topk_freq
    ("glm5_next_flat", dict(
        model_type="glm5_next", vocab_size=1000, hidden_size=128, intermediate_size=256, moe_intermediate_size=32,
        num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=4, kv_lora_rank=32, q_lora_rank=48,
        qk_nope_head_dim=16, v_head_dim=24, n_routed_experts=8, num_experts_per_tok=2, index_n_heads=2,
        index_head_dim=16, index_topk=8, index_kpool=4, linear_num_heads=4, linear_head_dim=16, index_topk_freq=2,
        vision_config=dict(depth=1, hidden_size=64, num_heads=4, intermediate_size=96, out_hidden_size=80,
                           projection_intermediate_size=112)), 1438248, 1217064),
    # Hub layouts. moonshotai/Kimi-Linear-48B-A3B-Instruct's config.json (its fields as public engine tests quote
    # it: the nested linear_attn_config with 1-indexed full_attn_layers ending at layer 27, num_experts_per_token,
    # a stale head_dim and num_key_value_heads that KimiLinearConfig ignores for parameters); the model card says
    # 48B total / 3B activated
    ("kimi_linear_48b_a3b", dict(
        model_type="kimi_linear", vocab_size=163840, hidden_size=2304, num_hidden_layers=27, num_attention_heads=32,
        num_key_value_heads=1, intermediate_size=9216, head_dim=72, model_max_length=1048576,
        linear_attn_config=dict(kda_layers=[1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26],
                                full_attn_layers=[4, 8, 12, 16, 20, 24, 27], num_heads=32, head_dim=128,
                                short_conv_kernel_size=4),
        num_experts=256, moe_intermediate_size=1024, kv_lora_rank=512, q_lora_rank=None, qk_nope_head_dim=128,
        qk_rope_head_dim=64, v_head_dim=128, mla_use_nope=True, num_experts_per_token=8, num_shared_experts=1,
        first_k_dense_replace=1, moe_layer_freq=1, num_expert_group=1, topk_group=1, tie_word_embeddings=False,
        num_nextn_predict_layers=0), 49122675072, 3484453248),
    # LiquidAI/LFM2-8B-A1B's config.json (as public engine tests quote it; tie_word_embeddings from the class
    # default); the model card says 8.3B total / 1.5B active
    ("lfm2_8b_a1b", dict(
        model_type="lfm2_moe", vocab_size=65536, hidden_size=2048, intermediate_size=7168, moe_intermediate_size=1792,
        num_hidden_layers=24, num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=128000,
        conv_bias=False, conv_L_cache=3, num_dense_layers=2, num_experts=32, num_experts_per_tok=4,
        use_expert_bias=True,
        layer_types=["conv", "conv", "full_attention", "conv"] * 5 + ["conv", "full_attention", "conv", "conv"]),
     8339929856, 1557740288),
]


@pytest.mark.parametrize("config, total, active", [pytest.param(c, t, a, id=i) for i, c, t, a in CASES])
def test_count_equals_transformers_meta_count(config: dict[str, Any], total: int, active: int | None) -> None:
    got = count_params(config)
    assert got.total == total
    assert got.quality == "exact"
    assert got.active == (total if active is None else active)


def test_zaya_routes_one_expert() -> None:
    """ZayaConfig.validate_architecture rejects num_experts_per_tok != 1; kvcalc refuses the same config."""
    with pytest.raises(ConfigError, match="num_experts_per_tok"):
        count_params({"model_type": "zaya", "num_experts_per_tok": 2})


def test_bailing_kda_state_follows_attention_heads() -> None:
    """BailingHybridConfig.__post_init__ sets the KDA heads / head dim / conv kernel from num_attention_heads,
    head_dim and short_conv_kernel_size when the config gives no linear_* fields (the registry's class defaults of
    32 x 128 held before). Measured: a random-init BailingHybridForCausalLM of this config (pad / eos ids 0 / 1)
    in bfloat16 (layers
    linear x 5 then full, 2 heads of 12, kernel 3, 16 MLA latent + 8 RoPE), batch 2, prefill 5 + 6 decode steps,
    every cache tensor's storage summed per layer (tests/cache_probe.py): 3168 bytes per KDA layer (conv
    3 x 2*12 x 3 bf16 + a 12 x 12 float32 state per head, times 2 sequences) and 1056 for the MLA layer."""
    cfg = dict(model_type="bailing_hybrid", vocab_size=1000, hidden_size=64, intermediate_size=96,
               moe_intermediate_size=32, num_hidden_layers=6, num_attention_heads=2, num_key_value_heads=2,
               head_dim=12, short_conv_kernel_size=3, kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=16,
               v_head_dim=16, num_experts=8, num_experts_per_token=2, first_k_dense_replace=2, n_group=1,
               topk_group=1, layer_types=["linear_attention"] * 5 + ["full_attention"])
    got = kv_cache(cfg, batch=2, context=11, prefill=5, dtype="bfloat16", runtime="transformers")
    assert [layer.bytes for layer in got.layers] == [3168] * 5 + [1056]


def test_glm5_next_flat_config_cache() -> None:
    """Glm5NextConfig.__post_init__ takes a flat config's top-level fields as its text_config (text-only GLM-5.3
    checkpoints). The fixture's tiny glm5_next config with its text_config fields moved to the top level, measured
    on a random-init Glm5NextForConditionalGeneration in bfloat16 (batch 1, prefill 5 + 3 decode steps, every
    cache tensor's storage per layer, tests/cache_probe.py): 4,390,912 bytes per KDA layer, 784 per indexed MLA
    layer (every 4th). kvcalc used to read such a config as an unknown decoder and refuse it."""
    from paths import load_fixture

    rec = load_fixture("transformers_5_24_coverage.json")["types"]["glm5_next"]["config"]
    text = {k: v for k, v in rec["text_config"].items() if k != "model_type"}
    flat = {**text, "model_type": "glm5_next", "vision_config": rec["vision_config"]}
    got = kv_cache(flat, batch=1, context=8, prefill=5, dtype="bfloat16", runtime="transformers")
    assert [layer.bytes for layer in got.layers] == ([4390912] * 3 + [784]) * 11 + [4390912]
    assert got.quality == "exact"
