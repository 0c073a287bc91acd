"""Mixture-of-experts layers: which layers are sparse and what one MoE block holds (router, routed and
shared experts), read from the field spellings transformers' MoE configs use.

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import ConfigReader
from ..errors import ConfigError
from .blocks import flag, gated_mlp
from .model_type import ModelType, quirk_flags


@dataclass(frozen=True)
class MoeShape:
    layers: tuple[int, ...]   # indices of the MoE layers
    n_experts: int
    top_k: int | None
    per_expert: int           # parameters of one routed expert
    fixed: int                # router + shared expert(s) of one MoE layer
    top_k_field: str
    norms: int = 0            # norms only MoE layers hold


# the field spellings of one MoE shape, in the order transformers' configs use them
_TOP_K = ("num_experts_per_tok", "moe_topk", "moe_k", "num_experts_per_token")


_SHARED = ("n_shared_experts", "num_shared_experts", "moe_num_shared_experts")


@dataclass(frozen=True)
class MoeQuirks:
    """The departures from the Llama-style MoE block :func:`moe_shape` reads, one flag per quirk an entry names
    (:data:`kvcalc.models.model_type.QUIRKS`)."""

    expert_bias: bool = False
    no_shared_experts: bool = False
    router_score_bias: bool = False
    shared_expert: bool = False
    shared_expert_gate: bool = False
    shared_experts: bool = False
    sized_shared_expert: bool = False


def moe_shape(f: ConfigReader, m: ModelType, hidden: int, n_layers: int) -> MoeShape | None:
    """The MoE layers of a Llama-style decoder; None when it has none.

    Router ``E*H`` (gpt_oss: + bias ``E``; AFMoE: + its ``expert_bias`` parameter ``E``); each expert
    ``3*H*I_e`` (gpt_oss: + biases ``2*I_e + H``); qwen2_moe / qwen3_next add a shared expert ``3*H*I_s`` and
    its gate ``H``; llama4 a shared expert ``3*H*I``; DeepSeek-style types (and ``shared_experts``: Aria)
    shared experts ``3*H*(n_shared*I_e)``. Which layers: all (mixtral, gpt_oss); ``(i+1) % decoder_sparse_step
    == 0`` and not in mlp_only_layers (qwen2_moe, qwen3_moe, qwen3_next); ``moe_layers`` or every
    ``interleave_moe_layer_step``-th layer (llama4); "sparse" in ``mlp_layer_types``, else from
    ``first_k_dense_replace`` / ``num_dense_layers`` on (first_dense); every ``moe_layer_interval``-th from
    ``moe_layer_start_index`` to ``moe_layer_end_index`` (index_range: Ernie 4.5 MoE, whose router also holds
    ``e_score_correction_bias`` as a parameter).
    """
    if m.moe in ("all", "interleave"):
        n_exp = f.get_int("num_local_experts", "num_experts", "moe_num_experts")
        inter = f.get_int(m.expert_width or "intermediate_size")
    elif m.moe == "sparse_step":
        n_exp = f.get_int("num_experts", "num_local_experts", minimum=0)
        inter = f.get_int(m.expert_width or "moe_intermediate_size")
    elif m.moe in ("first_dense", "index_range"):
        n_exp = f.get_int("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts", minimum=0)
        inter = f.get_int(m.expert_width or "moe_intermediate_size")
    else:
        return None
    if n_exp == 0:
        return None
    if m.moe == "all":
        layers = list(range(n_layers))
    elif m.moe == "interleave":
        if f.has("moe_layers"):
            listed = set(f.get_int_list("moe_layers"))
            layers = [i for i in range(n_layers) if i in listed]
        else:
            step = f.get_int("interleave_moe_layer_step")
            layers = list(range(step - 1, n_layers, step))
    elif m.moe == "first_dense":
        layers = sparse_layers(f, n_layers, m.dense_first)
    elif m.moe == "index_range":        # Ernie4_5_MoeDecoderLayer: end index -1 (the default) is the last layer
        start, step = f.get_int("moe_layer_start_index", minimum=0), f.get_int("moe_layer_interval")
        end = f.opt_int("moe_layer_end_index", minimum=-1)
        end = n_layers - 1 if end is None or end == -1 else end
        layers = [i for i in range(n_layers) if (i + 1) % step == 0 and start <= i <= end]
    else:
        step, dense_only = f.get_int("decoder_sparse_step"), set(f.get_int_list("mlp_only_layers"))
        layers = [i for i in range(n_layers) if i not in dense_only and (i + 1) % step == 0]
    mq = quirk_flags(MoeQuirks, m)
    fixed = n_exp * hidden
    per_expert = 3 * hidden * inter
    # shared experts: one gated MLP of n_shared x I_e
    if (m.moe == "first_dense" and not mq.no_shared_experts) or mq.shared_experts:
        fixed += gated_mlp(hidden, inter * f.get_int(*_SHARED, minimum=0), flag(f, m.mlp_bias))
    if mq.router_score_bias:
        fixed += n_exp
    if mq.expert_bias:
        fixed += n_exp
        per_expert += 2 * inter + hidden
    elif mq.shared_expert_gate:
        fixed += gated_mlp(hidden, f.get_int("shared_expert_intermediate_size", minimum=0)) + hidden
    elif mq.shared_expert:
        fixed += gated_mlp(hidden, inter)
    elif mq.sized_shared_expert:
        fixed += gated_mlp(hidden, f.get_int("shared_expert_intermediate_size", "shared_intermediate_size",
                                              "share_expert_dim", minimum=0))
    return MoeShape(tuple(layers), n_exp, f.opt_int(*_TOP_K), per_expert, fixed, f.field_name(*_TOP_K))


def sparse_layers(f: ConfigReader, n_layers: int, dense_first: int | None = None) -> list[int]:
    """The MoE layers of a dense-first decoder: "sparse" in ``mlp_layer_types`` (transformers 5's per-layer
    list; layers past its end count as dense), else from ``first_k_dense_replace`` / ``num_dense_layers`` on
    (or the entry's fixed ``dense_first``: BeamConfig.__post_init__ makes the first ``min(3, L)`` dense)."""
    if f.has("mlp_layer_types"):
        kinds = (f.opt_str_list("mlp_layer_types") or [])[:n_layers]
        for i, kind in enumerate(kinds):
            if kind not in ("dense", "sparse"):
                raise ConfigError(f"{f.path}mlp_layer_types[{i}]", kind, "must be 'dense' or 'sparse'")
        return [i for i, kind in enumerate(kinds) if kind == "sparse"]
    freq = f.value("moe_layer_freq")
    if isinstance(freq, list):          # MiniMaxM3VLConfig: a per-layer list of MoE flags
        return [i for i, flag in enumerate(freq[:n_layers]) if flag]
    first = dense_first if dense_first is not None else f.get_int("first_k_dense_replace", "num_dense_layers",
                                                                  minimum=0)
    return list(range(min(first, n_layers), n_layers))


def mlp_kinds(f: ConfigReader, n_layers: int) -> list[int]:
    """The MoE layers of a decoder whose config class derives ``mlp_layer_types`` from the legacy
    ``first_k_dense_replace`` (default 1) and ``moe_layer_freq`` (default 1): "sparse" where ``i >= first`` and
    ``i % freq == 0``, or where a per-layer list of flags says so (AXK2Config / Dots3NoteTextConfig
    ``__post_init__``); a given ``mlp_layer_types`` wins (:func:`sparse_layers`)."""
    if f.has("mlp_layer_types"):
        return sparse_layers(f, n_layers)
    first = f.get_int("first_k_dense_replace", default=1, minimum=0)
    if isinstance(f.value("moe_layer_freq"), list):        # one MoE flag per layer (Dots3NoteTextConfig)
        flags = f.opt_list("moe_layer_freq") or []
        return [i for i in range(min(n_layers, len(flags))) if i >= first and flags[i]]
    freq = f.get_int("moe_layer_freq", default=1)
    return [i for i in range(n_layers) if i >= first and i % freq == 0]
