"""Real-browser tests: headless Debian Chromium driven by Playwright against a live ``streamlit run``.

What AppTest cannot see is checked here, in the page a user gets: deep links set the widgets and
show the expected numbers on every page of a freshly started server, a widget change writes the
URL, the plotly chart draws, the browser never talks to anything but 127.0.0.1, the console stays
free of errors, a bad link shows the fallback notice (no traceback), and a Hub token typed in the
password field never reaches a URL, the page, the server log, a server reply or an exported file.
With ``KVP_SCREENSHOTS=1`` the tests also refresh the README screenshots in ``docs/screenshots/``
(otherwise they go to a temporary folder, so a test run leaves the checkout unchanged).

One console error is allowed, and only for its URLs: a deep link to a page makes Streamlit's
frontend probe ``/<page>/_stcore/health`` and ``/host-config`` (404) before ``/`` (see PROBE_404).

Expected numbers come from plain arithmetic on the bundled configs (``data/configs/*.json``),
never from the app. Needs ``/usr/bin/chromium`` (Debian package ``chromium``) and the
``playwright`` Python package (``playwright install`` is never used); without them the module is
skipped, unless ``KVP_REQUIRE_BROWSER=1`` (set by ``.ci/run``), which turns the skip into a failure.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from paths import ROOT, load_config

CHROMIUM = "/usr/bin/chromium"
REQUIRE = os.environ.get("KVP_REQUIRE_BROWSER") == "1"


def _unavailable(reason: str) -> None:
    if REQUIRE:
        pytest.fail(f"KVP_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


if not os.access(CHROMIUM, os.X_OK):
    _unavailable(f"{CHROMIUM} not found (apt-get install chromium)")
try:
    from playwright.sync_api import Page, expect, sync_playwright
except ImportError:
    _unavailable("the playwright package is not installed (pip install -r requirements-dev.txt)")

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTH = 1400
HEIGHT = 1000
LOAD_MS = 60_000          # first run of a page on a cold server (imports, catalog)
STEP_MS = 30_000          # one rerun after a widget change
TOKEN = "hf_TESTTOKEN_do_not_leak_123"
HUB_REPO = "acme/tiny-llama"              # served by tests/fake_hub.py when it exists
SCREENSHOTS = (Path(ROOT) / "docs" / "screenshots" if os.environ.get("KVP_SCREENSHOTS") == "1"
               else Path(tempfile.gettempdir()) / "kvp_screenshots")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
LOCAL_SCHEMES = {"data", "blob", "about"}
# The one console error allowed, and only for these URLs. A deep link to a page (/Compare, ...)
# makes Streamlit's frontend look for the server under that path first: getPossibleBaseUris()
# (static/js/index.*.js, ``function PD``) returns [/<page>, /], so /<page>/_stcore/health and
# /<page>/_stcore/host-config answer 404 before / answers, and Chromium logs each failed resource
# load as a console error. Streamlit 1.67 does this for every multipage deep link; the app cannot
# avoid it (only a server base path would). Any other error, or this text for any other URL, fails.
PROBE_404 = "Failed to load resource: the server responded with a status of 404 (Not Found)"
PROBE_404_URL = re.compile(r"^http://127\.0\.0\.1:\d+/[A-Za-z0-9_]+/_stcore/(health|host-config)$")
GiB = 1 << 30
# Playwright's expect() gives up after 5 s by default: on a loaded 2-core machine widgets can render
# later than that after a cold page load; a rerun's own limit applies instead (no timed assertions)
expect.set_options(timeout=STEP_MS)


# --------------------------------------------------------------------------------------------
# Expected numbers: arithmetic on the bundled configs, independent of kvcalc.


def head_dim(cfg: dict) -> int:
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def kv_bytes_per_token(cfg: dict, elem_bytes: int = 2) -> int:
    """Dense full-attention decoder: K and V, every layer, every KV head."""
    return 2 * cfg["num_hidden_layers"] * cfg["num_key_value_heads"] * head_dim(cfg) * elem_bytes


def dense_params(cfg: dict) -> int:
    """Llama / Qwen3 dense decoder parameter count (no biases; Qwen3 adds q_norm and k_norm)."""
    h, i, v, hd = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"], head_dim(cfg)
    q, kv = cfg["num_attention_heads"] * hd, cfg["num_key_value_heads"] * hd
    layer = h * q + 2 * h * kv + q * h + 3 * h * i + 2 * h
    if cfg["model_type"] == "qwen3":
        layer += 2 * hd
    embed = v * h * (1 if cfg.get("tie_word_embeddings") else 2)
    return embed + cfg["num_hidden_layers"] * layer + h


def gpu_memory_bytes(key: str) -> int:
    """data/gpus.csv: memory as nvidia-smi reports it, in MiB."""
    with open(os.path.join(ROOT, "data", "gpus.csv"), newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["key"] == key)
    return int(row["memory_mib"]) << 20


def ideal_longest_context(cfg: dict, gpu: str, batch: int, elem_bytes: int = 2) -> int:
    """runtime ideal: no overhead, the budget is the GPU memory; (memory - weights) / (batch x bytes/token)."""
    free = gpu_memory_bytes(gpu) - dense_params(cfg) * 2
    return min(free // (batch * kv_bytes_per_token(cfg, elem_bytes)), cfg["max_position_embeddings"])


def mla_bytes_per_token(cfg: dict) -> tuple[int, int]:
    """(latent: L x (kv_lora_rank + qk_rope_head_dim) x 2, expanded: L x heads x (k + v head dims) x 2)."""
    layers = cfg["num_hidden_layers"]
    latent = layers * (cfg["kv_lora_rank"] + cfg["qk_rope_head_dim"]) * 2
    k = cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"]
    return latent, layers * cfg["num_key_value_heads"] * (k + cfg["v_head_dim"]) * 2


def gib(n: int) -> str:
    return f"{n / GiB:,.2f} GiB"


LLAMA = "meta-llama/Llama-3.1-8B"
QWEN = "Qwen/Qwen3-8B"
MISTRAL = "mistralai/Mistral-7B-Instruct-v0.3"
# the GPU picker shows the card's name and memory (24,564 MiB / 1,024 = 24.0 GiB), issue 14 item 7
RTX4090_LABEL = f"NVIDIA GeForce RTX 4090 24GB — {24_564 / 1024:.1f} GiB"
MLA = "deepseek-ai/DeepSeek-V2-Lite"


def test_reference_arithmetic():
    """The hand formulas above reproduce the published figures they stand for."""
    assert kv_bytes_per_token(load_config(LLAMA)) == 131_072           # 128 KiB per token
    assert dense_params(load_config(LLAMA)) == 8_030_261_248
    assert kv_bytes_per_token(load_config(QWEN)) == 147_456            # 36 layers x 8 x 128 x 2 x 2
    assert dense_params(load_config(QWEN)) == 8_190_735_360
    assert dense_params(load_config(MISTRAL)) == 7_248_023_552         # data/params.csv (Hub safetensors total)
    assert gpu_memory_bytes("rtx-4090") == 24_564 * 2**20
    assert ideal_longest_context(load_config(LLAMA), "rtx-4090", 8) == 9_247
    assert mla_bytes_per_token(load_config(MLA)) == (31_104, 276_480)  # 27 x 576 x 2; 27 x 16 x 320 x 2


# --------------------------------------------------------------------------------------------
# The server, the fake Hub and the browser.


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    url: str
    log: Path
    hub: object | None                      # tests.fake_hub.FakeHub, or None (closed port)
    hub_endpoint: str

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="session")
def workdir() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="kvp-browser-"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def fake_hub():
    """tests/fake_hub.py when present (serves acme/tiny-llama), else None: a closed local port."""
    if not os.path.exists(os.path.join(ROOT, "tests", "fake_hub.py")):
        yield None
        return
    from fake_hub import FakeHub

    hub = FakeHub()
    yield hub
    hub.close()


@contextlib.contextmanager
def streamlit_server(workdir: Path, fake_hub, log_name: str = "streamlit.log") -> Iterator[Server]:
    """A freshly started ``streamlit run app.py`` on a free local port, up when /_stcore/health answers."""
    port = _free_port()
    if fake_hub is not None:
        endpoint = fake_hub.url
    else:
        endpoint = f"http://127.0.0.1:{_free_port()}"      # nothing listens there: refused at once
    env = {k: v for k, v in os.environ.items()
           if k not in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(HF_ENDPOINT=endpoint, HF_HOME=str(workdir / "hf_home"), KVCALC_HUB_CACHE=str(workdir / "kvcalc_hub"),
               HF_HUB_DISABLE_TELEMETRY="1",
               PYTHONUNBUFFERED="1", NO_PROXY="127.0.0.1,localhost")
    log = workdir / log_name
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    srv = Server(url, log, fake_hub, endpoint)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited with {proc.returncode}:\n{srv.log_text()}")
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not answer /_stcore/health within 60 s:\n{srv.log_text()}")
            time.sleep(0.2)
        yield srv
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="session")
def server(workdir: Path, fake_hub) -> Iterator[Server]:
    with streamlit_server(workdir, fake_hub) as srv:
        yield srv


_BROWSER: list = []     # the one Chromium of this test process (Playwright's sync API allows one at a time)


@pytest.fixture(scope="session")
def browser_context(workdir: Path):
    """One Chromium per test process: other browser-test modules import this fixture, which pytest
    then sets up once per module; the later ones get the context the first one started."""
    if _BROWSER:
        yield _BROWSER[0]
        return
    profile = workdir / "chromium-profile"           # fresh --user-data-dir
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": WIDTH, "height": HEIGHT}, accept_downloads=True)
        _BROWSER.append(ctx)
        try:
            yield ctx
        finally:
            _BROWSER.clear()
            ctx.close()


@dataclass
class Tab:
    """A page plus everything it did: request URLs, console errors, server replies on the websocket."""

    page: Page
    base: str
    requests: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)        # (text, source URL)
    frames: list[bytes] = field(default_factory=list)

    def open(self, path: str) -> None:
        self.page.goto(self.base + path)
        self.page.locator('[data-testid="stMain"] h1').first.wait_for(timeout=LOAD_MS)     # the first run drew
        wait_idle(self.page, LOAD_MS)

    def assert_clean(self) -> None:
        """Only local requests, and no console error or uncaught exception."""
        remote = [u for u in self.requests if not is_local(u)]
        assert not remote, f"requests left 127.0.0.1: {remote}"
        errors = [e for e in self.errors if not allowed_console_error(*e)]
        assert not errors, f"browser console errors: {errors}"


def allowed_console_error(text: str, url: str) -> bool:
    return text == PROBE_404 and bool(PROBE_404_URL.match(url))


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in LOCAL_SCHEMES:
        return True
    return parts.scheme in ("http", "https", "ws", "wss") and parts.hostname in LOCAL_HOSTS


@pytest.fixture
def tab(browser_context, server: Server) -> Iterator[Tab]:
    page = browser_context.new_page()
    t = Tab(page, server.url)
    page.on("request", lambda r: t.requests.append(r.url))
    page.on("console", lambda m: t.errors.append((m.text, m.location.get("url", ""))) if m.type == "error" else None)
    page.on("pageerror", lambda e: t.errors.append((f"pageerror: {e}", "")))

    def on_socket(ws) -> None:
        t.requests.append(ws.url)
        ws.on("framereceived", lambda payload: t.frames.append(
            payload if isinstance(payload, bytes) else payload.encode()))

    page.on("websocket", on_socket)
    yield t
    page.close()


# --------------------------------------------------------------------------------------------
# Page helpers.


def wait_idle(page: Page, timeout_ms: int = STEP_MS) -> None:
    """Connected, and the script has run to the end (Streamlit's own e2e markers on stApp)."""
    page.locator('[data-testid="stApp"][data-test-connection-state="CONNECTED"]').wait_for(timeout=timeout_ms)
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(timeout=timeout_ms)


def metric(page: Page, label: str):
    """The value element of the st.metric whose label is exactly ``label``."""
    return page.get_by_test_id("stMetric").filter(
        has=page.get_by_test_id("stMetricLabel").get_by_text(label, exact=True)).get_by_test_id("stMetricValue")


def expect_metrics(page: Page, expected: dict[str, str], timeout_ms: int = STEP_MS) -> None:
    """Each metric shows exactly its value (retrying: a rerun may still be replacing the elements)."""
    for label, value in expected.items():
        expect(metric(page, label), f"metric {label!r}").to_have_text(value, timeout=timeout_ms)


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def download(page: Page, button: str) -> bytes:
    with page.expect_download(timeout=STEP_MS) as info:
        page.get_by_test_id("stDownloadButton").filter(has_text=button).get_by_role("button").click()
    path = info.value.path()
    return Path(path).read_bytes()


def csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode())))


