"""Frozen dataclasses describing a model's cache layer by layer (the output of config reading).

A layer holds zero or more attention caches (self- or cross-attention) and zero or more
fixed-size recurrent states. kv.py turns these facts into bytes for each runtime.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .models.quirks import Quirk

LayerKind = Literal[
    "full",        # full causal self-attention: grows with every token
    "sliding",     # sliding-window attention: holds at most `window` tokens
    "chunked",     # chunked local attention (Llama 4): attends within chunks of `window` tokens
    "mla",         # multi-head latent attention (DeepSeek): caches one latent vector per token
    "linear",      # linear attention / gated delta net: fixed-size state
    "mamba",       # selective state-space layer: fixed-size conv + SSM state
    "conv",        # short-convolution layer (LFM2): fixed-size conv state
    "hybrid",      # a recurrent state and an attention cache in the same layer
    "cross",       # cross-attention only (Mllama): caches encoder / vision tokens
    "shared",      # reuses another layer's KV cache: holds nothing itself
    "none",        # no cache at all (MLP / MoE-only block)
]

Quality = Literal["exact", "estimated"]
"""How far a figure can be trusted: ``exact`` (the type's rules are verified against transformers'
real caches / meta-device counts), ``estimated`` (generic rules; every assumed field is in the warnings).
What kvcalc cannot bound is refused with :class:`~kvcalc.errors.UnsupportedError` instead."""


def combine_quality(*qualities: Quality) -> Quality:
    """``exact`` only when every part is exact.

    >>> combine_quality("exact", "exact"), combine_quality("exact", "estimated")
    ('exact', 'estimated')
    """
    return "exact" if all(q == "exact" for q in qualities) else "estimated"


@dataclass(frozen=True)
class AttentionCache:
    """One attention cache in a layer.

    Per token it stores ``kv_heads * k_head_dim`` key and ``kv_heads * v_head_dim`` value
    elements, or, for MLA, ``latent_dim`` elements (the compressed KV plus the shared RoPE key).
    ``window`` caps the tokens a sliding or chunked layer needs; ``source == "cross"`` means the
    cache holds encoder tokens, not generated ones. ``query_heads`` is the number of query heads
    (some runtimes cache K/V expanded to every query head). ``indexer_dim`` is the DeepSeek
    sparse-attention indexer key width (elements per token), 0 when absent (on a GQA layer, MiniMax-M3's one
    index-key head: kvcalc.models.sparse_index). ``keeps_prefill`` marks a
    reference sliding window (R-SWA, Unlimited-OCR): every prefill token stays, the window caps only the
    tokens decoded after it (``modeling_unlimited_ocr.UnlimitedOcrDynamicReferenceSlidingWindowLayer``).
    ``prefix_tokens`` are learned prompt tokens every sequence caches before its input (CPM-Ant's
    ``prompt_length``: ``modeling_cpmant.CpmAntModel.forward`` prepends them), 0 when absent.
    """

    kv_heads: int
    k_head_dim: int
    v_head_dim: int
    query_heads: int
    window: int | None = None
    chunked: bool = False
    latent_dim: int = 0
    indexer_dim: int = 0
    source: Literal["self", "cross"] = "self"
    keeps_prefill: bool = False
    indexer_float32: bool = False   # transformers caches the indexer keys in float32 (Dots3-Note's fp32 RoPE)
    prefix_tokens: int = 0          # PD (issue 12): learned prompt tokens cached before the input (CPM-Ant)
    # DeepSeek-V4's compressed layers (kvcalc.models.deepseek_v4_cache): one entry of k_head_dim (+ indexer_dim)
    # per compress_rate tokens beside the shared K=V window; 0 elsewhere
    compress_rate: int = 0
    # MLA: kv_lora_rank, the latent's compressed-KV columns (latent_dim minus the shared RoPE key), which an engine
    # that views V inside the cached latent reads as V (llama.cpp build_attn, K-only cache); 0 elsewhere
    latent_rank: int = 0

    @property
    def elements_per_token(self) -> int:
        """Elements cached per token per sequence (ideal layout).

        Llama 3.1 8B's layer: 8 KV heads x (128 + 128) = 2,048; DeepSeek-V3's MLA latent:
        ``kv_lora_rank`` 512 + ``qk_rope_head_dim`` 64 = 576, whatever the head count:

        >>> AttentionCache(kv_heads=8, k_head_dim=128, v_head_dim=128, query_heads=32).elements_per_token
        2048
        >>> AttentionCache(kv_heads=128, k_head_dim=192, v_head_dim=128, query_heads=128,
        ...                latent_dim=576).elements_per_token
        576
        """
        if self.latent_dim:
            return self.latent_dim + self.indexer_dim
        return self.kv_heads * (self.k_head_dim + self.v_head_dim) + self.indexer_dim   # MiniMax-M3's index key


@dataclass(frozen=True)
class RecurrentState:
    """A fixed-size state per sequence: ``elements`` values, independent of context length.

    ``role`` is ``"conv"`` (short-convolution window, kept in the model dtype by transformers),
    ``"ssm"`` (a Mamba / gated-delta-net recurrent state, kept in float32 by transformers) or
    ``"linear"`` (MiniMax lightning-attention state, Zaya's delayed value, kept in the model dtype by
    transformers). ``float32`` marks a state transformers keeps in float32 whatever its role (Inkling's
    short convolutions run in float32: ``modeling_inkling.InklingShortConvolution.forward``).
    """

    role: Literal["conv", "ssm", "linear"]
    elements: int
    conv_kernel: int = 0       # conv states: the window width (elements = channels x conv_kernel)
    float32: bool = False      # transformers keeps it in float32 (SSM states always are)

    def elements_with_kernel(self, kernel: int) -> int:
        """Elements if the conv window held ``kernel`` columns (vLLM keeps ``conv_kernel - 1``).

        8,192 channels x a 4-wide window = 32,768 elements; vLLM's 3 columns hold 8,192 x 3 = 24,576:

        >>> RecurrentState("conv", elements=8192 * 4, conv_kernel=4).elements_with_kernel(3)
        24576
        """
        if self.role != "conv" or not self.conv_kernel:
            return self.elements
        return self.elements // self.conv_kernel * kernel


@dataclass(frozen=True)
class LayerSpec:
    """One decoder layer's cache: its kind, attention caches and recurrent states."""

    index: int
    kind: LayerKind
    attention: tuple[AttentionCache, ...] = ()
    states: tuple[RecurrentState, ...] = ()
    shares_with: int | None = None


