"""Registry entries of MoE decoders with modules of their own (DBRX, JetMoE, A.X K2, Hunyuan, ERNIE 4.5-VL, Step 3.5).

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.moe_decoders`."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model_type import ModelType
from ..quirks import Quirk as Q
from .common import LLAMA_LIKE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

# DbrxAttentionConfig / DbrxFFNConfig: the nested attn_config / ffn_config DbrxConfig builds
DBRX_ATTN_DEFAULTS: Mapping[str, Any] = _d(kv_n_heads=1)


DBRX_FFN_DEFAULTS: Mapping[str, Any] = _d(ffn_hidden_size=3584, moe_num_experts=4, moe_top_k=1)


MOE_DECODERS_ENTRIES: tuple[ModelType, ...] = (
    # DBRX: fields d_model / n_heads / n_layers (DbrxConfig.attribute_map), KV heads and experts nested
    ModelType("dbrx", params="dbrx", quirks=frozenset({Q.ATTN_CONFIG_KV}), defaults=_d(
        vocab_size=32000, hidden_size=2048, num_attention_heads=16, num_hidden_layers=24,
        tie_word_embeddings=False)),
    # HunYuan: query_layernorm / key_layernorm of head_dim; MoE: router wg, experts of intermediate_size and a
    # shared_mlp of intermediate_size in every layer (modeling_hunyuan_v1_moe.py HunYuanMoEV1Moe)
    # A.X-K2: its own MLA (fused q_gate_proj), a DSA indexer on every layer, gated RMSNorms
    # (kvcalc.models.moe_decoders.axk2)
    ModelType("axk2", params="axk2", defaults=_d(
        LLAMA_LIKE, vocab_size=163840, hidden_size=2048, intermediate_size=5120, moe_intermediate_size=512,
        num_hidden_layers=48, num_attention_heads=32, num_key_value_heads=32, n_shared_experts=1,
        n_routed_experts=128, kv_lora_rank=128, q_lora_rank=384, qk_rope_head_dim=32, v_head_dim=64,
        qk_nope_head_dim=64, num_experts_per_tok=8, tie_word_embeddings=False, attention_bias=False,
        index_head_dim=128, index_n_heads=16, index_topk=2048, gated_norm_rank=16, head_dim=None)),
    # HY-V4: DeepSeek-V3.2-style MLA + DSA indexer (only on "full" indexer_types layers) + output gate, sinks and
    # hyper-connections (kvcalc.models.moe_decoders.hy_v4)
    ModelType("hy_v4", params="hy_v4", dense_first=1, quirks=frozenset({Q.DSA_INDEXER, Q.SHARED_INDEXER}),
              defaults=_d(
        LLAMA_LIKE, vocab_size=120832, hidden_size=2816, intermediate_size=6912, moe_intermediate_size=768,
        num_hidden_layers=34, num_attention_heads=32, num_key_value_heads=None, head_dim=None,
        tie_word_embeddings=False, attention_bias=False, n_routed_experts=256, n_shared_experts=1,
        num_experts_per_tok=8, q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64,
        v_head_dim=256, index_topk=2048, index_head_dim=128, index_n_heads=16, hc_mult=4)),
    ModelType("hy_v4_vl_text", params="hy_v4", dense_first=1, quirks=frozenset({Q.DSA_INDEXER, Q.SHARED_INDEXER}),
              defaults=_d(
        LLAMA_LIKE, vocab_size=120832, hidden_size=6144, intermediate_size=18432, moe_intermediate_size=2048,
        num_hidden_layers=78, num_attention_heads=64, num_key_value_heads=None, head_dim=None,
        tie_word_embeddings=False, attention_bias=False, n_routed_experts=256, n_shared_experts=1,
        num_experts_per_tok=8, q_lora_rank=2048, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64,
        v_head_dim=256, index_topk=2048, index_head_dim=128, index_n_heads=32, hc_mult=4)),
    # HunYuan-VL / HY-V4-VL: decoder + HunYuan vision tower with its patch merger
    # (kvcalc.models.moe_decoders.hunyuan_vl)
    ModelType("hunyuan_vl", text_type="hunyuan_vl_text", params="hunyuan_vl", defaults=_d(tie_word_embeddings=True)),
    ModelType("hy_v4_vl", text_type="hy_v4_vl_text", params="hunyuan_vl", defaults=_d(tie_word_embeddings=False)),
    ModelType("hunyuan_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_attention_heads=16, num_channels=3, num_hidden_layers=27,
        patch_size=16, spatial_merge_size=2, max_image_size=2048)),
    ModelType("hy_v4_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=6144, num_attention_heads=16, num_channels=3, num_hidden_layers=40,
        out_hidden_size=6144, patch_size=16, spatial_merge_size=2, max_image_size=2048)),
    ModelType("jetmoe", params="jetmoe", defaults=_d(      # JetMoeConfig (parameter fields)
        vocab_size=32000, hidden_size=2048, num_hidden_layers=12, num_key_value_heads=16, kv_channels=128,
        intermediate_size=5632, num_local_experts=8, num_experts_per_tok=2, tie_word_embeddings=True)),
)
