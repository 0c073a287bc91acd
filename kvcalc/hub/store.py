"""The download folder: the ONE place that decides where a file from the Hub is written.

Layout: ``<root>/models--<org>--<name>/blobs/<etag>/config.json``. ``<root>`` is
:func:`hub_cache_dir` (``$KVCALC_HUB_CACHE``, else ``<user cache>/kvcalc/hub`` with
``$XDG_CACHE_HOME`` or ``~/.cache``), never inside the application's source tree (a configured
root there is relocated to the default, with a logged warning: Streamlit runs every ``.py`` under
``pages/``). The repository id is checked by :func:`~kvcalc.hub.ids.validate_hub_id` and the ETag
by :func:`~kvcalc.hub.ids.normalize_etag` before they name anything, and the final path's
``realpath`` must lie inside the root's. Unlike ``hf_hub_download`` (``blobs/<etag>``,
``refs/<revision>``, ``snapshots/<commit>``: server and user strings used as paths unchecked), no
revision or commit ever names a file here.

Writes are atomic: the bytes go to a temporary file in the same folder, are validated, and only
then renamed to the final name; on any failure the temporary file is removed, so a failed fetch
leaves nothing behind.
"""
from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from .errors import HubCacheError
from .ids import normalize_etag, shown, validate_hub_id

logger = logging.getLogger(__name__)

CONFIG_FILENAME = "config.json"
SOURCE_TREE = os.path.realpath(Path(__file__).resolve().parents[2])   # the checkout (or site-packages)


def default_cache_dir() -> str:
    """``<user cache>/kvcalc/hub``: ``$XDG_CACHE_HOME`` or ``~/.cache``."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kvcalc", "hub")


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root


def safe_root(folder: str | None = None) -> str:
    """The real path of the download root: ``folder``, else ``$KVCALC_HUB_CACHE``, else the default.

    A root inside the application's source tree is replaced by :func:`default_cache_dir` (and a
    warning is logged); if that too lies inside it (``$XDG_CACHE_HOME`` there), a system temporary
    folder is used.
    """
    chosen = folder or os.environ.get("KVCALC_HUB_CACHE", "").strip() or default_cache_dir()
    real = os.path.realpath(os.path.expanduser(chosen))
    if not _inside(real, SOURCE_TREE):
        return real
    fallback = os.path.realpath(default_cache_dir())
    if _inside(fallback, SOURCE_TREE):
        fallback = os.path.realpath(os.path.join(tempfile.gettempdir(), "kvcalc-hub"))
    logger.warning("the Hub download folder %s is inside the application's source tree %s; using %s instead",
                   shown(real, 120), shown(SOURCE_TREE, 120), shown(fallback, 120))
    return fallback


def hub_cache_dir() -> str:
    """The download root in effect now (see :func:`safe_root`)."""
    return safe_root()


def blob_path(root: str, repo_id: str, etag: str | None, filename: str = CONFIG_FILENAME) -> str:
    """Where ``filename`` of ``repo_id`` with server ETag ``etag`` lives under ``root`` (a real path).

    Raises :class:`~kvcalc.hub.errors.UnsafeHubAnswerError` for an ETag that is not a sha1 / sha256,
    and :class:`HubCacheError` should the result still leave ``root`` (it cannot, by construction).
    """
    repo_id = validate_hub_id(repo_id)
    tag = normalize_etag(etag, repo_id=repo_id)
    if filename != CONFIG_FILENAME:
        raise ValueError(f"only {CONFIG_FILENAME} is stored, not {shown(filename)}")
    path = os.path.realpath(os.path.join(root, "models--" + repo_id.replace("/", "--"), "blobs", tag, filename))
    if not _inside(path, os.path.realpath(root)):
        raise HubCacheError(f"refusing to write {shown(path, 80)}: it is outside the download folder "
                            f"{shown(root, 80)}.", repo_id=repo_id)
    return path


def cache_error(root: str, error: OSError, repo_id: str | None = None) -> HubCacheError:
    """The error for a failed local file operation in the download folder (never a network failure)."""
    return HubCacheError(f"cannot write the download cache {shown(root, 80)} ({type(error).__name__}): set "
                         "KVCALC_HUB_CACHE to a writable folder.", repo_id=repo_id)


def read_cached(path: str, limit: int) -> bytes | None:
    """The stored file's bytes (at most ``limit + 1``), or None when there is none (or it is unreadable)."""
    try:
        with open(path, "rb") as f:
            return f.read(limit + 1)
    except OSError:
        return None


def save_atomic(root: str, path: str, data: bytes, *, repo_id: str) -> None:
    """Write ``data`` to ``path`` (from :func:`blob_path`) through a temporary file in the same folder,
    renamed into place only when complete; on any failure nothing is left. Raises :class:`HubCacheError`."""
    tmp: str | None = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".incomplete-", dir=os.path.dirname(path))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise cache_error(root, e, repo_id) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
