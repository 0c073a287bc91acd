"""Real-browser tests of the Planner's chart, exports, navigation, theme and phone layout (issue 14
items 4, 9, 10), in headless Debian Chromium against a live ``streamlit run``.

The server, browser and page fixtures are tests/browser/test_browser.py's (imported; that module skips,
and so this one, without Chromium or Playwright). Expected numbers are arithmetic on the bundled
configs and data/gpus.csv (test_browser's reference helpers), never the app's own output; the
figure is read from plotly's own state in the page (``gd.layout``), the drawn labels from its SVG.
"""
from __future__ import annotations

import json
import os
import re

import pytest
import test_browser as tb
from paths import ROOT, load_config
from test_browser import (
    LLAMA,
    LOAD_MS,
    STEP_MS,
    GiB,
    Tab,
    csv_rows,
    dense_params,
    download,
    expect,
    gpu_memory_bytes,
    ideal_longest_context,
    kv_bytes_per_token,
    no_exception,
    plotly_visible,
    query,
    streamlit_server,
    wait_idle,
)

# test_browser's fixtures, used here under their own names
workdir, fake_hub, server, browser_context, tab = tb.workdir, tb.fake_hub, tb.server, tb.browser_context, tb.tab

LAYOUT_JS = "() => { const gd = document.querySelector('.js-plotly-plot'); return JSON.stringify(gd.layout); }"


def chart_layout(page) -> dict:
    return json.loads(page.evaluate(LAYOUT_JS))


def drawn_label(page, text: str) -> dict:
    """The bounding boxes of a drawn annotation whose text starts with ``text`` and of the plot area."""
    return page.evaluate("""(text) => {
        const gd = document.querySelector('.js-plotly-plot');
        const el = [...gd.querySelectorAll('.annotation-text')].find(t => t.textContent.startsWith(text));
        const plot = gd.querySelector('.cartesianlayer .bg, .bglayer .bg, rect.nsewdrag');
        const box = e => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
        return {label: el ? box(el) : null, plot: plot ? box(plot) : box(gd),
                shown: el ? getComputedStyle(el.closest('.annotation')).display !== 'none' : false};
    }""", text)


def assert_marker_drawn(page, text: str) -> None:
    d = drawn_label(page, text)
    assert d["label"] and d["shown"], (text, d)
    lab, plot = d["label"], d["plot"]
    # drawn where the plot is: horizontally inside its area (plotly hides an annotation outside the axis range)
    assert plot["x"] - 1 <= lab["x"] and lab["x"] + lab["w"] <= plot["x"] + plot["w"] + 60, (text, d)


def test_chart_marks_chosen_and_longest_context_on_log_and_linear_axes(tab: Tab):
    tab.open("/?runtime=ideal&gpu=rtx-4090&batch=8&ctx=8192")
    page = tab.page
    plotly_visible(page)
    # (24,564 MiB - 8,030,261,248 x 2 B) / (8 x 131,072 B) = 9,247 tokens (test_browser reference)
    longest = ideal_longest_context(load_config(LLAMA), "rtx-4090", 8)
    assert longest == 9_247
    for axis in ("log", "linear"):
        if axis == "linear":
            page.get_by_test_id("stSidebar").get_by_text("Log-scale context axis").click()
            expect(page).to_have_url(re.compile(r"[?&]logx=false(&|$)"), timeout=STEP_MS)
            wait_idle(page)
            page.wait_for_function("() => document.querySelector('.js-plotly-plot')?.layout?.xaxis?.type === 'linear'",
                                   timeout=STEP_MS)
        layout = chart_layout(page)
        assert layout["xaxis"]["type"] == axis
        assert {s["x0"] for s in layout["shapes"] if s.get("yref") == "paper"} == {8192, longest}
        page.wait_for_timeout(300)                                   # plotly's redraw after the relayout
        assert_marker_drawn(page, "chosen 8,192 tokens")
        assert_marker_drawn(page, f"longest context {longest:,}")
    no_exception(page)
    tab.assert_clean()


