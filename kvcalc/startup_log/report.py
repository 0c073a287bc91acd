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


_PART_SOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "activation_peak": ("--activation-gib", ("activation", "peak_torch")),
    "non_torch": ("--non-torch-gib", ("non_torch",)),
    "cuda_graphs": ("--cuda-graph-gib", ("cuda_graph",)),
    "used_before_load": ("--non-torch-gib", ("non_torch",)),
    "runtime_buffers": ("--non-torch-gib", ("non_torch",)),
}
"""Each overhead part (Engine.overhead_parts) -> the calibration flag that measures it and the log figures
it is read from."""


def overhead_sources(plan: Mapping[str, Any], log: StartupLog, flags: Flags) -> dict[str, dict[str, Any]]:
    """Each of the plan's ``overhead_parts``: its bytes, whether the log measured it (the calibration set its
    flag) and the log line it came from; the others are the engine rules' estimates.

    >>> from kvcalc.startup_log.parse import parse_startup_log
    >>> log = parse_startup_log("Graph capturing finished in 14 secs, took 0.21 GiB")
    >>> r = overhead_sources({"overhead_parts": {"cuda_graphs": 225485783, "non_torch": 1}}, log,
    ...                      {"--cuda-graph-gib": 0.21})
    >>> r["cuda_graphs"]["measured"], r["non_torch"]["measured"]
    (True, False)
    """
    out: dict[str, dict[str, Any]] = {}
    for part, size in (plan.get("overhead_parts") or {}).items():
        flag, names = _PART_SOURCES.get(part, ("", ()))
        line = next((x.raw for name in names for x in log.lines if x.get(name) is not None), None)
        measured = bool(flag) and flag in flags and line is not None
        out[part] = {"bytes": size, "measured": measured, "line": line if measured else None}
    return out


def startup_log_report(plan: Mapping[str, Any], log: StartupLog, flags: Flags,
                       check: ModelCheck | None = None) -> dict[str, Any]:
    """A JSON-ready record: engine, version, the flags the log set, the model check, every expected line
    missing, the unrecognised-line count, one row per logged figure against ``plan`` (``plan --json``) and
    each overhead part measured (from which line) or estimated (:func:`overhead_sources`).
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
        "overhead_parts": overhead_sources(plan, log, flags),
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
