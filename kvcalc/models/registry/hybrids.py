"""Registry entries of linear-attention and convolution hybrids (LFM2 / LFM3, Kimi Linear, Bailing, OLMo Hybrid,
Inkling, GLM-5 Next, xLSTM).

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.hybrids`."""
from __future__ import annotations

from ..layer_rules import (
    all_layers,
    group_last_full,
    inkling_layers,
    kimi_linear_layers,
    lfm3_layers,
    listed,
    listed_only,
    olmo_hybrid_layers,
)
from ..model_type import ModelType
from ..quirks import Quirk as Q
from ..state_rules import (
    bailing_delta_states,
    inkling_kv_states,
    inkling_states,
    kimi_delta_states,
    olmo_hybrid_states,
    short_conv_states,
)
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

_KDA_MLA = dict(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128)   # Kimi / Bailing MLA


HYBRIDS_ENTRIES: tuple[ModelType, ...] = (
    ModelType("kimi_linear", layer_rule=kimi_linear_layers, state_rule=kimi_delta_states, recurrent_kind="linear",
              params="kda_hybrid", moe="first_dense",
              defaults=_d(_KDA_MLA, linear_head_dim=128, linear_num_heads=32, linear_conv_kernel_dim=4,
                          # parameter fields (KimiLinearConfig; first_k_dense_replace: its __post_init__ kwarg)
                          vocab_size=163840, hidden_size=2304, intermediate_size=9216, moe_intermediate_size=1024,
                          num_hidden_layers=27, num_attention_heads=32, num_local_experts=256, n_shared_experts=1,
                          num_experts_per_tok=8, first_k_dense_replace=1, tie_word_embeddings=False,
                          attention_bias=False)),
    # ---- recurrent and hybrid types first measured in transformers 5.24
    #      (tests/reference/test_transformers_coverage.py)
    ModelType("bailing_hybrid", layer_rule=group_last_full, state_rule=bailing_delta_states, recurrent_kind="linear",
              params="kda_hybrid", moe="first_dense",
              quirks=frozenset({Q.KDA_FROM_ATTENTION, Q.KDA_FULL_GATES, Q.MLA_HEAD_GATE}),
              defaults=_d(_KDA_MLA, layer_group_size=6, linear_head_dim=128, linear_num_heads=32,
                          linear_conv_kernel_dim=4,
                          # parameter fields (BailingHybridConfig)
                          vocab_size=157184, hidden_size=2560, intermediate_size=6144, moe_intermediate_size=768,
                          num_hidden_layers=42, num_attention_heads=32, num_local_experts=512, n_shared_experts=1,
                          num_experts_per_tok=8, first_k_dense_replace=2, tie_word_embeddings=False,
                          attention_bias=False)),
    ModelType("olmo_hybrid", layer_rule=olmo_hybrid_layers, state_rule=olmo_hybrid_states, recurrent_kind="linear",
              params="olmo_hybrid", quirks=frozenset({Q.GATED_DELTA_NET, Q.FULL_QK_NORM}),
              # num_key_value_heads and the linear_* geometry: derived (olmo_hybrid_linear)
              defaults=_d(num_key_value_heads=None, linear_conv_kernel_dim=4, linear_key_head_dim=None,
                          linear_value_head_dim=None, linear_num_key_heads=None, linear_num_value_heads=None,
                          # parameter fields (OlmoHybridConfig)
                          vocab_size=100352, hidden_size=3840, intermediate_size=11008, num_hidden_layers=32,
                          num_attention_heads=30, tie_word_embeddings=False, attention_bias=False)),
    # xLSTM (modeling_xlstm.py): every block an mLSTM / sLSTM cell whose recurrent state lives in xLSTMCache;
    # no state rule is modelled, so the spec reader refuses it instead of reading attention fields
    ModelType("xlstm", layer_rule=all_layers("linear_attention"), recurrent_kind="linear",
              not_countable="its mLSTM blocks are not counted (no measurement: the coverage oracle could not "
                            "shrink its default config)"),
    # Inkling 2 parameters by kvcalc.models.hybrids.inkling2_text (fields: Inkling2TextConfig and the loop
    # variant's; the same weights either way)
    *(ModelType(name, layer_rule=inkling_layers, state_rule=inkling_states, params="inkling2_text",
                kv_state_rule=inkling_kv_states, quirks=frozenset({Q.LOOP_PASSES}) if "loop" in name else frozenset(),
                defaults=_d(num_key_value_heads=8, head_dim=128, conv_kernel_size=4, vocab_size=201024,
                            unpadded_vocab_size=200058, d_rel=16, rel_extent=1024, num_experts_per_tok=8, **swa))
      for name, swa in (
          ("inkling2_text", dict(swa_num_attention_heads=48, swa_num_key_value_heads=8, swa_head_dim=128,
                                 sliding_window_size=1024, hidden_size=4608, num_attention_heads=48,
                                 num_hidden_layers=48, moe_intermediate_size=2304, n_routed_experts=384)),
          ("inkling2_loop_text", dict(swa_num_attention_heads=24, swa_num_key_value_heads=8, swa_head_dim=128,
                                      sliding_window_size=1024, loop_layer_index_start=6, loop_layer_index_end=18,
                                      loop_num_passes=3, hidden_size=2304, num_attention_heads=24,
                                      num_hidden_layers=24, moe_intermediate_size=1152, n_routed_experts=128,
                                      loop_gate_rank=64)))),
    # Inkling's parameters by kvcalc.models.hybrids.inkling_text (fields: InklingTextConfig)
    ModelType("inkling_text", layer_rule=inkling_layers, state_rule=inkling_states, kv_state_rule=inkling_kv_states,
              params="inkling_text", defaults=_d(
        num_key_value_heads=8, head_dim=128, conv_kernel_size=4, swa_num_attention_heads=64,
        swa_num_key_value_heads=16, swa_head_dim=128, sliding_window_size=512, vocab_size=201024, hidden_size=6144,
        num_hidden_layers=66, num_attention_heads=64, d_rel=16, rel_extent=1024, intermediate_size=24576,
        moe_intermediate_size=3072, n_routed_experts=256, num_experts_per_tok=6, n_shared_experts=2)),
    *(ModelType(name, text_type=f"{name}_text", params="inkling2") for name in ("inkling2", "inkling2_loop")),
    ModelType("inkling2_vision", kind="no_cache", defaults=_d(   # Inkling2VisionConfig
        hidden_size=1024, intermediate_size=None, num_hidden_layers=23, num_attention_heads=16, num_channels=3,
        patch_size=20, mlp_ratio=4.0, posemb_grid_size=32, projection_hidden_dim=4096, projector_bias=False,
        spatial_merge_size=2, text_hidden_size=4608)),
    ModelType("glm5_next_text", layer_rule=lambda r, n, w: [
        "indexed_attention" if i % 4 == 3 else "linear_attention" for i in range(n)],
              state_rule=kimi_delta_states, recurrent_kind="linear",
              quirks=frozenset({Q.POOLED_INDEXER, Q.GLM5_NEXT_HC}), params="kda_hybrid", moe="first_dense",
              dense_first=3,
              defaults=_d(num_key_value_heads=64, kv_lora_rank=512, qk_rope_head_dim=0, qk_nope_head_dim=256,
                          v_head_dim=256, index_head_dim=128, index_topk=2048, linear_head_dim=128,
                          linear_num_heads=64, linear_conv_kernel_dim=4,
                          # parameter fields (Glm5NextTextConfig)
                          vocab_size=154880, hidden_size=4096, intermediate_size=12288, moe_intermediate_size=2048,
                          num_hidden_layers=45, num_attention_heads=64, n_shared_experts=1, n_routed_experts=288,
                          q_lora_rank=1536, num_experts_per_tok=8, tie_word_embeddings=False, attention_bias=False,
                          index_n_heads=32, index_kpool=16, hc_mult=4)),
    # GLM-5 Next, counted by kvcalc.models.hybrids.glm5_next (Glm5NextConfig / Glm5NextVisionConfig)
    ModelType("glm5_next", text_type="glm5_next_text", params="glm5_next", quirks=frozenset({Q.FLAT_TEXT}),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("glm5_next_vision", kind="no_cache", defaults=_d(
        depth=24, hidden_size=1024, attention_bias=True, num_heads=16, in_channels=3, patch_size=14,
        spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=1536, intermediate_size=4096,
        projection_intermediate_size=10240)),
    # LFM3-VL, counted by kvcalc.models.hybrids.lfm3_vl (Lfm3VlConfig / Lfm3VlVisionConfig defaults)
    ModelType("lfm3_vl", text_type="lfm3", params="lfm3_vl", defaults=_d(
        tie_word_embeddings=True, projector_hidden_size=4096, projector_bias=True)),
    ModelType("lfm3_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=2560, in_channels=3, patch_size=16, spatial_merge_size=2,
        temporal_patch_size=2, num_hidden_layers=14, num_attention_heads=16, num_key_value_heads=8,
        conv_kernel_size=3)),
    ModelType("lfm3", layer_rule=lfm3_layers, state_rule=short_conv_states, recurrent_kind="conv",
              params="lfm2", quirks=frozenset({Q.LFM3_ATTENTION}),
              defaults=_d(num_key_value_heads=4, head_dim=128, sliding_window=256, conv_L_cache=7,
                          # parameter fields (Lfm3Config)
                          vocab_size=128000, hidden_size=2048, intermediate_size=7680, num_hidden_layers=24,
                          num_attention_heads=16, tie_word_embeddings=True, conv_bias=False, attention_bias=False,
                          use_attention_gate=True, use_sandwich_norm=True)),
    ModelType("lfm2", layer_rule=listed("full_attn_idxs", "full_attention", "conv", every_by_default=True),
              state_rule=short_conv_states, recurrent_kind="conv", params="lfm2", defaults=_d(
        vocab_size=65536, hidden_size=2560, intermediate_size=12288, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=8, tie_word_embeddings=True, conv_L_cache=3, conv_bias=False,
        block_auto_adjust_ff_dim=True, block_ffn_dim_multiplier=1.0, block_multiple_of=256)),
    # LFM2-MoE (transformers 5.24 Lfm2MoeConfig): its layers listed in layer_types ("conv" / "full_attention"),
    # each conv layer holding LFM2's short-conv state (Lfm2MoeShortConv, conv_L_cache); its class default
    # layer_types is None, which Lfm2MoeDecoderLayer cannot build, so a config without the list is refused
    ModelType("lfm2_moe", layer_rule=listed_only("layer_types"), state_rule=short_conv_states,
              recurrent_kind="conv", params="lfm2", moe="first_dense", quirks=frozenset({Q.NO_SHARED_EXPERTS}),
              defaults=_d(   # moe_intermediate_size .. num_experts_per_tok are parameter fields
        moe_intermediate_size=1792, num_experts=32, num_dense_layers=2, num_experts_per_tok=4,
        vocab_size=65536, hidden_size=2048, intermediate_size=7168, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=8, tie_word_embeddings=True, conv_L_cache=3, conv_bias=False)),
)