def screenshot(page: Page, name: str) -> None:
    """Full page, 1400 px wide: Streamlit scrolls inside stMain / the sidebar, so grow the viewport."""
    page.mouse.move(0, 0)
    height = page.evaluate("""() => Math.max(
        ...['[data-testid=stMain]', '[data-testid=stSidebarContent]'].map(
            s => document.querySelector(s)?.scrollHeight || 0), window.innerHeight)""")
    page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 16, 8000)})
    wait_idle(page)
    page.wait_for_timeout(500)                        # let plotly finish its resize redraw
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})


def plotly_visible(page: Page) -> None:
    expect(page.locator(".js-plotly-plot .main-svg").first).to_be_visible(timeout=STEP_MS)


def no_exception(page: Page) -> None:
    exc = page.get_by_test_id("stException")
    if exc.count():
        text = exc.first.inner_text()
        pytest.fail("the app raised:\n" + text[:1500], pytrace=False)


# --------------------------------------------------------------------------------------------
# 1 + 3 + 4 + 5 + 8: deep links to every page on a fresh server, the charts, the screenshots.
# Every test ends with Tab.assert_clean(): only local requests, no console error.


def test_planner_deep_link(tab: Tab):
    tab.open("/?runtime=ideal&batch=8&ctx=8192&gpu=rtx-4090")
    page = tab.page
    # The link set the widgets.
    expect(page.get_by_role("spinbutton", name="Batch", exact=True)).to_have_value("8")
    expect(page.get_by_role("spinbutton", name="Context (tokens)", exact=True)).to_have_value("8192")
    expect(page.get_by_role("combobox", name="GPU", exact=True)).to_have_value(RTX4090_LABEL)
    expect(page.get_by_role("radio", name="ideal", exact=True)).to_be_checked()
    cfg = load_config(LLAMA)
    # 8 sequences x 8,192 tokens x 131,072 B/token = 8 GiB; 8,030,261,248 params x 2 B (bf16)
    kv, weights = gib(8 * 8192 * kv_bytes_per_token(cfg)), gib(dense_params(cfg) * 2)
    assert (kv, weights) == ("8.00 GiB", "14.96 GiB")
    # (24,564 MiB - 16,060,522,496 B) / (8 x 131,072 B) = 9,247.5 tokens; / (8,192 x 131,072 B) = 9.03
    free = gpu_memory_bytes("rtx-4090") - dense_params(cfg) * 2
    longest, largest = ideal_longest_context(cfg, "rtx-4090", 8), free // (8192 * kv_bytes_per_token(cfg))
    assert (longest, largest) == (9_247, 9)
    expect_metrics(page, {"KV cache / GPU": kv, "Weights / GPU": weights,
                          "Longest context": f"{longest:,} tokens", "Largest batch": f"{largest:,} sequences"})
    # 22.96 GiB <= 24,564 MiB (23.99 GiB): the verdict replaced the "Fits" metric (issue 14)
    expect(page.get_by_test_id("stAlert").filter(has_text="Fits: 8 sequences of 8,192 tokens")).to_be_visible()
    plotly_visible(page)
    assert page.locator(".js-plotly-plot").first.is_visible()
    assert "Traceback" not in page.content()
    screenshot(page, "planner")
    tab.assert_clean()


