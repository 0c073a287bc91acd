"""Exact parameter counts from a config.json: the public names of :mod:`kvcalc.models`, kept here for importers.

The counters live in the family modules of :mod:`kvcalc.models` (its docstring lists them);
:func:`count_params` is :func:`kvcalc.models.counting.count_params`.
"""
from __future__ import annotations

from .models.counting import SUPPORTED_MODEL_TYPES, count_params
from .models.counts import PARTS, ParamCount

__all__ = ["PARTS", "SUPPORTED_MODEL_TYPES", "ParamCount", "count_params"]
