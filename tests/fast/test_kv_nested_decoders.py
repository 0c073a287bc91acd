"""KV cache of encoder-decoders with a nested ``decoder`` config (T5Gemma, T5Gemma 2, EncoderDecoderModel) and of
Kosmos-2.5 (its text config's own field names), against transformers 5.24's real caches on NON-default shapes.

Every expected list is the per-layer storage bytes of the cache transformers 5.24 itself built (torch 2.13 CPU,
bfloat16, random init, the class named by the auto mappings): batch 2, a prefill of 9 decoder tokens, 2 one-token
decode steps, 7 encoder tokens, measured with ``tests/oracles/transformers_coverage.feed`` and
``tests/cache_probe.layer_storage_bytes`` (the probe of tests/fixtures/transformers_5_24_coverage.json), on the
configs written here. The class defaults are replayed from that fixture by
tests/reference/test_transformers_coverage.py.
"""
from __future__ import annotations

import pytest
from tiny_models import T5GEMMA2

import kvcalc
from kvcalc.errors import ConfigError, UnsupportedError

BATCH, PREFILL, DECODE, ENCODER = 2, 9, 2, 7


def _layers(config: dict) -> list[int]:
    r = kvcalc.kv_cache(config, batch=BATCH, context=PREFILL + DECODE, dtype="bfloat16", runtime="transformers",
                        prefill=PREFILL, encoder_tokens=ENCODER)
    assert r.quality == "exact"
    assert r.total_bytes == sum(layer.bytes for layer in r.layers)
    return [layer.bytes for layer in r.layers]


# T5Gemma with a decoder unlike its encoder (5 layers, GQA 8 / 2 heads x 8, window 4, no layer_types: the
# T5GemmaModuleConfig rule, layer i sliding when (i + 1) % 2): transformers built layer_types sliding, full, ...
T5GEMMA = {"model_type": "t5gemma", "vocab_size": 128,
           "encoder": {"model_type": "t5_gemma_module", "hidden_size": 48, "intermediate_size": 64,
                       "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 12,
                       "vocab_size": 128},
           "decoder": {"model_type": "t5_gemma_module", "hidden_size": 64, "intermediate_size": 96,
                       "num_hidden_layers": 5, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 8,
                       "sliding_window": 4, "vocab_size": 128}}
T5GEMMA_BYTES = [1416, 2304, 1416, 2304, 1416]

# T5Gemma 2: 7 decoder layers, 1 KV head x 32, window 5, no layer_types (T5Gemma2DecoderConfig: every 6th full)
T5GEMMA2_BYTES = [3080, 3080, 3080, 3080, 3080, 4608, 3080]
# the same with the sliding_window_pattern keyword the config class pops (every 3rd layer full)
T5GEMMA2_P3_BYTES = [3080, 3080, 4608, 3080, 3080, 4608, 3080]

_BERT = {"model_type": "bert", "hidden_size": 48, "intermediate_size": 64, "num_hidden_layers": 3,
         "num_attention_heads": 6, "vocab_size": 128}
