"""kvcalc.params.count_params == transformers 5.24's meta-device parameter count, for encoder-decoders.

Reference: ``sum(p.numel() for p in model.parameters())`` of the class transformers builds from the same
config on the meta device (tied tensors counted once), by hf_reference.meta_model (the class of its
text-generation auto mappings) or the named class. The class defaults are replayed from the committed
fixture by tests/reference/test_transformers_coverage.py; here each type is built with non-default geometry and
every optional feature kvcalc's rule branches on (tying, position tables, shared tables, prompts, global
attention, biases), so a rule that only matches the defaults fails.
"""
from __future__ import annotations

import warnings

import pytest
from hf_reference import hf_config, meta_model

from kvcalc.errors import ConfigError
from kvcalc.params import count_params

# a small geometry that differs from every class default (encoder and decoder sizes differ too)
SMALL = dict(vocab_size=1000, d_model=64, encoder_layers=3, decoder_layers=2, encoder_ffn_dim=96,
             decoder_ffn_dim=80, encoder_attention_heads=4, decoder_attention_heads=8,
             max_position_embeddings=300, pad_token_id=1, bos_token_id=0, eos_token_id=2,
             decoder_start_token_id=2, forced_eos_token_id=2)
T5_SMALL = dict(vocab_size=1000, d_model=64, d_kv=16, d_ff=96, num_layers=3, num_decoder_layers=2,
                num_heads=4, relative_attention_num_buckets=16, pad_token_id=0, eos_token_id=1,
                decoder_start_token_id=0)

CASES: list[tuple[str, dict]] = [
    ("bart", {}), ("bart", {"tie_word_embeddings": False}),
    ("mbart", {}), ("mbart", {"tie_word_embeddings": False}),
    ("plbart", {}), ("mvp", {}), ("mvp", {"use_prompt": True, "prompt_length": 7, "prompt_mid_dim": 24}),
    ("marian", {}), ("marian", {"tie_word_embeddings": False}),
    ("marian", {"share_encoder_decoder_embeddings": False, "decoder_vocab_size": 700}),
    ("marian", {"share_encoder_decoder_embeddings": False, "decoder_vocab_size": 700, "tie_word_embeddings": False}),
    ("marian", {"share_encoder_decoder_embeddings": True, "decoder_vocab_size": 700, "tie_word_embeddings": False}),
    ("pegasus", {}), ("pegasus", {"tie_word_embeddings": False}),
    ("pegasus_x", {"num_global_tokens": 5}), ("pegasus_x", {"tie_word_embeddings": False}),
    ("led", {"max_encoder_position_embeddings": 512, "max_decoder_position_embeddings": 100,
             "attention_window": [8, 8, 8]}),
    ("blenderbot", {}), ("blenderbot-small", {}), ("blenderbot-small", {"tie_word_embeddings": False}),
    ("m2m_100", {}), ("m2m_100", {"tie_word_embeddings": False}),
    ("fsmt", {"src_vocab_size": 900, "tgt_vocab_size": 700, "langs": ["en", "de"]}),
    ("fsmt", {"src_vocab_size": 700, "tgt_vocab_size": 700, "langs": ["en", "de"], "tie_word_embeddings": True}),
    ("fsmt", {"src_vocab_size": 900, "tgt_vocab_size": 700, "langs": ["en", "de"], "pad_token_id": 5}),
    ("bigbird_pegasus", {}), ("bigbird_pegasus", {"use_bias": True}),
    ("bigbird_pegasus", {"attention_type": "original_full", "tie_word_embeddings": False}),
]
T5_CASES: list[tuple[str, dict]] = [
    ("mt5", {}), ("mt5", {"feed_forward_proj": "relu"}), ("mt5", {"tie_word_embeddings": False}),
    ("umt5", {}), ("umt5", {"num_decoder_layers": 4}),
    ("longt5", {}), ("longt5", {"encoder_attention_type": "transient-global"}),
    ("longt5", {"encoder_attention_type": "transient-global", "feed_forward_proj": "gated-gelu"}),
]


def _meta_total(cfg: dict, class_name: str | None = None) -> int:
    """transformers' own count: the meta-device model of ``cfg`` (hf_reference's class, or ``class_name``)."""
    if class_name is None:
        model = meta_model(cfg)
    else:
        import torch
        import transformers
        with warnings.catch_warnings(), torch.device("meta"):
            warnings.simplefilter("ignore")
            model = getattr(transformers, class_name)._from_config(hf_config(cfg))
    return sum(p.numel() for p in model.parameters())


def _case_id(case: tuple[str, dict]) -> str:
    mt, over = case
    return mt + "".join(f"-{k}={v}" for k, v in over.items() if k != "langs")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_bart_family_equals_meta_device_count(case):
    mt, over = case
    cfg = {"model_type": mt, **SMALL, **over}
    if mt == "fsmt":  # FSMTConfig.attribute_map: vocab_size is tgt_vocab_size
        del cfg["vocab_size"]
    ours = count_params(cfg)
    assert ours.total == _meta_total(cfg)
    assert ours.total == sum(ours.parts().values()) and ours.quality == "exact"


