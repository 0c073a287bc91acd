"""The first bytes of a .gguf that arrives on a pipe, FIFO or ``<(process substitution)``, in bounded time.

A FIFO is opened with ``O_NONBLOCK`` (so it opens without a writer) and its bytes are awaited with
``select`` until end of file, :data:`~kvcalc.gguf.reader.MAX_HEADER_BYTES` (the header is at its start;
the tensor data after it is never needed), or ``timeout`` seconds in all, whichever comes first;
after :data:`WAIT_NOTICE_S` s with nothing, one warning on the ``kvcalc`` logger says what is awaited.
The same bounds as a config.json on a FIFO (:func:`kvcalc.sources.read_config_fd`), with the
header's cap instead of the config's.
"""
from __future__ import annotations

import logging
import os
import select
import time

from ..errors import InputError
from .reader import MAX_HEADER_BYTES

WAIT_NOTICE_S = 2.0
"""Seconds of silence on a pipe before the note that kvcalc is waiting for it."""
_CHUNK = 1 << 20


def read_stream_prefix(fd: int, label: str, *, timeout: float, cap: int = MAX_HEADER_BYTES) -> bytes:
    """At most ``cap`` bytes of the non-regular file ``fd`` (opened non-blocking), until end of file, in
    at most ``timeout`` s; InputError naming ``label`` when nothing (or not enough to end) arrives in time."""
    start = time.monotonic()
    deadline, notice_at = start + timeout, start + WAIT_NOTICE_S
    chunks: list[bytes] = []
    size = 0
    while size < cap:
        now = time.monotonic()
        if now >= deadline:
            if size:        # a prefix is enough: the header is at the start (the reader says if it is cut)
                break
            raise InputError(f"nothing arrived on {label} within {timeout:g} s: the writer must send the .gguf "
                             "(its first MiBs are enough) and close it; raise the timeout (--timeout) for a slow one")
        until = notice_at if notice_at and not size and notice_at < deadline else deadline
        if not select.select([fd], [], [], max(0.0, until - now))[0]:
            if notice_at and not size and time.monotonic() >= notice_at:
                notice_at = 0.0
                logging.getLogger("kvcalc").warning(
                    "waiting for a .gguf on %s (nothing yet; giving up after %g s)", label, timeout)
            continue
        try:
            chunk = os.read(fd, min(_CHUNK, cap - size))
        except BlockingIOError:
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
