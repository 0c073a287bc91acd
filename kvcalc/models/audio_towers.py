"""Audio encoders: Whisper's, Qwen3-ASR's, GLM-ASR's, omniASR's, Granite Speech's Conformer, VibeVoice's
acoustic tokenizer, NeMo's FastConformer, Phi-4's audio encoder, WavTokenizer, Muse Spark's, Qwen-Omni's,
and the projectors of the audio-language wrappers.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from collections.abc import Callable

from ..config import ConfigReader, hidden_per_head
from ..errors import ConfigError
from .blocks import linear, width, width_of
from .counts import Parts
from .subconfigs import sub_config


def omni_audio(top: ConfigReader) -> dict[str, int]:
    """The thinker's audio encoder (``audio_config``), by the part ``tests/reference/test_params.py`` names its modules:

    * Qwen2_5OmniAudioEncoder (modeling_qwen2_5_omni.py): Whisper's encoder modules
      (:func:`kvcalc.models.audio_towers.whisper_encoder`: conv1, conv2, layers, ln_post) without its position table
      (SinusoidsPositionEmbedding is a buffer), plus ``audio_bos_eos_token`` ``2*O`` (other) and ``proj``
      ``d*O + O`` (vision; ``O`` = output_dim);
    * Qwen3OmniMoeAudioEncoder (modeling_qwen3_omni_moe.py): Qwen3-ASR's encoder modules
      (:func:`kvcalc.models.audio_towers.qwen3_asr_encoder`: conv2d1-3, conv_out, layers, ln_post) plus ``proj1``
      ``d*d + d`` and ``proj2`` ``d*O + O`` (other).
    """
    qwen3 = top.model_type == "qwen3_omni_moe_thinker"
    tower = "qwen3_omni_moe_audio_encoder" if qwen3 else "qwen2_5_omni_audio_encoder"
    a = sub_config(top, "audio_config", tower, {}, {tower: None})
    d, out = a.get_int("d_model"), a.get_int("output_dim")
    if qwen3:
        parts = dict(qwen3_asr_encoder(a))
        parts["other"] += linear(d, d, True) + linear(d, out, True)
    else:
        parts = {part: n for part, n in whisper_encoder(a).items() if part != "embedding"}
        parts["other"] += 2 * out
        parts["vision"] = linear(d, out, True)
    return parts


def _seanet_conv(a: ConfigReader, c_in: int, c_out: int, kernel: int) -> int:
    """WavTokenizerConv1d: Conv1d ``c_in*c_out*k + c_out``; weight_norm adds its magnitude ``c_out``
    (parametrizations.weight_norm, dim 0), time_group_norm a GroupNorm ``2*c_out``."""
    norm = a.get_str("norm_type")
    if norm not in ("weight_norm", "time_group_norm"):
        raise ConfigError(a.field_name("norm_type"), norm, "must be weight_norm or time_group_norm")
    return c_in * c_out * kernel + c_out + (c_out if norm == "weight_norm" else 2 * c_out)


def wavtokenizer_encoder(a: ConfigReader) -> int:
    """WavTokenizerEncoderModel (modeling_wavtokenizer.py): the SEANet WavTokenizerEncoder (its codebook is a
    buffer): conv ``audio_channels -> F`` (kernel_size); per upsampling ratio ``r`` (reversed), at width ``c``
    (``F``, doubling): num_residual_layers WavTokenizerResnetBlocks (convs ``c -> c/compress`` of
    residual_kernel_size and ``c/compress -> c`` of 1, a 1x1 shortcut with use_conv_shortcut) and a conv
    ``c -> 2c`` of kernel ``2r``; an nn.LSTM of num_lstm_layers over ``d`` (``8d^2 + 8d`` each); a conv
    ``d -> hidden_size`` of last_kernel_size. Convs: :func:`_seanet_conv`."""
    filters, compress = a.get_int("num_filters"), a.get_int("compress")
    residual, kernel = a.get_int("residual_kernel_size"), a.get_int("kernel_size")
    n_res, shortcut = a.get_int("num_residual_layers", minimum=0), a.get_bool("use_conv_shortcut")
    n = _seanet_conv(a, a.get_int("audio_channels"), filters, kernel)
    width = filters
    for ratio in reversed(a.get_int_list("upsampling_ratios", minimum=1)):
        hidden = width // compress
        block = _seanet_conv(a, width, hidden, residual) + _seanet_conv(a, hidden, width, 1)
        n += n_res * (block + (_seanet_conv(a, width, width, 1) if shortcut else 0))
        n += _seanet_conv(a, width, 2 * width, 2 * ratio)
        width *= 2
    n += a.get_int("num_lstm_layers", minimum=0) * (8 * width * width + 8 * width)
    return n + _seanet_conv(a, width, a.get_int("hidden_size"), a.get_int("last_kernel_size"))


def _muse_spark_audio(a: ConfigReader) -> int:
    """MuseSparkAudioModel (modeling_muse_spark.py), a convolutional pyramid over ``num_hidden_layers`` stages of
    width ``h_i`` (hidden_sizes): MuseSparkAudioPatchEmbedding ``h_{i-1}*s_i -> h_i`` with bias (``h_{-1}`` = 1,
    ``s_i`` = patch_sizes) and an RMSNorm ``h_i``; depths[i] MuseSparkAudioConvBlocks: depthwise conv
    ``h_i*k + h_i``, RMSNorm ``h_i``, MLP ``h_i -> int(h_i*mlp_ratio) -> h_i`` with biases; then an RMSNorm
    ``h_last``, proj ``h_last -> out_hidden_size`` with bias and an RMSNorm ``out_hidden_size``."""
    n_stages, kernel = a.get_int("num_hidden_layers"), a.get_int("conv_kernel_size")
    widths, patches = a.get_int_list("hidden_sizes", minimum=1), a.get_int_list("patch_sizes", minimum=1)
    depths = a.get_int_list("depths", minimum=0)
    if min(len(widths), len(patches), len(depths)) < n_stages:
        raise ConfigError(a.field_name("num_hidden_layers"), n_stages,
                          "exceeds the length of hidden_sizes / patch_sizes / depths")
    ratio, out = a.get_float("mlp_ratio"), a.get_int("out_hidden_size")
    n, width = 0, 1
    for i in range(n_stages):
        h, inter = widths[i], int(widths[i] * ratio)
        n += linear(width * patches[i], h, True) + h
        n += depths[i] * (h * kernel + h + h + linear(h, inter, True) + linear(inter, h, True))
        width = h
    return n + width + linear(width, out, True) + out


def muse_spark_audio(top: ConfigReader) -> tuple[int, int]:
    """(parameters, of which the final RMSNorm) of the audio tower MuseSparkModel always builds over
    ``audio_config`` (else its class defaults): :func:`_muse_spark_audio`."""
    audio = sub_config(top, "audio_config", "muse_spark_audio", {}, fixed=True)
    widths = audio.get_int_list("hidden_sizes", minimum=1)
    return _muse_spark_audio(audio), widths[audio.get_int("num_hidden_layers") - 1]


def phi4_audio(a: ConfigReader) -> int:
    """Phi4MultimodalAudioModel (modeling_phi4_multimodal.py; its mean / inverse-std are buffers):
    Phi4MultimodalAudioNemoConvSubsampling over ``C`` = nemo_conv_channels: a 3x3 conv ``1 -> C`` and
    ``log2(time_reduction) - 1`` pairs of a depthwise 3x3 conv and a 1x1 conv, biased, then out ``C*F -> H``
    with bias (``F`` = nemo_final_size: the config's, else input_size halved log2(time_reduction) times, rounding
    up, as Phi4MultimodalAudioConfig.__post_init__ derives it); the relative attention bias
    table ``buckets*heads`` (buckets = bias_max_distance, doubled unless bias_symmetric); ``num_blocks``
    conformer layers: 2 MLPs (LayerNorm ``2H``, gate_up ``H -> 2I``, down ``I -> H``, biased), attention
    q/k/v/o ``4*(H*n*d + n*d)``, the conv module (LayerNorm ``2H``; GLU 1x1 conv ``H -> 2E`` + b1 / b2 ``2E``;
    depthwise conv ``H*m*k + H*m``; pointwise ``H*m -> D``; 1x1 conv ``H -> E``; biased; ``E`` =
    ext_pw_out_channel, ``D`` = depthwise_separable_out_channel, ``m`` = depthwise_multiplier), 2 LayerNorms
    ``4H``."""
    hidden, inter, heads = a.get_int("hidden_size"), a.get_int("intermediate_size"), a.get_int("num_attention_heads")
    d = hidden_per_head(a, hidden, heads)
    reduction, channels = a.get_int("time_reduction"), a.get_int("nemo_conv_channels")
    steps = reduction.bit_length() - 1
    if reduction != 1 << steps or steps < 1:
        raise ConfigError(a.field_name("time_reduction"), reduction, "must be a power of 2 (at least 2)")
    final = a.opt_int("nemo_final_size")       # a saved value wins over the one __post_init__ derives
    if final is None:
        final = a.get_int("input_size")
        for _ in range(steps):
            final = (final - 1) // 2 + 1
    n = 9 * channels + channels + (steps - 1) * (9 * channels + channels + channels * channels + channels)
    n += linear(channels * final, hidden, True)
    distance = a.get_int("bias_max_distance")
    n += (distance if a.get_bool("bias_symmetric") else 2 * distance) * heads
    ext, dw_out, mult = (a.get_int("ext_pw_out_channel"), a.get_int("depthwise_separable_out_channel"),
                         a.get_int("depthwise_multiplier"))
    mlp = 2 * hidden + linear(hidden, 2 * inter, True) + linear(inter, hidden, True)
    conv = (2 * hidden + linear(hidden, 2 * ext, True) + 2 * ext + hidden * mult * a.get_int("kernel_size")
            + hidden * mult + linear(hidden * mult, dw_out, True) + linear(hidden, ext, True))
    return n + a.get_int("num_blocks") * (2 * mlp + 4 * linear(hidden, heads * d, True) + conv + 4 * hidden)


def whisper_attention(d: int) -> int:
    """``WhisperAttention`` (modeling_whisper.py): q / v / out with biases, k without: ``4*d*d + 3*d``."""
    return 4 * d * d + 3 * d


def _tower_layers(n: int, attn: int, d: int, ffn: int) -> Parts:
    """``n`` encoder layers: attention ``attn``, MLP ``d*F+F + F*d+d``, 2 LayerNorms ``4d``."""
    return {"attention": n * attn, "mlp": n * (linear(d, ffn, True) + linear(ffn, d, True)), "norms": n * 4 * d}


def whisper_encoder(f: ConfigReader) -> Parts:
    """``WhisperEncoder`` (modeling_whisper.py; Qwen2-Audio's, Voxtral's, Audio Flamingo 3's and MOSS's audio
    towers are copies of it under their own field names): conv1 ``mel*d*3 + d``, conv2 ``d*d*3 + d`` (other),
    positions ``max_source_positions*d`` (a frozen parameter), ``L_e`` layers of attention + MLP with ``F_e`` +
    2 LayerNorms, final LayerNorm ``2d``."""
    d = f.get_int("d_model", "hidden_size")
    heads = f.get_int("encoder_attention_heads", "num_attention_heads")
    if d % heads:
        raise ConfigError(f.field_name("d_model", "hidden_size"), d, f"is not divisible by the heads ({heads})")
    mel, ffn = f.get_int("num_mel_bins"), f.get_int("encoder_ffn_dim", "intermediate_size")
    n = f.get_int("encoder_layers", "num_hidden_layers", minimum=0)
    parts = _tower_layers(n, whisper_attention(d), d, ffn)
    parts["norms"] += 2 * d
    return {**parts, "other": mel * d * 3 + d + d * d * 3 + d, "embedding": f.get_int("max_source_positions") * d}


def qwen3_asr_encoder(f: ConfigReader) -> Parts:
    """``Qwen3ASRAudioEncoder`` (modeling_qwen3_asr.py): three stride-2 3x3 Conv2d of ``C`` =
    downsample_hidden_size channels (``9C + C``, then ``9C*C + C`` twice), ``conv_out`` ``C*m -> d`` without bias
    (``m`` = num_mel_bins halved three times, rounding up), ``L_e`` layers (attention ``4*(d*d + d)``, MLP with
    ``F_e``, 2 LayerNorms), ``ln_post`` ``2d``; the sinusoidal positions are a buffer."""
    d = width(f, "encoder_attention_heads")
    c, mel = f.get_int("downsample_hidden_size"), f.get_int("num_mel_bins")
    ffn, n = f.get_int("encoder_ffn_dim"), f.get_int("encoder_layers", minimum=0)
    m = (((mel + 1) // 2 + 1) // 2 + 1) // 2
    parts = _tower_layers(n, 4 * linear(d, d, True), d, ffn)
    parts["norms"] += 2 * d
    return {**parts, "other": 9 * c + c + 2 * (9 * c * c + c) + c * m * d}


def glmasr_encoder(f: ConfigReader) -> Parts:
    """``GlmAsrEncoder`` (modeling_glmasr.py): Whisper's two Conv1d (``mel*H*3 + H``, ``H*H*3 + H``), rotary
    positions (no table), ``L`` layers of GQA attention (``hd`` = head_dim, default ``H / n_q``:
    q ``H*n_q*hd + n_q*hd``, k ``H*n_kv*hd``, v ``H*n_kv*hd + n_kv*hd``, o ``n_q*hd*H + H``), MLP with ``I``
    and 2 LayerNorms; norm ``2H``."""
    h = width_of(f, "hidden_size", "num_attention_heads")
    n_q = f.get_int("num_attention_heads")
    n_kv = f.get_int("num_key_value_heads", default=n_q)
    hd = f.opt_int("head_dim") or h // n_q      # getattr(config, "head_dim", H / n_q), as GlmAsrAttention
    inter, n = f.get_int("intermediate_size"), f.get_int("num_hidden_layers", minimum=0)
    mel = f.get_int("num_mel_bins")
    attn = linear(h, n_q * hd, True) + linear(h, n_kv * hd) + linear(h, n_kv * hd, True) + linear(n_q * hd, h, True)
    parts = _tower_layers(n, attn, h, inter)
    parts["norms"] += 2 * h
    return {**parts, "other": mel * h * 3 + h + h * h * 3 + h}


def omniasr_encoder(f: ConfigReader) -> Parts:
    """``OmniASRAudioModel`` (modeling_omniasr.py): ``OmniASREncoderSubsamplingConv1D``: per
    entry ``i`` of conv_dim a Conv1d ``c_{i-1}*c_i*k_i`` (+ ``c_i`` with conv_bias; ``c_{-1} = 1``) and a LayerNorm
    ``2c_i``, then LayerNorm ``2c`` and projection ``c*H + H`` (``c`` the last conv_dim); the positional Conv1d
    ``H*(H/g)*K + H`` (K num_conv_pos_embeddings, g its groups; no weight norm); ``L`` layers of attention
    ``4*(H*H + H)``, 2 LayerNorms ``4H``, feed-forward ``H*I + I + I*H + H``; final LayerNorm ``2H``."""
    h, inter, n = f.get_int("hidden_size"), f.get_int("intermediate_size"), f.get_int("num_hidden_layers", minimum=0)
    width_of(f, "hidden_size", "num_attention_heads")
    dims, kernels = f.get_int_list("conv_dim", minimum=1), f.get_int_list("conv_kernel", minimum=1)
    if not dims or len(kernels) != len(dims):
        raise ConfigError(f.field_name("conv_kernel"), f"<{len(kernels)} entries>",
                          f"must give one kernel per conv_dim entry ({len(dims)})")
    bias, k, groups = f.get_bool("conv_bias"), f.get_int("num_conv_pos_embeddings"), f.get_int(
        "num_conv_pos_embedding_groups")
    if h % groups:
        raise ConfigError(f.field_name("num_conv_pos_embedding_groups"), groups, f"must divide hidden_size ({h})")
    convs = sum(c_in * c_out * kk + (c_out if bias else 0) + 2 * c_out
                for c_in, c_out, kk in zip([1, *dims[:-1]], dims, kernels))
    parts = _tower_layers(n, 4 * linear(h, h, True), h, inter)
    parts["norms"] += 2 * h
    return {**parts, "other": convs + 2 * dims[-1] + linear(dims[-1], h, True) + h * (h // groups) * k + h}


AUDIO_TOWERS: dict[str, Callable[[ConfigReader], Parts]] = {"qwen3_asr_encoder": qwen3_asr_encoder,
                                                     "glmasr_encoder": glmasr_encoder,
                                                     "omniasr_audio": omniasr_encoder}
"""audio_config model_type -> its tower counter (every other tower is :func:`whisper_encoder`)."""


def audio_projector(top: ConfigReader, audio: ConfigReader, hidden: int, rule: str) -> int:
    """The wrapper's projector from the tower (width ``d``) to the decoder width ``H`` (``Audio.projector``):

    * ``linear`` (modeling_qwen2_audio.py ``Qwen2AudioMultiModalProjector``): ``d*H + H``;
    * ``mlp`` (modeling_audioflamingo3.py ``AudioFlamingo3MultiModalProjector``): ``d -> H`` and ``H -> H``,
      biases with projector_bias;
    * ``stacked`` (modeling_voxtral.py ``VoxtralMultiModalProjector``): ``F_a -> H`` (the tower's
      intermediate_size: 4 frames stacked) and ``H -> H``, no biases;
    * ``qwen3_asr`` (modeling_qwen3_asr.py ``Qwen3ASRMultiModalProjector``): ``d -> d`` and ``d -> output_dim``,
      with biases (output_dim is the audio config's, whatever the decoder width);
    * ``glmasr`` (modeling_glmasr.py ``GlmAsrMultiModalProjector``): ``F_a -> 2H`` and ``2H -> H``, with biases;
    * ``merged`` (modeling_moss_transcribe_diarize.py ``MossTranscribeDiarizeMultiModalProjector``):
      ``d*audio_merge_size -> H`` and ``H -> H`` (biases with projector_bias), LayerNorm ``2H``.
    """
    d = audio.get_int("d_model", "hidden_size")
    if rule == "linear":
        return linear(d, hidden, True)
    if rule == "mlp":
        bias = top.get_bool("projector_bias")
        return linear(d, hidden, bias) + linear(hidden, hidden, bias)
    if rule == "qwen3_asr":
        return linear(d, d, True) + linear(d, audio.get_int("output_dim"), True)
    if rule == "glmasr":
        return linear(audio.get_int("intermediate_size"), 2 * hidden, True) + linear(2 * hidden, hidden, True)
    if rule == "merged":
        bias = top.get_bool("projector_bias")
        return linear(d * top.get_int("audio_merge_size"), hidden, bias) + linear(hidden, hidden, bias) + 2 * hidden
    return linear(audio.get_int("intermediate_size"), hidden) + linear(hidden, hidden)


def granite_speech_encoder(e: ConfigReader) -> Parts:
    """``GraniteSpeechCTCEncoder`` (modeling_granite_speech.py; width ``C`` hidden_dim, ``n*hd`` heads x dim_head
    (default ``C / n``), ``m`` feedforward_mult, ``x`` conv_expansion_factor, ``k`` conv_kernel_size):
    input_linear ``input_dim*C + C``; per ``GraniteSpeechConformerBlock``: two feed-forwards (LayerNorm ``2C``,
    ``C*mC + mC``, ``mC*C + C``), attention (LayerNorm ``2C``, to_q ``C*n*hd``, to_kv ``2*C*n*hd``, to_out
    ``n*hd*C + C``, rel_pos_emb ``(2*max_pos_emb + 1)*hd``), conv module (LayerNorm ``2C``, up_conv
    ``C*2xC + 2xC``, depthwise ``xC*k``, BatchNorm ``2*xC``, down_conv ``xC*C + C``), post_norm ``2C``; out
    ``C*output_dim + output_dim``, out_mid ``output_dim*C + C``. GraniteSpeechPlus' encoder has the same modules."""
    c, n_layers = e.get_int("hidden_size"), e.get_int("num_hidden_layers", minimum=0)
    heads = e.get_int("num_heads")
    hd = e.opt_int("dim_head") or c // heads
    inner, m, x, out = heads * hd, e.get_int("feedforward_mult"), e.get_int("conv_expansion_factor"), e.get_int(
        "output_dim")
    ff = 2 * c + linear(c, m * c, True) + linear(m * c, c, True)
    attn = 2 * c + c * inner + c * 2 * inner + linear(inner, c, True) + (2 * e.get_int("max_pos_emb") + 1) * hd
    conv = 2 * c + linear(c, 2 * x * c, True) + x * c * e.get_int("conv_kernel_size") + 2 * x * c + linear(
        x * c, c, True)
    return {"mlp": n_layers * 2 * ff, "attention": n_layers * attn, "other": n_layers * conv + linear(
        e.get_int("input_dim"), c, True) + linear(c, out, True) + linear(out, c, True), "norms": n_layers * 2 * c}


def vibevoice_tokenizer_encoder(e: ConfigReader) -> int:
    """``VibeVoiceAcousticTokenizerEncoderModel`` (modeling_vibevoice_acoustic_tokenizer.py; ``F`` num_filters,
    ``r_s`` downsampling_ratios, ``d_s`` depths (one more than the ratios), ``k`` kernel_size, ``x`` ffn_expansion):
    stem Conv1d ``channels*F*k + F``; stage s's Conv1d ``F*2^s -> F*2^(s+1)`` of kernel ``2*r_s`` (+ bias); after the
    stem ``d_0`` and after stage s ``d_(s+1)`` ``VibeVoiceAcousticTokenizerConvNext1dLayer`` of width ``w``: 2 RMSNorms
    ``2w``, gamma / ffn_gamma ``2w``, depthwise mixer ``w*k + w``, feed-forward ``w*xw + xw + xw*w + w``; head Conv1d
    ``F*2^S*H*k + H``."""
    f0, k, x = e.get_int("num_filters"), e.get_int("kernel_size"), e.get_int("ffn_expansion")
    ratios, depths = e.get_int_list("downsampling_ratios", minimum=1), e.get_int_list("depths")
    if len(depths) != len(ratios) + 1:
        raise ConfigError(e.field_name("depths"), f"<{len(depths)} entries>",
                          f"must give one more entry than downsampling_ratios ({len(ratios)})")

    def blocks(n: int, w: int) -> int:
        return n * (4 * w + w * k + w + linear(w, x * w, True) + linear(x * w, w, True))

    n = e.get_int("channels") * f0 * k + f0 + blocks(depths[0], f0)
    for s, r in enumerate(ratios):
        w_in, w = f0 * 2 ** s, f0 * 2 ** (s + 1)
        n += w_in * w * 2 * r + w + blocks(depths[s + 1], w)
    return n + linear(f0 * 2 ** len(ratios) * k, e.get_int("hidden_size"), True)


def nemo_encoder(e: ConfigReader, qk_norm: bool, stem: int) -> int:
    """A pre-norm audio encoder of modeling_nemotron3_5_transcribe.py / modeling_nemotron3_diarization.py: ``stem``
    (the input module), input LayerNorm ``2H``, ``L`` layers (``Nemotron3_5TranscribeAsrAudioLayer`` /
    ``Nemotron3DiarizationAudioLayer``: q ``H*n_q*hd``, k ``H*n_kv*hd``, v ``H*n_q*hd`` (query heads), o
    ``n_q*hd*H + H``, with qk_norm LayerNorms ``2*hd`` on q and k; 2 LayerNorms ``4H``; fc1 / fc2
    ``H*I + I + I*H + H``), final LayerNorm ``2H``. ``hd = H / n_q`` (the config classes hold no head_dim);
    ``n_kv`` defaults to ``n_q``."""
    h = width_of(e, "hidden_size", "num_attention_heads")
    n_q = e.get_int("num_attention_heads")
    n_kv, hd = e.opt_int("num_key_value_heads") or n_q, h // n_q
    inter, n = e.get_int("intermediate_size"), e.get_int("num_hidden_layers", minimum=0)
    layer = (h * n_q * hd + h * n_kv * hd + h * n_q * hd + linear(n_q * hd, h, True) + (4 * hd if qk_norm else 0)
             + 4 * h + linear(h, inter, True) + linear(inter, h, True))
    return stem + 4 * h + n * layer


def stacking(e: ConfigReader) -> int:
    """``Nemotron3_5TranscribeFeatureStacking`` / ``Nemotron3DiarizationFeatureStacking``: projection
    ``subsampling_factor*num_mel_bins*H`` (no bias)."""
    return e.get_int("subsampling_factor") * e.get_int("num_mel_bins") * e.get_int("hidden_size")
