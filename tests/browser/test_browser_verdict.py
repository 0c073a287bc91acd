"""The Planner's verdict, command and paste box in real Chromium (issue 14 items 1, 2, 3 and 5).

Reuses tests/browser/test_browser.py's server, browser and tab fixtures (a fresh ``streamlit run`` against the
local fake Hub; skipped without Chromium like that module). Expected numbers are plain arithmetic on the
bundled configs and published parameter counts (data/params.csv): Llama-3.1-8B 131,072 B of bf16 KV per
token; Llama-3.1-70B 70,553,706,496 parameters x 2 B / 2 GPUs = 65.7 GiB per GPU.
"""
from __future__ import annotations

import re

import test_browser as tb  # skips this module too when Chromium or playwright is missing
from playwright.sync_api import Page, expect
from test_browser import STEP_MS, Tab, no_exception, wait_idle

# test_browser's fixtures, used here by name: a fresh server on the fake Hub, one browser, a clean tab
workdir, fake_hub, server, browser_context, tab = tb.workdir, tb.fake_hub, tb.server, tb.browser_context, tb.tab


def alert(page: Page, text: str):
    return page.get_by_test_id("stAlert").filter(has_text=text).first


def command(page: Page):
    return page.get_by_test_id("stMain").get_by_test_id("stCode").filter(has_text="vllm serve").first


def paste(page: Page, line: str) -> None:
    page.get_by_test_id("stExpander").filter(has_text="Paste your vllm serve command").locator("summary").click()
    box = page.get_by_role("textbox", name="vllm serve ...", exact=True)
    box.fill(line)
    box.press("Control+Enter")                 # commit the text area before the button reads it
    wait_idle(page)
    page.get_by_role("button", name="Fill the options").click()
    wait_idle(page)


def test_rtx_4090_default_is_green_with_its_command_and_untruncated_metrics(tab: Tab):
    """8,192 tokens x 131,072 B = 1 GiB of KV beside 14.96 GiB of weights fits the 0.9 x 24,564 MiB budget;
    vLLM serves it with --max-model-len 8192. At 1280 px no metric value or label is cut."""
    page = tab.page
    page.set_viewport_size({"width": 1280, "height": 900})
    tab.open("/?gpu=rtx-4090")
    box = alert(page, "Fits: 1 sequence of 8,192 tokens")
    expect(box).to_be_visible(timeout=STEP_MS)
    expect(box).to_contain_text("max_model_len 8,192: the context asked for", timeout=STEP_MS)
    expect(box.get_by_test_id("stAlertContentSuccess")).to_be_visible(timeout=STEP_MS)          # green
    expect(command(page)).to_contain_text("vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192", timeout=STEP_MS)
    cut = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMetric"] *')]
        .filter(e => e.children.length === 0 && e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)""")
    assert not cut, f"truncated at 1280 px: {cut}"
    no_exception(page)
    tab.assert_clean()


def test_70b_on_two_h100s_red_then_green_with_4_bit_weights_and_fp8_kv(tab: Tab):
    page = tab.page
    tab.open("/?model=meta-llama/Llama-3.1-70B&gpu=h100-sxm&gpus=2&batch=16&ctx=32768")
    expect(alert(page, "Does not fit: weights alone need 65.7 GiB per GPU").get_by_test_id("stAlertContentError")
           ).to_be_visible(timeout=STEP_MS)                                                       # red
    tab.open("/?model=meta-llama/Llama-3.1-70B&gpu=h100-sxm&gpus=2&batch=16&ctx=32768&wdtype=int4&kvdtype=fp8_e4m3")
    expect(alert(page, "Fits: 16 sequences of 32,768 tokens")).to_be_visible(timeout=STEP_MS)
    expect(command(page)).to_contain_text("--tensor-parallel-size 2 --max-model-len 32768 --quantization awq "
                                          "--kv-cache-dtype fp8_e4m3", timeout=STEP_MS)
    expect(command(page)).to_contain_text("vllm serve hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4 ")
    no_exception(page)
    tab.assert_clean()


def test_the_generated_command_round_trips_through_the_paste_box(tab: Tab):
    page = tab.page
    tab.open("/?gpu=h100-sxm&gpus=2&kvdtype=fp8_e4m3&ctx=32768&util=0.85")
    line = command(page).inner_text().strip()
    assert line.startswith("vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2 --max-model-len 32768")
    tab.open("/?gpu=h100-sxm")
    paste(page, line)
    expect(command(page)).to_have_text(re.compile(re.escape(line)), timeout=STEP_MS)
    no_exception(page)
    tab.assert_clean()


def test_a_pasted_unbundled_instruct_id_plans_with_the_bundled_base(tab: Tab):
    page = tab.page
    tab.open("/?gpu=h100-sxm")
    paste(page, "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 -tp 2")
    expect(alert(page, "planned with meta-llama/Llama-3.1-8B's config: same architecture as "
                       "meta-llama/Llama-3.1-8B-Instruct")).to_be_visible(timeout=STEP_MS)
    expect(page).to_have_url(re.compile(r"[?&]hub=meta-llama%2FLlama-3\.1-8B-Instruct"), timeout=STEP_MS)
    expect(alert(page, "Fits: 1 sequence of 32,768 tokens")).to_be_visible(timeout=STEP_MS)
    expect(command(page)).to_contain_text("vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2",
                                          timeout=STEP_MS)
    no_exception(page)
    tab.assert_clean()


def test_phone_shows_the_verdict_before_the_metrics(tab: Tab):
    page = tab.page
    page.set_viewport_size({"width": 390, "height": 844})
    tab.open("/?gpu=rtx-4090")
    box = alert(page, "Fits: 1 sequence of 8,192 tokens")
    expect(box).to_be_visible(timeout=STEP_MS)
    first_metric = page.get_by_test_id("stMetric").first
    assert box.bounding_box()["y"] < first_metric.bounding_box()["y"]
    no_exception(page)
    tab.assert_clean()
