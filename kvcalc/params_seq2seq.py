"""Exact parameter counts of encoder-decoder models (BART family, Whisper, T5Gemma (2), Switch / NLLB-MoE,
EncoderDecoderModel) and of speech / document wrappers (audio-language, Granite Speech, Nemotron 3.5 Transcribe,
VibeVoice-ASR, Kosmos-2.5), without torch.

:mod:`kvcalc.params` dispatches here by a registry entry's ``params`` family (:data:`COUNTERS`); what
differs between the types of one family is in their :mod:`kvcalc.model_types` entries (``quirks``).
This module does not import :mod:`kvcalc.params` (which imports it): a counter adds its parts to any
:class:`Tally`, the parts being those of :class:`kvcalc.params.ParamCount`.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the ``...ForConditionalGeneration``
class transformers 5.24 builds on the meta device (tied weights counted once; buffers such as
``final_logits_bias`` and M2M100 / PEGASUS-X sinusoidal tables are not parameters), checked for the class
defaults by tests/fixtures/transformers_5_24_coverage.json and for other geometries by
tests/test_params_seq2seq.py.

Notation: ``d`` d_model, ``V`` vocab_size, ``F_e`` / ``F_d`` encoder / decoder FFN width, ``L_e`` / ``L_d``
encoder / decoder layers, ``P`` max_position_embeddings. A linear layer ``a -> b`` has ``a*b`` weights
(+ ``b`` with bias); a LayerNorm of width ``d`` has ``2d``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Protocol

from .config import ConfigReader
from .errors import ConfigError, UnsupportedError
from .model_types import lookup, typed


class Tally(Protocol):
    """Where a counter adds its parts (:class:`kvcalc.params._Tally`)."""

    tied: bool

    def add(self, part: str, n: int) -> None: ...

    def experts(self, per_expert: int, n_experts: int, top_k: int | None, field: str) -> None:
        """One MoE layer's routed experts (part ``mlp``), ``top_k`` of them used per token."""


def _linear(n_in: int, n_out: int, bias: bool = False) -> int:
    return n_in * n_out + (n_out if bias else 0)


def _quirks(f: ConfigReader) -> frozenset[str]:
    entry = lookup(f.model_type)
    assert entry is not None, f.model_type
    return entry.quirks


def _width_of(f: ConfigReader, width_field: str, heads_field: str) -> int:
    """``width_field``, checked to divide into ``heads_field`` heads."""
    d, heads = f.get_int(width_field), f.get_int(heads_field)
    if d % heads:
        raise ConfigError(f.field_name(width_field), d, f"is not divisible by {heads_field} ({heads})")
    return d


def _width(f: ConfigReader, heads_field: str) -> int:
    """``d_model`` (SeamlessM4T: ``hidden_size``), checked to divide into ``heads_field`` heads
    (the attention's ``head_dim = d / heads``)."""
    d, heads = f.get_int("d_model", "hidden_size"), f.get_int(heads_field)
    if d % heads:
        raise ConfigError(f.field_name("d_model", "hidden_size"), d, f"is not divisible by {heads_field} ({heads})")
    return d


# --------------------------------------------------------------------------- BART family
def _positions(f: ConfigReader, q: frozenset[str], d: int) -> tuple[int, int]:
    """(encoder, decoder) position-table parameters.

    Learned tables (``BartLearnedPositionalEmbedding``, modeling_bart.py) hold ``(P + 2) * d`` (an offset of
    2 rows: bart, mbart, plbart, mvp); Blenderbot's, BigBird-Pegasus's and LED's learned tables ``P * d`` (LED:
    max_encoder_position_embeddings / max_decoder_position_embeddings); Marian's and Pegasus's sinusoidal
    tables are ``nn.Embedding`` parameters of ``P * d``; FSMT's ``SinusoidalPositionalEmbedding`` has
    ``P + pad_token_id + 1`` rows; M2M100's and PEGASUS-X's sinusoidal tables are buffers (0).
    """
    if "positions_buffer" in q:
        return 0, 0
    if "led_positions" in q:
        return (f.get_int("max_encoder_position_embeddings") * d, f.get_int("max_decoder_position_embeddings") * d)
    rows = f.get_int("max_position_embeddings")
    if "positions_offset_2" in q:
        rows += 2
    elif "positions_pad_offset" in q:
        rows += f.get_int("pad_token_id", minimum=0) + 1
    return rows * d, rows * d


def _embeddings(f: ConfigReader, t: Tally, q: frozenset[str], d: int) -> None:
    """Token tables and lm_head. transformers 5 ties them only with ``tie_word_embeddings``
    (``PreTrainedModel.tie_weights`` applies ``_tied_weights_keys`` then), else each is its own tensor.

    * shared (most types): ``model.shared``, ``encoder.embed_tokens``, ``decoder.embed_tokens`` and lm_head,
      all ``V*d``: ``V*d`` tied, ``4*V*d`` untied (3 tables + lm_head).
    * Marian (modeling_marian.py ``MarianModel``): with ``share_encoder_decoder_embeddings`` as shared, the
      decoder table having ``decoder_vocab_size`` rows (``V_dec``) when untied; without it no ``shared``,
      encoder ``V*d``, decoder ``V_dec*d`` and lm_head ``V_dec*d`` tied to the decoder table.
    * FSMT (modeling_fsmt.py ``FSMTModel``): encoder ``src_vocab_size*d``, decoder ``tgt_vocab_size*d`` and
      ``output_projection`` (the lm_head) ``tgt_vocab_size*d``; tied: one table (both sizes must agree).
      ``vocab_size`` is an alias of ``tgt_vocab_size`` (``FSMTConfig.attribute_map``).
    """
    tied = f.get_bool("tie_word_embeddings")
    t.tied = tied
    if "fsmt_embeddings" in q:
        src, tgt = f.get_int("src_vocab_size"), f.get_int("tgt_vocab_size")
        if f.has("vocab_size") and f.get_int("vocab_size") != tgt:  # FSMTConfig.attribute_map: the same field
            raise ConfigError(f.field_name("vocab_size"), f.get_int("vocab_size"),
                              f"is FSMT's tgt_vocab_size ({tgt}); the config gives two different values")
        if tied and src != tgt:
            raise ConfigError(f.field_name("tgt_vocab_size"), tgt,
                              f"must equal src_vocab_size ({src}) when tie_word_embeddings is true")
        t.add("embedding", tgt * d if tied else (src + tgt) * d)
        t.add("other", 0 if tied else tgt * d)   # decoder.output_projection (FSMT's lm_head, not named lm_head)
        return
    vocab = f.get_int("vocab_size")
    if "marian_embeddings" in q:
        dec = f.get_int("decoder_vocab_size", default=vocab)
        if f.get_bool("share_encoder_decoder_embeddings"):
            t.add("embedding", vocab * d if tied else (2 * vocab + dec) * d)
            t.add("lm_head", 0 if tied else vocab * d)
        else:
            t.add("embedding", (vocab + dec) * d)
            t.add("lm_head", 0 if tied else dec * d)
        return
    t.add("embedding", vocab * d if tied else 3 * vocab * d)
    t.add("lm_head", 0 if tied else vocab * d)


