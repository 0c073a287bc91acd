"""Where kvcalc's bundled data lives: the one helper for ``data/`` paths.

In a checkout that is the repository's top-level ``data/`` folder; in an installed kvcalc
(``pip install .``) the same files are shipped inside the package as ``kvcalc/data/``.
"""
from __future__ import annotations

import json
import os
from typing import Any

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


def read_data_json(*parts: str) -> Any:
    """The parsed JSON file at :func:`data_path` ``(*parts)``, e.g. a bundled config.

    >>> read_data_json("configs", "meta-llama__Llama-3.1-8B.json")["num_key_value_heads"]
    8
    """
    with open(data_path(*parts), encoding="utf-8") as f:
        return json.load(f)
