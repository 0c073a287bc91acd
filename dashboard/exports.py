"""The Planner's downloads, each saying what it describes: model, GPU and count, every input, the
kvcalc version. Pure functions of kvcalc results and plain values (no Streamlit), so a test can
build them without a page.

Units are kvcalc's: bytes and tokens, as integers. The figure title (:func:`chart_title`) is also
what plotly writes into its PNG download, so the picture names the model, GPU and count too.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

from kvcalc.capacity import CurvePoint

SCHEMA = "kv-cache-planner/plan-export/1"
_PYPROJECT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")


def kvcalc_version() -> str:
    """The installed distribution's version, else the checkout's ``pyproject.toml`` (``version = ...``,
    the one place it is written), else ``"unknown"``."""
    try:
        return metadata.version("kvcalc")
    except metadata.PackageNotFoundError:
        pass
    try:
        with open(_PYPROJECT, encoding="utf-8") as f:
            m = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.MULTILINE)
        return m.group(1) if m else "unknown"
    except OSError:
        return "unknown"


def describe(model: str, gpu: str, gpus: int) -> str:
    """"<model> on <gpus> x <gpu>": the words every export's title starts with."""
    return f"{model} on {gpus:,} x {gpu}"


def chart_title(model: str, gpu: str, gpus: int, batch: int) -> str:
    """The memory chart's title (and its PNG's): model, GPU, count and batch."""
    return f"{describe(model, gpu, gpus)}: memory per GPU vs context, batch {batch:,}"


def file_stem(model: str, gpu: str, gpus: int) -> str:
    """A safe file name stem naming the model and GPU: ``kv_planner_<model>_<gpus>x<gpu>``."""
    raw = f"kv_planner_{model.split('/')[-1]}_{gpus}x{gpu}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", raw)[:120]


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def plan_json(*, model: str, model_source: str, plan: Mapping[str, Any], speed: Mapping[str, Any],
              batch: int, context: int, options: Mapping[str, Any], link_inputs: Mapping[str, Any],
              widgets: Mapping[str, Any] | None = None, share_link: str = "") -> str:
    """The plan as JSON: what it describes (model id and source, GPU, count), every input (batch,
    context; the kvcalc plan options: dtypes, runtime and its options, as passed to
    ``kvcalc.deploy``; ``widgets``: every page input by its URL key, defaults included, e.g. the
    attention what-if; ``link_inputs``: the link's own query string), kvcalc's version, then
    kvcalc's own results (``PlanResult.to_dict()``, ``SpeedEstimate.to_dict()``)."""
    doc = {
        "schema": SCHEMA,
        "kvcalc_version": kvcalc_version(),
        "title": describe(model, str(plan.get("gpu", "")), int(plan.get("gpus", 1))),
        "model": {"id": model, "source": model_source},
        "gpu": {"name": plan.get("gpu"), "memory_bytes": plan.get("gpu_memory_bytes"), "count": plan.get("gpus")},
        "inputs": {"batch": batch, "context": context, "runtime": plan.get("runtime"),
                   "options": _jsonable(options), "widgets": _jsonable(widgets or {}),
                   "link": _jsonable(link_inputs)},
        "share_link": share_link,
        "plan": _jsonable(plan),
        "speed": _jsonable(speed),
    }
    return json.dumps(doc, indent=2)


def _cell(text: str) -> str:
    """Outside text (a Hub id, a config's name) as a CSV cell a spreadsheet shows as text, not a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


CSV_COLUMNS = ["model", "gpu", "gpus", "runtime", "batch", "context", "weights_bytes", "overhead_bytes", "kv_bytes",
               "total_bytes", "budget_bytes"]


def curve_csv(points: Mapping[int, Sequence[CurvePoint]], *, model: str, gpu: str, gpus: int, runtime: str) -> str:
    """The chart's data, one row per (batch, context) point; every row names the model, GPU, count
    and runtime, so the file describes itself and stays one plain table (no comment lines)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(CSV_COLUMNS)
    for batch, pts in points.items():
        for pt in pts:
            w.writerow([_cell(model), _cell(gpu), gpus, runtime, batch, pt.context, pt.weights, pt.overhead, pt.kv,
                        pt.total, pt.budget])
    return buf.getvalue()
