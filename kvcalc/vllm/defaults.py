"""vLLM's engine defaults and constants, and its dtype resolution (bytes; GiB = 2**30).

Every release-dependent number and rule kvcalc uses for vLLM lives in one :class:`EngineDefaults`
record per release line, ``ENGINES[vllm_version]``: ``"0.33"`` (vLLM 0.33.0, the default,
:data:`DEFAULT_VLLM_VERSION`) and ``"0.10"`` (the v1 engine up to v0.10.x, and the V0 engine's
block arithmetic before it: the releases of the three public startup logs in tests/fast/test_vllm.py).
``ENGINE_DEFAULTS`` is the default release's record. Where a rule changed, the field's comment
names the vLLM file and function of 0.33.0 that has it; the release it changed in is "after
v0.10.2, at or before v0.33.0" (kvcalc has no finer history than these two reference points).

Sources (vllm-project/vllm, read, not copied): ``config/cache.py`` (``CacheConfig.block_size``,
``gpu_memory_utilization``), ``config/scheduler.py`` (``DEFAULT_MAX_NUM_BATCHED_TOKENS``),
``engine/arg_utils.py`` (``EngineArgs`` batch defaults per usage context and GPU size),
``v1/worker/gpu_worker.py`` (the ``--kv-cache-memory`` suggestion), ``config/model.py`` (the
``dtype="auto"`` resolution).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..dtypes import BFLOAT16, DType
from ..errors import InputError, UnsupportedError
from ..resolve import resolve_dtypes
from ..spec import ModelSpec
from ..units import GiB, MiB

UsageContext = Literal["server", "offline"]


@dataclass(frozen=True)
class EngineDefaults:
    """The numbers one vLLM release line uses when the user sets nothing (bytes, tokens, requests).

    Pairs are ``(other GPUs, large GPUs)``: a large GPU has at least ``large_gpu_bytes`` and is not
    an A100 (``EngineArgs``); ``xl_*`` is 0.33's third tier (``EngineArgs.get_batch_defaults``:
    ``>= 160 GiB``, B200 / B300; None = no such tier).
    """

    version: str = "0.10"

    block_size: int = 16                       # CacheConfig.block_size on CUDA (tokens per block)
    gpu_memory_utilization: float = 0.9        # CacheConfig.gpu_memory_utilization
    scheduler_max_num_batched_tokens: int = 2048   # SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS
    server_max_num_batched_tokens: tuple[int, int] = (2048, 8192)     # vllm serve (OpenAI server)
    offline_max_num_batched_tokens: tuple[int, int] = (8192, 16384)   # the offline LLM class
    max_num_seqs: tuple[int, int] = (256, 1024)
    large_gpu_bytes: int = 70 * GiB
    non_torch_bytes: int = 64 * MiB
    sampler_bytes_per_logit: int = 28
    cuda_graph_safety_bytes: int = 150 * MiB
    xl_gpu_bytes: int | None = None
    xl_max_num_batched_tokens: int = 16384     # both usage contexts on the >= 160 GiB tier
    max_concurrent_batches: int = 1
    """Batches in flight: 2 with async scheduling (on by default in 0.33, ``VllmConfig.max_in_flight_tokens``
    = ``max_concurrent_batches x max_num_batched_tokens``, config/vllm.py); the sliding-window and
    chunked-local footprints count ``max_in_flight_tokens`` (``SlidingWindowSpec.max_admission_blocks_per_request``,
    v1/kv_cache_interface.py). 0.10: 1 (``W - 1 + max_num_batched_tokens``)."""
    tokens_from_concurrency: bool = False
    """"GPU KV cache size": 0.33 prints ``int(max_concurrency x max_model_len)`` (``get_kv_cache_capacity``,
    v1/core/kv_cache_utils.py); 0.10 printed ``num_blocks // len(groups) x block_size``."""
    reserves_null_block: bool = False
    """0.33 holds back the null block (one pool block) before the ``max_model_len`` fit check and the
    estimated maximum model length (``check_enough_kv_cache_memory``, v1/core/kv_cache_planning.py)."""
    one_capacity_line: bool = False
    """0.33 logs "GPU KV cache size: N tokens, Maximum concurrency for L tokens per request: X.XXx" as one
    line (``update_kv_cache_capacity``); 0.10 printed two."""
    cuda_graph_assumed_bytes: int = 0
    """CUDA-graph bytes subtracted when none is measured. 0.33 subtracts its profiler's estimate by default
    (``Worker.determine_available_memory``, v1/worker/gpu_worker.py, ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1``
    in envs.py); the estimate is measured by capturing graphs (``GPUModelRunner.profile_cudagraph_memory``)
    and cannot be computed from a config, so kvcalc assumes the 0.67 GiB the public H100 log shows
    (tests/fast/test_vllm.py, log 1) and says so in the plan's notes. 0.10 subtracted nothing by default."""
    long_max_model_len_factor_types: tuple[str, ...] = ("su", "longrope", "llama3")
    """RoPE types whose ``factor`` does NOT multiply the derived maximum model length
    (``_get_and_verify_max_len``, config/model.py); 0.33 adds the YaRN family, whose
    ``max_position_embeddings`` is already scaled."""
    no_memory_error: str = ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                            "when initializing the engine.")
    """The ValueError of ``_check_enough_kv_cache_memory`` when the KV budget is not positive."""
    max_model_len_error: str = (
        "To serve at least one request with the model's max seq len ({mml}), ({need} GiB KV cache is "
        "needed, which is larger than the available KV cache memory ({avail} GiB). {est}Try increasing "
        "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.")
    """The ValueError of ``_check_enough_kv_cache_memory`` when one max_model_len request does not fit
    (``{need}`` / ``{avail}``: ``format_gib``, ``round(bytes / 2**30, 2)``; ``{est}``: the estimate sentence)."""


