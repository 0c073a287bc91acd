"""A pasted or uploaded config.json carried in the share link (pure: no Streamlit).

Encoding: the parsed config as compact JSON (UTF-8) -> zlib (level 9) -> URL-safe base64 without
``=`` padding, in the one URL parameter ``cfg`` (dashboard.state.PARAMS). A link that would need
more than :data:`CONFIG_LINK_MAX_CHARS` characters is not made (the page says so).

Decoding treats the value as untrusted input: at most ``CONFIG_LINK_MAX_CHARS`` characters before,
at most :data:`LINK_CONFIG_BYTES` (1 MiB) after decompression (the decompressor stops there, so a zip bomb
costs nothing), then exactly the checks of a paste
(:func:`kvcalc.sources.parse_config_text`: JSON object, depth, a decoder config kvcalc can read).
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from functools import lru_cache
from typing import Any

from kvcalc.errors import InputError, KVCalcError
from kvcalc.sources import parse_config_text

_B64URL = re.compile(r"[A-Za-z0-9_-]+")
CONFIG_LINK_MAX_CHARS = 6_000
"""Longest ``cfg`` link value (characters): a pasted config, compressed; a few KB keeps the URL sane."""
LINK_CONFIG_BYTES = 1 << 20
"""Most bytes a link's config unpacks to: a config small enough for a link (kvcalc.sources.MAX_CONFIG_BYTES, the
16 MiB ceiling of a file, bounds what a paste or a file may hold)."""


class ConfigLinkError(InputError):
    """The ``cfg`` link value is not a config this app wrote (or it was cut / altered)."""


def max_chars() -> int:
    """The longest ``cfg`` value accepted (:data:`CONFIG_LINK_MAX_CHARS`)."""
    return CONFIG_LINK_MAX_CHARS


def encode_config(config: dict[str, Any]) -> str:
    """The link value for ``config`` (any length; the caller checks it against :func:`max_chars`)."""
    raw = json.dumps(config, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


@lru_cache(maxsize=32)
def decode_config(value: str) -> dict[str, Any]:
    """The config a ``cfg`` link value holds; :class:`ConfigLinkError` (or the paste's own
    kvcalc error) when it is too long, not base64, not zlib, too large unpacked, or not a config."""
    limit = max_chars()
    if len(value) > limit:
        raise ConfigLinkError(f"the config in the link is longer than {limit:,} characters")
    if not _B64URL.fullmatch(value):
        raise ConfigLinkError("the config in the link is not URL-safe base64 (cut or altered?)")
    try:
        packed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raise ConfigLinkError("the config in the link is not URL-safe base64 (cut or altered?)") from None
    d = zlib.decompressobj()
    try:
        raw = d.decompress(packed, LINK_CONFIG_BYTES + 1)
    except zlib.error:
        raise ConfigLinkError("the config in the link is not zlib data (cut or altered?)") from None
    if len(raw) > LINK_CONFIG_BYTES or d.unconsumed_tail:
        raise ConfigLinkError(f"the config in the link unpacks to more than {LINK_CONFIG_BYTES:,} bytes")
    if not d.eof:
        raise ConfigLinkError("the config in the link is incomplete (cut?)")
    return parse_config_text(raw, label="config in the link")


def link_error(value: str) -> str | None:
    """Why ``value`` is not a usable ``cfg`` link value (one line), or None."""
    try:
        decode_config(value)
    except KVCalcError as e:
        return f"is not a usable config ({str(e)[:160]})"
    return None


def config_title(config: dict[str, Any], file_name: str | None = None) -> str:
    """The name a pasted config is shown by: its ``_name_or_path``, else the upload's file name,
    else 'pasted config' (outside text: the page escapes it)."""
    name = config.get("_name_or_path")
    if isinstance(name, str) and name.strip():
        return name.strip()[:120]
    if file_name and file_name.strip():
        return file_name.strip()[:120]
    return "pasted config"
