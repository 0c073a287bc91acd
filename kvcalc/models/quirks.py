"""The named departures from the generic rules a registry entry can declare: :class:`Quirk`, one member per quirk,
and :data:`QUIRKS`, what each changes and the model (the transformers file) it follows.

An entry declares ``quirks=frozenset({Quirk.QK_NORM, ...})`` (:class:`kvcalc.models.model_type.ModelType`); a rule
tests ``Quirk.X in entry.quirks`` or reads its family's typed view (:func:`kvcalc.models.model_type.quirk_flags`),
so a misspelt quirk is an AttributeError at import time or a type error, never a silent miss. Members are
``str`` values (the names the docs and tests use), so a spec's quirks print and serialise as before.
"""
from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType


class Quirk(str, Enum):
    """One departure from the generic cache or parameter rules (:data:`QUIRKS` says what it changes)."""

    LAST_LAYER_FULL = "last_layer_full"
    GLOBAL_HEAD_DIM = "global_head_dim"
    FALCON_KV = "falcon_kv"
    MULTI_QUERY = "multi_query"
    MULTI_QUERY_ATTENTION = "multi_query_attention"
    ATTENTION_PAIRS = "attention_pairs"
    SWA_DOUBLE_KV = "swa_double_kv"
    ATTN_CONFIG_KV = "attn_config_kv"
    SHARED_INDEXER = "shared_indexer"
    V_HEAD_DIM = "v_head_dim"
    NOPE_MLA = "nope_mla"
    POOLED_INDEXER = "pooled_indexer"
    FLOAT32_INDEXER = "float32_indexer"
    LOOP_PASSES = "loop_passes"
    DOUBLED_ATTENTION_HEAD_DIM = "doubled_attention_head_dim"
    PREFIX_CACHE = "prefix_cache"
    PROMPT_PREFIX = "prompt_prefix"
    RECURRENT_DEPTH = "recurrent_depth"
    QK_NORM = "qk_norm"
    DSA_INDEXER = "dsa_indexer"
    DENSE_MLA = "dense_mla"
    MOE_POST_NORM = "moe_post_norm"
    HEAD_SOFTPLUS_GATE = "head_softplus_gate"
    FLOOR_HEAD_DIM = "floor_head_dim"
    USE_HEAD_QK_NORM = "use_head_qk_norm"
    FULL_QK_NORM = "full_qk_norm"
    USE_QK_NORM = "use_qk_norm"
    ATTENTION_SINKS = "attention_sinks"
    GATED_Q_PROJ = "gated_q_proj"
    LAYER_NORM = "layer_norm"
    GATED_DELTA_NET = "gated_delta_net"
    FALCON_H1_MIXER = "falcon_h1_mixer"
    LIGHTNING_ATTENTION = "lightning_attention"
    SHARED_EXPERT_GATE = "shared_expert_gate"
    SHARED_EXPERT = "shared_expert"
    EXPERT_BIAS = "expert_bias"
    DENSE_MLP_WIDTH = "dense_mlp_width"
    PLAIN_MLP = "plain_mlp"
    NORM_BIAS = "norm_bias"
    NO_NORM_WEIGHTS = "no_norm_weights"
    XIELU = "xielu"
    QK_LAYERNORM = "qk_layernorm"
    PER_HEAD_QK_LAYERNORM = "per_head_qk_layernorm"
    PARALLEL_RESIDUAL = "parallel_residual"
    SHARED_EXPERTS = "shared_experts"
    ROUTER_SCORE_BIAS = "router_score_bias"
    NO_SHARED_EXPERTS = "no_shared_experts"
    HEAD_GATE_BIAS = "head_gate_bias"
    SUB_NORMS = "sub_norms"
    DIFF_LAMBDAS = "diff_lambdas"
    MLP_4H = "mlp_4h"
    NO_PER_LAYER_INPUTS = "no_per_layer_inputs"
    MPT_ATTN_TYPE = "mpt_attn_type"
    MHA = "mha"
    SIZED_SHARED_EXPERT = "sized_shared_expert"
    KDA_FROM_ATTENTION = "kda_from_attention"
    KDA_FULL_GATES = "kda_full_gates"
    MLA_HEAD_GATE = "mla_head_gate"
    GLM5_NEXT_HC = "glm5_next_hc"
    FLAT_TEXT = "flat_text"
    ZAMBA2_BLOCKS = "zamba2_blocks"
    LFM3_ATTENTION = "lfm3_attention"
    POSITIONS_OFFSET_2 = "positions_offset_2"
    POSITIONS_BUFFER = "positions_buffer"
    POSITIONS_PAD_OFFSET = "positions_pad_offset"
    LED_POSITIONS = "led_positions"
    LAYERNORM_EMBEDDING = "layernorm_embedding"
    FINAL_LAYER_NORM = "final_layer_norm"
    NO_ATTENTION_BIAS = "no_attention_bias"
    USE_BIAS = "use_bias"
    LONGFORMER_GLOBAL = "longformer_global"
    GLOBAL_TOKENS = "global_tokens"
    MARIAN_EMBEDDINGS = "marian_embeddings"
    FSMT_EMBEDDINGS = "fsmt_embeddings"
    RELATIVE_BIAS_EVERY_LAYER = "relative_bias_every_layer"
    TRANSIENT_GLOBAL = "transient_global"
    MVP_PROMPTS = "mvp_prompts"
    NESTED_DECODER = "nested_decoder"
    KV_EXPANDED_TO_QUERY_HEADS = "kv_expanded_to_query_heads"

    def __str__(self) -> str:       # the quirk's name, as in messages and docs
        return self.value


