"""The browser tier (pytest.ini): real-browser tests (headless /usr/bin/chromium + Playwright against a live
streamlit run). Every test collected in this folder gets the marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.browser)
