"""Engine startup logs (vLLM, SGLang, llama.cpp, TensorRT-LLM) read into measured facts, and those facts
turned into the CLI overrides that calibrate a plan to the machine the log came from.

Pure Python, no Streamlit. Units: bytes (GiB = 2**30), tokens, blocks.
"""

from __future__ import annotations

from kvcalc.startup_log.calibrate import (
    Comparison,
    calibration_argv,
    calibration_flags,
    check_model,
    predicted_vs_observed,
    vllm_block_bytes,
)
from kvcalc.startup_log.parse import parse_startup_log
from kvcalc.startup_log.reader import calibrate, read_startup_log
from kvcalc.startup_log.report import startup_log_lines, startup_log_report
from kvcalc.startup_log.text import MAX_LINES, MAX_LOG_BYTES
from kvcalc.startup_log.types import LogLine, Quantity, StartupLog, StartupLogError

__all__ = [
    "MAX_LINES",
    "MAX_LOG_BYTES",
    "Comparison",
    "LogLine",
    "Quantity",
    "StartupLog",
    "StartupLogError",
    "calibrate",
    "calibration_argv",
    "calibration_flags",
    "check_model",
    "parse_startup_log",
    "predicted_vs_observed",
    "read_startup_log",
    "startup_log_lines",
    "startup_log_report",
    "vllm_block_bytes",
]
