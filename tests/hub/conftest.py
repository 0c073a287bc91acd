"""The hub tier (pytest.ini): the Hub path against a local fake Hub (HF_ENDPOINT on 127.0.0.1). Every test collected
in this folder gets the marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.hub)
