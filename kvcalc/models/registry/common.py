"""Class defaults several families share (transformers 5.24 config classes), and :func:`class_defaults`, the
read-only mapping every entry's ``defaults`` is built with."""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

# transformers 5.24 config-class defaults of the fields kvcalc reads (checked against
# ``AutoConfig.for_model(model_type)`` by tests/fast/test_model_types.py). ``None`` means derived:
# num_key_value_heads -> num_attention_heads, head_dim -> hidden_size // num_attention_heads.
LLAMA_LIKE = dict(attention_bias=False, mlp_bias=False, tie_word_embeddings=False, head_dim=None)


def class_defaults(*bases: Mapping[str, Any], **kw: Any) -> Mapping[str, Any]:
    """A read-only dict: ``bases`` merged in order, then ``kw`` (later values win)."""
    out: dict[str, Any] = {}
    for base in bases:
        out.update(base)
    return MappingProxyType({**out, **kw})


def _kv(n: int) -> Mapping[str, Any]:
    """Only ``num_key_value_heads`` differs from "= query heads" (a fixed class default)."""
    return class_defaults(num_key_value_heads=n)


QWEN_MOE = dict(decoder_sparse_step=1, mlp_only_layers=[])


QWEN3_VISION = dict(hidden_size=1152, intermediate_size=4304, depth=27, num_heads=16, in_channels=3,
                     temporal_patch_size=2, patch_size=16, spatial_merge_size=2, out_hidden_size=3584,
                     num_position_embeddings=2304)
