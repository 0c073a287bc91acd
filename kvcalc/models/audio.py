"""Audio-language models and speech recognisers: Whisper, the audio wrappers (Voxtral, Qwen2-Audio, ...),
Granite Speech, VibeVoice-ASR, Nemotron 3.5 Transcribe, the Qwen2.5-Omni / Qwen3-Omni thinkers and Voxtral
Realtime.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from types import MappingProxyType

from ..config import ConfigReader
from .audio_towers import (
    AUDIO_TOWERS,
    audio_projector,
    granite_speech_encoder,
    nemo_encoder,
    omni_audio,
    stacking,
    vibevoice_tokenizer_encoder,
    whisper_attention,
    whisper_encoder,
)
from .blocks import blip2_qformer, linear, lm_head, width
from .counts import Decoder, Tally
from .llama import llama_like
from .registry import lookup, typed
from .registry.audio import VOXTRAL_REALTIME_TEXT
from .subconfigs import wrapper_sub
from .wrappers import count_wrapper


def omni_thinker(f: ConfigReader, t: Tally) -> None:
    """Qwen2_5OmniThinkerForConditionalGeneration (modeling_qwen2_5_omni.py) and
    Qwen3OmniMoeThinkerForConditionalGeneration (modeling_qwen3_omni_moe.py): the text decoder, vision tower
    (``model.visual``: Qwen2.5-VL's / Qwen3-VL's tower and mergers, kvcalc.models.wrappers.TOWERS) and lm_head of
    :func:`kvcalc.models.wrappers.count_wrapper` (lm_head tied by the top-level tie_word_embeddings, default false:
    ``_tied_weights_keys`` names the decoder's embed_tokens), plus the audio encoder (:func:`omni_audio`)."""
    count_wrapper(f, t)
    for part, n in omni_audio(f).items():
        t.add(part, n)


def voxtral_realtime(f: ConfigReader, t: Tally) -> None:
    """VoxtralRealtimeForConditionalGeneration (modeling_voxtral_realtime.py). Text decoder
    (VoxtralRealtimeTextModel; ``text_config`` under :data:`kvcalc.models.registry.audio.VOXTRAL_REALTIME_TEXT`, the
    wrapper's init_kwargs): :func:`llama_like` without biases, plus per layer ``ada_rms_norm``
    (VoxtralRealtimeTextAdaRmsNorm: ``H -> 32 -> H``, no biases: ``64H``, mlp). Audio tower
    (VoxtralRealtimeEncoder, width ``d``, ``n`` heads of ``hd`` = head_dim, ``F``): embedder conv1
    ``mel*d*3 + d``, conv2 ``d*d*3 + d`` (other); per layer VoxtralRealtimeAttention q ``d*n*hd + n*hd``,
    k ``d*n*hd`` (its num_key_value_heads is num_attention_heads, attribute_map), v ``d*n*hd + n*hd``,
    o ``n*hd*d + d``, VoxtralRealtimeMLP gate / up ``2*d*F`` + down ``F*d + d``, 2 RMSNorms ``2d``; norm ``d``;
    rotary and the time embedding are buffers. Projector (VoxtralRealtimeMultiModalProjector, vision):
    ``4d*H`` (downsample_factor frames) + ``H*H``, no biases. lm_head ``V*H`` unless the top-level
    tie_word_embeddings ties it (``_tied_weights_keys``)."""
    text = wrapper_sub(f, "text_config", "voxtral_realtime_text", VOXTRAL_REALTIME_TEXT, absent_ok=True)
    audio = wrapper_sub(f, "audio_config", "voxtral_realtime_encoder", {}, absent_ok=True)
    llama_like(text, t, head=False)
    hidden, vocab = text.get_int("hidden_size"), text.get_int("vocab_size")
    t.add("mlp", text.get_int("num_hidden_layers") * 2 * 32 * hidden)
    lm_head(f, t, hidden, vocab)
    d, n, ffn = audio.get_int("hidden_size"), audio.get_int("num_attention_heads"), audio.get_int("intermediate_size")
    hd = audio.opt_int("head_dim") or d // n
    layers, mel = audio.get_int("num_hidden_layers", minimum=0), audio.get_int("num_mel_bins")
    t.add("attention", layers * (linear(d, n * hd, True) + linear(d, n * hd) + linear(d, n * hd, True)
                                 + linear(n * hd, d, True)))
    t.add("mlp", layers * (2 * d * ffn + linear(ffn, d, True)))
    t.add("norms", (2 * layers + 1) * d)
    t.add("other", mel * d * 3 + d + d * d * 3 + d)
    t.add("vision", d * f.get_int("downsample_factor") * hidden + hidden * hidden)


def whisper(f: ConfigReader, t: Tally) -> None:
    """Whisper: the class the config's ``architectures`` names. ``WhisperForConditionalGeneration`` (what Hub
    checkpoints name, and the model whose cross-attention cache kvcalc plans): encoder
    (:func:`whisper_encoder`) + decoder; otherwise ``WhisperForCausalLM``, the class
    transformers' causal-LM auto mapping builds: the decoder alone.

    Decoder (``WhisperDecoder``): tokens ``V*d``, learned positions ``max_target_positions*d``, ``L_d``
    layers of self- and cross-attention (``4*d*d + 3*d`` each), MLP with ``F_d``, 3 LayerNorms; final
    LayerNorm ``2d``; ``proj_out`` ``V*d`` unless tied (tie_word_embeddings).
    """
    d = width(f, "decoder_attention_heads")
    vocab, ffn, n = f.get_int("vocab_size"), f.get_int("decoder_ffn_dim"), f.get_int("decoder_layers", minimum=0)
    t.add("embedding", vocab * d + f.get_int("max_target_positions") * d)
    t.add("attention", n * 2 * whisper_attention(d))
    t.add("mlp", n * (linear(d, ffn, True) + linear(ffn, d, True)))
    t.add("norms", n * 6 * d + 2 * d)
    t.tied = f.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * d)
    if "WhisperForConditionalGeneration" in (f.opt_str_list("architectures") or []):
        for part, n_params in whisper_encoder(f).items():
            t.add(part, n_params)


