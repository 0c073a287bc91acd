"""Page frame shared by every page: config, URL notices, the share link and error display."""
from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from . import state
from .text import md

NAV: tuple[tuple[str, str], ...] = (("app.py", "Planner"), ("pages/1_Compare.py", "Compare"),
                                   ("pages/2_GPU_fit.py", "GPU fit"), ("pages/3_How_it_works.py", "How it works"),
                                   ("pages/4_Workload.py", "Workload"))
"""The navigation (script, label), drawn by :func:`navigation`. Streamlit's own navigation from the
``pages/`` folder would label the home page "app" (its file name); it is hidden
(``client.showSidebarNavigation = false``). Not ``st.navigation``: in Streamlit 1.67, while a
``pages/`` folder exists, a cold deep link (``/Compare?...`` on a server whose entry script has
not run yet) is served by the folder's pages (``script_runner._mpa_v1``) and never runs the entry
script, so its navigation would still read "app"."""


def start(title: str, page: str) -> None:
    """Page config + navigation + title; validate the URL (``page``'s keys in
    :data:`state.PARAMS`) before any widget reads it, showing one notice."""
    st.set_page_config(page_title=f"{title} - KV Cache Planner", layout="wide")
    navigation()
    phone_layout()
    st.title(title)
    state.set_page(page)
    _check_link_size()
    notes = state.sanitize(state.page_keys(page))
    if notes:
        st.warning("Some values in the link were not usable and fell back to defaults: "
                   + "; ".join(md(n) for n in notes[:8])
                   + (f" (and {len(notes) - 8} more)" if len(notes) > 8 else ""), icon="⚠️")


_LINK_CHECKED = "_kvp_link_checked"
# Streamlit ignores a query string past its limits whole (state.link_limits), before any app code
# runs, so the server cannot see it. The browser can: past the limits this script replaces the
# link with ``?link_dropped=<count>`` and fires popstate, on which Streamlit's frontend reruns
# the page with the new query string (App.onHistoryChange); state.sanitize then shows the notice
# and removes the key, which clears the address bar. Constant code: no outside text in it.
_LINK_SIZE_JS = """<script>
(() => {{
  const q = window.location.search.replace(/^\\?/, "");
  const fields = q ? q.split("&").length : 0;
  if (fields <= {fields} && q.length <= {chars}) return;
  window.history.replaceState(window.history.state, "", window.location.pathname + "?{key}=" + fields);
  window.dispatchEvent(new PopStateEvent("popstate", {{state: window.history.state}}));
}})();
</script>"""


def _check_link_size() -> None:
    """Once per session, with an empty ``st.query_params``: the browser-side check above."""
    if st.session_state.get(_LINK_CHECKED) or len(st.query_params):
        st.session_state[_LINK_CHECKED] = True
        return
    st.session_state[_LINK_CHECKED] = True
    fields, chars = state.link_limits()
    st.html(_LINK_SIZE_JS.format(fields=fields, chars=chars, key=state.DROPPED_KEY), unsafe_allow_javascript=True)


def navigation() -> None:
    """The page links at the top of the sidebar (:data:`NAV`); none when a page script runs on its
    own (AppTest's ``from_file("pages/...")``), where Streamlit knows no other page."""
    try:
        for script, label in NAV:
            st.sidebar.page_link(script, label=label)
    except StreamlitAPIException:
        return
    st.sidebar.divider()


# Phones (Streamlit's own overlay-sidebar width, <= 768 px): a smaller title, the headline metrics
# two per row instead of one per row, so the verdict and the numbers come first. On every screen
# the element holding the sidebar script below takes no room. Selectors are Streamlit's own test
# ids (tests/browser/test_browser_layout.py checks the phone layout in a real browser). Also on every screen: the
# copy button of a code block (the launch command, the share link) always shown, in either theme; Streamlit 1.67
# draws it with opacity 0 and visibility hidden until the pointer hovers the block, so touch screens never see it.
COPY_BUTTON_CSS = ('[data-testid="stCode"] div:has([data-testid="stElementToolbarButton"]) '
                   '{ opacity: 1 !important; visibility: visible !important; }')
