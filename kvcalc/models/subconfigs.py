"""Reading a wrapper's nested configs (``text_config``, ``vision_config``, ``audio_config``, ...) with the
class defaults of their own model type, and the wrapper class's overrides where it merges them.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import ConfigReader
from ..errors import ConfigError, UnsupportedError
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
