"""TensorRT-LLM startup-log line formats, 0.5 to 1.x (C++ runtime ``trtGptModelInflightBatching.cpp``
/ ``kvCacheManager.cpp``; the PyTorch backend's ``_torch/pyexecutor/resource_manager.py`` prints the
same ``[MemUsageChange] Allocated`` line).

``[MemUsageChange] Allocated X GiB for max tokens in paged KV cache (N).`` is N tokens = primary blocks
x tokens per block, X = N x bytes per token / 2**30 (``%.2f``). ``Memory usage when calculating max
tokens in paged kv cache: total: T GiB, available: A GiB`` gives the free memory the
``free_gpu_memory_fraction`` applies to.
"""

from __future__ import annotations

from kvcalc.startup_log.rules import INT, NUM, Rule, version_rule
from kvcalc.startup_log.types import StartupLog
from kvcalc.startup_log.values import Flags, gib, pick

ENGINE = "tensorrt_llm"
"""The runtime (``StartupLog.engine``, kvcalc.engines.registry) whose log these lines are."""

RULES: tuple[Rule, ...] = (
    Rule(
        "engine_size",
        "Loaded engine size: ",
        rf"Loaded engine size: (?P<engine_size>{NUM}) (?P<u>MiB|GiB)",
        (("engine_size", "@u"),),
        "runtime/tllmRuntime.cpp",
    ),
    Rule(
        "mem_usage",
        "Memory usage when calculating max tokens in paged kv cache: ",
        rf"Memory usage when calculating max tokens in paged kv cache: total: (?P<total_gpu_memory>{NUM}) GiB, "
        rf"available: (?P<available>{NUM}) GiB",
        (("total_gpu_memory", "GiB"), ("available", "GiB")),
        "batch_manager/kvCacheManager.cpp calculateFreeMemBytes",
    ),
    Rule(
        "primary_blocks",
        "Number of blocks in KV cache primary pool: ",
        rf"Number of blocks in KV cache primary pool: (?P<blocks>{INT})",
        (("blocks", "blocks"),),
        "kvCacheManager.cpp",
    ),
    Rule(
        "primary_blocks",
        "Max KV cache blocks per sequence: ",
        rf"Max KV cache blocks per sequence: (?P<blocks_per_seq>"
        rf"{INT}) \[window size=(?P<window>{INT})\], tokens per block=(?P<tokens_per_block>{INT}), primary blocks="
        rf"(?P<blocks>{INT}), secondary blocks=(?P<secondary_blocks>{INT})",
        (
            ("blocks_per_seq", "blocks"),
            ("window", "tokens"),
            ("tokens_per_block", "tokens"),
            ("blocks", "blocks"),
            ("secondary_blocks", "blocks"),
        ),
        "kvCacheManager.cpp (1.x)",
    ),
    Rule(
        "pages_per_seq",
        "Max KV cache pages per sequence: ",
        rf"Max KV cache pages per sequence: (?P<pages_per_seq>{INT})",
        (("pages_per_seq", "blocks"),),
        "kvCacheManager.cpp (0.x)",
    ),
    Rule(
        "tokens_per_block",
        "Number of tokens per block: ",
        rf"Number of tokens per block: (?P<tokens_per_block>{INT})",
        (("tokens_per_block", "tokens"),),
        "kvCacheManager.cpp",
    ),
    Rule(
        "allocated",
        "Allocated ",
        rf"Allocated (?P<kv_allocated>{NUM}) (?P<u>GiB|MiB) for max tokens in paged KV cache "
        rf"\((?P<kv_tokens>{INT})\)",
        (("kv_allocated", "@u"), ("kv_tokens", "tokens")),
        "trtGptModelInflightBatching.cpp createKvCacheManager; _torch resource_manager.py",
    ),
    Rule(
        "allocated_bytes",
        "Allocate ",
        rf"Allocate (?P<kv_allocated>{INT}) bytes for k/v cache",
        (("kv_allocated", "bytes"),),
        "0.5-0.8 runtime",
    ),
    Rule(
        "tokens_and_bytes",
        "Max tokens in paged KV cache: ",
        rf"Max tokens in paged KV cache: (?P<kv_tokens>{INT})\. Allocating (?P<kv_allocated>{INT}) bytes",
        (("kv_tokens", "tokens"), ("kv_allocated", "bytes")),
        "0.9-0.11 runtime (janhq/cortex.cpp issue 981's log)",
    ),
    Rule(
        "using_tokens",
        "Using ",
        rf"Using (?P<kv_tokens>{INT}) tokens in paged KV cache",
        (("kv_tokens", "tokens"),),
        "0.5-0.8 runtime",
    ),
    Rule(
        "reduced_seq_len",
        "maxSequenceLen are too large",
        rf"maxSequenceLen are too large for at least one sequence to "
        rf"fit in kvCache\. they are reduced to (?P<max_seq_len>{INT})",
        (("max_seq_len", "tokens"),),
        "trtGptModelInflightBatching.cpp",
    ),
    Rule(
        "reduced_input_len",
        "maxInputLen is reduced to ",
        rf"maxInputLen is reduced to (?P<max_input_len>{INT})",
        (("max_input_len", "tokens"),),
        "trtGptModelInflightBatching.cpp",
    ),
    Rule(
        "llmapi_limits",
        "max_seq_len=",
        rf"max_seq_len=(?P<max_seq_len>{INT}), max_num_requests=(?P<max_batch_size>"
        rf"{INT}), max_num_tokens=(?P<max_num_tokens>{INT})",
        (("max_seq_len", "tokens"), ("max_batch_size", ""), ("max_num_tokens", "tokens")),
        "llmapi / pyexecutor",
    ),
    Rule(
        "model_max_seq_len",
        "TRTGptModel maxSequenceLen: ",
        rf"TRTGptModel maxSequenceLen: (?P<max_seq_len>{INT})",
        (("max_seq_len", "tokens"),),
        "trtGptModelInflightBatching.cpp",
    ),
    Rule(
        "model_max_batch",
        "TRTGptModel maxBatchSize: ",
        rf"TRTGptModel maxBatchSize: (?P<max_batch_size>{INT})",
        (("max_batch_size", ""),),
        "trtGptModelInflightBatching.cpp",
    ),
    Rule(
        "model_max_tokens",
        "TRTGptModel maxNumTokens: ",
        rf"TRTGptModel maxNumTokens: (?P<max_num_tokens>{INT})",
        (("max_num_tokens", "tokens"),),
        "trtGptModelInflightBatching.cpp",
    ),
)

