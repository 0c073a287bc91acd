"""One wall-clock deadline for every network call of a fetch (HEAD, model_info, download).

httpx's timeouts bound each socket operation, not a request: a server that trickles its headers
one byte every 0.5 s never trips a 5 s read timeout (measured: ``--timeout 5`` held the HEAD for
44.7 s). Here each fetch gets its own ``httpx2.Client`` whose network backend (httpcore2's
``NetworkBackend``) clamps every connect, read, write and TLS handshake to the time left before
the fetch's deadline and raises :class:`DeadlineExceeded` once it has passed. Everything runs in
the caller's thread: when the deadline passes the socket operation fails, the connection is
closed by httpcore, and no background thread is left behind. (Name resolution,
``getaddrinfo``, is the one step no socket timeout bounds.)

The client otherwise matches huggingface_hub 2.4's ``default_client_factory``
(``utils/_http.py``): its request hook (offline mode, request id, debug log without the token),
proxies from the environment, no overall httpx timeout of its own.
"""
from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2


class DeadlineExceeded(Exception):
    """The fetch's deadline passed during a network call."""


class Deadline:
    """``seconds`` from now on the monotonic clock."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left; raises :class:`DeadlineExceeded` when none are."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded()
        return left

    def clamp(self, timeout: float | None) -> float:
        left = self.left()
        return left if timeout is None else min(timeout, left)


class _Stream(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream, deadline: Deadline):
        self._inner, self._deadline = inner, deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        t = self._deadline.clamp(timeout)
        try:
            return self._inner.read(max_bytes, t)
        except httpcore2.ReadTimeout:
            self._deadline.left()          # the deadline's own expiry reads as DeadlineExceeded
            raise

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        t = self._deadline.clamp(timeout)
        try:
            self._inner.write(buffer, t)
        except httpcore2.WriteTimeout:
            self._deadline.left()
            raise

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        inner = self._inner.start_tls(ssl_context, server_hostname, self._deadline.clamp(timeout))
        return _Stream(inner, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore2.NetworkBackend):
    def __init__(self, inner: httpcore2.NetworkBackend, deadline: Deadline):
        self._inner, self._deadline = inner, deadline

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
        stream = self._inner.connect_tcp(host, port, self._deadline.clamp(timeout), local_address, socket_options)
        return _Stream(stream, self._deadline)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
        stream = self._inner.connect_unix_socket(path, self._deadline.clamp(timeout), socket_options)
        return _Stream(stream, self._deadline)

    def sleep(self, seconds: float) -> None:
        time.sleep(min(seconds, self._deadline.left()))


def deadline_client(deadline: Deadline) -> httpx2.Client:
    """A fresh client whose every connection obeys ``deadline``; close it when the fetch ends."""
    try:   # a private name of huggingface_hub 2.4; without it only its request id and debug log are missed
        from huggingface_hub.utils._http import hf_request_event_hook
        hooks = {"request": [hf_request_event_hook]}
    except ImportError:  # pragma: no cover - another huggingface_hub
        hooks = {}
    client = httpx2.Client(event_hooks=hooks, follow_redirects=False, timeout=deadline.seconds)
    transports = [client._transport, *client._mounts.values()]
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        if transport is not None and not hasattr(pool, "_network_backend"):
            client.close()
            raise RuntimeError("httpx2's transport has changed: cannot bound its connections by a deadline")
        if pool is not None:
            pool._network_backend = _Backend(pool._network_backend, deadline)
    return client
