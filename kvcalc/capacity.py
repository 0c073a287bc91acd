"""Capacity planning in one import: the deployment, the plan, its per-layer table and its curve.

The work lives in modules of one job each (data flows down this list):

- kvcalc.parallel     what one GPU holds under tensor / pipeline parallelism
- kvcalc.deployment   ``deploy``: one validated deployment, built once (``Deployment``)
- kvcalc.layer_table  ``layer_bytes``: per-layer KV bytes on each GPU (the plan's KV is their sum)
- kvcalc.explain      the binding constraint and formulas in words
- kvcalc.plan         ``plan``, ``fits``, ``fewest_gpus``: budgets per runtime and the solvers
- kvcalc.curve        ``memory_curve``: memory against context for charts
"""
from __future__ import annotations

from .curve import CurvePoint, memory_curve
from .deployment import Deployment, MeasuredOverrides, VllmOptions, deploy
from .layer_table import LayerRow, LayerTable, layer_bytes
from .parallel import check_parallel, rank_spec, rank_weights, stage_specs
from .plan import PlanResult, fewest_gpus, fits, plan, plan_at

__all__ = ["CurvePoint", "Deployment", "LayerRow", "LayerTable", "MeasuredOverrides", "PlanResult", "VllmOptions",
           "check_parallel", "deploy", "fewest_gpus", "fits", "layer_bytes", "memory_curve", "plan", "plan_at",
           "rank_spec", "rank_weights", "stage_specs"]