ENGINE_0_10 = EngineDefaults()
"""The v1 engine's rules up to v0.10.x (the releases of the startup logs the tests reproduce)."""

ENGINE_0_33 = EngineDefaults(
    version="0.33", xl_gpu_bytes=160 * GiB, max_concurrent_batches=2, tokens_from_concurrency=True,
    reserves_null_block=True, one_capacity_line=True, cuda_graph_assumed_bytes=round(0.67 * GiB),
    long_max_model_len_factor_types=("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"),
    no_memory_error=("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                     "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, "
                     "despite its name). See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ "
                     "for more details."),
    max_model_len_error=(
        "To serve at least one request with the model's max seq len ({mml}), ({need} GiB KV cache is needed, "
        "which is larger than the available KV cache memory ({avail} GiB). {est}Try increasing "
        "`gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing "
        "`max_model_len` when initializing the engine. "
        "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."),
)
"""vLLM 0.33.0 (every field's docstring names its 0.33 source)."""

ENGINES: dict[str, EngineDefaults] = {"0.10": ENGINE_0_10, "0.33": ENGINE_0_33}
"""The release lines kvcalc models, by ``vllm_version``."""

DEFAULT_VLLM_VERSION = "0.33"
"""The ``vllm_version`` a plan follows when none is named: vLLM as people run it today."""

ENGINE_DEFAULTS = ENGINES[DEFAULT_VLLM_VERSION]
"""The default release's record."""


def engine(vllm_version: str | None = None) -> EngineDefaults:
    """The :class:`EngineDefaults` of ``vllm_version`` ("0.33", "0.10"; a patch "0.33.0" is accepted).

    >>> engine().version, engine("v0.33.0").version, engine("0.10.2").max_concurrent_batches
    ('0.33', '0.33', 1)
    """
    v = DEFAULT_VLLM_VERSION if vllm_version is None else vllm_version
    if not isinstance(v, str):
        raise InputError(f"vllm_version must be a string such as '0.33', got {v!r:.40}")
    key = v.strip().lstrip("v")
    parts = key.split(".")
    if len(parts) >= 2:
        key = ".".join(parts[:2])
    if key not in ENGINES:
        raise InputError(f"vllm_version {v[:40]!r} is not modelled; choose one of {', '.join(sorted(ENGINES))}")
    return ENGINES[key]

DEFAULT_BLOCK_SIZE = ENGINE_DEFAULTS.block_size
"""vLLM ``CacheConfig.block_size`` default on CUDA (tokens per block)."""

DEFAULT_GPU_MEMORY_UTILIZATION = ENGINE_DEFAULTS.gpu_memory_utilization
"""``--gpu-memory-utilization`` default: the fraction of the device total vLLM may use (``requested_memory``)."""

SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS = ENGINE_DEFAULTS.scheduler_max_num_batched_tokens
"""``SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS``; also the online-server default on GPUs < 70 GiB."""

SAMPLER_BYTES_PER_LOGIT = ENGINE_DEFAULTS.sampler_bytes_per_logit
"""Bytes the profiling sampler holds at its peak per element of the ``[num_reqs, vocab]`` logits.

vLLM's ``_dummy_sampler_run`` samples with temperature 0.5, top-k = vocab - 1 and top-p = 0.9, so the
PyTorch top-k/top-p path (``apply_top_k_top_p``) runs on every row. At the re-scatter, alive at once:
the model-dtype logits (2 B, still referenced by the caller), their float32 copy (4,
``Sampler.forward``), the sorted values (4) and int64 sort indices (8), the top-k bool mask (1), the
top-p softmax/cumsum buffer (4), the top-p bool mask (1) and the scattered output (4): 28 B.
Releases with FlashInfer or Triton top-k/top-p kernels hold less.
"""

