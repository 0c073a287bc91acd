"""The Gemma family: Gemma 3 (the multimodal wrapper), Gemma 3n (text decoder with per-layer inputs,
AltUp and KV sharing; MobileNetV5 vision tower; Conformer audio tower), Gemma 4 (text decoder, Gemma 4
Unified) and DiffusionGemma.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..architectures import layer_types
from ..config import ConfigReader
from ..errors import ConfigError, UnsupportedError
from .blocks import attention_heads, gated_mlp, linear, lm_head, registry_entry
from .counts import Tally
from .llama import llama_like
from .model_type import quirk_flags
from .subconfigs import sub_config, typed_sub, wrapper_sub
from .vision_towers import siglip_vision
from .wrappers import count_wrapper


@dataclass(frozen=True)
class GemmaQuirks:
    """The quirks the Gemma counters read, one flag per quirk an entry names
    (:data:`kvcalc.models.model_type.QUIRKS`)."""

    no_per_layer_inputs: bool = False


def gemma4_text(f: ConfigReader, t: Tally) -> None:
    """Gemma 4 text decoder (transformers/models/gemma4/modeling_gemma4.py Gemma4TextModel,
    Gemma4TextDecoderLayer, Gemma4TextAttention, Gemma4TextMLP, Gemma4TextRouter, Gemma4TextExperts).

    Per layer ``i`` with head dim ``d_i`` and KV heads ``n_kv_i`` (``per_layer_config``, else full layers
    take global_head_dim / num_global_key_value_heads: :func:`kvcalc.architectures.per_layer_overrides`):
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
    from ..architectures import per_layer_overrides  # it imports the registry, which this package reads

    m = registry_entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = attention_heads(f)
    d = f.get_int("head_dim")
    kinds = layer_types(f, m, n_layers)
    overrides = per_layer_overrides(f, m, n_layers, kinds)
    first_reuse = _kv_reuse_start(f, kinds)
    bias, k_eq_v = f.get_bool("attention_bias"), f.get_bool("attention_k_eq_v")
    inter, double = f.get_int("intermediate_size"), f.get_bool("use_double_wide_mlp")
    plain = quirk_flags(GemmaQuirks, m).no_per_layer_inputs
    per_layer = 0 if plain else f.opt_int("hidden_size_per_layer_input", minimum=0) or 0
    moe = not plain and f.get_bool("enable_moe_block")
    t.add("embedding", vocab * hidden)
    for i, kind in enumerate(kinds):
        o = overrides.get(i, {})
        d_i, kv_i = o.get("k_head_dim", d), o.get("kv_heads", n_kv)
        reuse = i >= first_reuse
        attn = linear(hidden, n_q * d_i, bias) + linear(n_q * d_i, hidden, bias)
        norms = d_i + 4 * hidden
        if not reuse:
            attn += linear(hidden, kv_i * d_i, bias) * (1 if k_eq_v and kind != "sliding_attention" else 2)
            norms += d_i
        t.add("attention", attn)
        t.add("norms", norms)
        t.add("mlp", gated_mlp(hidden, inter * (2 if double and reuse else 1)))
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
    lm_head(f, t, hidden, vocab)


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


def gemma3n_text(f: ConfigReader, t: Tally) -> None:
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
    m = registry_entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = attention_heads(f)
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
    t.add("attention", n_layers * (linear(hidden, n_q * d, bias) + linear(n_q * d, hidden, bias))
          + n_own * 2 * linear(hidden, n_kv * d, bias))
    t.add("norms", n_layers * (d + 4 * hidden) + n_own * d)
    t.add("mlp", sum(gated_mlp(hidden, inter) for inter in inters))
    t.add("other", n_layers * (hidden + a * a + a ** 3 + hidden * a + 2 * hidden * rank + 2 * hidden * per_layer))
    t.add("norms", n_layers * 3 * hidden)          # AltUp router_norm, post_laurel_norm, post_per_layer_input_norm
    t.add("other", hidden * n_layers * per_layer + 2 * (a - 1) * hidden * hidden)
    t.add("norms", per_layer + hidden)
    lm_head(f, t, hidden, vocab)


def gemma3(top: ConfigReader, t: Tally) -> None:
    """Gemma3ForConditionalGeneration: the gemma3_text decoder (``text_config``), a SigLIP tower
    (``vision_config``) and the projector ``H_v*H_t`` + RMSNorm ``H_v``. Tying follows the top-level
    ``tie_word_embeddings`` (default true), not the text_config's.
    """
    text = typed_sub(top, "text_config", "gemma3_text", ("gemma3_text",))
    vision = typed_sub(top, "vision_config", "siglip_vision_model", ("siglip_vision_model",))
    llama_like(text, t, head=False)
    lm_head(top, t, text.get_int("hidden_size"), text.get_int("vocab_size"))
    hv = vision.get_int("hidden_size")
    t.add("vision", siglip_vision(vision) + hv * text.get_int("hidden_size") + hv)


