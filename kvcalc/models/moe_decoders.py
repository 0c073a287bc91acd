"""MoE decoders with their own modules: JetMoE, DBRX, A.X K2, Hunyuan (v4 and the Hunyuan-VL wrapper),
ERNIE 4.5-VL's text model and Step 3.5.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from collections.abc import Mapping

from ..config import ConfigReader, head_dim_or_derived, hidden_per_head
from ..errors import ConfigError, UnsupportedError
from .blocks import attention_heads, gated_mlp, linear, lm_head, registry_entry
from .counts import Tally
from .deepseek import deepseek
from .llama import llama_like
from .moe import mlp_kinds
from .registry import lookup, nested, typed
from .registry.moe_decoders import DBRX_ATTN_DEFAULTS, DBRX_FFN_DEFAULTS
from .subconfigs import sub_config
from .wrappers import counter


def jetmoe(f: ConfigReader, t: Tally) -> None:
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
    lm_head(f, t, hidden, vocab)


def dbrx(f: ConfigReader, t: Tally) -> None:
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
    t.add("attention", n_layers * (linear(hidden, hidden + 2 * n_kv * d) + linear(hidden, hidden)))
    t.add("norms", n_layers * 2 * hidden + hidden)
    for _ in range(n_layers):
        t.add("mlp", n_exp * hidden)
        t.experts(3 * ffn * hidden, n_exp, ffn_cfg.opt_int("moe_top_k"), ffn_cfg.field_name("moe_top_k"))
    lm_head(f, t, hidden, vocab)


def axk2(f: ConfigReader, t: Tally) -> None:
    """A.X-K2 (transformers/models/axk2/modeling_axk2.py AXK2DecoderLayer, AXK2Attention, AXK2Indexer,
    AXK2GatedRMSNorm, AXK2MoE). Per layer MLA without q_b_proj: q_a ``H*r_q`` + norm ``r_q``, the fused
    q_gate_proj ``2*r_q*n*(nope+rope+v)``, kv_a ``H*(r_kv+rope)`` + norm ``r_kv``, kv_b ``r_kv*n*(nope+v)``,
    o ``n*v*H`` (biases on q_a, kv_a, o with attention_bias); the DSA indexer on every layer: wq_b
    ``r_q*n_i*d_i``, wk ``H*d_i``, k_norm LayerNorm ``2*d_i``, weights_proj ``H*n_i``. input_layernorm is gated:
    RMSNorm ``H`` + gate MLP fc1 / fc2 ``2*H*gated_norm_rank`` (the gate MLP counted as mlp); post_attention_layernorm
    is gated on MoE layers, a plain RMSNorm ``H`` on dense ones (:func:`mlp_kinds`). Dense MLP ``3*H*I``; MoE:
    router ``E*H`` (e_score_correction_bias is a buffer), ``E`` experts ``3*H*I_e``, shared experts
    ``3*H*(n_shared*I_e)``. Final norm ``H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n = f.get_int("num_attention_heads")
    q_rank, kv_rank = f.get_int("q_lora_rank"), f.get_int("kv_lora_rank")
    rope, nope = f.get_int("qk_rope_head_dim", minimum=0), f.get_int("qk_nope_head_dim", minimum=0)
    v, bias = f.get_int("v_head_dim"), f.get_bool("attention_bias")
    n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
    attn = (linear(hidden, q_rank, bias) + linear(2 * q_rank, n * (nope + rope + v))
            + linear(hidden, kv_rank + rope, bias) + linear(kv_rank, n * (nope + v)) + linear(n * v, hidden, bias))
    attn += q_rank * n_i * d_i + hidden * d_i + hidden * n_i
    gate_mlp = 2 * hidden * f.get_int("gated_norm_rank")
    sparse = mlp_kinds(f, n_layers)
    n_moe = len(sparse)
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * attn)
    t.add("norms", n_layers * (q_rank + kv_rank + 2 * d_i + 2 * hidden) + hidden)
    t.add("mlp", (n_layers + n_moe) * gate_mlp)
    t.add("mlp", (n_layers - n_moe) * gated_mlp(hidden, f.get_int("intermediate_size")))
    n_exp, inter_e = f.get_int("n_routed_experts"), f.get_int("moe_intermediate_size")
    shared = f.get_int("n_shared_experts", minimum=0)
    for _ in range(n_moe):
        t.add("mlp", n_exp * hidden + gated_mlp(hidden, inter_e * shared))
        t.experts(3 * hidden * inter_e, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab)


