"""The one place that reads config.json fields: aliases, types, ranges, and which fields were used.

``ConfigReader`` wraps a config dict (or a nested ``text_config``) and records every field it
reads, so each result can list the config fields it depends on. Every read validates the value
and raises :class:`~kvcalc.errors.ConfigError` naming the field and value when it is unusable.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import ConfigError

_MISSING = object()

# Canonical field -> aliases, in the order transformers' configs (and older checkpoints) use them.
ALIASES: dict[str, tuple[str, ...]] = {
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "num_attention_heads": ("num_attention_heads", "n_head", "n_heads", "num_heads", "attention_heads"),
    "hidden_size": ("hidden_size", "n_embd", "d_model", "dim", "model_dim"),
    "num_key_value_heads": ("num_key_value_heads", "num_kv_heads", "n_head_kv", "n_kv_heads",
                            "multi_query_group_num", "num_kv"),
    "head_dim": ("head_dim", "d_kv", "attention_head_dim", "kv_channels"),
    "vocab_size": ("vocab_size", "n_vocab", "padded_vocab_size"),
    "max_position_embeddings": ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                                "n_ctx", "max_sequence_length"),
    "intermediate_size": ("intermediate_size", "ffn_dim", "n_inner", "d_ff", "ffn_hidden_size",
                          "decoder_ffn_dim"),
}

MAX_DIM = 1 << 24       # 16,777,216: no real width, head count or vocab exceeds this
MAX_LAYERS = 4096


class ConfigReader:
    """Typed, recorded access to one level of a config dict, with the config class's defaults.

    ``path`` is the dotted prefix of this level ("" at top, "text_config." nested).
    ``used`` is shared with nested readers: the dotted names of every config field read.
    ``defaults`` are the transformers config-class defaults of ``model_type`` (from
    :mod:`kvcalc.models.registry`); a field the config omits (or sets to null) takes its default, as when
    transformers builds the model, and ``"path.field=value"`` is recorded in ``defaults_used``
    (shared with nested readers). A default of ``None`` means "derived" and counts as no default.
    ``attribute_map`` is the config class's own ``attribute_map`` (canonical field -> the name the class
    stores it under, Kosmos-2.5: ``hidden_size`` -> ``embed_dim``), read before the generic aliases.

    Accessors: ``get_*`` return a value or raise :class:`~kvcalc.errors.ConfigError` (a missing field
    with neither a default nor a ``default=`` argument); ``opt_*`` return ``None`` instead.
    """

    def __init__(self, data: Mapping[str, Any], path: str = "", used: list[str] | None = None, *,
                 defaults: Mapping[str, Any] | None = None, model_type: str = "",
                 defaults_used: list[str] | None = None, attribute_map: Mapping[str, str] | None = None):
        if not isinstance(data, Mapping):
            raise ConfigError(path.rstrip(".") or "config", data, "must be a JSON object")
        self.data = data
        self.path = path
        self.used: list[str] = used if used is not None else []
        self.defaults: Mapping[str, Any] = defaults if defaults is not None else {}
        self.model_type = model_type
        self.defaults_used: list[str] = defaults_used if defaults_used is not None else []
        self.attribute_map: Mapping[str, str] = attribute_map or {}

    # -- raw access ------------------------------------------------------------------------
    def _note(self, name: str) -> None:
        full = self.path + name
        if full not in self.used:
            self.used.append(full)

    def present(self, *names: str) -> str | None:
        """The first of ``names`` present with a non-null value (canonical aliases expanded)."""
        for name in self._expand(names):
            if self.data.get(name) is not None:
                return name
        return None

    def has(self, *names: str) -> bool:
        """Whether the config itself (not a class default) gives one of ``names``."""
        return self.present(*names) is not None

    def _expand(self, names: tuple[str, ...]) -> list[str]:
        out: list[str] = []
        for name in names:
            own = (self.attribute_map[name],) if name in self.attribute_map else ()
            for alias in own + ALIASES.get(name, (name,)):
                if alias not in out:
                    out.append(alias)
        return out

    def raw(self, *names: str, default: Any = _MISSING) -> Any:
        """The config's value of the first present alias, recorded as used; ``default`` if none
        (class defaults are not consulted: see :meth:`value`)."""
        name = self.present(*names)
        if name is None:
            if default is _MISSING:
                raise self.missing(names[0])
            return default
        self._note(name)
        return self.data[name]

    def class_default(self, *names: str) -> Any:
        """The first non-null class default among ``names`` (recorded in ``defaults_used``), else None."""
        for name in names:
            value = self.defaults.get(name)
            if value is not None:
                note = f"{self.path}{name}={value!r}"
                if note not in self.defaults_used:
                    self.defaults_used.append(note)
                return value
        return None

    def value(self, *names: str) -> Any:
        """The config's value, else the class default, else None (unvalidated)."""
        if self.has(*names):
            return self.raw(*names)
        return self.class_default(*names)

    def field_name(self, *names: str) -> str:
        name = self.present(*names)
        return self.path + (name or names[0])

    def missing(self, name: str) -> ConfigError:
        """The error for a required field that neither the config nor a class default gives."""
        why = f" (no {self.model_type} default)" if self.model_type else ""
        return ConfigError(self.path + name, None, f"required field is missing{why}")

    # -- typed access ------------------------------------------------------------------------
    def opt_int(self, *names: str, minimum: int = 1, maximum: int = MAX_DIM) -> int | None:
        """An integer in [minimum, maximum] (integral floats such as 4096.0 accepted), or None."""
        if self.has(*names):
            return self.check_int(self.field_name(*names), self.raw(*names), minimum, maximum)
        value = self.class_default(*names)
        return None if value is None else int(value)

    def get_int(self, *names: str, default: int | None = None, minimum: int = 1, maximum: int = MAX_DIM) -> int:
        """Like :meth:`opt_int`; without a value, ``default``, else ConfigError."""
        value = self.opt_int(*names, minimum=minimum, maximum=maximum)
        if value is not None:
            return value
        if default is None:
            raise self.missing(names[0])
        return default

    def nullable_int(self, name: str, minimum: int = 1) -> int | None:
        """Like :meth:`opt_int`, but an explicit ``null`` in the config means None (not the default)."""
        if name in self.data and self.data[name] is None:
            self._note(name)
            return None
        return self.opt_int(name, minimum=minimum)

    @staticmethod
    def check_int(field: str, value: Any, minimum: int = 1, maximum: int = MAX_DIM) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(field, value, "must be an integer")
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")) or not value.is_integer():
                raise ConfigError(field, value, "must be a whole number")
            value = int(value)
        if value < minimum:
            raise ConfigError(field, value, f"must be at least {minimum}")
        if value > maximum:
            raise ConfigError(field, value, f"must be at most {maximum:,}")
        return value

    def opt_float(self, *names: str) -> float | None:
        """A finite positive number (e.g. Mamba's ``expand``), or None."""
        value = self.value(*names)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise ConfigError(self.field_name(*names), value, "must be a positive number")
        return float(value)

    def get_float(self, *names: str) -> float:
        """Like :meth:`opt_float`; ConfigError without a value."""
        value = self.opt_float(*names)
        if value is None:
            raise self.missing(names[0])
        return value

    def get_bool(self, *names: str, default: bool | None = None) -> bool:
        """A true/false field: the config's, else the class default, else ``default``, else ConfigError."""
        if self.has(*names):
            value = self.raw(*names)
            if not isinstance(value, bool):
                raise ConfigError(self.field_name(*names), value, "must be true or false")
            return value
        value = self.class_default(*names)
        if value is not None:
            return bool(value)
        if default is None:
            raise self.missing(names[0])
        return default

    def opt_str(self, *names: str) -> str | None:
        """A string field (config, else class default), or None."""
        if self.has(*names):
            value = self.raw(*names)
            if not isinstance(value, str):
                raise ConfigError(self.field_name(*names), value, "must be a string")
            return value
        value = self.class_default(*names)
        return None if value is None else str(value)

    def get_str(self, *names: str, default: str | None = None) -> str:
        """Like :meth:`opt_str`; without a value, ``default``, else ConfigError."""
        value = self.opt_str(*names)
        if value is not None:
            return value
        if default is None:
            raise self.missing(names[0])
        return default

    def opt_list(self, *names: str, max_len: int = MAX_LAYERS) -> list[Any] | None:
        """A list field of at most ``max_len`` entries (config, else class default), or None."""
        if not self.has(*names):
            value = self.class_default(*names)
            return None if value is None else list(value)
        value = self.raw(*names)
        if not isinstance(value, list):
            raise ConfigError(self.field_name(*names), value, "must be a list")
        if len(value) > max_len:
            raise ConfigError(self.field_name(*names), f"<list of {len(value)}>", f"has more than {max_len} entries")
        return value

    def opt_int_list(self, *names: str, minimum: int = 0) -> list[int] | None:
        """A list of integers, each at least ``minimum``, or None."""
        value = self.opt_list(*names)
        if value is None:
            return None
        field = self.field_name(*names)
        return [self.check_int(f"{field}[{i}]", v, minimum) for i, v in enumerate(value)]

    def get_int_list(self, *names: str, default: list[int] | None = None, minimum: int = 0) -> list[int]:
        """Like :meth:`opt_int_list`; without a value, ``default``, else ConfigError."""
        value = self.opt_int_list(*names, minimum=minimum)
        if value is not None:
            return value
        if default is None:
            raise self.missing(names[0])
        return list(default)

    def opt_str_list(self, *names: str) -> list[str] | None:
        """A list of strings, or None."""
        value = self.opt_list(*names)
        if value is None:
            return None
        field = self.field_name(*names)
        for i, v in enumerate(value):
            if not isinstance(v, str):
                raise ConfigError(f"{field}[{i}]", v, "must be a string")
        return value

    def sub(self, name: str) -> "ConfigReader | None":
        """A reader for a nested object (``text_config``), sharing the used-field and defaults records
        (no class defaults: give them with :meth:`with_defaults`)."""
        value = self.data.get(name)
        if value is None:
            return None
        self._note(name)
        return ConfigReader(value, f"{self.path}{name}.", self.used, defaults_used=self.defaults_used)

    def with_defaults(self, defaults: Mapping[str, Any], model_type: str,
                      attribute_map: Mapping[str, str] | None = None) -> "ConfigReader":
        """This reader (same level, same records) with the class defaults (and ``attribute_map``) of ``model_type``."""
        return ConfigReader(self.data, self.path, self.used, defaults=defaults, model_type=model_type,
                            defaults_used=self.defaults_used, attribute_map=attribute_map)


