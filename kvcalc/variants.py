"""What-if attention variants: the same model with MHA, GQA, MQA or a sliding window.

The variant replaces each attention cache's geometry and keeps everything else (layer count,
head dim, dtypes), so the KV saving of each attention design shows on the model at hand:

* ``full``: every attention layer full (no sliding window or chunking), heads as configured.
* ``mha``: one KV head per query head (``kv_heads = query_heads``).
* ``gqa``: ``kv_heads`` KV heads, a divisor of the query heads.
* ``mqa``: a single KV head.
* ``sliding``: a window of ``window`` tokens on every attention layer, or with ``pattern`` =
  ``"N:1"`` on N of every N + 1 layers (the last of each group stays full attention, as Gemma 3's
  5:1 local:global).

An MLA model under an MHA / GQA / MQA variant is charged per-head K and V
(``qk_nope_head_dim + qk_rope_head_dim`` for K, ``v_head_dim`` for V), which shows what the latent saves.
"""
from __future__ import annotations

import re
from dataclasses import replace

from .errors import InputError
from .spec import AttentionCache, LayerSpec, ModelSpec

VARIANTS = ("as configured", "full", "mha", "gqa", "mqa", "sliding")


def _heads(a: AttentionCache, variant: str, kv_heads: int | None) -> AttentionCache:
    if variant == "mha":
        n = a.query_heads
    elif variant == "mqa":
        n = 1
    else:
        if kv_heads is None or kv_heads < 1 or a.query_heads % kv_heads:
            raise InputError(f"GQA needs a number of KV heads that divides the {a.query_heads} query heads, "
                             f"got {kv_heads!r}")
        n = kv_heads
    return replace(a, kv_heads=n, latent_dim=0, indexer_dim=0, latent_rank=0)


def parse_pattern(pattern: str | None) -> int | None:
    """'5:1' -> 5 (sliding layers per full layer); None / '' / 'all' -> None (every layer sliding)."""
    if pattern is None or pattern.strip().lower() in ("", "all"):
        return None
    m = re.fullmatch(r"\s*(\d{1,4})\s*:\s*1\s*", pattern)
    if not m or int(m.group(1)) < 1:
        raise InputError(f"sliding pattern must look like '5:1' (local:global) or 'all', got '{pattern[:20]}'")
    return int(m.group(1))


def apply_variant(spec: ModelSpec, variant: str, *, kv_heads: int | None = None, window: int | None = None,
                  pattern: str | None = None) -> ModelSpec:
    """``spec`` with every self-attention cache switched to ``variant`` (module docstring)."""
    variant = (variant or "as configured").lower()
    if variant not in VARIANTS:
        raise InputError(f"unknown attention variant '{variant[:20]}'; choose one of {', '.join(VARIANTS)}")
    if variant == "as configured":
        return spec
    if variant == "sliding":
        if window is None or isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise InputError(f"a sliding window must be a positive number of tokens, got {window!r}")
        every = parse_pattern(pattern)
    layers: list[LayerSpec] = []
    attn_index = 0
    for layer in spec.layers:
        if not any(a.source == "self" for a in layer.attention):
            layers.append(layer)
            continue
        new = []
        for a in layer.attention:
            if a.source != "self":
                new.append(a)
            elif variant == "sliding":
                local = every is None or (attn_index % (every + 1)) != every
                new.append(replace(a, window=window if local else None, chunked=False))
            elif variant == "full":
                new.append(replace(a, window=None, chunked=False))
            else:
                new.append(_heads(a, variant, kv_heads))
        attn_index += 1
        kind = layer.kind
        if variant in ("sliding", "full") and kind != "mla":
            kind = "sliding" if new[0].window else "full"
        elif kind == "mla":
            kind = "full"
        layers.append(replace(layer, attention=tuple(new), kind=kind))
    note = f"attention override: {variant}" + (f" ({kv_heads} KV heads)" if variant == "gqa" else "") + \
        (f" (window {window}, pattern {pattern or 'all'})" if variant == "sliding" else "")
    return replace(spec, layers=tuple(layers), warnings=spec.warnings + (note,))
