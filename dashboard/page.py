"""Page frame shared by every page: config, URL notices, the share link and error display."""
from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from . import state


def start(title: str, url_keys: Iterable[str]) -> None:
    """Page config + title; validate the URL before any widget reads it, showing one notice."""
    st.set_page_config(page_title=f"{title} - KV Cache Planner", layout="wide")
    st.title(title)
    notes = state.sanitize(url_keys)
    if notes:
        st.warning("Some values in the link were not usable and fell back to defaults: " + "; ".join(notes[:8])
                   + (f" (and {len(notes) - 8} more)" if len(notes) > 8 else ""), icon="⚠️")


def share_box(page_path: str = "") -> None:
    """The "Copy share link" control: the URL of this exact view, with a copy button."""
    with st.sidebar:
        st.markdown("**Copy share link**")
        st.code(state.share_link(page_path) or "(open the app in a browser to get a link)", language=None,
                wrap_lines=True)
