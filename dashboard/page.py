"""Page frame shared by every page: config, URL notices, the share link and error display."""
from __future__ import annotations

from typing import Any

import streamlit as st

from . import state
from .text import md


def start(title: str, page: str) -> None:
    """Page config + title; validate the URL (``page``'s keys in :data:`state.PARAMS`) before any
    widget reads it, showing one notice."""
    st.set_page_config(page_title=f"{title} - KV Cache Planner", layout="wide")
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
