"""Real-browser tests of issue 14 items 6-8: the pickers' search, a shared pasted config opened in
a fresh page, and inputs carried from page to page through Streamlit's own navigation.

Same server, browser and rules as tests/browser/test_browser.py (its fixtures and helpers, imported);
expected numbers are arithmetic on the bundled configs and data/gpus.csv, never the app's output.
"""
from __future__ import annotations

import json
import re

import test_browser as tb
from paths import load_config
from test_browser import (
    LLAMA,
    LOAD_MS,
    QWEN,
    STEP_MS,
    Tab,
    expect,
    expect_metrics,
    ideal_longest_context,
    no_exception,
    query,
    wait_idle,
)

# the shared fixtures: the same fresh server and Chromium profile as tests/browser/test_browser.py
browser_context, fake_hub, server, tab, workdir = tb.browser_context, tb.fake_hub, tb.server, tb.tab, tb.workdir

QWEN06 = "Qwen/Qwen3-0.6B"


def sidebar(tab: Tab):
    return tab.page.get_by_test_id("stSidebar")


def search(tab: Tab, label: str, text: str) -> None:
    box = tab.page.get_by_role("textbox", name=label, exact=True)
    box.fill(text)
    box.press("Enter")
    tab.page.wait_for_timeout(300)      # let the rerun start: wait_idle alone can see the run before it
    wait_idle(tab.page)


