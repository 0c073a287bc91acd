"""One deployment, validated and built once: model x GPUs x runtime x dtypes x engine options.

``deploy(config, ...)`` reads the config, counts and places the weights, splits the model over
tensor- and pipeline-parallel ranks and compiles each stage's cache; everything that does not
depend on batch and context. ``plan`` (kvcalc.plan), ``memory_curve`` (kvcalc.curve),
``layer_bytes`` (kvcalc.layer_table) and ``fewest_gpus`` all read from one :class:`Deployment`,
so the headline, the chart and the per-layer table cannot disagree. A page builds it once per
rerun and hands it to each of them.

Units: bytes (GiB = 2**30 bytes), tokens.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .activations import forward_activation_bytes
from .architectures import read_spec
from .dtypes import DType, ceil_div, get_dtype
from .engine import EngineMemoryPlan, check_full_attention, stage_cell_bytes
from .errors import InputError, UnsupportedError
from .gguf.mixes import GgufWeights, gguf_weights
from .gguf.reader import GGUFHeader
from .gpus import GPU, custom_gpu, get_gpu
from .kv import check_no_prefix_tokens, resolve_dtypes
from .limits import MAX_CONTEXT, MAX_GPUS, check_count
from .llama_cpp import LlamaCppOptions, LlamaCppPlan, llama_cpp_plan
from .llama_cpp.seam import to_engine_plan
from .parallel import check_parallel, rank_spec, rank_weights, resolve_parallel, stage_specs
from .runtimes import ENGINE_LABELS, ENGINE_RUNTIMES, Runtime, check_runtime
from .sglang import LONG_CONTEXT_ERROR, SglangOptions, sglang_memory_plan, sglang_options
from .spec import ModelSpec, Quality, combine_quality
from .sweep import CompiledCache, compile_cache
from .trtllm import (
    DEFAULT_MAX_NUM_TOKENS,
    DEFAULT_RUNTIME_RESERVED_BYTES,
    TrtllmOptions,
    trtllm_memory_plan,
    trtllm_options,
)
from .units import GiB
from .vllm import DEFAULT_GPU_MEMORY_UTILIZATION, RequestBlocks, VllmMemoryPlan, vllm_memory_plan
from .vllm.budget import AUTO_FIT
from .vllm.defaults import DEFAULT_VLLM_VERSION, engine, vllm_dtypes
from .vllm.lora import LoraConfig, check_lora_config, check_lora_model, check_lora_parallel
from .vllm.model_len import ASSUMED_MAX_MODEL_LEN, check_max_model_len, derived_max_model_len
from .vllm.removed import served_note
from .vllm.speculative import SpeculativeConfig, parse_speculative_config, speculative_kv_layers
from .weights import WeightBytes, WeightPart, plan_weights

DEFAULT_GPU = "h100-sxm"
"""The catalog GPU a plan uses when none is named."""

MAX_BLOCK_SIZE = 1 << 16
MAX_KV_CACHE_MEMORY = 1 << 50
MAX_OVERRIDE_GIB = float(1 << 20)
NO_SGLANG = SglangOptions()
NO_TRTLLM = TrtllmOptions()
NO_LLAMA_CPP = LlamaCppOptions()
LLAMA_CPP_FLAGS = ("n_ctx", "n_parallel", "kv_unified", "cache_type_k", "cache_type_v", "n_gpu_layers", "swa_full",
                   "flash_attn", "kv_offload", "n_batch", "n_ubatch")
"""llama.cpp's flags :func:`deploy` takes, under kvcalc.llama_cpp.LlamaCppOptions' names (-c, -np, -kvu, -ctk, -ctv,
-ngl, --swa-full, -fa, -nkvo, -b, -ub)."""
FEWEST_GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)
"""GPU counts ``fewest_gpus`` tries, in order (powers of two, as tensor-parallel sizes are)."""


@dataclass(frozen=True)
class VllmOptions:
    """vLLM's own engine options, under vLLM's names (``vllm serve --gpu-memory-utilization`` ...).

    ``None`` means vLLM's default for this GPU (kvcalc.vllm: ``EngineArgs`` batch defaults; the
    attention backend's block size). ``kv_cache_memory`` is bytes (``--kv-cache-memory``), replacing
    the whole budget. ``vllm_version`` picks the release whose rules apply (kvcalc.vllm.defaults.ENGINES).
    ``allow_long_max_model_len`` is ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``. ``speculative_config`` is
    ``--speculative-config`` (kvcalc.vllm.speculative: the drafter's KV layers); ``cpu_offload_gb``
    ``--cpu-offload-gb`` (GiB of weights per GPU vLLM keeps in CPU memory); ``lora`` ``--enable-lora`` with
    its ``--max-loras`` / ``--max-lora-rank`` / ... (kvcalc.vllm.lora: bytes added to the weights; None = off)."""

    gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION
    block_size: int | None = None
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    kv_cache_memory: int | None = None
    vllm_version: str = DEFAULT_VLLM_VERSION
    allow_long_max_model_len: bool = False
    speculative_config: SpeculativeConfig | None = None
    cpu_offload_gb: float = 0.0
    auto_fit_max_model_len: bool = False    # --max-model-len -1 / auto (vLLM 0.33): fit it to the KV memory
    lora: LoraConfig | None = None


@dataclass(frozen=True)
class MeasuredOverrides:
    """Figures measured on a real run that replace kvcalc's computed ones (bytes per GPU; None = computed).

    ``weights_bytes`` holds only for the GPU count it was measured at."""

    weights_bytes: int | None = None
    activation_bytes: int | None = None
    non_torch_bytes: int | None = None
    cuda_graph_bytes: int | None = None


@dataclass(frozen=True)
class Deployment:
    """A validated deployment before batch and context are chosen (build it with :func:`deploy`).

    ``spec`` is the whole model; ``rank`` what one tensor-parallel rank holds; ``stage_caches``
    one rank's compiled cache per pipeline stage and ``total_cache`` the whole model's (both for
    the ``ideal`` / ``transformers`` runtimes; vLLM pages instead). ``weights_rank`` is the weight
    bytes on the busiest GPU; ``context_cap`` the longest context allowed (``max_model_len``, else
    the model's ``max_position_embeddings``, else :data:`~kvcalc.limits.MAX_CONTEXT`)."""

    config: Mapping[str, Any]
    spec: ModelSpec
    rank: ModelSpec
    runtime: Runtime
    gpu: GPU
    gpus: int
    tp: int
    pp: int
    dtype: str | None               # the weights dtype asked for (None = the checkpoint's)
    kv_dtype: str | None            # the KV dtype asked for (None = the model dtype)
    model_dtype: DType              # resolved: what activations (and so K/V) compute in
    kv: DType                       # resolved KV element type
    weights: WeightBytes            # what the plan uses (the Hub checkpoint's size when known)
    weights_computed: WeightBytes   # from the config alone
    weights_rank: int
    max_model_len: int | None
    context_cap: int
    vllm: VllmOptions
    measured: MeasuredOverrides
    checkpoint_bytes: int | None = None
    explicit_parallel: bool = False  # tp / pp were given, not derived from the GPU count
    stage_caches: tuple[CompiledCache, ...] = ()
    total_cache: CompiledCache | None = None
    sglang: SglangOptions = SglangOptions()      # runtime 'sglang': SGLang's flags (kvcalc.sglang)
    trtllm: TrtllmOptions = TrtllmOptions()      # runtime 'tensorrt_llm': its KvCacheConfig / serve options
    llama_cpp: LlamaCppOptions = NO_LLAMA_CPP    # runtime 'llama_cpp': its flags (kvcalc.llama_cpp)
    gguf: GgufWeights | None = None              # runtime 'llama_cpp': the GGUF file's weights (mix or header)
    # built-once results per object (vLLM budget, blocks, layouts); never copied by dataclasses.replace
    _memo: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    @property
    def weights_quality(self) -> str:
        """``given`` (weights_gib, or the checkpoint's own size), else the parameter count's quality."""
        if self.gguf is not None:
            return self.gguf.quality
        if self.measured.weights_bytes is not None or (self.checkpoint_bytes is not None and self.dtype is None):
            return "given"
        return self.weights_computed.params.quality

    @property
    def quality(self) -> str:
        """kvcalc.spec.Quality of the plan: the KV rules' and, unless given, the weight count's."""
        w: Quality = "estimated" if self.weights_quality == "estimated" else "exact"
        return combine_quality(self.spec.quality, w)

    @property
    def architectures(self) -> tuple[str, ...]:
        """The config's ``architectures`` (what the engines' model registries read)."""
        return _architectures(self.config)

    # ------------------------------------------------------------------ vLLM, built once per deployment
    def vllm_max_model_len(self) -> int:
        """vLLM's ``max_model_len``: the one given, else (as vLLM) the model's derived maximum
        (kvcalc.vllm.model_len, RoPE factors included), else vLLM's assumed 2048 for a config without a length
        key (or the cap when no config dict is known)."""
        if self.max_model_len:
            return self.max_model_len
        got = derived_max_model_len(self.config, self.vllm.vllm_version, self.spec.max_position_embeddings)
        if got is None and self.config:
            return ASSUMED_MAX_MODEL_LEN
        return min(int(got[0]), MAX_CONTEXT) if got else self.context_cap

    def vllm_plan(self, max_model_len: int | None = None) -> VllmMemoryPlan:
        """vLLM's startup budget for this deployment (kvcalc.vllm.vllm_memory_plan), memoized."""
        auto = max_model_len is None and self.vllm.auto_fit_max_model_len
        mml = AUTO_FIT if auto else max_model_len or self.vllm_max_model_len()
        key = ("vllm_plan", mml)
        if key not in self._memo:
            o, m = self.vllm, self.measured
            self._memo[key] = vllm_memory_plan(
                self.spec, total_gpu_bytes=self.gpu.memory_bytes, weights_bytes=self.weights_rank,
                gpu_memory_utilization=o.gpu_memory_utilization, max_model_len=mml, block_size=o.block_size,
                kv_cache_dtype=self.kv_dtype, dtype=self.dtype, tensor_parallel_size=self.tp,
                pipeline_parallel_size=self.pp, max_num_batched_tokens=o.max_num_batched_tokens,
                max_num_seqs=o.max_num_seqs, activation_bytes=m.activation_bytes, non_torch_bytes=m.non_torch_bytes,
                cuda_graph_bytes=m.cuda_graph_bytes, kv_cache_memory=o.kv_cache_memory, gpu_name=self.gpu.name,
                vllm_version=o.vllm_version, draft_layers=self.draft_layers(),
                derived_max_model_len=self.vllm_max_model_len() if auto else None,
                cpu_offload_bytes=int(o.cpu_offload_gb * GiB), lora=o.lora)
        plan: VllmMemoryPlan = self._memo[key]
        return plan

    # ------------------------------------------------------------------ llama.cpp (kvcalc.llama_cpp)
    def llama_plan(self) -> LlamaCppPlan:
        """llama.cpp's allocation for this deployment (kvcalc.llama_cpp.llama_cpp_plan), memoized."""
        if "llama_plan" not in self._memo:
            if self.runtime != "llama_cpp" or self.gguf is None:
                raise InputError(f"runtime {self.runtime!r} has no llama.cpp plan; use runtime 'llama_cpp'")
            self._memo["llama_plan"] = llama_cpp_plan(self.spec, self.llama_cpp, self.gguf, self.gpu.memory_bytes)
        lp: LlamaCppPlan = self._memo["llama_plan"]
        return lp

    # ------------------------------------------------------------------ SGLang, TensorRT-LLM, llama.cpp (kvcalc.engine)
    def engine_plan(self) -> EngineMemoryPlan:
        """The engine's budget and pool for this deployment (runtimes 'sglang', 'tensorrt_llm',
        'llama_cpp'), memoized. Measured ``non_torch_gib`` replaces the assumed memory outside weights / KV /
        activations, ``activation_gib`` TensorRT-LLM's estimated activation peak."""
        if "engine_plan" in self._memo:
            cached: EngineMemoryPlan = self._memo["engine_plan"]
            return cached
        if self.runtime not in ENGINE_RUNTIMES:
            raise InputError(f"runtime {self.runtime!r} has no engine plan; use 'sglang', 'tensorrt_llm' "
                             "or 'llama_cpp'")
        if self.runtime == "llama_cpp":
            self._memo["engine_plan"] = to_engine_plan(self.spec, self.llama_plan(), self.gpu.memory_bytes)
            return self.engine_plan()
        stages = stage_specs(self.rank, self.pp)
        m = self.measured
        if self.runtime == "sglang":
            ep = sglang_memory_plan(stages, self.kv, total_gpu_bytes=self.gpu.memory_bytes,
                                    weights_bytes=self.weights_rank, options=self.sglang, context_len=self.context_cap,
                                    tp=self.tp, pp=self.pp, used_before_load_bytes=m.non_torch_bytes,
                                    architectures=self.architectures)
        else:
            o = self.trtllm
            notes = []
            act = m.activation_bytes
            if act is None:
                tokens = o.max_num_tokens or DEFAULT_MAX_NUM_TOKENS
                act = forward_activation_bytes(tokens, self.spec.hidden_size,
                                               self.spec.mlp_width or 4 * self.spec.hidden_size,
                                               self.model_dtype.bits // 8, self.tp)
                notes.append(f"activation peak estimated as one forward pass of max_num_tokens {tokens:,} tokens "
                             f"({act / GiB:.2f} GiB; TensorRT-LLM profiles it): give activation_gib to use a "
                             "measured one")
            runtime = m.non_torch_bytes
            if runtime is None:
                runtime = DEFAULT_RUNTIME_RESERVED_BYTES
                notes.append(f"assumed {runtime / GiB:.2f} GiB of CUDA context and runtime buffers (memory.md's H100 "
                             "log): give non_torch_gib to use a measured figure")
            model_max = self.spec.max_position_embeddings
            if o.max_seq_len and model_max and o.max_seq_len > model_max:
                notes.append(f"max_seq_len {o.max_seq_len:,} exceeds the config's max_position_embeddings "
                             f"{model_max:,}: quality past the trained length is not assured")
            ep = trtllm_memory_plan(max(stage_cell_bytes(stages, self.kv)), total_gpu_bytes=self.gpu.memory_bytes,
                                    weights_bytes=self.weights_rank, activation_bytes=act, runtime_bytes=runtime,
                                    options=o, max_seq_len=self.context_cap, notes=tuple(notes))
        self._memo["engine_plan"] = ep
        return ep

    def draft_layers(self) -> int:
        """KV layers vLLM's speculative drafter adds (kvcalc.vllm.speculative); 0 without one."""
        return speculative_kv_layers(self.config, self.vllm.speculative_config)

    def request_blocks(self) -> RequestBlocks:
        """Blocks one vLLM request holds as a function of its length (kvcalc.vllm.RequestBlocks), memoized."""
        if "request_blocks" not in self._memo:
            vp = self.vllm_plan()
            self._memo["request_blocks"] = RequestBlocks(
                self.spec, dtype=self.dtype, kv_cache_dtype=self.kv_dtype, block_size=vp.block_size,
                tensor_parallel_size=self.tp, max_num_batched_tokens=vp.max_num_batched_tokens,
                max_in_flight_tokens=vp.max_in_flight_tokens, vllm_version=vp.vllm_version,
                draft_layers=vp.draft_layers)
        blocks: RequestBlocks = self._memo["request_blocks"]
        return blocks

    # ------------------------------------------------------------------ other GPUs
    def with_gpu(self, gpu: GPU | str) -> Deployment:
        """The same deployment on another GPU type (same count and parallel sizes), reusing the spec and
        the weight count. A measured ``weights_bytes`` is kept (it does not depend on the card)."""
        device = gpu if isinstance(gpu, GPU) else get_gpu(gpu)
        if device == self.gpu:
            return self
        tp, pp = (self.tp, self.pp) if self.explicit_parallel else (None, None)
        return _build(self.config, self.spec, self.runtime, device, self.gpus, tp, pp, self.dtype, self.kv_dtype,
                      self.weights_computed, self.max_model_len, self.vllm, self.measured, self.checkpoint_bytes,
                      self.sglang, self.trtllm, self.llama_cpp, self.gguf)

    def with_gpus(self, gpus: int) -> Deployment:
        """The same deployment on ``gpus`` GPUs of the same type (tensor parallel; pipeline stages
        under transformers), reusing the spec and the weight count. A measured ``weights_bytes``
        holds only for the count it was measured at and is dropped for another. InputError when
        the model cannot be split that way (heads not divisible, more stages than layers)."""
        if gpus == self.gpus and not self.explicit_parallel:
            return self
        measured = self.measured if gpus == self.gpus else replace(self.measured, weights_bytes=None)
        return _build(self.config, self.spec, self.runtime, self.gpu, gpus, None, None, self.dtype, self.kv_dtype,
                      self.weights_computed, self.max_model_len, self.vllm, measured, self.checkpoint_bytes,
                      self.sglang, self.trtllm, self.llama_cpp, self.gguf)


def _architectures(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The config's ``architectures`` (text only, capped): the engines' model gates read them."""
    archs = config.get("architectures")
    return tuple(str(a)[:100] for a in archs[:8]) if isinstance(archs, list) else ()


def _positive_float(name: str, value: Any, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= hi:
        raise InputError(f"{name} must be a number between 0 and {hi:g}, got {value!r:.30}")
    return float(value)


def _gib_to_bytes(name: str, value: float | None) -> int | None:
    if value is None:
        return None
    return int(round(_positive_float(name, value, MAX_OVERRIDE_GIB) * GiB))


def check_utilization(value: Any) -> float:
    """vLLM's ``gpu_memory_utilization``: a number in (0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise InputError(f"gpu_memory_utilization must be in (0, 1], got {value!r:.20}")
    return float(value)


def deploy(config: Mapping[str, Any] | ModelSpec, *, gpu: str | GPU | None = None,
           gpu_mem_gib: float | None = None, gpus: int = 1, runtime: str = "vllm", dtype: str | None = None,
           kv_dtype: str | None = None, tensor_parallel_size: int | None = None,
           pipeline_parallel_size: int | None = None,
           gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION, max_model_len: int | None = None,
           block_size: int | None = None, max_num_batched_tokens: int | None = None,
           max_num_seqs: int | None = None, kv_cache_memory: int | None = None, weights_gib: float | None = None,
           activation_gib: float | None = None, non_torch_gib: float | None = None,
           cuda_graph_gib: float | None = None, config_dict: Mapping[str, Any] | None = None,
           checkpoint_bytes: int | None = None, vllm_version: str = DEFAULT_VLLM_VERSION,
           allow_long_max_model_len: bool = False,
           speculative_config: Mapping[str, Any] | SpeculativeConfig | None = None,
           cpu_offload_gb: float = 0.0, lora: Mapping[str, Any] | LoraConfig | None = None,
           mem_fraction_static: float | None = None, context_length: int | None = None,
           max_running_requests: int | None = None, page_size: int | None = None,
           max_total_tokens: int | None = None, allow_overwrite_longer_context_len: bool = False,
           swa_full_tokens_ratio: float | None = None, disable_hybrid_swa_memory: bool = False,
           free_gpu_memory_fraction: float | None = None, max_tokens_in_paged_kv_cache: int | None = None,
           tokens_per_block: int | None = None, max_seq_len: int | None = None, max_batch_size: int | None = None,
           max_num_tokens: int | None = None, llama_cpp: LlamaCppOptions | None = None,
           gguf: str | GGUFHeader | GgufWeights | None = None, **llama_flags: Any) -> Deployment:
    """Validate a deployment and build what does not depend on batch and context.

    ``config``: the config.json dict, or a ModelSpec already read (an attention what-if, say) with
    the dict as ``config_dict`` (the parameter count reads it). ``gpu``: catalog key, name or
    fragment (default :data:`DEFAULT_GPU`), or ``gpu_mem_gib`` for a custom card. ``gpus`` GPUs,
    all tensor parallel unless ``tensor_parallel_size`` / ``pipeline_parallel_size`` say otherwise
    (their product must equal ``gpus``). ``runtime``: 'vllm' (default), 'transformers', 'ideal'.
    ``dtype``: the weights (None = the checkpoint's); ``kv_dtype``: the cache (None = the model's).
    vLLM's options under vLLM's names (:class:`VllmOptions`); ``max_model_len`` caps the context
    (``-1``: vLLM 0.33's auto-fit to the KV memory)
    for every runtime; under vLLM one above the model's derived maximum is refused as vLLM refuses it
    (kvcalc.vllm.model_len) unless ``allow_long_max_model_len``. ``lora``: vLLM's LoRA options
    (kvcalc.vllm.lora.LoraConfig or a dict of its fields; vLLM 0.33). Measured overrides ``*_gib`` are GiB
    per GPU (:class:`MeasuredOverrides`).
    ``checkpoint_bytes``: the checkpoint's exact weight bytes (the Hub's safetensors metadata),
    used when no ``dtype`` is chosen (a chosen dtype re-quantizes the weights).
    SGLang's options (runtime 'sglang', :class:`~kvcalc.sglang.SglangOptions`): ``mem_fraction_static``,
    ``context_length``, ``max_running_requests``, ``page_size``, ``max_total_tokens``,
    ``allow_overwrite_longer_context_len`` (``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1``),
    ``swa_full_tokens_ratio`` / ``disable_hybrid_swa_memory`` (the hybrid SWA pool). TensorRT-LLM's
    (runtime 'tensorrt_llm', :class:`~kvcalc.trtllm.TrtllmOptions`): ``free_gpu_memory_fraction``,
    ``max_tokens_in_paged_kv_cache``, ``tokens_per_block``, ``max_seq_len``, ``max_batch_size``, ``max_num_tokens``.
    llama.cpp's (runtime 'llama_cpp', :class:`~kvcalc.llama_cpp.LlamaCppOptions`): ``llama_cpp`` (options, e.g. a
    parsed ``llama-server`` command) and / or the flags of :data:`LLAMA_CPP_FLAGS` (``n_ctx`` -c, ``n_parallel``
    -np, ``kv_unified`` -kvu, ``cache_type_k`` / ``cache_type_v`` -ctk / -ctv, ``n_gpu_layers`` -ngl, ``swa_full``,
    ``flash_attn`` on/off/auto, ``kv_offload``, ``n_batch``, ``n_ubatch``) over them; ``gguf`` the weights: a GGUF
    file type (``"Q4_K_M"``, kvcalc.gguf.mixes), a parsed header (exact) or GgufWeights; default the ``-hf
    repo:QUANT`` tail of the options. One GPU only (multi-GPU splits are not modelled)."""
    raw = config if isinstance(config, Mapping) else config_dict
    if raw is None:
        raise InputError("a deployment needs the config.json dict (for the parameter count)")
    spec = config if isinstance(config, ModelSpec) else read_spec(config)
    rt = check_runtime(runtime)
    ll = _llama_options(rt, llama_cpp, llama_flags, gguf, dtype, kv_dtype)
    if gpu_mem_gib is not None:
        device = custom_gpu(gpu_mem_gib)
    elif isinstance(gpu, GPU):
        device = gpu
    else:
        device = get_gpu(DEFAULT_GPU if gpu is None else gpu)
    gpus = check_count("gpus", gpus, 1, MAX_GPUS)
    auto_fit = max_model_len == AUTO_FIT and not isinstance(max_model_len, bool)
    if auto_fit:
        if check_runtime(runtime) != "vllm" or engine(vllm_version).version == "0.10":
            raise InputError("max_model_len -1 (auto-fit) is vLLM 0.33's: use runtime 'vllm' (vllm_version 0.33)")
        max_model_len = None
    if max_model_len is not None:
        max_model_len = check_count("max_model_len", max_model_len, 1, MAX_CONTEXT)
    if dtype is not None:
        get_dtype(dtype)
    options = VllmOptions(
        gpu_memory_utilization=check_utilization(gpu_memory_utilization),
        block_size=None if block_size is None else check_count("block_size", block_size, 1, MAX_BLOCK_SIZE),
        max_num_batched_tokens=None if max_num_batched_tokens is None else check_count(
            "max_num_batched_tokens", max_num_batched_tokens, 1, MAX_CONTEXT),
        max_num_seqs=None if max_num_seqs is None else check_count("max_num_seqs", max_num_seqs, 1, 1 << 20),
        kv_cache_memory=None if kv_cache_memory is None else check_count(
            "kv_cache_memory", kv_cache_memory, 1, MAX_KV_CACHE_MEMORY),
        vllm_version=engine(vllm_version).version, allow_long_max_model_len=bool(allow_long_max_model_len),
        speculative_config=parse_speculative_config(speculative_config),
        cpu_offload_gb=_positive_float("cpu_offload_gb", cpu_offload_gb, MAX_OVERRIDE_GIB),
        auto_fit_max_model_len=auto_fit, lora=check_lora_config(lora))
    measured = MeasuredOverrides(
        weights_bytes=_gib_to_bytes("weights_gib", weights_gib),
        activation_bytes=_gib_to_bytes("activation_gib", activation_gib),
        non_torch_bytes=_gib_to_bytes("non_torch_gib", non_torch_gib),
        cuda_graph_bytes=_gib_to_bytes("cuda_graph_gib", cuda_graph_gib))
    if checkpoint_bytes is not None:
        checkpoint_bytes = check_count("checkpoint_bytes", checkpoint_bytes, 1, 1 << 50)
    if rt == "vllm":
        speculative_kv_layers(raw, options.speculative_config)      # an unusable method fails here, at deploy
        if options.lora is not None:
            if options.vllm_version == "0.10":
                raise UnsupportedError("LoRA memory is modelled for vLLM 0.33; use vllm_version 0.33")
            check_lora_model(raw, spec)
    elif options.speculative_config is not None or options.cpu_offload_gb or options.lora is not None:
        raise InputError("speculative_config, cpu_offload_gb and lora are vLLM options; use runtime 'vllm'")
    sg = sglang_options(mem_fraction_static, context_length, max_running_requests, page_size, max_total_tokens,
                        allow_overwrite_longer_context_len, swa_full_tokens_ratio, disable_hybrid_swa_memory)
    tr = trtllm_options(free_gpu_memory_fraction, max_tokens_in_paged_kv_cache, tokens_per_block, max_seq_len,
                        max_batch_size, max_num_tokens)
    _check_engine_options(rt, spec, sg, tr, max_model_len, block_size, max_num_batched_tokens, max_num_seqs,
                          kv_cache_memory, gpu_memory_utilization)
    if rt not in ("ideal", "transformers"):
        check_no_prefix_tokens(spec, ENGINE_LABELS.get(rt, "vLLM"))     # PD (issue 12): CPM-Ant's prompt tokens
    if rt == "vllm":
        served_note(_architectures(raw), spec, options.vllm_version)    # refuses what vLLM refuses at startup
    if rt == "vllm" and max_model_len is not None and not options.allow_long_max_model_len:
        check_max_model_len(raw, max_model_len, options.vllm_version, spec.max_position_embeddings)
    # weights never block a plan: an uncountable model takes the given weights_gib (per GPU) x GPUs,
    # else the Hub checkpoint's own size
    gw = None
    if rt == "llama_cpp":
        if measured.weights_bytes is not None or checkpoint_bytes is not None:
            raise InputError("llama.cpp's weights are the GGUF file's: give gguf (a file type or the header), "
                             "not weights_gib / checkpoint_bytes")
        gw = _gguf(raw, gguf if gguf is not None else ll.hf_quant)
        weights = _gguf_weight_bytes(plan_weights(raw, None, gw.total_bytes, "GGUF file"), gw)
    elif measured.weights_bytes is not None:
        weights = plan_weights(raw, dtype, measured.weights_bytes * gpus)
    else:
        weights = plan_weights(raw, dtype, checkpoint_bytes if dtype is None else None, "checkpoint size")
    return _build(raw, spec, rt, device, gpus, tensor_parallel_size, pipeline_parallel_size, dtype, kv_dtype,
                  weights, max_model_len, options, measured, checkpoint_bytes, sg, tr, ll, gw)


def _llama_options(rt: Runtime, base: LlamaCppOptions | None, flags: Mapping[str, Any],
                   gguf: object, dtype: str | None, kv_dtype: str | None) -> LlamaCppOptions:
    """llama.cpp's options from ``base`` and the flags over it; InputError for a flag that is not llama.cpp's,
    llama.cpp options for another runtime, or the other runtimes' dtype names under llama.cpp."""
    unknown = sorted(set(flags) - set(LLAMA_CPP_FLAGS))
    if unknown:
        raise InputError(f"deploy() got an unknown option {unknown[0][:40]!r}")
    if rt != "llama_cpp":
        if flags or base is not None or gguf is not None:
            raise InputError("n_ctx, n_parallel, cache_type_k / cache_type_v, n_gpu_layers, swa_full, flash_attn and "
                             "gguf are llama.cpp options: use runtime 'llama_cpp'")
        return NO_LLAMA_CPP
    if dtype is not None:
        raise InputError("dtype is not a llama.cpp option: the weights are the GGUF file's (gguf='Q4_K_M', ...)")
    if kv_dtype is not None:
        raise InputError("kv_dtype is not a llama.cpp option: llama.cpp's are cache_type_k / cache_type_v "
                         "(-ctk / -ctv: f16, q8_0, q4_0, ...)")
    opts = base or NO_LLAMA_CPP
    return replace(opts, **flags) if flags else opts


def _gguf(raw: Mapping[str, Any], gguf: object) -> GgufWeights:
    """The GGUF weights a llama.cpp deployment uses (deploy's ``gguf``)."""
    if isinstance(gguf, GgufWeights):
        return gguf
    if isinstance(gguf, GGUFHeader):
        return gguf.as_weights()
    if isinstance(gguf, str) and gguf.strip():
        return gguf_weights(raw, gguf)
    raise InputError("runtime 'llama_cpp' needs the GGUF weights: a file type (gguf='Q4_K_M', --gguf-type) "
                     "or the file's header (--gguf FILE)")


def _gguf_weight_bytes(counted: WeightBytes, gw: GgufWeights) -> WeightBytes:
    """The GGUF file's bytes as the plan's weights (the parameter count kept from ``counted``)."""
    return WeightBytes(total_bytes=gw.total_bytes, scheme=f"GGUF {gw.file_type}",
                       parts=(WeightPart("gguf", counted.params.total, gw.file_type, gw.total_bytes),),
                       params=counted.params, unquantized=(),
                       notes=(f"weights: GGUF {gw.file_type}, {gw.total_bytes:,} bytes of tensor data "
                                         f"({gw.bits_per_weight:.2f} BPW; {gw.quality})",))


_VLLM_EQUIVALENTS: dict[str, dict[str, str]] = {
    "sglang": {"max_model_len": "context_length", "block_size": "page_size", "max_num_seqs": "max_running_requests",
               "gpu_memory_utilization": "mem_fraction_static"},
    "tensorrt_llm": {"max_model_len": "max_seq_len", "block_size": "tokens_per_block", "max_num_seqs": "max_batch_size",
                     "max_num_batched_tokens": "max_num_tokens", "gpu_memory_utilization": "free_gpu_memory_fraction"},
    "llama_cpp": {"max_model_len": "n_ctx (-c)", "max_num_seqs": "n_parallel (-np)",
                  "max_num_batched_tokens": "n_batch (-b)"},
}
"""Each engine's name for a vLLM option (an engine without one refuses it: 'has no such option')."""

_SGLANG_KV = ("bfloat16", "float16", "fp8_e4m3", "fp8_e5m2")
_TRTLLM_KV = ("bfloat16", "float16", "fp8_e4m3")


def _check_engine_options(rt: Runtime, spec: ModelSpec, sg: SglangOptions, tr: TrtllmOptions,
                          max_model_len: int | None, block_size: int | None, max_num_batched_tokens: int | None,
                          max_num_seqs: int | None, kv_cache_memory: int | None,
                          gpu_memory_utilization: float) -> None:
    """An engine option given for another runtime, or a vLLM option given to an engine, is an
    InputError naming the engine's own option; the engines' context limits, in their words."""
    if sg.given and rt != "sglang":
        raise InputError("mem_fraction_static, context_length, max_running_requests, page_size and max_total_tokens "
                         "are SGLang options: use runtime 'sglang'")
    if tr.given and rt != "tensorrt_llm":
        raise InputError("free_gpu_memory_fraction, max_tokens_in_paged_kv_cache, tokens_per_block, max_seq_len, "
                         "max_batch_size and max_num_tokens are TensorRT-LLM options: use runtime 'tensorrt_llm'")
    if rt not in ENGINE_RUNTIMES:
        return
    label = ENGINE_LABELS[rt]
    names = _VLLM_EQUIVALENTS[rt]
    for given, vllm_name in ((max_model_len, "max_model_len"), (block_size, "block_size"),
                             (max_num_seqs, "max_num_seqs"), (max_num_batched_tokens, "max_num_batched_tokens"),
                             (kv_cache_memory, "kv_cache_memory")):
        if given is not None:
            theirs = names.get(vllm_name)
            hint = f"{label}'s option is {theirs}" if theirs else f"{label} has no such option"
            raise InputError(f"{vllm_name} is a vLLM option: {hint}")
    if gpu_memory_utilization != DEFAULT_GPU_MEMORY_UTILIZATION:
        theirs = names.get("gpu_memory_utilization")
        raise InputError("gpu_memory_utilization is a vLLM option: "
                         + (f"{label}'s option is {theirs}" if theirs else f"{label} has no such option"))
    if rt in ("sglang", "tensorrt_llm"):        # their pools for other layer kinds are not modelled
        check_full_attention(spec, label, sliding_ok=rt == "sglang")
    model_max = spec.max_position_embeddings
    if rt == "sglang" and sg.context_length and model_max and sg.context_length > model_max \
            and not sg.allow_long_context:
        raise InputError(f"SGLang refuses: {LONG_CONTEXT_ERROR.format(given=sg.context_length, derived=model_max)}")


def _build(raw: Mapping[str, Any], spec: ModelSpec, runtime: Runtime, device: GPU, gpus: int, tp_in: int | None,
           pp_in: int | None, dtype: str | None, kv_dtype: str | None, computed: WeightBytes,
           max_model_len: int | None, options: VllmOptions, measured: MeasuredOverrides,
           checkpoint_bytes: int | None, sg: SglangOptions = NO_SGLANG,
           tr: TrtllmOptions = NO_TRTLLM, ll: LlamaCppOptions = NO_LLAMA_CPP,
           gw: GgufWeights | None = None) -> Deployment:
    """The part of :func:`deploy` that depends on the GPU count (shared with ``with_gpus``)."""
    if runtime == "llama_cpp" and (gpus != 1 or tp_in not in (None, 1) or pp_in not in (None, 1)):
        raise UnsupportedError("llama.cpp's multi-GPU split (--split-mode layer / row, -ts) is not modelled: "
                               "plan one GPU (gpus=1); -ngl offloads the rest to host memory")
    tp, pp = resolve_parallel(runtime, gpus, tp_in, pp_in)
    check_parallel(spec, tp, pp, from_gpus=tp_in is None and pp_in is None)
    if runtime == "vllm" and options.lora is not None:
        check_lora_parallel(spec, options.lora, tp, pp)
    if runtime == "vllm" and kv_dtype == "fp8_ds_mla":    # vLLM's own DSA format (kvcalc.vllm.defaults.FP8_DS_MLA)
        model, kv = vllm_dtypes(spec, dtype, kv_dtype)
    else:
        model, kv = resolve_dtypes(spec, dtype, kv_dtype)
    if runtime in ("sglang", "tensorrt_llm") and kv.name not in (_SGLANG_KV if runtime == "sglang" else _TRTLLM_KV):
        allowed = "auto, bf16, fp8_e4m3, fp8_e5m2" if runtime == "sglang" else "auto, fp8 (e4m3)"
        raise UnsupportedError(f"{ENGINE_LABELS[runtime]} has no '{kv.name}' KV-cache dtype: use {allowed}")
    if runtime == "transformers" and kv != model:
        raise UnsupportedError("transformers' DynamicCache stores K/V in the model dtype; "
                               "use runtime 'ideal' or 'vllm' for a quantized or fp8 KV cache")
    weights_rank = rank_weights(computed, spec.num_layers, tp, pp)
    weights = computed
    if checkpoint_bytes is not None and dtype is None:
        weights_rank = ceil_div(weights_rank * checkpoint_bytes, max(computed.total_bytes, 1))
        weights = replace(computed, total_bytes=checkpoint_bytes,
                          scheme=f"{computed.scheme}, checkpoint size from the Hub",
                          notes=computed.notes + (f"weights: {checkpoint_bytes:,} bytes from the checkpoint's "
                                                  f"safetensors metadata (computed from the config: "
                                                  f"{computed.total_bytes:,})",))
    if measured.weights_bytes is not None:
        weights_rank = measured.weights_bytes
    engine_cap = sg.context_length if runtime == "sglang" else tr.max_seq_len if runtime == "tensorrt_llm" else None
    if runtime == "llama_cpp" and gw is not None:       # the GPU's share of the GGUF file (-ngl), as llama.cpp loads it
        weights_rank = llama_cpp_plan(spec, ll, gw).gpu.weights
    cap = min(engine_cap or max_model_len or spec.max_position_embeddings or MAX_CONTEXT, MAX_CONTEXT)
    rank = rank_spec(spec, tp)
    stages: tuple[CompiledCache, ...] = ()
    total = None
    if runtime in ("ideal", "transformers"):
        stages = tuple(compile_cache(st, dtype=model, kv_dtype=kv, runtime=runtime) for st in stage_specs(rank, pp))
        total = compile_cache(spec, dtype=model, kv_dtype=kv, runtime=runtime)
    return Deployment(config=raw, spec=spec, rank=rank, runtime=runtime, gpu=device, gpus=gpus, tp=tp, pp=pp,
                      dtype=dtype, kv_dtype=kv_dtype, model_dtype=model, kv=kv, weights=weights,
                      weights_computed=computed,
                      weights_rank=weights_rank, max_model_len=max_model_len, context_cap=cap, vllm=options,
                      measured=measured, checkpoint_bytes=checkpoint_bytes,
                      explicit_parallel=tp_in is not None or pp_in is not None,
                      stage_caches=stages, total_cache=total, sglang=sg, trtllm=tr, llama_cpp=ll, gguf=gw)