def test_compare_deep_link(tab: Tab):
    tab.open(f"/Compare?models={MISTRAL}&models={LLAMA}&kvdtypes=auto&kvdtypes=fp8_e4m3&runtimes=ideal"
             "&gpu=rtx-4090&batch=8")
    page = tab.page
    sidebar = page.get_by_test_id("stSidebar")
    models = sidebar.get_by_test_id("stMultiSelect").filter(has_text="Models")
    expect(models).to_contain_text("Mistral-7B-Instruct-v0.3")
    expect(models).to_contain_text("Llama-3.1-8B")
    expect(models).not_to_contain_text("Qwen")                     # the link replaced the default pair
    expect(sidebar.get_by_test_id("stMultiSelect").filter(has_text="KV-cache dtype")).to_contain_text("fp8_e4m3")
    expect(page.get_by_role("combobox", name="GPU", exact=True)).to_have_value(RTX4090_LABEL)
    expect(page.get_by_role("spinbutton", name="Batch", exact=True)).to_have_value("8")
    plotly_visible(page)
    legend = page.locator(".js-plotly-plot .legendtext").all_text_contents()
    assert len(legend) == 4, legend                                  # 2 models x 2 KV dtypes, 1 runtime
    # The table is a canvas grid; its numbers come from the page's own CSV export.
    rows = csv_rows(download(page, "Table (CSV)"))
    by = {(r["model"], r["KV dtype"]): r for r in rows}
    assert len(rows) == 4, rows
    chosen = next(c for c in rows[0] if c.startswith("longest context, chosen"))
    for hub_id in (MISTRAL, LLAMA):
        cfg = load_config(hub_id)
        for kv_dtype, elem in (("bfloat16", 2), ("fp8_e4m3", 1)):
            r = by[(hub_id, kv_dtype)]
            assert int(r["KV bytes / token"]) == kv_bytes_per_token(cfg, elem)       # 131,072 / 65,536
            assert int(r["weights bytes / GPU"]) == dense_params(cfg) * 2
            assert int(r["batch"]) == 8 and r["runtime"] == "ideal"
            assert int(r[chosen]) == ideal_longest_context(cfg, "rtx-4090", 8, elem)
    assert int(by[(MISTRAL, "bfloat16")][chosen]) == 10_739      # (24,564 MiB - 14,496,047,104 B) / 1 MiB
    assert int(by[(LLAMA, "fp8_e4m3")][chosen]) == 18_494
    assert "Traceback" not in page.content()
    screenshot(page, "compare")
    tab.assert_clean()


