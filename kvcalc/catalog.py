"""The bundled model catalog: verbatim config.json files in ``data/configs`` and their index.

``data/models.csv`` lists each bundled file with its Hub id, display name, family and whether the
Hub repo is gated (needs an accepted license and a token). Parameter counts come from
``data/params.csv`` (Hub safetensors totals, with their sources and caveats) where the model is
listed there, else from :func:`kvcalc.models.counting.count_params`. Everything here works offline.
"""
from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .data_files import data_dir
from .errors import InputError, KVCalcError

DATA_DIR = data_dir()
CONFIG_DIR = os.path.join(DATA_DIR, "configs")
DEFAULT_MODEL = "meta-llama/Llama-3.1-8B"


@dataclass(frozen=True)
class CatalogEntry:
    """One bundled model: ``params`` with ``params_source`` saying where the figure comes from."""

    hub_id: str
    display_name: str
    family: str
    file: str
    gated: bool
    params: int | None
    params_source: str

    @property
    def path(self) -> str:
        return os.path.join(CONFIG_DIR, self.file)


def _published_params() -> dict[str, tuple[int, str]]:
    with open(os.path.join(DATA_DIR, "params.csv"), encoding="utf-8", newline="") as f:
        return {r["model"]: (int(r["total_params"]), r["source"]) for r in csv.DictReader(f)}


@lru_cache(maxsize=1)
def catalog() -> tuple[CatalogEntry, ...]:
    """Every bundled model, sorted by family then name."""
    from .models.counting import count_params

    published = _published_params()
    entries = []
    with open(os.path.join(DATA_DIR, "models.csv"), encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            if r["hub_id"] in published:
                params, source = published[r["hub_id"]]
                source = f"published total: {source}"
            else:
                try:
                    params, source = count_params(load_json(os.path.join(CONFIG_DIR, r["file"]))).total, \
                        "computed from the config (parameters transformers builds)"
                except KVCalcError as e:
                    params, source = None, f"not computed: {e}"
            entries.append(CatalogEntry(hub_id=r["hub_id"], display_name=r["display_name"], family=r["family"],
                                        file=r["file"], gated=r["gated"] == "yes", params=params,
                                        params_source=source))
    return tuple(sorted(entries, key=lambda e: (e.family, e.display_name.lower())))


def load_json(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def find_entry(name: str) -> CatalogEntry | None:
    """The entry whose Hub id, display name or file stem equals ``name`` (case-insensitive)."""
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    for e in catalog():
        if key in (e.hub_id.lower(), e.display_name.lower(), e.file[:-5].lower(), e.file.lower()):
            return e
    return None


def bundled_config(name: str) -> dict[str, Any]:
    """The verbatim bundled config.json of ``name`` (Hub id, display name or file stem)."""
    entry = find_entry(name)
    if entry is None:
        raise InputError(f"'{str(name)[:60]}' is not in the bundled catalog")
    return load_json(entry.path)
