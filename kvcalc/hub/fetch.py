"""The fetchers: a model's ``config.json`` and its safetensors parameter counts from the Hub.

Nothing from the Hub is ever executed: only ``config.json`` is downloaded and parsed as JSON (no
``trust_remote_code``). huggingface_hub 2.4 builds the URLs and headers (``hf_hub_url``,
``build_hf_headers``), types the HTTP errors (``hf_raise_for_status``) and parses model info
(``ModelInfo``); the requests go through :func:`~kvcalc.hub.deadline.deadline_client`, so that
one wall-clock deadline of ``timeout`` seconds bounds every request of a fetch together, and the
file is written only by :mod:`kvcalc.hub.store`. ``hf_hub_download`` is not used: it names cache
files after the server's ETag and the caller's revision unchecked, retries a failed HEAD for up to
5 x 60 s (``file_download._ETAG_RETRY_TIMEOUT``) and can only be abandoned, not stopped.

A config fetch is one HEAD (commit, ETag, size; ``Accept-Encoding: identity``) and, unless the
validated file for that ETag is stored already, one GET. The GET's body is capped at
:data:`~kvcalc.hub.config_text.MAX_CONFIG_BYTES` both on the wire and decompressed (gzip /
deflate are decoded here, in bounded steps), validated, and only then stored.

Shared tokens: ``shared_token=True`` says the token is the operator's (app secrets, server
environment), used for every visitor. It may open gated public models, but a private repository
(``private`` in the Hub's model info) needs the visitor's own token: :class:`PrivateRepoError`.
"""
from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from ..dtypes import SAFETENSORS_DTYPE_BITS
from ..limits import MAX_CHECKPOINT_BYTES, MAX_PARAMETERS
from . import mapping
from .cache import cached
from .config_text import MAX_CONFIG_BYTES, check_decoder_config, config_too_large, parse_config_json
from .deadline import Deadline, deadline_client
from .errors import DownloadBrokenError, HubServerError, ImplausibleWeightInfoError, PrivateRepoError, SourceError
from .ids import check_commit, check_revision, check_timeout, check_token, hub_endpoint, token_identity, validate_hub_id
from .mapping import Ctx, not_a_hub
from .store import CONFIG_FILENAME, blob_path, read_cached, safe_root, save_atomic

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10.0
MAX_INFO_BYTES = 16 << 20         # model info JSON: a few KiB, a few MiB for repos with thousands of files
MAX_ERROR_BYTES = 64 << 10        # an error answer's body, read for hf_raise_for_status
MAX_REDIRECTS = 5                 # relative redirects (renamed repositories), as huggingface_hub follows them

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
# Public fetchers
# ---------------------------------------------------------------------------------------------
def fetch_hub_config(repo_id: str, *, revision: str | None = None, token: str | None = None,
                     timeout: float = DEFAULT_TIMEOUT, cache_dir: str | None = None,
                     shared_token: bool = False) -> HubConfig:
    """Download and validate ``config.json`` of ``repo_id`` (a decoder LLM) from the Hub.

    ``revision``: branch, tag or commit (None: default branch). ``token``: sent as
    ``Authorization: Bearer``; None sends none. ``shared_token``: the token is the operator's
    (see the module docstring). Every request together finishes within ``timeout`` seconds.
    Raises a :class:`SourceError` subclass: :class:`InvalidRepoIdError` / :class:`InvalidRevisionError`
    (before any request), :class:`RepoNotFoundError`, :class:`RevisionNotFoundError`,
    :class:`GatedModelError`, :class:`PrivateRepoError`, :class:`AccessDeniedError`,
    :class:`NoConfigError`, :class:`HubServerError`, :class:`HubTimeoutError`,
    :class:`HubOfflineError`, :class:`UnsafeHubAnswerError`, :class:`DownloadBrokenError`,
    :class:`HubCacheError`, :class:`ConfigJSONError` (and the other :class:`ConfigTextError`),
    :class:`NotADecoderError` / :class:`InvalidConfigError`. Cached in-process (see :func:`clear_cache`).
    """
    repo_id = validate_hub_id(repo_id)
    revision = check_revision(revision)
    tok = check_token(token)
    timeout = check_timeout(timeout)
    endpoint = hub_endpoint()
    root = safe_root(cache_dir)
    shared = bool(shared_token) and tok is not None
    ctx = Ctx(repo_id, revision, endpoint, tok is not None, timeout)
    key = ("config", endpoint, repo_id, revision, token_identity(tok), shared, root)
    return cached(key, lambda: _fetch_config(ctx, tok, root, shared))


