"""A calibrated share link opened in a new browser session shows the log's own KV figure (dashboard/startup_box.py).

The link value is built here from a real public log (vLLM issue 10517: Llama-3.1-8B on an RTX 3090, "# GPU
blocks: 1952", "Maximum concurrency for 20000 tokens per request: 1.56x") the way the Planner writes it
(dashboard.calibration_state.encode_calibration of the log's measurements), then opened with cookies cleared
in a new tab: a new Streamlit session that holds nothing but the link. Reuses test_browser.py's fixtures.
"""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import test_browser as tb  # skips this module too when Chromium or playwright is missing
from paths import ROOT
from playwright.sync_api import expect
from test_browser import STEP_MS, Tab, no_exception

from dashboard.calibration_state import encode_calibration
from kvcalc.catalog import bundled_config
from kvcalc.startup_log import calibrate, parse_startup_log

workdir, fake_hub, server, browser_context, tab = tb.workdir, tb.fake_hub, tb.server, tb.browser_context, tb.tab
LOG = Path(ROOT) / "tests" / "fixtures" / "startup_logs" / "vllm__llama-3.1-8b-instruct__1.log"


def _link_value() -> str:
    log = parse_startup_log(LOG.read_text(encoding="utf-8"))
    observed = {q.name: [q.name, q.text, q.unit] for x in log.lines for q in x.values
                if q.amount is not None and q.name != "device"}
    flags = calibrate(log, bundled_config("meta-llama/Llama-3.1-8B"))
    return encode_calibration({"v": 1, "engine": "vllm", "flags": flags, "observed": list(observed.values())})


def test_calibrated_link_in_a_new_session_shows_the_logs_kv_figures(tab: Tab):
    tab.page.context.clear_cookies()
    tab.open("/?" + urlencode({"model": "meta-llama/Llama-3.1-8B", "cal": _link_value()}))
    table = tab.page.get_by_test_id("stMain").get_by_test_id("stTable").filter(has_text="gpu_blocks").first
    expect(table).to_contain_text("1952 blocks", timeout=STEP_MS)
    expect(table).to_contain_text("1,952", timeout=STEP_MS)
    expect(table).to_contain_text("1.56 x", timeout=STEP_MS)
    no_exception(tab.page)
    tab.assert_clean()
