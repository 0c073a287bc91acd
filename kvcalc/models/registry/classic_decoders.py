"""Registry entries of GPT-2-era decoders (GPT-2, GPT-NeoX, Falcon, BLOOM, OPT, ...) and other decoders with their own
layout.

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.classic_decoders`."""
from __future__ import annotations

from ..layer_rules import fixed_pattern
from ..model_type import ModelType
from ..quirks import Quirk as Q
from .common import LLAMA_LIKE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

CLASSIC_DECODERS_ENTRIES: tuple[ModelType, ...] = (
    ModelType("gpt_neox_japanese", params="gpt_neox_japanese", defaults=_d(
        vocab_size=32000, hidden_size=2560, num_hidden_layers=32, num_attention_heads=32, tie_word_embeddings=True,
        intermediate_multiple_size=4)),
    ModelType("modernbert-decoder", params="modernbert_decoder", defaults=_d(
        LLAMA_LIKE, vocab_size=50368, hidden_size=768, intermediate_size=1152, num_hidden_layers=22,
        num_attention_heads=12, tie_word_embeddings=True, attention_bias=False, mlp_bias=False, norm_bias=False,
        classifier_bias=False, decoder_bias=True)),
    # ---- classic decoders
    ModelType("gpt2", params="gpt2", defaults=_d(
        vocab_size=50257, max_position_embeddings=1024, hidden_size=768, num_hidden_layers=12,
        num_attention_heads=12, intermediate_size=None, tie_word_embeddings=True, add_cross_attention=False)),
    # GPT-SW3: transformers maps the type to GPT2LMHeadModel (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES; its Hub configs
    # say model_type "gpt2"): GPT-2's modules and rules
    ModelType("gpt-sw3", same_as="gpt2"),
    ModelType("gpt_bigcode", params="gpt2", quirks=frozenset({Q.MULTI_QUERY}), defaults=_d(
        vocab_size=50257, max_position_embeddings=1024, hidden_size=768, num_hidden_layers=12,
        num_attention_heads=12, intermediate_size=None, tie_word_embeddings=True, add_cross_attention=False,
        multi_query=True)),
    ModelType("gpt_neox", params="gpt_neox", defaults=_d(
        vocab_size=50432, hidden_size=6144, num_hidden_layers=44, num_attention_heads=64, intermediate_size=24576,
        tie_word_embeddings=False, attention_bias=True)),
    # FalconConfig and BloomConfig pop n_embed from the kwargs: when given it overrides hidden_size
    ModelType("falcon", params="falcon", quirks=frozenset({Q.FALCON_KV}), attribute_map=_d(hidden_size="n_embed"),
              defaults=_d(
        vocab_size=65024, hidden_size=4544, num_hidden_layers=32, num_attention_heads=71,
        num_ln_in_parallel_attn=None, num_kv_heads=None, new_decoder_architecture=False, multi_query=True,
        parallel_attn=True, bias=False, ffn_hidden_size=None, tie_word_embeddings=True)),
    ModelType("bloom", params="bloom", attribute_map=_d(hidden_size="n_embed"), defaults=_d(
        vocab_size=250880, hidden_size=64, num_hidden_layers=2, num_attention_heads=8, tie_word_embeddings=True)),
    ModelType("opt", params="opt", defaults=_d(
        vocab_size=50272, hidden_size=768, num_hidden_layers=12, ffn_dim=3072, max_position_embeddings=2048,
        do_layer_norm_before=True, _remove_final_layer_norm=False, word_embed_proj_dim=None,
        num_attention_heads=12, enable_bias=True, layer_norm_elementwise_affine=True, tie_word_embeddings=True)),
    ModelType("chatglm", quirks=frozenset({Q.MULTI_QUERY_ATTENTION}),
              not_countable="remote-code model (no transformers class to count against)"),
    # Dory (modeling_dory.py): nGPT-style recurrent-depth decoder; cache layers: dory_cache_types; parameters:
    # kvcalc.models.classic_decoders.dory
    ModelType("dory", params="dory", quirks=frozenset({Q.RECURRENT_DEPTH}), layer_rule=fixed_pattern(4), defaults=_d(
        LLAMA_LIKE, vocab_size=131072, hidden_size=2560, intermediate_size=7168, num_hidden_layers=36,
        num_attention_heads=16, num_key_value_heads=4, head_dim=256, sliding_window=1024, n_input_layers=8,
        n_recurrent_layers=None, n_output_layers=8, n_recurrent_loops=2, recurrent_kv_cache_mode="per_loop")),
    # HRM: num_hidden_layers has no registry default (HrmTextConfig rewrites it to the cache-slot count)
    ModelType("hrm_text", params="hrm_text", defaults=_d(     # HrmTextConfig (parameter fields)
        vocab_size=151808, hidden_size=1536, intermediate_size=4096, num_attention_heads=12, head_dim=128,
        attention_bias=False, mlp_bias=False, tie_word_embeddings=False)),
    ModelType("doge", params="doge", defaults=_d(      # DogeConfig (parameter fields)
        vocab_size=32768, hidden_size=1024, intermediate_size=2048, num_hidden_layers=32, num_attention_heads=8,
        num_key_value_heads=None, head_dim=None, attention_bias=False, mlp_bias=False, tie_word_embeddings=False,
        is_moe=False, num_experts=16384, num_experts_per_tok=64)),
    # CPM-Ant (transformers 5.24 CpmAntConfig): dim_head-wide heads (attribute_map), dim_ff MLP,
    # prompt_length learned prompt tokens cached in every layer before the input
    ModelType("cpmant", params="cpmant", quirks=frozenset({Q.PROMPT_PREFIX}),
              attribute_map=_d(head_dim="dim_head", intermediate_size="dim_ff"), defaults=_d(
        vocab_size=30720, hidden_size=4096, num_attention_heads=32, dim_head=128, dim_ff=10240, num_hidden_layers=48,
        position_bias_num_buckets=512, position_bias_max_distance=2048, prompt_types=32, prompt_length=32,
        segment_types=32, tie_word_embeddings=True)),
)
