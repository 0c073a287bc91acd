"""Linear-attention and convolution hybrids: LFM2, Kimi-Delta-attention hybrids (Kimi Linear, Bailing), OLMo
Hybrid, LFM3-VL, GLM-5 Next and Inkling (1 and 2).

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from dataclasses import dataclass

from ..architectures import layer_types
from ..config import ConfigReader, head_dim_or_derived, hidden_per_head
from ..errors import ConfigError
from .blocks import attention_heads, gated_mlp, linear, lm_head, registry_entry
from .counts import Tally
from .linear_attention import glm5_indexed, mla_attention
from .llama import llama_like
from .model_type import quirk_flags
from .moe import moe_shape
from .registry import typed
from .state_rules import kda_dims, olmo_hybrid_linear
from .subconfigs import sub_config, typed_sub
from .vision_towers import glm_merger


@dataclass(frozen=True)
class HybridQuirks:
    """The quirks the hybrid counters read, one flag per quirk an entry names
    (:data:`kvcalc.models.model_type.QUIRKS`)."""

    glm5_next_hc: bool = False
    kda_from_attention: bool = False
    kda_full_gates: bool = False
    lfm3_attention: bool = False
    loop_passes: bool = False
    mla_head_gate: bool = False


def lfm2(f: ConfigReader, t: Tally, head: bool = True) -> None:
    """LFM2 (transformers/models/lfm2/modeling_lfm2.py Lfm2DecoderLayer): ``V*H`` embedding; per layer
    operator_norm and ffn_norm ``2*H``, then attention (q/k/v/out ``H*n_q*d + 2*H*n_kv*d + n_q*d*H``, no
    biases, q/k layernorms ``2*d``) or a short convolution ("conv" layers: in_proj ``H*3H``, conv ``H*K``,
    out_proj ``H*H``, biases ``3H + H + H`` with conv_bias); MLP w1/w3/w2 ``3*H*F`` where Lfm2MLP derives
    ``F``: with block_auto_adjust_ff_dim ``int(2*I/3)``, times block_ffn_dim_multiplier, rounded up to
    block_multiple_of; embedding_norm ``H`` at the end; lm_head ``V*H`` unless tied.
    LFM2-MoE (lfm2_moe/modeling_lfm2_moe.py Lfm2MoeDecoderLayer): the layers from num_dense_layers on hold a
    MoE (:func:`moe_shape`: router ``E*H``, its expert_bias a buffer, ``E`` experts ``3*H*I_e``) instead of the MLP.
    LFM3 (lfm3/modeling_lfm3.py Lfm3Attention, Lfm3DecoderLayer; quirk ``lfm3_attention``): "sliding_attention"
    layers are attention too, o_proj is named, biases on q/k/v/o with attention_bias, g_proj ``H*n_q`` with
    use_attention_gate, and post_operator_norm / post_ffn_norm ``2*H`` per layer with use_sandwich_norm.
    """
    m = registry_entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = layer_types(f, m, n_layers)
    lfm3 = quirk_flags(HybridQuirks, m).lfm3_attention
    for i, kind in enumerate(kinds):
        if kind not in ("full_attention", "conv") and not (lfm3 and kind == "sliding_attention"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be full_attention or conv"
                              + (" or sliding_attention" if lfm3 else ""))
    n_attn = n_layers - kinds.count("conv")
    n_q, n_kv = attention_heads(f)
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
    conv = linear(hidden, 3 * hidden, bias) + hidden * kernel + (hidden if bias else 0) + linear(hidden, hidden, bias)
    attn_bias = lfm3 and f.get_bool("attention_bias")
    attn = linear(hidden, n_q * d, attn_bias) + 2 * linear(hidden, n_kv * d, attn_bias) + linear(
        n_q * d, hidden, attn_bias)
    if lfm3 and f.get_bool("use_attention_gate"):
        attn += hidden * n_q
    t.add("embedding", vocab * hidden)
    t.add("attention", n_attn * attn)
    t.add("mixer", (n_layers - n_attn) * conv)
    moe = moe_shape(f, m, hidden, n_layers)
    n_moe = len(moe.layers) if moe else 0
    if moe:
        for _ in moe.layers:
            t.add("mlp", moe.fixed)
            t.experts(moe.per_expert, moe.n_experts, moe.top_k, moe.top_k_field)
    t.add("mlp", (n_layers - n_moe) * gated_mlp(hidden, inter))
    sandwich = 2 * hidden if lfm3 and f.get_bool("use_sandwich_norm") else 0
    t.add("norms", n_layers * (2 * hidden + sandwich) + n_attn * 2 * d + hidden)
    if head:    # Lfm2Config / Lfm2MoeConfig.__post_init__: the Hub's tie_embedding wins over tie_word_embeddings
        alias = not lfm3 and f.has("tie_embedding")
        lm_head(f, t, hidden, vocab, f.get_bool("tie_embedding") if alias else None)


def inkling_text(f: ConfigReader, t: Tally) -> None:
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
    m = registry_entry(f)
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
            t.add("mlp", gated_mlp(hidden, dense_inter) + 1)
    t.add("norms", 2 * hidden)
    lm_head(f, t, hidden, vocab, tied=False)


def inkling2_text(f: ConfigReader, t: Tally) -> None:
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
    m = registry_entry(f)
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
    if quirk_flags(HybridQuirks, m).loop_passes:
        # Inkling2LoopSliding/FullLoopDecoderLayer: four Inkling2LoopMessageGate (down_proj 2H -> r, forget and
        # message gate projections r -> H) per loop layer; Inkling2LoopMessageAttentionResidual: 4 queries of H each
        start, end = f.get_int("loop_layer_index_start", minimum=0), f.get_int("loop_layer_index_end")
        n_loop, gate = max(min(end, n_layers) - start, 0), 4 * hidden * f.get_int("loop_gate_rank")
        t.add("mlp", n_loop * gate)                 # mlp_message_gate
        t.add("other", n_loop * 3 * gate + (end - start) * 4 * hidden)     # q / k / v gates, message_input
    t.add("norms", 2 * hidden)
    t.add("other", hidden)
    t.add("lm_head", (f.opt_int("unpadded_vocab_size") or vocab) * hidden)


def inkling2(f: ConfigReader, t: Tally) -> None:
    """Inkling2ForConditionalGeneration / Inkling2LoopForConditionalGeneration: the text decoder of text_config
    (:func:`inkling2_text`, its lm_head included) and Inkling2VisionModel (modeling_inkling2.py), counted as vision:
    patch_embedding ``C*p*p*H_v`` (no bias), position table ``g*g*H_v`` (posemb_grid_size ``g``), class embedding
    and its position ``2*H_v``, pre_layernorm ``2*H_v``; per layer q / k / v / out ``4*(H_v*H_v + H_v)``, MLP
    ``H_v*I + I + I*H_v + H_v`` (``I`` = intermediate_size, else mlp_ratio * H_v), two LayerNorms ``4*H_v`` and
    lambda_1 / lambda_2 ``2*H_v``; the merger linear_1 ``m*m*H_v -> P``, linear_2 ``P -> text_hidden_size`` (+
    biases with projector_bias)."""
    entry = registry_entry(f)
    assert entry.text_type is not None
    text = sub_config(f, "text_config", entry.text_type, {})
    inkling2_text(text, t)
    v = sub_config(f, "vision_config", "inkling2_vision", {"text_hidden_size": text.get_int("hidden_size")})
    hv = v.get_int("hidden_size")
    inter = v.opt_int("intermediate_size") or int(hv * v.get_float("mlp_ratio"))
    patch, grid, merge = v.get_int("patch_size"), v.get_int("posemb_grid_size"), v.get_int("spatial_merge_size")
    proj, bias = v.get_int("projection_hidden_dim"), v.get_bool("projector_bias")
    out = v.opt_int("text_hidden_size") or text.get_int("hidden_size")
    n = v.get_int("num_channels") * patch * patch * hv + grid * grid * hv + 4 * hv
    n += v.get_int("num_hidden_layers", minimum=0) * (4 * linear(hv, hv, True) + linear(hv, inter, True)
                                                     + linear(inter, hv, True) + 6 * hv)
    t.add("vision", n + linear(merge * merge * hv, proj, bias) + linear(proj, out, bias))


def kda_hybrid(f: ConfigReader, t: Tally, head: bool = True) -> None:
    """Kimi Linear and Bailing hybrid (transformers/models/kimi_linear/modeling_kimi_linear.py
    KimiLinearDecoderLayer, KimiLinearDeltaAttention, KimiLinearForgetGate, KimiLinearMoE;
    bailing_hybrid/modeling_bailing_hybrid.py BailingHybridDeltaAttention, BailingHybridForgetGate).

    ``V*H`` embedding; per layer input / post-attention norms ``2*H``; as attention (each layer's self_attn module,
    either kind) "full_attention" layers MLA
    (:func:`mla_attention`; Bailing adds g_proj ``H*n``), "linear_attention" layers Kimi delta attention with
    ``h`` heads of ``d`` (:func:`kvcalc.models.state_rules.kda_dims`), ``D = h*d``: q/k/v ``3*H*D``, conv1d ``3*D*K``
    (no bias), b_proj ``H*h``, o_proj ``D*H``, gated o_norm ``d``, the forget gate's dt_bias ``D`` and A_log
    ``h``, and low-rank gates (Kimi: f_a / g_a ``H*d``, f_b / g_b ``d*D`` each) or full ones (Bailing, quirk
    ``kda_full_gates``: f_proj and g_proj ``H*D`` each). MLP: "sparse" mlp_layer_types (else from
    first_k_dense_replace) are MoE layers (:func:`moe_shape`: router ``E*H``, its e_score_correction_bias a buffer,
    ``E`` experts ``3*H*I_e``, a shared gated MLP of ``n_shared*I_e``), the others gated ``3*H*I``. Final norm
    ``H``; lm_head ``V*H``, never tied (both classes' _tied_weights_keys are empty). The MTP layers
    (num_nextn_predict_layers) are not built.

    GLM-5 Next's decoder (glm5_next/modeling_glm5_next.py Glm5NextTextDecoderLayer, quirk ``glm5_next_hc``):
    "indexed_attention" (or "full_attention") layers are MLA with a DSA indexer where :func:`glm5_indexed` says
    (Glm5NextTextIndexer: wq_b ``r_q*n_i*d_i``, wk ``H*d_i``, k_norm LayerNorm ``2*d_i``, weights_proj ``H*n_i``,
    index_kpool_compress_ape ``P*d_i``, index_kpool_compress_gate ``d_i*H``), the KDA layers as Kimi's, and every
    layer two hyper-connections (attn_hc, ffn_hc: fn ``(2+m)*m * m*H``, base ``(2+m)*m``, scale 3; ``m`` =
    hc_mult; counted as other); its dense-first MLP layers default to the first 3.
    """
    m = registry_entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n = f.get_int("num_attention_heads")
    glm5 = quirk_flags(HybridQuirks, m).glm5_next_hc
    kinds = layer_types(f, m, n_layers)
    for i, kind in enumerate(kinds):
        if kind not in ("full_attention", "linear_attention") and not (glm5 and kind == "indexed_attention"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be full_attention or linear_attention"
                              + (" or indexed_attention" if glm5 else ""))
    n_full = n_layers - kinds.count("linear_attention")
    heads, d, kernel = kda_dims(f, quirk_flags(HybridQuirks, registry_entry(f)).kda_from_attention)
    qkv = heads * d
    gates = 2 * hidden * qkv if quirk_flags(HybridQuirks, m).kda_full_gates else 2 * (hidden * d + d * qkv)
    kda = 3 * hidden * qkv + 3 * qkv * kernel + hidden * heads + qkv * hidden + qkv + heads + gates
    mla, mla_norms = mla_attention(f, hidden, n)
    if quirk_flags(HybridQuirks, m).mla_head_gate:
        mla += hidden * n
    t.add("embedding", vocab * hidden)
    t.add("attention", n_full * mla + (n_layers - n_full) * kda)    # KDA is the layer's self_attn module
    t.add("norms", n_layers * 2 * hidden + n_full * mla_norms + (n_layers - n_full) * d + hidden)
    moe = moe_shape(f, m, hidden, n_layers)
    n_moe = len(moe.layers) if moe else 0
    if moe:
        for _ in moe.layers:
            t.add("mlp", moe.fixed)
            t.experts(moe.per_expert, moe.n_experts, moe.top_k, moe.top_k_field)
    t.add("mlp", (n_layers - n_moe) * gated_mlp(hidden, f.get_int("intermediate_size")))
    if glm5:
        n_i, d_i, mult = f.get_int("index_n_heads"), f.get_int("index_head_dim"), f.get_int("hc_mult")
        n_idx = glm5_indexed(f, kinds)
        t.add("attention", n_idx * (f.get_int("q_lora_rank") * n_i * d_i + hidden * d_i + hidden * n_i
                                    + f.get_int("index_kpool") * d_i + d_i * hidden))
        t.add("norms", n_idx * 2 * d_i)
        t.add("other", n_layers * 2 * ((2 + mult) * mult * (mult * hidden + 1) + 3))
    if head:
        lm_head(f, t, hidden, vocab, tied=False)   # _tied_weights_keys is empty: tie_word_embeddings ties nothing


def _lfm3_vl_vision(v: ConfigReader) -> int:
    """Lfm3VlVisionModel (transformers/models/lfm3_vl/modeling_lfm3_vl.py): patch_embed ``C*T*p*p*H`` (a linear
    layer, no bias), embedding_norm ``H``; per layer operator_norm and ffn_norm ``2*H``, MLP w1/w3/w2 ``3*H*I``
    and either attention (Lfm3VlVisionAttention: ``d = H/n``, q/out ``2*H*n*d``, k/v ``2*H*n_kv*d``, q/k norms
    ``2*d``) or a short convolution (Lfm3VlVisionShortConv: in_proj ``H*3H``, depthwise spatial_conv ``H*k*k``,
    out_proj ``H*H``; all without biases). Layers: ``layer_types``, else Lfm3VlVisionConfig.__post_init__'s
    "conv" for ``i < 2`` or odd ``i``, "full_attention" otherwise."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    n_q, n_kv = attention_heads(v)
    d = hidden_per_head(v, hidden, n_q)
    kinds = v.opt_str_list("layer_types") or ["conv" if i < 2 or i % 2 else "full_attention" for i in range(n_layers)]
    if len(kinds) < n_layers:
        raise ConfigError(v.field_name("layer_types"), f"<{len(kinds)} entries>", f"lists fewer than {n_layers}")
    n_conv = kinds[:n_layers].count("conv")
    patch, kernel = v.get_int("patch_size"), v.get_int("conv_kernel_size")
    n = v.get_int("in_channels") * v.get_int("temporal_patch_size") * patch * patch * hidden + hidden
    n += (n_layers - n_conv) * (2 * hidden * n_q * d + 2 * hidden * n_kv * d + 2 * d)
    n += n_conv * (4 * hidden * hidden + hidden * kernel * kernel)
    return n + n_layers * (gated_mlp(hidden, inter) + 2 * hidden)


def lfm3_vl(top: ConfigReader, t: Tally) -> None:
    """Lfm3VlForConditionalGeneration (transformers/models/lfm3_vl/modeling_lfm3_vl.py): the lfm3 decoder of
    ``text_config`` (:func:`lfm2`), the vision tower (:func:`_lfm3_vl_vision`) and Lfm3VlMultiModalProjector:
    LayerNorm ``2*H_v``, linear_1 ``H_v*m^2 -> P``, linear_2 ``P -> H_t`` (biases with projector_bias; ``m`` the
    vision spatial_merge_size, ``P`` projector_hidden_size). lm_head ``V*H_t`` unless the top-level
    tie_word_embeddings (default true) ties it."""
    text = typed_sub(top, "text_config", "lfm3", ("lfm3",))
    vision = typed_sub(top, "vision_config", "lfm3_vl_vision", ("lfm3_vl_vision",))
    lfm2(text, t, head=False)
    hidden_t, hidden_v = text.get_int("hidden_size"), vision.get_int("hidden_size")
    lm_head(top, t, hidden_t, text.get_int("vocab_size"))
    proj, bias = top.get_int("projector_hidden_size"), top.get_bool("projector_bias")
    merged = hidden_v * vision.get_int("spatial_merge_size") ** 2
    t.add("vision", _lfm3_vl_vision(vision) + 2 * hidden_v + linear(merged, proj, bias)
          + linear(proj, hidden_t, bias))


def olmo_hybrid(f: ConfigReader, t: Tally) -> None:
    """OLMo Hybrid (transformers/models/olmo_hybrid/modeling_olmo_hybrid.py OlmoHybridAttentionDecoderLayer,
    OlmoHybridLinearAttentionDecoderLayer, OlmoHybridGatedDeltaNet): :func:`llama_like` (full q/k norms on the
    attention layers; two norms per layer of either kind) over the gated-DeltaNet geometry OlmoHybridConfig derives
    (:func:`kvcalc.models.state_rules.olmo_hybrid_linear`); its q/k/v/g/a/b projections hold what Qwen3-Next's
    in_proj_qkvz + in_proj_ba do."""
    llama_like(olmo_hybrid_linear(f), t)


def _glm5_next_vision(v: ConfigReader) -> int:
    """Glm5NextVisionModel (transformers/models/glm5_next/modeling_glm5_next.py): Conv3d patch embed
    ``C*t*p*p*H + H``; ``depth`` blocks of 2 RMSNorms ``2H``, qkv ``H*3H`` and proj ``H*H`` (+ ``3H + H`` with
    attention_bias), q/k norms ``2*d`` (``d = H / num_heads``), gated MLP ``3*H*I`` (+ ``2I + H`` with
    attention_bias); downsample conv ``H*O*m^2 + O`` (``O`` = out_hidden_size); the patch merger to ``O``
    (kvcalc.models.vision_towers.glm_merger, context projection_intermediate_size); post RMSNorm ``H``. RoPE only:
    no position table."""
    hidden, depth = v.get_int("hidden_size"), v.get_int("depth", "num_hidden_layers")
    heads, inter = v.get_int("num_heads", "num_attention_heads"), v.get_int("intermediate_size")
    out = v.get_int("out_hidden_size")
    d = hidden_per_head(v, hidden, heads)
    merge, patch, bias = v.get_int("spatial_merge_size"), v.get_int("patch_size"), v.get_bool("attention_bias")
    n = v.get_int("in_channels") * v.get_int("temporal_patch_size") * patch * patch * hidden + hidden
    n += depth * (2 * hidden + linear(hidden, 3 * hidden, bias) + linear(hidden, hidden, bias) + 2 * d
                  + 2 * linear(hidden, inter, bias) + linear(inter, hidden, bias))
    return n + hidden * out * merge * merge + out + glm_merger(out, v.get_int("projection_intermediate_size")) + hidden


def glm5_next(top: ConfigReader, t: Tally) -> None:
    """Glm5NextForConditionalGeneration (transformers/models/glm5_next/modeling_glm5_next.py): the glm5_next_text
    decoder of ``text_config`` (:func:`kda_hybrid`; a flat config's own top-level fields, which
    Glm5NextConfig.__post_init__ takes as text_config), the vision tower (:func:`_glm5_next_vision`, the projector
    inside it); lm_head ``V*H`` unless the top-level tie_word_embeddings (default false) ties it."""
    given = top.data.get("text_config") is not None
    text = (typed_sub(top, "text_config", "glm5_next_text", ("glm5_next_text",)) if given
            else typed(top, "glm5_next_text"))
    vision = typed_sub(top, "vision_config", "glm5_next_vision", ("glm5_next_vision",))
    kda_hybrid(text, t, head=False)
    lm_head(top, t, text.get_int("hidden_size"), text.get_int("vocab_size"))
    t.add("vision", _glm5_next_vision(vision))
