"""vLLM v1's startup memory budget and KV capacity on one GPU (bytes; GiB = 2**30, printed ``%.2f``).

Sources (vllm-project/vllm, read, not copied):

``v1/worker/gpu_worker.py``
    ``requested_memory = total_memory * gpu_memory_utilization`` (``init_device``);
    ``determine_available_memory``: ``available = requested_memory - (weights + torch activation peak
    + non-torch increase)`` (newer releases also subtract a CUDA-graph estimate when
    ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` is set); ``kv_cache_memory_bytes``
    (``--kv-cache-memory``) skips all of it.
``v1/core/kv_cache_utils.py``
    ``get_num_blocks`` (``available // page_size // group_size``), ``get_kv_cache_configs`` (per
    worker, then the minimum block count over workers), ``check_enough_kv_cache_memory`` (no
    memory: :data:`NO_MEMORY_ERROR`; one ``max_model_len`` request must fit, else
    ``estimate_max_model_len``), ``_report_kv_cache_config`` (the two startup log lines after
    "Available KV cache memory") and ``get_max_concurrency_for_kv_cache_config``.

Per-rank: vLLM sizes every tensor-parallel rank alike, so the figures are for ONE GPU.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..dtypes import DType, ceil_div
from ..errors import InputError, UnsupportedError
from ..limits import MAX_BATCH, MAX_CONTEXT, check_count
from ..resolve import default_encoder_tokens
from ..solve import largest_true
from ..spec import ModelSpec
from ..units import GiB
from .activation import estimate_activation_bytes
from .defaults import (
    DEFAULT_GPU_MEMORY_UTILIZATION,
    DEFAULT_NON_TORCH_BYTES,
    ENGINE_0_10,
    UsageContext,
    default_block_size,
    default_max_num_batched_tokens,
    default_max_num_seqs,
    engine,
    vllm_dtypes,
)
from .grouping import VllmCacheGroup, group_caches, group_request_bytes, kv_layer_partition, workers
from .hybrid import attention_free, engine_caches
from .lora import LoraConfig, check_lora_parallel, lora_bytes
from .specs import KVCacheSpec

NO_MEMORY_ERROR = ENGINE_0_10.no_memory_error
"""vLLM 0.10's ValueError when the KV budget is not positive (0.33's: ``EngineDefaults.no_memory_error``)."""


AUTO_FIT = -1
"""``--max-model-len -1``: vLLM 0.33 fits ``max_model_len`` to the KV memory."""


def format_gib(nbytes: float) -> str:
    """vLLM 0.33's ``format_gib`` (vllm/utils/mem_utils.py): ``str(round(bytes / 2**30, 2))``, e.g. '8.0'."""
    return f"{round(nbytes / GiB, 2)}"


def _gib(nbytes: float) -> str:
    return f"{nbytes / GiB:.2f} GiB"


