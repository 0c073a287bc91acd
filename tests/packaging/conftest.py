"""The packaging tier (pytest.ini): the package builds and installs offline; ruff and mypy are clean. Every test
collected in this folder gets the marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.packaging)
