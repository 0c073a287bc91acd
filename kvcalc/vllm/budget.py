"""vLLM v1's startup memory budget and KV capacity on one GPU (bytes; GiB = 2**30, printed ``%.2f``).

:func:`vllm_memory_plan` composes vLLM 0.33's startup steps, each a module with its own record and
sources: kvcalc.vllm.startup (1. ``EngineArgs.create_engine_config``: the engine arguments;
2. ``Worker.init_device`` / ``determine_available_memory``, v1/worker/gpu_worker.py: requested
memory, weights, profiled activation peak, non-torch, CUDA graphs -> the KV budget),
kvcalc.vllm.pool (3. ``get_kv_cache_configs``: blocks, block size, grouping) and kvcalc.vllm.length
(4. the ``max_model_len`` fit check or auto-fit, "GPU KV cache size" and "Maximum concurrency").
:class:`VllmMemoryPlan` is the flat record the planner, the pages and the CLI read, with the startup
lines vLLM prints (``_report_kv_cache_config`` / ``update_kv_cache_capacity``) and its refusals
(``check_enough_kv_cache_memory``: no memory, :data:`NO_MEMORY_ERROR`; one ``max_model_len``
request must fit).

Per-rank: vLLM sizes every tensor-parallel rank alike, so the figures are for ONE GPU.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..dtypes import DType
from ..spec import ModelSpec
from ..units import GiB
from .defaults import DEFAULT_GPU_MEMORY_UTILIZATION, ENGINE_0_10, UsageContext, engine
from .grouping import VllmCacheGroup
from .length import VllmKvCapacity, VllmModelLength, vllm_kv_capacity, vllm_model_length
from .lora import LoraConfig
from .pool import VllmKvPool, vllm_kv_pool
from .startup import AUTO_FIT, VllmEngineConfig, VllmStartupBudget, vllm_engine_config, vllm_startup_budget

__all__ = ["AUTO_FIT", "NO_MEMORY_ERROR", "VllmMemoryPlan", "format_gib", "vllm_memory_plan"]

NO_MEMORY_ERROR = ENGINE_0_10.no_memory_error
"""vLLM 0.10's ValueError when the KV budget is not positive (0.33's: ``EngineDefaults.no_memory_error``)."""


def format_gib(nbytes: float) -> str:
    """vLLM 0.33's ``format_gib`` (vllm/utils/mem_utils.py): ``str(round(bytes / 2**30, 2))``.

    8 GiB prints as Python prints the float 8.0; 1.234 GiB rounds to two decimals:

    >>> format_gib(8 * 2**30), format_gib(1.234 * 2**30)
    ('8.0', '1.23')
    """
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
        """The ValueError vLLM raises at startup for this budget, in its own words; None when it starts.

        Llama 3.1 8B with 8 GiB of KV memory and ``max_model_len`` 131,072: one request needs 8,192
        blocks of 2 MiB = 16 GiB; 8 GiB less the 2 MiB null block is available (round(7.998, 2) =
        8.0) and 4,095 blocks x 16 = 65,520 tokens would fit:

        >>> from kvcalc import read_spec
        >>> from kvcalc.data_files import read_data_json
        >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
        >>> plan = vllm_memory_plan(spec, total_gpu_bytes=80 * 2**30, weights_bytes=15 * 2**30,
        ...                         max_model_len=131072, kv_cache_memory=8 * 2**30)
        >>> print(plan.refusal_text())
        To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is needed,
        which is larger than the available KV cache memory (8.0 GiB). Based on the available memory, the
        estimated maximum model length is 65520. Try increasing `gpu_memory_utilization` ...
        """
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

        15 GiB of weights on a 16 GiB card at 0.9 (14.4 GiB requested):

        >>> from kvcalc import read_spec
        >>> from kvcalc.data_files import read_data_json
        >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
        >>> vllm_memory_plan(spec, total_gpu_bytes=16 * 2**30, weights_bytes=15 * 2**30,
        ...                  max_model_len=8192).no_memory_text()
        'no KV cache memory: the weights alone (15.00 GiB) exceed the requested 14.40 GiB (0.9 x 16.00 GiB)'
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

    The four steps of vLLM's startup, in its order (each returns its own record):
    :func:`~kvcalc.vllm.startup.vllm_engine_config` (the engine arguments and their defaults),
    :func:`~kvcalc.vllm.startup.vllm_startup_budget` (requested memory, weights, profiled activation,
    non-torch, CUDA graphs), :func:`~kvcalc.vllm.pool.vllm_kv_pool` (blocks, block size, grouping) and
    :func:`~kvcalc.vllm.length.vllm_model_length` / :func:`~kvcalc.vllm.length.vllm_kv_capacity` (the
    length served, the fit check, "GPU KV cache size" and "Maximum concurrency").

    ``total_gpu_bytes``: the device total vLLM sees (``torch.cuda.mem_get_info()[1]``, e.g. 79.19 GiB
    on an H100 80GB). ``weights_bytes``: model weights on one GPU ("Model loading took X GiB").
    ``activation_bytes`` / ``non_torch_bytes`` default to :func:`~kvcalc.vllm.activation.estimate_activation_bytes` and
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
    (``--cpu-offload-gb`` x 2**30) and ``lora`` (``--enable-lora``, kvcalc.vllm.lora): see
    :func:`~kvcalc.vllm.startup.loaded_weights`. ``intermediate_size`` feeds the activation estimate only.

    Hybrid (attention + mamba / linear-attention) models follow vLLM 0.33's hybrid allocator
    (kvcalc.vllm.hybrid); the 0.10 rules refuse them.

    Llama 3.1 8B with ``--kv-cache-memory`` 8 GiB: 4,096 blocks of 2 MiB (16 tokens x 32 layers x
    8 KV heads x 256 x 2 B), 512 of them per 8,192-token request, so 8.00x and 4,096 x 16 tokens:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> plan = vllm_memory_plan(spec, total_gpu_bytes=80 * 2**30, weights_bytes=15 * 2**30, max_model_len=8192,
    ...                         kv_cache_memory=8 * 2**30)
    >>> for line in plan.log_lines():
    ...     print(line)
    Available KV cache memory: 8.0 GiB
    GPU KV cache size: 65,536 tokens, Maximum concurrency for 8,192 tokens per request: 8.00x
    """
    config = vllm_engine_config(
        spec, total_gpu_bytes=total_gpu_bytes, max_model_len=max_model_len,
        gpu_memory_utilization=gpu_memory_utilization, block_size=block_size, kv_cache_dtype=kv_cache_dtype,
        dtype=dtype, tensor_parallel_size=tensor_parallel_size, pipeline_parallel_size=pipeline_parallel_size,
        max_num_batched_tokens=max_num_batched_tokens, max_num_seqs=max_num_seqs, usage_context=usage_context,
        gpu_name=gpu_name, vllm_version=vllm_version, derived_max_model_len=derived_max_model_len,
        draft_layers=draft_layers)
    budget = vllm_startup_budget(
        spec, config, weights_bytes=weights_bytes, cpu_offload_bytes=cpu_offload_bytes, lora=lora,
        activation_bytes=activation_bytes, non_torch_bytes=non_torch_bytes, cuda_graph_bytes=cuda_graph_bytes,
        kv_cache_memory=kv_cache_memory, dtype=dtype, intermediate_size=intermediate_size)
    pool = vllm_kv_pool(spec, config, budget.available_kv_bytes)
    length = vllm_model_length(config, pool)
    capacity = vllm_kv_capacity(config, pool, length.max_model_len)
    return _memory_plan(spec, config, budget, pool, length, capacity)


