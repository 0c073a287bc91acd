"""huggingface_hub's and httpx's errors -> ours, each one line that never copies the original's text.

``run`` is the one place a network step's failure is typed: it raises the mapped error outside
the ``except`` block so that neither ``__cause__`` nor ``__context__`` keeps huggingface_hub's
request (and its Authorization header) alive.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..catalog import find_entry
from .deadline import DeadlineExceeded
from .errors import (
    TOKEN_SOURCES,
    AccessDeniedError,
    DownloadBrokenError,
    GatedModelError,
    HubOfflineError,
    HubServerError,
    HubTimeoutError,
    HubUnavailableError,
    NoConfigError,
    RepoNotFoundError,
    RevisionNotFoundError,
    SourceError,
)
from .ids import offline_mode_env, shown

USE_INSTEAD = "or use the bundled catalog or a pasted config.json"
_T = TypeVar("_T")


def _fmt_seconds(seconds: float) -> str:
    return f"{seconds:g} s"


@dataclass(frozen=True)
class Ctx:
    repo_id: str
    revision: str | None
    endpoint: str
    token_given: bool
    timeout: float


def _gated_message(ctx: Ctx, bundled: bool) -> str:
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


def map_error(error: BaseException, ctx: Ctx) -> SourceError:
    """Our typed error for anything raised while talking to the Hub. Never copies the original's text."""
    import httpx2 as httpx  # huggingface_hub 2's HTTP client
    from huggingface_hub import errors as hf

    rid = ctx.repo_id
    if isinstance(error, SourceError):
        return error
    if isinstance(error, DeadlineExceeded) or isinstance(error, httpx.TimeoutException):
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
        return _http_error(error, ctx)
    if isinstance(error, getattr(hf, "FileMetadataError", ())):
        return not_a_hub(ctx)
    if isinstance(error, hf.LocalEntryNotFoundError):
        # hf_hub_download wraps the failed HEAD call; type the cause instead when there is one.
        cause = error.__cause__
        if cause is not None and cause is not error:
            return map_error(cause, ctx)
        return _no_network(ctx)
    if isinstance(error, getattr(httpx, "ProxyError", ())):
        return HubOfflineError(f"the proxy refused the connection to the Hugging Face Hub at {ctx.endpoint}: check "
                               "HTTPS_PROXY / HTTP_PROXY, or use the bundled catalog or a pasted config.json.",
                               repo_id=rid, reason="proxy error")
    if isinstance(error, (httpx.TransportError, ConnectionError)):
        return _no_network(ctx)
    if isinstance(error, OSError):
        # Our own file operations raise HubCacheError (kvcalc.hub.store); this is the transfer's.
        return DownloadBrokenError(f"the download from the Hugging Face Hub for '{rid}' failed "
                                   f"({type(error).__name__}): retry, {USE_INSTEAD}.", repo_id=rid,
                                   reason="download failed")
    return SourceError(f"unexpected {type(error).__name__} while fetching '{rid}' from the Hugging Face Hub: retry, "
                       "or use the bundled catalog or a pasted config.json.", repo_id=rid)


def _http_error(error: BaseException, ctx: Ctx) -> SourceError:
    """:func:`map_error` for an HTTP error answer (401, 403, 404, 429, 5xx, else untyped)."""
    rid = ctx.repo_id
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


def _no_network(ctx: Ctx) -> HubOfflineError:
    return HubOfflineError(f"cannot reach the Hugging Face Hub at {ctx.endpoint} (no network connection, or the "
                           "host refused it): check your connection, proxy or HF_ENDPOINT, or use the bundled "
                           "catalog or a pasted config.json.", repo_id=ctx.repo_id, reason="no network connection")


def not_a_hub(ctx: Ctx) -> HubUnavailableError:
    return HubUnavailableError(f"{ctx.endpoint} answered without the Hub's file headers for '{ctx.repo_id}': check "
                               "HF_ENDPOINT, your proxy or firewall, or use the bundled catalog or a pasted "
                               "config.json.", repo_id=ctx.repo_id, reason="not a Hub endpoint")


def _offline_mode_error(repo_id: str) -> HubOfflineError:
    return HubOfflineError(f"offline mode is on (HF_HUB_OFFLINE), so '{repo_id}' cannot be fetched from the Hub: "
                           "unset HF_HUB_OFFLINE, or use the bundled catalog or a pasted config.json.",
                           repo_id=repo_id, reason="offline mode is on")


def run(ctx: Ctx, work: Callable[[], _T]) -> _T:
    """``work()`` with every failure turned into our error, raised outside the ``except`` block
    so that neither ``__cause__`` nor ``__context__`` keeps huggingface_hub's request (and its
    Authorization header) alive."""
    if offline_mode_env():
        raise _offline_mode_error(ctx.repo_id)
    try:
        return work()
    except Exception as e:  # noqa: BLE001 - every failure is typed below
        mapped = map_error(e, ctx)
    mapped.__traceback__ = None
    raise mapped
