"""Registry entries of MLA decoders (DeepSeek-V2 / V3 / V3.2 / V4, Kimi K2, Mistral 4 / Large 4, LongCat-Flash, GLM MoE
DSA, ...).

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.deepseek`."""
from __future__ import annotations

from ..model_type import ModelType
from ..quirks import Quirk as Q
from .common import LLAMA_LIKE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

DEEPSEEK_ENTRIES: tuple[ModelType, ...] = (
    # MLA decoders (kvcalc.models.deepseek.deepseek)
    ModelType("glm_moe_dsa", params="deepseek", quirks=frozenset({Q.DSA_INDEXER}), defaults=_d(
        LLAMA_LIKE, vocab_size=154880, hidden_size=6144, intermediate_size=12288, num_hidden_layers=78,
        num_attention_heads=64, num_key_value_heads=64, tie_word_embeddings=False, attention_bias=False,
        mlp_bias=False, q_lora_rank=2048, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64,
        v_head_dim=256, n_routed_experts=256, n_shared_experts=1, first_k_dense_replace=3,
        moe_intermediate_size=2048, num_experts_per_tok=8, index_n_heads=32, index_head_dim=128, index_topk=2048)),
    ModelType("axk1", params="deepseek", quirks=frozenset({Q.MOE_POST_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=163840, hidden_size=7168, intermediate_size=18432, num_hidden_layers=61,
        num_attention_heads=64, num_key_value_heads=64, tie_word_embeddings=False, attention_bias=False,
        q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
        n_routed_experts=192, n_shared_experts=1, moe_intermediate_size=2048, num_experts_per_tok=8,
        first_k_dense_replace=1)),
    ModelType("sarvam_mla", params="deepseek", defaults=_d(
        LLAMA_LIKE, vocab_size=262144, hidden_size=4096, intermediate_size=16384, num_hidden_layers=32,
        num_attention_heads=64, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        q_lora_rank=None, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
        n_routed_experts=128, n_shared_experts=1, first_k_dense_replace=1, moe_intermediate_size=2048,
        num_experts_per_tok=8)),
    ModelType("youtu", params="deepseek", quirks=frozenset({Q.DENSE_MLA}), defaults=_d(
        LLAMA_LIKE, vocab_size=128256, hidden_size=2048, intermediate_size=6144, num_hidden_layers=32,
        num_attention_heads=16, num_key_value_heads=16, tie_word_embeddings=True, attention_bias=False,
        q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)),
    ModelType("minicpm3", params="deepseek", quirks=frozenset({Q.DENSE_MLA}), defaults=_d(
        LLAMA_LIKE, vocab_size=73448, hidden_size=2560, intermediate_size=6400, num_hidden_layers=62,
        num_attention_heads=40, num_key_value_heads=40, head_dim=None, tie_word_embeddings=True,
        attention_bias=False, mlp_bias=False, q_lora_rank=768, kv_lora_rank=256, qk_nope_head_dim=64,
        qk_rope_head_dim=32, v_head_dim=None)),
    # ---- MLA decoders
    ModelType("deepseek_v2", params="deepseek", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, first_k_dense_replace=0, kv_lora_rank=512, q_lora_rank=1536, n_routed_experts=64,
        n_shared_experts=2, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, num_experts_per_tok=None,
        moe_intermediate_size=1407)),
    ModelType("deepseek_v3", params="deepseek", defaults=_d(
        LLAMA_LIKE, vocab_size=129280, hidden_size=7168, intermediate_size=18432, num_hidden_layers=61,
        num_attention_heads=128, num_key_value_heads=128, first_k_dense_replace=3, kv_lora_rank=512,
        q_lora_rank=1536, n_routed_experts=256, n_shared_experts=1, qk_nope_head_dim=128, qk_rope_head_dim=64,
        v_head_dim=128, num_experts_per_tok=8, moe_intermediate_size=2048)),
    # DeepSeek-V4 (DeepseekV4Config): parameters by kvcalc.models.deepseek.deepseek_v4; its cache is refused
    # (the HCA / CSA compressed layers, kvcalc.architectures), the class-default layer list included
    ModelType("deepseek_v4", params="deepseek_v4", layer_rule=lambda r, n, w: (
        ["heavily_compressed_attention"] * min(n, 2)
        + ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention" for i in range(max(n - 2, 0))]),
              defaults=_d(LLAMA_LIKE, vocab_size=129280, hidden_size=4096, moe_intermediate_size=2048,
                          num_hidden_layers=43, num_attention_heads=64, num_key_value_heads=1, head_dim=512,
                          q_lora_rank=1024, num_experts_per_tok=6, n_routed_experts=256, n_shared_experts=1,
                          hc_mult=4, sliding_window=128, o_groups=8, o_lora_rank=1024, index_n_heads=64,
                          index_head_dim=128, index_topk=512)),
    # Mistral 4 (transformers 5.24 modeling_mistral4.py): DeepSeek-V3's MLA + MoE modules
    # (Mistral4Attention caches the normed kv_lora_rank latent and the RoPE key, expanded by expand_kv after the
    # cache read); vLLM 0.33 has no Mistral4 class, its Transformers backend's MLAFuser fuses Mistral4Attention
    # into MLAAttention (checked: fusers/mla.py MLAFuser.match and update_forward accept it), so it caches the
    # same latent as DeepSeek
    ModelType("mistral4", params="deepseek", defaults=_d(
        LLAMA_LIKE, vocab_size=131072, hidden_size=4096, intermediate_size=12288, num_hidden_layers=36,
        num_attention_heads=32, num_key_value_heads=32, head_dim=128, first_k_dense_replace=0, kv_lora_rank=256,
        q_lora_rank=1024, n_routed_experts=128, n_shared_experts=1, qk_nope_head_dim=64, qk_rope_head_dim=64,
        v_head_dim=128, num_experts_per_tok=4, moe_intermediate_size=2048)),
    ModelType("glm4_moe_lite", params="deepseek", defaults=_d(
        LLAMA_LIKE, first_k_dense_replace=1, vocab_size=154880, hidden_size=2048, intermediate_size=10240,
        num_hidden_layers=47,
        num_attention_heads=20, num_key_value_heads=20, tie_word_embeddings=False, attention_bias=False,
        n_routed_experts=64, n_shared_experts=1, moe_intermediate_size=1536, num_experts_per_tok=4,
        q_lora_rank=768, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64, v_head_dim=256)),
    ModelType("deepseek_v32", params="deepseek", quirks=frozenset({Q.DSA_INDEXER}), defaults=_d(
        LLAMA_LIKE, vocab_size=129280, hidden_size=7168, intermediate_size=18432, num_hidden_layers=61,
        num_attention_heads=128, num_key_value_heads=128, head_dim=64, tie_word_embeddings=False,
        attention_bias=False, n_routed_experts=256, n_shared_experts=1, first_k_dense_replace=3,
        moe_intermediate_size=2048, num_experts_per_tok=8, q_lora_rank=1536, kv_lora_rank=512,
        qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, index_n_heads=64, index_head_dim=128,
        index_topk=2048, mlp_bias=False)),
    ModelType("longcat_flash", quirks=frozenset({Q.ATTENTION_PAIRS}), params="longcat_flash", defaults=_d(
        num_layers=28, num_attention_heads=64, kv_lora_rank=512, q_lora_rank=1536, qk_nope_head_dim=128,
        qk_rope_head_dim=64, v_head_dim=128, head_dim=64, vocab_size=131072, hidden_size=6144,
        tie_word_embeddings=False, attention_bias=False, ffn_hidden_size=12288, qk_head_dim=None, moe_topk=12,
        n_routed_experts=512, zero_expert_num=256, expert_ffn_hidden_size=2048)),
    # parameters by kvcalc.models.deepseek.mistral_large4_text (fields: MistralLarge4TextConfig); the wrapper
    # holds Mistral 3's Pixtral tower and projector
    ModelType("mistral_large4_text", quirks=frozenset({Q.NOPE_MLA}), params="mistral_large4_text", defaults=_d(
        num_key_value_heads=64, kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=64, v_head_dim=128,
        index_head_dim=128, index_topk=2048, vocab_size=204800, hidden_size=6144, intermediate_size=24576,
        moe_intermediate_size=6144, num_hidden_layers=72, num_attention_heads=64, n_shared_experts=1,
        n_routed_experts=128, num_experts_per_tok=4, tie_word_embeddings=False, attention_bias=False,
        index_n_heads=32, first_k_dense_replace=1)),
)