def _mvp_prompts(f: ConfigReader, d: int) -> int:
    """MVP with ``use_prompt``: the decoder's self- and cross-attention prompts (modeling_mvp.py ``MvpPrompt``),
    each ``prompt_length*d`` + ``d -> prompt_mid_dim`` + ``prompt_mid_dim -> L_d*2*d`` (biases). The encoder
    builds none: ``MvpModel`` passes ``config.use_prompt`` as ``MvpEncoder``'s second positional argument,
    ``embed_tokens``, so the encoder's ``use_prompt`` stays False."""
    if not f.get_bool("use_prompt"):
        return 0
    length, mid = f.get_int("prompt_length"), f.get_int("prompt_mid_dim")
    n_dec = f.get_int("decoder_layers")
    return 2 * (length * d + _linear(d, mid, True) + _linear(mid, n_dec * 2 * d, True))


def _bart(f: ConfigReader, t: Tally) -> None:
    """BART-style encoder-decoders (registry ``params="bart"``; quirks say what differs), as in
    modeling_bart.py ``BartForConditionalGeneration`` and its copies (mbart, marian, pegasus, pegasus_x, led,
    blenderbot, blenderbot_small, m2m_100, fsmt, plbart, mvp, bigbird_pegasus; SeamlessM4T(v2)ForTextToText,
    the text encoder and decoder of the speech model, M2M100-style).

    Attention ``4*(d*d + d)`` (no biases: PEGASUS-X; BigBird-Pegasus: biases with use_bias). Encoder layer:
    self-attention + LayerNorm ``2d`` + MLP ``d*F_e+F_e + F_e*d+d`` + LayerNorm ``2d``; LED adds the global
    q/k/v ``3*(d*d+d)`` (``LEDEncoderSelfAttention``), PEGASUS-X a global LayerNorm ``2d`` (and
    ``embed_global`` ``num_global_tokens*d``). Decoder layer: self- and cross-attention, 3 LayerNorms, MLP
    with ``F_d``. Per stack: ``layernorm_embedding`` ``2d`` (bart, mbart, led, blenderbot_small, plbart, mvp,
    bigbird_pegasus) and a final ``layer_norm`` ``2d`` (mbart, pegasus, pegasus_x, blenderbot, m2m_100).
    Positions: :func:`_positions`; tables and lm_head: :func:`_embeddings`; ``final_logits_bias`` is a buffer.
    """
    q = _quirks(f)
    d = _width(f, "encoder_attention_heads")
    _width(f, "decoder_attention_heads")
    n_enc, n_dec = f.get_int("encoder_layers", minimum=0), f.get_int("decoder_layers", minimum=0)
    ffn_enc, ffn_dec = f.get_int("encoder_ffn_dim"), f.get_int("decoder_ffn_dim")
    if "no_attention_bias" in q:
        enc_bias = dec_bias = False
    elif "use_bias" in q:
        enc_bias = dec_bias = f.get_bool("use_bias")
    else:
        enc_bias = dec_bias = True
    attn_enc, attn_dec = 4 * _linear(d, d, enc_bias), 4 * _linear(d, d, dec_bias)
    if "longformer_global" in q:
        attn_enc += 3 * _linear(d, d, True)
    ln = 2 * d
    stack_norms = (ln if "layernorm_embedding" in q else 0) + (ln if "final_layer_norm" in q else 0)
    enc_norms = 2 * ln + (ln if "global_tokens" in q else 0)
    pos_enc, pos_dec = _positions(f, q, d)
    _embeddings(f, t, q, d)
    t.add("embedding", pos_enc + pos_dec)
    if "global_tokens" in q:
        t.add("other", f.get_int("num_global_tokens") * d)   # encoder.embed_global
    t.add("attention", n_enc * attn_enc + n_dec * 2 * attn_dec)
    t.add("mlp", n_enc * (_linear(d, ffn_enc, True) + _linear(ffn_enc, d, True))
          + n_dec * (_linear(d, ffn_dec, True) + _linear(ffn_dec, d, True)))
    t.add("norms", n_enc * enc_norms + n_dec * 3 * ln + 2 * stack_norms)
    if "mvp_prompts" in q:
        t.add("other", _mvp_prompts(f, d))


def _trocr(f: ConfigReader, t: Tally) -> None:
    """TrOCRForCausalLM (modeling_trocr.py; the class transformers builds for a ``trocr`` config, the decoder
    of a VisionEncoderDecoderModel): tokens ``V*d``; learned positions ``(P + 2)*d`` with
    use_learned_position_embeddings (the sinusoidal table is a plain tensor, not a parameter);
    ``layernorm_embedding`` ``2d`` with that flag; ``L_d`` layers of self-attention ``4*(d*d + d)``,
    cross-attention (``TrOCRForCausalLM`` sets is_decoder) with k / v from ``c`` = cross_attention_hidden_size
    (default ``d``): ``2*(d*d + d) + 2*(c*d + d)``, MLP with ``F_d`` and 3 LayerNorms; output_projection ``V*d``
    unless tied. No final LayerNorm.
    """
    d = _width(f, "decoder_attention_heads")
    vocab, ffn, n = f.get_int("vocab_size"), f.get_int("decoder_ffn_dim"), f.get_int("decoder_layers", minimum=0)
    cross = f.opt_int("cross_attention_hidden_size") or d
    t.add("embedding", vocab * d + ((f.get_int("max_position_embeddings") + 2) * d
                                    if f.get_bool("use_learned_position_embeddings") else 0))
    t.add("attention", n * (4 * _linear(d, d, True) + 2 * _linear(d, d, True) + 2 * _linear(cross, d, True)))
    t.add("mlp", n * (_linear(d, ffn, True) + _linear(ffn, d, True)))
    t.add("norms", n * 6 * d + (2 * d if f.get_bool("layernorm_embedding") else 0))
    t.tied = f.get_bool("tie_word_embeddings")
    t.add("other", 0 if t.tied else vocab * d)   # output_projection (TrOCR's lm_head, not named lm_head)


