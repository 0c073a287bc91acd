"""Where the test data lives: the bundled catalog in data/ and the shared reference facts."""
from __future__ import annotations

import glob
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference")


def reference_configs() -> list[str]:
    """Every verbatim config.json: data/configs (bundled) and ../shared/reference/configs, by file name."""
    found: dict[str, str] = {}
    for folder in (os.path.join(REFERENCE, "configs"), os.path.join(ROOT, "data", "configs")):
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            found[os.path.basename(path)] = path
    return [found[name] for name in sorted(found)]


def load_config(name: str) -> dict:
    """The verbatim config.json called ``name`` (a file name, e.g. ``meta-llama__Llama-3.1-8B.json``) from
    data/configs or ../shared/reference/configs; FileNotFoundError naming the folders otherwise."""
    import json

    for path in reference_configs():
        if os.path.basename(path) == name:
            with open(path, encoding="utf-8") as f:
                config: dict = json.load(f)
                return config
    raise FileNotFoundError(f"{name} is in neither data/configs nor {os.path.join(REFERENCE, 'configs')}")
