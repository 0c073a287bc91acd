"""The CLI's input and output streams: FIFOs and pipes are bounded, a closed stdout exits quietly,
and nothing from outside reaches the terminal as an escape sequence.

Sizes are hand arithmetic: Llama-3.2-1B holds 16 layers x 8 KV heads x 64 dims x (K+V) x 2 bytes
(bf16) = 32,768 bytes per token.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time

import pytest
from paths import ROOT, config_path

from kvcalc.cli import EXIT_BROKEN_PIPE, main, terminal_safe
from kvcalc.hub import MAX_CONFIG_BYTES

LLAMA_32_1B = config_path("meta-llama__Llama-3.2-1B.json")
PER_TOKEN = 16 * 8 * 64 * 2 * 2
POSIX = pytest.mark.skipif(os.name != "posix", reason="FIFOs, pty and process substitution are POSIX")


def _cli(*argv: str, stdin=None, timeout: float = 30) -> tuple[int, str, str, float]:
    """Run ``python -m kvcalc`` in a subprocess: (status, stdout, stderr, seconds)."""
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "kvcalc", *argv], cwd=ROOT, stdin=stdin, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - start


def _config_bytes() -> bytes:
    with open(LLAMA_32_1B, "rb") as f:
        return f.read()


def _feed(path: str, data: bytes | None, delay: float = 0.2, endless: bool = False) -> tuple[threading.Thread, dict]:
    """A thread that opens the FIFO for writing after ``delay`` s and writes ``data`` (or spaces forever)."""
    state = {"written": 0}

    def run() -> None:
        time.sleep(delay)
        try:
            with open(path, "wb") as f:
                while True:
                    chunk = b" " * 65536 if endless else (data or b"")
                    f.write(chunk)
                    f.flush()
                    state["written"] += len(chunk)
                    if not endless:
                        return
        except BrokenPipeError:
            state["broken"] = True

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, state


@POSIX
def test_process_substitution_works():
    p = subprocess.run(["bash", "-c", f'"{sys.executable}" -m kvcalc kv <(cat "{LLAMA_32_1B}") --batch 2 --context 10 '
                                      "--json"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["total_bytes"] == 2 * 10 * PER_TOKEN


@POSIX
def test_fifo_fed_by_a_thread(tmp_path, capsys):
    fifo = str(tmp_path / "config.fifo")
    os.mkfifo(fifo)
    t, _ = _feed(fifo, _config_bytes())
    code = main(["kv", fifo, "--batch", "1", "--context", "100", "--json"])
    t.join(5)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["total_bytes"] == 100 * PER_TOKEN


@POSIX
def test_fifo_never_fed_gives_up_within_the_timeout(tmp_path):
    # before: open() blocked for ever (no writer), with no word on stderr
    fifo = str(tmp_path / "config.fifo")
    os.mkfifo(fifo)
    code, out, err, seconds = _cli("kv", fifo, "--batch", "1", "--context", "1", "--timeout", "3")
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("note: waiting for a config.json on config file") and "3 s" in lines[0]
    assert lines[1].startswith("error: nothing arrived on config file") and "within 3 s" in lines[1]
    assert 3 <= seconds < 20


@POSIX
@pytest.mark.parametrize("kind", ["idle pipe", "terminal"])
def test_idle_stdin_gives_up_within_the_timeout(kind):
    # before: '-' read standard input with no bound, so an idle pipe or a terminal waited for ever
    if kind == "idle pipe":
        reader, writer = os.pipe()
    else:
        import pty

        writer, reader = pty.openpty()           # (controller, terminal): the CLI reads the terminal end
    try:
        code, out, err, seconds = _cli("kv", "-", "--batch", "1", "--context", "1", "--timeout", "1", stdin=reader)
    finally:
        os.close(reader)
        os.close(writer)
    assert code == 2 and out == ""
    assert err.splitlines() == ["error: nothing arrived on standard input within 1 s: the writer must send the "
                                "whole config.json and close it (end of file); raise the timeout (--timeout) for "
                                "a slow one."]
    assert 1 <= seconds < 20


@POSIX
def test_an_endless_fifo_stops_at_the_cap(tmp_path, capsys):
    fifo = str(tmp_path / "endless.fifo")
    os.mkfifo(fifo)
    t, state = _feed(fifo, None, endless=True)
    code = main(["kv", fifo, "--batch", "1", "--context", "1"])
    t.join(10)
    _, err = capsys.readouterr()
    assert code == 2 and f"sent more than {MAX_CONFIG_BYTES:,} bytes (reading stopped there)" in err
    assert not t.is_alive() and state.get("broken")              # the reader closed: the writer was stopped
    assert state["written"] <= MAX_CONFIG_BYTES + 3 * 65536       # what fits in the pipe, not more


def test_an_endless_stdin_stops_at_the_cap(capsys, monkeypatch):
    reader, writer = os.pipe()
    stop = threading.Event()

    def pour() -> None:
        try:
            while not stop.is_set():
                os.write(writer, b" " * 65536)
        except OSError:
            pass

    t = threading.Thread(target=pour, daemon=True)
    t.start()
    with os.fdopen(reader, "rb") as stream:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(stream))
        code = main(["kv", "-", "--batch", "1", "--context", "1"])
        stop.set()
    os.close(writer)
    t.join(5)
    _, err = capsys.readouterr()
    assert code == 2 and f"standard input sent more than {MAX_CONFIG_BYTES:,} bytes" in err


def test_closed_stdout_exits_quietly(tmp_path):
    # 4,096 layers print a ~190 KB table, more than a pipe holds; the reader takes one line and closes,
    # as `| head -1` does. Before: a BrokenPipeError traceback on stderr and status 1.
    with open(LLAMA_32_1B, encoding="utf-8") as f:
        cfg = json.load(f)
    cfg["num_hidden_layers"] = 4096
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    p = subprocess.Popen([sys.executable, "-m", "kvcalc", "kv", str(path), "--batch", "1", "--context", "2"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.stderr.close()
    assert p.wait(timeout=60) == EXIT_BROKEN_PIPE == 141
    assert err == b""
    assert first.startswith(b"model_type llama")


def test_terminal_safe_escapes_control_characters():
    assert terminal_safe("a\x1b[31mb\x07c\rd\te\u202ef\x9b\nok é 中") == \
        "a\\x1b[31mb\\x07c\\x0dd\\x09e\\u202ef\\x9b\nok é 中"
    assert terminal_safe("plain\ntext") == "plain\ntext"


def test_config_strings_reach_the_terminal_escaped(tmp_path, capsys):
    # before: the table printed model_type raw, so ESC ] 0 ; ... BEL retitled the terminal and ESC [2J cleared it
    with open(LLAMA_32_1B, encoding="utf-8") as f:
        cfg = json.load(f)
    cfg["model_type"] = "llama\x1b]0;pwned\x07\x1b[2J"
    path = tmp_path / "escape.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    assert main(["kv", str(path), "--batch", "1", "--context", "2"]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("model_type llama\\x1b]0;pwned\\x07\\x1b[2J   runtime ideal")
    assert "total 65,536 bytes" in out                               # 2 tokens x 32,768
    # an error that embeds outside text: the path itself carries the escape
    assert main(["kv", str(tmp_path / "missing\x1b[2J.json"), "--batch", "1", "--context", "2"]) == 2
    _, err = capsys.readouterr()
    assert "\x1b" not in err and "does not exist" in err
