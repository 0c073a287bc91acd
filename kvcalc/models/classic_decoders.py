"""GPT-2-era and other decoders with their own module layout: GPT-2, GPT-NeoX (and its Japanese variant),
ModernBERT decoder, Falcon, BLOOM, OPT, CPM-Ant, Doge, HRM and Dory.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..config import ConfigReader, head_dim_or_derived, hidden_per_head
from ..errors import ConfigError, UnsupportedError
from .blocks import attention_heads, gated_mlp, linear, lm_head, registry_entry
from .counts import Tally
from .model_type import quirk_flags


@dataclass(frozen=True)
class ClassicQuirks:
    """The quirks the classic decoders' counters read, one flag per quirk an entry names
    (:data:`kvcalc.models.model_type.QUIRKS`)."""

    multi_query: bool = False


def gpt2(f: ConfigReader, t: Tally) -> None:
    """GPT-2 and GPTBigCode: ``wte V*H`` + ``wpe P*H``; per layer: ``ln_1, ln_2`` (``2*H`` each), ``c_attn H*3H+3H``
    (GPTBigCode: ``H*(H+2*n_kv*d)`` + bias, ``n_kv = 1`` with multi_query), ``c_proj H*H+H``, MLP
    ``H*I+I + I*H+H`` (``I = n_inner or 4*H``); with add_cross_attention also ``c_attn H*2H+2H, q_attn H*H+H,
    c_proj H*H+H`` and a LayerNorm; ``ln_f 2*H``; lm_head tied by default.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    positions = f.get_int("max_position_embeddings")
    heads = f.get_int("num_attention_heads")
    d = hidden_per_head(f, hidden, heads)
    inter = f.opt_int("intermediate_size") or 4 * hidden
    multi_query = quirk_flags(ClassicQuirks, registry_entry(f)).multi_query and f.get_bool("multi_query")
    kv_dim = (1 if multi_query else heads) * d
    attn = linear(hidden, hidden + 2 * kv_dim, True) + linear(hidden, hidden, True)
    norms = 4 * hidden
    if f.get_bool("add_cross_attention"):
        if multi_query:
            raise UnsupportedError("gpt_bigcode with add_cross_attention and multi_query: transformers cannot build it")
        attn += linear(hidden, 2 * hidden, True) + 2 * linear(hidden, hidden, True)
        norms += 2 * hidden
    t.add("embedding", vocab * hidden + positions * hidden)
    t.add("attention", n_layers * attn)
    t.add("mlp", n_layers * (linear(hidden, inter, True) + linear(inter, hidden, True)))
    t.add("norms", n_layers * norms + 2 * hidden)
    lm_head(f, t, hidden, vocab)


def gpt_neox(f: ConfigReader, t: Tally) -> None:
    """GPT-NeoX: ``embed_in V*H``; per layer: 2 LayerNorms ``4*H``, ``query_key_value H*3H``, ``dense H*H``
    (+ biases with attention_bias), MLP ``H*I+I + I*H+H``; final LayerNorm ``2*H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    inter, bias = f.get_int("intermediate_size"), f.get_bool("attention_bias")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (linear(hidden, 3 * hidden, bias) + linear(hidden, hidden, bias)))
    t.add("mlp", n_layers * (linear(hidden, inter, True) + linear(inter, hidden, True)))
    t.add("norms", n_layers * 4 * hidden + 2 * hidden)
    lm_head(f, t, hidden, vocab)


def gpt_neox_japanese(f: ConfigReader, t: Tally) -> None:
    """GPT-NeoX-Japanese (transformers/models/gpt_neox_japanese/modeling_gpt_neox_japanese.py): ``embed_in V*H``;
    per layer 2 LayerNorms ``4*H``, ``query_key_value H*3H`` and ``dense H*H`` without biases, MLP
    ``H*I + I*H`` without biases (``I = H * intermediate_multiple_size``); the last layer's attention holds
    ``dense_bias H`` (GPTNeoXJapaneseAttention use_bias); final LayerNorm ``2*H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    inter = hidden * f.get_int("intermediate_multiple_size")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * 4 * hidden * hidden + hidden)
    t.add("mlp", n_layers * 2 * hidden * inter)
    t.add("norms", n_layers * 4 * hidden + 2 * hidden)
    lm_head(f, t, hidden, vocab)