def test_y_axis_clamped_and_show_all(tab: Tab):
    tab.open("/?runtime=ideal&gpu=rtx-4090&batch=64&ctx=8192")
    page = tab.page
    plotly_visible(page)
    # clamped at 1.3 x the largest GPU line, the 80 GB class (H100 SXM, 81,559 MiB in data/gpus.csv)
    want = 1.3 * gpu_memory_bytes("h100-sxm") / GiB
    # a loaded machine can show the chart of an earlier render first: wait for the final layout, then check it
    page.wait_for_function(f"() => Math.abs((document.querySelector('.js-plotly-plot')?.layout?.yaxis?.range?.[1] "
                           f"?? 0) - {want}) < {want * 1e-6}", timeout=STEP_MS)
    top = chart_layout(page)["yaxis"]["range"][1]
    assert top == pytest.approx(want, rel=1e-6)
    expect(page.locator(".js-plotly-plot .annotation-text").filter(has_text="y axis cut at")).to_have_count(1)
    page.get_by_test_id("stSidebar").get_by_text("Show all (y axis not clamped)").click()
    expect(page).to_have_url(re.compile(r"[?&]yall=true(&|$)"), timeout=STEP_MS)
    wait_idle(page)
    # everything: 5 % above the top of the curve, weights + 64 x 131,072 tokens x 131,072 B (ideal: no overhead)
    cfg = load_config(LLAMA)
    total = dense_params(cfg) * 2 + 64 * cfg["max_position_embeddings"] * kv_bytes_per_token(cfg)
    page.wait_for_function(f"() => document.querySelector('.js-plotly-plot')?.layout?.yaxis?.range?.[1] > {top + 1}",
                           timeout=STEP_MS)
    assert chart_layout(page)["yaxis"]["range"][1] == pytest.approx(1.05 * total / GiB, rel=1e-6)
    expect(page.locator(".js-plotly-plot .annotation-text").filter(has_text="y axis cut at")).to_have_count(0)
    tab.assert_clean()


def test_exports_describe_themselves(tab: Tab):
    tab.open("/?runtime=ideal&gpu=rtx-4090&batch=8&ctx=8192")
    page = tab.page
    plotly_visible(page)
    # the figure title (also the PNG's) names model, GPU and count, in lines a phone's width holds
    title = page.locator(".js-plotly-plot .gtitle").first.evaluate(
        "t => [...t.querySelectorAll('tspan.line')].map(l => l.textContent).join(' ') || t.textContent") or ""
    assert title.startswith(f"{LLAMA} on 1 x ") and "4090" in title and "batch 8" in title, title
    doc = json.loads(download(page, "Plan (JSON)"))
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        version = re.search(r'^version = "([^"]+)"', f.read(), re.MULTILINE).group(1)
    assert doc["kvcalc_version"] == version
    assert doc["model"] == {"id": LLAMA, "source": "bundled"}
    assert "4090" in doc["gpu"]["name"] and doc["gpu"]["count"] == 1
    assert doc["gpu"]["memory_bytes"] == gpu_memory_bytes("rtx-4090")
    inputs = doc["inputs"]
    assert (inputs["batch"], inputs["context"], inputs["runtime"]) == (8, 8192, "ideal")
    assert inputs["options"]["gpu"] == "rtx-4090" and inputs["options"]["gpus"] == 1
    assert {"dtype", "kv_dtype", "runtime"} <= set(inputs["options"])
    assert inputs["link"]["batch"] == ["8"] and "batch=8" in doc["share_link"]
    # every Planner input by its URL key, defaults included (the attention what-if, the log axis)
    assert inputs["widgets"]["batch"] == 8 and inputs["widgets"]["attn"] == "as configured"
    assert inputs["widgets"]["logx"] is True and inputs["widgets"]["gpu"] == "rtx-4090"
    assert doc["plan"]["kv_bytes"] == 8 * 8192 * kv_bytes_per_token(load_config(LLAMA))     # 8 GiB
    rows = csv_rows(download(page, "Chart data (CSV)"))
    assert rows and {(r["model"], r["gpus"], r["runtime"]) for r in rows} == {(LLAMA, "1", "ideal")}
    assert all("4090" in r["gpu"] for r in rows)
    tab.assert_clean()


