"""Vision-language wrappers (``...ForConditionalGeneration``): a text decoder counted by its own family's
counter, a vision tower (:data:`TOWERS`, keyed by the ``vision_config`` model_type) and a projector
(:mod:`kvcalc.models.projectors`), reported together in ``ParamCount.vision``.

Tying follows the wrapper's top-level ``tie_word_embeddings`` (``PreTrainedModel.tie_weights`` reads the
top-level config), not the text config's. A wrapper config without a ``vision_config`` / ``text_config`` gets
the one its config class builds (``ModelType.vision``: the sub-type's class defaults with the wrapper class's
overrides).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..config import ConfigReader
from ..errors import UnsupportedError
from .blocks import lm_head, registry_entry
from .counts import Tally
from .image_tokenizers import apertus1p5_vision
from .projectors import PROJECTORS
from .registry import lookup
from .subconfigs import sub_config, text_view
from .vision_towers import (
    Tower,
    clip,
    cosmos3_edge_vision,
    davit,
    deepseek_ocr2_vision,
    ernie4_5_vl_vision,
    gemma4_unified_vision,
    gemma4_vision,
    glm4v_vision,
    glm_ocr_vision,
    got_ocr2_vision,
    granite_docling_vision,
    internvl_vision,
    janus_vision,
    kimi_k25_vision,
    llama4_vision,
    minicpmv_vision,
    minimax_m3_vl_vision,
    molmo2_vision,
    muse_vision,
    ovis2_vision,
    pixtral,
    qwen2_5_vl_vision,
    qwen2_vl_vision,
    qwen3_vl_vision,
    radio,
    siglip2,
    siglip_headless,
    siglip_rope,
    siglip_vision,
    step3p7_vision,
    timm_wrapper,
    unlimited_ocr_vision,
)


def untied_wrapper(f: ConfigReader, t: Tally) -> None:
    """A vision-language wrapper whose lm_head is never tied (Cosmos3EdgeForConditionalGeneration declares
    ``_tied_weights_keys = {}``, so tie_word_embeddings ties nothing): :func:`kvcalc.models.wrappers.count_wrapper`,
    then lm_head ``V*H_t`` whatever tie_word_embeddings says."""
    count_wrapper(f, t)
    if t.tied:
        text = sub_config(f, "text_config", registry_entry(f).text_type or "", {})
        t.tied = False
        t.add("lm_head", text.get_int("vocab_size") * text.get_int("hidden_size"))


def own_text_wrapper(f: ConfigReader, t: Tally, text: ConfigReader,
                      counter: Callable[[ConfigReader, Tally], None]) -> None:
    """A vision-language wrapper whose text model is counted by ``counter`` rather than by its registry entry
    (an encoder-decoder, or a decoder the registry does not count alone): the text model's parts without its
    lm_head, the wrapper's lm_head ``V*H`` unless the top-level tie_word_embeddings ties it, and the tower and
    projector of the entry's ``vision`` (:data:`kvcalc.models.wrappers.TOWERS`, ``PROJECTORS``) in vision."""
    spec = registry_entry(f).vision
    assert spec is not None
    inner = Tally()
    counter(text, inner)
    t.add_decoder(inner)
    lm_head(f, t, text.get_int("d_model", "hidden_size"), text.get_int("vocab_size"))
    vision = sub_config(f, "vision_config", spec.tower, spec.vision_defaults, TOWERS)
    tower = TOWERS[vision.model_type](vision)
    t.add("vision", tower + PROJECTORS[spec.projector](f, vision, text, tower))


