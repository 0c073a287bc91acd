"""The one AppTest runner the page tests share: run a page with a query string, fail on any exception."""
from __future__ import annotations

import os
from typing import Any

from paths import ROOT

PLANNER, COMPARE, GPU_FIT, HOW = "app.py", "pages/1_Compare.py", "pages/2_GPU_fit.py", "pages/3_How_it_works.py"
MARKDOWN_ESCAPES = str.maketrans("", "", "\\\u2060")
"""What dashboard.text adds to shown text so Markdown leaves it alone (backslashes, word joiners)."""


RUNTIMES_OPEN = "runtimes_open"
"""The Planner's runtimes-table expander (dashboard.planner.RUNTIMES_OPEN): computed only while open."""


def run_page(page: str = PLANNER, timeout: float = 60, *, open_runtimes: bool = True, **query: Any) -> Any:
    """``page`` (a path from the checkout root) run once with ``query`` as its URL parameters (a list
    value repeats the key). On the Planner the runtimes side by side are opened first (``open_runtimes``), as a
    reader who opens that expander sees them; ``open_runtimes=False`` runs the page as it first shows."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(os.path.join(ROOT, page), default_timeout=timeout)
    if page == PLANNER and open_runtimes:
        at.session_state[RUNTIMES_OPEN] = True
    for k, v in query.items():
        at.query_params[k] = v
    return rerun(at)


def rerun(at: Any) -> Any:
    """Run again (after a widget change); no exception."""
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def paste_launch_line(text: str, at: Any = None) -> Any:
    """The Planner (``at``, or a fresh one) after ``text`` is pasted into its launch-line box and applied."""
    at = at if at is not None else run_page(PLANNER)
    at.text_area(key="vllm_cmd").set_value(text)
    at.button(key="vllm_cmd_apply").click()
    return rerun(at)


def caption_text(at: Any) -> str:
    """Every caption of the page, joined, with the Markdown escapes removed (the text a reader sees)."""
    return " ".join(c.value for c in at.caption).translate(MARKDOWN_ESCAPES)


def plotly_specs(at: Any) -> dict[str, dict]:
    """Every Plotly chart of the page by its key's end (``memory_chart``, ``speed_chart``): the JSON sent."""
    import json

    return {c.proto.id.rsplit("-", 1)[-1] if "-" in c.proto.id else c.proto.id: json.loads(c.proto.spec)
            for c in at.get("plotly_chart")}
