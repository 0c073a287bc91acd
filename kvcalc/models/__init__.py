"""The model catalogue: exact parameter counts from a config.json, one module per model family.

:func:`kvcalc.models.counting.count_params` dispatches on a registry entry's ``params`` family to the
counter in that family's module: Llama-style decoders in :mod:`~kvcalc.models.llama`, MLA / DeepSeek in
:mod:`~kvcalc.models.deepseek`, Gemma (3, 3n, 4) in :mod:`~kvcalc.models.gemma`, state-space models in
:mod:`~kvcalc.models.ssm`, linear-attention hybrids in :mod:`~kvcalc.models.hybrids`, other MoE decoders in
:mod:`~kvcalc.models.moe_decoders`, GPT-2-era decoders in :mod:`~kvcalc.models.classic_decoders`,
encoder-decoders in :mod:`~kvcalc.models.seq2seq`, audio-language models in :mod:`~kvcalc.models.audio`
(towers: :mod:`~kvcalc.models.audio_towers`), vision-language wrappers in :mod:`~kvcalc.models.multimodal` and
:mod:`~kvcalc.models.wrappers` (towers: :mod:`~kvcalc.models.vision_towers`, projectors:
:mod:`~kvcalc.models.projectors`, VQ image tokenizers: :mod:`~kvcalc.models.image_tokenizers`). Shared building
blocks that return parameter counts: :mod:`~kvcalc.models.blocks` (linear, conv, gated MLP, lm_head),
:mod:`~kvcalc.models.moe`, :mod:`~kvcalc.models.linear_attention`; the running sums: :mod:`~kvcalc.models.counts`.

The registry of model types (what :mod:`kvcalc.architectures` and the counters read about each ``model_type``) is
:mod:`kvcalc.models.registry`, its entries split by family in the same way (``registry/gemma.py``); the entry type
is :mod:`kvcalc.models.model_type`, the layer and state rules :mod:`~kvcalc.models.layer_rules` and
:mod:`~kvcalc.models.state_rules`. This package module imports nothing, so the spec reader can read the registry
without loading the counters (which read :func:`kvcalc.architectures.layer_types`).

Notation: ``H`` hidden size, ``V`` vocab size, ``L`` layers, ``I`` MLP width, ``n_q`` / ``n_kv`` query /
key-value heads, ``d`` head dim, ``E`` routed experts, ``k`` experts per token. A linear layer ``a -> b`` has
``a*b`` weights (+ ``b`` with bias); a LayerNorm of width ``n`` has ``2n``, an RMSNorm ``n``.
"""
