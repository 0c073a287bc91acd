"""vLLM's maximum model length: derived from config.json, and the refusal of a longer ``max_model_len`` (tokens).

Sources (vllm-project/vllm 0.33.0, read, not copied): ``transformers_utils/model_arch_config_convertor.py``
(``derive_max_model_len_and_key``: the smallest of the length keys of the text config, a
``model_max_length`` overriding) and ``config/model.py`` (``_get_and_verify_max_len``: the RoPE
``factor`` multiplies the derived length except for the types that already scale
``max_position_embeddings`` and for Gemma 3; a user ``max_model_len`` above it is a ValueError unless
``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``).

The exempt RoPE types are release-dependent (``EngineDefaults.long_max_model_len_factor_types``): 0.33
exempts the YaRN family (``yarn``, ``deepseek_yarn``), whose ``max_position_embeddings`` is already the
scaled length, so DeepSeek-V3 derives 163,840; the 0.10 rules multiply YaRN's factor too.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from .defaults import engine

MAX_LEN_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
                "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")
"""``derive_max_model_len_and_key``'s keys, in its order (the smallest value wins)."""

ASSUMED_MAX_MODEL_LEN = 2048
"""vLLM's ``max_model_len`` when config.json has none of :data:`MAX_LEN_KEYS` and none is given (config/model.py
``_get_and_verify_max_len``: ``default_max_len = 2048`` with the warning "Assuming the model's maximum length
is 2048"); a longer ``--max-model-len`` is then accepted as it is (Mamba, Falcon-Mamba configs)."""

_ATTRIBUTE_MAPS = {"gpt2": {"n_positions": "max_position_embeddings"}}
"""transformers' ``attribute_map`` aliases vLLM reads through (GPT-2: ``max_position_embeddings`` = ``n_positions``)."""

LONG_MAX_MODEL_LEN_ADVICE = (
    "To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. "
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative position "
    "encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses absolute "
    "position encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds error.")
"""The second half of vLLM 0.33's ValueError (``_get_and_verify_max_len``)."""


def _text_config(config: Mapping[str, Any]) -> Mapping[str, Any]:
    text = config.get("text_config")
    return text if isinstance(text, Mapping) else config


def _rope_parameters(text: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    rp = text.get("rope_parameters") or text.get("rope_scaling")
    if not isinstance(rp, Mapping):
        return []
    if all(isinstance(v, Mapping) for v in rp.values()) and rp:     # per layer type (transformers 5)
        return list(rp.values())
    return [rp]


def derived_max_model_len(config: Mapping[str, Any], vllm_version: str | None = None,
                          class_default: int | None = None) -> tuple[float, str] | None:
    """(derived maximum, its key) as vLLM derives it (module docstring), a float as vLLM's is; None when no
    key is present (vLLM then assumes 2048 and warns). ``class_default``: the transformers config class's
    ``max_position_embeddings`` when config.json leaves it out (Gemma 3's text config, Jamba), as kvcalc's
    ``ModelSpec.max_position_embeddings`` reads it.

    Llama 3.1 8B: ``max_position_embeddings`` 131,072 with llama3 RoPE, a type whose factor does not
    multiply; DeepSeek-V3: 163,840 with YaRN factor 40, exempt in 0.33, multiplied (x 40) by the 0.10 rules:

    >>> from kvcalc.data_files import read_data_json
    >>> derived_max_model_len(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    (131072.0, 'max_position_embeddings')
    >>> v3 = read_data_json("configs", "deepseek-ai__DeepSeek-V3.json")
    >>> derived_max_model_len(v3)[0], derived_max_model_len(v3, "0.10")[0] == 163840 * 40
    (163840.0, True)
    """
    text = _text_config(config)
    aliases = _ATTRIBUTE_MAPS.get(str(config.get("model_type", "")), {})
    derived, key = float("inf"), None
    for k in MAX_LEN_KEYS:
        v = text.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        if v < derived:
            key = aliases.get(k, k)
        derived = min(derived, v)
    if isinstance(text.get("model_max_length"), (int, float)) and text.get("model_max_length"):
        derived, key = text["model_max_length"], "model_max_length"
    if key is None and class_default:
        derived, key = class_default, "max_position_embeddings"
    if key is None:
        return None
    model_type = str(config.get("model_type", "")) + str(text.get("model_type", ""))
    factor = 1.0
    if "gemma3" not in model_type:
        exempt = engine(vllm_version).long_max_model_len_factor_types
        for rp in _rope_parameters(text):
            rope_type = rp.get("rope_type", rp.get("type", "default"))
            if rope_type not in exempt and rope_type != "default":
                f = rp.get("factor", factor)
                factor = 1.0 if f is None else float(f)
    return float(derived) * factor, key


def check_max_model_len(config: Mapping[str, Any], max_model_len: int, vllm_version: str | None = None,
                        class_default: int | None = None) -> None:
    """InputError in vLLM's words when ``max_model_len`` exceeds the derived maximum (``_get_and_verify_max_len``).

    >>> from kvcalc.data_files import read_data_json
    >>> llama = read_data_json("configs", "meta-llama__Llama-3.1-8B.json")
    >>> check_max_model_len(llama, 131072)
    >>> check_max_model_len(llama, 131073)
    Traceback (most recent call last):
    ...
    kvcalc.errors.InputError: User-specified max_model_len (131073) is greater than the derived
    max_model_len (max_position_embeddings=131072.0 or model_max_length=None in model's config.json). ...
    """
    got = derived_max_model_len(config, vllm_version, class_default)
    if got is None:
        return
    derived, key = got
    model_max_length = _text_config(config).get("model_max_length")
    if max_model_len > derived and (model_max_length is None or max_model_len > model_max_length):
        raise InputError(f"User-specified max_model_len ({max_model_len}) is greater than the derived max_model_len "
                         f"({key}={derived} or model_max_length={model_max_length} in model's config.json). "
                         f"{LONG_MAX_MODEL_LEN_ADVICE} Fix: --max-model-len {int(derived)} or less.")
