"""Will it fit? One deployment's memory budget at a batch and context, and the solvers on it.

``plan(config_or_deployment, batch=..., context=...)`` answers for one deployment (kvcalc.deployment):
weights, KV cache and runtime overhead on the busiest GPU, whether it fits, the longest context
at this batch, the largest batch at this context, the fewest GPUs that fit, and which constraint
binds. Budgets per GPU (bytes; GiB = 2**30):

``ideal``
    ``weights_rank + kv_rank(batch, context) <= gpu_memory``: the ideal cache (kvcalc.kv).
``transformers``
    Plain ``generate`` without paging: ``weights_rank + kv_rank + activation + non_torch <=
    gpu_memory``, with the transformers cache (kvcalc.kv, right after the prefill) and the prefill's
    activation peak (kvcalc.activations): the larger of one forward of ``batch x context`` tokens
    and the last-position logits ``generate`` keeps with their float32 copies (the two are not live
    at the same time). Several GPUs split layers (``device_map="auto"``, pipeline style).
``vllm``
    vLLM v1's own accounting (kvcalc.vllm): ``gpu_memory_utilization x total`` minus weights,
    profiled activation peak, non-torch memory and CUDA graphs is the KV pool, cut into pages of
    ``block_size`` tokens; ``batch`` requests of ``context`` tokens fit when their blocks fit the
    pool and ``context <= max_model_len``.
``sglang`` / ``tensorrt_llm``
    The engine's own budget and pool (kvcalc.engine.EngineMemoryPlan from kvcalc.sglang /
    kvcalc.trtllm): SGLang ``mem_fraction_static x free-before-load - weights`` in a token pool of
    ``page_size`` pages; TensorRT-LLM ``free_gpu_memory_fraction x (total - weights - activations)``
    in blocks of ``tokens_per_block``. ``batch`` requests fit when their pages fit the pool, the
    context is at most the engine's maximum and the batch at most its concurrent-request cap.
``llama_cpp``
    llama.cpp's preallocated run (kvcalc.llama_cpp, kvcalc.llama_cpp.seam): the GPU holds the ``-ngl``
    share of the GGUF weights, the KV cells of its layers and the (estimated) compute buffer, the host
    the rest (``host_bytes``); it fits when that allocation fits the GPU and the requests fit the cells
    (``context <= n_ctx_seq``, ``batch <= n_seq_max``, ``batch x context <= n_ctx``). ``kv_bytes`` is what
    the requests occupy (sliding-window layers at most their window); the solvers answer for a run
    sized to the request (``-np batch -c batch x context``, other flags as given), one GPU only.

The KV figures are the per-layer table's sums (kvcalc.layer_table), so a page's table adds up to
its headline; the solvers use the deployment's compiled caches (kvcalc.sweep), equal to that
table point by point (tests/test_layer_table.py).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from .activations import forward_activation_bytes, generate_logits_bytes
from .deployment import FEWEST_GPU_COUNTS, Deployment, deploy
from .engine import EngineMemoryPlan
from .errors import InputError
from .explain import direct_binding, direct_formulas, engine_binding, growth_binding, vllm_binding, vllm_formulas
from .explain import gib as gib_text
from .layer_table import layer_bytes
from .limits import MAX_BATCH, MAX_CONTEXT, check_count
from .llama_cpp.seam import largest_batch as llama_largest_batch
from .llama_cpp.seam import longest_context as llama_longest_context
from .runtimes import ENGINE_RUNTIMES
from .solve import largest_true
from .spec import ModelSpec
from .sweep import cache_bytes
from .vllm import VllmMemoryPlan
from .vllm.removed import served_note


@dataclass(frozen=True)
class PlanResult:
    """The answer for one deployment. Byte figures are per GPU on the busiest rank unless named
    ``*_total`` (every GPU together); ``max_context`` / ``max_batch`` are None when nothing fits.
    Under vLLM they are what the KV pool holds with ``max_model_len`` set to that context (vLLM
    refuses to start when one ``max_model_len`` request does not fit; ``fits`` is then False and
    the binding says so)."""

    model_type: str
    runtime: str
    gpu: str
    gpu_memory_bytes: int
    gpus: int
    tensor_parallel_size: int
    pipeline_parallel_size: int
    batch: int
    context: int
    dtype: str
    kv_dtype: str
    weights_scheme: str
    weights_bytes: int              # per GPU
    weights_bytes_total: int
    kv_bytes: int                   # per GPU, batch x context
    kv_bytes_total: int
    overhead_bytes: int             # per GPU: activation + non-torch + CUDA graphs (runtime rules)
    budget_bytes: int               # per GPU: what the runtime may use
    total_bytes: int                # per GPU: weights + kv + overhead
    fits: bool
    max_context: int | None
    max_batch: int | None
    min_gpus: int | None
    binding_constraint: str
    model_max_context: int | None
    kv_cache_tokens: int | None = None
    num_gpu_blocks: int | None = None
    max_concurrency: float | None = None
    available_kv_bytes: int | None = None
    formulas: tuple[str, ...] = ()
    engine_lines: tuple[str, ...] = ()   # what the engine itself prints at startup (vLLM: its log lines)
    warnings: tuple[str, ...] = ()
    fields_used: tuple[str, ...] = ()
    quality: str = "exact"          # kvcalc.spec.Quality of the KV rules and of the weights figure together
    weights_quality: str = "exact"  # "exact" (counted), "estimated", or "given" (weights_gib / checkpoint size)
    kv_quality: str = "exact"       # kvcalc.spec.Quality of the KV rules alone
    host_bytes: int | None = None   # llama_cpp: bytes the run keeps in host memory (weights off the GPU, -nkvo KV)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def overhead_bytes(d: Deployment, batch: int, context: int) -> int:
    """Per-GPU bytes beside weights and KV under ``ideal`` / ``transformers`` (module docstring)."""
    if d.runtime == "ideal":
        return 0
    act = d.measured.activation_bytes
    if act is None:
        b = d.model_dtype.bits // 8
        width = d.spec.mlp_width or 4 * d.spec.hidden_size
        act = forward_activation_bytes(batch * context, d.spec.hidden_size, width, b)
        act = max(act, generate_logits_bytes(batch, d.spec.vocab_size, b))
    return act + (d.measured.non_torch_bytes or 0)


def busiest_stage_kv(d: Deployment, batch: int, context: int) -> int:
    """KV bytes on the busiest GPU under ``ideal`` / ``transformers``, from the compiled stage caches
    (kvcalc.sweep): the fast twin of ``layer_bytes(d, ...).per_gpu_bytes`` the solvers and curves use."""
    return max(cache_bytes(c, batch, context) for c in d.stage_caches)


def _fits_direct(d: Deployment, batch: int, context: int) -> bool:
    kv = busiest_stage_kv(d, batch, context)
    return d.weights_rank + kv + overhead_bytes(d, batch, context) <= d.gpu.memory_bytes


def plan(config: Mapping[str, Any] | ModelSpec | Deployment, *, batch: int = 1, context: int | None = None,
         solve_gpus: bool = True, **options: Any) -> PlanResult:
    """Plan one deployment (module docstring).

    ``config`` is a :class:`~kvcalc.deployment.Deployment` already built, or anything
    :func:`~kvcalc.deployment.deploy` takes, with its options (``gpu``, ``gpus``, ``runtime``,
    ``dtype``, ``kv_dtype``, vLLM's ``gpu_memory_utilization`` / ``max_model_len`` / ``block_size`` /
    ``max_num_batched_tokens`` / ``max_num_seqs`` / ``kv_cache_memory``, measured ``*_gib``, ...).
    ``context`` defaults to ``max_model_len``, else the model's ``max_position_embeddings``, else
    4096. vLLM's ``max_model_len`` defaults, as in vLLM, to the model's ``max_position_embeddings``.
    """
    if isinstance(config, Deployment):
        if options:
            raise InputError(f"plan options ({', '.join(sorted(options))}) belong to the Deployment, not to plan()")
        d = config
    else:
        d = deploy(config, **options)
    batch = check_count("batch", batch, 1, MAX_BATCH)
    if context is None and d.vllm.auto_fit_max_model_len and d.runtime == "vllm":
        context = d.vllm_plan().max_model_len          # vLLM 0.33's auto-fit: what it settled on
    if context is None and d.runtime in ENGINE_RUNTIMES:
        context = d.engine_plan().max_context or d.context_cap
    if context is None:
        context = d.max_model_len or d.spec.max_position_embeddings or 4096
    context = check_count("context", context, 1, MAX_CONTEXT)
    result = plan_at(d, batch, context)
    if solve_gpus:
        result = replace(result, min_gpus=fewest_gpus(d, batch, context))
    return result


def plan_at(d: Deployment, batch: int, context: int) -> PlanResult:
    """:func:`plan` for validated counts, without the fewest-GPUs search."""
    warnings = list(d.spec.warnings) + list(d.weights.notes)
    model_max = d.spec.max_position_embeddings
    if d.max_model_len and model_max and d.max_model_len > model_max:
        warnings.append(f"max_model_len {d.max_model_len:,} exceeds the config's max_position_embeddings "
                        f"{model_max:,}: vLLM refuses this unless rope scaling extends the context or "
                        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set, and quality past the trained length is not assured")
    if d.runtime == "vllm":
        return _plan_vllm(d, batch, context, warnings)
    if d.runtime == "llama_cpp":
        return _plan_llama(d, batch, context, warnings)
    if d.runtime in ENGINE_RUNTIMES:
        return _plan_engine(d, batch, context, warnings)
    return _plan_direct(d, batch, context, warnings)


def _common(d: Deployment, batch: int, context: int) -> dict[str, Any]:
    return dict(model_type=d.spec.model_type, runtime=d.runtime, gpu=d.gpu.name, gpu_memory_bytes=d.gpu.memory_bytes,
                gpus=d.gpus, tensor_parallel_size=d.tp, pipeline_parallel_size=d.pp, batch=batch, context=context,
                dtype=d.model_dtype.name, weights_scheme=d.weights.scheme, weights_bytes=d.weights_rank,
                weights_bytes_total=d.weights.total_bytes, model_max_context=d.spec.max_position_embeddings,
                fields_used=d.spec.fields_used, quality=d.quality, weights_quality=d.weights_quality,
                kv_quality=d.spec.quality)


def _plan_direct(d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
    table = layer_bytes(d, batch, context)
    kv_gpu, overhead = table.per_gpu_bytes, overhead_bytes(d, batch, context)
    budget, cap = d.gpu.memory_bytes, d.context_cap
    total = d.weights_rank + kv_gpu + overhead
    fits = total <= budget and context <= cap
    max_context = largest_true(lambda t: _fits_direct(d, batch, t), cap)
    max_batch = largest_true(lambda b: _fits_direct(d, b, context), MAX_BATCH) if context <= cap else None
    binding = direct_binding(d, batch, context, kv_gpu, overhead, fits, max_context)
    if binding is None:
        grows_kv = _kv_grows_faster(d, batch, max_context or 1)
        binding = growth_binding(grows_kv, budget)
    return PlanResult(
        **_common(d, batch, context), kv_dtype=d.kv.name, kv_bytes=kv_gpu, kv_bytes_total=table.all_gpus_bytes,
        overhead_bytes=overhead, budget_bytes=budget, total_bytes=total, fits=fits, max_context=max_context,
        max_batch=max_batch, min_gpus=None, binding_constraint=binding,
        formulas=direct_formulas(d, batch, context, kv_gpu, overhead, fits), warnings=tuple(warnings))


def _kv_grows_faster(d: Deployment, batch: int, at: int) -> bool:
    """Whether the KV cache (not the activation peak) fills the GPU as context grows past ``at``."""
    k0, k1 = busiest_stage_kv(d, batch, at), busiest_stage_kv(d, batch, at + 1)
    return overhead_bytes(d, batch, at + 1) - overhead_bytes(d, batch, at) <= k1 - k0


def _plan_vllm(d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
    vp = d.vllm_plan()
    note = served_note(d.architectures, d.spec, vp.vllm_version)
    served = (note,) if note else ()
    max_model_len = vp.max_model_len
    blocks = d.request_blocks()
    pool = _pool_blocks(vp)
    per_req = blocks(min(context, max_model_len))
    ok = fits(d, batch, context)
    table = layer_bytes(d, batch, context)
    max_context = largest_true(lambda t: batch * blocks(t) <= pool, max_model_len) \
        if pool and batch <= vp.max_num_seqs else None
    max_batch = min(pool // per_req, vp.max_num_seqs) if pool and context <= max_model_len else 0
    overhead = vp.activation_bytes + vp.non_torch_bytes + vp.cuda_graph_bytes
    kv_gpu = table.per_gpu_bytes
    binding = vllm_binding(d, vp, batch, context, per_req, pool, ok, bool(max_context or max_batch), max_batch)
    common = _common(d, batch, context)
    common["weights_bytes"] = vp.weights_bytes       # on the GPU: less what --cpu-offload-gb keeps on the CPU
    return PlanResult(
        **common, kv_dtype=vp.kv_dtype, kv_bytes=kv_gpu, kv_bytes_total=table.all_gpus_bytes,
        overhead_bytes=overhead, budget_bytes=vp.requested_bytes, total_bytes=vp.weights_bytes + kv_gpu + overhead,
        fits=ok, max_context=max_context, max_batch=max_batch or None, min_gpus=None, binding_constraint=binding,
        kv_cache_tokens=vp.kv_cache_tokens, num_gpu_blocks=vp.num_gpu_blocks, max_concurrency=vp.max_concurrency,
        available_kv_bytes=vp.available_kv_bytes, formulas=vllm_formulas(d, vp), engine_lines=vp.log_lines(),
        warnings=tuple(warnings) + vp.notes + served)


def _plan_engine(d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
    """A paged engine's plan from its EngineMemoryPlan (SGLang, TensorRT-LLM)."""
    ep: EngineMemoryPlan = d.engine_plan()
    table = layer_bytes(d, batch, context)
    kv_gpu = table.per_gpu_bytes
    ok = ep.fits(batch, context)
    max_batch = ep.largest_batch(context)
    return PlanResult(
        **_common(d, batch, context), kv_dtype=d.kv.name, kv_bytes=kv_gpu, kv_bytes_total=table.all_gpus_bytes,
        overhead_bytes=ep.overhead_bytes, budget_bytes=ep.budget_bytes,
        total_bytes=ep.weights_bytes + kv_gpu + ep.overhead_bytes, fits=ok, max_context=ep.longest_context(batch),
        max_batch=max_batch, min_gpus=None, binding_constraint=engine_binding(ep, batch, context, ok, max_batch),
        kv_cache_tokens=ep.pool_tokens, num_gpu_blocks=ep.pool_pages, max_concurrency=ep.max_concurrency,
        available_kv_bytes=ep.available_kv_bytes, formulas=ep.formulas, engine_lines=ep.log_lines,
        warnings=tuple(warnings) + ep.notes)


