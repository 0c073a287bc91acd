"""SGLang and sliding-window layers: one pool at full length, or the hybrid SWA pool (tokens, bytes).

Sources (sgl-project/sglang, read through the code index, not copied):

``python/sglang/srt/configs/model_config.py`` ``is_hybrid_swa_model`` / ``get_hybrid_layer_ids``
(stored commit 8b5e1bbf72cca54c4275463b08d835d2f7221703)
    ``is_hybrid_swa = is_hybrid_swa_model(architectures) and not disable_hybrid_swa_memory``; the
    architectures are Llama4ForConditionalGeneration, GptOssForCausalLM, MiMoV2FlashForCausalLM,
    MiMoV2MTP, Step3p5ForCausalLM, Step3p5MTP. Any other model with sliding-window layers (Gemma 2 / 3,
    Mistral-7B-v0.1, ...) gets the ordinary ``MHATokenToKVPool`` over every layer: a sliding layer keeps
    K and V for every token of the pool, like a full one.
``python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py``
(stored commit 001ccef0072a4537d4ec6bdd50a73e6feb2c907d)
    ``get_cell_size_per_token``: hybrid ``cell = F x n_full + S x n_swa`` (per-token bytes of full and
    SWA layers); ``profile_max_num_token``: ``T = rest // cell``; ``init_memory``: ``max_num_reqs`` from
    ``T``, ``T`` capped by ``--max-total-tokens`` and cut to pages, then ``set_num_tokens_hybrid_swa``:
    ``full = int(T x cell / (F n_full + r x S n_swa))``, ``swa = int(full x r)``, both cut to pages
    (``r = --swa-full-tokens-ratio``, default 0.8 in server_args.py); ``max_total_num_tokens = full``;
    ``SWAKVPool(size=full, size_swa=swa)``, logged "Use sliding window memory pool.
    full_layer_tokens=..., swa_layer_tokens=...". The v0.5 line's token-count form
    ``int(T x layers / (r x n_swa + n_full))`` is the same when full and SWA layers cost the same per token.
    A running request keeps at most its window in the SWA pool (SWA radix cache eviction).
"""
from __future__ import annotations

from collections.abc import Sequence

HYBRID_SWA_ARCHS = frozenset({"Llama4ForConditionalGeneration", "GptOssForCausalLM", "MiMoV2FlashForCausalLM",
                              "MiMoV2MTP", "Step3p5ForCausalLM", "Step3p5MTP"})
"""``model_config.py`` ``is_hybrid_swa_model``: the architectures SGLang gives a separate SWA pool."""

DEFAULT_SWA_FULL_TOKENS_RATIO = 0.8
"""``ServerArgs.swa_full_tokens_ratio``: SWA-pool tokens per full-pool token."""


def is_hybrid_swa(architectures: Sequence[str], disable_hybrid_swa_memory: bool = False) -> bool:
    """Whether SGLang builds ``SWAKVPool`` for this model (module docstring)."""
    return not disable_hybrid_swa_memory and any(a in HYBRID_SWA_ARCHS for a in architectures)


def split_hybrid_tokens(tokens: int, full_cell: int, swa_cell: int, ratio: float, page: int) -> tuple[int, int]:
    """``set_num_tokens_hybrid_swa``: (full-pool tokens, SWA-pool tokens) from the single-pool count
    ``tokens`` and the per-token bytes of the full and SWA layers; all-SWA models keep ``tokens``."""
    if full_cell == 0:
        return 0, tokens // page * page
    total = tokens * (full_cell + swa_cell)
    full = int(total / (full_cell + ratio * swa_cell))
    swa = int(full * ratio)
    return full // page * page, swa // page * page
