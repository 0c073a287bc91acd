"""Vision towers, keyed by the ``vision_config`` model_type in :data:`kvcalc.models.wrappers.TOWERS`: ViT / CLIP /
SigLIP, Pixtral, the Qwen-VL towers with their mergers, InternViT, GOT-OCR2's SAM, FastViT, RADIO and the
towers of single wrappers.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: ``H`` tower width, ``I`` tower MLP width, ``L`` tower layers, ``C`` image channels, ``p`` patch,
``H_t`` decoder width. A linear layer ``a -> b`` has ``a*b`` weights (+ ``b`` with bias); a LayerNorm of
width ``n`` has ``2n``, an RMSNorm ``n``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..config import ConfigReader, hidden_per_head
from ..errors import ConfigError, UnsupportedError
from .blocks import linear
from .subconfigs import sub_config

Tower = Callable[[ConfigReader], int]
"""vision_config reader -> parameters of the tower (its own merger included, where it holds one)."""


def gemma4_unified_vision(v: ConfigReader) -> int:
    """Gemma4UnifiedVisionEmbedder (modeling_gemma4_unified.py), encoder-free: patch_ln1 LayerNorm ``2P``
    (``P = (p*k)^2 * 3``, k = pooling_kernel_size), patch_dense ``P*E + E`` (``E`` = mm_embed_dim), patch_ln2
    ``2E``, pos_embedding ``S*2*E`` (``S`` = mm_posemb_size), pos_norm ``2E``; its multimodal_embedder is the
    projector (:func:`_gemma4_unified`)."""
    merged = (v.get_int("patch_size") * v.get_int("pooling_kernel_size")) ** 2 * 3
    embed = v.get_int("mm_embed_dim")
    return 2 * merged + linear(merged, embed, True) + 2 * embed + v.get_int("mm_posemb_size") * 2 * embed + 2 * embed


def _granite_docling_path(hidden: int, out: int, scale: int, n_deepstack: int) -> int:
    """GraniteDoclingConnectorPath: projection ``H*s^2 -> O`` (no bias); one GraniteDoclingDeepStackMerger per
    deepstack index: LayerNorm ``2*H*s^2``, ``H*s^2 -> O -> O`` with biases. Its sine-cosine positions are a
    buffer."""
    merged = hidden * scale * scale
    merger = 2 * merged + linear(merged, out, True) + linear(out, out, True)
    return merged * out + n_deepstack * merger


def granite_docling_vision(v: ConfigReader) -> int:
    """GraniteDoclingVisionModel (modeling_granite_docling.py): SigLIP-style embeddings (patch conv
    ``C*p*p*H + H``, positions ``(img/p)^2 * H``), ``L`` ViT layers, post LayerNorm ``2H``, and its connector
    (GraniteDoclingConnector): ln_in ``2H``, the coarse path of scale_factor ``s`` and, with use_fine_route, the
    fine path of ``s // 2`` (:func:`_granite_docling_path`), ln_mid ``2O``, mlp_fc2 ``O*O``, ln_out ``2O``
    (``O`` = out_hidden_size)."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    out, scale = v.get_int("out_hidden_size"), v.get_int("scale_factor")
    n_deep = len(v.get_int_list("deepstack_visual_indexes"))
    n = channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
    n += vit_layers(hidden, inter, n_layers) + 2 * hidden
    n += 2 * hidden + _granite_docling_path(hidden, out, scale, n_deep) + 2 * out + out * out + 2 * out
    if v.get_bool("use_fine_route"):
        if scale // 2 < 1:
            raise ConfigError(v.field_name("scale_factor"), scale, "must be at least 2 with use_fine_route")
        n += _granite_docling_path(hidden, out, scale // 2, n_deep)
    return n


def sam_vision(v: ConfigReader) -> int:
    """SamVisionModel (modeling_sam.py, SamVisionEncoder with its SamVisionNeck): GOT-OCR2's SAM-style count
    (:func:`got_ocr2_vision`); an unset mlp_dim is ``int(H * mlp_ratio)`` (SamVisionConfig.__post_init__)."""
    if v.opt_int("mlp_dim") is None:
        mlp = int(v.get_int("hidden_size") * v.get_float("mlp_ratio"))
        v = v.with_defaults({**v.defaults, "mlp_dim": mlp}, v.model_type)
    return got_ocr2_vision(v)


def cosmos3_edge_vision(v: ConfigReader) -> int:
    """Cosmos3EdgeVisionModel (modeling_cosmos3_edge.py): Siglip2VisionModel's layers, never a pooling head:
    linear patch embedding ``C*p*p*H + H``, positions ``num_patches*H``, ``L`` ViT layers, post LayerNorm ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    patch = v.get_int("patch_size")
    return (linear(v.get_int("num_channels") * patch * patch, hidden, True) + v.get_int("num_patches") * hidden
            + vit_layers(hidden, inter, n_layers) + 2 * hidden)


def glm_ocr_vision(v: ConfigReader) -> int:
    """GlmOcrVisionModel (modeling_glm_ocr.py): Conv3d patch embed ``C*t*p*p*H + H`` (no position table);
    ``depth`` GlmOcrVisionBlocks: 2 RMSNorms ``2H``, qkv ``H*3H`` and proj ``H*H`` (biases with
    attention_bias), q/k RMSNorms ``2d`` (``d = H/num_heads``), gated MLP ``3*H*I`` (+ ``2I + H`` with
    attention_bias); GlmOcrVisionPatchMerger over ``O`` = out_hidden_size: proj ``O*O``, LayerNorm ``2O``,
    gated MLP ``3*O*(O*C)`` (no biases; its width is ``O * in_channels``); downsample Conv2d ``H*O*m^2 + O``;
    post RMSNorm ``H``."""
    hidden, inter, depth, out = (v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("depth"),
                                 v.get_int("out_hidden_size"))
    d = hidden_per_head(v, hidden, v.get_int("num_heads"))
    channels, merge, patch = v.get_int("in_channels"), v.get_int("spatial_merge_size"), v.get_int("patch_size")
    bias = v.get_bool("attention_bias")
    n = channels * v.get_int("temporal_patch_size") * patch * patch * hidden + hidden
    n += depth * (2 * hidden + linear(hidden, 3 * hidden, bias) + linear(hidden, hidden, bias) + 2 * d
                  + 2 * linear(hidden, inter, bias) + linear(inter, hidden, bias))
    n += out * out + 2 * out + 3 * out * out * channels
    return n + linear(hidden * merge * merge, out, True) + hidden


def davit(v: ConfigReader) -> int:
    """Florence2VisionBackbone (modeling_florence2.py), DaViT: per stage ``i`` of width ``D`` (embed_dim[i]):
    Florence2VisionConvEmbed, conv ``C_in*D*k*k + D`` (``C_in``: in_channels, then the previous width; ``k`` =
    patch_size[i]) and a LayerNorm over ``C_in`` (patch_prenorm) or ``D``; depths[i] Florence2VisionBlocks, each a
    spatial and a channel block of: 2 depthwise 3x3 convs ``2*(9D + D)``, 2 LayerNorms ``4D``, qkv ``D*3D``
    (+ ``3D`` with qkv_bias), proj ``D*D + D``, MLP ``D*I+I + I*D+D`` (``I = int(D * mlp_ratio)``)."""
    widths = v.get_int_list("embed_dim", minimum=1)
    n_stages = len(widths)
    fields = ("depths", "patch_size", "num_heads", "num_groups")
    depths, patches, heads, groups = (v.get_int_list(name, minimum=0) for name in fields)
    prenorm = v.opt_list("patch_prenorm") or []
    for name, values in zip((*fields, "patch_prenorm"), (depths, patches, heads, groups, prenorm)):
        if len(values) != n_stages:
            raise ConfigError(v.field_name(name), values, f"must have one entry per stage ({n_stages})")
    ratio, bias = v.get_float("mlp_ratio"), v.get_bool("qkv_bias")
    n, c_in = 0, v.get_int("in_channels")
    for width, depth, patch, pre in zip(widths, depths, patches, prenorm):
        n += c_in * width * patch * patch + width + 2 * (c_in if pre else width)
        inter = int(width * ratio)
        block = (2 * (9 * width + width) + 4 * width + linear(width, 3 * width, bias) + linear(width, width, True)
                 + linear(width, inter, True) + linear(inter, width, True))
        n += depth * 2 * block
        c_in = width
    return n


def ernie4_5_vl_vision(v: ConfigReader) -> int:
    """Ernie4_5_VLMoeVisionTransformerPretrainedModel (modeling_ernie4_5_vl_moe.py): patch embedding as a
    linear ``C*p*p*H`` (no bias); ``depth`` blocks of 2 LayerNorms ``4H``, qkv ``H*3H+3H``, proj ``H*H+H``, MLP
    ``H*I+I + I*H+H``; final LayerNorm ``2H``."""
    hidden, inter, depth = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("depth")
    hidden_per_head(v, hidden, v.get_int("num_heads"))
    patch = v.get_int("patch_size")
    return v.get_int("in_channels") * patch * patch * hidden + depth * (
        4 * hidden + linear(hidden, 3 * hidden, True) + linear(hidden, hidden, True)
        + linear(hidden, inter, True) + linear(inter, hidden, True)) + 2 * hidden


def deepseek_ocr2_vision(v: ConfigReader) -> int:
    """DeepseekOcr2VisionModel (modeling_deepseek_ocr2.py): the SAM encoder of sam_config (GOT-OCR2's SAM count,
    :func:`sam_vision`, neck included) and its DeepseekOcr2SamVisionProj (3x3 convs ``O -> c_0 -> c_1``, no
    biases; ``c`` = downsample_channels); the Qwen2-style encoder of encoder_config: per layer q/k/v with biases
    ``3*(H*H + H)`` (``n_kv`` heads for k/v), o ``H*H``, gated MLP ``3*H*I``, 2 RMSNorms ``2H``, a final RMSNorm
    ``H`` (no token table); the learned queries query_768_resolution ``144*H`` and query_1024_resolution
    ``256*H``."""
    sam = sub_config(v, "sam_config", "deepseek_ocr2_sam_vision_model", {})
    enc = sub_config(v, "encoder_config", "deepseek_ocr2_encoder", {})
    channels = sam.get_int_list("downsample_channels", minimum=1)
    if len(channels) != 2:
        raise ConfigError(sam.field_name("downsample_channels"), channels, "must give two widths")
    out = sam.get_int("output_channels")
    n = sam_vision(sam) + 9 * out * channels[0] + 9 * channels[0] * channels[1]
    hidden, inter, n_layers = enc.get_int("hidden_size"), enc.get_int("intermediate_size"), enc.get_int(
        "num_hidden_layers")
    n_q = enc.get_int("num_attention_heads")
    n_kv = enc.opt_int("num_key_value_heads") or n_q
    d = hidden_per_head(enc, hidden, n_q)
    layer = (linear(hidden, n_q * d, True) + 2 * linear(hidden, n_kv * d, True) + n_q * d * hidden
             + 3 * hidden * inter + 2 * hidden)
    return n + n_layers * layer + hidden + (144 + 256) * hidden


def vit_layers(hidden: int, inter: int, n_layers: int) -> int:
    """Pre-norm ViT layers: 2 LayerNorms ``4H``, q/k/v/out with biases ``4*(H*H+H)``, MLP ``H*I+I + I*H+H``."""
    return n_layers * (4 * hidden + 4 * linear(hidden, hidden, True)
                       + linear(hidden, inter, True) + linear(inter, hidden, True))


def pooling_head(hidden: int, inter: int) -> int:
    """SigLIP's attention-pooling head: probe ``H``, MultiheadAttention ``4*H*H + 4H``, LayerNorm ``2H``,
    MLP ``H*I+I + I*H+H``."""
    return hidden + 4 * hidden * hidden + 4 * hidden + 2 * hidden + linear(hidden, inter, True) + linear(
        inter, hidden, True)


def siglip_vision(v: ConfigReader) -> int:
    """SigLIP vision tower (modeling_siglip.py, SiglipVisionTransformer; also Gemma 3's, counted in
    kvcalc.models.counting): patch conv ``C*p*p*H + H``, positions ``(img/p)^2 * H``; per layer 2 LayerNorms
    ``4*H``, q/k/v/out ``4*(H*H+H)``, MLP ``H*I+I + I*H+H``; post LayerNorm ``2*H``; with vision_use_head a
    pooling head: probe ``H``, MultiheadAttention ``4*H*H + 4*H``, LayerNorm ``2*H``, MLP.
    """
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    heads = v.get_int("num_attention_heads")
    hidden_per_head(v, hidden, heads)
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    n = channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
    n += vit_layers(hidden, inter, n_layers) + 2 * hidden
    return n + (pooling_head(hidden, inter) if v.get_bool("vision_use_head") else 0)


def clip(v: ConfigReader) -> int:
    """CLIPVisionModel (modeling_clip.py, CLIPVisionTransformer): class embedding ``H``, patch conv
    ``C*p*p*H`` (no bias), positions ``((img/p)^2 + 1)*H``, pre LayerNorm ``2H``, ``L`` ViT layers, post
    LayerNorm ``2H``. Every layer is built, whatever ``vision_feature_layer`` the wrapper reads."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    return (hidden + channels * patch * patch * hidden + ((image // patch) ** 2 + 1) * hidden + 2 * hidden
            + vit_layers(hidden, inter, n_layers) + 2 * hidden)


