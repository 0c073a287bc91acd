"""Typed exceptions raised by kvcalc. The UI turns each into a one-line message."""
from __future__ import annotations

from typing import Any


class KVCalcError(Exception):
    """Base class of every error kvcalc raises on purpose."""


class ConfigError(KVCalcError, ValueError):
    """A config.json field is missing, of the wrong type, or out of range.

    ``field`` is the dotted path of the field (``text_config.num_key_value_heads``),
    ``value`` the offending value (``None`` when the field is missing).
    """

    def __init__(self, field: str, value: Any, problem: str):
        self.field = field
        self.value = value
        self.problem = problem
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"config field '{field}' = {shown}: {problem}")


class UnsupportedError(KVCalcError, ValueError):
    """The request is valid but asks for something kvcalc does not model."""


class InputError(KVCalcError, ValueError):
    """A planning input (batch, context, dtype, GPU, ...) is out of range or unknown."""