@dataclass(frozen=True)
class VllmMemoryPlan:
    """vLLM's startup budget and KV capacity for one GPU of one deployment (bytes unless stated).

    ``available_kv_bytes = int(total * gpu_memory_utilization - weights - activation - non_torch
    - cuda_graph)`` unless ``kv_cache_memory`` was given. ``layers_per_stage`` counts the KV-cache
    layer specs each pipeline stage holds; ``group_size`` is the layers per group on the binding
    stage, so one block costs ``page_bytes * group_size`` bytes there. ``num_gpu_blocks = min over pipeline
    stages of available // page_bytes // group_size``; ``kv_cache_tokens = num_gpu_blocks //
    len(groups) * min block_size`` ("GPU KV cache size"); ``max_concurrency = num_gpu_blocks /
    blocks_per_request`` ("Maximum concurrency ... %.2fx"), ``blocks_per_request`` being the sum
    over groups of blocks one ``max_model_len`` request may hold.
    """

    total_gpu_bytes: int
    gpu_memory_utilization: float
    requested_bytes: int
    weights_bytes: int
    activation_bytes: int
    activation_estimated: bool
    non_torch_bytes: int
    non_torch_estimated: bool
    cuda_graph_bytes: int
    kv_cache_memory_given: bool
    available_kv_bytes: int
    kv_dtype: str
    block_size: int
    page_bytes: int
    groups: tuple[VllmCacheGroup, ...]
    layers_per_stage: tuple[int, ...]
    group_size: int
    block_bytes: int                # one block of the pool on the binding stage (all its layers)
    block_bytes_all_stages: int     # the same block summed over pipeline stages
    num_gpu_blocks: int
    kv_cache_tokens: int
    max_model_len: int
    blocks_per_request: int
    max_concurrency: float
    fits: bool
    needed_kv_bytes: int
    estimated_max_model_len: int | None
    max_num_batched_tokens: int
    max_num_seqs: int
    tensor_parallel_size: int
    pipeline_parallel_size: int
    binding: str
    notes: tuple[str, ...] = ()
    vllm_version: str = "0.10"
    max_in_flight_tokens: int = 0
    draft_layers: int = 0           # speculative decoding's KV layers (numbered from the model's layer count)
    weights_offloaded_bytes: int = 0    # --cpu-offload-gb: weights moved to the CPU (weights_bytes is what stays)
    check_kv_bytes: int = 0         # what the fit check compares with: available minus the null block (0.33)
    lora_bytes: int = 0             # --enable-lora buffers (kvcalc.vllm.lora), included in weights_bytes

    @property
    def _engine(self) -> Any:
        return engine(self.vllm_version)

    def refusal_text(self) -> str | None:
        """The ValueError vLLM raises at startup for this budget, in its own words; None when it starts."""
        e = self._engine
        if self.available_kv_bytes <= 0 or self.check_kv_bytes <= 0:
            return e.no_memory_error
        if self.fits:
            return None
        est = self.estimated_max_model_len or 0
        sentence = (f"Based on the available memory, the estimated maximum model length is {est}. " if est > 0 else "")
        return e.max_model_len_error.format(mml=self.max_model_len, need=format_gib(self.needed_kv_bytes),
                                            avail=format_gib(self.check_kv_bytes), est=sentence)

    @property
    def available_gib_text(self) -> str:
        """``Available KV cache memory: X GiB`` as vLLM prints it (0.10: ``%.2f``; 0.33: :func:`format_gib`)."""
        if self.vllm_version == "0.10":
            return f"{self.available_kv_bytes / GiB:.2f}"
        return format_gib(self.available_kv_bytes)

    @property
    def kv_cache_size_text(self) -> str:
        """``GPU KV cache size: N tokens`` (thousands separators, as vLLM)."""
        return f"{self.kv_cache_tokens:,}"

    @property
    def max_concurrency_text(self) -> str:
        """``Maximum concurrency for L tokens per request: X.XXx`` -> ``'X.XX'`` (``%.2f``)."""
        return f"{self.max_concurrency:.2f}"

    @property
    def non_kv_bytes(self) -> int:
        """Weights + activation + non-torch + CUDA graphs: what the budget holds besides the KV cache."""
        return self.weights_bytes + self.activation_bytes + self.non_torch_bytes + self.cuda_graph_bytes

    def no_memory_text(self) -> str:
        """Why there is no KV-cache memory, with the figures (only meaningful when ``available_kv_bytes <= 0``).

        The weights alone, or the weights plus whichever of activation / non-torch / CUDA graphs
        are counted, exceed the requested ``gpu_memory_utilization x total``; or ``--kv-cache-memory``
        was 0.
        """
        if self.kv_cache_memory_given:
            return f"no KV cache memory: kv_cache_memory (--kv-cache-memory) is {self.available_kv_bytes:,} bytes"
        budget = (f"the requested {_gib(self.requested_bytes)} ({self.gpu_memory_utilization:g} x "
                  f"{_gib(self.total_gpu_bytes)})")
        if self.weights_bytes > self.requested_bytes:
            return f"no KV cache memory: the weights alone ({_gib(self.weights_bytes)}) exceed {budget}"
        terms = [(name, b) for name, b in (("weights", self.weights_bytes), ("activation", self.activation_bytes),
                                           ("non-torch", self.non_torch_bytes),
                                           ("CUDA graphs", self.cuda_graph_bytes)) if b]
        verb = "exceed" if self.non_kv_bytes > self.requested_bytes else "fill"
        return (f"no KV cache memory: {' + '.join(f'{n} {_gib(b)}' for n, b in terms)} = "
                f"{_gib(self.non_kv_bytes)} alone {verb} {budget}")

    def log_lines(self) -> tuple[str, ...]:
        """The startup lines vLLM v1 prints for this budget.

        0.10: three when there is KV memory ("Available KV cache memory", "GPU KV cache size", "Maximum
        concurrency"); 0.33: two ("Available ...", then "GPU KV cache size: N tokens, Maximum concurrency
        ...: X.XXx" as one line, ``update_kv_cache_capacity``), or the refusal in vLLM's words when one
        ``max_model_len`` request does not fit; otherwise, instead of a negative "Available" figure, two: what leaves no
        memory (:meth:`no_memory_text`) and the error vLLM stops with (:data:`NO_MEMORY_ERROR`).
        """
        if self.available_kv_bytes <= 0:
            text = self.no_memory_text()
            return (text[0].upper() + text[1:], f"vLLM refuses to start: {self._engine.no_memory_error}")
        available = f"Available KV cache memory: {self.available_gib_text} GiB"
        size = f"GPU KV cache size: {self.kv_cache_size_text} tokens"
        conc = f"Maximum concurrency for {self.max_model_len:,} tokens per request: {self.max_concurrency_text}x"
        if not self._engine.one_capacity_line:
            return (available, size, conc)
        refusal = self.refusal_text()
        if refusal is not None:     # 0.33 checks the fit before it logs the capacity
            return (available, f"vLLM refuses to start: ValueError: {refusal}")
        return (available, f"{size}, {conc}")

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["log_lines"] = list(self.log_lines())
        return out


