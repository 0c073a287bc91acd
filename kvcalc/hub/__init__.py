"""Fetch a model's ``config.json`` and safetensors parameter counts from the Hugging Face Hub.

One module per job: :mod:`~kvcalc.hub.errors` (the typed errors), :mod:`~kvcalc.hub.ids` (checks
of model ids, revisions, tokens, timeouts and of the server's commit / ETag),
:mod:`~kvcalc.hub.config_text` (config text -> dict, for every source), :mod:`~kvcalc.hub.cache`
(the in-process TTL cache), :mod:`~kvcalc.hub.mapping` (huggingface_hub / httpx errors -> ours),
:mod:`~kvcalc.hub.deadline` (one wall-clock deadline for every request of a fetch),
:mod:`~kvcalc.hub.store` (the download folder: the one place a download's path is decided) and
:mod:`~kvcalc.hub.fetch` (the fetchers). This package re-exports what the rest of kvcalc, the
dashboard and the tests use.

Endpoint, cache, token
    The endpoint is ``HF_ENDPOINT`` read from ``os.environ`` at each call, default
    ``https://huggingface.co``. Files are stored in a folder of our own, ``$KVCALC_HUB_CACHE`` or
    ``<user cache>/kvcalc/hub``, never the global Hugging Face cache and never inside the app's
    source tree. The token is whatever the caller passes (see :func:`token_from_env`); ``None``
    sends no token at all. The token never appears in a returned object, an exception (message,
    repr, cause or context) or a log record of this package.

In-process cache
    Results are cached per (endpoint, repo, revision, token identity) for :data:`CACHE_TTL_S`, and
    errors for :data:`ERROR_TTL_S`. The token identity is an HMAC of the token under a random
    per-process key: a token is never stored, and two users with different tokens never share a
    private repo's file. :func:`clear_cache` empties it.
"""
from __future__ import annotations

from .cache import CACHE_MAX_ENTRIES, CACHE_TTL_S, ERROR_TTL_S, clear_cache
from .config_text import (
                          MAX_CONFIG_BYTES,
                          MAX_JSON_DEPTH,
                          _json_depth,
                          check_decoder_config,
                          config_too_large,
                          parse_config_json,
)
from .errors import (
                          TOKEN_SOURCES,
                          AccessDeniedError,
                          ConfigFileError,
                          ConfigJSONError,
                          ConfigNotObjectError,
                          ConfigTextError,
                          ConfigTooDeepError,
                          ConfigTooLargeError,
                          DownloadBrokenError,
                          GatedModelError,
                          HubCacheError,
                          HubOfflineError,
                          HubServerError,
                          HubTimeoutError,
                          HubUnavailableError,
                          ImplausibleWeightInfoError,
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
                          UnsafeHubAnswerError,
)
from .fetch import (
                          DEFAULT_TIMEOUT,
                          SAFETENSORS_DTYPE_BITS,
                          HubConfig,
                          HubWeightInfo,
                          fetch_hub_config,
                          fetch_weight_info,
                          safetensors_weight_bytes,
)
from .ids import (
                          DEFAULT_ENDPOINT,
                          MAX_TIMEOUT,
                          hub_endpoint,
                          offline_mode_env,
                          shown,
                          token_from_env,
                          token_identity,
                          validate_hub_id,
)
from .store import CONFIG_FILENAME, hub_cache_dir

__all__ = [
    "CACHE_MAX_ENTRIES", "CACHE_TTL_S", "CONFIG_FILENAME", "DEFAULT_ENDPOINT", "DEFAULT_TIMEOUT", "ERROR_TTL_S",
    "MAX_CONFIG_BYTES", "MAX_JSON_DEPTH", "MAX_TIMEOUT", "SAFETENSORS_DTYPE_BITS", "TOKEN_SOURCES",
    "AccessDeniedError", "ConfigFileError", "ConfigJSONError", "ConfigNotObjectError", "ConfigTextError",
    "ConfigTooDeepError", "ConfigTooLargeError", "DownloadBrokenError", "GatedModelError", "HubCacheError",
    "HubConfig", "HubOfflineError", "HubServerError", "HubTimeoutError", "HubUnavailableError", "HubWeightInfo",
    "ImplausibleWeightInfoError", "InvalidConfigError", "InvalidRepoIdError", "InvalidRevisionError",
    "InvalidTokenError", "NoConfigError",
    "NotADecoderError", "NotBundledError", "PrivateRepoError", "RepoNotFoundError", "RevisionNotFoundError",
    "SourceError", "UnsafeHubAnswerError", "_json_depth", "check_decoder_config", "clear_cache",
    "config_too_large", "fetch_hub_config", "fetch_weight_info", "hub_cache_dir", "hub_endpoint",
    "offline_mode_env", "parse_config_json", "safetensors_weight_bytes", "shown", "token_from_env",
    "token_identity", "validate_hub_id",
]
