"""Every text-generation type of transformers 5.24, replayed through kvcalc: exact, or listed with its reason.

tests/fixtures/transformers_5_24_coverage.json (tests/oracles/transformers_coverage.py) holds, for every
type of transformers' three text-generation auto mappings, the bytes of every tensor the real cache of a
tiny random-init model holds after a prefill and decode steps, and the meta-device parameter count of the
class-default model. Here kvcalc must give the same numbers:

* runtime ``transformers``: every layer's bytes and the total, exactly;
* runtime ``ideal``: on the layers whose measured bytes are the ideal ones (full attention, and sliding
  windows plus their 8-byte int64 window tensor, ``DynamicSlidingWindowLayer._sliding_window_tensor``);
* a type that matches reports ``quality == "exact"``;
* parameters: ``count_params`` of the default config equals transformers' count, or kvcalc refuses with
  UnsupportedError (never a guessed number) and ``plan`` still answers with the user's ``weights_gib``.

Types kvcalc does not match are listed in :data:`KV_MISSES` with the reason (xfail, strict: a fix makes
the test fail until the entry is removed); none is skipped silently. docs/architectures.md is generated
from the same replay (tests/oracles/coverage_table.py) and must be current.
"""
from __future__ import annotations

import importlib.util
import os

import pytest
from paths import ROOT

import kvcalc

SCRIPT = os.path.join(ROOT, "tests", "oracles", "coverage_table.py")


