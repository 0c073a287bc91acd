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
    sized to the request (``-np batch -c batch x context``, other flags as given); over ``gpus > 1`` the
    ``-ts`` layer split, the busiest GPU's bytes (kvcalc.llama_cpp.split).

Each runtime's rules live in its engine (kvcalc.engines: ``Engine.plan_at``, ``Engine.fits``,
``Engine.fewest_gpus``); this module asks ``d.engine`` and never compares a runtime's name.
The KV figures are the per-layer table's sums (kvcalc.layer_table), so a page's table adds up to
its headline; the solvers use the deployment's compiled caches (kvcalc.sweep), equal to that
table point by point (tests/fast/test_layer_table.py).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from .deployment import FEWEST_GPU_COUNTS, Deployment, deploy
from .errors import InputError
from .limits import MAX_BATCH, MAX_CONTEXT, check_count
from .spec import ModelSpec
from .sweep import cache_bytes

__all__ = ["PlanResult", "busiest_stage_kv", "common_fields", "fewest_gpus", "fits", "plan", "plan_at", "search_gpus"]


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


def busiest_stage_kv(d: Deployment, batch: int, context: int) -> int:
    """KV bytes on the busiest GPU of an unpaged runtime, from the compiled stage caches (kvcalc.sweep):
    the fast twin of ``layer_bytes(d, ...).per_gpu_bytes`` the solvers and curves use."""
    return max(cache_bytes(c, batch, context) for c in d.stage_caches)


def plan(config: Mapping[str, Any] | ModelSpec | Deployment, *, batch: int = 1, context: int | None = None,
         solve_gpus: bool = True, **options: Any) -> PlanResult:
    """Plan one deployment (module docstring).

    ``config`` is a :class:`~kvcalc.deployment.Deployment` already built, or anything
    :func:`~kvcalc.deployment.deploy` takes, with its options (``gpu``, ``gpus``, ``runtime``,
    ``dtype``, ``kv_dtype``, ``options=`` the engine's options object, or its flat flags: vLLM's
    ``gpu_memory_utilization`` / ``max_model_len`` / ``block_size`` / ..., measured ``*_gib``, ...).
    ``context`` defaults to the engine's (vLLM 0.33's auto-fit length; a serving engine's longest
    request), else ``max_model_len``, else the model's ``max_position_embeddings``, else 4096.
    """
    if isinstance(config, Deployment):
        if options:
            raise InputError(f"plan options ({', '.join(sorted(options))}) belong to the Deployment, not to plan()")
        d = config
    else:
        d = deploy(config, **options)
    batch = check_count("batch", batch, 1, MAX_BATCH)
    if context is None:
        context = d.engine.default_context(d)
    if context is None:
        context = d.max_model_len or d.spec.max_position_embeddings or 4096
    context = check_count("context", context, 1, MAX_CONTEXT)
    result = plan_at(d, batch, context)
    if solve_gpus:
        result = replace(result, min_gpus=fewest_gpus(d, batch, context))
    return result


def plan_at(d: Deployment, batch: int, context: int) -> PlanResult:
    """:func:`plan` for validated counts, without the fewest-GPUs search (``Engine.plan_at``)."""
    warnings = list(d.spec.warnings) + list(d.weights.notes)
    model_max = d.spec.max_position_embeddings
    if d.max_model_len and model_max and d.max_model_len > model_max:
        warnings.append(f"max_model_len {d.max_model_len:,} exceeds the config's max_position_embeddings "
                        f"{model_max:,}: vLLM refuses this unless rope scaling extends the context or "
                        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set, and quality past the trained length is not assured")
    return d.engine.plan_at(d, batch, context, warnings)


def common_fields(d: Deployment, batch: int, context: int) -> dict[str, Any]:
    """The :class:`PlanResult` fields every engine fills alike (the deployment's, and the request's)."""
    return dict(model_type=d.spec.model_type, runtime=d.runtime, gpu=d.gpu.name, gpu_memory_bytes=d.gpu.memory_bytes,
                gpus=d.gpus, tensor_parallel_size=d.tp, pipeline_parallel_size=d.pp, batch=batch, context=context,
                dtype=d.model_dtype.name, weights_scheme=d.weights.scheme, weights_bytes=d.weights_rank,
                weights_bytes_total=d.weights.total_bytes, model_max_context=d.spec.max_position_embeddings,
                fields_used=d.spec.fields_used, quality=d.quality, weights_quality=d.weights_quality,
                kv_quality=d.spec.quality)


def fewest_gpus(d: Deployment, batch: int, context: int) -> int | None:
    """Fewest GPUs of this type that fit ``batch`` x ``context``: :data:`FEWEST_GPU_COUNTS` in order
    (:func:`search_gpus`), tensor parallel under vLLM, SGLang, TensorRT-LLM and ideal, pipeline stages under
    transformers; None beyond them. An engine that plans one GPU (``Engine.multi_gpu`` False: llama.cpp)
    answers 1 when ``Engine.one_gpu_fits``, else None."""
    if not d.engine.multi_gpu:
        return 1 if d.engine.one_gpu_fits(d, batch, context) else None
    return search_gpus(d, batch, context)


def search_gpus(d: Deployment, batch: int, context: int) -> int | None:
    """The first of :data:`FEWEST_GPU_COUNTS` on which ``batch`` x ``context`` fits; counts the model cannot
    be split over (heads not divisible) are skipped."""
    for n in FEWEST_GPU_COUNTS:
        try:
            other = d.with_gpus(n)
        except InputError:
            continue
        if fits(other, batch, context):
            return n
    return None


def fits(d: Deployment, batch: int, context: int) -> bool:
    """``plan_at(d, batch, context).fits`` without building the rest of the answer (``Engine.fits``)."""
    return d.engine.fits(d, batch, context)
