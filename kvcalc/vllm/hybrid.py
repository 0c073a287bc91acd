"""vLLM 0.33's hybrid allocator: attention + mamba / linear-attention layers in one page size (bytes, tokens).

Sources (vllm-project/vllm 0.33.0, read, not copied): ``platforms/interface.py``
(``Platform._align_hybrid_block_size``: the attention block size is the smallest multiple of the
kernel alignment whose page holds a mamba state, and the mamba page is padded to exactly that
attention page), ``v1/kv_cache_interface.py`` (``MambaSpec``: pages per request in
``mamba_cache_mode='align'``, which prefix caching, on by default, selects for hybrid models),
``model_executor/layers/mamba/`` (each mixer's prefill checkpoints: ``mamba_mixer2.py``
``num_prefill_checkpoint_blocks=1`` at alignment 1; ``gdn/qwen_gdn_linear_attn.py`` one checkpoint
block on the GDN chunk grid; ``mamba_mixer.py`` (Mamba 1), ``short_conv.py`` (LFM2) and
``gdn/olmo_gdn_linear_attn.py`` none).

Formula: ``k = lcm(max(16, block_size), checkpoint_alignment)`` (16: FLASH_ATTN's smallest kernel
block), ``attention block = 16 * cdiv(k * cdiv(mamba_page, k * attn_bytes_per_token), 16)``, mamba
``page_size_padded = attention block * attn_bytes_per_token``. Then the ordinary grouping
(kvcalc.vllm.grouping) applies: equal pages, groups of the smaller layer count.

Changed after v0.10.2 (kvcalc's "0.10" rules refuse hybrid models): the prefix-caching ``align`` mode
and its checkpoint blocks. Not modelled (UnsupportedError): attention-free models, MLA hybrids
(128-token alignment), speculative decoding's extra mamba blocks, a float32 ``mamba_ssm_cache_dtype`` flag.
Attention-free models: prefix caching off, one page of ``max_model_len`` tokens per request
(:func:`attention_free`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import lcm

from ..dtypes import DType, ceil_div
from ..errors import UnsupportedError
from ..spec import ModelSpec
from .defaults import engine
from .specs import AttentionSpec, CrossAttentionSpec, KVCacheSpec, MambaSpec, MLAAttentionSpec, layer_caches

KERNEL_BLOCK_ALIGNMENT = 16
"""FLASH_ATTN's smallest supported kernel block (``get_supported_kernel_block_sizes``: ``MultipleOf(16)``), tokens."""


@dataclass(frozen=True)
class MambaMixer:
    """One mixer family's prefix-caching checkpoints (its layer's ``get_kv_cache_spec``)."""

    name: str
    prefill_checkpoint_blocks: int
    checkpoint_alignment: int | None     # tokens; None: the mixer exports no checkpoints


MAMBA1 = MambaMixer("mamba1", 0, None)                # model_executor/layers/mamba/mamba_mixer.py
MAMBA2 = MambaMixer("mamba2", 1, 1)                   # mamba_mixer2.py: num_prefill_checkpoint_blocks=1, alignment 1
GATED_DELTA_NET = MambaMixer("gated_delta_net", 1, 64)
"""gdn/qwen_gdn_linear_attn.py: one checkpoint block on the 64-token chunk grid of the GDN kernels (the
oracle's Qwen3-Next block sizes, 576 at TP 1 and 320 at TP 4, pin the 64)."""

SHORT_CONV = MambaMixer("short_conv", 0, None)       # short_conv.py: no checkpoints (MambaBase's defaults)
OLMO_GATED_DELTA_NET = MambaMixer("olmo_gated_delta_net", 0, None)
"""gdn/olmo_gdn_linear_attn.py: OlmoHybridGatedDeltaNetAttention keeps MambaBase's defaults (no checkpoint
alignment, no checkpoint blocks), unlike Qwen's GDN."""

MIXERS: dict[str, MambaMixer] = {
    "jamba": MAMBA1,
    "lfm2": SHORT_CONV, "lfm2_moe": SHORT_CONV, "olmo_hybrid": OLMO_GATED_DELTA_NET, "zamba2": MAMBA2,
    "qwen3_next": GATED_DELTA_NET, "qwen3_5": GATED_DELTA_NET, "qwen3_5_moe": GATED_DELTA_NET,
    # a Qwen3.5 wrapper's decoder (text_config) is read under its own type (Hub configs: qwen3_5 + qwen3_5_text)
    "qwen3_5_text": GATED_DELTA_NET, "qwen3_5_moe_text": GATED_DELTA_NET,
    "nemotron_h": MAMBA2, "granitemoehybrid": MAMBA2, "bamba": MAMBA2, "falcon_h1": MAMBA2,
}
"""The hybrid model types kvcalc plans under vLLM, by config ``model_type``."""


