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