def pixtral(v: ConfigReader) -> int:
    """PixtralVisionModel (modeling_pixtral.py): patch conv ``C*p*p*H`` (no bias), ``ln_pre`` RMSNorm ``H``;
    per layer 2 RMSNorms ``2H``, q/k/v/o ``4*H*H`` (no biases; PixtralAttention uses ``H/heads`` per head),
    gated MLP ``3*H*I``. No position table (2D RoPE), no final norm."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, patch = v.get_int("num_channels"), v.get_int("patch_size")
    layer = 2 * hidden + 4 * hidden * hidden + 3 * hidden * inter
    return channels * patch * patch * hidden + hidden + n_layers * layer


def _qwen_merger(width: int, merge: int, out: int, norm: int) -> int:
    """Qwen2-VL-style patch merger: a norm over ``width`` (``norm`` parameters), ``W*m^2 -> W*m^2`` and
    ``W*m^2 -> out``, both with biases (``m`` = spatial_merge_size)."""
    merged = width * merge * merge
    return norm + linear(merged, merged, True) + linear(merged, out, True)


def qwen2_vl_vision(v: ConfigReader) -> int:
    """Qwen2VisionTransformerPretrainedModel (modeling_qwen2_vl.py): Conv3d patch embed
    ``C*t*p*p*D`` (no bias; ``D`` = embed_dim, ``t`` = temporal_patch_size); ``depth`` blocks of 2 LayerNorms
    ``4D``, qkv ``D*3D+3D``, proj ``D*D+D``, MLP ``D*R+R + R*D+D`` (``R = D*mlp_ratio``, an int field);
    merger with a LayerNorm ``2D`` to ``hidden_size`` (the decoder width)."""
    dim, depth = v.get_int("embed_dim"), v.get_int("depth")
    hidden_per_head(v, dim, v.get_int("num_heads"))
    inter = dim * v.get_int("mlp_ratio")
    patch = v.get_int("in_channels") * v.get_int("temporal_patch_size") * v.get_int("patch_size") ** 2 * dim
    block = 4 * dim + linear(dim, 3 * dim, True) + linear(dim, dim, True) + linear(dim, inter, True) + linear(
        inter, dim, True)
    return patch + depth * block + _qwen_merger(dim, v.get_int("spatial_merge_size"), v.get_int("hidden_size"), 2 * dim)


def qwen2_5_vl_vision(v: ConfigReader) -> int:
    """Qwen2_5_VisionTransformerPretrainedModel (modeling_qwen2_5_vl.py; EXAONE 4.5's, modeling_exaone4_5.py,
    adds num_key_value_heads): Conv3d patch embed ``C*t*p*p*H`` (no bias); ``depth`` blocks of 2 RMSNorms
    ``2H``, qkv ``H*(H + 2*kv*d) + (H + 2*kv*d)`` (``d = H/heads``, ``kv`` = num_key_value_heads, default
    heads), proj ``H*H+H``, gated MLP with biases ``2*(H*I+I) + I*H+H``; merger with an RMSNorm ``H`` to
    ``out_hidden_size``."""
    hidden, inter, depth = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("depth")
    heads = v.get_int("num_heads")
    d = hidden_per_head(v, hidden, heads)
    kv = v.opt_int("num_key_value_heads") or heads
    patch = v.get_int("in_channels") * v.get_int("temporal_patch_size") * v.get_int("patch_size") ** 2 * hidden
    block = (2 * hidden + linear(hidden, hidden + 2 * kv * d, True) + linear(hidden, hidden, True)
             + 2 * linear(hidden, inter, True) + linear(inter, hidden, True))
    return patch + depth * block + _qwen_merger(hidden, v.get_int("spatial_merge_size"),
                                                v.get_int("out_hidden_size"), hidden)


def qwen3_vl_vision(v: ConfigReader) -> int:
    """Qwen3VLVisionModel (modeling_qwen3_vl.py; Qwen3.5's and the MoE variants' are the same class):
    Conv3d patch embed ``C*t*p*p*H + H`` (with bias), learned positions ``num_position_embeddings*H``;
    ``depth`` blocks of 2 LayerNorms ``4H``, qkv ``H*3H+3H``, proj ``H*H+H``, MLP ``H*I+I + I*H+H``; merger
    with a LayerNorm ``2H`` to ``out_hidden_size``, and one more merger per ``deepstack_visual_indexes`` entry
    whose LayerNorm is over the merged width ``2*H*m^2`` (use_postshuffle_norm)."""
    hidden, inter, depth = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("depth")
    hidden_per_head(v, hidden, v.get_int("num_heads"))
    merge, out = v.get_int("spatial_merge_size"), v.get_int("out_hidden_size")
    patch = v.get_int("in_channels") * v.get_int("temporal_patch_size") * v.get_int("patch_size") ** 2 * hidden
    n = patch + hidden + v.get_int("num_position_embeddings") * hidden
    n += depth * (4 * hidden + linear(hidden, 3 * hidden, True) + linear(hidden, hidden, True)
                  + linear(hidden, inter, True) + linear(inter, hidden, True))
    n += _qwen_merger(hidden, merge, out, 2 * hidden)
    deepstack = v.get_int_list("deepstack_visual_indexes", default=[])
    return n + len(deepstack) * _qwen_merger(hidden, merge, out, 2 * hidden * merge * merge)


def siglip_headless(v: ConfigReader) -> int:
    """Idefics2 / Idefics3 / SmolVLM vision transformers (modeling_idefics3.py, Idefics3VisionTransformer):
    SigLIP's embeddings, layers and post LayerNorm without the pooling head: patch conv ``C*p*p*H + H``,
    positions ``(img/p)^2 * H``, ``L`` ViT layers, post LayerNorm ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    return (channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
            + vit_layers(hidden, inter, n_layers) + 2 * hidden)


