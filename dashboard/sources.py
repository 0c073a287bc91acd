"""Model loading for the pages: bundled catalog, Hub (cached) and pasted / uploaded configs.

Wraps :mod:`kvcalc.sources` (which does the work and the validation) with Streamlit caching and
turns every typed error into a message for the page. The Hub token comes from Streamlit secrets,
the ``HF_TOKEN`` environment variable, or the session's password field; it is passed to
kvcalc only and never reaches the URL, the page or a log. The secret or environment token is the
operator's, shared by every visitor: kvcalc is told so (``shared_token``) and then opens public
and gated models with it but refuses private repositories, which need the visitor's own token.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import streamlit as st

from kvcalc.catalog import bundled_config
from kvcalc.errors import KVCalcError


@dataclass(frozen=True)
class ModelChoice:
    """A loaded config (or the reason there is none), with where it came from."""

    config: dict[str, Any] | None
    name: str
    origin: str
    notice: str | None = None
    error: str | None = None
    checkpoint_bytes: int | None = None      # exact weight bytes from the Hub's safetensors metadata

    def plan_extras(self) -> dict[str, Any]:
        """Extra kvcalc.plan options this model brings (the checkpoint size, when the Hub gave it)."""
        return {"checkpoint_bytes": self.checkpoint_bytes} if self.checkpoint_bytes else {}


def secret_token() -> str | None:
    """HF token from Streamlit secrets or the environment (never shown)."""
    try:
        token = st.secrets.get("HF_TOKEN")
    except Exception:  # noqa: BLE001 - no secrets file
        token = None
    return token or os.environ.get("HF_TOKEN") or None


@st.cache_resource(show_spinner=False, max_entries=64)
def _bundled(name: str) -> dict[str, Any]:
    """Shared, not copied per rerun: pages only read configs (kvcalc never mutates its input)."""
    return bundled_config(name)


def _hub(repo_id: str, token: str | None, shared: bool) -> tuple[dict[str, Any], str, str | None, int | None]:
    """Fetch through kvcalc, which caches per (repo, revision, keyed hash of the token) in-process:
    a Streamlit cache shared across sessions must not serve one visitor's private config to another.
    ``shared``: the token is the operator's (secrets / environment), so kvcalc refuses private repos.
    Also reads the checkpoint's exact size from the Hub's safetensors metadata, when it has some."""
    from kvcalc.hub import fetch_weight_info, safetensors_weight_bytes
    from kvcalc.sources import resolve_config

    with st.spinner("Fetching config.json from the Hub..."):
        r = resolve_config(repo_id, token=token, shared_token=shared)
        size = None
        if r.origin == "hub":
            try:
                info = fetch_weight_info(repo_id, token=token, shared_token=shared)
                size = safetensors_weight_bytes(info.parameters) if info else None
            except KVCalcError:
                size = None          # the config is enough: weights are then computed from it
    return r.config, r.origin, r.notice, size


def load_model(origin: str, value: Any, token: str | None = None, file_name: str | None = None) -> ModelChoice:
    """Load a config for the page; errors become ``ModelChoice.error`` (one line, no traceback).
    A pasted config is named by its ``_name_or_path``, else ``file_name`` (an upload's), else
    'pasted config' (dashboard.config_link.config_title; outside text, escaped where shown)."""
    try:
        if origin == "bundled":
            return ModelChoice(_bundled(value), value, "bundled")
        if origin == "hub":
            if not value:
                return ModelChoice(None, "", "hub", error="Enter a Hugging Face model id such as Qwen/Qwen3-8B.")
            own = token.strip() if isinstance(token, str) and token.strip() else None
            config, where, notice, size = _hub(value, own or secret_token(), own is None)
            return ModelChoice(config, value, where, notice=notice, checkpoint_bytes=size)
        from kvcalc.sources import parse_config_text

        if not value:
            return ModelChoice(None, "", "paste", error="Paste or upload a config.json to plan it.")
        from .config_link import config_title

        config = parse_config_text(value)
        return ModelChoice(config, config_title(config, file_name), "paste")
    except KVCalcError as e:
        return ModelChoice(None, str(value)[:80] if origin != "paste" else "pasted config", origin, error=str(e))
