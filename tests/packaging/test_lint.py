"""ruff and mypy are clean (settings in pyproject.toml), run as part of the test command so CI checks them."""
from __future__ import annotations

import subprocess
import sys

from paths import ROOT

LINTED = ("kvcalc", "dashboard", "pages", "app.py", "benchmarks", "tests")


def test_ruff_is_clean() -> None:
    run = subprocess.run([sys.executable, "-m", "ruff", "check", *LINTED], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_mypy_is_clean() -> None:
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
