"""Speculative decoding's KV layers under vLLM (``--speculative-config``), in layers on the last stage.

Sources (vllm-project/vllm 0.33.0, read, not copied): ``config/speculative.py`` (``SpeculativeConfig``:
``method``, ``num_speculative_tokens``), ``model_executor/models/deepseek_mtp.py`` (the MTP module builds
``num_nextn_predict_layers`` decoder layers and reuses them for every speculative step),
``v1/spec_decode/eagle.py`` (the EAGLE drafter's layers join the target's KV cache specs, on the last
pipeline stage). Each draft layer registers the same attention spec as the target's layers.

Pinned by the oracle: DeepSeek-V3 + MTP (1 layer): 62 MLA layers, 37,583 blocks at 40 GiB, TP 8.
Stated assumptions (not oracle-checked): an EAGLE / EAGLE-3 head is one decoder layer shaped like the
target's (EAGLE-1 on Llama-3.1-8B: 33 KV layers, as its public log shows); n-gram / suffix decoding
adds none. A separate draft model (``draft_model``) needs its own config and is not modelled; nor are
the draft's weights (kvcalc.weights counts the target) or sliding windows' ``extra_retained_tokens``.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, UnsupportedError

MTP_METHODS = ("mtp", "deepseek_mtp", "qwen3_next_mtp", "glm4_moe_mtp", "ernie_mtp")
EAGLE_METHODS = ("eagle", "eagle3")
MODEL_FREE_METHODS = ("ngram", "suffix")


@dataclass(frozen=True)
class SpeculativeConfig:
    """``--speculative-config``: the method and how many tokens each step proposes."""

    method: str
    num_speculative_tokens: int


def parse_speculative_config(value: Mapping[str, Any] | SpeculativeConfig | None) -> SpeculativeConfig | None:
    """A ``--speculative-config`` dict (vLLM's keys ``method``, ``num_speculative_tokens``) as a record.

    >>> parse_speculative_config({"method": "mtp", "num_speculative_tokens": 1})
    SpeculativeConfig(method='mtp', num_speculative_tokens=1)
    """
    if value is None or isinstance(value, SpeculativeConfig):
        return value
    if not isinstance(value, Mapping):
        raise InputError("speculative_config must be a JSON object such as "
                         '{"method": "mtp", "num_speculative_tokens": 1}')
    method = value.get("method")
    n = value.get("num_speculative_tokens")
    if not isinstance(method, str) or not method:
        raise InputError("speculative_config needs a 'method' (mtp, eagle, eagle3, ngram, suffix)")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 64:
        raise InputError(f"speculative_config num_speculative_tokens must be a whole number 1..64, got {n!r:.30}")
    return SpeculativeConfig(method, n)


def speculative_kv_layers(config: Mapping[str, Any], spec_config: SpeculativeConfig | None) -> int:
    """KV-cache layers the drafter adds (module docstring); 0 without speculative decoding.

    DeepSeek-V3's config has ``num_nextn_predict_layers: 1`` (one MTP layer); EAGLE's drafter is one
    layer; n-gram drafting has no model:

    >>> from kvcalc.data_files import read_data_json
    >>> v3 = read_data_json("configs", "deepseek-ai__DeepSeek-V3.json")
    >>> [speculative_kv_layers(v3, SpeculativeConfig(m, 2)) for m in ("mtp", "eagle", "ngram")]
    [1, 1, 0]
    """
    if spec_config is None or spec_config.method in MODEL_FREE_METHODS:
        return 0
    if spec_config.method in MTP_METHODS:
        layers = config.get("num_nextn_predict_layers") or config.get("mtp_num_hidden_layers")
        if not isinstance(layers, int) or layers < 1:
            raise InputError("speculative method 'mtp' needs MTP layers, but the config has no "
                             "num_nextn_predict_layers / mtp_num_hidden_layers >= 1; use eagle, eagle3 or ngram")
        return layers
    if spec_config.method in EAGLE_METHODS:
        return 1
    raise UnsupportedError(f"speculative method '{spec_config.method[:30]}' is not modelled (a draft model needs "
                           "its own config); modelled: " + ", ".join(MTP_METHODS + EAGLE_METHODS + MODEL_FREE_METHODS))