TOWERS: Mapping[str, Tower] = {
    "clip_vision_model": clip,
    "siglip_vision_model": siglip_vision,
    "pixtral": pixtral,
    "qwen2_vl_vision": qwen2_vl_vision,
    "qwen2_5_vl_vision": qwen2_5_vl_vision,
    "qwen3_vl_vision": qwen3_vl_vision,
    "qwen3_vl_moe_vision": qwen3_vl_vision,
    "qwen3_5_vision": qwen3_vl_vision,
    "qwen3_5_moe_vision": qwen3_vl_vision,
    "cohere_compass_vision": qwen3_vl_vision,
    "exaone4_5_vision": qwen2_5_vl_vision,
    "qwen2_5_omni_vision_encoder": qwen2_5_vl_vision,
    "qwen3_omni_moe_vision_encoder": qwen3_vl_vision,
    "idefics2_vision": siglip_headless,
    "idefics3_vision": siglip_headless,
    "smolvlm_vision": siglip_headless,
    "internvl_vision": internvl_vision,
    "qianfan_ocr_vision": internvl_vision,
    "got_ocr2_vision": got_ocr2_vision,
    "pp_chart2table_vision": got_ocr2_vision,
    "kimi_k25_vision": kimi_k25_vision,
    "glm4v_vision": glm4v_vision,
    "glm4v_moe_vision": glm4v_vision,
    "paddleocr_vl_vision": siglip_headless,
    "video_llama_3_vision": siglip_rope,
    "minicpmv4_6_vision": minicpmv_vision,
    "minicpmv4_7_vision": minicpmv_vision,
    "minicpm_ocr_vision": minicpmv_vision,
    "siglip2_vision_model": siglip2,
    "gemma4_vision": gemma4_vision,
    "gemma4_unified_vision": gemma4_unified_vision,
    "granite_docling_vision": granite_docling_vision,
    "cosmos3_edge_vision": cosmos3_edge_vision,
    "glm_ocr_vision": glm_ocr_vision,
    "apertus1p5_vision_tokenizer": apertus1p5_vision,
    "florence_vision": davit,
    "ernie4_5_vl_moe_vision": ernie4_5_vl_vision,
    "deepseek_ocr2_vision": deepseek_ocr2_vision,
    "llama4_vision_model": llama4_vision,
    "minimax_m3_vl_vision": minimax_m3_vl_vision,
    "molmo2_vision": molmo2_vision,
    "ovis2_vision": ovis2_vision,
    "step3p5_vision": step3p7_vision,
    "muse_glimmer_vision": muse_vision,
    "muse_spark_vision": muse_vision,
    "unlimited_ocr_vision": unlimited_ocr_vision,
    "radio": radio,
    "janus_vision_model": janus_vision,
    "timm_wrapper": timm_wrapper,
}
"""vision_config ``model_type`` -> its tower counter."""


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


COUNTERS_BY_FAMILY: dict[str, Callable[[ConfigReader, Tally], None]] = {}
"""Parameter family (a registry entry's ``params``) -> counter: :data:`kvcalc.models.counting.COUNTERS`, which
registers itself here when it loads (it imports every family module, so they cannot import it)."""


def counter(family: str) -> Callable[[ConfigReader, Tally], None]:
    """The counter of parameter family ``family`` (:data:`COUNTERS_BY_FAMILY`)."""
    return COUNTERS_BY_FAMILY[family]


def count_wrapper(top: ConfigReader, t: Tally) -> None:
    """A vision-language wrapper: the text decoder by its own counter (its lm_head replaced by the wrapper's,
    tied per the top-level ``tie_word_embeddings``, or as ``Vision.tie`` says), the tower by :data:`TOWERS`, the
    projector by :data:`PROJECTORS`, both in ``vision``; LLaVA-NeXT's ``image_newline`` vector ``H_t`` in ``other``."""
    entry = lookup(top.model_type)
    assert entry is not None, top.model_type
    spec = entry.vision
    assert entry.text_type is not None and spec is not None, entry.name
    text = text_view(top, entry, spec.text_defaults)
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
    vision = None if spec.optional and top.data.get("vision_config") is None else sub_config(
        _legacy_vision_type(top, spec.tower), "vision_config", spec.tower, spec.vision_defaults, TOWERS,
        fixed=spec.fixed_tower)
    inner = Tally()
    counter(text_entry.params)(text, inner)
    t.add_decoder(inner)
    t.tied = spec.tie != "never" and (text if spec.tie == "text" else top).get_bool("tie_word_embeddings")
    if not t.tied:
        t.add("lm_head", text.get_int("vocab_size") * text.get_int("hidden_size"))
    if vision is not None:
        tower = TOWERS[vision.model_type](vision)
        t.add("vision", tower + PROJECTORS[spec.projector](top, vision, text, tower))
    if spec.image_newline:
        t.add("other", text.get_int("hidden_size"))