def test_gpu_fit_deep_link(tab: Tab):
    tab.open(f"/GPU_fit?model={MISTRAL}&runtime=ideal&gpu=rtx-4090&batch=8&ctx=8192")
    page = tab.page
    expect(page.get_by_role("combobox", name="Model (type to search)", exact=True)).to_have_value(
        re.compile(r"^Mistral-7B-Instruct-v0\.3 — "))
    expect(page.get_by_role("combobox", name="GPU", exact=True)).to_have_value(RTX4090_LABEL)
    expect(page.get_by_role("spinbutton", name="Batch", exact=True)).to_have_value("8")
    expect(page.get_by_role("radio", name="ideal", exact=True)).to_be_checked()
    cfg = load_config(MISTRAL)
    used = (dense_params(cfg) * 2 + 8 * 8192 * kv_bytes_per_token(cfg)) / gpu_memory_bytes("rtx-4090")
    free = gpu_memory_bytes("rtx-4090") - dense_params(cfg) * 2
    longest, largest = ideal_longest_context(cfg, "rtx-4090", 8), free // (8192 * kv_bytes_per_token(cfg))
    assert (f"{used:.1%}", longest, largest) == ("89.6%", 10_739, 10)
    expect_metrics(page, {"Budget used @ 8 x 8,192": f"{used:.1%}", "Fits": "yes",
                          "Longest context @ batch 8": f"{longest:,}", "Largest batch @ 8,192": f"{largest:,}"})
    plotly_visible(page)                                             # the batch x context heatmap
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()  # every catalog GPU
    assert "Traceback" not in page.content()
    screenshot(page, "gpu_fit")
    tab.assert_clean()


