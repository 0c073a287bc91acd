"""Where the test data lives, and the one way tests read it.

Configs: the verbatim config.json files of data/configs (bundled), ../shared/reference/configs (the shared
reference facts) and tests/oracles/configs (configs the oracles ran on). Fixtures: the committed JSON records
of tests/fixtures (engine logs, the transformers coverage replay, vLLM's own planning output).
"""
from __future__ import annotations

import glob
import importlib.util
import json
import os
import sys
from types import ModuleType
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference")
BUNDLED_CONFIGS = os.path.join(ROOT, "data", "configs")
ORACLE_CONFIGS = os.path.join(ROOT, "tests", "oracles", "configs")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
CONFIG_FOLDERS = (BUNDLED_CONFIGS, os.path.join(REFERENCE, "configs"), ORACLE_CONFIGS)
"""Where :func:`config_path` looks, in order (a bundled copy wins; the copies are byte-identical)."""


def reference_configs() -> list[str]:
    """Every verbatim config.json: data/configs (bundled) and ../shared/reference/configs, by file name."""
    found: dict[str, str] = {}
    for folder in (os.path.join(REFERENCE, "configs"), BUNDLED_CONFIGS):
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            found[os.path.basename(path)] = path
    return [found[name] for name in sorted(found)]


def config_path(name: str) -> str:
    """The path of the verbatim config ``name``: a file name (``meta-llama__Llama-3.1-8B.json``) or a Hub id
    (``meta-llama/Llama-3.1-8B``), looked up in :data:`CONFIG_FOLDERS`; FileNotFoundError naming them otherwise."""
    file = name if name.endswith(".json") else name.replace("/", "__") + ".json"
    for folder in CONFIG_FOLDERS:
        path = os.path.join(folder, file)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"{file} is in none of {', '.join(CONFIG_FOLDERS)}")


def load_json(path: str) -> Any:
    """The parsed JSON file at ``path``."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_config(name: str) -> dict:
    """The verbatim config.json ``name`` (a file name or a Hub id, see :func:`config_path`), parsed."""
    config: dict = load_json(config_path(name))
    return config


def fixture_path(name: str) -> str:
    """The path of tests/fixtures/``name`` (e.g. ``engine_logs/llama_cpp.json``)."""
    return os.path.join(FIXTURES, name)


def load_fixture(name: str) -> Any:
    """The committed fixture tests/fixtures/``name``, parsed."""
    return load_json(fixture_path(name))


ORACLES = os.path.join(ROOT, "tests", "oracles")


def load_oracle(name: str) -> ModuleType:
    """The oracle script tests/oracles/``name``.py as a module, loaded once (it imports its heavy dev-only stack
    only when it measures). It is registered in ``sys.modules`` first, so its dataclasses resolve their
    annotations."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(ORACLES, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
