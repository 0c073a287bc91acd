"""Config text -> dict, shared by Hub files, local files and pasted text: size, UTF-8, JSON, depth, object.

Every config, whatever its origin, goes through :func:`parse_config_json` and then
:func:`check_decoder_config` (:func:`kvcalc.read_spec`).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..architectures import read_spec
from ..errors import ConfigError
from .errors import (
    ConfigJSONError,
    ConfigNotObjectError,
    ConfigTooDeepError,
    ConfigTooLargeError,
    InvalidConfigError,
    NotADecoderError,
)
from .ids import shown

MAX_CONFIG_BYTES = 1 << 20          # 1 MiB: real config.json files are a few KiB (the largest bundled: 5 KiB)
MAX_JSON_DEPTH = 64                 # nesting levels; real configs use 3-4


def _json_depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0, ``{}`` is 1), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            depth += 1
            stack.extend((v, depth) for v in item.values())
        elif isinstance(item, list):
            depth += 1
            stack.extend((v, depth) for v in item)
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            break
    return deepest


def config_too_large(label: str, size: int | None, *, repo_id: str | None = None,
                     decompressed: bool = False) -> ConfigTooLargeError:
    """The error for config text of ``size`` bytes (None: more than the cap, streaming stopped there),
    over :data:`MAX_CONFIG_BYTES`; ``decompressed``: the cap was passed while decompressing."""
    if size is not None:
        amount = f"{size:,} bytes"
    else:
        amount = f"more than {MAX_CONFIG_BYTES:,} bytes" + (" once decompressed" if decompressed else "")
    return ConfigTooLargeError(
        f"{label} is {amount}, over the {MAX_CONFIG_BYTES // (1 << 20)} MiB limit: a config.json is a few "
        "KiB; make sure it is the model's config.json, not its weights, tokenizer or an index file.",
        repo_id=repo_id)


def parse_config_json(data: str | bytes, *, label: str, fix: str, repo_id: str | None = None) -> dict[str, Any]:
    """Parse config text into a dict: size cap, UTF-8, JSON, depth cap, must be an object.

    ``label`` names the text in messages ("pasted config", "config.json of 'org/name'"); ``fix``
    is the way forward added to JSON errors. Does not validate the fields: see
    :func:`check_decoder_config`.
    """
    if not isinstance(data, (str, bytes, bytearray)):
        raise ConfigJSONError(f"{label} must be text, not {type(data).__name__}: {fix}", repo_id=repo_id)
    size = len(data) if isinstance(data, (bytes, bytearray)) else len(data.encode("utf-8", "surrogatepass"))
    if size > MAX_CONFIG_BYTES:
        raise config_too_large(label, size, repo_id=repo_id)
    if isinstance(data, (bytes, bytearray)):
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ConfigJSONError(f"{label} is not UTF-8 text: {fix}", repo_id=repo_id) from None
    else:
        text = data[1:] if data.startswith("\ufeff") else data
    error: str | None
    try:
        value = json.loads(text)
    except RecursionError:
        value, error = None, "deep"
    except json.JSONDecodeError as e:
        value, error = None, f"line {e.lineno}, column {e.colno}: {e.msg}"
    except ValueError as e:  # e.g. an integer with more digits than Python converts
        value, error = None, shown(e, 80)
    else:
        error = None
    if error == "deep" or (error is None and _json_depth(value) > MAX_JSON_DEPTH):
        raise ConfigTooDeepError(f"{label} nests deeper than {MAX_JSON_DEPTH} levels: a real config.json is a "
                                 "few levels deep; make sure it is the model's config.json.", repo_id=repo_id)
    if error is not None:
        raise ConfigJSONError(f"{label} is not valid JSON ({error}): {fix}", repo_id=repo_id)
    if not isinstance(value, dict):
        kind = {list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")
        raise ConfigNotObjectError(f"{label} is a JSON {kind}, not an object: a config.json is one JSON object "
                                   "that starts with '{'; use the whole file.", repo_id=repo_id)
    _check_utf8(value, label=label, repo_id=repo_id)
    return value


def check_decoder_config(config: Mapping[str, Any], *, label: str, repo_id: str | None = None) -> None:
    """Validate ``config`` the way planning will read it (:func:`kvcalc.read_spec`).

    Raises :class:`NotADecoderError` for encoders / vision models (BERT, ViT: no KV cache) and
    :class:`InvalidConfigError` for any other unusable field; both are :class:`ConfigError`.
    """
    try:
        read_spec(config)
    except ConfigError as e:
        if e.field == "model_type" and "not a decoder language model" in e.problem:
            kind = shown(e.value, 40) or "(no model_type)"
            raise NotADecoderError(
                f"{label} is a '{kind}' model, not a decoder language model: it has no KV cache to plan; choose "
                "a decoder (causal) LLM such as meta-llama/Llama-3.1-8B.", e, repo_id=repo_id) from None
        raise InvalidConfigError(f"{label} cannot be planned: {e}; check that it is the model's complete "
                                 "config.json.", e, repo_id=repo_id) from None


def _check_utf8(config: dict[str, Any], *, label: str, repo_id: str | None) -> None:
    """Every key and string of ``config`` must encode as UTF-8: JSON's ``\\ud800`` escapes parse into
    lone surrogates, which no text output (terminal, page, JSON export) can write.

    Raises :class:`InvalidConfigError` (a :class:`ConfigError`) naming the dotted field.
    """
    stack: list[tuple[str, Any]] = [("", config)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                name = f"{where}.{shown(k, 40)}" if where else shown(k, 40)
                if not _encodes(k):
                    _raise_surrogate(name, k, "the field name", label, repo_id)
                stack.append((name, v))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
        elif isinstance(item, str) and not _encodes(item):
            _raise_surrogate(where, item, "the value", label, repo_id)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _raise_surrogate(field: str, value: str, what: str, label: str, repo_id: str | None) -> None:
    error = ConfigError(field, shown(value, 40), f"{what} contains a lone UTF-16 surrogate (a \\ud800-\\udfff "
                                                 "escape), which is not text")
    raise InvalidConfigError(f"{label} cannot be planned: {error}; check that it is the model's complete "
                             "config.json.", error, repo_id=repo_id)
