"""Fetch a model's ``config.json`` and safetensors parameter counts from the Hugging Face Hub.

Everything goes through ``huggingface_hub`` (no hand-written HTTP). Nothing from the Hub is ever
executed: only ``config.json`` is downloaded and parsed as JSON (no ``trust_remote_code``).

Endpoint, cache, token
    The endpoint is ``HF_ENDPOINT`` read from ``os.environ`` at each call (huggingface_hub reads it
    only at import), default ``https://huggingface.co``. Files are cached in a folder of our own,
    ``$KVCALC_HUB_CACHE`` or ``<user cache>/kvcalc/hub`` (``$XDG_CACHE_HOME`` or ``~/.cache``),
    never the global Hugging Face cache. The token is whatever the caller passes (see
    :func:`token_from_env`); ``None`` sends no token at all (huggingface_hub's implicit
    ``HF_TOKEN`` / ``hf auth login`` lookup is switched off). The token never appears in a returned
    object, an exception (message, repr, cause or context) or a log record of this module.

Timeouts (huggingface_hub 2.4, read off ``file_download.py`` and ``utils/_http.py``)
    ``hf_hub_download(etag_timeout=t)`` bounds only its *first* HEAD request. When that HEAD times
    out, cannot connect or gets a 5xx/429 and no cached copy exists, it retries the HEAD with a
    hard-coded 60 s timeout (``file_download._ETAG_RETRY_TIMEOUT``) up to 5 more times with 1-8 s
    back-off (a 500 alone costs ~23 s); the GET then uses ``constants.HF_HUB_DOWNLOAD_TIMEOUT``
    (10 s, read from the environment at import) per read, with up to 5 resumes. The shared httpx
    client has ``timeout=None``. So :func:`fetch_hub_config` first sends one bounded HEAD through
    ``get_hf_file_metadata(timeout=timeout)`` (no retries: it also gives precise errors, where
    ``hf_hub_download`` would wrap a timeout or a 5xx into ``LocalEntryNotFoundError``), then runs
    ``hf_hub_download`` in a daemon thread and stops waiting at the same overall deadline. The
    whole fetch therefore returns or raises within about ``timeout`` seconds (a download thread
    that overran finishes or fails on its own in the background). ``HfApi.model_info`` sends a
    single GET with ``timeout`` and no retries, so :func:`fetch_weight_info` needs no thread.

In-process cache
    Results are cached per (endpoint, repo, revision, token identity) for :data:`CACHE_TTL_S`,
    and errors for :data:`ERROR_TTL_S` so that a page re-run does not wait for the same timeout
    again. The token identity is an HMAC of the token under a random per-process key: a token
    is never stored, and two users with different tokens never share a private repo's file.
    :func:`clear_cache` empties it.
"""
from __future__ import annotations

import copy
import hashlib
import hmac
import json
import logging
import math
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

from .architectures import read_spec
from .catalog import find_entry
from .errors import ConfigError, InputError, KVCalcError

logger = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://huggingface.co"
CONFIG_FILENAME = "config.json"
DEFAULT_TIMEOUT = 10.0
MAX_TIMEOUT = 300.0
MAX_CONFIG_BYTES = 1 << 20          # 1 MiB: real config.json files are a few KiB (the largest bundled: 5 KiB)
MAX_JSON_DEPTH = 64                 # nesting levels; real configs use 3-4
CACHE_TTL_S = 3600.0
ERROR_TTL_S = 30.0
CACHE_MAX_ENTRIES = 256
TOKEN_SOURCES = "HF_TOKEN, Streamlit secrets or the token field"

# Bits per element of each safetensors dtype (the names the Hub's "safetensors.parameters" uses).
SAFETENSORS_DTYPE_BITS: dict[str, int] = {
    "F64": 64, "I64": 64, "U64": 64,
    "F32": 32, "I32": 32, "U32": 32,
    "F16": 16, "BF16": 16, "I16": 16, "U16": 16,
    "F8_E4M3": 8, "F8_E5M2": 8, "F8_E8M0": 8, "I8": 8, "U8": 8, "BOOL": 8,
    "F6_E2M3": 6, "F6_E3M2": 6, "F4": 4,
}

