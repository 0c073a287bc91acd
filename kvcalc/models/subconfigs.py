"""Reading a wrapper's nested configs (``text_config``, ``vision_config``, ``audio_config``, ...) with the
class defaults of their own model type, and the wrapper class's overrides where it merges them.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import ConfigReader
from ..errors import ConfigError, UnsupportedError
from .model_type import ModelType
from .quirks import Quirk
from .registry import lookup, typed


def typed_sub(top: ConfigReader, name: str, model_type: str, expected: tuple[str, ...]) -> ConfigReader:
    """The nested config ``name`` (its ``model_type``, default ``model_type``, must be one of ``expected``),
    read with that type's class defaults; all class defaults when the config omits it."""
    r = top.sub(name) if isinstance(top.data.get(name), Mapping) else None
    if r is None:
        if top.data.get(name) is not None:
            raise ConfigError(name, top.data[name], "must be a JSON object")
        r = ConfigReader({}, f"{top.path}{name}.", top.used, defaults_used=top.defaults_used)
    sub_type = r.get_str("model_type", default=model_type)
    if sub_type not in expected:
        raise UnsupportedError(f"{top.path}{name}.model_type '{sub_type}' is not counted "
                               f"(expected {', '.join(expected)})")
    return typed(r, sub_type)


def sub_config(top: ConfigReader, name: str, default_type: str, built: Mapping[str, Any],
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


def wrapper_sub(top: ConfigReader, name: str, sub_type: str, overrides: Mapping[str, Any],
         absent_ok: bool = False, absent: Mapping[str, Any] | None = None) -> ConfigReader:
    """The nested config ``name`` (its model_type must be ``sub_type``), read with that type's class
    defaults under ``overrides`` (the wrapper class's, where it merges them into a given sub-config).
    Absent: refused, unless ``absent_ok``: the wrapper class then builds the sub-type's class defaults under
    ``absent`` (its ``SubConfigSpec.init_kwargs``, configuration_utils.py)."""
    sub = top.sub(name)
    if sub is None and absent_ok and top.data.get(name) is None:
        sub = ConfigReader({}, f"{top.path}{name}.", top.used, defaults_used=top.defaults_used)
        overrides = {**overrides, **(absent or {})}
    if sub is None:
        raise UnsupportedError(f"parameter counting of model_type '{top.model_type}' needs its '{name}' "
                               "(kvcalc does not rebuild a nested config's class defaults)")
    given = sub.get_str("model_type", default=sub_type)
    if given != sub_type:
        raise UnsupportedError(f"{top.path}{name}.model_type '{given}' is not counted (expected {sub_type})")
    entry = lookup(sub_type)
    return sub.with_defaults({**(entry.defaults if entry else {}), **overrides}, sub_type,
                             entry.attribute_map if entry else None)


# Wrapper model_type -> the text-only causal-LM class transformers 5.24 maps it to (modeling_auto.py
# MODEL_FOR_CAUSAL_LM_MAPPING_NAMES), whose config_class is the text config: a flat file naming that class in
# ``architectures`` loads straight into the text config and builds the text model alone.
TEXT_CAUSAL_LM: Mapping[str, str] = {
    "qwen3_5": "Qwen3_5ForCausalLM", "qwen3_5_moe": "Qwen3_5MoeForCausalLM", "llama4": "Llama4ForCausalLM",
    "mllama": "MllamaForCausalLM", "emu3": "Emu3ForCausalLM", "dots3_note": "Dots3NoteForCausalLM",
}


def text_only(top: ConfigReader, entry: ModelType) -> bool:
    """A wrapper file without ``text_config`` whose first ``architectures`` entry is the wrapper's text-only
    causal-LM class (:data:`TEXT_CAUSAL_LM`): the model is the text decoder alone, from the file's own fields."""
    archs = top.data.get("architectures")
    first = archs[0] if isinstance(archs, list) and archs else None
    return (top.data.get("text_config") is None and entry.name in TEXT_CAUSAL_LM
            and first == TEXT_CAUSAL_LM[entry.name])


def seeds_text(top: ConfigReader, entry: ModelType) -> bool:
    """Whether a wrapper file without ``text_config`` holds its decoder's fields at the top level as the config
    class reads them: the class seeds text_config from the top-level kwargs (quirk ``flat_text``: Qwen2-VL,
    Qwen2.5-VL, PaddleOCR-VL, GLM-5 Next ``__post_init__``), or the file names the text-only class
    (:func:`text_only`)."""
    if entry.text_type is None or top.data.get("text_config") is not None:
        return False
    return Quirk.FLAT_TEXT in entry.quirks or text_only(top, entry)


def text_view(top: ConfigReader, entry: ModelType, built: Mapping[str, Any] | None = None) -> ConfigReader:
    """The one text config of a wrapper, which the KV rules and the parameter rules both read: the nested
    ``text_config`` (its model_type, default the entry's ``text_type``); the top level itself, typed as the
    text type, where the config class seeds the text config from it (:func:`seeds_text`); else the text config
    the class builds without one (class defaults under ``built``, the wrapper's overrides)."""
    assert entry.text_type is not None, entry.name
    if seeds_text(top, entry):
        return typed(top, entry.text_type)
    return sub_config(top, "text_config", entry.text_type, absent_text_defaults(entry) if built is None else built)


def absent_text_defaults(entry: ModelType) -> Mapping[str, Any]:
    """The overrides a wrapper's config class applies to the text config it builds without one: the vision
    wrapper's ``Vision.text_defaults``, the audio wrapper's ``Audio.text_defaults`` under ``absent_text``."""
    if entry.vision is not None:
        return entry.vision.text_defaults
    if entry.audio is not None:
        return {**entry.audio.text_defaults, **entry.audio.absent_text}
    return {}


# decoder geometry a flat file may give at the top level (canonical names, aliases expanded by the reader)
DECODER_GEOMETRY = ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
                     "intermediate_size", "kv_lora_rank", "q_lora_rank", "sliding_window")


def unseeded_fields(top: ConfigReader, text: ConfigReader, wrapper: str) -> list[str]:
    """Notes for the top-level decoder fields of a wrapper file without ``text_config`` that the config class
    does not seed its text config from and that differ from what the text config holds (LLaVA, Kimi-K2.5:
    transformers builds the class-default decoder, not the file's)."""
    notes = []
    for name in DECODER_GEOMETRY:
        field = top.present(name)
        if field is None:
            continue
        given, held = top.data[field], text.value(name)
        if held is None and name == "num_key_value_heads":     # derived: as many as the query heads
            held = text.value("num_attention_heads")
        if held is not None and given != held:
            notes.append(f"top-level {field}={given!r} is not read: without text_config, {wrapper}'s config "
                         f"class builds its text config from class defaults ({name}={held!r})")
    return notes
