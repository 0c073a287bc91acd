"""The startup-log part of a calibrated plan, as JSON and as text lines (``plan --startup-log``)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kvcalc.startup_log.calibrate import Comparison, Flags, predicted_vs_observed
from kvcalc.startup_log.checks import ModelCheck
from kvcalc.startup_log.types import StartupLog


def _row(c: Comparison) -> dict[str, Any]:
    return {"name": c.name, "observed": c.observed.text, "unit": c.observed.unit, "observed_amount": c.observed.amount,
            "predicted_amount": c.predicted, "predicted": c.predicted_text, "agrees": c.agrees, "note": c.note,
            "line": c.line}


def startup_log_report(plan: Mapping[str, Any], log: StartupLog, flags: Flags,
                       check: ModelCheck | None = None) -> dict[str, Any]:
    """A JSON-ready record: engine, version, the flags the log set, the model check, every expected line
    missing, the unrecognised-line count and one row per logged figure against ``plan`` (``plan --json``).
    Amounts are in base units (bytes, tokens); ``observed`` / ``predicted`` as printed.

    >>> from kvcalc.startup_log.parse import parse_startup_log
    >>> log = parse_startup_log("GPU KV cache size: 31,232 tokens")
    >>> r = startup_log_report({"kv_cache_tokens": 31232}, log, {"--kv-cache-memory": 4093640704})
    >>> r["engine"], r["rows"][0]["agrees"], r["flags"]["--kv-cache-memory"]
    ('vllm', True, 4093640704)
    """
    return {
        "engine": log.engine, "version": log.version, "flags": dict(flags),
        "model_check": None if check is None else {"consistent": check.consistent, "reasons": list(check.reasons)},
        "missing": list(log.missing), "unknown_lines": log.unknown_count, "truncated": log.truncated,
        "rows": [_row(c) for c in predicted_vs_observed(plan, log)],
    }


def startup_log_lines(report: Mapping[str, Any]) -> list[str]:
    """The report as text: one "name  observed  predicted  agrees" line per figure, then the notes.

    >>> startup_log_lines({"engine": "vllm", "version": None, "flags": {}, "model_check": None, "missing": [],
    ...     "unknown_lines": 0, "truncated": False, "rows": [{"name": "kv_tokens", "observed": "31,232",
    ...     "unit": "tokens", "predicted": "31,232", "agrees": True, "note": ""}]})[1]
    '  kv_tokens                 31,232 tokens        31,232               yes'
    """
    version = f" {report['version']}" if report.get("version") else ""
    out = [f"startup log: {report['engine']}{version}; calibrated with "
           f"{' '.join(f'{k} {v}' for k, v in report['flags'].items()) or 'nothing'}"]
    for r in report["rows"]:
        seen = f"{r['observed']} {r['unit']}".strip()
        verdict = {True: "yes", False: "NO", None: "-"}[r["agrees"]]
        out.append(f"  {r['name']:<24}  {seen:<19}  {r['predicted'] or '(no figure)':<19}  {verdict}")
    check = report.get("model_check")
    if check and check["consistent"] is False:
        out += [f"  model check: {x}" for x in check["reasons"]]
    out += [f"  missing: {m}" for m in report["missing"]]
    if report.get("truncated"):
        out.append("  the log was cut at its line limit")
    return out
