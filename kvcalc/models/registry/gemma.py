"""Registry entries of the Gemma family (Gemma 1-4, Gemma 3n, PaliGemma, DiffusionGemma, VaultGemma, ShieldGemma 2).

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.gemma`."""
from __future__ import annotations

from ..layer_rules import field_pattern, fixed_pattern
from ..model_type import ModelType, Vision
from ..quirks import Quirk as Q
from .common import LLAMA_LIKE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

GEMMA_ENTRIES: tuple[ModelType, ...] = (
    ModelType("gemma", params="llama_like", defaults=_d(
        LLAMA_LIKE, vocab_size=256000, hidden_size=3072, intermediate_size=24576, num_hidden_layers=28,
        num_attention_heads=16, num_key_value_heads=16, head_dim=256, tie_word_embeddings=True)),
    ModelType("gemma2", params="llama_like", layer_rule=fixed_pattern(2), norms_per_layer=4, defaults=_d(
        LLAMA_LIKE, vocab_size=256000, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
        num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True, sliding_window=4096)),
    ModelType("gemma3_text", params="llama_like", layer_rule=field_pattern, norms_per_layer=4,
              quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=262208, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
        num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True,
        sliding_window=4096, sliding_window_pattern=6, max_position_embeddings=131072)),
    ModelType("vaultgemma", params="llama_like", defaults=_d(
        LLAMA_LIKE, vocab_size=256000, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
        num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True,
        attention_bias=False)),
    # DiffusionGemma (modeling_diffusion_gemma.py): Gemma 4's decoder modules with the MoE block in every layer and
    # keys as values on full layers (DiffusionGemmaEncoderTextAttention: no v_proj unless sliding); the wrapper adds
    # the Gemma 4 tower and the self-conditioning MLP (kvcalc.models.gemma.diffusion_gemma). Its KV is estimated (quirk
    # prefix_cache)
    ModelType("diffusion_gemma_text", layer_rule=fixed_pattern(6),
              quirks=frozenset({Q.LAST_LAYER_FULL, Q.GLOBAL_HEAD_DIM, Q.PREFIX_CACHE}),
              params="gemma4_text", defaults=_d(
        vocab_size=262144, hidden_size=2304, intermediate_size=9216, num_hidden_layers=30, num_attention_heads=8,
        num_key_value_heads=4, head_dim=256, tie_word_embeddings=True, attention_bias=False, sliding_window=512,
        num_experts=None, top_k_experts=None, moe_intermediate_size=None,
        # fields DiffusionGemmaTextConfig does not have: what its modules hard-code
        attention_k_eq_v=True, enable_moe_block=True, num_kv_shared_layers=0, use_double_wide_mlp=False,
        hidden_size_per_layer_input=None)),
    ModelType("diffusion_gemma", text_type="diffusion_gemma_text", params="diffusion_gemma",
              vision=Vision("gemma4_vision", "gemma4"), defaults=_d(tie_word_embeddings=True)),
    # ---- KV sharing (Gemma 3n / 4)
    ModelType("gemma3n_text", layer_rule=fixed_pattern(5), params="gemma3n_text", defaults=_d(
        sliding_window=512, num_kv_shared_layers=15, head_dim=256,
        # parameter fields (Gemma3nTextConfig)
        vocab_size=262400, hidden_size=2048, intermediate_size=16384, num_hidden_layers=35, num_attention_heads=8,
        num_key_value_heads=2, tie_word_embeddings=True, attention_bias=False, vocab_size_per_layer_input=262144,
        hidden_size_per_layer_input=256, altup_num_inputs=4, laurel_rank=64)),
    ModelType("gemma4_text", layer_rule=fixed_pattern(6), quirks=frozenset({Q.LAST_LAYER_FULL, Q.GLOBAL_HEAD_DIM}),
              params="gemma4_text", defaults=_d(      # Gemma4TextConfig (parameter fields)
        vocab_size=262144, hidden_size=2304, intermediate_size=9216, num_hidden_layers=30, num_attention_heads=8,
        num_key_value_heads=4, head_dim=256, tie_word_embeddings=True, attention_bias=False, sliding_window=512,
        vocab_size_per_layer_input=262144, hidden_size_per_layer_input=256, attention_k_eq_v=False,
        num_kv_shared_layers=0, enable_moe_block=False, use_double_wide_mlp=False, num_experts=None,
        top_k_experts=None, moe_intermediate_size=None)),
    # Gemma 4 Unified: Gemma4UnifiedTextConfig derives its layers and full-layer head dims as Gemma4TextConfig
    # does, and deletes hidden_size_per_layer_input and enable_moe_block (no per-layer inputs, no MoE block)
    ModelType("gemma4_unified_text", layer_rule=fixed_pattern(6),
              quirks=frozenset({Q.LAST_LAYER_FULL, Q.GLOBAL_HEAD_DIM, Q.NO_PER_LAYER_INPUTS}),
              params="gemma4_text", defaults=_d(      # Gemma4UnifiedTextConfig (parameter fields)
        vocab_size=262144, hidden_size=2304, intermediate_size=9216, num_hidden_layers=30, num_attention_heads=8,
        num_key_value_heads=4, head_dim=256, tie_word_embeddings=True, attention_bias=False, sliding_window=1024,
        attention_k_eq_v=False, num_kv_shared_layers=0, use_double_wide_mlp=False)),
    # ---- multimodal wrappers (decoder in text_config) and their parts
    ModelType("gemma3", text_type="gemma3_text", params="gemma3", defaults=_d(tie_word_embeddings=True)),
    # Gemma 3n: gemma3n_text + a timm MobileNetV5 vision tower + a Conformer audio tower (kvcalc.models.gemma
    # gemma3n); Gemma3nVisionConfig's and Gemma3nAudioConfig's class defaults
    ModelType("gemma3n", text_type="gemma3n_text", params="gemma3n", defaults=_d(tie_word_embeddings=True)),
    ModelType("gemma3n_vision", kind="no_cache", not_countable="counted as part of gemma3n", defaults=_d(
        architecture="mobilenetv5_300m_enc", hidden_size=2048, vocab_size=128, model_args=None, do_pooling=False)),
    ModelType("gemma3n_audio", kind="no_cache", not_countable="counted as part of gemma3n", defaults=_d(
        vocab_size=128, input_feat_size=128, hidden_size=1536, conf_num_attention_heads=8, conf_num_hidden_layers=12,
        conf_conv_kernel_size=5, sscp_conv_channel_size=(128, 32), sscp_conv_kernel_size=((3, 3), (3, 3)),
        sscp_conv_stride_size=((2, 2), (2, 2)))),
    ModelType("paligemma", text_type="gemma", params="multimodal", vision=Vision(
        "siglip_vision_model", "paligemma", vision_defaults=_d(
            hidden_size=1152, intermediate_size=4096, num_hidden_layers=27, num_attention_heads=16, patch_size=14,
            vision_use_head=False), text_defaults=_d(
            vocab_size=257152, hidden_size=2048, intermediate_size=16384, num_hidden_layers=18,
            num_attention_heads=8, num_key_value_heads=1)), defaults=_d(tie_word_embeddings=True, projection_dim=2048)),
    ModelType("shieldgemma2", text_type="gemma3_text", params="gemma3", defaults=_d(tie_word_embeddings=True)),
    # Gemma 4: tower and projector verified (tests/reference/test_params_vision.py), the gemma4_text decoder by its
    # counter. No audio tower is counted.
    ModelType("gemma4", text_type="gemma4_text", params="multimodal",
              vision=Vision("gemma4_vision", "gemma4", optional=True, refused=("audio_config",)),
              defaults=_d(tie_word_embeddings=True)),
    # Gemma4UnifiedConfig: optional encoder-free vision embedder and audio embedder; text_config is always
    # built as Gemma4UnifiedTextConfig
    ModelType("gemma4_unified", text_type="gemma4_unified_text", params="gemma4_unified", vision=Vision(
        "gemma4_unified_vision", "gemma4_unified", optional=True), defaults=_d(tie_word_embeddings=True)),
    ModelType("gemma4_unified_vision", kind="no_cache", defaults=_d(
        patch_size=16, pooling_kernel_size=3, mm_embed_dim=3840, mm_posemb_size=1120, output_proj_dims=3840)),
    ModelType("gemma4_unified_audio", kind="no_cache", defaults=_d(audio_embed_dim=640)),
    ModelType("gemma4_vision", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=16, num_attention_heads=12, num_key_value_heads=12,
        head_dim=64, patch_size=16, position_embedding_size=10240, use_clipped_linears=False, standardize=False)),
)
