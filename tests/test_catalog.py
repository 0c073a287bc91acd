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
