"""Capacity planning in one import: the deployment, the plan, its per-layer table and its curve.

The work lives in modules of one job each (data flows down this list):

- kvcalc.parallel     what one GPU holds under tensor / pipeline parallelism
- kvcalc.deployment   ``deploy``: one validated deployment, built once (``Deployment``)
- kvcalc.layer_table  ``layer_bytes``: per-layer KV bytes on each GPU (the plan's KV is their sum)
- kvcalc.explain      the binding constraint and formulas in words
- kvcalc.plan         ``plan``, ``fits``, ``fewest_gpus``: budgets per runtime and the solvers
- kvcalc.curve        ``memory_curve``: memory against context for charts
- kvcalc.engines      ``get_engine(runtime)``: each runtime's engine object, its options type and declarations

One options object per deployment, the runtime's own: ``deploy(config, runtime="sglang",
options=SglangOptions(page_size=16))``, or its flat flags (``deploy(config, runtime="sglang", page_size=16)``).
"""
from __future__ import annotations

from .curve import CurvePoint, memory_curve
from .deployment import Deployment, MeasuredOverrides, VllmOptions, deploy
from .engines.registry import ENGINES, get_engine
from .hf_transformers.engine import TransformersOptions
from .ideal.engine import IdealOptions
from .layer_table import LayerRow, LayerTable, layer_bytes
from .llama_cpp.options import LlamaCppOptions
from .parallel import check_parallel, rank_spec, rank_weights, stage_specs
from .plan import PlanResult, fewest_gpus, fits, plan, plan_at
from .sglang.options import SglangOptions
from .trtllm.options import TrtllmOptions

__all__ = ["ENGINES", "CurvePoint", "Deployment", "IdealOptions", "LayerRow", "LayerTable", "LlamaCppOptions",
           "MeasuredOverrides", "PlanResult", "SglangOptions", "TransformersOptions", "TrtllmOptions", "VllmOptions",
           "check_parallel", "deploy", "fewest_gpus", "fits", "get_engine", "layer_bytes", "memory_curve", "plan",
           "plan_at", "rank_spec", "rank_weights", "stage_specs"]
