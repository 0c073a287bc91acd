"""The engines' options as URL parameters and widgets, generated from their declarations.

Each engine declares its options once (kvcalc.engines.base.Option: the engine's own flag, kind, unit,
bounds, default, help, URL key). Every declared option with a ``url_key`` becomes one
:class:`OptionParam` here: its URL parameter (key, check from the kind, bounds and choices), its widget
(label = the engine's flag, help = the declaration's, range = the engine's bounds, default) and the
deploy() keyword it fills, so a new option is added in the engine's declarations alone.

Widget rules, from the declaration only:

* a switch (``bool``) is a toggle; an option with ``choices`` a select box of them; a ``list`` (llama.cpp's
  ``-ts 3,1``) a text box of its command-line text, checked by the option's own reader ("" = not set);
* a number whose ``default`` is None (the engine picks, per GPU or model) and that has no ``usual``
  value offers 0 as "not set" below its bounds (``sg_mem=0``: SGLang's own share);
* a fraction with a default is a slider over [0, high] (a link or paste must still be above 0);
* the widget's range is the engine's, so every value the engine takes is representable.

Two options are composed by the page instead (their URL value is not the option's text): vLLM's
``--speculative-config`` (the ``spec`` method and ``spec_tokens``) and LoRA. :data:`PLANNER_CHOICES`
narrows two lists to what the Planner offers (vLLM block sizes; the GGUF file types kvcalc models).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kvcalc.engines import Option, get_engine, names
from kvcalc.engines.readers import list_text
from kvcalc.gguf.mixes import file_type_names
from kvcalc.scenarios import DEFAULT_GGUF, takes_vllm_options

from .url_params import _OPTIONS, Param, _bool, _choice, _float, _int

BLOCK_SIZES = [8, 16, 32, 64, 128]
"""vLLM block sizes the Planner offers (vLLM takes others: a pasted one outside the list is reported)."""

PLANNER_CHOICES: dict[str, tuple[Callable[[], list[Any]], Any]] = {
    "block": (lambda: BLOCK_SIZES, None),
    "ll_gguf": (file_type_names, DEFAULT_GGUF),
}
"""URL key -> (the values the Planner offers, its default where the declaration has none): lists the engine's
declaration cannot hold (kvcalc.gguf.mixes' file types) or a narrower convenient one."""

COMPOSED = frozenset({"json"})
"""Option kinds the page composes from several widgets (vLLM's ``spec`` / ``spec_tokens``), not generated."""


@dataclass(frozen=True)
class OptionParam:
    """One declared engine option as a URL parameter and its widget (module docstring); ``runtimes``: the
    engines that declare it (the library runtimes share vLLM's ``--max-model-len``, URL key ``mml``)."""

    runtimes: tuple[str, ...]
    option: Option

    @property
    def runtime(self) -> str:
        """The first engine that declares it."""
        return self.runtimes[0]

    @property
    def key(self) -> str:
        return str(self.option.url_key)

    @property
    def dest(self) -> str:
        """The deploy() keyword (the engine's options field)."""
        return self.option.dest

    @property
    def flag(self) -> str:
        """The widget's label: the engine's own flag (the option's name where it has no dashed flag)."""
        o = self.option
        return o.flag if o.flag.startswith("-") else o.dest

    @property
    def choices(self) -> list[Any]:
        """The values a select box offers ([] for a number or a switch), typed as the option's kind."""
        if self.key in PLANNER_CHOICES:
            return list(PLANNER_CHOICES[self.key][0]())
        if self.option.kind in ("int", "length"):
            return [int(c) for c in self.option.choices]
        return list(self.option.choices)

    @property
    def unset(self) -> bool:
        """Whether 0 stands for "not set" (a number the engine picks when not given)."""
        o = self.option
        return (not self.choices and o.kind in ("int", "float", "length") and o.default is None
                and o.usual is None)

    @property
    def default(self) -> Any:
        """The widget's value when nothing is set: the declared default, else the engine's usual value, else
        the Planner's list's default, else 0 (not set)."""
        o = self.option
        if o.kind == "list":
            return list_text(o.default or ())
        if o.default is not None:
            return o.default
        if o.usual is not None:
            return o.usual
        if self.key in PLANNER_CHOICES and PLANNER_CHOICES[self.key][1] is not None:
            return PLANNER_CHOICES[self.key][1]
        return 0.0 if o.kind == "float" else 0

    @property
    def widget(self) -> str:
        """``toggle``, ``select``, ``text`` (a list), ``slider`` (a fraction with a default) or ``number``."""
        if self.option.kind == "bool":
            return "toggle"
        if self.option.kind == "list":
            return "text"
        if self.choices:
            return "select"
        if self.option.unit == "fraction" and not self.unset:
            return "slider"
        return "number"

    def bounds(self) -> tuple[float, float]:
        """(lowest, highest) value of a number widget: the engine's bounds, from 0 where 0 means not set (and a
        fraction's slider), the highest value below ``high`` where the engine refuses ``high`` itself."""
        o = self.option
        low = 0 if o.low is None else o.low
        if o.kind == "length":
            low = max(low, 1)                      # -1 / auto (vLLM's auto-fit) is the CLI's, not a widget's
        if self.unset or self.widget == "slider":
            low = min(low, 0)
        high = (math.inf if o.kind == "float" else 1 << 53) if o.high is None else o.high
        if o.open_high:
            high = math.nextafter(high, -math.inf)
        if o.kind == "float":
            return float(low), float(high)
        return int(low), int(high)

    def check(self) -> Callable[[str], str | None]:
        """The URL value's check: one of the choices, true / false, or a number in :meth:`bounds` (a
        fraction with a default above 0)."""
        if self.widget == "toggle":
            return _bool
        if self.widget == "select":
            return _choice(lambda: [str(c) for c in self.choices])
        if self.widget == "text":
            return _read_by(self.option)
        lo, hi = self.bounds()
        if self.option.kind != "float":
            return _int(int(lo), int(hi))
        if self.widget == "slider":
            return _above_zero(hi)
        if self.option.open_high:
            return _below(lo, self.option.high or 1.0)
        return _float(lo, hi)

    def param(self) -> Param:
        """The URL parameter row (dashboard.url_params.Param); the options of the engine that takes vLLM's
        options (kvcalc.scenarios.takes_vllm_options) fill from a pasted ``vllm serve`` under their name."""
        vllm = any(takes_vllm_options(r) for r in self.runtimes)
        return Param(self.key, self.check(), _OPTIONS, vllm=self.dest if vllm else None)

    def value(self, raw: Any) -> Any:
        """The deploy() value of a widget value: None for 0 where 0 means not set; numbers typed."""
        if self.unset and not raw:
            return None
        if self.option.kind == "list":
            return self.option.read(raw) if isinstance(raw, str) and raw.strip() else None
        if self.option.kind == "float":
            return float(raw)
        if self.option.kind in ("int", "length") and not isinstance(raw, bool):
            return int(raw)
        return raw

    def widget_value(self, value: Any) -> Any:
        """An options field's value as this widget holds it (a list's command-line text: ``(3.0, 1.0)`` ->
        ``"3,1"``; anything else as is), for a pasted command."""
        return list_text(value) if self.option.kind == "list" else value


def _read_by(option: Option) -> Callable[[str], str | None]:
    """The URL check of a list option: its own reader's error, or None; "" (not set) passes."""
    def check(v: str) -> str | None:
        if not v.strip():
            return None
        try:
            option.read(v)
        except ValueError as e:
            return str(e) or "is not valid"
        return None
    return check


def _above_zero(hi: float) -> Callable[[str], str | None]:
    def check(v: str) -> str | None:
        try:
            x = float(v)
        except ValueError:
            x = math.nan
        return None if math.isfinite(x) and 0 < x <= hi else f"must be a number above 0 and at most {hi:g}"
    return check


def _below(lo: float, hi: float) -> Callable[[str], str | None]:
    def check(v: str) -> str | None:
        try:
            x = float(v)
        except ValueError:
            x = math.nan
        return None if math.isfinite(x) and lo <= x < hi else f"must be a number from {lo:g} to below {hi:g}"
    return check


def option_params(runtimes: Iterable[str] | None = None) -> tuple[OptionParam, ...]:
    """Every declared option with a URL key, once per key (engines sharing one declare the same option), engine
    by engine in registry order (kvcalc.engines.names), each in its declarations' order; the composed kinds
    (:data:`COMPOSED`) are left to the page. ValueError when two engines give one key to different options."""
    found: dict[str, tuple[Option, list[str]]] = {}
    for name in names() if runtimes is None else runtimes:
        for o in get_engine(name).declarations:
            if not o.url_key or o.kind in COMPOSED:
                continue
            option, holders = found.setdefault(o.url_key, (o, []))
            if option.dest != o.dest:
                raise ValueError(f"URL key {o.url_key!r} is {option.dest} and {o.dest}")
            holders.append(name)
    return tuple(OptionParam(tuple(holders), o) for o, holders in found.values())


def of_runtime(runtime: str, params: Iterable[OptionParam]) -> tuple[OptionParam, ...]:
    """The rows of the options ``runtime``'s engine declares."""
    return tuple(p for p in params if runtime in p.runtimes)
