"""The Streamlit entry point renders with no exception (AppTest, no browser)."""
from __future__ import annotations

import os

import pytest

from paths import ROOT

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest


def test_app_renders_default_view():
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=30).run()
    assert not at.exception
    # Llama-3.1-8B by default: 32 layers x 8 KV heads x 128 x (K+V) x bf16
    assert "131,072 B" in [m.value for m in at.metric]


def test_app_reports_bad_pasted_config():
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=30).run()
    at.text_area(key="pasted").input('{"model_type": "llama"}').run()
    assert not at.exception
    assert any("num_hidden_layers" in e.value for e in at.error)