def _memory_plan(spec: ModelSpec, config: VllmEngineConfig, budget: VllmStartupBudget, pool: VllmKvPool,
                 length: VllmModelLength, capacity: VllmKvCapacity) -> VllmMemoryPlan:
    """The four steps' records as one :class:`VllmMemoryPlan`, with its notes and binding line."""
    w = pool.binding_stage
    plan = VllmMemoryPlan(
        total_gpu_bytes=config.total_gpu_bytes, gpu_memory_utilization=config.gpu_memory_utilization,
        requested_bytes=budget.requested_bytes, weights_bytes=budget.weights_bytes,
        activation_bytes=budget.activation_bytes, activation_estimated=budget.activation_estimate is not None,
        non_torch_bytes=budget.non_torch_bytes, non_torch_estimated=budget.non_torch_estimated,
        cuda_graph_bytes=budget.cuda_graph_bytes, kv_cache_memory_given=budget.kv_cache_memory_given,
        available_kv_bytes=budget.available_kv_bytes, kv_dtype=config.kv_dtype.name, block_size=pool.block_size,
        page_bytes=capacity.page_bytes, groups=capacity.groups, layers_per_stage=tuple(s.layers for s in pool.stages),
        group_size=w.group_size, block_bytes=w.block_bytes,
        block_bytes_all_stages=sum(s.block_bytes for s in pool.stages), num_gpu_blocks=pool.num_gpu_blocks,
        kv_cache_tokens=capacity.kv_cache_tokens, max_model_len=length.max_model_len,
        blocks_per_request=capacity.blocks_per_request, max_concurrency=capacity.max_concurrency, fits=length.fits,
        needed_kv_bytes=max(length.needed_kv_bytes), estimated_max_model_len=length.estimated_max_model_len,
        max_num_batched_tokens=config.max_num_batched_tokens, max_num_seqs=config.max_num_seqs,
        tensor_parallel_size=config.tensor_parallel_size, pipeline_parallel_size=config.pipeline_parallel_size,
        binding="", notes=_notes(spec, config, budget, pool, length), vllm_version=config.engine.version,
        max_in_flight_tokens=config.max_in_flight_tokens, draft_layers=config.draft_layers,
        weights_offloaded_bytes=budget.weights_offloaded_bytes, check_kv_bytes=min(pool.check_kv_bytes),
        lora_bytes=budget.lora_bytes,
    )
    stage_text = f" on pipeline stage {w.stage}" if config.pipeline_parallel_size > 1 else ""
    return replace(plan, binding=_binding(plan, length.needed_kv_bytes[pool.binding], stage_text))