def hidden_per_head(r: ConfigReader, hidden: int, heads: int, head_dim_given: bool = True) -> int:
    """``hidden_size // num_attention_heads``; ConfigError naming ``hidden_size`` when it does not divide
    (``head_dim_given=False``: the message adds that no head_dim was given to use instead)."""
    if hidden % heads:
        tail = "" if head_dim_given else " and no head_dim is given"
        raise ConfigError(r.field_name("hidden_size"), hidden,
                          f"is not divisible by num_attention_heads ({heads}){tail}")
    return hidden // heads


def head_dim_or_derived(r: ConfigReader, hidden: int, heads: int, floor: bool = False) -> int:
    """``head_dim`` from the config or class default, else ``hidden_size // num_attention_heads``
    (``floor``: even when it does not divide, as GLM-4.5 MoE's attention does; otherwise ConfigError)."""
    d = r.opt_int("head_dim")
    if d is not None:
        return d
    return hidden // heads if floor else hidden_per_head(r, hidden, heads, head_dim_given=False)


def declared_dtype(top: ConfigReader) -> str | None:
    """The dtype a config declares (``torch_dtype`` / ``dtype``), canonical name, or None.

    A multimodal config's ``text_config`` value wins over the top level (the decoder's dtype);
    ``"auto"`` counts as not declared. Unknown names raise ConfigError."""
    from .dtypes import get_dtype, is_known_dtype

    text = top.sub("text_config") if isinstance(top.data.get("text_config"), Mapping) else None
    for r in (text, top):
        if r is None:
            continue
        value = r.raw("torch_dtype", "dtype", default=None)
        if value is None or value == "auto":
            continue
        if not is_known_dtype(value):
            raise ConfigError(r.field_name("torch_dtype", "dtype"), value, "is not a known dtype")
        return get_dtype(value).name
    return None
