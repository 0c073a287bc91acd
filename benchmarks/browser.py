"""Live-page timings: headless Debian Chromium, driven by Playwright's Python driver, against ``streamlit run``.

Used by ``benchmarks/run.py`` (rows "Planner widget change vs empty page, browser" and "Cold start to first
headline"). The helpers here start a Streamlit server on a free loopback port and wait for its health
endpoint (:class:`StreamlitServer`; ``tests/browser/test_browser.py`` could reuse it), launch Chromium
(:func:`launch`), and time two things a user sees:

- :func:`time_change`: a number input is changed (type a value, press Enter) until the text of a headline
  ``st.metric`` changes, measured inside the page: ``performance.now()`` at the Enter keydown (a capturing
  listener) to the DOM mutation that gives the metric's value a new text (a MutationObserver), in seconds.
- :func:`time_first_visit`: a fresh browser context (no HTTP cache, a new Streamlit session) opening the page
  of a running server until that metric is visible, in seconds (page load, websocket, first script run and
  render of the new session).
- :func:`time_cold_start`: ``streamlit run`` spawned fresh until that metric is visible in a fresh browser
  context (no HTTP cache), in seconds (``time.perf_counter``: process start, imports, first script run,
  page load and first render).

The headline is found by its data-testid (``stMetric``) and its exact label, never by position, so a page
that reorders its layout or wraps parts in ``st.fragment`` is timed the same way. Playwright's own browser
download (``playwright install``) is never used; :func:`unavailable` says why the rows are skipped.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LOAD_S = 60.0            # a cold server's health endpoint, and its first page render
STEP_S = 30.0            # one rerun after a widget change

# In-page probe, armed before each change: the time from the Enter keydown to the first DOM mutation after
# which the metric labelled LABEL shows a value other than its value at arming. textContent (no layout) is
# read on every mutation batch (the label's textContent is the label alone: the help icon is a sibling).
_ARM_JS = """([label]) => {
  const read = () => {
    for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
      const l = m.querySelector('[data-testid="stMetricLabel"]');
      if (l && l.textContent.trim() === label) {
        const v = m.querySelector('[data-testid="stMetricValue"]');
        return v ? v.textContent.trim() : null;
      }
    }
    return null;
  };
  const before = read();
  const probe = {t0: null, dt: null, value: null};
  window.__kvpProbe = probe;
  const onKey = (e) => {
    if (e.key !== 'Enter') return;
    probe.t0 = performance.now();
    document.removeEventListener('keydown', onKey, true);
  };
  document.addEventListener('keydown', onKey, true);
  const obs = new MutationObserver(() => {
    if (probe.t0 === null) return;
    const now = read();
    if (now !== null && now !== before) {
      probe.dt = performance.now() - probe.t0;
      probe.value = now;
      obs.disconnect();
    }
  });
  obs.observe(document.body, {subtree: true, childList: true, characterData: true});
  return before;
}"""

# The empty page: one number input and one metric that echoes it, with the Planner's labels so that the
# same selectors drive both pages.
EMPTY_PAGE = """import streamlit as st

batch = st.number_input("{input_label}", min_value=1, max_value=1024, value=1)
st.metric("{metric_label}", f"{{batch:,}}")
"""


def unavailable() -> str | None:
    """Why the browser rows cannot run here (no Chromium, no playwright package), or None."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} not found (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -r requirements-dev.txt)"
    return None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def peak_rss_kib(pid: int) -> int:
    """Peak resident set size of a live process, KiB (VmHWM in /proc/PID/status; 0 if absent)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


@dataclass
class StreamlitServer:
    """``streamlit run SCRIPT`` headless on a free 127.0.0.1 port, from ``cwd``; a context manager.

    Entering spawns it and returns once ``/_stcore/health`` answers 200 (RuntimeError with the server's log
    if it exits or does not answer within ``timeout_s``); ``started`` is the ``time.perf_counter()`` just
    before the spawn. Leaving terminates it (kill after 10 s).
    """

    script: str
    cwd: str
    env: dict[str, str] | None = None
    timeout_s: float = LOAD_S
    port: int = field(default_factory=free_port)
    started: float = 0.0
    proc: subprocess.Popen[bytes] | None = None
    _log: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        if self._log is None:
            return ""
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def __enter__(self) -> StreamlitServer:
        self._log = tempfile.TemporaryFile()
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", self.script, "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(self.port), "--browser.gatherUsageStats", "false"],
            cwd=self.cwd, env=self.env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            self._wait_healthy()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait_healthy(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + self.timeout_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}:\n{self.log_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not answer /_stcore/health within {self.timeout_s:.0f} s:\n"
                                   f"{self.log_text()[-2000:]}")
            time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None


def launch(pw: Any) -> Any:
    """Debian's Chromium, headless, with the project's flags (a playwright ``Browser``)."""
    return pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)


def metric_value(page: Any, label: str) -> Any:
    """The value element of the st.metric whose label is exactly ``label`` (a playwright Locator)."""
    return page.get_by_test_id("stMetric").filter(
        has=page.get_by_test_id("stMetricLabel").get_by_text(label, exact=True)).get_by_test_id("stMetricValue")


def wait_idle(page: Any, timeout_s: float = STEP_S) -> None:
    """Connected, and the script has run to the end (Streamlit's own e2e markers on stApp)."""
    ms = timeout_s * 1000
    page.locator('[data-testid="stApp"][data-test-connection-state="CONNECTED"]').wait_for(timeout=ms)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=ms)


