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
    "num_attention_heads": ("num_attention_heads", "n_head", "n_heads", "num_heads"),
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
    """Typed, recorded access to one level of a config dict.

    ``path`` is the dotted prefix of this level ("" at top, "text_config." nested).
    ``used`` is shared with nested readers: the dotted names of every field read.
    """

    def __init__(self, data: Mapping[str, Any], path: str = "", used: list[str] | None = None):
        if not isinstance(data, Mapping):
            raise ConfigError(path.rstrip(".") or "config", data, "must be a JSON object")
        self.data = data
        self.path = path
        self.used: list[str] = used if used is not None else []

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
        return self.present(*names) is not None

    @staticmethod
    def _expand(names: tuple[str, ...]) -> list[str]:
        out: list[str] = []
        for name in names:
            for alias in ALIASES.get(name, (name,)):
                if alias not in out:
                    out.append(alias)
        return out

    def raw(self, *names: str, default: Any = _MISSING) -> Any:
        """The value of the first present alias, recorded as used; ``default`` if none."""
        name = self.present(*names)
        if name is None:
            if default is _MISSING:
                raise ConfigError(self.path + names[0], None, "required field is missing")
            return default
        self._note(name)
        return self.data[name]

    def field_name(self, *names: str) -> str:
        name = self.present(*names)
        return self.path + (name or names[0])

    # -- typed access ------------------------------------------------------------------------
    def int(self, *names: str, default: Any = _MISSING, minimum: int = 1, maximum: int = MAX_DIM) -> Any:
        """An integer field in [minimum, maximum]; integral floats (e.g. 4096.0) are accepted."""
        value = self.raw(*names, default=_MISSING if default is _MISSING else None)
        if value is None:
            return default
        return self.check_int(self.field_name(*names), value, minimum, maximum)

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

    def bool(self, *names: str, default: bool = False) -> bool:
        value = self.raw(*names, default=None)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ConfigError(self.field_name(*names), value, "must be true or false")
        return value

    def str(self, *names: str, default: Any = _MISSING) -> Any:
        value = self.raw(*names, default=_MISSING if default is _MISSING else None)
        if value is None:
            return default
        if not isinstance(value, str):
            raise ConfigError(self.field_name(*names), value, "must be a string")
        return value

    def list(self, *names: str, default: Any = None, max_len: int = MAX_LAYERS) -> Any:
        value = self.raw(*names, default=None)
        if value is None:
            return default
        if not isinstance(value, list):
            raise ConfigError(self.field_name(*names), value, "must be a list")
        if len(value) > max_len:
            raise ConfigError(self.field_name(*names), f"<list of {len(value)}>", f"has more than {max_len} entries")
        return value

    def int_list(self, *names: str, default: Any = None, minimum: int = 0) -> Any:
        value = self.list(*names, default=None)
        if value is None:
            return default
        field = self.field_name(*names)
        return [self.check_int(f"{field}[{i}]", v, minimum) for i, v in enumerate(value)]

    def str_list(self, *names: str, default: Any = None) -> Any:
        value = self.list(*names, default=None)
        if value is None:
            return default
        field = self.field_name(*names)
        for i, v in enumerate(value):
            if not isinstance(v, str):
                raise ConfigError(f"{field}[{i}]", v, "must be a string")
        return value

    def sub(self, name: str) -> "ConfigReader | None":
        """A reader for a nested object (``text_config``), sharing the used-field record."""
        value = self.data.get(name)
        if value is None:
            return None
        self._note(name)
        return ConfigReader(value, f"{self.path}{name}.", self.used)


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