def _check_bytes(name: str, value: Any, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a whole number of bytes, got {value!r:.40}")
    if not minimum <= value <= 1 << 50:
        raise InputError(f"{name} must be between {minimum:,} and {1 << 50:,} bytes, got {value:,}")
    return value


def vllm_memory_plan(spec: ModelSpec, *, total_gpu_bytes: int, weights_bytes: int,
                     gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION, max_model_len: int,
                     block_size: int | None = None, kv_cache_dtype: "str | DType | None" = None,
                     dtype: "str | DType | None" = None, tensor_parallel_size: int = 1,
                     pipeline_parallel_size: int = 1, max_num_batched_tokens: int | None = None,
                     max_num_seqs: int | None = None, activation_bytes: int | None = None,
                     non_torch_bytes: int | None = None, cuda_graph_bytes: int | None = None,
                     kv_cache_memory: int | None = None, intermediate_size: int | None = None,
                     usage_context: UsageContext = "server", gpu_name: str = "",
                     vllm_version: str | None = None, derived_max_model_len: int | None = None,
                     draft_layers: int = 0, cpu_offload_bytes: int = 0,
                     lora: LoraConfig | None = None) -> VllmMemoryPlan:
    """vLLM v1's KV-cache budget and capacity on one GPU (see :class:`VllmMemoryPlan` for the formulas).

    ``total_gpu_bytes``: the device total vLLM sees (``torch.cuda.mem_get_info()[1]``, e.g. 79.19 GiB
    on an H100 80GB). ``weights_bytes``: model weights on one GPU ("Model loading took X GiB").
    ``activation_bytes`` / ``non_torch_bytes`` default to :func:`estimate_activation_bytes` and
    ``DEFAULT_NON_TORCH_BYTES``; ``cuda_graph_bytes`` defaults to the release's assumption
    (``EngineDefaults.cuda_graph_assumed_bytes``: 0.33 subtracts its CUDA-graph estimate, 0.10
    nothing). ``kv_cache_memory`` (``--kv-cache-memory``) replaces the whole budget.
    ``max_num_batched_tokens`` / ``max_num_seqs`` default to vLLM's ``EngineArgs`` defaults for
    ``usage_context`` ('server' = ``vllm serve``, 'offline' = ``LLM``) and this GPU (``gpu_name``
    only matters to tell an A100 apart). ``block_size`` defaults to the attention backend's
    (:func:`~kvcalc.vllm.defaults.default_block_size`). ``vllm_version`` picks the release's rules
    (:data:`~kvcalc.vllm.defaults.ENGINES`; default 0.33). ``max_model_len=-1`` is 0.33's auto-fit
    (``_auto_fit_max_model_len``): the longest length whose one request fits the budget less the null
    block, at most ``derived_max_model_len``. ``draft_layers``: KV layers speculative decoding adds
    (kvcalc.vllm.speculative.speculative_kv_layers), on the last stage. ``cpu_offload_bytes``
    (``--cpu-offload-gb`` x 2**30, ``OffloadConfig``; ``UVAOffloader`` in model_executor/offloader/uva.py)
    leave the GPU: ``min(weights, cpu_offload_bytes)``; vLLM moves whole parameters until the cap is
    reached, so it may move up to one parameter more (a stated approximation). ``lora``
    (``--enable-lora``, kvcalc.vllm.lora) adds the LoRA manager's buffers to the weights, as vLLM's
    "Model loading took" counts them (``GPUModelRunner.load_model``). ``intermediate_size``
    feeds the activation estimate only.

    Hybrid (attention + mamba / linear-attention) models follow vLLM 0.33's hybrid allocator
    (kvcalc.vllm.hybrid); the 0.10 rules refuse them.
    """
    e = engine(vllm_version)
    total = _check_bytes("total_gpu_bytes", total_gpu_bytes, 1)
    weights = _check_bytes("weights_bytes", weights_bytes)
    offloaded = min(weights, _check_bytes("cpu_offload_bytes", cpu_offload_bytes))
    weights -= offloaded
    if isinstance(gpu_memory_utilization, bool) or not isinstance(gpu_memory_utilization, (int, float)) \
            or not 0 < gpu_memory_utilization <= 1:
        raise InputError(f"gpu_memory_utilization must be in (0, 1], got {gpu_memory_utilization!r:.40}")
    derived_max = 0
    if max_model_len == AUTO_FIT:
        if derived_max_model_len is None:
            raise InputError("max_model_len -1 (auto-fit) needs the model's derived maximum (derived_max_model_len)")
        derived_max = check_count("derived_max_model_len", derived_max_model_len, 1, MAX_CONTEXT)
    else:
        max_model_len = check_count("max_model_len", max_model_len, 1, MAX_CONTEXT)
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
    if lora is not None:
        check_lora_parallel(spec, lora, tp, pp)
    adapters = 0 if lora is None else lora_bytes(spec, lora, model, tensor_parallel_size=tp,
                                                  max_num_batched_tokens=mnbt, max_num_seqs=seqs)
    weights += adapters
    if block_size is None:
        mla = [a for layer in spec.layers for a in layer.attention if a.latent_dim]
        block_size = default_block_size(bool(mla), kv, e.version, sparse=any(a.indexer_dim for a in mla))
    block_size = check_count("block_size", block_size, 1, 1 << 16)
    draft_layers = check_count("draft_layers", draft_layers, 0, 64)
    caches, block_size = engine_caches(spec, model, kv, block_size, tp, e.version, draft_layers)
    if attention_free(spec):
        if max_model_len == AUTO_FIT:
            raise UnsupportedError("max_model_len -1 (auto-fit) for an attention-free model is not modelled: vLLM "
                                   "sizes its state blocks by max_model_len")
        # mamba_block_size = max_model_len: one state page per request, counted as max_model_len tokens
        caches = tuple(replace(c, block_size=max_model_len) for c in caches)
    if not caches:
        raise UnsupportedError("this model has no KV cache layers for vLLM to allocate")
    enc = default_encoder_tokens(spec, mnbt)   # max_num_encoder_input_tokens defaults to the token budget
    inflight = mnbt * e.max_concurrent_batches   # VllmConfig.max_in_flight_tokens
    notes: list[str] = []
    if e.max_concurrent_batches > 1 and any(c.window is not None for c in caches):
        notes.append(f"vLLM {e.version}: async scheduling keeps {e.max_concurrent_batches} batches in flight, so a "
                     f"sliding / chunked layer holds W - 1 + {inflight:,} tokens (max_in_flight_tokens)")

    if activation_bytes is None:
        est = estimate_activation_bytes(spec, max_num_batched_tokens=mnbt, max_num_seqs=seqs, dtype=dtype,
                                        tensor_parallel_size=tp,
                                        intermediate_size=intermediate_size or spec.mlp_width)
        activation = est.peak_bytes
        notes.append(f"activation estimated: max(forward {est.forward_bytes / GiB:.2f} GiB for {mnbt:,} tokens, "
                     f"sampler {est.sampler_bytes / GiB:.2f} GiB for {est.sampler_requests:,} requests)")
        if est.intermediate_assumed:
            notes.append(f"MLP width not given: assumed 4 x hidden = {est.intermediate_size:,}")
    else:
        activation = _check_bytes("activation_bytes", activation_bytes)
    if cuda_graph_bytes is None:
        cuda_graph = e.cuda_graph_assumed_bytes
        if cuda_graph and kv_cache_memory is None:
            notes.append(f"CUDA graphs assumed {cuda_graph / GiB:.2f} GiB: vLLM {e.version} subtracts its profiler's "
                         "estimate, which is measured on the GPU (pass a measured figure to replace it)")
    else:
        cuda_graph = _check_bytes("cuda_graph_bytes", cuda_graph_bytes)
    non_torch = DEFAULT_NON_TORCH_BYTES if non_torch_bytes is None else _check_bytes("non_torch_bytes", non_torch_bytes)
    requested = total * gpu_memory_utilization
    if kv_cache_memory is not None:
        available = _check_bytes("kv_cache_memory", kv_cache_memory)
    else:
        available = int(requested - (weights + activation + non_torch) - cuda_graph)

    groups, uniform = group_caches(caches)
    partition = kv_layer_partition(spec.num_layers, pp, draft_layers)
    budget = max(available, 0)
    stages = workers(groups, uniform, partition, budget, max(max_model_len, 1), inflight, enc)
    binding_worker = min(stages, key=lambda w: (w.num_blocks, -w.layers))
    num_blocks = binding_worker.num_blocks
    # get_kv_cache_configs (0.33): the null block is held back before the fit check and the auto-fit
    reserves = [w.block_bytes if e.reserves_null_block else 0 for w in stages]
    checks = [budget - r for r in reserves]
    if max_model_len == AUTO_FIT:
        max_model_len = _estimate_max_model_len(groups, uniform, partition, checks, derived_max, inflight, enc) \
            or derived_max
        stages = workers(groups, uniform, partition, budget, max_model_len, inflight, enc)
        binding_worker = min(stages, key=lambda w: (w.num_blocks, -w.layers))
        notes.append(f"auto-fit (--max-model-len -1): max_model_len {max_model_len:,} of the model's {derived_max:,}")
    needed = [w.needed_bytes for w in stages]

    group_views = []
    for g in groups:
        page, usage = group_request_bytes(g, uniform, max_model_len, inflight, enc)
        kind = "+".join(sorted({c.kind for c in g}))
        group_views.append(VllmCacheGroup(kind=kind, layers=tuple(c.layer for c in g), block_size=g[0].block_size,
                                          page_bytes=page, window=g[0].window,
                                          blocks_per_request=ceil_div(usage, page), uniform_type=uniform))
    page = group_views[0].page_bytes
    blocks_per_request = sum(g.blocks_per_request for g in group_views)
    concurrency = num_blocks / blocks_per_request
    if e.tokens_from_concurrency:
        tokens = int(concurrency * max_model_len)
    else:
        tokens = num_blocks // len(groups) * min(g.block_size for g in group_views)
    fits = available > 0 and all(c > 0 and n <= c for n, c in zip(needed, checks))
    estimated = None
    if not fits:
        estimated = _estimate_max_model_len(groups, uniform, partition, checks, max_model_len, inflight, enc)

    if pp > 1 and len(set(partition)) > 1:
        notes.append(f"layers per pipeline stage {list(partition)}: "
                     "the stage with the most KV layers sets the block count")
    if offloaded:
        notes.append(f"--cpu-offload-gb: {offloaded / GiB:.2f} GiB of weights on the CPU (vLLM moves whole "
                     "parameters, so up to one parameter more)")
    if adapters:
        notes.append(f"LoRA: {adapters / GiB:.2f} GiB of adapter slots (max_loras x A/B per wrapped module) counted "
                     "with the weights, as vLLM's \"Model loading took\"; the profile run's LoRA activations and "
                     "extra CUDA graphs are not counted")
    if draft_layers:
        notes.append(f"speculative decoding: {draft_layers} drafter KV layer(s) on the last stage; "
                     "their weights are not counted")
    if tp > 1:
        latent = any(a.latent_dim for layer in spec.layers for a in layer.attention)
        notes.append(f"KV heads per rank = max(1, kv_heads // {tp})"
                     + ("; MLA latents are not split" if latent else ""))

    bi = stages.index(binding_worker)
    plan = VllmMemoryPlan(
        total_gpu_bytes=total, gpu_memory_utilization=float(gpu_memory_utilization), requested_bytes=int(requested),
        weights_bytes=weights, activation_bytes=activation, activation_estimated=activation_bytes is None,
        non_torch_bytes=non_torch, non_torch_estimated=non_torch_bytes is None, cuda_graph_bytes=cuda_graph,
        kv_cache_memory_given=kv_cache_memory is not None, available_kv_bytes=available, kv_dtype=kv.name,
        block_size=block_size, page_bytes=page, groups=tuple(group_views),
        layers_per_stage=tuple(w.layers for w in stages), group_size=binding_worker.group_size,
        block_bytes=binding_worker.block_bytes, block_bytes_all_stages=sum(w.block_bytes for w in stages),
        num_gpu_blocks=num_blocks, kv_cache_tokens=tokens, max_model_len=max_model_len,
        blocks_per_request=blocks_per_request, max_concurrency=concurrency, fits=fits,
        needed_kv_bytes=max(needed), estimated_max_model_len=estimated,
        max_num_batched_tokens=mnbt, max_num_seqs=seqs, tensor_parallel_size=tp, pipeline_parallel_size=pp,
        binding="", notes=tuple(notes), vllm_version=e.version, max_in_flight_tokens=inflight,
        draft_layers=draft_layers, weights_offloaded_bytes=offloaded,
        check_kv_bytes=min(checks), lora_bytes=adapters,
    )
    stage_text = f" on pipeline stage {binding_worker.stage}" if pp > 1 else ""
    return replace(plan, binding=_binding(plan, needed[bi], stage_text))


def _binding(p: VllmMemoryPlan, needed: int, stage_text: str) -> str:
    """What limits this budget, in one line (the plan's ``binding``)."""
    if p.available_kv_bytes <= 0:
        return p.no_memory_text()
    if not p.fits:
        return (f"max_model_len {p.max_model_len:,} does not fit: one request needs {_gib(needed)} of KV cache"
                f"{stage_text} but {_gib(p.available_kv_bytes)} is available; vLLM refuses to start "
                f"(estimated maximum model length {p.estimated_max_model_len:,})")
    source = ("kv_cache_memory (--kv-cache-memory) sets the KV budget; gpu_memory_utilization is ignored"
              if p.kv_cache_memory_given else
              f"GPU memory: {p.gpu_memory_utilization:g} x {p.total_gpu_bytes / GiB:.2f} GiB = "
              f"{p.requested_bytes / GiB:.2f} GiB requested - {p.non_kv_bytes / GiB:.2f} GiB non-KV = "
              f"{p.available_kv_bytes / GiB:.2f} GiB for KV")
    return f"{source}; {p.group_size} layers x {p.page_bytes:,} B per block{stage_text} -> {p.num_gpu_blocks:,} blocks"


def _estimate_max_model_len(groups: list[list[KVCacheSpec]], uniform: bool, partition: tuple[int, ...],
                            checks: list[int], max_model_len: int, inflight: int, enc: int) -> int:
    """Largest model length whose one-request KV fits every stage's ``checks`` bytes
    (``_estimate_max_model_len_from_groups``, v1/core/kv_cache_planning.py); 0 if none."""

    def fits(length: int) -> bool:
        stages = workers(groups, uniform, partition, max(checks + [0]), length, inflight, enc)
        return all(w.needed_bytes <= c for w, c in zip(stages, checks))

    return largest_true(fits, max_model_len) or 0
