"""Shared test setup: every test lives in a tier folder, and the shared fixtures.

The tiers are pytest.ini's markers; tests/<tier>/conftest.py marks each test collected in that folder, and
tests/golden/ is fast. A test module anywhere else (tests/ itself, an unknown folder) fails collection, so no
test runs without a tier.
"""
from __future__ import annotations

import configparser
from pathlib import Path

import pytest
from fake_hub import fake_hub  # noqa: F401  (the local fake Hub fixture, for every test module)

TESTS = Path(__file__).parent
FOLDER_TIERS = {"golden": "fast"}
"""Folders whose tier is not their own name."""


def tiers(config: pytest.Config) -> set[str]:
    """The tier names: the markers pytest.ini declares (plugins add markers of their own)."""
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(config.inipath or TESTS.parent / "pytest.ini", encoding="utf-8")
    return {line.split(":", 1)[0].strip() for line in ini["pytest"]["markers"].splitlines() if line.strip()}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Fail collection for a test outside a tier folder, or one its folder's conftest.py did not mark."""
    known = tiers(config)
    misplaced: set[str] = set()
    for item in items:
        path = Path(item.path)
        folder = path.relative_to(TESTS).parts[0] if path.is_relative_to(TESTS) else ""
        tier = FOLDER_TIERS.get(folder, folder)
        marked = {mark.name for mark in item.iter_markers()} & known
        if tier not in known or marked != {tier}:
            misplaced.add(str(path.relative_to(TESTS.parent) if path.is_relative_to(TESTS.parent) else path))
    if misplaced:
        raise pytest.UsageError(
            f"not in a tier folder (tests/<tier>/ with its conftest.py; tiers: {', '.join(sorted(known))}): "
            + ", ".join(sorted(misplaced)))
