"""From a parsed startup log to the plan overrides it measures, and back: the plan against the log.

``calibration_flags`` maps each measured line to the ``kvcalc plan`` flag that replaces the matching
estimate (weights, activation peak, non-torch memory, CUDA graphs, KV memory, utilization, length,
parallelism); ``predicted_vs_observed`` lines a ``plan --json`` result up with the log, line by line;
``check_model`` says when the log's KV figures cannot come from the given config (another model).
Units: bytes (GiB = 2**30), tokens, blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kvcalc.startup_log.checks import ModelCheck, check_model, model_geometry
from kvcalc.startup_log.parse import parse_startup_log
from kvcalc.startup_log.types import Quantity, StartupLog

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

Flags = dict[str, "int | float | str"]
_GIB_FLAGS = (
    ("weights", "--weights-gib"),
    ("activation", "--activation-gib"),
    ("non_torch", "--non-torch-gib"),
    ("cuda_graph", "--cuda-graph-gib"),
    ("total_gpu_memory", "--gpu-mem-gib"),
)
_VLLM_ARGS = (
    ("gpu_memory_utilization", "--gpu-memory-utilization", float),
    ("max_model_len", "--max-model-len", int),
    ("tensor_parallel_size", "-tp", int),
    ("pipeline_parallel_size", "-pp", int),
    ("kv_cache_dtype", "--kv-cache-dtype", str),
    ("block_size", "--block-size", int),
    ("max_num_seqs", "--max-num-seqs", int),
    ("max_num_batched_tokens", "--max-num-batched-tokens", int),
)
# line formats only releases before 0.11 print (V0 worker.py / executor_base.py): their rules are "0.10"
_OLD_FORMATS = {"peak_torch", "non_torch", "activation", "gpu_blocks", "requested_memory", "total_gpu_memory"}
DEFAULT_BLOCK_SIZE = 16  # vLLM's block size unless the log's arguments set another


def _gib(q: Quantity) -> float:
    """A memory quantity in GiB as printed (the printed digits when printed in GiB / GB)."""
    if q.unit in ("GiB", "GB"):
        return float(q.text.replace(",", ""))
    return round(q.gib, 6)


def _number(q: Quantity, kind: type) -> int | float | str:
    if kind is str:
        return q.text
    return kind(float(q.text.replace(",", ""))) if kind is int else float(q.text.replace(",", ""))


def _vllm_kv_tokens(log: StartupLog, block_size: int) -> int | None:
    tokens = log.value("kv_tokens")
    if tokens is not None:
        return int(tokens.amount or 0)
    blocks = log.value("gpu_blocks")
    return int(blocks.amount or 0) * block_size if blocks is not None else None


def vllm_block_bytes(
    config: Mapping[str, Any],
    *,
    tensor_parallel_size: int = 1,
    kv_bytes: int = 2,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> int | None:
    """Bytes of one vLLM KV block on one GPU for a uniform full-attention model, else None.

    Formula (vllm/v1/kv_cache_interface.py FullAttentionSpec.page_size_bytes x layers, 0.8-0.33; the
    V0 CacheEngine.get_cache_block_size is the same): 2 (K and V) x layers x KV heads per GPU
    (``max(1, kv_heads // tp)``) x head_dim x bytes per element x block_size. Models with sliding
    window, MLA, linear-attention or Mamba layers return None: their blocks differ per layer group.

    >>> vllm_block_bytes({"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    ...                   "hidden_size": 4096})
    2097152
    """
    text = config.get("text_config") or config
    layer_types = text.get("layer_types") or ()
    if (
        text.get("kv_lora_rank")
        or text.get("use_sliding_window")
        or any(t != "full_attention" for t in layer_types)
        or (text.get("sliding_window") and "use_sliding_window" not in text)
        or text.get("mamba_d_state")
    ):
        return None
    try:
        layers = int(text["num_hidden_layers"])
        heads = int(text["num_attention_heads"])
        kv_heads = int(text.get("num_key_value_heads") or heads)
        head_dim = int(text.get("head_dim") or int(text["hidden_size"]) // heads)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    return 2 * layers * max(1, kv_heads // max(1, tensor_parallel_size)) * head_dim * kv_bytes * block_size


def _vllm_flags(log: StartupLog, block_bytes: int | None) -> Flags:
    flags: Flags = {}
    for name, flag, kind in _VLLM_ARGS:
        q = log.value(name)
        if q is not None:
            flags[flag] = _number(q, kind)
    block_size = int(flags.get("--block-size", DEFAULT_BLOCK_SIZE))
    tokens = _vllm_kv_tokens(log, block_size)
    available = log.value("available_kv") or log.value("reserved_kv")
    if tokens is not None and block_bytes and tokens % block_size == 0:
        flags["--kv-cache-memory"] = tokens // block_size * block_bytes
    elif available is not None:
        flags["--kv-cache-memory"] = int(available.amount or 0)
    if log.version:
        minor = log.version.split(".")[:2]
        flags["--vllm-version"] = (
            "0.10" if len(minor) == 2 and minor[0] == "0" and minor[1].isdigit() and int(minor[1]) <= 10 else "0.33"
        )
    elif set(log.kinds) & _OLD_FORMATS:
        flags["--vllm-version"] = "0.10"
    peak, weights = log.value("peak_torch"), log.value("weights")
    if log.value("activation") is None and peak is not None and weights is not None:
        flags["--activation-gib"] = round(_gib(peak) - _gib(weights), 4)
    return flags


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
    flags: Flags = {}
    own = _ENGINE_FLAGS.get(log.engine)
    if own is not None:
        flags.update(own(log, block_bytes))
    kept = _GIB_KEPT.get(log.engine, frozenset())
    for name, flag in _GIB_FLAGS:
        q = log.value(name)
        if q is not None and flag in kept:
            flags[flag] = _gib(q)
    if flags.get("--vllm-version") == "0.10":
        flags.pop("--cuda-graph-gib", None)     # captured after the KV cache was sized: outside the budget
    return flags


def _pick(log: StartupLog, table: tuple[tuple[str, str, type], ...]) -> Flags:
    out: Flags = {}
    for name, flag, kind in table:
        q = log.value(name)
        if q is not None:
            out[flag] = _number(q, kind)
    return out


def _llama_cpp_flags(log: StartupLog) -> Flags:
    out = _pick(
        log,
        (
            ("cells", "-c", int),
            ("type_k", "-ctk", str),
            ("type_v", "-ctv", str),
            ("n_batch", "-b", int),
            ("n_ubatch", "-ub", int),
        ),
    )
    if "-c" not in out and log.value("n_ctx") is not None:
        out["-c"] = _number(log.value("n_ctx"), int)  # type: ignore[arg-type]
    seqs = log.value("seqs")
    if seqs is not None and int(seqs.amount or 1) > 1:
        out["-np"] = int(seqs.amount or 1)
    fa = log.value("flash_attn")
    if fa is not None:
        out["-fa"] = {"0": "off", "1": "on"}.get(fa.text, fa.text)
    return out


def _sglang_flags(log: StartupLog, _block_bytes: int | None) -> Flags:
    return _pick(
        log,
        (
            ("kv_tokens", "--max-total-tokens", int),
            ("mem_fraction_static", "--mem-fraction-static", float),
            ("context_len", "--context-length", int),
            ("tp_size", "-tp", int),
            ("page_size", "--page-size", int),
        ),
    )


def _tensorrt_llm_flags(log: StartupLog, _block_bytes: int | None) -> Flags:
    return _pick(
        log,
        (
            ("kv_tokens", "--max-tokens-in-paged-kv-cache", int),
            ("tokens_per_block", "--tokens-per-block", int),
        ),
    )


_ENGINE_FLAGS: dict[str, Callable[[StartupLog, int | None], Flags]] = {
    "vllm": _vllm_flags,
    "sglang": _sglang_flags,
    "tensorrt_llm": _tensorrt_llm_flags,
    "llama_cpp": lambda log, _block_bytes: _llama_cpp_flags(log),
}
"""Each engine's calibrator, keyed by the runtime name the log's engine has (``StartupLog.engine``)."""

_GIB_KEPT: dict[str, frozenset[str]] = {
    "vllm": frozenset(flag for _, flag in _GIB_FLAGS),
    "sglang": frozenset({"--weights-gib"}),
}
"""The GiB flags (:data:`_GIB_FLAGS`) each engine's log measures for ``kvcalc plan``."""

BLOCK_CALIBRATED: frozenset[str] = frozenset({"vllm"})
"""The engines whose calibrator takes the model's ``block_bytes`` (vllm_block_bytes)."""


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
