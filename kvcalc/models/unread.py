"""Labels that are earned: config fields that look like attention / cache geometry but that no rule read.

A KV figure is ``exact`` only when kvcalc's rules for the type account for every field of the file that can
change the cache. After the spec and the parameter count are read (each records the fields it read), any
remaining field at the top level or in the nested language config (``text_config``, ``llm_config``,
``language_config``) whose name looks like cache geometry (:data:`GEOMETRY`:
heads, kv, window, sliding, sparse, index, compress, nextn / mtp, lora rank, top-k) makes the figure
``estimated``, naming the field, unless it is known inert (:func:`inert`): a null / false / 0 value, a
token id, window fields under ``use_sliding_window: false``, the DSA pattern fields a given ``indexer_types``
list replaces, the legacy ``sliding_window_size`` beside the ``sliding_window`` read, and the multi-token-
prediction fields (transformers 5.24 builds no MTP layers, so neither its cache nor its parameter count
holds them: kvcalc.models.counting).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .architecture_names import language_config_key

PARAM_FIELDS: list[Callable[[Mapping[str, Any]], Iterable[str]]] = []
"""The parameter rules' field readers (config -> the dotted fields they read): kvcalc.models.counting registers
``count_params(config).fields_used`` here when it loads."""

GEOMETRY = re.compile(r"heads|(^|_)kv(_|$)|window|sliding|sparse|index|compress|nextn|mtp|lora_rank|topk|"
                      r"multi_query|latent", re.I)
"""Field names that can size a cache (``num_multi_query_heads``, ``compress_ratios``, ``index_topk``, ...)."""

NOT_GEOMETRY = re.compile(r"token_index$|ignore_index$|dropout|implementation|^output_|pruned_heads|"
                          r"norm_topk_prob|topk_method|topk_group|rope|select_tail|sparse_step", re.I)
"""Names the pattern matches that size nothing: token ids, dropout, routing normalisation, RoPE layout, which
pooled keys the GLM-5 Next indexer selects, which layers are MoE (``*_sparse_step``: weights, not cache)."""

MTP = re.compile(r"nextn|mtp", re.I)
_WINDOW_FIELDS = ("sliding_window", "max_window_layers")
_DSA_PATTERN_FIELDS = ("index_topk_freq", "index_skip_topk_offset", "index_topk_pattern",
                       "index_share_for_mtp_iteration")
# the encoder's and a separate unit model's fields (LED, SeamlessM4T, PP-FormulaNet): the decoder's cache is
# sized by the decoder's own heads (cross-attention keys: decoder heads x encoder tokens)
_OTHER_MODEL_PREFIXES = ("encoder_", "speech_encoder_", "t2u_")
# per model type: fields its config class does not define and its modeling code never reads
_TYPE_INERT: Mapping[str, tuple[str, ...]] = {
    "dbrx": ("num_key_value_heads",),   # DbrxConfig copies attn_config.kv_n_heads (read) over it
    "led": ("attention_window",),       # the encoder's local attention; the decoder caches every token
    "doge": ("keep_window_size",),      # a top-k attention mask (prepare_dynamic_mask); the cache keeps every token
    # ZambaMambaMixer's ssm state is (n_mamba_heads, intermediate / n_mamba_heads, d_state): the same size for any
    # split, and the conv state does not depend on it
    "zamba": ("n_mamba_heads",),
    "zamba2": ("kv_channels",),         # Zamba2Config overwrites it with hidden_size // heads; attention reads
                                        # attention_head_dim
    "gptj": ("window_size",),     # a mesh-transformer-jax leftover: GPT-J attends over every token
    # GPT-Neo's local layers apply window_size as an attention mask only: transformers 5.24 caches them in a
    # DynamicLayer holding every token (the oracle's gpt-neo-125m cache: no sliding layer)
    "gpt_neo": ("window_size",),
    # the query's low-rank projection (DeepseekV3Attention.q_a_proj / q_b_proj, modeling_deepseek_v3.py): the
    # cache holds keys and values expanded from kv_lora_rank (read); the weights side reads it where it counts
    "deepseek_v3": ("q_lora_rank",),
}


def inert(level: Mapping[str, Any], name: str, value: Any, model_type: str,
          resolved: Mapping[str, Any] | None = None) -> bool:
    """Whether field ``name`` (at config level ``level``) cannot change the cache though its name looks so;
    ``resolved``: field name -> the value the rules arrived at by other fields (a redundant copy that agrees,
    as GPTBigCode's num_key_value_heads beside multi_query, is inert)."""
    if value is None or value is False or value == 0 or value == []:
        return True
    if resolved is not None and name in resolved and resolved[name] == value:
        return True
    types = level.get("layer_types")
    if name.startswith("index") and isinstance(types, list) and not any(
            isinstance(t, str) and ("sparse" in t or "index" in t) for t in types):
        return True     # no layer holds an indexer (MiniMax-M3's class default: every layer full_attention)
    if MTP.search(name):
        return True
    if name in _WINDOW_FIELDS and level.get("use_sliding_window") is False:
        return True
    if (name.endswith("sliding_window_pattern") or name == "max_window_layers") and level.get("layer_types"):
        return True     # the class derives layer_types from them only when the file lists none
    if name.startswith(_OTHER_MODEL_PREFIXES):
        return True
    if name in _DSA_PATTERN_FIELDS and level.get("indexer_types") is not None:
        return True
    if name == "sliding_window_size" and level.get("sliding_window") == value:
        return True
    if model_type == "mimo_v2_flash" and _mimo_swa_copy(level, name, value):
        return True
    return name in _TYPE_INERT.get(model_type, ())


def _mimo_swa_copy(level: Mapping[str, Any], name: str, value: Any) -> bool:
    """MiMo-V2-Flash's sliding-layer fields that transformers 5.24 never reads, when they agree with what it uses
    instead (modeling_mimo_v2_flash.py ``MiMoV2FlashAttention.__init__``: a sliding layer holds
    ``2 * num_key_value_heads`` K/V heads and ``num_attention_heads`` queries; configuration_mimo_v2_flash.py
    ``__post_init__`` replaces ``sliding_window`` with ``sliding_window_size + 1`` when the file gives it)."""
    if name == "swa_num_key_value_heads":
        return value == 2 * (level.get("num_key_value_heads") or 0)
    if name == "swa_num_attention_heads":
        return value == level.get("num_attention_heads")
    return name == "sliding_window" and level.get("sliding_window_size") is not None


def unread_geometry(config: Mapping[str, Any], used: Iterable[str], model_type: str = "",
                    resolved: Mapping[str, Any] | None = None) -> list[str]:
    """The geometry-looking fields of ``config`` (top level and ``text_config``) absent from ``used`` (the dotted
    names the rules read), as ``"path=value"``; inert ones (:func:`inert`) left out.

    >>> unread_geometry({"model_type": "llama", "num_multi_query_heads": 4}, ["model_type"])
    ['num_multi_query_heads=4']
    """
    read = set(used)
    levels: list[tuple[str, Mapping[str, Any]]] = [("", config)]
    key = language_config_key(config)      # text_config, or a remote-code wrapper's llm_config / language_config
    if key is not None:
        levels.append((f"{key}.", config[key]))
    out = []
    for prefix, level in levels:
        kind = str(level.get("model_type") or model_type)
        for name, value in level.items():
            if prefix + name in read or isinstance(value, Mapping) or not GEOMETRY.search(name):
                continue
            if NOT_GEOMETRY.search(name) or inert(level, name, value, kind, resolved):
                continue
            shown = f"<list of {len(value)}>" if isinstance(value, list) and len(value) > 4 else repr(value)
            out.append(f"{prefix}{name}={shown}")
    return out
