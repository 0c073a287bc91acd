"""The header of a ``.gguf`` file on the Hub, read with one HTTP range request (never the tensor data).

``fetch_gguf_header(repo_id, filename)`` asks for the first ``max_bytes`` bytes of the file
(``Range: bytes=0-N``; default :data:`DEFAULT_HEADER_BYTES`, at most the GGUF reader's 64 MiB cap),
following the Hub's redirects to its CDN (the token is sent to the Hub's own host only), reads at
most ``max_bytes`` of the answer even if a server ignores the range, and parses it with
:func:`kvcalc.gguf.reader.read_gguf_header` (the file size from ``Content-Range`` bounds the tensor
offsets). Nothing is written to disk: the server never names a path here. The URL is
huggingface_hub's (``hf_hub_url`` on ``HF_ENDPOINT``), the headers its ``build_hf_headers``, the
request under one deadline (:func:`kvcalc.hub.deadline.deadline_client`), errors typed as for
``config.json`` (kvcalc.hub.mapping) plus :class:`NoGGUFFileError`. Bytes; MiB = 2**20.
"""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..errors import InputError
from ..gguf.reader import MAX_HEADER_BYTES, GGUFHeader, read_gguf_header
from .cache import cached
from .deadline import Deadline, deadline_client
from .errors import NoGGUFFileError
from .fetch import DEFAULT_TIMEOUT, MAX_REDIRECTS, _headers, _raise_for_status, _read_raw, _run
from .ids import check_revision, check_timeout, check_token, hub_endpoint, shown, token_identity, validate_hub_id
from .mapping import Ctx

DEFAULT_HEADER_BYTES = 16 << 20
"""First bytes asked for: a GGUF header with a 128k-256k token vocabulary is about 3-10 MiB."""

_FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*(/[A-Za-z0-9][A-Za-z0-9._+-]*){0,4}")


def check_gguf_filename(name: Any) -> str:
    """A ``.gguf`` path inside a repository (``Q4_K_M/model-00001-of-00002.gguf``), else InputError:
    at most 255 characters, up to five parts of letters, digits, ``._+-`` each starting with a letter
    or digit (no ``..``, no absolute path or URL)."""
    if not isinstance(name, str) or len(name) > 255 or not _FILENAME.fullmatch(name) or ".." in name \
            or not name.lower().endswith(".gguf"):
        raise InputError(f"'{shown(name)}' is not a .gguf file name in a repository (letters, digits, ._+- and / "
                         "only, ending in .gguf)")
    return name


def check_header_bytes(max_bytes: Any) -> int:
    """Bytes to ask for: 1 MiB .. the reader's cap (64 MiB)."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or not (1 << 20) <= max_bytes <= MAX_HEADER_BYTES:
        raise InputError(f"max_bytes must be a whole number of bytes from 1 MiB to {MAX_HEADER_BYTES >> 20} MiB")
    return max_bytes


def fetch_gguf_header(repo_id: str, filename: str, *, revision: str | None = None, token: str | None = None,
                      timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_HEADER_BYTES) -> GGUFHeader:
    """The parsed header of ``filename`` in ``repo_id`` (module docstring); cached in-process.

    InputError for a bad file name, or a header longer than ``max_bytes`` (the message says so) or
    malformed; the Hub's errors as :func:`kvcalc.hub.fetch_hub_config` raises them; NoGGUFFileError
    when the file is not there."""
    repo_id = validate_hub_id(repo_id)
    filename = check_gguf_filename(filename)
    revision = check_revision(revision)
    tok = check_token(token)
    timeout = check_timeout(timeout)
    max_bytes = check_header_bytes(max_bytes)
    endpoint = hub_endpoint()
    ctx = Ctx(repo_id, revision, endpoint, tok is not None, timeout)
    key = ("gguf", endpoint, repo_id, revision, filename, token_identity(tok), max_bytes)

    def parse() -> GGUFHeader:
        data, size = _run(ctx, lambda: _first_bytes(ctx, filename, tok, max_bytes))
        try:
            return read_gguf_header(data, max_bytes=max_bytes, file_size=size)
        except InputError as e:
            if (len(data) >= max_bytes and "ends after" in str(e)) or "larger than" in str(e):
                raise InputError(f"the GGUF header of {filename[:80]} in '{repo_id}' is longer than the "
                                 f"{max_bytes >> 20} MiB read: ask for more (max_bytes, up to "
                                 f"{MAX_HEADER_BYTES >> 20} MiB)") from None
            raise InputError(f"{filename[:80]} in '{repo_id}': {e}") from None

    return cached(key, parse)


def _first_bytes(ctx: Ctx, filename: str, token: str | None, max_bytes: int) -> tuple[bytes, int | None]:
    """The first ``max_bytes`` bytes of the file and its total size (from ``Content-Range``, if given)."""
    from huggingface_hub import hf_hub_url

    url = hf_hub_url(ctx.repo_id, filename, revision=ctx.revision, endpoint=ctx.endpoint)
    hub_host = urlsplit(ctx.endpoint).netloc
    with deadline_client(Deadline(ctx.timeout)) as client:
        for _ in range(MAX_REDIRECTS + 1):
            same_host = urlsplit(url).netloc == hub_host
            headers = _headers(token if same_host else None, identity=True)
            headers["Range"] = f"bytes=0-{max_bytes - 1}"
            with client.stream("GET", url, headers=headers) as response:
                location = response.headers.get("Location")
                if response.is_redirect and location:
                    url = urljoin(str(response.request.url), location)
                    continue
                if response.status_code == 404 and response.headers.get("X-Error-Code") == "EntryNotFound":
                    at = f" at revision '{shown(ctx.revision)}'" if ctx.revision else ""
                    raise NoGGUFFileError(f"'{ctx.repo_id}' has no file '{shown(filename, 120)}'{at}: check the "
                                          "file name in the repository's file list", repo_id=ctx.repo_id)
                if response.status_code >= 400:
                    _raise_for_status(response, _read_raw(response, 64 << 10))
                return _read_raw(response, max_bytes), _total_size(response)
        raise NoGGUFFileError(f"'{ctx.repo_id}': more than {MAX_REDIRECTS} redirects for {shown(filename, 120)}",
                              repo_id=ctx.repo_id)


def _total_size(response: Any) -> int | None:
    """The whole file's size: ``Content-Range: bytes 0-N/TOTAL`` (206), or Content-Length (200)."""
    got = re.fullmatch(r"bytes \d+-\d+/(\d+)", response.headers.get("Content-Range", "").strip())
    if got:
        return int(got.group(1))
    if response.status_code == 200:
        length = response.headers.get("Content-Length", "")
        return int(length) if length.isdigit() else None
    return None
