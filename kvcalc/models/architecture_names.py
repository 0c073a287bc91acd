"""A config without ``model_type``, read through the model class its ``architectures`` names.

``LlamaForCausalLM.from_pretrained(folder)`` loads a config.json that names no ``model_type`` with the class's own
``config_class`` (LlamaConfig): the class name decides the type. kvcalc does the same from a table of
transformers 5.24's model classes and their config classes' ``model_type`` (data/architectures.csv, written by
tests/oracles/architectures_table.py from ``transformers.models.auto.modeling_auto``'s ``*_MAPPING_NAMES``; kvcalc
never imports transformers). The type so found is an assumption the file does not state, so the figures read
through it are labelled ``estimated`` with a note naming it (:func:`with_model_types`).

The language model of a wrapper may be nested as ``text_config`` or, in remote-code wrappers, as
``language_config`` (DeepSeek-VL2, DeepSeek-OCR, Janus-style configs) or ``llm_config`` (InternVL, Ming-Omni):
:data:`LANGUAGE_CONFIG_KEYS`, read in that order.
"""
from __future__ import annotations

import csv
import functools
from collections.abc import Mapping
from typing import Any

from ..data_files import data_path

LANGUAGE_CONFIG_KEYS = ("text_config", "language_config", "llm_config")
"""Where a wrapper's config nests its language model, first found wins."""


@functools.lru_cache(maxsize=1)
def architecture_types() -> Mapping[str, str]:
    """Model class name -> the ``model_type`` of its ``config_class`` (transformers 5.24, data/architectures.csv).

    >>> architecture_types()["LlamaForCausalLM"], architecture_types()["Qwen2ForCausalLM"]
    ('llama', 'qwen2')
    """
    with open(data_path("architectures.csv"), encoding="utf-8", newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return {row["architecture"]: row["model_type"] for row in csv.DictReader(lines)}


def language_config_key(config: Mapping[str, Any], remote: bool = True) -> str | None:
    """The key of ``config``'s nested language model (a JSON object), or None: ``text_config``, and for a
    wrapper transformers does not define (``remote``: its type is not in kvcalc's registry) the remote-code
    names of :data:`LANGUAGE_CONFIG_KEYS`. A transformers class that reads a legacy name does so by its own
    rule (UnlimitedOcrConfig moves ``language_config`` and the top-level ``sliding_window``), which its
    registry entry follows.

    >>> language_config_key({"model_type": "internvl_chat", "llm_config": {"model_type": "qwen2"}})
    'llm_config'
    """
    keys = LANGUAGE_CONFIG_KEYS if remote else LANGUAGE_CONFIG_KEYS[:1]
    return next((key for key in keys if isinstance(config.get(key), Mapping)), None)


def type_from_architectures(config: Mapping[str, Any]) -> str | None:
    """The ``model_type`` of the first class in ``config["architectures"]`` that the table knows; None when the
    config names a (non-empty) ``model_type`` or no class it names is in the table.

    >>> type_from_architectures({"architectures": ["MistralForCausalLM"]})
    'mistral'
    >>> type_from_architectures({"model_type": "llama", "architectures": ["MistralForCausalLM"]}) is None
    True
    """
    if config.get("model_type"):
        return None
    archs = config.get("architectures")
    if not isinstance(archs, list):
        return None
    table = architecture_types()
    return next((table[a] for a in archs if isinstance(a, str) and a in table), None)


def with_model_types(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], tuple[str, ...]]:
    """``config`` with a ``model_type`` filled in from ``architectures`` (:func:`type_from_architectures`) at the
    top level and in its nested language config (:data:`LANGUAGE_CONFIG_KEYS`) where the file names none, and one
    note per filled level (the figures read through it are estimated). Unchanged (the same object, no notes)
    when every level names its type or none can be found.

    >>> cfg, notes = with_model_types({"architectures": ["LlamaForCausalLM"], "hidden_size": 64})
    >>> cfg["model_type"], notes[0][:60]
    ('llama', "no model_type: read as 'llama', the config class of architec")
    """
    notes: list[str] = []
    out: dict[str, Any] | None = None
    found = type_from_architectures(config)
    if found is not None:
        out = {**config, "model_type": found}
        notes.append(_note("", found, config))
    key = language_config_key(config, remote=not _known(config.get("model_type") or found))
    nested = config.get(key) if key is not None else None
    inner = type_from_architectures(nested) if isinstance(nested, Mapping) else None
    if key is not None and isinstance(nested, Mapping) and inner is not None:
        out = {**(out if out is not None else config), key: {**nested, "model_type": inner}}
        notes.append(_note(f"{key}.", inner, nested))
    return (config if out is None else out), tuple(notes)


def _note(prefix: str, model_type: str, level: Mapping[str, Any]) -> str:
    arch = next(a for a in level["architectures"] if isinstance(a, str) and a in architecture_types())
    return (f"no {prefix}model_type: read as '{model_type}', the config class of architectures {arch[:80]} "
            "(transformers 5.24)")


def _known(model_type: object) -> bool:
    from .registry import lookup

    return isinstance(model_type, str) and lookup(model_type) is not None
