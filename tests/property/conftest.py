"""The property tier (pytest.ini): hypothesis property tests (1,000 derandomized cases each). Every test collected
in this folder gets the marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.property)
