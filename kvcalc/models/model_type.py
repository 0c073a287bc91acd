"""What a registry entry says about one ``model_type``: :class:`ModelType` and its parts (:class:`Vision`,
:class:`Audio`), the rule signatures, and the typed view of its quirks (:func:`quirk_flags`; the quirks themselves
are :class:`kvcalc.models.quirks.Quirk` members, documented in :data:`kvcalc.models.quirks.QUIRKS`)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from ..config import ConfigReader
from ..spec import AttentionCache, RecurrentState
from .quirks import QUIRKS, Quirk

__all__ = ["NOT_COUNTED", "QUIRKS", "Audio", "KVStateRule", "LayerRule", "ModelType", "Quirk", "StateRule", "Vision",
           "quirk_flags"]

LayerRule = Callable[[ConfigReader, int, "int | None"], "list[str] | None"]
"""(decoder reader, layer count, sliding window or None) -> transformers layer types, one per layer
(None: this config takes transformers' generic rule)."""


StateRule = Callable[[ConfigReader, int], tuple[RecurrentState, ...]]
"""(decoder reader, hidden size) -> the states one recurrent layer holds per sequence (elements)."""


KVStateRule = Callable[[ConfigReader, AttentionCache], tuple[RecurrentState, ...]]
"""(decoder reader, the layer's attention cache) -> further states a hybrid layer holds that depend on its
own attention geometry (Inkling's short convolutions over K and V: sliding layers have other heads)."""


NOT_COUNTED = "its modules are not counted yet (kvcalc never guesses a count)"


EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Vision:
    """How :mod:`kvcalc.models.wrappers` counts one vision-language wrapper.

    ``tower``: the ``vision_config`` model_type the config class assumes; ``projector``: the rule in
    ``kvcalc.models.projectors.PROJECTORS``; ``vision_defaults`` / ``text_defaults``: the fields the wrapper's config
    class sets on the sub-config it builds when the config has no ``vision_config`` / ``text_config`` (over that
    sub-type's own class defaults; a sub-config the file gives takes only its type's class defaults);
    ``image_newline``: the model holds a learned ``image_newline`` vector of the decoder width (LLaVA-NeXT),
    counted as ``other``; ``optional``: the config class builds no tower without a ``vision_config`` (Gemma 4);
    ``refused``: top-level sub-configs (audio towers) kvcalc does not count, refused when present; ``tie``: whose
    ``tie_word_embeddings`` ties lm_head: the wrapper's (``"top"``), the text_config's (``"text"``: the head lives
    in a text ``...ForCausalLM``, Llama 4) or nobody's (``"never"``: the class declares no ``_tied_weights_keys``);
    ``fixed_tower``: the config class builds ``tower`` whatever model_type the vision_config names.
    """

    tower: str
    projector: str
    vision_defaults: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    text_defaults: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    image_newline: bool = False
    optional: bool = False
    refused: tuple[str, ...] = ()
    tie: Literal["top", "text", "never"] = "top"
    fixed_tower: bool = False


@dataclass(frozen=True)
class Audio:
    """How :mod:`kvcalc.models.audio` counts one audio-language wrapper: ``tower``, the ``audio_config``
    model_type; ``projector``, its rule (``kvcalc.models.audio_towers.audio_projector``); ``text_defaults``, the
    fields the wrapper's config class merges under a given ``text_config`` (Voxtral's ``__post_init__``); ``tied_head``,
    whether tie_word_embeddings can tie lm_head (the class declares ``_tied_weights_keys``); ``absent_text``, the
    text fields its ``SubConfigSpec.init_kwargs`` give when the config has no ``text_config``."""

    tower: str
    projector: Literal["linear", "mlp", "stacked", "qwen3_asr", "merged", "glmasr"]
    text_defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    tied_head: bool = False            # the class declares _tied_weights_keys for lm_head
    absent_text: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # init_kwargs, no text_config


@dataclass(frozen=True)
class ModelType:
    """What is special about one ``model_type`` (module docstring)."""

    name: str
    kind: Literal["decoder", "encoder_decoder", "no_cache"] = "decoder"
    same_as: str | None = None
    text_type: str | None = None
    audio: Audio | None = None         # an audio-language wrapper's tower and projector (kvcalc.models.audio)
    defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    layer_rule: LayerRule | None = None
    state_rule: StateRule | None = None
    kv_state_rule: KVStateRule | None = None
    recurrent_kind: Literal["mamba", "linear", "conv"] = "mamba"
    params: str | None = None
    not_countable: str = NOT_COUNTED
    attn_bias: tuple[str | bool, str | bool] = ("attention_bias", "attention_bias")
    mlp_bias: str | bool = False
    norms_per_layer: int = 2
    moe: Literal["all", "sparse_step", "interleave", "first_dense", "index_range"] | None = None
    quirks: frozenset[Quirk] = frozenset()
    vision: Vision | None = None
    mlp_width: str = "intermediate_size"      # the config field of the dense MLP width (CTRL: dff)
    positions: int | None = None              # learned position table of max_position_embeddings + this rows
    dense_first: int | None = None            # dense-first layers the class fixes when the config lists none
    head_bias: str | bool = False             # the flag (or fixed value) of lm_head's bias (kept when tied)
    expert_width: str | None = None           # the config field of a routed expert's width (None: the moe mode's)
    attribute_map: Mapping[str, str] = field(default_factory=lambda: EMPTY)  # the class's attribute_map


_Flags = TypeVar("_Flags")


def quirk_flags(cls: type[_Flags], entry: ModelType) -> _Flags:
    """The typed view ``cls`` (a frozen dataclass of bool fields, each named as the :class:`Quirk` value a family's
    counter reads) of ``entry.quirks``: each field True when the entry declares that quirk. A family's counter reads its
    quirks as attributes, so a misspelt quirk is a type error, not a silent False.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Norms:
    ...     qk_norm: bool = False
    ...     norm_bias: bool = False
    >>> quirk_flags(Norms, ModelType("toy", quirks=frozenset({Quirk.QK_NORM})))
    Norms(qk_norm=True, norm_bias=False)
    """
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{q.value: True for q in entry.quirks if q.value in names})