def test_how_it_works_deep_link(tab: Tab):
    tab.open(f"/How_it_works?model={QWEN}&ctx=16384")
    page = tab.page
    expect(page.get_by_role("combobox", name="Model (type to search)", exact=True)).to_have_value(
        re.compile(r"^Qwen3-8B — "))
    expect(page.get_by_role("spinbutton", name="Example context (tokens)", exact=True)).to_have_value("16384")
    cfg = load_config(QWEN)
    per_token = kv_bytes_per_token(cfg)                              # 36 x 8 x (128 + 128) x 2 = 147,456
    latent, expanded = mla_bytes_per_token(load_config(MLA))
    assert (per_token, 16384 * per_token, latent, expanded) == (147_456, 2_415_919_104, 31_104, 276_480)
    expect_metrics(page, {"KV bytes / token": "144.00 KiB",                 # with units, GiB = 2**30 bytes
                          "KV at 16,384 tokens, batch 1": "2.25 GiB",
                          "KV at 16,384 tokens, batch 8": "18.00 GiB",
                          "DeepSeek-V2-Lite: latent bytes / token": "30.38 KiB",
                          "expanded per-head K/V bytes / token": "270.00 KiB"})
    expect(page.locator(".katex").first).to_be_visible()            # the formula is typeset
    assert "Traceback" not in page.content()
    screenshot(page, "how_it_works")
    tab.assert_clean()


