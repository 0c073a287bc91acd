"""Inputs the library takes from a caller are typed errors when they are not finite numbers in range
(issue 26): a custom GPU's bandwidth or tensor rate of 5e-324 (a speed step would take 1e300 s), a memory
fraction given as text (was a TypeError), and table cells from outside text with bidi controls."""
from __future__ import annotations

import math

import pytest

from dashboard.text import plain
from kvcalc.engine import check_fraction
from kvcalc.errors import InputError
from kvcalc.gpus import custom_gpu


@pytest.mark.parametrize("value", [5e-324, 0.0, -1.0, math.inf, math.nan, 2e6, True, "100"])
def test_custom_gpu_rates_must_be_finite_and_in_range(value):
    with pytest.raises(InputError):
        custom_gpu(24, bandwidth_gbps=value)
    with pytest.raises(InputError):
        custom_gpu(24, bf16_tflops=value)


def test_custom_gpu_accepts_a_real_card():
    g = custom_gpu(24, bandwidth_gbps=1008, bf16_tflops=165.2)      # RTX 4090's datasheet figures
    assert (g.bandwidth_gbps, g.bf16_tflops) == (1008.0, 165.2)


@pytest.mark.parametrize("value", ["0.9", None, [0.5], math.nan, 0, 1.5])
def test_a_fraction_that_is_not_a_number_in_range_is_an_input_error(value):
    with pytest.raises(InputError):
        check_fraction("mem_fraction_static", value)


def test_table_cells_carry_no_bidi_controls():
    assert plain("evil\u202efdp.exe\u2066x\u2069") == "evil fdp.exe x "
