"""The GPU catalog carries every reference GPU with its driver-reported memory and a source."""
from __future__ import annotations

import csv
import os

import pytest
from paths import REFERENCE

from kvcalc import InputError
from kvcalc.gpus import custom_gpu, get_gpu, gpu_catalog, gpus_in_class


def test_every_reference_gpu_is_in_the_catalog_with_its_memory():
    path = os.path.join(REFERENCE, "gpus.csv")
    if not os.path.exists(path):
        pytest.skip("shared reference not available")
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    by_name = {g.name: g for g in gpu_catalog()}
    for row in rows:
        gpu = by_name[row["name"]]
        if row["nvidia_smi_total_mib"]:
            assert gpu.memory_mib == int(row["nvidia_smi_total_mib"])
        else:
            assert gpu.note  # an assumed figure must say so
        assert gpu.source == row["source"]


def test_known_totals_and_classes():
    assert get_gpu("h100-sxm").memory_mib == 81559
    assert get_gpu("RTX 3090").memory_bytes == 24576 * 2**20
    assert {g.key for g in gpus_in_class(24)} >= {"rtx-3090", "rtx-4090", "l4", "a10g"}
    assert {g.key for g in gpus_in_class(16)} >= {"t4", "rtx-4080"}
    assert {g.key for g in gpus_in_class(80)} >= {"a100-80gb", "h100-sxm"}
    assert all(g.source for g in gpu_catalog())


def test_lookup_errors_and_custom_memory():
    with pytest.raises(InputError, match="ambiguous"):
        get_gpu("H100")
    with pytest.raises(InputError, match="unknown GPU"):
        get_gpu("Voodoo 5")
    assert custom_gpu(23.58).memory_mib == 24146
    for bad in (0, -1, float("nan"), 1e9, True, "24"):
        with pytest.raises(InputError):
            custom_gpu(bad)