DEFAULT_NON_TORCH_BYTES = ENGINE_DEFAULTS.non_torch_bytes
"""Default non-torch increase during profiling (CUDA / cuBLAS / NCCL allocations outside torch).

The v1 logs in tests/fast/test_vllm.py show 0.07 GiB (H100, v0.10.2) and 0.06 GiB (16 GB card):
64 MiB (0.0625 GiB). Multi-GPU runs can show more (NCCL, custom all-reduce buffers); pass a
measured figure.
"""

CUDA_GRAPH_SAFETY_BYTES = ENGINE_DEFAULTS.cuda_graph_safety_bytes
"""``redundancy_buffer_memory`` vLLM subtracts in its ``--kv-cache-memory`` suggestion (gpu_worker.py)."""

LARGE_GPU_BYTES = ENGINE_DEFAULTS.large_gpu_bytes
"""``EngineArgs``: GPUs with at least this much memory (except A100s) get the larger batch defaults."""


def _is_large_gpu(total_gpu_bytes: int, gpu_name: str) -> bool:
    return total_gpu_bytes >= LARGE_GPU_BYTES and "a100" not in gpu_name.lower()


def _is_xl_gpu(total_gpu_bytes: int, e: EngineDefaults) -> bool:
    return e.xl_gpu_bytes is not None and total_gpu_bytes >= e.xl_gpu_bytes


def default_max_num_batched_tokens(total_gpu_bytes: int, usage_context: UsageContext = "server",
                                   gpu_name: str = "", vllm_version: str | None = None) -> int:
    """vLLM v1's default ``max_num_batched_tokens`` (``EngineArgs.get_batch_defaults``, chunked prefill on), in tokens.

    0.33: GPUs with >= 160 GiB (B200, B300) 16384 in both usage contexts. GPUs with >= 70 GiB
    that are not A100s (H100, H200, MI300X): 8192 for the OpenAI server (``vllm serve``), 16384 for
    the offline ``LLM`` class; other GPUs: 2048 / 8192. (It is *not* ``max(max_model_len, ...)``:
    that was the V0 rule without chunked prefill.) The 160 GiB tier is new in 0.33 (0.10: none).

    An H100 80GB (85,520,809,984 B >= 70 GiB), an A100 80GB (excluded by name), a 180 GiB B200:

    >>> h100 = 85520809984
    >>> default_max_num_batched_tokens(h100), default_max_num_batched_tokens(h100, "offline")
    (8192, 16384)
    >>> a100, b200 = dict(gpu_name="NVIDIA A100-SXM4-80GB"), 180 * GiB
    >>> default_max_num_batched_tokens(h100, **a100), default_max_num_batched_tokens(b200)
    (2048, 16384)
    """
    e = engine(vllm_version)
    if usage_context == "server":
        pair = e.server_max_num_batched_tokens
    elif usage_context == "offline":
        pair = e.offline_max_num_batched_tokens
    else:
        raise InputError(f"usage_context must be 'server' or 'offline', got {str(usage_context)[:40]!r}")
    if _is_xl_gpu(total_gpu_bytes, e):
        return e.xl_max_num_batched_tokens
    return pair[_is_large_gpu(total_gpu_bytes, gpu_name)]


def default_max_num_seqs(total_gpu_bytes: int, max_num_batched_tokens: int, gpu_name: str = "",
                         vllm_version: str | None = None) -> int:
    """vLLM v1's default ``max_num_seqs``: 1024 on >= 70 GiB non-A100 GPUs (and every >= 160 GiB GPU
    in 0.33), else 256; at most the token budget.

    >>> default_max_num_seqs(80 * GiB, 8192), default_max_num_seqs(24 * GiB, 2048), default_max_num_seqs(24 * GiB, 128)
    (1024, 256, 128)
    """
    e = engine(vllm_version)
    large = _is_xl_gpu(total_gpu_bytes, e) or _is_large_gpu(total_gpu_bytes, gpu_name)
    return min(e.max_num_seqs[large], max_num_batched_tokens)


