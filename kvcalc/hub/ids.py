"""Checks of the names that go into a Hub request or come back in its answer, before any use.

What the user gives (model id, revision, token, timeout) is checked before any request; what the
server chooses (commit hash, ETag) is checked against the Hub's own formats before it names
anything (huggingface_hub 2.4 ``file_download.py``: ``REGEX_COMMIT_HASH`` = 40 lowercase hex; a
file's ETag is its git blob sha1 (40 hex) or, for LFS / xet files, its sha256 (64 hex,
``REGEX_SHA256``); huggingface_hub itself only strips ``W/`` and quotes, ``_normalize_etag``, and
then uses the ETag as a file name, ``blobs/<etag>``).
"""
from __future__ import annotations

import hashlib
import hmac
import math
import os
import re
import secrets
from typing import Any

from ..errors import InputError
from .errors import TOKEN_SOURCES, InvalidRepoIdError, InvalidRevisionError, InvalidTokenError, UnsafeHubAnswerError

DEFAULT_ENDPOINT = "https://huggingface.co"
MAX_TIMEOUT = 300.0

_REVISION_RE = re.compile(r"[\x21-\x7e]{1,255}")
_TOKEN_RE = re.compile(r"[\x21-\x7e]{1,1024}")
_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]+")
_COMMIT_RE = re.compile(r"[0-9a-f]{40}")
_ETAG_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_CACHE_KEY = secrets.token_bytes(32)


def token_from_env() -> str | None:
    """``HF_TOKEN`` from the environment, or None when unset or blank."""
    value = os.environ.get("HF_TOKEN", "").strip()
    return value or None


def hub_endpoint() -> str:
    """The Hub endpoint in effect now: ``HF_ENDPOINT`` (read at call time) or the public Hub."""
    value = os.environ.get("HF_ENDPOINT", "").strip().rstrip("/")
    return value or DEFAULT_ENDPOINT


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
    problem: str | None
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


def check_revision(revision: Any) -> str | None:
    """``revision`` stripped (None or blank: the default branch), else :class:`InvalidRevisionError`.

    A branch, tag or commit name: printable ASCII without spaces, at most 255 characters, and
    never a path trick (git's ``check-ref-format`` rules: no ``..``, no backslash, no leading
    ``/``, no empty ``//`` part) since a revision ends up in URLs and may never name a file.
    """
    if revision is None:
        return None
    if isinstance(revision, str) and not revision.strip():
        return None
    if not isinstance(revision, str) or not _REVISION_RE.fullmatch(revision.strip()) \
            or _revision_is_a_path(revision.strip()):
        raise InvalidRevisionError(f"'{shown(revision)}' is not a valid revision: use a branch, tag or commit "
                                   "name (no spaces), or leave it empty for the default branch.")
    return revision.strip()


def check_token(token: Any) -> str | None:
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


def check_timeout(timeout: Any) -> float:
    """``timeout`` in seconds as a float, if in (0, :data:`MAX_TIMEOUT`]; else :class:`InputError`."""
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


def _revision_is_a_path(revision: str) -> bool:
    return ".." in revision or "\\" in revision or revision.startswith("/") or "//" in revision \
        or revision.endswith("/") or os.path.isabs(revision)


def check_commit(commit: str | None, *, repo_id: str) -> str:
    """The ``X-Repo-Commit`` the server sent, if it is a commit hash (40 lowercase hex digits)."""
    if commit is None or not _COMMIT_RE.fullmatch(commit):
        raise _unsafe("commit hash", commit, repo_id)
    return commit


def normalize_etag(etag: str | None, *, repo_id: str) -> str:
    """The server's ETag without ``W/`` and quotes, if it is a sha1 or sha256 (40 / 64 lowercase hex)."""
    value = None if etag is None else etag.strip()
    if value is not None and value.startswith("W/"):
        value = value[2:]
    value = None if value is None else value.strip('"')
    if value is None or not _ETAG_RE.fullmatch(value):
        raise _unsafe("ETag", etag, repo_id)
    return value


def _unsafe(what: str, value: str | None, repo_id: str) -> UnsafeHubAnswerError:
    return UnsafeHubAnswerError(f"{hub_endpoint()} answered for '{repo_id}' with the {what} '{shown(value)}', "
                                "which is not a name the Hugging Face Hub uses: nothing was saved; check "
                                "HF_ENDPOINT and your proxy, or use the bundled catalog or a pasted config.json.",
                                repo_id=repo_id, reason=f"invalid {what} from the server")
