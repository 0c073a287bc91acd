"""Registry entries of vision-language wrappers (LLaVA family, Qwen-VL, InternVL, Mistral 3, Llama 4, ...): their text
decoders, towers and projector rules.

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.wrappers`. Counts first matched against transformers 5.24's meta-device counts
of the class defaults (tests/fixtures/transformers_5_24_coverage.json), other geometries in
tests/reference/test_params_vision.py and tests/fast/test_params_multimodal_small_configs.py /
test_params_multimodal_default_variants.py."""
from __future__ import annotations

from ..layer_rules import qwen_window
from ..model_type import ModelType, Vision
from ..quirks import Quirk as Q
from .common import LLAMA_LIKE, QWEN3_VISION, QWEN_MOE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

# Counted by kvcalc.models.wrappers (params="multimodal"): the text decoder of text_type, the tower of the
# vision_config's model_type (kvcalc.models.wrappers.TOWERS), the projector rule named by ``vision``. The decoders
# only these wrappers hold, and the towers, are listed here too. Defaults: transformers 5.24 config classes.
_QWEN_VL_TEXT = dict(LLAMA_LIKE, vocab_size=152064, hidden_size=8192, intermediate_size=29568,
                     num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8, max_window_layers=80)


_CLIP_L = dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
               image_size=336, patch_size=14)


_LLAVA = dict(tie_word_embeddings=False, vision_feature_layer=-2, multimodal_projector_bias=True)


_QWEN_VL = dict(tie_word_embeddings=False)


