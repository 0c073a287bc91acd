"""The fuzz tier (pytest.ini): hostile share links through AppTest (200 per page). Every test collected in this
folder gets the marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.fuzz)
