"""Where kvcalc's bundled data lives: the one helper for ``data/`` paths.

In a checkout that is the repository's top-level ``data/`` folder; in an installed kvcalc
(``pip install .``) the same files are shipped inside the package as ``kvcalc/data/``.
"""
from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_CANDIDATES = (os.path.join(_PACKAGE, "data"), os.path.join(os.path.dirname(_PACKAGE), "data"))


def data_dir() -> str:
    """The folder holding gpus.csv, models.csv, params.csv and configs/ (checked in this order above)."""
    for folder in _CANDIDATES:
        if os.path.isfile(os.path.join(folder, "gpus.csv")):
            return folder
    return _CANDIDATES[-1]


def data_path(*parts: str) -> str:
    """A path inside :func:`data_dir` (parts are fixed names from kvcalc, never user input)."""
    return os.path.join(data_dir(), *parts)
