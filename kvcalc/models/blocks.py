"""Building blocks shared by the family counters: each returns the parameters one module holds.

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from ..config import ConfigReader
from ..errors import ConfigError
from .counts import Tally
from .model_type import ModelType
from .registry import lookup, nested
from .registry.llama import MPT_ATTN_DEFAULTS


# Every field a config omits takes the transformers class default from its kvcalc.models.registry entry,
# read through kvcalc.config.ConfigReader (recorded in ``defaults_used``).
def registry_entry(f: ConfigReader) -> ModelType:
    """The registry entry ``f`` reads the defaults of."""
    entry = lookup(f.model_type)
    assert entry is not None, f.model_type
    return entry


def attention_heads(f: ConfigReader) -> tuple[int, int]:
    """(query heads, key-value heads); ``num_key_value_heads`` defaults to the query heads when derived."""
    n_q = f.get_int("num_attention_heads")
    given = f.opt_int("num_key_value_heads")
    n_kv = n_q if given is None else given
    if n_kv > n_q or n_q % n_kv:
        raise ConfigError(f.field_name("num_key_value_heads"), n_kv, f"must divide num_attention_heads ({n_q})")
    return n_q, n_kv


def mpt_kv_heads(f: ConfigReader, n_q: int) -> int:
    """MPT's key-value heads from ``attn_config.attn_type``: ``multihead_attention`` (the default, the only type
    transformers 5.24's MptAttentionConfig accepts) ``n_q``; llm-foundry's ``multiquery_attention`` 1 and
    ``grouped_query_attention`` ``attn_config.kv_n_heads`` (llm-foundry attention.py, GroupedQueryAttention:
    Wqkv emits ``n_q + 2 * kv_n_heads`` heads and the cache keeps the kv_n_heads K/V heads before
    repeat_interleave; hand-checked on oldjar07/replit-hiddensize at fe58961d)."""
    attn = nested(f, "attn_config", MPT_ATTN_DEFAULTS)
    kind = attn.get_str("attn_type")
    if kind == "multihead_attention":
        return n_q
    if kind == "multiquery_attention":
        return 1
    if kind == "grouped_query_attention":
        kv = attn.get_int("kv_n_heads")
        if kv > n_q or n_q % kv:
            raise ConfigError(attn.field_name("kv_n_heads"), kv, f"must divide n_heads ({n_q})")
        return kv
    raise ConfigError(attn.field_name("attn_type"), kind, "is not an MPT attention type (multihead_attention, "
                      "multiquery_attention, grouped_query_attention)")


def linear(n_in: int, n_out: int, bias: bool = False) -> int:
    """A linear layer ``n_in -> n_out``: ``n_in*n_out`` weights, plus ``n_out`` with a bias.

    >>> linear(4096, 1024), linear(4096, 1024, bias=True)      # Llama-2-7B-sized k_proj; with a bias (Qwen2)
    (4194304, 4195328)
    """
    return n_in * n_out + (n_out if bias else 0)


def gated_mlp(hidden: int, inter: int, bias: bool = False) -> int:
    """gate, up: ``H -> I``; down: ``I -> H`` (Phi-3's fused gate_up has the same count): ``3*H*I``.

    >>> gated_mlp(4096, 11008)        # one Llama-2-7B MLP: 3 x 4096 x 11008
    135266304
    """
    return 2 * linear(hidden, inter, bias) + linear(inter, hidden, bias)


def lm_head(f: ConfigReader, t: Tally, hidden: int, vocab: int, tied: bool | None = None) -> None:
    t.tied = f.get_bool("tie_word_embeddings") if tied is None else tied
    if not t.tied:
        t.add("lm_head", vocab * hidden)


def flag(f: ConfigReader, flag: str | bool) -> bool:
    return f.get_bool(flag) if isinstance(flag, str) else flag


def conv3d(n_in: int, n_out: int, kt: int, kh: int, kw: int) -> int:
    """A Conv3d with bias: ``n_in*n_out*kt*kh*kw + n_out``.

    >>> conv3d(3, 1280, 2, 14, 14)    # Qwen2-VL's patch embedding shape (2 frames x 14 x 14), with a bias
    1506560
    """
    return n_in * n_out * kt * kh * kw + n_out


def conv2d(n_in: int, n_out: int, kernel: int = 3) -> int:
    """A biased 2D convolution ``n_in -> n_out`` with a ``kernel x kernel`` window: ``k*k*n_in*n_out + n_out``.

    >>> conv2d(64, 128), conv2d(64, 128, kernel=1)
    (73856, 8320)
    """
    return kernel * kernel * n_in * n_out + n_out


def mlp2(n_in: int, n_out: int, bias: bool = True) -> int:
    """Two linear layers ``n_in -> n_out -> n_out``."""
    return linear(n_in, n_out, bias) + linear(n_out, n_out, bias)


def width_of(f: ConfigReader, width_field: str, heads_field: str) -> int:
    """``width_field``, checked to divide into ``heads_field`` heads."""
    d, heads = f.get_int(width_field), f.get_int(heads_field)
    if d % heads:
        raise ConfigError(f.field_name(width_field), d, f"is not divisible by {heads_field} ({heads})")
    return d


def width(f: ConfigReader, heads_field: str) -> int:
    """``d_model`` (SeamlessM4T: ``hidden_size``), checked to divide into ``heads_field`` heads
    (the attention's ``head_dim = d / heads``)."""
    d, heads = f.get_int("d_model", "hidden_size"), f.get_int(heads_field)
    if d % heads:
        raise ConfigError(f.field_name("d_model", "hidden_size"), d, f"is not divisible by {heads_field} ({heads})")
    return d


def blip2_qformer(q: ConfigReader) -> int:
    """``Blip2QFormerModel`` (modeling_blip_2.py; width ``H``, ``I`` intermediate, ``E`` encoder_hidden_size):
    layernorm ``2H``; per ``Blip2QFormerLayer`` i: attention q / k / v ``3*(H*H + H)`` + output dense ``H*H + H``
    + LayerNorm ``2H``; when ``i % cross_attention_frequency == 0`` a crossattention (query ``H*H + H``, key /
    value ``2*(E*H + H)``, output dense + LayerNorm); intermediate_query ``H*I + I`` and output_query ``I*H + H``
    + LayerNorm ``2H``, twice with use_qformer_text_input (intermediate / output). No token tables."""
    h = width_of(q, "hidden_size", "num_attention_heads")
    inter, n = q.get_int("intermediate_size"), q.get_int("num_hidden_layers", minimum=0)
    enc, freq = q.get_int("encoder_hidden_size"), q.get_int("cross_attention_frequency")
    out = linear(h, h, True) + 2 * h
    ffn = linear(h, inter, True) + linear(inter, h, True) + 2 * h
    n_cross = len(range(0, n, freq))
    return (2 * h + n * (3 * linear(h, h, True) + out + ffn * (2 if q.get_bool("use_qformer_text_input") else 1))
            + n_cross * (linear(h, h, True) + 2 * linear(enc, h, True) + out))
