"""Parameter counts of encoder-decoders and speech models (Switch Transformers, NLLB-MoE, BERT / RoBERTa
EncoderDecoder, Kosmos-2.5, Granite Speech, OmniASR, VibeVoice, NeMo SpeechLM, T5Gemma 2) == transformers 5.24's
meta-device counts, on NON-default
configs (the class defaults are replayed from tests/fixtures/transformers_5_24_coverage.json by
tests/reference/test_transformers_coverage.py).

How the expected numbers were obtained: ``sum(p.numel() for p in model.parameters())`` of the class transformers
5.24 builds from the config written here, on the meta device (``with torch.device("meta"):
transformers.<Class>._from_config(AutoConfig.for_model(model_type, **fields))``, tied tensors counted once; the
class is the one its text-generation auto mapping names, as tests/hf_reference.meta_model picks), and for
``moe_experts`` the sum over the parameters whose name contains ``.experts.``. Run with torch 2.13 CPU.
"""
from __future__ import annotations

import pytest
from tiny_models import T5GEMMA2, T5GEMMA2_TEXT

import kvcalc
from kvcalc.errors import ConfigError

_SWITCH = dict(model_type="switch_transformers", vocab_size=100, d_model=16, d_kv=4, d_ff=24, num_heads=2)
_NLLB = dict(model_type="nllb-moe", vocab_size=100, d_model=16, encoder_ffn_dim=24, decoder_ffn_dim=20,
             encoder_attention_heads=2, decoder_attention_heads=4, max_position_embeddings=64)
_BERT = dict(model_type="bert", hidden_size=48, intermediate_size=64, num_hidden_layers=3, num_attention_heads=6,
             vocab_size=128, max_position_embeddings=40, type_vocab_size=3)
_BERT_DECODER = dict(_BERT, is_decoder=True, add_cross_attention=True)
_ROBERTA = dict(_BERT, model_type="roberta", type_vocab_size=1)
_BERT_32 = dict(model_type="bert", hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                vocab_size=128)
_GPT2_DECODER = dict(model_type="gpt2", n_embd=48, n_layer=3, n_head=6, vocab_size=128, n_positions=64,
                     is_decoder=True, add_cross_attention=True)
_NARROW_BERT = dict(_BERT, num_hidden_layers=2, hidden_size=32, num_attention_heads=2)
KOSMOS = {"model_type": "kosmos-2.5", "latent_query_num": 4,
          "text_config": {"model_type": "kosmos_2_5_text_model", "embed_dim": 48, "layers": 3, "attention_heads": 3,
                          "ffn_dim": 64, "vocab_size": 128},
          "vision_config": {"model_type": "kosmos_2_5_vision_model", "hidden_size": 32, "patch_embed_hidden_size": 32,
                            "intermediate_size": 48, "head_dim": 16, "num_hidden_layers": 1, "num_attention_heads": 2}}
_GRANITE = dict(model_type="granite", hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, vocab_size=300)
_CONFORMER = dict(model_type="granite_speech_encoder", input_dim=20, num_layers=2, hidden_dim=32, feedforward_mult=3,
                  num_heads=4, dim_head=6, output_dim=10, context_size=8, max_pos_emb=16, conv_kernel_size=5,
                  conv_expansion_factor=3)
_QFORMER = dict(model_type="blip_2_qformer", hidden_size=48, intermediate_size=40, num_hidden_layers=4,
                num_attention_heads=4, encoder_hidden_size=32, cross_attention_frequency=3)
GRANITE_SPEECH = {"model_type": "granite_speech", "text_config": _GRANITE, "encoder_config": _CONFORMER,
                  "projector_config": _QFORMER, "window_size": 12, "downsample_rate": 4}
_OMNI_AUDIO = dict(model_type="omniasr_audio", hidden_size=48, conv_dim=[8, 12, 16], conv_kernel=[5, 3, 2],
                   conv_stride=[3, 2, 2], conv_bias=False, num_attention_heads=4, num_hidden_layers=2,
                   num_conv_pos_embeddings=6, num_conv_pos_embedding_groups=4, intermediate_size=40)
_LLAMA = dict(model_type="llama", hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, vocab_size=300)
_VV_TOKENIZER = dict(model_type="vibevoice_acoustic_tokenizer_encoder", channels=1, hidden_size=16, kernel_size=5,
                     num_filters=4, downsampling_ratios=[2, 3], depths=[1, 2, 1], ffn_expansion=2)
_QWEN2 = dict(_LLAMA, model_type="qwen2")

