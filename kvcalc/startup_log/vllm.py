"""vLLM startup-log line formats, 0.4 to 0.33 (V0 ``worker.py`` / ``model_runner.py`` and V1
``gpu_worker.py`` / ``gpu_model_runner.py`` / ``kv_cache_utils.py``).

Memory: vLLM prints GiB (``/ GiB_bytes``, 2**30) from 0.8 on; the "GB" of 0.4-0.7's "Loading model
weights took X GB" is ``/ float(2**30)`` as well. ``GPU KV cache size: N tokens`` is
``num_blocks x block_size`` (kv_cache_utils._report_kv_cache_config, 0.7.3+); ``Maximum concurrency
for L tokens per request: X.XXx`` is ``N / L`` printed with ``%.2f`` (same function; V0:
executor_base.initialize_cache with ``num_gpu_blocks x block_size / max_model_len``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvcalc.startup_log.rules import INT, NUM, Rule, version_rule
from kvcalc.startup_log.types import StartupLog
from kvcalc.startup_log.values import GIB_FLAGS, Flags, gib, gib_flags, number

GIB = r" ?(?P<u>GiB|GB)"

ENGINE = "vllm"
"""The runtime (``StartupLog.engine``, kvcalc.engines.registry) whose log these lines are."""

RULES: tuple[Rule, ...] = (
    Rule(
        "weights",
        "Model loading took ",
        rf"Model loading took (?P<weights>{NUM}){GIB}(?: and (?P<load_s>{NUM}) s)?",
        (("weights", "@u"), ("load_s", "s")),
        "v1/worker/gpu_model_runner.py load_model, 0.7-0.33",
    ),
    Rule(
        "weights",
        "Loading model weights took ",
        rf"Loading model weights took (?P<weights>{NUM}){GIB}",
        (("weights", "@u"),),
        "worker/model_runner.py load_model (V0) and V1 0.7.0-0.7.2",
    ),
    Rule(
        "weights",
        "model weights take ",
        rf"model weights take {{0,40}}(?P<weights>{NUM}){GIB}",
        (("weights", "@u"),),
        "worker/worker.py determine_num_available_blocks, 0.6.5-0.8",
    ),
    Rule(
        "non_torch",
        "non_torch_memory",
        rf"non_torch_memory(?: takes | {{1,40}}|=)(?P<non_torch>{NUM}){GIB}",
        (("non_torch", "@u"),),
        "worker/worker.py determine_num_available_blocks, 0.6.4-0.8",
    ),
    Rule(
        "activation",
        "PyTorch activation peak memory",
        rf"PyTorch activation peak memory(?: takes | {{1,40}})"
        rf"(?P<activation>{NUM}){GIB}",
        (("activation", "@u"),),
        "worker/worker.py, 0.6.5-0.8",
    ),
    Rule(
        "peak_torch",
        "peak_torch_memory=",
        rf"peak_torch_memory=(?P<peak_torch>{NUM}){GIB}",
        (("peak_torch", "@u"),),
        "worker/worker.py one-line profile, 0.6.4",
    ),
    Rule(
        "available_kv",
        "Available KV cache memory: ",
        rf"Available KV cache memory: (?P<available_kv>{NUM}){GIB}",
        (("available_kv", "@u"),),
        "v1/worker/gpu_worker.py determine_available_memory, 0.8-0.33",
    ),
    Rule(
        "available_kv",
        "the rest of the memory reserved for KV Cache is ",
        rf"the rest of the memory reserved for KV Cache is (?P<available_kv>-?{NUM}){GIB}",
        (("available_kv", "@u"),),
        "worker/worker.py, 0.7-0.8",
    ),
    Rule(
        "available_kv",
        "available_kv_cache_memory",
        rf"available_kv_cache_memory {{1,40}}(?P<available_kv>{NUM}){GIB}",
        (("available_kv", "@u"),),
        "worker/worker.py multi-line profile, 0.6.5",
    ),
    Rule(
        "available_kv",
        "kv_cache_size=",
        rf"kv_cache_size=(?P<available_kv>{NUM}){GIB}",
        (("available_kv", "@u"),),
        "worker/worker.py one-line profile, 0.6.4",
    ),
    Rule(
        "reserved_kv",
        "Initial free memory ",
        rf"Initial free memory (?P<free_memory>{NUM}) ?GiB, reserved "
        rf"(?P<reserved_kv>{NUM}) ?GiB memory for KV Cache",
        (("free_memory", "GiB"), ("reserved_kv", "GiB")),
        "v1/worker/gpu_worker.py determine_available_memory with kv_cache_memory_bytes, 0.11-0.33",
    ),
    Rule(
        "kv_tokens",
        "GPU KV cache size: ",
        rf"GPU KV cache size: (?P<kv_tokens>{INT}) tokens",
        (("kv_tokens", "tokens"),),
        "v1/core/kv_cache_utils.py _report_kv_cache_config, 0.7.3-0.33",
    ),
    Rule(
        "gpu_blocks",
        "GPU blocks: ",
        rf"GPU blocks: (?P<gpu_blocks>{INT})(?:, # CPU blocks: (?P<cpu_blocks>{INT}))?",
        (("gpu_blocks", "blocks"), ("cpu_blocks", "blocks")),
        "executor/executor_base.py initialize_cache (V0)",
    ),
    Rule(
        "gpu_blocks",
        "CUDA blocks: ",
        rf"CUDA blocks: (?P<gpu_blocks>{INT})(?:, # CPU blocks: (?P<cpu_blocks>{INT}))?",
        (("gpu_blocks", "blocks"), ("cpu_blocks", "blocks")),
        "executor/executor_base.py, 0.7.0",
    ),
    Rule(
        "gpu_blocks",
        "cuda blocks: ",
        rf"cuda blocks: (?P<gpu_blocks>{INT})(?:, # CPU blocks: (?P<cpu_blocks>{INT}))?",
        (("gpu_blocks", "blocks"), ("cpu_blocks", "blocks")),
        "executor/executor_base.py initialize_cache, 0.7.1-0.8 (V0)",
    ),
    Rule(
        "max_concurrency",
        "Maximum concurrency for ",
        rf"Maximum concurrency for (?P<max_model_len>{INT}) tokens "
        rf"per request: (?P<max_concurrency>{NUM})x",
        (("max_model_len", "tokens"), ("max_concurrency", "x")),
        "v1/core/kv_cache_utils.py _report_kv_cache_config; V0 executor_base.initialize_cache",
    ),
    Rule(
        "kv_capacity",
        "maximum number of tokens that can be stored in KV cache (",
        rf"maximum number of tokens that can be stored in KV cache \((?P<kv_capacity>{INT})\)",
        (("kv_capacity", "tokens"),),
        "worker/worker.py raise_if_cache_size_invalid (V0)",
    ),
    Rule(
        "estimated_max_len",
        "the estimated maximum model length is ",
        rf"the estimated maximum model length is (?P<estimated_max_len>{INT})",
        (("estimated_max_len", "tokens"),),
        "v1/core/kv_cache_utils.py check_enough_kv_cache_memory",
    ),
    Rule(
        "no_kv_memory",
        "No available memory for the cache blocks",
        "No available memory for the cache blocks",
        (),
        "v1/core/kv_cache_utils.py check_enough_kv_cache_memory",
    ),
    Rule(
        "total_gpu_memory",
        "total_gpu_memory",
        rf"total_gpu_memory(?: \(| {{1,40}}|=)(?P<total_gpu_memory>{NUM}){GIB}",
        (("total_gpu_memory", "@u"),),
        "worker/worker.py memory profile, 0.6.4-0.8",
    ),
    Rule(
        "gpu_memory_utilization",
        "gpu_memory_utilization",
        rf"gpu_memory_utilization(?: \(| {{1,40}}|=)"
        rf"(?P<gpu_memory_utilization>{NUM})",
        (("gpu_memory_utilization", ""),),
        "worker/worker.py, 0.6.4-0.8",
    ),
    Rule(
        "requested_memory",
        "the current vLLM instance can use ",
        rf"the current vLLM instance can use "
        rf"(?:total_gpu_memory \({NUM}GiB\) x gpu_memory_utilization \({NUM}\) = | {{0,40}})(?P<requested>{NUM}){GIB}",
        (("requested", "@u"),),
        "worker/worker.py, 0.6.5-0.8",
    ),
    Rule(
        "cuda_graph",
        "Graph capturing finished in ",
        rf"Graph capturing finished in (?P<graph_s>{NUM}) secs?, took "
        rf"(?P<cuda_graph>{NUM}) ?GiB",
        (("graph_s", "s"), ("cuda_graph", "GiB")),
        "v1/worker/gpu_model_runner.py capture_model, 0.8-0.33",
    ),
    Rule(
        "cuda_graph_profiled",
        "--gpu-memory-utilization=",
        rf"--gpu-memory-utilization=(?P<gpu_memory_utilization>{NUM})"
        rf" is equivalent to --gpu-memory-utilization=(?P<utilization_without_graphs>{NUM})",
        (("gpu_memory_utilization", ""), ("utilization_without_graphs", "")),
        "v1/worker/gpu_worker.py, 0.21-0.33",
    ),
    Rule(
        "max_model_len",
        "Using max model len ",
        rf"Using max model len (?P<max_model_len>{INT})",
        (("max_model_len", "tokens"),),
        "config/model.py (0.10-0.33)",
    ),
    Rule(
        "arg_max_model_len",
        "'max_model_len': ",
        rf"'max_model_len': (?P<max_model_len>{INT})",
        (("max_model_len", "tokens"),),
        "entrypoints/utils.py log_non_default_args, 0.10-0.33",
    ),
    Rule(
        "arg_tp",
        "'tensor_parallel_size': ",
        rf"'tensor_parallel_size': (?P<tensor_parallel_size>{INT})",
        (("tensor_parallel_size", ""),),
        "log_non_default_args",
    ),
    Rule(
        "arg_tp",
        "tensor_parallel_size=",
        rf"tensor_parallel_size=(?P<tensor_parallel_size>{INT})",
        (("tensor_parallel_size", ""),),
        "engine/llm_engine.py 'Initializing an LLM engine' (V0) / core.py (V1)",
    ),
    Rule(
        "arg_pp",
        "'pipeline_parallel_size': ",
        rf"'pipeline_parallel_size': (?P<pipeline_parallel_size>{INT})",
        (("pipeline_parallel_size", ""),),
        "log_non_default_args",
    ),
    Rule(
        "arg_utilization",
        "'gpu_memory_utilization': ",
        rf"'gpu_memory_utilization': (?P<gpu_memory_utilization>{NUM})",
        (("gpu_memory_utilization", ""),),
        "log_non_default_args",
    ),
    Rule(
        "arg_kv_dtype",
        "'kv_cache_dtype': '",
        r"'kv_cache_dtype': '(?P<kv_cache_dtype>[a-z0-9_]{1,24})'",
        (("kv_cache_dtype", "text"),),
        "log_non_default_args",
    ),
    Rule(
        "arg_block_size",
        "'block_size': ",
        rf"'block_size': (?P<block_size>{INT})",
        (("block_size", ""),),
        "log_non_default_args",
    ),
    Rule(
        "arg_max_num_seqs",
        "'max_num_seqs': ",
        rf"'max_num_seqs': (?P<max_num_seqs>{INT})",
        (("max_num_seqs", ""),),
        "log_non_default_args",
    ),
    Rule(
        "arg_mnbt",
        "'max_num_batched_tokens': ",
        rf"'max_num_batched_tokens': (?P<max_num_batched_tokens>{INT})",
        (("max_num_batched_tokens", "tokens"),),
        "log_non_default_args",
    ),
)

VERSION_RULES: tuple[Rule, ...] = (
    version_rule(
        "LLM engine (v",
        r"LLM engine \(v(?P<version>[0-9][0-9a-z.+_-]{0,40})\)",
        "engine/llm_engine.py / v1/engine/core.py 'Initializing a V1 LLM engine (vX) with config'",
    ),
    version_rule(
        "  version ", r"  version (?P<version>[0-9][0-9a-z.+_-]{0,40})", "entrypoints/utils.py banner, 0.11-0.33"
    ),
    version_rule(
        "vLLM API server version ",
        r"vLLM API server version (?P<version>[0-9][0-9a-z.+_-]{0,40})",
        "entrypoints/openai/api_server.py, 0.4-0.10",
    ),
)

EXPECTED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("weights",), "weights: 'Model loading took X GiB' (0.7+) or 'Loading model weights took X GB' (older)"),
    (("available_kv", "reserved_kv"), "KV memory: 'Available KV cache memory: X GiB' (0.8+) or the memory profile"),
    (("kv_tokens", "gpu_blocks"), "KV size: 'GPU KV cache size: N tokens' (0.7.3+) or '# GPU blocks: N' (older)"),
    (("max_concurrency",), "concurrency: 'Maximum concurrency for L tokens per request: X.XXx'"),
)

SIGNATURES = (
    "GPU KV cache size",
    "Maximum concurrency for",
    "Model loading took",
    "Loading model weights took",
    "GPU blocks:",
    "non_torch_memory",
    "Available KV cache memory",
    "vLLM",
    "VllmWorker",
    "EngineCore",
)


# ------------------------------------------------------------------ calibration (kvcalc.startup_log.formats)
_ARGS = (
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
GIB_KEPT = frozenset(flag for _, flag in GIB_FLAGS)
"""vLLM's log measures every GiB flag: weights, activation, non-torch, CUDA graphs, total memory."""


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