def test_navigation_says_planner_and_cold_deep_links_work(browser_context, workdir, fake_hub):
    """A freshly started server: a first visit to /Compare or /GPU_fit with a query string (the
    entry script has not run yet) sets the widgets, and the navigation's home entry reads "Planner"."""
    with streamlit_server(workdir, fake_hub, "streamlit-nav.log") as srv:
        page = browser_context.new_page()
        try:
            for path, checks in (("/GPU_fit?runtime=ideal&gpu=rtx-4090&batch=8", {"Batch": "8"}),
                                 ("/Compare?gpu=rtx-4090&batch=4", {"Batch": "4"}),
                                 ("/?gpu=rtx-4090&batch=2", {"Batch": "2"})):
                page.goto(srv.url + path)
                page.locator('[data-testid="stMain"] h1').first.wait_for(timeout=LOAD_MS)
                wait_idle(page, LOAD_MS)
                no_exception(page)
                links = page.get_by_test_id("stSidebar").get_by_test_id("stPageLink")
                expect(links).to_have_text(["Planner", "Compare", "GPU fit", "How it works", "Workload"])
                for label, value in checks.items():
                    expect(page.get_by_role("spinbutton", name=label, exact=True)).to_have_value(value)
                assert query(page).get("gpu") == ["rtx-4090"]
                assert not page.get_by_text("app", exact=True).count()
        finally:
            page.close()


def settled_boxes(page, test_id: str, n: int, timeout_ms: int = STEP_MS) -> list[dict[str, float]]:
    """The first ``n`` boxes of ``test_id``'s elements once the layout has stopped moving.

    All boxes are read in one snapshot (one ``evaluate``), and the snapshot is taken again until two
    in a row, 250 ms apart, agree: under CI load the browser can still be laying the page out after
    Streamlit reports the script done, and boxes read one by one then mix two layouts.
    """
    script = """([id, n]) => [...document.querySelectorAll(`[data-testid="${id}"]`)].slice(0, n).map(e => {
        const r = e.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height};
    })"""
    previous: list[dict[str, float]] = []
    for _ in range(max(2, timeout_ms // 250)):
        boxes = page.evaluate(script, [test_id, n])
        if len(boxes) == n and boxes == previous:
            return boxes
        previous = boxes
        page.wait_for_timeout(250)
    raise AssertionError(f"the {test_id} layout did not settle within {timeout_ms} ms: {previous}")


def test_phone_metrics_first_and_sidebar_closes_after_a_change(tab: Tab):
    page = tab.page
    page.set_viewport_size({"width": 390, "height": 844})
    tab.open("/?runtime=ideal&gpu=rtx-4090")
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_have_attribute("data-collapsed", "true")
    metrics = page.get_by_test_id("stMetric")
    expect(metrics.first).to_be_visible(timeout=STEP_MS)
    # the headline row (the first six metrics) lies within the first screen, two per row
    boxes = settled_boxes(page, "stMetric", 6)
    assert all(b and b["y"] + b["height"] <= 844 for b in boxes), boxes
    # the Planner's two rows of three wrap to at most two per row on a phone
    assert all(sum(round(c["y"]) == round(b["y"]) for c in boxes) <= 2 for b in boxes), boxes
    page.get_by_test_id("stExpandSidebarButton").click()
    expect(sidebar).to_have_attribute("data-collapsed", "false")
    batch = page.get_by_role("spinbutton", name="Batch", exact=True)
    batch.fill("4")
    batch.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]batch=4(&|$)"), timeout=STEP_MS)
    wait_idle(page)
    expect(sidebar).to_have_attribute("data-collapsed", "true", timeout=STEP_MS)
    no_exception(page)
    tab.assert_clean()


def test_theme_follows_the_light_or_dark_preference(tab: Tab):
    def background(scheme: str) -> float:
        page.emulate_media(color_scheme=scheme)
        tab.open("/?runtime=ideal&gpu=rtx-4090")
        plotly_visible(page)
        rgb = page.evaluate("getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
        r, g, b = (int(v) for v in re.findall(r"\d+", rgb)[:3])
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255          # relative luminance (sRGB weights)

    page = tab.page
    assert background("dark") < 0.2
    assert background("light") > 0.8
    tab.assert_clean()


def test_chart_titles_fit_a_phones_width(tab: Tab):
    """At 390 px the Planner's and Compare's figure titles are drawn in lines that end inside the figure (a
    one-line title ran off the right edge: dashboard.charts.title_lines)."""
    page = tab.page
    page.set_viewport_size({"width": 390, "height": 844})
    for path in ("/?runtime=ideal&gpu=rtx-4090&batch=8", "/Compare?gpu=rtx-4090"):
        tab.open(path)
        plotly_visible(page)
        right, width = page.locator(".js-plotly-plot").first.evaluate(
            """g => { const r = g.querySelector('.gtitle').getBoundingClientRect(),
                            f = g.querySelector('.main-svg').getBoundingClientRect();
                      return [r.right - f.left, f.width]; }""")
        assert right <= width, (path, right, width)
    tab.assert_clean()