def fetch_weight_info(repo_id: str, *, revision: str | None = None, token: str | None = None,
                      timeout: float = DEFAULT_TIMEOUT, shared_token: bool = False) -> HubWeightInfo | None:
    """Parameter counts by dtype from the Hub's safetensors metadata (``HfApi.model_info``'s answer).

    None when the repository has no safetensors metadata (e.g. .bin or GGUF only). Raises the
    same errors as :func:`fetch_hub_config` for the request itself. Cached in-process.
    """
    repo_id = validate_hub_id(repo_id)
    revision = check_revision(revision)
    tok = check_token(token)
    timeout = check_timeout(timeout)
    endpoint = hub_endpoint()
    shared = bool(shared_token) and tok is not None
    ctx = Ctx(repo_id, revision, endpoint, tok is not None, timeout)
    key = ("weights", endpoint, repo_id, revision, token_identity(tok), shared)
    return cached(key, lambda: _fetch_weight_info(ctx, tok, shared))


def _fetch_config(ctx: Ctx, token: str | None, root: str, shared: bool) -> HubConfig:
    from huggingface_hub import hf_hub_url

    logger.debug("fetching %s of %s (revision %s, authenticated: %s) from %s", CONFIG_FILENAME, ctx.repo_id,
                 ctx.revision or "default", ctx.token_given, ctx.endpoint)
    label = f"config.json of '{ctx.repo_id}'"
    fix = "the file in the repository is broken; paste a corrected config.json instead."

    def validated(data: bytes) -> dict[str, Any]:
        config = parse_config_json(data, label=label, repo_id=ctx.repo_id, fix=fix)
        check_decoder_config(config, label=label, repo_id=ctx.repo_id)
        return config

    def work() -> tuple[dict[str, Any], str]:
        deadline = Deadline(ctx.timeout)
        with deadline_client(deadline) as client:
            if shared:
                _refuse_private(ctx, _model_info(client, ctx, token, ["private"]))
            url = hf_hub_url(ctx.repo_id, CONFIG_FILENAME, revision=ctx.revision, endpoint=ctx.endpoint)
            response = _head(client, url, _headers(token, identity=True))
            commit = response.headers.get("X-Repo-Commit")
            etag = response.headers.get("X-Linked-Etag") or response.headers.get("ETag")
            if commit is None or etag is None:
                raise not_a_hub(ctx)
            commit = check_commit(commit, repo_id=ctx.repo_id)
            path = blob_path(root, ctx.repo_id, etag)            # validates the ETag before any use
            stored = read_cached(path, MAX_CONFIG_BYTES)
            if stored is not None:
                try:
                    return validated(stored), commit
                except SourceError:
                    pass                                          # a damaged copy: fetch it again
            size = _int_or_none(response.headers.get("X-Linked-Size")
                                or (None if response.is_redirect else response.headers.get("Content-Length")))
            if size is not None and size > MAX_CONFIG_BYTES:     # do not even download it
                raise config_too_large(label, size, repo_id=ctx.repo_id)
            location = response.headers.get("Location") or str(response.request.url)
            # A file served from another host (the Hub's CDN, or wherever a hostile answer points)
            # never gets the token; httpx drops it on cross-origin redirects the same way.
            same_host = urlsplit(location).netloc == urlsplit(str(response.request.url)).netloc
            with client.stream("GET", location, headers=_headers(token if same_host else None, identity=True),
                               follow_redirects=True) as got:
                data = _body(got, ctx, MAX_CONFIG_BYTES, label, lambda size, inflated: config_too_large(
                    label, size, repo_id=ctx.repo_id, decompressed=inflated))
        config = validated(data)
        save_atomic(root, path, data, repo_id=ctx.repo_id)        # only a validated file is stored
        return config, commit

    config, commit = _run(ctx, work)
    return HubConfig(config=config, repo_id=ctx.repo_id, revision=ctx.revision, commit=commit,
                     endpoint=ctx.endpoint, authenticated=ctx.token_given)


