"""The io tier (pytest.ini): the CLI reading pipes, FIFOs and terminals with real time-outs (seconds each). Every
test collected in this folder gets the marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.io)
