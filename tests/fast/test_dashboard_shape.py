"""The dashboard package's shape: no import circle between its modules (lazy imports inside functions
count too), no function over 80 lines and no module over 800 lines (CONTRIBUTING.md's code standards)."""
from __future__ import annotations

import ast
import glob
import os

from paths import ROOT

MODULES = sorted(glob.glob(os.path.join(ROOT, "dashboard", "*.py")))


def _imports(path: str) -> set[str]:
    """The dashboard modules ``path`` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dashboard."):
            found.add((node.module or "").split(".")[1])
    return found


def test_dashboard_has_no_import_circle():
    graph = {os.path.basename(p)[:-3]: _imports(p) for p in MODULES}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    assert [m for m in graph if reaches(m, m, {m})] == []


def test_dashboard_functions_and_modules_are_short():
    long_functions, long_modules = [], []
    for path in MODULES:
        text = open(path, encoding="utf-8").read()
        if text.count("\n") > 800:
            long_modules.append(os.path.basename(path))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                long_functions.append(f"{os.path.basename(path)}:{node.name}")
    assert long_functions == [] and long_modules == []
