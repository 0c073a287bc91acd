"""The bundled catalog: byte-identical configs with sources, an index, and offline planning."""
from __future__ import annotations

import filecmp
import os

import pytest
from paths import REFERENCE

import kvcalc
from kvcalc.catalog import CONFIG_DIR, bundled_config, catalog, find_entry


def test_bundled_configs_are_byte_identical_to_the_reference():
    ref = os.path.join(REFERENCE, "configs")
    if not os.path.isdir(ref):
        pytest.skip("shared reference not available")
    names = sorted(os.listdir(ref))
    assert "SOURCES.md" in names
    for name in names:
        if name == "SOURCES.md":   # the bundled SOURCES.md may list more files than the reference's copy
            with open(os.path.join(ref, name), encoding="utf-8") as f, \
                    open(os.path.join(CONFIG_DIR, name), encoding="utf-8") as g:
                ours = set(g.read().splitlines())
                assert [line for line in f.read().splitlines() if line not in ours] == []
            continue
        assert filecmp.cmp(os.path.join(ref, name), os.path.join(CONFIG_DIR, name), shallow=False), name


def test_index_covers_every_bundled_config():
    files = {f for f in os.listdir(CONFIG_DIR) if f.endswith(".json")}
    assert {e.file for e in catalog()} == files
    assert all(e.params and e.params_source for e in catalog())


def test_index_facts():
    llama = find_entry("meta-llama/Llama-3.1-8B")
    assert llama.gated and llama.family == "llama" and llama.params == 8_030_261_248   # params.csv
    assert find_entry("qwen/qwen3-8b").gated is False
    assert find_entry("nope/nothing") is None


@pytest.mark.parametrize("entry", catalog(), ids=lambda e: e.hub_id)
def test_every_bundled_model_plans_offline(entry):
    cfg = bundled_config(entry.hub_id)
    p = kvcalc.plan(cfg, gpu="h100-sxm", runtime="ideal", batch=1, context=4096, solve_gpus=False)
    assert p.weights_bytes_total > 0 and p.kv_bytes > 0


# transformers 5.24's meta-device parameter count of each config (Qwen3VLForConditionalGeneration,
# Qwen3_5ForConditionalGeneration, Qwen3_5MoeForConditionalGeneration, Gemma4ForConditionalGeneration: built with
# torch.device("meta") from the bundled file; tests/reference/test_params.py::test_reference_config_matches_transformers
# re-derives them live, part by part).
TRANSFORMERS_COUNTS = {
    "Qwen/Qwen3-VL-32B-Instruct": 33_357_390_064,
    "Qwen/Qwen3.5-27B": 27_356_728_560,
    "Qwen/Qwen3.5-35B-A3B": 35_107_181_936,
    "Qwen/Qwen3.5-397B-A17B": 396_802_360_816,
    "google/gemma-4-26B-A4B": 25_805_933_872,
}


@pytest.mark.parametrize("hub_id", sorted(TRANSFORMERS_COUNTS))
def test_hub_layout_wrappers_count_as_transformers_builds_them(hub_id):
    """Hub checkpoints of these wrappers name the wrapper's own type as vision_config.model_type (Qwen) or set
    buffer-only flags (Gemma 4 standardize): transformers rewrites / ignores them, and so must the count."""
    count = kvcalc.count_params(bundled_config(hub_id))
    assert count.total == TRANSFORMERS_COUNTS[hub_id]
    assert find_entry(hub_id).params == TRANSFORMERS_COUNTS[hub_id]


def test_legacy_vision_type_is_reported_as_a_default_used():
    count = kvcalc.count_params(bundled_config("Qwen/Qwen3-VL-32B-Instruct"))
    assert any("vision_config.model_type=qwen3_vl_vision" in d for d in count.defaults_used)