def hy_v4(f: ConfigReader, t: Tally) -> None:
    """HY-V4 (transformers/models/hy_v4/modeling_hy_v4.py HYV4DecoderLayer, HYV4Attention, HYV4HyperConnection,
    HYV4HyperHead): DeepSeek-V3.2's MLA, DSA indexer and MoE (:func:`deepseek`; the indexer only on the "full"
    indexer_types layers; mlp_layer_types, default dense first layer), plus per attention layer gate_proj
    ``H*n*v`` and ``n`` sinks; per layer two hyper-connections (attn_hc, ffn_hc; ``m`` = hc_mult) of fn
    ``2m*m*H``, base ``2m`` and scale ``2``; the model's hc_head: hc_fn ``m*m*H``, hc_base ``m``, hc_scale ``1``
    (the hyper-connections and hc_head counted as other, as GLM-5 Next's)."""
    deepseek(f, t)
    hidden, n_layers = f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n, v, m = f.get_int("num_attention_heads"), f.get_int("v_head_dim"), f.get_int("hc_mult")
    hc = 2 * m * m * hidden + 2 * m + 2
    t.add("attention", n_layers * (hidden * n * v + n))
    t.add("other", n_layers * 2 * hc + m * m * hidden + m + 1)


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
    n = linear(v.get_int("num_channels") * patch * patch, hidden, True)
    n += ((v.get_int("max_image_size") // patch) ** 2 + 1) * hidden
    layer = (4 * hidden + 3 * linear(hidden, heads * d, True) + linear(heads * d, hidden, True)
             + linear(hidden, inter, True) + linear(inter, hidden, True))
    n += n_layers * layer + hidden
    if hy_v4:
        out, wide = v.get_int("out_hidden_size"), merge * merge * hidden
        return n + linear(hidden * merge * merge, wide, True) + linear(wide, out, True) + out
    return (n + linear(hidden * merge * merge, 2 * hidden, True) + linear(2 * hidden, 4 * hidden, True)
            + linear(4 * hidden, text_hidden, True) + 4 * hidden + 4 * text_hidden)


def hunyuan_vl(top: ConfigReader, t: Tally) -> None:
    """HunYuanVLForConditionalGeneration / HYV4VLForConditionalGeneration: the text decoder of ``text_config``
    by its own counter (hunyuan_vl_text: the Llama-style reader; hy_v4_vl_text: :func:`_hy_v4`), the vision
    tower (:func:`_hunyuan_vl_tower`, counted as vision), lm_head ``V*H`` unless tied: HunYuan-VL ties with the
    top-level tie_word_embeddings (default true) or the text_config's (HunYuanVLConfig.__post_init__), HY-V4-VL
    with the top-level one (default false). A HunYuan-VL config without text_config keeps its decoder fields at
    the top level, which HunYuanVLConfig folds into the text config; they are read there the same way."""
    entry = registry_entry(top)
    assert entry.text_type is not None, entry.name
    hy_v4 = entry.name == "hy_v4_vl"
    if not hy_v4 and top.data.get("text_config") is None:
        text = typed(top, entry.text_type)
    else:
        text = sub_config(top, "text_config", entry.text_type, {})
    text_entry = lookup(text.model_type)
    if text_entry is None or text_entry.name != entry.text_type:
        raise UnsupportedError(f"{top.path}text_config.model_type '{text.model_type}' is not counted for "
                               f"{entry.name} (expected {entry.text_type})")
    vision = sub_config(top, "vision_config", f"{entry.name}_vision", {})
    inner = Tally()
    counter(text_entry.params or "")(text, inner)
    t.add_decoder(inner)
    hidden, vocab = text.get_int("hidden_size"), text.get_int("vocab_size")
    t.tied = top.get_bool("tie_word_embeddings") or (not hy_v4 and text.get_bool("tie_word_embeddings"))
    if not t.tied:
        t.add("lm_head", vocab * hidden)
    t.add("vision", _hunyuan_vl_tower(vision, hidden, hy_v4))


def ernie4_5_vl_moe_text(f: ConfigReader, t: Tally) -> None:
    """ERNIE-4.5-VL's MoE decoder (transformers/models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py,
    Ernie4_5_VLMoeTextModel): embedding ``V*H``; per layer q/k/v/o ``H*n_q*d + 2*H*n_kv*d + n_q*d*H`` (biases
    with use_bias), 2 RMSNorms ``2H``; a "dense" layer of mlp_layer_types (default: the first) a gated MLP
    ``3*H*I``; a "sparse" layer an Ernie4_5_VLMoeMoeBlock: text_moe and vision_moe, each a router ``E*H`` plus its
    e_score_correction_bias ``E`` (a parameter) and ``E`` experts ``3*H*I_m`` (``I_text, I_vision`` =
    moe_intermediate_size), and with moe_num_shared_experts ``s`` a shared gated MLP of ``s*I_text``; final norm
    ``H``; lm_head ``V*H`` unless tied. ``active`` is a text token's: moe_k text experts (the vision experts only
    serve image and video tokens)."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = attention_heads(f)
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
    t.add("attention", n_layers * (linear(hidden, n_q * d, bias) + 2 * linear(hidden, n_kv * d, bias)
                                   + linear(n_q * d, hidden, bias)))
    t.add("norms", n_layers * 2 * hidden + hidden)
    for kind in kinds:
        if kind == "dense":
            t.add("mlp", gated_mlp(hidden, f.get_int("intermediate_size"), bias))
            continue
        for width, k in zip(widths, (top_k, 0)):      # text experts, then vision experts (none for a text token)
            t.add("mlp", n_experts * hidden + n_experts)
            t.experts(3 * hidden * width, n_experts, k, f.field_name("moe_k"))
        if shared:
            t.add("mlp", gated_mlp(hidden, widths[0] * shared, bias))
    lm_head(f, t, hidden, vocab)


# Step checkpoint names Step3p7TextConfig maps (attribute_map, __post_init__) that the counter does not read
_STEP3P5_LEGACY = ("num_attention_groups", "moe_top_k", "share_expert_dims", "moe_layers_enum",
                   "attention_other_setting")


def step3p5(f: ConfigReader, t: Tally) -> None:
    """Step3p7TextModel (modeling_step3p7.py; text model_type step3p5): :func:`llama_like` with Step3p7Attention's
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
    llama_like(f, t)
