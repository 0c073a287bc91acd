"""Page frame shared by every page: config, URL notices, the share link and error display."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import streamlit as st

from . import state
from .text import md


def start(title: str, url_keys: Iterable[str]) -> None:
    """Page config + title; validate the URL before any widget reads it, showing one notice."""
    st.set_page_config(page_title=f"{title} - KV Cache Planner", layout="wide")
    st.title(title)
    notes = state.sanitize(url_keys)
    if notes:
        st.warning("Some values in the link were not usable and fell back to defaults: "
                   + "; ".join(md(n) for n in notes[:8])
                   + (f" (and {len(notes) - 8} more)" if len(notes) > 8 else ""), icon="⚠️")


def model_ready(choice: Any) -> bool:
    """Show the model's notice (e.g. a bundled fallback); False, with a pointer to the error shown
    under the model input, when there is no config to plan."""
    if choice.notice:
        st.info(md(choice.notice))
    if choice.error or choice.config is None:
        st.info("No model to plan yet: see the message under the model input in the sidebar.")
        return False
    return True


def share_box(page_path: str = "") -> None:
    """The "Copy share link" control: the URL of this exact view, with a copy button."""
    with st.sidebar:
        st.markdown("**Copy share link**")
        st.code(state.share_link(page_path) or "(open the app in a browser to get a link)", language=None,
                wrap_lines=True)
