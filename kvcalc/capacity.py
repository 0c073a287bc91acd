"""Will it fit? Memory budgets per runtime, and the solvers built on them.

``plan(config, ...)`` answers for one deployment (a GPU type x count, a runtime, batch and
context): weights, KV cache and runtime overhead on the busiest GPU, whether it fits, the longest
context at this batch, the largest batch at this context, the fewest GPUs that fit, and which
constraint binds. Budgets per GPU (bytes; GiB = 2**30):

``ideal``
    ``weights_rank + kv_rank(batch, context) <= gpu_memory``: the ideal cache (kvcalc.kv).
``transformers``
    Plain ``generate`` without paging: ``weights_rank + kv_rank + activation + non_torch <=
    gpu_memory``, with the transformers cache (kvcalc.kv, right after the prefill) and the prefill's
    activation peak (kvcalc.activations): the larger of one forward of ``batch x context`` tokens
    and the last-position logits ``generate`` keeps with their float32 copies (the two are not live
    at the same time). Several GPUs split layers
    (``device_map="auto"``, pipeline style); there is no tensor parallelism.
``vllm``
    vLLM v1's own accounting (kvcalc.vllm): ``gpu_memory_utilization x total`` minus weights,
    profiled activation peak, non-torch memory and CUDA graphs is the KV pool, cut into pages of
    ``block_size`` tokens; ``batch`` requests of ``context`` tokens fit when their blocks fit the
    pool and ``context <= max_model_len``.

Per-rank weights: tensor parallelism splits the decoder layers, embeddings and LM head by ``tp``
(vocabulary-parallel) and replicates norms and the vision tower; pipeline parallelism gives each
stage its share of layers (vLLM's partition), the embeddings to the first stage and the LM head to
the last. Decoder weights are taken as uniform across layers (MoE models whose first layers are
dense deviate slightly). KV heads per rank are ``max(1, kv_heads // tp)``; MLA latents are whole on
every rank; recurrent states split by ``tp``.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from .activations import forward_activation_bytes, generate_logits_bytes
from .architectures import read_spec
from .dtypes import ceil_div, get_dtype
from .errors import InputError, UnsupportedError
from .gpus import GPU, custom_gpu, get_gpu
from .kv import resolve_dtypes
from .limits import MAX_BATCH, MAX_CONTEXT, MAX_GPUS, check_count
from .params import count_params
from .runtimes import RUNTIMES, check_runtime
from .spec import ModelSpec
from .units import GiB
from .solve import largest_true
from .sweep import CompiledCache, cache_bytes, compile_cache
from .vllm import RequestBlocks, pp_layer_partition, vllm_memory_plan
from .weights import WeightBytes, weight_bytes

LAYER_PARTS = ("attention", "mlp", "mixer")


@dataclass(frozen=True)
class PlanResult:
    """The answer for one deployment. Byte figures are per GPU on the busiest rank unless named
    ``*_total``; ``max_context`` / ``max_batch`` are None when nothing fits. Under vLLM they are
    what the KV pool holds with ``max_model_len`` set to that context (vLLM refuses to start when
    one ``max_model_len`` request does not fit; ``fits`` is then False and the binding says so)."""

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
    warnings: tuple[str, ...] = ()
    fields_used: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ----------------------------------------------------------------------------- per-rank model
def rank_spec(spec: ModelSpec, tp: int) -> ModelSpec:
    """The cache one tensor-parallel rank holds: KV heads ``max(1, kv // tp)``, MLA whole, states / tp."""
    if tp == 1:
        return spec
    layers = []
    for layer in spec.layers:
        attention = tuple(a if a.latent_dim else replace(a, kv_heads=max(1, a.kv_heads // tp),
                                                           query_heads=max(1, a.query_heads // tp))
                          for a in layer.attention)
        states = tuple(replace(s, elements=ceil_div(s.elements, tp)) for s in layer.states)
        layers.append(replace(layer, attention=attention, states=states))
    return replace(spec, layers=tuple(layers))


def check_parallel(spec: ModelSpec, tp: int, pp: int) -> None:
    """vLLM's divisibility rules: heads divide by tp; KV heads divide by tp or tp by KV heads."""
    if pp > spec.num_layers:
        raise InputError(f"pipeline_parallel_size {pp} exceeds the model's {spec.num_layers} layers")
    if tp == 1:
        return
    heads = spec.num_attention_heads
    if heads and heads % tp:
        raise InputError(f"tensor_parallel_size {tp} must divide the {heads} attention heads")
    kv = next((a.kv_heads for l in spec.layers for a in l.attention if not a.latent_dim), None)
    if kv and kv % tp and tp % kv:
        raise InputError(f"tensor_parallel_size {tp} and the {kv} KV heads must divide one another")


def rank_weights(w: WeightBytes, num_layers: int, tp: int, pp: int) -> int:
    """Weight bytes on the busiest rank (module docstring)."""
    part = {p.name: p.bytes for p in w.parts}
    layer_bytes = sum(part.get(n, 0) for n in LAYER_PARTS)
    partition = pp_layer_partition(num_layers, pp)
    best = 0
    for stage, n in enumerate(partition):
        b = ceil_div(layer_bytes * n, num_layers * tp) + ceil_div(part.get("norms", 0) * n, num_layers)
        if stage == 0:
            b += ceil_div(part.get("embedding", 0), tp) + part.get("vision", 0) + part.get("other", 0)
        if stage == pp - 1:
            head = part.get("lm_head", 0) or (part.get("embedding", 0) if w.params.tied_embeddings and pp > 1 else 0)
            b += ceil_div(head, tp)
        best = max(best, b)
    return best


def stage_specs(spec: ModelSpec, pp: int) -> list[ModelSpec]:
    """The layers of each pipeline stage (vLLM's partition), as specs of their own."""
    out, start = [], 0
    for n in pp_layer_partition(spec.num_layers, pp):
        out.append(replace(spec, layers=spec.layers[start:start + n]))
        start += n
    return out


# ----------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class Deployment:
    """A validated deployment (model x GPUs x runtime x dtypes), before batch and context are chosen."""

    spec: ModelSpec
    rank: ModelSpec
    runtime: str
    gpu: GPU
    gpus: int
    tp: int
    pp: int
    dtype: str | None
    kv_dtype: str | None
    weights: WeightBytes
    weights_rank: int
    opts: dict
    max_model_len: int | None
    context_cap: int
    stage_caches: tuple[CompiledCache, ...] = ()   # per pipeline stage, one rank (ideal / transformers)
    total_cache: CompiledCache | None = None       # the whole model, every rank


def _budget(s: Deployment, batch: int, context: int) -> tuple[int, int, int, int, dict]:
    """(kv bytes per GPU, overhead per GPU, budget per GPU, total KV, vllm extras) at batch x context.

    KV per GPU is the busiest pipeline stage of one tensor-parallel rank; bytes come from the
    deployment's compiled caches (kvcalc.sweep), equal to kv_cache layer by layer."""
    assert s.total_cache is not None
    per_gpu = max(cache_bytes(c, batch, context) for c in s.stage_caches)
    total = cache_bytes(s.total_cache, batch, context)
    if s.runtime == "ideal":
        return per_gpu, 0, s.gpu.memory_bytes, total, {}
    act = s.opts["activation_bytes"]
    if act is None:
        model, _ = resolve_dtypes(s.spec, s.dtype, s.kv_dtype)
        b = model.bits // 8
        act = forward_activation_bytes(batch * context, s.spec.hidden_size, s.spec.mlp_width or 4 * s.spec.hidden_size, b)
        act = max(act, generate_logits_bytes(batch, s.spec.vocab_size, b))
    return per_gpu, act + (s.opts["non_torch_bytes"] or 0), s.gpu.memory_bytes, total, {}


def _vllm(s: Deployment, max_model_len: int):
    o = s.opts
    return vllm_memory_plan(
        s.spec, total_gpu_bytes=s.gpu.memory_bytes, weights_bytes=s.weights_rank,
        gpu_memory_utilization=o["gpu_memory_utilization"], max_model_len=max_model_len,
        block_size=o["block_size"], kv_cache_dtype=s.kv_dtype, dtype=s.dtype, tensor_parallel_size=s.tp,
        pipeline_parallel_size=s.pp, max_num_batched_tokens=o["max_num_batched_tokens"],
        max_num_seqs=o["max_num_seqs"], activation_bytes=o["activation_bytes"],
        non_torch_bytes=o["non_torch_bytes"], cuda_graph_bytes=o["cuda_graph_bytes"] or 0,
        kv_cache_memory=o["kv_cache_memory"], gpu_name=s.gpu.name)


def _positive_float(name: str, value: Any, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= hi:
        raise InputError(f"{name} must be a number between 0 and {hi:g}, got {value!r:.30}")
    return float(value)


def _gib_to_bytes(name: str, value: float | None) -> int | None:
    if value is None:
        return None
    return int(round(_positive_float(name, value, 1 << 20) * GiB))


PLAN_OPTIONS = ("gpu", "gpu_mem_gib", "gpus", "runtime", "dtype", "kv_dtype", "tensor_parallel_size",
                "pipeline_parallel_size", "gpu_memory_utilization", "max_model_len", "block_size",
                "max_num_batched_tokens", "max_num_seqs", "kv_cache_memory", "weights_gib", "activation_gib",
                "non_torch_gib", "cuda_graph_gib", "config_dict", "checkpoint_bytes")


def plan(config: "Mapping[str, Any] | ModelSpec", *, batch: int = 1, context: int | None = None,
         solve_gpus: bool = True, **options: Any) -> PlanResult:
    """Plan one deployment (module docstring).

    Options (see :func:`prepare`): ``gpu`` (catalog name/key) or ``gpu_mem_gib``, ``gpus``,
    ``runtime`` ('vllm' default, 'transformers', 'ideal'), ``dtype`` (weights), ``kv_dtype``,
    ``tensor_parallel_size``, ``pipeline_parallel_size``, vLLM's ``gpu_memory_utilization``,
    ``max_model_len``, ``block_size``, ``max_num_batched_tokens``, ``max_num_seqs``,
    ``kv_cache_memory`` (bytes), and measured overrides ``weights_gib`` / ``activation_gib`` /
    ``non_torch_gib`` / ``cuda_graph_gib`` (per GPU). ``context`` defaults to ``max_model_len``,
    else the model's ``max_position_embeddings``, else 4096. vLLM's ``max_model_len`` defaults,
    as in vLLM, to the model's ``max_position_embeddings`` (else ``context``).
    """
    setup = prepare(config, **options)
    batch = check_count("batch", batch, 1, MAX_BATCH)
    if context is None:
        context = setup.max_model_len or setup.spec.max_position_embeddings or 4096
    context = check_count("context", context, 1, MAX_CONTEXT)
    warnings = list(setup.spec.warnings) + list(setup.weights.notes)
    model_max = setup.spec.max_position_embeddings
    if setup.max_model_len and model_max and setup.max_model_len > model_max:
        warnings.append(f"max_model_len {setup.max_model_len:,} exceeds the config's max_position_embeddings "
                        f"{model_max:,}: vLLM refuses this unless rope scaling extends the context or "
                        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set, and quality past the trained length is not assured")
    if setup.runtime == "vllm":
        # vLLM's own default max_model_len is the model's max_position_embeddings
        result = _plan_vllm(setup, batch, context, setup.max_model_len or setup.spec.max_position_embeddings or context,
                            warnings)
    else:
        result = _plan_direct(setup, batch, context, setup.context_cap, warnings)
    if solve_gpus:
        result = replace(result, min_gpus=_min_gpus(config, setup, batch, context, options))
    return result


def prepare(config: "Mapping[str, Any] | ModelSpec", *, gpu: "str | GPU | None" = None,
            gpu_mem_gib: float | None = None, gpus: int = 1, runtime: str = "vllm", dtype: str | None = None,
            kv_dtype: str | None = None, tensor_parallel_size: int | None = None,
            pipeline_parallel_size: int | None = None, gpu_memory_utilization: float = 0.9,
            max_model_len: int | None = None, block_size: int = 16, max_num_batched_tokens: int | None = None,
            max_num_seqs: int | None = None, kv_cache_memory: int | None = None, weights_gib: float | None = None,
            activation_gib: float | None = None, non_torch_gib: float | None = None,
            cuda_graph_gib: float | None = None, config_dict: Mapping[str, Any] | None = None,
            checkpoint_bytes: int | None = None) -> "Deployment":
    """Validate a deployment and compute what does not depend on batch and context (weights, ranks).

    ``checkpoint_bytes``: the checkpoint's exact weight bytes when known (the Hub's safetensors
    metadata); it replaces the computed total, split over ranks in the computed proportions. Only
    used when no weights ``dtype`` is chosen (a chosen dtype re-quantizes the weights)."""
    raw = config if isinstance(config, Mapping) else config_dict
    if raw is None:
        raise InputError("plan needs the config.json dict (for the parameter count)")
    spec = config if isinstance(config, ModelSpec) else read_spec(config)
    runtime = check_runtime(runtime)
    if gpu_mem_gib is not None:
        device = custom_gpu(gpu_mem_gib)
    elif isinstance(gpu, GPU):
        device = gpu
    else:
        device = get_gpu(gpu or "h100-sxm")
    gpus = check_count("gpus", gpus, 1, MAX_GPUS)
    tp, pp = _parallel(runtime, gpus, tensor_parallel_size, pipeline_parallel_size)
    check_parallel(spec, tp, pp)
    if max_model_len is not None:
        max_model_len = check_count("max_model_len", max_model_len, 1, MAX_CONTEXT)
    if dtype is not None:
        get_dtype(dtype)
    model, kv = resolve_dtypes(spec, dtype, kv_dtype)
    if runtime == "transformers" and kv != model:
        raise UnsupportedError("transformers' DynamicCache stores K/V in the model dtype; "
                               "use runtime 'ideal' or 'vllm' for a quantized or fp8 KV cache")
    if isinstance(gpu_memory_utilization, bool) or not isinstance(gpu_memory_utilization, (int, float)) \
            or not 0 < gpu_memory_utilization <= 1:
        raise InputError(f"gpu_memory_utilization must be in (0, 1], got {gpu_memory_utilization!r:.20}")
    weights = weight_bytes(raw, dtype, count_params(raw))
    weights_rank = rank_weights(weights, spec.num_layers, tp, pp)
    if checkpoint_bytes is not None and dtype is None:
        known = check_count("checkpoint_bytes", checkpoint_bytes, 1, 1 << 50)
        weights_rank = ceil_div(weights_rank * known, max(weights.total_bytes, 1))
        weights = replace(weights, total_bytes=known, scheme=f"{weights.scheme}, checkpoint size from the Hub",
                          notes=weights.notes + (f"weights: {known:,} bytes from the checkpoint's safetensors metadata "
                                                 f"(computed from the config: {weights.total_bytes:,})",))
    w_override = _gib_to_bytes("weights_gib", weights_gib)
    if w_override is not None:
        weights_rank = w_override
    opts = dict(gpu_memory_utilization=gpu_memory_utilization, block_size=check_count("block_size", block_size, 1, 1 << 16),
                max_num_batched_tokens=max_num_batched_tokens, max_num_seqs=max_num_seqs,
                activation_bytes=_gib_to_bytes("activation_gib", activation_gib),
                non_torch_bytes=_gib_to_bytes("non_torch_gib", non_torch_gib),
                cuda_graph_bytes=_gib_to_bytes("cuda_graph_gib", cuda_graph_gib),
                kv_cache_memory=None if kv_cache_memory is None else check_count("kv_cache_memory", kv_cache_memory, 1, 1 << 50))
    cap = max_model_len or spec.max_position_embeddings or MAX_CONTEXT
    rank = rank_spec(spec, tp)
    stages: tuple[CompiledCache, ...] = ()
    total = None
    if runtime != "vllm":
        stages = tuple(compile_cache(st, dtype=model, kv_dtype=kv, runtime=runtime) for st in stage_specs(rank, pp))
        total = compile_cache(spec, dtype=model, kv_dtype=kv, runtime=runtime)
    return Deployment(spec, rank, runtime, device, gpus, tp, pp, dtype, kv_dtype, weights, weights_rank,
                      opts, max_model_len, cap, stages, total)


@dataclass(frozen=True)
class CurvePoint:
    """Memory on the busiest GPU at one context length (bytes)."""

    context: int
    weights: int
    overhead: int
    kv: int
    budget: int

    @property
    def total(self) -> int:
        return self.weights + self.overhead + self.kv


def memory_curve(setup: "Deployment", batch: int, contexts: list[int]) -> list[CurvePoint]:
    """Weights / overhead / KV per GPU at each context, by the same rules as :func:`plan`.

    vLLM preallocates its pool, so there the KV figure is what ``batch`` requests of that length
    occupy (blocks x block bytes) and overhead the profiled activation + non-torch + graphs."""
    batch = check_count("batch", batch, 1, MAX_BATCH)
    out = []
    if setup.runtime == "vllm":
        vp = _vllm(setup, setup.max_model_len or max(contexts))
        block_bytes = vp.block_bytes
        overhead = vp.activation_bytes + vp.non_torch_bytes + vp.cuda_graph_bytes
        blocks = RequestBlocks(setup.spec, dtype=setup.dtype, kv_cache_dtype=setup.kv_dtype, block_size=vp.block_size,
                               tensor_parallel_size=setup.tp, max_num_batched_tokens=vp.max_num_batched_tokens)
        for t in contexts:
            out.append(CurvePoint(t, setup.weights_rank, overhead, batch * blocks(t) * block_bytes, vp.requested_bytes))
        return out
    for t in contexts:
        kv, overhead, budget, _, _ = _budget(setup, batch, t)
        out.append(CurvePoint(t, setup.weights_rank, overhead, kv, budget))
    return out


def _parallel(runtime: str, gpus: int, tp: int | None, pp: int | None) -> tuple[int, int]:
    if runtime == "transformers":
        if tp not in (None, 1):
            raise InputError("the transformers runtime has no tensor parallelism: use pipeline_parallel_size")
        return 1, gpus if pp is None else check_count("pipeline_parallel_size", pp, 1, MAX_GPUS)
    if tp is None and pp is None:
        return gpus, 1
    tp = check_count("tensor_parallel_size", tp if tp is not None else gpus // (pp or 1), 1, MAX_GPUS)
    pp = check_count("pipeline_parallel_size", pp if pp is not None else max(1, gpus // tp), 1, MAX_GPUS)
    if tp * pp != gpus:
        raise InputError(f"tensor_parallel_size {tp} x pipeline_parallel_size {pp} must equal gpus ({gpus})")
    return tp, pp


def _plan_direct(s: Deployment, batch: int, context: int, cap: int, warnings: list[str]) -> PlanResult:
    kv_gpu, overhead, budget, kv_total, _ = _budget(s, batch, context)
    total = s.weights_rank + kv_gpu + overhead
    fits = total <= budget and context <= cap

    def fits_at(b: int, t: int) -> bool:
        k, o, bud, _, _ = _budget(s, b, t)
        return s.weights_rank + k + o <= bud

    max_context = largest_true(lambda t: fits_at(batch, t), cap)
    max_batch = largest_true(lambda b: fits_at(b, context), MAX_BATCH) if context <= cap else None
    gib = lambda x: f"{x / GiB:.2f} GiB"  # noqa: E731
    if s.weights_rank > budget:
        binding = f"weights alone exceed the GPU: {gib(s.weights_rank)} of weights per GPU > {gib(budget)}"
    elif context > cap:
        whose = "max_model_len" if s.max_model_len else "the model's maximum"
        binding = f"context {context:,} exceeds {whose} of {cap:,} tokens"
    elif not fits:
        what = "KV cache" if overhead == 0 or kv_gpu >= overhead else "activation peak"
        binding = f"{what}: weights {gib(s.weights_rank)} + KV {gib(kv_gpu)} + overhead {gib(overhead)} > {gib(budget)}"
    elif max_context == cap and cap != MAX_CONTEXT:
        whose = "max_model_len" if s.max_model_len else "the model's maximum context"
        binding = f"{whose} ({cap:,} tokens) binds before memory"
    else:
        binding = _growth_binding(s, batch, max_context or 1, gib(budget))
    model, kvd = resolve_dtypes(s.spec, s.dtype, s.kv_dtype)
    formulas = (
        f"weights per GPU = {s.weights.scheme} weights {gib(s.weights.total_bytes)} split over tp={s.tp} x pp={s.pp}"
        f" -> {gib(s.weights_rank)}",
        f"KV per GPU = batch {batch} x per-layer cache at {context:,} tokens ({kvd.name}) = {gib(kv_gpu)}",
        f"total per GPU = {gib(s.weights_rank)} + {gib(kv_gpu)} + overhead {gib(overhead)} = {gib(total)}"
        f" {'<=' if fits else '>'} {gib(budget)}",
    )
    return PlanResult(
        model_type=s.spec.model_type, runtime=s.runtime, gpu=s.gpu.name, gpu_memory_bytes=s.gpu.memory_bytes,
        gpus=s.gpus, tensor_parallel_size=s.tp, pipeline_parallel_size=s.pp, batch=batch, context=context,
        dtype=model.name, kv_dtype=kvd.name, weights_scheme=s.weights.scheme, weights_bytes=s.weights_rank,
        weights_bytes_total=s.weights.total_bytes, kv_bytes=kv_gpu, kv_bytes_total=kv_total, overhead_bytes=overhead,
        budget_bytes=budget, total_bytes=total, fits=fits, max_context=max_context, max_batch=max_batch, min_gpus=None,
        binding_constraint=binding, model_max_context=s.spec.max_position_embeddings, formulas=formulas,
        warnings=tuple(warnings), fields_used=s.spec.fields_used)


def _growth_binding(s: Deployment, batch: int, at: int, budget_text: str) -> str:
    """Which term fills the GPU as context grows past ``at``: the KV cache or the activation peak."""
    k0, o0, _, _, _ = _budget(s, batch, at)
    k1, o1, _, _, _ = _budget(s, batch, at + 1)
    what = "activation peak" if o1 - o0 > k1 - k0 else "KV cache"
    return f"{what} grows until GPU memory ({budget_text}) is full"


def _plan_vllm(s: Deployment, batch: int, context: int, max_model_len: int, warnings: list[str]) -> PlanResult:
    vp = _vllm(s, max_model_len)
    mnbt = vp.max_num_batched_tokens
    model, kvd = resolve_dtypes(s.spec, s.dtype, s.kv_dtype)

    blocks = RequestBlocks(s.spec, dtype=s.dtype, kv_cache_dtype=s.kv_dtype, block_size=vp.block_size,
                           tensor_parallel_size=s.tp, max_num_batched_tokens=mnbt)

    pool = vp.num_gpu_blocks if vp.available_kv_bytes > 0 else 0
    need = batch * blocks(min(context, max_model_len))
    fits = vp.fits and context <= max_model_len and need <= pool and batch <= vp.max_num_seqs
    kv_gpu = need * vp.block_bytes
    max_context = largest_true(lambda t: batch * blocks(t) <= pool, max_model_len) if pool and batch <= vp.max_num_seqs else None
    per_req = blocks(min(context, max_model_len))
    max_batch = min(pool // per_req, vp.max_num_seqs) if pool and context <= max_model_len else 0
    overhead = vp.activation_bytes + vp.non_torch_bytes + vp.cuda_graph_bytes
    gib = lambda x: f"{x / GiB:.2f} GiB"  # noqa: E731
    if vp.available_kv_bytes <= 0 or not vp.fits:
        binding = vp.binding
        if pool and (max_context or max_batch):
            binding += "; the longest context and largest batch shown assume max_model_len is lowered to fit"
        if s.weights_rank > vp.requested_bytes:
            binding = (f"weights alone exceed the GPU: {gib(s.weights_rank)} per GPU > "
                       f"{vp.gpu_memory_utilization:g} x {gib(s.gpu.memory_bytes)}")
    elif context > max_model_len:
        binding = f"context {context:,} exceeds max_model_len {max_model_len:,}"
    elif batch > vp.max_num_seqs:
        binding = f"batch {batch:,} exceeds max_num_seqs {vp.max_num_seqs:,}"
    elif not fits:
        binding = f"KV pages: {batch} requests x {per_req:,} blocks > {pool:,} blocks in the pool"
    elif max_batch == vp.max_num_seqs:
        binding = f"max_num_seqs ({vp.max_num_seqs:,}) caps the batch before KV pages run out"
    else:
        binding = f"KV pages: {pool:,} blocks of {vp.block_size} tokens ({gib(vp.available_kv_bytes)} available)"
    formulas = (
        f"requested = {vp.gpu_memory_utilization:g} x {gib(s.gpu.memory_bytes)} = {gib(vp.requested_bytes)}",
        f"available KV = requested - weights {gib(s.weights_rank)} - activation {gib(vp.activation_bytes)}"
        f" - non-torch {gib(vp.non_torch_bytes)} - CUDA graphs {gib(vp.cuda_graph_bytes)} = {gib(vp.available_kv_bytes)}",
        f"blocks = available / {vp.block_bytes:,} B per block ({vp.group_size} layers x {vp.block_size} tokens)"
        f" = {vp.num_gpu_blocks:,}",
        *vp.log_lines(),
    )
    return PlanResult(
        model_type=s.spec.model_type, runtime="vllm", gpu=s.gpu.name, gpu_memory_bytes=s.gpu.memory_bytes,
        gpus=s.gpus, tensor_parallel_size=s.tp, pipeline_parallel_size=s.pp, batch=batch, context=context,
        dtype=model.name, kv_dtype=vp.kv_dtype, weights_scheme=s.weights.scheme, weights_bytes=s.weights_rank,
        weights_bytes_total=s.weights.total_bytes, kv_bytes=kv_gpu, kv_bytes_total=need * vp.block_bytes_all_stages * s.tp,
        overhead_bytes=overhead, budget_bytes=vp.requested_bytes, total_bytes=s.weights_rank + kv_gpu + overhead,
        fits=fits, max_context=max_context, max_batch=max_batch or None, min_gpus=None, binding_constraint=binding,
        model_max_context=s.spec.max_position_embeddings, kv_cache_tokens=vp.kv_cache_tokens,
        num_gpu_blocks=vp.num_gpu_blocks, max_concurrency=vp.max_concurrency,
        available_kv_bytes=vp.available_kv_bytes, formulas=formulas, warnings=tuple(warnings) + vp.notes,
        fields_used=s.spec.fields_used)


def _min_gpus(config: Any, setup: "Deployment", batch: int, context: int, options: dict) -> int | None:
    """Fewest GPUs of this type that fit batch x context (powers of two up to 64; tp for vLLM and
    ideal, pipeline stages for transformers). A measured ``weights_gib`` only holds for the given count."""
    keep = {k: v for k, v in options.items()
            if k not in ("gpus", "tensor_parallel_size", "pipeline_parallel_size", "gpu", "gpu_mem_gib", "weights_gib")}
    for n in (1, 2, 4, 8, 16, 32, 64):
        if n == setup.gpus and options.get("weights_gib") is not None:
            keep["weights_gib"] = options["weights_gib"]
        else:
            keep.pop("weights_gib", None)
        try:
            p = plan(config, gpu=setup.gpu, gpus=n, batch=batch, context=context, solve_gpus=False, **keep)
        except InputError:
            continue   # e.g. a tensor-parallel size that does not divide the heads
        if p.fits:
            return n
    return None
