"""kvcalc's import graph: no module imports one that (directly or through others) imports it back,
and the calculation package never imports Streamlit.

The graph is read from the source with ``ast``: every ``import`` / ``from ... import`` statement,
at module level and inside functions (a lazy import still makes a cycle: it only moves the failure to
run time). An edge A -> B means module A names module B; ``from .pkg import name`` names
``pkg.name`` when that is a module, else ``pkg``. Importing a submodule also runs its parents'
``__init__``, but Python handles that order itself, so parent packages are not edges.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Collection

from paths import ROOT

PACKAGE = "kvcalc"


def module_files(root: str = ROOT, package: str = PACKAGE) -> dict[str, str]:
    """{dotted module name: path} for every .py file under the package (``__init__`` = the package)."""
    out: dict[str, str] = {}
    base = os.path.join(root, package)
    for folder, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if os.path.exists(os.path.join(folder, d, "__init__.py"))]
        rel = os.path.relpath(folder, root).replace(os.sep, ".")
        for f in files:
            if f.endswith(".py"):
                name = rel if f == "__init__.py" else f"{rel}.{f[:-3]}"
                out[name] = os.path.join(folder, f)
    return out


def imports(source: str, module: str, is_package: bool) -> set[tuple[str, str | None]]:
    """Every import in the source, anywhere in it: ``(module, None)`` for ``import module``,
    ``(module, name)`` for ``from module import name``, relative names made absolute."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[tuple[str, str | None]] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update((a.name, None) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            found.update((base, a.name) for a in node.names)
    return found


def edges(source: str, module: str, is_package: bool, modules: Collection[str]) -> set[str]:
    """The ``modules`` this source imports: ``from pkg import name`` is ``pkg.name`` when that is one
    of them, else ``pkg``; ``import a.b`` is ``a.b``. Never the module itself."""
    out = set()
    for base, attr in imports(source, module, is_package):
        if attr is not None and f"{base}.{attr}" in modules:
            out.add(f"{base}.{attr}")
        elif base in modules:
            out.add(base)
    return out - {module}


def import_graph(files: dict[str, str]) -> dict[str, set[str]]:
    """{module: the package's modules it imports}, read from every file."""
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        with open(path, encoding="utf-8") as f:
            graph[name] = edges(f.read(), name, path.endswith("__init__.py"), files)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None when the graph is acyclic (depth-first search)."""
    state: dict[str, int] = {}            # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


# ----------------------------------------------------------------------------- the checker itself
def test_parser_resolves_relative_and_function_level_imports():
    src = ("from ..kv import resolve_dtypes\nfrom . import specs\n\n"
           "def f():\n    from .budget import x\n    import json\n")
    assert imports(src, "kvcalc.vllm.cache", is_package=False) == {
        ("kvcalc.kv", "resolve_dtypes"), ("kvcalc.vllm", "specs"), ("kvcalc.vllm.budget", "x"), ("json", None)}
    assert imports("from .budget import x", "kvcalc.vllm", is_package=True) == {("kvcalc.vllm.budget", "x")}
    modules = {"kvcalc", "kvcalc.kv", "kvcalc.vllm", "kvcalc.vllm.specs", "kvcalc.vllm.budget", "kvcalc.vllm.cache"}
    # no edge to the parent package, nor outside the package
    assert edges(src, "kvcalc.vllm.cache", False, modules) == {"kvcalc.kv", "kvcalc.vllm.specs", "kvcalc.vllm.budget"}


def test_cycle_finder_finds_a_lazy_circle():
    # the shape this refactor removed: kv imported vllm inside kv_cache while vllm imported kv
    assert find_cycle({"kv": {"vllm"}, "vllm": {"kv", "spec"}, "spec": set()}) == ["kv", "vllm", "kv"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_graph_sees_the_real_edges():
    graph = import_graph(module_files())
    assert "kvcalc.capacity" in graph["kvcalc.cli"]                 # a function-level import
    assert "kvcalc.engines.registry" in graph["kvcalc.kv"]          # the engine dispatch (Engine.layer_kv)
    assert "kvcalc.vllm.specs" in graph["kvcalc.vllm.pool"]
    assert "kvcalc.resolve" in graph["kvcalc.vllm.defaults"]


# ----------------------------------------------------------------------------- the package
def test_kvcalc_import_graph_is_acyclic():
    files = module_files()
    assert "kvcalc.vllm" in files and "kvcalc.vllm.specs" in files
    cycle = find_cycle(import_graph(files))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_vllm_package_never_imports_kv():
    """kvcalc.kv sits above kvcalc.vllm (it dispatches runtime='vllm'); the vllm modules use kvcalc.resolve."""
    graph = import_graph(module_files())
    for name, targets in graph.items():
        if name.startswith("kvcalc.vllm"):
            assert "kvcalc.kv" not in targets, name
            assert "kvcalc.vllm" not in targets or name == "kvcalc.vllm", f"{name} imports its own package"


def test_kvcalc_never_imports_streamlit():
    for name, path in module_files().items():
        with open(path, encoding="utf-8") as f:
            found = imports(f.read(), name, path.endswith("__init__.py"))
        assert not {b for b, _ in found if b == "streamlit" or b.startswith("streamlit.")}, name


def test_importing_kvcalc_loads_no_streamlit():
    entries = "kvcalc, kvcalc.cli, kvcalc.capacity, kvcalc.sweep, kvcalc.vllm.budget"
    code = f"import sys, {entries}; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