def open_page(page: Any, url: str, metric_label: str, timeout_s: float = LOAD_S) -> None:
    """Load ``url`` and wait until the metric is visible and the first run has finished."""
    page.goto(url, wait_until="domcontentloaded", timeout=timeout_s * 1000)
    metric_value(page, metric_label).wait_for(state="visible", timeout=timeout_s * 1000)
    wait_idle(page, timeout_s)


def time_change(page: Any, input_label: str, metric_label: str, value: int) -> float:
    """Seconds from pressing Enter in the number input ``input_label`` (after typing ``value``) to the
    metric ``metric_label`` showing a new text; then waits for the rerun to finish. RuntimeError if the
    metric does not change within STEP_S."""
    field_ = page.get_by_role("spinbutton", name=input_label, exact=True)
    field_.fill(str(value))
    page.evaluate(_ARM_JS, [metric_label])
    field_.press("Enter")
    try:
        page.wait_for_function("() => window.__kvpProbe && window.__kvpProbe.dt !== null", timeout=STEP_S * 1000)
    except Exception as e:  # playwright's TimeoutError
        raise RuntimeError(f"metric {metric_label!r} did not change within {STEP_S:.0f} s after "
                           f"{input_label}={value}") from e
    dt_ms = page.evaluate("() => window.__kvpProbe.dt")
    wait_idle(page)
    return float(dt_ms) / 1000


def time_cold_start(browser: Any, script: str, cwd: str, path: str, metric_label: str,
                    env: dict[str, str] | None = None) -> tuple[float, int]:
    """(seconds from spawning ``streamlit run script`` to the metric visible at ``path`` in a fresh browser
    context, the server's peak RSS in KiB once that first run finished)."""
    with StreamlitServer(script, cwd, env) as srv:
        ctx = browser.new_context()
        try:
            page = ctx.new_page()
            page.goto(srv.url + path, wait_until="commit", timeout=LOAD_S * 1000)
            metric_value(page, metric_label).wait_for(state="visible", timeout=LOAD_S * 1000)
            elapsed = time.perf_counter() - srv.started
            wait_idle(page, LOAD_S)
            assert srv.proc is not None
            rss = peak_rss_kib(srv.proc.pid)
        finally:
            ctx.close()
    return elapsed, rss


def time_first_visit(browser: Any, url: str, metric_label: str) -> float:
    """Seconds from opening ``url`` in a fresh browser context (no HTTP cache, no cookies, a new Streamlit
    session) to the metric visible (``time.perf_counter`` around ``page.goto``: page load, websocket,
    the page's first script run and render); waits for that run to finish before closing the context."""
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        t = time.perf_counter()
        page.goto(url, wait_until="commit", timeout=LOAD_S * 1000)
        metric_value(page, metric_label).wait_for(state="visible", timeout=LOAD_S * 1000)
        elapsed = time.perf_counter() - t
        wait_idle(page, LOAD_S)
    finally:
        ctx.close()
    return elapsed


def write_empty_page(folder: str, input_label: str, metric_label: str) -> str:
    """Write the one-input, one-metric Streamlit script into ``folder``; its path."""
    path = os.path.join(folder, "empty_page.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(EMPTY_PAGE.format(input_label=input_label, metric_label=metric_label))
    return path
