"""Frozen results of reading an engine startup log: quantities, recognised lines and the whole log.

Units: memory in bytes (GiB = 2**30, MiB = 2**20; the "GB" that vLLM < 0.8 and SGLang print is also
2**30 bytes: both divide by ``1 << 30``), token and block counts as integers, ratios as floats. Every
printed number keeps its text and the rounding it was printed with (``tolerance``, in the same unit as
``amount``), so a calibrated plan can say whether it agrees with the log within the log's own rounding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kvcalc.errors import InputError


class StartupLogError(InputError):
    """A startup log that cannot be read at all (too large, not text). Partial logs are not errors."""


@dataclass(frozen=True)
class Quantity:
    """One number (or word) printed on a log line.

    ``text`` is the number as printed, ``unit`` the printed unit ("GiB", "GB", "MiB", "bytes",
    "tokens", "blocks", "x", "s", "" for plain counts and fractions, "text" for words),
    ``amount`` the value in base units (bytes for memory units, otherwise the number itself;
    ``None`` for words) and ``tolerance`` half the last printed digit in the same base unit.

    >>> q = Quantity("weights", "14.9888", "GB", 16094101452, 53687.09)
    >>> round(q.gib, 4)
    14.9888
    """

    name: str
    text: str
    unit: str
    amount: int | float | None
    tolerance: float = 0.0

    @property
    def gib(self) -> float:
        """The amount in GiB (2**30 bytes); only meaningful for memory quantities."""
        return float(self.amount or 0) / 2**30

    def agrees(self, value: float) -> bool:
        """True when ``value`` (base units) rounds to what the log printed (within ``tolerance``)."""
        if self.amount is None:
            return False
        return abs(float(value) - float(self.amount)) <= self.tolerance + 1e-9 * max(1.0, abs(float(self.amount)))


@dataclass(frozen=True)
class LogLine:
    """A recognised line: its ``kind`` (e.g. "kv_tokens"), the raw text as found (capped), the 1-based
    line number, the rank / device prefix it carried (``None`` when it had none) and its quantities."""

    kind: str
    raw: str
    line_no: int
    rank: str | None
    values: tuple[Quantity, ...]

    def get(self, name: str) -> Quantity | None:
        """The quantity called ``name`` on this line, or ``None``."""
        return next((q for q in self.values if q.name == name), None)


@dataclass(frozen=True)
class StartupLog:
    """A parsed startup log.

    ``engine`` is "vllm", "sglang", "llama_cpp", "tensorrt_llm" or "unknown"; ``version`` the engine
    version where the log states it (``version_line`` is that line); ``lines`` every recognised line
    in order; ``missing`` one sentence per expected line the log lacks; ``unknown`` the first
    unrecognised lines as plain text (never interpreted), ``unknown_count`` how many there were;
    ``other_engines`` engines whose lines also appear; ``truncated`` whether the reader stopped at its
    line limit.
    """

    engine: str
    version: str | None
    version_line: str | None
    lines: tuple[LogLine, ...]
    missing: tuple[str, ...]
    unknown: tuple[str, ...]
    unknown_count: int
    other_engines: tuple[str, ...] = ()
    truncated: bool = False
    line_count: int = 0
    kinds: tuple[str, ...] = field(default=())

    def find(self, kind: str) -> tuple[LogLine, ...]:
        """Every recognised line of ``kind``, in log order."""
        return tuple(x for x in self.lines if x.kind == kind)

    def value(self, name: str, rank: str | None = "head") -> Quantity | None:
        """The quantity ``name`` from the head rank (no prefix, or a rank / device ending in 0) when
        ``rank`` is "head", from that exact rank otherwise; falls back to the first rank that has it."""
        found = [(x, q) for x in self.lines for q in x.values if q.name == name]
        if not found:
            return None
        if rank == "head":
            head = [q for x, q in found if is_head_rank(x.rank)]
            return head[0] if head else found[0][1]
        exact = [q for x, q in found if x.rank == rank]
        return exact[0] if exact else None

    def values(self, name: str) -> tuple[tuple[str | None, Quantity], ...]:
        """Every (rank, quantity) pair called ``name``: per-rank and per-device values."""
        return tuple((x.rank, q) for x in self.lines for q in x.values if q.name == name)

    def ranks(self) -> tuple[str, ...]:
        """The distinct rank / device prefixes seen, in order of first appearance."""
        seen: dict[str, None] = {}
        for x in self.lines:
            if x.rank is not None:
                seen.setdefault(x.rank, None)
        return tuple(seen)


def is_head_rank(rank: str | None) -> bool:
    """The rank whose lines speak for the engine: none given, or one numbered 0 (TP0, rank0, DP0,
    PP0, CUDA0); vLLM < 0.8's ``VllmWorkerProcess`` lines come from the non-driver workers.

    >>> [is_head_rank(r) for r in (None, "TP0", "TP1", "CUDA0", "worker:521")]
    [True, True, False, True, False]
    """
    if rank is None:
        return True
    return not rank.startswith("worker:") and rank.endswith("0") and not rank[:-1].endswith(tuple("123456789"))
