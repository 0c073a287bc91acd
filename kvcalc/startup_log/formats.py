"""Which module of kvcalc.startup_log reads each engine's startup log: the engine object names it
(``Engine.startup_log``, kvcalc.engines.base), so a log's engine is looked up here, never compared by name.

Each such module declares ``ENGINE`` (the runtime's name), its line formats (``RULES``,
``VERSION_RULES``, ``EXPECTED``, ``SIGNATURES``) and its calibration: ``flags(log, block_bytes)``,
``GIB_KEPT`` (the ``--*-gib`` flags its log measures); optionally ``block_bytes(log, config, tp)``
(the model's bytes per block that pin the pool), ``config_flags(log, config, flags)`` (flags the log
fixes only together with the config), ``band(log, tp, block)`` (the bytes per token its KV lines allow)
and ``direct_check(log, geometry)`` (a model check on the geometry it prints).
"""
from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType


@cache
def log_modules() -> tuple[ModuleType, ...]:
    """The startup-log module of every registered engine that names one, in registry order.

    >>> [m.ENGINE for m in log_modules()]
    ['vllm', 'sglang', 'tensorrt_llm', 'llama_cpp']
    """
    from kvcalc.engines.registry import get_engine, names

    found = (getattr(get_engine(n), "startup_log", None) for n in names())
    return tuple(importlib.import_module(m) for m in dict.fromkeys(f for f in found if f))


def log_module(engine: str) -> ModuleType | None:
    """The startup-log module whose ``ENGINE`` is ``engine`` (a parsed log's ``StartupLog.engine``), or None.

    >>> log_module("sglang").ENGINE, log_module("unknown")
    ('sglang', None)
    """
    return next((m for m in log_modules() if m.ENGINE == engine), None)
