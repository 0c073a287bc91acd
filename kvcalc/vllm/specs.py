"""vLLM's per-layer cache specs: one frozen dataclass per ``KVCacheSpec`` kind (bytes, tokens).

Each mirrors the class of the same name in vllm-project/vllm ``vllm/v1/kv_cache_interface.py``
(read, not copied) and describes ONE cache of ONE decoder layer on ONE tensor-parallel rank:

``page_size_bytes``
    bytes of one block of ``block_size`` tokens (MambaSpec: one request's whole state).
``blocks(T, ...)``
    blocks (MambaSpec: pages) one request of ``T`` tokens holds.
``max_memory_usage_bytes(max_model_len, ...)``
    ``blocks(max_model_len, cap=False) * page_size_bytes``, vLLM's method of that name.

``cap`` asks for a request's own footprint: a sliding-window layer then never holds more blocks
than the request's tokens span; vLLM's capacity arithmetic (``cap=False``) does not apply that cap.
:func:`layer_caches` builds the specs from a :class:`~kvcalc.spec.ModelSpec`
(``GPUModelRunner.get_kv_cache_spec``, ``v1/worker/gpu_model_runner.py``).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from ..dtypes import DType, ceil_div
from ..errors import UnsupportedError
from ..spec import AttentionCache, LayerSpec, ModelSpec, RecurrentState
from .defaults import DEFAULT_BLOCK_SIZE, element_bytes

SpecKey = tuple[str, int, int, int | None]

FP8_DS_MLA_BYTES_PER_TOKEN = 656
"""Bytes per token of the ``fp8_ds_mla`` format (``state_content_bytes``, mla_attention.py)."""


def kv_heads_per_rank(kv_heads: int, tensor_parallel_size: int) -> int:
    """KV heads one tensor-parallel rank stores: ``max(1, kv_heads // tp)``.

    vLLM's ``ModelConfig.get_num_kv_heads`` (``config/model.py``): when there are fewer KV heads
    than ranks, each rank keeps (a replica of) one head.

    Llama 3.1 8B's 8 KV heads: 4 per rank at tp 2, still 1 (a replica) at tp 16:

    >>> kv_heads_per_rank(8, 2), kv_heads_per_rank(8, 16)
    (4, 1)
    """
    return max(1, kv_heads // tensor_parallel_size)


def sliding_window_blocks(tokens: int, window: int, block_size: int, max_num_batched_tokens: int,
                          *, cap: bool = True) -> int:
    """Blocks a sliding-window layer holds for a request of ``tokens`` tokens.

    ``cdiv(min(window - 1 + max_num_batched_tokens, tokens), block_size) + 1``
    (``SlidingWindowSpec.max_memory_usage_bytes``): during chunked prefill the layer keeps the last
    ``window - 1`` computed tokens plus the newly scheduled ones, and the window may start inside a
    block (the ``+ 1``). With ``cap`` (a request's own footprint) the count is also at most the
    ``ceil(tokens / block_size)`` blocks the request's tokens span.

    A 4,096-token window, 16-token blocks, 2,048-token chunks: a 32,768-token request holds
    cdiv(4,095 + 2,048, 16) + 1 = 384 + 1 = 385 blocks; a 100-token one cdiv(100, 16) + 1 = 8, capped
    at the 7 blocks its tokens span:

    >>> sliding_window_blocks(32768, 4096, 16, 2048), sliding_window_blocks(100, 4096, 16, 2048)
    (385, 7)
    >>> sliding_window_blocks(100, 4096, 16, 2048, cap=False)
    8
    """
    blocks = ceil_div(min(window - 1 + max_num_batched_tokens, tokens), block_size) + 1
    return min(blocks, ceil_div(tokens, block_size)) if cap else blocks


@dataclass(frozen=True)
class KVCacheSpec(ABC):
    """``KVCacheSpec``: one cache of decoder layer ``layer``, paged in blocks of ``block_size`` tokens."""

    layer: int
    block_size: int

    kind: ClassVar[str]
    """The short name kvcalc reports (groups, per-layer rows)."""

    @property
    @abstractmethod
    def page_size_bytes(self) -> int:
        """Bytes of one block of this layer (``KVCacheSpec.page_size_bytes``)."""

    @abstractmethod
    def blocks(self, tokens: int, *, max_num_batched_tokens: int, encoder_tokens: int, cap: bool = False) -> int:
        """Blocks this layer holds for one request of ``tokens`` tokens (module docstring)."""

    def max_memory_usage_bytes(self, max_model_len: int, *, max_num_batched_tokens: int, encoder_tokens: int) -> int:
        """Bytes one request of ``max_model_len`` tokens may hold: ``blocks(cap=False) * page_size_bytes``."""
        return self.blocks(max_model_len, max_num_batched_tokens=max_num_batched_tokens,
                           encoder_tokens=encoder_tokens) * self.page_size_bytes

    @property
    def window(self) -> int | None:
        """Tokens the layer attends to at most (sliding window, attention chunk); None when unbounded."""
        return None

    @property
    def key(self) -> SpecKey:
        """Equal keys = equal vLLM specs, which share one KV-cache group."""
        return (self.kind, self.page_size_bytes, self.block_size, self.window)

    def same_type(self, other: KVCacheSpec) -> bool:
        """``UniformTypeKVCacheSpecs.is_uniform_type`` for a pair: same kind (and window)."""
        return type(other) is type(self) and other.window == self.window

    def token_slots(self, blocks: int) -> tuple[int, int]:
        """(context tokens, encoder tokens) that ``blocks`` blocks of this layer hold."""
        return blocks * self.block_size, 0

    @property
    def bytes_per_token(self) -> int:
        """Bytes one more context token adds (below any window): ``page_size_bytes // block_size``."""
        return self.page_size_bytes // self.block_size

    def grown(self, ratio: int) -> KVCacheSpec:
        """This spec with ``ratio`` times the block size, so its page is ``ratio`` times larger
        (``unify_kv_cache_spec_page_size``, ``v1/core/kv_cache_utils.py``)."""
        return replace(self, block_size=self.block_size * ratio)


@dataclass(frozen=True)
class AttentionSpec(KVCacheSpec):
    """``AttentionSpec``: K and V of ``num_kv_heads`` heads per token.

    ``page_size_bytes = block_size * num_kv_heads * (head_size + head_size_v) * dtype_bytes``
    (``real_page_size_bytes``; ``block_size * heads * head_dim * 2 * dtype_bytes`` when K and V
    are equally wide).
    """

    num_kv_heads: int
    head_size: int
    head_size_v: int
    dtype_bytes: int

    @property
    def page_size_bytes(self) -> int:
        return self.block_size * self.num_kv_heads * (self.head_size + self.head_size_v) * self.dtype_bytes


@dataclass(frozen=True)
class FullAttentionSpec(AttentionSpec):
    """``FullAttentionSpec``: every token stays, ``ceil(T / block_size)`` blocks."""

    kind: ClassVar[str] = "full"

    def blocks(self, tokens: int, *, max_num_batched_tokens: int, encoder_tokens: int, cap: bool = False) -> int:
        return ceil_div(tokens, self.block_size)

    def same_type(self, other: KVCacheSpec) -> bool:
        """Full attention and its subclass MLA are one type for ``UniformTypeKVCacheSpecs``."""
        return isinstance(other, FullAttentionSpec)


@dataclass(frozen=True)
class MLAAttentionSpec(FullAttentionSpec):
    """``MLAAttentionSpec``: one latent tensor per token (compressed KV plus the shared RoPE key).

    ``page_size_bytes = block_size * head_size * dtype_bytes`` with ``num_kv_heads == 1`` and
    ``head_size = kv_lora_rank + qk_rope_head_dim`` (no separate V), the whole latent on every
    tensor-parallel rank. With ``--kv-cache-dtype fp8_ds_mla`` a token is ``state_bytes`` = 656
    bytes instead (``state_content_bytes``, see ``kvcalc.vllm.defaults.FP8_DS_MLA``). The DeepSeek
    sparse-attention indexer key is its own spec, :class:`IndexerSpec`.
    """

    state_bytes: int = 0
    kind: ClassVar[str] = "mla"

    @property
    def page_size_bytes(self) -> int:
        if self.state_bytes:
            return self.block_size * self.state_bytes
        return self.block_size * self.num_kv_heads * self.head_size * self.dtype_bytes


INDEXER_QUANT_BLOCK = 128
"""Values per float32 scale of the DSA indexer key cache (``Indexer.quant_block_size``, deepseek_v2.py)."""


@dataclass(frozen=True)
class IndexerSpec(MLAAttentionSpec):
    """DeepSeek sparse attention's indexer key cache (``DeepseekV32IndexerCache.get_kv_cache_spec``,
    model_executor/models/deepseek_v2.py): an ``MLAAttentionSpec`` of uint8 with ``head_size =
    index_head_dim + index_head_dim // 128 x 4`` (fp8 keys and their float32 scales): 132 bytes per
    token for ``index_head_dim`` 128, whole on every rank."""

    kind: ClassVar[str] = "indexer"


@dataclass(frozen=True)
class SlidingWindowSpec(AttentionSpec):
    """``SlidingWindowSpec``: the last ``sliding_window`` tokens (see :func:`sliding_window_blocks`)."""

    sliding_window: int
    kind: ClassVar[str] = "sliding"

    @property
    def window(self) -> int | None:
        return self.sliding_window

    def blocks(self, tokens: int, *, max_num_batched_tokens: int, encoder_tokens: int, cap: bool = False) -> int:
        return sliding_window_blocks(tokens, self.sliding_window, self.block_size, max_num_batched_tokens, cap=cap)


@dataclass(frozen=True)
class ChunkedLocalAttentionSpec(AttentionSpec):
    """``ChunkedLocalAttentionSpec`` (Llama 4): ``cdiv(min(chunk + max_num_batched_tokens, T), block_size)`` blocks."""

    attention_chunk_size: int
    kind: ClassVar[str] = "chunked"

    @property
    def window(self) -> int | None:
        return self.attention_chunk_size

    def blocks(self, tokens: int, *, max_num_batched_tokens: int, encoder_tokens: int, cap: bool = False) -> int:
        return ceil_div(min(self.attention_chunk_size + max_num_batched_tokens, tokens), self.block_size)


@dataclass(frozen=True)
class CrossAttentionSpec(AttentionSpec):
    """``CrossAttentionSpec``: the encoder's K/V, ``ceil(encoder_tokens / block_size)`` blocks."""

    kind: ClassVar[str] = "cross"

    def blocks(self, tokens: int, *, max_num_batched_tokens: int, encoder_tokens: int, cap: bool = False) -> int:
        return ceil_div(encoder_tokens, self.block_size)

    def token_slots(self, blocks: int) -> tuple[int, int]:
        return 0, blocks * self.block_size

    @property
    def bytes_per_token(self) -> int:
        return 0


@dataclass(frozen=True)
class MambaSpec(KVCacheSpec):
    """``MambaSpec``: one request's recurrent states, in pages of ``page_size_bytes``.

    ``page_size_bytes = sum(state_elements) * dtype_bytes``, or ``page_size_padded`` when the hybrid
    allocator pads it to the attention page (:mod:`kvcalc.vllm.hybrid`): per state, its elements on
    one rank (``ceil(elements / tp)``), every state in the model dtype (``mamba_ssm_cache_dtype="auto"``)
    except the temporal (``ssm``) state of the types in :data:`SSM_DTYPE_FROM_CONFIG`, in the config's
    ``mamba_ssm_dtype`` (``state_dtype_bytes``); the conv state keeps ``conv_kernel - 1`` columns
    (transformers keeps ``conv_kernel``).
    Pages one request holds (``MambaSpec.max_memory_usage_bytes``): ``1 + num_speculative_blocks``
    with ``mamba_cache_mode='none'``; ``2 + num_speculative_blocks + num_prefill_checkpoint_blocks``
    with ``'align'`` (prefix caching on, vLLM 0.33's default for hybrid models).
    """

    state_elements: tuple[int, ...]
    dtype_bytes: int
    num_speculative_blocks: int = 0
    state_dtype_bytes: tuple[int, ...] | None = None   # per state, where they differ (None: all dtype_bytes)
    page_size_padded: int | None = None
    align_mode: bool = False
    num_prefill_checkpoint_blocks: int = 0
    kind: ClassVar[str] = "mamba"

    @property
    def state_bytes(self) -> int:
        """Bytes of the states themselves (``real_page_size_bytes``), before any padding."""
        each = self.state_dtype_bytes or (self.dtype_bytes,) * len(self.state_elements)
        return sum(n * b for n, b in zip(self.state_elements, each, strict=True))

    @property
    def page_size_bytes(self) -> int:
        return self.state_bytes if self.page_size_padded is None else self.page_size_padded

    def blocks(self, tokens: int, *, max_num_batched_tokens: int, encoder_tokens: int, cap: bool = False) -> int:
        if self.align_mode:
            return 2 + self.num_speculative_blocks + self.num_prefill_checkpoint_blocks
        return 1 + self.num_speculative_blocks

    def token_slots(self, blocks: int) -> tuple[int, int]:
        return 0, 0

    @property
    def bytes_per_token(self) -> int:
        return 0

    def grown(self, ratio: int) -> KVCacheSpec:
        raise UnsupportedError("vLLM pads mamba pages to the attention page size (page_size_padded) "
                               "instead of growing them (kvcalc.vllm.hybrid)")


def attention_page_bytes(a: AttentionCache, kv: DType, block_size: int, tensor_parallel_size: int = 1) -> int:
    """Bytes of one block of one standard attention layer on one rank (:class:`AttentionSpec`'s page).

    Llama 3.1 8B's layer in bfloat16: 16 tokens x 8 KV heads x (128 + 128) x 2 B = 65,536 B; at
    tp 2 each rank holds 4 heads, half that:

    >>> from kvcalc.dtypes import BFLOAT16
    >>> layer = AttentionCache(kv_heads=8, k_head_dim=128, v_head_dim=128, query_heads=32)
    >>> attention_page_bytes(layer, BFLOAT16, 16), attention_page_bytes(layer, BFLOAT16, 16, 2)
    (65536, 32768)
    """
    return FullAttentionSpec(0, block_size, kv_heads_per_rank(a.kv_heads, tensor_parallel_size), a.k_head_dim,
                             a.v_head_dim, element_bytes(kv)).page_size_bytes


def _attention_spec(layer: int, a: AttentionCache, kv: DType, block_size: int, tp: int) -> KVCacheSpec:
    """The spec class vLLM's attention layer registers for this cache (``get_kv_cache_spec``)."""
    b = element_bytes(kv)
    if a.latent_dim:
        state = FP8_DS_MLA_BYTES_PER_TOKEN if kv.name == "fp8_ds_mla" else 0
        return MLAAttentionSpec(layer, block_size, 1, a.latent_dim, 0, b, state)   # no separate V
    heads = (layer, block_size, kv_heads_per_rank(a.kv_heads, tp), a.k_head_dim, a.v_head_dim, b)
    if a.source == "cross":
        return CrossAttentionSpec(*heads)
    if a.window is None:
        return FullAttentionSpec(*heads)
    if a.chunked:
        return ChunkedLocalAttentionSpec(*heads, attention_chunk_size=a.window)
    return SlidingWindowSpec(*heads, sliding_window=a.window)


SSM_DTYPE_FROM_CONFIG = ("qwen3_5_text", "qwen3_5_moe_text")
"""Decoder types whose config's ``mamba_ssm_dtype`` vLLM 0.33 makes the ``mamba_ssm_cache_dtype`` while the
flag is "auto" (model_executor/models/config.py ``Qwen3_5ForConditionalGenerationConfig.verify_and_update_config``,
registered for Qwen3_5 / Qwen3_5Moe ForCausalLM and ForConditionalGeneration); the temporal state then takes
that dtype (layers/mamba/mamba_utils.py ``MambaStateDtypeCalculator._mamba_state_dtype``)."""

_SSM_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def _mamba_spec(layer: int, states: Sequence[RecurrentState], model: DType, block_size: int, tp: int,
                ssm_dtype: str | None = None) -> MambaSpec:
    elements = tuple(ceil_div(s.elements_with_kernel(s.conv_kernel - 1), tp) for s in states)
    if ssm_dtype is None:
        return MambaSpec(layer, block_size, elements, element_bytes(model))
    if ssm_dtype not in _SSM_DTYPE_BYTES:
        raise UnsupportedError(f"config field 'mamba_ssm_dtype' = {ssm_dtype!r}: vLLM's recurrent-state dtypes "
                               f"modelled are {', '.join(_SSM_DTYPE_BYTES)}")
    each = tuple(_SSM_DTYPE_BYTES[ssm_dtype] if s.role == "ssm" else element_bytes(model) for s in states)
    return MambaSpec(layer, block_size, elements, element_bytes(model), state_dtype_bytes=each)


def layer_caches(spec: ModelSpec, model: DType, kv: DType, block_size: int = DEFAULT_BLOCK_SIZE,
                 tensor_parallel_size: int = 1) -> tuple[KVCacheSpec, ...]:
    """The vLLM cache specs of every layer, in layer order (``GPUModelRunner.get_kv_cache_spec``).

    Shared-KV layers and cache-less layers hold nothing; a layer with two caches (self- and
    cross-attention, or attention plus a recurrent state) gives two specs.

    Gemma 2 9B: even layers slide over 4,096 tokens, odd ones attend to everything, 8 KV heads of 256:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> from kvcalc.dtypes import BFLOAT16
    >>> caches = layer_caches(read_spec(read_data_json("configs", "google__gemma-2-9b-it.json")), BFLOAT16, BFLOAT16)
    >>> len(caches), [(c.kind, c.window) for c in caches[:2]], caches[0].page_size_bytes == 16 * 8 * 512 * 2
    (42, [('sliding', 4096), ('full', None)], True)
    """
    out: list[KVCacheSpec] = []
    ssm_dtype = spec.mamba_ssm_dtype if spec.model_type in SSM_DTYPE_FROM_CONFIG else None
    for layer in spec.layers:
        out.extend(_layer_specs(layer, model, kv, block_size, tensor_parallel_size, ssm_dtype))
    return tuple(out)


def _layer_specs(layer: LayerSpec, model: DType, kv: DType, block_size: int, tp: int,
                 ssm_dtype: str | None = None) -> list[KVCacheSpec]:
    if layer.kind in ("shared", "none"):
        return []
    if any(a.indexer_dim and not a.latent_dim for a in layer.attention):
        raise UnsupportedError(f"vLLM: layer {layer.index} caches sparse-attention index keys beside GQA K/V "
                               "(MiniMax-M3); vLLM's spec for them is not modelled: use runtime 'transformers' "
                               "or 'ideal'")
    out = [_attention_spec(layer.index, a, kv, block_size, tp) for a in layer.attention]
    out += [IndexerSpec(layer.index, block_size, 1, a.indexer_dim + a.indexer_dim // INDEXER_QUANT_BLOCK * 4, 0, 1)
            for a in layer.attention if a.latent_dim and a.indexer_dim]
    if layer.states:
        out.append(_mamba_spec(layer.index, layer.states, model, block_size, tp, ssm_dtype))
    return out