_REVISION_RE = re.compile(r"[\x21-\x7e]{1,255}")
_TOKEN_RE = re.compile(r"[\x21-\x7e]{1,1024}")
_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]+")
_CACHE_KEY = secrets.token_bytes(32)


# ---------------------------------------------------------------------------------------------
# Errors: one line each, saying what happened and what to do.
# ---------------------------------------------------------------------------------------------
class SourceError(KVCalcError):
    """A model config could not be obtained from its source (Hub, file, pasted text)."""

    def __init__(self, message: str, *, repo_id: str | None = None):
        super().__init__(message)
        self.repo_id = repo_id


class InvalidRepoIdError(SourceError, ValueError):
    """The text is not a Hub model id by the Hub's own rules (checked before any request)."""


class InvalidRevisionError(SourceError, ValueError):
    """The revision is not something a branch, tag or commit can be named."""


class InvalidTokenError(SourceError, ValueError):
    """The token has characters no Hub token has (it could not even be sent in a header)."""


class RepoNotFoundError(SourceError):
    """No such repository, or a private one the request may not see (HTTP 401/404)."""


class RevisionNotFoundError(SourceError):
    """The repository exists but not the requested branch, tag or commit."""


class AccessDeniedError(SourceError):
    """The Hub refused access (HTTP 401/403): missing or rejected token, or a disabled repo."""

    def __init__(self, message: str, *, repo_id: str | None = None, status: int | None = None):
        super().__init__(message, repo_id=repo_id)
        self.status = status


class GatedModelError(AccessDeniedError):
    """The repository is gated: its license must be accepted and a token with access given."""

    def __init__(self, message: str, *, repo_id: str | None = None, status: int | None = None,
                 token_given: bool = False, bundled: bool = False):
        super().__init__(message, repo_id=repo_id, status=status)
        self.token_given = token_given
        self.bundled = bundled


class NoConfigError(SourceError):
    """The repository has no config.json (e.g. GGUF-only or non-transformers repositories)."""


class HubUnavailableError(SourceError):
    """The Hub could not be used at all (network, timeout, server error): a fallback may apply.

    ``reason`` is a short phrase for notices ("timed out after 10 s").
    """

    def __init__(self, message: str, *, repo_id: str | None = None, reason: str = "unreachable"):
        super().__init__(message, repo_id=repo_id)
        self.reason = reason


class HubServerError(HubUnavailableError):
    """The Hub answered with a server error (5xx) or rate limit (429)."""

    def __init__(self, message: str, *, repo_id: str | None = None, reason: str = "server error",
                 status: int | None = None):
        super().__init__(message, repo_id=repo_id, reason=reason)
        self.status = status


class HubTimeoutError(HubUnavailableError):
    """The Hub did not answer within the timeout."""


class HubOfflineError(HubUnavailableError):
    """No network connection to the Hub, or offline mode (``HF_HUB_OFFLINE``) is on."""


class NotBundledError(SourceError):
    """Offline was asked for, and the model is not in the bundled catalog."""


class ConfigFileError(SourceError):
    """A local config path does not exist or cannot be read."""


class ConfigTextError(SourceError, ValueError):
    """The config text (Hub file, local file or pasted) is not a usable JSON object."""


class ConfigJSONError(ConfigTextError):
    """Not valid JSON, or not UTF-8 text."""


class ConfigTooLargeError(ConfigTextError):
    """Over :data:`MAX_CONFIG_BYTES`."""


class ConfigTooDeepError(ConfigTextError):
    """Nested deeper than :data:`MAX_JSON_DEPTH` levels."""


class ConfigNotObjectError(ConfigTextError):
    """Valid JSON, but not an object."""


class InvalidConfigError(SourceError, ConfigError):
    """The config is JSON but :func:`kvcalc.read_spec` rejects it (wraps its :class:`ConfigError`).

    Still a :class:`ConfigError`: ``field``, ``value`` and ``problem`` are those of the original.
    """

    def __init__(self, message: str, error: ConfigError, *, repo_id: str | None = None):
        KVCalcError.__init__(self, message)
        self.repo_id = repo_id
        self.field = error.field
        self.value = error.value
        self.problem = error.problem


