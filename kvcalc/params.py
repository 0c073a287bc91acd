"""Exact parameter counts from a config.json, without torch.

:func:`count_params` returns what ``sum(p.numel() for p in model.parameters())`` gives for the
model transformers builds from the config (``AutoModelForCausalLM``; the ``...ForConditionalGeneration``
class for multimodal and encoder-decoder models), split into parts. Fields a config omits take the
defaults of the transformers config class, as transformers itself does. Tied weights are counted once.

What is *not* counted, because transformers does not hold it as a parameter:

* buffers: rotary ``inv_freq``, GPT-2 causal masks, DeepSeek-V3 ``e_score_correction_bias``
  (``n_routed_experts`` float32 values per MoE layer), Gemma's ``embed_scale``;
* layers a checkpoint holds but transformers does not build: DeepSeek-V3's multi-token-prediction
  layer (``num_nextn_predict_layers``), which the Hub safetensors totals include;
* quantization side tensors (FP8 ``weight_scale_inv``, MXFP4 scales): counts are of the
  unquantized architecture. ``moe_experts`` says how many parameters are routed experts, so a
  caller can size e.g. gpt-oss's MXFP4 experts separately from its bf16 rest.

Notation in the docstrings: ``H`` hidden size, ``V`` vocab size, ``L`` layers, ``I`` MLP width,
``n_q`` / ``n_kv`` query / key-value heads, ``d`` head dim, ``E`` routed experts, ``k`` experts per token.
A linear layer ``a -> b`` has ``a*b`` weights (+ ``b`` with bias).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from .architectures import layer_types
from .config import ConfigReader, head_dim_or_derived, hidden_per_head
from .dtypes import ceil_div
from .errors import ConfigError, UnsupportedError
from .model_types import REGISTRY, ModelType, lookup, typed
from .params_seq2seq import COUNTERS as _SEQ2SEQ_COUNTERS
from .params_seq2seq import WRAPPERS as _SEQ2SEQ_WRAPPERS
from .params_seq2seq import _sub as _s2s_sub
from .params_seq2seq import blip2_qformer, encoder_decoder, nemo_speechlm
from .params_vision import _sub_config, count_wrapper, siglip_vision

PARTS = ("embedding", "lm_head", "attention", "mlp", "norms", "mixer", "vision", "other")


@dataclass(frozen=True)
class ParamCount:
    """Parameter count of one model, by part.

    ``total == embedding + lm_head + attention + mlp + norms + mixer + vision + other``.

    * ``embedding``: input embeddings (token table; learned position tables such as GPT-2's ``wpe``).
    * ``lm_head``: the output projection; 0 when it is tied to the input embedding.
    * ``attention``: q/k/v/o projections and their biases, MLA down/up projections, attention sinks,
      relative-position biases (T5), cross-attention gates (Mllama).
    * ``mlp``: dense MLPs, routed experts, shared experts and routers.
    * ``norms``: every normalization weight and bias, including q/k norms and MLA latent norms.
    * ``mixer``: Mamba mixers and Qwen3-Next gated-DeltaNet (linear-attention) layers, norms excepted.
    * ``vision``: the vision tower plus the multimodal projector (0 without a ``vision_config``).
    * ``other``: anything else (OPT's project_in / project_out; 0 for the other architectures).
    * ``moe_experts``: parameters of the routed experts (part of ``mlp``; shared experts excluded).
    * ``active``: parameters used for one token: ``total - moe_experts`` plus ``k`` experts per MoE
      layer (embedding table included; gpt-oss's model card quotes it without). Equal to ``total`` for
      dense models. Reading it raises :class:`ConfigError` when the experts-per-token field is null
      (DeepseekV2Config's class default: transformers builds the model, but its router cannot pick
      experts, so there is no active count); ``active_count`` is then None and ``active_refused`` says why.
    * ``fields_used``: the config fields read (dotted for nested configs); ``defaults_used``:
      ``"field=value"`` for each field the config omits and a transformers class default supplied.
    """

    model_type: str
    total: int
    embedding: int
    lm_head: int
    attention: int
    mlp: int
    norms: int
    mixer: int
    vision: int
    other: int
    tied_embeddings: bool
    moe_experts: int
    active_count: int | None
    fields_used: tuple[str, ...] = ()
    defaults_used: tuple[str, ...] = ()
    quality: str = "exact"            # kvcalc.spec.Quality: the counter is verified against transformers
    active_refused: str = ""          # the null experts-per-token field, when active_count is None

    @property
    def active(self) -> int:
        """Parameters used for one token (see the class docstring); ConfigError when top-k is null."""
        if self.active_count is None:
            raise ConfigError(self.active_refused, None, "is null: the router picks no experts, so the active "
                                                         "parameter count is undefined (give experts per token)")
        return self.active_count

    def parts(self) -> dict[str, int]:
        """The parts as a dict, in the order of :data:`PARTS`."""
        return {name: getattr(self, name) for name in PARTS}

    @classmethod
    def not_counted(cls, model_type: str) -> ParamCount:
        """A placeholder for a model kvcalc cannot count (every part 0, ``quality="estimated"``):
        a plan then takes its weights from the user (:func:`kvcalc.weights.given_weights`)."""
        return cls(model_type=model_type, total=0, embedding=0, lm_head=0, attention=0, mlp=0, norms=0, mixer=0,
                   vision=0, other=0, tied_embeddings=False, moe_experts=0, active_count=0, quality="estimated")


# --------------------------------------------------------------------------- reading
# Every field a config omits takes the transformers class default from its kvcalc.model_types entry,
# read through kvcalc.config.ConfigReader (recorded in ``defaults_used``).
def _entry(f: ConfigReader) -> ModelType:
    """The registry entry ``f`` reads the defaults of."""
    entry = lookup(f.model_type)
    assert entry is not None, f.model_type
    return entry


def _heads(f: ConfigReader) -> tuple[int, int]:
    """(query heads, key-value heads); ``num_key_value_heads`` defaults to the query heads when derived."""
    n_q = f.get_int("num_attention_heads")
    given = f.opt_int("num_key_value_heads")
    n_kv = n_q if given is None else given
    if n_kv > n_q or n_q % n_kv:
        raise ConfigError(f.field_name("num_key_value_heads"), n_kv, f"must divide num_attention_heads ({n_q})")
    return n_q, n_kv


class _Tally:
    """Running sums per part, plus routed-expert totals for ``moe_experts`` and ``active``."""

    def __init__(self) -> None:
        self.parts = dict.fromkeys(PARTS, 0)
        self.moe_experts = 0
        self.moe_active = 0
        self.tied = False
        self.null_top_k = ""            # the experts-per-token field, when a MoE layer's is null

    def add(self, part: str, n: int) -> None:
        self.parts[part] += n

    def experts(self, per_expert: int, n_experts: int, top_k: int | None, field: str) -> None:
        """One MoE layer's routed experts: ``n_experts * per_expert`` parameters, ``top_k`` used per token
        (None: a null field, which leaves the total exact but ``active`` undefined)."""
        if top_k is None:
            self.null_top_k = field
        elif top_k > n_experts:
            raise ConfigError(field, top_k, f"must be an integer from 1 to the number of experts ({n_experts})")
        self.parts["mlp"] += n_experts * per_expert
        self.moe_experts += n_experts * per_expert
        self.moe_active += (top_k or 0) * per_expert


def _linear(n_in: int, n_out: int, bias: bool = False) -> int:
    return n_in * n_out + (n_out if bias else 0)


# --------------------------------------------------------------------------- Llama-style decoders
def _gated_mlp(hidden: int, inter: int, bias: bool = False) -> int:
    """gate, up: ``H -> I``; down: ``I -> H`` (Phi-3's fused gate_up has the same count)."""
    return 2 * _linear(hidden, inter, bias) + _linear(inter, hidden, bias)


def _lm_head(f: ConfigReader, t: _Tally, hidden: int, vocab: int, tied: bool | None = None) -> None:
    t.tied = f.get_bool("tie_word_embeddings") if tied is None else tied
    if not t.tied:
        t.add("lm_head", vocab * hidden)


def _flag(f: ConfigReader, flag: str | bool) -> bool:
    return f.get_bool(flag) if isinstance(flag, str) else flag


def _llama_like(f: ConfigReader, t: _Tally, head: bool = True) -> None:
    """Llama-style decoders (registry entries with ``params="llama_like"``; their ``attn_bias``,
    ``mlp_bias``, ``norms_per_layer``, ``moe`` and quirks say what differs).

    embedding ``V*H``; per attention layer ``H*n_q*d + 2*H*n_kv*d + n_q*d*H`` plus the biases the class
    honours (qwen2: q/k/v; qwen2_moe: q/k/v with qkv_bias; starcoder2: all with use_bias; mistral, mixtral,
    phi3: none; others: all four with attention_bias); gpt_oss adds ``n_q`` sinks, qwen3_next doubles q_proj
    (output gate; AFMoE's separate gate_proj ``H*n_q*d`` has the same count). MLP ``3*H*I`` (+ mlp_bias on
    llama; plain up/down ``2*H*I`` with ``plain_mlp`` (Arcee, Apertus) or ``layer_norm`` (starcoder2:
    ``H*I+I + I*H+H``); Apertus' xIELU adds 2 scalars per layer). Norms per layer ``norms_per_layer*H``
    (gemma2 / gemma3: ``4*H``; cohere2: ``H``; LayerNorms with bias ``2*H`` each; OLMo's LayerNorms hold no
    weights), q/k norms ``2*d`` on qwen3, qwen3_moe, qwen3_next and gemma3; final norm; lm_head ``V*H``
    unless tied (+ a bias ``V`` where the entry's ``head_bias`` says, tied or not). ``head_dim``: the config's,
    else the class default, else
    ``H/n_q``. MoE layers: :func:`_moe`; Qwen3-Next's linear-attention layers: :func:`_gated_delta_net`.
    """
    m = _entry(f)
    q = m.quirks
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = _heads(f)
    if "mha" in q:
        n_kv = n_q
    d = head_dim_or_derived(f, hidden, n_q, floor="floor_head_dim" in q)
    qkv_flag, o_flag = m.attn_bias
    qkv_bias, o_bias = _flag(f, qkv_flag), _flag(f, o_flag)
    attn = (_linear(hidden, n_q * d * (2 if "gated_q_proj" in q else 1), qkv_bias)
            + 2 * _linear(hidden, n_kv * d, qkv_bias) + _linear(n_q * d, hidden, o_bias))
    if "attention_sinks" in q or "head_gate_bias" in q:
        attn += n_q  # attention sinks (gpt-oss) / the output gate's per-head bias (Beam)
    if "head_softplus_gate" in q:        # LagunaAttention.g_proj
        layer_heads = set(f.opt_int_list("num_attention_heads_per_layer") or [n_q])
        if layer_heads != {n_q}:
            raise UnsupportedError("laguna with per-layer head counts (num_attention_heads_per_layer) is not counted")
        gating = f.value("gating")
        attn += hidden * (n_q if gating is True or gating == "per-head" else n_q * d)
    if "diff_lambdas" in q:
        attn += 4 * d  # lambda_q1, lambda_k1, lambda_q2, lambda_k2 (DiffLlamaAttention)
    norm_bias = "layer_norm" in q or "norm_bias" in q
    norm = 0 if "no_norm_weights" in q else (2 if norm_bias else 1) * hidden
    linear = "gated_delta_net" in q or "lightning_attention" in q
    kinds = _linear_kinds(f, m, n_layers) if linear else ["attention"] * n_layers
    n_attn = kinds.count("attention")

    t.add("embedding", vocab * hidden)
    if m.positions is not None:
        t.add("embedding", (f.get_int("max_position_embeddings") + m.positions) * hidden)
    t.add("attention", n_attn * attn)
    qk_norm = 2 * d if "qk_norm" in q else 0
    if "use_head_qk_norm" in q and f.get_bool("use_qk_norm", default=False):
        qk_norm = 2 * d
    if "qk_layernorm" in q and f.get_bool("qk_layernorm"):
        qk_norm = 2 * d * (2 if norm_bias else 1)       # per-head-dim LayerNorms on q and k (Persimmon, Phi)
    if "per_head_qk_layernorm" in q and f.get_bool("qk_layernorm"):
        qk_norm = (n_q + n_kv) * d          # StableLmLayerNormPerHead: a LayerNorm (no bias) per head
    if "full_qk_norm" in q or ("use_qk_norm" in q and f.get_bool("use_qk_norm", default=False)):
        qk_norm = (n_q + n_kv) * d          # one weight per element of every head (OLMo 2, Cohere)
    per_layer = 1 if "parallel_residual" in q and f.get_bool("use_parallel_residual") else m.norms_per_layer
    t.add("norms", n_layers * per_layer * norm + norm + n_attn * qk_norm)
    if n_attn < n_layers and "lightning_attention" in q:
        # MiniMaxLightningAttention: qkv_proj H -> 3*n_q*d, out_proj n_q*d -> H, output_gate H -> n_q*d, norm n_q*d
        t.add("attention", (n_layers - n_attn) * (hidden * 3 * n_q * d + n_q * d * hidden + hidden * n_q * d))
        t.add("norms", (n_layers - n_attn) * n_q * d)
    elif n_attn < n_layers:
        mixer, mixer_norm = _gated_delta_net(f, hidden)
        t.add("mixer", (n_layers - n_attn) * mixer)
        t.add("norms", (n_layers - n_attn) * mixer_norm)
    moe = _moe(f, m, hidden, n_layers)
    n_moe = len(moe.layers) if moe else 0
    if moe:
        for _ in moe.layers:
            t.add("mlp", moe.fixed)
            t.add("norms", moe.norms)
            t.experts(moe.per_expert, moe.n_experts, moe.top_k, moe.top_k_field)
    if n_layers > n_moe:
        width = "intermediate_size_mlp" if "dense_mlp_width" in q else m.mlp_width
        inter = f.opt_int(width) or (4 * hidden if "mlp_4h" in q else f.get_int(width))
        bias = _flag(f, m.mlp_bias)
        dense = (_linear(hidden, inter, bias) + _linear(inter, hidden, bias) if "layer_norm" in q or "plain_mlp" in q
                 else _gated_mlp(hidden, inter, bias))
        t.add("mlp", (n_layers - n_moe) * dense)
    if "sub_norms" in q:
        t.add("norms", n_layers * (hidden + f.get_int(m.mlp_width)))   # attn_sub_norm, ffn_sub_norm (BitNet)
    if "xielu" in q:
        t.add("mlp", n_layers * 2)          # xIELU's alpha_p, alpha_n (Apertus)
    if head:
        _lm_head(f, t, hidden, vocab)
        if _flag(f, m.head_bias):
            t.add("lm_head", vocab)     # a bias even when the weight is tied (CTRL)


@dataclass(frozen=True)
class _Moe:
    layers: tuple[int, ...]   # indices of the MoE layers
    n_experts: int
    top_k: int | None
    per_expert: int           # parameters of one routed expert
    fixed: int                # router + shared expert(s) of one MoE layer
    top_k_field: str
    norms: int = 0            # norms only MoE layers hold


# the field spellings of one MoE shape, in the order transformers' configs use them
_TOP_K = ("num_experts_per_tok", "moe_topk", "moe_k")
_SHARED = ("n_shared_experts", "num_shared_experts", "moe_num_shared_experts")


def _moe(f: ConfigReader, m: ModelType, hidden: int, n_layers: int) -> _Moe | None:
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
        layers = _sparse_layers(f, n_layers, m.dense_first)
    elif m.moe == "index_range":        # Ernie4_5_MoeDecoderLayer: end index -1 (the default) is the last layer
        start, step = f.get_int("moe_layer_start_index", minimum=0), f.get_int("moe_layer_interval")
        end = f.opt_int("moe_layer_end_index", minimum=-1)
        end = n_layers - 1 if end is None or end == -1 else end
        layers = [i for i in range(n_layers) if (i + 1) % step == 0 and start <= i <= end]
    else:
        step, dense_only = f.get_int("decoder_sparse_step"), set(f.get_int_list("mlp_only_layers"))
        layers = [i for i in range(n_layers) if i not in dense_only and (i + 1) % step == 0]
    fixed = n_exp * hidden
    per_expert = 3 * hidden * inter
    # shared experts: one gated MLP of n_shared x I_e
    if (m.moe == "first_dense" and "no_shared_experts" not in m.quirks) or "shared_experts" in m.quirks:
        fixed += _gated_mlp(hidden, inter * f.get_int(*_SHARED, minimum=0), _flag(f, m.mlp_bias))
    if "router_score_bias" in m.quirks:
        fixed += n_exp
    if "expert_bias" in m.quirks:
        fixed += n_exp
        per_expert += 2 * inter + hidden
    elif "shared_expert_gate" in m.quirks:
        fixed += _gated_mlp(hidden, f.get_int("shared_expert_intermediate_size", minimum=0)) + hidden
    elif "shared_expert" in m.quirks:
        fixed += _gated_mlp(hidden, inter)
    elif "sized_shared_expert" in m.quirks:
        fixed += _gated_mlp(hidden, f.get_int("shared_expert_intermediate_size", "shared_intermediate_size", minimum=0))
    return _Moe(tuple(layers), n_exp, f.opt_int(*_TOP_K), per_expert, fixed, f.field_name(*_TOP_K))


def _sparse_layers(f: ConfigReader, n_layers: int, dense_first: int | None = None) -> list[int]:
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


def _linear_kinds(f: ConfigReader, m: ModelType, n_layers: int) -> list[str]:
    """"attention" / "linear" per layer, from the layer types :func:`kvcalc.architectures.layer_types` reads
    (``layer_types``, else the entry's rule: every ``full_attention_interval``-th layer full)."""
    table = {"full_attention": "attention", "linear_attention": "linear"}
    kinds = layer_types(f, m, n_layers)
    for i, kind in enumerate(kinds):
        if kind not in table:
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be full_attention or linear_attention")
    return [table[k] for k in kinds]


def _gated_delta_net(f: ConfigReader, hidden: int) -> tuple[int, int]:
    """(mixer, norm) parameters of one Qwen3-Next gated-DeltaNet layer.

    ``k = n_k*d_k``, ``v = n_v*d_v``: conv1d ``(2k+v)*K`` (no bias), in_proj_qkvz ``H*(2k+2v)``, in_proj_ba
    ``H*2*n_v``, dt_bias and A_log ``n_v`` each, out_proj ``v*H``; gated norm ``d_v``.
    """
    n_k, n_v = f.get_int("linear_num_key_heads"), f.get_int("linear_num_value_heads")
    d_k, d_v = f.get_int("linear_key_head_dim"), f.get_int("linear_value_head_dim")
    kernel = f.get_int("linear_conv_kernel_dim")
    k, v = n_k * d_k, n_v * d_v
    return (2 * k + v) * kernel + hidden * (2 * k + 2 * v) + hidden * 2 * n_v + 2 * n_v + v * hidden, d_v


# --------------------------------------------------------------------------- DeepSeek (MLA + MoE)
def _deepseek(f: ConfigReader, t: _Tally) -> None:
    """DeepSeek-V2 / V3 (and Kimi-K2, which uses the V3 classes): MLA attention, dense then MoE layers.

    Attention per layer (``r_q`` = q_lora_rank, ``r_kv`` = kv_lora_rank, ``d_qk = nope + rope``):
    ``q_proj H*n*d_qk`` when ``r_q`` is null, else ``q_a H*r_q + q_b r_q*n*d_qk`` (+ norm ``r_q``);
    ``kv_a H*(r_kv+rope)``, norm ``r_kv``, ``kv_b r_kv*n*(nope+v)``, ``o n*v*H`` (+ biases with attention_bias
    on q_a, kv_a, o). Dense layers (:func:`_sparse_layers`; every layer with ``dense_mla``: MiniCPM3, Youtu) have a
    dense MLP ``3*H*I``; the others a router ``E*H``,
    ``E`` experts ``3*H*I_e`` and a shared expert ``3*H*(I_e*n_shared)`` (V2: + biases with mlp_bias).
    ``moe_layer_freq`` and the MTP layers (``num_nextn_predict_layers``) are not built by transformers.
    A.X-K1 adds a post_mlp_layernorm ``H`` per MoE layer; the DSA indexer (``dsa_indexer``: DeepSeek-V3.2,
    GLM-MoE-DSA) is below. Sources: transformers/models/deepseek_v3/modeling_deepseek_v3.py,
    axk1/modeling_axk1.py, glm_moe_dsa/modeling_glm_moe_dsa.py, minicpm3/modeling_minicpm3.py, youtu/modeling_youtu.py.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n = f.get_int("num_attention_heads")
    q_rank = f.nullable_int("q_lora_rank")
    kv_rank = f.get_int("kv_lora_rank")
    rope, nope = f.get_int("qk_rope_head_dim", minimum=0), f.get_int("qk_nope_head_dim", minimum=0)
    v_dim = f.opt_int("v_head_dim") or hidden // n      # MiniCPM3Config derives H / n_q when null
    bias = f.get_bool("attention_bias")
    qk = nope + rope
    if q_rank is None:
        attn, norms = _linear(hidden, n * qk), 0
    else:
        attn, norms = _linear(hidden, q_rank, bias) + _linear(q_rank, n * qk), q_rank
    attn += (_linear(hidden, kv_rank + rope, bias) + _linear(kv_rank, n * (nope + v_dim))
             + _linear(n * v_dim, hidden, bias))
    norms += kv_rank + 2 * hidden

    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * attn)
    t.add("norms", n_layers * norms + hidden)
    q = _entry(f).quirks
    mlp_bias = _flag(f, _entry(f).mlp_bias)
    n_dense = n_layers if "dense_mla" in q else n_layers - len(_sparse_layers(f, n_layers))
    if "dsa_indexer" in q:
        # DeepSeek sparse-attention indexer per layer: wq_b r_q -> n_i*d_i, wk H -> d_i, k_norm LayerNorm
        # 2*d_i, weights_proj H -> n_i (DeepseekV32Indexer); GLM-MoE-DSA builds it only on its "full"
        # indexer_types layers ("shared" layers reuse another layer's top-k)
        n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
        n_idx = n_layers
        if f.has("indexer_types"):
            kinds = (f.opt_str_list("indexer_types") or [])[:n_layers]
            for i, kind in enumerate(kinds):
                if kind not in ("full", "shared"):
                    raise ConfigError(f"{f.path}indexer_types[{i}]", kind, "must be 'full' or 'shared'")
            n_idx = kinds.count("full") + max(n_layers - len(kinds), 0)
        elif f.has("index_topk_pattern", "index_topk_freq"):
            raise UnsupportedError("index_topk_pattern / index_topk_freq without indexer_types: kvcalc does not "
                                   "derive which layers hold an indexer")
        t.add("attention", n_idx * ((q_rank or hidden) * n_i * d_i + hidden * d_i + hidden * n_i))
        t.add("norms", n_idx * 2 * d_i)
    if n_dense:
        t.add("mlp", n_dense * _gated_mlp(hidden, f.get_int("intermediate_size"), mlp_bias))
    if n_layers > n_dense:
        n_exp = f.get_int("n_routed_experts", "num_local_experts", "num_experts")
        exp_inter = f.get_int("moe_intermediate_size")
        shared = f.get_int("n_shared_experts", minimum=0)
        top_k = f.opt_int("num_experts_per_tok")
        for _ in range(n_layers - n_dense):
            t.add("mlp", n_exp * hidden + _gated_mlp(hidden, exp_inter * shared, mlp_bias))
            if "moe_post_norm" in q:
                t.add("norms", hidden)
            t.experts(3 * hidden * exp_inter, n_exp, top_k, f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)


# --------------------------------------------------------------------------- GPT-2 and other classic decoders
def _gpt2(f: ConfigReader, t: _Tally) -> None:
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
    multi_query = "multi_query" in _entry(f).quirks and f.get_bool("multi_query")
    kv_dim = (1 if multi_query else heads) * d
    attn = _linear(hidden, hidden + 2 * kv_dim, True) + _linear(hidden, hidden, True)
    norms = 4 * hidden
    if f.get_bool("add_cross_attention"):
        if multi_query:
            raise UnsupportedError("gpt_bigcode with add_cross_attention and multi_query: transformers cannot build it")
        attn += _linear(hidden, 2 * hidden, True) + 2 * _linear(hidden, hidden, True)
        norms += 2 * hidden
    t.add("embedding", vocab * hidden + positions * hidden)
    t.add("attention", n_layers * attn)
    t.add("mlp", n_layers * (_linear(hidden, inter, True) + _linear(inter, hidden, True)))
    t.add("norms", n_layers * norms + 2 * hidden)
    _lm_head(f, t, hidden, vocab)


def _gpt_neox(f: ConfigReader, t: _Tally) -> None:
    """GPT-NeoX: ``embed_in V*H``; per layer: 2 LayerNorms ``4*H``, ``query_key_value H*3H``, ``dense H*H``
    (+ biases with attention_bias), MLP ``H*I+I + I*H+H``; final LayerNorm ``2*H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    inter, bias = f.get_int("intermediate_size"), f.get_bool("attention_bias")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (_linear(hidden, 3 * hidden, bias) + _linear(hidden, hidden, bias)))
    t.add("mlp", n_layers * (_linear(hidden, inter, True) + _linear(inter, hidden, True)))
    t.add("norms", n_layers * 4 * hidden + 2 * hidden)
    _lm_head(f, t, hidden, vocab)


def _gpt_neox_japanese(f: ConfigReader, t: _Tally) -> None:
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
    _lm_head(f, t, hidden, vocab)


def _modernbert_decoder(f: ConfigReader, t: _Tally) -> None:
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
    t.add("attention", n_layers * 4 * _linear(hidden, hidden, attn_bias))
    t.add("mlp", n_layers * (_linear(hidden, 2 * inter, mlp_bias) + _linear(inter, hidden, mlp_bias)))
    t.add("norms", (2 * n_layers - 1) * norm + 2 * norm)   # layer norms, embedding + final norms
    t.add("lm_head", _linear(hidden, hidden, f.get_bool("classifier_bias")) + norm)   # ModernBertDecoderPredictionHead
    _lm_head(f, t, hidden, vocab)
    if f.get_bool("decoder_bias"):
        t.add("lm_head", vocab)


def _falcon(f: ConfigReader, t: _Tally) -> None:
    """Falcon: ``V*H`` embedding; per layer ``query_key_value H*q`` with ``q = (2*n_kv + n)*d`` (new decoder
    architecture), ``H + 2*d`` (multi_query) or ``3*H``; ``dense H*H``; MLP ``H*F + F*H`` (``F`` =
    ffn_hidden_size or ``4*H``), biases on all with ``bias``; LayerNorms ``2*H`` each: two without
    parallel_attn or with num_ln_in_parallel_attn == 2 (the default for the new architecture), else one;
    ``ln_f 2*H``; lm_head tied by default. ``n_embed`` overrides hidden_size, as in FalconConfig.
    """
    vocab, hidden = f.get_int("vocab_size"), f.get_int("n_embed", "hidden_size")
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
    t.add("attention", n_layers * (_linear(hidden, qkv, bias) + _linear(hidden, hidden, bias)))
    t.add("mlp", n_layers * (_linear(hidden, ffn, bias) + _linear(ffn, hidden, bias)))
    t.add("norms", n_layers * n_norms * 2 * hidden + 2 * hidden)
    _lm_head(f, t, hidden, vocab)


def _bloom(f: ConfigReader, t: _Tally) -> None:
    """BLOOM: ``V*H`` embedding + its LayerNorm ``2*H``; per layer: 2 LayerNorms ``4*H``, ``query_key_value
    H*3H+3H``, ``dense H*H+H``, MLP ``H*4H+4H + 4H*H+H``; ``ln_f 2*H``; lm_head tied by default.
    ``n_embed`` overrides hidden_size, as in BloomConfig.
    """
    vocab, hidden = f.get_int("vocab_size"), f.get_int("n_embed", "hidden_size")
    n_layers = f.get_int("num_hidden_layers")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (_linear(hidden, 3 * hidden, True) + _linear(hidden, hidden, True)))
    t.add("mlp", n_layers * (_linear(hidden, 4 * hidden, True) + _linear(4 * hidden, hidden, True)))
    t.add("norms", n_layers * 4 * hidden + 4 * hidden)
    _lm_head(f, t, hidden, vocab)


def _opt(f: ConfigReader, t: _Tally) -> None:
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
    t.add("attention", n_layers * 4 * _linear(hidden, hidden, bias))
    t.add("mlp", n_layers * (_linear(hidden, ffn, bias) + _linear(ffn, hidden, bias)))
    final = f.get_bool("do_layer_norm_before") and not f.get_bool("_remove_final_layer_norm")
    t.add("norms", n_layers * 2 * ln + (ln if final else 0))
    _lm_head(f, t, proj, vocab)


# --------------------------------------------------------------------------- state-space models
def _mamba(f: ConfigReader, t: _Tally) -> None:
    """Mamba: ``V*H`` embedding; per layer an RMSNorm ``H`` and a mixer with ``I`` = intermediate_size or
    ``expand*H``, ``N`` = state_size, ``K`` = conv_kernel, ``R`` = time_step_rank (``ceil(H/16)`` for "auto"):
    ``in_proj H*2I``, conv1d ``I*K`` (+ ``I`` with use_conv_bias), ``x_proj I*(R+2N)``, ``dt_proj R*I+I``,
    ``A_log I*N``, ``D I``, ``out_proj I*H`` (in/out biases with use_bias); final norm ``H``; lm_head tied by
    default.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    # MambaConfig derives intermediate_size = expand * hidden_size, but a value in the file overrides it
    inter = f.opt_int("intermediate_size") or f.get_int("expand") * hidden
    n_state, kernel = f.get_int("state_size"), f.get_int("conv_kernel")
    rank_value = f.value("time_step_rank")
    rank = ceil_div(hidden, 16) if rank_value == "auto" else ConfigReader.check_int(
        f.field_name("time_step_rank"), rank_value)
    bias = f.get_bool("use_bias")
    mixer = (_linear(hidden, 2 * inter, bias) + inter * kernel + (inter if f.get_bool("use_conv_bias") else 0)
             + _linear(inter, rank + 2 * n_state) + _linear(rank, inter, True) + inter * n_state + inter
             + _linear(inter, hidden, bias))
    t.add("embedding", vocab * hidden)
    t.add("mixer", n_layers * mixer)
    t.add("norms", n_layers * hidden + hidden)
    _lm_head(f, t, hidden, vocab)


def _mamba2(f: ConfigReader, t: _Tally) -> None:
    """Mamba-2: ``V*H`` embedding; per layer an RMSNorm ``H`` and a mixer with ``I = expand*H``, ``h`` heads,
    ``G`` groups, ``N`` state size, ``C = I + 2*G*N``: ``in_proj H*(I + C + h)``, conv1d ``C*K`` (+ ``C`` with
    use_conv_bias), ``dt_bias, A_log, D`` (``h`` each), gated norm ``I``, ``out_proj I*H`` (in/out biases with
    use_bias); final norm ``H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    inter = f.get_int("expand") * hidden
    heads, groups, n_state = f.get_int("num_heads"), f.get_int("n_groups"), f.get_int("state_size")
    if inter != heads * f.get_int("head_dim"):
        raise ConfigError(f.field_name("num_heads"), heads,
                          f"times head_dim must equal expand * hidden_size ({inter}), as Mamba2Config requires")
    kernel, bias = f.get_int("conv_kernel"), f.get_bool("use_bias")
    conv = inter + 2 * groups * n_state
    mixer = (_linear(hidden, inter + conv + heads, bias) + conv * kernel + (conv if f.get_bool("use_conv_bias") else 0)
             + 3 * heads + _linear(inter, hidden, bias))
    t.add("embedding", vocab * hidden)
    t.add("mixer", n_layers * mixer)
    t.add("norms", n_layers * (hidden + inter) + hidden)
    _lm_head(f, t, hidden, vocab)


def _mamba2_hybrid(f: ConfigReader, t: _Tally) -> None:
    """Bamba and GraniteMoeHybrid (transformers/models/bamba/modeling_bamba.py BambaDecoderLayer,
    granitemoehybrid/modeling_granitemoehybrid.py GraniteMoeHybridDecoderLayer): ``V*H`` embedding; per layer
    two RMSNorms ``2*H`` and either attention (q/k/v/o ``H*n_q*d + 2*H*n_kv*d + n_q*d*H``, + biases with
    attention_bias) or a Mamba-2 mixer (``I = mamba_expand*H``, ``h`` heads, ``G`` groups, ``N`` state,
    ``C = I + 2*G*N``: in_proj ``H*(I + C + h)``, conv1d ``C*K`` (+ ``C`` with mamba_conv_bias), dt_bias, A_log,
    D ``h`` each, gated norm ``I``, out_proj ``I*H``; in/out biases with mamba_proj_bias); then Bamba's gated
    MLP ``3*H*I_mlp`` (+ biases with mlp_bias), or GraniteMoeHybrid's MoE (:func:`_moe`, none with 0 experts)
    plus its shared MLP ``3*H*shared_intermediate_size``; final norm ``H``; lm_head ``V*H`` unless tied.
    Layer kinds: "mamba" / "linear_attention" are mixers, "attention" / "full_attention" attention; Falcon-H1
    (falcon_h1/modeling_falcon_h1.py FalconH1DecoderLayer, quirk ``falcon_h1_mixer``): every layer is "hybrid"
    (both), ``I`` = mamba_d_ssm when set, the gated norm only with mamba_rms_norm, out_proj's bias from
    projectors_bias, and a gated MLP like Bamba's.
    """
    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = layer_types(f, m, n_layers)
    for i, kind in enumerate(kinds):
        if kind not in ("mamba", "linear_attention", "attention", "full_attention", "hybrid"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be mamba / linear_attention or attention")
    n_attn = sum(kind in ("attention", "full_attention", "hybrid") for kind in kinds)
    n_mixer = sum(kind in ("mamba", "linear_attention", "hybrid") for kind in kinds)
    falcon = "falcon_h1_mixer" in m.quirks
    n_q, n_kv = _heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    bias = f.get_bool("attention_bias")
    attn = _linear(hidden, n_q * d, bias) + 2 * _linear(hidden, n_kv * d, bias) + _linear(n_q * d, hidden, bias)
    # an explicit null mamba_d_ssm means expand*H (FalconH1Mixer); omitted, the class default (1024) applies
    explicit_null = "mamba_d_ssm" in f.data and f.data["mamba_d_ssm"] is None
    inter = (f.opt_int("mamba_d_ssm") if falcon and not explicit_null else None) or f.get_int("mamba_expand") * hidden
    heads, groups, n_state = f.get_int("mamba_n_heads"), f.get_int("mamba_n_groups"), f.get_int("mamba_d_state")
    kernel, proj_bias = f.get_int("mamba_d_conv"), f.get_bool("mamba_proj_bias")
    out_bias = f.get_bool("projectors_bias") if falcon else proj_bias
    conv = inter + 2 * groups * n_state
    mixer = (_linear(hidden, inter + conv + heads, proj_bias) + conv * kernel
             + (conv if f.get_bool("mamba_conv_bias") else 0) + 3 * heads + _linear(inter, hidden, out_bias))
    mixer_norm = inter if not falcon or f.get_bool("mamba_rms_norm") else 0
    t.add("embedding", vocab * hidden)
    t.add("attention", n_attn * attn)
    t.add("mixer", n_mixer * mixer)
    t.add("norms", n_layers * 2 * hidden + n_mixer * mixer_norm + hidden)
    if m.moe is None:
        t.add("mlp", n_layers * _gated_mlp(hidden, f.get_int("intermediate_size"), _flag(f, m.mlp_bias)))
    else:
        moe = _moe(f, m, hidden, n_layers)
        if moe is not None:
            for _ in moe.layers:
                t.add("mlp", moe.fixed)
                t.experts(moe.per_expert, moe.n_experts, moe.top_k, moe.top_k_field)
        t.add("mlp", n_layers * _gated_mlp(hidden, f.get_int("shared_intermediate_size", minimum=0)))
    _lm_head(f, t, hidden, vocab)


_NEMOTRON_H_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}
_LEGACY_LAYER_TYPES = {"mamba": "linear_attention", "attention": "full_attention"}   # configuration_utils


def _nemotron_h(f: ConfigReader, t: _Tally) -> None:
    """Nemotron-H (transformers/models/nemotron_h/modeling_nemotron_h.py NemotronHBlock, MIXER_TYPES): one mixer
    per block, its kind from ``layers_block_type`` (else ``hybrid_override_pattern`` M/E/*/-, else the class
    default [linear_attention, moe, full_attention, mlp]; num_hidden_layers is ignored, as in NemotronHConfig;
    legacy names "mamba" / "attention" are remapped as configuration_utils.remap_legacy_layer_types does).
    ``V*H`` embedding; per block a norm ``H``; Mamba-2 mixers with ``I = mamba_num_heads*mamba_head_dim``,
    ``c = I + 2*n_groups*N``: in_proj ``H*(I+c+h)``, conv1d ``c*K`` (+ ``c`` with use_conv_bias), dt_bias,
    A_log, D ``h`` each, gated norm ``I``, out_proj ``I*H`` (in/out biases with use_bias); attention q/k/v/o
    ``2*H*n_q*d + 2*H*n_kv*d`` (no biases); MLP up/down ``2*H*I_ff`` (+ biases with mlp_bias); MoE: router
    ``E*H`` (its e_score_correction_bias is a buffer), ``E`` ungated experts ``2*I_e*D`` (``D`` =
    moe_latent_size or ``H``; with a latent size, fc1/fc2_latent_proj ``2*H*D`` + biases with mlp_bias), a
    shared MLP of moe_shared_expert_intermediate_size; norm_f ``H``; lm_head ``V*H``, never tied
    (NemotronHForCausalLM._tied_weights_keys is empty). The MTP layers (``mtp.*``) are not built.
    """
    vocab, hidden = f.get_int("vocab_size"), f.get_int("hidden_size")
    if f.has("layers_block_type", "layer_types"):
        kinds = [_LEGACY_LAYER_TYPES.get(k, k) for k in f.opt_str_list("layers_block_type", "layer_types") or []]
        where = f.field_name("layers_block_type", "layer_types")
    elif f.has("hybrid_override_pattern"):
        pattern = f.get_str("hybrid_override_pattern")
        kinds, where = [_NEMOTRON_H_PATTERN.get(c, c) for c in pattern], f.field_name("hybrid_override_pattern")
    else:
        kinds, where = ["linear_attention", "moe", "full_attention", "mlp"], "layers_block_type"
    for i, kind in enumerate(kinds):
        if kind not in _NEMOTRON_H_PATTERN.values():
            raise ConfigError(f"{where}[{i}]", kind, "must be linear_attention (M), moe (E), full_attention (*) "
                                                     "or mlp (-)")
    n_q, n_kv = _heads(f)
    d = f.get_int("head_dim")
    heads, head_dim = f.get_int("mamba_num_heads"), f.get_int("mamba_head_dim")
    groups, n_state = f.get_int("mamba_n_groups", "n_groups"), f.get_int("ssm_state_size")
    kernel = f.get_int("mamba_d_conv", "conv_kernel")
    conv_bias = f.get_bool("mamba_conv_bias") if f.has("mamba_conv_bias") else f.get_bool("use_conv_bias")
    bias, mlp_bias = f.get_bool("use_bias"), f.get_bool("mlp_bias")
    inter = heads * head_dim
    conv = inter + 2 * groups * n_state
    counts = {kind: kinds.count(kind) for kind in _NEMOTRON_H_PATTERN.values()}
    t.add("embedding", vocab * hidden)
    t.add("norms", len(kinds) * hidden + hidden + counts["linear_attention"] * inter)
    t.add("mixer", counts["linear_attention"] * (
        _linear(hidden, inter + conv + heads, bias) + conv * kernel + (conv if conv_bias else 0) + 3 * heads
        + _linear(inter, hidden, bias)))
    t.add("attention", counts["full_attention"] * (2 * hidden * n_q * d + 2 * hidden * n_kv * d))
    ff = f.get_int("intermediate_size")
    t.add("mlp", counts["mlp"] * (_linear(hidden, ff, mlp_bias) + _linear(ff, hidden, mlp_bias)))
    if counts["moe"]:
        n_exp, exp_inter = f.get_int("n_routed_experts", "num_local_experts"), f.get_int("moe_intermediate_size")
        latent = f.opt_int("moe_latent_size")
        shared = f.get_int("moe_shared_expert_intermediate_size")
        fixed = n_exp * hidden + _linear(hidden, shared, mlp_bias) + _linear(shared, hidden, mlp_bias)
        if latent is not None:
            fixed += _linear(hidden, latent, mlp_bias) + _linear(latent, hidden, mlp_bias)
        for _ in range(counts["moe"]):
            t.add("mlp", fixed)
            t.experts(2 * exp_inter * (latent or hidden), n_exp, f.opt_int("num_experts_per_tok"),
                      f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab, tied=False)


def _jamba(f: ConfigReader, t: _Tally) -> None:
    """Jamba (transformers/models/jamba/modeling_jamba.py JambaAttentionDecoderLayer / JambaMambaDecoderLayer):
    ``V*H`` embedding; per layer input_layernorm and pre_ff_layernorm ``2*H``; attention layers
    (``i % attn_layer_period == attn_layer_offset``) q/k/v/o without biases; Mamba layers with ``I =
    mamba_expand*H``, ``R`` = mamba_dt_rank ("auto": ``ceil(H/16)``), ``N`` = mamba_d_state, ``K`` = mamba_d_conv:
    in_proj ``H*2I``, conv1d ``I*K`` (+ ``I`` with mamba_conv_bias), x_proj ``I*(R+2N)``, dt_proj ``R*I + I``,
    A_log ``I*N``, D ``I``, out_proj ``I*H`` (in/out biases with mamba_proj_bias), dt/b/c RMSNorms ``R + 2N``;
    feed-forward: a MoE (router ``E*H``, ``E`` experts ``3*H*I_ff``) where ``i % expert_layer_period ==
    expert_layer_offset`` and num_experts > 1, else a gated MLP ``3*H*I_ff``; final norm ``H``; lm_head.
    """
    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = layer_types(f, m, n_layers)
    n_attn = sum(kind in ("attention", "full_attention") for kind in kinds)
    n_q, n_kv = _heads(f)
    d = hidden_per_head(f, hidden, n_q)
    inter, n_state, kernel = f.get_int("mamba_expand") * hidden, f.get_int("mamba_d_state"), f.get_int("mamba_d_conv")
    rank_value = f.value("mamba_dt_rank")
    rank = ceil_div(hidden, 16) if rank_value == "auto" else ConfigReader.check_int(
        f.field_name("mamba_dt_rank"), rank_value)
    bias = f.get_bool("mamba_proj_bias")
    mixer = (_linear(hidden, 2 * inter, bias) + inter * kernel + (inter if f.get_bool("mamba_conv_bias") else 0)
             + _linear(inter, rank + 2 * n_state) + _linear(rank, inter, True) + inter * n_state + inter
             + _linear(inter, hidden, bias))
    ff = f.get_int("intermediate_size")
    n_exp = f.get_int("num_experts")
    period, offset = f.get_int("expert_layer_period"), f.get_int("expert_layer_offset", minimum=0)
    n_moe = sum(1 for i in range(n_layers) if i % period == offset) if n_exp > 1 else 0
    t.add("embedding", vocab * hidden)
    t.add("attention", n_attn * (2 * hidden * n_q * d + 2 * hidden * n_kv * d))
    t.add("mixer", (n_layers - n_attn) * mixer)
    t.add("norms", n_layers * 2 * hidden + (n_layers - n_attn) * (rank + 2 * n_state) + hidden)
    t.add("mlp", (n_layers - n_moe) * _gated_mlp(hidden, ff))
    for _ in range(n_moe):
        t.add("mlp", n_exp * hidden)
        t.experts(3 * hidden * ff, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)


def _lfm2(f: ConfigReader, t: _Tally) -> None:
    """LFM2 (transformers/models/lfm2/modeling_lfm2.py Lfm2DecoderLayer): ``V*H`` embedding; per layer
    operator_norm and ffn_norm ``2*H``, then attention (q/k/v/out ``H*n_q*d + 2*H*n_kv*d + n_q*d*H``, no
    biases, q/k layernorms ``2*d``) or a short convolution ("conv" layers: in_proj ``H*3H``, conv ``H*K``,
    out_proj ``H*H``, biases ``3H + H + H`` with conv_bias); MLP w1/w3/w2 ``3*H*F`` where Lfm2MLP derives
    ``F``: with block_auto_adjust_ff_dim ``int(2*I/3)``, times block_ffn_dim_multiplier, rounded up to
    block_multiple_of; embedding_norm ``H`` at the end; lm_head ``V*H`` unless tied.
    """
    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = layer_types(f, m, n_layers)
    for i, kind in enumerate(kinds):
        if kind not in ("full_attention", "conv"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be full_attention or conv")
    n_attn = kinds.count("full_attention")
    n_q, n_kv = _heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    inter = f.get_int("intermediate_size")
    if f.get_bool("block_auto_adjust_ff_dim"):
        inter = int(2 * inter / 3)
        multiplier = f.opt_float("block_ffn_dim_multiplier")
        if multiplier is not None:
            inter = int(multiplier * inter)
        step = f.get_int("block_multiple_of")
        inter = step * ((inter + step - 1) // step)
    kernel, bias = f.get_int("conv_L_cache"), f.get_bool("conv_bias")
    conv = _linear(hidden, 3 * hidden, bias) + hidden * kernel + (hidden if bias else 0) + _linear(hidden, hidden, bias)
    t.add("embedding", vocab * hidden)
    t.add("attention", n_attn * (2 * hidden * n_q * d + 2 * hidden * n_kv * d))
    t.add("mixer", (n_layers - n_attn) * conv)
    t.add("mlp", n_layers * _gated_mlp(hidden, inter))
    t.add("norms", n_layers * 2 * hidden + n_attn * 2 * d + hidden)
    _lm_head(f, t, hidden, vocab)


# --------------------------------------------------------------------------- JetMoE
def _jetmoe(f: ConfigReader, t: _Tally) -> None:
    """JetMoE (transformers/models/jetmoe/modeling_jetmoe.py JetMoeDecoderLayer, JetMoeAttention, JetMoeMoA,
    JetMoeMoE): ``V*H`` embedding; per layer 2 norms ``2*H``; attention: kv_proj ``H*2A`` (``A`` =
    kv_channels * num_key_value_heads) and a mixture of attention experts (JetMoeMoA: ``E`` experts of
    input_linear ``H*A`` + output_linear ``A*H``, a bias ``H``, a router ``H*E``); MLP: a mixture of ``E``
    experts of input_linear ``H*2I`` + output_linear ``I*H``, a bias ``H``, a router ``H*E``; both route
    num_experts_per_tok experts per token, and both count as ``mlp`` (routed experts). Final norm ``H``;
    lm_head ``V*H`` unless tied (default tied).
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_exp, top_k = f.get_int("num_local_experts"), f.opt_int("num_experts_per_tok")
    a = f.get_int("kv_channels", "head_dim") * f.get_int("num_key_value_heads")
    inter = f.get_int("intermediate_size")
    field = f.field_name("num_experts_per_tok")
    t.add("embedding", vocab * hidden)
    t.add("norms", n_layers * 2 * hidden + hidden)
    for _ in range(n_layers):
        t.add("attention", hidden * 2 * a)
        t.add("mlp", 2 * (hidden + hidden * n_exp))          # MoA and MoE: bias + router each
        t.experts(2 * hidden * a, n_exp, top_k, field)        # attention experts
        t.experts(3 * hidden * inter, n_exp, top_k, field)    # MLP experts
    _lm_head(f, t, hidden, vocab)


def _doge(f: ConfigReader, t: _Tally) -> None:
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
    n_q, n_kv = _heads(f)
    d = head_dim_or_derived(f, hidden, n_q, floor=True)
    bias, mlp_bias = f.get_bool("attention_bias"), f.get_bool("mlp_bias")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (_linear(hidden, n_q * d, bias) + 2 * _linear(hidden, n_kv * d, bias)
                                   + _linear(n_kv * d, n_kv, bias) + n_kv + _linear(n_q * d, hidden, bias)))
    t.add("norms", n_layers * (4 * hidden + 2 * d) + hidden)
    t.add("mlp", n_layers * _gated_mlp(hidden, f.get_int("intermediate_size"), mlp_bias))
    if f.get_bool("is_moe"):
        n_exp = f.get_int("num_experts")
        for _ in range(n_layers):
            t.add("mlp", hidden * 2 * math.isqrt(n_exp))
            t.experts(2 * hidden, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)


def _hrm_text(f: ConfigReader, t: _Tally) -> None:
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
    t.add("attention", 2 * per_stack * (4 * _linear(hidden, n * d, bias) + _linear(n * d, hidden, bias)))
    t.add("mlp", 2 * per_stack * _gated_mlp(hidden, f.get_int("intermediate_size"), mlp_bias))
    _lm_head(f, t, hidden, vocab)


# --------------------------------------------------------------------------- Gemma 4
def _gemma4_text(f: ConfigReader, t: _Tally) -> None:
    """Gemma 4 text decoder (transformers/models/gemma4/modeling_gemma4.py Gemma4TextModel,
    Gemma4TextDecoderLayer, Gemma4TextAttention, Gemma4TextMLP, Gemma4TextRouter, Gemma4TextExperts).

    Per layer ``i`` with head dim ``d_i`` and KV heads ``n_kv_i`` (``per_layer_config``, else full layers
    take global_head_dim / num_global_key_value_heads: :func:`kvcalc.architectures._per_layer_overrides`):
    q_proj ``H*n_q*d_i`` + q_norm ``d_i``; unless the layer reuses another's KV (the last
    num_kv_shared_layers layers, Gemma4TextConfig.kv_sharing_modes) k_proj ``H*n_kv_i*d_i``, k_norm ``d_i``
    and v_proj ``H*n_kv_i*d_i`` (none on full layers with attention_k_eq_v; v_norm has no weight);
    o_proj ``n_q*d_i*H`` (biases on all with attention_bias); MLP ``3*H*I`` (``2I`` on KV-reusing layers
    with use_double_wide_mlp); 4 norms ``4*H``. With hidden_size_per_layer_input ``P``: per layer
    per_layer_input_gate ``H*P``, per_layer_projection ``P*H`` and a norm ``H``; per model
    embed_tokens_per_layer ``V_p*L*P`` (embedding), per_layer_model_projection ``H*L*P`` and a norm ``P``.
    With enable_moe_block, each layer adds a router (proj ``H*E``, scale ``H``, per_expert_scale ``E``),
    ``E`` experts ``3*H*I_e`` (gate_up + down, top_k_experts per token) and 3 norms ``3*H``, besides the
    dense MLP. Final norm ``H``; lm_head ``V*H`` unless tied (default tied). Buffers (layer_scalar,
    embed_scale) are not parameters. Gemma 4 Unified (``no_per_layer_inputs``: modeling_gemma4_unified.py) has
    neither per-layer inputs nor the MoE block.
    """
    from .architectures import _per_layer_overrides

    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = _heads(f)
    d = f.get_int("head_dim")
    kinds = layer_types(f, m, n_layers)
    overrides = _per_layer_overrides(f, m, n_layers, kinds)
    first_reuse = _kv_reuse_start(f, kinds)
    bias, k_eq_v = f.get_bool("attention_bias"), f.get_bool("attention_k_eq_v")
    inter, double = f.get_int("intermediate_size"), f.get_bool("use_double_wide_mlp")
    plain = "no_per_layer_inputs" in m.quirks
    per_layer = 0 if plain else f.opt_int("hidden_size_per_layer_input", minimum=0) or 0
    moe = not plain and f.get_bool("enable_moe_block")
    t.add("embedding", vocab * hidden)
    for i, kind in enumerate(kinds):
        o = overrides.get(i, {})
        d_i, kv_i = o.get("k_head_dim", d), o.get("kv_heads", n_kv)
        reuse = i >= first_reuse
        attn = _linear(hidden, n_q * d_i, bias) + _linear(n_q * d_i, hidden, bias)
        norms = d_i + 4 * hidden
        if not reuse:
            attn += _linear(hidden, kv_i * d_i, bias) * (1 if k_eq_v and kind != "sliding_attention" else 2)
            norms += d_i
        t.add("attention", attn)
        t.add("norms", norms)
        t.add("mlp", _gated_mlp(hidden, inter * (2 if double and reuse else 1)))
        if per_layer:
            t.add("other", 2 * hidden * per_layer)
            t.add("norms", hidden)
        if moe:
            n_exp, exp_inter = f.get_int("num_experts"), f.get_int("moe_intermediate_size")
            t.add("mlp", hidden * n_exp + hidden + n_exp)
            t.add("norms", 3 * hidden)
            t.experts(3 * hidden * exp_inter, n_exp, f.opt_int("top_k_experts"), f.field_name("top_k_experts"))
    if per_layer:
        t.add("embedding", f.get_int("vocab_size_per_layer_input") * n_layers * per_layer)
        t.add("other", hidden * n_layers * per_layer)
        t.add("norms", per_layer)
    t.add("norms", hidden)
    _lm_head(f, t, hidden, vocab)


def _kv_reuse_start(f: ConfigReader, kinds: list[str]) -> int:
    """The first layer that reuses an earlier layer's KV (Gemma3nTextConfig / Gemma4TextConfig
    kv_sharing_modes: the last num_kv_shared_layers layers); ConfigError where transformers refuses the split."""
    n_layers = len(kinds)
    shared = f.get_int("num_kv_shared_layers", minimum=0)
    if shared > n_layers:
        raise ConfigError(f.field_name("num_kv_shared_layers"), shared, f"must be at most num_hidden_layers "
                                                                        f"({n_layers})")
    first = n_layers - shared
    if 0 < first < n_layers and set(kinds[first:]) - set(kinds[:first]):
        raise ConfigError(f.field_name("num_kv_shared_layers"), shared, "leaves a KV-reusing layer type without a "
                                                                        "layer producing its cache")
    return first


def _gemma3n_text(f: ConfigReader, t: _Tally) -> None:
    """Gemma 3n text decoder (transformers/models/gemma3n/modeling_gemma3n.py Gemma3nTextModel,
    Gemma3nTextDecoderLayer, Gemma3nTextAttention, Gemma3nTextAltUp, Gemma3nTextLaurelBlock).

    Per layer: q_proj ``H*n_q*d`` + q_norm ``d``, o_proj ``n_q*d*H``, and unless the layer reuses another's KV
    (the last num_kv_shared_layers, :func:`_kv_reuse_start`) k_proj, v_proj ``H*n_kv*d`` each + k_norm ``d``
    (v_norm has no weight; biases on all with attention_bias); MLP ``3*H*I_i`` (intermediate_size: one value or
    one per layer); 4 norms ``4*H``; AltUp (``a`` = altup_num_inputs): correct_output_scale ``H``,
    correction_coefs ``a*a``, prediction_coefs ``a*a^2``, modality_router ``H*a``, router_norm ``H``; LAuReL
    ``2*H*laurel_rank`` + norm ``H``; per_layer_input_gate / per_layer_projection ``2*H*P`` + norm ``H``.
    Per model: embed_tokens ``V*H``, embed_tokens_per_layer ``V_p*L*P`` (embedding), per_layer_model_projection
    ``H*L*P`` + norm ``P``, altup_projections and altup_unembed_projections ``2*(a-1)*H*H``, final norm ``H``;
    lm_head ``V*H`` unless tied (default tied). AltUp, LAuReL and the per-layer projections count as other.
    """
    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = _heads(f)
    d = f.get_int("head_dim")
    kinds = layer_types(f, m, n_layers)
    first_reuse = _kv_reuse_start(f, kinds)
    bias = f.get_bool("attention_bias")
    widths = f.value("intermediate_size")
    if isinstance(widths, list):
        if len(widths) != n_layers:
            raise ConfigError(f.field_name("intermediate_size"), f"<{len(widths)} entries>",
                              f"must give one width or one per layer ({n_layers})")
        inters = [ConfigReader.check_int(f"{f.field_name('intermediate_size')}[{i}]", w) for i, w in enumerate(widths)]
    else:
        inters = [f.get_int("intermediate_size")] * n_layers
    a, rank = f.get_int("altup_num_inputs"), f.get_int("laurel_rank")
    per_layer, vocab_p = f.get_int("hidden_size_per_layer_input"), f.get_int("vocab_size_per_layer_input")
    n_own = min(first_reuse, n_layers)
    t.add("embedding", vocab * hidden + vocab_p * n_layers * per_layer)
    t.add("attention", n_layers * (_linear(hidden, n_q * d, bias) + _linear(n_q * d, hidden, bias))
          + n_own * 2 * _linear(hidden, n_kv * d, bias))
    t.add("norms", n_layers * (d + 4 * hidden) + n_own * d)
    t.add("mlp", sum(_gated_mlp(hidden, inter) for inter in inters))
    t.add("other", n_layers * (hidden + a * a + a ** 3 + hidden * a + 2 * hidden * rank + 2 * hidden * per_layer))
    t.add("norms", n_layers * 3 * hidden)          # AltUp router_norm, post_laurel_norm, post_per_layer_input_norm
    t.add("other", hidden * n_layers * per_layer + 2 * (a - 1) * hidden * hidden)
    t.add("norms", per_layer + hidden)
    _lm_head(f, t, hidden, vocab)


# --------------------------------------------------------------------------- T5
def _t5(f: ConfigReader, t: _Tally) -> None:
    """T5ForConditionalGeneration: shared ``V*d_model``; encoder blocks: self-attention ``4*d_model*n*d_kv``
    + norm, FF ``2*d_model*d_ff`` (gated: ``3*...``) + norm; decoder blocks add cross-attention ``4*d_model*n*d_kv``
    + norm; block 0 of each stack has a relative-attention bias ``buckets*n``; each stack has a final norm.
    transformers 5 always ties lm_head to the shared embedding (``tie_word_embeddings: false`` only turns
    off output scaling), so lm_head is 0. mt5, umt5 (modeling_umt5.py: a bias in every self-attention
    layer) and longt5 (modeling_longt5.py: transient-global encoder layers add ``global_input_layer_norm``
    ``d_model`` each and block 0 a ``global_relative_attention_bias``) by their registry quirks.
    """
    vocab, d_model = f.get_int("vocab_size"), f.get_int("d_model", "hidden_size")
    d_kv, d_ff, heads = f.get_int("d_kv"), f.get_int("d_ff"), f.get_int("num_heads")
    n_enc = f.get_int("num_layers")
    n_dec = f.opt_int("num_decoder_layers") or n_enc
    buckets = f.get_int("relative_attention_num_buckets")
    proj = f.get_str("feed_forward_proj")
    parts = proj.split("-")
    if (len(parts) > 1 and parts[0] != "gated") or len(parts) > 2:
        raise ConfigError(f.field_name("feed_forward_proj"), proj, "must be 'ACT' or 'gated-ACT'")
    # T5Config derives is_gated_act from feed_forward_proj; a value in the file (to_dict writes it) overrides it
    gated = f.get_bool("is_gated_act") if f.has("is_gated_act") else parts[0] == "gated"
    ff = (3 if gated else 2) * d_model * d_ff
    attn = 4 * d_model * heads * d_kv
    q = _entry(f).quirks
    # UMT5: a relative bias in every self-attention layer; LongT5 transient-global: + a global one (block 0)
    n_bias = n_enc + n_dec if "relative_bias_every_layer" in q else 2
    tglobal = "transient_global" in q and f.get_str("encoder_attention_type") == "transient-global"
    t.add("embedding", vocab * d_model)
    t.add("attention", (n_enc + 2 * n_dec) * attn + (n_bias + tglobal) * buckets * heads)
    t.add("mlp", (n_enc + n_dec) * ff)
    t.add("norms", (2 * n_enc + 3 * n_dec + 2 + (n_enc if tglobal else 0)) * d_model)
    t.tied = True


# --------------------------------------------------------------------------- multimodal
def _sub(top: ConfigReader, name: str, model_type: str, expected: tuple[str, ...]) -> ConfigReader:
    """The nested config ``name`` (its ``model_type``, default ``model_type``, must be one of ``expected``),
    read with that type's class defaults; all class defaults when the config omits it."""
    r = top.sub(name) if isinstance(top.data.get(name), Mapping) else None
    if r is None:
        if top.data.get(name) is not None:
            raise ConfigError(name, top.data[name], "must be a JSON object")
        r = ConfigReader({}, f"{top.path}{name}.", top.used, defaults_used=top.defaults_used)
    sub_type = r.get_str("model_type", default=model_type)
    if sub_type not in expected:
        raise UnsupportedError(f"{top.path}{name}.model_type '{sub_type}' is not counted "
                               f"(expected {', '.join(expected)})")
    return typed(r, sub_type)


def _gemma3(top: ConfigReader, t: _Tally) -> None:
    """Gemma3ForConditionalGeneration: the gemma3_text decoder (``text_config``), a SigLIP tower
    (``vision_config``) and the projector ``H_v*H_t`` + RMSNorm ``H_v``. Tying follows the top-level
    ``tie_word_embeddings`` (default true), not the text_config's.
    """
    text = _sub(top, "text_config", "gemma3_text", ("gemma3_text",))
    vision = _sub(top, "vision_config", "siglip_vision_model", ("siglip_vision_model",))
    _llama_like(text, t, head=False)
    _lm_head(top, t, text.get_int("hidden_size"), text.get_int("vocab_size"))
    hv = vision.get_int("hidden_size")
    t.add("vision", siglip_vision(vision) + hv * text.get_int("hidden_size") + hv)


def _mllama_vision(v: ConfigReader) -> int:
    """Mllama vision encoder (no biases on attention):
    patch conv ``C*p*p*H``, class embedding ``H``, gated position embedding ``1 + P*H + (R+1)*T*P*H``
    (``P = (img/p)^2 + 1`` patches, ``R`` aspect ratios, ``T`` tiles), two gated tile embeddings
    ``(R+1)*T*H + 1``, two LayerNorms ``2*H``; ``num_hidden_layers`` layers of ``4*H*H`` attention,
    MLP ``H*I+I + I*H+H``, 2 LayerNorms ``4*H``; ``num_global_layers`` more with 2 scalar gates each.
    """
    hidden, inter = v.get_int("hidden_size"), v.get_int("intermediate_size")
    n_local, n_global = v.get_int("num_hidden_layers", minimum=0), v.get_int("num_global_layers", minimum=0)
    heads = v.get_int("attention_heads", "num_attention_heads")
    if hidden % heads:
        raise ConfigError(v.field_name("hidden_size"), hidden, f"is not divisible by attention_heads ({heads})")
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    tiles = v.get_int("max_num_tiles")
    n_ratios = len(v.opt_list("supported_aspect_ratios") or ())
    patches = (image // patch) ** 2 + 1
    n = channels * patch * patch * hidden + hidden
    n += 1 + patches * hidden + (n_ratios + 1) * tiles * patches * hidden
    n += 2 * ((n_ratios + 1) * tiles * hidden + 1) + 4 * hidden
    layer = 4 * hidden * hidden + _linear(hidden, inter, True) + _linear(inter, hidden, True) + 4 * hidden
    n += n_local * layer + n_global * (layer + 2)
    return n


def _mllama(top: ConfigReader, t: _Tally) -> None:
    """MllamaForConditionalGeneration: text decoder with ``V+8`` embedding rows, self-attention layers
    (Llama-style, ``d = H/n_q``, no biases) and cross-attention layers (same projections + q/k norms ``2*d``
    + 2 scalar gates); vision encoder; projector ``vision_output_dim*H + H``; lm_head ``V*H``, never tied.
    """
    text = _sub(top, "text_config", "mllama_text_model", ("mllama_text_model",))
    vision = _sub(top, "vision_config", "mllama_vision_model", ("mllama_vision_model",))
    vocab, hidden, n_layers = text.get_int("vocab_size"), text.get_int("hidden_size"), text.get_int("num_hidden_layers")
    inter = text.get_int("intermediate_size")
    n_q, n_kv = _heads(text)
    d = hidden // n_q
    cross = {i for i in text.get_int_list("cross_attention_layers") if 0 <= i < n_layers}
    attn = _linear(hidden, n_q * d) + 2 * _linear(hidden, n_kv * d) + _linear(n_q * d, hidden)
    t.add("embedding", (vocab + 8) * hidden)
    t.add("attention", n_layers * attn + len(cross))  # + cross_attn_attn_gate
    t.add("norms", n_layers * 2 * hidden + len(cross) * 2 * d + hidden)
    t.add("mlp", n_layers * _gated_mlp(hidden, inter) + len(cross))  # + cross_attn_mlp_gate
    _lm_head(top, t, hidden, vocab, tied=False)  # transformers never ties Mllama's head (its rows are V, not V+8)
    t.add("vision", _mllama_vision(vision) + _linear(vision.get_int("vision_output_dim"), hidden, True))


# FuyuConfig.sub_configs_defaults["text_config"].init_kwargs: the persimmon decoder Fuyu builds without a text_config
_FUYU_TEXT = {"vocab_size": 262144, "max_position_embeddings": 16384, "hidden_size": 4096, "intermediate_size": 16384,
              "num_hidden_layers": 36, "num_attention_heads": 64, "qk_layernorm": True}


def _fuyu(top: ConfigReader, t: _Tally) -> None:
    """FuyuForCausalLM (transformers/models/fuyu/modeling_fuyu.py FuyuModel): the persimmon decoder of
    ``text_config`` (without one, Persimmon with FuyuConfig's text defaults), no vision tower: image patches
    enter through vision_embed_tokens ``(p*p*C)*H + H`` (counted as vision); lm_head ``V*H`` unless the
    top-level tie_word_embeddings (default false) ties it. A flat config (decoder fields at the top level,
    which FuyuConfig moves into text_config) is refused rather than guessed.
    """
    if top.data.get("text_config") is None and any(k in top.data for k in _FUYU_TEXT):
        raise UnsupportedError("fuyu with its decoder fields at the top level (no text_config) is not counted: "
                               "give them in text_config")
    text = _sub_config(top, "text_config", "persimmon", _FUYU_TEXT)
    if text.model_type != "persimmon":
        raise UnsupportedError(f"{top.path}text_config.model_type '{text.model_type}' is not counted for fuyu "
                               "(expected persimmon)")
    _llama_like(text, t, head=False)
    hidden = text.get_int("hidden_size")
    _lm_head(top, t, hidden, text.get_int("vocab_size"))
    patch = top.get_int("patch_size")
    t.add("vision", _linear(patch * patch * top.get_int("num_channels"), hidden, True))


# --------------------------------------------------------------------------- vision-language wrappers
def _multimodal(f: ConfigReader, t: _Tally) -> None:
    """Vision-language wrappers: :func:`kvcalc.params_vision.count_wrapper`, given this module's text counters."""
    count_wrapper(f, t, _Tally, _COUNTERS)


# ---- S2S families (issue 12) ----
_S2S_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    # Nemotron 3.5 Transcribe: its nemotron_h text decoder counted by _nemotron_h (lm_head included, never tied)
    "nemo_speechlm": functools.partial(nemo_speechlm, _nemotron_h),
    # EncoderDecoderModel: BERT / RoBERTa stacks in params_seq2seq, a GPT-2 decoder by _gpt2 (add_cross_attention)
    "encoder_decoder": functools.partial(encoder_decoder, {"gpt2": _gpt2}),
}


# ---- ORA families (issue 12) ----
# wrapper -> (vision tower type, Q-Former type, whether its Q-Former reads the prompt: InstructBLIP's
# InstructBlipQFormerEmbeddings word / position tables and the text-input FFNs of every layer)
_BLIP_PARTS = {"blip-2": ("blip_2_vision_model", "blip_2_qformer", False),
               "instructblip": ("instructblip_vision_model", "instructblip_qformer", True),
               "instructblipvideo": ("instructblipvideo_vision_model", "instructblipvideo_qformer", True)}


def _blip2(f: ConfigReader, t: _Tally) -> None:
    """Blip2ForConditionalGeneration (modeling_blip_2.py), InstructBlip(Video)ForConditionalGeneration
    (modeling_instructblip(video).py) with a decoder-only language model (OPT): the vision model (width ``H_v``,
    ``I_v``; class_embedding ``H_v``, patch Conv2d ``3*p*p*H_v + H_v``, position_embedding ``((image/p)^2 + 1)*H_v``;
    per encoder layer qkv ``H_v*3H_v`` (+ ``3H_v`` with qkv_bias), projection ``H_v*H_v + H_v``, fc1 / fc2 with
    biases, 2 LayerNorms; post_layernorm ``2H_v``), query_tokens ``num_query_tokens*H_q``, the Q-Former
    (:func:`kvcalc.params_seq2seq.blip2_qformer`, encoder width ``H_v``; InstructBLIP's adds word and position
    tables ``(V_q + P_q)*H_q`` and the text-input FFNs), language_projection ``H_q*H + H``, and the OPT language
    model (:func:`_opt`, lm_head tied by the text config's flag, as OPTForCausalLM). Absent sub-configs are
    their class defaults."""
    if not f.get_bool("use_decoder_only_language_model", default=True):
        raise UnsupportedError("a BLIP-2-style model with an encoder-decoder language model (T5) is not counted yet")
    vision_type, qformer_type, text_input = _BLIP_PARTS[f.model_type]
    vis = _s2s_sub(f, "vision_config", vision_type, {}, absent_ok=True)
    hv, iv, n = vis.get_int("hidden_size"), vis.get_int("intermediate_size"), vis.get_int("num_hidden_layers")
    q = _s2s_sub(f, "qformer_config", qformer_type, {"encoder_hidden_size": hv, "use_qformer_text_input": text_input},
                 absent_ok=True)
    text = _s2s_sub(f, "text_config", "opt", {}, absent_ok=True)
    patch, image = vis.get_int("patch_size"), vis.get_int("image_size")
    layer = (_linear(hv, 3 * hv, vis.get_bool("qkv_bias")) + _linear(hv, hv, True) + _linear(hv, iv, True)
             + _linear(iv, hv, True) + 4 * hv)
    embed = hv + _linear(3 * patch * patch, hv, True) + ((image // patch) ** 2 + 1) * hv
    hq = q.get_int("hidden_size")
    tables = (q.get_int("vocab_size") + q.get_int("max_position_embeddings")) * hq if text_input else 0
    _opt(text, t)
    t.add("vision", embed + n * layer + 2 * hv + f.get_int("num_query_tokens") * hq + blip2_qformer(q) + tables
          + _linear(hq, text.get_int("hidden_size"), True))


def _udop(f: ConfigReader, t: _Tally) -> None:
    """UdopForConditionalGeneration (modeling_udop.py): T5 stacks (:func:`_t5`: shared table, self- / cross-
    attention, relu or gated FF, block 0's 1-d relative bias, tied lm_head) plus, in each stack's
    ``RelativePositionBiasAggregated``, one bias table per further entry of relative_bias_args (horizontal,
    vertical: ``(b + 2 with prefix_bucket and not expand)*n``, ``b`` the entry's relative_attention_num_buckets,
    default 32 (RelativePositionBiasBase); the 1-d entry's table is block 0's, tied); the encoder's
    ``cell_2d_embedding`` (x and y tables of max_2d_position_embeddings ``x d_model``); the patch Conv2d
    ``num_channels*p*p*d_model + d_model`` of ``patch_embed`` and its twin ``decoder.embed_patches`` (other)."""
    if not f.get_bool("tie_word_embeddings", default=True):
        raise UnsupportedError("UDOP with tie_word_embeddings false is not counted yet (kvcalc never guesses)")
    _t5(f, t)
    d_model, heads = f.get_int("d_model", "hidden_size"), f.get_int("num_heads")
    args = f.raw("relative_bias_args", default=[{"type": "1d"}, {"type": "horizontal"}, {"type": "vertical"}])
    if not isinstance(args, list) or not all(isinstance(a, Mapping) for a in args):
        raise ConfigError(f.field_name("relative_bias_args"), "<not a list of objects>", "must list bias settings")
    rows = sum(int(a.get("relative_attention_num_buckets", 32)) + (2 if a.get("prefix_bucket") and not a.get(
        "expand") else 0) for a in args if a.get("type") != "1d")
    t.add("attention", 2 * rows * heads)
    patch = f.get_int("patch_size")
    t.add("other", 2 * _linear(f.get_int("num_channels") * patch * patch, d_model, True)
          + 2 * f.get_int("max_2d_position_embeddings") * d_model)


def _pix2struct(f: ConfigReader, t: _Tally) -> None:
    """Pix2StructForConditionalGeneration (modeling_pix2struct.py). Vision encoder (width ``H_v``, ``n_v`` heads
    of ``d_v``, ``F_v``): patch_projection ``P*H_v + H_v`` (``P`` patch_embed_hidden_size), row / column
    embedders ``2*seq_len*H_v``; per layer query / key / value / output ``4*H_v*n_v*d_v`` (no biases), gated MLP
    wi_0 / wi_1 / wo ``3*H_v*F_v``, 2 RMS norms ``H_v``; final layernorm ``H_v``. Text decoder
    (Pix2StructTextModel: ``H``, ``n`` heads, ``F``, ``V``): embed_tokens ``V*H``; per layer self- and
    cross-attention ``2*4*H*H`` (Pix2StructTextAttention projects to hidden_size, not n*d_kv) + their norms,
    gated MLP ``3*H*F`` + norm; layer 0's relative bias ``buckets*n``; final norm ``H``; lm_head ``V*H``
    (untied: tie_word_embeddings true is refused, not verified)."""
    if f.get_bool("tie_word_embeddings", default=False):
        raise UnsupportedError("Pix2Struct with tie_word_embeddings true is not counted yet (kvcalc never guesses)")
    vis = _s2s_sub(f, "vision_config", "pix2struct_vision_model", {}, absent_ok=True)
    text = _s2s_sub(f, "text_config", "pix2struct_text_model", {}, absent_ok=True)
    hv, nv, dv = vis.get_int("hidden_size"), vis.get_int("num_attention_heads"), vis.get_int("d_kv")
    fv, lv = vis.get_int("d_ff"), vis.get_int("num_hidden_layers", minimum=0)
    t.add("vision", _linear(vis.get_int("patch_embed_hidden_size"), hv, True) + 2 * vis.get_int("seq_len") * hv
          + lv * (4 * hv * nv * dv + 3 * hv * fv + 2 * hv) + hv)
    h, n = text.get_int("hidden_size"), text.get_int("num_heads")
    ff, layers, vocab = text.get_int("d_ff"), text.get_int("num_layers", minimum=0), text.get_int("vocab_size")
    t.add("embedding", vocab * h)
    t.add("attention", layers * 2 * 4 * h * h + text.get_int("relative_attention_num_buckets") * n)
    t.add("mlp", layers * 3 * h * ff)
    t.add("norms", (3 * layers + 1) * h)
    t.add("lm_head", vocab * h)


_ORA_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {"blip2": _blip2, "udop": _udop,
                                                                    "pix2struct": _pix2struct}


# --------------------------------------------------------------------------- entry point
# parameter-count family (a registry entry's ``params``) -> counter
_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    "llama_like": _llama_like, "deepseek": _deepseek, "gpt2": _gpt2, "gpt_neox": _gpt_neox, "falcon": _falcon,
    "bloom": _bloom, "gpt_neox_japanese": _gpt_neox_japanese, "modernbert_decoder": _modernbert_decoder,
    "opt": _opt, "mamba": _mamba, "mamba2": _mamba2, "mamba2_hybrid": _mamba2_hybrid, "lfm2": _lfm2,
    "nemotron_h": _nemotron_h, "gemma4_text": _gemma4_text, "gemma3n_text": _gemma3n_text, "jetmoe": _jetmoe,
    "doge": _doge, "fuyu": _fuyu, "hrm_text": _hrm_text,
    "jamba": _jamba, "t5": _t5, "gemma3": _gemma3, "mllama": _mllama, "multimodal": _multimodal,
    **_S2S_COUNTERS,
    **_ORA_COUNTERS,
    **_SEQ2SEQ_COUNTERS,  # encoder-decoder families (kvcalc.params_seq2seq)
    # audio wrappers (kvcalc.params_seq2seq): their text decoder counted by _llama_like
    **{family: functools.partial(fn, _llama_like) for family, fn in _SEQ2SEQ_WRAPPERS.items()},
}

SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(sorted(
    name for name in REGISTRY if (entry := lookup(name)) is not None and entry.params is not None))


def count_params(config: Mapping[str, Any]) -> ParamCount:
    """The exact parameter count of the model transformers builds from ``config`` (a config.json dict).

    Raises :class:`ConfigError` for unusable fields and :class:`UnsupportedError` for model types
    whose modules are not counted here (see :data:`SUPPORTED_MODEL_TYPES`): no estimate is ever guessed.
    """
    top = ConfigReader(config)
    model_type = top.opt_str("model_type")
    if model_type is None:
        raise ConfigError("model_type", None, "required field is missing (it names the architecture to count)")
    entry = lookup(model_type)
    if entry is None or entry.params is None:
        reason = entry.not_countable if entry is not None else "kvcalc does not know this model type"
        raise UnsupportedError(f"parameter counting is not implemented for model_type '{model_type}': {reason} "
                               f"({len(SUPPORTED_MODEL_TYPES)} model types are counted: "
                               "kvcalc.params.SUPPORTED_MODEL_TYPES, docs/architectures.md)")
    tally = _Tally()
    fields = typed(top, entry.name)
    _COUNTERS[entry.params](fields, tally)
    parts = tally.parts
    total = sum(parts.values())
    return ParamCount(
        model_type=model_type, total=total, **cast(dict[str, Any], parts), tied_embeddings=tally.tied,
        moe_experts=tally.moe_experts,
        active_count=None if tally.null_top_k else total - tally.moe_experts + tally.moe_active,
        active_refused=tally.null_top_k, fields_used=tuple(top.used), defaults_used=tuple(fields.defaults_used),
    )
