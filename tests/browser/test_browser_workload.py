"""The Workload page in a real browser: a widget change reaches the link, and the page's share link opened in
a fresh tab (a new session) shows the sender's key numbers.

Same server, browser and rules as tests/browser/test_browser.py (its fixtures and helpers, imported). Expected
numbers are hand arithmetic on the bundled Llama-3.1-8B config (32 layers x 8 KV heads x 128 x 2 B x (K + V) =
128 KiB a token, so a 16-token vLLM block is 2 MiB), never the app's output.
"""
from __future__ import annotations

import re

import test_browser as tb
from test_browser import LOAD_MS, STEP_MS, Tab, expect, expect_metrics, metric, no_exception, wait_idle

browser_context, fake_hub, server, tab, workdir = tb.browser_context, tb.fake_hub, tb.server, tb.tab, tb.workdir

KEYS = ("Effective concurrency", "Whole requests at once", "Blocks resident", "Worst case (nothing shared)",
        "Expected at once", "Off the GPU (tokens)", "Asked in all")


def test_the_share_link_reopens_the_same_numbers_in_a_fresh_tab(tab: Tab, browser_context):
    # 20 GiB of KV cache / 2 MiB a block = 10,240 blocks; max_model_len = the 8,192-token context: 512 a request
    tab.open("/Workload?wl_kvmem=20&wl_off=50&wl_link=pcie4")
    page = tab.page
    box = page.get_by_role("spinbutton", name="Shared-prefix tokens", exact=True)
    box.fill("4096")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]wl_prefix=4096(&|$)"), timeout=STEP_MS)
    wait_idle(page)
    # 4,096 / 16 = 256 shared blocks: (10,240 - 256) / (512 - 256) = 39; beside the null block
    # (10,240 - 1 - 256) // 256 = 38 whole requests; 50 GiB / 2 MiB x 16 = 409,600 tokens off the GPU
    expected = {KEYS[0]: "39.00x", KEYS[1]: "38 requests", KEYS[3]: "20.00x",
                KEYS[5]: f"{50 * 2**30 // 2**21 * 16:,}"}
    expect_metrics(page, expected)
    sent = {k: metric(page, k).inner_text() for k in KEYS}
    link = page.get_by_test_id("stSidebar").get_by_test_id("stCode").last.inner_text().strip()
    assert link.startswith(tab.base + "/Workload?") and "wl_prefix=4096" in link and "wl_link=pcie4" in link
    other = browser_context.new_page()                   # a new tab: a new session, nothing shared
    try:
        other.goto(link)
        other.locator('[data-testid="stMain"] h1').first.wait_for(timeout=LOAD_MS)
        wait_idle(other, LOAD_MS)
        no_exception(other)
        expect_metrics(other, sent)
        expect(other.get_by_role("spinbutton", name="Shared-prefix tokens", exact=True)).to_have_value("4096")
        assert not other.get_by_test_id("stAlert").filter(has_text="fell back to defaults").count()
    finally:
        other.close()
    tab.assert_clean()
