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

import os

import pytest
from paths import ROOT, load_oracle

import kvcalc

TABLE = load_oracle("coverage_table")
DATA = TABLE.load()
MEASURED = {mt: rec for mt, rec in DATA["types"].items() if rec["status"] == "measured"}
COUNTED = {mt: rec for mt, rec in MEASURED.items() if rec.get("default_params") is not None}

# Measured types whose cache kvcalc does not reproduce, with the reason.
KV_MISSES: dict[str, str] = {
    "deepseek_v4": (
        "refused (UnsupportedError naming 'compress_rates'): DeepSeek-V4's HCA / CSA layers "
        "(DeepseekV4HCACache, DeepseekV4CSACache) hold a sliding window plus one compressed KV entry per "
        "compress_rates[type] source tokens (4 CSA, 128 HCA), a buffer of the tokens not yet compressed and "
        "CSA indexer entries; the cache grows in steps kvcalc does not model (its parameters are exact)"
    ),
    "diffusion_gemma": (
        "estimated, not exact: the fixture's cache holds the 7 prompt tokens DiffusionGemmaEncoderTextModel writes "
        "(sliding layers too: a single prefill view); the 9 + 2 canvas tokens are read by "
        "DiffusionGemmaDecoderTextAttention without writing. kvcalc's token model has no prefix / canvas split, so "
        "it charges the context as an autoregressive decoder's (quirk prefix_cache, marked estimated)"
    ),
    "dory": (
        "the fixture's decode steps pass past_key_values, which DoryForCausalLM (its argument is cache=) drops: "
        "each step starts a fresh DynamicCache, so every layer holds the last token only (cached_tokens 1). The "
        "cache rule is modelled (kvcalc.models.layer_rules.dory_cache_types: 36 decoder layers from the 72 "
        "attention/mlp blocks, plus the 20 recurrent ones copied for the second loop = 56) and the fixture's "
        "layers equal kvcalc's for 1 token; tests/fast/test_kv_dory_mistral4.py checks 11-token caches measured "
        "with cache="
    ),
}


# The ideal-runtime check fails only where the transformers one does and the layers are comparable
# (a refused config, or a differing full / sliding layer); elsewhere in KV_MISSES it holds.
IDEAL_MISSES = ("diffusion_gemma", "dory")


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
    with open(TABLE.SUMMARY, encoding="utf-8") as f:
        assert f.read() == TABLE.summary(DATA), "run python tests/oracles/coverage_table.py"


def test_readme_states_the_current_count():
    c = TABLE.counts(TABLE.rows(DATA))
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = " ".join(f.read().split())
    assert (f"**{c['both_exact']} of {c['in_scope']} text-generation architectures in transformers 5.24 verified "
            "exactly**") in readme
    assert f"exact for {c['kv_exact']} of the {c['measured']} types" in readme
    assert f"the parameter count for {c['params_exact']} of {c['params_measured']}" in readme
