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
from tiny_models import TINY  # noqa: E402

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


def _model(model_type: str, dtype: str):
    key = (model_type, dtype)
    if key not in _models:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = transformers.AutoConfig.for_model(model_type, **TINY[model_type])
            torch.manual_seed(0)
            model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=getattr(torch, dtype)).eval()
        _models[key] = model
    return _models[key]


def config_json(model) -> dict:
    """The config.json save_pretrained would write for this model."""
    return json.loads(model.config.to_json_string())


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s[0]}-b{s[1]}-p{s[2]}-d{s[3]}")
@pytest.mark.parametrize("model_type", sorted(TINY))
def test_transformers_cache_bytes_exact(model_type, scenario):
    dtype, batch, prefill, decode = scenario
    model = _model(model_type, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache = feed(model, batch=batch, prefill=prefill, decode=decode)
    measured = layer_storage_bytes(cache)
    result = kvcalc.kv_cache(config_json(model), batch=batch, context=prefill + decode, dtype=dtype,
                             runtime="transformers", prefill=prefill)
    assert [l.bytes for l in result.layers] == measured
    assert result.total_bytes == sum(measured)
