"""Llama-style decoders: one reader for every decoder built from q/k/v/o attention, a gated (or plain) MLP and
per-layer norms; the registry entry's flags and quirks say what differs (biases, norms, MoE layers, q/k norms).

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from dataclasses import dataclass

from ..architectures import layer_types
from ..config import ConfigReader, head_dim_or_derived
from ..errors import ConfigError
from .blocks import attention_heads, flag, gated_mlp, linear, lm_head, mpt_kv_heads, registry_entry
from .counts import Tally
from .linear_attention import gated_delta_net, linear_kinds
from .model_type import ModelType, quirk_flags
from .moe import moe_shape


@dataclass(frozen=True)
class LlamaQuirks:
    """The departures from the Llama layout :func:`llama_like` reads, one flag per quirk an entry names
    (:data:`kvcalc.models.model_type.QUIRKS` says what each means)."""

    attention_sinks: bool = False
    dense_mlp_width: bool = False
    diff_lambdas: bool = False
    floor_head_dim: bool = False
    full_qk_norm: bool = False
    gated_delta_net: bool = False
    gated_q_proj: bool = False
    head_gate_bias: bool = False
    head_softplus_gate: bool = False
    layer_norm: bool = False
    lightning_attention: bool = False
    mha: bool = False
    mpt_attn_type: bool = False
    mlp_4h: bool = False
    no_norm_weights: bool = False
    norm_bias: bool = False
    parallel_residual: bool = False
    per_head_qk_layernorm: bool = False
    plain_mlp: bool = False
    qk_layernorm: bool = False
    qk_norm: bool = False
    sub_norms: bool = False
    swa_double_kv: bool = False
    use_head_qk_norm: bool = False
    use_qk_norm: bool = False
    v_head_dim: bool = False
    xielu: bool = False


def llama_like(f: ConfigReader, t: Tally, head: bool = True) -> None:
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
    ``H/n_q``. MoE layers: :func:`moe_shape`; Qwen3-Next's linear-attention layers: :func:`gated_delta_net`.
    """
    m = registry_entry(f)
    q = quirk_flags(LlamaQuirks, m)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = attention_heads(f)
    if q.mha:
        n_kv = n_q
    elif q.mpt_attn_type:
        n_kv = mpt_kv_heads(f, n_q)
    d = head_dim_or_derived(f, hidden, n_q, floor=q.floor_head_dim)
    qkv_bias, o_bias = flag(f, m.attn_bias[0]), flag(f, m.attn_bias[1])
    dv = f.get_int("v_head_dim") if q.v_head_dim else d     # values of their own width (MiMo-V2-Flash)
    norm_bias = q.layer_norm or q.norm_bias
    norm = 0 if q.no_norm_weights else (2 if norm_bias else 1) * hidden
    has_linear = q.gated_delta_net or q.lightning_attention
    kinds = linear_kinds(f, m, n_layers) if has_linear else ["attention"] * n_layers
    n_attn = kinds.count("attention")

    t.add("embedding", vocab * hidden)
    if m.positions is not None:
        t.add("embedding", (f.get_int("max_position_embeddings") + m.positions) * hidden)
    for heads, count in layer_query_heads(f, q, n_q, n_attn).items():
        t.add("attention", count * attention_layer(f, m, hidden, (heads, n_kv, d, dv), (qkv_bias, o_bias)))
    if q.swa_double_kv:    # MiMo-V2-Flash sliding layers: another n_kv K/V heads and n_q sinks
        n_swa = layer_types(f, m, n_layers).count("sliding_attention")
        t.add("attention", n_swa * (linear(hidden, n_kv * d, qkv_bias) + linear(hidden, n_kv * dv, qkv_bias) + n_q))
    per_layer = 1 if q.parallel_residual and f.get_bool("use_parallel_residual") else m.norms_per_layer
    t.add("norms", n_layers * per_layer * norm + norm + n_attn * qk_norms(f, q, n_q, n_kv, d, norm_bias))
    if n_attn < n_layers:
        recurrent_layers(f, t, q, hidden, n_q * d, n_layers - n_attn)
    moe = moe_shape(f, m, hidden, n_layers)
    n_moe = len(moe.layers) if moe else 0
    if moe:
        for _ in moe.layers:
            t.add("mlp", moe.fixed)
            t.add("norms", moe.norms)
            t.experts(moe.per_expert, moe.n_experts, moe.top_k, moe.top_k_field)
    if n_layers > n_moe:
        t.add("mlp", (n_layers - n_moe) * dense_mlp(f, m, hidden))
    if q.sub_norms:
        t.add("norms", n_layers * (hidden + f.get_int(m.mlp_width)))   # attn_sub_norm, ffn_sub_norm (BitNet)
    if q.xielu:
        t.add("mlp", n_layers * 2)          # xIELU's alpha_p, alpha_n (Apertus)
    if head:
        lm_head(f, t, hidden, vocab)
        if flag(f, m.head_bias):
            t.add("lm_head", vocab)     # a bias even when the weight is tied (CTRL)


