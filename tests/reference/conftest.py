"""The reference tier (pytest.ini): builds real transformers models on CPU (cache tensors, meta-device parameter
counts). Every test collected in this folder gets the marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.reference)
