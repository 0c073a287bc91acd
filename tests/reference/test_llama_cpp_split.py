"""llama.cpp's multi-GPU layer split (kvcalc.llama_cpp.split) against its own rule, worked by hand.

src/llama-model.cpp llama_model::load_tensors (commit 0c1e57098): split points are the running sums of -ts over
their total; slot il (the output layer is slot n_layer) from i_gpu_start = n_layer + 1 - ngl goes to the first
device whose point exceeds (il - i_gpu_start) / min(ngl, n_layer + 1).
"""
from __future__ import annotations

import pytest
from paths import load_config

from kvcalc.errors import InputError
from kvcalc.llama_cpp.fit import fit_llama_cpp_gpus
from kvcalc.llama_cpp.split import layer_devices

GiB = 2**30


def test_three_to_one_split_of_32_blocks() -> None:
    # points 0.75, 1.0: il / 33 < 0.75 for il <= 24 (24/33 = 0.727, 25/33 = 0.758)
    d = layer_devices(32, -1, (3, 1))
    assert d[:25] == (0,) * 25 and d[25:] == (1,) * 8


def test_partial_offload_splits_only_the_offloaded_slots() -> None:
    # -ngl 10: i_gpu_start = 33 - 10 = 23; (il - 23) / 10 < 0.5 for il <= 27
    d = layer_devices(32, 10, (1, 1))
    assert d[:23] == (None,) * 23 and d[23:28] == (0,) * 5 and d[28:] == (1,) * 5


def test_split_refuses_no_shares() -> None:
    with pytest.raises(InputError):
        layer_devices(32, -1, (0, 0))


def test_two_gpu_fit_fills_both_and_is_the_largest() -> None:
    config = load_config("meta-llama/Llama-3.1-8B")
    a = fit_llama_cpp_gpus(config, "F16", [10 * GiB, 10 * GiB], n_parallel=1)
    assert a.tensor_split == (10240, 10240) and "-ts 10240,10240" in a.command
    assert all(s.total <= 9 * GiB for s in a.shares)
    # one more 256-cell step overflows a GPU: 256 cells x 2 x 1024 x 2 bytes per block on the fuller GPU
    fuller = max(a.shares, key=lambda s: s.total)
    blocks = 17 if fuller is a.shares[0] else 15
    assert fuller.total + blocks * 256 * 2 * 1024 * 2 > 9 * GiB or a.n_ctx_seq == 131072