class NotADecoderError(InvalidConfigError):
    """An encoder or vision model (BERT, ViT, ...): it has no decoder KV cache to plan."""


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HubConfig:
    """A config.json fetched from the Hub. ``revision`` as asked (None: default branch);
    ``commit`` the commit the Hub served; ``authenticated``: whether a token was sent."""

    config: dict[str, Any] = field(repr=False)
    repo_id: str
    revision: str | None
    commit: str | None
    endpoint: str
    authenticated: bool


@dataclass(frozen=True)
class HubWeightInfo:
    """The Hub's safetensors metadata of a repository: parameter counts by dtype.

    ``parameters`` maps safetensors dtype names (``BF16``, ``F8_E4M3``, ``U8``, ...) to element
    counts; ``total`` is their sum as the Hub reports it. ``gated`` as the Hub reports it (None
    if it does not say).
    """

    repo_id: str
    revision: str | None
    commit: str | None
    total: int
    parameters: dict[str, int]
    gated: bool | None

    @property
    def weight_bytes(self) -> int | None:
        """Exact bytes of the safetensors tensors, or None if a dtype's width is unknown."""
        return safetensors_weight_bytes(self.parameters)


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------
def token_from_env() -> str | None:
    """``HF_TOKEN`` from the environment, or None when unset or blank."""
    value = os.environ.get("HF_TOKEN", "").strip()
    return value or None


def hub_endpoint() -> str:
    """The Hub endpoint in effect now: ``HF_ENDPOINT`` (read at call time) or the public Hub."""
    value = os.environ.get("HF_ENDPOINT", "").strip().rstrip("/")
    return value or DEFAULT_ENDPOINT


def hub_cache_dir() -> str:
    """Our own download cache: ``$KVCALC_HUB_CACHE``, else ``<user cache>/kvcalc/hub``."""
    override = os.environ.get("KVCALC_HUB_CACHE", "").strip()
    if override:
        return os.path.expanduser(override)
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kvcalc", "hub")


def offline_mode_env() -> bool:
    """Whether ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) is set to a true value right now."""
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.strip().upper() in {"1", "ON", "YES", "TRUE"}


