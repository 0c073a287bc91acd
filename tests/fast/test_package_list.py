"""pyproject.toml lists every kvcalc package (setuptools is given the list explicitly, so a new
sub-package left out installs without its modules: ``pip install .`` then fails at import)."""
from __future__ import annotations

import os

import tomllib
from paths import ROOT


def test_every_kvcalc_package_is_listed() -> None:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    found = {os.path.relpath(folder, ROOT).replace(os.sep, ".")
             for folder, _, files in os.walk(os.path.join(ROOT, "kvcalc")) if "__init__.py" in files}
    assert found - listed == set()