def _prophetnet(f: ConfigReader, t: Tally) -> None:
    """ProphetNetForConditionalGeneration (modeling_prophetnet.py): ``word_embeddings`` ``V*d`` shared by both
    stacks and lm_head when tied (untied: 3 tables + lm_head, as BART); per stack learned positions ``P*d``
    and an embeddings LayerNorm ``2d``; the decoder's ``ngram_embeddings`` ``ngram*d``. Encoder layer:
    attention ``4*(d*d + d)``, MLP with ``F_e``, 2 LayerNorms. Decoder layer: n-gram self-attention
    ``4*(d*d + d)`` + ``relative_pos_embeddings`` ``d -> num_buckets*heads`` (bias), cross-attention, MLP
    with ``F_d``, 3 LayerNorms.
    """
    d = f.get_int("hidden_size")
    for heads_field in ("num_encoder_attention_heads", "num_decoder_attention_heads"):
        if d % f.get_int(heads_field):
            raise ConfigError(f.field_name("hidden_size"), d, f"is not divisible by {heads_field}")
    vocab, pos = f.get_int("vocab_size"), f.get_int("max_position_embeddings")
    n_enc, n_dec = f.get_int("num_encoder_layers", minimum=0), f.get_int("num_decoder_layers", minimum=0)
    ffn_enc, ffn_dec = f.get_int("encoder_ffn_dim"), f.get_int("decoder_ffn_dim")
    rel = _linear(d, f.get_int("num_buckets") * f.get_int("num_decoder_attention_heads"), True)
    t.tied = f.get_bool("tie_word_embeddings")
    t.add("embedding", (1 if t.tied else 3) * vocab * d)
    t.add("other", 2 * pos * d + f.get_int("ngram") * d)   # position_embeddings, ngram_embeddings
    t.add("lm_head", 0 if t.tied else vocab * d)
    attn = 4 * _linear(d, d, True)
    t.add("attention", n_enc * attn + n_dec * (2 * attn + rel))
    t.add("mlp", n_enc * (_linear(d, ffn_enc, True) + _linear(ffn_enc, d, True))
          + n_dec * (_linear(d, ffn_dec, True) + _linear(ffn_dec, d, True)))
    t.add("norms", (n_enc * 4 + n_dec * 6 + 4) * d)


# --------------------------------------------------------------------------- Whisper
def _whisper_attention(d: int) -> int:
    """``WhisperAttention`` (modeling_whisper.py): q / v / out with biases, k without: ``4*d*d + 3*d``."""
    return 4 * d * d + 3 * d


Parts = dict[str, int]
"""parameters by part (the parts of :class:`kvcalc.params.ParamCount`)."""


def _tower_layers(n: int, attn: int, d: int, ffn: int) -> Parts:
    """``n`` encoder layers: attention ``attn``, MLP ``d*F+F + F*d+d``, 2 LayerNorms ``4d``."""
    return {"attention": n * attn, "mlp": n * (_linear(d, ffn, True) + _linear(ffn, d, True)), "norms": n * 4 * d}


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
    parts = _tower_layers(n, _whisper_attention(d), d, ffn)
    parts["norms"] += 2 * d
    return {**parts, "other": mel * d * 3 + d + d * d * 3 + d, "embedding": f.get_int("max_source_positions") * d}


def _whisper(f: ConfigReader, t: Tally) -> None:
    """Whisper: the class the config's ``architectures`` names. ``WhisperForConditionalGeneration`` (what Hub
    checkpoints name, and the model whose cross-attention cache kvcalc plans): encoder
    (:func:`whisper_encoder`) + decoder; otherwise ``WhisperForCausalLM``, the class
    transformers' causal-LM auto mapping builds: the decoder alone.

    Decoder (``WhisperDecoder``): tokens ``V*d``, learned positions ``max_target_positions*d``, ``L_d``
    layers of self- and cross-attention (``4*d*d + 3*d`` each), MLP with ``F_d``, 3 LayerNorms; final
    LayerNorm ``2d``; ``proj_out`` ``V*d`` unless tied (tie_word_embeddings).
    """
    d = _width(f, "decoder_attention_heads")
    vocab, ffn, n = f.get_int("vocab_size"), f.get_int("decoder_ffn_dim"), f.get_int("decoder_layers", minimum=0)
    t.add("embedding", vocab * d + f.get_int("max_target_positions") * d)
    t.add("attention", n * 2 * _whisper_attention(d))
    t.add("mlp", n * (_linear(d, ffn, True) + _linear(ffn, d, True)))
    t.add("norms", n * 6 * d + 2 * d)
    t.tied = f.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * d)
    if "WhisperForConditionalGeneration" in (f.opt_str_list("architectures") or []):
        for part, n_params in whisper_encoder(f).items():
            t.add(part, n_params)


# --------------------------------------------------------------------------- audio-language wrappers
Decoder = Callable[..., None]
"""``(text_config reader, tally, head)``: kvcalc.params' Llama-style decoder counter, which it passes in."""


def _sub(top: ConfigReader, name: str, sub_type: str, overrides: Mapping[str, Any],
         absent_ok: bool = False, absent: Mapping[str, Any] | None = None) -> ConfigReader:
    """The nested config ``name`` (its model_type must be ``sub_type``), read with that type's class
    defaults under ``overrides`` (the wrapper class's, where it merges them into a given sub-config).
    Absent: refused, unless ``absent_ok``: the wrapper class then builds the sub-type's class defaults under
    ``absent`` (its ``SubConfigSpec.init_kwargs``, configuration_utils.py)."""
    sub = top.sub(name)
    if sub is None and absent_ok and top.data.get(name) is None:
        sub = ConfigReader({}, f"{top.path}{name}.", top.used, defaults_used=top.defaults_used)
        overrides = {**overrides, **(absent or {})}
    if sub is None:
        raise UnsupportedError(f"parameter counting of model_type '{top.model_type}' needs its '{name}' "
                               "(kvcalc does not rebuild a nested config's class defaults)")
    given = sub.get_str("model_type", default=sub_type)
    if given != sub_type:
        raise UnsupportedError(f"{top.path}{name}.model_type '{given}' is not counted (expected {sub_type})")
    entry = lookup(sub_type)
    return sub.with_defaults({**(entry.defaults if entry else {}), **overrides}, sub_type,
                             entry.attribute_map if entry else None)


