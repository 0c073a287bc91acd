"""The printed values of a startup log as ``kvcalc plan`` flag values (shared by every engine's calibrator).

``Flags`` maps a CLI flag to its value in CLI units: GiB floats for the ``--*-gib`` flags, bytes for
``--kv-cache-memory``, tokens, fractions, text.
"""
from __future__ import annotations

from kvcalc.startup_log.types import Quantity, StartupLog

Flags = dict[str, "int | float | str"]


def gib(q: Quantity) -> float:
    """A memory quantity in GiB as printed (the printed digits when printed in GiB / GB).

    >>> from kvcalc.startup_log.rules import quantity
    >>> gib(quantity("weights", "14.9888", "GB")), gib(quantity("kv", "512", "MiB"))
    (14.9888, 0.5)
    """
    if q.unit in ("GiB", "GB"):
        return float(q.text.replace(",", ""))
    return round(q.gib, 6)


def number(q: Quantity, kind: type) -> int | float | str:
    """The printed number as ``kind`` (int, float or str), thousands separators dropped."""
    if kind is str:
        return q.text
    return kind(float(q.text.replace(",", ""))) if kind is int else float(q.text.replace(",", ""))


def pick(log: StartupLog, table: tuple[tuple[str, str, type], ...]) -> Flags:
    """flag -> value for every (quantity name, flag, kind) of ``table`` the log prints (head rank)."""
    out: Flags = {}
    for name, flag, kind in table:
        q = log.value(name)
        if q is not None:
            out[flag] = number(q, kind)
    return out


GIB_FLAGS = (
    ("weights", "--weights-gib"),
    ("activation", "--activation-gib"),
    ("non_torch", "--non-torch-gib"),
    ("cuda_graph", "--cuda-graph-gib"),
    ("total_gpu_memory", "--gpu-mem-gib"),
)
"""(quantity name, ``kvcalc plan`` flag) of the memory figures a log may measure, in GiB."""


def gib_flags(log: StartupLog, kept: frozenset[str]) -> Flags:
    """The :data:`GIB_FLAGS` in ``kept`` that the log prints, flag -> GiB as printed."""
    out: Flags = {}
    for name, flag in GIB_FLAGS:
        q = log.value(name)
        if q is not None and flag in kept:
            out[flag] = gib(q)
    return out