def block_bytes(log: StartupLog, config: Mapping[str, Any], tensor_parallel_size: int | None) -> int | None:
    """:func:`vllm_block_bytes` of ``config`` at the log's TP (or the given one), KV dtype and block size."""
    tp_q, kv_q, bs_q = log.value("tensor_parallel_size"), log.value("kv_cache_dtype"), log.value("block_size")
    tp = tensor_parallel_size or (int(tp_q.amount or 1) if tp_q is not None else 1)
    kv_bytes = 1 if kv_q is not None and "fp8" in kv_q.text else 2
    block = int(bs_q.amount or DEFAULT_BLOCK_SIZE) if bs_q is not None else DEFAULT_BLOCK_SIZE
    return vllm_block_bytes(config, tensor_parallel_size=tp, kv_bytes=kv_bytes, block_size=block)


def _kv_tokens(log: StartupLog, block_size: int) -> int | None:
    tokens = log.value("kv_tokens")
    if tokens is not None:
        return int(tokens.amount or 0)
    blocks = log.value("gpu_blocks")
    return int(blocks.amount or 0) * block_size if blocks is not None else None


def flags(log: StartupLog, block_bytes: int | None) -> Flags:
    """vLLM's calibration (kvcalc.startup_log.calibrate.calibration_flags has the whole story)."""
    out: Flags = {}
    for name, flag, kind in _ARGS:
        q = log.value(name)
        if q is not None:
            out[flag] = number(q, kind)
    block_size = int(out.get("--block-size", DEFAULT_BLOCK_SIZE))
    tokens = _kv_tokens(log, block_size)
    available = log.value("available_kv") or log.value("reserved_kv")
    if tokens and block_bytes and tokens % block_size == 0:
        out["--kv-cache-memory"] = tokens // block_size * block_bytes
    elif available is not None and float(available.amount or 0) > 0:     # none left: the measured parts say so
        out["--kv-cache-memory"] = int(available.amount or 0)
    if log.version:
        minor = log.version.split(".")[:2]
        out["--vllm-version"] = (
            "0.10" if len(minor) == 2 and minor[0] == "0" and minor[1].isdigit() and int(minor[1]) <= 10 else "0.33"
        )
    elif set(log.kinds) & _OLD_FORMATS:
        out["--vllm-version"] = "0.10"
    peak, weights = log.value("peak_torch"), log.value("weights")
    if log.value("activation") is None and peak is not None and weights is not None:
        out["--activation-gib"] = round(gib(peak) - gib(weights), 4)
    out.update(gib_flags(log, GIB_KEPT))
    if out.get("--vllm-version") == "0.10":
        out.pop("--cuda-graph-gib", None)     # captured after the KV cache was sized: outside the budget
    return out


TP_RANK_SPREAD = 0.5  # at TP > 1 another rank may have had up to half the printed memory


def band(log: StartupLog, tp: int, block: int) -> tuple[float, float, str] | None:
    """(low, high) KV bytes per token per GPU that "Available KV cache memory" and the KV size allow."""
    avail = log.value("available_kv")
    tokens = log.value("kv_tokens")
    blocks = log.value("gpu_blocks")
    n = int(tokens.amount or 0) if tokens else (int(blocks.amount or 0) * block if blocks else 0)
    if avail is None or not n:
        return None
    lo, hi = float(avail.amount or 0) - avail.tolerance, float(avail.amount or 0) + avail.tolerance
    if tp > 1:  # the blocks follow the smallest rank's memory (get_kv_cache_configs), the log shows one
        lo *= TP_RANK_SPREAD
    return lo / (n + block), hi / n, f"{avail.text} {avail.unit} for {n:,} tokens"
