"""vLLM startup-log line formats, 0.4 to 0.33 (V0 ``worker.py`` / ``model_runner.py`` and V1
``gpu_worker.py`` / ``gpu_model_runner.py`` / ``kv_cache_utils.py``).

Memory: vLLM prints GiB (``/ GiB_bytes``, 2**30) from 0.8 on; the "GB" of 0.4-0.7's "Loading model
weights took X GB" is ``/ float(2**30)`` as well. ``GPU KV cache size: N tokens`` is
``num_blocks x block_size`` (kv_cache_utils._report_kv_cache_config, 0.7.3+); ``Maximum concurrency
for L tokens per request: X.XXx`` is ``N / L`` printed with ``%.2f`` (same function; V0:
executor_base.initialize_cache with ``num_gpu_blocks x block_size / max_model_len``).
"""

from __future__ import annotations

from kvcalc.startup_log.rules import INT, NUM, Rule

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
        rf"the rest of the memory reserved for KV Cache is (?P<available_kv>{NUM}){GIB}",
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
    Rule(
        "version",
        "LLM engine (v",
        r"LLM engine \(v(?P<version>[0-9][0-9a-z.+_-]{0,40})\)",
        (("version", "text"),),
        "engine/llm_engine.py / v1/engine/core.py 'Initializing a V1 LLM engine (vX) with config'",
    ),
    Rule(
        "version",
        "  version ",
        r"  version (?P<version>[0-9][0-9a-z.+_-]{0,40})",
        (("version", "text"),),
        "entrypoints/utils.py banner, 0.11-0.33",
    ),
    Rule(
        "version",
        "vLLM API server version ",
        r"vLLM API server version (?P<version>[0-9][0-9a-z.+_-]{0,40})",
        (("version", "text"),),
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