_PHONE_CSS = """<style>
[data-testid="stSidebar"] [data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script) { display: none; }
""" + COPY_BUTTON_CSS + """
@media (max-width: 768px) {
  [data-testid="stMainBlockContainer"] { padding-top: 3rem; }
  [data-testid="stMain"] h1 { font-size: 1.8rem; padding-bottom: 0.25rem; }
  [data-testid="stMain"] [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"]) {
    flex-wrap: wrap; row-gap: 0.5rem; }
  [data-testid="stMain"] [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"])
    > [data-testid="stColumn"] { flex: 1 1 calc(50% - 1rem) !important; min-width: calc(50% - 1rem) !important; }
  [data-testid="stMain"] [data-testid="stMetricValue"] { font-size: 1.6rem; }
}
</style>"""
# After each run (a widget change reruns the page), close the sidebar where it covers the page:
# Streamlit opens it over the content on narrow screens and leaves it open. The run counter makes
# the element new on every run, so the browser runs the script again. Constant code: no outside text.
_COLLAPSE_JS = """<script>
/* run {run} */
(() => {{
  if (!window.matchMedia("(max-width: 768px)").matches) return;
  const bar = document.querySelector('[data-testid="stSidebar"]');
  if (!bar || bar.getAttribute("data-collapsed") !== "false") return;
  const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (close) close.click();
}})();
</script>"""
_RUNS = "_kvp_runs"


def phone_layout() -> None:
    """The phone rules above, and the sidebar closed after each run on a phone."""
    st.html(_PHONE_CSS)
    st.session_state[_RUNS] = st.session_state.get(_RUNS, 0) + 1
    st.sidebar.html(_COLLAPSE_JS.format(run=st.session_state[_RUNS]), unsafe_allow_javascript=True)


METRICS_PER_ROW = 2
"""Figures a row on every page: a browser check (Chromium, sidebar open) at 1,024 px wide cut labels and values in
rows of three and four (a 107-177 px box: '131,072 tokens' is 225 px, '26,624 blocks' 204 px); two a row give each
figure 274 px there, and nothing was cut at 1,024, 1,280 or 1,440 px."""


def metric_grid(figures: Sequence[tuple[str, str, str | None]]) -> None:
    """``st.metric`` figures (label, value, help or None), :data:`METRICS_PER_ROW` a row, in order."""
    for start in range(0, len(figures), METRICS_PER_ROW):
        for col, (label, value, help_text) in zip(st.columns(METRICS_PER_ROW),
                                                  figures[start:start + METRICS_PER_ROW]):
            col.metric(label, value, help=help_text)


def model_ready(choice: Any) -> bool:
    """Show the model's notice (e.g. a bundled fallback); False, with a pointer to the error shown
    under the model input, when there is no config to plan."""
    if choice.notice:
        st.info(md(choice.notice))
    if choice.error or choice.config is None:
        st.info("No model to plan yet: see the message under the model input in the sidebar.")
        return False
    return True


def share_box(page_path: str = "", container: Any = None) -> None:
    """The "Copy share link" control: the URL of this exact view, with a copy button; drawn in
    ``container`` (default: the sidebar)."""
    box = st.sidebar if container is None else container
    box.markdown("**Copy share link**")
    box.code(state.share_link(page_path) or "(open the app in a browser to get a link)", language=None,
             wrap_lines=True)


# --------------------------------------------------------------------------- charts without a second validation
@functools.cache
def _plotly_template() -> dict[str, Any]:
    """The layout template plotly's validation adds to a figure that sets none (its default template), built
    once: what ``plotly.graph_objects.Figure(dict).to_dict()`` puts under ``layout.template``."""
    import plotly.graph_objects as go

    return dict(go.Figure().to_dict()["layout"].get("template", {}))


def prevalidated(fig: dict[str, Any]) -> Any:
    """A plain-dict figure (dashboard.charts) handed to ``st.plotly_chart`` without plotly's figure validation.

    Streamlit 1.67's ``plotly_chart`` calls ``plotly.tools.return_figure_from_figure_or_data(fig,
    validate_figure=True)``, which builds a ``plotly.graph_objects.Figure`` from a dict (every property validated)
    and turns it back into a dict: about 12 ms per chart here. A ``BaseFigure`` is taken as validated and only its
    ``to_dict()`` is used. This object is such a figure whose ``to_dict()`` is the dict itself plus the default
    template validation would add, so the JSON sent is the validated one (tests/pages/test_planner_speed.py checks
    the Planner's charts against ``Figure(fig).to_dict()``, which also proves plotly accepts every property)."""
    return _prevalidated_type()(fig)


@functools.cache
def _prevalidated_type() -> type:
    import plotly.graph_objects as go

    class Prevalidated(go.Figure):
        def __init__(self, figure: dict[str, Any]) -> None:       # no Figure.__init__: no validation
            self._kvp_figure = figure

        def to_dict(self) -> dict[str, Any]:
            layout = self._kvp_figure.get("layout") or {}
            if "template" in layout:
                return self._kvp_figure
            return {**self._kvp_figure, "layout": {**layout, "template": _plotly_template()}}

    return Prevalidated
