"""The Hub and config-source errors: one class per failure, each a :class:`~kvcalc.errors.KVCalcError`.

Every message is one line that says what happened and what to do; none ever contains a token.
"""
from __future__ import annotations

from ..errors import ConfigError, KVCalcError

TOKEN_SOURCES = "HF_TOKEN, Streamlit secrets or the token field"


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
    """Over :data:`~kvcalc.hub.config_text.MAX_CONFIG_BYTES` (on the wire or decompressed)."""


class ConfigTooDeepError(ConfigTextError):
    """Nested deeper than :data:`~kvcalc.hub.config_text.MAX_JSON_DEPTH` levels."""


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




class PrivateRepoError(AccessDeniedError):
    """A private repository asked for with the operator's shared token, not the visitor's own."""


class UnsafeHubAnswerError(HubUnavailableError):
    """The endpoint answered with a name (ETag, commit) the Hub never uses: nothing is written."""


class ImplausibleWeightInfoError(UnsafeHubAnswerError):
    """The Hub's safetensors metadata counts more parameters than any checkpoint holds (2^200, say): the
    weights are computed from the config instead, with a notice."""


class DownloadBrokenError(HubUnavailableError):
    """The download of the file started but did not complete (connection closed early, bad encoding)."""


class HubCacheError(SourceError):
    """Our download folder cannot be written (or is not a folder): a local problem, not the Hub's."""


class NoGGUFFileError(SourceError):
    """The repository has no such .gguf file at that revision."""