# Nemotron 3.5 Transcribe: a 4-layer nemotron_h decoder (Mamba-2, MoE, attention, MLP), a GQA ASR encoder, a
# diarization model of other widths (3 heads, derived KV heads, head 24 -> 20, 5 speakers), a word-timestamp stack
_NEMO_ENC = dict(hidden_size=32, intermediate_size=40, num_attention_heads=4, num_key_value_heads=2, num_mel_bins=16,
            subsampling_factor=4)
NEMO = {"model_type": "nemo_speechlm",
        "text_config": {"model_type": "nemotron_h", "hidden_size": 64, "intermediate_size": 96, "head_dim": 16,
                        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 300,
                        "layers_block_type": ["linear_attention", "moe", "full_attention", "mlp"],
                        "mamba_head_dim": 16, "mamba_num_heads": 8, "n_groups": 2, "ssm_state_size": 8,
                        "conv_kernel": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
                        "moe_intermediate_size": 32, "moe_shared_expert_intermediate_size": 24},
        "audio_config": {"model_type": "nemotron3_5_transcribe_audio",
                         "asr_config": dict(_NEMO_ENC, model_type="nemotron3_5_transcribe_asr_audio",
                                            num_hidden_layers=3),
                         "diarization_config": {
                             "model_type": "nemotron3_diarization",
                             "audio_config": dict(_NEMO_ENC, model_type="nemotron3_diarization_audio", hidden_size=24,
                                                  num_attention_heads=3, num_key_value_heads=None, num_hidden_layers=2),
                             "head_config": {"audio_hidden_size": 24, "hidden_size": 20, "num_speakers": 5,
                                             "subsampling_factor": 4},
                             "streaming_config": {"num_speakers": 5, "subsampling_factor": 4}}},
        "word_timestamp_config": {"model_type": "nemotron3_5_transcribe_word_timestamp", "hidden_size": 32,
                                  "intermediate_size": 24, "num_attention_heads": 2, "num_hidden_layers": 1,
                                  "vocab_size": 50, "blank_token_id": 49, "upsampling_factor": 3}}

