"""The pages tier (pytest.ini): Streamlit AppTest runs of the pages. Every test collected in this folder gets the
marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.pages)
