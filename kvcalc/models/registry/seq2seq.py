"""Registry entries of encoder-decoders (T5, BART family, Switch, NLLB-MoE, EncoderDecoderModel, T5Gemma, Pix2Struct,
UDOP, ...) and the encoders without a KV cache.

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.seq2seq`."""
from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ..layer_rules import field_pattern, fixed_pattern
from ..model_type import ModelType
from ..quirks import Quirk as Q
from .common import LLAMA_LIKE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

_NO_CACHE = ( "distilbert", "albert", "electra", "deberta", "deberta-v2", "xlm-roberta",
             "vit", "deit", "beit", "clip", "siglip", "convnext", "resnet", "swin", "dinov2", "mpnet",
             "camembert", "modernbert", "wav2vec2", "hubert", "sam", "detr", "segformer",
             "bert-generation", "nomic_bert", "xlm-roberta-xl", "longformer", "funnel")


_ENCODER_DECODER = ("blenderbot_small",)


# types first measured by the coverage oracle with their real image / audio inputs
# (tests/oracles/transformers_coverage.py MEDIA) whose cache the generic rules reproduce exactly: IDEFICS's
# Llama-style decoder (its gated cross-attention runs with cache=None, modeling_idefics.py), Voxtral
# Realtime's text decoder (the audio embeddings are added to the token embeddings; the audio encoder's
# streaming caches are separate Cache objects, not the text model's); IDEFICS's entry is in
# registry/multimodal.py, the Qwen2.5-Omni / Qwen3-Omni thinkers' and Voxtral Realtime's in registry/audio.py.
# Encoder-decoders with an image encoder, measured with their images (encoder tokens: the encoder's output
# length). UDOP (top level) and Pix2Struct's text model are T5 stacks (num_layers / num_heads / d_kv:
# UdopStack, Pix2StructTextModel); PP-FormulaNet's text model is an mBART-style decoder (decoder_layers /
# decoder_attention_heads / d_model: PPFormulaNetTextModel). Each decoder layer caches self-attention K/V
# and the cross-attention K/V of the encoder tokens (EncoderDecoderCache).
T5_STYLE = ("udop", "pix2struct_text_model")


# ViTConfig's class defaults (parameter fields), read for VisionEncoderDecoderModel's encoder
VIT_DEFAULTS = MappingProxyType(dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                     intermediate_size=3072, image_size=224, patch_size=16, num_channels=3,
                                     qkv_bias=True, pooler_output_size=None))


# Parameter families in kvcalc.models.seq2seq ("bart", "t5"); the KV cache of every
# one is read by kvcalc.architectures' encoder-decoder rule. Defaults: transformers 5.24 config classes.
_BART_FIELDS = dict(vocab_size=50265, d_model=1024, encoder_layers=12, decoder_layers=12, encoder_ffn_dim=4096,
                    decoder_ffn_dim=4096, encoder_attention_heads=16, decoder_attention_heads=16,
                    max_position_embeddings=1024, tie_word_embeddings=True)


def _bart_like(name: str, quirks: str, **defaults: Any) -> ModelType:
    return ModelType(name, kind="encoder_decoder", params="bart", quirks=frozenset(Q(q) for q in quirks.split()),
                     defaults=_d(_BART_FIELDS, **defaults))


_T5_FIELDS = dict(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=None,
                  num_heads=8, relative_attention_num_buckets=32, feed_forward_proj="relu")


_MT5_FIELDS = dict(_T5_FIELDS, vocab_size=250112, d_ff=1024, num_layers=8, num_heads=6,
                   feed_forward_proj="gated-gelu")


# EncoderDecoderModel decoders whose cross-attention cache has the self-attention geometry
# (modeling_bert.py BertLayer.crossattention, modeling_roberta.py RobertaLayer.crossattention: BertCrossAttention /
# RobertaCrossAttention of num_attention_heads x hidden / heads; modeling_gpt2.py GPT2Block.crossattention:
# GPT2Attention(is_cross_attention=True), n_head x n_embd / n_head), each checked against transformers' real cache
# (tests/fast/test_kv_nested_decoders.py); the first is EncoderDecoderConfig's default decoder (a BERT with
# add_cross_attention)
CROSS_ATTENTION_DECODERS = ("bert", "roberta", "gpt2")


