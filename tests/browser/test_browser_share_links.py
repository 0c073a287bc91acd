"""Share links carry the whole view: on every page, for a pasted config, a Hub id and a bundled model, and for
a view reached by carrying inputs over from another page, the "Copy share link" opened in a fresh session
(a new tab: its own Streamlit session, nothing shared) shows every visible number again: each metric, each
table cell the grid draws, and every plotted point.

Same server and browser as tests/browser/test_browser.py (its fixtures, imported). Hand-derived checks beside
the comparison: Qwen3-0.6B's fp8 KV at 4 x 4,096 tokens is 28 layers x 8 KV heads x (128 + 128) x 1 B x 16,384
tokens = 896 MiB (data/configs); the comparison itself needs no reference, the same view must come back.
"""
from __future__ import annotations

import json

import test_browser as tb
from paths import load_config
from test_browser import HUB_REPO, LOAD_MS, STEP_MS, Tab, expect, no_exception, wait_idle
from test_browser_pages import nav

browser_context, fake_hub, server, tab, workdir = tb.browser_context, tb.fake_hub, tb.server, tb.tab, tb.workdir

QWEN06 = "Qwen/Qwen3-0.6B"

_VIEW_JS = """() => ({
  plots: [...document.querySelectorAll('.js-plotly-plot')].map(d => (d.data || []).map(
      t => [t.name || '', t.x || [], t.y || [], t.z || []])),
})"""


def share_link(page) -> str:
    return page.get_by_test_id("stSidebar").get_by_test_id("stCode").filter(has_text="http").first.inner_text().strip()


def _read(page) -> dict:
    metrics = {}
    for m in page.get_by_test_id("stMetric").all():
        metrics[m.get_by_test_id("stMetricLabel").inner_text().strip()] = m.get_by_test_id(
            "stMetricValue").inner_text().strip()
    tables = [[c.inner_text() for c in t.get_by_role("gridcell").all()]
              for t in page.get_by_test_id("stDataFrame").all()]
    return {"metrics": metrics, "tables": tables, **page.evaluate(_VIEW_JS)}


def view(page) -> dict:
    """Every visible number, read until two reads agree (the grid and the charts draw after the run ends)."""
    wait_idle(page)
    last = _read(page)
    for _ in range(6):
        page.wait_for_timeout(400)
        now = _read(page)
        if now == last:
            return now
        last = now
    return last


def assert_link_reproduces(context, page, must: tuple[str, ...] = ()) -> str:
    """Open the page's share link in a new tab and compare every visible number; ``must``: parameters the link
    has to name."""
    link = share_link(page)
    for part in must:
        assert part in link, f"{part!r} missing from the share link {link}"
    want = view(page)
    assert want["metrics"] or want["tables"], "no number on the page"
    other = context.new_page()
    try:
        other.goto(link)
        other.locator('[data-testid="stMain"] h1').first.wait_for(timeout=LOAD_MS)
        wait_idle(other, LOAD_MS)
        # the page drew all it shows (the title comes first: an early read finds no number yet)
        other.wait_for_function(
            "([m, t]) => document.querySelectorAll('[data-testid=stMetric]').length >= m"
            " && document.querySelectorAll('[data-testid=stDataFrame]').length >= t",
            arg=[len(want["metrics"]), len(want["tables"])], timeout=LOAD_MS)
        no_exception(other)
        got = view(other)
        assert not other.get_by_test_id("stAlert").filter(has_text="fell back to defaults").count()
    finally:
        other.close()
    assert got["metrics"] == want["metrics"]
    assert got["tables"] == want["tables"]
    assert got["plots"] == want["plots"]
    return link


def fill(page, label: str, value: str) -> None:
    box = page.get_by_role("spinbutton", name=label, exact=True)
    box.fill(value)
    box.press("Enter")
    page.wait_for_timeout(300)
    wait_idle(page)


def choose(page, combobox: str, option: str) -> None:
    box = page.get_by_role("combobox", name=combobox, exact=True)
    box.click()
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).wait_for(timeout=STEP_MS)
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    wait_idle(page)


def test_pasted_config_link_keeps_batch_context_and_kv_dtype(tab: Tab, browser_context):
    tab.open("/?source=paste&gpu=rtx-4090")
    page = tab.page
    area = page.get_by_role("textbox", name="Paste a config.json", exact=True)
    area.fill(json.dumps(load_config(QWEN06)))
    area.press("Control+Enter")
    page.wait_for_timeout(300)
    wait_idle(page)
    fill(page, "Batch", "4")          # the first change after the paste: it used to miss the link
    fill(page, "Context (tokens)", "4096")
    choose(page, "KV-cache dtype", "fp8_e4m3")
    cfg = load_config(QWEN06)
    kv = 4 * 4096 * cfg["num_hidden_layers"] * cfg["num_key_value_heads"] * 2 * cfg["head_dim"] * 1
    assert kv == 896 * 2**20
    expect(tb.metric(page, "KV cache / GPU")).to_have_text("896.00 MiB", timeout=STEP_MS)
    assert_link_reproduces(browser_context, page, must=("cfg=", "batch=4", "ctx=4096", "kvdtype=fp8_e4m3"))
    tab.assert_clean()


def test_hub_model_link_on_the_planner(tab: Tab, browser_context):
    tab.open("/?gpu=rtx-4090&runtime=ideal")
    tb.choose_hub_source(tab)
    page = tab.page
    field = page.get_by_role("textbox", name="Hugging Face model id", exact=True)
    field.fill(HUB_REPO)
    field.press("Enter")
    page.wait_for_timeout(300)
    wait_idle(page)
    fill(page, "Batch", "3")
    assert_link_reproduces(browser_context, page, must=("source=hub", "hub=acme%2Ftiny-llama", "batch=3"))
    tab.assert_clean()


def test_views_reached_by_carry_over_share_everything(tab: Tab, browser_context):
    tab.open("/?model=Qwen%2FQwen3-8B&gpu=rtx-4090&kvdtype=fp8_e4m3&runtime=sglang&batch=4&ctx=4096")
    page = tab.page
    nav(tab, "GPU fit")
    assert_link_reproduces(browser_context, page, must=("model=Qwen%2FQwen3-8B", "batch=4", "ctx=4096",
                                                        "kvdtype=fp8_e4m3", "runtime=sglang"))
    nav(tab, "How it works")
    assert_link_reproduces(browser_context, page, must=("model=Qwen%2FQwen3-8B", "ctx=4096"))
    nav(tab, "Compare")          # its picks are seeded from the Planner's model, KV dtype and runtime
    assert_link_reproduces(browser_context, page, must=("models=Qwen%2FQwen3-8B", "kvdtypes=fp8_e4m3",
                                                        "runtimes=sglang", "batch=4"))
    tab.assert_clean()
