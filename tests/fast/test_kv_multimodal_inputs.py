"""KV rules of the types the coverage oracle measures with real image / audio / encoder inputs.

Each case is a NON-default shape of the type, built in transformers 5.24 (random init, bfloat16, CPU) and fed
as tests/oracles/transformers_coverage.py feeds it (its ``feed`` with the type's ``MEDIA`` inputs: batch 2,
a prompt of 9 tokens, 2 one-token decode steps); the expected bytes per layer are the storages of the cache
it returned (tests/cache_probe.py ``layer_storage_bytes``), written here by hand. kvcalc must give the same
bytes per layer (runtime ``transformers``) with quality ``exact``. The default shapes are replayed from the
fixture by tests/reference/test_transformers_coverage.py.
"""
from __future__ import annotations

import pytest

import kvcalc

BATCH, PREFILL, DECODE = 2, 9, 2

# (config as kvcalc reads it, encoder tokens the cross-attention cache held, measured bytes per layer)
CASES = {
    # UdopForConditionalGeneration(d_model=48, num_heads=3, d_kv=8, num_layers=2, num_decoder_layers=3), 7 text
    # tokens with boxes + one 32 x 32 image (4 patches): the encoder's 11 states in every cross layer;
    # 2 x 2 x 3 heads x 8 x (11 self + 11 cross) x 2 bytes = 4,224 per layer
    "udop": ({"model_type": "udop", "is_encoder_decoder": True, "d_model": 48, "num_heads": 3, "d_kv": 8,
              "num_layers": 2, "num_decoder_layers": 3, "vocab_size": 128}, 11, [4224] * 3),
    # Pix2StructForConditionalGeneration, text_config(hidden_size=48, num_heads=2, d_kv=24, num_layers=3), 7 patches
    "pix2struct": ({"model_type": "pix2struct", "is_encoder_decoder": True, "text_config": {
        "model_type": "pix2struct_text_model", "hidden_size": 48, "num_heads": 2, "d_kv": 24, "num_layers": 3,
        "vocab_size": 128}}, 7, [6912] * 3),
    # PPFormulaNetForConditionalGeneration, text_config(d_model=48, decoder_attention_heads=6, decoder_layers=3),
    # one 64 x 64 image: the decoder cross-attends the encoder's pooler_output, 1 token
    "pp_formulanet": ({"model_type": "pp_formulanet", "is_encoder_decoder": True, "text_config": {
        "model_type": "pp_formulanet_text", "d_model": 48, "decoder_attention_heads": 6, "decoder_layers": 3,
        "vocab_size": 128}}, 1, [4608] * 3),
    # WhisperForCausalLM(d_model=32, decoder_attention_heads=2, decoder_layers=2, max_source_positions=5) with
    # 5 encoder states: kvcalc's default encoder length for Whisper is max_source_positions
    "whisper": ({"model_type": "whisper", "is_encoder_decoder": True, "d_model": 32, "decoder_attention_heads": 2,
                 "decoder_layers": 2, "max_source_positions": 5, "num_mel_bins": 80, "vocab_size": 51865},
                None, [4096] * 2),
    # IdeficsForVisionText2Text(hidden_size=64, num_attention_heads=8, num_hidden_layers=2), one 28 x 28 image:
    # the gated cross-attention caches nothing (cache=None), self-attention is multi-head: 2 x 2 x 8 x 8 x 11 x 2
    "idefics": ({"model_type": "idefics", "hidden_size": 64, "num_attention_heads": 8, "num_hidden_layers": 2,
                 "vocab_size": 32000}, None, [5632] * 2),
    # Qwen3OmniMoeThinkerForConditionalGeneration, text_config(hidden_size=64, num_attention_heads=8,
    # num_key_value_heads=2, num_hidden_layers=2) without head_dim: 64 / 8 = 8 per head
    "qwen3_omni_moe_thinker": ({"model_type": "qwen3_omni_moe_thinker", "text_config": {
        "model_type": "qwen3_omni_moe_text", "hidden_size": 64, "num_attention_heads": 8, "num_key_value_heads": 2,
        "num_hidden_layers": 2, "vocab_size": 3584}}, None, [1408] * 2),
    # VoxtralRealtimeForConditionalGeneration, text_config(num_hidden_layers=3, num_key_value_heads=1,
    # sliding_window=4, head_dim=16), streaming audio: every layer a DynamicSlidingWindowLayer holding the
    # last 4 tokens (512 bytes) and its 8-byte int64 window tensor
    "voxtral_realtime": ({"model_type": "voxtral_realtime", "text_config": {
        "model_type": "voxtral_realtime_text", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 1,
        "head_dim": 16, "num_hidden_layers": 3, "sliding_window": 4, "vocab_size": 128}}, None, [520] * 3),
    # Kosmos2ForConditionalGeneration, text_config(embed_dim=32, attention_heads=4, layers=2): Kosmos2TextConfig's
    # own field names (its attribute_map); one 28 x 28 image whose 64 latent queries fill 64 prompt positions
    # before the 9 text tokens (PROMPT): 2 x 2 x 4 x 8 x (73 + 2) x 2 = 19,200 per layer
    "kosmos-2": ({"model_type": "kosmos-2", "text_config": {
        "model_type": "kosmos_2_text_model", "embed_dim": 32, "attention_heads": 4, "layers": 2,
        "vocab_size": 65037}}, None, [19200] * 2),
    # VisionEncoderDecoderModel: ViT encoder (one 32 x 32 image: 4 patches + CLS = 5 states), decoder
    # BertLMHeadModel(hidden_size=32, num_attention_heads=2, num_hidden_layers=2, add_cross_attention=True)
    "vision-encoder-decoder": ({"model_type": "vision-encoder-decoder", "is_encoder_decoder": True, "decoder": {
        "model_type": "bert", "hidden_size": 32, "num_attention_heads": 2, "num_hidden_layers": 2,
        "is_decoder": True, "add_cross_attention": True, "vocab_size": 30522}}, 5, [4096] * 2),
}
PROMPT = {"kosmos-2": 64 + PREFILL}     # prompt tokens the text model caches, image positions included


@pytest.mark.parametrize("model_type", sorted(CASES))
def test_transformers_runtime_equals_measured_non_default_shape(model_type):
    config, encoder_tokens, measured = CASES[model_type]
    prompt = PROMPT.get(model_type, PREFILL)
    r = kvcalc.kv_cache({**config, "dtype": "bfloat16"}, batch=BATCH, context=prompt + DECODE, dtype="bfloat16",
                        runtime="transformers", prefill=prompt, encoder_tokens=encoder_tokens)
    assert [layer.bytes for layer in r.layers] == measured
    assert r.quality == "exact"


def test_t5_style_cross_layers_follow_encoder_tokens():
    """UDOP's cross-attention layers hold the encoder tokens given, its self-attention the context: doubling the
    encoder tokens of the measured case (11 -> 22) adds 2 x 2 x 3 x 8 x 11 x 2 = 2,112 bytes per layer."""
    config, _, measured = CASES["udop"]
    r = kvcalc.kv_cache({**config, "dtype": "bfloat16"}, batch=BATCH, context=PREFILL + DECODE, dtype="bfloat16",
                        runtime="transformers", prefill=PREFILL, encoder_tokens=22)
    assert [layer.bytes for layer in r.layers] == [m + 2112 for m in measured]
