"""Real-browser checks of two Planner leftovers of issue 25 that AppTest cannot see (it has no layout):
the launch command's copy button is drawn without hovering, in the light and the dark theme, and the two
download buttons fill their columns. Fixtures are tests/browser/test_browser.py's (skipped without Chromium).
"""
from __future__ import annotations

import re

import test_browser as tb
from test_browser import LLAMA, Tab, plotly_visible

workdir, fake_hub, server, browser_context, tab = tb.workdir, tb.fake_hub, tb.server, tb.browser_context, tb.tab

# every element from the copy button up to its code block: drawn (opacity, visibility), and the icon's colour
_COPY_JS = """(code) => {
  const btn = code.querySelector('button[aria-label="Copy to clipboard"]');
  if (!btn) return null;
  const chain = [];
  for (let n = btn; n && n !== code; n = n.parentElement) {
    const s = getComputedStyle(n);
    chain.push([s.opacity, s.visibility, s.display]);
  }
  const r = btn.getBoundingClientRect();
  return {chain, width: r.width, height: r.height, color: getComputedStyle(btn).color,
          background: getComputedStyle(code.querySelector('pre')).backgroundColor};
}"""


def _luminance(css: str) -> float:
    r, g, b = (int(float(v)) for v in re.findall(r"[\d.]+", css)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_copy_button_shows_in_both_themes_and_downloads_fill_their_columns(tab: Tab):
    page = tab.page
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        tab.open(f"/?model={LLAMA}&gpu=h100-sxm")
        plotly_visible(page)
        code = page.get_by_test_id("stMain").get_by_test_id("stCode").filter(has_text="vllm serve").first
        got = code.evaluate(_COPY_JS)
        assert got is not None, "no copy button on the launch command"
        assert all(float(o) == 1 and v == "visible" and d != "none" for o, v, d in got["chain"]), (scheme, got)
        assert got["width"] > 0 and got["height"] > 0
        # the icon stands out from the code block's background (no colour rule of ours: the theme's own)
        assert abs(_luminance(got["color"]) - _luminance(got["background"])) > 0.3, (scheme, got)
    for label in ("Chart data (CSV)", "Plan (JSON)"):
        button = page.get_by_test_id("stDownloadButton").filter(has_text=label).locator("button")
        column = button.locator("xpath=ancestor::*[@data-testid='stColumn'][1]")
        assert button.bounding_box()["width"] >= 0.95 * column.bounding_box()["width"], label
    tab.assert_clean()
