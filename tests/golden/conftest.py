"""The golden guard runs in the fast tier (pytest.ini): ``kvcalc plan/kv --json`` replayed against
plans.json.gz. Every test collected in this folder gets the fast marker."""
import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    item.add_marker(pytest.mark.fast)