def modernbert_decoder(f: ConfigReader, t: Tally) -> None:
    """ModernBERT decoder (transformers/models/modernbert_decoder/modeling_modernbert_decoder.py): token table
    ``V*H`` + its LayerNorm; per layer q/k/v/Wo ``4*H*H`` (+ ``4*H`` with attention_bias), ``Wi H*2I`` and
    ``Wo I*H`` (+ biases with mlp_bias), mlp_norm, and attn_norm on every layer but the first (an Identity
    there); final_norm; head: dense ``H*H`` (+ ``H`` with classifier_bias) and a LayerNorm; decoder ``V*H``
    unless tied, + ``V`` with decoder_bias. LayerNorms ``H`` each (+ ``H`` with norm_bias).
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    inter = f.get_int("intermediate_size")
    attn_bias, mlp_bias = f.get_bool("attention_bias"), f.get_bool("mlp_bias")
    norm = (2 if f.get_bool("norm_bias") else 1) * hidden
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * 4 * linear(hidden, hidden, attn_bias))
    t.add("mlp", n_layers * (linear(hidden, 2 * inter, mlp_bias) + linear(inter, hidden, mlp_bias)))
    t.add("norms", (2 * n_layers - 1) * norm + 2 * norm)   # layer norms, embedding + final norms
    t.add("lm_head", linear(hidden, hidden, f.get_bool("classifier_bias")) + norm)   # ModernBertDecoderPredictionHead
    lm_head(f, t, hidden, vocab)
    if f.get_bool("decoder_bias"):
        t.add("lm_head", vocab)


def falcon(f: ConfigReader, t: Tally) -> None:
    """Falcon: ``V*H`` embedding; per layer ``query_key_value H*q`` with ``q = (2*n_kv + n)*d`` (new decoder
    architecture), ``H + 2*d`` (multi_query) or ``3*H``; ``dense H*H``; MLP ``H*F + F*H`` (``F`` =
    ffn_hidden_size or ``4*H``), biases on all with ``bias``; LayerNorms ``2*H`` each: two without
    parallel_attn or with num_ln_in_parallel_attn == 2 (the default for the new architecture), else one;
    ``ln_f 2*H``; lm_head tied by default. ``n_embed`` overrides hidden_size, as in FalconConfig
    (the entry's attribute_map).
    """
    vocab, hidden = f.get_int("vocab_size"), f.get_int("hidden_size")
    n_layers = f.get_int("num_hidden_layers")
    heads = f.get_int("num_attention_heads")
    d = hidden_per_head(f, hidden, heads)
    n_kv = f.opt_int("num_kv_heads") or heads
    new_arch, bias = f.get_bool("new_decoder_architecture"), f.get_bool("bias")
    if new_arch:
        qkv = (2 * n_kv + heads) * d
    elif f.get_bool("multi_query"):
        qkv = hidden + 2 * d
    else:
        qkv = 3 * hidden
    ffn = f.opt_int("ffn_hidden_size") or 4 * hidden
    n_ln = f.opt_int("num_ln_in_parallel_attn")
    if n_ln is None and new_arch:
        n_ln = 2
    n_norms = 2 if not f.get_bool("parallel_attn") or n_ln == 2 else 1
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (linear(hidden, qkv, bias) + linear(hidden, hidden, bias)))
    t.add("mlp", n_layers * (linear(hidden, ffn, bias) + linear(ffn, hidden, bias)))
    t.add("norms", n_layers * n_norms * 2 * hidden + 2 * hidden)
    lm_head(f, t, hidden, vocab)


def bloom(f: ConfigReader, t: Tally) -> None:
    """BLOOM: ``V*H`` embedding + its LayerNorm ``2*H``; per layer: 2 LayerNorms ``4*H``, ``query_key_value
    H*3H+3H``, ``dense H*H+H``, MLP ``H*4H+4H + 4H*H+H``; ``ln_f 2*H``; lm_head tied by default.
    ``n_embed`` overrides hidden_size, as in BloomConfig (the entry's attribute_map).
    """
    vocab, hidden = f.get_int("vocab_size"), f.get_int("hidden_size")
    n_layers = f.get_int("num_hidden_layers")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (linear(hidden, 3 * hidden, True) + linear(hidden, hidden, True)))
    t.add("mlp", n_layers * (linear(hidden, 4 * hidden, True) + linear(4 * hidden, hidden, True)))
    t.add("norms", n_layers * 4 * hidden + 4 * hidden)
    lm_head(f, t, hidden, vocab)


def opt(f: ConfigReader, t: Tally) -> None:
    """OPT: token embedding ``V*P`` (``P`` = word_embed_proj_dim or ``H``), learned positions ``(max_pos+2)*H``,
    ``project_in P*H`` and ``project_out H*P`` when ``P != H`` (counted as other); per layer q/k/v/out
    ``4*H*H`` (+ ``4*H`` with enable_bias), ``fc1 H*F, fc2 F*H`` (+ biases), 2 LayerNorms ``4*H`` (none without
    layer_norm_elementwise_affine); a final LayerNorm when do_layer_norm_before and not
    _remove_final_layer_norm; lm_head ``P*V`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    proj = f.opt_int("word_embed_proj_dim") or hidden
    ffn, bias = f.get_int("ffn_dim"), f.get_bool("enable_bias")
    ln = 2 * hidden if f.get_bool("layer_norm_elementwise_affine") else 0
    t.add("embedding", vocab * proj + (f.get_int("max_position_embeddings") + 2) * hidden)
    if proj != hidden:
        t.add("other", 2 * proj * hidden)
    t.add("attention", n_layers * 4 * linear(hidden, hidden, bias))
    t.add("mlp", n_layers * (linear(hidden, ffn, bias) + linear(ffn, hidden, bias)))
    final = f.get_bool("do_layer_norm_before") and not f.get_bool("_remove_final_layer_norm")
    t.add("norms", n_layers * 2 * ln + (ln if final else 0))
    lm_head(f, t, proj, vocab)


def doge(f: ConfigReader, t: Tally) -> None:
    """Doge (transformers/models/doge/modeling_doge.py DogeDecoderLayer, DogeAttention, DogeMLP, DogeCDMoE):
    ``V*H`` embedding; per layer input_layernorm, post_attention_layernorm and the residual scales
    input_residual, post_attention_residual (``4*H``, the scales counted as norms); attention q/k/v/o
    ``2*H*n_q*d + 2*H*n_kv*d``, dt_proj ``n_kv*d*n_kv``, A ``n_kv`` (biases on the projections with
    attention_bias), q/k norms ``2*d``; MLP gate/up/down ``3*H*I`` (+ biases with mlp_bias); with is_moe the
    CDMoE adds router_gate ``H*2*floor(sqrt(E))`` and retrieval experts down_embed, up_embed ``2*E*H``
    (num_experts_per_tok rows of each per token). ``d``: head_dim if the config gives one, else ``H // n_q``.
    Final norm ``H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = attention_heads(f)
    d = head_dim_or_derived(f, hidden, n_q, floor=True)
    bias, mlp_bias = f.get_bool("attention_bias"), f.get_bool("mlp_bias")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (linear(hidden, n_q * d, bias) + 2 * linear(hidden, n_kv * d, bias)
                                   + linear(n_kv * d, n_kv, bias) + n_kv + linear(n_q * d, hidden, bias)))
    t.add("norms", n_layers * (4 * hidden + 2 * d) + hidden)
    t.add("mlp", n_layers * gated_mlp(hidden, f.get_int("intermediate_size"), mlp_bias))
    if f.get_bool("is_moe"):
        n_exp = f.get_int("num_experts")
        for _ in range(n_layers):
            t.add("mlp", hidden * 2 * math.isqrt(n_exp))
            t.experts(2 * hidden, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab)


def hrm_text(f: ConfigReader, t: Tally) -> None:
    """HRM text (transformers/models/hrm_text/modeling_hrm_text.py HrmTextModel, HrmTextStack,
    HrmTextAttention): ``V*H`` embedding, z_L_init ``H`` (other), and two stacks (L_module, H_module) of
    num_layers_per_stack layers each (a config without it: num_hidden_layers is the per-stack count, as
    HrmTextConfig.__post_init__ reads it). Per layer multi-head attention q/k/v/gate ``H*n*d`` and o ``n*d*H``
    (biases with attention_bias), MLP ``3*H*I`` (+ biases with mlp_bias); the RMSNorms hold no weights.
    lm_head ``V*H`` unless tied.
    """
    vocab, hidden = f.get_int("vocab_size"), f.get_int("hidden_size")
    n = f.get_int("num_attention_heads")
    if hidden % n:
        raise ConfigError(f.field_name("hidden_size"), hidden, f"is not a multiple of num_attention_heads ({n})")
    d = f.get_int("head_dim")
    per_stack = f.opt_int("num_layers_per_stack") or f.get_int("num_hidden_layers")
    bias, mlp_bias = f.get_bool("attention_bias"), f.get_bool("mlp_bias")
    t.add("embedding", vocab * hidden)
    t.add("other", hidden)
    t.add("attention", 2 * per_stack * (4 * linear(hidden, n * d, bias) + linear(n * d, hidden, bias)))
    t.add("mlp", 2 * per_stack * gated_mlp(hidden, f.get_int("intermediate_size"), mlp_bias))
    lm_head(f, t, hidden, vocab)


def dory(f: ConfigReader, t: Tally) -> None:
    """DoryForCausalLM (transformers/models/dory/modeling_dory.py). ``L`` decoder layers: num_hidden_layers,
    halved when layer_types lists "mlp" blocks (DoryConfig.__post_init__: one layer per attention/mlp pair).
    Per layer: DoryAttention q ``H*n_q*d``, k / v ``H*n_kv*d``, o ``n_q*d*H`` (+ biases with attention_bias),
    gate_proj ``H*n_q*d`` (no bias), sqk and s_gate ``n_q*d`` each; DoryMLP ``3*H*I`` (+ biases with mlp_bias)
    and suv_gate / suv_up ``I`` each; the layer's lambda_1 / lambda_2 ``H`` each (``other``). The L2 norms hold
    no weights. Embedding ``V*H``; DoryLMHead ``V*H`` unless tied, and its logit_scale ``V`` either way."""
    vocab, hidden, inter = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("intermediate_size")
    n_layers = f.get_int("num_hidden_layers")
    if "mlp" in (f.opt_str_list("layer_types") or ()):
        n_layers //= 2
    n_q, n_kv = attention_heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    bias, mlp_bias = f.get_bool("attention_bias"), f.get_bool("mlp_bias")
    attn = (linear(hidden, n_q * d, bias) + 2 * linear(hidden, n_kv * d, bias) + linear(n_q * d, hidden, bias)
            + hidden * n_q * d + 2 * n_q * d)
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * attn)
    t.add("mlp", n_layers * (gated_mlp(hidden, inter, mlp_bias) + 2 * inter))
    t.add("other", n_layers * 2 * hidden)
    lm_head(f, t, hidden, vocab)
    t.add("lm_head", vocab)


def cpmant(f: ConfigReader, t: Tally) -> None:
    """CpmAntForCausalLM (transformers/models/cpmant/modeling_cpmant.py). CpmAntModel: input_embedding
    ``(V + prompt_types*prompt_length)*H`` (the vocabulary and the learned prompt rows), segment_embedding
    ``segment_types*H``, position_bias (CpmAntSegmentPositionEmbedding.relative_attention_bias
    ``(segment_types^2 + position_bias_num_buckets)*n``); per CpmAntTransformerBlock: CpmAntAttention
    project_q / k / v ``H -> n*d`` and attention_out ``n*d -> H`` (no biases, ``d = dim_head``),
    CpmAntDenseGatedACT w_0 / w_1 ``H -> dim_ff`` and w_out ``dim_ff -> H`` (no biases), two CpmAntLayerNorms
    of ``H`` (weight only); encoder output_layernorm ``H``; lm_head ``V*H``, never tied (the class declares
    ``_tied_weights_keys = {}``: the head is not the input table's shape)."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    heads, d, ff = f.get_int("num_attention_heads"), f.get_int("dim_head"), f.get_int("dim_ff")
    segments = f.get_int("segment_types")
    prompts = f.get_int("prompt_types", minimum=0) * f.get_int("prompt_length", minimum=0)
    t.add("embedding", (vocab + prompts) * hidden + segments * hidden)
    t.add("attention", n_layers * 4 * linear(hidden, heads * d)
          + (segments * segments + f.get_int("position_bias_num_buckets")) * heads)
    t.add("mlp", n_layers * 3 * linear(hidden, ff))
    t.add("norms", (2 * n_layers + 1) * hidden)
    lm_head(f, t, hidden, vocab, tied=False)