def llama_solvers(d: Deployment, batch: int, context: int) -> tuple[int | None, int | None]:
    """(longest context at ``batch``, largest batch at ``context``) for llama.cpp runs sized to the request
    (kvcalc.llama_cpp.seam), memoized per deployment."""
    key = ("llama_solvers", batch, context)
    if key not in d._memo:
        assert d.gguf is not None
        args = (d.spec, d.llama_cpp, d.gguf, d.gpu.memory_bytes)
        d._memo[key] = (llama_longest_context(*args, batch, d.context_cap),
                        llama_largest_batch(*args, context) if context <= d.context_cap else None)
    got: tuple[int | None, int | None] = d._memo[key]
    return got


def _plan_llama(d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
    """llama.cpp's plan (module docstring): the configured run's allocation, the cells the requests occupy."""
    ep: EngineMemoryPlan = d.engine_plan()
    lp = d.llama_plan()
    table = layer_bytes(d, batch, context)
    ok = ep.fits(batch, context)
    max_context, max_batch = llama_solvers(d, batch, context)
    binding = engine_binding(ep, batch, context, ok, None)
    if ok:
        c = lp.cells
        binding = (f"the cells llama.cpp allocates at startup: n_ctx {c.n_ctx:,} ({c.n_ctx_seq:,} per sequence, "
                   f"{c.n_seq_max} sequences), {gib_text(ep.available_kv_bytes)} of KV on the GPU, of which the "
                   "requests occupy the KV figure")
    elif max_context is not None and max_context >= context:
        binding += f"; a run sized to the request fits: -np {batch} -c {batch * context:,}"
    offloaded = lp.host.weights - (d.gguf.input_bytes if d.gguf else 0)
    if offloaded > 0:
        warnings.append(f"-ngl leaves {gib_text(offloaded)} of layer weights in host memory: llama.cpp runs those "
                        "layers on the CPU, which the speed estimate (all weights at GPU bandwidth) does not model")
    o = d.llama_cpp
    common = _common(d, batch, context)
    common.update(quality=lp.quality, kv_quality=lp.kv_quality)     # the compute buffer is estimated
    return PlanResult(
        **common, kv_dtype=f"{o.cache_type_k}/{o.cache_type_v}", kv_bytes=table.per_gpu_bytes,
        kv_bytes_total=table.all_gpus_bytes, overhead_bytes=ep.overhead_bytes, budget_bytes=ep.budget_bytes,
        total_bytes=ep.weights_bytes + table.per_gpu_bytes + ep.overhead_bytes, fits=ok, max_context=max_context,
        max_batch=max_batch, min_gpus=None, binding_constraint=binding, kv_cache_tokens=ep.pool_tokens,
        num_gpu_blocks=ep.pool_pages, max_concurrency=ep.max_concurrency, available_kv_bytes=ep.available_kv_bytes,
        formulas=ep.formulas, engine_lines=ep.log_lines, warnings=tuple(warnings) + ep.notes,
        host_bytes=lp.host.total)


def fewest_gpus(d: Deployment, batch: int, context: int) -> int | None:
    """Fewest GPUs of this type that fit ``batch`` x ``context``: :data:`FEWEST_GPU_COUNTS` in order,
    tensor parallel under vLLM, SGLang, TensorRT-LLM and ideal, pipeline stages under transformers; None beyond them.
    Counts the model cannot be split over (heads not divisible) are skipped. llama.cpp: 1 when a run sized
    to the request fits one GPU, else None (its multi-GPU split is not modelled)."""
    if d.runtime == "llama_cpp":
        return 1 if (llama_solvers(d, batch, context)[1] or 0) >= batch else None
    for n in FEWEST_GPU_COUNTS:
        try:
            other = d.with_gpus(n)
        except InputError:
            continue
        if fits(other, batch, context):
            return n
    return None


def fits(d: Deployment, batch: int, context: int) -> bool:
    """``plan_at(d, batch, context).fits`` without building the rest of the answer."""
    if d.runtime in ENGINE_RUNTIMES:
        return d.engine_plan().fits(batch, context)
    if d.runtime != "vllm":
        return context <= d.context_cap and _fits_direct(d, batch, context)
    vp = d.vllm_plan()
    return (vp.fits and context <= vp.max_model_len and batch <= vp.max_num_seqs
            and batch * d.request_blocks()(context) <= _pool_blocks(vp))


def _pool_blocks(vp: VllmMemoryPlan) -> int:
    """Blocks vLLM's KV pool holds (0 when no memory is left for it)."""
    return vp.num_gpu_blocks if vp.available_kv_bytes > 0 else 0