def default_block_size(mla: bool, kv: DType, vllm_version: str | None = None, sparse: bool = False) -> int:
    """The attention backend's default block size, in tokens (``CacheConfig.block_size`` left unset).

    0.33 lets the backend choose (``resolve_kv_cache_block_sizes``, v1/core/kv_cache_utils.py): on a
    Hopper GPU an MLA model with an fp8 KV cache runs FLASHMLA, whose kernel wants 64-token blocks
    (pinned by the oracle's DeepSeek-V3 fp8 case); DeepSeek sparse attention (``sparse``: a DSA
    indexer) runs FLASHMLA_SPARSE, 64 as well (its ``get_supported_kernel_block_sizes``; not
    oracle-checked); FLASH_ATTN / FLASH_ATTN_MLA / TRITON_ATTN keep 16. 0.10: 16 everywhere.
    Hybrid (mamba) models then align the attention block size to the mamba page (kvcalc.vllm.hybrid).

    >>> from kvcalc.dtypes import get_dtype
    >>> default_block_size(False, BFLOAT16), default_block_size(True, get_dtype("fp8"))
    (16, 64)
    >>> default_block_size(True, get_dtype("fp8"), "0.10"), default_block_size(True, BFLOAT16, sparse=True)
    (16, 64)
    """
    e = engine(vllm_version)
    if e.version != "0.10" and mla and (sparse or (kv.is_float and kv.bits == 8)):
        return 64
    return e.block_size


FP8_DS_MLA = DType("fp8_ds_mla", 8, True)
"""``--kv-cache-dtype fp8_ds_mla``: DeepSeek sparse attention's packed MLA format, 656 bytes per token
(512 fp8 NoPE values, 4 float32 scales, 64 bf16 RoPE values; ``MLAAttention.get_kv_cache_spec``'s
``state_content_bytes``, model_executor/layers/attention/mla_attention.py; v1/attention/backends/mla/
flashmla_sparse.py)."""

VLLM_KV_CACHE_DTYPES = ("auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_ds_mla")
"""The ``--kv-cache-dtype`` values of ``CacheDType`` (config/cache.py) kvcalc models."""


def vllm_dtypes(spec: ModelSpec, dtype: "str | DType | None",
                kv_dtype: "str | DType | None") -> tuple[DType, DType]:
    """(model dtype, KV-cache dtype) as vLLM resolves them.

    ``dtype="auto"`` (here ``None``) serves a float32 checkpoint in 16 bits (float16 in older
    releases, the platform's preferred type, bfloat16 here, since v0.10.1), and a config dtype
    narrower than 16 bits computes in 16 bits too; ``kv_cache_dtype="auto"`` (``None``) is the
    model dtype (``config/model.py``).
    vLLM's KV cache is a floating type (16-bit, or fp8 via ``--kv-cache-dtype fp8``, or
    :data:`FP8_DS_MLA` for DeepSeek sparse attention); the integer group-quantized types of
    :mod:`kvcalc.dtypes` have no vLLM equivalent.

    Llama 3.1 8B's bfloat16 checkpoint with an fp8 cache, and the same model saved in float32
    (served in bfloat16 under ``--dtype auto``):

    >>> from dataclasses import replace
    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> [d.name for d in vllm_dtypes(spec, None, "fp8")]
    ['bfloat16', 'fp8_e4m3']
    >>> [d.name for d in vllm_dtypes(replace(spec, dtype="float32"), None, None)]
    ['bfloat16', 'bfloat16']
    """
    ds_mla = kv_dtype == "fp8_ds_mla" or kv_dtype == FP8_DS_MLA
    if ds_mla:
        if not any(a.latent_dim and a.indexer_dim for layer in spec.layers for a in layer.attention):
            raise UnsupportedError("kv_cache_dtype fp8_ds_mla is vLLM's DeepSeek sparse-attention (DSA) format; "
                                   "this model has no DSA indexer: use fp8 or auto")
        kv_dtype = None
    try:
        model, kv = resolve_dtypes(spec, dtype, kv_dtype)
    except InputError:
        if isinstance(kv_dtype, str):
            raise InputError(f"kv_cache_dtype {kv_dtype[:30]!r} is not one of vLLM's: "
                             f"{', '.join(VLLM_KV_CACHE_DTYPES)}") from None
        raise
    if dtype is None and (model.bits != 16 or not model.is_float):
        model = BFLOAT16
        if kv_dtype is None:
            kv = model
    if ds_mla:
        return model, FP8_DS_MLA
    if not kv.is_float:
        raise UnsupportedError(f"vLLM has no '{kv.name}' KV-cache dtype; use fp8 or a 16-bit type")
    return model, kv


def element_bytes(d: DType) -> int:
    """Bytes per element of a floating dtype (vLLM's ``get_dtype_size``).

    >>> element_bytes(BFLOAT16), element_bytes(FP8_DS_MLA)
    (2, 1)
    """
    return d.bits // 8
