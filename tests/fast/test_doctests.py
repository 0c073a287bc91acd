"""Every worked ``>>>`` example in kvcalc's docstrings runs and prints what it says.

Walks every module under kvcalc (``pkgutil.walk_packages``; ``__main__`` modules are skipped: importing
them runs the CLI), collects its doctests with ``doctest.DocTestFinder`` (only objects defined in that
module, so nothing is counted twice) and runs them with ELLIPSIS and NORMALIZE_WHITESPACE. Each
example's expected value is checked by hand or against an engine's source in its docstring; this test
only makes sure the code still agrees with them, and that at least :data:`MIN_EXAMPLES` exist.
"""
from __future__ import annotations

import doctest
import importlib
import pkgutil
from functools import cache

import pytest

import kvcalc

MIN_EXAMPLES = 25
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    names = [kvcalc.__name__]
    for info in pkgutil.walk_packages(kvcalc.__path__, prefix=f"{kvcalc.__name__}."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            names.append(info.name)
    return sorted(names)


MODULES = _modules()


@cache
def _run(name: str) -> doctest.TestResults:
    """Run module ``name``'s doctests once (failures are printed, pytest shows them); (failed, attempted)."""
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder().find(importlib.import_module(name)):
        runner.run(test)
    return runner.summarize(verbose=False)


def test_doctests_cover_every_kvcalc_module() -> None:
    assert "kvcalc.vllm.budget" in MODULES and "kvcalc.units" in MODULES
    assert not any(name.endswith("__main__") for name in MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name: str) -> None:
    results = _run(name)
    assert results.failed == 0, f"{results.failed} of {results.attempted} doctest examples failed in {name}"


def test_doctest_example_count() -> None:
    attempted = sum(_run(name).attempted for name in MODULES)
    assert attempted >= MIN_EXAMPLES, f"only {attempted} doctest examples in kvcalc (at least {MIN_EXAMPLES})"