def options(tab: Tab, combobox: str) -> list[str]:
    """The option texts the picker offers (opened, read, closed)."""
    page = tab.page
    for attempt in range(3):        # a list opened while the page reruns comes up empty: close it, open again
        page.get_by_role("combobox", name=combobox, exact=True).click()
        page.get_by_role("listbox").first.wait_for(timeout=STEP_MS)
        try:
            page.get_by_role("option").first.wait_for(timeout=STEP_MS // 3)
            break
        except Exception:           # noqa: BLE001 - playwright's TimeoutError: retried, the last one raises
            page.keyboard.press("Escape")
            wait_idle(page)
            if attempt == 2:
                raise
    texts = [t.strip() for t in page.get_by_role("option").all_text_contents()]
    page.keyboard.press("Escape")
    return texts


def choose(tab: Tab, combobox: str, text: str) -> None:
    page = tab.page
    page.get_by_role("combobox", name=combobox, exact=True).click()
    page.get_by_role("option", name=text, exact=True).click()
    wait_idle(page)


def nav(tab: Tab, name: str) -> None:
    """Click a page in the sidebar's page links (dashboard.page.NAV: st.page_link, which drops the link's
    query string; Streamlit's own navigation is hidden)."""
    page = tab.page
    page.get_by_test_id("stSidebar").get_by_test_id("stPageLink").get_by_text(name, exact=True).click()
    page.wait_for_timeout(300)
    wait_idle(page, LOAD_MS)
    no_exception(page)


def test_gpu_picker_finds_a_card_by_fragments(tab: Tab):
    tab.open("/?runtime=ideal")
    search(tab, "Search GPUs", "a100 80")
    found = options(tab, "GPU")
    # data/gpus.csv: the two A100 80GB cards, 81,920 MiB = 80.0 GiB; the current choice stays listed
    assert "NVIDIA A100 80GB (SXM4) — 80.0 GiB" in found and "NVIDIA A100 80GB (PCIe) — 80.0 GiB" in found
    assert set(found) - {"NVIDIA A100 80GB (SXM4) — 80.0 GiB", "NVIDIA A100 80GB (PCIe) — 80.0 GiB"} == {
        f"NVIDIA H100 80GB HBM3 (SXM) — {81_559 / 1024:.1f} GiB"}
    choose(tab, "GPU", "NVIDIA A100 80GB (PCIe) — 80.0 GiB")
    expect(tab.page).to_have_url(re.compile(r"[?&]gpu=a100-80gb-pcie(&|$)"), timeout=STEP_MS)
    search(tab, "Search GPUs", "24gb")
    found = options(tab, "GPU")
    assert {"NVIDIA GeForce RTX 4090 24GB — 24.0 GiB", "NVIDIA L4 24GB — 22.5 GiB"} <= set(found)
    assert not [f for f in found if "80GB" in f and "PCIe" not in f]
    tab.assert_clean()


def test_model_picker_finds_a_model_by_fragments_in_any_order(tab: Tab):
    tab.open("/?runtime=ideal")
    search(tab, "Search models", "30b QWEN3")
    found = options(tab, "Model (type to search)")
    qwen30 = [f for f in found if f.startswith("Qwen3-30B-A3B — ")]
    assert len(qwen30) == 1 and qwen30[0].endswith("B params · qwen")
    choose(tab, "Model (type to search)", qwen30[0])
    expect(tab.page).to_have_url(re.compile(r"[?&]model=Qwen%2FQwen3-30B-A3B(&|$)"), timeout=STEP_MS)
    tab.assert_clean()


def test_a_shared_pasted_config_opens_in_a_fresh_page(tab: Tab, browser_context):
    cfg = {**load_config(QWEN06), "_name_or_path": "acme/qwen-tuned"}
    tab.open("/GPU_fit?source=paste&runtime=ideal&gpu=rtx-4090")
    page = tab.page
    area = page.get_by_role("textbox", name="Paste a config.json", exact=True)
    area.fill(json.dumps(cfg))
    area.press("Control+Enter")
    expect(page).to_have_url(re.compile(r"[?&]cfg=[A-Za-z0-9_-]+"), timeout=STEP_MS)
    wait_idle(page)
    longest = ideal_longest_context(load_config(QWEN06), "rtx-4090", 1)
    expected = {"Longest context @ batch 1": f"{longest:,}"}
    expect_metrics(page, expected)
    link = page.url
    other = browser_context.new_page()                   # a new tab: a new session, nothing shared
    try:
        other.goto(link)
        wait_idle(other, LOAD_MS)
        no_exception(other)
        expect(other.get_by_test_id("stMain").get_by_text("acme/qwen-tuned on 1 x", exact=False)).to_be_visible(
            timeout=STEP_MS)
        expect_metrics(other, expected)
        assert not other.get_by_test_id("stAlert").filter(has_text="fell back to defaults").count()
    finally:
        other.close()
    tab.assert_clean()


def test_inputs_carry_over_from_page_to_page(tab: Tab):
    tab.open(f"/?model={QWEN}&gpu=rtx-4090&runtime=ideal&batch=8&ctx=4096")
    cfg = load_config(QWEN)
    longest = ideal_longest_context(cfg, "rtx-4090", 8)
    expect_metrics(tab.page, {"Longest context": f"{longest:,} tokens"})         # the Planner's metric
    nav(tab, "GPU fit")
    expect_metrics(tab.page, {"Longest context @ batch 8": f"{longest:,}"})
    q = query(tab.page)
    assert q.get("model") == [QWEN] and q.get("gpu") == ["rtx-4090"], tab.page.url
    assert not tab.page.get_by_test_id("stAlert").filter(has_text="fell back to defaults").count()
    nav(tab, "How it works")
    expect(tab.page.get_by_role("combobox", name="Model (type to search)", exact=True)).to_have_value(
        re.compile(r"^Qwen3-8B — "))
    expect(tab.page.get_by_role("spinbutton", name="Example context (tokens)", exact=True)).to_have_value("4096")
    nav(tab, "Compare")
    models = sidebar(tab).get_by_test_id("stMultiSelect").filter(has_text="Models")
    expect(models).to_contain_text("Qwen3-8B")
    runtimes = sidebar(tab).get_by_test_id("stMultiSelect").filter(has_text="Runtime")
    expect(runtimes).to_contain_text("ideal")
    assert LLAMA and not tab.page.get_by_test_id("stAlert").filter(has_text="fell back to defaults").count()
    tab.assert_clean()


def test_a_link_with_gpus_and_tp_that_disagree_says_which_wins(tab: Tab):
    tab.open("/GPU_fit?gpus=4&tp=2&runtime=ideal")
    notice = tab.page.get_by_test_id("stAlert").filter(has_text="the GPU count wins")
    expect(notice).to_be_visible(timeout=STEP_MS)
    expect(notice).to_contain_text("planning TP 4 x PP 1")
    tab.assert_clean()