QUIRKS: Mapping[Quirk, str] = MappingProxyType({
    Quirk.LAST_LAYER_FULL: 'transformers forces the last layer to full attention (Gemma 4)',
    Quirk.GLOBAL_HEAD_DIM: (
        'without per_layer_config, full-attention layers use global_head_dim (default 512, as Gemma 4 '
        'checkpoints) and, with attention_k_eq_v, num_global_key_value_heads'
    ),
    Quirk.FALCON_KV: (
        'KV heads from new_decoder_architecture / multi_query; the new architecture caches K/V expanded '
        'to every query head'
    ),
    Quirk.MULTI_QUERY: 'multi_query: true means one KV head (GPTBigCode)',
    Quirk.MULTI_QUERY_ATTENTION: 'KV heads = multi_query_group_num only with multi_query_attention (ChatGLM)',
    Quirk.ATTENTION_PAIRS: (
        'each of the num_layers decoder layers holds two MLA sublayers, each with its own cache (cache '
        'layers 2i and 2i+1: LongCat-Flash)'
    ),
    Quirk.SWA_DOUBLE_KV: (
        'sliding layers have twice num_key_value_heads; sliding_window_size (the Hub field) means a '
        'window of sliding_window_size + 1 (MiMo-V2-Flash)'
    ),
    Quirk.ATTN_CONFIG_KV: (
        'KV heads are attn_config.kv_n_heads (default 1), which DbrxConfig copies over '
        'num_key_value_heads (DBRX)'
    ),
    Quirk.SHARED_INDEXER: (
        'without indexer_types, only layers 0, 1, 5, 9, ... ((i - 1) % 4 == 0) hold a DSA indexer, the '
        'others reuse its top-k (HY-V4; parameter counter)'
    ),
    Quirk.V_HEAD_DIM: 'v_proj and o_proj use v_head_dim, not head_dim (MiMo-V2-Flash; parameter counter)',
    Quirk.NOPE_MLA: (
        'MLA layers flagged 0 in no_rope_layers (default: every 4th) cache kv_lora_rank elements, no '
        'RoPE key (Mistral Large 4)'
    ),
    Quirk.POOLED_INDEXER: (
        'the DSA indexer caches key, pool-gate scores and a validity channel per token: 2 * '
        'index_head_dim + 1 elements (GLM-5 Next)'
    ),
    Quirk.FLOAT32_INDEXER: (
        "the DSA indexer keys are cached in float32: the indexer's RoPE uses float32 cos/sin and "
        'torch.cat promotes the key (Dots3-Note)'
    ),
    Quirk.LOOP_PASSES: (
        'layers loop_layer_index_start..loop_layer_index_end - 1 run loop_num_passes times, each pass '
        "with its own cache layers, appended after the model's layers (Inkling2-Loop)"
    ),
    Quirk.DOUBLED_ATTENTION_HEAD_DIM: 'head_dim defaults to 2 * hidden_size / num_attention_heads (Zamba2)',
    Quirk.PREFIX_CACHE: (
        'block diffusion: only the prefix the encoder writes (prompt and finished canvases) is cached; '
        'the canvas being denoised reads it without writing (DiffusionGemma); kvcalc charges the context '
        "as an autoregressive decoder's and marks the figure estimated"
    ),
    Quirk.PROMPT_PREFIX: (
        "every layer caches prompt_length learned prompt tokens before each sequence's input "
        '(CpmAntModel.forward prepends them; CPM-Ant)'
    ),
    Quirk.RECURRENT_DEPTH: (
        'a released layer_types of (attention, mlp) pairs is one decoder layer per pair; with '
        "recurrent_kv_cache_mode 'per_loop' the n_recurrent_layers after n_input_layers get their own "
        'cache layers for each of n_recurrent_loops - 1 further loops, appended at the end (Dory)'
    ),
    Quirk.QK_NORM: 'q/k RMSNorms of head_dim on every attention layer',
    Quirk.DSA_INDEXER: (
        'each layer adds the DeepSeek sparse-attention indexer (wq_b, wk, k_norm, weights_proj); with '
        "indexer_types only the 'full' layers (GLM-MoE-DSA)"
    ),
    Quirk.DENSE_MLA: 'MLA attention with a dense MLP in every layer (MiniCPM3, Youtu)',
    Quirk.MOE_POST_NORM: 'MoE layers add a post_mlp_layernorm of H (A.X-K1)',
    Quirk.HEAD_SOFTPLUS_GATE: (
        "g_proj H -> n_q (gating true / 'per-head') or H -> n_q*d gates the attention output (Laguna); "
        'num_attention_heads_per_layer must be uniform'
    ),
    Quirk.FLOOR_HEAD_DIM: 'head_dim defaults to hidden_size // num_attention_heads even when it does not divide',
    Quirk.USE_HEAD_QK_NORM: 'with use_qk_norm, q/k RMSNorms of head_dim (GLM-4.5 MoE)',
    Quirk.FULL_QK_NORM: 'q/k RMSNorms over all heads (n_q*d and n_kv*d) on every attention layer (OLMo 2 / 3, OLMoE)',
    Quirk.USE_QK_NORM: 'with use_qk_norm, q/k norms over all heads, n_q*d and n_kv*d (Cohere)',
    Quirk.ATTENTION_SINKS: 'one learned sink per query head',
    Quirk.GATED_Q_PROJ: 'an output gate of n_q*d: q_proj doubled (Qwen3-Next) or a gate_proj (AFMoE)',
    Quirk.LAYER_NORM: 'LayerNorms with bias and a plain (non-gated) MLP (StarCoder2)',
    Quirk.GATED_DELTA_NET: 'linear_attention layers are gated-DeltaNet mixers (Qwen3-Next)',
    Quirk.FALCON_H1_MIXER: (
        'every layer holds attention and a Mamba-2 mixer of mamba_d_ssm (default expand*H); its gated '
        'norm only with mamba_rms_norm; out_proj bias with projectors_bias (Falcon-H1)'
    ),
    Quirk.LIGHTNING_ATTENTION: (
        'linear_attention layers are MiniMax lightning attention (qkv_proj, out_proj, output_gate, norm; '
        'counted as attention)'
    ),
    Quirk.SHARED_EXPERT_GATE: 'MoE layers add a shared expert and its sigmoid gate',
    Quirk.SHARED_EXPERT: 'MoE layers add a shared expert of intermediate_size',
    Quirk.EXPERT_BIAS: 'router and expert projections have biases (gpt-oss)',
    Quirk.DENSE_MLP_WIDTH: 'dense layers use intermediate_size_mlp (Llama 4)',
    Quirk.PLAIN_MLP: 'dense MLP of up/down projections only, no gate (Arcee, Apertus)',
    Quirk.NORM_BIAS: 'every norm is a LayerNorm with a bias (2*H each)',
    Quirk.NO_NORM_WEIGHTS: "the norms hold no parameters (OLMo's non-affine LayerNorm)",
    Quirk.XIELU: 'the MLP activation xIELU holds 2 scalars (alpha_p, alpha_n) per layer (Apertus)',
    Quirk.QK_LAYERNORM: 'with qk_layernorm, q/k norms of head_dim (Persimmon, Phi)',
    Quirk.PER_HEAD_QK_LAYERNORM: 'with qk_layernorm, one LayerNorm of head_dim per q and per k head (StableLM)',
    Quirk.PARALLEL_RESIDUAL: 'with use_parallel_residual, no post_attention_layernorm (StableLM)',
    Quirk.SHARED_EXPERTS: 'MoE layers add shared experts: one gated MLP of n_shared x the expert width (Aria)',
    Quirk.ROUTER_SCORE_BIAS: 'MoE routers hold a score-correction bias of E as a parameter (AFMoE)',
    Quirk.NO_SHARED_EXPERTS: 'dense-first MoE without shared experts (Beam)',
    Quirk.HEAD_GATE_BIAS: 'the attention output gate has a bias of one value per query head (Beam)',
    Quirk.SUB_NORMS: 'an RMSNorm of H before o_proj and one of I before down_proj in every layer (BitNet)',
    Quirk.DIFF_LAMBDAS: 'differential attention: 4 lambda vectors of head_dim per layer (DiffLlama)',
    Quirk.MLP_4H: 'an unset MLP width means 4 * hidden_size',
    Quirk.NO_PER_LAYER_INPUTS: (
        'no per-layer input embeddings and no MoE block: the config class deletes '
        'hidden_size_per_layer_input and enable_moe_block (Gemma 4 Unified)'
    ),
    Quirk.MPT_ATTN_TYPE: (
        'KV heads from attn_config.attn_type: multihead n_heads, multiquery 1, grouped_query '
        'attn_config.kv_n_heads (MPT, llm-foundry)'
    ),
    Quirk.MHA: "multi-head attention only: the class has no num_key_value_heads (a config's value is ignored)",
    Quirk.SIZED_SHARED_EXPERT: (
        'MoE layers add one ungated shared expert of shared_expert_intermediate_size (Flint; '
        'GraniteMoeShared: shared_intermediate_size, none when 0)'
    ),
    Quirk.KDA_FROM_ATTENTION: (
        'Kimi delta attention heads / head dim / conv kernel default to num_attention_heads, head_dim '
        'and short_conv_kernel_size (Bailing hybrid)'
    ),
    Quirk.KDA_FULL_GATES: (
        "Kimi delta attention's forget and output gates are full H -> h*d projections, not low-rank "
        'pairs (Bailing hybrid)'
    ),
    Quirk.MLA_HEAD_GATE: 'MLA layers add a per-head output gate g_proj H -> n (Bailing hybrid)',
    Quirk.GLM5_NEXT_HC: (
        'indexed_attention layers are MLA with a pooled DSA indexer, and every layer holds two '
        'hyper-connections of hc_mult streams (GLM-5 Next)'
    ),
    Quirk.FLAT_TEXT: (
        "a config without text_config holds the decoder's fields at the top level: the config class "
        'seeds text_config from them (GLM-5 Next, Qwen2-VL, Qwen2.5-VL, PaddleOCR-VL)'
    ),
    Quirk.ZAMBA2_BLOCKS: 'Mamba-2 mixers, num_mem_blocks shared blocks and per-hybrid-layer LoRA adapters (Zamba2)',
    Quirk.LFM3_ATTENTION: (
        'sliding_attention layers too; attention biases with attention_bias, an output gate g_proj H -> '
        'n_q with use_attention_gate, sandwich norms with use_sandwich_norm (LFM3)'
    ),
    Quirk.POSITIONS_OFFSET_2: 'learned position tables of max_position_embeddings + 2 rows (BART)',
    Quirk.POSITIONS_BUFFER: 'sinusoidal position tables are buffers, not parameters (M2M100, PEGASUS-X)',
    Quirk.POSITIONS_PAD_OFFSET: 'sinusoidal position tables of max_position_embeddings + pad_token_id + 1 rows (FSMT)',
    Quirk.LED_POSITIONS: 'learned tables of max_encoder_position_embeddings / max_decoder_position_embeddings rows',
    Quirk.LAYERNORM_EMBEDDING: 'a LayerNorm after the embeddings of each stack',
    Quirk.FINAL_LAYER_NORM: 'a LayerNorm after the last layer of each stack',
    Quirk.NO_ATTENTION_BIAS: 'attention projections without biases (PEGASUS-X)',
    Quirk.USE_BIAS: 'attention projections with biases only with use_bias (BigBird-Pegasus)',
    Quirk.LONGFORMER_GLOBAL: 'encoder attention adds global q/k/v projections (LED)',
    Quirk.GLOBAL_TOKENS: 'embed_global table and a global-token LayerNorm per encoder layer (PEGASUS-X)',
    Quirk.MARIAN_EMBEDDINGS: 'share_encoder_decoder_embeddings / decoder_vocab_size decide the token tables (Marian)',
    Quirk.FSMT_EMBEDDINGS: 'separate src_vocab_size / tgt_vocab_size tables (FSMT)',
    Quirk.RELATIVE_BIAS_EVERY_LAYER: 'every self-attention layer has its own relative-position bias (UMT5)',
    Quirk.TRANSIENT_GLOBAL: (
        "with encoder_attention_type 'transient-global', a global relative bias (block 0) and a "
        'global-input LayerNorm per encoder layer (LongT5)'
    ),
    Quirk.MVP_PROMPTS: "with use_prompt, the decoder's self- and cross-attention prompt networks (MVP)",
    Quirk.NESTED_DECODER: (
        "the decoder is the nested 'decoder' config (default: text_type's class defaults), read by the "
        'decoder reader; every layer adds a cross-attention cache of its KV heads x head_dim'
    ),
    Quirk.KV_EXPANDED_TO_QUERY_HEADS: (
        "(a spec's quirk, set by the falcon_kv rule) the cache holds K/V expanded to every query head: "
        "transformers' Falcon new-architecture attention"
    ),
})
"""Quirk -> what it changes, and the model it follows (every member has an entry: tests/fast/test_model_types.py)."""
