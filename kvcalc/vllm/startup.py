"""vLLM's startup, steps 1 and 2: the engine configuration, then the memory budget left for the KV cache (bytes).

Step 1, :func:`vllm_engine_config`, is ``EngineArgs.create_engine_config`` (vllm/engine/arg_utils.py):
the defaults the user left unset (batch limits for this GPU, dtypes, the backend's block size) and the
async scheduler's tokens in flight. Step 2, :func:`vllm_startup_budget`, is the worker's startup in
v1/worker/gpu_worker.py: ``init_device`` requests ``total x gpu_memory_utilization``, ``load_model``
loads the weights ("Model loading took X GiB"), ``determine_available_memory`` profiles one forward
pass and subtracts what it measured::

    available_kv_bytes = int(total x gpu_memory_utilization - (weights + activation + non_torch) - cuda_graph)

unless ``--kv-cache-memory`` gives ``available_kv_bytes`` directly (no profiling). The KV pool that
budget holds is step 3 (kvcalc.vllm.pool); the length and concurrency lines are step 4
(kvcalc.vllm.length). kvcalc.vllm.budget composes the four into ``vllm_memory_plan``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..dtypes import DType
from ..errors import InputError
from ..limits import MAX_BATCH, MAX_CONTEXT, check_count
from ..resolve import default_encoder_tokens
from ..spec import ModelSpec
from .activation import ActivationEstimate, estimate_activation_bytes
from .defaults import (
    DEFAULT_GPU_MEMORY_UTILIZATION,
    DEFAULT_NON_TORCH_BYTES,
    EngineDefaults,
    UsageContext,
    default_block_size,
    default_max_num_batched_tokens,
    default_max_num_seqs,
    engine,
    vllm_dtypes,
)
from .lora import LoraConfig, check_lora_parallel, lora_bytes

AUTO_FIT = -1
"""``--max-model-len -1``: vLLM 0.33 fits ``max_model_len`` to the KV memory."""


def check_bytes(name: str, value: Any, minimum: int = 0) -> int:
    """``value`` as a byte count in ``[minimum, 2**50]``; InputError otherwise (bool refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a whole number of bytes, got {value!r:.40}")
    if not minimum <= value <= 1 << 50:
        raise InputError(f"{name} must be between {minimum:,} and {1 << 50:,} bytes, got {value:,}")
    return value


@dataclass(frozen=True)
class VllmEngineConfig:
    """The engine arguments one plan runs with, after vLLM's defaults (tokens, requests, bytes).

    ``max_model_len`` is :data:`AUTO_FIT` (-1) until step 4 fits it, ``derived_max_model_len`` then
    caps the fit (0 otherwise). ``block_size`` is the one asked for or the backend's default, before
    the hybrid allocator aligns it (step 3). ``max_in_flight_tokens = max_num_batched_tokens x
    max_concurrent_batches`` (``VllmConfig.max_in_flight_tokens``, config/vllm.py); ``encoder_tokens``
    is the model's own encoder length, else ``max_num_batched_tokens`` (the default
    ``max_num_encoder_input_tokens``).
    """

    engine: EngineDefaults
    total_gpu_bytes: int
    gpu_memory_utilization: float
    max_model_len: int
    derived_max_model_len: int
    tensor_parallel_size: int
    pipeline_parallel_size: int
    max_num_batched_tokens: int
    max_num_seqs: int
    model_dtype: DType
    kv_dtype: DType
    block_size: int
    draft_layers: int
    max_in_flight_tokens: int
    encoder_tokens: int

    @property
    def auto_fit(self) -> bool:
        """``--max-model-len -1``: step 4 picks the length."""
        return self.max_model_len == AUTO_FIT


def _check_utilization(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise InputError(f"gpu_memory_utilization must be in (0, 1], got {value!r:.40}")
    return float(value)


def _check_lengths(max_model_len: int, derived_max_model_len: int | None) -> tuple[int, int]:
    """(max_model_len, derived maximum): the derived one is needed, and checked, only for auto-fit."""
    if max_model_len != AUTO_FIT:
        return check_count("max_model_len", max_model_len, 1, MAX_CONTEXT), 0
    if derived_max_model_len is None:
        raise InputError("max_model_len -1 (auto-fit) needs the model's derived maximum (derived_max_model_len)")
    return AUTO_FIT, check_count("derived_max_model_len", derived_max_model_len, 1, MAX_CONTEXT)


def _backend_block_size(spec: ModelSpec, kv: DType, block_size: int | None, version: str) -> int:
    """``block_size`` as given, else the attention backend's default (MLA / DSA models may get 64)."""
    if block_size is None:
        mla = [a for layer in spec.layers for a in layer.attention if a.latent_dim]
        block_size = default_block_size(bool(mla), kv, version, sparse=any(a.indexer_dim for a in mla))
    return check_count("block_size", block_size, 1, 1 << 16)


def vllm_engine_config(spec: ModelSpec, *, total_gpu_bytes: int, max_model_len: int,
                       gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION,
                       block_size: int | None = None, kv_cache_dtype: "str | DType | None" = None,
                       dtype: "str | DType | None" = None, tensor_parallel_size: int = 1,
                       pipeline_parallel_size: int = 1, max_num_batched_tokens: int | None = None,
                       max_num_seqs: int | None = None, usage_context: UsageContext = "server",
                       gpu_name: str = "", vllm_version: str | None = None,
                       derived_max_model_len: int | None = None, draft_layers: int = 0) -> VllmEngineConfig:
    """Step 1: the checked engine arguments with vLLM's defaults filled in (``EngineArgs.create_engine_config``).

    ``max_num_batched_tokens`` / ``max_num_seqs``: ``EngineArgs.get_batch_defaults`` for this GPU and
    ``usage_context`` (kvcalc.vllm.defaults); dtypes: ``ModelConfig``'s ``auto``; ``block_size``: the
    backend's (``resolve_kv_cache_block_sizes``, v1/core/kv_cache_utils.py). Arguments as for
    :func:`~kvcalc.vllm.budget.vllm_memory_plan`.

    Llama 3.1 8B on an 80 GiB GPU: a GPU of at least 70 GiB that is no A100 gets 8,192 batched tokens
    and 1,024 sequences for ``vllm serve``; 0.33 keeps two batches in flight, 2 x 8,192 tokens; the
    bfloat16 checkpoint caches bfloat16 K/V in the FLASH_ATTN backend's 16-token blocks:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> c = vllm_engine_config(spec, total_gpu_bytes=80 * 2**30, max_model_len=8192)
    >>> c.max_num_batched_tokens, c.max_num_seqs, c.max_in_flight_tokens
    (8192, 1024, 16384)
    >>> c.kv_dtype.name, c.block_size, c.auto_fit
    ('bfloat16', 16, False)
    """
    e = engine(vllm_version)
    total = check_bytes("total_gpu_bytes", total_gpu_bytes, 1)
    utilization = _check_utilization(gpu_memory_utilization)
    max_model_len, derived_max = _check_lengths(max_model_len, derived_max_model_len)
    tp = check_count("tensor_parallel_size", tensor_parallel_size, 1, 4096)
    pp = check_count("pipeline_parallel_size", pipeline_parallel_size, 1, 4096)
    if gpu_name is None or not isinstance(gpu_name, str):
        raise InputError("gpu_name must be a string")
    mnbt = default_max_num_batched_tokens(total, usage_context, gpu_name, e.version) \
        if max_num_batched_tokens is None else check_count("max_num_batched_tokens", max_num_batched_tokens, 1,
                                                            MAX_CONTEXT)
    seqs = default_max_num_seqs(total, mnbt, gpu_name, e.version) if max_num_seqs is None \
        else check_count("max_num_seqs", max_num_seqs, 1, MAX_BATCH)
    model, kv = vllm_dtypes(spec, dtype, kv_cache_dtype)
    return VllmEngineConfig(
        engine=e, total_gpu_bytes=total, gpu_memory_utilization=utilization, max_model_len=max_model_len,
        derived_max_model_len=derived_max, tensor_parallel_size=tp, pipeline_parallel_size=pp,
        max_num_batched_tokens=mnbt, max_num_seqs=seqs, model_dtype=model, kv_dtype=kv,
        block_size=_backend_block_size(spec, kv, block_size, e.version),
        draft_layers=check_count("draft_layers", draft_layers, 0, 64),
        max_in_flight_tokens=mnbt * e.max_concurrent_batches, encoder_tokens=default_encoder_tokens(spec, mnbt))


@dataclass(frozen=True)
class VllmStartupBudget:
    """Step 2's record: what the worker measured at startup and the KV budget it leaves (bytes).

    ``weights_bytes`` is what stays on the GPU: the checkpoint's weights less
    ``weights_offloaded_bytes`` (``--cpu-offload-gb``) plus ``lora_bytes`` (``--enable-lora``).
    ``activation_estimate`` is kvcalc's estimate when no activation figure was given (None
    otherwise); ``cuda_graph_assumed``: the release's assumption stood in for a measured figure.
    ``available_kv_bytes`` may be negative (no memory left).
    """

    requested_bytes: int
    weights_bytes: int
    weights_offloaded_bytes: int
    lora_bytes: int
    activation_bytes: int
    activation_estimate: ActivationEstimate | None
    non_torch_bytes: int
    non_torch_estimated: bool
    cuda_graph_bytes: int
    cuda_graph_assumed: bool
    kv_cache_memory_given: bool
    available_kv_bytes: int


def loaded_weights(spec: ModelSpec, config: VllmEngineConfig, weights_bytes: int, cpu_offload_bytes: int = 0,
                   lora: LoraConfig | None = None) -> tuple[int, int, int]:
    """(bytes on the GPU, bytes offloaded, LoRA bytes) after loading (``GPUModelRunner.load_model``,
    v1/worker/gpu_model_runner.py).

    ``offloaded = min(weights, cpu_offload_bytes)`` (``--cpu-offload-gb`` x 2**30, ``UVAOffloader``,
    model_executor/offloader/uva.py; vLLM moves whole parameters, so up to one parameter more: a
    stated approximation); the LoRA manager's buffers (kvcalc.vllm.lora) count with the weights, as
    "Model loading took" does. ``on GPU = weights - offloaded + lora``:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> c = vllm_engine_config(spec, total_gpu_bytes=80 * 2**30, max_model_len=8192)
    >>> loaded_weights(spec, c, 15 * 2**30, cpu_offload_bytes=4 * 2**30) == (11 * 2**30, 4 * 2**30, 0)
    True
    """
    weights = check_bytes("weights_bytes", weights_bytes)
    offloaded = min(weights, check_bytes("cpu_offload_bytes", cpu_offload_bytes))
    if lora is None:
        return weights - offloaded, offloaded, 0
    check_lora_parallel(spec, lora, config.tensor_parallel_size, config.pipeline_parallel_size)
    adapters = lora_bytes(spec, lora, config.model_dtype, tensor_parallel_size=config.tensor_parallel_size,
                          max_num_batched_tokens=config.max_num_batched_tokens, max_num_seqs=config.max_num_seqs)
    return weights - offloaded + adapters, offloaded, adapters


def vllm_startup_budget(spec: ModelSpec, config: VllmEngineConfig, *, weights_bytes: int,
                        cpu_offload_bytes: int = 0, lora: LoraConfig | None = None,
                        activation_bytes: int | None = None, non_torch_bytes: int | None = None,
                        cuda_graph_bytes: int | None = None, kv_cache_memory: int | None = None,
                        dtype: "str | DType | None" = None,
                        intermediate_size: int | None = None) -> VllmStartupBudget:
    """Step 2: the KV budget of one GPU (``Worker.init_device``, ``Worker.determine_available_memory``;
    v1/worker/gpu_worker.py).

    ``available = int(total x gpu_memory_utilization - (weights + activation + non_torch) - cuda_graph)``
    bytes, or ``kv_cache_memory`` when given. Unset figures: the activation peak is
    :func:`~kvcalc.vllm.activation.estimate_activation_bytes` (``dtype`` and ``intermediate_size``
    feed it, the MLP width defaulting to the spec's), non-torch ``DEFAULT_NON_TORCH_BYTES`` (64 MiB),
    CUDA graphs the release's ``cuda_graph_assumed_bytes`` (0.33: 0.67 GiB; 0.10: 0).

    80 GiB at 0.9 requests 72 GiB; 15 GiB of weights, a 2 GiB activation peak, 64 MiB non-torch and
    0.5 GiB of CUDA graphs leave 72 - 15 - 2 - 0.0625 - 0.5 = 54.4375 GiB:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> c = vllm_engine_config(spec, total_gpu_bytes=80 * 2**30, max_model_len=8192)
    >>> b = vllm_startup_budget(spec, c, weights_bytes=15 * 2**30, activation_bytes=2 * 2**30,
    ...                         cuda_graph_bytes=2**29)
    >>> b.requested_bytes / 2**30, b.non_torch_bytes / 2**20, b.available_kv_bytes / 2**30
    (72.0, 64.0, 54.4375)
    """
    e = config.engine
    weights, offloaded, adapters = loaded_weights(spec, config, weights_bytes, cpu_offload_bytes, lora)
    estimate = None
    if activation_bytes is None:
        estimate = estimate_activation_bytes(spec, max_num_batched_tokens=config.max_num_batched_tokens,
                                             max_num_seqs=config.max_num_seqs, dtype=dtype,
                                             tensor_parallel_size=config.tensor_parallel_size,
                                             intermediate_size=intermediate_size or spec.mlp_width)
        activation = estimate.peak_bytes
    else:
        activation = check_bytes("activation_bytes", activation_bytes)
    cuda_graph = e.cuda_graph_assumed_bytes if cuda_graph_bytes is None \
        else check_bytes("cuda_graph_bytes", cuda_graph_bytes)
    non_torch = DEFAULT_NON_TORCH_BYTES if non_torch_bytes is None else check_bytes("non_torch_bytes", non_torch_bytes)
    requested = config.total_gpu_bytes * config.gpu_memory_utilization
    if kv_cache_memory is not None:
        available = check_bytes("kv_cache_memory", kv_cache_memory)
    else:
        available = int(requested - (weights + activation + non_torch) - cuda_graph)
    return VllmStartupBudget(
        requested_bytes=int(requested), weights_bytes=weights, weights_offloaded_bytes=offloaded, lora_bytes=adapters,
        activation_bytes=activation, activation_estimate=estimate, non_torch_bytes=non_torch,
        non_torch_estimated=non_torch_bytes is None, cuda_graph_bytes=cuda_graph,
        cuda_graph_assumed=cuda_graph_bytes is None, kv_cache_memory_given=kv_cache_memory is not None,
        available_kv_bytes=available)