def shown(text: Any, limit: int = 60) -> str:
    """``text`` made safe for a one-line message: printable, at most ``limit`` characters."""
    s = "".join(ch if ch.isprintable() else "?" for ch in str(text))
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _repo_id_problem(repo_id: str) -> str | None:
    """Why ``repo_id`` breaks the Hub's rules (huggingface_hub.utils.validate_repo_id), or None."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError:
        pass
    else:
        return None
    # validate_repo_id said no: say why, in our words (its message echoes the raw text).
    if repo_id.count("/") > 1:
        return "it has more than one '/'"
    if "--" in repo_id or ".." in repo_id:
        return "'--' and '..' are not allowed"
    parts = repo_id.split("/")
    if any(len(p) > 96 for p in parts):
        return "each part may have at most 96 characters"
    if any(not p for p in parts):
        return "the organization and the model name must not be empty"
    if any(not _NAME_RE.fullmatch(p) for p in parts):
        return "only letters, digits, '-', '_' and '.' are allowed"
    if repo_id.endswith(".git"):
        return "it cannot end in '.git'"
    return "names cannot start or end with '-' or '.'"


def validate_hub_id(repo_id: Any) -> str:
    """``repo_id`` stripped, if it is a valid Hub model id; else :class:`InvalidRepoIdError`.

    Uses huggingface_hub's own rule (``validate_repo_id``: 'name' or 'org/name', ASCII letters,
    digits, '-', '_', '.', no '--' or '..', at most 96 characters a part, no '.git' ending) and
    is checked before any request is made.
    """
    if not isinstance(repo_id, str) or not repo_id.strip():
        problem = "it is empty"
        text = "" if not isinstance(repo_id, str) else repo_id
    else:
        text = repo_id.strip()
        problem = _repo_id_problem(text)
        if problem is None:
            return text
    raise InvalidRepoIdError(f"'{shown(text)}' is not a valid Hugging Face model id: {problem}. Use the form "
                             "'organization/model-name', e.g. meta-llama/Llama-3.1-8B.")


def _check_revision(revision: Any) -> str | None:
    if revision is None:
        return None
    if isinstance(revision, str) and not revision.strip():
        return None
    if not isinstance(revision, str) or not _REVISION_RE.fullmatch(revision.strip()):
        raise InvalidRevisionError(f"'{shown(revision)}' is not a valid revision: use a branch, tag or commit "
                                   "name (no spaces), or leave it empty for the default branch.")
    return revision.strip()


def _check_token(token: Any) -> str | None:
    """A usable token or None (blank counts as none). The message never shows the token."""
    if token is None:
        return None
    if not isinstance(token, str):
        raise InvalidTokenError("the Hugging Face token must be text: set it again via " + TOKEN_SOURCES + ".")
    token = token.strip()
    if not token:
        return None
    if not _TOKEN_RE.fullmatch(token):
        raise InvalidTokenError("the Hugging Face token contains spaces, line breaks or non-ASCII characters, "
                                "which no token has: copy it again from your Hub settings (Access Tokens) and "
                                "set it via " + TOKEN_SOURCES + ".")
    return token


def _check_timeout(timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
            or not 0 < timeout <= MAX_TIMEOUT:
        raise InputError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}]")
    return float(timeout)


def token_identity(token: str | None) -> str | None:
    """A cache key for ``token``: an HMAC under a random per-process key (None for no token).

    Tells tokens apart without storing them and cannot be turned back into one; use it wherever a
    cache must separate users (e.g. ``st.cache_data`` arguments) instead of the token itself.
    """
    if isinstance(token, str):
        token = token.strip() or None
    if token is None:
        return None
    return hmac.new(_CACHE_KEY, token.encode(), hashlib.sha256).hexdigest()


def _fmt_seconds(seconds: float) -> str:
    return f"{seconds:g} s"


# ---------------------------------------------------------------------------------------------
# Config text -> dict, shared by Hub files, local files and pasted text
# ---------------------------------------------------------------------------------------------
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


def config_too_large(label: str, size: int, *, repo_id: str | None = None) -> ConfigTooLargeError:
    """The error for config text of ``size`` bytes, over :data:`MAX_CONFIG_BYTES`."""
    return ConfigTooLargeError(
        f"{label} is {size:,} bytes, over the {MAX_CONFIG_BYTES // (1 << 20)} MiB limit: a config.json is a few "
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


# ---------------------------------------------------------------------------------------------
# In-process cache
# ---------------------------------------------------------------------------------------------
_T = TypeVar("_T")


class _TTLCache:
    """A small LRU of (value or error) with per-entry expiry, safe across threads."""

    def __init__(self, max_entries: int):
        self._data: OrderedDict[tuple[Any, ...], tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def get(self, key: tuple[Any, ...]) -> tuple[bool, Any]:
        with self._lock:
            item = self._data.get(key)
            if item is None:
                return False, None
            expires, value = item
            if time.monotonic() >= expires:
                del self._data[key]
                return False, None
            self._data.move_to_end(key)
            return True, value

    def put(self, key: tuple[Any, ...], value: Any, ttl: float) -> None:
        with self._lock:
            self._data[key] = (time.monotonic() + ttl, value)
            self._data.move_to_end(key)
            while len(self._data) > self._max:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


_CACHE = _TTLCache(CACHE_MAX_ENTRIES)


def clear_cache() -> None:
    """Forget every cached Hub result and error (e.g. after accepting a license)."""
    _CACHE.clear()


def _cached(key: tuple[Any, ...], fetch: Callable[[], _T]) -> _T:
    """``fetch()`` through the cache; results are deep-copied so callers cannot alter the cache."""
    hit, value = _CACHE.get(key)
    if not hit:
        try:
            value = fetch()
        except SourceError as e:
            _CACHE.put(key, e, ERROR_TTL_S)
            raise
        _CACHE.put(key, value, CACHE_TTL_S)
    elif isinstance(value, SourceError):
        raise _fresh(value)
    return copy.deepcopy(value)


def _fresh(error: SourceError) -> SourceError:
    """A new instance equal to a cached error, so re-raising never chains onto the cached one."""
    new = type(error).__new__(type(error), *error.args)
    Exception.__init__(new, *error.args)
    new.__dict__.update(error.__dict__)
    return new


# ---------------------------------------------------------------------------------------------
# huggingface_hub errors -> ours
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Ctx:
    repo_id: str
    revision: str | None
    endpoint: str
    token_given: bool
    timeout: float


class _DeadlineExceeded(Exception):
    """The download thread did not finish within the overall timeout."""


def _gated_message(ctx: _Ctx, bundled: bool) -> str:
    page = f"{ctx.endpoint}/{ctx.repo_id}"
    if ctx.token_given:
        msg = (f"'{ctx.repo_id}' is gated and the token given has no access to it yet: accept its license on {page} "
               "with the account that owns the token (approval can take a while), then retry.")
    else:
        msg = (f"'{ctx.repo_id}' is gated: accept its license on {page} while logged in, then provide a read "
               f"token via {TOKEN_SOURCES}.")
    if bundled:
        msg += f" Meanwhile the bundled snapshot of {ctx.repo_id} works without a token."
    return msg


def _status(error: BaseException) -> int | None:
    response = getattr(error, "response", None)
    return getattr(response, "status_code", None)


def _map_error(error: BaseException, ctx: _Ctx) -> SourceError:
    """Our typed error for anything raised while talking to the Hub. Never copies the original's text."""
    from huggingface_hub import errors as hf

    try:
        import httpx2 as httpx  # huggingface_hub >= 2
    except ImportError:  # pragma: no cover - older huggingface_hub
        import httpx  # type: ignore[no-redef]

    rid = ctx.repo_id
    if isinstance(error, SourceError):
        return error
    if isinstance(error, _DeadlineExceeded) or isinstance(error, httpx.TimeoutException):
        return HubTimeoutError(f"the Hugging Face Hub did not answer within {_fmt_seconds(ctx.timeout)} for "
                               f"'{rid}': check your connection and retry, or use the bundled catalog or a pasted "
                               "config.json meanwhile.", repo_id=rid,
                               reason=f"no answer within {_fmt_seconds(ctx.timeout)}")
    if isinstance(error, hf.OfflineModeIsEnabled):
        return _offline_mode_error(rid)
    if isinstance(error, hf.GatedRepoError):
        entry = find_entry(rid)
        return GatedModelError(_gated_message(ctx, entry is not None), repo_id=rid, status=_status(error),
                               token_given=ctx.token_given, bundled=entry is not None)
    if isinstance(error, hf.RepositoryNotFoundError):
        if ctx.token_given:
            return RepoNotFoundError(f"'{rid}' was not found on the Hugging Face Hub, or the token given has no "
                                     "access to it: check the spelling (organization/model-name) and the token's "
                                     "permissions.", repo_id=rid)
        return RepoNotFoundError(f"'{rid}' was not found on the Hugging Face Hub: check the spelling "
                                 "(organization/model-name); if the repository is private, provide a read token "
                                 f"via {TOKEN_SOURCES}.", repo_id=rid)
    if isinstance(error, hf.RevisionNotFoundError):
        return RevisionNotFoundError(f"revision '{shown(ctx.revision)}' does not exist in '{rid}': use one of its "
                                     "branches, tags or commits, or leave the revision empty for the default "
                                     "branch.", repo_id=rid)
    if isinstance(error, getattr(hf, "RemoteEntryNotFoundError", hf.EntryNotFoundError)):
        at = f" at revision '{shown(ctx.revision)}'" if ctx.revision else ""
        return NoConfigError(f"'{rid}' has no config.json{at} (GGUF-only and other non-transformers repositories "
                             "have none): use the original transformers repository the weights come from, or "
                             "paste its config.json.", repo_id=rid)
    if isinstance(error, getattr(hf, "DisabledRepoError", ())):
        return AccessDeniedError(f"'{rid}' has been disabled on the Hugging Face Hub: choose another model.",
                                 repo_id=rid, status=_status(error))
    if isinstance(error, hf.HfHubHTTPError):
        status = _status(error)
        if status == 401:
            if ctx.token_given:
                return AccessDeniedError(f"the Hugging Face Hub rejected the token given for '{rid}' (HTTP 401): "
                                         "check that it is a valid, unexpired read token and set it again via "
                                         f"{TOKEN_SOURCES}.", repo_id=rid, status=401)
            return AccessDeniedError(f"'{rid}' needs authentication (HTTP 401): provide a read token via "
                                     f"{TOKEN_SOURCES}.", repo_id=rid, status=401)
        if status == 403:
            return AccessDeniedError(f"access to '{rid}' is forbidden (HTTP 403): check that your token has read "
                                     f"access to this repository and set it via {TOKEN_SOURCES}.",
                                     repo_id=rid, status=403)
        if status == 404:
            return RepoNotFoundError(f"'{rid}' was not found on the Hugging Face Hub (HTTP 404): check the spelling "
                                     "(organization/model-name).", repo_id=rid)
        if status == 429:
            return HubServerError(f"the Hugging Face Hub is rate-limiting requests (HTTP 429) for '{rid}': wait a "
                                  "minute and retry; authenticated requests get higher limits.", repo_id=rid,
                                  reason="rate-limited, HTTP 429", status=429)
        if status is not None and status >= 500:
            return HubServerError(f"the Hugging Face Hub answered HTTP {status} for '{rid}' (a server-side "
                                  "problem): retry in a few minutes, or use the bundled catalog or a pasted "
                                  "config.json meanwhile.", repo_id=rid, reason=f"server error HTTP {status}",
                                  status=status)
        return SourceError(f"the Hugging Face Hub answered HTTP {status} for '{rid}': check the model id and "
                           "retry.", repo_id=rid)
    if isinstance(error, getattr(hf, "FileMetadataError", ())):
        return _not_a_hub(ctx)
    if isinstance(error, hf.LocalEntryNotFoundError):
        # hf_hub_download wraps the failed HEAD call; type the cause instead when there is one.
        cause = error.__cause__
        if cause is not None and cause is not error:
            return _map_error(cause, ctx)
        return _no_network(ctx)
    if isinstance(error, getattr(httpx, "ProxyError", ())):
        return HubOfflineError(f"the proxy refused the connection to the Hugging Face Hub at {ctx.endpoint}: check "
                               "HTTPS_PROXY / HTTP_PROXY, or use the bundled catalog or a pasted config.json.",
                               repo_id=rid, reason="proxy error")
    if isinstance(error, (httpx.TransportError, ConnectionError)):
        return _no_network(ctx)
    if isinstance(error, OSError):
        return SourceError(f"cannot write the download cache {shown(hub_cache_dir(), 80)} "
                           f"({type(error).__name__}): set KVCALC_HUB_CACHE to a writable folder.", repo_id=rid)
    return SourceError(f"unexpected {type(error).__name__} while fetching '{rid}' from the Hugging Face Hub: retry, "
                       "or use the bundled catalog or a pasted config.json.", repo_id=rid)


