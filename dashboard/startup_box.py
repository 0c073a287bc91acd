"""The Planner's "Calibrate with your startup log" box: paste or upload an engine's startup log, and the plan
uses what it measured (kvcalc.startup_log, as ``kvcalc plan MODEL --startup-log FILE`` does), shows
predicted vs observed for every figure the log prints, and carries the calibration in the share link
(dashboard.calibration_state: the measurements, never the log).

The log is read at most :data:`kvcalc.startup_log.MAX_LOG_BYTES` (4 MiB) and is only ever shown as text
(dashboard.text). A log of another engine than the sidebar's runtime is named and not applied; a log of
another model or engine version is said so.
"""
from __future__ import annotations

import contextlib
import io
from collections.abc import Mapping
from typing import Any

import streamlit as st

from kvcalc.errors import KVCalcError
from kvcalc.scenarios import Planned, plan_scenario
from kvcalc.startup_log import (
    MAX_LOG_BYTES,
    StartupLog,
    calibrate,
    calibration_argv,
    check_model,
    parse_startup_log,
    predicted_vs_observed,
)
from kvcalc.startup_log.rules import quantity
from kvcalc.startup_log.types import LogLine

from . import state
from .calibration_state import CALIBRATION_KEY, CalibrationLinkError, decode_calibration, encode_calibration
from .text import md, safe_rows

_RENAMED = {"gguf_type": "gguf"}           # CLI dest -> deploy keyword where they differ (kvcalc.cli._deployment)
_SKIPPED = {"command", "config"}


