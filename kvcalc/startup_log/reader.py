"""Reading a startup log from a file or stdin (``kvcalc plan MODEL --startup-log FILE``, ``-`` for stdin),
and the calibration a plan of ``config`` gets from it, in one call each."""
from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import IO, Any

from kvcalc.startup_log.calibrate import calibration_flags
from kvcalc.startup_log.formats import log_module
from kvcalc.startup_log.parse import parse_startup_log
from kvcalc.startup_log.text import MAX_LOG_BYTES
from kvcalc.startup_log.types import StartupLog, StartupLogError
from kvcalc.startup_log.values import Flags


def read_startup_log(source: str, stdin: IO[bytes] | None = None) -> StartupLog:
    """Parse the log in file ``source`` (``-``: standard input), reading at most 4 MiB + 1 byte so a
    larger file is refused (StartupLogError) without being read whole.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
    ...     _ = f.write("GPU KV cache size: 31,232 tokens\\n")
    >>> read_startup_log(f.name).value("kv_tokens").amount
    31232
    >>> os.unlink(f.name)
    """
    try:
        if source == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            data = stream.read(MAX_LOG_BYTES + 1)
        else:
            with open(source, "rb") as f:
                data = f.read(MAX_LOG_BYTES + 1)
    except OSError as e:
        raise StartupLogError(f"cannot read startup log {source!r}: {e.strerror or e}") from None
    return parse_startup_log(data)


def calibrate(log: StartupLog, config: Mapping[str, Any], *, tensor_parallel_size: int | None = None) -> Flags:
    """``calibration_flags`` with what the log fixes only together with ``config``, through the log's engine
    module (kvcalc.startup_log.formats): vLLM's block bytes (vllm_block_bytes at the log's TP, KV dtype
    and block size, or the given ``tensor_parallel_size``), so "GPU KV cache size: N tokens" pins
    ``--kv-cache-memory`` to N / block_size whole blocks of that model; llama.cpp's cells from its KV size.

    >>> log = parse_startup_log("GPU KV cache size: 31,232 tokens")
    >>> llama8b = {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096}
    >>> calibrate(log, llama8b)["--kv-cache-memory"] == 1952 * 2 * 32 * 8 * 128 * 2 * 16
    True
    """
    module = log_module(log.engine)
    pin = getattr(module, "block_bytes", None)
    flags = calibration_flags(log, block_bytes=pin(log, config, tensor_parallel_size) if pin else None)
    more = getattr(module, "config_flags", None)
    return {**flags, **more(log, config, flags)} if more else flags
