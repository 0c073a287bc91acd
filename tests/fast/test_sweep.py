"""The vectorized sweep equals kv_cache point by point, for every bundled model."""
from __future__ import annotations

import pytest
from paths import load_config, load_json

import kvcalc
from kvcalc.catalog import catalog
from kvcalc.errors import InputError, UnsupportedError
from kvcalc.sweep import CompiledCache, compile_cache, kv_grid

np = pytest.importorskip("numpy")
BATCHES = [1, 3, 64]
CONTEXTS = [1, 127, 128, 129, 511, 4096, 4097, 131_072, 1_000_003]


@pytest.mark.parametrize("entry", catalog(), ids=lambda e: e.hub_id)
@pytest.mark.parametrize("kv_dtype", [None, "fp8_e4m3", "int4"])
def test_grid_equals_kv_cache(entry, kv_dtype):
    spec = kvcalc.read_spec(load_json(entry.path))
    grid = kv_grid(compile_cache(spec, kv_dtype=kv_dtype), BATCHES, CONTEXTS)
    for i, b in enumerate(BATCHES):
        for j, t in enumerate(CONTEXTS):
            assert int(grid[i, j]) == kvcalc.kv_cache(spec, batch=b, context=t, kv_dtype=kv_dtype).total_bytes


def test_transformers_runtime_grid():
    spec = kvcalc.read_spec(load_config("google/gemma-3-1b-it"))
    grid = kv_grid(compile_cache(spec, runtime="transformers"), [2], [100, 5000])
    assert [int(x) for x in grid[0]] == [kvcalc.kv_cache(spec, batch=2, context=t, runtime="transformers").total_bytes
                                         for t in (100, 5000)]


def _flat(per_token: int, fixed: int = 0, cap: int = 0) -> CompiledCache:
    """One full-attention (cap 0) or windowed term: total = batch x per_token x min(T, cap) + fixed."""
    return CompiledCache(((cap, per_token),), per_sequence=0, fixed=fixed, encoder_per_token=0)


@pytest.mark.parametrize("per_token, batch, context, expected", [
    (2**63 - 1, 1, 1, 2**63 - 1),                     # the largest int64: stays int64
    (2**62, 2, 1, 2**63),                             # was -2**63 (wrapped)
    (1, 2**32, 2**32 + 3, 2**64 + 3 * 2**32),         # was wrapped to 3 x 2**32
    (2**32, 2**32, 1, 2**64),                         # was 0
    (2**63, 1, 1, 2**63),                             # was an untyped OverflowError
])
def test_grid_never_wraps_around_int64(per_token, batch, context, expected):
    grid = kv_grid(_flat(per_token), [batch], [context])
    assert int(grid[0, 0]) == expected                # hand arithmetic: batch x per_token x context
    assert (grid.dtype == np.int64) == (expected <= 2**63 - 1)


def test_grid_mixed_cells_and_fixed_bytes_are_exact():
    # window of 4 tokens, 2**61 bytes per token, 5 fixed bytes: only the largest cells pass 2**63
    grid = kv_grid(_flat(2**61, fixed=5, cap=4), [1, 3], [1, 4, 10**30])
    assert [[int(x) for x in row] for row in grid] == [
        [2**61 + 5, 4 * 2**61 + 5, 4 * 2**61 + 5],
        [3 * 2**61 + 5, 12 * 2**61 + 5, 12 * 2**61 + 5]]


def test_grid_inputs_are_checked():
    cache = _flat(2)
    assert kv_grid(cache, [0], [10**30]).tolist() == [[0]]        # batch 0: nothing, no overflow on the way
    for batches, contexts in (([-1], [1]), ([1], [-5]), ([1.5], [1]), ([True], [1]), ([1], ["8"])):
        with pytest.raises(InputError):
            kv_grid(cache, batches, contexts)
    with pytest.raises(UnsupportedError):
        compile_cache(kvcalc.read_spec(_llama()), runtime="vllm")


def _llama() -> dict:
    return load_config("meta-llama/Llama-3.2-1B")
