"""How one command-line value is read for an :class:`~kvcalc.engines.base.Option`: the readers the engines'
launch-line parsers share (kvcalc.vllm_command, kvcalc.engine_commands, kvcalc.llama_cpp.command).

Each reader takes the flag's text and returns the value or raises ValueError (the parser turns it into
``InputError("--flag has an invalid value ...")``). :func:`read_option` picks the option's own ``parse``
function, else the reader of its kind within its bounds (``low`` / ``high``; a ``fraction`` excludes its
low bound: vLLM's, SGLang's and TensorRT-LLM's memory fractions are in (0, 1]).

>>> human_readable_int("32k"), human_readable_int("1K"), human_readable_int("20G") == 20 * 2**30
(32000, 1024, True)
"""
from __future__ import annotations

import json
from typing import Any


def positive_int(text: str) -> int:
    """A command-line count: an integer of at least 1 (ValueError otherwise)."""
    value = int(text)
    if value < 1:
        raise ValueError
    return value


def fraction(text: str) -> float:
    """A command-line memory fraction in (0, 1] (ValueError otherwise)."""
    value = float(text)
    if not 0 < value <= 1:
        raise ValueError
    return value


_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def human_readable_int(text: str) -> int:
    """vLLM's ``human_readable_int`` (vllm/utils/argparse_utils.py): '1k' = 1,000, '1K' = 1,024, '25.6k' = 25,600;
    decimals are not allowed with the binary suffixes. At least 1."""
    text = text.strip()
    value: int
    if len(text) > 1 and text[-1] in _DECIMAL:
        value = int(float(text[:-1]) * _DECIMAL[text[-1]])
    elif len(text) > 1 and text[-1] in _BINARY:
        value = int(text[:-1]) * _BINARY[text[-1]]
    else:
        value = int(text)
    if value < 1:
        raise ValueError
    return value


def json_object(text: str) -> dict[str, Any]:
    """A JSON object argument (``--speculative-config '{"method": "mtp", "num_speculative_tokens": 1}'``)."""
    if len(text) > 2000:
        raise ValueError
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError
    return value


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _bounded(value: float, low: float | None, high: float | None, open_low: bool, open_high: bool = False) -> None:
    """ValueError naming the range when ``value`` is outside [low, high] (the low end open where ``open_low``,
    the high end where ``open_high``)."""
    below = low is not None and (value <= low if open_low else value < low)
    above = high is not None and (value >= high if open_high else value > high)
    if below or above:
        lo = "" if low is None else f"above {_number(low)}" if open_low else f"at least {_number(low)}"
        hi = "" if high is None else f"below {_number(high)}" if open_high else f"at most {_number(high)}"
        raise ValueError(f"must be {' and '.join(x for x in (lo, hi) if x)}")


def list_text(values: Any) -> str:
    """A ``list`` option's value as its command-line text (llama.cpp's ``-ts``: ``(3.0, 1.0)`` -> ``3,1``).

    >>> list_text((3.0, 1.0)), list_text((0.5, 1)), list_text(())
    ('3,1', '0.5,1', '')
    """
    return ",".join(f"{x:g}" for x in values)


def read_option(option: Any, text: str) -> Any:
    """``text`` read as ``option``'s value (kvcalc.engines.base.Option): its ``parse``, else by its kind within its
    bounds (int / length: an integer; float; json: an object; text / choice: the text, one of ``choices`` when
    given; an int with ``choices``: one of them; a list: its ``parse``). ValueError when invalid; a switch (bool) takes
    no value."""
    if option.parse is not None:
        return option.parse(text)
    kind = option.kind
    if kind in ("int", "length"):
        value: Any = int(text, 10)
        _bounded(value, option.low, option.high, False, option.open_high)
        if option.choices and str(value) not in option.choices:
            raise ValueError(f"must be one of {', '.join(option.choices)}")
        return value
    if kind == "float":
        value = float(text)
        _bounded(value, option.low, option.high, option.unit == "fraction", option.open_high)
        return value
    if kind == "json":
        return json_object(text)
    if kind in ("text", "choice"):
        if option.choices and text not in option.choices:
            raise ValueError
        return text
    raise ValueError(f"{option.flag} is a switch")
