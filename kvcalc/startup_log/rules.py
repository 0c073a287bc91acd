"""The matching machinery shared by every engine's line formats.

A ``Rule`` names a literal ``marker`` (found with ``str.find``) and a regular expression that must
match starting at that marker, with named groups for the quantities and their units. Every regex in
the engine modules is anchored at its marker and uses bounded repeats, so matching is linear in the
line's length whatever the text is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kvcalc.startup_log.text import MAX_RAW_CHARS, CleanLine, rank_of
from kvcalc.startup_log.types import LogLine, Quantity

INT = r"(?:[0-9]{1,3}(?:,[0-9]{3}){1,8}(?![0-9])|[0-9]{1,24}(?![0-9]))"  # 1952 / 42,656 / 2,042,016
NUM = rf"{INT}(?:\.[0-9]{{1,12}})?"  # 14.9888 / 0.90 / 1,234.5
_SCALE = {"GiB": 2**30, "GB": 2**30, "MiB": 2**20, "MB": 2**20, "KiB": 2**10, "bytes": 1}


@dataclass(frozen=True)
class Rule:
    """One line format: ``kind`` of the line, its literal ``marker``, the ``pattern`` matched from
    the marker on, and ``fields``: (group name, unit) pairs; a unit of "@g" takes the unit printed
    in group ``g``. Units: GiB / GB (both 2**30 bytes) / MiB / bytes, tokens, blocks, x, s, "" and
    text. ``source`` is the engine code that prints the line (file, function, releases)."""

    kind: str
    marker: str
    pattern: str
    fields: tuple[tuple[str, str], ...]
    source: str = ""
    back: int = 0  # characters before the marker the pattern may start at (a device name)

    @property
    def regex(self) -> re.Pattern[str]:
        return _compiled(self.pattern)


_CACHE: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    found = _CACHE.get(pattern)
    if found is None:
        found = _CACHE[pattern] = re.compile(pattern)
    return found


def quantity(name: str, text: str, unit: str) -> Quantity:
    """A printed number as a Quantity in base units, with half its last digit as tolerance.

    >>> q = quantity("available_kv", "6.51", "GiB")
    >>> q.amount, q.tolerance == 0.005 * 2**30
    (6990059274, True)
    >>> quantity("kv_tokens", "42,656", "tokens").amount
    42656
    """
    if unit == "text":
        return Quantity(name, text, unit, None)
    digits = text.replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    scale = _SCALE.get(unit, 1)
    half = 0.5 * 10.0**-decimals * scale if decimals else (0.5 * scale if scale > 1 else 0.0)
    if decimals == 0 and scale == 1:
        return Quantity(name, text, unit, int(digits), 0.0)
    value = float(digits) * scale
    amount: int | float = int(round(value)) if scale > 1 else value
    return Quantity(name, text, unit, amount, half)


def _match(rule: Rule, text: str, idx: int) -> re.Match[str] | None:
    """The rule's match at the marker (or, for rules with ``back``, in a window just before it)."""
    if not rule.back:
        return rule.regex.match(text, idx)
    start = max(0, idx - rule.back)
    return rule.regex.search(text, start, min(len(text), idx + len(rule.marker) + 512))


def apply(rule: Rule, line: CleanLine, following: CleanLine | None) -> LogLine | None:
    """The LogLine ``rule`` reads from ``line`` (joined with ``following`` when the line was
    wrapped before its end), or None."""
    idx = line.text.find(rule.marker)
    if idx < 0:
        return None
    m = _match(rule, line.text, idx)
    raw = line.raw
    if m is None and following is not None:
        m = _match(rule, line.text + " " + following.text.strip(), idx)
        raw = (line.raw + "\n" + following.raw)[: 2 * MAX_RAW_CHARS]
    if m is None:
        return None
    idx = min(idx, m.start())
    values = []
    for group, unit in rule.fields:
        text = m.group(group)
        if text is None:
            continue
        printed = m.group(unit[1:]) if unit.startswith("@") else unit
        values.append(quantity(group, text, printed or ""))
    device = next((q.text for q in values if q.name == "device"), None)
    return LogLine(rule.kind, raw, line.line_no, device or rank_of(line.text[:idx]), tuple(values))


def version_rule(marker: str, pattern: str, source: str) -> Rule:
    """The rule for a line that prints the engine's version: ``pattern`` (matched from ``marker``) names it in
    the group ``version``; ``source`` is the engine code that prints it.

    >>> version_rule("build: ", r"build: (?P<version>[0-9]{1,6})", "common.cpp").fields
    (('version', 'text'),)
    """
    return Rule("version", marker, pattern, (("version", "text"),), source)