@pytest.mark.parametrize("case", T5_CASES, ids=_case_id)
def test_t5_family_equals_meta_device_count(case):
    mt, over = case
    cfg = {"model_type": mt, **T5_SMALL, **over}
    assert count_params(cfg).total == _meta_total(cfg)


def test_bart_ties_everything_only_with_tie_word_embeddings():
    """Hand arithmetic (modeling_bart.py): untied, model.shared, encoder.embed_tokens, decoder.embed_tokens and
    lm_head are four V x d tensors; tied, one."""
    cfg = {"model_type": "bart", **SMALL}
    tied, untied = count_params(cfg), count_params({**cfg, "tie_word_embeddings": False})
    assert untied.total - tied.total == 3 * 1000 * 64
    assert tied.lm_head == 0 and untied.lm_head == 1000 * 64


def test_fsmt_tied_tables_of_different_sizes_are_refused():
    with pytest.raises(ConfigError, match="src_vocab_size"):
        count_params({"model_type": "fsmt", **SMALL, "src_vocab_size": 900, "tgt_vocab_size": 700,
                      "vocab_size": 700, "tie_word_embeddings": True})


def test_fsmt_vocab_size_is_tgt_vocab_size():
    with pytest.raises(ConfigError, match="tgt_vocab_size"):
        count_params({"model_type": "fsmt", **SMALL, "src_vocab_size": 900, "tgt_vocab_size": 700})


def test_heads_must_divide_d_model():
    with pytest.raises(ConfigError, match="decoder_attention_heads"):
        count_params({"model_type": "bart", **SMALL, "decoder_attention_heads": 5})


WHISPER_SMALL = dict(vocab_size=1000, num_mel_bins=16, encoder_layers=3, decoder_layers=2, encoder_attention_heads=4,
                     decoder_attention_heads=8, encoder_ffn_dim=96, decoder_ffn_dim=80, d_model=64,
                     max_source_positions=50, max_target_positions=40, pad_token_id=1, bos_token_id=0,
                     eos_token_id=2, decoder_start_token_id=0)


@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize("class_name", ["WhisperForConditionalGeneration", "WhisperForCausalLM"])
def test_whisper_counts_the_class_architectures_names(class_name, tied):
    """Hub checkpoints name WhisperForConditionalGeneration (encoder + decoder); without it, the decoder
    alone, as transformers' causal-LM auto mapping builds it (WhisperForCausalLM)."""
    cfg = {"model_type": "whisper", **WHISPER_SMALL, "tie_word_embeddings": tied}
    if class_name == "WhisperForConditionalGeneration":
        cfg["architectures"] = [class_name]
    ours = count_params(cfg)
    assert ours.total == _meta_total(cfg, class_name)
    assert (ours.other > 0) == (class_name == "WhisperForConditionalGeneration")


TEXT_SMALL = dict(vocab_size=500, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  intermediate_size=96, max_position_embeddings=128)
WHISPER_NAMES = dict(num_mel_bins=16, encoder_layers=2, encoder_attention_heads=4, encoder_ffn_dim=48, d_model=32,
                     max_source_positions=30)
HF_NAMES = dict(num_mel_bins=16, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, hidden_size=32,
                max_source_positions=30)
AUDIO_CASES = [
    ("qwen2_audio", "qwen2", "qwen2_audio_encoder", WHISPER_NAMES, {}),
    ("qwen2_audio", "qwen2", "qwen2_audio_encoder", WHISPER_NAMES, {"tie_word_embeddings": True}),
    ("voxtral", "llama", "voxtral_encoder", HF_NAMES, {}),
    ("audioflamingo3", "qwen2", "audioflamingo3_encoder", HF_NAMES, {"projector_bias": False}),
    ("audioflamingo3", "qwen2", "audioflamingo3_encoder", HF_NAMES, {"tie_word_embeddings": True}),
    ("musicflamingo", "qwen2", "audioflamingo3_encoder", HF_NAMES, {}),
    ("qwen3_asr", "qwen3", "qwen3_asr_encoder", dict(WHISPER_NAMES, num_mel_bins=20, downsample_hidden_size=8,
                                                     output_dim=40), {}),
    ("qwen3_asr", "qwen3", "qwen3_asr_encoder", dict(WHISPER_NAMES, downsample_hidden_size=8, output_dim=64),
     {"tie_word_embeddings": False}),
    ("moss_transcribe_diarize", "qwen3", "moss_transcribe_diarize_audio", HF_NAMES,
     {"audio_merge_size": 3, "projector_bias": False}),
    ("glmasr", "llama", "glmasr_encoder", dict(HF_NAMES, num_key_value_heads=2), {}),
    ("glmasr", "llama", "glmasr_encoder", HF_NAMES, {"tie_word_embeddings": False}),
    ("moss_transcribe_diarize", "qwen3", "moss_transcribe_diarize_audio", HF_NAMES, {"tie_word_embeddings": False}),
]


