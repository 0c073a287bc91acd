"""From a parsed startup log to the plan overrides it measures, and back: the plan against the log.

``calibration_flags`` maps each measured line to the ``kvcalc plan`` flag that replaces the matching
estimate (weights, activation peak, non-torch memory, CUDA graphs, KV memory, utilization, length,
parallelism); ``predicted_vs_observed`` lines a ``plan --json`` result up with the log, line by line;
``check_model`` says when the log's KV figures cannot come from the given config (another model).
Units: bytes (GiB = 2**30), tokens, blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kvcalc.startup_log.checks import ModelCheck, check_model, model_geometry
from kvcalc.startup_log.formats import log_module
from kvcalc.startup_log.parse import parse_startup_log
from kvcalc.startup_log.types import Quantity, StartupLog
from kvcalc.startup_log.values import Flags
from kvcalc.startup_log.vllm import DEFAULT_BLOCK_SIZE, vllm_block_bytes

__all__ = [
    "Comparison",
    "ModelCheck",
    "calibration_argv",
    "calibration_flags",
    "check_model",
    "model_geometry",
    "predicted_vs_observed",
    "vllm_block_bytes",
]

__all__ += ["DEFAULT_BLOCK_SIZE", "Flags"]
def calibration_flags(log: StartupLog, *, block_bytes: int | None = None) -> Flags:
    """The ``kvcalc plan`` overrides a startup log measures, flag -> value (CLI units: GiB floats,
    bytes for ``--kv-cache-memory``, tokens, fractions).

    vLLM: "Model loading took X GiB" -> ``--weights-gib``, "PyTorch activation peak memory" ->
    ``--activation-gib`` (0.6.4's one-line profile: peak_torch_memory - weights, as its
    worker.determine_num_available_blocks subtracts the torch peak, weights included),
    "non_torch_memory" -> ``--non-torch-gib``, "Graph capturing finished ... took X GiB" ->
    ``--cuda-graph-gib`` (not under the 0.10 rules: releases before 0.21 capture the graphs after the
    KV cache is sized, outside the budget; predicted_vs_observed still shows them),
    total_gpu_memory -> ``--gpu-mem-gib``; "GPU KV cache size: N tokens"
    (or "# GPU blocks: B") with ``block_bytes`` (see vllm_block_bytes) pins ``--kv-cache-memory`` to
    N / block_size x block_bytes exactly; without them the rounded "Available KV cache memory" is used.
    The non-default args give ``--max-model-len``, ``-tp``, ``--gpu-memory-utilization``,
    ``--kv-cache-dtype``, ``--block-size``; "Maximum concurrency for L tokens" gives ``--max-model-len``;
    the stated version (or a format only releases before 0.11 print) gives ``--vllm-version``.
    SGLang: ``--max-total-tokens`` (the pool's #tokens), ``--weights-gib``, ``--mem-fraction-static``,
    ``--context-length``, ``-tp``. TensorRT-LLM: ``--max-tokens-in-paged-kv-cache``,
    ``--tokens-per-block`` (its total memory is not passed: the pool is pinned by the token count, which
    binds only when the planning GPU has room for it). llama.cpp: ``-c``, ``-ctk``, ``-ctv``, ``-np``, ``-b``,
    ``-ub``. Flags the log does not support are absent.

    >>> log = parse_startup_log('''Model loading took 14.99 GiB and 5.1 seconds
    ... GPU KV cache size: 31,232 tokens
    ... Maximum concurrency for 20,000 tokens per request: 1.56x''')
    >>> calibration_flags(log, block_bytes=2 * 32 * 8 * 128 * 2 * 16)
    {'--max-model-len': 20000, '--kv-cache-memory': 4093640704, '--weights-gib': 14.99}
    """
    module = log_module(log.engine)
    return dict(module.flags(log, block_bytes)) if module is not None else {}


def calibration_argv(flags: Mapping[str, int | float | str]) -> list[str]:
    """The flags as command-line words, in order: ``kvcalc plan MODEL *calibration_argv(flags)``.

    >>> calibration_argv({"--weights-gib": 14.99, "-tp": 2})
    ['--weights-gib', '14.99', '-tp', '2']
    """
    out: list[str] = []
    for flag, value in flags.items():
        out += [flag, repr(value) if isinstance(value, float) else str(value)]
    return out


@dataclass(frozen=True)
class Comparison:
    """One logged figure against the plan: ``name`` of the quantity, the ``observed`` Quantity with
    the ``line`` it came from, the plan's figure in the same base unit (``None`` when the plan has no
    such figure) as ``predicted`` and its printed form ``predicted_text``, and whether they agree
    (exactly for counts and for figures printed with the same digits, else within the log's
    rounding); ``agrees`` is None when there is nothing to compare."""

    name: str
    observed: Quantity
    line: str
    predicted: float | None
    predicted_text: str | None
    agrees: bool | None
    note: str = ""


_PLAN_FIELDS = {
    "kv_tokens": "kv_cache_tokens",
    "gpu_blocks": "num_gpu_blocks",
    "max_total_num_tokens": "kv_cache_tokens", "kv_capacity": "kv_cache_tokens",
    "max_concurrency": "max_concurrency",
    "available_kv": "available_kv_bytes",
    "reserved_kv": "available_kv_bytes",
    "weights": "weights_bytes",
    "total_gpu_memory": "gpu_memory_bytes",
    "blocks": "num_gpu_blocks",
    "max_model_len": "context",
    "context_len": "context",
}
_PINNED = ("the plan's KV memory is the log's whole blocks (--kv-cache-memory); vLLM's figure also holds the rest "
           "below one block, and at TP > 1 the pool follows the smallest rank's memory")
_NO_FIELD = "plan --json has no separate figure (it is part of overhead_bytes)"


def _same(observed: Quantity, predicted: Quantity) -> bool:
    if (
        observed.unit == predicted.unit
        and observed.text.count(".") == predicted.text.count(".")
        and len(observed.text.partition(".")[2]) == len(predicted.text.partition(".")[2])
    ):
        return observed.text.replace(",", "") == predicted.text.replace(",", "")
    return observed.agrees(float(predicted.amount or 0)) or predicted.agrees(float(observed.amount or 0))


def predicted_vs_observed(plan: Mapping[str, Any], log: StartupLog) -> tuple[Comparison, ...]:
    """Every figure the log prints (head rank) next to the plan's: ``plan`` is a ``kvcalc plan --json``
    result for the same engine. The plan's ``engine_lines`` (vLLM: "Available KV cache memory",
    "GPU KV cache size ... Maximum concurrency ..."; SGLang: "KV Cache is allocated ...",
    "max_total_num_tokens=..."; TensorRT-LLM: its four lines) are read with the log's own engine
    formats and compared as printed; other figures against the JSON fields (``kv_cache_tokens``,
    ``num_gpu_blocks``, ``max_concurrency`` printed ``%.2f``, ``available_kv_bytes``,
    ``weights_bytes``, ``gpu_memory_bytes``, ``context``).

    >>> log = parse_startup_log("GPU KV cache size: 31,232 tokens")
    >>> [(c.name, c.predicted, c.agrees) for c in predicted_vs_observed({"kv_cache_tokens": 31232}, log)]
    [('kv_tokens', 31232.0, True)]
    """
    lines = plan.get("engine_lines") or []
    ours = (
        parse_startup_log("\n".join(str(x) for x in lines), engine=log.engine)
        if lines and log.engine != "unknown"
        else None
    )
    rows: list[Comparison] = []
    done: set[str] = set()
    for line in log.lines:
        for q in line.values:
            if q.name in done or q.amount is None or q.name == "device":
                continue
            done.add(q.name)
            rows.append(_compare(q, line.raw, ours, plan))
    return tuple(rows)


def _compare(q: Quantity, raw: str, ours: StartupLog | None, plan: Mapping[str, Any]) -> Comparison:
    mine = ours.value(q.name) if ours is not None else None
    if mine is not None and mine.amount is not None:
        agrees = _same(q, mine)
        note = _PINNED if q.name == "available_kv" and not agrees and float(mine.amount) < float(q.amount or 0) else ""
        return Comparison(q.name, q, raw, float(mine.amount), mine.text, agrees, note)
    key = _PLAN_FIELDS.get(q.name)
    value = plan.get(key) if key else None
    if value is None:
        return Comparison(q.name, q, raw, None, None, None, _NO_FIELD if key is None else f"plan has no {key}")
    if q.name == "max_concurrency":
        text = f"{float(value):.2f}"
        return Comparison(q.name, q, raw, float(value), text, text == q.text.replace(",", ""))
    exact = q.tolerance == 0
    agrees = int(value) == int(q.amount or 0) if exact else q.agrees(float(value))
    return Comparison(
        q.name, q, raw, float(value), f"{value:,}" if exact else f"{float(value) / 2**30:.2f} GiB", agrees
    )
