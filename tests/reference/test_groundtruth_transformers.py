"""kvcalc's ``transformers`` runtime == the bytes of every tensor a real transformers cache holds.

Tiny random-init models are built on CPU from config classes (no download), fed tokens with
``use_cache=True`` (one prefill, then one-token decode steps), and the storage of every tensor
reachable from the returned cache is summed. kvcalc gets the model's config as the dict
``save_pretrained`` writes, and must give exactly the same bytes, per layer and in total.
"""
from __future__ import annotations

import json
import warnings

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from cache_probe import feed, layer_storage_bytes  # noqa: E402
from tiny_models import TINY, TINY_SEQ2SEQ, TINY_VARIANTS, tiny  # noqa: E402

import kvcalc  # noqa: E402

# (dtype, batch, prefill, decode): windows in TINY are 6 tokens, so these cover T below, at and
# above the window, right after a prefill and after decode steps, float32 and bfloat16, batch > 1.
SCENARIOS = [
    ("float32", 1, 3, 0),
    ("float32", 2, 6, 0),
    ("float32", 3, 9, 2),
    ("bfloat16", 2, 9, 0),
    ("bfloat16", 1, 4, 3),
    ("bfloat16", 2, 6, 1),
]

_models: dict[tuple[str, str], object] = {}


def _model(name: str, dtype: str):
    key = (name, dtype)
    if key not in _models:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model_type, fields = tiny(name)
            seq2seq = model_type in TINY_SEQ2SEQ
            cfg = transformers.AutoConfig.for_model(model_type, **fields)
            auto = transformers.AutoModelForSeq2SeqLM if seq2seq else transformers.AutoModelForCausalLM
            torch.manual_seed(0)
            if model_type == "whisper":
                model = transformers.WhisperForConditionalGeneration(cfg)
            elif model_type == "mllama_text_model":
                model = transformers.MllamaForCausalLM(cfg)
            else:
                model = auto.from_config(cfg)
            model = model.to(getattr(torch, dtype)).eval()
        _models[key] = model
    return _models[key]


def config_json(model) -> dict:
    """The config.json save_pretrained would write for this model."""
    return json.loads(model.config.to_json_string())


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s[0]}-b{s[1]}-p{s[2]}-d{s[3]}")
@pytest.mark.parametrize("model_type", sorted(TINY) + sorted(TINY_SEQ2SEQ) + sorted(TINY_VARIANTS))
def test_transformers_cache_bytes_exact(model_type, scenario):
    dtype, batch, prefill, decode = scenario
    model = _model(model_type, dtype)
    # encoder / vision tokens for cross-attention; Whisper's encoder length is fixed by its config
    encoder_tokens = 10 if model_type == "whisper" else 7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache = feed(model, batch=batch, prefill=prefill, decode=decode, encoder_tokens=encoder_tokens)
    measured = layer_storage_bytes(cache)
    result = kvcalc.kv_cache(config_json(model), batch=batch, context=prefill + decode, dtype=dtype,
                             runtime="transformers", prefill=prefill,
                             encoder_tokens=None if model_type == "whisper" else encoder_tokens)
    assert [l.bytes for l in result.layers] == measured
    assert result.total_bytes == sum(measured)


# StaticCache and beam search: a few types that cover full, sliding, chunked, MLA (+ DSA indexer),
# expanded-K/V, recurrent and KV-shared layers.
STATIC_TYPES = ["llama", "mistral", "gemma2", "gpt_oss", "llama4_text", "deepseek_v3", "deepseek_v32", "falcon",
                "qwen3_next", "qwen3_5_text", "falcon_h1", "gemma3n_text", "longcat_flash"]


@pytest.mark.parametrize("scenario", [(1, 3, 0, 4), (2, 9, 2, 16), (2, 4, 3, 7)],
                         ids=lambda s: f"b{s[0]}-p{s[1]}-d{s[2]}-max{s[3]}")
@pytest.mark.parametrize("model_type", STATIC_TYPES)
def test_static_cache_bytes_exact(model_type, scenario):
    """``cache_implementation="static"``: StaticCache preallocates max_cache_len tokens per attention
    layer (sliding / chunked: min(window, max_cache_len)), whatever has been fed so far."""
    batch, prefill, decode, max_len = scenario
    model = _model(model_type, "bfloat16")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static = transformers.StaticCache(config=model.config, max_cache_len=max_len)
        cache = feed(model, batch=batch, prefill=prefill, decode=decode, cache=static)
    measured = layer_storage_bytes(cache)
    result = kvcalc.kv_cache(config_json(model), batch=batch, context=prefill + decode, dtype="bfloat16",
                             runtime="transformers", prefill=prefill, cache_implementation="static",
                             max_cache_len=max_len)
    assert [l.bytes for l in result.layers] == measured
    assert result.total_bytes == sum(measured)


@pytest.mark.parametrize("scenario", [(2, 3, 0), (2, 9, 0), (4, 9, 2), (2, 5, 1)],
                         ids=lambda s: f"b{s[0]}-p{s[1]}-d{s[2]}")
@pytest.mark.parametrize("model_type", STATIC_TYPES)
def test_beam_reorder_bytes_exact(model_type, scenario):
    """``beam_search=True``: after ``Cache.reorder_cache`` a sliding layer holds a fresh tensor of the
    last min(T, W - 1) tokens instead of a view over the whole last update."""
    batch, prefill, decode = scenario
    model = _model(model_type, "bfloat16")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache = feed(model, batch=batch, prefill=prefill, decode=decode)
        cache.reorder_cache(torch.arange(batch - 1, -1, -1))
    measured = layer_storage_bytes(cache)
    result = kvcalc.kv_cache(config_json(model), batch=batch, context=prefill + decode, dtype="bfloat16",
                             runtime="transformers", prefill=prefill, beam_search=True)
    assert [l.bytes for l in result.layers] == measured
    assert result.total_bytes == sum(measured)