# (id, config, transformers' total, transformers' routed-expert parameters or None)
CASES: list[tuple[str, dict, int, int | None]] = [
    # Switch: sparse layers every num_layers // num_sparse (4 // 2: layers 1, 3; 3 // 1: layer 1), untied tables
    ("switch-untied", dict(_SWITCH, num_layers=4, num_decoder_layers=3, num_sparse_encoder_layers=2,
                           num_sparse_decoder_layers=1, num_experts=3, tie_word_embeddings=False), 22080, 6912),
    # no sparse encoder layer, every decoder layer sparse (step 1), router biases, 3 heads
    ("switch-router-bias", dict(_SWITCH, num_layers=5, num_decoder_layers=2, num_sparse_encoder_layers=0,
                                num_sparse_decoder_layers=2, num_heads=3, num_experts=4, router_bias=True),
     21484, 9216),
    # NLLB-MoE: (i + 1) % step == 0 sparse, other encoder / decoder ffn widths and heads, untied, router biases
    ("nllb-moe-untied", dict(_NLLB, encoder_layers=5, decoder_layers=3, num_experts=3, encoder_sparse_step=2,
                             decoder_sparse_step=3, router_bias=True, tie_word_embeddings=False), 29845, 6876),
    ("nllb-moe-dense-encoder", dict(_NLLB, encoder_layers=4, decoder_layers=3, num_experts=5, encoder_sparse_step=0,
                                    decoder_sparse_step=1), 26700, 10140),
    # T5Gemma 2: encoder text stack + SigLIP tower (with head) + projector, decoder of other depth / heads
    ("t5gemma2-tied", T5GEMMA2, 397888, None),
    ("t5gemma2-untied", {**T5GEMMA2, "tie_word_embeddings": False}, 436352, None),
    # EncoderDecoderModel (class EncoderDecoderModel): BERT encoder (with pooler) 32 wide, BERT decoder 48 wide
    # (enc_to_dec_proj 32 -> 48); the decoder's tie flag decides cls.predictions.decoder's weight and bias
    ("encoder-decoder-proj", {"model_type": "encoder-decoder", "encoder": _NARROW_BERT, "decoder": _BERT_DECODER},
     112224, None),
    ("encoder-decoder-untied", {"model_type": "encoder-decoder", "encoder": _NARROW_BERT,
                                "decoder": dict(_BERT_DECODER, tie_word_embeddings=False)}, 118496, None),
    ("encoder-decoder-cross-width", {"model_type": "encoder-decoder", "encoder": _NARROW_BERT,
                                     "decoder": dict(_BERT_DECODER, cross_attention_hidden_size=32)}, 110640, None),
    ("encoder-decoder-same-width", {"model_type": "encoder-decoder", "encoder": dict(_BERT, num_hidden_layers=2),
                                    "decoder": _BERT_DECODER}, 129328, None),
    # RoBERTa stacks (RobertaModel encoder, RobertaForCausalLM decoder): type_vocab_size 1; a BERT encoder with an
    # untied RoBERTa decoder; and RoBERTa's class defaults
    ("encoder-decoder-roberta", {"model_type": "encoder-decoder",
                                 "encoder": dict(_ROBERTA, num_hidden_layers=2),
                                 "decoder": dict(_ROBERTA, is_decoder=True, add_cross_attention=True)}, 129136, None),
    ("encoder-decoder-bert-roberta", {"model_type": "encoder-decoder", "encoder": _NARROW_BERT,
                                      "decoder": dict(_ROBERTA, is_decoder=True, add_cross_attention=True,
                                                      tie_word_embeddings=False)}, 118400, None),
    ("encoder-decoder-roberta-defaults", {"model_type": "encoder-decoder", "encoder": {"model_type": "roberta"},
                                          "decoder": {"model_type": "roberta", "is_decoder": True,
                                                      "add_cross_attention": True}}, 277708377, None),
    # a GPT-2 decoder with add_cross_attention (GPT2LMHeadModel: crossattention + ln_cross_attn per block); then a
    # BERT encoder of the decoder's width (no enc_to_dec_proj), n_inner 80 and an untied lm_head
    ("encoder-decoder-gpt2", {"model_type": "encoder-decoder", "encoder": _BERT_32, "decoder": _GPT2_DECODER},
     162976, None),
    ("encoder-decoder-gpt2-untied", {"model_type": "encoder-decoder",
                                     "encoder": dict(_BERT_32, hidden_size=48, num_attention_heads=4),
                                     "decoder": dict(_GPT2_DECODER, tie_word_embeddings=False, n_inner=80)},
     161168, None),
    # Kosmos-2.5 (class Kosmos2_5ForConditionalGeneration): its text config's own names; the text config's tie
    # flag decides lm_head (the top-level one does not)
    ("kosmos-2.5", KOSMOS, 337472, None),
    ("kosmos-2.5-top-untied", {**KOSMOS, "tie_word_embeddings": False}, 337472, None),
    ("kosmos-2.5-text-untied", {**KOSMOS, "text_config": {**KOSMOS["text_config"], "tie_word_embeddings": False}},
     343616, None),
    # Granite Speech (class GraniteSpeechForConditionalGeneration; peft absent, so no LoRA adapter is built):
    # conformer with its own dim_head, Q-Former cross-attention every 3rd layer, 12 // 4 queries
    ("granite_speech", GRANITE_SPEECH, 208294, None),
    # dim_head derived (32 / 4), Q-Former text-input FFNs and cross-attention in every layer, lm_head untied
    ("granite_speech-untied", {**GRANITE_SPEECH, "encoder_config": dict(_CONFORMER, dim_head=None),
                               "projector_config": dict(_QFORMER, use_qformer_text_input=True,
                                                        cross_attention_frequency=1),
                               "tie_word_embeddings": False}, 261706, None),
    # Granite Speech Plus: 2 concatenated hidden layers widen the Q-Former's encoder_hidden_size to 3 x 32
    ("granite_speech_plus", {**GRANITE_SPEECH, "model_type": "granite_speech_plus", "window_size": 15,
                             "downsample_rate": 5, "projector_config": dict(_QFORMER, encoder_hidden_size=96),
                             "encoder_config": dict(_CONFORMER, model_type="granite_speech_plus_encoder",
                                                    cat_hidden_layers=[0, 1])}, 220582, None),
    # OmniASR (class OmniASRForConditionalGeneration): 3 conv layers without biases, grouped positional conv;
    # then conv biases, one group, and the text config's tie flag (lm_head is never tied: no _tied_weights_keys)
    ("omniasr", {"model_type": "omniasr", "audio_config": _OMNI_AUDIO, "text_config": _LLAMA}, 135584, None),
    ("omniasr-conv-bias", {"model_type": "omniasr", "audio_config": dict(_OMNI_AUDIO, conv_bias=True,
                                                                         num_conv_pos_embedding_groups=1),
                           "text_config": dict(_LLAMA, tie_word_embeddings=True)}, 145988, None),
    # VibeVoice-ASR (class VibeVoiceAsrForConditionalGeneration): two tokenizer encoders of other widths, filters,
    # kernels, 2 downsampling stages; then 2 input channels, ffn_expansion 3, tie flags set (lm_head is never tied)
    ("vibevoice_asr", {"model_type": "vibevoice_asr", "text_config": _QWEN2, "acoustic_tokenizer_encoder_config":
                       _VV_TOKENIZER, "acoustic_tokenizer_chunk_size": 600, "semantic_tokenizer_encoder_config":
                       dict(_VV_TOKENIZER, hidden_size=24, num_filters=2, kernel_size=3)}, 117302, None),
    ("vibevoice_asr-tie-flags", {"model_type": "vibevoice_asr", "text_config": dict(_QWEN2, tie_word_embeddings=True),
                                 "acoustic_tokenizer_encoder_config": dict(_VV_TOKENIZER, ffn_expansion=3, channels=2),
                                 "semantic_tokenizer_encoder_config": _VV_TOKENIZER,
                                 "acoustic_tokenizer_chunk_size": 600, "tie_word_embeddings": True}, 120512, None),
    # class Nemotron3_5TranscribeForConditionalGeneration
    ("nemo_speechlm", NEMO, 161853, None),
]