@pytest.mark.parametrize("case", AUDIO_CASES, ids=lambda c: c[0] + "".join(f"-{k}={v}" for k, v in c[4].items()))
def test_audio_wrappers_equal_meta_device_count(case):
    mt, text_type, audio_type, audio, over = case
    cfg = {"model_type": mt, "text_config": {"model_type": text_type, **TEXT_SMALL},
           "audio_config": {"model_type": audio_type, **audio}, **over}
    ours = count_params(cfg)
    assert ours.total == _meta_total(cfg) and ours.quality == "exact"


@pytest.mark.parametrize("mt", ["qwen3_asr", "glmasr", "moss_transcribe_diarize", "voxtral"])
def test_audio_wrapper_registry_text_defaults_are_its_init_kwargs(mt):
    """The text fields a wrapper class builds without a text_config: its SubConfigSpec.init_kwargs."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    from kvcalc.models.registry import REGISTRY
    audio = REGISTRY[mt].audio
    assert audio is not None
    init = CONFIG_MAPPING[mt].sub_configs_defaults["text_config"].init_kwargs
    given = {**audio.text_defaults, **audio.absent_text}
    assert given and given == {k: init[k] for k in given}


def test_voxtral_text_defaults_are_its_config_class_overrides():
    """VoxtralConfig.__post_init__ merges sub_configs_defaults["text_config"].init_kwargs under a given
    text_config; the registry's Audio.text_defaults must be those values."""
    import transformers

    from kvcalc.models.registry import REGISTRY
    audio = REGISTRY["voxtral"].audio
    assert audio is not None
    init = transformers.VoxtralConfig.sub_configs_defaults["text_config"].init_kwargs
    assert dict(audio.text_defaults) == {k: init[k] for k in audio.text_defaults}


TROCR_SMALL = dict(vocab_size=1000, d_model=64, decoder_layers=3, decoder_attention_heads=4, decoder_ffn_dim=96,
                   max_position_embeddings=200, pad_token_id=1, bos_token_id=0, eos_token_id=2)
PROPHETNET_SMALL = dict(vocab_size=1000, hidden_size=64, encoder_ffn_dim=96, num_encoder_layers=3,
                        num_encoder_attention_heads=4, decoder_ffn_dim=80, num_decoder_layers=2,
                        num_decoder_attention_heads=8, max_position_embeddings=200, ngram=3, num_buckets=16,
                        pad_token_id=0, bos_token_id=1, eos_token_id=2)


@pytest.mark.parametrize("over", [{}, {"tie_word_embeddings": False}, {"use_learned_position_embeddings": False},
                                  {"layernorm_embedding": False, "cross_attention_hidden_size": 48}], ids=str)
def test_trocr_equals_meta_device_count(over):
    cfg = {"model_type": "trocr", **TROCR_SMALL, **over}
    assert count_params(cfg).total == _meta_total(cfg)


@pytest.mark.parametrize("over", [{}, {"tie_word_embeddings": False}], ids=str)
def test_prophetnet_equals_meta_device_count(over):
    cfg = {"model_type": "prophetnet", **PROPHETNET_SMALL, **over}
    assert count_params(cfg).total == _meta_total(cfg)


SEAMLESS_SMALL = dict(SMALL, hidden_size=SMALL["d_model"], pad_token_id=0, t2u_pad_token_id=0)
del SEAMLESS_SMALL["d_model"]


@pytest.mark.parametrize("mt", ["seamless_m4t", "seamless_m4t_v2"])
@pytest.mark.parametrize("over", [{}, {"tie_word_embeddings": False}], ids=str)
def test_seamless_text_to_text_equals_meta_device_count(mt, over):
    """SeamlessM4T(v2)ForTextToText (the class transformers' seq2seq auto mapping builds): text encoder + decoder."""
    cfg = {"model_type": mt, **SEAMLESS_SMALL, **over}
    assert count_params(cfg).total == _meta_total(cfg)


GEMMA_MODULE = dict(vocab_size=500, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
                    num_key_value_heads=2, head_dim=16)


@pytest.mark.parametrize("over", [{}, {"tie_word_embeddings": False}], ids=str)
@pytest.mark.parametrize("enc_width", [64, 48])
def test_t5gemma_equals_meta_device_count(over, enc_width):
    """Encoder and decoder of different widths: the decoder's cross-attention k / v read the encoder's."""
    enc = {"model_type": "t5_gemma_module", **GEMMA_MODULE, "hidden_size": enc_width, "num_hidden_layers": 3}
    dec = {"model_type": "t5_gemma_module", **GEMMA_MODULE, "attention_bias": True, "cross_attention_hidden_size": 8}
    cfg = {"model_type": "t5gemma", "encoder": enc, "decoder": dec, "vocab_size": 500, **over}
    assert count_params(cfg).total == _meta_total(cfg)