def audio_wrapper(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """Audio-language ``...ForConditionalGeneration`` wrappers (registry ``params="audio"``, ``audio``): the
    ``text_config`` decoder (its own counter, ``decoder``), a Whisper-style audio tower (``audio_config``,
    :func:`whisper_encoder`; Qwen3-ASR's :func:`qwen3_asr_encoder`, GLM-ASR's :func:`glmasr_encoder`), its layers
    in the attention / mlp / norms parts and its convolutions in ``other``, and the projector
    (:func:`audio_projector`), reported in ``vision`` (the part of multimodal projectors). An absent
    sub-config is its type's class defaults (under ``Audio.text_defaults`` / ``absent_text``), as the wrapper
    class builds it. lm_head ``V*H``, tied to the decoder's table by the top-level tie_word_embeddings only
    where the class declares ``_tied_weights_keys`` (``Audio.tied_head``: Qwen3-ASR, MOSS, GLM-ASR; Qwen2-Audio,
    Voxtral and the Flamingos declare none).
    """
    entry = lookup(top.model_type)
    assert entry is not None and entry.text_type is not None and entry.audio is not None, top.model_type
    text = wrapper_sub(top, "text_config", entry.text_type, entry.audio.text_defaults, absent_ok=True,
                absent=entry.audio.absent_text)
    audio = wrapper_sub(top, "audio_config", entry.audio.tower, {}, absent_ok=True)
    decoder(text, t, False)
    hidden, vocab = text.get_int("hidden_size"), text.get_int("vocab_size")
    t.tied = entry.audio.tied_head and top.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * hidden)
    for part, n_params in AUDIO_TOWERS.get(entry.audio.tower, whisper_encoder)(audio).items():
        t.add(part, n_params)
    t.add("vision", audio_projector(top, audio, hidden, entry.audio.projector))


