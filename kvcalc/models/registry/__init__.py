"""One registry entry per model type: everything about a ``model_type`` that is not generic.

Both the spec reader (:func:`kvcalc.architectures.read_spec`) and the parameter counter
(:func:`kvcalc.models.counting.count_params`) take every type-specific fact from here:

* ``kind``: ``"decoder"``, ``"encoder_decoder"`` or ``"no_cache"`` (encoders, vision towers: no KV cache);
* ``same_as``: a Hub model type transformers builds with another type's classes (``kimi_k2`` ->
  ``deepseek_v3``); every other field is then the target's;
* ``text_type``: for a multimodal wrapper, the ``model_type`` of its ``text_config`` decoder (for an encoder-decoder
  with the ``nested_decoder`` quirk, the default ``model_type`` of its ``decoder``);
* ``defaults``: the transformers 5.24 config-class defaults for the fields kvcalc reads (a config that
  omits a field gets these, exactly as when transformers builds the model; ``None`` = derived);
* ``layer_rule``: the per-layer type list the config class derives in ``__post_init__`` when the
  config gives no ``layer_types`` (``None``: transformers' generic rule in
  ``cache_utils.get_layer_types_and_kwargs``);
* ``state_rule`` / ``recurrent_kind``: the conv / SSM / linear-attention state of its recurrent layers
  (elements per sequence) and the kvcalc layer kind of those layers; ``kv_state_rule``: states a hybrid
  layer adds that follow its own attention geometry;
* ``params``: the parameter-count family in :mod:`kvcalc.models.counting` (``None``: not countable, with
  ``not_countable`` saying why), with ``attn_bias``, ``mlp_bias``, ``norms_per_layer`` and ``moe``
  for the Llama-style family;
* ``quirks``: named departures from the family's rule (:data:`kvcalc.models.model_type.QUIRKS`);
* ``vision``: for a vision-language wrapper counted by :mod:`kvcalc.models.wrappers` (``params="multimodal"``),
  its tower type, projector rule and default sub-configs (:class:`~kvcalc.models.model_type.Vision`);
* ``attribute_map``: the config class's own field names for canonical ones (Kosmos-2.5's ``embed_dim`` for
  ``hidden_size``), read by both readers before the generic aliases.

To add a model type, add ONE :class:`~kvcalc.models.model_type.ModelType` to the entries of its family's module in
:mod:`kvcalc.models.registry` (``registry/gemma.py`` holds the Gemma types; reuse a rule of
:mod:`~kvcalc.models.layer_rules` / :mod:`~kvcalc.models.state_rules` when the config class derives its layers the
same way), then a tiny config to ``tests/tiny_models.py``
so the ground-truth tests compare it with transformers. ``tests/fast/test_model_types.py`` checks that the
registry is consistent and that its defaults equal transformers' class defaults. A type that
transformers 5.24 ships is also replayed against its measured cache and parameter count by
``tests/reference/test_transformers_coverage.py`` (remove it from that file's miss list once it matches), and
``python tests/oracles/coverage_table.py`` regenerates docs/architectures.md.

A registered type reads as ``quality="exact"``; a type kvcalc does not list is read with the generic
conventions of :mod:`kvcalc.architectures` and marked ``estimated``, every assumption in its warnings.
"""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ...config import ConfigReader
from ...errors import ConfigError
from ..model_type import ModelType
from .audio import AUDIO_ENTRIES
from .classic_decoders import CLASSIC_DECODERS_ENTRIES
from .deepseek import DEEPSEEK_ENTRIES
from .dots3 import DOTS3_ENTRIES
from .gemma import GEMMA_ENTRIES
from .hybrids import HYBRIDS_ENTRIES
from .llama import LLAMA_ENTRIES
from .moe_decoders import MOE_DECODERS_ENTRIES
from .multimodal import MULTIMODAL_ENTRIES
from .seq2seq import SEQ2SEQ_ENTRIES
from .ssm import SSM_ENTRIES
from .vision_language import VISION_LANGUAGE_ENTRIES


def nested(r: ConfigReader, name: str, defaults: Mapping[str, Any]) -> ConfigReader:
    """The nested config ``name`` (an empty one when absent) read with ``defaults``, the class defaults of the
    sub-config class its parent builds (DBRX's attn_config / ffn_config)."""
    raw = r.data.get(name)
    if raw is not None and not isinstance(raw, Mapping):
        raise ConfigError(r.field_name(name), raw, "must be a JSON object")
    sub = r.sub(name) or ConfigReader({}, f"{r.path}{name}.", r.used, defaults_used=r.defaults_used)
    return sub.with_defaults(defaults, r.model_type)


ENTRIES: tuple[ModelType, ...] = (
    *LLAMA_ENTRIES,
    *GEMMA_ENTRIES,
    *DEEPSEEK_ENTRIES,
    *MOE_DECODERS_ENTRIES,
    *CLASSIC_DECODERS_ENTRIES,
    *SSM_ENTRIES,
    *HYBRIDS_ENTRIES,
    *DOTS3_ENTRIES,
    *SEQ2SEQ_ENTRIES,
    *AUDIO_ENTRIES,
    *MULTIMODAL_ENTRIES,
    *VISION_LANGUAGE_ENTRIES,
)


def index_entries(entries: tuple[ModelType, ...]) -> Mapping[str, ModelType]:
    out: dict[str, ModelType] = {}
    for entry in entries:
        if entry.name in out:
            raise ValueError(f"two registry entries for model_type '{entry.name}'")
        out[entry.name] = entry
    return MappingProxyType(out)


REGISTRY: Mapping[str, ModelType] = index_entries(ENTRIES)
"""model_type -> its entry; every type kvcalc knows by name."""


def lookup(model_type: str) -> ModelType | None:
    """The entry for ``model_type`` with ``same_as`` followed (``kimi_k2`` -> ``deepseek_v3``); None if unknown.

    >>> lookup("kimi_k2").name, lookup("gemma3n").params, lookup("no_such_type")
    ('deepseek_v3', 'gemma3n', None)
    """
    entry = REGISTRY.get(model_type)
    while entry is not None and entry.same_as is not None:
        entry = REGISTRY.get(entry.same_as)
    return entry


def typed(r: ConfigReader, model_type: str) -> ConfigReader:
    """``r`` (same config level and records) reading the class defaults of ``model_type``
    (none for an unknown type); ``same_as`` is followed."""
    entry = lookup(model_type)
    return r.with_defaults(entry.defaults if entry else MappingProxyType({}), entry.name if entry else model_type,
                           entry.attribute_map if entry else None)
