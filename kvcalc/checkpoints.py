"""Which checkpoint a launch line serves when the plan's weights are quantized to a format the engine cannot make.

vLLM quantizes bf16 weights to fp8 at startup (``--quantization fp8``), but ``--quantization awq`` only reads a
checkpoint already stored in AWQ (vllm/model_executor/layers/quantization/awq.py ``AWQConfig.from_config`` reads
the checkpoint's ``quantization_config``): a line naming the bf16 repository with it does not start. So a plan
with ``int4`` weights names a real AWQ repository from ``data/quantized_checkpoints.csv`` (each row with the Hub
page that shows it exists), or says none is known and names a local directory to quantize into. A model whose
own config has a ``quantization_config`` already is such a checkpoint and is served as it is.
"""
from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .data_files import data_path

PREQUANTIZED = {"int4": "awq"}
"""Weights dtypes (kvcalc.dtypes) whose checkpoint must already be quantized, and the scheme the engines read."""


@dataclass(frozen=True)
class QuantizedCheckpoint:
    """One row of ``data/quantized_checkpoints.csv``: the Hub id of the ``model`` it quantizes, the ``scheme``
    ('awq'), the quantized ``repo``, a ``note`` (whose it is, what it was made from) and its ``source`` URL."""

    model: str
    scheme: str
    repo: str
    note: str
    source: str


@lru_cache(maxsize=1)
def known_checkpoints() -> tuple[QuantizedCheckpoint, ...]:
    """Every row of ``data/quantized_checkpoints.csv``, in file order."""
    with open(data_path("quantized_checkpoints.csv"), encoding="utf-8", newline="") as f:
        return tuple(QuantizedCheckpoint(r["model"], r["scheme"], r["repo"], r["note"], r["source"])
                     for r in csv.DictReader(f))


def quantized_checkpoint(model: str, scheme: str) -> QuantizedCheckpoint | None:
    """The known ``scheme`` checkpoint of Hub model ``model`` (case-insensitive), or None.

    >>> quantized_checkpoint("meta-llama/Llama-3.1-8B-Instruct", "awq").repo
    'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4'
    >>> quantized_checkpoint("google/gemma-3-4b-it", "awq") is None
    True
    """
    key = (model.lower(), scheme.lower())
    return next((c for c in known_checkpoints() if (c.model.lower(), c.scheme) == key), None)


def checkpoint_to_serve(model: str, config: Mapping[str, Any], dtype: str | None) -> tuple[str, tuple[str, ...]]:
    """(the repository or path a launch line names, notes) for ``model`` planned with weights ``dtype``: the
    model itself unless ``dtype`` needs a pre-quantized checkpoint (:data:`PREQUANTIZED`) that ``config`` is not;
    then the known one (module docstring) or a local directory, with a note that none is known.

    >>> checkpoint_to_serve("Qwen/Qwen3-8B", {}, "int4")[0]
    'Qwen/Qwen3-8B-AWQ'
    >>> checkpoint_to_serve("google/gemma-3-4b-it", {}, "int4")[0]
    '/path/to/gemma-3-4b-it-AWQ'
    >>> checkpoint_to_serve("/path/to/your/model", {}, "int4")[0]
    '/path/to/your/model-AWQ'
    >>> checkpoint_to_serve("Qwen/Qwen3-8B", {}, "fp8_e4m3")
    ('Qwen/Qwen3-8B', ())
    """
    scheme = PREQUANTIZED.get(dtype or "")
    if scheme is None or isinstance(config.get("quantization_config"), Mapping):
        return model, ()
    name = scheme.upper()
    hit = quantized_checkpoint(model, scheme)
    if hit is not None:
        return hit.repo, (f"{hit.repo}: an {name} checkpoint of {model}: {hit.note} (source: {hit.source})",)
    local = model.rstrip("/") if model.startswith("/") else f"/path/to/{model.rstrip('/').rsplit('/', 1)[-1]}"
    target = f"{local or '/path/to/model'}-{name}"
    return target, (
        f"no {name} checkpoint of {model} is known to kvcalc (data/quantized_checkpoints.csv): quantize it to "
        f"{name} (llm-compressor or AutoAWQ) into {target}; the engine cannot quantize bf16 weights "
        f"to {name} at startup",)