def layer_query_heads(f: ConfigReader, q: LlamaQuirks, n_q: int, n_attn: int) -> dict[int, int]:
    """Query heads -> how many attention layers have that many: Laguna's ``num_attention_heads_per_layer``
    (transformers 5.24 modeling_laguna.py ``LagunaDecoderLayer.__init__`` builds
    ``LagunaAttention(config, layer_idx, config.num_attention_heads_per_layer[layer_idx])``: q_proj, o_proj and
    g_proj sized by that layer's heads; k/v by ``num_key_value_heads``), else ``{n_q: n_attn}``.

    >>> from kvcalc.config import ConfigReader
    >>> from kvcalc.models.llama import LlamaQuirks
    >>> f = ConfigReader({"num_attention_heads_per_layer": [8, 4, 8]})
    >>> layer_query_heads(f, LlamaQuirks(head_softplus_gate=True), 8, 3)
    {8: 2, 4: 1}
    """
    per_layer = f.opt_int_list("num_attention_heads_per_layer") if q.head_softplus_gate else None
    if not per_layer:
        return {n_q: n_attn}
    if len(per_layer) != n_attn:
        raise ConfigError("num_attention_heads_per_layer", per_layer,
                          f"lists {len(per_layer)} layers, the model has {n_attn} attention layers")
    out: dict[int, int] = {}
    for heads in per_layer:
        out[heads] = out.get(heads, 0) + 1
    return out


def attention_layer(f: ConfigReader, m: ModelType, hidden: int, shape: tuple[int, int, int, int],
                    biases: tuple[bool, bool]) -> int:
    """One Llama-style attention block: q/k/v/o ``H*n_q*d + H*n_kv*d + H*n_kv*d_v + n_q*d_v*H`` with the biases
    ``(qkv, o)`` (q_proj doubled by an output gate with ``gated_q_proj``), plus ``n_q`` attention sinks or
    per-head gate biases, Laguna's softplus gate ``H*n_q`` (per head) or ``H*n_q*d``, DiffLlama's 4 lambdas ``4*d``.
    ``shape``: ``(n_q, n_kv, d, d_v)``."""
    q = quirk_flags(LlamaQuirks, m)
    n_q, n_kv, d, dv = shape
    qkv_bias, o_bias = biases
    attn = (linear(hidden, n_q * d * (2 if q.gated_q_proj else 1), qkv_bias)
            + linear(hidden, n_kv * d, qkv_bias) + linear(hidden, n_kv * dv, qkv_bias)
            + linear(n_q * dv, hidden, o_bias))
    if q.attention_sinks or q.head_gate_bias:
        attn += n_q  # attention sinks (gpt-oss) / the output gate's per-head bias (Beam)
    if q.head_softplus_gate:        # LagunaAttention.g_proj
        gating = f.value("gating")
        attn += hidden * (n_q if gating is True or gating == "per-head" else n_q * d)
    if q.diff_lambdas:
        attn += 4 * d  # lambda_q1, lambda_k1, lambda_q2, lambda_k2 (DiffLlamaAttention)
    return attn


def qk_norms(f: ConfigReader, q: LlamaQuirks, n_q: int, n_kv: int, d: int, norm_bias: bool) -> int:
    """The q/k norms of one attention layer: ``2*d`` (one RMSNorm over head_dim each, ``qk_norm``; Cohere's with
    use_qk_norm), ``4*d`` as LayerNorms with bias (Persimmon, Phi), ``(n_q + n_kv)*d`` per head (StableLM's
    per-head LayerNorms; OLMo 2's and Cohere's norms over every element of every head), else 0."""
    qk_norm = 2 * d if q.qk_norm else 0
    if q.use_head_qk_norm and f.get_bool("use_qk_norm", default=False):
        qk_norm = 2 * d
    if q.qk_layernorm and f.get_bool("qk_layernorm"):
        qk_norm = 2 * d * (2 if norm_bias else 1)       # per-head-dim LayerNorms on q and k (Persimmon, Phi)
    if q.per_head_qk_layernorm and f.get_bool("qk_layernorm"):
        qk_norm = (n_q + n_kv) * d          # StableLmLayerNormPerHead: a LayerNorm (no bias) per head
    if q.full_qk_norm or (q.use_qk_norm and f.get_bool("use_qk_norm", default=False)):
        qk_norm = (n_q + n_kv) * d          # one weight per element of every head (OLMo 2, Cohere)
    return qk_norm


def recurrent_layers(f: ConfigReader, t: Tally, q: LlamaQuirks, hidden: int, width: int, n: int) -> None:
    """The ``n`` layers without softmax attention: MiniMax's lightning attention (qkv_proj ``H -> 3*D``, out_proj
    ``D -> H``, output_gate ``H -> D``, norm ``D``; ``D = n_q*d`` = ``width``) with ``lightning_attention``, else
    Qwen3-Next's gated DeltaNet (:func:`gated_delta_net`, in ``mixer``)."""
    if q.lightning_attention:
        t.add("attention", n * (hidden * 3 * width + width * hidden + hidden * width))
        t.add("norms", n * width)
    else:
        mixer, mixer_norm = gated_delta_net(f, hidden)
        t.add("mixer", n * mixer)
        t.add("norms", n * mixer_norm)


def dense_mlp(f: ConfigReader, m: ModelType, hidden: int) -> int:
    """One dense MLP: gate / up / down ``3*H*I`` (:func:`gated_mlp`), or up / down ``2*H*I`` with ``plain_mlp`` or
    ``layer_norm``, biased per the entry's ``mlp_bias``; ``I`` from the entry's ``mlp_width`` field (Llama 4's
    ``intermediate_size_mlp`` with ``dense_mlp_width``; ``4*H`` when absent with ``mlp_4h``)."""
    q = quirk_flags(LlamaQuirks, m)
    width = "intermediate_size_mlp" if q.dense_mlp_width else m.mlp_width
    inter = f.opt_int(width) or (4 * hidden if q.mlp_4h else f.get_int(width))
    bias = flag(f, m.mlp_bias)
    if q.layer_norm or q.plain_mlp:
        return linear(hidden, inter, bias) + linear(inter, hidden, bias)
    return gated_mlp(hidden, inter, bias)