def _fetch_weight_info(ctx: Ctx, token: str | None, shared: bool) -> HubWeightInfo | None:
    def work() -> Any:
        with deadline_client(Deadline(ctx.timeout)) as client:
            info = _model_info(client, ctx, token, ["safetensors", "sha", "gated", "private"])
        if shared:
            _refuse_private(ctx, info)
        return info

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
    _check_parameter_counts(ctx, params)
    if not isinstance(total, int) or isinstance(total, bool) or not 0 <= total <= MAX_PARAMETERS:
        total = sum(params.values())
    gated = getattr(info, "gated", None)
    return HubWeightInfo(repo_id=ctx.repo_id, revision=ctx.revision, commit=getattr(info, "sha", None),
                         total=total, parameters=dict(params),
                         gated=None if gated is None else bool(gated))


def _count_text(n: int) -> str:
    return f"{n:,}" if n < 10**18 else f"about 10^{len(str(n)) - 1}"


def _check_parameter_counts(ctx: Ctx, params: Mapping[str, int]) -> None:
    """Every count, and the bytes they make, within what a checkpoint can hold (:data:`MAX_PARAMETERS`
    elements of a dtype, :data:`~kvcalc.limits.MAX_CHECKPOINT_BYTES` in all), checked before any
    arithmetic on them; else :class:`ImplausibleWeightInfoError` (the caller computes the weights
    from the config instead and says so)."""
    for dtype, count in params.items():
        if count > MAX_PARAMETERS:
            raise ImplausibleWeightInfoError(
                f"the Hub's safetensors metadata of '{ctx.repo_id}' counts {_count_text(count)} {dtype[:20]} "
                f"parameters (safetensors.parameters), more than any checkpoint holds (at most 2^50): ignored",
                repo_id=ctx.repo_id, reason="implausible safetensors metadata")
    size = safetensors_weight_bytes(params)
    if size is not None and size > MAX_CHECKPOINT_BYTES:
        raise ImplausibleWeightInfoError(
            f"the Hub's safetensors metadata of '{ctx.repo_id}' makes {_count_text(size)} bytes of weights, more "
            "than any checkpoint holds (at most 2^50 bytes = 1 PiB): ignored",
            repo_id=ctx.repo_id, reason="implausible safetensors metadata")


def _run(ctx: Ctx, work: Any) -> Any:
    """:func:`kvcalc.hub.mapping.run`, looked up at call time: the seam tests wrap."""
    return mapping.run(ctx, work)


def _refuse_private(ctx: Ctx, info: Any) -> None:
    """The shared-token rule: only a repository the Hub says is not private (fails closed)."""
    if getattr(info, "private", None) is False:
        return
    raise PrivateRepoError(f"'{ctx.repo_id}' is a private repository, and the app's shared token opens only public "
                           "models (gated ones included): to load it, enter your own Hugging Face token with read "
                           "access to it (it is used for your session only).", repo_id=ctx.repo_id)


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------
def _headers(token: str | None, *, identity: bool = False) -> dict[str, str]:
    from huggingface_hub.utils import build_hf_headers

    headers = build_hf_headers(token=token if token is not None else False)   # False: no implicit token
    if identity:
        headers["Accept-Encoding"] = "identity"     # the real size (huggingface_hub's get_hf_file_metadata)
    return headers


def _int_or_none(value: str | None) -> int | None:
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


