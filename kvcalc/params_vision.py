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


def _linear(n_in: int, n_out: int, bias: bool = False) -> int:
    return n_in * n_out + (n_out if bias else 0)


Tower = Callable[[ConfigReader], int]
"""vision_config reader -> parameters of the tower (its own merger included, where it holds one)."""
Projector = Callable[[ConfigReader, ConfigReader, ConfigReader, int], int]
"""(wrapper reader, vision reader, text reader, tower count) -> parameters of the projector and of any
other wrapper-level vision module (a second tower, ``image_newline``)."""


# --------------------------------------------------------------------------- towers
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
    "exaone4_5_vision": _qwen2_5_vl_vision,
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
}
"""A registry entry's ``vision[1]`` -> its projector rule."""


# --------------------------------------------------------------------------- wrapper
def _sub_config(top: ConfigReader, name: str, default_type: str, built: Mapping[str, Any],
                expected: Mapping[str, object] | None = None) -> ConfigReader:
    """The nested config ``name`` read with its type's class defaults; when the config has none, the one the
    wrapper's config class builds: ``default_type``'s class defaults overridden by ``built``."""
    raw = top.data.get(name)
    if raw is None:
        r = ConfigReader({}, f"{top.path}{name}.", top.used, defaults_used=top.defaults_used)
        sub_type, overrides = default_type, built
    elif isinstance(raw, Mapping):
        sub = top.sub(name)
        assert sub is not None
        r, overrides = sub, {}
        sub_type = r.get_str("model_type", default=default_type)
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
# (Gemma4Config.sub_configs["text_config"] = Gemma4TextConfig)
_FIXED_TEXT_CLASS = ("gemma4",)


def count_wrapper(top: ConfigReader, t: Tally, new_tally: Callable[[], Tally],
                  counters: Mapping[str, Callable[[ConfigReader, Any], None]]) -> None:
    """A vision-language wrapper: the text decoder by its own counter (its lm_head replaced by the wrapper's,
    tied per the top-level ``tie_word_embeddings``), the tower by :data:`TOWERS`, the projector by
    :data:`PROJECTORS`, both in ``vision``; LLaVA-NeXT's ``image_newline`` vector ``H_t`` in ``other``.
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
        _legacy_vision_type(top, spec.tower), "vision_config", spec.tower, spec.vision_defaults, TOWERS)
    inner = new_tally()
    counters[text_entry.params](text, inner)
    for part, n in inner.parts.items():
        if part != "lm_head":
            t.add(part, n)
    t.moe_experts += inner.moe_experts
    t.moe_active += inner.moe_active
    t.null_top_k = t.null_top_k or inner.null_top_k
    t.tied = top.get_bool("tie_word_embeddings")
    if not t.tied:
        t.add("lm_head", text.get_int("vocab_size") * text.get_int("hidden_size"))
    if vision is not None:
        tower = TOWERS[vision.model_type](vision)
        t.add("vision", tower + PROJECTORS[spec.projector](top, vision, text, tower))
    if spec.image_newline:
        t.add("other", text.get_int("hidden_size"))