# --------------------------------------------------------------------------------------------
# 2: a widget change writes the URL.


def test_widget_change_updates_the_url(tab: Tab):
    tab.open("/?runtime=ideal&gpu=rtx-4090")
    page = tab.page
    assert "batch" not in query(page)
    batch = page.get_by_role("spinbutton", name="Batch", exact=True)
    batch.fill("16")
    batch.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]batch=16(&|$)"), timeout=STEP_MS)
    wait_idle(page)
    # 16 x 8,192 tokens x 131,072 B = 16 GiB of KV cache, and the rest of the link is kept.
    expect_metrics(page, {"KV cache / GPU": gib(16 * 8192 * kv_bytes_per_token(load_config(LLAMA)))})
    q = query(page)
    assert q["batch"] == ["16"] and q["runtime"] == ["ideal"] and q["gpu"] == ["rtx-4090"]
    # The share box shows the same link.
    expect(page.get_by_test_id("stSidebar").get_by_test_id("stCode")).to_contain_text("batch=16")
    tab.assert_clean()


# --------------------------------------------------------------------------------------------
# 6: a bad link falls back with a notice, never a traceback; nor does a bad value typed in a field.


def test_bad_link_shows_the_fallback_notice(tab: Tab):
    tab.open("/?batch=abc&gpu=nope")
    page = tab.page
    notice = page.get_by_test_id("stAlert").filter(has_text="fell back to defaults")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("batch='abc'")
    expect(notice).to_contain_text("gpu='nope'")
    # Defaults took over: batch 1, the default GPU, and the plan still renders.
    expect(page.get_by_role("spinbutton", name="Batch", exact=True)).to_have_value("1")
    expect_metrics(page, {"Weights / GPU": gib(dense_params(load_config(LLAMA)) * 2)})
    assert "batch=abc" not in page.url and "gpu=nope" not in page.url
    assert "Traceback" not in page.content()
    assert not page.get_by_test_id("stException").count()
    tab.assert_clean()


def test_bad_typed_values_show_a_message_not_a_traceback(tab: Tab):
    page = tab.page
    tab.open("/?source=hub")
    hub_field = page.get_by_role("textbox", name="Hugging Face model id", exact=True)
    hub_field.fill("https://huggingface.co/Qwen/Qwen3-8B")            # a pasted page URL, not an id
    hub_field.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]hub="), timeout=STEP_MS)
    wait_idle(page)
    no_exception(page)
    expect(page.get_by_test_id("stAlert").first).to_be_visible()
    assert "Traceback" not in page.content()

    tab.open("/?attn=sliding")
    page.get_by_test_id("stExpander").filter(has_text="What if: attention override").locator("summary").click()
    pattern = page.get_by_role("textbox", name=re.compile(r"^Pattern"))
    pattern.fill("foo")
    pattern.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]attn_pattern=foo"), timeout=STEP_MS)
    wait_idle(page)
    no_exception(page)
    expect(page.get_by_test_id("stAlert").first).to_be_visible()
    assert "Traceback" not in page.content()
    tab.assert_clean()


