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

MAX_CONFIG_BYTES = 16 << 20         # the hard ceiling that bounds memory; real config.json files are a few KiB,
                                    # a quantized export's module lists up to a few MiB (3.1 MB seen)
MAX_JSON_DEPTH = 64                 # nesting levels; real configs use 3-4
MAX_JSON_VALUES = 2_000_000         # JSON values in all (objects, lists, strings, numbers): bounds the parsed size
MAX_KEY_CHARS = 1024                # a field name; real ones are under 100 (a module path as a key: under 200)
MAX_STRING_CHARS = 1 << 16          # a string value; real ones are names, paths and module patterns
MAX_INT_DIGITS = 20                 # an integer's digits (2**64 has 20): no count or size in a config is larger


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


def structure_problem(value: Any) -> str | None:
    """What in a parsed config passes the bounds on its structure, or None: at most :data:`MAX_JSON_VALUES`
    values, field names of at most :data:`MAX_KEY_CHARS` characters, strings of at most :data:`MAX_STRING_CHARS`,
    integers of at most :data:`MAX_INT_DIGITS` digits (depth: :func:`_json_depth`). A long list of short
    strings (a quantization_config's thousands of ignored modules) is within them; no recursion.

    >>> structure_problem({"quantization_config": {"ignore": ["model.layers.0.mlp.gate"] * 40_000}}) is None
    True
    >>> structure_problem({"n": 10 ** 30})
    'the integer at n has 31 digits, over the 20 allowed'
    """
    stack: list[tuple[str, Any]] = [("", value)]
    count = 0
    while stack:
        where, item = stack.pop()
        count += 1
        if count > MAX_JSON_VALUES:
            return f"it holds more than {MAX_JSON_VALUES:,} JSON values"
        if isinstance(item, dict):
            for k, v in item.items():
                if len(k) > MAX_KEY_CHARS:
                    return f"a field name at {where or 'the top level'} has {len(k):,} characters, over the " \
                           f"{MAX_KEY_CHARS:,} allowed"
                stack.append((f"{where}.{k[:40]}" if where else k[:40], v))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
        elif isinstance(item, str) and len(item) > MAX_STRING_CHARS:
            return f"the string at {where} has {len(item):,} characters, over the {MAX_STRING_CHARS:,} allowed"
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) >= 10 ** MAX_INT_DIGITS:
            return f"the integer at {where} has {len(str(abs(item)))} digits, over the {MAX_INT_DIGITS} allowed"
    return None


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


def structure_too_large(label: str, problem: str, *, repo_id: str | None = None) -> ConfigTooLargeError:
    """The error for config text within the byte cap whose structure passes a bound (:func:`structure_problem`)."""
    return ConfigTooLargeError(f"{label} is not a config.json kvcalc reads: {problem}; make sure it is the "
                               "model's config.json, not its weights, tokenizer or an index file.", repo_id=repo_id)


def parse_config_json(data: str | bytes, *, label: str, fix: str, repo_id: str | None = None) -> dict[str, Any]:
    """Parse config text into a dict: size ceiling, UTF-8, JSON, depth cap, must be an object, structure bounds
    (:func:`structure_problem`).

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
    problem = structure_problem(value)
    if problem is not None:
        raise structure_too_large(label, problem, repo_id=repo_id)
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
