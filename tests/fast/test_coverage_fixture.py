"""The transformers 5.24 coverage fixture is well formed (tests/oracles/transformers_coverage.py writes it).

Every model type of transformers' three text-generation auto mappings is in the file, either
measured (tiny model's per-layer cache bytes, meta-device parameter count of the default config)
or excluded with a one-line reason; the versions it was measured with are recorded. A few entries
are checked against hand arithmetic. Replaying the measurements through kvcalc comes later.
"""
from __future__ import annotations

import os

import pytest
from paths import fixture_path, load_fixture, load_oracle

FIXTURE = fixture_path("transformers_5_24_coverage.json")
MAPPINGS = ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES",
            "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES")
BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
# model types whose config class is another type's (transformers' CONFIG_MAPPING: gpt-sw3 -> GPT2Config)
CONFIG_ALIASES = {"gpt-sw3": "gpt2"}


DATA: dict = load_fixture("transformers_5_24_coverage.json")
TYPES: dict[str, dict] = DATA["types"]


def _script():
    """The oracle script as a module (it imports torch / transformers only when it measures)."""
    return load_oracle("transformers_coverage")


def test_versions_recorded():
    assert DATA["transformers"] == "5.24.0"
    assert DATA["torch"].startswith("2.13")
    assert set(DATA["inputs"]) >= {"batch", "prefill", "decode", "dtype"}


def test_small_enough():
    assert os.path.getsize(FIXTURE) < 4 * 2**20


def test_every_mapped_type_is_present():
    assert set(DATA["mappings"]) == set(MAPPINGS)
    mapped = set().union(*DATA["mappings"].values())
    assert len(mapped) > 300
    assert set(TYPES) == mapped


def test_mappings_are_transformers_own():
    """The recorded mappings are those of the installed transformers 5.24 (skipped without it)."""
    transformers = pytest.importorskip("transformers")
    if transformers.__version__ != DATA["transformers"]:
        pytest.skip(f"transformers {transformers.__version__} installed, fixture is {DATA['transformers']}")
    from transformers.models.auto import modeling_auto as auto

    for name in MAPPINGS:
        assert DATA["mappings"][name] == sorted(getattr(auto, name)), name


@pytest.mark.parametrize("model_type", sorted(TYPES))
def test_record_well_formed(model_type):
    rec = TYPES[model_type]
    assert rec["status"] in ("measured", "excluded")
    if rec["status"] == "excluded":
        reason = rec["reason"]
        assert isinstance(reason, str) and reason.strip() and "\n" not in reason
        assert not reason.startswith("crashed"), reason   # an interrupted run, never committed
        return
    assert isinstance(rec["class"], str) and rec["class"]
    assert rec["config"]["model_type"] == CONFIG_ALIASES.get(model_type, model_type)
    inputs = rec["inputs"]
    assert inputs["dtype"] in BYTES and inputs["batch"] >= 1 and inputs["prefill"] >= 1 and inputs["decode"] >= 0
    layers = rec["layer_bytes"]
    assert layers and all(isinstance(b, int) and b >= 0 for b in layers)
    assert isinstance(rec["total_bytes"], int) and rec["total_bytes"] > 0
    assert len(rec["layer_classes"]) in (0, len(layers)) or rec["cache_class"] != "DynamicCache"
    if rec["default_params"] is None:
        assert rec["default_params_error"]
    else:
        assert isinstance(rec["default_params"], int) and rec["default_params"] > 0
    assert rec["seconds"] >= 0


def test_out_of_scope_list_matches_script():
    """Types excluded up front carry the script's reason; the script names only mapped types."""
    out_of_scope = _script().OUT_OF_SCOPE
    assert set(out_of_scope) <= set(TYPES)
    for model_type, reason in out_of_scope.items():
        assert TYPES[model_type] == {"status": "excluded", "reason": reason}


def _hand_bytes(rec: dict, kv_heads: int, head_dim: int) -> int:
    """Full attention, hand arithmetic: K and V x batch x KV heads x tokens x head_dim x dtype bytes."""
    i = rec["inputs"]
    return 2 * i["batch"] * kv_heads * (i["prefill"] + i["decode"]) * head_dim * BYTES[i["dtype"]]


@pytest.mark.parametrize("model_type", ["llama", "mistral", "qwen2", "gemma"])
def test_full_attention_layers_match_hand_arithmetic(model_type):
    """Llama-family layers without a window: every layer holds all T tokens of K and V."""
    rec = TYPES[model_type]
    if rec["status"] != "measured":
        pytest.skip(rec["reason"])
    cfg = rec["config"]
    if model_type == "mistral" and cfg.get("sliding_window"):
        pytest.skip("mistral measured with its sliding window")
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    want = _hand_bytes(rec, cfg["num_key_value_heads"], head_dim)
    assert rec["layer_bytes"] == [want] * cfg["num_hidden_layers"]
    assert rec["total_bytes"] == want * cfg["num_hidden_layers"]


def test_llama_default_params_match_published_llama2_7b():
    """LlamaConfig() is Llama-2-7B's shape. The Hub's safetensors total for meta-llama/Llama-2-7b-hf is
    6,738,417,664 (../shared/reference/params.csv), which stores 32 layers x 64 rotary inv_freq
    buffer values that are not parameters: 6,738,417,664 - 2,048 = 6,738,415,616."""
    assert TYPES["llama"]["default_params"] == 6_738_417_664 - 32 * 64