def granite_speech(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """GraniteSpeech(Plus)ForConditionalGeneration (modeling_granite_speech.py): ``language_model`` the granite
    ``text_config`` decoder (Llama-style counter, no head), the conformer encoder (``encoder_config``,
    :func:`granite_speech_encoder`, its parts in attention / mlp / norms / other), ``GraniteSpeechEncoderProjector``
    (vision part: query ``(window_size // downsample_rate)*H_q``, the Q-Former of ``projector_config``
    :func:`blip2_qformer`, linear ``H_q*H + H``); lm_head ``V*H`` unless the top-level tie_word_embeddings (default
    true) ties it to the decoder table (``_tied_weights_keys``). Absent sub-configs: their class defaults."""
    entry = lookup(top.model_type)
    assert entry is not None and entry.text_type is not None, top.model_type
    text = wrapper_sub(top, "text_config", entry.text_type, {}, absent_ok=True)
    enc = wrapper_sub(top, "encoder_config", f"{entry.name}_encoder", {}, absent_ok=True)
    proj = wrapper_sub(top, "projector_config", "blip_2_qformer", {}, absent_ok=True)
    decoder(text, t, False)
    hidden, vocab = text.get_int("hidden_size"), text.get_int("vocab_size")
    t.tied = top.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * hidden)
    for part, n_params in granite_speech_encoder(enc).items():
        t.add(part, n_params)
    hq = proj.get_int("hidden_size")
    queries = top.get_int("window_size") // top.get_int("downsample_rate")
    t.add("vision", queries * hq + blip2_qformer(proj) + linear(hq, hidden, True))


