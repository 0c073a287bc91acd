"""``--gguf`` on a FIFO or pipe honours ``--timeout``, as a config on a FIFO does (issue 26).

Run as subprocesses (``python -m kvcalc``) so a hang is a failed test, not a stuck suite; the
timings allow for a loaded machine (interpreter start-up of a few seconds).
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from gguf_writer import llama_like
from paths import ROOT

POSIX = pytest.mark.skipif(os.name != "posix", reason="FIFOs are POSIX")
PLAN = ["plan", "meta-llama/Llama-3.1-8B", "--offline", "--runtime", "llama_cpp", "--gpu", "h100-sxm"]


def _cli(*argv: str, timeout: float = 60) -> tuple[int, str, str, float]:
    start = time.monotonic()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    p = subprocess.run([sys.executable, "-m", "kvcalc", *argv], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - start


@POSIX
def test_a_fifo_nobody_writes_gives_up_at_the_timeout(tmp_path) -> None:
    fifo = str(tmp_path / "model.gguf")
    os.mkfifo(fifo)
    code, out, err, seconds = _cli(*PLAN, "--gguf", fifo, "--timeout", "1.5", timeout=40)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "nothing arrived on --gguf" in err and "within 1.5 s" in err
    assert seconds < 30          # was: blocked in open() until a writer came, whatever --timeout said


@POSIX
def test_a_fifo_fed_late_is_read_within_the_timeout(tmp_path) -> None:
    """A writer that opens the FIFO after 0.5 s and sends a whole (tiny, 2-block) file: the header is read
    and the plan refuses it for its block count against the 32-layer model, a kvcalc message, not a hang."""
    fifo = str(tmp_path / "model.gguf")
    os.mkfifo(fifo)

    def feed() -> None:
        time.sleep(0.5)
        with open(fifo, "wb") as f:
            f.write(llama_like(blocks=2))

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    code, _, err, _ = _cli(*PLAN, "--gguf", fifo, "--timeout", "20")
    t.join(5)
    assert code == 2 and "2 blocks, the model 32" in err


@POSIX
def test_a_directory_is_refused_at_once(tmp_path) -> None:
    code, _, err, _ = _cli(*PLAN, "--gguf", str(tmp_path))
    assert code == 2 and "not a regular file" in err
