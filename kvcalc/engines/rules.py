"""An unpaged runtime's cache rules, named by the engine and applied by kvcalc.kv (which sits below the
engines, so the record lives in this import-free module). Units: none (switches).

>>> CacheRules().sliding_views, CacheRules(sliding_views=True).sliding_views
(False, True)
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CacheRules:
    """How an unpaged runtime's cache holds each layer: the rules kvcalc.kv applies to its terms
    (kvcalc.kv's module docstring). All False: the least the cache must hold (``ideal``).

    ``float32_states``: recurrent (SSM) states, and conv states a mixer computes in float32, are float32
    whatever the model dtype; ``float32_indexer``: DSA indexer keys so marked are float32;
    ``expands_kv_heads``: a model quirked ``kv_expanded_to_query_heads`` caches K/V per query head;
    ``sliding_views``: a sliding layer keeps a view of every prefill token until a decode step, with an
    8-byte int64 window tensor; ``model_dtype_kv``: K/V are stored in the model dtype (a quantized KV
    dtype is refused); ``layouts``: ``cache_implementation`` / ``max_cache_len`` / ``beam_search`` apply
    (transformers' StaticCache and beam reorder). transformers 5.24 ``cache_utils``: all True."""

    float32_states: bool = False
    float32_indexer: bool = False
    expands_kv_heads: bool = False
    sliding_views: bool = False
    model_dtype_kv: bool = False
    layouts: bool = False