def _table_module():
    spec = importlib.util.spec_from_file_location("coverage_table", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLE = _table_module()
DATA = TABLE.load()
MEASURED = {mt: rec for mt, rec in DATA["types"].items() if rec["status"] == "measured"}
COUNTED = {mt: rec for mt, rec in MEASURED.items() if rec.get("default_params") is not None}

# Measured types whose cache kvcalc does not reproduce, with the reason.
KV_MISSES: dict[str, str] = {
    "bailing_hybrid": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "deepseek_v4": "refused: compressed-KV layers (heavily_compressed_attention) are not modelled",
    "diffusion_gemma": "kvcalc's generic reading differs from the measured cache (estimated; cause not yet diagnosed)",
    "dory": "kvcalc's generic reading differs from the measured cache (estimated; cause not yet diagnosed)",
    "dots3_note_text": "kvcalc's generic reading differs from the measured cache (estimated; cause not yet diagnosed)",
    "encoder-decoder": (
        "refused: EncoderDecoderModel's decoder is any model in the nested 'decoder' config (here BERT with"
        " cross-attention), which kvcalc's encoder-decoder KV reader does not read"
    ),
    "glm5_next": "refused: its text_config has head_dim 0 (a derived value kvcalc does not derive)",
    "inkling2": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "inkling2_loop": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "inkling2_loop_text": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "inkling2_text": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "inkling_text": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "kimi_linear": (
        "refused: the default config has no linear_attn_config, and kvcalc does not guess the delta-attention"
        " state without it"
    ),
    "kosmos-2.5": (
        "refused: its text_config names the decoder's geometry layers / attention_heads / embed_dim (Kosmos-2.5's"
        " own field names), which kvcalc's decoder reader does not alias"
    ),
    "lara_mini": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "lfm3": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "lfm3_vl": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "mistral_large4": "kvcalc's generic reading differs from the measured cache (estimated; cause not yet diagnosed)",
    "mllama": (
        "measured without an image: the cross-attention layers hold nothing, while kvcalc charges one image "
        "(its default encoder tokens)"
    ),
    "olmo_hybrid": "refused: recurrent layers of a mixer kvcalc has no state rule for",
    "t5gemma": (
        "refused: its decoder geometry (GQA heads, head_dim, sliding / full layer_types) sits in the nested"
        " 'decoder' config, which kvcalc's encoder-decoder KV reader does not read (parameters are exact)"
    ),
    "t5gemma2": (
        "refused: its decoder geometry (GQA heads, head_dim, sliding / full layer_types) sits in the nested"
        " 'decoder' config, which kvcalc's encoder-decoder KV reader does not read"
    ),
    "trocr": (
        "the fixture's probe runs TrOCRForCausalLM without encoder states, so its cache holds self-attention only;"
        " kvcalc plans TrOCR as the decoder of a VisionEncoderDecoderModel (self- plus cross-attention over the"
        " image encoder's tokens); the self-attention bytes match"
    ),
    "unlimited_ocr": "kvcalc's generic reading differs from the measured cache (estimated; cause not yet diagnosed)",
    "whisper": (
        "the fixture's probe holds no cross-attention cache for Whisper (its encoder runs on 1,500 mel "
        "frames); tests/test_groundtruth_transformers.py measures the filled cross cache and kvcalc matches "
        "it there"
    ),
    "zaya": "refused: recurrent layers of a mixer kvcalc has no state rule for",}


# The ideal-runtime check fails only where the transformers one does and the layers are comparable
# (a refused config, or a differing full / sliding layer); elsewhere in KV_MISSES it holds.
IDEAL_MISSES = ("bailing_hybrid", "diffusion_gemma", "dory", "dots3_note_text", "encoder-decoder",
                "kimi_linear", "kosmos-2.5", "lara_mini", "lfm3", "lfm3_vl", "olmo_hybrid", "t5gemma", "t5gemma2",
                "trocr", "whisper")


def _param(mt: str, misses: "dict[str, str] | tuple[str, ...]"):
    marks = [pytest.mark.xfail(strict=True, reason=KV_MISSES[mt])] if mt in misses else []
    return pytest.param(mt, marks=marks, id=mt)


KV_TYPES = [_param(mt, KV_MISSES) for mt in sorted(MEASURED)]
IDEAL_TYPES = [_param(mt, IDEAL_MISSES) for mt in sorted(MEASURED)]


def test_miss_list_names_measured_types_only():
    assert set(KV_MISSES) <= set(MEASURED) and set(IDEAL_MISSES) <= set(KV_MISSES)
    assert len(MEASURED) > 200


@pytest.mark.parametrize("model_type", KV_TYPES)
def test_transformers_runtime_equals_measured_cache(model_type):
    rec = MEASURED[model_type]
    status, result = TABLE.kv_outcome(rec)
    assert status == "exact", result if status == "refused" else (
        f"kvcalc {[l.bytes for l in result.layers][:8]} vs measured {rec['layer_bytes'][:8]}")
    assert result.quality == "exact"


@pytest.mark.parametrize("model_type", IDEAL_TYPES)
def test_ideal_runtime_equals_measured_full_and_sliding_layers(model_type):
    checked, equal = TABLE.ideal_checks(MEASURED[model_type])
    assert equal == checked
    assert checked or not any(c in ("DynamicLayer", "DynamicSlidingWindowLayer")
                              for c in MEASURED[model_type]["layer_classes"])


@pytest.mark.parametrize("model_type", sorted(COUNTED))
def test_parameters_equal_meta_device_count_or_are_refused(model_type):
    """Exact, or refused with a typed error (UnsupportedError: not counted; ConfigError: DeepSeek-V2's
    default has no num_experts_per_tok): kvcalc never prints a guessed count."""
    rec = COUNTED[model_type]
    cfg = {**rec.get("default_config", {}), "model_type": model_type}
    try:
        ours = kvcalc.count_params(cfg)
    except (kvcalc.UnsupportedError, kvcalc.ConfigError):
        return
    assert ours.total == rec["default_params"]
    assert ours.quality == "exact"


@pytest.mark.parametrize("model_type", [mt for mt in sorted(MEASURED) if mt not in KV_MISSES])
def test_plan_answers_offline(model_type):
    """Weights never block a plan: a type kvcalc cannot count plans with the given weights_gib."""
    rec = MEASURED[model_type]
    p = kvcalc.plan(rec["config"], gpu="h100-sxm", runtime="ideal", batch=1, context=16, weights_gib=1.0,
                    solve_gpus=False)
    assert p.weights_bytes == 2**30 and p.kv_quality == "exact" and p.weights_quality == "given"


def test_coverage_table_is_current():
    with open(TABLE.DOC, encoding="utf-8") as f:
        assert f.read() == TABLE.render(DATA), "run python tests/oracles/coverage_table.py"
