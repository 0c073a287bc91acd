"""The fast tier (pytest.ini): kvcalc arithmetic against hand figures, logs and fixtures; no torch model, no server
(seconds). Every test collected in this folder gets the marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.fast)