def qwen3_asr_encoder(f: ConfigReader) -> Parts:
    """``Qwen3ASRAudioEncoder`` (modeling_qwen3_asr.py): three stride-2 3x3 Conv2d of ``C`` =
    downsample_hidden_size channels (``9C + C``, then ``9C*C + C`` twice), ``conv_out`` ``C*m -> d`` without bias
    (``m`` = num_mel_bins halved three times, rounding up), ``L_e`` layers (attention ``4*(d*d + d)``, MLP with
    ``F_e``, 2 LayerNorms), ``ln_post`` ``2d``; the sinusoidal positions are a buffer."""
    d = _width(f, "encoder_attention_heads")
    c, mel = f.get_int("downsample_hidden_size"), f.get_int("num_mel_bins")
    ffn, n = f.get_int("encoder_ffn_dim"), f.get_int("encoder_layers", minimum=0)
    m = (((mel + 1) // 2 + 1) // 2 + 1) // 2
    parts = _tower_layers(n, 4 * _linear(d, d, True), d, ffn)
    parts["norms"] += 2 * d
    return {**parts, "other": 9 * c + c + 2 * (9 * c * c + c) + c * m * d}


def glmasr_encoder(f: ConfigReader) -> Parts:
    """``GlmAsrEncoder`` (modeling_glmasr.py): Whisper's two Conv1d (``mel*H*3 + H``, ``H*H*3 + H``), rotary
    positions (no table), ``L`` layers of GQA attention (``hd`` = head_dim, default ``H / n_q``:
    q ``H*n_q*hd + n_q*hd``, k ``H*n_kv*hd``, v ``H*n_kv*hd + n_kv*hd``, o ``n_q*hd*H + H``), MLP with ``I``
    and 2 LayerNorms; norm ``2H``."""
    h = _width_of(f, "hidden_size", "num_attention_heads")
    n_q = f.get_int("num_attention_heads")
    n_kv = f.get_int("num_key_value_heads", default=n_q)
    hd = f.opt_int("head_dim") or h // n_q      # getattr(config, "head_dim", H / n_q), as GlmAsrAttention
    inter, n = f.get_int("intermediate_size"), f.get_int("num_hidden_layers", minimum=0)
    mel = f.get_int("num_mel_bins")
    attn = _linear(h, n_q * hd, True) + _linear(h, n_kv * hd) + _linear(h, n_kv * hd, True) + _linear(n_q * hd, h, True)
    parts = _tower_layers(n, attn, h, inter)
    parts["norms"] += 2 * h
    return {**parts, "other": mel * h * 3 + h + h * h * 3 + h}


def omniasr_encoder(f: ConfigReader) -> Parts:
    """``OmniASRAudioModel`` (modeling_omniasr.py; S2S, issue 12): ``OmniASREncoderSubsamplingConv1D``: per
    entry ``i`` of conv_dim a Conv1d ``c_{i-1}*c_i*k_i`` (+ ``c_i`` with conv_bias; ``c_{-1} = 1``) and a LayerNorm
    ``2c_i``, then LayerNorm ``2c`` and projection ``c*H + H`` (``c`` the last conv_dim); the positional Conv1d
    ``H*(H/g)*K + H`` (K num_conv_pos_embeddings, g its groups; no weight norm); ``L`` layers of attention
    ``4*(H*H + H)``, 2 LayerNorms ``4H``, feed-forward ``H*I + I + I*H + H``; final LayerNorm ``2H``."""
    h, inter, n = f.get_int("hidden_size"), f.get_int("intermediate_size"), f.get_int("num_hidden_layers", minimum=0)
    _width_of(f, "hidden_size", "num_attention_heads")
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
    parts = _tower_layers(n, 4 * _linear(h, h, True), h, inter)
    parts["norms"] += 2 * h
    return {**parts, "other": convs + 2 * dims[-1] + _linear(dims[-1], h, True) + h * (h // groups) * k + h}


_TOWERS: dict[str, Callable[[ConfigReader], Parts]] = {"qwen3_asr_encoder": qwen3_asr_encoder,
                                                     "glmasr_encoder": glmasr_encoder,
                                                     "omniasr_audio": omniasr_encoder}
"""audio_config model_type -> its tower counter (every other tower is :func:`whisper_encoder`)."""


def _audio_projector(top: ConfigReader, audio: ConfigReader, hidden: int, rule: str) -> int:
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
        return _linear(d, hidden, True)
    if rule == "mlp":
        bias = top.get_bool("projector_bias")
        return _linear(d, hidden, bias) + _linear(hidden, hidden, bias)
    if rule == "qwen3_asr":
        return _linear(d, d, True) + _linear(d, audio.get_int("output_dim"), True)
    if rule == "glmasr":
        return _linear(audio.get_int("intermediate_size"), 2 * hidden, True) + _linear(2 * hidden, hidden, True)
    if rule == "merged":
        bias = top.get_bool("projector_bias")
        return _linear(d * top.get_int("audio_merge_size"), hidden, bias) + _linear(hidden, hidden, bias) + 2 * hidden
    return _linear(audio.get_int("intermediate_size"), hidden) + _linear(hidden, hidden)


def audio_wrapper(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """Audio-language ``...ForConditionalGeneration`` wrappers (registry ``params="audio"``, ``audio``): the
    ``text_config`` decoder (its own counter, ``decoder``), a Whisper-style audio tower (``audio_config``,
    :func:`whisper_encoder`; Qwen3-ASR's :func:`qwen3_asr_encoder`, GLM-ASR's :func:`glmasr_encoder`), its layers
    in the attention / mlp / norms parts and its convolutions in ``other``, and the projector
    (:func:`_audio_projector`), reported in ``vision`` (the part of multimodal projectors). An absent
    sub-config is its type's class defaults (under ``Audio.text_defaults`` / ``absent_text``), as the wrapper
    class builds it. lm_head ``V*H``, tied to the decoder's table by the top-level tie_word_embeddings only
    where the class declares ``_tied_weights_keys`` (``Audio.tied_head``: Qwen3-ASR, MOSS, GLM-ASR; Qwen2-Audio,
    Voxtral and the Flamingos declare none).
    """
    entry = lookup(top.model_type)
    assert entry is not None and entry.text_type is not None and entry.audio is not None, top.model_type
    text = _sub(top, "text_config", entry.text_type, entry.audio.text_defaults, absent_ok=True,
                absent=entry.audio.absent_text)
    audio = _sub(top, "audio_config", entry.audio.tower, {}, absent_ok=True)
    decoder(text, t, False)
    hidden, vocab = text.get_int("hidden_size"), text.get_int("vocab_size")
    t.tied = entry.audio.tied_head and top.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * hidden)
    for part, n_params in _TOWERS.get(entry.audio.tower, whisper_encoder)(audio).items():
        t.add(part, n_params)
    t.add("vision", _audio_projector(top, audio, hidden, entry.audio.projector))


def t5gemma(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """T5GemmaForConditionalGeneration (modeling_t5gemma.py): ``encoder`` and ``decoder`` sub-configs
    (``t5_gemma_module``), each a Gemma 2 stack counted by the Llama-style counter (``decoder``: its own
    ``V*H`` table, 4 RMSNorms per layer, final norm); each decoder layer adds cross-attention
    (``T5GemmaCrossAttention``: q ``H*n_q*d``, k / v ``c*n_kv*d`` from ``c`` = cross_attention_hidden_size,
    which ``T5GemmaConfig.__post_init__`` sets to the encoder width, o ``n_q*d*H``, biases with attention_bias)
    and its 2 RMSNorms ``2H``. An absent encoder / decoder is the sub-type's class defaults, as transformers.
    lm_head (``T5GemmaLMHead.out_proj``, no bias) ``V*H`` unless the top-level tie_word_embeddings ties it to
    the decoder table; the encoder table is never tied.
    """
    enc = _sub(top, "encoder", "t5_gemma_module", {}, absent_ok=True)   # T5GemmaConfig: class defaults
    dec = _sub(top, "decoder", "t5_gemma_module", {}, absent_ok=True)
    decoder(enc, t, False)
    decoder(dec, t, False)
    hidden, vocab, n_dec = dec.get_int("hidden_size"), dec.get_int("vocab_size"), dec.get_int("num_hidden_layers")
    n_q, n_kv = dec.get_int("num_attention_heads"), dec.get_int("num_key_value_heads")
    d = dec.get_int("head_dim")
    cross_in = enc.get_int("hidden_size")   # T5GemmaConfig.__post_init__ sets it, whatever the decoder says
    bias = dec.get_bool("attention_bias")
    t.add("attention", n_dec * (_linear(hidden, n_q * d, bias) + 2 * _linear(cross_in, n_kv * d, bias)
                                + _linear(n_q * d, hidden, bias)))
    t.add("norms", n_dec * 2 * hidden)
    t.tied = top.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * hidden)


# --------------------------------------------------------------------------- MoE encoder-decoders (S2S, issue 12)
def _sparse_layers(n: int, n_sparse: int) -> list[int]:
    """SwitchTransformersConfig.__post_init__ / SwitchTransformersStack: ``step = n // n_sparse`` (``n`` when
    n_sparse is 0); layer ``i`` is sparse when ``i % step == 1`` or ``step == 1`` (none when step is 0)."""
    step = n // n_sparse if n_sparse > 0 else n
    return [i for i in range(n) if step > 0 and (i % step == 1 or step == 1)]


def _switch_transformers(f: ConfigReader, t: Tally) -> None:
    """SwitchTransformersForConditionalGeneration (modeling_switch_transformers.py): T5 v1.0 stacks (see
    kvcalc.params._t5) whose sparse layers (:func:`_sparse_layers` of num_sparse_encoder_layers /
    num_sparse_decoder_layers) replace the dense ``wi`` / ``wo`` (``2*d_model*d_ff``, no biases) by
    ``SwitchTransformersSparseMLP``: router ``d_model -> E`` (bias with router_bias) and ``E`` experts of
    ``2*d_model*d_ff``, one picked per token (``SwitchTransformersTop1Router``). Attention ``4*d_model*n*d_kv``,
    a relative bias ``buckets*n`` in block 0 of each stack (self-attention only), T5 LayerNorms (weight only,
    ``d_model``): 2 per encoder block, 3 per decoder block, 1 final per stack. Tables: ``shared``,
    ``encoder.embed_tokens``, ``decoder.embed_tokens`` and lm_head ``V*d_model`` each, one tensor when
    tie_word_embeddings (``_tied_weights_keys``)."""
    vocab, d = f.get_int("vocab_size"), f.get_int("d_model", "hidden_size")
    d_kv, d_ff, heads = f.get_int("d_kv"), f.get_int("d_ff"), f.get_int("num_heads")
    n_enc = f.get_int("num_layers")
    n_dec = f.opt_int("num_decoder_layers") or n_enc
    n_experts, bias = f.get_int("num_experts"), f.get_bool("router_bias")
    sparse = (_sparse_layers(n_enc, f.get_int("num_sparse_encoder_layers", minimum=0))
              + _sparse_layers(n_dec, f.get_int("num_sparse_decoder_layers", minimum=0)))
    dense = 2 * d * d_ff
    t.tied = f.get_bool("tie_word_embeddings")
    t.add("embedding", vocab * d if t.tied else 3 * vocab * d)
    t.add("lm_head", 0 if t.tied else vocab * d)
    t.add("attention", (n_enc + 2 * n_dec) * 4 * d * heads * d_kv + 2 * f.get_int("relative_attention_num_buckets")
          * heads)
    t.add("mlp", (n_enc + n_dec - len(sparse)) * dense)
    for _ in sparse:
        t.add("mlp", _linear(d, n_experts, bias))
        t.experts(dense, n_experts, 1, "router (top-1)")
    t.add("norms", (2 * n_enc + 3 * n_dec + 2) * d)


def _nllb_moe(f: ConfigReader, t: Tally) -> None:
    """NllbMoeForConditionalGeneration (modeling_nllb_moe.py): an M2M100-style BART (:func:`_bart`; sinusoidal
    positions are buffers, a final LayerNorm per stack) whose every encoder_sparse_step-th encoder layer and
    decoder_sparse_step-th decoder layer (``(i + 1) % step == 0``, none when the step is 0: ``NllbMoeEncoder``,
    ``NllbMoeDecoder``) holds ``NllbMoeSparseMLP`` instead of the dense fc1 / fc2: ``NllbMoeTop2Router``'s
    classifier ``d -> E`` (bias with router_bias) and ``E`` experts ``NllbMoeDenseActDense`` of
    ``d*F+F + F*d+d`` (F: the stack's ffn dim), two picked per token."""
    _bart(f, t)
    d, n_experts, bias = f.get_int("d_model", "hidden_size"), f.get_int("num_experts"), f.get_bool("router_bias")
    for stack in ("encoder", "decoder"):
        n, step = f.get_int(f"{stack}_layers", minimum=0), f.get_int(f"{stack}_sparse_step", minimum=0)
        ffn = f.get_int(f"{stack}_ffn_dim")
        expert = _linear(d, ffn, True) + _linear(ffn, d, True)
        for _ in (i for i in range(n) if step > 0 and (i + 1) % step == 0):
            t.add("mlp", _linear(d, n_experts, bias) - expert)   # the router replaces the dense MLP _bart counted
            t.experts(expert, n_experts, 2, "router (top-2)")


def t5gemma2(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """T5Gemma2ForConditionalGeneration (modeling_t5gemma2.py): ``T5Gemma2Encoder`` = a Gemma 3 text stack
    (``encoder.text_config``, ``T5Gemma2TextEncoder``) + a SigLIP tower (``encoder.vision_config``,
    :func:`kvcalc.params_vision.siglip_vision`) + ``T5Gemma2MultiModalProjector`` (``H_v*H`` weight and an
    RMSNorm ``H_v``); ``T5Gemma2Decoder`` (``decoder``) the same stack with ``T5Gemma2MergedAttention`` (one set of
    q / k / v / o for self- and cross-attention, q / k norms). Each stack is counted by the Llama-style counter
    (``decoder``: ``V*H`` table, 4 RMSNorms per layer, final norm) and its ``T5Gemma2TextScaledWordEmbedding``
    adds ``eoi_embedding`` ``H`` (other). With the top-level tie_word_embeddings (default true) the decoder table, its
    eoi_embedding and lm_head (``T5Gemma2LMHead.out_proj``, no bias) are the encoder's
    (``_tied_weights_keys``); untied each is its own tensor. Absent sub-configs are their class defaults.
    """
    from .params_vision import siglip_vision

    enc = _sub(top, "encoder", "t5gemma2_encoder", {}, absent_ok=True)
    text = _sub(enc, "text_config", "t5gemma2_text", {}, absent_ok=True)
    vision = _sub(enc, "vision_config", "siglip_vision_model", {}, absent_ok=True)
    dec = _sub(top, "decoder", "t5gemma2_decoder", {}, absent_ok=True)
    hidden, vocab = dec.get_int("hidden_size"), dec.get_int("vocab_size")
    for name in ("hidden_size", "vocab_size"):   # T5Gemma2Config.validate_architecture
        if text.get_int(name) != dec.get_int(name):
            raise ConfigError(text.field_name(name), text.get_int(name),
                              f"must equal the decoder's {name} ({dec.get_int(name)}) in T5Gemma 2")
    decoder(text, t, False)
    decoder(dec, t, False)
    t.tied = top.get_bool("tie_word_embeddings")
    t.add("embedding", -vocab * hidden if t.tied else 0)      # tied: the decoder table is the encoder's
    t.add("other", hidden if t.tied else 2 * hidden)           # eoi_embedding (one when tied)
    t.add("lm_head", 0 if t.tied else vocab * hidden)
    hv = vision.get_int("hidden_size")
    t.add("vision", siglip_vision(vision) + hv * hidden + hv)


# --------------------------------------------------------------------------- EncoderDecoderModel (S2S, issue 12)
def _bert(f: ConfigReader, t: Tally, decoder: bool) -> int:
    """A BERT stack (modeling_bert.py) into ``t``; returns its width. ``BertEmbeddings``: word ``V*H``, position
    ``P*H``, token type ``type_vocab_size*H`` (embedding), LayerNorm ``2H``. ``L`` ``BertLayer``: ``BertAttention``
    (q / k / v ``3*(H*H + H)``, output dense ``H*H + H`` + LayerNorm ``2H``), as decoder (``add_cross_attention``) a
    second one (``crossattention``, keys / values from the decoder width: the encoder's states reach it through
    ``enc_to_dec_proj``), ``BertIntermediate`` ``H*I + I``, ``BertOutput`` ``I*H + H`` + LayerNorm ``2H``.
    Encoder (``BertModel``, what AutoModel builds): the pooler ``H*H + H`` (other). Decoder (``BertLMHeadModel``,
    what AutoModelForCausalLM builds, no pooler): ``cls.predictions``: transform dense ``H*H + H`` (other) +
    LayerNorm ``2H``, ``bias`` ``V``, and unless the decoder's tie_word_embeddings ties them
    (``BertLMHeadModel._tied_weights_keys``) the ``decoder`` Linear's own weight ``V*H`` and bias ``V`` (lm_head)."""
    h = _width_of(f, "hidden_size", "num_attention_heads")
    vocab, inter, n = f.get_int("vocab_size"), f.get_int("intermediate_size"), f.get_int("num_hidden_layers", minimum=0)
    attn = 3 * _linear(h, h, True) + _linear(h, h, True)
    t.add("embedding", (vocab + f.get_int("max_position_embeddings") + f.get_int("type_vocab_size")) * h)
    t.add("attention", n * attn * (2 if decoder else 1))
    t.add("mlp", n * (_linear(h, inter, True) + _linear(inter, h, True)))
    t.add("norms", 2 * h + n * 2 * h * (3 if decoder else 2) + (2 * h if decoder else 0))
    t.add("other", _linear(h, h, True))      # the encoder's pooler / the decoder's prediction transform
    if decoder:
        t.tied = f.get_bool("tie_word_embeddings")
        t.add("lm_head", vocab + (0 if t.tied else vocab * h + vocab))
    return h


_BERT_STACKS = ("bert", "roberta")
"""the stacks :func:`_bert` counts: RoBERTa's modules have BERT's counts (modeling_roberta.py ``RobertaEmbeddings``:
a ``max_position_embeddings``-row table, ``RobertaLMHead``: dense, layer_norm, decoder and bias as
``BertLMPredictionHead``)."""


def encoder_decoder(decoders: Mapping[str, Decoder], top: ConfigReader, t: Tally) -> None:
    """EncoderDecoderModel (modeling_encoder_decoder.py): ``AutoModel`` of the ``encoder`` config and
    ``AutoModelForCausalLM`` of the ``decoder`` config (absent: EncoderDecoderConfig's BERT defaults, the decoder
    with is_decoder / add_cross_attention); BERT and RoBERTa stacks are counted by :func:`_bert`, a decoder type in
    ``decoders`` (kvcalc.params binds GPT-2's counter, which counts its add_cross_attention blocks) by its counter.
    ``enc_to_dec_proj`` (``H_e*H_d + H_d``, other) when the widths differ and the decoder sets no
    cross_attention_hidden_size. The top-level tie_word_embeddings ties nothing (transformers 5.24 builds the same
    parameters either way)."""
    sub = top.sub("encoder")
    given = sub.get_str("model_type", default="bert") if sub is not None else "bert"
    enc = _sub(top, "encoder", given if given in _BERT_STACKS else "bert", {}, absent_ok=True)
    cross_decoder(decoders, top, t, _bert(enc, t, False))


def cross_decoder(decoders: Mapping[str, Decoder], top: ConfigReader, t: Tally, h_enc: int) -> None:
    """The ``decoder`` half of :func:`encoder_decoder` (also VisionEncoderDecoderModel's, whose
    ``__init__`` builds it the same way, modeling_vision_encoder_decoder.py), after an encoder of width ``h_enc``:
    the decoder stack and ``enc_to_dec_proj``."""
    sub = top.sub("decoder")
    given = sub.get_str("model_type", default="bert") if sub is not None else "bert"
    dec = _sub(top, "decoder", given if given in (*_BERT_STACKS, *decoders) else "bert", {}, absent_ok=True)
    # EncoderDecoderConfig sets add_cross_attention only on the BERT it builds without a decoder config; a given
    # decoder without it has no cross-attention, and its forward rejects the encoder's states
    if top.data.get("decoder") is not None and not dec.get_bool("add_cross_attention", default=False):
        raise ConfigError(dec.field_name("add_cross_attention"), dec.raw("add_cross_attention", default=None),
                          "must be true: without it the decoder has no cross-attention layers for the encoder's states")
    if dec.model_type in decoders:
        decoders[dec.model_type](dec, t)
        h_dec = dec.get_int("hidden_size")
    else:
        h_dec = _bert(dec, t, True)
    cross = dec.opt_int("cross_attention_hidden_size")
    if cross is not None and cross != h_enc:     # EncoderDecoderModel.__init__ raises ValueError
        raise ConfigError(dec.field_name("cross_attention_hidden_size"), cross,
                          f"must equal the encoder's hidden_size ({h_enc})")
    if h_enc != h_dec and cross is None:
        t.add("other", _linear(h_enc, h_dec, True))


# --------------------------------------------------------------------------- Kosmos-2.5 (S2S, issue 12)
def _kosmos2_5_vision(v: ConfigReader) -> int:
    """``Kosmos2_5VisionModel`` (modeling_kosmos2_5.py, Pix2Struct's): patch_projection ``P*H + H``
    (P = patch_embed_hidden_size), row / column embedders ``2*max_num_patches*H``; per layer query / key / value /
    output ``4*H*n*hd`` (no biases), gated MLP wi_0 / wi_1 / wo ``3*H*I`` (no biases), 2 weight-only LayerNorms
    ``2H``; final LayerNorm ``H``."""
    h, inter, n = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers", minimum=0)
    inner = v.get_int("num_attention_heads") * v.get_int("head_dim")
    return (_linear(v.get_int("patch_embed_hidden_size"), h, True) + 2 * v.get_int("max_num_patches") * h
            + n * (4 * h * inner + 3 * h * inter + 2 * h) + h)


def _kosmos2_5(top: ConfigReader, t: Tally) -> None:
    """Kosmos2_5ForConditionalGeneration (modeling_kosmos2_5.py). ``Kosmos2_5TextForCausalLM`` (``text_config``,
    Kosmos2_5TextConfig's names through its attribute_map: ``E`` embed_dim, ``F`` ffn_dim): embed_tokens ``V*E``,
    segment_emb ``2*E`` (the sinusoidal positions are a buffer); per ``Kosmos2_5TextBlock`` self-attention
    ``4*(E*E + E)``, 2 LayerNorms ``4E``, ``Kosmos2_5TextFFN`` fc1 ``E*F + F``, fc2 ``F*E + E`` and its
    ffn_layernorm ``2F``; final LayerNorm ``2E``; lm_head ``V*E`` unless tie_word_embeddings ties it.
    Vision: :func:`_kosmos2_5_vision`. ``Kosmos2_5ImageToTextProjection``: dense ``H_v*E + E`` and latent_query
    ``latent_query_num*E`` (other), x_attn ``4*(E*E + E)`` (attention); segment_emb is counted as other."""
    text = _sub(top, "text_config", "kosmos_2_5_text_model", {}, absent_ok=True)
    vision = _sub(top, "vision_config", "kosmos_2_5_vision_model", {}, absent_ok=True)
    e = _width_of(text, "hidden_size", "num_attention_heads")
    vocab, ffn, n = text.get_int("vocab_size"), text.get_int("intermediate_size"), text.get_int("num_hidden_layers")
    t.add("embedding", vocab * e)
    t.add("other", 2 * e)                    # segment_emb
    t.add("attention", n * 4 * _linear(e, e, True))
    t.add("mlp", n * (_linear(e, ffn, True) + _linear(ffn, e, True)))
    t.add("norms", n * (4 * e + 2 * ffn) + 2 * e)
    t.tied = text.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * e)
    hv = vision.get_int("hidden_size")
    t.add("vision", _kosmos2_5_vision(vision))
    t.add("other", _linear(hv, e, True) + top.get_int("latent_query_num") * e)   # projection dense, latent_query
    t.add("attention", 4 * _linear(e, e, True))                                   # the projection's x_attn


# --------------------------------------------------------------------------- Granite Speech (S2S, issue 12)
def blip2_qformer(q: ConfigReader) -> int:
    """``Blip2QFormerModel`` (modeling_blip_2.py; width ``H``, ``I`` intermediate, ``E`` encoder_hidden_size):
    layernorm ``2H``; per ``Blip2QFormerLayer`` i: attention q / k / v ``3*(H*H + H)`` + output dense ``H*H + H``
    + LayerNorm ``2H``; when ``i % cross_attention_frequency == 0`` a crossattention (query ``H*H + H``, key /
    value ``2*(E*H + H)``, output dense + LayerNorm); intermediate_query ``H*I + I`` and output_query ``I*H + H``
    + LayerNorm ``2H``, twice with use_qformer_text_input (intermediate / output). No token tables."""
    h = _width_of(q, "hidden_size", "num_attention_heads")
    inter, n = q.get_int("intermediate_size"), q.get_int("num_hidden_layers", minimum=0)
    enc, freq = q.get_int("encoder_hidden_size"), q.get_int("cross_attention_frequency")
    out = _linear(h, h, True) + 2 * h
    ffn = _linear(h, inter, True) + _linear(inter, h, True) + 2 * h
    n_cross = len(range(0, n, freq))
    return (2 * h + n * (3 * _linear(h, h, True) + out + ffn * (2 if q.get_bool("use_qformer_text_input") else 1))
            + n_cross * (_linear(h, h, True) + 2 * _linear(enc, h, True) + out))


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
    ff = 2 * c + _linear(c, m * c, True) + _linear(m * c, c, True)
    attn = 2 * c + c * inner + c * 2 * inner + _linear(inner, c, True) + (2 * e.get_int("max_pos_emb") + 1) * hd
    conv = 2 * c + _linear(c, 2 * x * c, True) + x * c * e.get_int("conv_kernel_size") + 2 * x * c + _linear(
        x * c, c, True)
    return {"mlp": n_layers * 2 * ff, "attention": n_layers * attn, "other": n_layers * conv + _linear(
        e.get_int("input_dim"), c, True) + _linear(c, out, True) + _linear(out, c, True), "norms": n_layers * 2 * c}


def granite_speech(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """GraniteSpeech(Plus)ForConditionalGeneration (modeling_granite_speech.py): ``language_model`` the granite
    ``text_config`` decoder (Llama-style counter, no head), the conformer encoder (``encoder_config``,
    :func:`granite_speech_encoder`, its parts in attention / mlp / norms / other), ``GraniteSpeechEncoderProjector``
    (vision part: query ``(window_size // downsample_rate)*H_q``, the Q-Former of ``projector_config``
    :func:`blip2_qformer`, linear ``H_q*H + H``); lm_head ``V*H`` unless the top-level tie_word_embeddings (default
    true) ties it to the decoder table (``_tied_weights_keys``). Absent sub-configs: their class defaults."""
    entry = lookup(top.model_type)
    assert entry is not None and entry.text_type is not None, top.model_type
    text = _sub(top, "text_config", entry.text_type, {}, absent_ok=True)
    enc = _sub(top, "encoder_config", f"{entry.name}_encoder", {}, absent_ok=True)
    proj = _sub(top, "projector_config", "blip_2_qformer", {}, absent_ok=True)
    decoder(text, t, False)
    hidden, vocab = text.get_int("hidden_size"), text.get_int("vocab_size")
    t.tied = top.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * hidden)
    for part, n_params in granite_speech_encoder(enc).items():
        t.add(part, n_params)
    hq = proj.get_int("hidden_size")
    queries = top.get_int("window_size") // top.get_int("downsample_rate")
    t.add("vision", queries * hq + blip2_qformer(proj) + _linear(hq, hidden, True))


# --------------------------------------------------------------------------- VibeVoice-ASR (S2S, issue 12)
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
        return n * (4 * w + w * k + w + _linear(w, x * w, True) + _linear(x * w, w, True))

    n = e.get_int("channels") * f0 * k + f0 + blocks(depths[0], f0)
    for s, r in enumerate(ratios):
        w_in, w = f0 * 2 ** s, f0 * 2 ** (s + 1)
        n += w_in * w * 2 * r + w + blocks(depths[s + 1], w)
    return n + _linear(f0 * 2 ** len(ratios) * k, e.get_int("hidden_size"), True)


def vibevoice_asr(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """VibeVoiceAsrForConditionalGeneration (modeling_vibevoice_asr.py): the qwen2 ``text_config`` decoder
    (Llama-style counter, no head), the acoustic and semantic tokenizer encoders
    (:func:`vibevoice_tokenizer_encoder`; an absent semantic config is the acoustic class's defaults with hidden_size
    128, VibeVoiceAsrConfig.sub_configs_defaults; part other) and ``VibeVoiceAsrMultiModalProjector``: per path
    ``H_a*H + H``, an RMSNorm ``H``, ``H*H + H`` (the vision part, as the audio wrappers' projectors); lm_head
    ``V*H``, never tied (the class declares no ``_tied_weights_keys``)."""
    text = _sub(top, "text_config", "qwen2", {}, absent_ok=True)
    tower = "vibevoice_acoustic_tokenizer_encoder"
    acoustic = _sub(top, "acoustic_tokenizer_encoder_config", tower, {}, absent_ok=True)
    semantic = _sub(top, "semantic_tokenizer_encoder_config", tower, {}, absent_ok=True, absent={"hidden_size": 128})
    decoder(text, t, False)
    hidden = text.get_int("hidden_size")
    t.tied = False
    t.add("lm_head", text.get_int("vocab_size") * hidden)
    for enc in (acoustic, semantic):
        t.add("other", vibevoice_tokenizer_encoder(enc))
        t.add("vision", _linear(enc.get_int("hidden_size"), hidden, True) + hidden + _linear(hidden, hidden, True))


# --------------------------------------------------------------------------- Nemotron 3.5 Transcribe (S2S, issue 12)
def _nemo_encoder(e: ConfigReader, qk_norm: bool, stem: int) -> int:
    """A pre-norm audio encoder of modeling_nemotron3_5_transcribe.py / modeling_nemotron3_diarization.py: ``stem``
    (the input module), input LayerNorm ``2H``, ``L`` layers (``Nemotron3_5TranscribeAsrAudioLayer`` /
    ``Nemotron3DiarizationAudioLayer``: q ``H*n_q*hd``, k ``H*n_kv*hd``, v ``H*n_q*hd`` (query heads), o
    ``n_q*hd*H + H``, with qk_norm LayerNorms ``2*hd`` on q and k; 2 LayerNorms ``4H``; fc1 / fc2
    ``H*I + I + I*H + H``), final LayerNorm ``2H``. ``hd = H / n_q`` (the config classes hold no head_dim);
    ``n_kv`` defaults to ``n_q``."""
    h = _width_of(e, "hidden_size", "num_attention_heads")
    n_q = e.get_int("num_attention_heads")
    n_kv, hd = e.opt_int("num_key_value_heads") or n_q, h // n_q
    inter, n = e.get_int("intermediate_size"), e.get_int("num_hidden_layers", minimum=0)
    layer = (h * n_q * hd + h * n_kv * hd + h * n_q * hd + _linear(n_q * hd, h, True) + (4 * hd if qk_norm else 0)
             + 4 * h + _linear(h, inter, True) + _linear(inter, h, True))
    return stem + 4 * h + n * layer


def _stacking(e: ConfigReader) -> int:
    """``Nemotron3_5TranscribeFeatureStacking`` / ``Nemotron3DiarizationFeatureStacking``: projection
    ``subsampling_factor*num_mel_bins*H`` (no bias)."""
    return e.get_int("subsampling_factor") * e.get_int("num_mel_bins") * e.get_int("hidden_size")


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

    * ``Nemotron3_5TranscribeAudioModel`` (``audio_config``): the ASR encoder (``asr_config``, :func:`_nemo_encoder`
      with q / k LayerNorms), ``Nemotron3DiarizationForAudioFrameClassification`` (``diarization_config``: its
      audio encoder without q / k norms, proj ``A*h + h`` (A: head_config.audio_hidden_size, h: its hidden_size),
      the sub-pixel upsampler Conv1d ``h*(h*s)*3 + h*s``, the classifier ``h*h + h + h*S + S`` (S num_speakers),
      silence_embeds ``H_d``), asr_norm ``2H_a`` and speaker_norm ``2S`` (the speaker embedding is a buffer);
    * multi_modal_projector ``H_a*H + H``;
    * ``Nemotron3_5TranscribeWordTimestampModel`` (``word_timestamp_config``): the ConvTranspose1d upsampler
      ``H_w*H_w*u + H_w`` then :func:`_nemo_encoder` layers with q / k norms; word_timestamp_head Conv1d
      ``H_w*V_w + V_w``.

    An absent sub-config is its class defaults, as the config classes build it: the text decoder from
    :data:`_NEMO_TEXT` (Nemotron3_5TranscribeConfig's init_kwargs, its layer pattern included), the others from
    their registry entries (the diarization init_kwargs set only streaming fields) and :data:`_NEMO_HEAD`.
    """
    if top.data.get("text_config") is None:
        text = typed(ConfigReader(_NEMO_TEXT, "text_config.", top.used, defaults_used=top.defaults_used), "nemotron_h")
    else:
        text = _sub(top, "text_config", "nemotron_h", {})
    audio = _sub(top, "audio_config", "nemotron3_5_transcribe_audio", {}, absent_ok=True)
    asr = _sub(audio, "asr_config", "nemotron3_5_transcribe_asr_audio", {}, absent_ok=True)
    diar = _sub(audio, "diarization_config", "nemotron3_diarization", {}, absent_ok=True)
    diar_audio = _sub(diar, "audio_config", "nemotron3_diarization_audio", {}, absent_ok=True)
    head = _sub(diar, "head_config", "", _NEMO_HEAD, absent_ok=True)
    words = _sub(top, "word_timestamp_config", "nemotron3_5_transcribe_word_timestamp", {}, absent_ok=True)
    decoder(text, t)
    hidden, h_asr, h_w = text.get_int("hidden_size"), asr.get_int("hidden_size"), words.get_int("hidden_size")
    hh, speakers, sub = head.get_int("hidden_size"), head.get_int("num_speakers"), head.get_int("subsampling_factor")
    diarization = (_nemo_encoder(diar_audio, False, _stacking(diar_audio))
                   + _linear(head.get_int("audio_hidden_size"), hh, True) + hh * hh * sub * 3 + hh * sub
                   + _linear(hh, hh, True) + _linear(hh, speakers, True) + diar_audio.get_int("hidden_size"))
    t.add("vision", _nemo_encoder(asr, True, _stacking(asr)) + diarization + 2 * h_asr + 2 * speakers
          + _linear(h_asr, hidden, True))
    t.add("vision", _nemo_encoder(words, True, h_w * h_w * words.get_int("upsampling_factor") + h_w)
          + _linear(h_w, words.get_int("vocab_size"), True))


# --------------------------------------------------------------------------- entry point
COUNTERS: dict[str, Callable[[ConfigReader, Tally], None]] = {
    "bart": _bart, "whisper": _whisper, "trocr": _trocr, "prophetnet": _prophetnet,
    "switch_transformers": _switch_transformers, "nllb_moe": _nllb_moe,     "kosmos2_5": _kosmos2_5}
"""parameter-count family (a registry entry's ``params``) -> counter, merged into kvcalc.params' table."""
WRAPPERS: dict[str, Callable[[Decoder, ConfigReader, Tally], None]] = {
    "audio": audio_wrapper, "t5gemma": t5gemma, "t5gemma2": t5gemma2, "granite_speech": granite_speech,
    "vibevoice_asr": vibevoice_asr}
"""families that count a nested text decoder with the counter kvcalc.params binds first (``decoder``)."""