def gemma4_unified(f: ConfigReader, t: Tally) -> None:
    """Gemma4UnifiedForConditionalGeneration (transformers/models/gemma4_unified/modeling_gemma4_unified.py,
    Gemma4UnifiedModel): the wrapper of :func:`kvcalc.models.wrappers.count_wrapper` (decoder, optional
    encoder-free vision embedder), plus with an ``audio_config`` the audio embedder
    (Gemma4UnifiedMultimodalEmbedder over raw frames): ``audio_embed_dim -> H_t`` without bias, counted as
    other (its RMSNorm has no scale)."""
    count_wrapper(f, t)
    if f.data.get("audio_config") is not None:
        audio = sub_config(f, "audio_config", "gemma4_unified_audio", {})
        text = sub_config(f, "text_config", "gemma4_unified_text", {})
        t.add("other", audio.get_int("audio_embed_dim") * text.get_int("hidden_size"))


def diffusion_gemma(f: ConfigReader, t: Tally) -> None:
    """DiffusionGemmaForBlockDiffusion (transformers/models/diffusion_gemma/modeling_diffusion_gemma.py): one set of
    decoder weights (DiffusionGemmaModel ties the decoder's layers and embeddings to the encoder's
    language_model, lm_head to the embedding) counted as a Gemma 4 wrapper (:func:`kvcalc.models.wrappers.
    count_wrapper`: the diffusion_gemma_text decoder by :func:`gemma4_text` with its MoE block always on and
    no v_proj on full layers, the Gemma 4 vision tower and embed_vision), plus the decoder's
    DiffusionGemmaSelfConditioning: gate / up ``H*I``, down ``I*H`` and pre_norm ``H`` (post_norm has no scale);
    the projector (encoder.embed_vision) is counted with the vision tower, as Gemma 4's.
    With tie_word_embeddings false transformers ties nothing (``_tied_weights_keys`` apply only when tying):
    the decoder then holds its own copy of the embedding, layers and final norm."""
    count_wrapper(f, t)
    text = sub_config(f, "text_config", "diffusion_gemma_text", {})
    hidden = text.get_int("hidden_size")
    t.add("other", gated_mlp(hidden, text.get_int("intermediate_size")))
    t.add("norms", hidden)                                  # self_conditioning.pre_norm
    if not t.tied:
        copy = Tally()
        gemma4_text(text, copy)
        for part, n in copy.parts.items():
            if part != "lm_head":
                t.add(part, n)
        t.moe_experts += copy.moe_experts
        t.moe_active += copy.moe_active


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
    total, c_in = linear(27, 64, True) + 64, 64
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


def gemma3n(f: ConfigReader, t: Tally) -> None:
    """Gemma3nForConditionalGeneration (modeling_gemma3n.py): the Gemma3nTextModel (:func:`gemma3n_text`), the
    vision tower (TimmWrapperModel over timm's mobilenetv5_300m_enc, :func:`_mobilenetv5_300m_enc`; other
    architectures refused), the audio tower (:func:`_gemma3n_audio`), and embed_vision / embed_audio
    (Gemma3nMultimodalEmbedder: embedding ``V_m*H_m``, hard / soft RMSNorms ``2H_m``, embedding_projection
    ``H_m -> H_t``; its post-projection norm holds no weight); lm_head tied to the text table unless
    tie_word_embeddings is false."""
    text = wrapper_sub(f, "text_config", "gemma3n_text", {}, absent_ok=True)
    vision = wrapper_sub(f, "vision_config", "gemma3n_vision", {}, absent_ok=True)
    audio = wrapper_sub(f, "audio_config", "gemma3n_audio", {}, absent_ok=True)
    arch, model_args = vision.get_str("architecture"), vision.value("model_args")
    if arch != "mobilenetv5_300m_enc" or model_args:
        raise UnsupportedError(f"{vision.path}architecture {arch!r:.60} with model_args {model_args!r:.60}: kvcalc "
                               "counts timm's mobilenetv5_300m_enc without model_args only (never a guess)")
    inner = Tally()
    gemma3n_text(text, inner)
    t.add_decoder(inner)
    ht = text.get_int("hidden_size")
    t.tied = f.get_bool("tie_word_embeddings", default=True)
    if not t.tied:
        t.add("lm_head", text.get_int("vocab_size") * ht)
    embedders = sum(m.get_int("vocab_size") * m.get_int("hidden_size") + 2 * m.get_int("hidden_size")
                    + m.get_int("hidden_size") * ht for m in (vision, audio))
    t.add("vision", _mobilenetv5_300m_enc() + embedders)
    t.add("other", _gemma3n_audio(audio))