VERSION_RULES: tuple[Rule, ...] = (
    version_rule(
        "Engine version ", r"Engine version (?P<version>[0-9][0-9a-z.+_-]{0,40})", "runtime/gptJsonConfig.cpp"
    ),
    version_rule(
        "TensorRT-LLM version: ",
        r"TensorRT-LLM version: (?P<version>[0-9][0-9a-z.+_-]{0,40})",
        "tensorrt_llm/__init__.py banner",
    ),
    version_rule(
        "TensorRT LLM version: ",
        r"TensorRT LLM version: (?P<version>[0-9][0-9a-z.+_-]{0,40})",
        "tensorrt_llm/__init__.py banner (1.1+: 'TensorRT LLM', no hyphen)",
    ),
)

EXPECTED: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("mem_usage",),
        "free memory: 'Memory usage when calculating max tokens in paged kv cache: total: T, available: A'",
    ),
    (("primary_blocks",), "blocks: 'Number of blocks in KV cache primary pool: B'"),
    (("tokens_per_block",), "block size: 'Number of tokens per block: T.'"),
    (
        ("allocated", "allocated_bytes", "using_tokens", "tokens_and_bytes"),
        "KV pool: '[MemUsageChange] Allocated X GiB for max tokens in paged KV cache (N).'",
    ),
)

SIGNATURES = ("[TensorRT-LLM]", "[TRT-LLM]", "paged KV cache", "paged kv cache", "TRTGptModel", "tokens per block")


# ------------------------------------------------------------------ calibration (kvcalc.startup_log.formats)
GIB_KEPT: frozenset[str] = frozenset()
"""No GiB flag of GIB_FLAGS: the token count pins the pool; without one, ``flags`` takes the free memory."""


def flags(log: StartupLog, block_bytes: int | None) -> Flags:
    """``--max-tokens-in-paged-kv-cache`` and ``--tokens-per-block``; with no token count, the C++ runtime's
    free memory instead: "Memory usage when calculating max tokens in paged kv cache: total: T GiB,
    available: A GiB" (``BaseKVCacheManager::calculateFreeMemBytes``, which only the C++ runtime prints)
    gives ``--gpu-mem-gib T``, everything outside the free memory as ``--weights-gib T - A`` (activation and
    runtime buffers 0: A is measured after them) and ``--trtllm-backend cpp``, so the primary pool's blocks
    are predicted from ``free_gpu_memory_fraction x A``. A log of a 0.x engine ("Engine version 0.13...")
    that prints no block size gets 64, the block size of ``trtllm-build`` engines of that line
    (kvcalc.trtllm.defaults.DEFAULT_TOKENS_PER_BLOCK).

    >>> from kvcalc.startup_log.parse import parse_startup_log
    >>> flags(parse_startup_log('''Engine version 0.13.0.dev2024082000
    ... [TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv cache: total: 39.39 GiB, \
available: 21.89 GiB'''), None)
    {'--gpu-mem-gib': 39.39, '--weights-gib': 17.5, '--activation-gib': 0.0, '--non-torch-gib': 0.0, \
'--trtllm-backend': 'cpp', '--tokens-per-block': 64}
    """
    out = pick(
        log,
        (
            ("kv_tokens", "--max-tokens-in-paged-kv-cache", int),
            ("tokens_per_block", "--tokens-per-block", int),
        ),
    )
    total, available = log.value("total_gpu_memory"), log.value("available")
    if "--max-tokens-in-paged-kv-cache" not in out and total is not None and available is not None:
        out.update({"--gpu-mem-gib": gib(total), "--weights-gib": round(gib(total) - gib(available), 6),
                    "--activation-gib": 0.0, "--non-torch-gib": 0.0, "--trtllm-backend": "cpp"})
    if "--tokens-per-block" not in out and (log.version or "").startswith("0."):
        out["--tokens-per-block"] = ENGINE_TOKENS_PER_BLOCK_0X
    return out


ENGINE_TOKENS_PER_BLOCK_0X = 64
"""Tokens per block of the engines ``trtllm-build`` made in the 0.x releases (kvcalc.trtllm.defaults
DEFAULT_TOKENS_PER_BLOCK; the memory.md and 0.1x Triton logs print "Number of tokens per block: 64.")."""


def band(log: StartupLog, tp: int, block: int) -> tuple[float, float, str] | None:
    """(low, high) KV bytes per token: "Allocated X GiB ... (N)" gives X / N within its rounding."""
    alloc, tokens = log.value("kv_allocated"), log.value("kv_tokens")
    if alloc is None or tokens is None or not tokens.amount:
        return None
    count = float(tokens.amount)
    return (
        (float(alloc.amount or 0) - alloc.tolerance) / count,
        (float(alloc.amount or 0) + alloc.tolerance) / count,
        f"{alloc.text} {alloc.unit} for {int(count):,} tokens",
    )
