"""Sliding-window and per-layer-head models under TensorRT-LLM's PyTorch backend (tokens, elements).

Source: NVIDIA/TensorRT-LLM, ``tensorrt_llm/_torch/pyexecutor/resource_manager.py`` ``KVCacheManager.__init__``
(stored copies of the 1.x line, read, not copied) and ``tensorrt_llm/_torch/pyexecutor/_util.py`` at commit
0004396720054fd8e205cbf616f21f0b57c6b412:

- With ``KvCacheConfig.max_attention_window`` unset (the default), ``max_attention_window_vec =
  [max_seq_len]``: one window, one pool, every layer's K and V kept for every token of the sequence, so
  a sliding-window model (Gemma 2 / 3, Mistral v0.1, gpt-oss) is sized exactly like a full-attention one
  (``calculate_max_num_blocks``); the window is applied by the attention kernel, not the pool. The
  per-layer windows are derived from ``layer_types`` only for ``KVCacheManagerV2``
  (``_util.py`` ``_create_kv_cache_manager``: "V1 manager -> no derivation").
- A user ``max_attention_window`` with two or more windows (VSWA) sizes one pool per window through the
  C++ ``BaseKVCacheManager::calculateMaxNumBlocks``: not modelled (kvcalc has no such option).
- Layers whose KV shapes differ (Gemma 4's ``global_head_dim`` / ``num_global_key_value_heads`` full layers)
  go to ``KVCacheManagerV2`` (``_util.py`` ``_non_hybrid_kv_cache_manager_cls``: "Models with per-layer
  head_dim (e.g., Gemma4 hybrid attention) require KVCacheManagerV2"): refused, for this reason. At
  0004396 its device quota is pinned: ``KvCacheCreator.configure_kv_cache_capacity`` sets
  ``max_gpu_total_bytes`` to the ``_cal_max_memory`` budget (``fraction x (total - peak + allocated)``),
  ``kv_cache/kv_cache_manager_v2.py`` ``KVCacheManagerV2.__init__`` makes it the one GPU tier's quota
  (a user ``max_tokens`` gives ``ceil(_get_quota_from_max_tokens(max_tokens) / max_util_for_resume)``,
  0.97 by default) and builds one ``BufferConfig`` per layer and role of
  ``get_layer_bytes_per_token x tokens_per_block`` bytes. The split of that one quota into pool groups
  (per window and per page size) is not in that file: ``_build_base_config`` hands it to
  ``tensorrt_llm/runtime/kv_cache_manager_v2`` (``KVCacheManagerConfig``: ``typical_step`` and
  ``initial_pool_ratio`` both ``None`` and no ``constraints`` unless ``avg_seq_len`` / ``pool_ratio`` are
  set, so the storage manager's own fallback decides). Its default backend is C++
  (``TLLM_KV_CACHE_MANAGER_V2_BACKEND`` defaults to "cpp"; ``cpp/tensorrt_llm/batch_manager/
  kv_cache_manager_v2/storageManager.cpp``), and neither it nor the Python reference
  (``_storage_manager.py``) is stored at this commit. The Python reference read at another commit
  (00f6bd61) takes the initial ratio from one request of capacity 2,049 with 2,048 tokens of history and
  sizes GPU pools in steps of ``2 MiB << min(4, max(0, int(log2(quota / 1 GiB))))``. That is evidence, not
  a pin. ``enable_kv_pool_rebalance`` also re-splits the pools at run time. Gemma 4 reached
  TensorRT-LLM's main branch on 2026-05-09 (NVIDIA/TensorRT-LLM#12932), so no 1.0 / 1.1 release
  candidate serves it at all.
"""
from __future__ import annotations

from ..errors import UnsupportedError
from ..spec import ModelSpec


def _shapes(spec: ModelSpec) -> set[tuple[int, int, int, int]]:
    return {(a.kv_heads, a.k_head_dim, a.v_head_dim, a.latent_dim)
            for layer in spec.layers if layer.kind not in ("shared", "none") for a in layer.attention}


def check_uniform_kv_shape(spec: ModelSpec, engine_label: str) -> None:
    """UnsupportedError when the cached layers differ in head dims (KVCacheManagerV2) or in KV heads
    (``get_cache_size_per_token`` averages a per-layer head list: not transcribed). Module docstring.

    >>> from kvcalc.spec import AttentionCache, LayerSpec, ModelSpec
    >>> def layer(i, hd): return LayerSpec(i, "full", (AttentionCache(8, hd, hd, 16),))
    >>> check_uniform_kv_shape(ModelSpec("toy", "bfloat16", (layer(0, 256), layer(1, 512)), 2048, 1000, 16),
    ...                        "TensorRT-LLM")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kvcalc.errors.UnsupportedError: TensorRT-LLM: layers with different head dims (2 shapes) go to ...
    """
    shapes = _shapes(spec)
    if len({(k, v, latent) for _, k, v, latent in shapes}) > 1:
        raise UnsupportedError(
            f"{engine_label}: layers with different head dims ({len(shapes)} shapes) go to KVCacheManagerV2 "
            "(Gemma 4's full-attention layers: global_head_dim, num_global_key_value_heads; _util.py "
            "_non_hybrid_kv_cache_manager_cls). Its one device quota is TensorRT-LLM's usual free-memory budget, "
            "but the split of that quota over its pool groups (per window and page size) is made by "
            "tensorrt_llm/runtime/kv_cache_manager_v2's storage manager (C++ by default; no typical_step or "
            "pool_ratio by default) and rebalanced at run time, which kvcalc has not pinned at one commit: use "
            "runtime 'vllm' or 'sglang'")
    if len(shapes) > 1:
        raise UnsupportedError(
            f"{engine_label}: layers with different KV head counts: KVCacheManager.get_cache_size_per_token "
            "averages a per-layer head list, which is not modelled: use runtime 'vllm'")


def full_length_window_note(spec: ModelSpec) -> str:
    """The note a sliding-window model's TensorRT-LLM plan carries ('' without sliding layers).

    >>> from kvcalc.spec import AttentionCache, LayerSpec, ModelSpec
    >>> swa = LayerSpec(0, "sliding", (AttentionCache(8, 128, 128, 32, window=4096),))
    >>> full_length_window_note(ModelSpec("toy", "bfloat16", (swa,), 4096, 1000, 32))[:44]
    'sliding-window layers (window 4,096) are poo'
    """
    windows = sorted({a.window for layer in spec.layers for a in layer.attention if a.window})
    if not windows:
        return ""
    return (f"sliding-window layers (window {', '.join(f'{w:,}' for w in windows)}) are pooled at full length: "
            "with max_attention_window unset TensorRT-LLM's KVCacheManager keeps one window of max_seq_len for "
            "every layer (the kernel applies the window); a per-layer max_attention_window (VSWA) is not modelled")