def calibrated_options(options: Mapping[str, Any], flags: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` (kvcalc.deploy keywords) with every option the log measured, read through ``kvcalc plan``'s
    own parser as the CLI reads ``--startup-log`` (kvcalc.cli._apply_startup_log); a measured GPU memory
    replaces the GPU picked, a parallel size sets the GPU count. ValueError for flags the parser refuses."""
    from kvcalc.cli import build_parser

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            measured = vars(build_parser().parse_args(["plan", "model", *calibration_argv(flags)]))
            defaults = vars(build_parser().parse_args(["plan", "model"]))
    except (SystemExit, Exception):     # argparse's exit, kvcalc.cli.CliError, a bound's ValueError
        raise ValueError("the calibration has a value kvcalc plan refuses") from None
    out = dict(options)
    for key, value in measured.items():
        if key not in _SKIPPED and value != defaults.get(key):
            out[_RENAMED.get(key, key)] = value
    if "--gpu-mem-gib" in flags:            # the log's own card
        out.pop("gpu", None)
    if {"-tp", "-pp"} & set(flags):          # the log's parallel sizes: that many GPUs
        out["gpus"] = (out.get("tensor_parallel_size") or 1) * (out.get("pipeline_parallel_size") or 1)
    return out


def _log_text() -> str | None:
    """The uploaded file, else the pasted text; None when neither (a file over the bound is refused)."""
    upload = st.session_state.get("startup_log_file")
    if upload is not None:
        data = upload.getvalue()
        if len(data) > MAX_LOG_BYTES:
            st.error(f"The log file is over {MAX_LOG_BYTES // 2**20:,} MiB; paste the startup part only.")
            return None
        return data.decode("utf-8", errors="replace")
    text = st.session_state.get("startup_log_text") or ""
    return text if text.strip() else None


def _record(log: StartupLog, flags: Mapping[str, Any]) -> dict[str, Any]:
    observed = [[q.name, q.text, q.unit] for line in log.lines for q in line.values
                if q.amount is not None and q.name != "device"]
    seen: dict[str, list[str]] = {}
    for row in observed:
        seen.setdefault(row[0], row)
    return {"v": 1, "engine": log.engine, "flags": dict(flags), "observed": list(seen.values())[:48]}


def _linked_log(record: Mapping[str, Any]) -> StartupLog:
    """A log made of the link's observed figures only (for predicted vs observed; no raw text)."""
    lines = tuple(LogLine(name, "(from the share link)", i + 1, None, (quantity(name, text, unit),))
                  for i, (name, text, unit) in enumerate(record["observed"]))
    return StartupLog(record["engine"], None, None, lines, (), (), 0, kinds=tuple(x.kind for x in lines))


def _read_box(config: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[StartupLog, dict[str, Any]] | None:
    text = _log_text()
    if text is None:
        link = st.query_params.get(CALIBRATION_KEY)
        if not link:
            return None
        try:
            record = decode_calibration(link)
        except CalibrationLinkError as e:
            st.warning(f"The calibration in the link was not usable ({md(e)}); the plan is not calibrated.")
            return None
        st.caption("Calibrated from the share link (the measurements; the log itself is not in the link).")
        return _linked_log(record), record
    log = parse_startup_log(text[:MAX_LOG_BYTES])
    if not log.lines:
        st.warning("No line of a known engine (vLLM, SGLang, llama.cpp, TensorRT-LLM) was recognised in the log.")
        return None
    flags = calibrate(log, config, tensor_parallel_size=options.get("tensor_parallel_size"))
    record = _record(log, flags)
    state.publish(CALIBRATION_KEY, encode_calibration(record))
    return log, record


def _notes(log: StartupLog, config: Mapping[str, Any], options: Mapping[str, Any], linked: bool) -> None:
    if not linked:
        check = check_model(log, config, tensor_parallel_size=options.get("tensor_parallel_size"))
        if check.consistent is False:
            st.warning("This log looks like another model (or KV dtype): " + md(" ".join(check.reasons)))
        if log.version:
            st.caption(f"Engine version in the log: {md(log.version)}; kvcalc follows its modelled release rules.")
        for m in log.missing:
            st.caption(f"Missing from the log: {md(m)}")
        if log.unknown_count:
            st.caption(f"{log.unknown_count:,} lines were not recognised (ignored).")


AGREES = {True: "yes", False: "NO", None: "not compared"}
"""The table's "agrees" cell: st.table renders its cells as Markdown, where a lone "-" is an empty list bullet."""


def _table(planned: Planned, log: StartupLog) -> None:
    from kvcalc.cli import plan_json

    plan = {**plan_json(planned.setup, planned.plan)}
    rows = [{"figure": c.name, "observed": f"{c.observed.text} {c.observed.unit}".strip(),
             "predicted": c.predicted_text or "(no figure)",
             "agrees": AGREES[c.agrees], "note": c.note}
            for c in predicted_vs_observed(plan, log)]
    st.markdown("**Predicted vs observed** (the calibrated plan against each figure the log prints)")
    st.table(safe_rows(rows))     # a small static table: every figure in the page as text


def plan_with_log(spec: Any, options: dict[str, Any], batch: int, ctx: int, config: dict[str, Any]) -> Planned:
    """The Planner's plan (kvcalc.scenarios.plan_scenario), calibrated by the startup log pasted or uploaded
    in this box, or carried in the link, when it is of the sidebar's runtime; the box and its table drawn."""
    with st.expander("Calibrate with your startup log", expanded=bool(st.query_params.get(CALIBRATION_KEY))):
        st.text_area("Paste the engine's startup log", key="startup_log_text", height=120, max_chars=MAX_LOG_BYTES,
                     placeholder="(EngineCore pid=7) INFO [gpu_worker.py:298] Available KV cache memory: 6.51 GiB")
        st.file_uploader("or upload it", type=["log", "txt"], key="startup_log_file")
        found = _read_box(config, options)
        runtime = options.get("runtime", "vllm")
        if found is None:
            return plan_scenario(spec, options, batch, ctx, config_dict=config)
        log, record = found
        if record["engine"] != runtime:
            st.info(f"This is a {md(record['engine'])} log; pick runtime {md(record['engine'])} in the sidebar "
                    "to calibrate with it.")
            return plan_scenario(spec, options, batch, ctx, config_dict=config)
        _notes(log, config, options, linked=not log.lines or log.lines[0].raw == "(from the share link)")
        try:
            planned = plan_scenario(spec, calibrated_options(options, record["flags"]), batch, ctx,
                                    config_dict=config)
        except (KVCalcError, ValueError) as e:
            st.warning(f"The log's measurements could not be applied ({md(e)}); the plan is not calibrated.")
            return plan_scenario(spec, options, batch, ctx, config_dict=config)
        _table(planned, log)
        return planned
