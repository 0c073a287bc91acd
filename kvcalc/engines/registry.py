"""The one list of runtimes: name -> engine object (kvcalc.engines.base.Engine).

Each line of :data:`BUILTIN` names a runtime and where its engine object lives; the module is
imported on first use, so an engine package may import kvcalc.plan and the rest of the core
without an import circle. A new engine is one package and one line here (CONTRIBUTING.md);
:func:`register` adds one at run time (a test's toy engine, a plug-in).

>>> get_engine("sglang").label
'SGLang'
>>> names()
('ideal', 'transformers', 'vllm', 'sglang', 'tensorrt_llm', 'llama_cpp')
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import InputError

Engine = Any    # kvcalc.engines.base.Engine (not imported: the registry sits below every engine module)

BUILTIN: dict[str, str] = {
    "ideal": "kvcalc.ideal.engine:ENGINE",
    "transformers": "kvcalc.hf_transformers.engine:ENGINE",
    "vllm": "kvcalc.vllm.engine:ENGINE",
    "sglang": "kvcalc.sglang.engine:ENGINE",
    "tensorrt_llm": "kvcalc.trtllm.engine:ENGINE",
    "llama_cpp": "kvcalc.llama_cpp.engine:ENGINE",
}
"""Runtime name -> ``module:attribute`` of its engine object, in the order the runtimes are listed."""

_LOADED: dict[str, Engine] = {}
_ADDED: dict[str, Engine] = {}


def _load(name: str) -> Engine:
    if name not in _LOADED:
        module, _, attr = BUILTIN[name].partition(":")
        engine = getattr(importlib.import_module(module), attr)
        if engine.name != name:
            raise RuntimeError(f"{BUILTIN[name]} is engine {engine.name!r}, registered as {name!r}")
        _LOADED[name] = engine
    return _LOADED[name]


def names() -> tuple[str, ...]:
    """Every runtime's name: the built-in ones in :data:`BUILTIN` order, then those :func:`register` added."""
    return tuple(BUILTIN) + tuple(n for n in _ADDED if n not in BUILTIN)


def get_engine(name: object) -> Engine:
    """The engine of runtime ``name``, else InputError naming the choices."""
    if isinstance(name, str):
        if name in _ADDED:
            return _ADDED[name]
        if name in BUILTIN:
            return _load(name)
    raise InputError(f"unknown runtime '{str(name)[:40]}'; choose one of {', '.join(names())}")


def register(engine: Engine) -> Engine:
    """Add (or replace) ``engine`` under ``engine.name``; returns it. :func:`unregister` takes it away."""
    if not getattr(engine, "name", "") or not callable(getattr(engine, "plan_at", None)):
        raise InputError("register() takes an Engine instance with a name")
    _ADDED[engine.name] = engine
    return engine


def unregister(name: str) -> None:
    """Remove an engine :func:`register` added (the built-in ones stay)."""
    _ADDED.pop(name, None)


class _Engines(Mapping[str, Engine]):
    """Read-only view of the registry: ``ENGINES["vllm"]``, ``list(ENGINES)``."""

    def __getitem__(self, name: str) -> Engine:
        try:
            return get_engine(name)
        except InputError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(names())

    def __len__(self) -> int:
        return len(names())


ENGINES: Mapping[str, Engine] = _Engines()
"""Every engine by runtime name (built-in and registered)."""


def owner_of(dest: str) -> Engine | None:
    """The built-in engine that declares option ``dest`` (the first in :data:`BUILTIN` order), else None."""
    for name in names():
        engine = get_engine(name)
        if dest in engine.option_names():
            return engine
    return None
