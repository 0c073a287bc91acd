"""Writes an engine oracle's fixture: its header, every case and the cases kept aside, each with what the
engine's arithmetic expects (dev-only; the oracle scripts in this folder call it from their ``main``)."""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any


def write_fixture(path: str, header: dict[str, Any], cases: Sequence[dict[str, Any]],
                  aside: Sequence[dict[str, Any]], run_case: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
    """``header`` plus ``cases`` / ``aside`` as ``{"input": case, "expect": run_case(case)}`` to ``path``
    (JSON, indent 1, a final newline); prints the counts and returns 0 (the script's exit status)."""
    doc = {**header,
           "cases": [{"input": c, "expect": run_case(c)} for c in cases],
           "aside": [{"input": c, "expect": run_case(c)} for c in aside]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(doc['cases'])} cases, {len(doc['aside'])} aside -> {path}")
    return 0
