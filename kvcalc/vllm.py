"""vLLM (v1 engine) paged KV cache: blocks per request, and the startup memory budget.

Everything here restates, in plain integer arithmetic, what vLLM's v1 engine does at startup and
while it serves. Sources (vllm-project/vllm, ``vllm/`` package; read, not copied):

``v1/kv_cache_interface.py``
    One ``KVCacheSpec`` per attention / mamba layer. ``page_size_bytes`` is the bytes of one block
    (``block_size`` tokens) of one layer; ``max_memory_usage_bytes`` is what one request of
    ``max_model_len`` tokens may hold: ``FullAttentionSpec`` / ``MLAAttentionSpec``
    ``cdiv(max_model_len, block_size)`` blocks, ``SlidingWindowSpec``
    ``cdiv(min(W - 1 + max_num_batched_tokens, max_model_len), block_size) + 1`` blocks,
    ``ChunkedLocalAttentionSpec`` ``cdiv(min(C + max_num_batched_tokens, max_model_len), block_size)``,
    ``CrossAttentionSpec`` ``cdiv(max_num_encoder_input_tokens, block_size)``, ``MambaSpec`` one page
    (``1 + num_speculative_blocks``) per request.
``v1/core/kv_cache_utils.py``
    ``get_kv_cache_groups`` (one group when every layer has the same spec; ``UniformTypeKVCacheSpecs``
    when all layers are full attention with different page sizes; otherwise page sizes are unified and
    the layers split into groups of ``group_size`` layers), ``get_num_blocks``
    (``available // page_size // group_size``), ``get_kv_cache_configs`` (per worker, then the minimum
    block count over workers), ``_report_kv_cache_config`` (the two startup log lines) and
    ``get_max_concurrency_for_kv_cache_config``.
``v1/worker/gpu_worker.py``
    ``requested_memory = total_memory * gpu_memory_utilization`` (``init_device``);
    ``determine_available_memory``: ``available = requested_memory - (weights + torch activation peak
    + non-torch increase)`` (newer releases also subtract a CUDA-graph estimate when
    ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` is set); ``kv_cache_memory_bytes``
    (``--kv-cache-memory``) skips all of it.
``engine/arg_utils.py``
    ``EngineArgs`` batch defaults (``max_num_batched_tokens``, ``max_num_seqs``).
``config/model.py``
    ``ModelConfig.get_num_kv_heads`` (``max(1, kv_heads // tp)``; 1 for MLA) and the ``dtype="auto"``
    resolution (float32 checkpoints run in 16 bits).
``distributed/utils.py``
    ``get_pp_indices``: decoder layers per pipeline stage.
``v1/worker/gpu_model_runner.py``, ``v1/sample/sampler.py``, ``v1/sample/ops/topk_topp_sampler.py``
    The profiling run whose torch peak is "peak activation" (see :func:`estimate_activation_bytes`).

Units: bytes everywhere; GiB = 2**30 bytes, as vLLM prints it (``%.2f`` of ``bytes / 2**30``).
Per-rank: vLLM sizes every tensor-parallel rank alike, so the figures here are for ONE GPU.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from .activations import forward_activation_bytes
from .dtypes import BFLOAT16, DType, ceil_div
from .errors import InputError, UnsupportedError
from .kv import default_encoder_tokens, resolve_dtypes
from .limits import MAX_BATCH, MAX_CONTEXT, check_count
from .results import KVCacheResult, LayerBytes
from .spec import AttentionCache, LayerSpec, ModelSpec, RecurrentState
from .solve import largest_true
from .units import GiB, MiB

DEFAULT_BLOCK_SIZE = 16
"""vLLM ``CacheConfig.block_size`` default on CUDA (tokens per block)."""

SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS = 2048
"""``SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS``; also the online-server default on GPUs < 70 GiB."""

SAMPLER_BYTES_PER_LOGIT = 28
"""Bytes the profiling sampler holds at its peak per element of the ``[num_reqs, vocab]`` logits.

vLLM's ``_dummy_sampler_run`` samples with temperature 0.5, top-k = vocab - 1 and top-p = 0.9, so the
PyTorch top-k/top-p path (``apply_top_k_top_p``) runs on every row. At the re-scatter, alive at once:
the model-dtype logits (2 B, still referenced by the caller), their float32 copy (4,
``Sampler.forward``), the sorted values (4) and int64 sort indices (8), the top-k bool mask (1), the
top-p softmax/cumsum buffer (4), the top-p bool mask (1) and the scattered output (4): 28 B.
Releases with FlashInfer or Triton top-k/top-p kernels hold less.
"""

DEFAULT_NON_TORCH_BYTES = 64 * MiB
"""Default non-torch increase during profiling (CUDA / cuBLAS / NCCL allocations outside torch).

