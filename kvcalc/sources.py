"""Where a model config comes from: the bundled catalog, the Hub, a local file, or pasted text.

:func:`resolve_config` turns what a user typed into a validated config dict plus its origin, and
:func:`parse_config_text` does the same for pasted or uploaded text. Every config, whatever its
origin, goes through the same checks: at most :data:`~kvcalc.hub.MAX_CONFIG_BYTES` (16 MiB), JSON
nested at most :data:`~kvcalc.hub.MAX_JSON_DEPTH` (64) levels, a JSON object, and accepted by
:func:`kvcalc.read_spec` (a decoder language model: BERT, ViT and other encoders are refused).

Resolution order of :func:`resolve_config`:

1. ``allow_files=True`` and the source is a path (it exists, or it ends in ``.json`` or starts
   with ``/``, ``./``, ``../`` or ``~`` and is not a bundled file name): that file, or
   ``config.json`` inside that folder -> ``"file"``. Off by default: a web page must never read
   server paths from what a visitor typed.
2. ``offline=True``: the bundled snapshot (catalog Hub id, display name or file stem) ->
   ``"bundled"``; a model that is not bundled raises :class:`~kvcalc.hub.NotBundledError`.
3. Otherwise the Hub (:func:`kvcalc.hub.fetch_hub_config`; a bundled name is fetched under its
   Hub id) -> ``"hub"``.
4. If the Hub cannot be used (no network, offline mode, timeout, 5xx / 429) and the model is
   bundled: the bundled snapshot, with a ``notice`` saying so. Not bundled: the error.
5. Gated on the Hub (no token, or a token without access) and bundled: the bundled snapshot with
   a ``notice`` saying how to get the live file (decision: a user who asks for a gated model we
   bundle still gets numbers, clearly labelled). Not bundled: :class:`~kvcalc.hub.GatedModelError`.

Every other Hub error (not found, no config.json, bad JSON, not a decoder, bad token) is raised:
it says something about the request itself, and a silent fallback would hide it.

Caching and Streamlit: Hub fetches are cached in-process by :mod:`kvcalc.hub` (per endpoint,
repo, revision and token identity; successes 1 h, errors 30 s), so one page run, or many, never
fetches the same file twice, and the bundled and pasted paths cost microseconds. The Streamlit
side can therefore call :func:`resolve_config` directly on every run. If it also wraps it in
``st.cache_data`` (shared by *all* sessions), it must key on :func:`kvcalc.hub.token_identity`
rather than on "a token was given", or one visitor's token-fetched private config would be
served to another visitor, and it must pass the token as an underscore argument so Streamlit does
not hash or store it::

    @st.cache_data(ttl=3600, max_entries=64, show_spinner="Fetching config.json from the Hub...")
    def _resolve(source: str, revision: str | None, token_id: str | None, _token: str | None):
        return resolve_config(source, revision=revision, token=_token)

    r = _resolve(name, revision or None, token_identity(token), token)
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

from .catalog import CatalogEntry, bundled_config, find_entry
from .hub import (
    CONFIG_FILENAME,
    DEFAULT_TIMEOUT,
    MAX_CONFIG_BYTES,
    MAX_JSON_DEPTH,
    TOKEN_SOURCES,
    AccessDeniedError,
    ConfigFileError,
    ConfigJSONError,
    ConfigNotObjectError,
    ConfigTextError,
    ConfigTooDeepError,
    ConfigTooLargeError,
    GatedModelError,
    HubConfig,
    HubOfflineError,
    HubServerError,
    HubTimeoutError,
    HubUnavailableError,
    HubWeightInfo,
    InvalidConfigError,
    InvalidRepoIdError,
    InvalidRevisionError,
    InvalidTokenError,
    NoConfigError,
    NotADecoderError,
    NotBundledError,
    PrivateRepoError,
    RepoNotFoundError,
    RevisionNotFoundError,
    SourceError,
    check_decoder_config,
    clear_cache,
    config_too_large,
    fetch_hub_config,
    fetch_weight_info,
    hub_endpoint,
    parse_config_json,
    shown,
    token_from_env,
    token_identity,
    validate_hub_id,
)

ORIGINS = ("bundled", "hub", "file", "pasted")

__all__ = [
    "ORIGINS", "ResolvedConfig", "resolve_config", "parse_config_text", "pasted_config", "token_from_env",
    "token_identity", "clear_cache", "fetch_hub_config", "fetch_weight_info", "HubConfig", "HubWeightInfo",
    "MAX_CONFIG_BYTES", "MAX_JSON_DEPTH",
    "SourceError", "InvalidRepoIdError", "InvalidRevisionError", "InvalidTokenError", "RepoNotFoundError",
    "RevisionNotFoundError", "AccessDeniedError", "PrivateRepoError", "GatedModelError", "NoConfigError",
    "HubUnavailableError",
    "HubServerError", "HubTimeoutError", "HubOfflineError", "NotBundledError", "ConfigFileError", "ConfigTextError",
    "ConfigJSONError", "ConfigTooLargeError", "ConfigTooDeepError", "ConfigNotObjectError", "InvalidConfigError",
    "NotADecoderError",
]


@dataclass(frozen=True)
class ResolvedConfig:
    """A validated config dict and where it came from.

    ``origin``: one of :data:`ORIGINS`. ``name``: the Hub id (bundled / hub), the file path, or
    "pasted config". ``notice``: one line to show next to the results when the config is not what
    was asked for (e.g. the bundled snapshot because the Hub was unreachable), else None.
    ``gated``: whether the Hub repo is gated, when known. ``revision`` / ``commit``: for Hub configs.
    """

    config: dict[str, Any] = field(repr=False)
    origin: str
    name: str
    notice: str | None = None
    gated: bool | None = None
    revision: str | None = None
    commit: str | None = None


def parse_config_text(text: str | bytes, *, label: str = "pasted config") -> dict[str, Any]:
    """A pasted or uploaded config.json (text or bytes) as a validated dict.

    Caps: :data:`MAX_CONFIG_BYTES` (16 MiB, UTF-8 bytes), JSON depth :data:`MAX_JSON_DEPTH` (64), and the
    structure bounds of :func:`kvcalc.hub.config_text.structure_problem` (values, name and string lengths, digits).
    Raises :class:`ConfigTooLargeError`, :class:`ConfigJSONError` (not JSON / not UTF-8),
    :class:`ConfigTooDeepError`, :class:`ConfigNotObjectError`, :class:`NotADecoderError` (BERT,
    ViT, ...) or :class:`InvalidConfigError` (a field :func:`kvcalc.read_spec` cannot use).

    >>> parse_config_text('{"model_type": "llama", "num_hidden_layers": 2}')["num_hidden_layers"]
    2
    >>> try:
    ...     parse_config_text('{"model_type": "bert"}')
    ... except Exception as e:
    ...     print(type(e).__name__)
    NotADecoderError
    """
    config = parse_config_json(text, label=label, fix="paste the complete config.json, unchanged.")
    check_decoder_config(config, label=label)
    return config


def pasted_config(text: str | bytes, *, name: str = "pasted config") -> ResolvedConfig:
    """:func:`parse_config_text` as a :class:`ResolvedConfig` with origin ``"pasted"``."""
    return ResolvedConfig(config=parse_config_text(text, label=name), origin="pasted", name=name)


def resolve_config(source: str, *, offline: bool = False, token: str | None = None, revision: str | None = None,
                   timeout: float = DEFAULT_TIMEOUT, allow_files: bool = False,
                   shared_token: bool = False) -> ResolvedConfig:
    """Resolve a bundled name, Hub id or (with ``allow_files``) local path to a validated config.

    See the module docstring for the order and the fallbacks. ``token`` is sent to the Hub only
    (never stored or shown); ``revision`` applies to Hub fetches; ``timeout`` bounds the Hub
    fetch (seconds). ``shared_token``: the token is the operator's, shared by every visitor, so
    private repositories are refused (:class:`~kvcalc.hub.PrivateRepoError`; gated public ones
    are fine). Raises a :class:`SourceError` subclass (all are :class:`KVCalcError`).
    """
    if not isinstance(source, str) or not source.strip():
        raise InvalidRepoIdError("no model given: pick a bundled model, enter a Hub id such as "
                                 "meta-llama/Llama-3.1-8B, or paste a config.json.")
    text = source.strip()
    entry = find_entry(text)
    if allow_files and _looks_like_path(text) and (entry is None or os.path.exists(os.path.expanduser(text))):
        return _from_file(text, timeout)
    if offline:
        if entry is None:
            validate_hub_id(text)
            raise NotBundledError(f"'{shown(text)}' is not in the bundled catalog and offline mode is on: turn "
                                  "offline mode off to fetch it from the Hub, or paste its config.json.")
        note = None if not revision else (f"offline: using the bundled snapshot of {entry.hub_id}; revision "
                                          f"'{shown(revision)}' was not checked")
        return _bundled(entry, note)

    repo_id = entry.hub_id if entry is not None else text
    failure: SourceError
    try:
        hub = fetch_hub_config(repo_id, revision=revision, token=token, timeout=timeout, shared_token=shared_token)
    except HubUnavailableError as e:
        if entry is None:
            raise
        failure = e
    except GatedModelError as e:
        if entry is None:
            raise
        failure = e
    else:
        return ResolvedConfig(config=hub.config, origin="hub", name=hub.repo_id,
                              gated=entry.gated if entry is not None else None,
                              revision=hub.revision, commit=hub.commit)
    return _bundled(entry, _fallback_notice(entry, failure, revision), gated=True if isinstance(
        failure, GatedModelError) else None)


def _fallback_notice(entry: CatalogEntry, failure: SourceError, revision: str | None) -> str:
    rev = f"; revision '{shown(revision)}' was not checked" if revision else ""
    if isinstance(failure, GatedModelError):
        why = "the token given has no access yet" if failure.token_given else "no token was given"
        page = f"{hub_endpoint()}/{entry.hub_id}"
        return (f"{entry.hub_id} is gated on the Hub and {why}: using the bundled snapshot of its config{rev}. "
                f"For the live file, accept the license on {page} and provide a token via {TOKEN_SOURCES}.")
    reason = getattr(failure, "reason", "unreachable")
    return f"Hub unreachable ({reason}): using the bundled snapshot of {entry.hub_id}{rev}"


def _bundled(entry: CatalogEntry, notice: str | None, gated: bool | None = None) -> ResolvedConfig:
    config = bundled_config(entry.hub_id)
    check_decoder_config(config, label=f"bundled config of '{entry.hub_id}'", repo_id=entry.hub_id)
    return ResolvedConfig(config=config, origin="bundled", name=entry.hub_id, notice=notice,
                          gated=entry.gated if gated is None else gated)


def _looks_like_path(text: str) -> bool:
    """Whether ``text`` is meant as a local path rather than a Hub id."""
    if os.path.exists(os.path.expanduser(text)):
        return True
    return (text.lower().endswith(".json") or text.startswith(("/", "./", "../", "~", ".\\", "..\\"))
            or "\\" in text or os.path.isabs(text))


WAIT_NOTICE_S = 2.0       # seconds without a byte before a pipe or terminal reader says what it waits for
_CHUNK = 1 << 16


def read_config_fd(fd: int, label: str, *, timeout: float = DEFAULT_TIMEOUT) -> bytes:
    """At most :data:`MAX_CONFIG_BYTES` bytes read from ``fd`` until end of file, in at most ``timeout`` s.

    For a pipe, FIFO, terminal or device (anything but a regular file) the bytes are awaited with
    ``select``: after :data:`WAIT_NOTICE_S` s with nothing, one warning on the ``kvcalc`` logger
    says what is awaited (shown on stderr by default); at ``timeout`` s in all it gives up with
    :class:`ConfigFileError`. The cap applies while reading: an endless stream stops at 16 MiB + 1
    byte with :class:`ConfigTooLargeError`. Regular files never block and are read directly."""
    import select
    import stat
    import time

    st = os.fstat(fd)
    regular = stat.S_ISREG(st.st_mode)
    if regular and st.st_size > MAX_CONFIG_BYTES:
        raise config_too_large(label, st.st_size)
    waits = not regular and os.name != "nt"           # select() takes no pipes or files on Windows
    start = time.monotonic()
    deadline, notice_at = start + timeout, start + WAIT_NOTICE_S
    chunks: list[bytes] = []
    size = 0
    while True:
        if waits:
            now = time.monotonic()
            if now >= deadline:
                got = f"{label} sent {size:,} bytes but did not end" if size else f"nothing arrived on {label}"
                raise ConfigFileError(f"{got} within {timeout:g} s: the writer must send the whole config.json "
                                      "and close it (end of file); raise the timeout (--timeout) for a slow one.")
            until = notice_at if notice_at and not size and notice_at < deadline else deadline
            if not select.select([fd], [], [], max(0.0, until - now))[0]:
                if notice_at and not size and time.monotonic() >= notice_at:
                    notice_at = 0.0
                    logging.getLogger("kvcalc").warning(
                        "waiting for a config.json on %s (nothing yet; giving up after %g s)", label, timeout)
                continue
        try:
            chunk = os.read(fd, min(_CHUNK, MAX_CONFIG_BYTES + 1 - size))
        except BlockingIOError:
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_CONFIG_BYTES:
            raise ConfigTooLargeError(f"{label} sent more than {MAX_CONFIG_BYTES:,} bytes (reading stopped there), "
                                      f"over the {MAX_CONFIG_BYTES >> 20} MiB limit: a config.json is a few KiB; "
                                      "make sure it is the "
                                      "model's config.json, not its weights, tokenizer or an index file.")


def _from_file(text: str, timeout: float = DEFAULT_TIMEOUT) -> ResolvedConfig:
    """A local config file, FIFO or ``<(process substitution)``: :func:`read_config_fd` with its bounds."""
    path = os.path.expanduser(text)
    if os.path.isdir(path):
        path = os.path.join(path, CONFIG_FILENAME)
    label = f"config file '{shown(path, 80)}'"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))   # a FIFO opens without a writer
        try:
            data = read_config_fd(fd, label, timeout=timeout)
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise ConfigFileError(f"{label} does not exist: check the path, or give a Hub id such as "
                              "meta-llama/Llama-3.1-8B.") from None
    except OSError as e:
        raise ConfigFileError(f"cannot read {label} ({e.strerror or type(e).__name__}): check the path and "
                              "its permissions.") from None
    config = parse_config_json(data, label=label, fix="check that the file is the model's complete config.json.")
    check_decoder_config(config, label=label)
    return ResolvedConfig(config=config, origin="file", name=path)
