"""Registry entries of audio-language models and speech recognisers (Whisper, Voxtral, Qwen2-Audio, Qwen-Omni thinkers,
Granite Speech, ...).

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.audio`."""
from __future__ import annotations

from types import MappingProxyType

from ..model_type import Audio, ModelType, Vision
from .common import QWEN3_VISION
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

# Voxtral Realtime, counted by kvcalc.models.audio.voxtral_realtime. VoxtralRealtimeConfig's
# sub_configs_defaults["text_config"].init_kwargs, merged under a given text_config too (its __post_init__).
VOXTRAL_REALTIME_TEXT = MappingProxyType(dict(
    vocab_size=131072, hidden_size=3072, intermediate_size=9216, num_hidden_layers=26, num_attention_heads=32,
    num_key_value_heads=8, head_dim=128, tie_word_embeddings=True))


# the Qwen2.5-Omni / Qwen3-Omni thinkers (Qwen2_5OmniThinkerForConditionalGeneration,
# Qwen3OmniMoeThinkerForConditionalGeneration; counted by kvcalc.models.audio.omni_thinker): a text decoder
# (text_config), a Qwen-VL vision tower with its merger (vision_config) and an audio encoder (audio_config). The
# cache is the text decoder's (first measured by the coverage oracle): head_dim = hidden_size // heads when the config
# has none
# (Qwen2_5OmniAttention's / Qwen3OmniMoeThinkerTextAttention's getattr fallback; Qwen3-Omni's default 2048 / 28
# floors to 73). Defaults: configuration_qwen2_5_omni.py / configuration_qwen3_omni_moe.py, transformers 5.24.
_OMNI_AUDIO = dict(num_mel_bins=128, encoder_layers=32, encoder_attention_heads=20, encoder_ffn_dim=5120,
                      d_model=1280, max_source_positions=1500, output_dim=3584)