SEQ2SEQ_ENTRIES: tuple[ModelType, ...] = (
    # PP-FormulaNet (the coverage oracle's KV rule: an mBART-style decoder caching self- and cross-attention), counted
    # by
    # kvcalc.models.seq2seq.pp_formulanet; defaults: PPFormulaNet(Text|Vision)Config (parameter fields)
    ModelType("pp_formulanet", kind="encoder_decoder", params="pp_formulanet"),
    ModelType("pp_formulanet_text", kind="encoder_decoder", defaults=_d(
        vocab_size=50000, max_position_embeddings=2560, decoder_layers=8, decoder_ffn_dim=2048,
        decoder_attention_heads=16, d_model=512)),
    ModelType("pp_formulanet_vision", kind="no_cache", defaults=_d(
        hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=512, patch_size=16, qkv_bias=True, use_abs_pos=True, use_rel_pos=True, window_size=14,
        global_attn_indexes=(2, 5, 8, 11), mlp_dim=3072, post_conv_in_channels=256, post_conv_out_channels=1024,
        post_conv_mid_channels=512, decoder_hidden_size=512)),
    # Pix2Struct, counted by kvcalc.models.seq2seq.pix2struct; defaults: Pix2Struct(Vision|Text)Config
    ModelType("pix2struct", kind="encoder_decoder", params="pix2struct", defaults=_d(tie_word_embeddings=False)),
    ModelType("pix2struct_text_model", kind="encoder_decoder", defaults=_d(
        vocab_size=50244, hidden_size=768, d_kv=64, d_ff=2048, num_layers=12, num_heads=12,
        relative_attention_num_buckets=32)),
    ModelType("pix2struct_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, patch_embed_hidden_size=768, d_ff=2048, d_kv=64, num_hidden_layers=12,
        num_attention_heads=12, seq_len=4096)),
    # UDOP, counted by kvcalc.models.seq2seq.udop; defaults: UdopConfig
    ModelType("udop", kind="encoder_decoder", params="udop", defaults=_d(
        vocab_size=33201, d_model=1024, d_kv=64, d_ff=4096, num_layers=24, num_decoder_layers=24, num_heads=16,
        relative_attention_num_buckets=32, feed_forward_proj="relu", max_2d_position_embeddings=1024, patch_size=16,
        num_channels=3, tie_word_embeddings=True)),
    # Kosmos-2's text decoder, read through Kosmos2TextConfig's attribute_map (embed_dim / layers /
    # attention_heads), multi-head attention (Kosmos2TextAttention); defaults: Kosmos2TextConfig
    ModelType("kosmos_2_text_model", attribute_map=_d(
        num_attention_heads="attention_heads", hidden_size="embed_dim", num_hidden_layers="layers"), defaults=_d(
        vocab_size=65037, hidden_size=2048, num_hidden_layers=24, num_attention_heads=32, intermediate_size=8192,
        max_position_embeddings=2048, ffn_dim=8192, tie_word_embeddings=True, add_cross_attention=False)),
    # VisionEncoderDecoderModel's decoder is its nested 'decoder' config (default a BERT with
    # add_cross_attention: CROSS_ATTENTION_DECODERS), read as EncoderDecoderModel's (kvcalc.architectures);
    # counted by kvcalc.models.seq2seq.vision_encoder_decoder
    ModelType("vision-encoder-decoder", kind="encoder_decoder", quirks=frozenset({Q.NESTED_DECODER}),
              params="vision_encoder_decoder"),
    # ---- encoder-decoders and models without a KV cache
    ModelType("t5", kind="encoder_decoder", params="t5", defaults=_d(
        vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=None, num_heads=8,
        relative_attention_num_buckets=32, feed_forward_proj="relu")),
    *(ModelType(name, kind="encoder_decoder") for name in _ENCODER_DECODER),
    ModelType("mt5", kind="encoder_decoder", params="t5", defaults=_d(_MT5_FIELDS)),
    ModelType("umt5", kind="encoder_decoder", params="t5", quirks=frozenset({Q.RELATIVE_BIAS_EVERY_LAYER}),
              defaults=_d(_MT5_FIELDS)),
    ModelType("longt5", kind="encoder_decoder", params="t5", quirks=frozenset({Q.TRANSIENT_GLOBAL}),
              defaults=_d(_T5_FIELDS, encoder_attention_type="local")),
    _bart_like("bart", "positions_offset_2 layernorm_embedding"),
    _bart_like("mbart", "positions_offset_2 layernorm_embedding final_layer_norm"),
    _bart_like("plbart", "positions_offset_2 layernorm_embedding", vocab_size=50005, d_model=768, encoder_layers=6,
               decoder_layers=6, encoder_ffn_dim=3072, decoder_ffn_dim=3072, encoder_attention_heads=12,
               decoder_attention_heads=12),
    _bart_like("mvp", "positions_offset_2 layernorm_embedding mvp_prompts", vocab_size=50267, use_prompt=False,
               prompt_length=100, prompt_mid_dim=800),
    _bart_like("marian", "marian_embeddings", vocab_size=58101, decoder_vocab_size=None,
               share_encoder_decoder_embeddings=True),
    _bart_like("pegasus", "final_layer_norm"),
    _bart_like("pegasus_x", "positions_buffer final_layer_norm no_attention_bias global_tokens", vocab_size=96103,
               encoder_layers=16, decoder_layers=16, max_position_embeddings=16384, num_global_tokens=32),
    _bart_like("led", "led_positions layernorm_embedding longformer_global", max_encoder_position_embeddings=16384,
               max_decoder_position_embeddings=1024),
    _bart_like("blenderbot", "final_layer_norm", vocab_size=8008, d_model=2560, encoder_layers=2, decoder_layers=24,
               encoder_ffn_dim=10240, decoder_ffn_dim=10240, encoder_attention_heads=32, decoder_attention_heads=32,
               max_position_embeddings=128),
    _bart_like("blenderbot-small", "layernorm_embedding", d_model=512, encoder_layers=8, decoder_layers=8,
               encoder_ffn_dim=2048, decoder_ffn_dim=2048, max_position_embeddings=512),
    _bart_like("m2m_100", "positions_buffer final_layer_norm", vocab_size=128112),
    _bart_like("fsmt", "positions_pad_offset fsmt_embeddings", vocab_size=None, src_vocab_size=42024,
               tgt_vocab_size=42024, pad_token_id=1, tie_word_embeddings=False),
    ModelType("trocr", kind="encoder_decoder", params="trocr", defaults=_d(
        vocab_size=50265, d_model=1024, decoder_layers=12, decoder_attention_heads=16, decoder_ffn_dim=4096,
        max_position_embeddings=512, use_learned_position_embeddings=True, layernorm_embedding=True,
        cross_attention_hidden_size=None, tie_word_embeddings=True)),
    ModelType("prophetnet", kind="encoder_decoder", params="prophetnet", defaults=_d(
        vocab_size=30522, hidden_size=1024, encoder_ffn_dim=4096, num_encoder_layers=12,
        num_encoder_attention_heads=16, decoder_ffn_dim=4096, num_decoder_layers=12, num_decoder_attention_heads=16,
        max_position_embeddings=512, ngram=2, num_buckets=32, tie_word_embeddings=True)),
    *(_bart_like(name, "positions_buffer final_layer_norm", vocab_size=256102, d_model=None, hidden_size=1024,
                 encoder_layers=24, decoder_layers=24, encoder_ffn_dim=8192, decoder_ffn_dim=8192,
                 max_position_embeddings=pos) for name, pos in (("seamless_m4t", 1024), ("seamless_m4t_v2", 4096))),
    ModelType("t5gemma", kind="encoder_decoder", params="t5gemma", text_type="t5_gemma_module",
              quirks=frozenset({Q.NESTED_DECODER}), defaults=_d(tie_word_embeddings=True)),
    ModelType("t5_gemma_module", norms_per_layer=4, not_countable="counted as part of t5gemma (Llama-style stacks)",
              layer_rule=fixed_pattern(2), defaults=_d(   # T5GemmaModuleConfig.__post_init__: (i + 1) % 2
                  LLAMA_LIKE, vocab_size=256000, hidden_size=2304, intermediate_size=9216,
                  num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                  tie_word_embeddings=True, cross_attention_hidden_size=None, sliding_window=4096)),
    ModelType("t5gemma2", kind="encoder_decoder", text_type="t5gemma2_decoder", quirks=frozenset({Q.NESTED_DECODER}),
              params="t5gemma2", defaults=_d(tie_word_embeddings=True)),
    # T5Gemma2DecoderConfig / T5Gemma2TextConfig.__post_init__: every sliding_window_pattern-th layer full (the
    # kwarg, default 6); Gemma 3 stacks (4 norms per layer, q / k norms) counted by the Llama-style counter
    *(ModelType(name, layer_rule=field_pattern, not_countable="counted as part of t5gemma2", norms_per_layer=4,
                quirks=frozenset({Q.QK_NORM}), defaults=_d(
                    LLAMA_LIKE, vocab_size=262208, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
                    num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True,
                    sliding_window=4096, sliding_window_pattern=6, max_position_embeddings=131072))
      for name in ("t5gemma2_decoder", "t5gemma2_text")),
    ModelType("encoder-decoder", kind="encoder_decoder", quirks=frozenset({Q.NESTED_DECODER}),
              params="encoder_decoder"),
    ModelType("nllb-moe", kind="encoder_decoder", params="nllb_moe", quirks=frozenset({
        Q.POSITIONS_BUFFER, Q.FINAL_LAYER_NORM}), defaults=_d(
        _BART_FIELDS, vocab_size=128112, num_experts=128, router_bias=False, encoder_sparse_step=4,
        decoder_sparse_step=4)),
    ModelType("nllb_moe", kind="encoder_decoder", same_as="nllb-moe"),
    ModelType("switch_transformers", kind="encoder_decoder", params="switch_transformers", defaults=_d(
        vocab_size=32128, d_model=768, d_kv=64, d_ff=2048, num_layers=12, num_decoder_layers=12,
        num_sparse_encoder_layers=3, num_sparse_decoder_layers=3, num_heads=12, num_experts=8, router_bias=False,
        relative_attention_num_buckets=32, tie_word_embeddings=True)),
    ModelType("kosmos-2.5", text_type="kosmos_2_5_text_model", params="kosmos2_5", defaults=_d(
        tie_word_embeddings=True, latent_query_num=2048)),
    ModelType("kosmos_2_5_vision_model", kind="no_cache", defaults=_d(
        hidden_size=1536, patch_embed_hidden_size=768, intermediate_size=3968, head_dim=64, num_hidden_layers=18,
        num_attention_heads=24, max_num_patches=4096)),
    ModelType("kosmos_2_5_text_model", not_countable="counted as part of kosmos-2.5", attribute_map=_d(
        num_attention_heads="attention_heads", hidden_size="embed_dim", num_hidden_layers="layers"), defaults=_d(
        vocab_size=108481, max_position_embeddings=4096, hidden_size=1536, num_hidden_layers=24, intermediate_size=6144,
        num_attention_heads=16, tie_word_embeddings=True)),
    _bart_like("bigbird_pegasus", "layernorm_embedding use_bias", vocab_size=96103, encoder_layers=16,
               decoder_layers=16, max_position_embeddings=4096, use_bias=False),
    *(ModelType(name, kind="no_cache", not_countable="no decoder: kvcalc counts decoder language models")
      for name in _NO_CACHE),
    # BERT's and RoBERTa's class defaults, for an EncoderDecoderModel's encoder / decoder
    *(ModelType(name, kind="no_cache", not_countable="no decoder: kvcalc counts decoder language models", defaults=_d(
        vocab_size=vocab, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        max_position_embeddings=512, type_vocab_size=2, tie_word_embeddings=True))
      for name, vocab in (("bert", 30522), ("roberta", 50265))),
)
