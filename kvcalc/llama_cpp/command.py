"""Read a ``llama-server ...`` / ``llama-cli ...`` command line into :class:`LlamaCppOptions`.

Flag names follow ggml-org/llama.cpp ``common/arg.cpp`` (``common_params_parser_init``): ``-m/--model``,
``-hf/--hf-repo repo[:quant]``, ``-c/--ctx-size``, ``-np/--parallel``, ``-kvu/--kv-unified``,
``-ctk/--cache-type-k``, ``-ctv/--cache-type-v``, ``-fa/--flash-attn [on|off|auto]`` (a bare ``-fa``
is the older on switch), ``-ngl/--gpu-layers/--n-gpu-layers``, ``--swa-full``, ``-nkvo/--no-kv-offload``,
``-b/--batch-size``, ``-ub/--ubatch-size``, ``-ts/--tensor-split 3,1``, a draft model ``-md/--model-draft`` or
``-hfd`` (speculative decoding); ``--flag=value`` works too. Flags that do not change memory
are skipped and listed in ``ignored``; the text is never executed.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..command_line import scan_flags, split_command
from ..errors import InputError
from .options import DECLARATIONS, LlamaCppOptions

MAX_COMMAND_CHARS = 20_000

_OWN_VALUES = {"-m": "model", "--model": "model", "-hf": "hf", "-hfr": "hf", "--hf-repo": "hf"}
"""Value flags that are not options: the model file or Hub repo[:quant]."""
_VALUE: dict[str, str] = {**_OWN_VALUES, **{f: o.dest for o in DECLARATIONS
                                            if o.command and o.kind in ("int", "text", "list") for f in o.flags}}
"""Value flag -> LlamaCppOptions field: the model flags, then the declared int / text options (``-c``, ``-np``,
``-ctk`` ... from kvcalc.llama_cpp.options.DECLARATIONS)."""
_SWITCH: dict[str, tuple[str, bool]] = {
    **{f: (o.dest, not o.negate) for o in DECLARATIONS if o.command and o.kind == "bool" for f in o.flags},
    "--no-kv-unified": ("kv_unified", False)}
"""Switch -> (field, value): the declared switches (``-kvu``, ``--swa-full``; ``-nkvo`` turns kv_offload off)."""
_FA = next(o for o in DECLARATIONS if o.dest == "flash_attn")
_DRAFT = {"-md", "--model-draft", "-hfd", "-hfrd", "--hf-repo-draft"}
_INTS = {o.dest for o in DECLARATIONS if o.kind == "int"}
_LISTS = {o.dest: o for o in DECLARATIONS if o.kind == "list"}
"""The declared list options (``-ts``), each read by its own reader (Option.read)."""
_PROGRAMS = {"llama-server": "llama-server", "server": "llama-server", "llama-cli": "llama-cli",
             "main": "llama-cli", "llama-run": "llama-cli"}


@dataclass(frozen=True)
class ParsedCommand:
    """The options a command line sets, and the flags it had that kvcalc does not use."""

    options: LlamaCppOptions
    ignored: tuple[str, ...]


def _int(flag: str, value: str) -> int:
    try:
        return int(value, 10)
    except ValueError:
        raise InputError(f"{flag} takes a whole number, not '{value[:20]}'") from None


_FA_WORDS = {"1": "on", "true": "on", "0": "off", "false": "off"}
"""Older spellings of ``-fa``'s value."""


def _value(fields: dict[str, Any], flag: str, text: str) -> None:
    """Put one value flag's ``text`` in ``fields`` (the model flags split into model and quant)."""
    name = _VALUE[flag]
    if name in _INTS:
        fields[name] = _int(flag, text)
    elif name in _LISTS:
        try:
            fields[name] = _LISTS[name].read(text)
        except ValueError as e:
            raise InputError(f"{flag} has an invalid value '{text[:40]}': {e}") from None
    elif name == "hf":
        repo, _, quant = text.partition(":")
        fields["model"] = repo[:200]
        fields["hf_quant"] = quant.upper()[:40] or None
    elif name == "model":
        fields["model"] = text[:500]
    else:
        fields[name] = text.strip().lower()


def parse_llama_command(text: str) -> ParsedCommand:
    """Options of a ``llama-server`` / ``llama-cli`` command line (InputError on a bad value), its words walked
    by the shared flag scanner (kvcalc.command_line.scan_flags: ``=`` splits ``--long=value`` only)."""
    if not isinstance(text, str):
        raise InputError("the command line must be text")
    words = split_command(text, MAX_COMMAND_CHARS)
    fields: dict[str, Any] = {}
    ignored: list[str] = []
    i = 0
    if words:
        prog = words[0].rsplit("/", 1)[-1].removesuffix(".exe")
        if prog in _PROGRAMS:
            fields["program"] = _PROGRAMS[prog]
            i = 1
    fa = {f: (*_FA.choices, *_FA_WORDS) for f in _FA.flags}
    for kind, flag, value in scan_flags(words, i, lambda f: f in _VALUE or f in _DRAFT, _SWITCH.__contains__,
                                        negative_values=True, optional=fa, splits=lambda w: w.startswith("--")):
        if flag in fa:
            fields["flash_attn"] = _FA.const if value is None else _FA_WORDS.get(value, value)
        elif kind == "switch":
            name, on = _SWITCH[flag]
            fields[name] = on
        elif kind == "ignored":
            ignored.append(flag[:60])
        elif flag in _DRAFT:
            fields["speculative"] = True
        else:
            assert value is not None
            _value(fields, flag, value)
    if fields.get("n_gpu_layers", 0) < -1:
        fields["n_gpu_layers"] = -1          # <= -2 means "all" in newer builds
    return ParsedCommand(replace(LlamaCppOptions(), **fields), tuple(ignored))