The v1 logs below show 0.07 GiB (H100, v0.10.2) and 0.06 GiB (16 GB card): 64 MiB (0.0625 GiB).
Multi-GPU runs can show more (NCCL, custom all-reduce buffers); pass a measured figure.
"""

CUDA_GRAPH_SAFETY_BYTES = 150 * MiB
"""``redundancy_buffer_memory`` vLLM subtracts in its ``--kv-cache-memory`` suggestion (gpu_worker.py)."""

LARGE_GPU_BYTES = 70 * GiB
"""``EngineArgs``: GPUs with at least this much memory (except A100s) get the larger batch defaults."""

UsageContext = Literal["server", "offline"]
VllmKind = Literal["full", "sliding", "chunked", "mla", "cross", "mamba"]
_FULL_TYPES = ("full", "mla")  # FullAttentionSpec and its subclass MLAAttentionSpec


# ----------------------------------------------------------------------------- dtypes
def vllm_dtypes(spec: ModelSpec, dtype: "str | DType | None", kv_dtype: "str | DType | None") -> tuple[DType, DType]:
    """(model dtype, KV-cache dtype) as vLLM resolves them.

    ``dtype="auto"`` (here ``None``) serves a float32 checkpoint in 16 bits (float16 in older
    releases, the platform's preferred type, bfloat16 here, since v0.10.1), and a config dtype
    narrower than 16 bits computes in 16 bits too; ``kv_cache_dtype="auto"`` (``None``) is the
    model dtype.
    vLLM's KV cache is a floating type (16-bit, or fp8 via ``--kv-cache-dtype fp8``); the integer
    group-quantized types of :mod:`kvcalc.dtypes` have no vLLM equivalent.
    """
    model, kv = resolve_dtypes(spec, dtype, kv_dtype)
    if dtype is None and (model.bits != 16 or not model.is_float):
        model = BFLOAT16
        if kv_dtype is None:
            kv = model
    if not kv.is_float:
        raise UnsupportedError(f"vLLM has no '{kv.name}' KV-cache dtype; use fp8 or a 16-bit type")
    return model, kv


def _element_bytes(d: DType) -> int:
    """Bytes per element of a floating dtype (``get_dtype_size``)."""
    return d.bits // 8


# ----------------------------------------------------------------------------- page sizes
def kv_heads_per_rank(kv_heads: int, tensor_parallel_size: int) -> int:
    """KV heads one tensor-parallel rank stores: ``max(1, kv_heads // tp)``.

    vLLM's ``ModelConfig.get_num_kv_heads``: when there are fewer KV heads than ranks, each rank
    keeps (a replica of) one head.
    """
    return max(1, kv_heads // tensor_parallel_size)


def attention_page_bytes(a: AttentionCache, kv: DType, block_size: int, tensor_parallel_size: int = 1) -> int:
    """Bytes of one block of one standard attention layer on one rank.

    ``block_size * kv_heads_per_rank * (k_head_dim + v_head_dim) * dtype_bytes``, i.e.
    ``block_size * heads * head_dim * 2 * dtype_bytes`` when K and V have the same width
    (``AttentionSpec.real_page_size_bytes`` / ``FullAttentionSpec``: ``head_size + head_size_v``).
    """
    heads = kv_heads_per_rank(a.kv_heads, tensor_parallel_size)
    return block_size * heads * (a.k_head_dim + a.v_head_dim) * _element_bytes(kv)


def mla_page_bytes(a: AttentionCache, kv: DType, block_size: int) -> int:
    """Bytes of one block of one MLA layer: ``block_size * (kv_lora_rank + qk_rope_head_dim) * dtype_bytes``.

    ``MLAAttentionSpec.real_page_size_bytes``: one tensor of the latent (compressed KV plus the
    shared RoPE key) per token, ``num_kv_heads == 1``, no separate V, and the whole latent on every
    tensor-parallel rank (it is not split by heads). The DeepSeek sparse-attention indexer key
    (``indexer_dim``), when present, is counted at the KV dtype width as well (vLLM keeps it in a
    separate cache whose layout is not modelled here).
    """
    return block_size * (a.latent_dim + a.indexer_dim) * _element_bytes(kv)


def mamba_state_bytes(states: Sequence[RecurrentState], model: DType, tensor_parallel_size: int = 1) -> int:
    """Bytes of one request's recurrent state in one layer (``MambaSpec.page_size_bytes``).

    ``sum(ceil(elements / tp) * dtype_bytes)`` over the layer's states, every state in the model
    dtype (vLLM's ``mamba_ssm_cache_dtype="auto"``); the conv state keeps ``conv_kernel - 1``
    columns (transformers keeps ``conv_kernel``). Approximation: vLLM splits groups that do not
    divide by ``tp`` differently.
    """
    return sum(ceil_div(s.elements_with_kernel(s.conv_kernel - 1), tensor_parallel_size) * _element_bytes(model)
               for s in states)


# ----------------------------------------------------------------------------- blocks per request
def full_attention_blocks(tokens: int, block_size: int) -> int:
    """Blocks a full-attention (or MLA) layer holds for ``tokens`` tokens: ``ceil(tokens / block_size)``.

    ``FullAttentionSpec.max_memory_usage_bytes`` (at ``tokens = max_model_len``).
    """
    return ceil_div(tokens, block_size)


def sliding_window_blocks(tokens: int, window: int, block_size: int, max_num_batched_tokens: int,
                          *, cap: bool = True) -> int:
    """Blocks a sliding-window layer holds for a request of ``tokens`` tokens.

    ``cdiv(min(window - 1 + max_num_batched_tokens, tokens), block_size) + 1``
    (``SlidingWindowSpec.max_memory_usage_bytes``): during chunked prefill the layer keeps the last
    ``window - 1`` computed tokens plus the newly scheduled ones, and the window may start inside a
    block (the ``+ 1``). With ``cap`` (a request's own footprint) the count is also at most the
    ``ceil(tokens / block_size)`` blocks the request's tokens span; vLLM's capacity arithmetic
    (``cap=False``) does not apply that cap.
    """
    blocks = ceil_div(min(window - 1 + max_num_batched_tokens, tokens), block_size) + 1
    return min(blocks, ceil_div(tokens, block_size)) if cap else blocks


def chunked_local_blocks(tokens: int, chunk: int, block_size: int, max_num_batched_tokens: int) -> int:
    """Blocks a chunked-local-attention layer (Llama 4) holds: ``cdiv(min(chunk + max_num_batched_tokens, tokens), block_size)``.

    ``ChunkedLocalAttentionSpec.max_memory_usage_bytes``.
    """
    return ceil_div(min(chunk + max_num_batched_tokens, tokens), block_size)


def cross_attention_blocks(encoder_tokens: int, block_size: int) -> int:
    """Blocks a cross-attention layer holds: ``ceil(encoder_tokens / block_size)`` (``CrossAttentionSpec``)."""
    return ceil_div(encoder_tokens, block_size)


def mamba_blocks(num_speculative_blocks: int = 0) -> int:
    """Pages a mamba layer holds per request: ``1 + num_speculative_blocks`` (``MambaSpec``, cache mode 'none')."""
    return 1 + num_speculative_blocks


# ----------------------------------------------------------------------------- per-layer specs
@dataclass(frozen=True)
class VllmLayerCache:
    """One vLLM ``KVCacheSpec``: one cache of one decoder layer, on one rank.

    ``page_bytes`` is the bytes of one block of ``block_size`` tokens (mamba: one request's state);
    ``window`` is the sliding window or the attention chunk, else ``None``.
    """

    layer: int
    kind: VllmKind
    page_bytes: int
    block_size: int
    window: int | None = None

    @property
    def key(self) -> tuple[str, int, int, int | None]:
        """Equal keys = equal vLLM specs (same group)."""
        return (self.kind, self.page_bytes, self.block_size, self.window)

    def blocks(self, tokens: int, *, max_num_batched_tokens: int, encoder_tokens: int, cap: bool) -> int:
        """Blocks (mamba: pages) this layer holds for one request of ``tokens`` tokens."""
        if self.kind in _FULL_TYPES:
            return full_attention_blocks(tokens, self.block_size)
        if self.kind == "sliding":
            assert self.window is not None
            return sliding_window_blocks(tokens, self.window, self.block_size, max_num_batched_tokens, cap=cap)
        if self.kind == "chunked":
            assert self.window is not None
            return chunked_local_blocks(tokens, self.window, self.block_size, max_num_batched_tokens)
        if self.kind == "cross":
            return cross_attention_blocks(encoder_tokens, self.block_size)
        return mamba_blocks()


def _attention_layer_cache(layer: LayerSpec, a: AttentionCache, kv: DType, block_size: int, tp: int) -> VllmLayerCache:
    if a.source == "cross":
        return VllmLayerCache(layer.index, "cross", attention_page_bytes(a, kv, block_size, tp), block_size)
    if a.latent_dim:
        return VllmLayerCache(layer.index, "mla", mla_page_bytes(a, kv, block_size), block_size)
    page = attention_page_bytes(a, kv, block_size, tp)
    if a.window is None:
        return VllmLayerCache(layer.index, "full", page, block_size)
    return VllmLayerCache(layer.index, "chunked" if a.chunked else "sliding", page, block_size, a.window)


def layer_caches(spec: ModelSpec, model: DType, kv: DType, block_size: int = DEFAULT_BLOCK_SIZE,
                 tensor_parallel_size: int = 1) -> tuple[VllmLayerCache, ...]:
    """The vLLM cache specs of every layer, in layer order (``GPUModelRunner.get_kv_cache_spec``).

    Shared-KV layers and cache-less layers hold nothing; a layer with two caches (self- and
    cross-attention, or attention plus a recurrent state) gives two specs.
    """
    out: list[VllmLayerCache] = []
    for layer in spec.layers:
        if layer.kind in ("shared", "none"):
            continue
        for a in layer.attention:
            out.append(_attention_layer_cache(layer, a, kv, block_size, tensor_parallel_size))
        if layer.states:
            out.append(VllmLayerCache(layer.index, "mamba",
                                      mamba_state_bytes(layer.states, model, tensor_parallel_size), block_size))
    return tuple(out)


# ----------------------------------------------------------------------------- per-request bytes
def vllm_kv_cache(spec: ModelSpec, *, batch: int, context: int, dtype: "str | DType | None" = None,
                  kv_dtype: "str | DType | None" = None, encoder_tokens: int | None = None,
                  block_size: int = DEFAULT_BLOCK_SIZE, max_num_batched_tokens: int | None = None,
                  tensor_parallel_size: int = 1) -> KVCacheResult:
    """KV-cache bytes vLLM allocates for ``batch`` requests of ``context`` tokens, per layer, on one rank.

    Per request and layer: full attention / MLA ``ceil(T / block_size)`` blocks; sliding window
    ``min(cdiv(min(W - 1 + max_num_batched_tokens, T), block_size) + 1, ceil(T / block_size))``;
    chunked local attention ``cdiv(min(C + max_num_batched_tokens, T), block_size)``; cross-attention
    ``ceil(encoder_tokens / block_size)``; a recurrent layer one state page. Bytes = ``batch * blocks *
    page_bytes`` with the page sizes of :func:`attention_page_bytes` / :func:`mla_page_bytes` /
    :func:`mamba_state_bytes`. ``LayerBytes.tokens`` is the token slots held (``blocks * block_size``).

    ``max_num_batched_tokens`` (the prefill chunk) only matters for sliding / chunked layers; the
    default is 2048 (vLLM's scheduler default and its online-server default on GPUs under 70 GiB).
    With ``tensor_parallel_size > 1`` the bytes are those of ONE rank (every rank holds the same).
    """
    batch = check_count("batch", batch, 1, MAX_BATCH)
    context = check_count("context", context, 1, MAX_CONTEXT)
    block_size = check_count("block_size", block_size, 1, 1 << 16)
    tp = check_count("tensor_parallel_size", tensor_parallel_size, 1, 4096)
    mnbt = SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS if max_num_batched_tokens is None else check_count(
        "max_num_batched_tokens", max_num_batched_tokens, 1, MAX_CONTEXT)
    enc = default_encoder_tokens(spec, context) if encoder_tokens is None else check_count(
        "encoder_tokens", encoder_tokens, 1, MAX_CONTEXT)
    model, kv = vllm_dtypes(spec, dtype, kv_dtype)
    caches = layer_caches(spec, model, kv, block_size, tp)

    per_layer: dict[int, list[VllmLayerCache]] = {}
    for c in caches:
        per_layer.setdefault(c.layer, []).append(c)
    layers: list[LayerBytes] = []
    for layer in spec.layers:
        own = per_layer.get(layer.index, [])
        nbytes, self_slots, cross_slots = 0, 0, 0
        for c in own:
            blocks = c.blocks(context, max_num_batched_tokens=mnbt, encoder_tokens=enc, cap=True)
            nbytes += batch * blocks * c.page_bytes
            if c.kind == "cross":
                cross_slots = max(cross_slots, blocks * c.block_size)
            elif c.kind != "mamba":
                self_slots = max(self_slots, blocks * c.block_size)
        layers.append(LayerBytes(layer.index, layer.kind, self_slots or cross_slots, nbytes))

    per_token = sum(c.page_bytes // c.block_size for c in caches if c.kind not in ("cross", "mamba"))
    warnings = list(spec.warnings)
    if tp > 1:
        warnings.append(f"vLLM bytes are per tensor-parallel rank (tp={tp}); every rank holds the same")
    if any(c.kind == "mamba" for c in caches):
        warnings.append("vLLM recurrent states: in the model dtype, conv windows of conv_kernel - 1 columns")
    return KVCacheResult(
        total_bytes=sum(l.bytes for l in layers), layers=tuple(layers), runtime="vllm", batch=batch,
        context=context, encoder_tokens=enc, dtype=model.name, kv_dtype=kv.name, model_type=spec.model_type,
        bytes_per_token=per_token, fields_used=spec.fields_used, warnings=tuple(warnings),
    )


# ----------------------------------------------------------------------------- engine defaults
def _is_large_gpu(total_gpu_bytes: int, gpu_name: str) -> bool:
    return total_gpu_bytes >= LARGE_GPU_BYTES and "a100" not in gpu_name.lower()


def default_max_num_batched_tokens(total_gpu_bytes: int, usage_context: UsageContext = "server",
                                   gpu_name: str = "") -> int:
    """vLLM v1's default ``max_num_batched_tokens`` (``EngineArgs``, chunked prefill on).

    GPUs with >= 70 GiB that are not A100s (H100, H200, MI300X): 8192 for the OpenAI server
    (``vllm serve``), 16384 for the offline ``LLM`` class; other GPUs: 2048 / 8192. (It is *not*
    ``max(max_model_len, ...)``: that was the V0 rule without chunked prefill.)
    """
    if usage_context not in ("server", "offline"):
        raise InputError("usage_context must be 'server' or 'offline'")
    if _is_large_gpu(total_gpu_bytes, gpu_name):
        return 8192 if usage_context == "server" else 16384
    return 2048 if usage_context == "server" else 8192


def default_max_num_seqs(total_gpu_bytes: int, max_num_batched_tokens: int, gpu_name: str = "") -> int:
    """vLLM v1's default ``max_num_seqs``: 1024 on >= 70 GiB non-A100 GPUs, else 256; at most ``max_num_batched_tokens``."""
    return min(1024 if _is_large_gpu(total_gpu_bytes, gpu_name) else 256, max_num_batched_tokens)


# ----------------------------------------------------------------------------- activation estimate
@dataclass(frozen=True)
class ActivationEstimate:
    """kvcalc's estimate of vLLM's profiled "peak activation" (torch peak increase), in bytes.

    ``forward_bytes`` = ``N * b * 3 * (hidden + ceil(I / tp))``, ``sampler_bytes`` =
    ``28 * S * V + N * hidden * b``, ``peak_bytes = max(forward, sampler)`` with ``N`` =
    ``max_num_batched_tokens``, ``S`` = ``min(max_num_seqs, N)``, ``b`` activation bytes per element,
    ``I`` the MLP width, ``V`` the vocabulary. See :func:`estimate_activation_bytes`.
    """

    peak_bytes: int
    forward_bytes: int
    sampler_bytes: int
    tokens: int
    sampler_requests: int
    intermediate_size: int
    intermediate_assumed: bool


def estimate_activation_bytes(spec: ModelSpec, *, max_num_batched_tokens: int, max_num_seqs: int,
                              dtype: "str | DType | None" = None, tensor_parallel_size: int = 1,
                              intermediate_size: int | None = None) -> ActivationEstimate:
    """Estimate the torch memory peak of vLLM's profiling run (``GPUModelRunner.profile_run``).

    The run does one forward pass of ``N = max_num_batched_tokens`` dummy tokens
    (``_dummy_run(max_num_tokens)``), then samples ``S = min(max_num_seqs, N)`` requests from the
    last hidden states (``_dummy_sampler_run``) while the ``[N, hidden]`` output is still held. The
    peak is the larger of:

    * forward: per token, the attention output, the residual and the normed hidden state
      (``3 * hidden``) plus the MLP's gate/up output and the activated product (``2I + I`` per
      rank, ``I / tp`` under tensor parallelism): ``N * b * 3 * (hidden + I / tp)`` bytes, ``b`` the
      activation dtype width;
    * sampler: ``SAMPLER_BYTES_PER_LOGIT`` (28) bytes per ``[S, V]`` logit (see that constant) plus
      the held ``[N, hidden]`` output.

    ``intermediate_size`` is the dense MLP width (for MoE layers pass ``experts_per_token *
    moe_intermediate_size``); ``ModelSpec`` does not carry it, so without it ``4 * hidden`` is
    assumed. Not modelled: vision / audio encoders of multimodal models (their dummy outputs are
    held during the language-model pass), attention-backend workspaces, fused-MoE chunking, LoRA.
    """
    n = check_count("max_num_batched_tokens", max_num_batched_tokens, 1, MAX_CONTEXT)
    s = min(check_count("max_num_seqs", max_num_seqs, 1, MAX_BATCH), n)
    tp = check_count("tensor_parallel_size", tensor_parallel_size, 1, 4096)
    model, _ = vllm_dtypes(spec, dtype, None)
    b = _element_bytes(model)
    hidden = spec.hidden_size
    assumed = intermediate_size is None
    inter = 4 * hidden if intermediate_size is None else check_count("intermediate_size", intermediate_size, 1, 1 << 24)
    forward = forward_activation_bytes(n, hidden, inter, b, tp)
    sampler = SAMPLER_BYTES_PER_LOGIT * s * spec.vocab_size + n * hidden * b if spec.vocab_size else 0
    return ActivationEstimate(peak_bytes=max(forward, sampler), forward_bytes=forward, sampler_bytes=sampler,
                              tokens=n, sampler_requests=s, intermediate_size=inter, intermediate_assumed=assumed)


# ----------------------------------------------------------------------------- groups and blocks
def pp_layer_partition(num_layers: int, pipeline_parallel_size: int) -> tuple[int, ...]:
    """Decoder layers per pipeline stage (``vllm.distributed.utils.get_pp_indices``).

    ``num_layers // pp`` each; the remainder goes one layer each to the stages just before the last
    (the last stage also holds the LM head). ``VLLM_PP_LAYER_PARTITION`` overrides are not modelled.
    """
    if pipeline_parallel_size > num_layers:
        raise InputError(f"pipeline_parallel_size ({pipeline_parallel_size}) exceeds the {num_layers} layers")
    parts = [num_layers // pipeline_parallel_size] * pipeline_parallel_size
    for i in range(2, num_layers % pipeline_parallel_size + 2):
        parts[-i] += 1
    return tuple(parts)


@dataclass(frozen=True)
class VllmCacheGroup:
    """One KV-cache group: layers sharing a block table (``KVCacheGroupSpec``).

    ``uniform_type`` marks vLLM's ``UniformTypeKVCacheSpecs`` (all layers full attention with
    different page sizes: one group whose block spans every layer); ``page_bytes`` is then the sum
    of the layers' pages. ``blocks_per_request`` is at ``max_model_len``, as vLLM's
    ``max_memory_usage_bytes`` counts it.
    """

    kind: str
    layers: tuple[int, ...]
    block_size: int
    page_bytes: int
    window: int | None
    blocks_per_request: int
    uniform_type: bool = False


def _is_uniform_type(caches: Sequence[VllmLayerCache]) -> bool:
    """``UniformTypeKVCacheSpecs.is_uniform_type``: every layer needs the same number of token slots."""
    first = caches[0]
    if len({c.block_size for c in caches}) > 1:
        return False
    if first.kind in _FULL_TYPES:
        return all(c.kind in _FULL_TYPES for c in caches)
    return all(c.kind == first.kind and c.window == first.window for c in caches)


def _group_caches(caches: Sequence[VllmLayerCache]) -> tuple[list[list[VllmLayerCache]], bool]:
    """Split the model's layer specs into KV-cache groups (``get_kv_cache_groups``); True if uniform-type."""
    if len({c.key for c in caches}) == 1:
        return [list(caches)], False
    if _is_uniform_type(caches):
        return [list(caches)], True
    # unify_kv_cache_spec_page_size: grow the block size of layers with smaller pages
    max_page = max(c.page_bytes for c in caches)
    unified: list[VllmLayerCache] = []
    for c in caches:
        if c.page_bytes == max_page:
            unified.append(c)
            continue
        if c.kind == "mamba" or max_page % c.page_bytes:
            raise UnsupportedError("vLLM cannot unify these layers' page sizes by growing block sizes "
                                   f"({c.page_bytes} B does not divide {max_page} B)")
        ratio = max_page // c.page_bytes
        unified.append(VllmLayerCache(c.layer, c.kind, max_page, c.block_size * ratio, c.window))
    # _get_kv_cache_groups_uniform_page_size
    same_type: dict[tuple[str, int, int, int | None], list[VllmLayerCache]] = {}
    for c in unified:
        same_type.setdefault(c.key, []).append(c)
    sizes = [len(v) for v in same_type.values()]
    group_size = min(sizes)
    if max(sizes) < group_size * 1.5:
        group_size = max(sizes)
    groups: list[list[VllmLayerCache]] = []
    for members in same_type.values():
        num_groups = ceil_div(len(members), group_size)
        for i in range(num_groups):
            groups.append(members[i::num_groups])
    return groups, False


@dataclass(frozen=True)
class _Worker:
    """Blocks one pipeline stage can hold, and the KV bytes it needs for one max-length request."""

    stage: int
    layers: int
    group_size: int
    num_blocks: int
    needed_bytes: int
    block_bytes: int          # bytes one block of the shared pool costs on this stage


def _group_request_bytes(members: Sequence[VllmLayerCache], uniform: bool, tokens: int, mnbt: int,
                         enc: int) -> tuple[int, int]:
    """(page bytes of the group, max_memory_usage_bytes of its merged spec) for one request of ``tokens``."""
    if uniform:
        page = sum(c.page_bytes for c in members)
        pages = max(c.blocks(tokens, max_num_batched_tokens=mnbt, encoder_tokens=enc, cap=False) for c in members)
        return page, pages * page
    c = members[0]
    return c.page_bytes, c.blocks(tokens, max_num_batched_tokens=mnbt, encoder_tokens=enc, cap=False) * c.page_bytes


def _worker(stage: int, groups: Sequence[Sequence[VllmLayerCache]], uniform: bool, layer_range: range,
            available: int, tokens: int, mnbt: int, enc: int) -> _Worker | None:
    """One pipeline stage's view (``_project_kv_cache_groups_to_worker`` + ``get_kv_cache_config_from_groups``)."""
    projected = [[c for c in g if c.layer in layer_range] for g in groups]
    if not any(projected):
        return None
    page = groups[0][0].page_bytes
    if uniform:
        members = projected[0]
        page_sum, needed = _group_request_bytes(members, True, tokens, mnbt, enc)
        return _Worker(stage, len(members), len(members), max(available // page_sum, 0), needed, page_sum)
    group_size = max(len(g) for g in projected)
    num_blocks = max(int(available // page // group_size), 0)
    blocks_needed = sum(ceil_div(_group_request_bytes(g, False, tokens, mnbt, enc)[1], page) for g in groups)
    return _Worker(stage, sum(len(g) for g in projected), group_size, num_blocks, group_size * page * blocks_needed,
                   group_size * page)


def _workers(groups: Sequence[Sequence[VllmLayerCache]], uniform: bool, partition: Sequence[int],
             available: int, tokens: int, mnbt: int, enc: int) -> list[_Worker]:
    out, start = [], 0
    for stage, n in enumerate(partition):
        w = _worker(stage, groups, uniform, range(start, start + n), available, tokens, mnbt, enc)
        if w is not None:
            out.append(w)
        start += n
    return out


# ----------------------------------------------------------------------------- the plan
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

    @property
    def available_gib_text(self) -> str:
        """``Available KV cache memory: X GiB`` as vLLM prints it (``%.2f``)."""
        return f"{self.available_kv_bytes / GiB:.2f}"

    @property
    def kv_cache_size_text(self) -> str:
        """``GPU KV cache size: N tokens`` (thousands separators, as vLLM)."""
        return f"{self.kv_cache_tokens:,}"

    @property
    def max_concurrency_text(self) -> str:
        """``Maximum concurrency for L tokens per request: X.XXx`` -> ``'X.XX'`` (``%.2f``)."""
        return f"{self.max_concurrency:.2f}"

    def log_lines(self) -> tuple[str, str, str]:
        """The three startup log lines vLLM v1 prints for this budget."""
        return (f"Available KV cache memory: {self.available_gib_text} GiB",
                f"GPU KV cache size: {self.kv_cache_size_text} tokens",
                f"Maximum concurrency for {self.max_model_len:,} tokens per request: {self.max_concurrency_text}x")

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
                     gpu_memory_utilization: float = 0.9, max_model_len: int,
                     block_size: int = DEFAULT_BLOCK_SIZE, kv_cache_dtype: "str | DType | None" = None,
                     dtype: "str | DType | None" = None, tensor_parallel_size: int = 1,
                     pipeline_parallel_size: int = 1, max_num_batched_tokens: int | None = None,
                     max_num_seqs: int | None = None, activation_bytes: int | None = None,
                     non_torch_bytes: int | None = None, cuda_graph_bytes: int = 0,
                     kv_cache_memory: int | None = None, intermediate_size: int | None = None,
                     usage_context: UsageContext = "server", gpu_name: str = "") -> VllmMemoryPlan:
    """vLLM v1's KV-cache budget and capacity on one GPU (see :class:`VllmMemoryPlan` for the formulas).

    ``total_gpu_bytes``: the device total vLLM sees (``torch.cuda.mem_get_info()[1]``, e.g. 79.19 GiB
    on an H100 80GB). ``weights_bytes``: model weights on one GPU ("Model loading took X GiB").
    ``activation_bytes`` / ``non_torch_bytes`` default to :func:`estimate_activation_bytes` and
    ``DEFAULT_NON_TORCH_BYTES``; ``cuda_graph_bytes`` (default 0) is subtracted too, as releases that
    set ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` do. ``kv_cache_memory`` (``--kv-cache-memory``)
    replaces the whole budget. ``max_num_batched_tokens`` / ``max_num_seqs`` default to vLLM's
    ``EngineArgs`` defaults for ``usage_context`` ('server' = ``vllm serve``, 'offline' = ``LLM``)
    and this GPU (``gpu_name`` only matters to tell an A100 apart). ``intermediate_size`` feeds
    the activation estimate only.

    Recurrent (mamba / linear-attention) layers are not supported here: vLLM pads attention and
    mamba pages to one size, which is not modelled.
    """
    total = _check_bytes("total_gpu_bytes", total_gpu_bytes, 1)
    weights = _check_bytes("weights_bytes", weights_bytes)
    if isinstance(gpu_memory_utilization, bool) or not isinstance(gpu_memory_utilization, (int, float)) \
            or not 0 < gpu_memory_utilization <= 1:
        raise InputError(f"gpu_memory_utilization must be in (0, 1], got {gpu_memory_utilization!r:.40}")
    max_model_len = check_count("max_model_len", max_model_len, 1, MAX_CONTEXT)
    block_size = check_count("block_size", block_size, 1, 1 << 16)
    tp = check_count("tensor_parallel_size", tensor_parallel_size, 1, 4096)
    pp = check_count("pipeline_parallel_size", pipeline_parallel_size, 1, 4096)
    cuda_graph = _check_bytes("cuda_graph_bytes", cuda_graph_bytes)
    if gpu_name is None or not isinstance(gpu_name, str):
        raise InputError("gpu_name must be a string")
    mnbt = default_max_num_batched_tokens(total, usage_context, gpu_name) if max_num_batched_tokens is None \
        else check_count("max_num_batched_tokens", max_num_batched_tokens, 1, MAX_CONTEXT)
    seqs = default_max_num_seqs(total, mnbt, gpu_name) if max_num_seqs is None \
        else check_count("max_num_seqs", max_num_seqs, 1, MAX_BATCH)
    model, kv = vllm_dtypes(spec, dtype, kv_cache_dtype)
    caches = layer_caches(spec, model, kv, block_size, tp)
    if not caches:
        raise UnsupportedError("this model has no KV cache layers for vLLM to allocate")
    if any(c.kind == "mamba" for c in caches):
        raise UnsupportedError("vLLM capacity for models with recurrent (mamba / linear-attention) layers "
                               "is not modelled: vLLM pads attention and mamba pages to one size")
    enc = spec.default_encoder_tokens or mnbt   # max_num_encoder_input_tokens defaults to the token budget
    notes: list[str] = []

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
    non_torch = DEFAULT_NON_TORCH_BYTES if non_torch_bytes is None else _check_bytes("non_torch_bytes", non_torch_bytes)
    requested = total * gpu_memory_utilization
    if kv_cache_memory is not None:
        available = _check_bytes("kv_cache_memory", kv_cache_memory)
    else:
        available = int(requested - (weights + activation + non_torch) - cuda_graph)

    groups, uniform = _group_caches(caches)
    partition = pp_layer_partition(spec.num_layers, pp)
    budget = max(available, 0)
    workers = _workers(groups, uniform, partition, budget, max_model_len, mnbt, enc)
    binding_worker = min(workers, key=lambda w: (w.num_blocks, -w.layers))
    num_blocks = binding_worker.num_blocks

    group_views = []
    for g in groups:
        page, usage = _group_request_bytes(g, uniform, max_model_len, mnbt, enc)
        kind = "+".join(sorted({c.kind for c in g}))
        group_views.append(VllmCacheGroup(kind=kind, layers=tuple(c.layer for c in g), block_size=g[0].block_size,
                                          page_bytes=page, window=g[0].window,
                                          blocks_per_request=ceil_div(usage, page), uniform_type=uniform))
    page = group_views[0].page_bytes
    blocks_per_request = sum(g.blocks_per_request for g in group_views)
    tokens = num_blocks // len(groups) * min(g.block_size for g in group_views)
    concurrency = num_blocks / blocks_per_request
    fits = all(w.needed_bytes <= budget for w in workers) and available > 0
    estimated = None
    if not fits:
        estimated = _estimate_max_model_len(groups, uniform, partition, budget, max_model_len, mnbt, enc)

    stage_text = f" on pipeline stage {binding_worker.stage}" if pp > 1 else ""
    non_kv = weights + activation + non_torch + cuda_graph
    if available <= 0:
        binding = (f"no KV cache: weights + activation + non-torch{' + CUDA graphs' if cuda_graph else ''} "
                   f"({non_kv / GiB:.2f} GiB) exceed the requested {requested / GiB:.2f} GiB")
    elif not fits:
        binding = (f"max_model_len {max_model_len:,} does not fit: one request needs "
                   f"{binding_worker.needed_bytes / GiB:.2f} GiB of KV cache{stage_text} but "
                   f"{available / GiB:.2f} GiB is available; vLLM refuses to start "
                   f"(estimated maximum model length {estimated:,})")
    else:
        source = ("kv_cache_memory (--kv-cache-memory) sets the KV budget; gpu_memory_utilization is ignored"
                  if kv_cache_memory is not None else
                  f"GPU memory: {gpu_memory_utilization:g} x {total / GiB:.2f} GiB = {requested / GiB:.2f} GiB "
                  f"requested - {non_kv / GiB:.2f} GiB non-KV = {available / GiB:.2f} GiB for KV")
        binding = (f"{source}; {binding_worker.group_size} layers x {page:,} B per block{stage_text} "
                   f"-> {num_blocks:,} blocks")
    if pp > 1 and len(set(partition)) > 1:
        notes.append(f"layers per pipeline stage {list(partition)}: the stage with the most KV layers sets the block count")
    if tp > 1:
        notes.append(f"KV heads per rank = max(1, kv_heads // {tp}); MLA latents are not split")

    return VllmMemoryPlan(
        total_gpu_bytes=total, gpu_memory_utilization=float(gpu_memory_utilization), requested_bytes=int(requested),
        weights_bytes=weights, activation_bytes=activation, activation_estimated=activation_bytes is None,
        non_torch_bytes=non_torch, non_torch_estimated=non_torch_bytes is None, cuda_graph_bytes=cuda_graph,
        kv_cache_memory_given=kv_cache_memory is not None, available_kv_bytes=available, kv_dtype=kv.name,
        block_size=block_size, page_bytes=page, groups=tuple(group_views),
        layers_per_stage=tuple(w.layers for w in workers), group_size=binding_worker.group_size,
        block_bytes=binding_worker.block_bytes, block_bytes_all_stages=sum(w.block_bytes for w in workers),
        num_gpu_blocks=num_blocks, kv_cache_tokens=tokens, max_model_len=max_model_len,
        blocks_per_request=blocks_per_request, max_concurrency=concurrency, fits=fits,
        needed_kv_bytes=max(w.needed_bytes for w in workers), estimated_max_model_len=estimated,
        max_num_batched_tokens=mnbt, max_num_seqs=seqs, tensor_parallel_size=tp, pipeline_parallel_size=pp,
        binding=binding, notes=tuple(notes),
    )


class RequestBlocks:
    """Blocks of the shared pool one request may hold, as a function of its length (built once).

    ``blocks(T)`` = the sum over KV-cache groups of ``max_memory_usage_bytes / page`` (the count
    "Maximum concurrency" divides by): per group, the largest block count of its members
    (uniform-type groups) or of its one spec."""

    def __init__(self, spec: ModelSpec, *, dtype: "str | DType | None" = None,
                 kv_cache_dtype: "str | DType | None" = None, block_size: int = DEFAULT_BLOCK_SIZE,
                 tensor_parallel_size: int = 1, max_num_batched_tokens: int, encoder_tokens: int | None = None):
        model, kv = vllm_dtypes(spec, dtype, kv_cache_dtype)
        caches = layer_caches(spec, model, kv, block_size, tensor_parallel_size)
        groups, uniform = _group_caches(caches)
        self._mnbt = max_num_batched_tokens
        self._enc = (spec.default_encoder_tokens or max_num_batched_tokens) if encoder_tokens is None else encoder_tokens
        # one representative per distinct spec in each group: equal specs hold equal blocks
        self._groups = [list({c.key: c for c in (g if uniform else g[:1])}.values()) for g in groups]

    def __call__(self, tokens: int) -> int:
        return sum(max(c.blocks(tokens, max_num_batched_tokens=self._mnbt, encoder_tokens=self._enc, cap=False)
                       for c in reps) for reps in self._groups)


def request_blocks(spec: ModelSpec, tokens: int, **kwargs: Any) -> int:
    """Blocks one request of ``tokens`` tokens may hold (see :class:`RequestBlocks` for the options)."""
    return RequestBlocks(spec, **kwargs)(tokens)


def _estimate_max_model_len(groups: Sequence[Sequence[VllmLayerCache]], uniform: bool, partition: Sequence[int],
                            available: int, max_model_len: int, mnbt: int, enc: int) -> int:
    """Largest model length whose one-request KV fits every stage (``estimate_max_model_len``, binary search); 0 if none."""

    def fits(length: int) -> bool:
        return all(w.needed_bytes <= available for w in _workers(groups, uniform, partition, available, length, mnbt, enc))

    return largest_true(fits, max_model_len) or 0
