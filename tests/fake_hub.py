"""A local stand-in for the Hugging Face Hub, enough for huggingface_hub 2.4's file and model-info calls.

What huggingface_hub 2.4 requests (read off ``file_download.py``, ``hf_api.py`` and ``utils/_http.py``):

* ``hf_hub_download`` / ``get_hf_file_metadata``: ``HEAD {endpoint}/{repo}/resolve/{revision}/config.json``.
  A usable answer is 200 with ``X-Repo-Commit`` (40 hex digits), ``ETag`` and ``Content-Length``;
  without ``X-Repo-Commit`` or ``ETag`` huggingface_hub refuses the file. Then
  ``GET`` of the same URL for the bytes.
* ``HfApi.model_info``: ``GET {endpoint}/api/models/{repo}`` or
  ``GET {endpoint}/api/models/{repo}/revision/{revision}`` (revision URL-quoted), JSON body with
  ``id``, ``sha``, ``gated`` and ``safetensors`` = ``{"parameters": {dtype: count}, "total": n}``.
* Errors are typed by ``hf_raise_for_status`` from the ``X-Error-Code`` header: ``RepoNotFound``,
  ``GatedRepo``, ``EntryNotFound``, ``RevisionNotFound``; a 401 with ``X-Error-Message``
  "Invalid credentials in Authorization header" stays a plain ``HfHubHTTPError``. Its URL-based
  fallbacks only match ``https://`` URLs, so this plain-HTTP server always sends the header.

The real Hub's answers are mimicked: a gated repo gives 401 + ``GatedRepo`` without a token and
403 + ``GatedRepo`` with a token that has no access; a private or missing repo gives 401 +
``RepoNotFound`` without a token and 404 + ``RepoNotFound`` with one.

Hostile or broken endpoints, for the security tests: ``FakeRepo.etag`` overrides the ETag (a path
traversal, say); kind "trickle" sends every answer one byte every :attr:`FakeHub.trickle_interval`
seconds (headers included; after :data:`TRICKLE_SECONDS` the rest at once), "trickle_get" only the
GET; "gzip_bomb" serves a gzip body that inflates to :data:`BOMB_BYTES`; "no_length" serves
:data:`NO_LENGTH_BYTES` with no Content-Length (HEAD and GET); "truncated" promises more bytes
than it sends; "any_revision" serves every revision, ``../../x`` included.

Every request is recorded (method, path, Authorization header) in :attr:`FakeHub.requests`.
The server runs in a daemon thread on 127.0.0.1 with an OS-chosen port; slow answers sleep at
most :data:`SLOW_SECONDS` and stop sleeping as soon as the server is closed.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

SLOW_SECONDS = 3.0
TRICKLE_SECONDS = 12.0          # a trickled answer sends its rest after this long (hf alone then returns)
BOMB_BYTES = 64 << 20           # what the gzip bomb inflates to
NO_LENGTH_BYTES = 17 << 20      # the config.json served without a Content-Length (over the 16 MiB ceiling)
HUGE_BYTES = 16 << 20           # the padding of acme/huge-config: with its 11 other bytes, over the ceiling
ACCEPTED_TOKEN = "hf_fakeGatedAccessToken0123456789"
PRIVATE_TOKEN = "hf_fakePrivateRepoToken9876543210"

LLAMA_TINY: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256, "intermediate_size": 688,
    "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000,
    "max_position_embeddings": 2048, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
}
BERT_BASE: dict[str, Any] = {
    "architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12,
    "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 30522, "max_position_embeddings": 512,
}
VIT_BASE: dict[str, Any] = {
    "architectures": ["ViTForImageClassification"], "model_type": "vit", "hidden_size": 768,
    "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072, "image_size": 224,
}


@dataclass
class FakeRepo:
    """One repository of the fake Hub and how it answers.

    ``kind``: "ok" (serves ``files``), "gated" (needs ``Bearer ACCEPTED_TOKEN``), "private" (needs
    ``Bearer PRIVATE_TOKEN``; a wrong token gets the Hub's invalid-credentials 401), "error500",
    "slow_head" (HEAD sleeps), "slow_get" (HEAD answers, GET sleeps), and the hostile kinds of the
    module docstring. ``etag`` / ``commit_header``: the ETag / X-Repo-Commit to send instead of the real ones;
    ``location``: HEAD answers 302 to it (as the Hub does for files on its CDN), with X-Linked-Etag.
    """

    kind: str = "ok"
    files: dict[str, bytes] = field(default_factory=dict)
    safetensors: dict[str, Any] | None = None
    gated: str | bool = False
    etag: str | None = None
    commit_header: str | None = None
    location: str | None = None

    @property
    def commit(self) -> str:
        return hashlib.sha1(repr(sorted(self.files.items())).encode()).hexdigest()


def _json_file(data: Any) -> dict[str, bytes]:
    return {"config.json": json.dumps(data, indent=2).encode()}


def default_repos() -> dict[str, FakeRepo]:
    """The repositories the tests use, by Hub id."""
    return {
        "acme/tiny-llama": FakeRepo(files=_json_file(LLAMA_TINY),
                                    safetensors={"parameters": {"BF16": 6_000_000, "F32": 1_024}, "total": 6_001_024}),
        "acme/fp8-model": FakeRepo(files=_json_file(LLAMA_TINY),
                                   safetensors={"parameters": {"F8_E4M3": 5_000_000, "BF16": 1_000_000, "F32": 4_096},
                                                "total": 6_004_096}),
        "acme/odd-dtype": FakeRepo(files=_json_file(LLAMA_TINY),
                                   safetensors={"parameters": {"BF16": 100, "Q4_WEIRD": 50}, "total": 150}),
        "acme/no-safetensors": FakeRepo(files=_json_file(LLAMA_TINY)),
        "acme/gated-llama": FakeRepo(kind="gated", files=_json_file(LLAMA_TINY), gated="manual",
                                     safetensors={"parameters": {"BF16": 6_000_000}, "total": 6_000_000}),
        # A bundled model, gated on the Hub, so the bundled fallback can be exercised.
        "meta-llama/Llama-3.1-8B": FakeRepo(kind="gated", files=_json_file(LLAMA_TINY), gated="manual"),
        "acme/private-llama": FakeRepo(kind="private", files=_json_file(LLAMA_TINY)),
        "acme/gguf-only": FakeRepo(files={"model-q4_k_m.gguf": b"GGUF"}),
        "acme/broken": FakeRepo(kind="error500", files=_json_file(LLAMA_TINY)),
        "Qwen/Qwen3-8B": FakeRepo(kind="error500", files=_json_file(LLAMA_TINY)),
        "acme/slow": FakeRepo(kind="slow_head", files=_json_file(LLAMA_TINY)),
        "meta-llama/Llama-3.2-1B": FakeRepo(kind="slow_head", files=_json_file(LLAMA_TINY)),
        "acme/slow-download": FakeRepo(kind="slow_get", files=_json_file(LLAMA_TINY)),
        "acme/bad-json": FakeRepo(files={"config.json": b'{"model_type": "llama", "hidden_size": 4096,\n  oops'}),
        "acme/list-json": FakeRepo(files={"config.json": b"[1, 2, 3]"}),
        "acme/huge-config": FakeRepo(files={"config.json": b'{"pad": "' + b"x" * HUGE_BYTES + b'"}'}),
        "acme/bert": FakeRepo(files=_json_file(BERT_BASE)),
        "acme/trickle": FakeRepo(kind="trickle", files=_json_file(LLAMA_TINY),
                                 safetensors={"parameters": {"BF16": 100}, "total": 100}),
        "acme/trickle-download": FakeRepo(kind="trickle_get", files=_json_file(LLAMA_TINY)),
        "acme/gzip-bomb": FakeRepo(kind="gzip_bomb", files=_json_file(LLAMA_TINY)),
        "acme/no-length": FakeRepo(kind="no_length", files={"config.json": b'{"pad": "' + b"x" * NO_LENGTH_BYTES
                                                                           + b'"}'}),
        "acme/truncated": FakeRepo(kind="truncated", files=_json_file(LLAMA_TINY)),
        "acme/any-revision": FakeRepo(kind="any_revision", files=_json_file(LLAMA_TINY)),
        "acme/vit": FakeRepo(files=_json_file(VIT_BASE)),
    }


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake Hub received."""

    method: str
    path: str
    authorization: str | None


class FakeHub:
    """The running server: ``url`` is the endpoint to put in ``HF_ENDPOINT``."""

    def __init__(self, repos: dict[str, FakeRepo] | None = None, slow_seconds: float = SLOW_SECONDS,
                 trickle_interval: float = 0.5):
        self.repos = default_repos() if repos is None else repos
        self.slow_seconds = min(slow_seconds, SLOW_SECONDS)
        self.trickle_interval = trickle_interval
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-hub", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def record(self, method: str, path: str, authorization: str | None) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(method, path, authorization))

    def sleep(self) -> None:
        """The slow answer: wait, but never past the server's closing."""
        self._closing.wait(self.slow_seconds)

    def closing(self, seconds: float) -> bool:
        """Wait ``seconds``; True as soon as the server is closing."""
        return self._closing.wait(seconds)

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _split_repo(rest: str) -> tuple[str, str] | None:
    """``org/name/rest`` or ``name/rest`` -> (repo id, rest) for the longest known-shaped id."""
    parts = rest.split("/")
    return ("/".join(parts[:2]), "/".join(parts[2:])) if len(parts) >= 2 else None


def _range(header: str | None, size: int) -> tuple[int, int] | None:
    """``Range: bytes=A-B`` as (A, min(B, size - 1)); None for no header or another form."""
    if not header or not header.startswith("bytes=") or "," in header:
        return None
    first, _, last = header[len("bytes="):].partition("-")
    if not first.isdigit() or not last.isdigit() or int(first) >= size:
        return None
    return int(first), min(int(last), size - 1)


def _make_handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
            return

        # -- plumbing ------------------------------------------------------------------------
        def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None,
                  content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD" and body:
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        def _raw(self, status: int, body: bytes, headers: dict[str, str], *, length: int | None,
                 trickle: bool = False) -> None:
            """An answer written by hand: any Content-Length (or none), optionally trickled."""
            lines = [f"HTTP/1.0 {status} OK"] + [f"{k}: {v}" for k, v in headers.items()]
            if length is not None:
                lines.append(f"Content-Length: {length}")
            data = ("\r\n".join(lines) + "\r\n\r\n").encode() + (b"" if self.command == "HEAD" else body)
            self.close_connection = True
            try:
                if trickle:
                    start = time.monotonic()
                    for i in range(len(data)):
                        if time.monotonic() - start > TRICKLE_SECONDS:
                            self.wfile.write(data[i:])
                            break
                        self.wfile.write(data[i:i + 1])
                        if hub.closing(hub.trickle_interval):
                            return
                else:
                    self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _error(self, status: int, code: str | None, message: str, extra: dict[str, str] | None = None) -> None:
            headers = {"X-Error-Message": message, **(extra or {})}
            if code:
                headers["X-Error-Code"] = code
            self._send(status, json.dumps({"error": message}).encode(), headers)

        def _auth(self) -> str | None:
            return self.headers.get("Authorization")

        def _access(self, repo_id: str, repo: FakeRepo | None) -> bool:
            """Answer the Hub's access errors; True when the request may go on."""
            auth = self._auth()
            if repo is None:
                if auth is None:
                    self._error(401, "RepoNotFound", "Invalid username or password.")
                else:
                    self._error(404, "RepoNotFound", "Repository not found")
                return False
            if repo.kind == "gated" and auth != f"Bearer {ACCEPTED_TOKEN}":
                if auth is None:
                    self._error(401, "GatedRepo", f"Access to model {repo_id} is restricted. You must have access "
                                                  "to it and be authenticated to access it. Please log in.")
                else:
                    self._error(403, "GatedRepo", f"Access to model {repo_id} is restricted and you are not in "
                                                  "the authorized list.")
                return False
            if repo.kind == "private" and auth != f"Bearer {PRIVATE_TOKEN}":
                if auth is None:
                    self._error(401, "RepoNotFound", "Invalid username or password.")
                else:
                    self._error(401, None, "Invalid credentials in Authorization header")
                return False
            if repo.kind == "error500":
                self._error(500, None, "Internal Error - We're working hard to fix this as soon as possible!")
                return False
            return True

        # -- routes ----------------------------------------------------------------------------
        def _resolve(self, repo_id: str, rest: str) -> None:
            repo = hub.repos.get(repo_id)
            if not self._access(repo_id, repo):
                return
            assert repo is not None
            revision, _, filename = rest.partition("/")
            revision = unquote(revision)
            if revision not in ("main", repo.commit) and repo.kind != "any_revision":
                self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
                return
            if repo.kind == "slow_head" or (repo.kind == "slow_get" and self.command == "GET"):
                hub.sleep()
            body = repo.files.get(filename)
            if body is None:
                self._error(404, "EntryNotFound", "Entry not found", {"X-Repo-Commit": repo.commit})
                return
            etag = repo.etag if repo.etag is not None else f'"{hashlib.sha1(body).hexdigest()}"'
            commit = repo.commit_header or repo.commit
            headers = {"X-Repo-Commit": commit, "ETag": etag, "Content-Type": "text/plain; charset=utf-8"}
            if repo.location is not None:
                self._send(302, b"", {"X-Repo-Commit": commit, "X-Linked-Etag": etag,
                                      "X-Linked-Size": str(len(body)), "Location": repo.location})
            elif repo.kind == "trickle" or (repo.kind == "trickle_get" and self.command == "GET"):
                self._raw(200, body, headers, length=len(body), trickle=True)
            elif repo.kind == "gzip_bomb":
                bomb = _gzip_bomb()
                self._raw(200, bomb, {**headers, "Content-Encoding": "gzip"}, length=len(bomb))
            elif repo.kind == "no_length":
                self._raw(200, body, headers, length=None)
            elif repo.kind == "truncated":
                self._raw(200, body, headers, length=len(body) + 1000)
            elif self.command == "GET" and (wanted := _range(self.headers.get("Range"), len(body))):
                start, end = wanted                 # a byte range (the GGUF header reader asks for one)
                self._send(206, body[start:end + 1], {"X-Repo-Commit": commit, "ETag": etag,
                                                      "Content-Range": f"bytes {start}-{end}/{len(body)}"},
                           content_type="application/octet-stream")
            else:
                self._send(200, body, {"X-Repo-Commit": commit, "ETag": etag},
                           content_type="text/plain; charset=utf-8")

        def _model_info(self, repo_id: str, revision: str | None) -> None:
            repo = hub.repos.get(repo_id)
            if repo is None:
                self._access(repo_id, None)
                return
            if repo.kind in ("private", "error500") and not self._access(repo_id, repo):
                return
            if repo.kind == "slow_head":
                hub.sleep()
            if revision is not None and revision not in ("main", repo.commit):
                self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
                return
            info: dict[str, Any] = {"_id": "fake", "id": repo_id, "modelId": repo_id, "sha": repo.commit,
                                    "gated": repo.gated, "private": repo.kind == "private",
                                    "siblings": [{"rfilename": name} for name in sorted(repo.files)]}
            if repo.safetensors is not None:
                info["safetensors"] = repo.safetensors
            if repo.kind == "trickle":
                body = json.dumps(info).encode()
                self._raw(200, body, {"Content-Type": "application/json"}, length=len(body), trickle=True)
                return
            self._send(200, json.dumps(info).encode())

        def _route(self) -> None:
            path = urlsplit(self.path).path
            hub.record(self.command, path, self._auth())
            if path.startswith("/api/models/"):
                split = _split_repo(path[len("/api/models/"):])
                if split is None:
                    self._error(404, None, "Not found")
                    return
                repo_id, rest = split
                if rest == "":
                    self._model_info(repo_id, None)
                elif rest.startswith("revision/"):
                    self._model_info(repo_id, unquote(rest[len("revision/"):]))
                else:
                    self._error(404, None, "Not found")
                return
            if "/resolve/" in path:
                repo_id, _, rest = path.lstrip("/").partition("/resolve/")
                self._resolve(repo_id, rest)
                return
            self._error(404, None, "Not found")

        def do_HEAD(self) -> None:  # noqa: N802 - http.server naming
            self._route()

        def do_GET(self) -> None:  # noqa: N802
            self._route()

    return Handler


_BOMB: list[bytes] = []


def _gzip_bomb() -> bytes:
    """A config.json that is ~64 KiB gzip-compressed and :data:`BOMB_BYTES` inflated (valid JSON)."""
    if not _BOMB:
        _BOMB.append(gzip.compress(b'{"model_type": "llama", "pad": "' + b" " * BOMB_BYTES + b'"}', 6))
    return _BOMB[0]


def closed_port_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[FakeHub]:
    """A running :class:`FakeHub` with the environment pointed at it.

    Sets ``HF_ENDPOINT`` to the server, ``KVCALC_HUB_CACHE`` to a fresh folder, ``HF_HUB_OFFLINE=0``
    (and huggingface_hub's import-time copy to False), removes ``HF_TOKEN`` and proxies, and empties
    kvcalc's in-process Hub cache before and after.
    """
    import huggingface_hub.constants as hf_constants
    from huggingface_hub.utils import close_session

    from kvcalc.hub import clear_cache

    hub = FakeHub()
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("KVCALC_HUB_CACHE", str(tmp_path / "kvcalc-hub-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    close_session()          # the shared httpx client is rebuilt with this environment
    clear_cache()
    try:
        yield hub
    finally:
        hub.close()
        clear_cache()
        close_session()