def test_markdown_in_a_link_is_shown_as_text(tab: Tab):
    """Issue 11 item 3: a link key that is a Markdown image or link shows as text in the notice; no
    image is fetched from the other host (assert_clean: every request stays on 127.0.0.1)."""
    image, link = "![x](http://tracker.example/t.png)", "[text](http://evil.example/)"
    tab.open("/?" + urlencode({image: "1", link: "2"}))
    page = tab.page
    notice = page.get_by_test_id("stAlert").filter(has_text="fell back to defaults")
    expect(notice).to_be_visible()
    shown = notice.inner_text().replace("\u2060", "")          # the invisible word joiner in "http:⁠//"
    assert image in shown and link in shown, shown
    assert notice.locator("a, img").count() == 0
    assert page.get_by_test_id("stMain").locator("img[src*='tracker.example'], a[href*='evil.example']").count() == 0
    tab.assert_clean()


def test_link_with_too_many_parameters_shows_a_notice(tab: Tab):
    """Issue 11 item 11: Streamlit ignores a query string of more than 1,000 parameters whole; the
    page says so and clears the address bar instead of showing defaults under the long link."""
    tab.open("/?" + "&".join(f"batch={i}" for i in range(1001)))
    page = tab.page
    notice = page.get_by_test_id("stAlert").filter(has_text="fell back to defaults")
    expect(notice).to_contain_text("the link had 1,001 parameters", timeout=STEP_MS)
    expect(page).not_to_have_url(re.compile(r"[?&](batch|link_dropped)="), timeout=STEP_MS)
    wait_idle(page)
    expect_metrics(page, {"Weights / GPU": gib(dense_params(load_config(LLAMA)) * 2)})
    no_exception(page)
    tab.assert_clean()


def test_chart_controls_rerun_the_chart_and_keep_the_share_link(tab: Tab):
    """Issue 10 item 7: the log-axis toggle runs in a fragment; the chart, the URL and the share box
    all follow it."""
    tab.open("/?runtime=ideal")
    page = tab.page
    plotly_visible(page)
    page.get_by_test_id("stSidebar").get_by_text("Log-scale context axis").click()
    expect(page).to_have_url(re.compile(r"[?&]logx=false(&|$)"), timeout=STEP_MS)
    wait_idle(page)
    page.wait_for_function("() => document.querySelector('.js-plotly-plot')?.layout?.xaxis?.type === 'linear'",
                           timeout=STEP_MS)
    expect(page.get_by_test_id("stSidebar").get_by_test_id("stCode")).to_contain_text("logx=false")
    no_exception(page)
    tab.assert_clean()


def test_simultaneous_first_visits_to_a_fresh_server(browser_context, workdir: Path, fake_hub):
    """Issue 11 item 5: 10 first visits at once to a server that has run no page yet all render the
    headline numbers; none shows an error (a half-imported pandas raced here before)."""
    with streamlit_server(workdir, fake_hub, "streamlit-cold.log") as srv:
        pages = [browser_context.new_page() for _ in range(10)]
        errors: list[str] = []
        try:
            for p in pages:
                p.on("pageerror", lambda e: errors.append(str(e)))
                p.goto(srv.url + "/?runtime=ideal&gpu=rtx-4090", wait_until="commit")
            weights = gib(dense_params(load_config(LLAMA)) * 2)
            for p in pages:
                p.bring_to_front()               # a background tab may not lay out columns and charts
                p.locator('[data-testid="stMain"] h1').first.wait_for(timeout=LOAD_MS)
                wait_idle(p, LOAD_MS)
                expect(p.locator('[data-testid="stMain"] h1').first).to_have_text("KV Cache Planner")
                # ten first runs at once on a loaded CI machine: a first run's budget, not one rerun's
                expect_metrics(p, {"Weights / GPU": weights}, timeout_ms=LOAD_MS)
                expect(p.get_by_test_id("stAlert").filter(has_text="Fits: 1 sequence").first).to_be_visible()
                no_exception(p)
                assert not p.get_by_test_id("stAlert").filter(has_text="rror").count()
            assert not errors, errors
            log = srv.log_text()
            assert "Traceback" not in log and "partially initialized" not in log, log[-3000:]
        finally:
            for p in pages:
                p.close()