def attention_free(spec: ModelSpec) -> bool:
    """Whether every cache layer is recurrent (no attention anywhere): vLLM then sets ``mamba_block_size`` to
    ``max_model_len`` (MambaModelConfig.verify_and_update_config, prefix caching disabled for such models)."""
    return any(layer.states for layer in spec.layers) and not any(layer.attention for layer in spec.layers)


def hybrid_block_size(attn_bytes_per_token: int, mamba_page_bytes: int, block_size: int,
                      checkpoint_alignment: int | None) -> int:
    """The attention block size vLLM 0.33 sets for a hybrid model (module docstring), in tokens.

    4,096 attention bytes per token and a 300,000-byte mamba page: with a 64-token checkpoint grid
    k = lcm(16, 64) = 64 and 64 x cdiv(300,000, 64 x 4,096) = 64 x 2 = 128 tokens; without one k = 16
    and 16 x cdiv(300,000, 65,536) = 16 x 5 = 80 tokens (both already multiples of 16):

    >>> hybrid_block_size(4096, 300_000, 16, 64), hybrid_block_size(4096, 300_000, 16, None)
    (128, 80)
    """
    k = lcm(max(KERNEL_BLOCK_ALIGNMENT, block_size), checkpoint_alignment or 1)
    attn_block = k * ceil_div(mamba_page_bytes, k * attn_bytes_per_token)
    attn_block = KERNEL_BLOCK_ALIGNMENT * ceil_div(attn_block, KERNEL_BLOCK_ALIGNMENT)
    return max(block_size, attn_block)


def engine_caches(spec: ModelSpec, model: DType, kv: DType, block_size: int, tensor_parallel_size: int = 1,
                  vllm_version: str | None = None, draft_layers: int = 0) -> tuple[tuple[KVCacheSpec, ...], int]:
    """The layer specs vLLM allocates, after the platform's block-size update, and that block size.

    Models without recurrent layers: :func:`~kvcalc.vllm.specs.layer_caches` at ``block_size``.
    Hybrid models (vLLM 0.33): the block size of :func:`hybrid_block_size` and every mamba page
    padded to the attention page, in ``align`` mode. ``draft_layers`` speculative-decoding layers
    (kvcalc.vllm.speculative) follow, numbered from ``spec.num_layers``, each a copy of the last
    decoder layer's self-attention spec.
    """
    caches, size = _engine_caches(spec, model, kv, block_size, tensor_parallel_size, vllm_version)
    if not draft_layers:
        return caches, size
    own = [c for c in caches if isinstance(c, AttentionSpec) and not isinstance(c, CrossAttentionSpec)]
    if not own:
        raise UnsupportedError("speculative decoding needs a model with self-attention layers")
    return caches + tuple(replace(own[-1], layer=spec.num_layers + i) for i in range(draft_layers)), size


def _engine_caches(spec: ModelSpec, model: DType, kv: DType, block_size: int, tensor_parallel_size: int,
                   vllm_version: str | None) -> tuple[tuple[KVCacheSpec, ...], int]:
    caches = layer_caches(spec, model, kv, block_size, tensor_parallel_size)
    mambas = [c for c in caches if isinstance(c, MambaSpec)]
    if not mambas:
        return caches, block_size
    e = engine(vllm_version)
    if e.version == "0.10":
        raise UnsupportedError("vLLM capacity for models with recurrent (mamba / linear-attention) layers is "
                               "modelled for vllm_version 0.33 only (its hybrid allocator)")
    attention = [c for c in caches if isinstance(c, AttentionSpec)]
    if not attention:
        # attention-free (Mamba, Mamba-2, Falcon-Mamba): vLLM turns prefix caching off, so mamba_cache_mode is
        # "none" (one state page per request) and the state block holds max_model_len tokens, which the caller
        # passes as block_size (model_executor/models/config.py MambaModelConfig.verify_and_update_config)
        return caches, block_size
    if any(isinstance(c, MLAAttentionSpec) for c in attention):
        raise UnsupportedError("vLLM capacity for MLA + mamba hybrids (128-token alignment) is not modelled")
    mixer = MIXERS.get(spec.model_type)
    if mixer is None:
        raise UnsupportedError(f"vLLM's mamba prefix-caching checkpoints for model_type '{spec.model_type}' are "
                               f"not modelled (hybrid types modelled: {', '.join(sorted(MIXERS))})")
    per_token = {c.page_size_bytes // c.block_size for c in attention}
    if len(per_token) != 1:
        raise UnsupportedError("vLLM hybrid models with attention layers of different page sizes are not modelled")
    attn_bytes_per_token = per_token.pop()
    mamba_page = max(c.state_bytes for c in mambas)
    size = hybrid_block_size(attn_bytes_per_token, mamba_page, block_size, mixer.checkpoint_alignment)
    out = []
    for c in layer_caches(spec, model, kv, size, tensor_parallel_size):
        if isinstance(c, MambaSpec):
            c = replace(c, page_size_padded=size * attn_bytes_per_token, align_mode=True,
                        num_prefill_checkpoint_blocks=mixer.prefill_checkpoint_blocks)
        out.append(c)
    return tuple(out), size