# EncoderDecoderModel: a BERT encoder of another width, a BERT decoder with cross-attention (6 heads x 8)
ENCODER_DECODER = {"model_type": "encoder-decoder",
                   "encoder": {**_BERT, "num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 2},
                   "decoder": {**_BERT, "is_decoder": True, "add_cross_attention": True}}
ENCODER_DECODER_BYTES = [6912, 6912, 6912]
# the same decoder geometry as RoBERTa and as GPT-2 (n_embd 48, 6 heads), each with add_cross_attention
ROBERTA_DECODER = {**ENCODER_DECODER, "decoder": {**ENCODER_DECODER["decoder"], "model_type": "roberta"}}
GPT2_DECODER = {**ENCODER_DECODER, "decoder": {"model_type": "gpt2", "n_embd": 48, "n_layer": 3, "n_head": 6,
                                               "vocab_size": 128, "is_decoder": True, "add_cross_attention": True}}

# Kosmos-2.5: Kosmos2_5TextConfig.attribute_map names embed_dim / layers / attention_heads
KOSMOS = {"model_type": "kosmos-2.5", "latent_query_num": 4,
          "text_config": {"model_type": "kosmos_2_5_text_model", "embed_dim": 48, "layers": 3, "attention_heads": 3,
                          "ffn_dim": 64, "vocab_size": 128},
          "vision_config": {"model_type": "kosmos_2_5_vision_model", "hidden_size": 32, "patch_embed_hidden_size": 32,
                            "intermediate_size": 48, "head_dim": 16, "num_hidden_layers": 1,
                            "num_attention_heads": 2}}
KOSMOS_BYTES = [4224, 4224, 4224]


@pytest.mark.parametrize(("config", "expected"), [
    (T5GEMMA, T5GEMMA_BYTES), (T5GEMMA2, T5GEMMA2_BYTES),
    ({**T5GEMMA2, "decoder": {**T5GEMMA2["decoder"], "sliding_window_pattern": 3}}, T5GEMMA2_P3_BYTES),
    (ENCODER_DECODER, ENCODER_DECODER_BYTES), (ROBERTA_DECODER, ENCODER_DECODER_BYTES),
    (GPT2_DECODER, ENCODER_DECODER_BYTES), (KOSMOS, KOSMOS_BYTES),
], ids=["t5gemma", "t5gemma2", "t5gemma2-pattern3", "encoder-decoder", "encoder-decoder-roberta",
        "encoder-decoder-gpt2", "kosmos-2.5"])
def test_transformers_runtime_equals_real_cache(config, expected):
    assert _layers(config) == expected


def test_nested_decoder_layers_hold_self_and_cross_attention():
    """Hand arithmetic for T5Gemma's decoder above: 2 KV heads x (8 + 8) x 2 bytes = 64 bytes per token; a full
    layer holds 11 self + 7 cross tokens, a sliding one its window of 4 (+ the 8-byte window tensor) + 7 cross."""
    spec = kvcalc.read_spec(T5GEMMA)
    assert spec.is_encoder_decoder and [layer.kind for layer in spec.layers] == ["sliding", "full"] * 2 + ["sliding"]
    assert all([a.source for a in layer.attention] == ["self", "cross"] for layer in spec.layers)
    assert T5GEMMA_BYTES[:2] == [BATCH * 64 * (4 + ENCODER) + 8, BATCH * 64 * (11 + ENCODER)]
    ideal = kvcalc.kv_cache(T5GEMMA, batch=1, context=100, dtype="bfloat16", encoder_tokens=10)
    assert [layer.bytes for layer in ideal.layers][:2] == [64 * (4 + 10), 64 * (100 + 10)]


def test_absent_decoder_is_the_class_default():
    """No ``decoder``: T5GemmaConfig builds T5GemmaModuleConfig's defaults (26 layers, 4 KV heads x 256,
    sliding window 4096, alternating sliding / full); EncoderDecoderConfig a BERT (12 layers, 12 heads x 64)."""
    spec = kvcalc.read_spec({"model_type": "t5gemma"})
    assert spec.num_layers == 26 and spec.layers[0].attention[0].window == 4096
    assert spec.layers[1].kind == "full" and spec.layers[1].attention[1].kv_heads == 4
    assert spec.layers[1].attention[1].k_head_dim == 256
    bert = kvcalc.read_spec({"model_type": "encoder-decoder"})
    assert bert.num_layers == 12 and bert.layers[0].attention[1].kv_heads == 12
    assert bert.layers[0].attention[1].k_head_dim == 64


def test_unverified_or_broken_decoders_are_refused():
    with pytest.raises(UnsupportedError, match="decoder.model_type"):
        kvcalc.read_spec({"model_type": "encoder-decoder", "decoder": {"model_type": "llama"}})
    with pytest.raises(UnsupportedError, match="decoder.model_type"):
        kvcalc.read_spec({"model_type": "t5gemma", "decoder": {"model_type": "gemma2"}})
    with pytest.raises(ConfigError, match="add_cross_attention"):
        kvcalc.read_spec({"model_type": "encoder-decoder", "decoder": {**_BERT, "add_cross_attention": False}})
    # EncoderDecoderConfig(decoder={...}) keeps a given decoder's add_cross_attention (default false): no cross layers
    with pytest.raises(ConfigError, match="add_cross_attention"):
        kvcalc.read_spec({"model_type": "encoder-decoder", "decoder": _BERT})
    with pytest.raises(ConfigError, match="decoder"):
        kvcalc.read_spec({"model_type": "t5gemma", "decoder": [1]})