def siglip2(v: ConfigReader) -> int:
    """Siglip2VisionModel (modeling_siglip2.py): patch embedding as a linear layer ``C*p*p*H + H``, positions
    ``num_patches*H``, ``L`` ViT layers, post LayerNorm ``2H``; with vision_use_head the pooling head of
    SigLIP (probe ``H``, MultiheadAttention ``4*H*H + 4H``, LayerNorm ``2H``, MLP)."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, patch = v.get_int("num_channels"), v.get_int("patch_size")
    n = linear(channels * patch * patch, hidden, True) + v.get_int("num_patches") * hidden
    n += vit_layers(hidden, inter, n_layers) + 2 * hidden
    return n + (pooling_head(hidden, inter) if v.get_bool("vision_use_head") else 0)


def gemma4_vision(v: ConfigReader) -> int:
    """Gemma4VisionModel (modeling_gemma4.py): 2D position table ``2*P*H`` (``P`` = position_embedding_size),
    patch projection ``3*p*p*H`` (no bias); per layer q/k/v/o ``2*H*n_q*d + 2*H*n_kv*d``, q/k RMSNorms ``2d``
    (v_norm has no weight), gated MLP ``3*H*I``, 4 RMSNorms ``4H``. use_clipped_linears and standardize add
    use_clipped_linears (Gemma4ClippableLinear's input/output min/max) and standardize (std_bias / std_scale)
    add buffers only, no parameters: read, but they change nothing here."""
    for flag in ("use_clipped_linears", "standardize"):
        v.get_bool(flag)
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    n_q = v.get_int("num_attention_heads")
    n_kv, d = v.opt_int("num_key_value_heads") or n_q, v.get_int("head_dim")
    patch = v.get_int("patch_size")
    layer = 2 * hidden * n_q * d + 2 * hidden * n_kv * d + 2 * d + 3 * hidden * inter + 4 * hidden
    return 2 * v.get_int("position_embedding_size") * hidden + 3 * patch * patch * hidden + n_layers * layer


def siglip_rope(v: ConfigReader) -> int:
    """VideoLLaMA3's vision encoder (modeling_video_llama_3.py): SigLIP's layers with 2D RoPE instead of a
    position table, no pooling head: patch conv ``C*p*p*H + H``, ``L`` ViT layers, post LayerNorm ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, patch = v.get_int("num_channels"), v.get_int("patch_size")
    return channels * patch * patch * hidden + hidden + vit_layers(hidden, inter, n_layers) + 2 * hidden


def pair(v: ConfigReader, name: str) -> tuple[int, int]:
    """An int or ``[h, w]`` field as (h, w)."""
    value = v.value(name)
    if isinstance(value, list | tuple) and len(value) == 2:
        return tuple(ConfigReader.check_int(f"{v.path}{name}[{i}]", value[i]) for i in (0, 1))  # type: ignore[return-value]
    n = v.get_int(name)
    return n, n


def internvl_vision(v: ConfigReader) -> int:
    """InternVLVisionModel (modeling_internvl.py; QianfanOCR's is the same): cls token ``H``, patch conv
    ``C*p_h*p_w*H + H``, positions ``(patches + 1)*H`` with use_absolute_position_embeddings, mask token ``H``
    with use_mask_token; per layer q/k/v ``3*H*H`` (+ ``3H`` with attention_bias), projection ``H*H+H``, q/k
    RMSNorms ``2H`` with use_qk_norm, MLP ``H*I+I + I*H+H``, 2 norms (``4H`` layer_norm, ``2H`` rms_norm),
    layer scales ``2H``; a final LayerNorm ``2H`` unless use_mean_pooling."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    (img_h, img_w), (p_h, p_w) = pair(v, "image_size"), pair(v, "patch_size")
    patches = (img_h // p_h) * (img_w // p_w)
    n = hidden + v.get_int("num_channels") * p_h * p_w * hidden + hidden
    n += (patches + 1) * hidden if v.get_bool("use_absolute_position_embeddings") else 0
    n += hidden if v.get_bool("use_mask_token") else 0
    norm_type = v.get_str("norm_type")
    if norm_type not in ("layer_norm", "rms_norm"):
        raise ConfigError(v.field_name("norm_type"), norm_type, "must be layer_norm or rms_norm")
    norm = (2 if norm_type == "layer_norm" else 1) * hidden
    layer = (3 * linear(hidden, hidden, v.get_bool("attention_bias")) + linear(hidden, hidden, True)
             + (2 * hidden if v.get_bool("use_qk_norm") else 0)
             + linear(hidden, inter, True) + linear(inter, hidden, True) + 2 * norm + 2 * hidden)
    return n + n_layers * layer + (0 if v.get_bool("use_mean_pooling") else 2 * hidden)


def minicpmv_vision(v: ConfigReader) -> int:
    """MiniCPMV4_6VisionModel (modeling_minicpmv4_6.py; MiniCPM-V 4.7's and MiniCPM-OCR's are the same):
    SigLIP-style patch conv ``C*p*p*H + H``, positions ``(img/p)^2 * H``, ``L`` ViT layers, post LayerNorm
    ``2H``, and the window-attention merger inserted after insert_layer_id: attention ``4*(H*H+H)``, LayerNorm
    ``2H``, LayerNorm ``2W``, ``W -> I*k`` and ``I*k -> H`` with biases (``k = k_h*k_w`` window_kernel_size,
    ``W = H*k``)."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    (img_h, img_w), (p_h, p_w) = pair(v, "image_size"), pair(v, "patch_size")
    kernel = v.get_int_list("window_kernel_size", minimum=1)
    if len(kernel) != 2:
        raise ConfigError(v.field_name("window_kernel_size"), kernel, "must be [height, width]")
    k = kernel[0] * kernel[1]
    n = v.get_int("num_channels") * p_h * p_w * hidden + hidden + (img_h // p_h) * (img_w // p_w) * hidden
    n += vit_layers(hidden, inter, n_layers) + 2 * hidden
    return n + 4 * linear(hidden, hidden, True) + 2 * hidden + 2 * hidden * k + linear(
        hidden * k, inter * k, True) + linear(inter * k, hidden, True)


def got_ocr2_vision(v: ConfigReader) -> int:
    """GotOcr2VisionEncoder (modeling_got_ocr2.py, SAM-style; PP-Chart2Table's is the same): patch conv
    ``C*p*p*H + H``, positions ``(img/p)^2 * H`` with use_abs_pos; per layer 2 LayerNorms ``4H``, qkv ``H*3H``
    (+ ``3H`` with qkv_bias), proj ``H*H+H``, MLP ``H*M+M + M*H+H`` (``M`` = mlp_dim), with use_rel_pos
    relative positions ``2*(2s-1)*d`` (``s`` = window_size, or ``img/p`` on global_attn_indexes layers);
    neck: 1x1 conv ``H*O``, 3x3 conv ``O*O*9`` (no biases), 2 LayerNorms ``4O`` (``O`` = output_channels)."""
    hidden, n_layers, mlp = v.get_int("hidden_size"), v.get_int("num_hidden_layers"), v.get_int("mlp_dim")
    d = hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    grid, window, out = image // patch, v.get_int("window_size", minimum=0), v.get_int("output_channels")
    global_layers = set(v.get_int_list("global_attn_indexes"))
    n = channels * patch * patch * hidden + hidden + (grid * grid * hidden if v.get_bool("use_abs_pos") else 0)
    layer = (4 * hidden + linear(hidden, 3 * hidden, v.get_bool("qkv_bias")) + linear(hidden, hidden, True)
             + linear(hidden, mlp, True) + linear(mlp, hidden, True))
    n += n_layers * layer
    if v.get_bool("use_rel_pos"):
        n += sum(2 * (2 * (grid if i in global_layers or window == 0 else window) - 1) * d for i in range(n_layers))
    return n + hidden * out + out * out * 9 + 4 * out


def kimi_k25_vision(v: ConfigReader) -> int:
    """Kimi_K25VisionModel (modeling_kimi_k25.py): patch conv ``3*p*p*H + H``, learned positions
    ``pos_emb_height*pos_emb_width*H``; per layer 2 LayerNorms ``4H``, q/k/v/proj ``4*(H*H+H)``, MLP
    ``H*I+I + I*H+H``; final LayerNorm ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    patch = v.get_int("patch_size")
    return (3 * patch * patch * hidden + hidden + v.get_int("pos_emb_height") * v.get_int("pos_emb_width") * hidden
            + vit_layers(hidden, inter, n_layers) + 2 * hidden)


def glm_merger(out: int, context: int) -> int:
    """Glm4vVisionPatchMerger: proj ``O*O``, LayerNorm ``2O``, gated MLP ``3*O*ctx`` (no biases)."""
    return out * out + 2 * out + 3 * out * context


def glm4v_vision(v: ConfigReader) -> int:
    """Glm4vVisionModel (modeling_glm4v.py; GLM-4.5V's glm4v_moe_vision is the same): learned positions
    ``(img/p)^2 * H``, Conv3d patch embed ``C*t*p*p*H + H``; ``depth`` blocks of 2 RMSNorms ``2H``, qkv ``H*3H``
    (+ ``3H`` with attention_bias), proj ``H*H``, gated MLP ``3*H*O`` (Glm4VisionMlp's width is
    ``O`` = out_hidden_size); post-conv RMSNorm ``H``; downsample conv ``H*O*m^2 + O``; merger to ``O`` with a
    gated MLP of intermediate_size; post RMSNorm ``H``."""
    hidden, depth, out = v.get_int("hidden_size"), v.get_int("depth"), v.get_int("out_hidden_size")
    hidden_per_head(v, hidden, v.get_int("num_heads"))
    merge, patch = v.get_int("spatial_merge_size"), v.get_int("patch_size")
    n = (v.get_int("image_size") // patch) ** 2 * hidden
    n += v.get_int("in_channels") * v.get_int("temporal_patch_size") * patch * patch * hidden + hidden
    n += depth * (2 * hidden + linear(hidden, 3 * hidden, v.get_bool("attention_bias")) + hidden * hidden
                  + 3 * hidden * out)
    n += hidden + hidden * out * merge * merge + out + glm_merger(out, v.get_int("intermediate_size")) + hidden
    return n


def llama4_vision(v: ConfigReader) -> int:
    """Llama4VisionModel (modeling_llama4.py): Llama4UnfoldConvolution ``C*p*p*H`` (no bias), class embedding
    ``H``, positional_embedding_vlm ``((img/p)^2 + 1)*H``, layernorm_pre / layernorm_post ``4H``; ``L``
    Llama4VisionEncoderLayers (2 LayerNorms, q/k/v/o with biases, fc1 / fc2 with biases: :func:`vit_layers`);
    vision_adapter (Llama4VisionPixelShuffleMLP -> Llama4VisionMLP2): fc1 ``I -> projector_input_dim`` and
    fc2 ``projector_output_dim -> projector_output_dim``, no biases."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    out = v.get_int("projector_output_dim")
    return (channels * patch * patch * hidden + hidden + ((image // patch) ** 2 + 1) * hidden + 4 * hidden
            + vit_layers(hidden, inter, n_layers) + inter * v.get_int("projector_input_dim") + out * out)


def minimax_m3_vl_vision(v: ConfigReader) -> int:
    """MiniMaxM3VLVisionModel (modeling_minimax_m3_vl.py): Conv3d patch embed ``C*t*p*p*H`` (no bias),
    pre_layrnorm LayerNorm ``2H``, ``L`` CLIP-style encoder layers (:func:`vit_layers`); 3D RoPE, no
    position table, no final norm."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    patch = v.get_int("num_channels") * v.get_int("temporal_patch_size") * v.get_int("patch_size") ** 2 * hidden
    return patch + 2 * hidden + vit_layers(hidden, inter, n_layers)


def molmo2_attention(n_in: int, out: int, r: ConfigReader) -> int:
    """Molmo2VisionAttention: q/k/v ``n_in -> n*d`` / ``kv*d``, o ``n*d -> out``, biases with attention_bias."""
    heads, d = r.get_int("num_attention_heads"), r.get_int("head_dim")
    kv = r.opt_int("num_key_value_heads") or heads
    bias = r.get_bool("attention_bias")
    return linear(n_in, heads * d, bias) + 2 * linear(n_in, kv * d, bias) + linear(heads * d, out, bias)


def molmo2_vision(v: ConfigReader) -> int:
    """Molmo2VisionModel (modeling_molmo2.py): positions ``P*H`` (``P`` = num_position_embeddings, else
    ``(img_h/p)*(img_w/p)`` as Molmo2VisionConfig.__post_init__ derives it), patch_embedding linear
    ``p*p*C*H + H``; ``L`` Molmo2VisionEncoderLayers: 2 LayerNorms ``4H``, Molmo2VisionAttention, MLP
    ``H*I+I + I*H+H``; no final norm."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    # the checkpoints' names (image_patch_size, image_num_pos, image_default_input_size) win, as in __post_init__
    patch = v.get_int("image_patch_size", "patch_size")
    positions = v.opt_int("image_num_pos", "num_position_embeddings")
    if positions is None:
        image = v.get_int_list("image_default_input_size", "image_size", minimum=1)
        if len(image) != 2:
            raise ConfigError(v.field_name("image_size"), image, "must be [height, width]")
        positions = (image[0] // patch) * (image[1] // patch)
    layer = (4 * hidden + molmo2_attention(hidden, hidden, v) + linear(hidden, inter, True)
             + linear(inter, hidden, True))
    return positions * hidden + linear(patch * patch * v.get_int("num_channels"), hidden, True) + n_layers * layer


def ovis2_vision(v: ConfigReader) -> int:
    """Ovis2VisionModel (modeling_ovis2.py): Ovis2VisionEmbeddings: patch conv ``C*p*p*H + H``, positions
    ``(img/p)^2 * H``, RMSNorm ``H``; ``L`` Ovis2VisionEncoderLayers: 2 RMSNorms ``2H``, q/k/v/out ``4*H*H``
    (+ ``4H`` with qkv_bias), gated MLP ``3*H*I`` (+ ``2I + H`` with mlp_bias); final RMSNorm ``H``; the visual
    tokenizer head: head_linear ``H*s^2 -> W`` (no bias) and head_norm LayerNorm ``2W`` (``s`` = hidden_stride,
    ``W`` = vocab_size - num_visual_indicator_tokens)."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    mlp_bias = v.get_bool("mlp_bias")
    layer = (2 * hidden + 4 * linear(hidden, hidden, v.get_bool("qkv_bias")) + 2 * linear(hidden, inter, mlp_bias)
             + linear(inter, hidden, mlp_bias))
    width = v.get_int("vocab_size") - v.get_int("num_visual_indicator_tokens", minimum=0)
    if width < 1:
        raise ConfigError(v.field_name("vocab_size"), v.get_int("vocab_size"),
                          "must exceed num_visual_indicator_tokens")
    n = channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden + hidden
    return n + n_layers * layer + hidden + hidden * v.get_int("hidden_stride") ** 2 * width + 2 * width


def step3p7_vision(v: ConfigReader) -> int:
    """Step3p7VisionModel (modeling_step3p7.py): patch conv ``C*p*p*H`` (no bias), positions ``(img/p)^2 * H``,
    pre_layernorm ``2H``; ``L`` Step3p7VisionEncoderLayers: the ViT layer of :func:`vit_layers` with MLP width
    ``int(H * mlp_ratio)`` (Step3p7VisionConfig.__post_init__ overrides intermediate_size with it) plus the layer
    scales lambda_1 / lambda_2 ``2H``; downsampler1 3x3 conv ``H -> 2H`` and downsampler2 ``2H -> 4H``, biased."""
    # the checkpoints' width / layers / heads win, as in Step3p7VisionConfig.__post_init__
    hidden, n_layers = v.get_int("width", "hidden_size"), v.get_int("layers", "num_hidden_layers")
    inter = int(hidden * v.get_float("mlp_ratio"))
    hidden_per_head(v, hidden, v.get_int("heads", "num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    n = channels * patch * patch * hidden + (image // patch) ** 2 * hidden + 2 * hidden
    n += n_layers * (vit_layers(hidden, inter, 1) + 2 * hidden)
    return n + 9 * hidden * 2 * hidden + 2 * hidden + 9 * 2 * hidden * 4 * hidden + 4 * hidden


def muse_vision(v: ConfigReader) -> int:
    """MuseGlimmerVisionModel (modeling_muse_glimmer.py; Muse Spark's is the same): patch embedder linear
    ``t*3*p*p -> H`` (no bias, ``t`` = patch_temporal), position table ``pos_emb_height*pos_emb_width*H``,
    ln_pre ``2H``, ``L`` encoder layers (2 LayerNorms, q/k/v/proj with biases, fc1 / fc2 with biases:
    :func:`vit_layers`), ln_post ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    patch = v.get_int("patch_temporal") * 3 * v.get_int("patch_size") ** 2 * hidden
    return (patch + v.get_int("pos_emb_height") * v.get_int("pos_emb_width") * hidden + 4 * hidden
            + vit_layers(hidden, inter, n_layers))


def unlimited_ocr_vision(v: ConfigReader) -> int:
    """UnlimitedOcrVisionModel (modeling_unlimited_ocr.py): UnlimitedOcrSamVisionEncoder over ``sam_config`` (the
    SAM ViT and neck of :func:`got_ocr2_vision`, plus UnlimitedOcrSamVisionProj: 3x3 convs ``O -> D_0 -> D_1``
    without biases, ``D`` = downsample_channels) and UnlimitedOcrVisionEncoder over ``encoder_config`` (a CLIP
    encoder fed SAM features, so no patch conv: class embedding ``H``, positions ``((img/p)^2 + 1)*H``,
    pre_layrnorm ``2H``, ``L`` ViT layers, no post norm)."""
    sam = sub_config(v, "sam_config", "unlimited_ocr_sam_vision_model", {}, fixed=True)
    enc = sub_config(v, "encoder_config", "unlimited_ocr_vision_encoder", {}, fixed=True)
    channels = sam.get_int_list("downsample_channels", minimum=1)
    if len(channels) != 2:
        raise ConfigError(sam.field_name("downsample_channels"), channels, "must list 2 widths")
    n = got_ocr2_vision(sam) + 9 * sam.get_int("output_channels") * channels[0] + 9 * channels[0] * channels[1]
    hidden, inter, n_layers = enc.get_int("hidden_size"), enc.get_int("intermediate_size"), enc.get_int(
        "num_hidden_layers")
    hidden_per_head(enc, hidden, enc.get_int("num_attention_heads"))
    image, patch = enc.get_int("image_size"), enc.get_int("patch_size")
    return n + hidden + ((image // patch) ** 2 + 1) * hidden + 2 * hidden + vit_layers(hidden, inter, n_layers)


def radio(v: ConfigReader) -> int:
    """RadioModel (modeling_radio.py): RadioPatchEmbeddings: patch_projection ``C*p*p*H`` (no bias; patch_dim is
    derived so), video_patch_projection ``t*C*p*p*H`` when video_temporal_patch_size is set, position table
    ``(max_img_size/p)^2 * H``, cls / register tokens ``(num_cls_tokens + num_registers)*H``; ``L`` RadioLayers:
    2 LayerNorms ``4H``, q/k/v ``3*H*n*d`` (+ ``3*n*d`` with qkv_bias), o ``n*d*H + H``, layer scales ``2H``, MLP
    ``H -> int(H*mlp_ratio) -> H`` with biases (RadioSwiGLUFFN with use_swiglu_ffn: gate / up / down with biases
    over ``W = (int(2/3*int(H*mlp_ratio)) + 7) // 8 * 8``); no final norm."""
    hidden, n_layers = v.get_int("hidden_size"), v.get_int("num_hidden_layers")
    heads = v.get_int("num_attention_heads")
    d = v.opt_int("head_dim") or hidden_per_head(v, hidden, heads)
    patch_dim = v.get_int("num_channels") * v.get_int("patch_size") ** 2
    temporal = v.opt_int("video_temporal_patch_size")
    n = patch_dim * hidden + (temporal * patch_dim * hidden if temporal is not None else 0)
    n += (v.get_int("max_img_size") // v.get_int("patch_size")) ** 2 * hidden
    n += (v.get_int("num_cls_tokens", minimum=0) + v.get_int("num_registers", minimum=0)) * hidden
    inter = int(hidden * v.get_float("mlp_ratio"))
    if v.get_bool("use_swiglu_ffn"):
        width = (int(inter * 2 / 3) + 7) // 8 * 8
        mlp = 2 * linear(hidden, width, True) + linear(width, hidden, True)
    else:
        mlp = linear(hidden, inter, True) + linear(inter, hidden, True)
    layer = 4 * hidden + 3 * linear(hidden, heads * d, v.get_bool("qkv_bias")) + linear(heads * d, hidden, True)
    return n + n_layers * (layer + 2 * hidden + mlp)


def janus_vision(v: ConfigReader) -> int:
    """JanusVisionModel (modeling_janus.py): patch conv ``C*p*p*H + H``, positions ``(img/p)^2 * H``; ``L``
    JanusVisionEncoderLayers: 2 LayerNorms ``4H``, q/k/v ``3*H*H`` (+ ``3H`` with attention_bias),
    projection_layer ``H*H + H``, q/k LayerNorms ``4H`` with use_qk_norm, MLP ``H -> int(H*mlp_ratio) -> H`` with
    biases; post_layernorm ``2H``; JanusVisionAlignerMLP: fc1 ``H -> P`` and ``depth - 1`` layers ``P -> P``, biased
    (``P`` = projection_dim)."""
    hidden, n_layers = v.get_int("hidden_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    inter = int(hidden * v.get_float("mlp_ratio"))
    layer = (4 * hidden + 3 * linear(hidden, hidden, v.get_bool("attention_bias")) + linear(hidden, hidden, True)
             + (4 * hidden if v.get_bool("use_qk_norm") else 0) + linear(hidden, inter, True)
             + linear(inter, hidden, True))
    proj = v.get_int("projection_dim")
    aligner = linear(hidden, proj, True) + (v.get_int("depth") - 1) * linear(proj, proj, True)
    return channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden + n_layers * layer + (
        2 * hidden + aligner)


# timm 1.0's fastvit.py model functions (fastvit_mci3, fastvit_mci4: FastViT-HD, FastVLM's tower): layers, embed_dims
# (mlp_ratios 4, RepConditionalPosEnc 7x7 and attention token mixers in the last two stages, the rest repmixer)
_FASTVIT_MCI: Mapping[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "fastvit_mci3": ((2, 12, 24, 4, 2), (96, 192, 384, 768, 1536)),
    "fastvit_mci4": ((2, 12, 24, 4, 4), (128, 256, 512, 1024, 2048)),
}


def _fastvit_mlp(c: int) -> int:
    """timm fastvit.ConvMlp (hidden ``4C``): conv, a depthwise 7x7 ConvNormAct without bias (``49C``) and its
    BatchNorm2d (``2C``), fc1 ``C -> 4C`` and fc2 ``4C -> C`` 1x1 convs with biases."""
    return 49 * c + 2 * c + linear(c, 4 * c, True) + linear(4 * c, c, True)


def timm_wrapper(v: ConfigReader) -> int:
    """TimmWrapperModel (modeling_timm_wrapper.py: ``timm.create_model(architecture, num_classes=0,
    **model_args)``, so no classifier) for timm's FastViT MCi3 / MCi4 built with ``inference_mode`` (timm 1.0
    fastvit.py FastVit, every MobileOneBlock / ReparamLargeKernelConv / RepMixer / RepConditionalPosEnc a single
    ``reparam_conv`` with bias). Stem (convolutional_stem): ``3 -> C0`` 3x3, depthwise 3x3, ``C0 -> C0`` 1x1.
    Stage ``i`` (FastVitStage, ``C = embed_dims[i]``): a PatchEmbed from ``C_prev`` where downsampled
    (depthwise-grouped 7x7 ``C_prev -> C``: ``49C + C``; 1x1 ``C*C + C``); a 7x7 depthwise RepConditionalPosEnc
    ``49C + C`` in the attention stages; per block RepMixerBlock (3x3 depthwise ``9C + C``, ConvMlp, layer_scale
    ``C``) or AttentionBlock (LayerNorm2d ``2C``, Attention qkv ``C*3C`` without bias and proj ``C*C + C``,
    ConvMlp, two layer scales ``2C``). final_conv: a MobileOneBlock with SqueezeExcite, depthwise-grouped 3x3
    ``C -> 2C`` (``18C + 2C``), SE fc1 / fc2 ``2C <-> 2C/16`` with biases. Other timm models are refused."""
    arch = v.get_str("architecture")
    model_args = v.value("model_args")
    if arch not in _FASTVIT_MCI or not isinstance(model_args, Mapping) or model_args.get("inference_mode") is not True \
            or set(model_args) != {"inference_mode"}:
        raise UnsupportedError(f"{v.path}architecture {arch!r:.60} with model_args {model_args!r:.80}: kvcalc counts "
                               f"the timm models {', '.join(_FASTVIT_MCI)} built with model_args "
                               "{'inference_mode': true} only (kvcalc never guesses a count)")
    layers, dims = _FASTVIT_MCI[arch]
    c0 = dims[0]
    total = linear(3 * 9, c0, True) + 10 * c0 + linear(c0, c0, True)
    prev = c0
    for i, (depth, c) in enumerate(zip(layers, dims)):
        if i > 0 or prev != c:
            total += 50 * c + linear(c, c, True)
        attention = i >= 3
        if attention:
            total += 50 * c
            block = 2 * c + 3 * c * c + linear(c, c, True) + _fastvit_mlp(c) + 2 * c
        else:
            block = 10 * c + _fastvit_mlp(c) + c
        total += depth * block
        prev = c
    final, reduced = 2 * prev, 2 * prev // 16
    return total + 9 * final + final + linear(final, reduced, True) + linear(reduced, final, True)
