"""SGLang and sliding-window layers: one pool at full length, or the hybrid SWA pool (tokens, bytes).

Sources (sgl-project/sglang, read through the code index, not copied):

SGLang 0.5.23 (the default; :func:`hybrid_tokens`): the full pool gets ``rest // (F + r x S)`` tokens
directly and the SWA pool ``r`` times that; Gemma 4 and the Granite SWA models join the hybrid list.
The late-2025 rules below are kept for ``sglang_version="0.5.9"``.

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

HYBRID_SWA_ARCHS_0_5_9 = frozenset({"Llama4ForConditionalGeneration", "GptOssForCausalLM", "MiMoV2FlashForCausalLM",
                                    "MiMoV2MTP", "Step3p5ForCausalLM", "Step3p5MTP"})
"""``model_config.py`` ``is_hybrid_swa_model`` of the late-2025 releases: the architectures with an SWA pool."""

HYBRID_SWA_ARCHS = HYBRID_SWA_ARCHS_0_5_9 | {
    "BeamForCausalLM", "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
    "GraniteSWAForCausalLM", "GraniteMoeSWAForCausalLM", "IQuestQ1ForCausalLM", "IQuestQ1MTP", "MiMoV2ForCausalLM",
    "Step3p7ForConditionalGeneration", "Gemma4ForCausalLM", "Gemma4ForConditionalGeneration", "EmbeddingGemma2Model",
    "Gemma4UnifiedForConditionalGeneration", "DiffusionGemmaForBlockDiffusion", "LagunaForCausalLM",
    "MellumForCausalLM", "MuseGlimmerForCausalLM", "MuseGlimmerForConditionalGeneration",
    "InklingForConditionalGeneration", "InklingForConditionalGenerationMTP", "UnlimitedOCRForCausalLM"}
"""0.5.23 ``configs/model_config.py`` :2651-2700 ``is_hybrid_swa_model`` (with ``SWA_SINK_ARCHS`` :88 and
``MIMO_V2_MODEL_ARCHS`` :74): Gemma 4 is hybrid SWA there."""

DEFAULT_SWA_FULL_TOKENS_RATIO = 0.8
"""``ServerArgs.swa_full_tokens_ratio``: SWA-pool tokens per full-pool token."""


def is_hybrid_swa(architectures: Sequence[str], disable_hybrid_swa_memory: bool = False,
                  version: str = "0.5.23") -> bool:
    """Whether SGLang builds ``SWAKVPool`` for this model (module docstring).

    >>> gemma4 = ["Gemma4ForConditionalGeneration"]
    >>> is_hybrid_swa(gemma4), is_hybrid_swa(gemma4, version="0.5.9")
    (True, False)
    """
    if version == "0.4":        # v0.4 model_runner.py init_memory_pool: one pool for every layer
        return False
    archs = HYBRID_SWA_ARCHS_0_5_9 if version == "0.5.9" else HYBRID_SWA_ARCHS
    return not disable_hybrid_swa_memory and any(a in archs for a in architectures)


def hybrid_tokens(rest: int, full_cell: int, swa_cell: int, ratio: float, page: int,
                  max_total_tokens: int | None) -> tuple[int, int]:
    """0.5.23 ``HybridSWAPoolConfigurator`` (``model_executor/pool_configurator.py`` :795-921): (full-pool,
    SWA-pool) tokens from the KV budget ``rest`` (bytes): ``T = int(rest // (F + r x S))`` (``F``, ``S``:
    the full and sliding layers' bytes per token), capped by ``--max-total-tokens``; ``full = T`` and
    ``swa = int(full x r)``, both cut to pages. All-SWA models: ``rest // S`` in one pool.

    >>> hybrid_tokens(10_000_000, 100, 100, 0.8, 1, None)
    (55555, 44444)
    """
    if full_cell == 0:
        tokens = rest // swa_cell if swa_cell else 0
        if max_total_tokens is not None:
            tokens = min(tokens, max_total_tokens)
        return 0, tokens // page * page
    tokens = int(rest // (full_cell + ratio * swa_cell))
    if max_total_tokens is not None:
        tokens = min(tokens, max_total_tokens)
    full = tokens // page * page
    return full, int(full * ratio) // page * page


def split_hybrid_tokens(tokens: int, full_cell: int, swa_cell: int, ratio: float, page: int) -> tuple[int, int]:
    """``set_num_tokens_hybrid_swa``: (full-pool tokens, SWA-pool tokens) from the single-pool count
    ``tokens`` and the per-token bytes of the full and SWA layers; all-SWA models keep ``tokens``."""
    if full_cell == 0:
        return 0, tokens // page * page
    total = tokens * (full_cell + swa_cell)
    full = int(total / (full_cell + ratio * swa_cell))
    swa = int(full * ratio)
    return full // page * page, swa // page * page