@dataclass(frozen=True)
class ModelSpec:
    """Everything kvcalc read from a config.json, per layer, with the fields it used."""

    model_type: str
    dtype: str
    layers: tuple[LayerSpec, ...]
    hidden_size: int
    vocab_size: int
    num_attention_heads: int
    mlp_width: int | None = None     # per-token MLP intermediate width (MoE: top-k x expert width + shared)
    moe_experts: int | None = None   # routed experts per MoE layer (None: dense, or the config does not say)
    moe_top_k: int | None = None     # routed experts each token picks
    is_encoder_decoder: bool = False
    default_encoder_tokens: int | None = None
    max_position_embeddings: int | None = None
    # the config's ``mamba_ssm_dtype`` (text, e.g. "float32"; Qwen3.5 checkpoints): transformers ignores it, vLLM's
    # Qwen3.5 config hook makes it the default recurrent-state dtype (kvcalc.vllm.specs)
    mamba_ssm_dtype: str | None = None
    known_architecture: bool = True
    fields_used: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    quirks: tuple[Quirk, ...] = field(default=())
    quality: Quality = "exact"       # "estimated": generic rules, the assumptions are in ``warnings``

    @property
    def num_layers(self) -> int:
        return len(self.layers)

    def kinds(self) -> dict[str, int]:
        """Count of layers per kind, in the order they first appear.

        Gemma 2 9B alternates sliding-window (even) and global (odd) layers over its 42 layers
        (transformers' ``Gemma2DecoderLayer``: ``is_sliding = not bool(layer_idx % 2)``):

        >>> from kvcalc import read_spec
        >>> from kvcalc.data_files import read_data_json
        >>> read_spec(read_data_json("configs", "google__gemma-2-9b-it.json")).kinds()
        {'sliding': 21, 'full': 21}
        """
        out: dict[str, int] = {}
        for layer in self.layers:
            out[layer.kind] = out.get(layer.kind, 0) + 1
        return out
