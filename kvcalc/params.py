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
from .model_types import (
    DBRX_ATTN_DEFAULTS,
    DBRX_FFN_DEFAULTS,
    REGISTRY,
    VIT_DEFAULTS,
    VOXTRAL_REALTIME_TEXT,
    ModelType,
    kda_dims,
    lookup,
    nested,
    olmo_hybrid_linear,
    typed,
)
from .params_seq2seq import COUNTERS as _SEQ2SEQ_COUNTERS
from .params_seq2seq import WRAPPERS as _SEQ2SEQ_WRAPPERS
from .params_seq2seq import _sub as _s2s_sub
from .params_seq2seq import _width as _s2s_width
from .params_seq2seq import (
    blip2_qformer,
    cross_decoder,
    encoder_decoder,
    nemo_speechlm,
    qwen3_asr_encoder,
    whisper_encoder,
)
from .params_vision import (
    PROJECTORS,
    TOWERS,
    _glm_merger,
    _got_ocr2_vision,
    _pair,
    _sub_config,
    _vit_layers,
    count_wrapper,
    muse_spark_audio,
    phi4_multimodal_embeds,
    siglip_vision,
    wavtokenizer_encoder,
)

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
    * ``vision``: the vision tower plus the multimodal projector (0 without a ``vision_config``); the modality
      encoder of a wrapper without one (Apertus 1.5's image tokenizer, Evolla's protein encoder and resampler).
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
    active_reason: str = ""           # MOE: why active is undefined although that field is set (UnsupportedError)

    @property
    def active(self) -> int:
        """Parameters used for one token (see the class docstring); ConfigError when top-k is null."""
        if self.active_count is None and self.active_reason:
            raise UnsupportedError(self.active_reason)
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
                   vision=0, other=0, tied_embeddings=False, moe_experts=0, active_count=None, quality="estimated",
                   active_reason="parameters not counted (the weights were given as bytes): no FLOP count")


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
        self.active_reason = ""         # MOE: why active is undefined though top-k is set (LongCat's zero experts)

    def add(self, part: str, n: int) -> None:
        self.parts[part] += n

    def add_decoder(self, inner: _Tally) -> None:
        """A wrapper's text decoder, counted into ``inner`` by its own counter: every part but its lm_head (the
        wrapper decides its own head and tying), its routed experts and any reason ``active`` is undefined."""
        for part, n in inner.parts.items():
            if part != "lm_head":
                self.add(part, n)
        self.moe_experts += inner.moe_experts
        self.moe_active += inner.moe_active
        self.null_top_k = self.null_top_k or inner.null_top_k
        self.active_reason = self.active_reason or inner.active_reason

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
    (output gate; AFMoE's separate gate_proj ``H*n_q*d`` has the same count); MiMo-V2-Flash's v_proj / o_proj
    use v_head_dim and its sliding layers hold ``2*n_kv`` K/V heads and ``n_q`` sinks. MLP ``3*H*I`` (+ mlp_bias on
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
    dv = f.get_int("v_head_dim") if "v_head_dim" in q else d     # MOE: values of their own width (MiMo-V2-Flash)
    attn = (_linear(hidden, n_q * d * (2 if "gated_q_proj" in q else 1), qkv_bias)
            + _linear(hidden, n_kv * d, qkv_bias) + _linear(hidden, n_kv * dv, qkv_bias)
            + _linear(n_q * dv, hidden, o_bias))
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
    if "swa_double_kv" in q:    # MOE: MiMo-V2-Flash sliding layers: another n_kv K/V heads and n_q sinks
        n_swa = layer_types(f, m, n_layers).count("sliding_attention")
        t.add("attention", n_swa * (_linear(hidden, n_kv * d, qkv_bias) + _linear(hidden, n_kv * dv, qkv_bias) + n_q))
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
_TOP_K = ("num_experts_per_tok", "moe_topk", "moe_k", "num_experts_per_token")
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
        fixed += _gated_mlp(hidden, f.get_int("shared_expert_intermediate_size", "shared_intermediate_size",
                                              "share_expert_dim", minimum=0))
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
    (``layer_types``, else the entry's rule: every ``full_attention_interval``-th layer full); sliding layers
    (Lara-Mini) are attention layers too."""
    table = {"full_attention": "attention", "sliding_attention": "attention", "linear_attention": "linear"}
    kinds = layer_types(f, m, n_layers)
    for i, kind in enumerate(kinds):
        if kind not in table:
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be full_attention, sliding_attention or "
                                                                 "linear_attention")
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
    n_dense = n_layers if "dense_mla" in q else n_layers - len(_sparse_layers(f, n_layers, _entry(f).dense_first))
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
        elif "shared_indexer" in q:     # MOE: HYV4Config's default indexer_types: "full" at 0, 1, 5, 9, ...
            n_idx = sum(1 for i in range(n_layers) if i == 0 or (i - 1) % 4 == 0)
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


def _lfm2(f: ConfigReader, t: _Tally, head: bool = True) -> None:
    """LFM2 (transformers/models/lfm2/modeling_lfm2.py Lfm2DecoderLayer): ``V*H`` embedding; per layer
    operator_norm and ffn_norm ``2*H``, then attention (q/k/v/out ``H*n_q*d + 2*H*n_kv*d + n_q*d*H``, no
    biases, q/k layernorms ``2*d``) or a short convolution ("conv" layers: in_proj ``H*3H``, conv ``H*K``,
    out_proj ``H*H``, biases ``3H + H + H`` with conv_bias); MLP w1/w3/w2 ``3*H*F`` where Lfm2MLP derives
    ``F``: with block_auto_adjust_ff_dim ``int(2*I/3)``, times block_ffn_dim_multiplier, rounded up to
    block_multiple_of; embedding_norm ``H`` at the end; lm_head ``V*H`` unless tied.
    LFM2-MoE (lfm2_moe/modeling_lfm2_moe.py Lfm2MoeDecoderLayer): the layers from num_dense_layers on hold a
    MoE (:func:`_moe`: router ``E*H``, its expert_bias a buffer, ``E`` experts ``3*H*I_e``) instead of the MLP.
    LFM3 (lfm3/modeling_lfm3.py Lfm3Attention, Lfm3DecoderLayer; quirk ``lfm3_attention``): "sliding_attention"
    layers are attention too, o_proj is named, biases on q/k/v/o with attention_bias, g_proj ``H*n_q`` with
    use_attention_gate, and post_operator_norm / post_ffn_norm ``2*H`` per layer with use_sandwich_norm.
    """
    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = layer_types(f, m, n_layers)
    lfm3 = "lfm3_attention" in m.quirks
    for i, kind in enumerate(kinds):
        if kind not in ("full_attention", "conv") and not (lfm3 and kind == "sliding_attention"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be full_attention or conv"
                              + (" or sliding_attention" if lfm3 else ""))
    n_attn = n_layers - kinds.count("conv")
    n_q, n_kv = _heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    inter = f.get_int("intermediate_size")
    if f.get_bool("block_auto_adjust_ff_dim", default=False):
        inter = int(2 * inter / 3)
        multiplier = f.opt_float("block_ffn_dim_multiplier")
        if multiplier is not None:
            inter = int(multiplier * inter)
        step = f.get_int("block_multiple_of")
        inter = step * ((inter + step - 1) // step)
    kernel, bias = f.get_int("conv_L_cache"), f.get_bool("conv_bias")
    conv = _linear(hidden, 3 * hidden, bias) + hidden * kernel + (hidden if bias else 0) + _linear(hidden, hidden, bias)
    attn_bias = lfm3 and f.get_bool("attention_bias")
    attn = _linear(hidden, n_q * d, attn_bias) + 2 * _linear(hidden, n_kv * d, attn_bias) + _linear(
        n_q * d, hidden, attn_bias)
    if lfm3 and f.get_bool("use_attention_gate"):
        attn += hidden * n_q
    t.add("embedding", vocab * hidden)
    t.add("attention", n_attn * attn)
    t.add("mixer", (n_layers - n_attn) * conv)
    moe = _moe(f, m, hidden, n_layers)
    n_moe = len(moe.layers) if moe else 0
    if moe:
        for _ in moe.layers:
            t.add("mlp", moe.fixed)
            t.experts(moe.per_expert, moe.n_experts, moe.top_k, moe.top_k_field)
    t.add("mlp", (n_layers - n_moe) * _gated_mlp(hidden, inter))
    sandwich = 2 * hidden if lfm3 and f.get_bool("use_sandwich_norm") else 0
    t.add("norms", n_layers * (2 * hidden + sandwich) + n_attn * 2 * d + hidden)
    if head:    # Lfm2Config / Lfm2MoeConfig.__post_init__: the Hub's tie_embedding wins over tie_word_embeddings
        alias = not lfm3 and f.has("tie_embedding")
        _lm_head(f, t, hidden, vocab, f.get_bool("tie_embedding") if alias else None)


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


# ---- MOE families (issue 12) ----
def _dbrx(f: ConfigReader, t: _Tally) -> None:
    """DBRX (transformers/models/dbrx/modeling_dbrx.py DbrxModel, DbrxBlock, DbrxAttention, DbrxExpertGLU,
    DbrxRouter): ``wte V*H``; per block norm_1 and norm_2 (LayerNorm without bias) ``2*H``, Wqkv
    ``H*(H + 2*n_kv*d)`` (``d = H/n``, ``n_kv`` = attn_config.kv_n_heads, which DbrxConfig copies over
    num_key_value_heads), out_proj ``H*H``, router ``H*E`` and ``E`` experts w1, v1, w2 ``3*F*H`` each
    (``E``, ``F``, top-k: ffn_config.moe_num_experts / ffn_hidden_size / moe_top_k); norm_f ``H``; lm_head
    ``V*H`` (DbrxConfig rejects tie_word_embeddings)."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    heads = f.get_int("num_attention_heads")
    d = hidden_per_head(f, hidden, heads)
    attn_cfg, ffn_cfg = nested(f, "attn_config", DBRX_ATTN_DEFAULTS), nested(f, "ffn_config", DBRX_FFN_DEFAULTS)
    n_kv = attn_cfg.get_int("kv_n_heads")
    if n_kv > heads or heads % n_kv:
        raise ConfigError(attn_cfg.field_name("kv_n_heads"), n_kv, f"must divide n_heads ({heads})")
    n_exp, ffn = ffn_cfg.get_int("moe_num_experts"), ffn_cfg.get_int("ffn_hidden_size")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (_linear(hidden, hidden + 2 * n_kv * d) + _linear(hidden, hidden)))
    t.add("norms", n_layers * 2 * hidden + hidden)
    for _ in range(n_layers):
        t.add("mlp", n_exp * hidden)
        t.experts(3 * ffn * hidden, n_exp, ffn_cfg.opt_int("moe_top_k"), ffn_cfg.field_name("moe_top_k"))
    _lm_head(f, t, hidden, vocab)


def _longcat_flash(f: ConfigReader, t: _Tally) -> None:
    """LongCat-Flash (transformers/models/longcat_flash/modeling_longcat_flash.py LongcatFlashDecoderLayer,
    LongcatFlashMLA, LongcatFlashMoE, LongcatFlashExperts, LongcatFlashTopkRouter). Each of the ``num_layers``
    layers holds two MLA sublayers: q_a ``H*r_q`` + norm ``r_q``, q_b ``r_q*n*qk_head_dim`` (default nope + rope),
    kv_a ``H*(r_kv+rope)`` + norm ``r_kv``, kv_b ``r_kv*n*(nope+v)``, o ``n*v*H`` (biases on q_a, kv_a, o with
    attention_bias); two dense MLPs ``3*H*ffn_hidden_size``; four norms ``4*H``; one shortcut MoE: router
    ``H*(E+Z)`` (+ bias with router_bias; ``Z`` = zero_expert_num identity experts), gate_up_proj
    ``(E+Z)*2*I_e*H`` (the zero experts hold rows too) and down_proj ``E*H*I_e`` (none when ``E`` is 0). Final
    norm ``H``; lm_head ``V*H`` unless tied. ``active`` is refused when zero experts exist: a token's top-k
    mixes identity and real experts, so the parameters it uses vary from token to token. The zero experts'
    gate_up rows (``Z*2*I_e*H`` per layer, 180B for LongCat-Flash's 28 x 256 x 2 x 2048 x 6144) are parameters
    of transformers' module but not of the released checkpoint (560B total on its model card).
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_layers")
    n = f.get_int("num_attention_heads")
    q_rank, kv_rank = f.get_int("q_lora_rank"), f.get_int("kv_lora_rank")
    rope, nope = f.get_int("qk_rope_head_dim", minimum=0), f.get_int("qk_nope_head_dim", minimum=0)
    qk, v = f.opt_int("qk_head_dim") or nope + rope, f.get_int("v_head_dim")
    bias = f.get_bool("attention_bias")
    mla = (_linear(hidden, q_rank, bias) + _linear(q_rank, n * qk) + _linear(hidden, kv_rank + rope, bias)
           + _linear(kv_rank, n * (nope + v)) + _linear(n * v, hidden, bias))
    n_exp, zero = f.get_int("n_routed_experts", minimum=0), f.get_int("zero_expert_num", default=0, minimum=0)
    inter_e, top_k = f.get_int("expert_ffn_hidden_size"), f.get_int("moe_topk")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * 2 * mla)
    t.add("norms", n_layers * (2 * (q_rank + kv_rank) + 4 * hidden) + hidden)
    t.add("mlp", n_layers * 2 * _gated_mlp(hidden, f.get_int("ffn_hidden_size")))
    router = _linear(hidden, n_exp + zero, f.get_bool("router_bias", default=False))
    experts = ((n_exp + zero) * 2 * inter_e * hidden + n_exp * hidden * inter_e) if n_exp else 0
    t.add("mlp", n_layers * (router + experts))
    t.moe_experts += n_layers * experts
    if zero:
        t.null_top_k = f.field_name("moe_topk")
        t.active_reason = (f"active parameters are not counted for longcat_flash with {f.field_name('zero_expert_num')}"
                           f" = {zero}: its top-{top_k} router picks zero-compute (identity) experts too, so the "
                           "parameters a token uses vary from token to token")
    else:
        t.moe_active += n_layers * top_k * 3 * inter_e * hidden
    _lm_head(f, t, hidden, vocab)


def _mlp_kinds(f: ConfigReader, n_layers: int) -> list[int]:
    """The MoE layers of a decoder whose config class derives ``mlp_layer_types`` from the legacy
    ``first_k_dense_replace`` (default 1) and ``moe_layer_freq`` (default 1): "sparse" where ``i >= first`` and
    ``i % freq == 0``, or where a per-layer list of flags says so (AXK2Config / Dots3NoteTextConfig
    ``__post_init__``); a given ``mlp_layer_types`` wins (:func:`_sparse_layers`)."""
    if f.has("mlp_layer_types"):
        return _sparse_layers(f, n_layers)
    first = f.get_int("first_k_dense_replace", default=1, minimum=0)
    if isinstance(f.value("moe_layer_freq"), list):        # one MoE flag per layer (Dots3NoteTextConfig)
        flags = f.opt_list("moe_layer_freq") or []
        return [i for i in range(min(n_layers, len(flags))) if i >= first and flags[i]]
    freq = f.get_int("moe_layer_freq", default=1)
    return [i for i in range(n_layers) if i >= first and i % freq == 0]


def _axk2(f: ConfigReader, t: _Tally) -> None:
    """A.X-K2 (transformers/models/axk2/modeling_axk2.py AXK2DecoderLayer, AXK2Attention, AXK2Indexer,
    AXK2GatedRMSNorm, AXK2MoE). Per layer MLA without q_b_proj: q_a ``H*r_q`` + norm ``r_q``, the fused
    q_gate_proj ``2*r_q*n*(nope+rope+v)``, kv_a ``H*(r_kv+rope)`` + norm ``r_kv``, kv_b ``r_kv*n*(nope+v)``,
    o ``n*v*H`` (biases on q_a, kv_a, o with attention_bias); the DSA indexer on every layer: wq_b
    ``r_q*n_i*d_i``, wk ``H*d_i``, k_norm LayerNorm ``2*d_i``, weights_proj ``H*n_i``. input_layernorm is gated:
    RMSNorm ``H`` + gate MLP fc1 / fc2 ``2*H*gated_norm_rank`` (the gate MLP counted as mlp); post_attention_layernorm
    is gated on MoE layers, a plain RMSNorm ``H`` on dense ones (:func:`_mlp_kinds`). Dense MLP ``3*H*I``; MoE:
    router ``E*H`` (e_score_correction_bias is a buffer), ``E`` experts ``3*H*I_e``, shared experts
    ``3*H*(n_shared*I_e)``. Final norm ``H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n = f.get_int("num_attention_heads")
    q_rank, kv_rank = f.get_int("q_lora_rank"), f.get_int("kv_lora_rank")
    rope, nope = f.get_int("qk_rope_head_dim", minimum=0), f.get_int("qk_nope_head_dim", minimum=0)
    v, bias = f.get_int("v_head_dim"), f.get_bool("attention_bias")
    n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
    attn = (_linear(hidden, q_rank, bias) + _linear(2 * q_rank, n * (nope + rope + v))
            + _linear(hidden, kv_rank + rope, bias) + _linear(kv_rank, n * (nope + v)) + _linear(n * v, hidden, bias))
    attn += q_rank * n_i * d_i + hidden * d_i + hidden * n_i
    gate_mlp = 2 * hidden * f.get_int("gated_norm_rank")
    sparse = _mlp_kinds(f, n_layers)
    n_moe = len(sparse)
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * attn)
    t.add("norms", n_layers * (q_rank + kv_rank + 2 * d_i + 2 * hidden) + hidden)
    t.add("mlp", (n_layers + n_moe) * gate_mlp)
    t.add("mlp", (n_layers - n_moe) * _gated_mlp(hidden, f.get_int("intermediate_size")))
    n_exp, inter_e = f.get_int("n_routed_experts"), f.get_int("moe_intermediate_size")
    shared = f.get_int("n_shared_experts", minimum=0)
    for _ in range(n_moe):
        t.add("mlp", n_exp * hidden + _gated_mlp(hidden, inter_e * shared))
        t.experts(3 * hidden * inter_e, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)


def _hy_v4(f: ConfigReader, t: _Tally) -> None:
    """HY-V4 (transformers/models/hy_v4/modeling_hy_v4.py HYV4DecoderLayer, HYV4Attention, HYV4HyperConnection,
    HYV4HyperHead): DeepSeek-V3.2's MLA, DSA indexer and MoE (:func:`_deepseek`; the indexer only on the "full"
    indexer_types layers; mlp_layer_types, default dense first layer), plus per attention layer gate_proj
    ``H*n*v`` and ``n`` sinks; per layer two hyper-connections (attn_hc, ffn_hc; ``m`` = hc_mult) of fn
    ``2m*m*H``, base ``2m`` and scale ``2``; the model's hc_head: hc_fn ``m*m*H``, hc_base ``m``, hc_scale ``1``
    (the hyper-connections and hc_head counted as other, as GLM-5 Next's)."""
    _deepseek(f, t)
    hidden, n_layers = f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n, v, m = f.get_int("num_attention_heads"), f.get_int("v_head_dim"), f.get_int("hc_mult")
    hc = 2 * m * m * hidden + 2 * m + 2
    t.add("attention", n_layers * (hidden * n * v + n))
    t.add("other", n_layers * 2 * hc + m * m * hidden + m + 1)


# Dots3NoteTextConfig.__post_init__: the sliding layers' MLA geometry when the config gives no per_layer_config
# (each read from the config's swa_<field>, else this value; swa_qk_rope_head_dim defaults to head_dim - nope)
_DOTS3_SWA = {"num_attention_heads": 64, "q_lora_rank": 1024, "kv_lora_rank": 1024, "head_dim": 256,
              "qk_nope_head_dim": 192, "v_head_dim": 128}
_DOTS3_MLA = ("num_attention_heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
              "v_head_dim", "attention_bias")
# per_layer_config fields that hold no parameters (or none of these layers' shapes), read as such
_DOTS3_INERT = ("num_key_value_heads", "head_dim", "sliding_window", "rope_parameters", "rope_theta",
                "partial_rotary_factor", "attention_dropout", "rms_norm_eps", "layer_types", "use_cache")


def _per_layer_config(f: ConfigReader, n_layers: int, counted: tuple[str, ...]) -> list[dict[str, Any]]:
    """transformers' ``per_layer_config`` (layer index -> overridden fields; integer or zero-padded keys,
    ``integrations/heterogeneity``), one dict per layer (empty where the config has none). A field outside
    ``counted`` (the ones the caller reads per layer, or knows to hold no parameters) is refused."""
    overrides: list[dict[str, Any]] = [{} for _ in range(n_layers)]
    if not f.has("per_layer_config"):
        return overrides
    plc = f.raw("per_layer_config")
    if not isinstance(plc, Mapping):
        raise ConfigError(f.field_name("per_layer_config"), plc, "must be an object of layer index -> fields")
    for key, fields in plc.items():
        field = f"{f.path}per_layer_config.{key}"
        try:
            idx = int(key)
        except (TypeError, ValueError):
            raise ConfigError(field, key, "layer index must be an integer") from None
        if not 0 <= idx < n_layers or not isinstance(fields, Mapping):
            raise ConfigError(field, fields, f"must name a layer below {n_layers} and hold an object")
        for name in fields:
            if name not in counted:
                raise UnsupportedError(f"{field}.{name}: a per-layer {name} is not counted for {f.model_type} "
                                       "(kvcalc never guesses a count)")
        overrides[idx] = dict(fields)
    return overrides


def _dots3_layers(f: ConfigReader, n_layers: int) -> tuple[list[str], list[dict[str, Any]]]:
    """Per layer of a Dots3-Note decoder: its attention type and the fields its per-layer config overrides,
    as Dots3NoteTextConfig.__post_init__ derives them: layer_types (default: indexed on layers 0, 1 and
    ``i % 4 == 1``, sliding elsewhere; all indexed with use_sliding_window false); with use_dsa (default true
    unless the config has per_layer_config) "full_attention" reads as "indexed_attention", with use_dsa false
    the other way; per_layer_config (integer layer keys), else the swa_* geometry on every sliding layer."""
    use_dsa = f.data.get("use_dsa", None if f.has("per_layer_config") else True)
    if f.has("layer_types"):
        kinds = list(f.opt_str_list("layer_types") or [])[:n_layers]
        if len(kinds) < n_layers:
            raise ConfigError(f.field_name("layer_types"), f"<{len(kinds)} entries>",
                              f"lists fewer entries than the {n_layers} layers")
    else:
        window = f.get_bool("use_sliding_window", default=True)
        full = "full_attention" if use_dsa is False else "indexed_attention"
        kinds = [full if not window or i < 2 or i % 4 == 1 else "sliding_attention" for i in range(n_layers)]
    if use_dsa is not None:
        old, new = ("full_attention", "indexed_attention") if use_dsa else ("indexed_attention", "full_attention")
        kinds = [new if k == old else k for k in kinds]
    for i, kind in enumerate(kinds):
        if kind not in ("full_attention", "indexed_attention", "sliding_attention"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind,
                              "must be full_attention, indexed_attention or sliding_attention")
    overrides = _per_layer_config(f, n_layers, _DOTS3_MLA + _DOTS3_INERT)
    if not f.has("per_layer_config"):
        swa = {name: f.data.get(f"swa_{name}", value) for name, value in _DOTS3_SWA.items()}
        swa["qk_rope_head_dim"] = f.data.get("swa_qk_rope_head_dim", swa["head_dim"] - swa["qk_nope_head_dim"])
        for i, kind in enumerate(kinds):
            if kind == "sliding_attention":
                overrides[i] = swa
    return kinds, overrides


def _dots3_note_text(f: ConfigReader, t: _Tally) -> None:
    """Dots3-Note text decoder (transformers/models/dots3_note/modeling_dots3_note.py Dots3NoteTextDecoderLayer,
    Dots3NoteTextAttention, Dots3NoteTextIndexer, Dots3NoteTextMoE). Each layer's attention takes its own
    per-layer geometry (:func:`_dots3_layers`): q_a ``H*r_q`` + norm ``r_q``, q_b ``r_q*n*(nope+rope)``, kv_a
    ``H*(r_kv+rope)`` + norm ``r_kv``, kv_b ``r_kv*n*(nope+v)``, o ``n*v*H`` (biases on q_a, kv_a, o with
    attention_bias), k_rope_only_layernorm ``rope``, g_proj ``H*n``; indexed layers add the DSA indexer (wq_b
    ``r_q*n_i*d_i``, wk ``H*d_i``, k_norm LayerNorm ``2*d_i``, weights_proj ``H*n_i``). Two norms ``2*H`` per
    layer; dense MLP ``3*H*I``; MoE layers (:func:`_mlp_kinds`): router ``E*H`` (e_score_correction_bias is a
    buffer), ``E`` experts ``3*H*I_e``, shared experts ``3*H*(n_shared*shared_experts_intermediate_size)``.
    Final norm ``H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
    kinds, overrides = _dots3_layers(f, n_layers)
    t.add("embedding", vocab * hidden)
    for i, kind in enumerate(kinds):
        o = overrides[i]

        def get(name: str, minimum: int = 1, o: dict[str, Any] = o, i: int = i) -> int:
            if name in o:
                return ConfigReader.check_int(f"{f.path}per_layer_config.{i}.{name}", o[name], minimum=minimum)
            return f.get_int(name, minimum=minimum)

        n, q_rank, kv_rank, v = (get("num_attention_heads"), get("q_lora_rank"), get("kv_lora_rank"),
                                 get("v_head_dim"))
        rope, nope = get("qk_rope_head_dim", 0), get("qk_nope_head_dim", 0)
        bias = bool(o["attention_bias"]) if "attention_bias" in o else f.get_bool("attention_bias")
        t.add("attention", _linear(hidden, q_rank, bias) + _linear(q_rank, n * (nope + rope))
              + _linear(hidden, kv_rank + rope, bias) + _linear(kv_rank, n * (nope + v)) + _linear(n * v, hidden, bias)
              + hidden * n)
        t.add("norms", q_rank + kv_rank + rope + 2 * hidden)
        if kind == "indexed_attention":
            t.add("attention", q_rank * n_i * d_i + hidden * d_i + hidden * n_i)
            t.add("norms", 2 * d_i)
    sparse = _mlp_kinds(f, n_layers)
    t.add("mlp", (n_layers - len(sparse)) * _gated_mlp(hidden, f.get_int("intermediate_size")))
    n_exp, inter_e = f.get_int("n_routed_experts"), f.get_int("moe_intermediate_size")
    shared = f.get_int("n_shared_experts") * f.get_int("moe_shared_expert_intermediate_size",
                                                       "shared_experts_intermediate_size")
    for _ in sparse:
        t.add("mlp", n_exp * hidden + _gated_mlp(hidden, shared))
        t.experts(3 * hidden * inter_e, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    t.add("norms", hidden)
    _lm_head(f, t, hidden, vocab)


def _hunyuan_vl_tower(v: ConfigReader, text_hidden: int, hy_v4: bool) -> int:
    """The HunYuan-VL / HY-V4-VL vision tower (modeling_hunyuan_vl.py / modeling_hy_v4_vl.py VisionTransformer /
    VisionModel, VisionPatchEmbed, VisionBlock, VisionAttention, VisionMLP, VisionPatchMerger). Patch conv
    ``C*p*p*H_v + H_v``; position table ``((max_image_size/p)^2 + 1)*H_v``; per layer 2 LayerNorms ``4*H_v``,
    q/k/v/o with biases (``n`` = num_attention_heads, ``d`` = head_dim or ``H_v/n``), fc1 / fc2 with biases;
    merger before_rms ``H_v``. HunYuan-VL's merger (``s`` = spatial_merge_size): proj_conv ``H_v*2H_v*s^2 + 2H_v``,
    proj_out ``2H_v*4H_v + 4H_v``, mlp ``4H_v*H_t + H_t``, image_newline ``4H_v``, image_begin / end / sep and
    after_rms ``4*H_t`` (``H_t`` = the text width, which HunYuanVLConfig copies into text_hidden_size). HY-V4-VL's:
    proj_conv ``H_v*(s^2 H_v)*s^2 + s^2 H_v``, proj_out ``s^2 H_v*O + O``, image_newline ``O``
    (``O`` = out_hidden_size)."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    heads = v.get_int("num_attention_heads")
    d = v.opt_int("head_dim") or hidden // heads
    patch, merge = v.get_int("patch_size"), v.get_int("spatial_merge_size")
    n = _linear(v.get_int("num_channels") * patch * patch, hidden, True)
    n += ((v.get_int("max_image_size") // patch) ** 2 + 1) * hidden
    layer = (4 * hidden + 3 * _linear(hidden, heads * d, True) + _linear(heads * d, hidden, True)
             + _linear(hidden, inter, True) + _linear(inter, hidden, True))
    n += n_layers * layer + hidden
    if hy_v4:
        out, wide = v.get_int("out_hidden_size"), merge * merge * hidden
        return n + _linear(hidden * merge * merge, wide, True) + _linear(wide, out, True) + out
    return (n + _linear(hidden * merge * merge, 2 * hidden, True) + _linear(2 * hidden, 4 * hidden, True)
            + _linear(4 * hidden, text_hidden, True) + 4 * hidden + 4 * text_hidden)


def _hunyuan_vl(top: ConfigReader, t: _Tally) -> None:
    """HunYuanVLForConditionalGeneration / HYV4VLForConditionalGeneration: the text decoder of ``text_config``
    by its own counter (hunyuan_vl_text: the Llama-style reader; hy_v4_vl_text: :func:`_hy_v4`), the vision
    tower (:func:`_hunyuan_vl_tower`, counted as vision), lm_head ``V*H`` unless tied: HunYuan-VL ties with the
    top-level tie_word_embeddings (default true) or the text_config's (HunYuanVLConfig.__post_init__), HY-V4-VL
    with the top-level one (default false). A HunYuan-VL config without text_config keeps its decoder fields at
    the top level, which HunYuanVLConfig folds into the text config; they are read there the same way."""
    entry = _entry(top)
    assert entry.text_type is not None, entry.name
    hy_v4 = entry.name == "hy_v4_vl"
    if not hy_v4 and top.data.get("text_config") is None:
        text = typed(top, entry.text_type)
    else:
        text = _sub_config(top, "text_config", entry.text_type, {})
    text_entry = lookup(text.model_type)
    if text_entry is None or text_entry.name != entry.text_type:
        raise UnsupportedError(f"{top.path}text_config.model_type '{text.model_type}' is not counted for "
                               f"{entry.name} (expected {entry.text_type})")
    vision = _sub_config(top, "vision_config", f"{entry.name}_vision", {})
    inner = _Tally()
    _COUNTERS[text_entry.params or ""](text, inner)
    t.add_decoder(inner)
    hidden, vocab = text.get_int("hidden_size"), text.get_int("vocab_size")
    t.tied = top.get_bool("tie_word_embeddings") or (not hy_v4 and text.get_bool("tie_word_embeddings"))
    if not t.tied:
        t.add("lm_head", vocab * hidden)
    t.add("vision", _hunyuan_vl_tower(vision, hidden, hy_v4))


# Dots3NoteVisionConfig.__post_init__: routed experts per layer when the config lists neither mlp_layer_types nor
# pyramid_num_routed (-1: a dense layer)
_DOTS3_PYRAMID = [-1] * 25 + list(range(4, 65, 4)) + [64]
_DOTS3_VISION_LAYER = ("num_local_experts", "num_experts_per_tok", "moe_intermediate_size", "intermediate_size")


def _dots3_vision(v: ConfigReader) -> tuple[int, int, int]:
    """Dots3-Note's vision tower (modeling_dots3_note.py Dots3NoteVisionModel, VisionPatchEmbed, VisionBlock,
    VisionAttention, VisionMLP, VisionMoE, VisionMerger). Patch conv ``C*p*p*H + H`` + RMSNorm ``H``; per block
    norm1, norm2 ``2*H``, qkv ``H*3H`` and proj ``H*H`` (+ biases with attention_bias), q/k norms ``2*H/n``, then a
    dense MLP ``3*H*I`` (+ biases with mlp_bias) or, on "sparse" layers, a router ``E_i*H`` and ``E_i`` experts
    ``3*H*I_e`` (no shared expert; e_score_correction_bias is a buffer); per-layer ``E_i`` / widths from
    per_layer_config, else from pyramid_num_routed (default 25 dense layers, then 4, 8, ..., 64, 64 experts);
    final RMSNorm ``H``; merger: LayerNorm ``2*A`` and two linears ``A s^2 -> A s^2 -> O`` with biases
    (``A`` = adapter_in_dim, ``s`` = adapter_merge_size, ``O`` = adapter_out_dim). Legacy embed_dim / num_heads /
    use_bias override hidden_size / num_attention_heads / attention_bias, as the config class does. Returns
    (tower parameters, of which routed experts, of those the ones a token uses: ``k_i`` experts per layer, ``k_i``
    = the layer's num_experts_per_tok, default capacity_factor or 2, at most ``E_i``)."""
    hidden, heads = v.get_int("embed_dim", "hidden_size"), v.get_int("num_heads", "num_attention_heads")
    if hidden % heads:
        raise ConfigError(v.field_name("hidden_size"), hidden, f"is not divisible by num_attention_heads ({heads})")
    bias, mlp_bias = v.get_bool("use_bias", "attention_bias"), v.get_bool("mlp_bias")
    n_layers, patch = v.get_int("num_hidden_layers"), v.get_int("patch_size")
    pyramid = v.opt_int_list("pyramid_num_routed", minimum=-1)
    if pyramid is None and not v.has("mlp_layer_types"):
        pyramid = _DOTS3_PYRAMID
    if pyramid is not None:
        kinds = ["sparse" if count > 0 else "dense" for count in pyramid][:n_layers]
    else:
        kinds = (v.opt_str_list("mlp_layer_types") or [])[:n_layers]
    if len(kinds) < n_layers:
        raise ConfigError(v.field_name("mlp_layer_types"), f"<{len(kinds)} entries>",
                          f"lists fewer entries than the {n_layers} layers")
    overrides = _per_layer_config(v, n_layers, _DOTS3_VISION_LAYER)
    top_k = v.opt_int("num_experts_per_tok") or v.get_int("capacity_factor", default=2)
    if pyramid is not None and not v.has("per_layer_config"):
        overrides = [{"num_local_experts": count, "num_experts_per_tok": min(top_k, count)} if count > 0 else {}
                     for count in pyramid[:n_layers]]
    experts = active = 0
    n = _linear(v.get_int("num_channels") * patch * patch, hidden, True) + hidden
    n += n_layers * (2 * hidden + _linear(hidden, 3 * hidden, bias) + _linear(hidden, hidden, bias)
                     + 2 * (hidden // heads))
    for i, kind in enumerate(kinds):
        o = overrides[i]

        def get(name: str, o: dict[str, Any] = o, i: int = i, default: int | None = None) -> int:
            if name in o:
                return ConfigReader.check_int(f"{v.path}per_layer_config.{i}.{name}", o[name])
            return v.get_int(name, default=default)

        if kind == "sparse":
            n_exp, per_expert = get("num_local_experts"), 3 * hidden * get("moe_intermediate_size")
            n += n_exp * hidden + n_exp * per_expert
            experts += n_exp * per_expert
            active += min(get("num_experts_per_tok", default=top_k), n_exp) * per_expert
        elif kind == "dense":
            n += _gated_mlp(hidden, get("intermediate_size"), mlp_bias)
        else:
            raise ConfigError(f"{v.path}mlp_layer_types[{i}]", kind, "must be 'dense' or 'sparse'")
    ctx, merge, out = v.get_int("adapter_in_dim"), v.get_int("adapter_merge_size"), v.get_int("adapter_out_dim")
    wide = ctx * merge * merge
    return n + hidden + 2 * ctx + _linear(wide, wide, True) + _linear(wide, out, True), experts, active


_WHISPER_NAMES = {"hidden_size": "d_model", "num_attention_heads": "encoder_attention_heads",
                  "num_hidden_layers": "encoder_layers", "intermediate_size": "encoder_ffn_dim",
                  "feature_size": "num_mel_bins"}


def _dots3_audio(a: ConfigReader) -> dict[str, int]:
    """Dots3-Note's audio tower (modeling_dots3_note.py Dots3NoteAudioModel, AudioConvStem, AudioLayer,
    AudioAttention, AudioMLP, AudioAdapter). Conv stem: three 3x3 convs ``1 -> D -> D -> D`` with biases
    (``D`` = downsample_hidden_size), conv_out ``D*ceil(F/8)*H`` (``F`` = feature_size); per layer q, v, o
    ``H*H`` + biases with attention_bias, k ``H*H`` without, 2 RMSNorms ``2*H``, gate_up ``H*2I + 2I``, down
    ``I*H + H``; final RMSNorm ``H``; adapter LayerNorm ``2*A_in``, fc1 ``A_in*A_out + A_out``, fc2
    ``A_out*A_out + A_out``. The released checkpoints' whisper_config (d_model, encoder_layers, ...) and
    whisper_adapter_* / adapter_output_size fields override, as Dots3NoteAudioConfig.__post_init__ does.
    By part, as for the other audio towers: convs in other, attention, MLPs and adapter linears in mlp, norms."""
    whisper = a.sub("whisper_config")

    def get(name: str) -> int:
        legacy = _WHISPER_NAMES.get(name)
        if whisper is not None and legacy is not None and whisper.has(legacy):
            return whisper.get_int(legacy)
        return a.get_int(name)

    hidden, heads, n_layers, inter = (get("hidden_size"), get("num_attention_heads"), get("num_hidden_layers"),
                                      get("intermediate_size"))
    if hidden % heads:
        raise ConfigError(a.field_name("hidden_size"), hidden, f"is not divisible by num_attention_heads ({heads})")
    bias, down = a.get_bool("attention_bias"), a.get_int("downsample_hidden_size")
    a_in = a.get_int("whisper_adapter_in_dim", "adapter_input_size")
    a_out = a.get_int("whisper_adapter_out_dim", "adapter_output_size", "adapter_out_dim")
    return {"other": (9 + 1) * down + 2 * (9 * down * down + down) + down * ((get("feature_size") + 7) // 8) * hidden,
            "attention": n_layers * (3 * _linear(hidden, hidden, bias) + hidden * hidden),
            "mlp": n_layers * (_linear(hidden, 2 * inter, True) + _linear(inter, hidden, True))
            + _linear(a_in, a_out, True) + _linear(a_out, a_out, True),
            "norms": n_layers * 2 * hidden + hidden + 2 * a_in}


def _dots3_note(top: ConfigReader, t: _Tally) -> None:
    """Dots3NoteForConditionalGeneration: the dots3_note_text decoder (:func:`_dots3_note_text`; without a
    text_config, the top-level fields, where the published checkpoints keep them: Dots3NoteConfig.__post_init__),
    the vision tower and its merger (:func:`_dots3_vision`, counted as vision; its routed experts also in
    ``moe_experts``, with their top-k in ``active``), the audio tower and adapter
    (:func:`_dots3_audio`); lm_head ``V*H`` unless the top-level tie_word_embeddings
    (default false) ties it."""
    text = typed(top, "dots3_note_text") if top.data.get("text_config") is None else _sub_config(
        top, "text_config", "dots3_note_text", {})
    if text.model_type != "dots3_note_text":
        raise UnsupportedError(f"{top.path}text_config.model_type '{text.model_type}' is not counted for dots3_note "
                               "(expected dots3_note_text)")
    inner = _Tally()
    _dots3_note_text(text, inner)
    t.add_decoder(inner)
    t.tied = top.get_bool("tie_word_embeddings")
    if not t.tied:
        t.add("lm_head", text.get_int("vocab_size") * text.get_int("hidden_size"))
    tower, experts, active = _dots3_vision(_sub_config(top, "vision_config", "dots3_note_vision_encoder", {}))
    t.add("vision", tower)
    t.moe_experts += experts        # routed experts of the tower: in moe_experts and active, though counted as vision
    t.moe_active += active
    for part, n in _dots3_audio(_sub_config(top, "audio_config", "dots3_note_audio_encoder", {})).items():
        t.add(part, n)


_MOE_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    "dbrx": _dbrx, "longcat_flash": _longcat_flash, "axk2": _axk2, "hy_v4": _hy_v4, "dots3_note_text": _dots3_note_text,
    "hunyuan_vl": _hunyuan_vl, "dots3_note": _dots3_note,
}


# ---- INK families (issue 12) ----
def _conv(n_in: int, n_out: int, kernel: int) -> int:
    """A Conv2d ``kernel x kernel`` with bias: ``n_in*n_out*k*k + n_out``."""
    return n_in * n_out * kernel * kernel + n_out


def _chameleon_resnet(n_in: int, n_out: int) -> int:
    """ChameleonVQVAEEncoderResnetBlock: GroupNorm ``2*C_in``, conv 3x3, GroupNorm ``2*C_out``, conv 3x3, and a
    1x1 nin_shortcut when the widths differ."""
    return 2 * n_in + _conv(n_in, n_out, 3) + 2 * n_out + _conv(n_out, n_out, 3) + (
        _conv(n_in, n_out, 1) if n_in != n_out else 0)


def _chameleon_vq(vq: ConfigReader) -> int:
    """ChameleonVQVAE (transformers/models/chameleon/modeling_chameleon.py): the encoder only (no decoder is
    built), conv_in ``3x3 C -> B``; per level ``i`` (widths ``B*m_i``) ``num_res_blocks`` resnet blocks, an
    attention block (GroupNorm + four 1x1 convs) after each where the level's resolution is in
    ``attn_resolutions`` (attn_type "vanilla"), a 3x3 downsample conv except on the last level; mid: two
    resnet blocks around an attention block (vanilla); GroupNorm, conv_out to ``latent_channels`` (doubled with
    double_latent); the codebook ``num_embeddings x embed_dim``; quant_conv / post_quant_conv 1x1."""
    base, mults = vq.get_int("base_channels"), vq.get_int_list("channel_multiplier", minimum=1)
    n_res, latent, embed = vq.get_int("num_res_blocks", minimum=0), vq.get_int("latent_channels"), vq.get_int(
        "embed_dim")
    vanilla = vq.get_str("attn_type") == "vanilla"
    attn_at = set(vq.opt_int_list("attn_resolutions") or ())
    resolution = vq.get_int("resolution")
    attention = lambda c: 2 * c + 4 * _conv(c, c, 1)    # noqa: E731  (ChameleonVQVAEEncoderAttnBlock)
    n = _conv(vq.get_int("in_channels"), base, 3)
    width = base
    for i, mult in enumerate(mults):
        width, out = base * ((1,) + tuple(mults))[i], base * mult
        for _ in range(n_res):
            n += _chameleon_resnet(width, out)
            width = out
            if vanilla and resolution in attn_at:
                n += attention(width)
        if i != len(mults) - 1:
            n += _conv(width, width, 3)
            resolution //= 2
    n += 2 * _chameleon_resnet(width, width) + (attention(width) if vanilla else 0)
    n += 2 * width + _conv(width, 2 * latent if vq.get_bool("double_latent") else latent, 3)
    return n + vq.get_int("num_embeddings") * embed + _conv(latent, embed, 1) + _conv(embed, latent, 1)


def _chameleon(f: ConfigReader, t: _Tally) -> None:
    """ChameleonForConditionalGeneration (modeling_chameleon.py): a Llama decoder whose q_norm / k_norm are
    LayerNorms over ``(heads, head_dim)`` with weight and bias (``2*(n_q + n_kv)*d`` per layer: the entry's
    full_qk_norm gives the weights, the biases are added here; ChameleonSwinDecoderLayer holds the same norms),
    plus the frozen VQ-VAE image tokenizer of ``vq_config`` (:func:`_chameleon_vq`, counted as vision)."""
    _llama_like(f, t)
    n_q, n_kv = _heads(f)
    t.add("norms", f.get_int("num_hidden_layers") * (n_q + n_kv) * (f.get_int("hidden_size") // n_q))
    t.add("vision", _chameleon_vq(_sub_config(f, "vq_config", "chameleon_vqgan", {})))


def _dory(f: ConfigReader, t: _Tally) -> None:
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
    n_q, n_kv = _heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    bias, mlp_bias = f.get_bool("attention_bias"), f.get_bool("mlp_bias")
    attn = (_linear(hidden, n_q * d, bias) + 2 * _linear(hidden, n_kv * d, bias) + _linear(n_q * d, hidden, bias)
            + hidden * n_q * d + 2 * n_q * d)
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * attn)
    t.add("mlp", n_layers * (_gated_mlp(hidden, inter, mlp_bias) + 2 * inter))
    t.add("other", n_layers * 2 * hidden)
    _lm_head(f, t, hidden, vocab)
    t.add("lm_head", vocab)


# ---- VIS1 families (issue 12) ----
def _gemma4_unified(f: ConfigReader, t: _Tally) -> None:
    """Gemma4UnifiedForConditionalGeneration (transformers/models/gemma4_unified/modeling_gemma4_unified.py,
    Gemma4UnifiedModel): the wrapper of :func:`kvcalc.params_vision.count_wrapper` (decoder, optional
    encoder-free vision embedder), plus with an ``audio_config`` the audio embedder
    (Gemma4UnifiedMultimodalEmbedder over raw frames): ``audio_embed_dim -> H_t`` without bias, counted as
    other (its RMSNorm has no scale)."""
    count_wrapper(f, t, _Tally, _COUNTERS)
    if f.data.get("audio_config") is not None:
        audio = _sub_config(f, "audio_config", "gemma4_unified_audio", {})
        text = _sub_config(f, "text_config", "gemma4_unified_text", {})
        t.add("other", audio.get_int("audio_embed_dim") * text.get_int("hidden_size"))


def _untied_wrapper(f: ConfigReader, t: _Tally) -> None:
    """A vision-language wrapper whose lm_head is never tied (Cosmos3EdgeForConditionalGeneration declares
    ``_tied_weights_keys = {}``, so tie_word_embeddings ties nothing): :func:`kvcalc.params_vision.count_wrapper`,
    then lm_head ``V*H_t`` whatever tie_word_embeddings says."""
    count_wrapper(f, t, _Tally, _COUNTERS)
    if t.tied:
        text = _sub_config(f, "text_config", _entry(f).text_type or "", {})
        t.tied = False
        t.add("lm_head", text.get_int("vocab_size") * text.get_int("hidden_size"))


def _apertus1p5(f: ConfigReader, t: _Tally) -> None:
    """Apertus1p5ForConditionalGeneration (transformers/models/apertus1p5/modeling_apertus1p5.py,
    Apertus1p5Model): the apertus1p5_text decoder and its VQ vision tokenizer by
    :func:`kvcalc.params_vision.count_wrapper`, the audio tokenizer of audio_config (always built,
    ``AutoModel.from_config``: a WavTokenizerEncoderModel, :func:`kvcalc.params_vision.wavtokenizer_encoder`)
    counted as other; an untied lm_head is ``O*H`` with ``O`` = output_vocab_size (a pruned head), else ``V``."""
    count_wrapper(f, t, _Tally, _COUNTERS)
    text = _sub_config(f, "text_config", "apertus1p5_text", {})
    audio = _sub_config(f, "audio_config", "wavtokenizer_encoder", {}, {"wavtokenizer_encoder": None})
    t.add("other", wavtokenizer_encoder(audio))
    vocab, out = text.get_int("vocab_size"), text.opt_int("output_vocab_size")
    if out is not None and out > vocab:     # Apertus1p5TextConfig.validate_output_vocab_size
        raise ConfigError(text.field_name("output_vocab_size"), out, f"must be at most vocab_size ({vocab})")
    if out is not None and not t.tied:      # tied, the head is the embedding table (tie_weights), pruned or not
        t.add("lm_head", (out - vocab) * text.get_int("hidden_size"))


def _own_text_wrapper(f: ConfigReader, t: _Tally, text: ConfigReader,
                      counter: Callable[[ConfigReader, _Tally], None]) -> None:
    """A vision-language wrapper whose text model is counted by ``counter`` rather than by its registry entry
    (an encoder-decoder, or a decoder the registry does not count alone): the text model's parts without its
    lm_head, the wrapper's lm_head ``V*H`` unless the top-level tie_word_embeddings ties it, and the tower and
    projector of the entry's ``vision`` (:data:`kvcalc.params_vision.TOWERS`, ``PROJECTORS``) in vision."""
    spec = _entry(f).vision
    assert spec is not None
    inner = _Tally()
    counter(text, inner)
    t.add_decoder(inner)
    _lm_head(f, t, text.get_int("d_model", "hidden_size"), text.get_int("vocab_size"))
    vision = _sub_config(f, "vision_config", spec.tower, spec.vision_defaults, TOWERS)
    tower = TOWERS[vision.model_type](vision)
    t.add("vision", tower + PROJECTORS[spec.projector](f, vision, text, tower))


def _florence2(f: ConfigReader, t: _Tally) -> None:
    """Florence2ForConditionalGeneration (transformers/models/florence2/modeling_florence2.py, Florence2Model):
    :func:`_own_text_wrapper` over the encoder-decoder text model of text_config (``AutoModel``, default BART),
    counted by its own counter, and the DaViT tower (lm_head tied to ``shared`` by default)."""
    text = _sub_config(f, "text_config", "bart", {})
    text_entry = lookup(text.model_type)
    if text_entry is None or text_entry.kind != "encoder_decoder" or text_entry.params is None:
        raise UnsupportedError(f"{f.path}text_config.model_type '{text.model_type}' is not counted for florence2 "
                               "(an encoder-decoder text model kvcalc counts, such as bart, is expected)")
    _own_text_wrapper(f, t, text, _COUNTERS[text_entry.params])


def _git(f: ConfigReader, t: _Tally) -> None:
    """GitForCausalLM (transformers/models/git/modeling_git.py, GitModel): GitEmbeddings: word ``V*H`` and position
    ``P*H`` tables, LayerNorm ``2H``; ``L`` BERT-style GitLayers: query/key/value ``3*(H*H+H)``, output dense
    ``H*H+H`` and LayerNorm ``2H`` (attention), intermediate ``H*I+I``, output ``I*H+H`` (mlp), LayerNorm ``2H``;
    the GitVisionModel of vision_config (CLIP's modules: :data:`kvcalc.params_vision.TOWERS`'s CLIP count), the
    GitProjection ``H_v*H+H`` + LayerNorm ``2H`` and, with num_image_with_embedding ``k``, ``k`` temporal
    embeddings ``H_v`` (vision); output ``V*H`` (unless tie_word_embeddings ties it to the word table) and its
    bias ``V``, kept when tied (lm_head)."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    inter = f.get_int("intermediate_size")
    hidden_per_head(f, hidden, f.get_int("num_attention_heads"))
    t.add("embedding", (vocab + f.get_int("max_position_embeddings")) * hidden)
    t.add("norms", 2 * hidden + n_layers * 4 * hidden)
    t.add("attention", n_layers * 4 * _linear(hidden, hidden, True))
    t.add("mlp", n_layers * (_linear(hidden, inter, True) + _linear(inter, hidden, True)))
    vision = _sub_config(f, "vision_config", "git_vision_model", {}, {"git_vision_model": None})
    hv = vision.get_int("hidden_size")
    frames = f.opt_int("num_image_with_embedding", minimum=0) or 0
    t.add("vision", TOWERS["clip_vision_model"](vision) + _linear(hv, hidden, True) + 2 * hidden + frames * hv)
    _lm_head(f, t, hidden, vocab)
    t.add("lm_head", vocab)


def _diffusion_gemma(f: ConfigReader, t: _Tally) -> None:
    """DiffusionGemmaForBlockDiffusion (transformers/models/diffusion_gemma/modeling_diffusion_gemma.py): one set of
    decoder weights (DiffusionGemmaModel ties the decoder's layers and embeddings to the encoder's
    language_model, lm_head to the embedding) counted as a Gemma 4 wrapper (:func:`kvcalc.params_vision.
    count_wrapper`: the diffusion_gemma_text decoder by :func:`_gemma4_text` with its MoE block always on and
    no v_proj on full layers, the Gemma 4 vision tower and embed_vision), plus the decoder's
    DiffusionGemmaSelfConditioning: gate / up ``H*I``, down ``I*H`` and pre_norm ``H`` (post_norm has no scale);
    the projector (encoder.embed_vision) is counted with the vision tower, as Gemma 4's.
    With tie_word_embeddings false transformers ties nothing (``_tied_weights_keys`` apply only when tying):
    the decoder then holds its own copy of the embedding, layers and final norm."""
    count_wrapper(f, t, _Tally, _COUNTERS)
    text = _sub_config(f, "text_config", "diffusion_gemma_text", {})
    hidden = text.get_int("hidden_size")
    t.add("other", _gated_mlp(hidden, text.get_int("intermediate_size")))
    t.add("norms", hidden)                                  # self_conditioning.pre_norm
    if not t.tied:
        copy = _Tally()
        _gemma4_text(text, copy)
        for part, n in copy.parts.items():
            if part != "lm_head":
                t.add(part, n)
        t.moe_experts += copy.moe_experts
        t.moe_active += copy.moe_active


def _mistral_large4_text(f: ConfigReader, t: _Tally) -> None:
    """MistralLarge4TextModel (transformers/models/mistral_large4/modeling_mistral_large4.py): DSA attention with
    no q LoRA and NoPE layers, then dense-first MoE.

    Per layer ``i`` (``rope_i`` = qk_rope_head_dim where no_rope_layers[i] is 1, else 0; ``nope_i`` =
    qk_nope_head_dim + rope - rope_i): q_proj ``H*n*(nope+rope)``; unless the layer reuses another's latent
    (kv_source_layers[i] != i) kv_a_proj_with_mqa ``H*(r+rope_i)`` (+ bias) and kv_a_layernorm ``r``; kv_b_proj
    ``r*n*(nope_i+v)``; o_proj ``n*v*H`` (+ bias); softmax_scaling ``2*n``; on "full" indexer_types layers the
    MistralLarge4TextIndexer: wq_b ``H*n_i*d_i``, wk ``H*d_i``, k_norm LayerNorm ``2*d_i``, weights_proj
    ``H*n_i``, q_input_norm LayerNorm ``2*H``, softmax_scaling ``2*n_i``. Two norms ``2*H``; MLP: dense ``3*H*I``
    on the dense layers (:func:`_sparse_layers`), else router ``E*H``, shared experts ``3*H*(n_shared*I_e)``,
    ``E`` experts ``3*H*I_e``. Embedding ``V*H``, final norm ``H``, the rotary embedding's LeRoPE ``alpha``
    (one per frequency: ``rope/2``), lm_head ``V*H`` unless tied."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n, rank = f.get_int("num_attention_heads"), f.get_int("kv_lora_rank")
    rope, nope, v_dim = f.get_int("qk_rope_head_dim"), f.get_int("qk_nope_head_dim"), f.get_int("v_head_dim")
    bias = f.get_bool("attention_bias")
    flags = f.opt_int_list("no_rope_layers") or [int((i + 1) % 4 != 0) for i in range(n_layers)]
    sources = f.opt_int_list("kv_source_layers") or list(range(n_layers))
    if f.has("indexer_types"):
        indexed = [kind != "shared" for kind in (f.opt_str_list("indexer_types") or [])]
    elif f.has("index_topk_pattern", "index_topk_freq"):
        raise UnsupportedError("mistral_large4 with index_topk_pattern / index_topk_freq but no indexer_types: "
                               "kvcalc does not derive which layers hold an indexer")
    else:
        indexed = [True] * n_layers
    if min(len(flags), len(sources), len(indexed)) < n_layers:
        raise ConfigError(f.field_name("num_hidden_layers"), n_layers, "exceeds the per-layer lists "
                          "(no_rope_layers, kv_source_layers, indexer_types)")
    n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
    indexer = hidden * n_i * d_i + hidden * d_i + hidden * n_i + 2 * n_i
    t.add("embedding", vocab * hidden)
    for i in range(n_layers):
        rope_i = rope if flags[i] else 0
        attn = hidden * n * (nope + rope) + rank * n * (nope + rope - rope_i + v_dim)
        attn += _linear(n * v_dim, hidden, bias) + 2 * n
        if sources[i] == i:
            attn += _linear(hidden, rank + rope_i, bias)
            t.add("norms", rank)
        if indexed[i]:
            attn += indexer
            t.add("norms", 2 * d_i + 2 * hidden)
        t.add("attention", attn)
    t.add("norms", 2 * hidden * n_layers + hidden)
    t.add("other", rope // 2)
    sparse = _sparse_layers(f, n_layers)
    t.add("mlp", (n_layers - len(sparse)) * _gated_mlp(hidden, f.get_int("intermediate_size")))
    n_exp, exp_inter = f.get_int("n_routed_experts"), f.get_int("moe_intermediate_size")
    for _ in sparse:
        t.add("mlp", n_exp * hidden + _gated_mlp(hidden, exp_inter * f.get_int("n_shared_experts", minimum=0)))
        t.experts(3 * hidden * exp_inter, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)


def _inkling_text(f: ConfigReader, t: _Tally) -> None:
    """InklingForCausalLM (transformers/models/inkling/modeling_inkling.py). Per layer ``i`` (``hybrid_sliding``
    layers take the swa_* heads, KV heads and head dim, the others the global ones; ``K`` the short-conv width):
    InklingAttention q ``H*n*d``, k / v ``H*n_kv*d``, r_proj ``H*n*d_rel``, o ``n*d*H``, k_sconv / v_sconv
    ``n_kv*d*K`` (depthwise, no bias), q_norm / k_norm ``d``, rel_logits_proj ``d_rel x extent`` (the window on
    sliding layers, rel_extent else); MLP: "sparse" mlp_layer_types (default: all but the first ``dense_mlp_idx``)
    InklingMoE = router ``(E + S)*H + 1`` (its global_scale), ``E`` experts ``3*H*I_e``, ``S`` shared experts
    ``3*H*I_e``; "dense" InklingMLP ``3*H*I + 1``; two norms ``2*H``, attn_sconv / mlp_sconv ``H*K``. Embedding
    ``V*H`` + embed_norm ``H``, final norm ``H``, lm_head ``V*H`` (never tied: ``_tied_weights_keys = {}``). A
    checkpoint's dense_intermediate_size is the dense width and its intermediate_size the experts' (the config
    class swaps them)."""
    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kernel = f.opt_int("sconv_kernel_size") or f.get_int("conv_kernel_size")
    d_rel = f.get_int("d_rel")
    if f.has("dense_intermediate_size"):
        dense_inter, exp_inter = f.get_int("dense_intermediate_size"), f.get_int("intermediate_size")
    else:
        dense_inter, exp_inter = f.get_int("intermediate_size"), f.get_int("moe_intermediate_size")
    if f.has("mlp_layer_types"):
        mlp_kinds = (f.opt_str_list("mlp_layer_types") or [])[:n_layers]
    else:
        first = f.get_int("dense_mlp_idx", default=0, minimum=0)
        mlp_kinds = ["dense" if i < first else "sparse" for i in range(n_layers)]
    n_exp, n_shared = f.get_int("n_routed_experts"), f.get_int("n_shared_experts", minimum=0)
    t.add("embedding", vocab * hidden)
    for i, kind in enumerate(layer_types(f, m, n_layers)):
        pre = "swa_" if kind == "hybrid_sliding" else ""
        n, n_kv = f.get_int(f"{pre}num_attention_heads"), f.get_int(f"{pre}num_key_value_heads")
        d = f.get_int(f"{pre}head_dim")
        extent = f.get_int("sliding_window_size") if pre else f.get_int("rel_extent")
        t.add("attention", 2 * hidden * n * d + 2 * hidden * n_kv * d + hidden * n * d_rel + 2 * n_kv * d * kernel
              + d_rel * extent)
        t.add("norms", 2 * d + 2 * hidden)
        t.add("attention", hidden * kernel)     # attn_sconv
        t.add("mlp", hidden * kernel)           # mlp_sconv
        if i < len(mlp_kinds) and mlp_kinds[i] == "sparse":
            t.add("mlp", (n_exp + n_shared) * hidden + 1 + n_shared * 3 * hidden * exp_inter)
            t.experts(3 * hidden * exp_inter, n_exp, f.opt_int("num_experts_per_tok"),
                      f.field_name("num_experts_per_tok"))
        else:
            t.add("mlp", _gated_mlp(hidden, dense_inter) + 1)
    t.add("norms", 2 * hidden)
    _lm_head(f, t, hidden, vocab, tied=False)


def _inkling2_text(f: ConfigReader, t: _Tally) -> None:
    """Inkling2ForCausalLM / Inkling2LoopForCausalLM (transformers/models/inkling2/modeling_inkling2.py,
    inkling2_loop/modeling_inkling2_loop.py). Per layer ``i`` (swa_* geometry on ``hybrid_sliding``
    layers, ``K`` = conv_kernel_size, alias sconv_kernel_size): the block-attention-residual queries
    (attention_input ``H``, ``3*H`` on full layers, none on layer 0; mlp_input ``H``); q ``H*n*d`` + its clip
    scale ``n*d``; k / v ``H*n_kv*d`` each, with a short conv ``n_kv*d*K`` on sliding layers or, on full layers,
    a dynamic one (static_weight ``K*n_kv*d``, weight_proj ``H*n_kv*K``); the gated output projection
    ``2*H*n*d``; sink_proj ``H*n``; the relative position bias (linear ``H*n*d_rel``, clip scale ``n*d_rel``, proj
    ``d_rel x extent``: the window on sliding layers, rel_extent else); a MoE block of every layer (router
    ``E*H``, ``E`` experts ``3*H*I_e``; intermediate_size is an alias of moe_intermediate_size); norms ``2*H``
    (full layers: q / k / v input norms and the post-attention norm, ``4*H``); post-attention / post-MLP convs
    ``2*H*K``. Embedding ``V*H`` + embed_norm ``H``, final norm ``H``, final_input ``H``; lm_head
    ``unpadded_vocab_size * H`` (the padded rows are dropped on load), never tied (``_tied_weights_keys = {}``).
    Inkling2-Loop's loop layers add four message gates ``4*H*r`` each (``r`` = loop_gate_rank), and the model a
    message_input of ``4*H`` per loop layer."""
    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kernel, d_rel = f.get_int("sconv_kernel_size", "conv_kernel_size"), f.get_int("d_rel")
    n_exp = f.get_int("n_routed_experts", "num_local_experts")
    exp_inter = f.get_int("moe_intermediate_size", "intermediate_size")
    top_k = f.opt_int("num_experts_per_tok")
    t.add("embedding", vocab * hidden)
    for i, kind in enumerate(layer_types(f, m, n_layers)):
        sliding = kind == "hybrid_sliding"
        pre = "swa_" if sliding else ""
        n, n_kv = f.get_int(f"{pre}num_attention_heads"), f.get_int(f"{pre}num_key_value_heads")
        d = f.get_int(f"{pre}head_dim")
        extent = f.get_int("sliding_window_size") if sliding else f.get_int("rel_extent")
        conv = n_kv * d * kernel if sliding else kernel * n_kv * d + hidden * n_kv * kernel
        t.add("attention", 3 * hidden * n * d + n * d + 2 * (hidden * n_kv * d + conv) + hidden * n
              + hidden * n * d_rel + n * d_rel + d_rel * extent)
        t.add("attention", (0 if i == 0 else hidden if sliding else 3 * hidden) + hidden * kernel)
        t.add("mlp", n_exp * hidden + hidden + hidden * kernel)     # router, mlp_input, post_mlp_convolution
        t.experts(3 * hidden * exp_inter, n_exp, top_k, f.field_name("num_experts_per_tok"))
        t.add("norms", (2 if sliding else 4) * hidden)
    if "loop_passes" in m.quirks:
        # Inkling2LoopSliding/FullLoopDecoderLayer: four Inkling2LoopMessageGate (down_proj 2H -> r, forget and
        # message gate projections r -> H) per loop layer; Inkling2LoopMessageAttentionResidual: 4 queries of H each
        start, end = f.get_int("loop_layer_index_start", minimum=0), f.get_int("loop_layer_index_end")
        n_loop, gate = max(min(end, n_layers) - start, 0), 4 * hidden * f.get_int("loop_gate_rank")
        t.add("mlp", n_loop * gate)                 # mlp_message_gate
        t.add("other", n_loop * 3 * gate + (end - start) * 4 * hidden)     # q / k / v gates, message_input
    t.add("norms", 2 * hidden)
    t.add("other", hidden)
    t.add("lm_head", (f.opt_int("unpadded_vocab_size") or vocab) * hidden)


def _inkling2(f: ConfigReader, t: _Tally) -> None:
    """Inkling2ForConditionalGeneration / Inkling2LoopForConditionalGeneration: the text decoder of text_config
    (:func:`_inkling2_text`, its lm_head included) and Inkling2VisionModel (modeling_inkling2.py), counted as vision:
    patch_embedding ``C*p*p*H_v`` (no bias), position table ``g*g*H_v`` (posemb_grid_size ``g``), class embedding
    and its position ``2*H_v``, pre_layernorm ``2*H_v``; per layer q / k / v / out ``4*(H_v*H_v + H_v)``, MLP
    ``H_v*I + I + I*H_v + H_v`` (``I`` = intermediate_size, else mlp_ratio * H_v), two LayerNorms ``4*H_v`` and
    lambda_1 / lambda_2 ``2*H_v``; the merger linear_1 ``m*m*H_v -> P``, linear_2 ``P -> text_hidden_size`` (+
    biases with projector_bias)."""
    entry = _entry(f)
    assert entry.text_type is not None
    text = _sub_config(f, "text_config", entry.text_type, {})
    _inkling2_text(text, t)
    v = _sub_config(f, "vision_config", "inkling2_vision", {"text_hidden_size": text.get_int("hidden_size")})
    hv = v.get_int("hidden_size")
    inter = v.opt_int("intermediate_size") or int(hv * v.get_float("mlp_ratio"))
    patch, grid, merge = v.get_int("patch_size"), v.get_int("posemb_grid_size"), v.get_int("spatial_merge_size")
    proj, bias = v.get_int("projection_hidden_dim"), v.get_bool("projector_bias")
    out = v.opt_int("text_hidden_size") or text.get_int("hidden_size")
    n = v.get_int("num_channels") * patch * patch * hv + grid * grid * hv + 4 * hv
    n += v.get_int("num_hidden_layers", minimum=0) * (4 * _linear(hv, hv, True) + _linear(hv, inter, True)
                                                     + _linear(inter, hv, True) + 6 * hv)
    t.add("vision", n + _linear(merge * merge * hv, proj, bias) + _linear(proj, out, bias))


_V4_RATIO_TYPES = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}


def _deepseek_v4_types(f: ConfigReader, n_layers: int) -> tuple[list[str], dict[str, int]]:
    """DeepseekV4Config.__post_init__: the attention type of each layer (layer_types, else the legacy Hub
    compress_ratios 0 / 4 / 128, else two HCA layers then CSA / HCA alternating) and the compress rate of
    each compressed type (compress_rates, else 4 and 128; the legacy compress_rate_csa / _hca override)."""
    if f.has("layer_types"):
        types = (f.opt_str_list("layer_types") or [])[:n_layers]
    elif f.has("compress_ratios"):
        ratios = f.get_int_list("compress_ratios")[:n_layers]
        if any(r not in _V4_RATIO_TYPES for r in ratios):
            raise ConfigError(f.field_name("compress_ratios"), ratios, "entries must be 0, 4 or 128")
        types = [_V4_RATIO_TYPES[r] for r in ratios]
    else:
        types = (["heavily_compressed_attention"] * min(n_layers, 2)
                 + ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention"
                    for i in range(max(n_layers - 2, 0))])
    for i, kind in enumerate(types):
        if kind not in _V4_RATIO_TYPES.values():
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be sliding_attention, "
                              "compressed_sparse_attention or heavily_compressed_attention")
    raw = f.value("compress_rates")
    rates = dict(raw) if isinstance(raw, Mapping) else {"compressed_sparse_attention": 4,
                                                          "heavily_compressed_attention": 128}
    for field, kind in (("compress_rate_csa", "compressed_sparse_attention"),
                        ("compress_rate_hca", "heavily_compressed_attention")):
        if f.has(field):
            rates[kind] = f.get_int(field)
    return types, {k: ConfigReader.check_int(f"{f.path}compress_rates.{k}", v) for k, v in rates.items()}


def _deepseek_v4(f: ConfigReader, t: _Tally) -> None:
    """DeepseekV4ForCausalLM (transformers/models/deepseek_v4/modeling_deepseek_v4.py). Per layer (``d`` head_dim,
    ``r_q`` q_lora_rank, ``g`` o_groups, ``r_o`` o_lora_rank, ``N`` hc_mult, ``E`` experts of width ``I_e``):
    DeepseekV4Attention q_a ``H*r_q`` + q_a_norm ``r_q``, q_b ``r_q*n*d``, kv_proj ``H*d`` + kv_norm ``d``,
    the grouped o_a ``(n*d/g)*(g*r_o)``, o_b ``g*r_o*H``, sinks ``n``; the compressor of its type
    (:func:`_deepseek_v4_types`; none on sliding_attention): HCA kv / gate ``H*d`` each, position_bias
    ``rate*d``, kv_norm ``d``; CSA the same at ``2*d`` (kv_norm ``d``) plus its DeepseekV4Indexer (kv / gate
    ``H*2*d_i``, position_bias ``rate*2*d_i``, kv_norm ``d_i``, q_b ``r_q*n_i*d_i``, weights_proj ``H*n_i``);
    DeepseekV4SparseMoeBlock: router ``E*H`` (hash or top-k: the hash table tid2eid is a buffer), ``E`` experts
    ``3*H*I_e``, a shared expert ``3*H*I_e`` (intermediate_size is an alias of moe_intermediate_size); two norms
    ``2*H``; two DeepseekV4HyperConnection (fn ``(2+N)*N x N*H``, base ``(2+N)*N``, scale 3). Model: embedding
    ``V*H``, norm ``H``, DeepseekV4HyperHead (``N x N*H`` + ``N`` + 1), lm_head ``V*H`` unless tied. The MTP
    layers (num_nextn_predict_layers) are not built."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n, d, q_rank = f.get_int("num_attention_heads"), f.get_int("head_dim"), f.get_int("q_lora_rank")
    groups, o_rank, hc = f.get_int("o_groups"), f.get_int("o_lora_rank"), f.get_int("hc_mult")
    n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
    n_exp, exp_inter = f.get_int("n_routed_experts", "num_local_experts"), f.get_int("moe_intermediate_size",
                                                                                     "intermediate_size")
    mlp_bias = f.get_bool("mlp_bias")
    if (n * d) % groups:
        raise ConfigError(f.field_name("o_groups"), groups, f"must divide num_attention_heads x head_dim ({n * d})")
    types, rates = _deepseek_v4_types(f, n_layers)
    if len(types) < n_layers:
        raise ConfigError(f.field_name("layer_types"), f"<{len(types)} entries>", f"lists fewer than {n_layers}")
    attn = (hidden * q_rank + q_rank * n * d + hidden * d + (n * d // groups) * groups * o_rank
            + groups * o_rank * hidden + n)
    mix = (2 + hc) * hc
    t.add("embedding", vocab * hidden)
    for kind in types:
        t.add("attention", attn)
        t.add("norms", q_rank + d + 2 * hidden)
        if kind == "heavily_compressed_attention":
            t.add("attention", 2 * hidden * d + rates[kind] * d)
            t.add("norms", d)
        elif kind == "compressed_sparse_attention":
            t.add("attention", 4 * hidden * d + rates[kind] * 2 * d + 4 * hidden * d_i + rates[kind] * 2 * d_i
                  + q_rank * n_i * d_i + hidden * n_i)
            t.add("norms", d + d_i)
        t.add("mlp", n_exp * hidden + _gated_mlp(hidden, exp_inter, mlp_bias))
        t.experts(3 * hidden * exp_inter, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
        t.add("other", 2 * (mix * hc * hidden + mix + 3))   # attn_hc and ffn_hc (hyper-connections: other)
    t.add("norms", hidden)
    t.add("other", hc * hc * hidden + hc + 1)
    _lm_head(f, t, hidden, vocab)


def _conv3d(n_in: int, n_out: int, kt: int, kh: int, kw: int) -> int:
    """A Conv3d with bias: ``n_in*n_out*kt*kh*kw + n_out``."""
    return n_in * n_out * kt * kh * kw + n_out


def _emu3_vq(vq: ConfigReader) -> int:
    """Emu3VQVAE (transformers/models/emu3/modeling_emu3.py): encoder, decoder, codebook and the two 3x1x1 quant
    convs. ``B`` base_channels, ``m`` channel_multiplier, ``q`` embed_dim, ``l`` latent_channels, ``R``
    num_res_blocks, ``a`` the attention block (q / k / v / out over hidden_size: ``4*(h*h + h)``).
    Resnet block: two norms (GroupNorm ``2C``, or in the decoder Emu3VQVAESpatialNorm ``2C + 2*(q*C + C)``), two
    3x3 convs, a 1x1 nin_shortcut when the widths differ. Encoder: conv_in, per level ``R`` blocks (an attention
    block + GroupNorm after each on levels listed in attn_resolutions) and a 3x3 downsample but on the last; the
    middle block (resnet, attention + its norm, resnet) at ``B*m[-1]``; GroupNorm, conv_out to ``l`` (doubled
    with double_latent); ``log2(temporal_downsample_factor)`` 4x3x3 temporal downsample convs and ``R`` temporal
    resnets (two BatchNorm3d ``2C``, two 3x3x3 convs). Decoder: ``R`` temporal resnets and ``log2(t)`` 3x3x3
    temporal upsample convs on ``l``, conv_in ``l -> B*m[-1]``, the middle block with spatial norms, per level
    (from the last) ``R + 1`` blocks (attention + spatial norm on attn_resolutions levels) and a 3x3 upsample but
    on level 0; spatial norm_out, conv_out to out_channels."""
    base, mults = vq.get_int("base_channels"), vq.get_int_list("channel_multiplier", minimum=1)
    n_res, latent, q = vq.get_int("num_res_blocks", minimum=0), vq.get_int("latent_channels"), vq.get_int("embed_dim")
    attn_at = set(vq.opt_int_list("attn_resolutions") or ())
    h = vq.get_int("hidden_size")
    attention = 4 * _linear(h, h, True)
    steps = int(math.log2(vq.get_int("temporal_downsample_factor")))

    def spatial(c: int) -> int:
        return 2 * c + 2 * _conv(q, c, 1)

    def resnet(n_in: int, n_out: int, quant: bool) -> int:
        norms = spatial(n_in) + spatial(n_out) if quant else 2 * n_in + 2 * n_out
        return norms + _conv(n_in, n_out, 3) + _conv(n_out, n_out, 3) + (_conv(n_in, n_out, 1) if n_in != n_out else 0)

    def temporal(c: int) -> int:
        return 4 * c + 2 * _conv3d(c, c, 3, 3, 3)

    top = base * mults[-1]
    out = 2 * latent if vq.get_bool("double_latent") else latent
    n = _conv(vq.get_int("in_channels"), base, 3)
    for i, mult in enumerate(mults):
        width = base * ((1,) + tuple(mults))[i]
        for _ in range(n_res):
            n += resnet(width, base * mult, False)
            width = base * mult
            if i in attn_at:
                n += attention + 2 * width
        if i != len(mults) - 1:
            n += _conv(width, width, 3)
    n += 2 * resnet(top, top, False) + attention + 2 * top + 2 * top + _conv(top, out, 3)
    n += steps * _conv3d(out, out, 4, 3, 3) + n_res * temporal(out)
    # decoder
    n += n_res * temporal(latent) + steps * _conv3d(latent, latent, 3, 3, 3) + _conv(latent, top, 3)
    n += 2 * resnet(top, top, True) + attention + spatial(top)
    width = top
    for i in reversed(range(len(mults))):
        for _ in range(n_res + 1):
            n += resnet(width, base * mults[i], True)
            width = base * mults[i]
            if i in attn_at:
                n += attention + spatial(width)
        if i != 0:
            n += _conv(width, width, 3)
    n += spatial(base * mults[0]) + _conv(base * mults[0], vq.get_int("out_channels"), 3)
    return n + vq.get_int("codebook_size") * q + _conv3d(latent, q, 3, 1, 1) + _conv3d(q, latent, 3, 1, 1)


def _emu3(f: ConfigReader, t: _Tally) -> None:
    """Emu3ForConditionalGeneration (modeling_emu3.py): the emu3_text_model decoder of text_config (Llama
    modules, :func:`_llama_like`), lm_head ``V*H`` unless the top-level tie_word_embeddings ties it, and the
    frozen VQ-VAE image tokenizer of vq_config (:func:`_emu3_vq`, counted as vision)."""
    text = _sub_config(f, "text_config", "emu3_text_model", {})
    _llama_like(text, t, head=False)
    _lm_head(f, t, text.get_int("hidden_size"), text.get_int("vocab_size"))
    t.add("vision", _emu3_vq(_sub_config(f, "vq_config", "emu3_vqgan", {})))


_INK_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    "emu3": _emu3,
    "deepseek_v4": _deepseek_v4,
    "inkling2": _inkling2,
    "inkling2_text": _inkling2_text,
    "inkling_text": _inkling_text,
    "mistral_large4_text": _mistral_large4_text,
    "chameleon": _chameleon, "dory": _dory, "diffusion_gemma": _diffusion_gemma,
}


def _ernie4_5_vl_moe_text(f: ConfigReader, t: _Tally) -> None:
    """ERNIE-4.5-VL's MoE decoder (transformers/models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py,
    Ernie4_5_VLMoeTextModel): embedding ``V*H``; per layer q/k/v/o ``H*n_q*d + 2*H*n_kv*d + n_q*d*H`` (biases
    with use_bias), 2 RMSNorms ``2H``; a "dense" layer of mlp_layer_types (default: the first) a gated MLP
    ``3*H*I``; a "sparse" layer an Ernie4_5_VLMoeMoeBlock: text_moe and vision_moe, each a router ``E*H`` plus its
    e_score_correction_bias ``E`` (a parameter) and ``E`` experts ``3*H*I_m`` (``I_text, I_vision`` =
    moe_intermediate_size), and with moe_num_shared_experts ``s`` a shared gated MLP of ``s*I_text``; final norm
    ``H``; lm_head ``V*H`` unless tied. ``active`` is a text token's: moe_k text experts (the vision experts only
    serve image and video tokens)."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = _heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    bias = f.get_bool("use_bias")
    kinds = f.opt_str_list("mlp_layer_types") or ["dense"] + ["sparse"] * (n_layers - 1)
    if len(kinds) != n_layers or not set(kinds) <= {"dense", "sparse"}:
        raise ConfigError(f.field_name("mlp_layer_types"), f"<{len(kinds)} entries>",
                          f"must list 'dense' or 'sparse' for each of the {n_layers} layers")
    widths = f.get_int_list("moe_intermediate_size", minimum=1)
    if len(widths) != 2:
        raise ConfigError(f.field_name("moe_intermediate_size"), widths, "must be [text width, vision width]")
    n_experts, top_k = f.get_int("moe_num_experts"), f.get_int("moe_k")
    shared = f.get_int("moe_num_shared_experts", minimum=0)
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (_linear(hidden, n_q * d, bias) + 2 * _linear(hidden, n_kv * d, bias)
                                   + _linear(n_q * d, hidden, bias)))
    t.add("norms", n_layers * 2 * hidden + hidden)
    for kind in kinds:
        if kind == "dense":
            t.add("mlp", _gated_mlp(hidden, f.get_int("intermediate_size"), bias))
            continue
        for width, k in zip(widths, (top_k, 0)):      # text experts, then vision experts (none for a text token)
            t.add("mlp", n_experts * hidden + n_experts)
            t.experts(3 * hidden * width, n_experts, k, f.field_name("moe_k"))
        if shared:
            t.add("mlp", _gated_mlp(hidden, widths[0] * shared, bias))
    _lm_head(f, t, hidden, vocab)


def _deepseek_ocr2_text(f: ConfigReader, t: _Tally) -> None:
    """DeepSeek-OCR-2's decoder (transformers/models/deepseek_ocr2/modeling_deepseek_ocr2.py,
    DeepseekOcr2TextModel): embedding ``V*H``; per layer q/k/v/o ``H*n_q*d + 2*H*n_kv*d + n_q*d*H`` with
    ``d = H/n_q`` (DeepseekOcr2TextConfig overwrites head_dim) and biases with attention_bias, 2 RMSNorms
    ``2H``; a "dense" layer of mlp_layer_types a gated MLP ``3*H*I`` (biases with mlp_bias), a "sparse" one
    DeepseekOcr2TextMoe: router ``E*H``, ``E`` experts ``3*H*I_e`` (moe_intermediate_size), shared experts one
    gated MLP of ``n_shared*I_e``; final norm ``H``; lm_head ``V*H`` unless tied. mlp_layer_types has no class
    default (transformers cannot build the decoder without it); a null num_experts_per_tok (the class default)
    leaves ``active`` undefined."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = _heads(f)
    d = hidden_per_head(f, hidden, n_q)
    attn_bias, mlp_bias = f.get_bool("attention_bias"), f.get_bool("mlp_bias")
    kinds = f.opt_str_list("mlp_layer_types")
    if kinds is None:
        raise ConfigError(f.field_name("mlp_layer_types"), None, "is required: DeepseekOcr2TextConfig has no default "
                                                                 "and transformers cannot build the decoder without it")
    if len(kinds) != n_layers or not set(kinds) <= {"dense", "sparse"}:
        raise ConfigError(f.field_name("mlp_layer_types"), f"<{len(kinds)} entries>",
                          f"must list 'dense' or 'sparse' for each of the {n_layers} layers")
    n_experts, width = f.get_int("n_routed_experts"), f.get_int("moe_intermediate_size")
    shared = f.get_int("n_shared_experts", minimum=0)
    top_k = f.opt_int("num_experts_per_tok")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (_linear(hidden, n_q * d, attn_bias) + 2 * _linear(hidden, n_kv * d, attn_bias)
                                   + _linear(n_q * d, hidden, attn_bias)))
    t.add("norms", n_layers * 2 * hidden + hidden)
    for kind in kinds:
        if kind == "dense":
            t.add("mlp", _gated_mlp(hidden, f.get_int("intermediate_size"), mlp_bias))
            continue
        t.add("mlp", n_experts * hidden + _gated_mlp(hidden, width * shared, mlp_bias))
        t.experts(3 * hidden * width, n_experts, top_k, f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)


def _deepseek_ocr2(f: ConfigReader, t: _Tally) -> None:
    """DeepseekOcr2ForConditionalGeneration (modeling_deepseek_ocr2.py): :func:`_own_text_wrapper` over the
    text_config, always built as DeepseekOcr2TextConfig (:func:`_deepseek_ocr2_text`), with the SAM + Qwen2-style
    vision tower and projector."""
    text = _sub_config(f, "text_config", "deepseek_ocr2_text", {})
    if text.model_type != "deepseek_ocr2_text":
        raise UnsupportedError(f"{f.path}text_config.model_type '{text.model_type}': deepseek_ocr2 builds its "
                               "text_config as deepseek_ocr2_text whatever type it names; kvcalc will not guess")
    _own_text_wrapper(f, t, text, _deepseek_ocr2_text)


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
    layer = 4 * _linear(width, width, True) + 4 * width + _linear(width, inter, True) + _linear(inter, width, True)
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


def _evolla(f: ConfigReader, t: _Tally) -> None:
    """EvollaForProteinText2Text (transformers/models/evolla/modeling_evolla.py, EvollaModel): a Llama-style
    decoder (:func:`_llama_like`: attention biases with attention_bias, MLP biases with mlp_bias); on every
    layer ``i`` with ``(i+1) % max(L // aligner_num_add_layers, 1) == 0`` an EvollaSequenceAlignerCrossAttention
    adapter: query, key_protein, value_protein ``3*(H*A + A)`` (``A = n_q * (H // n_q)``), out_proj ``H*H``
    (+ ``H`` with aligner_enable_bias) and 2 gates (attention), attention_norm ``H`` and the feed-forward's
    LayerNorm ``2H`` (norms), feed-forward ``2*H*(H*m)`` without biases (``m`` = aligner_ffn_mult, mlp); the
    protein encoder of protein_encoder_config (:func:`_saprot`) and the EvollaSequenceCompressorResampler
    (latents ``N*P``; per resampler_depth: 2 LayerNorms ``4P``, to_q ``P*D``, to_kv ``P*2D``, to_out ``D*P``
    with ``D`` = resampler_dim_head * resampler_heads, a feed-forward LayerNorm ``2P`` and ``2*P*(P*r)``;
    LayerNorm ``2H``, protein_projector ``P*H + H``), counted as vision (the modality encoder); lm_head ``V*H``,
    never tied (the class declares no tied weights)."""
    _llama_like(f, t, head=False)
    hidden, n_layers, n_q = f.get_int("hidden_size"), f.get_int("num_hidden_layers"), f.get_int("num_attention_heads")
    every = max(n_layers // f.get_int("aligner_num_add_layers"), 1)
    n_adapters = sum(1 for i in range(n_layers) if (i + 1) % every == 0)
    heads_width = n_q * (hidden // n_q)
    ffn = hidden * f.get_int("aligner_ffn_mult")
    t.add("attention", n_adapters * (3 * _linear(hidden, heads_width, True)
                                     + _linear(hidden, hidden, f.get_bool("aligner_enable_bias")) + 2))
    t.add("norms", n_adapters * 3 * hidden)
    t.add("mlp", n_adapters * 2 * hidden * ffn)
    protein = _protein_encoder_config(f)
    width = protein.get_int("hidden_size")
    inner = f.get_int("resampler_dim_head") * f.get_int("resampler_heads")
    ff = width * f.get_int("resampler_ff_mult")
    resampler = f.get_int("resampler_num_latents") * width + f.get_int("resampler_depth") * (
        4 * width + width * inner + width * 2 * inner + inner * width + 2 * width + 2 * width * ff)
    t.add("vision", _saprot(protein) + resampler + 2 * hidden + _linear(width, hidden, True))
    _lm_head(f, t, hidden, f.get_int("vocab_size"), tied=False)


_VIS1_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    "gemma4_unified": _gemma4_unified, "untied_wrapper": _untied_wrapper, "apertus1p5": _apertus1p5,
    "florence2": _florence2, "git": _git, "ernie4_5_vl_moe_text": _ernie4_5_vl_moe_text,
    "deepseek_ocr2": _deepseek_ocr2, "evolla": _evolla,
}


# ---- VIS2 families (issue 12) ----
def _molmo2_text(f: ConfigReader, t: _Tally) -> None:
    """Molmo2TextModel (modeling_molmo2.py): a Llama-style decoder (:func:`_llama_like`; q/k/v biases with
    attention_bias, o_proj none) whose embed_tokens holds ``V + additional_vocab_size`` rows (lm_head ``V``).
    Molmo2Attention's q/k RMSNorms are per head (``2d``) with qk_norm_type "qwen3" and over the whole projections
    (``n_q*d + n_kv*d``) with "olmo"."""
    _llama_like(f, t)
    hidden = f.get_int("hidden_size")
    t.add("embedding", f.get_int("additional_vocab_size", minimum=0) * hidden)
    norm_type = f.get_str("qk_norm_type")
    if norm_type not in ("qwen3", "olmo"):
        raise ConfigError(f.field_name("qk_norm_type"), norm_type, "must be 'qwen3' or 'olmo'")
    if norm_type == "olmo":
        n_q, n_kv = _heads(f)
        d = head_dim_or_derived(f, hidden, n_q)
        t.add("norms", f.get_int("num_hidden_layers") * ((n_q + n_kv) * d - 2 * d))


# Step checkpoint names Step3p7TextConfig maps (attribute_map, __post_init__) that the counter does not read
_STEP3P5_LEGACY = ("num_attention_groups", "moe_top_k", "share_expert_dims", "moe_layers_enum",
                   "attention_other_setting")


def _step3p5(f: ConfigReader, t: _Tally) -> None:
    """Step3p7TextModel (modeling_step3p7.py; text model_type step3p5): :func:`_llama_like` with Step3p7Attention's
    q/k RMSNorms ``2d`` and its g_proj ``H -> n_q`` (gating true / "per-head") or ``H -> n_q*d``, dense
    Step3p7MLPs on the "dense" mlp_layer_types (default: the first 3) and Step3p7SparseMoeBlocks elsewhere
    (router ``E*H``, experts ``3*H*I_e``, one shared Step3p7MLP of share_expert_dim). Per-layer head counts
    (per_layer_config, num_sliding_attention_heads on sliding layers) other than num_attention_heads are refused,
    and so is mlp_bias (the shared expert's biases are not counted)."""
    for legacy in _STEP3P5_LEGACY:
        if f.data.get(legacy) is not None:
            raise UnsupportedError(f"{f.path}{legacy}: a Step checkpoint field name (remapped by Step3p7TextConfig) "
                                   "kvcalc does not read; give the transformers names (num_key_value_heads, "
                                   "num_experts_per_tok, share_expert_dim, mlp_layer_types, "
                                   "num_sliding_attention_heads)")
    n_q = f.get_int("num_attention_heads")
    kinds = f.opt_str_list("layer_types") or []
    sliding = f.opt_int("num_sliding_attention_heads")
    if sliding is not None and sliding != n_q and "sliding_attention" in kinds:
        raise UnsupportedError(f"{f.path}num_sliding_attention_heads: {sliding} heads on sliding layers (not "
                               f"{n_q}) is not counted (per-layer head counts)")
    per_layer = f.value("per_layer_config")
    if isinstance(per_layer, Mapping):
        for idx, layer in per_layer.items():
            if not isinstance(layer, Mapping) or set(layer) - {"num_attention_heads"} or \
                    layer.get("num_attention_heads", n_q) != n_q:
                raise UnsupportedError(f"{f.path}per_layer_config[{idx}]: per-layer attention settings other than "
                                       f"num_attention_heads = {n_q} are not counted")
    elif per_layer is not None:
        raise ConfigError(f.field_name("per_layer_config"), per_layer, "must be a JSON object")
    if f.get_bool("mlp_bias"):
        raise UnsupportedError(f"{f.path}mlp_bias: true is not counted for step3p5 (shared-expert biases)")
    _llama_like(f, t)


def _muse_text(f: ConfigReader, t: _Tally) -> None:
    """MuseGlimmerTextModel (modeling_muse_glimmer.py): :func:`_llama_like` with MuseGlimmerTextAttention's
    gate_proj ``H -> n_q*d`` (no bias; the ``gated_q_proj`` quirk), four MuseGlimmerTextCenteredRMSNorms ``4H`` per
    layer, a final RMSNorm ``H``; the q/k norm and the embedding norm hold no weights. attention_bias is refused
    (gated_q_proj would count a bias on the gate, which has none)."""
    if f.get_bool("attention_bias"):
        raise UnsupportedError(f"{f.path}attention_bias: true is not counted for {f.model_type}")
    _llama_like(f, t)


def _muse_spark_text(f: ConfigReader, t: _Tally) -> None:
    """MuseSparkTextModel (modeling_muse_spark.py). Embedding ``V*H`` (its norm holds no weight); per layer
    MuseSparkTextAttention as Muse Glimmer's (q/k/v/o ``2*H*n_q*d + 2*H*n_kv*d`` and gate_proj ``H*n_q*d``, no
    biases; weightless q/k and o norms), 3 weighted norms ``3H`` (input, pre- and post-feedforward; the
    post-attention norm has no weight) and 2 MuseSparkResidualGates ``2H`` (counted as ``other``); a "sparse"
    mlp_layer_types layer (default: all) holds MuseSparkMoE: router ``E*H``, pre_expert_proj ``H*M``,
    pre_expert_norm ``M``, experts ``E*3*M*I_e``, post_expert_norm ``M``, post_expert_proj ``M*H`` (``M`` =
    moe_hidden_size, ``I_e`` = moe_intermediate_size); a "dense" one MuseSparkTextMLP ``3*H*I``. Final norm
    ``H``; lm_head ``V*H`` unless tied."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    if f.get_bool("attention_bias"):
        raise UnsupportedError(f"{f.path}attention_bias: true is not counted for {f.model_type}")
    n_q, n_kv = _heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    kinds = f.opt_str_list("mlp_layer_types") or ["sparse"] * n_layers
    if len(kinds) != n_layers or set(kinds) - {"sparse", "dense"}:
        raise ConfigError(f.field_name("mlp_layer_types"), kinds,
                          f"must list 'sparse' or 'dense' for each of the {n_layers} layers")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (3 * hidden * n_q * d + 2 * hidden * n_kv * d))
    t.add("norms", n_layers * 3 * hidden + hidden)
    t.add("other", n_layers * 2 * hidden)
    n_sparse = kinds.count("sparse")
    t.add("mlp", (n_layers - n_sparse) * _gated_mlp(hidden, f.get_int("intermediate_size")))
    if n_sparse:
        width, n_exp = f.get_int("moe_hidden_size"), f.get_int("num_local_experts")
        for _ in range(n_sparse):
            t.add("mlp", n_exp * hidden + 2 * hidden * width)
            t.add("norms", 2 * width)
            t.experts(3 * width * f.get_int("moe_intermediate_size"), n_exp, f.opt_int("num_experts_per_tok"),
                      f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)


def _phi4_multimodal(f: ConfigReader, t: _Tally) -> None:
    """Phi4MultimodalForCausalLM (modeling_phi4_multimodal.py): a Phi-3 decoder at the top level of the config
    (:func:`_llama_like`: fused qkv_proj ``H*(n_q*d + 2*n_kv*d)``, o_proj, gate_up / down, no biases; lm_head tied
    by tie_word_embeddings) and the image and audio embedders Phi4MultimodalModel.embed_tokens_extend holds,
    counted as ``vision`` (:func:`kvcalc.params_vision.phi4_multimodal_embeds`)."""
    _llama_like(f, t)
    t.add("vision", phi4_multimodal_embeds(f))


def _muse_spark(f: ConfigReader, t: _Tally) -> None:
    """MuseSparkForConditionalGeneration (modeling_muse_spark.py): the wrapper of
    :func:`kvcalc.params_vision.count_wrapper` (decoder, vision tower, adapter) plus the audio tower MuseSparkModel
    always builds (:func:`kvcalc.params_vision.muse_spark_audio`), counted as ``vision`` except its final RMSNorm
    (``norms``)."""
    count_wrapper(f, t, _Tally, _COUNTERS)
    audio, final_norm = muse_spark_audio(f)
    t.add("vision", audio - final_norm)
    t.add("norms", final_norm)


_VIS2_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    "muse_spark": _muse_spark,
    "phi4_multimodal": _phi4_multimodal,
    "muse_spark_text": _muse_spark_text,
    "muse_text": _muse_text,
    "molmo2_text": _molmo2_text, "step3p5": _step3p5,
}


# ---- S2S families (issue 12) ----
_S2S_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    # Nemotron 3.5 Transcribe: its nemotron_h text decoder counted by _nemotron_h (lm_head included, never tied)
    "nemo_speechlm": functools.partial(nemo_speechlm, _nemotron_h),
    # EncoderDecoderModel: BERT / RoBERTa stacks in params_seq2seq, a GPT-2 decoder by _gpt2 (add_cross_attention)
    "encoder_decoder": functools.partial(encoder_decoder, {"gpt2": _gpt2}),
}


# ---- HYB families (issue 12) ----
def _mla_attention(f: ConfigReader, hidden: int, n: int) -> tuple[int, int]:
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
        attn, norms = _linear(hidden, n * qk), 0
    else:
        attn, norms = _linear(hidden, q_rank, bias) + _linear(q_rank, n * qk), q_rank
    attn += (_linear(hidden, kv_rank + rope, bias) + _linear(kv_rank, n * (nope + v_dim))
             + _linear(n * v_dim, hidden, bias))
    return attn, norms + kv_rank


def _glm5_indexed(f: ConfigReader, kinds: list[str]) -> int:
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


def _kda_hybrid(f: ConfigReader, t: _Tally, head: bool = True) -> None:
    """Kimi Linear and Bailing hybrid (transformers/models/kimi_linear/modeling_kimi_linear.py
    KimiLinearDecoderLayer, KimiLinearDeltaAttention, KimiLinearForgetGate, KimiLinearMoE;
    bailing_hybrid/modeling_bailing_hybrid.py BailingHybridDeltaAttention, BailingHybridForgetGate).

    ``V*H`` embedding; per layer input / post-attention norms ``2*H``; as attention (each layer's self_attn module,
    either kind) "full_attention" layers MLA
    (:func:`_mla_attention`; Bailing adds g_proj ``H*n``), "linear_attention" layers Kimi delta attention with
    ``h`` heads of ``d`` (:func:`kvcalc.model_types.kda_dims`), ``D = h*d``: q/k/v ``3*H*D``, conv1d ``3*D*K``
    (no bias), b_proj ``H*h``, o_proj ``D*H``, gated o_norm ``d``, the forget gate's dt_bias ``D`` and A_log
    ``h``, and low-rank gates (Kimi: f_a / g_a ``H*d``, f_b / g_b ``d*D`` each) or full ones (Bailing, quirk
    ``kda_full_gates``: f_proj and g_proj ``H*D`` each). MLP: "sparse" mlp_layer_types (else from
    first_k_dense_replace) are MoE layers (:func:`_moe`: router ``E*H``, its e_score_correction_bias a buffer,
    ``E`` experts ``3*H*I_e``, a shared gated MLP of ``n_shared*I_e``), the others gated ``3*H*I``. Final norm
    ``H``; lm_head ``V*H``, never tied (both classes' _tied_weights_keys are empty). The MTP layers
    (num_nextn_predict_layers) are not built.

    GLM-5 Next's decoder (glm5_next/modeling_glm5_next.py Glm5NextTextDecoderLayer, quirk ``glm5_next_hc``):
    "indexed_attention" (or "full_attention") layers are MLA with a DSA indexer where :func:`_glm5_indexed` says
    (Glm5NextTextIndexer: wq_b ``r_q*n_i*d_i``, wk ``H*d_i``, k_norm LayerNorm ``2*d_i``, weights_proj ``H*n_i``,
    index_kpool_compress_ape ``P*d_i``, index_kpool_compress_gate ``d_i*H``), the KDA layers as Kimi's, and every
    layer two hyper-connections (attn_hc, ffn_hc: fn ``(2+m)*m * m*H``, base ``(2+m)*m``, scale 3; ``m`` =
    hc_mult; counted as other); its dense-first MLP layers default to the first 3.
    """
    m = _entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n = f.get_int("num_attention_heads")
    glm5 = "glm5_next_hc" in m.quirks
    kinds = layer_types(f, m, n_layers)
    for i, kind in enumerate(kinds):
        if kind not in ("full_attention", "linear_attention") and not (glm5 and kind == "indexed_attention"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be full_attention or linear_attention"
                              + (" or indexed_attention" if glm5 else ""))
    n_full = n_layers - kinds.count("linear_attention")
    heads, d, kernel = kda_dims(f)
    qkv = heads * d
    gates = 2 * hidden * qkv if "kda_full_gates" in m.quirks else 2 * (hidden * d + d * qkv)
    kda = 3 * hidden * qkv + 3 * qkv * kernel + hidden * heads + qkv * hidden + qkv + heads + gates
    mla, mla_norms = _mla_attention(f, hidden, n)
    if "mla_head_gate" in m.quirks:
        mla += hidden * n
    t.add("embedding", vocab * hidden)
    t.add("attention", n_full * mla + (n_layers - n_full) * kda)    # KDA is the layer's self_attn module
    t.add("norms", n_layers * 2 * hidden + n_full * mla_norms + (n_layers - n_full) * d + hidden)
    moe = _moe(f, m, hidden, n_layers)
    n_moe = len(moe.layers) if moe else 0
    if moe:
        for _ in moe.layers:
            t.add("mlp", moe.fixed)
            t.experts(moe.per_expert, moe.n_experts, moe.top_k, moe.top_k_field)
    t.add("mlp", (n_layers - n_moe) * _gated_mlp(hidden, f.get_int("intermediate_size")))
    if glm5:
        n_i, d_i, mult = f.get_int("index_n_heads"), f.get_int("index_head_dim"), f.get_int("hc_mult")
        n_idx = _glm5_indexed(f, kinds)
        t.add("attention", n_idx * (f.get_int("q_lora_rank") * n_i * d_i + hidden * d_i + hidden * n_i
                                    + f.get_int("index_kpool") * d_i + d_i * hidden))
        t.add("norms", n_idx * 2 * d_i)
        t.add("other", n_layers * 2 * ((2 + mult) * mult * (mult * hidden + 1) + 3))
    if head:
        _lm_head(f, t, hidden, vocab, tied=False)   # _tied_weights_keys is empty: tie_word_embeddings ties nothing


def _lfm3_vl_vision(v: ConfigReader) -> int:
    """Lfm3VlVisionModel (transformers/models/lfm3_vl/modeling_lfm3_vl.py): patch_embed ``C*T*p*p*H`` (a linear
    layer, no bias), embedding_norm ``H``; per layer operator_norm and ffn_norm ``2*H``, MLP w1/w3/w2 ``3*H*I``
    and either attention (Lfm3VlVisionAttention: ``d = H/n``, q/out ``2*H*n*d``, k/v ``2*H*n_kv*d``, q/k norms
    ``2*d``) or a short convolution (Lfm3VlVisionShortConv: in_proj ``H*3H``, depthwise spatial_conv ``H*k*k``,
    out_proj ``H*H``; all without biases). Layers: ``layer_types``, else Lfm3VlVisionConfig.__post_init__'s
    "conv" for ``i < 2`` or odd ``i``, "full_attention" otherwise."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    n_q, n_kv = _heads(v)
    d = hidden_per_head(v, hidden, n_q)
    kinds = v.opt_str_list("layer_types") or ["conv" if i < 2 or i % 2 else "full_attention" for i in range(n_layers)]
    if len(kinds) < n_layers:
        raise ConfigError(v.field_name("layer_types"), f"<{len(kinds)} entries>", f"lists fewer than {n_layers}")
    n_conv = kinds[:n_layers].count("conv")
    patch, kernel = v.get_int("patch_size"), v.get_int("conv_kernel_size")
    n = v.get_int("in_channels") * v.get_int("temporal_patch_size") * patch * patch * hidden + hidden
    n += (n_layers - n_conv) * (2 * hidden * n_q * d + 2 * hidden * n_kv * d + 2 * d)
    n += n_conv * (4 * hidden * hidden + hidden * kernel * kernel)
    return n + n_layers * (_gated_mlp(hidden, inter) + 2 * hidden)


def _lfm3_vl(top: ConfigReader, t: _Tally) -> None:
    """Lfm3VlForConditionalGeneration (transformers/models/lfm3_vl/modeling_lfm3_vl.py): the lfm3 decoder of
    ``text_config`` (:func:`_lfm2`), the vision tower (:func:`_lfm3_vl_vision`) and Lfm3VlMultiModalProjector:
    LayerNorm ``2*H_v``, linear_1 ``H_v*m^2 -> P``, linear_2 ``P -> H_t`` (biases with projector_bias; ``m`` the
    vision spatial_merge_size, ``P`` projector_hidden_size). lm_head ``V*H_t`` unless the top-level
    tie_word_embeddings (default true) ties it."""
    text = _sub(top, "text_config", "lfm3", ("lfm3",))
    vision = _sub(top, "vision_config", "lfm3_vl_vision", ("lfm3_vl_vision",))
    _lfm2(text, t, head=False)
    hidden_t, hidden_v = text.get_int("hidden_size"), vision.get_int("hidden_size")
    _lm_head(top, t, hidden_t, text.get_int("vocab_size"))
    proj, bias = top.get_int("projector_hidden_size"), top.get_bool("projector_bias")
    merged = hidden_v * vision.get_int("spatial_merge_size") ** 2
    t.add("vision", _lfm3_vl_vision(vision) + 2 * hidden_v + _linear(merged, proj, bias)
          + _linear(proj, hidden_t, bias))


def _zamba(f: ConfigReader, t: _Tally) -> None:
    """Zamba and Zamba2 (transformers/models/zamba/modeling_zamba.py ZambaModel, ZambaMambaMixer,
    ZambaAttentionDecoderLayer; zamba2/modeling_zamba2.py Zamba2Model.get_layers, Zamba2MambaMixer, Zamba2Attention,
    Zamba2MLP). ``V*H`` embedding; every layer (``layers_block_type``, legacy "mamba" = "linear_attention") holds
    an input norm ``H`` and a Mamba mixer, "hybrid" layers also a linear ``H*H`` and a shared attention block.

    Zamba's mixer (``I = mamba_expand*H``, ``R`` = mamba_dt_rank, "auto" ``ceil(H/16)``, ``N`` = mamba_d_state):
    in_proj ``H*2I``, conv1d ``I*K`` (+ ``I`` with mamba_conv_bias), x_proj ``I*(R+2N)``, dt_proj ``I*R + I``, A_log
    ``I*N``, D ``I``, out_proj ``I*H`` (in/out biases with mamba_proj_bias). Zamba2's (quirk ``zamba2_blocks``; ``h``
    = n_mamba_heads, ``C = I + 2*G*N``): in_proj ``H*(I + C + h)``, conv1d ``C*K + C`` (always a bias), dt_bias,
    A_log, D ``h`` each, gated norm ``I``, out_proj ``I*H`` (biases with add_bias_linear).

    Shared blocks (``A`` = attention_hidden_size, default ``2H``; ``d`` = attention_head_dim, default ``2H/n``):
    q/k/v from ``A``: ``A*n*d + 2*A*n_kv*d``, o_proj ``n*d*H``, norms ``A + H``; Zamba: one block for all hybrid
    layers (tied to the first), gated MLP ``3*H*I_ff``; Zamba2: min(num_mem_blocks, hybrids) blocks (the others
    tied), MLP gate_up ``H*2I_ff`` + down ``I_ff*H`` (+ biases with add_bias_linear); block ``b`` holds a LoRA
    adapter ``H*r + r*2I_ff`` on gate_up (+ ``3*2*A*r`` on q/k/v with use_shared_attention_adapter; ``r`` =
    adapter_rank; counted with the MLP and the attention) for each hybrid layer ``i`` with
    ``i % num_mem_blocks == b``. Without tie_word_embeddings
    transformers ties nothing (PreTrainedModel.get_expanded_tied_weights_keys), so every hybrid layer keeps its
    own block, adapters included. Final norm ``H``; lm_head ``V*H`` unless tied (default tied).
    """
    m = _entry(f)
    zamba2 = "zamba2_blocks" in m.quirks
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = [_LEGACY_LAYER_TYPES.get(k, k) for k in layer_types(f, m, n_layers)]
    for i, kind in enumerate(kinds):
        if kind not in ("linear_attention", "hybrid"):
            raise ConfigError(f"{f.path}layers_block_type[{i}]", kind, "must be linear_attention (mamba) or hybrid")
    n_hybrid = kinds.count("hybrid")
    n_q, n_kv = _heads(f)
    width = f.opt_int("attention_hidden_size") or 2 * hidden
    d = f.opt_int("attention_head_dim") or 2 * hidden // n_q
    inter = int(f.get_float("mamba_expand") * hidden)
    n_state, kernel = f.get_int("mamba_d_state"), f.get_int("mamba_d_conv")
    ff = f.opt_int("intermediate_size") or 4 * hidden
    tied = f.get_bool("tie_word_embeddings")    # without it transformers ties nothing, the shared blocks neither
    attn = width * n_q * d + 2 * width * n_kv * d + n_q * d * hidden
    if zamba2:
        heads, bias = f.get_int("n_mamba_heads"), f.get_bool("add_bias_linear")
        conv = inter + 2 * f.get_int("mamba_ngroups") * n_state
        mixer = (_linear(hidden, inter + conv + heads, bias) + conv * kernel + conv + 3 * heads
                 + _linear(inter, hidden, bias))
        n_mem = f.get_int("num_mem_blocks")
        n_blocks = min(n_mem, n_hybrid) if tied else n_hybrid
        rank = f.get_int("adapter_rank")
        adapter = hidden * rank + rank * 2 * ff
        if f.get_bool("use_shared_attention_adapter"):
            adapter += 3 * 2 * width * rank
        mlp = _linear(hidden, 2 * ff, bias) + _linear(ff, hidden, bias)
        # block b holds the adapters of the hybrid layers i with i % num_mem_blocks == b (c_b of them)
        per_block = [len(range(b, n_hybrid, n_mem)) for b in range(min(n_mem, n_hybrid))]
        n_adapters = sum(per_block) if tied else sum(c * c for c in per_block)
        t.add("mlp", n_adapters * (hidden * rank + rank * 2 * ff))
        t.add("attention", n_adapters * (adapter - hidden * rank - rank * 2 * ff))
        t.add("norms", n_layers * inter)
    else:
        rank_value = f.value("mamba_dt_rank")
        rank = ceil_div(hidden, 16) if rank_value == "auto" else ConfigReader.check_int(
            f.field_name("mamba_dt_rank"), rank_value)
        bias = f.get_bool("mamba_proj_bias")
        mixer = (_linear(hidden, 2 * inter, bias) + inter * kernel + (inter if f.get_bool("mamba_conv_bias") else 0)
                 + inter * (rank + 2 * n_state) + inter * rank + inter + inter * n_state + inter
                 + _linear(inter, hidden, bias))
        n_blocks = min(1, n_hybrid) if tied else n_hybrid
        mlp = _gated_mlp(hidden, ff)
    t.add("embedding", vocab * hidden)
    t.add("mixer", n_layers * mixer)
    t.add("other", n_hybrid * hidden * hidden)
    t.add("attention", n_blocks * attn)
    t.add("mlp", n_blocks * mlp)
    t.add("norms", n_layers * hidden + n_blocks * (width + hidden) + hidden)
    _lm_head(f, t, hidden, vocab, tied)


def _olmo_hybrid(f: ConfigReader, t: _Tally) -> None:
    """OLMo Hybrid (transformers/models/olmo_hybrid/modeling_olmo_hybrid.py OlmoHybridAttentionDecoderLayer,
    OlmoHybridLinearAttentionDecoderLayer, OlmoHybridGatedDeltaNet): :func:`_llama_like` (full q/k norms on the
    attention layers; two norms per layer of either kind) over the gated-DeltaNet geometry OlmoHybridConfig derives
    (:func:`kvcalc.model_types.olmo_hybrid_linear`); its q/k/v/g/a/b projections hold what Qwen3-Next's
    in_proj_qkvz + in_proj_ba do."""
    _llama_like(olmo_hybrid_linear(f), t)


def _glm5_next_vision(v: ConfigReader) -> int:
    """Glm5NextVisionModel (transformers/models/glm5_next/modeling_glm5_next.py): Conv3d patch embed
    ``C*t*p*p*H + H``; ``depth`` blocks of 2 RMSNorms ``2H``, qkv ``H*3H`` and proj ``H*H`` (+ ``3H + H`` with
    attention_bias), q/k norms ``2*d`` (``d = H / num_heads``), gated MLP ``3*H*I`` (+ ``2I + H`` with
    attention_bias); downsample conv ``H*O*m^2 + O`` (``O`` = out_hidden_size); the patch merger to ``O``
    (kvcalc.params_vision._glm_merger, context projection_intermediate_size); post RMSNorm ``H``. RoPE only:
    no position table."""
    hidden, depth = v.get_int("hidden_size"), v.get_int("depth", "num_hidden_layers")
    heads, inter = v.get_int("num_heads", "num_attention_heads"), v.get_int("intermediate_size")
    out = v.get_int("out_hidden_size")
    d = hidden_per_head(v, hidden, heads)
    merge, patch, bias = v.get_int("spatial_merge_size"), v.get_int("patch_size"), v.get_bool("attention_bias")
    n = v.get_int("in_channels") * v.get_int("temporal_patch_size") * patch * patch * hidden + hidden
    n += depth * (2 * hidden + _linear(hidden, 3 * hidden, bias) + _linear(hidden, hidden, bias) + 2 * d
                  + 2 * _linear(hidden, inter, bias) + _linear(inter, hidden, bias))
    return n + hidden * out * merge * merge + out + _glm_merger(out, v.get_int("projection_intermediate_size")) + hidden


def _glm5_next(top: ConfigReader, t: _Tally) -> None:
    """Glm5NextForConditionalGeneration (transformers/models/glm5_next/modeling_glm5_next.py): the glm5_next_text
    decoder of ``text_config`` (:func:`_kda_hybrid`; a flat config's own top-level fields, which
    Glm5NextConfig.__post_init__ takes as text_config), the vision tower (:func:`_glm5_next_vision`, the projector
    inside it); lm_head ``V*H`` unless the top-level tie_word_embeddings (default false) ties it."""
    text = (_sub(top, "text_config", "glm5_next_text", ("glm5_next_text",)) if top.data.get("text_config") is not None
            else typed(top, "glm5_next_text"))
    vision = _sub(top, "vision_config", "glm5_next_vision", ("glm5_next_vision",))
    _kda_hybrid(text, t, head=False)
    _lm_head(top, t, text.get_int("hidden_size"), text.get_int("vocab_size"))
    t.add("vision", _glm5_next_vision(vision))


def _zaya(f: ConfigReader, t: _Tally) -> None:
    """Zaya (transformers/models/zaya/modeling_zaya.py ZayaModel, ZayaDecoderLayer, ZayaCCAProjection, ZayaQKNorm,
    ZayaRouter, ZayaRouterMLP, ZayaExperts, ZayaResidualScaling). ``V*H`` embedding and the input scale / bias
    ``2*H`` (other). Per layer: CCA attention (``d`` = head_dim, ``C = (n_q + n_kv)*d``): q_proj ``H*n_q*d``,
    k_proj ``H*n_kv*d``, v_proj_current and v_proj_delayed ``H*n_kv*d/2`` each, o_proj ``n_q*d*H`` (biases on
    all with attention_bias), a depthwise conv ``C*k_0 + C`` and a grouped conv (``n_q + n_kv`` groups)
    ``C*d*k_1 + C`` (``k_0, k_1`` = cca_time0, cca_time1), the q/k norm's temp ``n_kv``; 2 norms ``2*H`` and two
    residual scalings ``8*H`` (counted as norms, as Doge's); a MoE of ``E`` experts ``3*H*I_e`` and its router
    (``R`` = router_hidden_size): down_proj ``H*R + R``, router_states_scale ``R`` on every layer but the first,
    an MLP of a norm ``R`` (norms), fc1 / fc2 ``2*(R*R + R)`` and out_proj ``R*(E+1)`` (a skip expert). Final
    norm ``H``; lm_head ``V*H`` unless tied (default tied), + a bias ``V`` with lm_head_bias. The balancing
    biases are buffers.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = _heads(f)
    d, bias = f.get_int("head_dim"), f.get_bool("attention_bias")
    channels = (n_q + n_kv) * d
    attn = (_linear(hidden, n_q * d, bias) + _linear(hidden, n_kv * d, bias) + 2 * _linear(hidden, n_kv * d // 2, bias)
            + _linear(n_q * d, hidden, bias) + channels * f.get_int("cca_time0") + channels
            + channels * d * f.get_int("cca_time1") + channels + n_kv)
    n_exp, inter, router = f.get_int("num_experts"), f.get_int("moe_intermediate_size"), f.get_int("router_hidden_size")
    gate = _linear(hidden, router, True) + 2 * _linear(router, router, True) + router * (n_exp + 1)
    t.add("embedding", vocab * hidden)
    t.add("other", 2 * hidden)
    t.add("attention", n_layers * attn)
    t.add("norms", n_layers * (2 * hidden + 8 * hidden + router) + hidden)
    top_k = f.opt_int("num_experts_per_tok")
    if top_k != 1:      # ZayaConfig.validate_architecture
        raise ConfigError(f.field_name("num_experts_per_tok"), top_k, "must be 1: transformers' Zaya routes one expert")
    for i in range(n_layers):
        t.add("mlp", gate + (router if i else 0))
        t.experts(3 * hidden * inter, n_exp, top_k, f.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)
    if f.get_bool("lm_head_bias"):
        t.add("lm_head", vocab)


_HYB_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    "kda_hybrid": _kda_hybrid, "lfm3_vl": _lfm3_vl, "zamba": _zamba, "olmo_hybrid": _olmo_hybrid, "zaya": _zaya,
    "glm5_next": _glm5_next,
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


# ---- PB families (issue 12) ----
def _omni_audio(top: ConfigReader) -> dict[str, int]:
    """The thinker's audio encoder (``audio_config``), by the part ``tests/test_params.py`` names its modules:

    * Qwen2_5OmniAudioEncoder (modeling_qwen2_5_omni.py): Whisper's encoder modules
      (:func:`kvcalc.params_seq2seq.whisper_encoder`: conv1, conv2, layers, ln_post) without its position table
      (SinusoidsPositionEmbedding is a buffer), plus ``audio_bos_eos_token`` ``2*O`` (other) and ``proj``
      ``d*O + O`` (vision; ``O`` = output_dim);
    * Qwen3OmniMoeAudioEncoder (modeling_qwen3_omni_moe.py): Qwen3-ASR's encoder modules
      (:func:`kvcalc.params_seq2seq.qwen3_asr_encoder`: conv2d1-3, conv_out, layers, ln_post) plus ``proj1``
      ``d*d + d`` and ``proj2`` ``d*O + O`` (other).
    """
    qwen3 = top.model_type == "qwen3_omni_moe_thinker"
    tower = "qwen3_omni_moe_audio_encoder" if qwen3 else "qwen2_5_omni_audio_encoder"
    a = _sub_config(top, "audio_config", tower, {}, {tower: None})
    d, out = a.get_int("d_model"), a.get_int("output_dim")
    if qwen3:
        parts = dict(qwen3_asr_encoder(a))
        parts["other"] += _linear(d, d, True) + _linear(d, out, True)
    else:
        parts = {part: n for part, n in whisper_encoder(a).items() if part != "embedding"}
        parts["other"] += 2 * out
        parts["vision"] = _linear(d, out, True)
    return parts


def _omni_thinker(f: ConfigReader, t: _Tally) -> None:
    """Qwen2_5OmniThinkerForConditionalGeneration (modeling_qwen2_5_omni.py) and
    Qwen3OmniMoeThinkerForConditionalGeneration (modeling_qwen3_omni_moe.py): the text decoder, vision tower
    (``model.visual``: Qwen2.5-VL's / Qwen3-VL's tower and mergers, params_vision.TOWERS) and lm_head of
    :func:`kvcalc.params_vision.count_wrapper` (lm_head tied by the top-level tie_word_embeddings, default false:
    ``_tied_weights_keys`` names the decoder's embed_tokens), plus the audio encoder (:func:`_omni_audio`)."""
    count_wrapper(f, t, _Tally, _COUNTERS)
    for part, n in _omni_audio(f).items():
        t.add(part, n)


_PB_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {"omni_thinker": _omni_thinker}
# ---- PC families (issue 12) ----
def _voxtral_realtime(f: ConfigReader, t: _Tally) -> None:
    """VoxtralRealtimeForConditionalGeneration (modeling_voxtral_realtime.py). Text decoder
    (VoxtralRealtimeTextModel; ``text_config`` under :data:`kvcalc.model_types.VOXTRAL_REALTIME_TEXT`, the
    wrapper's init_kwargs): :func:`_llama_like` without biases, plus per layer ``ada_rms_norm``
    (VoxtralRealtimeTextAdaRmsNorm: ``H -> 32 -> H``, no biases: ``64H``, mlp). Audio tower
    (VoxtralRealtimeEncoder, width ``d``, ``n`` heads of ``hd`` = head_dim, ``F``): embedder conv1
    ``mel*d*3 + d``, conv2 ``d*d*3 + d`` (other); per layer VoxtralRealtimeAttention q ``d*n*hd + n*hd``,
    k ``d*n*hd`` (its num_key_value_heads is num_attention_heads, attribute_map), v ``d*n*hd + n*hd``,
    o ``n*hd*d + d``, VoxtralRealtimeMLP gate / up ``2*d*F`` + down ``F*d + d``, 2 RMSNorms ``2d``; norm ``d``;
    rotary and the time embedding are buffers. Projector (VoxtralRealtimeMultiModalProjector, vision):
    ``4d*H`` (downsample_factor frames) + ``H*H``, no biases. lm_head ``V*H`` unless the top-level
    tie_word_embeddings ties it (``_tied_weights_keys``)."""
    text = _s2s_sub(f, "text_config", "voxtral_realtime_text", VOXTRAL_REALTIME_TEXT, absent_ok=True)
    audio = _s2s_sub(f, "audio_config", "voxtral_realtime_encoder", {}, absent_ok=True)
    _llama_like(text, t, head=False)
    hidden, vocab = text.get_int("hidden_size"), text.get_int("vocab_size")
    t.add("mlp", text.get_int("num_hidden_layers") * 2 * 32 * hidden)
    _lm_head(f, t, hidden, vocab)
    d, n, ffn = audio.get_int("hidden_size"), audio.get_int("num_attention_heads"), audio.get_int("intermediate_size")
    hd = audio.opt_int("head_dim") or d // n
    layers, mel = audio.get_int("num_hidden_layers", minimum=0), audio.get_int("num_mel_bins")
    t.add("attention", layers * (_linear(d, n * hd, True) + _linear(d, n * hd) + _linear(d, n * hd, True)
                                 + _linear(n * hd, d, True)))
    t.add("mlp", layers * (2 * d * ffn + _linear(ffn, d, True)))
    t.add("norms", (2 * layers + 1) * d)
    t.add("other", mel * d * 3 + d + d * d * 3 + d)
    t.add("vision", d * f.get_int("downsample_factor") * hidden + hidden * hidden)


def _vit_model(v: ConfigReader) -> int:
    """ViTModel with its pooler (modeling_vit.py; what AutoModel builds): ViTEmbeddings cls_token ``H``,
    position_embeddings ``(n_p + 1)*H`` (``n_p = (img_h/p_h)*(img_w/p_w)``), patch Conv2d ``C*p_h*p_w*H + H``;
    per ViTLayer q / k / v ``3*H*H`` (+ ``3H`` with qkv_bias), o ``H*H + H``, ViTMLP ``H*I+I + I*H+H``,
    2 LayerNorms ``4H``; layernorm ``2H``; ViTPooler dense ``H*P + P`` (P = pooler_output_size, else ``H``)."""
    h, inter, n = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers", minimum=0)
    hidden_per_head(v, h, v.get_int("num_attention_heads"))
    (ih, iw), (ph, pw) = _pair(v, "image_size"), _pair(v, "patch_size")
    pooled = v.opt_int("pooler_output_size") or h
    layers = _vit_layers(h, inter, n) - (0 if v.get_bool("qkv_bias") else n * 3 * h)
    return (h + ((ih // ph) * (iw // pw) + 1) * h + _linear(v.get_int("num_channels") * ph * pw, h, True) + layers
            + 2 * h + _linear(h, pooled, True))


def _vision_encoder_decoder(f: ConfigReader, t: _Tally) -> None:
    """VisionEncoderDecoderModel (modeling_vision_encoder_decoder.py): ``AutoModel`` of the ``encoder`` config
    (absent: VisionEncoderDecoderConfig's ViT; ViT only: :func:`_vit_model`, in ``vision``) and
    ``AutoModelForCausalLM`` of the ``decoder`` config with ``enc_to_dec_proj``, built as EncoderDecoderModel's
    (:func:`kvcalc.params_seq2seq.cross_decoder`: BERT / RoBERTa, or GPT-2 with add_cross_attention). Its
    ``__init__`` sets tie_word_embeddings false at the top level; the decoder's own flag ties its lm_head."""
    sub = f.sub("encoder")
    given = sub.get_str("model_type", default="vit") if sub is not None else "vit"
    if given != "vit":
        raise UnsupportedError(f"vision-encoder-decoder with encoder.model_type '{given}' is not counted yet "
                               "(only a ViT encoder is; kvcalc never guesses)")
    enc = _s2s_sub(f, "encoder", "vit", VIT_DEFAULTS, absent_ok=True)
    t.add("vision", _vit_model(enc))
    cross_decoder({"gpt2": _gpt2}, f, t, enc.get_int("hidden_size"))


def _pp_formulanet(f: ConfigReader, t: _Tally) -> None:
    """PPFormulaNetForConditionalGeneration (modeling_pp_formulanet.py). Vision encoder (PPFormulaNetVisionModel):
    the SAM-style tower and neck of :func:`kvcalc.params_vision._got_ocr2_vision` (same modules: patch conv,
    pos_embed, windowed / global layers with relative positions, PPFormulaNetVisionNeck), then
    PPFormulaNetMultiModalProjector: two stride-2 3x3 Conv2d without bias ``9*C_in*C_mid + 9*C_mid*C_out``,
    linear_1 ``C_out*C_out + C_out``, linear_2 ``C_out*D + D`` (D = decoder_hidden_size), all in vision.
    Text decoder (PPFormulaNetTextModel, width ``d``, ``F``, ``L``, ``V``): embed_tokens ``V*d``, learned positions
    ``(P + 2)*d`` (PPFormulaNetLearnedPositionalEmbedding's offset); per PPFormulaNetDecoderLayer self- and
    cross-attention ``2*4*(d*d + d)``, fc1 / fc2 ``d*F+F + F*d+d``, 3 LayerNorms ``6d``; layernorm_embedding and
    layer_norm ``4d``. lm_head ``V*d``, never tied (``_tied_weights_keys = {}``)."""
    vis = _s2s_sub(f, "vision_config", "pp_formulanet_vision", {}, absent_ok=True)
    text = _s2s_sub(f, "text_config", "pp_formulanet_text", {}, absent_ok=True)
    c_in, c_mid = vis.get_int("post_conv_in_channels"), vis.get_int("post_conv_mid_channels")
    c_out = vis.get_int("post_conv_out_channels")
    t.add("vision", _got_ocr2_vision(vis) + 9 * c_in * c_mid + 9 * c_mid * c_out + _linear(c_out, c_out, True)
          + _linear(c_out, vis.get_int("decoder_hidden_size"), True))
    d = _s2s_width(text, "decoder_attention_heads")
    vocab, ffn = text.get_int("vocab_size"), text.get_int("decoder_ffn_dim")
    n = text.get_int("decoder_layers", minimum=0)
    t.add("embedding", vocab * d + (text.get_int("max_position_embeddings") + 2) * d)
    t.add("attention", n * 2 * 4 * _linear(d, d, True))
    t.add("mlp", n * (_linear(d, ffn, True) + _linear(ffn, d, True)))
    t.add("norms", n * 6 * d + 4 * d)
    t.add("lm_head", vocab * d)


_PC_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    "voxtral_realtime": _voxtral_realtime, "vision_encoder_decoder": _vision_encoder_decoder,
    "pp_formulanet": _pp_formulanet}
# ---- PA families (issue 12) ----
def _idefics(f: ConfigReader, t: _Tally) -> None:
    """IdeficsForVisionText2Text (transformers/models/idefics/modeling_idefics.py, vision.py, perceiver.py).

    Decoder (``H``, ``I``, ``V``, ``L`` layers, ``n`` heads of ``d = H/n``): IdeficsDecoupledEmbedding ``V*H`` plus
    its additional_embedding ``A*H`` (``A`` additional_vocab_size); per IdeficsDecoderLayer q/k/v/o ``4*H*H`` (no
    biases), IdeficsMLP ``3*H*I``, 2 RMSNorms ``2H``; final norm ``H``. ``L // cross_layer_interval``
    IdeficsGatedCrossAttentionLayers: q/o ``2*H*H``, k/v from the vision width ``2*H_v*H``, q/k RMSNorms ``2d``
    with qk_layer_norms, MLP ``3*H*I``, 2 RMSNorms ``2H``, alpha_cross_attn / alpha_dense ``2`` (alpha_type
    float) or ``2H`` (vector). lm_head IdeficsDecoupledLinear ``V*H + A*H`` unless tie_word_embeddings ties both
    (``_tied_weights_keys``). Vision: IdeficsVisionTransformer, CLIP's layout (``TOWERS["clip_vision_model"]``);
    with use_resampler, IdeficsPerceiverResampler (vision): latents ``N*H_v``, per block IdeficsPerceiverAttention
    (2 LayerNorms ``4H_v``, q/k/v ``3*H_v*h*d_r``, output ``h*d_r*H_v``, q/k LayerNorms ``4d_r`` with
    qk_layer_norms_perceiver) and IdeficsMLP (LayerNorm ``2H_v``, fc / c_proj ``2*H_v*4H_v``), final LayerNorm
    ``2H_v``."""
    vis = _s2s_sub(f, "vision_config", "idefics_vision", {}, absent_ok=True)
    vocab, extra = f.get_int("vocab_size"), f.get_int("additional_vocab_size", minimum=0)
    hidden, inter, n_layers = f.get_int("hidden_size"), f.get_int("intermediate_size"), f.get_int("num_hidden_layers")
    heads = f.get_int("num_attention_heads")
    d = hidden_per_head(f, hidden, heads)
    hv = vis.get_int("hidden_size")
    alpha = f.get_str("alpha_type")
    if alpha not in ("float", "vector"):
        raise ConfigError(f.field_name("alpha_type"), alpha,
                          "must be 'float' or 'vector' (IdeficsGatedCrossAttentionLayer)")
    n_cross = n_layers // f.get_int("cross_layer_interval")
    qk = 2 * d if f.get_bool("qk_layer_norms") else 0
    t.add("embedding", (vocab + extra) * hidden)
    t.add("attention", n_layers * 4 * hidden * hidden
          + n_cross * (2 * hidden * hidden + 2 * hv * hidden + (2 if alpha == "float" else 2 * hidden)))
    t.add("mlp", (n_layers + n_cross) * _gated_mlp(hidden, inter))
    t.add("norms", (n_layers + n_cross) * 2 * hidden + hidden + n_cross * qk)
    _lm_head(f, t, hidden, vocab + extra)
    t.add("vision", TOWERS["clip_vision_model"](vis))
    if f.get_bool("use_resampler"):
        p = _s2s_sub(f, "perceiver_config", "idefics_perciever", {}, absent_ok=True)
        inner = p.get_int("resampler_n_heads") * p.get_int("resampler_head_dim")
        qk_r = 4 * p.get_int("resampler_head_dim") if p.get_bool("qk_layer_norms_perceiver") else 0
        block = 4 * hv + 3 * hv * inner + inner * hv + qk_r + 2 * hv + 2 * hv * 4 * hv
        t.add("vision", p.get_int("resampler_n_latents") * hv + p.get_int("resampler_depth", minimum=0) * block
              + 2 * hv)


def _kosmos2(top: ConfigReader, t: _Tally) -> None:
    """Kosmos2ForConditionalGeneration (transformers/models/kosmos2/modeling_kosmos2.py).

    Kosmos2TextForCausalLM (``text_config``, Kosmos2TextConfig's names through its attribute_map: ``E`` embed_dim,
    ``F`` ffn_dim, ``L`` layers): embed_tokens ``V*E`` (the sinusoidal positions are a buffer); per
    Kosmos2TextBlock self-attention (KosmosTextAttention) ``4*(E*E + E)`` with its inner_attn_ln ``2E`` (a
    LayerNorm inside the attention module, reported as attention, as tests/test_params.py's name rule splits it),
    self_attn_layer_norm and final_layer_norm ``4E``, Kosmos2TextFFN fc1 ``E*F + F``, fc2 ``F*E + E``,
    ffn_layernorm ``2F``; with add_cross_attention an encoder_attn ``4*(E*E + E)`` and its LayerNorm ``2E``;
    final layer_norm ``2E``; lm_head ``V*E`` unless tied: both Kosmos2ForConditionalGeneration and
    Kosmos2TextForCausalLM declare the tie (``_tied_weights_keys``), each under its own config's
    tie_word_embeddings, so either flag ties it. Vision: Kosmos2VisionTransformer, CLIP's layout
    (``TOWERS["clip_vision_model"]``). Kosmos2ImageToTextProjection: dense ``H_v*E + E`` and latent_query
    ``latent_query_num*E`` (other), x_attn ``4*(E*E + E)`` (attention), as Kosmos-2.5's are split."""
    text = _s2s_sub(top, "text_config", "kosmos_2_text_model", {}, absent_ok=True)
    vision = _s2s_sub(top, "vision_config", "kosmos_2_vision_model", {}, absent_ok=True)
    e, heads = text.get_int("hidden_size"), text.get_int("num_attention_heads")
    hidden_per_head(text, e, heads)
    vocab, ffn, n = text.get_int("vocab_size"), text.get_int("ffn_dim"), text.get_int("num_hidden_layers", minimum=0)
    cross = text.get_bool("add_cross_attention")
    attn = 4 * _linear(e, e, True)
    t.add("embedding", vocab * e)
    t.add("attention", n * (attn + 2 * e + (attn if cross else 0)))          # + inner_attn_ln
    t.add("mlp", n * (_linear(e, ffn, True) + _linear(ffn, e, True)))
    t.add("norms", n * (4 * e + 2 * ffn + (2 * e if cross else 0)) + 2 * e)
    t.tied = top.get_bool("tie_word_embeddings") or text.get_bool("tie_word_embeddings")
    t.add("lm_head", 0 if t.tied else vocab * e)
    t.add("vision", TOWERS["clip_vision_model"](vision))
    t.add("other", _linear(vision.get_int("hidden_size"), e, True) + top.get_int("latent_query_num") * e)
    t.add("attention", attn)


_PA_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {"idefics": _idefics, "kosmos2": _kosmos2}
# ---- PD families (issue 12) ----
def _cpmant(f: ConfigReader, t: _Tally) -> None:
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
    t.add("attention", n_layers * 4 * _linear(hidden, heads * d)
          + (segments * segments + f.get_int("position_bias_num_buckets")) * heads)
    t.add("mlp", n_layers * 3 * _linear(hidden, ff))
    t.add("norms", (2 * n_layers + 1) * hidden)
    _lm_head(f, t, hidden, vocab, tied=False)


# timm 1.0 mobilenetv5.py _gen_mobilenet_v5 (the non-base arch_def of mobilenetv5_300m_enc: stem 64, RmsNorm2d
# norms holding a weight only, layer scales): per stage, its blocks in order, as
# ("er", k, e, c) EdgeResidual, ("uir", a, k, e, c) UniversalInvertedResidual (a / k: start / middle depthwise
# kernels, 0 = none), ("mqa", h, d, kv_stride, c) MobileAttention; n x (...) repeats
_MNV5_300M: tuple[tuple[tuple[Any, ...], ...], ...] = (
    (("er", 3, 4, 128),) * 3,
    (("uir", 3, 5, 6, 256), ("uir", 5, 0, 4, 256), ("uir", 3, 0, 4, 256), ("uir", 5, 0, 4, 256), ("uir", 3, 0, 4, 256)),
    (("uir", 5, 5, 6, 640), *(("uir", 5, 0, 4, 640),) * 7, ("uir", 0, 0, 1, 640),
     *(("mqa", 12, 64, 2, 640), ("uir", 0, 0, 2, 640)) * 14),
    (("uir", 5, 5, 6, 1280), *(("mqa", 16, 96, 1, 1280), ("uir", 0, 0, 2, 1280)) * 19),
)


def _mobilenetv5_300m_enc() -> int:
    """timm 1.0 mobilenetv5.py MobileNetV5Encoder('mobilenetv5_300m_enc'), as TimmWrapperModel builds it for
    Gemma 3n: conv_stem 3x3 ``3 -> 64`` with bias + norm; EdgeResidual conv_exp ``k x k`` ``C -> eC`` + norm,
    conv_pwl ``eC -> C'`` + norm; UniversalInvertedResidual dw_start ``a*a*C`` + norm (a > 0), pw_exp
    ``C -> eC`` + norm, dw_mid ``k*k*eC`` + norm (k > 0), pw_proj ``eC -> C'`` + norm, layer_scale ``C'``;
    MobileAttention norm ``C``, MultiQueryAttention2d query ``C -> h*d``, key and value each a 3x3 depthwise
    down_conv + norm when kv_stride > 1 and ``C -> d``, output ``h*d -> C``, layer_scale ``C``; convs without
    bias. MobileNetV5MultiScaleFusionAdapter over the last two stages (``640 + 1280`` channels): its ffn (a
    UniversalInvertedResidual without depthwise convs or layer scale) ``1920 -> 3840 -> 2048`` + norms, and a
    final norm of 2048."""
    total, c_in = _linear(27, 64, True) + 64, 64
    for stage in _MNV5_300M:
        for kind, *args in stage:
            c = args[-1]
            if kind == "er":
                k, e = args[0], args[1]
                total += e * c_in * c_in * k * k + e * c_in + e * c_in * c + c
            elif kind == "uir":
                a, k, e = args[0], args[1], args[2]
                mid = c_in * e
                total += (a * a * c_in + c_in if a else 0) + c_in * mid + mid + (k * k * mid + mid if k else 0)
                total += mid * c + 2 * c
            else:
                h, d, kv = args[0], args[1], args[2]
                total += 2 * c + 2 * c * h * d + 2 * ((9 * c + c if kv > 1 else 0) + c * d)
            c_in = c
    fused = 640 + 1280
    return total + fused * 2 * fused + 2 * fused + 2 * fused * 2048 + 2048 + 2048


def _gemma3n_audio(a: ConfigReader) -> int:
    """Gemma3nAudioEncoder (modeling_gemma3n.py, hidden ``H``): Gemma3nAudioSubSampleConvProjection, two
    Gemma3nAudioSSCPConvBlock Conv2d without bias (``c_0*1*k*k``, ``c_1*c_0*k*k``) each with a
    CumulativeGroupNorm weight, input_proj_linear ``c_1*f -> H`` (``f``: input_feat_size after both convs,
    frequency padding 1 + 1: ``(f + 2 - k_w) // s_w + 1`` twice); per Gemma3nAudioConformerBlock two
    feed-forwards (pre / post RMSNorms ``2H``, ``H -> 4H -> H``), attention (pre_attn_norm ``H``, per_dim_scale
    ``H/n``, relative pos_proj, q / k / v and post ``5*H*H``, post_norm ``H``), the light conv (pre norm ``H``,
    linear_start ``H -> 2H``, depthwise Conv1d ``H*K``, conv_norm ``H``, linear_end ``H*H``) and a norm ``H``;
    no biases."""
    h, n, layers = a.get_int("hidden_size"), a.get_int("conf_num_attention_heads"), a.get_int("conf_num_hidden_layers")
    channels, kernels, strides = (a.value("sscp_conv_channel_size"), a.value("sscp_conv_kernel_size"),
                                  a.value("sscp_conv_stride_size"))
    def pairs(x: Any) -> bool:
        return isinstance(x, (list, tuple)) and len(x) == 2 and all(
            isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(i, int) and i > 0 for i in p) for p in x)

    if not (isinstance(channels, (list, tuple)) and len(channels) == 2
            and all(isinstance(c, int) and c > 0 for c in channels) and pairs(kernels) and pairs(strides)):
        raise UnsupportedError(f"{a.path}sscp_conv_*: counted for two subsampling convolutions (positive channel "
                               "counts, [h, w] kernels and strides) only")
    freq, c_prev, total = a.get_int("input_feat_size"), 1, 0
    for c, (kh, kw), (_, sw) in zip(channels, kernels, strides):
        total += c * c_prev * kh * kw + c
        freq, c_prev = (freq + 2 - kw) // sw + 1, c
    total += c_prev * freq * h
    block = 2 * (2 * h + 8 * h * h) + (2 * h + h // n + 5 * h * h) + (2 * h + 3 * h * h + h * a.get_int(
        "conf_conv_kernel_size")) + h
    return total + layers * block


def _gemma3n(f: ConfigReader, t: _Tally) -> None:
    """Gemma3nForConditionalGeneration (modeling_gemma3n.py): the Gemma3nTextModel (:func:`_gemma3n_text`), the
    vision tower (TimmWrapperModel over timm's mobilenetv5_300m_enc, :func:`_mobilenetv5_300m_enc`; other
    architectures refused), the audio tower (:func:`_gemma3n_audio`), and embed_vision / embed_audio
    (Gemma3nMultimodalEmbedder: embedding ``V_m*H_m``, hard / soft RMSNorms ``2H_m``, embedding_projection
    ``H_m -> H_t``; its post-projection norm holds no weight); lm_head tied to the text table unless
    tie_word_embeddings is false."""
    text = _s2s_sub(f, "text_config", "gemma3n_text", {}, absent_ok=True)
    vision = _s2s_sub(f, "vision_config", "gemma3n_vision", {}, absent_ok=True)
    audio = _s2s_sub(f, "audio_config", "gemma3n_audio", {}, absent_ok=True)
    arch, model_args = vision.get_str("architecture"), vision.value("model_args")
    if arch != "mobilenetv5_300m_enc" or model_args:
        raise UnsupportedError(f"{vision.path}architecture {arch!r:.60} with model_args {model_args!r:.60}: kvcalc "
                               "counts timm's mobilenetv5_300m_enc without model_args only (never a guess)")
    inner = _Tally()
    _gemma3n_text(text, inner)
    t.add_decoder(inner)
    ht = text.get_int("hidden_size")
    t.tied = f.get_bool("tie_word_embeddings", default=True)
    if not t.tied:
        t.add("lm_head", text.get_int("vocab_size") * ht)
    embedders = sum(m.get_int("vocab_size") * m.get_int("hidden_size") + 2 * m.get_int("hidden_size")
                    + m.get_int("hidden_size") * ht for m in (vision, audio))
    t.add("vision", _mobilenetv5_300m_enc() + embedders)
    t.add("other", _gemma3n_audio(audio))


_PD_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {"cpmant": _cpmant, "gemma3n": _gemma3n}


# --------------------------------------------------------------------------- entry point
# parameter-count family (a registry entry's ``params``) -> counter
_COUNTERS: dict[str, Callable[[ConfigReader, _Tally], None]] = {
    "llama_like": _llama_like, "deepseek": _deepseek, "gpt2": _gpt2, "gpt_neox": _gpt_neox, "falcon": _falcon,
    "bloom": _bloom, "gpt_neox_japanese": _gpt_neox_japanese, "modernbert_decoder": _modernbert_decoder,
    "opt": _opt, "mamba": _mamba, "mamba2": _mamba2, "mamba2_hybrid": _mamba2_hybrid, "lfm2": _lfm2,
    "nemotron_h": _nemotron_h, "gemma4_text": _gemma4_text, "gemma3n_text": _gemma3n_text, "jetmoe": _jetmoe,
    "doge": _doge, "fuyu": _fuyu, "hrm_text": _hrm_text,
    "jamba": _jamba, "t5": _t5, "gemma3": _gemma3, "mllama": _mllama, "multimodal": _multimodal,
    **_MOE_COUNTERS,
    **_INK_COUNTERS,
    **_VIS1_COUNTERS,
    **_VIS2_COUNTERS,
    **_S2S_COUNTERS,
    **_HYB_COUNTERS,
    **_ORA_COUNTERS,
    **_PB_COUNTERS,
    **_PC_COUNTERS,
    **_PA_COUNTERS,
    **_PD_COUNTERS,
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
        active_refused=tally.null_top_k, active_reason=tally.active_reason, fields_used=tuple(top.used),
        defaults_used=tuple(fields.defaults_used),
    )
