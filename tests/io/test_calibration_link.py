"""The calibration carried in a share link (dashboard/calibration_state.py): JSON -> zlib -> URL-safe base64,
decoded strictly. Every calibration a real public log gives round-trips in a few hundred characters;
hostile, oversized, garbled and tampered values are refused with a reason (the page then plans
uncalibrated), a zip bomb stops at the inflation bound."""
from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import pytest
from paths import ROOT

from dashboard.calibration_state import (
    MAX_CALIBRATION_CHARS,
    CalibrationLinkError,
    decode_calibration,
    encode_calibration,
)
from kvcalc.startup_log import calibration_flags, parse_startup_log

LOGS = Path(ROOT) / "tests" / "fixtures" / "startup_logs"


def _pack(obj: object) -> str:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw)).decode().rstrip("=")


def _record(name: str) -> dict[str, object]:
    log = parse_startup_log((LOGS / name).read_text(encoding="utf-8"))
    observed = {q.name: [q.name, q.text, q.unit] for x in log.lines for q in x.values
                if q.amount is not None and q.name != "device"}
    return {"v": 1, "engine": log.engine, "flags": calibration_flags(log), "observed": list(observed.values())}


@pytest.mark.parametrize("name", sorted(p.name for p in LOGS.glob("*.log")))
def test_every_fixture_calibration_round_trips_small(name: str) -> None:
    record = _record(name)
    if record["engine"] == "unknown" or len(record["observed"]) > 48:     # type: ignore[arg-type]
        return
    text = encode_calibration(record)
    assert len(text) <= 1500 and decode_calibration(text) == json.loads(json.dumps(record))


@pytest.mark.parametrize("value", [
    "", "!!!!", "a" * (MAX_CALIBRATION_CHARS + 1), "eNotjEEKgzAUBe", _pack(b"\xff\xfe not json"),
    _pack([1, 2]), _pack({"v": 2, "engine": "vllm", "flags": {}, "observed": []}),
    _pack({"v": 1, "engine": "hacker", "flags": {}, "observed": []}),
    _pack({"v": 1, "engine": "vllm", "flags": {"--weights-gib": -5.0}, "observed": []}),
    _pack({"v": 1, "engine": "vllm", "flags": {"-tp": 0}, "observed": []}),
    _pack({"v": 1, "engine": "vllm", "flags": {"--no-such-flag": 1}, "observed": []}),
    _pack({"v": 1, "engine": "vllm", "flags": {"--weights-gib": True}, "observed": []}),
    _pack({"v": 1, "engine": "vllm", "flags": {"--kv-cache-dtype": "fp8; rm -rf ~"}, "observed": []}),
    _pack({"v": 1, "engine": "vllm", "flags": {}, "observed": [["kv_tokens", "![x](http://h/t.png)", ""]]}),
    _pack({"v": 1, "engine": "vllm", "flags": {}, "observed": [["x", "1", ""]] * 49}),
    _pack({"v": 1, "engine": "vllm", "flags": {}, "observed": [], "extra": 1}),
    _pack(b"[" * 5000),
])
def test_hostile_or_garbled_calibrations_are_refused(value: str) -> None:
    with pytest.raises(CalibrationLinkError):
        decode_calibration(value)


def test_a_zip_bomb_stops_at_the_inflation_bound() -> None:
    bomb = _pack(b'{"v":1,"engine":"vllm","flags":{},"observed":[],"pad":"' + b"x" * 50_000_000 + b'"}')
    assert len(bomb) <= MAX_CALIBRATION_CHARS * 20
    with pytest.raises(CalibrationLinkError, match="inflates past|at most"):
        decode_calibration(bomb)


def test_a_tampered_value_is_refused() -> None:
    good = encode_calibration(_record("vllm__llama-3.1-8b-instruct__1.log"))
    flipped = good[:20] + ("A" if good[20] != "A" else "B") + good[21:]
    with pytest.raises(CalibrationLinkError):
        decode_calibration(flipped)
