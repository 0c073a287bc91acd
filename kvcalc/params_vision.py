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
from typing import Any

from .config import ConfigReader, hidden_per_head
from .errors import ConfigError, UnsupportedError
from .model_types import lookup, typed
from .params import _COUNTERS, PARTS, _entry, _linear, _lm_head, _siglip_vision, _Tally

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
    ``4D``, qkv ``D*3D+3D``, proj ``D*D+D``, MLP ``D*R+R + R*D+D`` (``R = D*mlp_ratio``); merger with a
    LayerNorm ``2D`` to ``hidden_size`` (the decoder width)."""
    dim, depth = v.get_int("embed_dim"), v.get_int("depth")
    hidden_per_head(v, dim, v.get_int("num_heads"))
    ratio = v.get_float("mlp_ratio")
    inter = int(dim * ratio)
    patch = v.get_int("in_channels") * v.get_int("temporal_patch_size") * v.get_int("patch_size") ** 2 * dim
    block = 4 * dim + _linear(dim, 3 * dim, True) + _linear(dim, dim, True) + _linear(dim, inter, True) + _linear(
        inter, dim, True)
    return patch + depth * block + _qwen_merger(dim, v.get_int("spatial_merge_size"), v.get_int("hidden_size"), 2 * dim)


def _qwen2_5_vl_vision(v: ConfigReader) -> int:
    """Qwen2_5_VisionTransformerPretrainedModel (modeling_qwen2_5_vl.py): Conv3d patch embed ``C*t*p*p*H``
    (no bias); ``depth`` blocks of 2 RMSNorms ``2H``, qkv ``H*3H+3H``, proj ``H*H+H``, gated MLP with biases
    ``2*(H*I+I) + I*H+H``; merger with an RMSNorm ``H`` to ``out_hidden_size``."""
    hidden, inter, depth = v.get_int("hidden_size"), v.get_int("intermediate_size"), v.get_int("depth")
    hidden_per_head(v, hidden, v.get_int("num_heads"))
    patch = v.get_int("in_channels") * v.get_int("temporal_patch_size") * v.get_int("patch_size") ** 2 * hidden
    block = (2 * hidden + _linear(hidden, 3 * hidden, True) + _linear(hidden, hidden, True)
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


TOWERS: Mapping[str, Tower] = {
    "clip_vision_model": _clip,
    "siglip_vision_model": _siglip_vision,
    "pixtral": _pixtral,
    "qwen2_vl_vision": _qwen2_vl_vision,
    "qwen2_5_vl_vision": _qwen2_5_vl_vision,
    "qwen3_vl_vision": _qwen3_vl_vision,
    "qwen3_vl_moe_vision": _qwen3_vl_vision,
    "qwen3_5_vision": _qwen3_vl_vision,
    "qwen3_5_moe_vision": _qwen3_vl_vision,
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
    return _linear(hv * _feature_layers(top), ht, bias) + _linear(ht, ht, bias)


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


def _merger_in_tower(top: ConfigReader, v: ConfigReader, text: ConfigReader, tower: int) -> int:
    """Qwen-VL wrappers: the patch merger is part of the tower (``model.visual.merger``); nothing else."""
    return 0


PROJECTORS: Mapping[str, Projector] = {
    "llava": _llava, "video_llava": _video_llava, "vipllava": _vipllava,
    "mistral3": _mistral3, "paligemma": _paligemma, "qwen_vl": _merger_in_tower,
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


def count_wrapper(top: ConfigReader, t: _Tally) -> None:
    """A vision-language wrapper: the text decoder by its own counter (its lm_head replaced by the wrapper's,
    tied per the top-level ``tie_word_embeddings``), the tower by :data:`TOWERS`, the projector by
    :data:`PROJECTORS`, both in ``vision``; LLaVA-NeXT's ``image_newline`` vector ``H_t`` in ``other``."""
    entry = _entry(top)
    spec = entry.vision
    assert entry.text_type is not None and spec is not None, entry.name
    text = _sub_config(top, "text_config", entry.text_type, spec.text_defaults)
    text_entry = lookup(text.model_type)
    if text_entry is None or text_entry.params is None or text_entry.params == "multimodal":
        reason = text_entry.not_countable if text_entry is not None else "kvcalc does not know this model type"
        raise UnsupportedError(f"parameter counting is not implemented for {top.path}text_config.model_type "
                               f"'{text.model_type}': {reason}")
    vision = _sub_config(top, "vision_config", spec.tower, spec.vision_defaults, TOWERS)
    inner = _Tally()
    _COUNTERS[text_entry.params](text, inner)
    for part in PARTS:
        if part != "lm_head":
            t.add(part, inner.parts[part])
    t.moe_experts += inner.moe_experts
    t.moe_active += inner.moe_active
    _lm_head(top, t, text.get_int("hidden_size"), text.get_int("vocab_size"))
    tower = TOWERS[vision.model_type](vision)
    t.add("vision", tower + PROJECTORS[spec.projector](top, vision, text, tower))
    if spec.image_newline:
        t.add("other", text.get_int("hidden_size"))