# --------------------------------------------------------------------------------------------
# 7: the model-source radio round-trips through the URL; the Hub token never leaves its field.


def choose_hub_source(tab: Tab) -> None:
    """Click the "hub" option of the Model source radio and wait for the rerun."""
    page = tab.page
    radio = page.get_by_test_id("stRadio").filter(has_text="Model source")
    radio.get_by_test_id("stRadioOption").filter(has_text=re.compile(r"^\s*hub\s*$")).click()
    page.locator('input[type="password"], [data-testid="stException"]').first.wait_for(timeout=STEP_MS)
    wait_idle(page)
    no_exception(page)


def test_model_source_round_trips_through_the_link(tab: Tab, browser_context, server: Server):
    tab.open("/")
    choose_hub_source(tab)
    page = tab.page
    expect(page).to_have_url(re.compile(r"[?&]source=hub(&|$)"), timeout=STEP_MS)
    # A rerun (any widget change) keeps working, and the link reopens the Hub view.
    hub_field = page.get_by_role("textbox", name="Hugging Face model id", exact=True)
    hub_field.fill(HUB_REPO)
    hub_field.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]hub=acme%2Ftiny-llama(&|$)"), timeout=STEP_MS)
    wait_idle(page)
    no_exception(page)
    other = browser_context.new_page()
    try:
        other.goto(page.url)
        wait_idle(other, LOAD_MS)
        no_exception(other)
        expect(other.get_by_role("textbox", name="Hugging Face model id", exact=True)).to_have_value(HUB_REPO)
        assert not other.get_by_test_id("stAlert").filter(has_text="fell back to defaults").count()
    finally:
        other.close()
    tab.assert_clean()


def test_hub_token_is_never_exposed(tab: Tab, server: Server):
    tab.open("/")
    page = tab.page
    log_before = len(server.log_text())
    choose_hub_source(tab)
    token_field = page.locator('input[type="password"]')
    token_field.fill(TOKEN)
    token_field.press("Enter")
    wait_idle(page)
    hub_field = page.get_by_role("textbox", name="Hugging Face model id", exact=True)
    hub_field.fill(HUB_REPO)
    hub_field.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]hub=acme%2Ftiny-llama(&|$)"), timeout=STEP_MS)
    wait_idle(page)
    no_exception(page)

    exported: dict[str, bytes] = {}
    if server.hub is not None:
        # The fake Hub serves the config: the plan renders, and the token did go where it belongs.
        expect(page.get_by_test_id("stMetric").first).to_be_visible(timeout=STEP_MS)
        assert any(r.authorization == f"Bearer {TOKEN}" for r in server.hub.requests), server.hub.requests
        for button in ("Chart data (CSV)", "Plan (JSON)"):
            exported[button] = download(page, button)
        assert json.loads(exported["Plan (JSON)"])                 # a real export, not an error page
        assert csv_rows(exported["Chart data (CSV)"])
    else:
        # Nothing listens at HF_ENDPOINT: an error message, and no export to check.
        expect(page.get_by_test_id("stAlert").first).to_be_visible(timeout=STEP_MS)
    wait_idle(page)

    assert TOKEN not in page.url
    assert not [u for u in tab.requests if TOKEN in u]
    assert TOKEN not in page.inner_text("body")
    # The app moves a typed token out of the password field into session memory and clears the
    # field, so not even the field's own value attribute holds it.
    html = page.content()
    assert TOKEN not in html, [html[max(0, m.start() - 200):m.end() + 50] for m in re.finditer(re.escape(TOKEN), html)]
    expect(page.get_by_text("A token is set for this session.")).to_be_visible()
    assert not [f for f in tab.frames if TOKEN.encode() in f], "the server sent the token back to the page"
    for name, data in exported.items():
        assert TOKEN.encode() not in data, name
    log = server.log_text()
    assert TOKEN not in log
    assert "Traceback" not in log[log_before:]
    hf_home = server.log.parent / "hf_home"
    for path in hf_home.rglob("*") if hf_home.exists() else []:
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    tab.assert_clean()
