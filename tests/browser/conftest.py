"""The browser tier (pytest.ini): real-browser tests (headless /usr/bin/chromium + Playwright against a live
streamlit run). Every test collected in this folder gets the marker, and the one xdist group: under
``pytest -n auto --dist loadgroup`` (the README's test command) the browser tests run one after another on one
worker, beside the other tiers on the others, with one Streamlit server and one Chromium."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.browser)
    item.add_marker(pytest.mark.xdist_group("browser"))
