"""Protein-language models: Evolla (a SaProt protein encoder, a resampler and a Llama decoder).

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).
"""
from __future__ import annotations

from collections.abc import Mapping

from ..config import ConfigReader, hidden_per_head
from ..errors import ConfigError, UnsupportedError
from .blocks import linear, lm_head
from .counts import Tally
from .llama import llama_like
from .registry import typed


def _saprot(p: ConfigReader) -> int:
    """EvollaSaProtProteinEncoder (modeling_evolla.py), an ESM-style encoder of width ``P``: word table
    ``V_p*P``, a position table ``max_position_embeddings*P`` only with position_embedding_type "absolute"
    (rotary: none), an embedding LayerNorm ``2P`` with emb_layer_norm_before; per layer query/key/value and
    output dense ``4*(P*P+P)``, 2 LayerNorms ``4P``, intermediate ``P*I+I``, output ``I*P+P``;
    emb_layer_norm_after ``2P``. Cross-attention layers (add_cross_attention) are refused."""
    if p.get_bool("add_cross_attention"):
        raise UnsupportedError(f"{p.path}add_cross_attention: true is not counted (SaProt cross-attention layers)")
    width, inter, n_layers = p.get_int("hidden_size"), p.get_int("intermediate_size"), p.get_int("num_hidden_layers")
    hidden_per_head(p, width, p.get_int("num_attention_heads"))
    n = p.get_int("vocab_size") * width + (2 * width if p.get_bool("emb_layer_norm_before") else 0)
    position = p.get_str("position_embedding_type")
    if position == "absolute":
        n += p.get_int("max_position_embeddings") * width
    elif position != "rotary":
        raise UnsupportedError(f"{p.path}position_embedding_type '{position}' is not counted (absolute or rotary)")
    layer = 4 * linear(width, width, True) + 4 * width + linear(width, inter, True) + linear(inter, width, True)
    return n + n_layers * layer + 2 * width


def _protein_encoder_config(f: ConfigReader) -> ConfigReader:
    """Evolla's protein_encoder_config, read with SaProtConfig's defaults (the registry's ``saprot`` entry: the
    class declares no model_type, so a saved config names none or ``""``)."""
    raw = f.data.get("protein_encoder_config")
    if raw is not None and not isinstance(raw, Mapping):
        raise ConfigError(f"{f.path}protein_encoder_config", raw, "must be a JSON object")
    sub = f.sub("protein_encoder_config") or ConfigReader({}, f"{f.path}protein_encoder_config.", f.used,
                                                          defaults_used=f.defaults_used)
    named = sub.opt_str("model_type") or "saprot"
    if named != "saprot":
        raise UnsupportedError(f"{sub.path}model_type '{named}' is not counted (Evolla builds a SaProtConfig)")
    return typed(sub, "saprot")


def evolla(f: ConfigReader, t: Tally) -> None:
    """EvollaForProteinText2Text (transformers/models/evolla/modeling_evolla.py, EvollaModel): a Llama-style
    decoder (:func:`llama_like`: attention biases with attention_bias, MLP biases with mlp_bias); on every
    layer ``i`` with ``(i+1) % max(L // aligner_num_add_layers, 1) == 0`` an EvollaSequenceAlignerCrossAttention
    adapter: query, key_protein, value_protein ``3*(H*A + A)`` (``A = n_q * (H // n_q)``), out_proj ``H*H``
    (+ ``H`` with aligner_enable_bias) and 2 gates (attention), attention_norm ``H`` and the feed-forward's
    LayerNorm ``2H`` (norms), feed-forward ``2*H*(H*m)`` without biases (``m`` = aligner_ffn_mult, mlp); the
    protein encoder of protein_encoder_config (:func:`_saprot`) and the EvollaSequenceCompressorResampler
    (latents ``N*P``; per resampler_depth: 2 LayerNorms ``4P``, to_q ``P*D``, to_kv ``P*2D``, to_out ``D*P``
    with ``D`` = resampler_dim_head * resampler_heads, a feed-forward LayerNorm ``2P`` and ``2*P*(P*r)``;
    LayerNorm ``2H``, protein_projector ``P*H + H``), counted as vision (the modality encoder); lm_head ``V*H``,
    never tied (the class declares no tied weights)."""
    llama_like(f, t, head=False)
    hidden, n_layers, n_q = f.get_int("hidden_size"), f.get_int("num_hidden_layers"), f.get_int("num_attention_heads")
    every = max(n_layers // f.get_int("aligner_num_add_layers"), 1)
    n_adapters = sum(1 for i in range(n_layers) if (i + 1) % every == 0)
    heads_width = n_q * (hidden // n_q)
    ffn = hidden * f.get_int("aligner_ffn_mult")
    t.add("attention", n_adapters * (3 * linear(hidden, heads_width, True)
                                     + linear(hidden, hidden, f.get_bool("aligner_enable_bias")) + 2))
    t.add("norms", n_adapters * 3 * hidden)
    t.add("mlp", n_adapters * 2 * hidden * ffn)
    protein = _protein_encoder_config(f)
    width = protein.get_int("hidden_size")
    inner = f.get_int("resampler_dim_head") * f.get_int("resampler_heads")
    ff = width * f.get_int("resampler_ff_mult")
    resampler = f.get_int("resampler_num_latents") * width + f.get_int("resampler_depth") * (
        4 * width + width * inner + width * 2 * inner + inner * width + 2 * width + 2 * width * ff)
    t.add("vision", _saprot(protein) + resampler + 2 * hidden + linear(width, hidden, True))
    lm_head(f, t, hidden, f.get_int("vocab_size"), tied=False)