def _no_network(ctx: _Ctx) -> HubOfflineError:
    return HubOfflineError(f"cannot reach the Hugging Face Hub at {ctx.endpoint} (no network connection, or the "
                           "host refused it): check your connection, proxy or HF_ENDPOINT, or use the bundled "
                           "catalog or a pasted config.json.", repo_id=ctx.repo_id, reason="no network connection")


def _not_a_hub(ctx: _Ctx) -> HubUnavailableError:
    return HubUnavailableError(f"{ctx.endpoint} answered without the Hub's file headers for '{ctx.repo_id}': check "
                               "HF_ENDPOINT, your proxy or firewall, or use the bundled catalog or a pasted "
                               "config.json.", repo_id=ctx.repo_id, reason="not a Hub endpoint")


def _offline_mode_error(repo_id: str) -> HubOfflineError:
    return HubOfflineError(f"offline mode is on (HF_HUB_OFFLINE), so '{repo_id}' cannot be fetched from the Hub: "
                           "unset HF_HUB_OFFLINE, or use the bundled catalog or a pasted config.json.",
                           repo_id=repo_id, reason="offline mode is on")


def _call_with_deadline(fn: Callable[[], _T], seconds: float) -> _T:
    """``fn()`` in a daemon thread; :class:`_DeadlineExceeded` if it has not finished in ``seconds``."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e
        finally:
            done.set()

    threading.Thread(target=run, name="kvcalc-hub-download", daemon=True).start()
    if not done.wait(max(seconds, 0.0)):
        raise _DeadlineExceeded()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _run(ctx: _Ctx, work: Callable[[], _T]) -> _T:
    """``work()`` with every failure turned into our error, raised outside the ``except`` block
    so that neither ``__cause__`` nor ``__context__`` keeps huggingface_hub's request (and its
    Authorization header) alive."""
    if offline_mode_env():
        raise _offline_mode_error(ctx.repo_id)
    try:
        return work()
    except Exception as e:  # noqa: BLE001 - every failure is typed below
        mapped = _map_error(e, ctx)
    mapped.__traceback__ = None
    raise mapped


# ---------------------------------------------------------------------------------------------
# Public fetchers
# ---------------------------------------------------------------------------------------------
def fetch_hub_config(repo_id: str, *, revision: str | None = None, token: str | None = None,
                     timeout: float = DEFAULT_TIMEOUT, cache_dir: str | None = None) -> HubConfig:
    """Download and validate ``config.json`` of ``repo_id`` (a decoder LLM) from the Hub.

    ``revision``: branch, tag or commit (None: default branch). ``token``: sent as
    ``Authorization: Bearer``; None sends none. Returns within about ``timeout`` seconds (see the
    module docstring). Raises a :class:`SourceError` subclass: :class:`InvalidRepoIdError` (before
    any request), :class:`RepoNotFoundError`, :class:`RevisionNotFoundError`,
    :class:`GatedModelError`, :class:`AccessDeniedError`, :class:`NoConfigError`,
    :class:`HubServerError`, :class:`HubTimeoutError`, :class:`HubOfflineError`,
    :class:`ConfigJSONError` (and the other :class:`ConfigTextError`), :class:`NotADecoderError` /
    :class:`InvalidConfigError`. Cached in-process (see :func:`clear_cache`).
    """
    repo_id = validate_hub_id(repo_id)
    revision = _check_revision(revision)
    tok = _check_token(token)
    timeout = _check_timeout(timeout)
    endpoint = hub_endpoint()
    folder = cache_dir or hub_cache_dir()
    ctx = _Ctx(repo_id, revision, endpoint, tok is not None, timeout)
    key = ("config", endpoint, repo_id, revision, token_identity(tok), os.path.abspath(folder))
    return _cached(key, lambda: _fetch_config(ctx, tok, folder))


def _fetch_config(ctx: _Ctx, token: str | None, cache_dir: str) -> HubConfig:
    from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url

    logger.debug("fetching %s of %s (revision %s, authenticated: %s) from %s", CONFIG_FILENAME, ctx.repo_id,
                 ctx.revision or "default", ctx.token_given, ctx.endpoint)
    send: str | bool = token if token is not None else False   # False: no implicit token lookup
    deadline = time.monotonic() + ctx.timeout
    label = f"config.json of '{ctx.repo_id}'"

    def work() -> tuple[bytes, str | None]:
        url = hf_hub_url(ctx.repo_id, CONFIG_FILENAME, revision=ctx.revision, endpoint=ctx.endpoint)
        # One bounded HEAD, no retries: typed errors, and no 60 s retry loop (module docstring).
        meta = get_hf_file_metadata(url, token=send, timeout=ctx.timeout, endpoint=ctx.endpoint)
        if meta.commit_hash is None or meta.etag is None:
            raise _not_a_hub(ctx)
        if meta.size is not None and meta.size > MAX_CONFIG_BYTES:      # do not even download it
            raise config_too_large(label, meta.size, repo_id=ctx.repo_id)
        left = deadline - time.monotonic()
        if left <= 0:
            raise _DeadlineExceeded()
        path = _call_with_deadline(
            lambda: hf_hub_download(ctx.repo_id, CONFIG_FILENAME, revision=ctx.revision, token=send,
                                    cache_dir=cache_dir, etag_timeout=left, endpoint=ctx.endpoint), left)
        size = os.path.getsize(path)
        if size > MAX_CONFIG_BYTES:
            raise config_too_large(label, size, repo_id=ctx.repo_id)
        with open(path, "rb") as f:
            return f.read(), meta.commit_hash

    data, commit = _run(ctx, work)
    config = parse_config_json(data, label=label, repo_id=ctx.repo_id,
                               fix="the file in the repository is broken; paste a corrected config.json instead.")
    check_decoder_config(config, label=label, repo_id=ctx.repo_id)
    return HubConfig(config=config, repo_id=ctx.repo_id, revision=ctx.revision, commit=commit,
                     endpoint=ctx.endpoint, authenticated=ctx.token_given)


def fetch_weight_info(repo_id: str, *, revision: str | None = None, token: str | None = None,
                      timeout: float = DEFAULT_TIMEOUT) -> HubWeightInfo | None:
    """Parameter counts by dtype from the Hub's safetensors metadata (``HfApi.model_info``).

    None when the repository has no safetensors metadata (e.g. .bin or GGUF only). Raises the
    same errors as :func:`fetch_hub_config` for the request itself. Cached in-process.
    """
    repo_id = validate_hub_id(repo_id)
    revision = _check_revision(revision)
    tok = _check_token(token)
    timeout = _check_timeout(timeout)
    endpoint = hub_endpoint()
    ctx = _Ctx(repo_id, revision, endpoint, tok is not None, timeout)
    key = ("weights", endpoint, repo_id, revision, token_identity(tok))
    return _cached(key, lambda: _fetch_weight_info(ctx, tok))


def _fetch_weight_info(ctx: _Ctx, token: str | None) -> HubWeightInfo | None:
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    send: str | bool = token if token is not None else False

    def work() -> Any:
        api = HfApi(endpoint=ctx.endpoint, token=False)
        try:
            # One GET with this timeout; model_info makes no retries.
            return api.model_info(ctx.repo_id, revision=ctx.revision, token=send, timeout=ctx.timeout,
                                  expand=["safetensors", "sha", "gated"])
        except HfHubHTTPError:
            raise
        except (ValueError, KeyError, TypeError):   # not JSON, or fields of unexpected shapes
            raise HubServerError(f"the Hugging Face Hub sent an unreadable model info answer for '{ctx.repo_id}': "
                                 "retry in a few minutes.", repo_id=ctx.repo_id, reason="unreadable answer") from None

    info = _run(ctx, work)
    st = getattr(info, "safetensors", None)
    if not st:
        return None
    params = st.get("parameters") if isinstance(st, Mapping) else getattr(st, "parameters", None)
    total = st.get("total") if isinstance(st, Mapping) else getattr(st, "total", None)
    if not isinstance(params, Mapping) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for k, v in params.items()):
        return None
    if not isinstance(total, int) or isinstance(total, bool) or total < 0:
        total = sum(params.values())
    gated = getattr(info, "gated", None)
    return HubWeightInfo(repo_id=ctx.repo_id, revision=ctx.revision, commit=getattr(info, "sha", None),
                         total=total, parameters=dict(params),
                         gated=None if gated is None else bool(gated))


def safetensors_weight_bytes(parameters: Mapping[str, int]) -> int | None:
    """Exact bytes of tensors given element counts per safetensors dtype.

    ``{"BF16": n, "F32": m}`` -> ``2 n + 4 m``. Widths: F64/I64/U64 8, F32/I32/U32 4,
    F16/BF16/I16/U16 2, F8_E4M3/F8_E5M2/F8_E8M0/I8/U8/BOOL 1, F6_* 6 bits, F4 4 bits (safetensors
    stores whole bytes per tensor, so sub-byte totals are whole). None when any dtype is unknown,
    a count is not a non-negative integer, or a sub-byte total is not whole: never a guess.
    """
    total = Fraction(0)
    for dtype, count in parameters.items():
        bits = SAFETENSORS_DTYPE_BITS.get(str(dtype).upper())
        if bits is None or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            return None
        total += Fraction(count * bits, 8)
    return int(total) if total.denominator == 1 else None