VISION_LANGUAGE_ENTRIES: tuple[ModelType, ...] = (
    # ---- wrappers: text decoder (text_type), tower (Vision.tower) and projector rule (Vision.projector)
    ModelType("cohere_compass", text_type="cohere_compass_text", params="multimodal",
              vision=Vision("cohere_compass_vision", "qwen_vl"), defaults=_d(tie_word_embeddings=False)),
    ModelType("mistral_large4", text_type="mistral_large4_text", params="multimodal", vision=Vision(
        "pixtral", "mistral3", vision_defaults=_d(hidden_size=2048, intermediate_size=6144, num_hidden_layers=30,
                                                  num_attention_heads=16, patch_size=14, image_size=1540)),
              defaults=_d(tie_word_embeddings=False, vision_feature_layer=-1, multimodal_projector_bias=False,
                          spatial_merge_size=2)),
    # FastVLM (FastVlmConfig: its sub_configs_defaults build a Qwen2 text_config and a timm_wrapper
    # vision_config of timm's fastvit_mci3 in inference mode); TimmWrapperConfig's own defaults
    ModelType("fast_vlm", text_type="qwen2", params="multimodal", defaults=_d(
        tie_word_embeddings=False, vision_feature_layer=-1, multimodal_projector_bias=True), vision=Vision(
        "timm_wrapper", "llava", vision_defaults=_d(architecture="fastvit_mci3", hidden_size=3072,
                                                    model_args={"inference_mode": True}),
        text_defaults=_d(hidden_size=3584, vocab_size=152128, intermediate_size=18944, num_attention_heads=28,
                         num_key_value_heads=4, num_hidden_layers=28))),
    *(ModelType(name, text_type="llama", params="multimodal", defaults=_d(_LLAVA),
                vision=Vision("clip_vision_model", "llava", vision_defaults=_d(_CLIP_L), image_newline=newline))
      for name, newline in (("llava", False), ("llava_next", True), ("llava_next_video", True))),
    ModelType("video_llava", text_type="llama", params="multimodal", defaults=_d(_LLAVA), vision=Vision(
        "clip_vision_model", "video_llava", vision_defaults=_d(_CLIP_L, image_size=224))),
    ModelType("vipllava", text_type="llama", params="multimodal", vision=Vision(
        "clip_vision_model", "vipllava", vision_defaults=_d(_CLIP_L)), defaults=_d(
        tie_word_embeddings=False, vision_feature_layers=(-2, -5, -8, -11, 6))),
    ModelType("llava_onevision", text_type="qwen2", params="multimodal", vision=Vision(
        "siglip_vision_model", "llava", image_newline=True, vision_defaults=_d(
            hidden_size=1152, intermediate_size=4304, num_hidden_layers=26, num_attention_heads=16, image_size=384,
            patch_size=14, vision_use_head=False)), defaults=_d(_LLAVA, vision_feature_layer=-1)),
    ModelType("mistral3", text_type="mistral", params="multimodal", vision=Vision(
        "pixtral", "mistral3", vision_defaults=_d(patch_size=14), text_defaults=_d(
            vocab_size=131072, hidden_size=5120, intermediate_size=32768, num_hidden_layers=40, head_dim=128)),
              defaults=_d(tie_word_embeddings=True, vision_feature_layer=-1, multimodal_projector_bias=False,
                          spatial_merge_size=2)),
    ModelType("lighton_ocr", text_type="qwen3", params="multimodal", vision=Vision(
        "pixtral", "mistral3", vision_defaults=_d(patch_size=14), text_defaults=_d(
            hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
            num_key_value_heads=8)), defaults=_d(tie_word_embeddings=True, spatial_merge_size=2)),
    # Qwen2VLConfig / Qwen2_5_VLConfig seed text_config from the top-level kwargs when it is absent (flat_text)
    *(ModelType(name, text_type=text, params="multimodal", defaults=_d(_QWEN_VL), vision=Vision(tower, "qwen_vl"),
                quirks=frozenset({Q.FLAT_TEXT}) if name in ("qwen2_vl", "qwen2_5_vl") else frozenset())
      for name, text, tower in (
        ("qwen2_vl", "qwen2_vl_text", "qwen2_vl_vision"), ("qwen2_5_vl", "qwen2_5_vl_text", "qwen2_5_vl_vision"),
        ("qwen3_vl", "qwen3_vl_text", "qwen3_vl_vision"), ("cosmos3_omni", "qwen3_vl_text", "qwen3_vl_vision"),
        ("qwen3_vl_moe", "qwen3_vl_moe_text", "qwen3_vl_moe_vision"), ("qwen3_5", "qwen3_5_text", "qwen3_5_vision"),
        ("qwen3_5_moe", "qwen3_5_moe_text", "qwen3_5_moe_vision"))),
    ModelType("deepseek_vl", text_type="llama", params="multimodal",
              vision=Vision("siglip_vision_model", "deepseek_vl"), defaults=_d(tie_word_embeddings=True)),
    *(ModelType(name, text_type="llama", params="multimodal", vision=Vision(f"{name}_vision", "idefics3"),
                defaults=_d(tie_word_embeddings=False, scale_factor=2)) for name in ("idefics3", "smolvlm")),
    ModelType("internvl", text_type="qwen2", params="multimodal", vision=Vision("internvl_vision", "internvl"),
              defaults=_d(tie_word_embeddings=True, downsample_ratio=0.5)),
    ModelType("qianfan_ocr", text_type="qwen3", params="multimodal", vision=Vision("qianfan_ocr_vision", "internvl"),
              defaults=_d(tie_word_embeddings=False, downsample_ratio=0.5)),
    ModelType("cohere2_vision", text_type="cohere2", params="multimodal", vision=Vision(
        "siglip_vision_model", "cohere2_vision", vision_defaults=_d(hidden_size=1152, num_hidden_layers=27,
                                                                   image_size=512)),
              defaults=_d(tie_word_embeddings=True, alignment_intermediate_size=36864, downsample_factor=2)),
    *(ModelType(name, text_type="qwen2", params="multimodal", defaults=_d(tie_word_embeddings=True),
                vision=Vision(f"{name}_vision", "got_ocr2", text_defaults=_d(
                    vocab_size=151860, hidden_size=1024, intermediate_size=2816, num_hidden_layers=24,
                    num_attention_heads=16, num_key_value_heads=16, tie_word_embeddings=True, max_window_layers=21)))
      for name in ("got_ocr2", "pp_chart2table")),
    ModelType("hyperclovax_vision_v2", text_type="hyperclovax", params="multimodal",
              vision=Vision("qwen2_5_vl_vision", "out_to_text"), defaults=_d(tie_word_embeddings=True)),
    ModelType("exaone4_5", text_type="exaone4", params="multimodal", vision=Vision("exaone4_5_vision", "qwen_vl"),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("kimi_k25", text_type="deepseek_v3", params="multimodal", vision=Vision("kimi_k25_vision", "kimi_k25"),
              defaults=_d(tie_word_embeddings=True, projection_hidden_size=1152)),
    # LFM2-VL: tower and projector verified (tests/reference/test_params_vision.py), decoder by the lfm2 counter
    ModelType("lfm2_vl", text_type="lfm2", params="multimodal", vision=Vision("siglip2_vision_model", "lfm2_vl"),
              defaults=_d(tie_word_embeddings=True, downsample_factor=2, projector_bias=True,
                          projector_hidden_size=2560, projector_use_layernorm=True)),
    *(ModelType(name, text_type="qwen3_5_text", params="multimodal", vision=Vision(f"{name}_vision", "minicpmv"),
                defaults=_d(tie_word_embeddings=tied, merger_times=1))
      for name, tied in (("minicpmv4_6", False), ("minicpmv4_7", False), ("minicpm_ocr", True))),
    ModelType("video_llama_3", text_type="qwen2", params="multimodal", vision=Vision("video_llama_3_vision",
                                                                                    "deepseek_vl"),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("paddleocr_vl", text_type="paddleocr_vl_text", params="multimodal", quirks=frozenset({Q.FLAT_TEXT}),
              vision=Vision("paddleocr_vl_vision", "paddleocr_vl"), defaults=_d(tie_word_embeddings=True)),
    *(ModelType(name, text_type=text, params="multimodal", vision=Vision(tower, "qwen_vl"),
                defaults=_d(tie_word_embeddings=False)) for name, text, tower in (
        ("glm4v", "glm4v_text", "glm4v_vision"), ("glm46v", "glm4v_text", "glm4v_vision"),
        ("glmga", "glm4v_text", "glm4v_vision"), ("glm4v_moe", "glm4v_moe_text", "glm4v_moe_vision"))),
    # AyaVisionConfig: a SigLIP tower (its init_kwargs when the config has none), the cohere2 decoder
    ModelType("aya_vision", text_type="cohere2", params="multimodal", vision=Vision(
        "siglip_vision_model", "aya_vision", vision_defaults=_d(
            hidden_size=1152, intermediate_size=4304, patch_size=14, image_size=384, num_hidden_layers=26,
            num_attention_heads=14, vision_use_head=False)),
              defaults=_d(tie_word_embeddings=True, downsample_factor=2)),
    # GraniteDoclingConfig: its own tower (with the connector) and a Granite-style decoder
    ModelType("granite_docling", text_type="granite_docling_text", params="multimodal", vision=Vision(
        "granite_docling_vision", "granite_docling"), defaults=_d(tie_word_embeddings=True,
                                                                 density_router_hidden_size=None)),
    # AriaConfig: an Idefics3 vision tower (AutoConfig idefics3_vision), the AriaProjector, the aria_text MoE decoder
    ModelType("aria", text_type="aria_text", params="multimodal", vision=Vision("idefics3_vision", "aria"),
              defaults=_d(tie_word_embeddings=False, projector_patch_to_query_dict=None)),
    # DeepseekVLHybridConfig: SigLIP (low resolution) and SAM (high_res_vision_config) towers, a llama decoder
    ModelType("deepseek_vl_hybrid", text_type="llama", params="multimodal", vision=Vision(
        "siglip_vision_model", "deepseek_vl_hybrid"), defaults=_d(tie_word_embeddings=True)),
    # Cosmos3EdgeConfig: a SigLIP-2-like tower (linear patch embedding, no head), the patch merger, a dense GQA
    # decoder with an ungated relu2 MLP (fc1 / fc2); lm_head never tied (_tied_weights_keys = {})
    ModelType("cosmos3_edge", text_type="cosmos3_edge_text", params="untied_wrapper", vision=Vision(
        "cosmos3_edge_vision", "cosmos3_edge"), defaults=_d(tie_word_embeddings=False, projector_hidden_size=11520)),
    # GlmOcrConfig: its own tower (merger and downsample inside), a GLM-4-style decoder (4 norms per layer, no
    # attention biases, fused gate_up)
    ModelType("glm_ocr", text_type="glm_ocr_text", params="multimodal", vision=Vision("glm_ocr_vision", "qwen_vl"),
              defaults=_d(tie_word_embeddings=False)),
    # Apertus1p5Config: the apertus1p5_text decoder, a VQ image tokenizer and a WavTokenizer audio tokenizer
    # (kvcalc.models.multimodal.apertus1p5); its sub-config classes are fixed (AutoConfig wavtokenizer_encoder for
    # audio)
    ModelType("apertus1p5", text_type="apertus1p5_text", params="apertus1p5", vision=Vision(
        "apertus1p5_vision_tokenizer", "no_projector"), defaults=_d(tie_word_embeddings=False)),
    # Florence2Config: a DaViT tower, its projector and a BART (AutoConfig, default bart) text model
    # (kvcalc.models.multimodal.florence2); the KV cache is its text_config's, read by the encoder-decoder rule
    ModelType("florence2", kind="encoder_decoder", params="florence2", vision=Vision(
        "florence_vision", "florence2"), defaults=_d(tie_word_embeddings=True)),
    # Ernie4_5_VLMoeConfig: its vision tower, the variable-resolution resampler, a decoder whose MoE layers hold
    # text and vision experts (kvcalc.models.moe_decoders.ernie4_5_vl_moe_text)
    ModelType("ernie4_5_vl_moe", text_type="ernie4_5_vl_moe_text", params="multimodal", vision=Vision(
        "ernie4_5_vl_moe_vision", "ernie4_5_vl_moe"), defaults=_d(tie_word_embeddings=True)),
    # DeepseekOcr2Config: a SAM encoder and a Qwen2-style encoder (vision_config.sam_config / encoder_config), a
    # linear projector, a DeepSeek-style MoE decoder (kvcalc.models.deepseek.deepseek_ocr2 / _deepseek_ocr2_text)
    ModelType("deepseek_ocr2", text_type="deepseek_ocr2_text", params="deepseek_ocr2", vision=Vision(
        "deepseek_ocr2_vision", "deepseek_ocr2"), defaults=_d(tie_word_embeddings=False)),
    ModelType("llama4", text_type="llama4_text", params="multimodal",
              vision=Vision("llama4_vision_model", "llama4", tie="text"), defaults=_d(tie_word_embeddings=False)),
    ModelType("idefics2", text_type="mistral", params="multimodal",
              vision=Vision("idefics2_vision", "idefics2", fixed_tower=True), defaults=_d(tie_word_embeddings=False)),
    ModelType("minimax_m3_vl", text_type="minimax_m3_vl_text", params="multimodal",
              vision=Vision("minimax_m3_vl_vision", "minimax_m3_vl"),
              defaults=_d(tie_word_embeddings=False, projector_hidden_size=6144)),
    ModelType("molmo2", text_type="molmo2_text", params="multimodal",
              vision=Vision("molmo2_vision", "molmo2", tie="never", fixed_tower=True),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("ovis2", text_type="qwen2", params="multimodal", vision=Vision("ovis2_vision", "ovis2"),
              defaults=_d(tie_word_embeddings=True, hidden_size=1536, vocab_size=151643)),
    ModelType("step3p7", text_type="step3p5", params="multimodal",
              vision=Vision("step3p5_vision", "step3p7", fixed_tower=True),
              defaults=_d(tie_word_embeddings=False, projector_bias=False)),
    ModelType("muse_glimmer", text_type="muse_glimmer_text", params="multimodal",
              vision=Vision("muse_glimmer_vision", "muse"),
              defaults=_d(tie_word_embeddings=False, out_hidden_size=6144, projector_hidden_size=4096)),
    ModelType("muse_spark", text_type="muse_spark_text", params="muse_spark",
              vision=Vision("muse_spark_vision", "muse", tie="never"),
              defaults=_d(tie_word_embeddings=False, out_hidden_size=6144, projector_hidden_size=4096)),
    ModelType("unlimited_ocr", text_type="unlimited_ocr_text", params="multimodal",
              vision=Vision("unlimited_ocr_vision", "unlimited_ocr", image_newline=True),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("nemotron_h_omni", text_type="nemotron_h", params="multimodal", vision=Vision(
        "radio", "nemotron_h_omni", vision_defaults=_d(video_temporal_patch_size=2), refused=("audio_config",),
        tie="never"), defaults=_d(downsample_ratio=0.5, projector_hidden_size=4096, vision_hidden_size=1280)),
    ModelType("janus", text_type="llama", params="multimodal", vision=Vision("janus_vision_model", "janus"),
              defaults=_d(tie_word_embeddings=True)),
    # ---- text decoders only these wrappers hold
    ModelType("granite_docling_text", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=133800, hidden_size=1024, intermediate_size=2048, num_hidden_layers=28,
        num_attention_heads=16, num_key_value_heads=4, tie_word_embeddings=True)),
    ModelType("cosmos3_edge_text", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({Q.PLAIN_MLP}),
              defaults=_d(LLAMA_LIKE, vocab_size=131072, hidden_size=2048, intermediate_size=9216,
                          num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128)),
    ModelType("glm_ocr_text", params="llama_like", attn_bias=(False, False), norms_per_layer=4, defaults=_d(
        LLAMA_LIKE, vocab_size=59392, hidden_size=1024, intermediate_size=4096, num_hidden_layers=16,
        num_attention_heads=16, num_key_value_heads=8)),
    # GitConfig: a BERT-style decoder over CLIP-style image tokens (kvcalc.models.multimodal.git); KV by the generic
    # rule
    ModelType("git", params="git", defaults=_d(
        vocab_size=30522, hidden_size=768, num_hidden_layers=6, num_attention_heads=12, intermediate_size=3072,
        max_position_embeddings=1024, tie_word_embeddings=False, num_image_with_embedding=None)),
    ModelType("ernie4_5_vl_moe_text", params="ernie4_5_vl_moe_text", defaults=_d(   # Ernie4_5_VLMoeTextConfig
        vocab_size=103424, hidden_size=2560, intermediate_size=12288, num_hidden_layers=28, num_attention_heads=20,
        num_key_value_heads=4, tie_word_embeddings=True, use_bias=False, moe_intermediate_size=[1536, 512], moe_k=6,
        moe_num_experts=64, moe_num_shared_experts=2, mlp_layer_types=None)),
    ModelType("deepseek_ocr2_text", not_countable="counted as part of deepseek_ocr2: DeepseekOcr2TextConfig has "
              "no mlp_layer_types default, so transformers cannot build the decoder of a bare config",
              defaults=_d(   # DeepseekOcr2TextConfig
        vocab_size=102400, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False, mlp_bias=False,
        n_routed_experts=64, n_shared_experts=2, num_experts_per_tok=None, moe_intermediate_size=1407,
        mlp_layer_types=None)),
    # EvollaConfig: a Llama-style decoder with protein cross-attention adapters, a SaProt protein encoder and
    # its resampler (kvcalc.models.protein.evolla)
    ModelType("evolla", params="evolla", mlp_bias="mlp_bias", defaults=_d(   # EvollaConfig
        LLAMA_LIKE, vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, aligner_ffn_mult=4, aligner_enable_bias=True,
        aligner_num_add_layers=8, resampler_depth=6, resampler_dim_head=64, resampler_heads=8,
        resampler_num_latents=64, resampler_ff_mult=4)),
    *(ModelType(name, params="llama_like", attn_bias=(True, False), layer_rule=qwen_window,
                defaults=_d(_QWEN_VL_TEXT)) for name in ("qwen2_vl_text", "qwen2_5_vl_text")),
    ModelType("qwen3_vl_text", params="llama_like", quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, head_dim=128)),
    ModelType("qwen3_vl_moe_text", params="llama_like", moe="sparse_step", quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, QWEN_MOE, vocab_size=151936, hidden_size=2048, intermediate_size=5632, num_hidden_layers=24,
        num_attention_heads=16, num_key_value_heads=16, head_dim=128, tie_word_embeddings=True,
        moe_intermediate_size=1408, num_experts_per_tok=4, num_experts=60)),
    # GLM-4.1V / 4.5V / 4.6V decoders: q/k/v biases always (o none), GLM-4's four norms per layer
    ModelType("glm4v_text", params="llama_like", attn_bias=(True, False), norms_per_layer=4, defaults=_d(
        LLAMA_LIKE, vocab_size=151552, hidden_size=4096, intermediate_size=13696, num_hidden_layers=40,
        num_attention_heads=32, num_key_value_heads=2)),
    ModelType("glm4v_moe_text", params="llama_like", moe="first_dense", attn_bias=("attention_bias", False),
              quirks=frozenset({Q.FLOOR_HEAD_DIM}), defaults=_d(
        LLAMA_LIKE, vocab_size=151424, hidden_size=4096, intermediate_size=10944, num_hidden_layers=46,
        num_attention_heads=96, num_key_value_heads=8, attention_bias=True, moe_intermediate_size=1408,
        n_routed_experts=128, num_experts_per_tok=8, first_k_dense_replace=1, n_shared_experts=1)),
    # PaddleOCR-VL's ERNIE-4.5 decoder: every projection biased with use_bias
    ModelType("paddleocr_vl_text", params="llama_like", attn_bias=("use_bias", "use_bias"), mlp_bias="use_bias",
              defaults=_d(LLAMA_LIKE, vocab_size=103424, hidden_size=1024, intermediate_size=3072,
                          num_hidden_layers=18, num_attention_heads=16, num_key_value_heads=2, head_dim=128,
                          use_bias=False, tie_word_embeddings=True)),
    ModelType("molmo2_text", params="molmo2_text", attn_bias=("attention_bias", False), quirks=frozenset({Q.QK_NORM}),
              defaults=_d(LLAMA_LIKE, vocab_size=151936, additional_vocab_size=128, hidden_size=4096,
                          intermediate_size=12288, num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8,
                          head_dim=128, attention_bias=False, qk_norm_type="qwen3", tie_word_embeddings=False)),
    ModelType("step3p5", params="step3p5", moe="first_dense", dense_first=3, mlp_bias="mlp_bias",
              quirks=frozenset({Q.QK_NORM, Q.HEAD_SOFTPLUS_GATE, Q.NO_SHARED_EXPERTS, Q.SIZED_SHARED_EXPERT}),
              defaults=_d(LLAMA_LIKE, vocab_size=128815, hidden_size=4096, intermediate_size=11264,
                          num_hidden_layers=45, num_attention_heads=64, num_key_value_heads=8, head_dim=128,
                          num_experts_per_tok=8, moe_intermediate_size=1280, n_routed_experts=288,
                          share_expert_dim=1280, gating=True, num_sliding_attention_heads=None)),
    ModelType("muse_glimmer_text", params="muse_text", norms_per_layer=4, quirks=frozenset({Q.GATED_Q_PROJ}),
              layer_rule=lambda r, n, w: ["full_attention" if (n - 1 - i) % 4 == 0 else "sliding_attention"
                                          for i in range(n)],
              defaults=_d(LLAMA_LIKE, vocab_size=202048, hidden_size=6656, intermediate_size=19968,
                          num_hidden_layers=52, num_attention_heads=32, num_key_value_heads=2, head_dim=128,
                          sliding_window=2048)),
    ModelType("muse_spark_text", params="muse_spark_text",
              layer_rule=lambda r, n, w: ["full_attention" if (n - 1 - i) % 4 == 0 else "sliding_attention"
                                          for i in range(n)],
              defaults=_d(vocab_size=202048, hidden_size=8192, intermediate_size=16384, num_hidden_layers=62,
                          num_attention_heads=128, num_key_value_heads=16, head_dim=64, tie_word_embeddings=False,
                          attention_bias=False, sliding_window=2048, moe_intermediate_size=4096,
                          num_local_experts=256, num_experts_per_tok=8, moe_hidden_size=4096, mlp_layer_types=None)),
    ModelType("phi4_multimodal", params="phi4_multimodal", attn_bias=(False, False), defaults=_d(
        LLAMA_LIKE, vocab_size=200064, hidden_size=3072, intermediate_size=8192, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8)),
    # ---- vision towers (no KV cache; counted by kvcalc.models.wrappers.TOWERS)
    ModelType("timm_wrapper", kind="no_cache", not_countable="a timm vision model: counted as part of its wrapper",
              defaults=_d(architecture="resnet50", do_pooling=True, model_args=None)),
    ModelType("siglip_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=224, patch_size=16, vision_use_head=True)),
    ModelType("granite_docling_vision", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=512, patch_size=16, out_hidden_size=1024, scale_factor=4, deepstack_visual_indexes=[3, 7, 10],
        use_fine_route=True)),
    ModelType("sam_vision_model", kind="no_cache", defaults=_d(   # SamVisionConfig
        hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=1024, patch_size=16, qkv_bias=True, mlp_ratio=4.0, use_abs_pos=True, use_rel_pos=True,
        window_size=14, global_attn_indexes=(2, 5, 8, 11), mlp_dim=None)),
    ModelType("cosmos3_edge_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16, num_channels=3,
        patch_size=16, num_patches=256, spatial_merge_size=2)),
    ModelType("glm_ocr_vision", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, depth=24, num_heads=16, in_channels=3, temporal_patch_size=2,
        patch_size=14, spatial_merge_size=2, out_hidden_size=1536, attention_bias=True)),
    ModelType("apertus1p5_vision_tokenizer", kind="no_cache", defaults=_d(
        codebook_size=131072, embed_dim=256, latent_channels=256, in_channels=3, base_channels=256,
        channel_multiplier=(1, 1, 2, 2, 4), num_res_blocks=4, attn_resolutions=(16,), resolution=256)),
    ModelType("wavtokenizer_encoder", kind="no_cache", defaults=_d(   # WavTokenizerConfig (encoder fields)
        audio_channels=1, num_filters=32, upsampling_ratios=(6, 5, 5, 4), num_residual_layers=1, compress=2,
        use_conv_shortcut=True, norm_type="weight_norm", kernel_size=7, last_kernel_size=7, residual_kernel_size=3,
        num_lstm_layers=2, hidden_size=512)),
    ModelType("florence_vision", kind="no_cache", defaults=_d(   # Florence2VisionConfig
        in_channels=3, depths=(1, 1, 9, 1), patch_size=(7, 3, 3, 3), patch_prenorm=(False, True, True, True),
        embed_dim=(128, 256, 512, 1024), num_heads=(4, 8, 16, 32), num_groups=(4, 8, 16, 32), mlp_ratio=4.0,
        qkv_bias=True, projection_dim=1024, max_position_embeddings=50)),
    ModelType("git_vision_model", kind="no_cache", defaults=_d(   # GitVisionConfig
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=224, patch_size=16)),
    ModelType("ernie4_5_vl_moe_vision", kind="no_cache", defaults=_d(   # Ernie4_5_VLMoeVisionConfig
        depth=32, hidden_size=1280, num_heads=16, in_channels=3, patch_size=14, spatial_merge_size=2,
        intermediate_size=5120, temporal_merge_size=2)),
    ModelType("deepseek_ocr2_vision", kind="no_cache"),
    ModelType("deepseek_ocr2_sam_vision_model", kind="no_cache", defaults=_d(   # DeepseekOcr2SamVisionConfig
        hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=1024, patch_size=16, qkv_bias=True, mlp_ratio=4.0, use_abs_pos=True, use_rel_pos=True,
        window_size=14, global_attn_indexes=(2, 5, 8, 11), mlp_dim=None, downsample_channels=[512, 896])),
    ModelType("deepseek_ocr2_encoder", kind="no_cache", defaults=_d(   # DeepseekOcr2VisionEncoderConfig
        hidden_size=4096, intermediate_size=22016, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=32)),
    ModelType("saprot", kind="no_cache", defaults=_d(   # SaProtConfig (EvollaConfig.protein_encoder_config)
        vocab_size=446, hidden_size=1280, num_hidden_layers=33, num_attention_heads=20, intermediate_size=5120,
        max_position_embeddings=1026, position_embedding_type="rotary", emb_layer_norm_before=False,
        add_cross_attention=False)),
    ModelType("clip_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=224, patch_size=32)),
    ModelType("pixtral", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16, num_channels=3,
        patch_size=16)),
    ModelType("qwen2_vl_vision", kind="no_cache", defaults=_d(
        embed_dim=1280, depth=32, num_heads=16, mlp_ratio=4, in_channels=3, temporal_patch_size=2, patch_size=14,
        spatial_merge_size=2, hidden_size=3584)),
    ModelType("qwen2_5_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=3584, intermediate_size=3420, depth=32, num_heads=16, in_channels=3, temporal_patch_size=2,
        patch_size=14, spatial_merge_size=2, out_hidden_size=3584)),
    *(ModelType(name, kind="no_cache", defaults=_d(QWEN3_VISION, deepstack_visual_indexes=(8, 16, 24)))
      for name in ("qwen3_vl_vision", "qwen3_vl_moe_vision")),
    *(ModelType(name, kind="no_cache", defaults=_d(QWEN3_VISION))
      for name in ("qwen3_5_vision", "qwen3_5_moe_vision")),
    ModelType("exaone4_5_vision", kind="no_cache", defaults=_d(
        hidden_size=3584, intermediate_size=3420, depth=32, num_heads=16, num_key_value_heads=8, in_channels=3,
        temporal_patch_size=2, patch_size=14, spatial_merge_size=2, out_hidden_size=3584)),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=hidden, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=heads, num_channels=3,
        image_size=224, patch_size=32)) for name, hidden, heads in (
        ("idefics2_vision", 768, 12), ("idefics3_vision", 1152, 16), ("smolvlm_vision", 1152, 16))),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16, num_channels=3,
        image_size=(448, 448), patch_size=(14, 14), attention_bias=bias, use_absolute_position_embeddings=True,
        use_mask_token=False, norm_type="layer_norm", use_qk_norm=False, use_mean_pooling=True))
      for name, bias in (("internvl_vision", False), ("qianfan_ocr_vision", True))),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, num_channels=3, image_size=1024, patch_size=16,
        mlp_dim=3072, window_size=14, output_channels=256, global_attn_indexes=(2, 5, 8, 11), use_abs_pos=True,
        use_rel_pos=True, qkv_bias=True)) for name in ("got_ocr2_vision", "pp_chart2table_vision")),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=13696, depth=24, num_heads=12, in_channels=3, temporal_patch_size=2,
        patch_size=14, image_size=336, spatial_merge_size=2, out_hidden_size=4096, attention_bias=False))
      for name in ("glm4v_vision", "glm4v_moe_vision")),
    ModelType("paddleocr_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16, num_channels=3,
        image_size=384, patch_size=14, spatial_merge_size=2)),
    ModelType("video_llama_3_vision", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        patch_size=16)),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=224, patch_size=16, window_kernel_size=(2, 2)))
      for name in ("minicpmv4_6_vision", "minicpmv4_7_vision", "minicpm_ocr_vision")),
    ModelType("siglip2_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        num_patches=256, patch_size=16, vision_use_head=True)),
    ModelType("kimi_k25_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16, patch_size=14,
        pos_emb_height=64, pos_emb_width=64, merge_kernel_size=(2, 2))),
    ModelType("llama4_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=5632, num_hidden_layers=34, num_attention_heads=16, num_channels=3,
        image_size=448, patch_size=14, vision_output_dim=7680, projector_input_dim=4096, projector_output_dim=4096)),
    ModelType("idefics2_perceiver", kind="no_cache", defaults=_d(
        hidden_size=4096, resampler_n_latents=64, resampler_depth=3, resampler_n_heads=16, resampler_head_dim=96,
        num_key_value_heads=4)),
    ModelType("minimax_m3_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=16, num_channels=3,
        patch_size=14, temporal_patch_size=2, spatial_merge_size=2)),
    ModelType("molmo2_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=25, num_attention_heads=16, num_key_value_heads=16,
        head_dim=72, image_size=[378, 378], patch_size=14, num_position_embeddings=None, num_channels=3,
        attention_bias=True)),
    ModelType("molmo2_adapter", kind="no_cache", defaults=_d(
        vision_feature_layer=[24, 18], hidden_size=1152, num_attention_heads=16, num_key_value_heads=16, head_dim=72,
        attention_bias=True, intermediate_size=18944, text_hidden_size=3584, mlp_bias=False)),
    ModelType("ovis2_vision", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=2816, num_hidden_layers=24, num_attention_heads=8, num_channels=3,
        image_size=224, patch_size=14, qkv_bias=False, mlp_bias=False, vocab_size=16384, hidden_stride=1,
        num_visual_indicator_tokens=5)),
    ModelType("step3p5_vision", kind="no_cache", defaults=_d(
        hidden_size=1536, num_hidden_layers=47, num_attention_heads=16, num_channels=3, image_size=728, patch_size=14,
        mlp_ratio=8960 / 1536)),
    ModelType("muse_glimmer_vision", kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=8960, num_hidden_layers=50, num_attention_heads=16, patch_size=14,
        patch_temporal=2, pos_emb_height=32, pos_emb_width=32)),
    ModelType("muse_spark_vision", kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=8960, num_hidden_layers=50, num_attention_heads=16, patch_size=14,
        patch_temporal=2, pos_emb_height=32, pos_emb_width=32)),
    ModelType("muse_spark_audio", kind="no_cache", defaults=_d(
        patch_sizes=(16, 6, 5, 4), hidden_sizes=(256, 512, 1024, 2048), depths=(2, 2, 2, 2), num_hidden_layers=4,
        mlp_ratio=4.0, conv_kernel_size=7, out_hidden_size=8192)),
    ModelType("unlimited_ocr_vision", kind="no_cache"),
    ModelType("unlimited_ocr_sam_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=1024, patch_size=16, qkv_bias=True, use_abs_pos=True, use_rel_pos=True, window_size=14,
        global_attn_indexes=(2, 5, 8, 11), mlp_dim=3072, downsample_channels=(512, 1024))),
    ModelType("unlimited_ocr_vision_encoder", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16, image_size=224,
        patch_size=14)),
    ModelType("radio", kind="no_cache", defaults=_d(
        hidden_size=1280, num_hidden_layers=32, num_attention_heads=16, mlp_ratio=4.0, use_swiglu_ffn=False,
        qkv_bias=True, num_channels=3, patch_size=16, max_img_size=2048, num_cls_tokens=3, num_registers=7,
        video_temporal_patch_size=None)),
    ModelType("janus_vision_model", kind="no_cache", defaults=_d(
        hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, num_channels=3, image_size=384, patch_size=16,
        mlp_ratio=4.0, attention_bias=True, projection_dim=2048, use_qk_norm=False, depth=2)),
    ModelType("janus_vqgan", kind="no_cache", defaults=_d(
        embed_dim=8, num_embeddings=16384, double_latent=False, latent_channels=256, in_channels=3, base_channels=128,
        channel_multiplier=(1, 1, 2, 2, 4), num_res_blocks=2, out_channels=3, projection_dim=2048,
        num_hidden_layers=2, image_token_embed_dim=2048)),
    ModelType("phi4_multimodal_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16, num_channels=3,
        image_size=448, patch_size=14)),
    ModelType("phi4_multimodal_audio", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=1536, num_blocks=24, num_attention_heads=16, ext_pw_out_channel=1024,
        depthwise_separable_out_channel=1024, depthwise_multiplier=1, kernel_size=3, input_size=80, time_reduction=8,
        bias_max_distance=1000, bias_symmetric=False, nemo_conv_channels=1024, downsample_rate=1)),
)