def _budget_notes(config: VllmEngineConfig, budget: VllmStartupBudget) -> list[str]:
    """What step 2 estimated or assumed: the activation peak, the MLP width, the CUDA graphs."""
    notes = []
    est = budget.activation_estimate
    if est is not None:
        notes.append(f"activation estimated: max(forward {est.forward_bytes / GiB:.2f} GiB for "
                     f"{config.max_num_batched_tokens:,} tokens, sampler {est.sampler_bytes / GiB:.2f} GiB for "
                     f"{est.sampler_requests:,} requests)")
        if est.intermediate_assumed:
            notes.append(f"MLP width not given: assumed 4 x hidden = {est.intermediate_size:,}")
    if budget.cuda_graph_assumed and budget.cuda_graph_bytes and not budget.kv_cache_memory_given:
        notes.append(f"CUDA graphs assumed {budget.cuda_graph_bytes / GiB:.2f} GiB: vLLM {config.engine.version} "
                     "subtracts its profiler's estimate, which is measured on the GPU (pass a measured figure to "
                     "replace it)")
    return notes


def _notes(spec: ModelSpec, config: VllmEngineConfig, budget: VllmStartupBudget, pool: VllmKvPool,
           length: VllmModelLength) -> tuple[str, ...]:
    """The plan's notes, in the order the plan has always listed them."""
    e, tp = config.engine, config.tensor_parallel_size
    notes: list[str] = []
    if e.max_concurrent_batches > 1 and any(c.window is not None for c in pool.caches):
        notes.append(f"vLLM {e.version}: async scheduling keeps {e.max_concurrent_batches} batches in flight, so a "
                     f"sliding / chunked layer holds W - 1 + {config.max_in_flight_tokens:,} tokens "
                     "(max_in_flight_tokens)")
    notes += _budget_notes(config, budget)
    if length.auto_fitted:
        notes.append(f"auto-fit (--max-model-len -1): max_model_len {length.max_model_len:,} of the model's "
                     f"{length.derived_max_model_len:,}")
    if config.pipeline_parallel_size > 1 and len(set(pool.partition)) > 1:
        notes.append(f"layers per pipeline stage {list(pool.partition)}: "
                     "the stage with the most KV layers sets the block count")
    if budget.weights_offloaded_bytes:
        notes.append(f"--cpu-offload-gb: {budget.weights_offloaded_bytes / GiB:.2f} GiB of weights on the CPU (vLLM "
                     "moves whole parameters, so up to one parameter more)")
    if budget.lora_bytes:
        notes.append(f"LoRA: {budget.lora_bytes / GiB:.2f} GiB of adapter slots (max_loras x A/B per wrapped module) "
                     "counted with the weights, as vLLM's \"Model loading took\"; the profile run's LoRA activations "
                     "and extra CUDA graphs are not counted")
    if config.draft_layers:
        notes.append(f"speculative decoding: {config.draft_layers} drafter KV layer(s) on the last stage; "
                     "their weights are not counted")
    if tp > 1:
        latent = any(a.latent_dim for layer in spec.layers for a in layer.attention)
        notes.append(f"KV heads per rank = max(1, kv_heads // {tp})"
                     + ("; MLA latents are not split" if latent else ""))
    return tuple(notes)


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
