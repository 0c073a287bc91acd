"""Encoder-decoder models: T5, the BART family, TrOCR, ProphetNet, Switch Transformers, NLLB-MoE,
EncoderDecoderModel (BERT / RoBERTa stacks), T5Gemma (1 and 2), Kosmos-2.5 and the image encoder-decoders
(VisionEncoderDecoder, PP-FormulaNet, UDOP, Pix2Struct).

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the ``...ForConditionalGeneration``
class transformers 5.24 builds on the meta device (tied weights counted once; buffers such as
``final_logits_bias`` and M2M100 / PEGASUS-X sinusoidal tables are not parameters).

Notation: ``d`` d_model, ``V`` vocab_size, ``F_e`` / ``F_d`` encoder / decoder FFN width, ``L_e`` / ``L_d``
encoder / decoder layers, ``P`` max_position_embeddings. A linear layer ``a -> b`` has ``a*b`` weights
(+ ``b`` with bias); a LayerNorm of width ``d`` has ``2d``.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..config import ConfigReader, hidden_per_head
from ..errors import ConfigError, UnsupportedError
from .blocks import linear, registry_entry, width, width_of
from .classic_decoders import gpt2
from .counts import Decoder, Tally
from .model_type import quirk_flags
from .registry.seq2seq import VIT_DEFAULTS
from .subconfigs import wrapper_sub
from .vision_towers import got_ocr2_vision, pair, siglip_vision, vit_layers


@dataclass(frozen=True)
class Seq2SeqQuirks:
    """The departures from the T5 / BART layouts this module's counters read, one flag per quirk an entry
    names (:data:`kvcalc.models.model_type.QUIRKS`)."""

    final_layer_norm: bool = False
    fsmt_embeddings: bool = False
    global_tokens: bool = False
    layernorm_embedding: bool = False
    led_positions: bool = False
    longformer_global: bool = False
    marian_embeddings: bool = False
    mvp_prompts: bool = False
    no_attention_bias: bool = False
    positions_buffer: bool = False
    positions_offset_2: bool = False
    positions_pad_offset: bool = False
    relative_bias_every_layer: bool = False
    transient_global: bool = False
    use_bias: bool = False


def t5(f: ConfigReader, t: Tally) -> None:
    """T5ForConditionalGeneration: shared ``V*d_model``; encoder blocks: self-attention ``4*d_model*n*d_kv``
    + norm, FF ``2*d_model*d_ff`` (gated: ``3*...``) + norm; decoder blocks add cross-attention ``4*d_model*n*d_kv``
    + norm; block 0 of each stack has a relative-attention bias ``buckets*n``; each stack has a final norm.
    transformers 5 always ties lm_head to the shared embedding (``tie_word_embeddings: false`` only turns
    off output scaling), so lm_head is 0. mt5, umt5 (modeling_umt5.py: a bias in every self-attention
    layer) and longt5 (modeling_longt5.py: transient-global encoder layers add ``global_input_layer_norm``
    ``d_model`` each and block 0 a ``global_relative_attention_bias``) by their registry quirks.
    """
    vocab, d_model = f.get_int("vocab_size"), f.get_int("d_model", "hidden_size")
    d_kv, d_ff, heads = f.get_int("d_kv"), f.get_int("d_ff"), f.get_int("num_heads")
    n_enc = f.get_int("num_layers")
    n_dec = f.opt_int("num_decoder_layers") or n_enc
    buckets = f.get_int("relative_attention_num_buckets")
    proj = f.get_str("feed_forward_proj")
    parts = proj.split("-")
    if (len(parts) > 1 and parts[0] != "gated") or len(parts) > 2:
        raise ConfigError(f.field_name("feed_forward_proj"), proj, "must be 'ACT' or 'gated-ACT'")
    # T5Config derives is_gated_act from feed_forward_proj; a value in the file (to_dict writes it) overrides it
    gated = f.get_bool("is_gated_act") if f.has("is_gated_act") else parts[0] == "gated"
    ff = (3 if gated else 2) * d_model * d_ff
    attn = 4 * d_model * heads * d_kv
    q = quirk_flags(Seq2SeqQuirks, registry_entry(f))
    # UMT5: a relative bias in every self-attention layer; LongT5 transient-global: + a global one (block 0)
    n_bias = n_enc + n_dec if q.relative_bias_every_layer else 2
    tglobal = q.transient_global and f.get_str("encoder_attention_type") == "transient-global"
    t.add("embedding", vocab * d_model)
    t.add("attention", (n_enc + 2 * n_dec) * attn + (n_bias + tglobal) * buckets * heads)
    t.add("mlp", (n_enc + n_dec) * ff)
    t.add("norms", (2 * n_enc + 3 * n_dec + 2 + (n_enc if tglobal else 0)) * d_model)
    t.tied = True


def udop(f: ConfigReader, t: Tally) -> None:
    """UdopForConditionalGeneration (modeling_udop.py): T5 stacks (:func:`t5`: shared table, self- / cross-
    attention, relu or gated FF, block 0's 1-d relative bias, tied lm_head) plus, in each stack's
    ``RelativePositionBiasAggregated``, one bias table per further entry of relative_bias_args (horizontal,
    vertical: ``(b + 2 with prefix_bucket and not expand)*n``, ``b`` the entry's relative_attention_num_buckets,
    default 32 (RelativePositionBiasBase); the 1-d entry's table is block 0's, tied); the encoder's
    ``cell_2d_embedding`` (x and y tables of max_2d_position_embeddings ``x d_model``); the patch Conv2d
    ``num_channels*p*p*d_model + d_model`` of ``patch_embed`` and its twin ``decoder.embed_patches`` (other)."""
    if not f.get_bool("tie_word_embeddings", default=True):
        raise UnsupportedError("UDOP with tie_word_embeddings false is not counted yet (kvcalc never guesses)")
    t5(f, t)
    d_model, heads = f.get_int("d_model", "hidden_size"), f.get_int("num_heads")
    args = f.raw("relative_bias_args", default=[{"type": "1d"}, {"type": "horizontal"}, {"type": "vertical"}])
    if not isinstance(args, list) or not all(isinstance(a, Mapping) for a in args):
        raise ConfigError(f.field_name("relative_bias_args"), "<not a list of objects>", "must list bias settings")
    rows = sum(int(a.get("relative_attention_num_buckets", 32)) + (2 if a.get("prefix_bucket") and not a.get(
        "expand") else 0) for a in args if a.get("type") != "1d")
    t.add("attention", 2 * rows * heads)
    patch = f.get_int("patch_size")
    t.add("other", 2 * linear(f.get_int("num_channels") * patch * patch, d_model, True)
          + 2 * f.get_int("max_2d_position_embeddings") * d_model)


def pix2struct(f: ConfigReader, t: Tally) -> None:
    """Pix2StructForConditionalGeneration (modeling_pix2struct.py). Vision encoder (width ``H_v``, ``n_v`` heads
    of ``d_v``, ``F_v``): patch_projection ``P*H_v + H_v`` (``P`` patch_embed_hidden_size), row / column
    embedders ``2*seq_len*H_v``; per layer query / key / value / output ``4*H_v*n_v*d_v`` (no biases), gated MLP
    wi_0 / wi_1 / wo ``3*H_v*F_v``, 2 RMS norms ``H_v``; final layernorm ``H_v``. Text decoder
    (Pix2StructTextModel: ``H``, ``n`` heads, ``F``, ``V``): embed_tokens ``V*H``; per layer self- and
    cross-attention ``2*4*H*H`` (Pix2StructTextAttention projects to hidden_size, not n*d_kv) + their norms,
    gated MLP ``3*H*F`` + norm; layer 0's relative bias ``buckets*n``; final norm ``H``; lm_head ``V*H``
    (untied: tie_word_embeddings true is refused, not verified)."""
    if f.get_bool("tie_word_embeddings", default=False):
        raise UnsupportedError("Pix2Struct with tie_word_embeddings true is not counted yet (kvcalc never guesses)")
    vis = wrapper_sub(f, "vision_config", "pix2struct_vision_model", {}, absent_ok=True)
    text = wrapper_sub(f, "text_config", "pix2struct_text_model", {}, absent_ok=True)
    hv, nv, dv = vis.get_int("hidden_size"), vis.get_int("num_attention_heads"), vis.get_int("d_kv")
    fv, lv = vis.get_int("d_ff"), vis.get_int("num_hidden_layers", minimum=0)
    t.add("vision", linear(vis.get_int("patch_embed_hidden_size"), hv, True) + 2 * vis.get_int("seq_len") * hv
          + lv * (4 * hv * nv * dv + 3 * hv * fv + 2 * hv) + hv)
    h, n = text.get_int("hidden_size"), text.get_int("num_heads")
    ff, layers, vocab = text.get_int("d_ff"), text.get_int("num_layers", minimum=0), text.get_int("vocab_size")
    t.add("embedding", vocab * h)
    t.add("attention", layers * 2 * 4 * h * h + text.get_int("relative_attention_num_buckets") * n)
    t.add("mlp", layers * 3 * h * ff)
    t.add("norms", (3 * layers + 1) * h)
    t.add("lm_head", vocab * h)


def _vit_model(v: ConfigReader) -> int:
    """ViTModel with its pooler (modeling_vit.py; what AutoModel builds): ViTEmbeddings cls_token ``H``,
    position_embeddings ``(n_p + 1)*H`` (``n_p = (img_h/p_h)*(img_w/p_w)``), patch Conv2d ``C*p_h*p_w*H + H``;
    per ViTLayer q / k / v ``3*H*H`` (+ ``3H`` with qkv_bias), o ``H*H + H``, ViTMLP ``H*I+I + I*H+H``,
    2 LayerNorms ``4H``; layernorm ``2H``; ViTPooler dense ``H*P + P`` (P = pooler_output_size, else ``H``)."""
    h, inter, n = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers", minimum=0)
    hidden_per_head(v, h, v.get_int("num_attention_heads"))
    (ih, iw), (ph, pw) = pair(v, "image_size"), pair(v, "patch_size")
    pooled = v.opt_int("pooler_output_size") or h
    layers = vit_layers(h, inter, n) - (0 if v.get_bool("qkv_bias") else n * 3 * h)
    return (h + ((ih // ph) * (iw // pw) + 1) * h + linear(v.get_int("num_channels") * ph * pw, h, True) + layers
            + 2 * h + linear(h, pooled, True))


def vision_encoder_decoder(f: ConfigReader, t: Tally) -> None:
    """VisionEncoderDecoderModel (modeling_vision_encoder_decoder.py): ``AutoModel`` of the ``encoder`` config
    (absent: VisionEncoderDecoderConfig's ViT; ViT only: :func:`_vit_model`, in ``vision``) and
    ``AutoModelForCausalLM`` of the ``decoder`` config with ``enc_to_dec_proj``, built as EncoderDecoderModel's
    (:func:`kvcalc.models.seq2seq.cross_decoder`: BERT / RoBERTa, or GPT-2 with add_cross_attention). Its
    ``__init__`` sets tie_word_embeddings false at the top level; the decoder's own flag ties its lm_head."""
    sub = f.sub("encoder")
    given = sub.get_str("model_type", default="vit") if sub is not None else "vit"
    if given != "vit":
        raise UnsupportedError(f"vision-encoder-decoder with encoder.model_type '{given}' is not counted yet "
                               "(only a ViT encoder is; kvcalc never guesses)")
    enc = wrapper_sub(f, "encoder", "vit", VIT_DEFAULTS, absent_ok=True)
    t.add("vision", _vit_model(enc))
    cross_decoder({"gpt2": gpt2}, f, t, enc.get_int("hidden_size"))


def pp_formulanet(f: ConfigReader, t: Tally) -> None:
    """PPFormulaNetForConditionalGeneration (modeling_pp_formulanet.py). Vision encoder (PPFormulaNetVisionModel):
    the SAM-style tower and neck of :func:`kvcalc.models.vision_towers.got_ocr2_vision` (same modules: patch conv,
    pos_embed, windowed / global layers with relative positions, PPFormulaNetVisionNeck), then
    PPFormulaNetMultiModalProjector: two stride-2 3x3 Conv2d without bias ``9*C_in*C_mid + 9*C_mid*C_out``,
    linear_1 ``C_out*C_out + C_out``, linear_2 ``C_out*D + D`` (D = decoder_hidden_size), all in vision.
    Text decoder (PPFormulaNetTextModel, width ``d``, ``F``, ``L``, ``V``): embed_tokens ``V*d``, learned positions
    ``(P + 2)*d`` (PPFormulaNetLearnedPositionalEmbedding's offset); per PPFormulaNetDecoderLayer self- and
    cross-attention ``2*4*(d*d + d)``, fc1 / fc2 ``d*F+F + F*d+d``, 3 LayerNorms ``6d``; layernorm_embedding and
    layer_norm ``4d``. lm_head ``V*d``, never tied (``_tied_weights_keys = {}``)."""
    vis = wrapper_sub(f, "vision_config", "pp_formulanet_vision", {}, absent_ok=True)
    text = wrapper_sub(f, "text_config", "pp_formulanet_text", {}, absent_ok=True)
    c_in, c_mid = vis.get_int("post_conv_in_channels"), vis.get_int("post_conv_mid_channels")
    c_out = vis.get_int("post_conv_out_channels")
    t.add("vision", got_ocr2_vision(vis) + 9 * c_in * c_mid + 9 * c_mid * c_out + linear(c_out, c_out, True)
          + linear(c_out, vis.get_int("decoder_hidden_size"), True))
    d = width(text, "decoder_attention_heads")
    vocab, ffn = text.get_int("vocab_size"), text.get_int("decoder_ffn_dim")
    n = text.get_int("decoder_layers", minimum=0)
    t.add("embedding", vocab * d + (text.get_int("max_position_embeddings") + 2) * d)
    t.add("attention", n * 2 * 4 * linear(d, d, True))
    t.add("mlp", n * (linear(d, ffn, True) + linear(ffn, d, True)))
    t.add("norms", n * 6 * d + 4 * d)
    t.add("lm_head", vocab * d)


def _positions(f: ConfigReader, q: Seq2SeqQuirks, d: int) -> tuple[int, int]:
    """(encoder, decoder) position-table parameters.

    Learned tables (``BartLearnedPositionalEmbedding``, modeling_bart.py) hold ``(P + 2) * d`` (an offset of
    2 rows: bart, mbart, plbart, mvp); Blenderbot's, BigBird-Pegasus's and LED's learned tables ``P * d`` (LED:
    max_encoder_position_embeddings / max_decoder_position_embeddings); Marian's and Pegasus's sinusoidal
    tables are ``nn.Embedding`` parameters of ``P * d``; FSMT's ``SinusoidalPositionalEmbedding`` has
    ``P + pad_token_id + 1`` rows; M2M100's and PEGASUS-X's sinusoidal tables are buffers (0).
    """
    if q.positions_buffer:
        return 0, 0
    if q.led_positions:
        return (f.get_int("max_encoder_position_embeddings") * d, f.get_int("max_decoder_position_embeddings") * d)
    rows = f.get_int("max_position_embeddings")
    if q.positions_offset_2:
        rows += 2
    elif q.positions_pad_offset:
        rows += f.get_int("pad_token_id", minimum=0) + 1
    return rows * d, rows * d


def _embeddings(f: ConfigReader, t: Tally, q: Seq2SeqQuirks, d: int) -> None:
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
    if q.fsmt_embeddings:
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
    if q.marian_embeddings:
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
    return 2 * (length * d + linear(d, mid, True) + linear(mid, n_dec * 2 * d, True))


def bart(f: ConfigReader, t: Tally) -> None:
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
    q = quirk_flags(Seq2SeqQuirks, registry_entry(f))
    d = width(f, "encoder_attention_heads")
    width(f, "decoder_attention_heads")
    n_enc, n_dec = f.get_int("encoder_layers", minimum=0), f.get_int("decoder_layers", minimum=0)
    ffn_enc, ffn_dec = f.get_int("encoder_ffn_dim"), f.get_int("decoder_ffn_dim")
    if q.no_attention_bias:
        enc_bias = dec_bias = False
    elif q.use_bias:
        enc_bias = dec_bias = f.get_bool("use_bias")
    else:
        enc_bias = dec_bias = True
    attn_enc, attn_dec = 4 * linear(d, d, enc_bias), 4 * linear(d, d, dec_bias)
    if q.longformer_global:
        attn_enc += 3 * linear(d, d, True)
    ln = 2 * d
    stack_norms = (ln if q.layernorm_embedding else 0) + (ln if q.final_layer_norm else 0)
    enc_norms = 2 * ln + (ln if q.global_tokens else 0)
    pos_enc, pos_dec = _positions(f, q, d)
    _embeddings(f, t, q, d)
    t.add("embedding", pos_enc + pos_dec)
    if q.global_tokens:
        t.add("other", f.get_int("num_global_tokens") * d)   # encoder.embed_global
    t.add("attention", n_enc * attn_enc + n_dec * 2 * attn_dec)
    t.add("mlp", n_enc * (linear(d, ffn_enc, True) + linear(ffn_enc, d, True))
          + n_dec * (linear(d, ffn_dec, True) + linear(ffn_dec, d, True)))
    t.add("norms", n_enc * enc_norms + n_dec * 3 * ln + 2 * stack_norms)
    if q.mvp_prompts:
        t.add("other", _mvp_prompts(f, d))


def trocr(f: ConfigReader, t: Tally) -> None:
    """TrOCRForCausalLM (modeling_trocr.py; the class transformers builds for a ``trocr`` config, the decoder
    of a VisionEncoderDecoderModel): tokens ``V*d``; learned positions ``(P + 2)*d`` with
    use_learned_position_embeddings (the sinusoidal table is a plain tensor, not a parameter);
    ``layernorm_embedding`` ``2d`` with that flag; ``L_d`` layers of self-attention ``4*(d*d + d)``,
    cross-attention (``TrOCRForCausalLM`` sets is_decoder) with k / v from ``c`` = cross_attention_hidden_size
    (default ``d``): ``2*(d*d + d) + 2*(c*d + d)``, MLP with ``F_d`` and 3 LayerNorms; output_projection ``V*d``
    unless tied. No final LayerNorm.
    """
    d = width(f, "decoder_attention_heads")
    vocab, ffn, n = f.get_int("vocab_size"), f.get_int("decoder_ffn_dim"), f.get_int("decoder_layers", minimum=0)
    cross = f.opt_int("cross_attention_hidden_size") or d
    t.add("embedding", vocab * d + ((f.get_int("max_position_embeddings") + 2) * d
                                    if f.get_bool("use_learned_position_embeddings") else 0))
    t.add("attention", n * (4 * linear(d, d, True) + 2 * linear(d, d, True) + 2 * linear(cross, d, True)))
    t.add("mlp", n * (linear(d, ffn, True) + linear(ffn, d, True)))
    t.add("norms", n * 6 * d + (2 * d if f.get_bool("layernorm_embedding") else 0))
    t.tied = f.get_bool("tie_word_embeddings")
    t.add("other", 0 if t.tied else vocab * d)   # output_projection (TrOCR's lm_head, not named lm_head)


def prophetnet(f: ConfigReader, t: Tally) -> None:
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
    rel = linear(d, f.get_int("num_buckets") * f.get_int("num_decoder_attention_heads"), True)
    t.tied = f.get_bool("tie_word_embeddings")
    t.add("embedding", (1 if t.tied else 3) * vocab * d)
    t.add("other", 2 * pos * d + f.get_int("ngram") * d)   # position_embeddings, ngram_embeddings
    t.add("lm_head", 0 if t.tied else vocab * d)
    attn = 4 * linear(d, d, True)
    t.add("attention", n_enc * attn + n_dec * (2 * attn + rel))
    t.add("mlp", n_enc * (linear(d, ffn_enc, True) + linear(ffn_enc, d, True))
          + n_dec * (linear(d, ffn_dec, True) + linear(ffn_dec, d, True)))
    t.add("norms", (n_enc * 4 + n_dec * 6 + 4) * d)


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
    enc = wrapper_sub(top, "encoder", "t5_gemma_module", {}, absent_ok=True)   # T5GemmaConfig: class defaults
    dec = wrapper_sub(top, "decoder", "t5_gemma_module", {}, absent_ok=True)
    decoder(enc, t, False)
    decoder(dec, t, False)
    hidden, vocab, n_dec = dec.get_int("hidden_size"), dec.get_int("vocab_size"), dec.get_int("num_hidden_layers")
    n_q, n_kv = dec.get_int("num_attention_heads"), dec.get_int("num_key_value_heads")
    d = dec.get_int("head_dim")
    cross_in = enc.get_int("hidden_size")   # T5GemmaConfig.__post_init__ sets it, whatever the decoder says
    bias = dec.get_bool("attention_bias")
    t.add("attention", n_dec * (linear(hidden, n_q * d, bias) + 2 * linear(cross_in, n_kv * d, bias)
                                + linear(n_q * d, hidden, bias)))
    t.add("norms", n_dec * 2 * hidden)
    t.tied = top.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * hidden)


def _switch_sparse_layers(n: int, n_sparse: int) -> list[int]:
    """SwitchTransformersConfig.__post_init__ / SwitchTransformersStack: ``step = n // n_sparse`` (``n`` when
    n_sparse is 0); layer ``i`` is sparse when ``i % step == 1`` or ``step == 1`` (none when step is 0)."""
    step = n // n_sparse if n_sparse > 0 else n
    return [i for i in range(n) if step > 0 and (i % step == 1 or step == 1)]


def switch_transformers(f: ConfigReader, t: Tally) -> None:
    """SwitchTransformersForConditionalGeneration (modeling_switch_transformers.py): T5 v1.0 stacks (see
    kvcalc.models.seq2seq.t5) whose sparse layers (:func:`_switch_sparse_layers` of num_sparse_encoder_layers /
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
    sparse = (_switch_sparse_layers(n_enc, f.get_int("num_sparse_encoder_layers", minimum=0))
              + _switch_sparse_layers(n_dec, f.get_int("num_sparse_decoder_layers", minimum=0)))
    dense = 2 * d * d_ff
    t.tied = f.get_bool("tie_word_embeddings")
    t.add("embedding", vocab * d if t.tied else 3 * vocab * d)
    t.add("lm_head", 0 if t.tied else vocab * d)
    t.add("attention", (n_enc + 2 * n_dec) * 4 * d * heads * d_kv + 2 * f.get_int("relative_attention_num_buckets")
          * heads)
    t.add("mlp", (n_enc + n_dec - len(sparse)) * dense)
    for _ in sparse:
        t.add("mlp", linear(d, n_experts, bias))
        t.experts(dense, n_experts, 1, "router (top-1)")
    t.add("norms", (2 * n_enc + 3 * n_dec + 2) * d)


def nllb_moe(f: ConfigReader, t: Tally) -> None:
    """NllbMoeForConditionalGeneration (modeling_nllb_moe.py): an M2M100-style BART (:func:`bart`; sinusoidal
    positions are buffers, a final LayerNorm per stack) whose every encoder_sparse_step-th encoder layer and
    decoder_sparse_step-th decoder layer (``(i + 1) % step == 0``, none when the step is 0: ``NllbMoeEncoder``,
    ``NllbMoeDecoder``) holds ``NllbMoeSparseMLP`` instead of the dense fc1 / fc2: ``NllbMoeTop2Router``'s
    classifier ``d -> E`` (bias with router_bias) and ``E`` experts ``NllbMoeDenseActDense`` of
    ``d*F+F + F*d+d`` (F: the stack's ffn dim), two picked per token."""
    bart(f, t)
    d, n_experts, bias = f.get_int("d_model", "hidden_size"), f.get_int("num_experts"), f.get_bool("router_bias")
    for stack in ("encoder", "decoder"):
        n, step = f.get_int(f"{stack}_layers", minimum=0), f.get_int(f"{stack}_sparse_step", minimum=0)
        ffn = f.get_int(f"{stack}_ffn_dim")
        expert = linear(d, ffn, True) + linear(ffn, d, True)
        for _ in (i for i in range(n) if step > 0 and (i + 1) % step == 0):
            t.add("mlp", linear(d, n_experts, bias) - expert)   # the router replaces the dense MLP bart counted
            t.experts(expert, n_experts, 2, "router (top-2)")


def t5gemma2(decoder: Decoder, top: ConfigReader, t: Tally) -> None:
    """T5Gemma2ForConditionalGeneration (modeling_t5gemma2.py): ``T5Gemma2Encoder`` = a Gemma 3 text stack
    (``encoder.text_config``, ``T5Gemma2TextEncoder``) + a SigLIP tower (``encoder.vision_config``,
    :func:`kvcalc.models.vision_towers.siglip_vision`) + ``T5Gemma2MultiModalProjector`` (``H_v*H`` weight and an
    RMSNorm ``H_v``); ``T5Gemma2Decoder`` (``decoder``) the same stack with ``T5Gemma2MergedAttention`` (one set of
    q / k / v / o for self- and cross-attention, q / k norms). Each stack is counted by the Llama-style counter
    (``decoder``: ``V*H`` table, 4 RMSNorms per layer, final norm) and its ``T5Gemma2TextScaledWordEmbedding``
    adds ``eoi_embedding`` ``H`` (other). With the top-level tie_word_embeddings (default true) the decoder table, its
    eoi_embedding and lm_head (``T5Gemma2LMHead.out_proj``, no bias) are the encoder's
    (``_tied_weights_keys``); untied each is its own tensor. Absent sub-configs are their class defaults.
    """
    enc = wrapper_sub(top, "encoder", "t5gemma2_encoder", {}, absent_ok=True)
    text = wrapper_sub(enc, "text_config", "t5gemma2_text", {}, absent_ok=True)
    vision = wrapper_sub(enc, "vision_config", "siglip_vision_model", {}, absent_ok=True)
    dec = wrapper_sub(top, "decoder", "t5gemma2_decoder", {}, absent_ok=True)
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
    h = width_of(f, "hidden_size", "num_attention_heads")
    vocab, inter, n = f.get_int("vocab_size"), f.get_int("intermediate_size"), f.get_int("num_hidden_layers", minimum=0)
    attn = 3 * linear(h, h, True) + linear(h, h, True)
    t.add("embedding", (vocab + f.get_int("max_position_embeddings") + f.get_int("type_vocab_size")) * h)
    t.add("attention", n * attn * (2 if decoder else 1))
    t.add("mlp", n * (linear(h, inter, True) + linear(inter, h, True)))
    t.add("norms", 2 * h + n * 2 * h * (3 if decoder else 2) + (2 * h if decoder else 0))
    t.add("other", linear(h, h, True))      # the encoder's pooler / the decoder's prediction transform
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
    ``decoders`` (the counting table binds GPT-2's counter, which counts its add_cross_attention blocks) by its counter.
    ``enc_to_dec_proj`` (``H_e*H_d + H_d``, other) when the widths differ and the decoder sets no
    cross_attention_hidden_size. The top-level tie_word_embeddings ties nothing (transformers 5.24 builds the same
    parameters either way)."""
    sub = top.sub("encoder")
    given = sub.get_str("model_type", default="bert") if sub is not None else "bert"
    enc = wrapper_sub(top, "encoder", given if given in _BERT_STACKS else "bert", {}, absent_ok=True)
    cross_decoder(decoders, top, t, _bert(enc, t, False))


def cross_decoder(decoders: Mapping[str, Decoder], top: ConfigReader, t: Tally, h_enc: int) -> None:
    """The ``decoder`` half of :func:`encoder_decoder` (also VisionEncoderDecoderModel's, whose
    ``__init__`` builds it the same way, modeling_vision_encoder_decoder.py), after an encoder of width ``h_enc``:
    the decoder stack and ``enc_to_dec_proj``."""
    sub = top.sub("decoder")
    given = sub.get_str("model_type", default="bert") if sub is not None else "bert"
    dec = wrapper_sub(top, "decoder", given if given in (*_BERT_STACKS, *decoders) else "bert", {}, absent_ok=True)
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
        t.add("other", linear(h_enc, h_dec, True))


def _kosmos2_5_vision(v: ConfigReader) -> int:
    """``Kosmos2_5VisionModel`` (modeling_kosmos2_5.py, Pix2Struct's): patch_projection ``P*H + H``
    (P = patch_embed_hidden_size), row / column embedders ``2*max_num_patches*H``; per layer query / key / value /
    output ``4*H*n*hd`` (no biases), gated MLP wi_0 / wi_1 / wo ``3*H*I`` (no biases), 2 weight-only LayerNorms
    ``2H``; final LayerNorm ``H``."""
    h, inter, n = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers", minimum=0)
    inner = v.get_int("num_attention_heads") * v.get_int("head_dim")
    return (linear(v.get_int("patch_embed_hidden_size"), h, True) + 2 * v.get_int("max_num_patches") * h
            + n * (4 * h * inner + 3 * h * inter + 2 * h) + h)


def kosmos2_5(top: ConfigReader, t: Tally) -> None:
    """Kosmos2_5ForConditionalGeneration (modeling_kosmos2_5.py). ``Kosmos2_5TextForCausalLM`` (``text_config``,
    Kosmos2_5TextConfig's names through its attribute_map: ``E`` embed_dim, ``F`` ffn_dim): embed_tokens ``V*E``,
    segment_emb ``2*E`` (the sinusoidal positions are a buffer); per ``Kosmos2_5TextBlock`` self-attention
    ``4*(E*E + E)``, 2 LayerNorms ``4E``, ``Kosmos2_5TextFFN`` fc1 ``E*F + F``, fc2 ``F*E + E`` and its
    ffn_layernorm ``2F``; final LayerNorm ``2E``; lm_head ``V*E`` unless tie_word_embeddings ties it.
    Vision: :func:`_kosmos2_5_vision`. ``Kosmos2_5ImageToTextProjection``: dense ``H_v*E + E`` and latent_query
    ``latent_query_num*E`` (other), x_attn ``4*(E*E + E)`` (attention); segment_emb is counted as other."""
    text = wrapper_sub(top, "text_config", "kosmos_2_5_text_model", {}, absent_ok=True)
    vision = wrapper_sub(top, "vision_config", "kosmos_2_5_vision_model", {}, absent_ok=True)
    e = width_of(text, "hidden_size", "num_attention_heads")
    vocab, ffn, n = text.get_int("vocab_size"), text.get_int("intermediate_size"), text.get_int("num_hidden_layers")
    t.add("embedding", vocab * e)
    t.add("other", 2 * e)                    # segment_emb
    t.add("attention", n * 4 * linear(e, e, True))
    t.add("mlp", n * (linear(e, ffn, True) + linear(ffn, e, True)))
    t.add("norms", n * (4 * e + 2 * ffn) + 2 * e)
    t.tied = text.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * e)
    hv = vision.get_int("hidden_size")
    t.add("vision", _kosmos2_5_vision(vision))
    t.add("other", linear(hv, e, True) + top.get_int("latent_query_num") * e)   # projection dense, latent_query
    t.add("attention", 4 * linear(e, e, True))                                   # the projection's x_attn
