"""One deployment, validated and built once: model x GPUs x runtime x dtypes x engine options.

``deploy(config, ...)`` reads the config, counts and places the weights, splits the model over
tensor- and pipeline-parallel ranks and compiles each stage's cache; everything that does not
depend on batch and context. ``plan`` (kvcalc.plan), ``memory_curve`` (kvcalc.curve),
``layer_bytes`` (kvcalc.layer_table) and ``fewest_gpus`` all read from one :class:`Deployment`,
so the headline, the chart and the per-layer table cannot disagree. A page builds it once per
rerun and hands it to each of them.

What differs between runtimes is the runtime's engine object (kvcalc.engines: ``get_engine(name)``):
its options type, its refusals, its dtypes and context cap; this module asks it and never compares
a runtime's name. A deployment carries only its own engine's options (``Deployment.options``).

Units: bytes (GiB = 2**30 bytes), tokens.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .architectures import read_spec
from .dtypes import DType, ceil_div, get_dtype
from .engine import EngineMemoryPlan
from .engines.base import Engine
from .engines.registry import get_engine
from .errors import InputError
from .gguf.mixes import GgufWeights
from .gpus import GPU, custom_gpu, get_gpu
from .limits import MAX_CHECKPOINT_BYTES, MAX_CONTEXT, MAX_GPUS, check_count
from .llama_cpp.options import LlamaCppOptions
from .parallel import check_parallel, rank_spec, rank_weights, resolve_parallel, stage_specs
from .runtimes import Runtime
from .sglang.options import SglangOptions
from .spec import ModelSpec, Quality, combine_quality
from .sweep import CompiledCache, compile_cache
from .trtllm.options import TrtllmOptions
from .units import GiB
from .vllm import RequestBlocks, VllmMemoryPlan, deployed
from .vllm.options import MAX_BLOCK_SIZE, MAX_KV_CACHE_MEMORY, VllmOptions, check_gib, check_utilization
from .weights import WeightBytes

__all__ = ["DEFAULT_GPU", "Deployment", "FEWEST_GPU_COUNTS", "MAX_BLOCK_SIZE", "MAX_KV_CACHE_MEMORY",
           "MeasuredOverrides", "VllmOptions", "check_utilization", "deploy"]

DEFAULT_GPU = "h100-sxm"
"""The catalog GPU a plan uses when none is named."""

MAX_OVERRIDE_GIB = float(1 << 20)
FEWEST_GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)
"""GPU counts ``fewest_gpus`` tries, in order (powers of two, as tensor-parallel sizes are)."""
MEASURED_FLAGS = ("weights_gib", "activation_gib", "non_torch_gib", "cuda_graph_gib", "checkpoint_bytes")
"""Flat keywords of :func:`deploy` that build its :class:`MeasuredOverrides` (GiB per GPU; bytes)."""


@dataclass(frozen=True)
class MeasuredOverrides:
    """Figures known from outside the config that replace kvcalc's computed ones (bytes per GPU; None = computed).

    ``weights_bytes``, ``activation_bytes``, ``non_torch_bytes``, ``cuda_graph_bytes``: measured on a real run;
    ``weights_bytes`` holds only for the GPU count it was measured at. ``checkpoint_bytes``: the checkpoint's
    exact weight bytes, all GPUs together (the Hub's safetensors metadata), used when no dtype is chosen."""

    weights_bytes: int | None = None
    activation_bytes: int | None = None
    non_torch_bytes: int | None = None
    cuda_graph_bytes: int | None = None
    checkpoint_bytes: int | None = None


NO_MEASUREMENTS = MeasuredOverrides()


@dataclass(frozen=True)
class Deployment:
    """A validated deployment before batch and context are chosen (build it with :func:`deploy`).

    ``spec`` is the whole model; ``rank`` what one tensor-parallel rank holds; ``stage_caches``
    one rank's compiled cache per pipeline stage and ``total_cache`` the whole model's (for engines
    that compile them, ``Engine.compiles_caches``; paged engines instead pool). ``weights_rank`` is the
    weight bytes on the busiest GPU; ``context_cap`` the longest context allowed (the engine's cap or
    ``max_model_len``, else the model's ``max_position_embeddings``, else :data:`~kvcalc.limits.MAX_CONTEXT`).
    ``options`` is the runtime's engine's options (``VllmOptions``, ``SglangOptions``, ...)."""

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
    options: Any                    # the engine's own options (kvcalc.engines.base.Engine.options_type)
    measured: MeasuredOverrides
    explicit_parallel: bool = False  # tp / pp were given, not derived from the GPU count
    stage_caches: tuple[CompiledCache, ...] = ()
    total_cache: CompiledCache | None = None
    gguf: GgufWeights | None = None              # GGUF weights (llama.cpp): the file's mix or header
    # built-once results per object (vLLM budget, blocks, layouts); never copied by dataclasses.replace
    _memo: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    @property
    def engine(self) -> Engine:
        """The runtime's engine object (kvcalc.engines.registry)."""
        return get_engine(self.runtime)

    @property
    def checkpoint_bytes(self) -> int | None:
        """The checkpoint's exact weight bytes when known (:class:`MeasuredOverrides`)."""
        return self.measured.checkpoint_bytes

    def _typed(self, kind: type, what: str) -> Any:
        if not isinstance(self.options, kind):
            raise InputError(f"runtime {self.runtime!r} has no {what} options")
        return self.options

    @property
    def vllm(self) -> VllmOptions:
        """The options of a vLLM deployment (``options``, typed); InputError for another runtime."""
        o: VllmOptions = self._typed(VllmOptions, "vLLM")
        return o

    @property
    def sglang(self) -> SglangOptions:
        """The options of an SGLang deployment (``options``, typed)."""
        o: SglangOptions = self._typed(SglangOptions, "SGLang")
        return o

    @property
    def trtllm(self) -> TrtllmOptions:
        """The options of a TensorRT-LLM deployment (``options``, typed)."""
        o: TrtllmOptions = self._typed(TrtllmOptions, "TensorRT-LLM")
        return o

    @property
    def llama_cpp(self) -> LlamaCppOptions:
        """The options of a llama.cpp deployment (``options``, typed)."""
        o: LlamaCppOptions = self._typed(LlamaCppOptions, "llama.cpp")
        return o

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
        return architectures(self.config)

    # ------------------------------------------------------------------ vLLM's steps (kvcalc.vllm.deployed)
    def vllm_max_model_len(self) -> int:
        """kvcalc.vllm.deployed.max_model_len (kept for the tests and pages that read it off a deployment)."""
        return deployed.max_model_len(self)

    def vllm_plan(self, max_model_len: int | None = None) -> VllmMemoryPlan:
        """kvcalc.vllm.deployed.startup_plan: vLLM's startup budget, memoized (kept for the tests)."""
        return deployed.startup_plan(self, max_model_len)

    def request_blocks(self) -> RequestBlocks:
        """kvcalc.vllm.deployed.request_blocks (kept for the tests)."""
        return deployed.request_blocks(self)

    # ------------------------------------------------------------------ the engine's own plan
    def engine_plan(self) -> EngineMemoryPlan:
        """The engine's budget and pool for this deployment (kvcalc.engine.EngineMemoryPlan: SGLang,
        TensorRT-LLM, llama.cpp; ``Engine.memory_plan``), memoized. InputError for a runtime without one."""
        if "engine_plan" not in self._memo:
            ep = self.engine.memory_plan(self)
            if not isinstance(ep, EngineMemoryPlan):
                raise InputError(f"runtime {self.runtime!r} has no engine plan; use 'sglang', 'tensorrt_llm' "
                                 "or 'llama_cpp'")
            self._memo["engine_plan"] = ep
        cached: EngineMemoryPlan = self._memo["engine_plan"]
        return cached

    # ------------------------------------------------------------------ other GPUs
    def with_gpu(self, gpu: GPU | str) -> Deployment:
        """The same deployment on another GPU type (same count and parallel sizes), reusing the spec and
        the weight count. A measured ``weights_bytes`` is kept (it does not depend on the card)."""
        device = gpu if isinstance(gpu, GPU) else get_gpu(gpu)
        if device == self.gpu:
            return self
        tp, pp = (self.tp, self.pp) if self.explicit_parallel else (None, None)
        return _build(_Inputs(self.config, self.spec, self.engine, self.dtype, self.kv_dtype, self.options,
                              self.measured, self.gguf), self.weights_computed, device, self.gpus, tp, pp)

    def with_gpus(self, gpus: int) -> Deployment:
        """The same deployment on ``gpus`` GPUs of the same type (tensor parallel; pipeline stages
        under transformers), reusing the spec and the weight count. A measured ``weights_bytes``
        holds only for the count it was measured at and is dropped for another. InputError when
        the model cannot be split that way (heads not divisible, more stages than layers)."""
        if gpus == self.gpus and not self.explicit_parallel:
            return self
        measured = self.measured if gpus == self.gpus else replace(self.measured, weights_bytes=None)
        return _build(_Inputs(self.config, self.spec, self.engine, self.dtype, self.kv_dtype, self.options,
                              measured, self.gguf), self.weights_computed, self.gpu, gpus, None, None)

    def with_parallel(self, tp: int, pp: int) -> Deployment:
        """The same deployment on ``tp x pp`` GPUs of the same type split ``tp`` ways by tensor and ``pp`` by
        pipeline parallelism (a measured ``weights_bytes`` is dropped for another count, as in :meth:`with_gpus`).
        InputError when the model cannot be split that way."""
        gpus = tp * pp
        measured = self.measured if gpus == self.gpus else replace(self.measured, weights_bytes=None)
        return _build(_Inputs(self.config, self.spec, self.engine, self.dtype, self.kv_dtype, self.options,
                              measured, self.gguf), self.weights_computed, self.gpu, gpus, tp, pp)

    def with_cache(self, kv_dtype: str | None, options: Any = None) -> Deployment:
        """The same deployment with another KV dtype (``kv_dtype``) and engine ``options`` (None: these), checked
        as :func:`deploy` checks them (the engine's model gate and dtype table); KVCalcError when refused."""
        opts = self.options if options is None else options
        self.engine.check_model(self.config, self.spec, opts, self.dtype, kv_dtype)
        tp, pp = (self.tp, self.pp) if self.explicit_parallel else (None, None)
        return _build(_Inputs(self.config, self.spec, self.engine, self.dtype, kv_dtype, opts, self.measured,
                              self.gguf), self.weights_computed, self.gpu, self.gpus, tp, pp)


def architectures(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The config's ``architectures`` (text only, capped): the engines' model gates read them."""
    archs = config.get("architectures")
    return tuple(str(a)[:100] for a in archs[:8]) if isinstance(archs, list) else ()


def _gib_to_bytes(name: str, value: float | None) -> int | None:
    if value is None:
        return None
    return int(round(check_gib(name, value, MAX_OVERRIDE_GIB) * GiB))


def measured_from_flags(flags: Mapping[str, Any]) -> MeasuredOverrides:
    """:class:`MeasuredOverrides` from the flat ``weights_gib`` / ``activation_gib`` / ``non_torch_gib`` /
    ``cuda_graph_gib`` (GiB per GPU) and ``checkpoint_bytes`` (bytes)."""
    checkpoint = flags.get("checkpoint_bytes")
    return MeasuredOverrides(
        weights_bytes=_gib_to_bytes("weights_gib", flags.get("weights_gib")),
        activation_bytes=_gib_to_bytes("activation_gib", flags.get("activation_gib")),
        non_torch_bytes=_gib_to_bytes("non_torch_gib", flags.get("non_torch_gib")),
        cuda_graph_bytes=_gib_to_bytes("cuda_graph_gib", flags.get("cuda_graph_gib")),
        checkpoint_bytes=None if checkpoint is None
        else check_count("checkpoint_bytes", checkpoint, 1, MAX_CHECKPOINT_BYTES))


@dataclass(frozen=True)
class _Inputs:
    """What :func:`_build` needs beside the GPU type and count (shared by ``deploy``, ``with_gpu(s)``)."""

    raw: Mapping[str, Any]
    spec: ModelSpec
    engine: Engine
    dtype: str | None
    kv_dtype: str | None
    options: Any
    measured: MeasuredOverrides
    gguf: GgufWeights | None


def _device(gpu: str | GPU | None, gpu_mem_gib: float | None) -> GPU:
    if gpu_mem_gib is not None:
        return custom_gpu(gpu_mem_gib)
    if isinstance(gpu, GPU):
        return gpu
    return get_gpu(DEFAULT_GPU if gpu is None else gpu)


def deploy(config: Mapping[str, Any] | ModelSpec, *, gpu: str | GPU | None = None, gpus: int = 1,
           runtime: str = "vllm", dtype: str | None = None, kv_dtype: str | None = None,
           tensor_parallel_size: int | None = None, pipeline_parallel_size: int | None = None,
           options: Any = None, measured: MeasuredOverrides | None = None,
           config_dict: Mapping[str, Any] | None = None, **flags: Any) -> Deployment:
    """Validate a deployment and build what does not depend on batch and context.

    ``config``: the config.json dict, or a ModelSpec already read (an attention what-if, say) with
    the dict as ``config_dict`` (the parameter count reads it). ``gpu``: catalog key, name or
    fragment (default :data:`DEFAULT_GPU`) or a GPU (kvcalc.gpus.custom_gpu for a custom card). ``gpus``
    GPUs, all tensor parallel unless ``tensor_parallel_size`` / ``pipeline_parallel_size`` say otherwise
    (their product must equal ``gpus``). ``runtime``: a name of kvcalc.engines.registry (default 'vllm').
    ``dtype``: the weights (None = the checkpoint's); ``kv_dtype``: the cache (None = the model's).
    ``options``: the runtime's engine's options object (``VllmOptions(...)``, ``SglangOptions(...)``,
    ``LlamaCppOptions(...)``, ...; None = the engine's defaults); ``measured``: :class:`MeasuredOverrides`.

    ``flags``, the flat path for callers holding flat values (the CLI, the pages): the engine's options
    by name, validated by ``get_engine(runtime).options_from_flags`` (over ``options`` when both are given;
    ``max_model_len`` is vLLM's, the ideal's and transformers' option, ``-1`` vLLM 0.33's auto-fit;
    an option of another engine is refused naming that engine's own option); ``gpu_mem_gib`` (a custom
    card of that many GiB); the measured ``weights_gib`` / ``activation_gib`` / ``non_torch_gib`` /
    ``cuda_graph_gib`` (GiB per GPU) and ``checkpoint_bytes`` (the Hub's safetensors size, used when no
    ``dtype`` is chosen); llama.cpp's ``gguf`` (a GGUF file type such as ``"Q4_K_M"``, a parsed header or
    GgufWeights) and ``llama_cpp`` (its options, as ``options``).

    Qwen3-8B under SGLang in pages of 16 tokens: 36 layers x 8 KV heads x 128 x (K, V) x 2 bytes a token:

    >>> from kvcalc.catalog import bundled_config
    >>> from kvcalc.plan import plan
    >>> from kvcalc.sglang.options import SglangOptions
    >>> d = deploy(bundled_config("Qwen/Qwen3-8B"), gpu="h100-sxm", runtime="sglang",
    ...            options=SglangOptions(page_size=16))
    >>> plan(d, batch=8, context=8192).kv_bytes == 8 * 8192 * 36 * 8 * 128 * 2 * 2
    True
    >>> deploy(bundled_config("Qwen/Qwen3-8B"), runtime="sglang", page_size=16).options == d.options
    True
    """
    raw = config if isinstance(config, Mapping) else config_dict
    if raw is None:
        raise InputError("a deployment needs the config.json dict (for the parameter count)")
    spec = config if isinstance(config, ModelSpec) else read_spec(config)
    eng = get_engine(runtime)
    spec = eng.model_spec(raw, spec)
    flags = dict(flags)
    device = _device(gpu, flags.pop("gpu_mem_gib", None))
    known = {k: flags.pop(k) for k in MEASURED_FLAGS if k in flags}
    gguf = flags.pop("gguf", None) if "gguf" in eng.option_names() else None
    opts = eng.options_from_flags(flags, base=options)
    gpus = check_count("gpus", gpus, 1, MAX_GPUS)
    if dtype is not None:
        get_dtype(dtype)
    if measured is None:
        measured = measured_from_flags(known)
    elif known:
        raise InputError(f"give {', '.join(sorted(known))} in measured=MeasuredOverrides(...), not beside it")
    eng.check_model(raw, spec, opts, dtype, kv_dtype)
    weights, gw = eng.weights(raw, spec, dtype, measured, opts, gguf, gpus)
    return _build(_Inputs(raw, spec, eng, dtype, kv_dtype, opts, measured, gw), weights, device, gpus,
                  tensor_parallel_size, pipeline_parallel_size)


def _build(i: _Inputs, computed: WeightBytes, device: GPU, gpus: int, tp_in: int | None,
           pp_in: int | None) -> Deployment:
    """The part of :func:`deploy` that depends on the GPU type and count (shared with ``with_gpu(s)``)."""
    eng, spec, measured = i.engine, i.spec, i.measured
    eng.check_device(device, i.raw, i.dtype)
    eng.check_gpus(gpus, tp_in, pp_in)
    tp, pp = resolve_parallel(eng.name, gpus, tp_in, pp_in)  # type: ignore[arg-type]
    check_parallel(spec, tp, pp, from_gpus=tp_in is None and pp_in is None)
    eng.check_parallel(spec, i.options, tp, pp)
    model, kv = eng.dtypes(spec, i.dtype, i.kv_dtype)
    weights_rank = rank_weights(computed, spec.num_layers, tp, pp)
    weights = computed
    checkpoint_bytes = measured.checkpoint_bytes
    if checkpoint_bytes is not None and i.dtype is None:
        weights_rank = ceil_div(weights_rank * checkpoint_bytes, max(computed.total_bytes, 1))
        weights = replace(computed, total_bytes=checkpoint_bytes,
                          scheme=f"{computed.scheme}, checkpoint size from the Hub",
                          notes=computed.notes + (f"weights: {checkpoint_bytes:,} bytes from the checkpoint's "
                                                  f"safetensors metadata (computed from the config: "
                                                  f"{computed.total_bytes:,})",))
    if measured.weights_bytes is not None:
        weights_rank = measured.weights_bytes
    weights_rank = eng.weights_on_gpu(spec, i.options, i.gguf, weights_rank)
    max_model_len = eng.max_model_len(i.options)
    cap = min(eng.context_cap(i.options) or max_model_len or spec.max_position_embeddings or MAX_CONTEXT,
              MAX_CONTEXT)
    rank = rank_spec(spec, tp)
    stages: tuple[CompiledCache, ...] = ()
    total = None
    if eng.compiles_caches:
        stages = tuple(compile_cache(st, dtype=model, kv_dtype=kv, runtime=eng.name) for st in stage_specs(rank, pp))
        total = compile_cache(spec, dtype=model, kv_dtype=kv, runtime=eng.name)
    return Deployment(config=i.raw, spec=spec, rank=rank, runtime=eng.name, gpu=device, gpus=gpus,  # type: ignore[arg-type]
                      tp=tp, pp=pp, dtype=i.dtype, kv_dtype=i.kv_dtype, model_dtype=model, kv=kv, weights=weights,
                      weights_computed=computed, weights_rank=weights_rank, max_model_len=max_model_len,
                      context_cap=cap, options=i.options, measured=measured,
                      explicit_parallel=tp_in is not None or pp_in is not None,
                      stage_caches=stages, total_cache=total, gguf=i.gguf)

