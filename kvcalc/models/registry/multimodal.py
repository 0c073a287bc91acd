"""Registry entries of multimodal models with modules of their own (Mllama, Fuyu, IDEFICS, Kosmos-2, BLIP-2, Chameleon,
Emu3, Molmo 2, Muse, Phi-4, Evolla, ...).

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.multimodal`."""
from __future__ import annotations

from ..layer_rules import listed
from ..model_type import ModelType
from ..quirks import Quirk as Q
from .common import LLAMA_LIKE, QWEN3_VISION
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

MULTIMODAL_ENTRIES: tuple[ModelType, ...] = (
    ModelType("emu3", text_type="emu3_text_model", params="emu3", defaults=_d(tie_word_embeddings=False)),
    ModelType("emu3_vqgan", kind="no_cache", defaults=_d(
        codebook_size=32768, embed_dim=4, latent_channels=4, double_latent=False, in_channels=3, out_channels=3,
        temporal_downsample_factor=4, base_channels=256, channel_multiplier=(1, 2, 2, 4), num_res_blocks=2,
        attn_resolutions=(3,), hidden_size=1024, num_attention_heads=1)),
    # Chameleon (modeling_chameleon.py): Llama modules + q/k LayerNorms over (heads, head_dim), and the VQ-VAE
    # image tokenizer of vq_config (kvcalc.models.multimodal.chameleon)
    ModelType("chameleon", params="chameleon", mlp_bias="mlp_bias", quirks=frozenset({Q.FULL_QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=65536, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32)),
    ModelType("chameleon_vqgan", kind="no_cache", defaults=_d(
        embed_dim=256, num_embeddings=8192, double_latent=False, latent_channels=256, resolution=512, in_channels=3,
        base_channels=128, channel_multiplier=(1, 1, 2, 2, 4), num_res_blocks=2, attn_resolutions=None,
        attn_type="vanilla")),
    ModelType("cohere_compass_vision", kind="no_cache",
              defaults=_d(QWEN3_VISION, deepstack_visual_indexes=(8, 16, 24))),
    # counted by kvcalc.models.multimodal.kosmos2; defaults: Kosmos2Config, Kosmos2VisionConfig
    ModelType("kosmos-2", text_type="kosmos_2_text_model", params="kosmos2", defaults=_d(
        latent_query_num=64, tie_word_embeddings=True)),
    ModelType("kosmos_2_vision_model", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16, num_channels=3,
        image_size=224, patch_size=14)),
    # IDEFICS, counted by kvcalc.models.multimodal.idefics (its Llama-style decoder's cache is the generic
    # rule's: the gated cross-attention runs with cache=None, modeling_idefics.py); defaults: IdeficsConfig,
    # IdeficsVisionConfig (attribute_map hidden_size -> embed_dim), IdeficsPerceiverConfig ("idefics_perciever",
    # transformers' spelling)
    ModelType("idefics", params="idefics", defaults=_d(
        vocab_size=32000, additional_vocab_size=0, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, alpha_type="float", tie_word_embeddings=False, cross_layer_interval=1,
        qk_layer_norms=False, use_resampler=False, max_position_embeddings=2048)),
    ModelType("idefics_vision", kind="no_cache", attribute_map=_d(hidden_size="embed_dim"), defaults=_d(
        hidden_size=768, image_size=224, intermediate_size=5120, patch_size=14, num_hidden_layers=32,
        num_attention_heads=16, num_channels=3)),
    ModelType("idefics_perciever", kind="no_cache", defaults=_d(
        resampler_n_latents=64, resampler_depth=6, resampler_n_heads=16, resampler_head_dim=96,
        qk_layer_norms_perceiver=False)),
    # BLIP-2 / InstructBLIP(-Video) (kvcalc.models.multimodal.blip2); their towers' and InstructBLIP's Q-Formers'
    # class defaults (Blip2VisionConfig, InstructBlip(Video)VisionConfig, InstructBlip(Video)QFormerConfig)
    *(ModelType(name, text_type="opt", params="blip2", defaults=_d(
        num_query_tokens=32, use_decoder_only_language_model=True))
      for name in ("blip-2", "instructblip", "instructblipvideo")),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=1408, intermediate_size=6144, num_hidden_layers=39, num_attention_heads=16, image_size=224,
        patch_size=14, qkv_bias=True))
      for name in ("blip_2_vision_model", "instructblip_vision_model", "instructblipvideo_vision_model")),
    *(ModelType(name, kind="no_cache", defaults=_d(
        vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        max_position_embeddings=512, cross_attention_frequency=2, encoder_hidden_size=1408))
      for name in ("instructblip_qformer", "instructblipvideo_qformer")),
    ModelType("fuyu", text_type="persimmon", params="fuyu", quirks=frozenset({Q.FLAT_TEXT}),  # FuyuConfig seeds text
              defaults=_d(  # FuyuConfig (parameter fields)
        tie_word_embeddings=False, patch_size=30, num_channels=3)),
    ModelType("mllama", text_type="mllama_text_model", params="mllama"),
    ModelType("mllama_text_model", layer_rule=listed("cross_attention_layers", "cross_attention", "full_attention"),
              not_countable="counted as part of mllama", defaults=_d(
        vocab_size=128256, hidden_size=4096, num_hidden_layers=40, num_attention_heads=32, num_key_value_heads=8,
        intermediate_size=14336, cross_attention_layers=[3, 8, 13, 18, 23, 28, 33, 38])),
    ModelType("mllama_vision_model", kind="no_cache", defaults=_d(
        hidden_size=1280, num_hidden_layers=32, num_global_layers=8, attention_heads=16, num_channels=3,
        intermediate_size=5120, vision_output_dim=7680, image_size=448, patch_size=14, max_num_tiles=4,
        supported_aspect_ratios=[[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]])),
)
