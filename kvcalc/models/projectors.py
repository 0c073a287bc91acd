"""Multimodal projectors: from a vision tower's width to the decoder's, one rule per wrapper family, named by
the registry entry's ``Vision.projector`` (:data:`PROJECTORS`).

Signature of every rule: ``(wrapper config, vision config, text config, tower parameters) -> parameters``.
Notation: ``H`` tower width, ``H_t`` decoder width.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..config import ConfigReader, hidden_per_head
from ..errors import ConfigError, UnsupportedError
from .blocks import linear, mlp2
from .image_tokenizers import janus_vqvae
from .subconfigs import sub_config
from .vision_towers import molmo2_attention, sam_vision

Projector = Callable[[ConfigReader, ConfigReader, ConfigReader, int], int]
"""(wrapper reader, vision reader, text reader, tower count) -> parameters of the projector and of any
other wrapper-level vision module (a second tower, ``image_newline``)."""


def gemma4_unified_projector(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Gemma4UnifiedMultimodalEmbedder (modeling_gemma4_unified.py): ``output_proj_dims -> H_t`` without bias
    (its pre-projection RMSNorm has no scale)."""
    return v.get_int("output_proj_dims") * text.get_int("hidden_size")


def _aya_vision(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """AyaVisionMultiModalProjector (modeling_aya_vision.py): pixel shuffle by ``f`` = downsample_factor,
    LayerNorm ``2*H*f^2``, ``linear_1 H*f^2 -> A`` and ``linear_2 A/2 -> H_t`` (SwiGLU halves the width), both
    with biases; ``A`` = alignment_intermediate_size, which the class reads with getattr and the decoder width
    ``H_t`` as fallback (the config class declares no such field)."""
    width = v.get_int("hidden_size") * top.get_int("downsample_factor") ** 2
    ht = text.get_int("hidden_size")
    inter = top.opt_int("alignment_intermediate_size") or ht
    return 2 * width + linear(width, inter, True) + linear(inter // 2, ht, True)


def _granite_docling(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """GraniteDoclingModel (modeling_granite_docling.py): the connector is in the tower (its out_hidden_size must
    be the decoder width, as GraniteDoclingConfig validates); with
    density_router_hidden_size ``D`` a GraniteDoclingDensityRouter: att ``H+1``, LayerNorm ``2H``,
    ``H*D+D``, ``D+1``."""
    out, ht = v.get_int("out_hidden_size"), text.get_int("hidden_size")
    if out != ht:       # GraniteDoclingConfig.validate_architecture
        raise ConfigError(v.field_name("out_hidden_size"), out, f"must equal text_config.hidden_size ({ht})")
    router = top.opt_int("density_router_hidden_size")
    if router is None:
        return 0
    hidden = v.get_int("hidden_size")
    return linear(hidden, 1, True) + 2 * hidden + linear(hidden, router, True) + linear(router, 1, True)


def _aria(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """AriaProjector (modeling_aria.py): learned queries ``M*H`` (``M`` = the largest value of
    projector_patch_to_query_dict, as AriaConfig derives max_value_projector_patch_to_query_dict);
    AriaCrossAttention: q/k/v ``3*H*H`` (no biases), nn.MultiheadAttention ``4*H*H + 4H``, linear ``H*H+H``,
    2 LayerNorms ``4H``; LayerNorm ``2H``; AriaProjectorMLP ``H -> H_t -> H_t`` without biases."""
    hidden, ht = v.get_int("hidden_size"), text.get_int("hidden_size")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    queries = top.value("projector_patch_to_query_dict")
    if queries is None:
        queries = {1225: 128, 4900: 256}           # AriaConfig.__post_init__
    if not isinstance(queries, Mapping) or not queries:
        raise ConfigError(top.field_name("projector_patch_to_query_dict"), queries,
                          "must map patch counts to query counts")
    most = max(ConfigReader.check_int(f"{top.path}projector_patch_to_query_dict[{k}]", n) for k, n in queries.items())
    cross = 3 * hidden * hidden + 4 * hidden * hidden + 4 * hidden + linear(hidden, hidden, True) + 4 * hidden
    return most * hidden + cross + 2 * hidden + hidden * ht + ht * ht


def _deepseek_vl_hybrid(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """DeepseekVLHybridModel (modeling_deepseek_vl_hybrid.py): besides the SigLIP tower, the high-resolution
    SAM tower of high_res_vision_config (:func:`sam_vision`), DeepseekVLSamVisionNeck (1x1 conv ``H_s*O``,
    3x3 conv ``9*O*O``, no biases, 2 LayerNorms ``4O``), DeepseekVLSamVisionProj (3x3 convs ``O -> 2O -> 4O``,
    no biases), high_res_vision_alpha ``1``; DeepseekVLHybridAligner: ``H -> H_t/2`` and ``4O -> H_t/2`` with
    biases, ``H_t -> H_t`` with bias (``O`` = the SAM config's output_channels)."""
    sam = sub_config(top, "high_res_vision_config", "sam_vision_model", {}, {"sam_vision_model": None})
    hs, out = sam.get_int("hidden_size"), sam.get_int("output_channels")
    ht = text.get_int("hidden_size")
    n = sam_vision(sam) + hs * out + 9 * out * out + 4 * out + 9 * out * 2 * out + 9 * 2 * out * 4 * out + 1
    aligner = linear(v.get_int("hidden_size"), ht // 2, True) + linear(4 * out, ht // 2, True) + linear(ht, ht, True)
    return n + aligner


def _cosmos3_edge(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Cosmos3EdgePatchMerger (modeling_cosmos3_edge.py): LayerNorm ``2H`` (over the tower width, before the
    merge), ``H*m^2 -> P`` and ``P -> H_t`` with biases (``m`` = spatial_merge_size, ``P`` =
    projector_hidden_size)."""
    hidden, merge = v.get_int("hidden_size"), v.get_int("spatial_merge_size")
    inner = top.get_int("projector_hidden_size")
    return 2 * hidden + linear(hidden * merge * merge, inner, True) + linear(inner, text.get_int("hidden_size"), True)


def _no_projector(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """A tokenizer tower whose codes enter the decoder's vocabulary (Apertus 1.5): no projector."""
    return 0


def florence2_projector(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Florence2MultiModalProjector (modeling_florence2.py): image_projection ``E -> projection_dim`` (no
    bias; ``E`` = the last embed_dim), LayerNorm ``2*projection_dim``, 2D learned positions
    ``max_position_embeddings * E`` (row ``E/2`` + column ``E - E/2``); the temporal embedding is a buffer."""
    last, proj = v.get_int_list("embed_dim", minimum=1)[-1], v.get_int("projection_dim")
    return last * proj + 2 * proj + v.get_int("max_position_embeddings") * last


def _ernie4_5_vl_moe(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Ernie4_5_VLMoeVariableResolutionResamplerModel (modeling_ernie4_5_vl_moe.py): ``S = H*m^2`` (spatial
    merge), ``T = S*t`` (temporal_merge_size); spatial_linear ``S*S+S + S*S+S`` + LayerNorm ``2S``,
    temporal_linear ``T*S+S + S*S+S`` + LayerNorm ``2S``, mlp ``S*H_t+H_t``, after_norm RMSNorm ``H_t``."""
    spatial = v.get_int("hidden_size") * v.get_int("spatial_merge_size") ** 2
    temporal = spatial * v.get_int("temporal_merge_size")
    ht = text.get_int("hidden_size")
    return (2 * linear(spatial, spatial, True) + 2 * spatial + linear(temporal, spatial, True)
            + linear(spatial, spatial, True) + 2 * spatial + linear(spatial, ht, True) + ht)


def deepseek_ocr2_projector(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """DeepseekOcr2Model (modeling_deepseek_ocr2.py): multi_modal_projector ``H_e -> H_t`` with bias (``H_e`` =
    encoder_config.hidden_size) and the view_separator ``H_t``."""
    enc = sub_config(v, "encoder_config", "deepseek_ocr2_encoder", {})
    ht = text.get_int("hidden_size")
    return linear(enc.get_int("hidden_size"), ht, True) + ht


def llama4_projector(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Llama4MultiModalProjector (modeling_llama4.py): linear_1 ``vision_output_dim -> H_t``, no bias."""
    return v.get_int("vision_output_dim") * text.get_int("hidden_size")


def _idefics2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Idefics2Connector (modeling_idefics2.py): modality_projection, an Idefics2MLP ``H -> I_t -> H_t``
    (gate, up, down; no biases), and Idefics2PerceiverResampler over ``perceiver_config``: latents
    ``n_latents*H_t``, ``resampler_depth`` Idefics2PerceiverLayers (3 RMSNorms ``3H_t``; q/o ``H_t*n*d`` each,
    k/v ``H_t*kv*d`` each, no biases; gated MLP ``3*H_t*4H_t``), final RMSNorm ``H_t``. The perceiver's width
    is the decoder's: Idefics2Config.__post_init__ overrides a different perceiver hidden_size."""
    hidden = text.get_int("hidden_size")
    p = sub_config(top, "perceiver_config", "idefics2_perceiver", {}, fixed=True)
    heads, d = p.get_int("resampler_n_heads"), p.get_int("resampler_head_dim")
    kv = p.get_int("num_key_value_heads")
    if heads % kv:
        raise ConfigError(p.field_name("num_key_value_heads"), kv, f"must divide resampler_n_heads ({heads})")
    layer = 3 * hidden + 2 * hidden * heads * d + 2 * hidden * kv * d + 3 * hidden * 4 * hidden
    inter = text.get_int("intermediate_size")
    projection = 2 * v.get_int("hidden_size") * inter + inter * hidden
    return projection + p.get_int("resampler_n_latents") * hidden + p.get_int("resampler_depth") * layer + hidden


def _minimax_m3_vl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """MiniMaxM3VLMultiModalProjector (modeling_minimax_m3_vl.py), biases throughout: linear_1 ``H -> P``,
    linear_2 ``P -> H_t``, merge_linear_1 ``H_t*m^2 -> P`` (merged_hidden_size, which
    MiniMaxM3VLConfig.__post_init__ derives), merge_linear_2 ``P -> H_t`` (``P`` = projector_hidden_size,
    ``m`` = the vision_config's spatial_merge_size). The same __post_init__ ties the head when only the
    text_config asks for it; that case is refused (count_wrapper ties by the top-level flag)."""
    if not top.get_bool("tie_word_embeddings") and text.get_bool("tie_word_embeddings"):
        raise UnsupportedError(f"{top.path}text_config.tie_word_embeddings: true with a top-level false is not "
                               "counted (MiniMaxM3VLConfig ties the head from the text_config)")
    hidden, proj = text.get_int("hidden_size"), top.get_int("projector_hidden_size")
    merged = hidden * v.get_int("spatial_merge_size") ** 2
    return (linear(v.get_int("hidden_size"), proj, True) + linear(proj, hidden, True)
            + linear(merged, proj, True) + linear(proj, hidden, True))


def _molmo2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Molmo2Adapter (modeling_molmo2.py) over ``adapter_config``: image_pooling_2d, a Molmo2VisionAttention from
    ``A*k`` (``A`` = the adapter's hidden_size, ``k`` = len(vision_feature_layer), default [24, 18]) to ``A``;
    image_projector: gate / up ``A -> I`` (biases with mlp_bias), down ``I -> text_hidden_size`` (the adapter's
    own field, not the decoder's width), no bias. A checkpoint's legacy ``vit_config`` (Molmo2Config trims that
    ViT to the deepest feature layer) is refused rather than counted as the class-default tower."""
    if top.data.get("vision_config") is None and top.data.get("vit_config") is not None:
        raise UnsupportedError(f"{top.path}vit_config (the checkpoint's legacy name, whose ViT Molmo2Config trims) "
                               "is not counted: give it as vision_config")
    a = sub_config(top, "adapter_config", "molmo2_adapter", {}, fixed=True)
    hidden, inter = a.get_int("hidden_size"), a.get_int("intermediate_size")
    k = len(a.get_int_list("vit_layers", "vision_feature_layer", minimum=-(2**31)))
    return (molmo2_attention(hidden * k, hidden, a) + 2 * linear(hidden, inter, a.get_bool("mlp_bias"))
            + inter * a.get_int("text_hidden_size"))


def _ovis2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Ovis2Model (modeling_ovis2.py): visual_embeddings_table ``vision vocab_size * hidden_size`` (the wrapper's
    own hidden_size). Ovis2ForConditionalGeneration's lm_head is ``hidden_size -> vocab_size`` of the wrapper's
    fields, tied to the decoder's embed_tokens: an untied one (tie_word_embeddings false) is refused, as
    count_wrapper would size it from the text_config."""
    if not top.get_bool("tie_word_embeddings"):
        raise UnsupportedError(f"{top.path}tie_word_embeddings: false is not counted for ovis2 (its lm_head is sized "
                               "by the wrapper's hidden_size / vocab_size, not the text_config's)")
    return v.get_int("vocab_size") * top.get_int("hidden_size")


def _step3p7(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Step3p7Model.multi_modal_projector (modeling_step3p7.py): ``4H -> H_t`` (the downsamplers' width), bias
    with projector_bias."""
    return linear(4 * v.get_int("width", "hidden_size"), text.get_int("hidden_size"), top.get_bool("projector_bias"))


def _muse(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """MuseGlimmerVisionAdapter and vision_projection (modeling_muse_glimmer.py; Muse Spark's are the same):
    fc1 ``out_hidden_size -> P``, fc2 ``P -> P``, projection ``P -> H_t``, no biases (``P`` =
    projector_hidden_size); perception_emb_norm holds no weight."""
    proj = top.get_int("projector_hidden_size")
    return top.get_int("out_hidden_size") * proj + proj * proj + proj * text.get_int("hidden_size")


def _unlimited_ocr(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """UnlimitedOcrModel (modeling_unlimited_ocr.py): multi_modal_projector ``D_1 + H_clip -> H_t`` with bias
    (SAM's last downsample width plus the CLIP encoder's) and view_separator ``H_t`` (its image_newline ``H_t``
    is counted as ``other``, as LLaVA-NeXT's). A
    checkpoint-style ``language_config`` (UnlimitedOcrConfig.__post_init__ reads it as the text_config when there
    is none) is refused rather than counted as the class-default decoder."""
    if top.data.get("text_config") is None and top.data.get("language_config") is not None:
        raise UnsupportedError(f"{top.path}language_config is not read by kvcalc: give the decoder as text_config")
    sam = sub_config(v, "sam_config", "unlimited_ocr_sam_vision_model", {}, fixed=True)
    enc = sub_config(v, "encoder_config", "unlimited_ocr_vision_encoder", {}, fixed=True)
    width = sam.get_int_list("downsample_channels", minimum=1)[-1] + enc.get_int("hidden_size")
    ht = text.get_int("hidden_size")
    return linear(width, ht, True) + ht


def _nemotron_h_omni(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """NemotronH_Omni_Reasoning_V3 (modeling_nemotron_h_omni.py): the projector NemotronH_Omni_Reasoning_V3-
    MultiModalProjector, RMSNorm ``W`` + ``W -> P -> H_t`` without biases (``W`` = vision_hidden_size *
    int(1/downsample_ratio)^2, ``P`` = projector_hidden_size), and vision_final_layernorm ``2*vision_hidden_size``
    when the text_config has MTP layers (num_nextn_predict_layers > 0). Legacy llm_config / sound_config are
    refused (the audio tower is not counted)."""
    for legacy in ("llm_config", "sound_config"):
        if top.data.get(legacy) is not None:
            raise UnsupportedError(f"{top.path}{legacy} (a legacy field name) is not counted")
    hv = top.get_int("vision_hidden_size", "vit_hidden_size")
    width = hv * int(1 / top.get_float("downsample_ratio")) ** 2
    proj = top.get_int("projector_hidden_size")
    final = 2 * hv if text.get_int("num_nextn_predict_layers", default=0, minimum=0) > 0 else 0
    return width + width * proj + proj * text.get_int("hidden_size") + final


def _janus(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """JanusModel's image-generation modules (modeling_janus.py) over ``vq_config``: the VQ model
    (:func:`janus_vqvae`), generation_embeddings ``num_embeddings*embed_dim``, JanusVQVAEAlignerMLP (fc1
    ``embed_dim -> P``, ``num_hidden_layers - 1`` layers ``P -> P``, biased) and JanusVQVAEHead (proj_out
    ``image_token_embed_dim -> P``, vision_head ``P -> num_embeddings``, biased; ``P`` = projection_dim)."""
    q = sub_config(top, "vq_config", "janus_vqgan", {}, fixed=True)
    codes, embed, proj = q.get_int("num_embeddings"), q.get_int("embed_dim"), q.get_int("projection_dim")
    aligner = linear(embed, proj, True) + (q.get_int("num_hidden_layers") - 1) * linear(proj, proj, True)
    head = linear(q.get_int("image_token_embed_dim"), proj, True) + linear(proj, codes, True)
    return janus_vqvae(q) + codes * embed + aligner + head


def _feature_layers(top: ConfigReader, name: str = "vision_feature_layer") -> int:
    """How many tower layers the projector concatenates: the length of a list ``vision_feature_layer``, else 1."""
    value = top.value(name)
    return len(value) if isinstance(value, list | tuple) else 1


def _llava(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """LlavaMultiModalProjector (modeling_llava.py): ``linear_1 H*k -> H_t`` and ``linear_2 H_t -> H_t``,
    biases with multimodal_projector_bias (``k`` feature layers concatenated)."""
    hv, ht, bias = v.get_int("hidden_size"), text.get_int("hidden_size"), top.get_bool("multimodal_projector_bias")
    return mlp2(hv * _feature_layers(top), ht, bias)


def _video_llava(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """VideoLlavaModel (modeling_video_llava.py): two towers of the same config (image_tower, video_tower)
    and the LLaVA projector."""
    return tower + _llava(top, v, text, tower)


def _vipllava(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """VipLlavaMultiModalProjector (modeling_vipllava.py): LayerNorm ``2*H*k`` over the ``k``
    concatenated ``vision_feature_layers``, ``linear_1 H*k -> H_t`` and ``linear_2 H_t -> H_t`` with biases."""
    hv, ht = v.get_int("hidden_size"), text.get_int("hidden_size")
    k = _feature_layers(top, "vision_feature_layers")
    return 2 * hv * k + linear(hv * k, ht, True) + linear(ht, ht, True)


def _mistral3(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Mistral3MultiModalProjector (modeling_mistral3.py; LightOnOCR's is the same): RMSNorm ``H``, patch
    merger ``H*m^2 -> H`` (no bias, ``m`` = spatial_merge_size), ``linear_1 H*k -> H_t``, ``linear_2
    H_t -> H_t`` (biases with multimodal_projector_bias; LightOnOCR: none)."""
    hv, ht, merge = v.get_int("hidden_size"), text.get_int("hidden_size"), top.get_int("spatial_merge_size")
    bias = top.get_bool("multimodal_projector_bias", default=False)
    return hv + hv * merge * merge * hv + linear(hv * _feature_layers(top), ht, bias) + linear(ht, ht, bias)


def _paligemma(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """PaliGemmaMultiModalProjector (modeling_paligemma.py): ``H -> projection_dim`` with bias."""
    return linear(v.get_int("hidden_size"), top.get_int("projection_dim"), True)


def _paddleocr_vl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """PaddleOCRProjector (modeling_paddleocr_vl.py): LayerNorm ``2H``, ``H*m^2 -> H*m^2`` and
    ``H*m^2 -> H_t`` with biases (``m`` = the vision_config's spatial_merge_size)."""
    hv = v.get_int("hidden_size")
    merged = hv * v.get_int("spatial_merge_size") ** 2
    return 2 * hv + linear(merged, merged, True) + linear(merged, text.get_int("hidden_size"), True)


def _minicpmv(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """MiniCPMV4_6Merger (modeling_minicpmv4_6.py): merger_times DownsampleMLPs over ``4H`` (two 2x2 merges):
    LayerNorm ``8H``, ``4H -> 4H`` and ``4H -> out`` with biases, ``out = H`` except the last (``H_t``)."""
    hv, times = v.get_int("hidden_size"), top.get_int("merger_times")

    def mlp(out: int) -> int:
        return 8 * hv + linear(4 * hv, 4 * hv, True) + linear(4 * hv, out, True)
    return (times - 1) * mlp(hv) + mlp(text.get_int("hidden_size"))


def _lfm2_vl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Lfm2VlMultiModalProjector (modeling_lfm2_vl.py): pixel unshuffle by ``f`` = downsample_factor,
    LayerNorm ``2*H*f^2`` with projector_use_layernorm, ``H*f^2 -> P -> H_t`` (``P`` = projector_hidden_size;
    biases with projector_bias)."""
    width = v.get_int("hidden_size") * top.get_int("downsample_factor") ** 2
    hidden = top.get_int("projector_hidden_size")
    bias = top.get_bool("projector_bias")
    return ((2 * width if top.get_bool("projector_use_layernorm") else 0) + linear(width, hidden, bias)
            + linear(hidden, text.get_int("hidden_size"), bias))


def gemma4_projector(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Gemma4MultimodalEmbedder (modeling_gemma4.py): ``H -> H_t`` without bias (its pre-projection RMSNorm
    has no weight)."""
    return v.get_int("hidden_size") * text.get_int("hidden_size")


def _deepseek_vl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """DeepseekVLAligner (modeling_deepseek_vl.py; VideoLlama3Projector is the same): ``H -> H_t -> H_t``
    with biases."""
    return mlp2(v.get_int("hidden_size"), text.get_int("hidden_size"))


def _idefics3(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Idefics3Connector (modeling_idefics3.py; SmolVLM's is the same): pixel shuffle by ``s`` =
    scale_factor, then ``H*s^2 -> H_t`` without bias."""
    return v.get_int("hidden_size") * top.get_int("scale_factor") ** 2 * text.get_int("hidden_size")


def _internvl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """InternVLMultiModalProjector (modeling_internvl.py; QianfanOCR's is the same): ``k = int(1/r)^2``
    (``r`` = downsample_ratio), LayerNorm ``2*H*k``, ``H*k -> H_t -> H_t`` with biases."""
    k = int(1 / top.get_float("downsample_ratio")) ** 2
    hv = v.get_int("hidden_size")
    return 2 * hv * k + mlp2(hv * k, text.get_int("hidden_size"))


def _cohere2_vision(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Cohere2VisionMultiModalProjector (modeling_cohere2_vision.py): ``H*f^2 -> A`` and ``A/2 -> H_t``
    (SwiGLU halves the width), biases (``f`` = downsample_factor, ``A`` = alignment_intermediate_size)."""
    inter = top.get_int("alignment_intermediate_size")
    return (linear(v.get_int("hidden_size") * top.get_int("downsample_factor") ** 2, inter, True)
            + linear(inter // 2, text.get_int("hidden_size"), True))


def _got_ocr2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """GotOcr2MultiModalProjector (modeling_got_ocr2.py): 3x3 convs ``O -> 2O -> H_t`` (no biases,
    ``O`` = output_channels), then ``H_t -> H_t`` with bias."""
    out, ht = v.get_int("output_channels"), text.get_int("hidden_size")
    return 9 * out * 2 * out + 9 * 2 * out * ht + linear(ht, ht, True)


def _out_to_text(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """HyperCLOVAX-Vision-V2 (modeling_hyperclovax_vision_v2.py): the Qwen2.5-VL tower's merger output
    ``out_hidden_size -> H_t`` with bias."""
    return linear(v.get_int("out_hidden_size"), text.get_int("hidden_size"), True)


def _kimi_k25(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Kimi_K25MultimodalProjection (modeling_kimi_k25.py): LayerNorm ``2P`` (``P`` =
    projection_hidden_size), ``M -> M`` and ``M -> H_t`` with biases, ``M = H * k_h * k_w``
    (merge_kernel_size)."""
    kernel = v.get_int_list("merge_kernel_size", minimum=1)
    if len(kernel) != 2:
        raise ConfigError(v.field_name("merge_kernel_size"), kernel, "must be [height, width]")
    merged = v.get_int("hidden_size") * kernel[0] * kernel[1]
    return 2 * top.get_int("projection_hidden_size") + linear(merged, merged, True) + linear(
        merged, text.get_int("hidden_size"), True)


def _merger_in_tower(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Qwen-VL wrappers: the patch merger is part of the tower (``model.visual.merger``); nothing else."""
    return 0


PROJECTORS: Mapping[str, Projector] = {
    "llava": _llava,
    "video_llava": _video_llava,
    "vipllava": _vipllava,
    "mistral3": _mistral3,
    "paligemma": _paligemma,
    "qwen_vl": _merger_in_tower,
    "deepseek_vl": _deepseek_vl,
    "idefics3": _idefics3,
    "internvl": _internvl,
    "cohere2_vision": _cohere2_vision,
    "got_ocr2": _got_ocr2,
    "out_to_text": _out_to_text,
    "kimi_k25": _kimi_k25,
    "paddleocr_vl": _paddleocr_vl,
    "minicpmv": _minicpmv,
    "lfm2_vl": _lfm2_vl,
    "gemma4": gemma4_projector,
    "aya_vision": _aya_vision,
    "gemma4_unified": gemma4_unified_projector,
    "granite_docling": _granite_docling,
    "aria": _aria,
    "deepseek_vl_hybrid": _deepseek_vl_hybrid,
    "cosmos3_edge": _cosmos3_edge,
    "no_projector": _no_projector,
    "florence2": florence2_projector,
    "ernie4_5_vl_moe": _ernie4_5_vl_moe,
    "deepseek_ocr2": deepseek_ocr2_projector,
    "llama4": llama4_projector,
    "idefics2": _idefics2,
    "minimax_m3_vl": _minimax_m3_vl,
    "molmo2": _molmo2,
    "ovis2": _ovis2,
    "step3p7": _step3p7,
    "muse": _muse,
    "unlimited_ocr": _unlimited_ocr,
    "nemotron_h_omni": _nemotron_h_omni,
    "janus": _janus,
}
"""A registry entry's ``vision[1]`` -> its projector rule."""