def vibevoice_asr(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """VibeVoiceAsrForConditionalGeneration (modeling_vibevoice_asr.py): the qwen2 ``text_config`` decoder
    (Llama-style counter, no head), the acoustic and semantic tokenizer encoders
    (:func:`vibevoice_tokenizer_encoder`; an absent semantic config is the acoustic class's defaults with hidden_size
    128, VibeVoiceAsrConfig.sub_configs_defaults; part other) and ``VibeVoiceAsrMultiModalProjector``: per path
    ``H_a*H + H``, an RMSNorm ``H``, ``H*H + H`` (the vision part, as the audio wrappers' projectors); lm_head
    ``V*H``, never tied (the class declares no ``_tied_weights_keys``)."""
    text = wrapper_sub(top, "text_config", "qwen2", {}, absent_ok=True)
    tower = "vibevoice_acoustic_tokenizer_encoder"
    acoustic = wrapper_sub(top, "acoustic_tokenizer_encoder_config", tower, {}, absent_ok=True)
    semantic = wrapper_sub(top, "semantic_tokenizer_encoder_config", tower, {}, absent_ok=True,
                           absent={"hidden_size": 128})
    decoder(text, t, False)
    hidden = text.get_int("hidden_size")
    t.tied = False
    t.add("lm_head", text.get_int("vocab_size") * hidden)
    for enc in (acoustic, semantic):
        t.add("other", vibevoice_tokenizer_encoder(enc))
        t.add("vision", linear(enc.get_int("hidden_size"), hidden, True) + hidden + linear(hidden, hidden, True))


_NEMO_TEXT = MappingProxyType({
    "model_type": "nemotron_h", "hidden_size": 2688, "intermediate_size": 1856,
    "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME", "mamba_num_heads": 64,
    "max_position_embeddings": 262144, "moe_intermediate_size": 1856, "moe_shared_expert_intermediate_size": 3712,
    "n_routed_experts": 128, "num_experts_per_tok": 6, "num_key_value_heads": 2, "routed_scaling_factor": 2.5})
"""Nemotron3_5TranscribeConfig.sub_configs_defaults["text_config"].init_kwargs: the decoder it builds without one."""


_NEMO_HEAD = MappingProxyType({"hidden_size": 192, "num_speakers": 8, "audio_hidden_size": 512,
                               "subsampling_factor": 8})
"""Nemotron3DiarizationHeadConfig's class defaults (a config class without a model_type)."""


def nemo_speechlm(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """Nemotron3_5TranscribeForConditionalGeneration (modeling_nemotron3_5_transcribe.py), the class of model_type
    ``nemo_speechlm``. ``decoder`` counts the nemotron_h ``text_config`` with its lm_head ``V*H`` (never tied here
    either: ``_tied_weights_keys = None``). The rest (vision part, as the audio wrappers' towers and projectors):

    * ``Nemotron3_5TranscribeAudioModel`` (``audio_config``): the ASR encoder (``asr_config``, :func:`nemo_encoder`
      with q / k LayerNorms), ``Nemotron3DiarizationForAudioFrameClassification`` (``diarization_config``: its
      audio encoder without q / k norms, proj ``A*h + h`` (A: head_config.audio_hidden_size, h: its hidden_size),
      the sub-pixel upsampler Conv1d ``h*(h*s)*3 + h*s``, the classifier ``h*h + h + h*S + S`` (S num_speakers),
      silence_embeds ``H_d``), asr_norm ``2H_a`` and speaker_norm ``2S`` (the speaker embedding is a buffer);
    * multi_modal_projector ``H_a*H + H``;
    * ``Nemotron3_5TranscribeWordTimestampModel`` (``word_timestamp_config``): the ConvTranspose1d upsampler
      ``H_w*H_w*u + H_w`` then :func:`nemo_encoder` layers with q / k norms; word_timestamp_head Conv1d
      ``H_w*V_w + V_w``.

    An absent sub-config is its class defaults, as the config classes build it: the text decoder from
    :data:`_NEMO_TEXT` (Nemotron3_5TranscribeConfig's init_kwargs, its layer pattern included), the others from
    their registry entries (the diarization init_kwargs set only streaming fields) and :data:`_NEMO_HEAD`.
    """
    if top.data.get("text_config") is None:
        text = typed(ConfigReader(_NEMO_TEXT, "text_config.", top.used, defaults_used=top.defaults_used), "nemotron_h")
    else:
        text = wrapper_sub(top, "text_config", "nemotron_h", {})
    audio = wrapper_sub(top, "audio_config", "nemotron3_5_transcribe_audio", {}, absent_ok=True)
    asr = wrapper_sub(audio, "asr_config", "nemotron3_5_transcribe_asr_audio", {}, absent_ok=True)
    diar = wrapper_sub(audio, "diarization_config", "nemotron3_diarization", {}, absent_ok=True)
    diar_audio = wrapper_sub(diar, "audio_config", "nemotron3_diarization_audio", {}, absent_ok=True)
    head = wrapper_sub(diar, "head_config", "", _NEMO_HEAD, absent_ok=True)
    words = wrapper_sub(top, "word_timestamp_config", "nemotron3_5_transcribe_word_timestamp", {}, absent_ok=True)
    decoder(text, t)
    hidden, h_asr, h_w = text.get_int("hidden_size"), asr.get_int("hidden_size"), words.get_int("hidden_size")
    hh, speakers, sub = head.get_int("hidden_size"), head.get_int("num_speakers"), head.get_int("subsampling_factor")
    diarization = (nemo_encoder(diar_audio, False, stacking(diar_audio))
                   + linear(head.get_int("audio_hidden_size"), hh, True) + hh * hh * sub * 3 + hh * sub
                   + linear(hh, hh, True) + linear(hh, speakers, True) + diar_audio.get_int("hidden_size"))
    t.add("vision", nemo_encoder(asr, True, stacking(asr)) + diarization + 2 * h_asr + 2 * speakers
          + linear(h_asr, hidden, True))
    t.add("vision", nemo_encoder(words, True, h_w * h_w * words.get_int("upsampling_factor") + h_w)
          + linear(h_w, words.get_int("vocab_size"), True))