def _raise_for_status(response: Any, body: bytes = b"") -> None:
    """huggingface_hub's typing of an error answer (``hf_raise_for_status``, on its ``X-Error-Code``)."""
    if response.status_code < 400:
        return
    import httpx2
    from huggingface_hub.utils import hf_raise_for_status

    headers = [(k, v) for k, v in response.headers.multi_items()
               if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
    hf_raise_for_status(httpx2.Response(response.status_code, headers=headers, content=body,
                                        request=response.request))


def _head(client: Any, url: str, headers: dict[str, str]) -> Any:
    """HEAD ``url``, following relative redirects only (as huggingface_hub does: a renamed repo)."""
    for _ in range(MAX_REDIRECTS + 1):
        response = client.head(url, headers=headers)
        location = response.headers.get("Location")
        if response.is_redirect and location and not urlsplit(location).netloc:
            url = urljoin(str(response.request.url), location)
            continue
        break
    _raise_for_status(response)
    return response


def _model_info(client: Any, ctx: Ctx, token: str | None, expand: list[str]) -> Any:
    """``HfApi.model_info``'s request (``GET /api/models/<id>[/revision/<rev>]?expand=...``) and parse."""
    from huggingface_hub.hf_api import ModelInfo

    url = f"{ctx.endpoint}/api/models/{ctx.repo_id}"
    if ctx.revision is not None:
        url += f"/revision/{quote(ctx.revision, safe='')}"
    with client.stream("GET", url, params=[("expand", e) for e in expand], headers=_headers(token),
                       follow_redirects=True) as response:
        body = _body(response, ctx, MAX_INFO_BYTES, f"the model info of '{ctx.repo_id}'", lambda size, inflated:
                     HubServerError(f"the Hugging Face Hub sent a model info answer for '{ctx.repo_id}' of over "
                                    f"{MAX_INFO_BYTES >> 20} MiB: retry in a few minutes.", repo_id=ctx.repo_id,
                                    reason="oversized answer"))
    try:
        return ModelInfo(**json.loads(body))
    except (ValueError, KeyError, TypeError, AttributeError):   # not JSON, or fields of unexpected shapes
        raise HubServerError(f"the Hugging Face Hub sent an unreadable model info answer for '{ctx.repo_id}': "
                             "retry in a few minutes.", repo_id=ctx.repo_id, reason="unreadable answer") from None


def _body(response: Any, ctx: Ctx, cap: int, label: str,
          too_large: Callable[[int | None, bool], SourceError]) -> bytes:
    """A streamed answer's body, at most ``cap`` bytes on the wire and decompressed; errors typed.

    ``too_large(size, decompressed)`` is the error past the cap (``size``: the Content-Length, or
    None when streaming stopped at the cap).
    Reads the raw bytes (``iter_raw``) and decodes gzip / deflate here with ``zlib``'s
    ``max_length``, so a compression bomb never inflates past ``cap + 1`` bytes.
    """
    import httpx2

    if response.status_code >= 400:
        _raise_for_status(response, _read_raw(response, MAX_ERROR_BYTES))
    length = _int_or_none(response.headers.get("Content-Length"))
    if length is not None and length > cap:
        raise too_large(length, False)
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding in ("gzip", "x-gzip"):
        decoder: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        decoder = zlib.decompressobj()
    elif encoding in ("", "identity"):
        decoder = None
    else:
        raise _broken(ctx, label, f"it came in the unsupported encoding '{encoding[:20]}'")
    out = bytearray()
    wire = 0
    try:
        for chunk in response.iter_raw():
            wire += len(chunk)
            if wire > cap:
                raise too_large(None, False)
            if decoder is None:
                out += chunk
                continue
            out += decoder.decompress(chunk, cap + 1 - len(out))
            if decoder.unconsumed_tail or len(out) > cap:
                raise too_large(None, True)
        if decoder is not None:
            out += decoder.flush()
            if len(out) > cap:
                raise too_large(None, True)
            if not decoder.eof:
                raise _broken(ctx, label, f"its {encoding} data ended early")
    except zlib.error:
        raise _broken(ctx, label, f"its {encoding} data is corrupt") from None
    except httpx2.TimeoutException:
        raise
    except (httpx2.RemoteProtocolError, httpx2.ReadError) as e:
        raise _broken(ctx, label, f"the connection closed after {wire:,} bytes ({type(e).__name__})") from None
    return bytes(out)


def _read_raw(response: Any, cap: int) -> bytes:
    out = bytearray()
    for chunk in response.iter_raw():
        out += chunk[: cap - len(out)]
        if len(out) >= cap:
            break
    return bytes(out)


def _broken(ctx: Ctx, label: str, why: str) -> DownloadBrokenError:
    return DownloadBrokenError(f"the download of {label} from {ctx.endpoint} did not complete: {why}; retry, or "
                               "use the bundled catalog or a pasted config.json meanwhile.", repo_id=ctx.repo_id,
                               reason="download broke off")


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
