"""A startup-log calibration's URL parameters (the calibration carried in a share link).

Rows of :data:`dashboard.state.PARAMS`, built from :class:`dashboard.url_params.Param`; see
dashboard.state for how the link is checked and carried between pages.

The link carries the calibrated measurements, never the log: ``{"v": 1, "engine": runtime, "flags":
{kvcalc plan flag: value}, "observed": [[figure, printed text, unit], ...]}`` as compact JSON, zlib,
URL-safe base64 without padding (a few hundred bytes; at most :data:`MAX_CALIBRATION_CHARS`). Decoding
is strict: bounded inflation, exact keys, known engine, flag values ``kvcalc plan`` accepts within its
bounds; anything else is refused with a reason, and the page then plans uncalibrated.
"""
from __future__ import annotations

import base64
import binascii
import contextlib
import io
import json
import re
import zlib
from collections.abc import Mapping
from typing import Any

from .url_params import PLANNER, Param

CALIBRATION_KEY = "cal"
MAX_CALIBRATION_CHARS = 4096          # encoded, in the link
MAX_CALIBRATION_JSON = 8192           # bytes after inflating
MAX_FLAGS, MAX_OBSERVED = 24, 48
_FLAG = re.compile(r"-{1,2}[a-z][a-z0-9-]{0,40}")
_TEXT = re.compile(r"[A-Za-z0-9_.,+:-]{1,40}")
_NAME = re.compile(r"[a-z][a-z0-9_]{0,40}")


class CalibrationLinkError(ValueError):
    """A calibration value in a link that is not one this page wrote (tampered, garbled, oversized)."""


def encode_calibration(calibration: Mapping[str, Any]) -> str:
    """The link text of a calibration record (module docstring).

    >>> text = encode_calibration({"v": 1, "engine": "vllm", "flags": {"--weights-gib": 14.99}, "observed": []})
    >>> decode_calibration(text)["flags"]
    {'--weights-gib': 14.99}
    """
    raw = json.dumps(calibration, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def _inflate(text: str) -> bytes:
    if not text or len(text) > MAX_CALIBRATION_CHARS or not re.fullmatch(r"[A-Za-z0-9_-]+", text):
        raise CalibrationLinkError(f"is not a calibration (URL-safe base64 of at most {MAX_CALIBRATION_CHARS} "
                                   "characters)")
    try:
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_CALIBRATION_JSON + 1)
    except (binascii.Error, ValueError, zlib.error):
        raise CalibrationLinkError("is not a calibration this page wrote (garbled)") from None
    if len(raw) > MAX_CALIBRATION_JSON or inflater.unconsumed_tail or not inflater.eof:
        raise CalibrationLinkError(f"inflates past {MAX_CALIBRATION_JSON:,} bytes or is cut short")
    return raw


def _value_ok(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):       # counts, sizes and bytes: at least 1
        return 1 <= value <= 2**62
    if isinstance(value, float):     # GiB and fractions: finite, not negative
        return value == value and 0 <= value <= 1e15
    return isinstance(value, str) and _TEXT.fullmatch(value) is not None


def _check_record(record: Any) -> dict[str, Any]:
    from kvcalc.engines.registry import names

    if not isinstance(record, dict) or set(record) != {"v", "engine", "flags", "observed"} or record["v"] != 1:
        raise CalibrationLinkError("is not a calibration record of this version")
    flags, observed = record["flags"], record["observed"]
    if record["engine"] not in names():
        raise CalibrationLinkError("names no known engine")
    if not isinstance(flags, dict) or len(flags) > MAX_FLAGS or not all(
            isinstance(k, str) and _FLAG.fullmatch(k) and _value_ok(v) for k, v in flags.items()):
        raise CalibrationLinkError("has flags that are not plan flags")
    if not isinstance(observed, list) or len(observed) > MAX_OBSERVED or not all(
            isinstance(row, list) and len(row) == 3 and all(isinstance(x, str) for x in row)
            and _NAME.fullmatch(row[0]) and _TEXT.fullmatch(row[1]) and (row[2] == "" or _TEXT.fullmatch(row[2]))
            for row in observed):
        raise CalibrationLinkError("has observed figures that are not log figures")
    _plan_accepts(flags)
    return record


def _plan_accepts(flags: Mapping[str, Any]) -> None:
    """``kvcalc plan`` reads the flags within its bounds (its own parser, errors swallowed into a reason)."""
    from kvcalc.cli import build_parser
    from kvcalc.startup_log import calibration_argv

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            build_parser().parse_args(["plan", "model", *calibration_argv(flags)])
    except (SystemExit, Exception):     # argparse's exit, kvcalc.cli.CliError, a bound's ValueError
        raise CalibrationLinkError("has a flag value kvcalc plan refuses") from None


def decode_calibration(text: str) -> dict[str, Any]:
    """The calibration record of a link value; CalibrationLinkError saying why it is refused.

    >>> decode_calibration("garbled!")
    Traceback (most recent call last):
    ...
    dashboard.calibration_state.CalibrationLinkError: is not a calibration (URL-safe base64 of at most 4096 characters)
    """
    raw = _inflate(text)
    try:
        record = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise CalibrationLinkError("is not a calibration this page wrote (not JSON)") from None
    return _check_record(record)


def _check(value: str) -> str | None:
    try:
        decode_calibration(value)
    except CalibrationLinkError as e:
        return str(e)
    return None


CALIBRATION_PARAMS: tuple[Param, ...] = (
    Param(CALIBRATION_KEY, _check, frozenset({PLANNER}), max_chars=MAX_CALIBRATION_CHARS, url_only=True),
)
