"""Reading a pasted startup log safely: size bound, line bound, colour codes and prefixes removed.

The reader never interprets text beyond the fixed markers of each engine: a line is cut to
``MAX_LINE_CHARS`` before any pattern sees it, patterns are anchored at a literal marker found with
``str.find`` and use bounded repeats only, so hostile input costs time linear in its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvcalc.startup_log.types import StartupLogError

MAX_LOG_BYTES = 4 * 2**20  # 4 MiB: larger pastes are refused with StartupLogError
MAX_LINES = 200_000  # lines read at most; the rest is counted as truncated
MAX_LINE_CHARS = 4096  # characters of one line that patterns see
MAX_RAW_CHARS = 1000  # characters of one line kept as its raw text

# ESC [ ... m colour codes, and the same codes whose ESC byte was lost in a copy ("[34m", "[0m").
_ANSI = re.compile(r"\x1b\[[0-9;]{0,16}[A-Za-z]|\[[0-9]{1,3}(?:;[0-9]{1,3}){0,4}m")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_RANK_PATTERNS = (
    (re.compile(r"rank=(\d{1,5})"), "rank{}"),
    (re.compile(r"_TP(\d{1,5})\b"), "TP{}"),
    (re.compile(r" TP(\d{1,5})\]"), "TP{}"),
    (re.compile(r"_PP(\d{1,5})\b"), "PP{}"),
    (re.compile(r"VllmWorkerProcess pid=(\d{1,10})"), "worker:{}"),
)


@dataclass(frozen=True)
class CleanLine:
    """A physical log line: its 1-based number, the text patterns see (colours and control
    characters removed, cut to MAX_LINE_CHARS) and the raw text kept for display (cut)."""

    line_no: int
    text: str
    raw: str


def decode(data: str | bytes) -> str:
    """The log as text, refusing more than MAX_LOG_BYTES (4 MiB) with a StartupLogError.

    >>> decode(b"GPU KV cache size: 42,656 tokens")
    'GPU KV cache size: 42,656 tokens'
    """
    if isinstance(data, bytes):
        if len(data) > MAX_LOG_BYTES:
            raise StartupLogError(f"startup log is {len(data):,} bytes; at most {MAX_LOG_BYTES:,} (4 MiB) are read")
        return data.decode("utf-8", errors="replace")
    if not isinstance(data, str):
        raise StartupLogError(f"startup log must be text, not {type(data).__name__}")
    if len(data) > MAX_LOG_BYTES or len(data.encode("utf-8", errors="replace")) > MAX_LOG_BYTES:
        raise StartupLogError(f"startup log is over {MAX_LOG_BYTES:,} bytes (4 MiB); paste the startup part only")
    return data


def clean_lines(text: str) -> tuple[list[CleanLine], bool]:
    """The log's lines, cleaned, and whether MAX_LINES cut it short.

    >>> lines, cut = clean_lines("\\x1b[32mINFO\\x1b[0m GPU KV cache size: 16 tokens\\r\\n")
    >>> lines[0].text, cut
    ('INFO GPU KV cache size: 16 tokens', False)
    """
    out: list[CleanLine] = []
    truncated = False
    for n, physical in enumerate(text.splitlines(), start=1):
        if n > MAX_LINES:
            truncated = True
            break
        head = physical[: MAX_LINE_CHARS + 64]
        cleaned = _CONTROL.sub("", _ANSI.sub("", head))[:MAX_LINE_CHARS]
        out.append(CleanLine(n, cleaned, _CONTROL.sub("", physical[:MAX_RAW_CHARS])))
    return out, truncated


def rank_of(prefix: str) -> str | None:
    """The rank a line's prefix names: ``(VllmWorker rank=1 pid=106)`` -> "rank1",
    ``(Worker_TP1 pid=100)`` -> "TP1", ``[2025-03-08 12:29:13 TP0]`` -> "TP0",
    ``(VllmWorkerProcess pid=521)`` -> "worker:521" (vLLM < 0.8's non-driver workers); else None.

    >>> rank_of("(Worker_TP1 pid=100) INFO 05-07 20:28:11 [gpu_worker.py:475] ")
    'TP1'
    """
    tail = prefix[-200:]
    for pattern, shape in _RANK_PATTERNS:
        m = pattern.search(tail)
        if m:
            return shape.format(m.group(1))
    return None
