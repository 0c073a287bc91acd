"""Exact parameter counts of vision-language wrappers (``...ForConditionalGeneration``), without torch.

A wrapper is a text decoder (``text_config``, counted by that type's own counter in :mod:`kvcalc.params`),
a vision tower (``vision_config``, counted here by one function per tower family, keyed by the tower's
``model_type``: :data:`TOWERS`) and a projector from the tower's width to the decoder's (one rule per
wrapper family, named by the registry entry's ``vision``: :data:`PROJECTORS`). The tower and the
projector are reported together in ``ParamCount.vision``.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults,
tests/test_params_vision.py for other geometries). Tying follows the wrapper's top-level
``tie_word_embeddings`` (``PreTrainedModel.tie_weights`` reads the top-level config), not the text
config's. A wrapper config without a ``vision_config`` / ``text_config`` gets the one its config class
builds (``ModelType.vision``: the sub-type's class defaults with the wrapper class's overrides).

Notation: ``H`` tower width, ``I`` tower MLP width, ``L`` tower layers, ``C`` image channels, ``p`` patch,
``H_t`` decoder width. A linear layer ``a -> b`` has ``a*b`` weights (+ ``b`` with bias); a LayerNorm of
width ``n`` has ``2n``, an RMSNorm ``n``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .config import ConfigReader, hidden_per_head
from .errors import ConfigError, UnsupportedError
from .model_types import lookup, typed


class Tally(Protocol):
    """The running sums :mod:`kvcalc.params` counts into (its ``_Tally``; this module never imports it)."""

    parts: dict[str, int]
    moe_experts: int
    moe_active: int
    tied: bool
    null_top_k: str

    def add(self, part: str, n: int) -> None: ...

    def add_decoder(self, inner: Any) -> None: ...


def _linear(n_in: int, n_out: int, bias: bool = False) -> int:
    return n_in * n_out + (n_out if bias else 0)


Tower = Callable[[ConfigReader], int]
"""vision_config reader -> parameters of the tower (its own merger included, where it holds one)."""
Projector = Callable[[ConfigReader, ConfigReader, ConfigReader, int], int]
"""(wrapper reader, vision reader, text reader, tower count) -> parameters of the projector and of any
other wrapper-level vision module (a second tower, ``image_newline``)."""


# --------------------------------------------------------------------------- towers
# ---- VIS1 towers and projectors (issue 12) ----
def _gemma4_unified_vision(v: ConfigReader) -> int:
    """Gemma4UnifiedVisionEmbedder (modeling_gemma4_unified.py), encoder-free: patch_ln1 LayerNorm ``2P``
    (``P = (p*k)^2 * 3``, k = pooling_kernel_size), patch_dense ``P*E + E`` (``E`` = mm_embed_dim), patch_ln2
    ``2E``, pos_embedding ``S*2*E`` (``S`` = mm_posemb_size), pos_norm ``2E``; its multimodal_embedder is the
    projector (:func:`_gemma4_unified`)."""
    merged = (v.get_int("patch_size") * v.get_int("pooling_kernel_size")) ** 2 * 3
    embed = v.get_int("mm_embed_dim")
    return 2 * merged + _linear(merged, embed, True) + 2 * embed + v.get_int("mm_posemb_size") * 2 * embed + 2 * embed


def _gemma4_unified(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
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
    return 2 * width + _linear(width, inter, True) + _linear(inter // 2, ht, True)


def _granite_docling_path(hidden: int, out: int, scale: int, n_deepstack: int) -> int:
    """GraniteDoclingConnectorPath: projection ``H*s^2 -> O`` (no bias); one GraniteDoclingDeepStackMerger per
    deepstack index: LayerNorm ``2*H*s^2``, ``H*s^2 -> O -> O`` with biases. Its sine-cosine positions are a
    buffer."""
    merged = hidden * scale * scale
    merger = 2 * merged + _linear(merged, out, True) + _linear(out, out, True)
    return merged * out + n_deepstack * merger


def _granite_docling_vision(v: ConfigReader) -> int:
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
    n += _vit_layers(hidden, inter, n_layers) + 2 * hidden
    n += 2 * hidden + _granite_docling_path(hidden, out, scale, n_deep) + 2 * out + out * out + 2 * out
    if v.get_bool("use_fine_route"):
        if scale // 2 < 1:
            raise ConfigError(v.field_name("scale_factor"), scale, "must be at least 2 with use_fine_route")
        n += _granite_docling_path(hidden, out, scale // 2, n_deep)
    return n


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
    return _linear(hidden, 1, True) + 2 * hidden + _linear(hidden, router, True) + _linear(router, 1, True)


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
    cross = 3 * hidden * hidden + 4 * hidden * hidden + 4 * hidden + _linear(hidden, hidden, True) + 4 * hidden
    return most * hidden + cross + 2 * hidden + hidden * ht + ht * ht


def _sam_vision(v: ConfigReader) -> int:
    """SamVisionModel (modeling_sam.py, SamVisionEncoder with its SamVisionNeck): GOT-OCR2's SAM-style count
    (:func:`_got_ocr2_vision`); an unset mlp_dim is ``int(H * mlp_ratio)`` (SamVisionConfig.__post_init__)."""
    if v.opt_int("mlp_dim") is None:
        mlp = int(v.get_int("hidden_size") * v.get_float("mlp_ratio"))
        v = v.with_defaults({**v.defaults, "mlp_dim": mlp}, v.model_type)
    return _got_ocr2_vision(v)


def _deepseek_vl_hybrid(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """DeepseekVLHybridModel (modeling_deepseek_vl_hybrid.py): besides the SigLIP tower, the high-resolution
    SAM tower of high_res_vision_config (:func:`_sam_vision`), DeepseekVLSamVisionNeck (1x1 conv ``H_s*O``,
    3x3 conv ``9*O*O``, no biases, 2 LayerNorms ``4O``), DeepseekVLSamVisionProj (3x3 convs ``O -> 2O -> 4O``,
    no biases), high_res_vision_alpha ``1``; DeepseekVLHybridAligner: ``H -> H_t/2`` and ``4O -> H_t/2`` with
    biases, ``H_t -> H_t`` with bias (``O`` = the SAM config's output_channels)."""
    sam = _sub_config(top, "high_res_vision_config", "sam_vision_model", {}, {"sam_vision_model": None})
    hs, out = sam.get_int("hidden_size"), sam.get_int("output_channels")
    ht = text.get_int("hidden_size")
    n = _sam_vision(sam) + hs * out + 9 * out * out + 4 * out + 9 * out * 2 * out + 9 * 2 * out * 4 * out + 1
    aligner = _linear(v.get_int("hidden_size"), ht // 2, True) + _linear(4 * out, ht // 2, True) + _linear(ht, ht, True)
    return n + aligner


def _cosmos3_edge_vision(v: ConfigReader) -> int:
    """Cosmos3EdgeVisionModel (modeling_cosmos3_edge.py): Siglip2VisionModel's layers, never a pooling head:
    linear patch embedding ``C*p*p*H + H``, positions ``num_patches*H``, ``L`` ViT layers, post LayerNorm ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    patch = v.get_int("patch_size")
    return (_linear(v.get_int("num_channels") * patch * patch, hidden, True) + v.get_int("num_patches") * hidden
            + _vit_layers(hidden, inter, n_layers) + 2 * hidden)


def _cosmos3_edge(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Cosmos3EdgePatchMerger (modeling_cosmos3_edge.py): LayerNorm ``2H`` (over the tower width, before the
    merge), ``H*m^2 -> P`` and ``P -> H_t`` with biases (``m`` = spatial_merge_size, ``P`` =
    projector_hidden_size)."""
    hidden, merge = v.get_int("hidden_size"), v.get_int("spatial_merge_size")
    inner = top.get_int("projector_hidden_size")
    return 2 * hidden + _linear(hidden * merge * merge, inner, True) + _linear(inner, text.get_int("hidden_size"), True)


def _glm_ocr_vision(v: ConfigReader) -> int:
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
    n += depth * (2 * hidden + _linear(hidden, 3 * hidden, bias) + _linear(hidden, hidden, bias) + 2 * d
                  + 2 * _linear(hidden, inter, bias) + _linear(inter, hidden, bias))
    n += out * out + 2 * out + 3 * out * out * channels
    return n + _linear(hidden * merge * merge, out, True) + hidden


def _vq_resnet(c_in: int, c_out: int) -> int:
    """Apertus1p5VisionTokenizerResnetBlock (and JanusVQVAEResnetBlock, the same modules): 2 GroupNorms
    ``2*c_in + 2*c_out``, 3x3 convs ``c_in -> c_out -> c_out`` with biases, a 1x1 nin_shortcut
    ``c_in*c_out + c_out`` when the widths differ."""
    n = 2 * c_in + 9 * c_in * c_out + c_out + 2 * c_out + 9 * c_out * c_out + c_out
    return n + (c_in * c_out + c_out if c_in != c_out else 0)


def _vq_attention(c: int) -> int:
    """Apertus1p5VisionTokenizerAttnBlock (and JanusVQVAEAttnBlock): GroupNorm ``2c``, 1x1 convs
    q/k/v/proj_out ``4*(c*c + c)``."""
    return 2 * c + 4 * (c * c + c)


def _apertus1p5_vision(v: ConfigReader) -> int:
    """Apertus1p5VisionTokenizerModel (modeling_apertus1p5.py), a VQ image tokenizer: conv_in ``C*B*9 + B``;
    one stage per channel_multiplier entry ``m_i`` (width ``B*m_i``, input ``B*m_{i-1}``): num_res_blocks
    resnet blocks (:func:`_vq_resnet`), each with an attention block (:func:`_vq_attention`) where the stage's
    resolution ``resolution / 2^i`` is in attn_resolutions, and a 3x3 downsample conv ``c*c*9 + c`` on every
    stage but the last; middle block: 2 resnet blocks and an attention block; norm_out ``2c``; conv_out
    ``c*latent*9 + latent``; quantize embedding ``embed_dim*codebook_size`` (no bias); quant_conv
    ``latent*embed_dim + embed_dim``."""
    base, blocks = v.get_int("base_channels"), v.get_int("num_res_blocks", minimum=0)
    mults = v.get_int_list("channel_multiplier", minimum=1)
    if not mults:
        raise ConfigError(v.field_name("channel_multiplier"), mults, "must list at least one stage")
    attn_at = set(v.get_int_list("attn_resolutions"))
    resolution, latent, embed = v.get_int("resolution"), v.get_int("latent_channels"), v.get_int("embed_dim")
    n = 9 * v.get_int("in_channels") * base + base
    for i, mult in enumerate(mults):
        c_in, c_out = base * (mults[i - 1] if i else 1), base * mult
        attention = resolution // 2 ** i in attn_at
        for _ in range(blocks):
            n += _vq_resnet(c_in, c_out) + (_vq_attention(c_out) if attention else 0)
            c_in = c_out
        if i < len(mults) - 1:
            n += 9 * c_out * c_out + c_out
    c = base * mults[-1]
    n += 2 * _vq_resnet(c, c) + _vq_attention(c) + 2 * c + 9 * c * latent + latent
    return n + embed * v.get_int("codebook_size") + _linear(latent, embed, True)


def _seanet_conv(a: ConfigReader, c_in: int, c_out: int, kernel: int) -> int:
    """WavTokenizerConv1d: Conv1d ``c_in*c_out*k + c_out``; weight_norm adds its magnitude ``c_out``
    (parametrizations.weight_norm, dim 0), time_group_norm a GroupNorm ``2*c_out``."""
    norm = a.get_str("norm_type")
    if norm not in ("weight_norm", "time_group_norm"):
        raise ConfigError(a.field_name("norm_type"), norm, "must be weight_norm or time_group_norm")
    return c_in * c_out * kernel + c_out + (c_out if norm == "weight_norm" else 2 * c_out)


def wavtokenizer_encoder(a: ConfigReader) -> int:
    """WavTokenizerEncoderModel (modeling_wavtokenizer.py): the SEANet WavTokenizerEncoder (its codebook is a
    buffer): conv ``audio_channels -> F`` (kernel_size); per upsampling ratio ``r`` (reversed), at width ``c``
    (``F``, doubling): num_residual_layers WavTokenizerResnetBlocks (convs ``c -> c/compress`` of
    residual_kernel_size and ``c/compress -> c`` of 1, a 1x1 shortcut with use_conv_shortcut) and a conv
    ``c -> 2c`` of kernel ``2r``; an nn.LSTM of num_lstm_layers over ``d`` (``8d^2 + 8d`` each); a conv
    ``d -> hidden_size`` of last_kernel_size. Convs: :func:`_seanet_conv`."""
    filters, compress = a.get_int("num_filters"), a.get_int("compress")
    residual, kernel = a.get_int("residual_kernel_size"), a.get_int("kernel_size")
    n_res, shortcut = a.get_int("num_residual_layers", minimum=0), a.get_bool("use_conv_shortcut")
    n = _seanet_conv(a, a.get_int("audio_channels"), filters, kernel)
    width = filters
    for ratio in reversed(a.get_int_list("upsampling_ratios", minimum=1)):
        hidden = width // compress
        block = _seanet_conv(a, width, hidden, residual) + _seanet_conv(a, hidden, width, 1)
        n += n_res * (block + (_seanet_conv(a, width, width, 1) if shortcut else 0))
        n += _seanet_conv(a, width, 2 * width, 2 * ratio)
        width *= 2
    n += a.get_int("num_lstm_layers", minimum=0) * (8 * width * width + 8 * width)
    return n + _seanet_conv(a, width, a.get_int("hidden_size"), a.get_int("last_kernel_size"))


def _no_projector(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """A tokenizer tower whose codes enter the decoder's vocabulary (Apertus 1.5): no projector."""
    return 0


def _davit(v: ConfigReader) -> int:
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
        block = (2 * (9 * width + width) + 4 * width + _linear(width, 3 * width, bias) + _linear(width, width, True)
                 + _linear(width, inter, True) + _linear(inter, width, True))
        n += depth * 2 * block
        c_in = width
    return n


def _florence2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Florence2MultiModalProjector (modeling_florence2.py): image_projection ``E -> projection_dim`` (no
    bias; ``E`` = the last embed_dim), LayerNorm ``2*projection_dim``, 2D learned positions
    ``max_position_embeddings * E`` (row ``E/2`` + column ``E - E/2``); the temporal embedding is a buffer."""
    last, proj = v.get_int_list("embed_dim", minimum=1)[-1], v.get_int("projection_dim")
    return last * proj + 2 * proj + v.get_int("max_position_embeddings") * last


def _ernie4_5_vl_vision(v: ConfigReader) -> int:
    """Ernie4_5_VLMoeVisionTransformerPretrainedModel (modeling_ernie4_5_vl_moe.py): patch embedding as a
    linear ``C*p*p*H`` (no bias); ``depth`` blocks of 2 LayerNorms ``4H``, qkv ``H*3H+3H``, proj ``H*H+H``, MLP
    ``H*I+I + I*H+H``; final LayerNorm ``2H``."""
    hidden, inter, depth = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("depth")
    hidden_per_head(v, hidden, v.get_int("num_heads"))
    patch = v.get_int("patch_size")
    return v.get_int("in_channels") * patch * patch * hidden + depth * (
        4 * hidden + _linear(hidden, 3 * hidden, True) + _linear(hidden, hidden, True)
        + _linear(hidden, inter, True) + _linear(inter, hidden, True)) + 2 * hidden


def _ernie4_5_vl_moe(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Ernie4_5_VLMoeVariableResolutionResamplerModel (modeling_ernie4_5_vl_moe.py): ``S = H*m^2`` (spatial
    merge), ``T = S*t`` (temporal_merge_size); spatial_linear ``S*S+S + S*S+S`` + LayerNorm ``2S``,
    temporal_linear ``T*S+S + S*S+S`` + LayerNorm ``2S``, mlp ``S*H_t+H_t``, after_norm RMSNorm ``H_t``."""
    spatial = v.get_int("hidden_size") * v.get_int("spatial_merge_size") ** 2
    temporal = spatial * v.get_int("temporal_merge_size")
    ht = text.get_int("hidden_size")
    return (2 * _linear(spatial, spatial, True) + 2 * spatial + _linear(temporal, spatial, True)
            + _linear(spatial, spatial, True) + 2 * spatial + _linear(spatial, ht, True) + ht)


def _deepseek_ocr2_vision(v: ConfigReader) -> int:
    """DeepseekOcr2VisionModel (modeling_deepseek_ocr2.py): the SAM encoder of sam_config (GOT-OCR2's SAM count,
    :func:`_sam_vision`, neck included) and its DeepseekOcr2SamVisionProj (3x3 convs ``O -> c_0 -> c_1``, no
    biases; ``c`` = downsample_channels); the Qwen2-style encoder of encoder_config: per layer q/k/v with biases
    ``3*(H*H + H)`` (``n_kv`` heads for k/v), o ``H*H``, gated MLP ``3*H*I``, 2 RMSNorms ``2H``, a final RMSNorm
    ``H`` (no token table); the learned queries query_768_resolution ``144*H`` and query_1024_resolution
    ``256*H``."""
    sam = _sub_config(v, "sam_config", "deepseek_ocr2_sam_vision_model", {})
    enc = _sub_config(v, "encoder_config", "deepseek_ocr2_encoder", {})
    channels = sam.get_int_list("downsample_channels", minimum=1)
    if len(channels) != 2:
        raise ConfigError(sam.field_name("downsample_channels"), channels, "must give two widths")
    out = sam.get_int("output_channels")
    n = _sam_vision(sam) + 9 * out * channels[0] + 9 * channels[0] * channels[1]
    hidden, inter, n_layers = enc.get_int("hidden_size"), enc.get_int("intermediate_size"), enc.get_int(
        "num_hidden_layers")
    n_q = enc.get_int("num_attention_heads")
    n_kv = enc.opt_int("num_key_value_heads") or n_q
    d = hidden_per_head(enc, hidden, n_q)
    layer = (_linear(hidden, n_q * d, True) + 2 * _linear(hidden, n_kv * d, True) + n_q * d * hidden
             + 3 * hidden * inter + 2 * hidden)
    return n + n_layers * layer + hidden + (144 + 256) * hidden


def _deepseek_ocr2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """DeepseekOcr2Model (modeling_deepseek_ocr2.py): multi_modal_projector ``H_e -> H_t`` with bias (``H_e`` =
    encoder_config.hidden_size) and the view_separator ``H_t``."""
    enc = _sub_config(v, "encoder_config", "deepseek_ocr2_encoder", {})
    ht = text.get_int("hidden_size")
    return _linear(enc.get_int("hidden_size"), ht, True) + ht


_VIS1_TOWERS: Mapping[str, Tower] = {
    "gemma4_unified_vision": _gemma4_unified_vision, "granite_docling_vision": _granite_docling_vision,
    "cosmos3_edge_vision": _cosmos3_edge_vision, "glm_ocr_vision": _glm_ocr_vision,
    "apertus1p5_vision_tokenizer": _apertus1p5_vision, "florence_vision": _davit,
    "ernie4_5_vl_moe_vision": _ernie4_5_vl_vision, "deepseek_ocr2_vision": _deepseek_ocr2_vision,
}
_VIS1_PROJECTORS: Mapping[str, Projector] = {
    "aya_vision": _aya_vision, "gemma4_unified": _gemma4_unified, "granite_docling": _granite_docling,
    "aria": _aria, "deepseek_vl_hybrid": _deepseek_vl_hybrid,
    "cosmos3_edge": _cosmos3_edge, "no_projector": _no_projector, "florence2": _florence2,
    "ernie4_5_vl_moe": _ernie4_5_vl_moe, "deepseek_ocr2": _deepseek_ocr2,
}
# ---- end of VIS1 towers and projectors ----


def _vit_layers(hidden: int, inter: int, n_layers: int) -> int:
    """Pre-norm ViT layers: 2 LayerNorms ``4H``, q/k/v/out with biases ``4*(H*H+H)``, MLP ``H*I+I + I*H+H``."""
    return n_layers * (4 * hidden + 4 * _linear(hidden, hidden, True)
                       + _linear(hidden, inter, True) + _linear(inter, hidden, True))


def _pooling_head(hidden: int, inter: int) -> int:
    """SigLIP's attention-pooling head: probe ``H``, MultiheadAttention ``4*H*H + 4H``, LayerNorm ``2H``,
    MLP ``H*I+I + I*H+H``."""
    return hidden + 4 * hidden * hidden + 4 * hidden + 2 * hidden + _linear(hidden, inter, True) + _linear(
        inter, hidden, True)


def siglip_vision(v: ConfigReader) -> int:
    """SigLIP vision tower (modeling_siglip.py, SiglipVisionTransformer; also Gemma 3's, counted in
    kvcalc.params): patch conv ``C*p*p*H + H``, positions ``(img/p)^2 * H``; per layer 2 LayerNorms
    ``4*H``, q/k/v/out ``4*(H*H+H)``, MLP ``H*I+I + I*H+H``; post LayerNorm ``2*H``; with vision_use_head a
    pooling head: probe ``H``, MultiheadAttention ``4*H*H + 4*H``, LayerNorm ``2*H``, MLP.
    """
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    heads = v.get_int("num_attention_heads")
    hidden_per_head(v, hidden, heads)
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    n = channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
    n += _vit_layers(hidden, inter, n_layers) + 2 * hidden
    return n + (_pooling_head(hidden, inter) if v.get_bool("vision_use_head") else 0)


def _clip(v: ConfigReader) -> int:
    """CLIPVisionModel (modeling_clip.py, CLIPVisionTransformer): class embedding ``H``, patch conv
    ``C*p*p*H`` (no bias), positions ``((img/p)^2 + 1)*H``, pre LayerNorm ``2H``, ``L`` ViT layers, post
    LayerNorm ``2H``. Every layer is built, whatever ``vision_feature_layer`` the wrapper reads."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    return (hidden + channels * patch * patch * hidden + ((image // patch) ** 2 + 1) * hidden + 2 * hidden
            + _vit_layers(hidden, inter, n_layers) + 2 * hidden)


def _pixtral(v: ConfigReader) -> int:
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
    return norm + _linear(merged, merged, True) + _linear(merged, out, True)


def _qwen2_vl_vision(v: ConfigReader) -> int:
    """Qwen2VisionTransformerPretrainedModel (modeling_qwen2_vl.py): Conv3d patch embed
    ``C*t*p*p*D`` (no bias; ``D`` = embed_dim, ``t`` = temporal_patch_size); ``depth`` blocks of 2 LayerNorms
    ``4D``, qkv ``D*3D+3D``, proj ``D*D+D``, MLP ``D*R+R + R*D+D`` (``R = D*mlp_ratio``, an int field);
    merger with a LayerNorm ``2D`` to ``hidden_size`` (the decoder width)."""
    dim, depth = v.get_int("embed_dim"), v.get_int("depth")
    hidden_per_head(v, dim, v.get_int("num_heads"))
    inter = dim * v.get_int("mlp_ratio")
    patch = v.get_int("in_channels") * v.get_int("temporal_patch_size") * v.get_int("patch_size") ** 2 * dim
    block = 4 * dim + _linear(dim, 3 * dim, True) + _linear(dim, dim, True) + _linear(dim, inter, True) + _linear(
        inter, dim, True)
    return patch + depth * block + _qwen_merger(dim, v.get_int("spatial_merge_size"), v.get_int("hidden_size"), 2 * dim)


def _qwen2_5_vl_vision(v: ConfigReader) -> int:
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
    block = (2 * hidden + _linear(hidden, hidden + 2 * kv * d, True) + _linear(hidden, hidden, True)
             + 2 * _linear(hidden, inter, True) + _linear(inter, hidden, True))
    return patch + depth * block + _qwen_merger(hidden, v.get_int("spatial_merge_size"),
                                                v.get_int("out_hidden_size"), hidden)


def _qwen3_vl_vision(v: ConfigReader) -> int:
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
    n += depth * (4 * hidden + _linear(hidden, 3 * hidden, True) + _linear(hidden, hidden, True)
                  + _linear(hidden, inter, True) + _linear(inter, hidden, True))
    n += _qwen_merger(hidden, merge, out, 2 * hidden)
    deepstack = v.get_int_list("deepstack_visual_indexes", default=[])
    return n + len(deepstack) * _qwen_merger(hidden, merge, out, 2 * hidden * merge * merge)


def _siglip_headless(v: ConfigReader) -> int:
    """Idefics2 / Idefics3 / SmolVLM vision transformers (modeling_idefics3.py, Idefics3VisionTransformer):
    SigLIP's embeddings, layers and post LayerNorm without the pooling head: patch conv ``C*p*p*H + H``,
    positions ``(img/p)^2 * H``, ``L`` ViT layers, post LayerNorm ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    return (channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
            + _vit_layers(hidden, inter, n_layers) + 2 * hidden)


def _siglip2(v: ConfigReader) -> int:
    """Siglip2VisionModel (modeling_siglip2.py): patch embedding as a linear layer ``C*p*p*H + H``, positions
    ``num_patches*H``, ``L`` ViT layers, post LayerNorm ``2H``; with vision_use_head the pooling head of
    SigLIP (probe ``H``, MultiheadAttention ``4*H*H + 4H``, LayerNorm ``2H``, MLP)."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, patch = v.get_int("num_channels"), v.get_int("patch_size")
    n = _linear(channels * patch * patch, hidden, True) + v.get_int("num_patches") * hidden
    n += _vit_layers(hidden, inter, n_layers) + 2 * hidden
    return n + (_pooling_head(hidden, inter) if v.get_bool("vision_use_head") else 0)


def _gemma4_vision(v: ConfigReader) -> int:
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


def _siglip_rope(v: ConfigReader) -> int:
    """VideoLLaMA3's vision encoder (modeling_video_llama_3.py): SigLIP's layers with 2D RoPE instead of a
    position table, no pooling head: patch conv ``C*p*p*H + H``, ``L`` ViT layers, post LayerNorm ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, patch = v.get_int("num_channels"), v.get_int("patch_size")
    return channels * patch * patch * hidden + hidden + _vit_layers(hidden, inter, n_layers) + 2 * hidden


def _pair(v: ConfigReader, name: str) -> tuple[int, int]:
    """An int or ``[h, w]`` field as (h, w)."""
    value = v.value(name)
    if isinstance(value, list | tuple) and len(value) == 2:
        return tuple(ConfigReader.check_int(f"{v.path}{name}[{i}]", value[i]) for i in (0, 1))  # type: ignore[return-value]
    n = v.get_int(name)
    return n, n


def _internvl_vision(v: ConfigReader) -> int:
    """InternVLVisionModel (modeling_internvl.py; QianfanOCR's is the same): cls token ``H``, patch conv
    ``C*p_h*p_w*H + H``, positions ``(patches + 1)*H`` with use_absolute_position_embeddings, mask token ``H``
    with use_mask_token; per layer q/k/v ``3*H*H`` (+ ``3H`` with attention_bias), projection ``H*H+H``, q/k
    RMSNorms ``2H`` with use_qk_norm, MLP ``H*I+I + I*H+H``, 2 norms (``4H`` layer_norm, ``2H`` rms_norm),
    layer scales ``2H``; a final LayerNorm ``2H`` unless use_mean_pooling."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    (img_h, img_w), (p_h, p_w) = _pair(v, "image_size"), _pair(v, "patch_size")
    patches = (img_h // p_h) * (img_w // p_w)
    n = hidden + v.get_int("num_channels") * p_h * p_w * hidden + hidden
    n += (patches + 1) * hidden if v.get_bool("use_absolute_position_embeddings") else 0
    n += hidden if v.get_bool("use_mask_token") else 0
    norm_type = v.get_str("norm_type")
    if norm_type not in ("layer_norm", "rms_norm"):
        raise ConfigError(v.field_name("norm_type"), norm_type, "must be layer_norm or rms_norm")
    norm = (2 if norm_type == "layer_norm" else 1) * hidden
    layer = (3 * _linear(hidden, hidden, v.get_bool("attention_bias")) + _linear(hidden, hidden, True)
             + (2 * hidden if v.get_bool("use_qk_norm") else 0)
             + _linear(hidden, inter, True) + _linear(inter, hidden, True) + 2 * norm + 2 * hidden)
    return n + n_layers * layer + (0 if v.get_bool("use_mean_pooling") else 2 * hidden)


def _minicpmv_vision(v: ConfigReader) -> int:
    """MiniCPMV4_6VisionModel (modeling_minicpmv4_6.py; MiniCPM-V 4.7's and MiniCPM-OCR's are the same):
    SigLIP-style patch conv ``C*p*p*H + H``, positions ``(img/p)^2 * H``, ``L`` ViT layers, post LayerNorm
    ``2H``, and the window-attention merger inserted after insert_layer_id: attention ``4*(H*H+H)``, LayerNorm
    ``2H``, LayerNorm ``2W``, ``W -> I*k`` and ``I*k -> H`` with biases (``k = k_h*k_w`` window_kernel_size,
    ``W = H*k``)."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    (img_h, img_w), (p_h, p_w) = _pair(v, "image_size"), _pair(v, "patch_size")
    kernel = v.get_int_list("window_kernel_size", minimum=1)
    if len(kernel) != 2:
        raise ConfigError(v.field_name("window_kernel_size"), kernel, "must be [height, width]")
    k = kernel[0] * kernel[1]
    n = v.get_int("num_channels") * p_h * p_w * hidden + hidden + (img_h // p_h) * (img_w // p_w) * hidden
    n += _vit_layers(hidden, inter, n_layers) + 2 * hidden
    return n + 4 * _linear(hidden, hidden, True) + 2 * hidden + 2 * hidden * k + _linear(
        hidden * k, inter * k, True) + _linear(inter * k, hidden, True)


def _got_ocr2_vision(v: ConfigReader) -> int:
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
    layer = (4 * hidden + _linear(hidden, 3 * hidden, v.get_bool("qkv_bias")) + _linear(hidden, hidden, True)
             + _linear(hidden, mlp, True) + _linear(mlp, hidden, True))
    n += n_layers * layer
    if v.get_bool("use_rel_pos"):
        n += sum(2 * (2 * (grid if i in global_layers or window == 0 else window) - 1) * d for i in range(n_layers))
    return n + hidden * out + out * out * 9 + 4 * out


def _kimi_k25_vision(v: ConfigReader) -> int:
    """Kimi_K25VisionModel (modeling_kimi_k25.py): patch conv ``3*p*p*H + H``, learned positions
    ``pos_emb_height*pos_emb_width*H``; per layer 2 LayerNorms ``4H``, q/k/v/proj ``4*(H*H+H)``, MLP
    ``H*I+I + I*H+H``; final LayerNorm ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    patch = v.get_int("patch_size")
    return (3 * patch * patch * hidden + hidden + v.get_int("pos_emb_height") * v.get_int("pos_emb_width") * hidden
            + _vit_layers(hidden, inter, n_layers) + 2 * hidden)


def _glm_merger(out: int, context: int) -> int:
    """Glm4vVisionPatchMerger: proj ``O*O``, LayerNorm ``2O``, gated MLP ``3*O*ctx`` (no biases)."""
    return out * out + 2 * out + 3 * out * context


def _glm4v_vision(v: ConfigReader) -> int:
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
    n += depth * (2 * hidden + _linear(hidden, 3 * hidden, v.get_bool("attention_bias")) + hidden * hidden
                  + 3 * hidden * out)
    n += hidden + hidden * out * merge * merge + out + _glm_merger(out, v.get_int("intermediate_size")) + hidden
    return n


# ---- VIS2 towers and projectors (issue 12) ----
def _llama4_vision(v: ConfigReader) -> int:
    """Llama4VisionModel (modeling_llama4.py): Llama4UnfoldConvolution ``C*p*p*H`` (no bias), class embedding
    ``H``, positional_embedding_vlm ``((img/p)^2 + 1)*H``, layernorm_pre / layernorm_post ``4H``; ``L``
    Llama4VisionEncoderLayers (2 LayerNorms, q/k/v/o with biases, fc1 / fc2 with biases: :func:`_vit_layers`);
    vision_adapter (Llama4VisionPixelShuffleMLP -> Llama4VisionMLP2): fc1 ``I -> projector_input_dim`` and
    fc2 ``projector_output_dim -> projector_output_dim``, no biases."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    out = v.get_int("projector_output_dim")
    return (channels * patch * patch * hidden + hidden + ((image // patch) ** 2 + 1) * hidden + 4 * hidden
            + _vit_layers(hidden, inter, n_layers) + inter * v.get_int("projector_input_dim") + out * out)


def _llama4(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Llama4MultiModalProjector (modeling_llama4.py): linear_1 ``vision_output_dim -> H_t``, no bias."""
    return v.get_int("vision_output_dim") * text.get_int("hidden_size")


def _idefics2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Idefics2Connector (modeling_idefics2.py): modality_projection, an Idefics2MLP ``H -> I_t -> H_t``
    (gate, up, down; no biases), and Idefics2PerceiverResampler over ``perceiver_config``: latents
    ``n_latents*H_t``, ``resampler_depth`` Idefics2PerceiverLayers (3 RMSNorms ``3H_t``; q/o ``H_t*n*d`` each,
    k/v ``H_t*kv*d`` each, no biases; gated MLP ``3*H_t*4H_t``), final RMSNorm ``H_t``. The perceiver's width
    is the decoder's: Idefics2Config.__post_init__ overrides a different perceiver hidden_size."""
    hidden = text.get_int("hidden_size")
    p = _sub_config(top, "perceiver_config", "idefics2_perceiver", {}, fixed=True)
    heads, d = p.get_int("resampler_n_heads"), p.get_int("resampler_head_dim")
    kv = p.get_int("num_key_value_heads")
    if heads % kv:
        raise ConfigError(p.field_name("num_key_value_heads"), kv, f"must divide resampler_n_heads ({heads})")
    layer = 3 * hidden + 2 * hidden * heads * d + 2 * hidden * kv * d + 3 * hidden * 4 * hidden
    inter = text.get_int("intermediate_size")
    projection = 2 * v.get_int("hidden_size") * inter + inter * hidden
    return projection + p.get_int("resampler_n_latents") * hidden + p.get_int("resampler_depth") * layer + hidden


def _minimax_m3_vl_vision(v: ConfigReader) -> int:
    """MiniMaxM3VLVisionModel (modeling_minimax_m3_vl.py): Conv3d patch embed ``C*t*p*p*H`` (no bias),
    pre_layrnorm LayerNorm ``2H``, ``L`` CLIP-style encoder layers (:func:`_vit_layers`); 3D RoPE, no
    position table, no final norm."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    patch = v.get_int("num_channels") * v.get_int("temporal_patch_size") * v.get_int("patch_size") ** 2 * hidden
    return patch + 2 * hidden + _vit_layers(hidden, inter, n_layers)


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
    return (_linear(v.get_int("hidden_size"), proj, True) + _linear(proj, hidden, True)
            + _linear(merged, proj, True) + _linear(proj, hidden, True))


def _molmo2_attention(n_in: int, out: int, r: ConfigReader) -> int:
    """Molmo2VisionAttention: q/k/v ``n_in -> n*d`` / ``kv*d``, o ``n*d -> out``, biases with attention_bias."""
    heads, d = r.get_int("num_attention_heads"), r.get_int("head_dim")
    kv = r.opt_int("num_key_value_heads") or heads
    bias = r.get_bool("attention_bias")
    return _linear(n_in, heads * d, bias) + 2 * _linear(n_in, kv * d, bias) + _linear(heads * d, out, bias)


def _molmo2_vision(v: ConfigReader) -> int:
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
    layer = (4 * hidden + _molmo2_attention(hidden, hidden, v) + _linear(hidden, inter, True)
             + _linear(inter, hidden, True))
    return positions * hidden + _linear(patch * patch * v.get_int("num_channels"), hidden, True) + n_layers * layer


def _molmo2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Molmo2Adapter (modeling_molmo2.py) over ``adapter_config``: image_pooling_2d, a Molmo2VisionAttention from
    ``A*k`` (``A`` = the adapter's hidden_size, ``k`` = len(vision_feature_layer), default [24, 18]) to ``A``;
    image_projector: gate / up ``A -> I`` (biases with mlp_bias), down ``I -> text_hidden_size`` (the adapter's
    own field, not the decoder's width), no bias. A checkpoint's legacy ``vit_config`` (Molmo2Config trims that
    ViT to the deepest feature layer) is refused rather than counted as the class-default tower."""
    if top.data.get("vision_config") is None and top.data.get("vit_config") is not None:
        raise UnsupportedError(f"{top.path}vit_config (the checkpoint's legacy name, whose ViT Molmo2Config trims) "
                               "is not counted: give it as vision_config")
    a = _sub_config(top, "adapter_config", "molmo2_adapter", {}, fixed=True)
    hidden, inter = a.get_int("hidden_size"), a.get_int("intermediate_size")
    k = len(a.get_int_list("vit_layers", "vision_feature_layer", minimum=-(2**31)))
    return (_molmo2_attention(hidden * k, hidden, a) + 2 * _linear(hidden, inter, a.get_bool("mlp_bias"))
            + inter * a.get_int("text_hidden_size"))


def _ovis2_vision(v: ConfigReader) -> int:
    """Ovis2VisionModel (modeling_ovis2.py): Ovis2VisionEmbeddings: patch conv ``C*p*p*H + H``, positions
    ``(img/p)^2 * H``, RMSNorm ``H``; ``L`` Ovis2VisionEncoderLayers: 2 RMSNorms ``2H``, q/k/v/out ``4*H*H``
    (+ ``4H`` with qkv_bias), gated MLP ``3*H*I`` (+ ``2I + H`` with mlp_bias); final RMSNorm ``H``; the visual
    tokenizer head: head_linear ``H*s^2 -> W`` (no bias) and head_norm LayerNorm ``2W`` (``s`` = hidden_stride,
    ``W`` = vocab_size - num_visual_indicator_tokens)."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    mlp_bias = v.get_bool("mlp_bias")
    layer = (2 * hidden + 4 * _linear(hidden, hidden, v.get_bool("qkv_bias")) + 2 * _linear(hidden, inter, mlp_bias)
             + _linear(inter, hidden, mlp_bias))
    width = v.get_int("vocab_size") - v.get_int("num_visual_indicator_tokens", minimum=0)
    if width < 1:
        raise ConfigError(v.field_name("vocab_size"), v.get_int("vocab_size"),
                          "must exceed num_visual_indicator_tokens")
    n = channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden + hidden
    return n + n_layers * layer + hidden + hidden * v.get_int("hidden_stride") ** 2 * width + 2 * width


def _ovis2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Ovis2Model (modeling_ovis2.py): visual_embeddings_table ``vision vocab_size * hidden_size`` (the wrapper's
    own hidden_size). Ovis2ForConditionalGeneration's lm_head is ``hidden_size -> vocab_size`` of the wrapper's
    fields, tied to the decoder's embed_tokens: an untied one (tie_word_embeddings false) is refused, as
    count_wrapper would size it from the text_config."""
    if not top.get_bool("tie_word_embeddings"):
        raise UnsupportedError(f"{top.path}tie_word_embeddings: false is not counted for ovis2 (its lm_head is sized "
                               "by the wrapper's hidden_size / vocab_size, not the text_config's)")
    return v.get_int("vocab_size") * top.get_int("hidden_size")


def _step3p7_vision(v: ConfigReader) -> int:
    """Step3p7VisionModel (modeling_step3p7.py): patch conv ``C*p*p*H`` (no bias), positions ``(img/p)^2 * H``,
    pre_layernorm ``2H``; ``L`` Step3p7VisionEncoderLayers: the ViT layer of :func:`_vit_layers` with MLP width
    ``int(H * mlp_ratio)`` (Step3p7VisionConfig.__post_init__ overrides intermediate_size with it) plus the layer
    scales lambda_1 / lambda_2 ``2H``; downsampler1 3x3 conv ``H -> 2H`` and downsampler2 ``2H -> 4H``, biased."""
    # the checkpoints' width / layers / heads win, as in Step3p7VisionConfig.__post_init__
    hidden, n_layers = v.get_int("width", "hidden_size"), v.get_int("layers", "num_hidden_layers")
    inter = int(hidden * v.get_float("mlp_ratio"))
    hidden_per_head(v, hidden, v.get_int("heads", "num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    n = channels * patch * patch * hidden + (image // patch) ** 2 * hidden + 2 * hidden
    n += n_layers * (_vit_layers(hidden, inter, 1) + 2 * hidden)
    return n + 9 * hidden * 2 * hidden + 2 * hidden + 9 * 2 * hidden * 4 * hidden + 4 * hidden


def _step3p7(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Step3p7Model.multi_modal_projector (modeling_step3p7.py): ``4H -> H_t`` (the downsamplers' width), bias
    with projector_bias."""
    return _linear(4 * v.get_int("width", "hidden_size"), text.get_int("hidden_size"), top.get_bool("projector_bias"))


def _muse_vision(v: ConfigReader) -> int:
    """MuseGlimmerVisionModel (modeling_muse_glimmer.py; Muse Spark's is the same): patch embedder linear
    ``t*3*p*p -> H`` (no bias, ``t`` = patch_temporal), position table ``pos_emb_height*pos_emb_width*H``,
    ln_pre ``2H``, ``L`` encoder layers (2 LayerNorms, q/k/v/proj with biases, fc1 / fc2 with biases:
    :func:`_vit_layers`), ln_post ``2H``."""
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    patch = v.get_int("patch_temporal") * 3 * v.get_int("patch_size") ** 2 * hidden
    return (patch + v.get_int("pos_emb_height") * v.get_int("pos_emb_width") * hidden + 4 * hidden
            + _vit_layers(hidden, inter, n_layers))


def _muse(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """MuseGlimmerVisionAdapter and vision_projection (modeling_muse_glimmer.py; Muse Spark's are the same):
    fc1 ``out_hidden_size -> P``, fc2 ``P -> P``, projection ``P -> H_t``, no biases (``P`` =
    projector_hidden_size); perception_emb_norm holds no weight."""
    proj = top.get_int("projector_hidden_size")
    return top.get_int("out_hidden_size") * proj + proj * proj + proj * text.get_int("hidden_size")


def _muse_spark_audio(a: ConfigReader) -> int:
    """MuseSparkAudioModel (modeling_muse_spark.py), a convolutional pyramid over ``num_hidden_layers`` stages of
    width ``h_i`` (hidden_sizes): MuseSparkAudioPatchEmbedding ``h_{i-1}*s_i -> h_i`` with bias (``h_{-1}`` = 1,
    ``s_i`` = patch_sizes) and an RMSNorm ``h_i``; depths[i] MuseSparkAudioConvBlocks: depthwise conv
    ``h_i*k + h_i``, RMSNorm ``h_i``, MLP ``h_i -> int(h_i*mlp_ratio) -> h_i`` with biases; then an RMSNorm
    ``h_last``, proj ``h_last -> out_hidden_size`` with bias and an RMSNorm ``out_hidden_size``."""
    n_stages, kernel = a.get_int("num_hidden_layers"), a.get_int("conv_kernel_size")
    widths, patches = a.get_int_list("hidden_sizes", minimum=1), a.get_int_list("patch_sizes", minimum=1)
    depths = a.get_int_list("depths", minimum=0)
    if min(len(widths), len(patches), len(depths)) < n_stages:
        raise ConfigError(a.field_name("num_hidden_layers"), n_stages,
                          "exceeds the length of hidden_sizes / patch_sizes / depths")
    ratio, out = a.get_float("mlp_ratio"), a.get_int("out_hidden_size")
    n, width = 0, 1
    for i in range(n_stages):
        h, inter = widths[i], int(widths[i] * ratio)
        n += _linear(width * patches[i], h, True) + h
        n += depths[i] * (h * kernel + h + h + _linear(h, inter, True) + _linear(inter, h, True))
        width = h
    return n + width + _linear(width, out, True) + out


def muse_spark_audio(top: ConfigReader) -> tuple[int, int]:
    """(parameters, of which the final RMSNorm) of the audio tower MuseSparkModel always builds over
    ``audio_config`` (else its class defaults): :func:`_muse_spark_audio`."""
    audio = _sub_config(top, "audio_config", "muse_spark_audio", {}, fixed=True)
    widths = audio.get_int_list("hidden_sizes", minimum=1)
    return _muse_spark_audio(audio), widths[audio.get_int("num_hidden_layers") - 1]


def _unlimited_ocr_vision(v: ConfigReader) -> int:
    """UnlimitedOcrVisionModel (modeling_unlimited_ocr.py): UnlimitedOcrSamVisionEncoder over ``sam_config`` (the
    SAM ViT and neck of :func:`_got_ocr2_vision`, plus UnlimitedOcrSamVisionProj: 3x3 convs ``O -> D_0 -> D_1``
    without biases, ``D`` = downsample_channels) and UnlimitedOcrVisionEncoder over ``encoder_config`` (a CLIP
    encoder fed SAM features, so no patch conv: class embedding ``H``, positions ``((img/p)^2 + 1)*H``,
    pre_layrnorm ``2H``, ``L`` ViT layers, no post norm)."""
    sam = _sub_config(v, "sam_config", "unlimited_ocr_sam_vision_model", {}, fixed=True)
    enc = _sub_config(v, "encoder_config", "unlimited_ocr_vision_encoder", {}, fixed=True)
    channels = sam.get_int_list("downsample_channels", minimum=1)
    if len(channels) != 2:
        raise ConfigError(sam.field_name("downsample_channels"), channels, "must list 2 widths")
    n = _got_ocr2_vision(sam) + 9 * sam.get_int("output_channels") * channels[0] + 9 * channels[0] * channels[1]
    hidden, inter, n_layers = enc.get_int("hidden_size"), enc.get_int("intermediate_size"), enc.get_int(
        "num_hidden_layers")
    hidden_per_head(enc, hidden, enc.get_int("num_attention_heads"))
    image, patch = enc.get_int("image_size"), enc.get_int("patch_size")
    return n + hidden + ((image // patch) ** 2 + 1) * hidden + 2 * hidden + _vit_layers(hidden, inter, n_layers)


def _unlimited_ocr(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """UnlimitedOcrModel (modeling_unlimited_ocr.py): multi_modal_projector ``D_1 + H_clip -> H_t`` with bias
    (SAM's last downsample width plus the CLIP encoder's) and view_separator ``H_t`` (its image_newline ``H_t``
    is counted as ``other``, as LLaVA-NeXT's). A
    checkpoint-style ``language_config`` (UnlimitedOcrConfig.__post_init__ reads it as the text_config when there
    is none) is refused rather than counted as the class-default decoder."""
    if top.data.get("text_config") is None and top.data.get("language_config") is not None:
        raise UnsupportedError(f"{top.path}language_config is not read by kvcalc: give the decoder as text_config")
    sam = _sub_config(v, "sam_config", "unlimited_ocr_sam_vision_model", {}, fixed=True)
    enc = _sub_config(v, "encoder_config", "unlimited_ocr_vision_encoder", {}, fixed=True)
    width = sam.get_int_list("downsample_channels", minimum=1)[-1] + enc.get_int("hidden_size")
    ht = text.get_int("hidden_size")
    return _linear(width, ht, True) + ht


def _radio(v: ConfigReader) -> int:
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
        mlp = 2 * _linear(hidden, width, True) + _linear(width, hidden, True)
    else:
        mlp = _linear(hidden, inter, True) + _linear(inter, hidden, True)
    layer = 4 * hidden + 3 * _linear(hidden, heads * d, v.get_bool("qkv_bias")) + _linear(heads * d, hidden, True)
    return n + n_layers * (layer + 2 * hidden + mlp)


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


def _janus_vision(v: ConfigReader) -> int:
    """JanusVisionModel (modeling_janus.py): patch conv ``C*p*p*H + H``, positions ``(img/p)^2 * H``; ``L``
    JanusVisionEncoderLayers: 2 LayerNorms ``4H``, q/k/v ``3*H*H`` (+ ``3H`` with attention_bias),
    projection_layer ``H*H + H``, q/k LayerNorms ``4H`` with use_qk_norm, MLP ``H -> int(H*mlp_ratio) -> H`` with
    biases; post_layernorm ``2H``; JanusVisionAlignerMLP: fc1 ``H -> P`` and ``depth - 1`` layers ``P -> P``, biased
    (``P`` = projection_dim)."""
    hidden, n_layers = v.get_int("hidden_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    inter = int(hidden * v.get_float("mlp_ratio"))
    layer = (4 * hidden + 3 * _linear(hidden, hidden, v.get_bool("attention_bias")) + _linear(hidden, hidden, True)
             + (4 * hidden if v.get_bool("use_qk_norm") else 0) + _linear(hidden, inter, True)
             + _linear(inter, hidden, True))
    proj = v.get_int("projection_dim")
    aligner = _linear(hidden, proj, True) + (v.get_int("depth") - 1) * _linear(proj, proj, True)
    return channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden + n_layers * layer + (
        2 * hidden + aligner)


def _conv(n_in: int, n_out: int, kernel: int = 3) -> int:
    """A biased 2D convolution ``n_in -> n_out`` with a ``kernel x kernel`` window."""
    return kernel * kernel * n_in * n_out + n_out


def _janus_vqvae(q: ConfigReader) -> int:
    """JanusVQVAE (modeling_janus.py; a VQGAN): JanusVQVAEEncoder (conv_in, per level ``num_res_blocks``
    resnet blocks, attention blocks on the last level, a stride-2 downsample conv on the others, a mid block of
    2 resnets + attention, GroupNorm, conv_out to latent_channels (x2 with double_latent)), the codebook
    ``num_embeddings*embed_dim``, 1x1 quant_conv / post_quant_conv, JanusVQVAEDecoder (its mirror with
    ``num_res_blocks + 1`` blocks per level and upsample convs)."""
    base, blocks = q.get_int("base_channels"), q.get_int("num_res_blocks", minimum=0)
    mult = q.get_int_list("channel_multiplier", minimum=1)
    if not mult:
        raise ConfigError(q.field_name("channel_multiplier"), mult, "must list at least one level")
    latent, embed = q.get_int("latent_channels"), q.get_int("embed_dim")
    last = len(mult) - 1
    n = _conv(q.get_int("in_channels"), base)                       # encoder
    ins = (1, *mult)
    for i, m in enumerate(mult):
        c_in, c_out = base * ins[i], base * m
        for _ in range(blocks):
            n += _vq_resnet(c_in, c_out) + (_vq_attention(c_out) if i == last else 0)
            c_in = c_out
        if i != last:
            n += _conv(c_out, c_out)
    top = base * mult[last]
    mid = 2 * _vq_resnet(top, top) + _vq_attention(top)
    n += mid + 2 * top + _conv(top, 2 * latent if q.get_bool("double_latent") else latent)
    n += q.get_int("num_embeddings") * embed + _conv(latent, embed, 1) + _conv(embed, latent, 1)
    n += _conv(latent, top) + mid                                   # decoder
    c_in = top
    for i in reversed(range(len(mult))):
        c_out = base * mult[i]
        for _ in range(blocks + 1):
            n += _vq_resnet(c_in, c_out) + (_vq_attention(c_out) if i == last else 0)
            c_in = c_out
        if i != 0:
            n += _conv(c_out, c_out)
    return n + 2 * c_in + _conv(c_in, q.get_int("out_channels"))


def _janus(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """JanusModel's image-generation modules (modeling_janus.py) over ``vq_config``: the VQ model
    (:func:`_janus_vqvae`), generation_embeddings ``num_embeddings*embed_dim``, JanusVQVAEAlignerMLP (fc1
    ``embed_dim -> P``, ``num_hidden_layers - 1`` layers ``P -> P``, biased) and JanusVQVAEHead (proj_out
    ``image_token_embed_dim -> P``, vision_head ``P -> num_embeddings``, biased; ``P`` = projection_dim)."""
    q = _sub_config(top, "vq_config", "janus_vqgan", {}, fixed=True)
    codes, embed, proj = q.get_int("num_embeddings"), q.get_int("embed_dim"), q.get_int("projection_dim")
    aligner = _linear(embed, proj, True) + (q.get_int("num_hidden_layers") - 1) * _linear(proj, proj, True)
    head = _linear(q.get_int("image_token_embed_dim"), proj, True) + _linear(proj, codes, True)
    return _janus_vqvae(q) + codes * embed + aligner + head


def _phi4_audio(a: ConfigReader) -> int:
    """Phi4MultimodalAudioModel (modeling_phi4_multimodal.py; its mean / inverse-std are buffers):
    Phi4MultimodalAudioNemoConvSubsampling over ``C`` = nemo_conv_channels: a 3x3 conv ``1 -> C`` and
    ``log2(time_reduction) - 1`` pairs of a depthwise 3x3 conv and a 1x1 conv, biased, then out ``C*F -> H``
    with bias (``F`` = nemo_final_size: the config's, else input_size halved log2(time_reduction) times, rounding
    up, as Phi4MultimodalAudioConfig.__post_init__ derives it); the relative attention bias
    table ``buckets*heads`` (buckets = bias_max_distance, doubled unless bias_symmetric); ``num_blocks``
    conformer layers: 2 MLPs (LayerNorm ``2H``, gate_up ``H -> 2I``, down ``I -> H``, biased), attention
    q/k/v/o ``4*(H*n*d + n*d)``, the conv module (LayerNorm ``2H``; GLU 1x1 conv ``H -> 2E`` + b1 / b2 ``2E``;
    depthwise conv ``H*m*k + H*m``; pointwise ``H*m -> D``; 1x1 conv ``H -> E``; biased; ``E`` =
    ext_pw_out_channel, ``D`` = depthwise_separable_out_channel, ``m`` = depthwise_multiplier), 2 LayerNorms
    ``4H``."""
    hidden, inter, heads = a.get_int("hidden_size"), a.get_int("intermediate_size"), a.get_int("num_attention_heads")
    d = hidden_per_head(a, hidden, heads)
    reduction, channels = a.get_int("time_reduction"), a.get_int("nemo_conv_channels")
    steps = reduction.bit_length() - 1
    if reduction != 1 << steps or steps < 1:
        raise ConfigError(a.field_name("time_reduction"), reduction, "must be a power of 2 (at least 2)")
    final = a.opt_int("nemo_final_size")       # a saved value wins over the one __post_init__ derives
    if final is None:
        final = a.get_int("input_size")
        for _ in range(steps):
            final = (final - 1) // 2 + 1
    n = 9 * channels + channels + (steps - 1) * (9 * channels + channels + channels * channels + channels)
    n += _linear(channels * final, hidden, True)
    distance = a.get_int("bias_max_distance")
    n += (distance if a.get_bool("bias_symmetric") else 2 * distance) * heads
    ext, dw_out, mult = (a.get_int("ext_pw_out_channel"), a.get_int("depthwise_separable_out_channel"),
                         a.get_int("depthwise_multiplier"))
    mlp = 2 * hidden + _linear(hidden, 2 * inter, True) + _linear(inter, hidden, True)
    conv = (2 * hidden + _linear(hidden, 2 * ext, True) + 2 * ext + hidden * mult * a.get_int("kernel_size")
            + hidden * mult + _linear(hidden * mult, dw_out, True) + _linear(hidden, ext, True))
    return n + a.get_int("num_blocks") * (2 * mlp + 4 * _linear(hidden, heads * d, True) + conv + 4 * hidden)


def phi4_multimodal_embeds(f: ConfigReader) -> int:
    """Phi4MultimodalFeatureEmbedding (modeling_phi4_multimodal.py), built into every Phi4MultimodalModel.
    Phi4MultimodalImageEmbedding: Phi4MultimodalVisionModel over ``vision_config`` (SigLIP: patch conv
    ``C*p*p*H + H``, positions ``(img/p)^2 * H``, ``L`` ViT layers, post LayerNorm ``2H``, the attention-pooling
    head, always built), img_projection_up ``H -> H_t`` and img_projection_down ``H_t -> H_t`` with biases, the
    global / sub-image separators ``2H``. Phi4MultimodalAudioEmbedding: :func:`_phi4_audio` over ``audio_config``,
    and for speech and vision-speech each an up ``H_a*downsample_rate -> H_t`` and a down ``H_t -> H_t``,
    biased (``H_t`` = the model's hidden_size)."""
    v = _sub_config(f, "vision_config", "phi4_multimodal_vision", {}, fixed=True)
    a = _sub_config(f, "audio_config", "phi4_multimodal_audio", {}, fixed=True)
    ht = f.get_int("hidden_size")
    hidden, inter, n_layers = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("num_hidden_layers")
    hidden_per_head(v, hidden, v.get_int("num_attention_heads"))
    channels, image, patch = v.get_int("num_channels"), v.get_int("image_size"), v.get_int("patch_size")
    tower = (channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
             + _vit_layers(hidden, inter, n_layers) + 2 * hidden + _pooling_head(hidden, inter))
    image_embed = tower + _linear(hidden, ht, True) + _linear(ht, ht, True) + 2 * hidden
    speech_in = a.get_int("hidden_size") * a.get_int("downsample_rate")
    return image_embed + _phi4_audio(a) + 2 * (_linear(speech_in, ht, True) + _linear(ht, ht, True))


_VIS2_TOWERS: Mapping[str, Tower] = {
    "llama4_vision_model": _llama4_vision, "minimax_m3_vl_vision": _minimax_m3_vl_vision,
    "molmo2_vision": _molmo2_vision, "ovis2_vision": _ovis2_vision,
    "step3p5_vision": _step3p7_vision, "muse_glimmer_vision": _muse_vision,
    "muse_spark_vision": _muse_vision, "unlimited_ocr_vision": _unlimited_ocr_vision,
    "radio": _radio, "janus_vision_model": _janus_vision,
}
_VIS2_PROJECTORS: Mapping[str, Projector] = {
    "llama4": _llama4, "idefics2": _idefics2, "minimax_m3_vl": _minimax_m3_vl, "molmo2": _molmo2,
    "ovis2": _ovis2, "step3p7": _step3p7, "muse": _muse,
    "unlimited_ocr": _unlimited_ocr,
    "nemotron_h_omni": _nemotron_h_omni, "janus": _janus,
}
# ---- end of VIS2 towers and projectors ----


# ---- PD towers (issue 12) ----
# timm 1.0's fastvit.py model functions (fastvit_mci3, fastvit_mci4: FastViT-HD, FastVLM's tower): layers, embed_dims
# (mlp_ratios 4, RepConditionalPosEnc 7x7 and attention token mixers in the last two stages, the rest repmixer)
_FASTVIT_MCI: Mapping[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "fastvit_mci3": ((2, 12, 24, 4, 2), (96, 192, 384, 768, 1536)),
    "fastvit_mci4": ((2, 12, 24, 4, 4), (128, 256, 512, 1024, 2048)),
}


def _fastvit_mlp(c: int) -> int:
    """timm fastvit.ConvMlp (hidden ``4C``): conv, a depthwise 7x7 ConvNormAct without bias (``49C``) and its
    BatchNorm2d (``2C``), fc1 ``C -> 4C`` and fc2 ``4C -> C`` 1x1 convs with biases."""
    return 49 * c + 2 * c + _linear(c, 4 * c, True) + _linear(4 * c, c, True)


def _timm_wrapper(v: ConfigReader) -> int:
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
    total = _linear(3 * 9, c0, True) + 10 * c0 + _linear(c0, c0, True)
    prev = c0
    for i, (depth, c) in enumerate(zip(layers, dims)):
        if i > 0 or prev != c:
            total += 50 * c + _linear(c, c, True)
        attention = i >= 3
        if attention:
            total += 50 * c
            block = 2 * c + 3 * c * c + _linear(c, c, True) + _fastvit_mlp(c) + 2 * c
        else:
            block = 10 * c + _fastvit_mlp(c) + c
        total += depth * block
        prev = c
    final, reduced = 2 * prev, 2 * prev // 16
    return total + 9 * final + final + _linear(final, reduced, True) + _linear(reduced, final, True)


_PD_TOWERS: Mapping[str, Tower] = {"timm_wrapper": _timm_wrapper}
# ---- end of PD towers ----


TOWERS: Mapping[str, Tower] = {
    "clip_vision_model": _clip,
    "siglip_vision_model": siglip_vision,
    "pixtral": _pixtral,
    "qwen2_vl_vision": _qwen2_vl_vision,
    "qwen2_5_vl_vision": _qwen2_5_vl_vision,
    "qwen3_vl_vision": _qwen3_vl_vision,
    "qwen3_vl_moe_vision": _qwen3_vl_vision,
    "qwen3_5_vision": _qwen3_vl_vision,
    "qwen3_5_moe_vision": _qwen3_vl_vision,
    "cohere_compass_vision": _qwen3_vl_vision,     # INK: CohereCompassVisionModel is Qwen3-VL's tower
    "exaone4_5_vision": _qwen2_5_vl_vision,
    "qwen2_5_omni_vision_encoder": _qwen2_5_vl_vision,     # PB: Qwen2_5OmniVisionEncoder, same modules
    "qwen3_omni_moe_vision_encoder": _qwen3_vl_vision,     # PB: Qwen3OmniMoeVisionEncoder, same modules
    "idefics2_vision": _siglip_headless,
    "idefics3_vision": _siglip_headless,
    "smolvlm_vision": _siglip_headless,
    "internvl_vision": _internvl_vision,
    "qianfan_ocr_vision": _internvl_vision,
    "got_ocr2_vision": _got_ocr2_vision,
    "pp_chart2table_vision": _got_ocr2_vision,
    "kimi_k25_vision": _kimi_k25_vision,
    "glm4v_vision": _glm4v_vision,
    "glm4v_moe_vision": _glm4v_vision,
    "paddleocr_vl_vision": _siglip_headless,
    "video_llama_3_vision": _siglip_rope,
    "minicpmv4_6_vision": _minicpmv_vision,
    "minicpmv4_7_vision": _minicpmv_vision,
    "minicpm_ocr_vision": _minicpmv_vision,
    "siglip2_vision_model": _siglip2,
    "gemma4_vision": _gemma4_vision,
    **_VIS1_TOWERS,
    **_VIS2_TOWERS,
    **_PD_TOWERS,
}
"""vision_config ``model_type`` -> its tower counter."""


# --------------------------------------------------------------------------- projectors
def _feature_layers(top: ConfigReader, name: str = "vision_feature_layer") -> int:
    """How many tower layers the projector concatenates: the length of a list ``vision_feature_layer``, else 1."""
    value = top.value(name)
    return len(value) if isinstance(value, list | tuple) else 1


def _llava(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """LlavaMultiModalProjector (modeling_llava.py): ``linear_1 H*k -> H_t`` and ``linear_2 H_t -> H_t``,
    biases with multimodal_projector_bias (``k`` feature layers concatenated)."""
    hv, ht, bias = v.get_int("hidden_size"), text.get_int("hidden_size"), top.get_bool("multimodal_projector_bias")
    return _mlp2(hv * _feature_layers(top), ht, bias)


def _video_llava(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """VideoLlavaModel (modeling_video_llava.py): two towers of the same config (image_tower, video_tower)
    and the LLaVA projector."""
    return tower + _llava(top, v, text, tower)


def _vipllava(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """VipLlavaMultiModalProjector (modeling_vipllava.py): LayerNorm ``2*H*k`` over the ``k``
    concatenated ``vision_feature_layers``, ``linear_1 H*k -> H_t`` and ``linear_2 H_t -> H_t`` with biases."""
    hv, ht = v.get_int("hidden_size"), text.get_int("hidden_size")
    k = _feature_layers(top, "vision_feature_layers")
    return 2 * hv * k + _linear(hv * k, ht, True) + _linear(ht, ht, True)


def _mistral3(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Mistral3MultiModalProjector (modeling_mistral3.py; LightOnOCR's is the same): RMSNorm ``H``, patch
    merger ``H*m^2 -> H`` (no bias, ``m`` = spatial_merge_size), ``linear_1 H*k -> H_t``, ``linear_2
    H_t -> H_t`` (biases with multimodal_projector_bias; LightOnOCR: none)."""
    hv, ht, merge = v.get_int("hidden_size"), text.get_int("hidden_size"), top.get_int("spatial_merge_size")
    bias = top.get_bool("multimodal_projector_bias", default=False)
    return hv + hv * merge * merge * hv + _linear(hv * _feature_layers(top), ht, bias) + _linear(ht, ht, bias)


def _paligemma(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """PaliGemmaMultiModalProjector (modeling_paligemma.py): ``H -> projection_dim`` with bias."""
    return _linear(v.get_int("hidden_size"), top.get_int("projection_dim"), True)


def _mlp2(n_in: int, n_out: int, bias: bool = True) -> int:
    """Two linear layers ``n_in -> n_out -> n_out``."""
    return _linear(n_in, n_out, bias) + _linear(n_out, n_out, bias)


def _paddleocr_vl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """PaddleOCRProjector (modeling_paddleocr_vl.py): LayerNorm ``2H``, ``H*m^2 -> H*m^2`` and
    ``H*m^2 -> H_t`` with biases (``m`` = the vision_config's spatial_merge_size)."""
    hv = v.get_int("hidden_size")
    merged = hv * v.get_int("spatial_merge_size") ** 2
    return 2 * hv + _linear(merged, merged, True) + _linear(merged, text.get_int("hidden_size"), True)


def _minicpmv(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """MiniCPMV4_6Merger (modeling_minicpmv4_6.py): merger_times DownsampleMLPs over ``4H`` (two 2x2 merges):
    LayerNorm ``8H``, ``4H -> 4H`` and ``4H -> out`` with biases, ``out = H`` except the last (``H_t``)."""
    hv, times = v.get_int("hidden_size"), top.get_int("merger_times")

    def mlp(out: int) -> int:
        return 8 * hv + _linear(4 * hv, 4 * hv, True) + _linear(4 * hv, out, True)
    return (times - 1) * mlp(hv) + mlp(text.get_int("hidden_size"))


def _lfm2_vl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Lfm2VlMultiModalProjector (modeling_lfm2_vl.py): pixel unshuffle by ``f`` = downsample_factor,
    LayerNorm ``2*H*f^2`` with projector_use_layernorm, ``H*f^2 -> P -> H_t`` (``P`` = projector_hidden_size;
    biases with projector_bias)."""
    width = v.get_int("hidden_size") * top.get_int("downsample_factor") ** 2
    hidden = top.get_int("projector_hidden_size")
    bias = top.get_bool("projector_bias")
    return ((2 * width if top.get_bool("projector_use_layernorm") else 0) + _linear(width, hidden, bias)
            + _linear(hidden, text.get_int("hidden_size"), bias))


def _gemma4(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Gemma4MultimodalEmbedder (modeling_gemma4.py): ``H -> H_t`` without bias (its pre-projection RMSNorm
    has no weight)."""
    return v.get_int("hidden_size") * text.get_int("hidden_size")


def _deepseek_vl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """DeepseekVLAligner (modeling_deepseek_vl.py; VideoLlama3Projector is the same): ``H -> H_t -> H_t``
    with biases."""
    return _mlp2(v.get_int("hidden_size"), text.get_int("hidden_size"))


def _idefics3(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Idefics3Connector (modeling_idefics3.py; SmolVLM's is the same): pixel shuffle by ``s`` =
    scale_factor, then ``H*s^2 -> H_t`` without bias."""
    return v.get_int("hidden_size") * top.get_int("scale_factor") ** 2 * text.get_int("hidden_size")


def _internvl(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """InternVLMultiModalProjector (modeling_internvl.py; QianfanOCR's is the same): ``k = int(1/r)^2``
    (``r`` = downsample_ratio), LayerNorm ``2*H*k``, ``H*k -> H_t -> H_t`` with biases."""
    k = int(1 / top.get_float("downsample_ratio")) ** 2
    hv = v.get_int("hidden_size")
    return 2 * hv * k + _mlp2(hv * k, text.get_int("hidden_size"))


def _cohere2_vision(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Cohere2VisionMultiModalProjector (modeling_cohere2_vision.py): ``H*f^2 -> A`` and ``A/2 -> H_t``
    (SwiGLU halves the width), biases (``f`` = downsample_factor, ``A`` = alignment_intermediate_size)."""
    inter = top.get_int("alignment_intermediate_size")
    return (_linear(v.get_int("hidden_size") * top.get_int("downsample_factor") ** 2, inter, True)
            + _linear(inter // 2, text.get_int("hidden_size"), True))


def _got_ocr2(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """GotOcr2MultiModalProjector (modeling_got_ocr2.py): 3x3 convs ``O -> 2O -> H_t`` (no biases,
    ``O`` = output_channels), then ``H_t -> H_t`` with bias."""
    out, ht = v.get_int("output_channels"), text.get_int("hidden_size")
    return 9 * out * 2 * out + 9 * 2 * out * ht + _linear(ht, ht, True)


def _out_to_text(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """HyperCLOVAX-Vision-V2 (modeling_hyperclovax_vision_v2.py): the Qwen2.5-VL tower's merger output
    ``out_hidden_size -> H_t`` with bias."""
    return _linear(v.get_int("out_hidden_size"), text.get_int("hidden_size"), True)


def _kimi_k25(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Kimi_K25MultimodalProjection (modeling_kimi_k25.py): LayerNorm ``2P`` (``P`` =
    projection_hidden_size), ``M -> M`` and ``M -> H_t`` with biases, ``M = H * k_h * k_w``
    (merge_kernel_size)."""
    kernel = v.get_int_list("merge_kernel_size", minimum=1)
    if len(kernel) != 2:
        raise ConfigError(v.field_name("merge_kernel_size"), kernel, "must be [height, width]")
    merged = v.get_int("hidden_size") * kernel[0] * kernel[1]
    return 2 * top.get_int("projection_hidden_size") + _linear(merged, merged, True) + _linear(
        merged, text.get_int("hidden_size"), True)


def _merger_in_tower(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Qwen-VL wrappers: the patch merger is part of the tower (``model.visual.merger``); nothing else."""
    return 0


PROJECTORS: Mapping[str, Projector] = {
    "llava": _llava, "video_llava": _video_llava, "vipllava": _vipllava,
    "mistral3": _mistral3, "paligemma": _paligemma, "qwen_vl": _merger_in_tower, "deepseek_vl": _deepseek_vl,
    "idefics3": _idefics3, "internvl": _internvl, "cohere2_vision": _cohere2_vision, "got_ocr2": _got_ocr2,
    "out_to_text": _out_to_text, "kimi_k25": _kimi_k25, "paddleocr_vl": _paddleocr_vl,
    "minicpmv": _minicpmv, "lfm2_vl": _lfm2_vl, "gemma4": _gemma4,
    **_VIS1_PROJECTORS,
    **_VIS2_PROJECTORS,
}
"""A registry entry's ``vision[1]`` -> its projector rule."""


# --------------------------------------------------------------------------- wrapper
def _sub_config(top: ConfigReader, name: str, default_type: str, built: Mapping[str, Any],
                expected: Mapping[str, object] | None = None, fixed: bool = False) -> ConfigReader:
    """The nested config ``name`` read with its type's class defaults; when the config has none, the one the
    wrapper's config class builds: ``default_type``'s class defaults overridden by ``built``. ``fixed``: the
    config class builds ``default_type`` whatever ``model_type`` the nested config names (Idefics2Config,
    Step3p7Config and Molmo2's sub-config classes drop it)."""
    raw = top.data.get(name)
    if raw is None:
        r = ConfigReader({}, f"{top.path}{name}.", top.used, defaults_used=top.defaults_used)
        sub_type, overrides = default_type, built
    elif isinstance(raw, Mapping):
        sub = top.sub(name)
        assert sub is not None
        r, overrides = sub, {}
        sub_type = default_type if fixed else r.get_str("model_type", default=default_type)
    else:
        raise ConfigError(f"{top.path}{name}", raw, "must be a JSON object")
    if expected is not None and sub_type not in expected:
        raise UnsupportedError(f"{top.path}{name}.model_type '{sub_type}' is not counted "
                               f"(counted vision towers: {', '.join(sorted(expected))})")
    entry = lookup(sub_type)
    if entry is None:
        return typed(r, sub_type)
    return r.with_defaults({**entry.defaults, **overrides}, entry.name)


# Hub checkpoints saved before the vision configs had types of their own name the wrapper's type (or, for
# HyperCLOVA X Vision V2, Qwen2.5-VL's) as vision_config.model_type; the config class's __post_init__ rewrites
# it to the tower's type (configuration_qwen3_vl.py Qwen3VLConfig.__post_init__: "old ckpt with incorrect model
# type -> override manually"; likewise qwen2_vl, qwen2_5_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe, paddleocr_vl,
# cohere_compass, hyperclovax_vision_v2). Wrapper model_type -> the legacy vision_config.model_type it rewrites.
_LEGACY_VISION_TYPES: Mapping[str, str] = {
    "qwen2_vl": "qwen2_vl", "qwen2_5_vl": "qwen2_5_vl", "qwen3_vl": "qwen3_vl", "qwen3_vl_moe": "qwen3_vl_moe",
    "qwen3_5": "qwen3_5", "qwen3_5_moe": "qwen3_5_moe", "paddleocr_vl": "paddleocr_vl",
    "cohere_compass": "cohere_compass", "hyperclovax_vision_v2": "qwen2_5_vl",
}


def _legacy_vision_type(top: ConfigReader, tower: str) -> ConfigReader:
    """``top`` with vision_config.model_type rewritten to ``tower`` where transformers rewrites it
    (:data:`_LEGACY_VISION_TYPES`); otherwise ``top`` unchanged. The rewrite is recorded as a default used."""
    raw = top.data.get("vision_config")
    legacy = _LEGACY_VISION_TYPES.get(top.model_type or "")
    if legacy is None or not isinstance(raw, Mapping) or raw.get("model_type") != legacy:
        return top
    top.defaults_used.append(f"vision_config.model_type={tower} (transformers rewrites the checkpoint's '{legacy}')")
    return ConfigReader({**top.data, "vision_config": {**raw, "model_type": tower}}, top.path, top.used,
                        defaults=top.defaults, model_type=top.model_type, defaults_used=top.defaults_used)


# wrappers whose config class builds text_config with one fixed class, whatever model_type it names
# (Gemma4Config.sub_configs["text_config"] = Gemma4TextConfig; Gemma4UnifiedConfig: Gemma4UnifiedTextConfig;
# AriaConfig: AriaTextConfig; Cosmos3EdgeConfig: Cosmos3EdgeTextConfig; GlmOcrConfig: GlmOcrTextConfig;
# Apertus1p5Config: Apertus1p5TextConfig; Ernie4_5_VLMoeConfig: Ernie4_5_VLMoeTextConfig)
_FIXED_TEXT_CLASS = ("gemma4", "gemma4_unified", "aria", "cosmos3_edge", "glm_ocr", "apertus1p5",
                     "ernie4_5_vl_moe")


def count_wrapper(top: ConfigReader, t: Tally, new_tally: Callable[[], Tally],
                  counters: Mapping[str, Callable[[ConfigReader, Any], None]]) -> None:
    """A vision-language wrapper: the text decoder by its own counter (its lm_head replaced by the wrapper's,
    tied per the top-level ``tie_word_embeddings``, or as ``Vision.tie`` says), the tower by :data:`TOWERS`, the
    projector by :data:`PROJECTORS`, both in ``vision``; LLaVA-NeXT's ``image_newline`` vector ``H_t`` in ``other``.
    ``counters``: :mod:`kvcalc.params`' counter per family, ``new_tally`` its empty tally."""
    entry = lookup(top.model_type)
    assert entry is not None, top.model_type
    spec = entry.vision
    assert entry.text_type is not None and spec is not None, entry.name
    text = _sub_config(top, "text_config", entry.text_type, spec.text_defaults)
    if entry.name in _FIXED_TEXT_CLASS and text.model_type != entry.text_type:
        raise UnsupportedError(f"{top.path}text_config.model_type '{text.model_type}': {entry.name} builds its "
                               f"text_config as {entry.text_type} whatever type it names; kvcalc will not guess "
                               "which fields that decoder takes from another type's config")
    text_entry = lookup(text.model_type)
    if text_entry is None or text_entry.params is None or text_entry.params == "multimodal":
        reason = text_entry.not_countable if text_entry is not None else "kvcalc does not know this model type"
        raise UnsupportedError(f"parameter counting is not implemented for {top.path}text_config.model_type "
                               f"'{text.model_type}': {reason}")
    for name in spec.refused:
        if top.data.get(name) is not None:
            raise UnsupportedError(f"{top.path}{name}: this tower is not counted (kvcalc never guesses a count)")
    vision = None if spec.optional and top.data.get("vision_config") is None else _sub_config(
        _legacy_vision_type(top, spec.tower), "vision_config", spec.tower, spec.vision_defaults, TOWERS,
        fixed=spec.fixed_tower)
    inner = new_tally()
    counters[text_entry.params](text, inner)
    t.add_decoder(inner)
    t.tied = spec.tie != "never" and (text if spec.tie == "text" else top).get_bool("tie_word_embeddings")
    if not t.tied:
        t.add("lm_head", text.get_int("vocab_size") * text.get_int("hidden_size"))
    if vision is not None:
        tower = TOWERS[vision.model_type](vision)
        t.add("vision", tower + PROJECTORS[spec.projector](top, vision, text, tower))
    if spec.image_newline:
        t.add("other", text.get_int("hidden_size"))