@pytest.mark.parametrize(("config", "total", "expert_params"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_count_equals_meta_device_count(config, total, expert_params):
    ours = kvcalc.count_params(config)
    assert ours.total == total and ours.quality == "exact"
    assert ours.total == sum(ours.parts().values())
    if expert_params is not None:
        assert ours.moe_experts == expert_params


def test_switch_active_is_one_expert_per_sparse_layer():
    """SwitchTransformersTop1Router picks one expert: active = total - experts + one expert per sparse layer
    (hand arithmetic: the untied case has 3 sparse layers of 3 experts of 2 x 16 x 24 = 768 each)."""
    p = kvcalc.count_params(CASES[0][1])
    assert p.moe_experts == 3 * 3 * 768 and p.active == 22080 - 3 * 3 * 768 + 3 * 768


def test_nllb_moe_active_is_two_experts_per_sparse_layer():
    """NllbMoeTop2Router: two experts per token. The dense-encoder case has 3 sparse decoder layers of 5 experts
    of 16 x 20 + 20 + 20 x 16 + 16 = 676 each (hand arithmetic)."""
    p = kvcalc.count_params(CASES[3][1])
    assert p.moe_experts == 3 * 5 * 676 and p.active == 26700 - 3 * 5 * 676 + 3 * 2 * 676


def test_t5gemma2_unequal_widths_are_refused():
    """T5Gemma2Config.validate_architecture rejects an encoder text width or vocabulary unlike the decoder's."""
    bad = {**T5GEMMA2, "encoder": {**T5GEMMA2["encoder"], "text_config": {**T5GEMMA2_TEXT, "hidden_size": 32}}}
    with pytest.raises(ConfigError, match="hidden_size"):
        kvcalc.count_params(bad)


def test_encoder_decoder_refusals():
    """Only BERT / RoBERTa stacks and GPT-2 decoders are counted; a decoder without cross-attention or with a cross
    width unlike the encoder's is what EncoderDecoderModel rejects."""
    with pytest.raises(kvcalc.UnsupportedError, match="decoder.model_type"):
        kvcalc.count_params({"model_type": "encoder-decoder", "decoder": {"model_type": "llama"}})
    with pytest.raises(ConfigError, match="add_cross_attention"):   # a GPT-2 without cross-attention blocks
        kvcalc.count_params({"model_type": "encoder-decoder", "decoder": {"model_type": "gpt2"}})
    with pytest.raises(ConfigError, match="add_cross_attention"):
        kvcalc.count_params({"model_type": "encoder-decoder", "decoder": dict(_BERT, add_cross_attention=False)})
    with pytest.raises(ConfigError, match="cross_attention_hidden_size"):
        kvcalc.count_params({"model_type": "encoder-decoder", "encoder": _NARROW_BERT,
                             "decoder": dict(_BERT_DECODER, cross_attention_hidden_size=48)})


def test_nemo_speechlm_absent_sub_configs_are_class_defaults():
    """Without word_timestamp_config transformers builds Nemotron3_5TranscribeWordTimestampConfig's defaults (meta
    count 50,404,042 for NEMO without it); the bare type, the class default (32,361,750,159: the coverage fixture's
    meta-device count) with the text decoder of Nemotron3_5TranscribeConfig's init_kwargs."""
    assert kvcalc.count_params({k: v for k, v in NEMO.items() if k != "word_timestamp_config"}).total == 50404042
    assert kvcalc.count_params({"model_type": "nemo_speechlm"}).total == 32361750159
