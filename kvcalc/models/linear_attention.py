"""Attention variants other than plain multi-head attention: linear-attention layers (Qwen3-Next's gated
DeltaNet, lightning attention) and MLA's low-rank projections, as parameter counts.

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from ..architectures import layer_types
from ..config import ConfigReader
from ..errors import ConfigError
from .blocks import linear
from .model_type import ModelType


def linear_kinds(f: ConfigReader, m: ModelType, n_layers: int) -> list[str]:
    """"attention" / "linear" per layer, from the layer types :func:`kvcalc.architectures.layer_types` reads
    (``layer_types``, else the entry's rule: every ``full_attention_interval``-th layer full); sliding layers
    (Lara-Mini) are attention layers too."""
    table = {"full_attention": "attention", "sliding_attention": "attention", "linear_attention": "linear"}
    kinds = layer_types(f, m, n_layers)
    for i, kind in enumerate(kinds):
        if kind not in table:
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be full_attention, sliding_attention or "
                                                                 "linear_attention")
    return [table[k] for k in kinds]


def gated_delta_net(f: ConfigReader, hidden: int) -> tuple[int, int]:
    """(mixer, norm) parameters of one Qwen3-Next gated-DeltaNet layer.

    ``k = n_k*d_k``, ``v = n_v*d_v``: conv1d ``(2k+v)*K`` (no bias), in_proj_qkvz ``H*(2k+2v)``, in_proj_ba
    ``H*2*n_v``, dt_bias and A_log ``n_v`` each, out_proj ``v*H``; gated norm ``d_v``.
    """
    n_k, n_v = f.get_int("linear_num_key_heads"), f.get_int("linear_num_value_heads")
    d_k, d_v = f.get_int("linear_key_head_dim"), f.get_int("linear_value_head_dim")
    kernel = f.get_int("linear_conv_kernel_dim")
    k, v = n_k * d_k, n_v * d_v
    return (2 * k + v) * kernel + hidden * (2 * k + 2 * v) + hidden * 2 * n_v + 2 * n_v + v * hidden, d_v


def mla_attention(f: ConfigReader, hidden: int, n: int) -> tuple[int, int]:
    """(projections, norms) of one MLA layer as Kimi Linear / Bailing hybrid / GLM-5 Next build it
    (modeling_kimi_linear.py KimiLinearAttention; bailing_hybrid BailingHybridAttention; glm5_next
    Glm5NextTextAttention): q_proj ``H*n*d_qk`` when q_lora_rank is null, else q_a ``H*r_q`` (+ bias) + norm
    ``r_q`` + q_b ``r_q*n*d_qk``; kv_a_proj_with_mqa ``H*(r_kv + rope)`` (+ bias), norm ``r_kv``, kv_b
    ``r_kv*n*(nope + v)``, o_proj ``n*v*H`` (+ bias); biases with attention_bias, ``d_qk = nope + rope``."""
    q_rank, kv_rank = f.nullable_int("q_lora_rank"), f.get_int("kv_lora_rank")
    rope, nope = f.get_int("qk_rope_head_dim", minimum=0), f.get_int("qk_nope_head_dim", minimum=0)
    v_dim, bias = f.get_int("v_head_dim"), f.get_bool("attention_bias")
    qk = nope + rope
    if q_rank is None:
        attn, norms = linear(hidden, n * qk), 0
    else:
        attn, norms = linear(hidden, q_rank, bias) + linear(q_rank, n * qk), q_rank
    attn += (linear(hidden, kv_rank + rope, bias) + linear(kv_rank, n * (nope + v_dim))
             + linear(n * v_dim, hidden, bias))
    return attn, norms + kv_rank


def glm5_indexed(f: ConfigReader, kinds: list[str]) -> int:
    """How many attention layers hold a DSA indexer (Glm5NextTextAttention: those whose ``indexer_types`` entry is
    "full"; without the list, Glm5NextTextConfig.__post_init__ reads the kwargs ``index_topk_pattern`` (F / S) or
    ``index_topk_freq`` / ``index_skip_topk_offset``: "full" where ``max(i - offset + 1, 0) % freq == 0``)."""
    n = len(kinds)
    if f.has("indexer_types"):
        types = f.opt_str_list("indexer_types") or []
        where = f.field_name("indexer_types")
    elif f.has("index_topk_pattern"):
        pattern = f.value("index_topk_pattern")
        types = [{"F": "full", "S": "shared"}.get(c, c) for c in pattern] if isinstance(pattern, str) else list(pattern)
        where = f.field_name("index_topk_pattern")
    else:
        freq = max(f.get_int("index_topk_freq", default=1), 1)
        offset = f.get_int("index_skip_topk_offset", default=2, minimum=0)
        types, where = ["full" if max(i - offset + 1, 0) % freq == 0 else "shared" for i in range(n)], "indexer_types"
    if len(types) < n:
        raise ConfigError(where, f"<{len(types)} entries>", f"lists fewer entries than the {n} layers")
    for i, kind in enumerate(types[:n]):
        if kind not in ("full", "shared"):
            raise ConfigError(f"{where}[{i}]", kind, "must be 'full' or 'shared' (F or S)")
    return sum(1 for kind, layer in zip(types, kinds) if kind == "full" and layer != "linear_attention")