AUDIO_ENTRIES: tuple[ModelType, ...] = (
    *(ModelType(name, text_type=text, params="omni_thinker", defaults=_d(tie_word_embeddings=False),
                vision=Vision(tower, "qwen_vl"))
      for name, text, tower in (("qwen2_5_omni_thinker", "qwen2_5_omni_text", "qwen2_5_omni_vision_encoder"),
                                ("qwen3_omni_moe_thinker", "qwen3_omni_moe_text", "qwen3_omni_moe_vision_encoder"))),
    ModelType("qwen2_5_omni_vision_encoder", kind="no_cache", defaults=_d(
        hidden_size=3584, intermediate_size=3420, depth=32, num_heads=16, in_channels=3, temporal_patch_size=2,
        patch_size=14, spatial_merge_size=2, out_hidden_size=3584)),
    ModelType("qwen3_omni_moe_vision_encoder", kind="no_cache",
              defaults=_d(QWEN3_VISION, deepstack_visual_indexes=(8, 16, 24))),
    ModelType("qwen2_5_omni_audio_encoder", kind="no_cache", defaults=_d(_OMNI_AUDIO)),
    ModelType("qwen3_omni_moe_audio_encoder", kind="no_cache",
              defaults=_d(_OMNI_AUDIO, downsample_hidden_size=480)),
    # the text decoder's KV: the generic rule (coverage oracle); its attention and MLP have no biases
    # (modeling_voxtral_realtime.py
    # VoxtralRealtimeTextAttention, VoxtralRealtimeTextMLP)
    ModelType("voxtral_realtime_text", attn_bias=(False, False)),
    ModelType("voxtral_realtime", text_type="voxtral_realtime_text", params="voxtral_realtime",
              defaults=_d(downsample_factor=4, tie_word_embeddings=True)),
    ModelType("voxtral_realtime_encoder", kind="no_cache", defaults=_d(    # VoxtralRealtimeEncoderConfig
        hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=32, num_mel_bins=128,
        head_dim=64)),
    ModelType("whisper", kind="encoder_decoder", params="whisper", defaults=_d(
        vocab_size=51865, num_mel_bins=80, encoder_layers=4, decoder_layers=4, encoder_attention_heads=6,
        decoder_attention_heads=6, encoder_ffn_dim=1536, decoder_ffn_dim=1536, d_model=384,
        max_source_positions=1500, max_target_positions=448, tie_word_embeddings=True)),
    # audio-language wrappers: text_config decoder + Whisper-style audio tower + projector
    ModelType("qwen2_audio", text_type="qwen2", audio=Audio("qwen2_audio_encoder", "linear"), params="audio"),
    ModelType("voxtral", text_type="llama", params="audio", audio=Audio(
        "voxtral_encoder", "stacked", text_defaults=_d(
            vocab_size=131072, hidden_size=3072, intermediate_size=8192, num_hidden_layers=30, num_key_value_heads=8,
            max_position_embeddings=131072, head_dim=128))),
    *(ModelType(name, text_type="qwen2", audio=Audio("audioflamingo3_encoder", "mlp"), params="audio",
                defaults=_d(projector_bias=True))
      for name in ("audioflamingo3", "musicflamingo")),
    ModelType("qwen3_asr", text_type="qwen3", params="audio", defaults=_d(tie_word_embeddings=True),
              audio=Audio("qwen3_asr_encoder", "qwen3_asr", tied_head=True, absent_text=_d(
                  hidden_size=2048, intermediate_size=6144, num_hidden_layers=28, num_attention_heads=16,
                  num_key_value_heads=8, head_dim=128))),
    ModelType("moss_transcribe_diarize", text_type="qwen3", params="audio", audio=Audio(
        "moss_transcribe_diarize_audio", "merged", tied_head=True, absent_text=_d(
            hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
            num_key_value_heads=8)), defaults=_d(
        tie_word_embeddings=True, projector_bias=True, audio_merge_size=4)),
    ModelType("glmasr", text_type="llama", params="audio", defaults=_d(tie_word_embeddings=True),
              audio=Audio("glmasr_encoder", "glmasr", tied_head=True, absent_text=_d(
                  vocab_size=59264, hidden_size=2048, intermediate_size=6144, num_hidden_layers=28,
                  num_attention_heads=16, num_key_value_heads=4))),
    ModelType("glmasr_encoder", kind="no_cache", defaults=_d(
        hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=20,
        num_key_value_heads=None, num_mel_bins=128)),
    ModelType("qwen3_asr_encoder", kind="no_cache", defaults=_d(
        num_mel_bins=128, encoder_layers=24, encoder_attention_heads=16, encoder_ffn_dim=4096, d_model=1024,
        downsample_hidden_size=480, output_dim=3584)),
    ModelType("moss_transcribe_diarize_audio", kind="no_cache", defaults=_d(
        num_mel_bins=80, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096, hidden_size=1024,
        max_source_positions=1500)),
    ModelType("qwen2_audio_encoder", kind="no_cache", defaults=_d(
        num_mel_bins=128, encoder_layers=32, encoder_attention_heads=20, encoder_ffn_dim=5120, d_model=1280,
        max_source_positions=1500)),
    *(ModelType(name, kind="no_cache", defaults=_d(
        num_mel_bins=128, num_hidden_layers=32, num_attention_heads=20, intermediate_size=5120, hidden_size=1280,
        max_source_positions=1500)) for name in ("voxtral_encoder", "audioflamingo3_encoder")),
    *(ModelType(name, text_type="granite", params="granite_speech", defaults=_d(
        tie_word_embeddings=True, window_size=15, downsample_rate=5))
      for name in ("granite_speech", "granite_speech_plus")),
    *(ModelType(f"{name}_encoder", kind="no_cache", attribute_map=_d(
        hidden_size="hidden_dim", num_hidden_layers="num_layers", num_attention_heads="num_heads"), defaults=_d(
        input_dim=160, num_hidden_layers=10, hidden_size=1024, feedforward_mult=4, num_heads=8, dim_head=None,
        output_dim=42, max_pos_emb=512, conv_kernel_size=15, conv_expansion_factor=2))
      for name in ("granite_speech", "granite_speech_plus")),
    ModelType("blip_2_qformer", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, encoder_hidden_size=1408,
        cross_attention_frequency=2, use_qformer_text_input=False)),
    ModelType("omniasr", text_type="llama", params="audio", audio=Audio("omniasr_audio", "linear", absent_text=_d(
        vocab_size=11984, hidden_size=4096, intermediate_size=2816, max_position_embeddings=8192, num_hidden_layers=12,
        num_attention_heads=8, num_key_value_heads=8))),      # OmniASRConfig.sub_configs_defaults init_kwargs
    ModelType("omniasr_audio", kind="no_cache", defaults=_d(
        hidden_size=1024, conv_dim=(512,) * 7, conv_kernel=(10, 3, 3, 3, 3, 2, 2), conv_bias=True,
        num_attention_heads=16, num_hidden_layers=24, num_conv_pos_embeddings=128, num_conv_pos_embedding_groups=16,
        intermediate_size=4096)),
    ModelType("vibevoice_asr", text_type="qwen2", params="vibevoice_asr"),
    ModelType("nemo_speechlm", text_type="nemotron_h", params="nemo_speechlm"),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=h, intermediate_size=i, num_hidden_layers=n, num_attention_heads=a, num_key_value_heads=None,
        num_mel_bins=128, subsampling_factor=8)) for name, h, i, n, a in (
        ("nemotron3_5_transcribe_asr_audio", 1280, 5120, 32, 10), ("nemotron3_diarization_audio", 512, 2048, 31, 8))),
    ModelType("nemotron3_5_transcribe_word_timestamp", kind="no_cache", defaults=_d(
        hidden_size=1280, intermediate_size=640, num_hidden_layers=2, num_attention_heads=16, num_key_value_heads=None,
        vocab_size=23863, upsampling_factor=2)),
    ModelType("vibevoice_acoustic_tokenizer_encoder", kind="no_cache", defaults=_d(
        channels=1, hidden_size=64, kernel_size=7, num_filters=32, downsampling_ratios=(2, 2, 4, 5, 5, 8),
        depths=(3, 3, 3, 3, 3, 3, 8), ffn_expansion=4)),
)
