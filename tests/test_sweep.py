"""The vectorized sweep equals kv_cache point by point, for every bundled model."""
from __future__ import annotations

import json

import pytest

import kvcalc
from kvcalc.catalog import catalog
from kvcalc.sweep import compile_cache, kv_grid

np = pytest.importorskip("numpy")
BATCHES = [1, 3, 64]
CONTEXTS = [1, 127, 128, 129, 511, 4096, 4097, 131_072, 1_000_003]


@pytest.mark.parametrize("entry", catalog(), ids=lambda e: e.hub_id)
@pytest.mark.parametrize("kv_dtype", [None, "fp8_e4m3", "int4"])
def test_grid_equals_kv_cache(entry, kv_dtype):
    with open(entry.path, encoding="utf-8") as f:
        spec = kvcalc.read_spec(json.load(f))
    grid = kv_grid(compile_cache(spec, kv_dtype=kv_dtype), BATCHES, CONTEXTS)
    for i, b in enumerate(BATCHES):
        for j, t in enumerate(CONTEXTS):
            assert int(grid[i, j]) == kvcalc.kv_cache(spec, batch=b, context=t, kv_dtype=kv_dtype).total_bytes


def test_transformers_runtime_grid():
    with open(next(e for e in catalog() if e.hub_id == "google/gemma-3-1b-it").path, encoding="utf-8") as f:
        spec = kvcalc.read_spec(json.load(f))
    grid = kv_grid(compile_cache(spec, runtime="transformers"), [2], [100, 5000])
    assert [int(x) for x in grid[0]] == [kvcalc.kv_cache(spec, batch=2, context=t, runtime="transformers").total_bytes
                                         for t in (100, 5000)]
