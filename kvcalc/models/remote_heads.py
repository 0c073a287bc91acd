"""KV-head counts remote-code families write under their own field name (no transformers config class maps them).

CogVLM2 (``architectures`` CogVLMForCausalLM / CogVLMVideoForCausalLM, no ``model_type``): its
``configuration_cogvlm.CogVLMConfig`` stores ``num_multi_query_heads`` (8) and ``modeling_cogvlm.py``
``VisionExpertAttention.forward`` splits the fused QKV by ``stride = [num_attention_heads,
num_multi_query_heads, num_multi_query_heads]`` of ``hidden_size // num_attention_heads`` each and caches
``past_key_value = (key_states, value_states)`` with ``num_multi_query_heads`` heads, before ``expand`` widens
them to the query heads (THUDM/cogvlm2-llama3-chat-19B's file as vendored in yongchenglai/llm-research,
model/model_cogvlm2/modeling_cogvlm.py at commit 657c2d515ec2566cebff321b1e27e7eec43e6678). The figure stays
``estimated``: the file's remote code is not run here and no cache was checked by hand for every variant.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..config import ConfigReader

KV_HEAD_FIELDS: Mapping[str, str] = {
    "CogVLMForCausalLM": "num_multi_query_heads",
    "CogVLMVideoForCausalLM": "num_multi_query_heads",
}
"""``architectures`` class name -> the field its remote modeling code caches K/V heads from."""


def remote_kv_heads(r: ConfigReader, assumed: list[str]) -> int | None:
    """The KV heads of a remote-code family that names them its own way (:data:`KV_HEAD_FIELDS`), with an
    ``estimated`` note in ``assumed``; None when the file is not one of them or lacks the field.

    >>> notes: list[str] = []
    >>> r = ConfigReader({"architectures": ["CogVLMVideoForCausalLM"], "num_multi_query_heads": 8})
    >>> remote_kv_heads(r, notes), notes[0].startswith("estimated: KV heads from num_multi_query_heads")
    (8, True)
    """
    archs = r.data.get("architectures")
    if not isinstance(archs, list):
        return None
    field = next((KV_HEAD_FIELDS[a] for a in archs if isinstance(a, str) and a in KV_HEAD_FIELDS), None)
    if field is None or not r.has(field):
        return None
    kv = r.get_int(field)
    assumed.append(f"estimated: KV heads from {r.path}{field} = {kv} ({archs[0]}'s remote modeling code caches "
                   "that many heads; not checked against this file's own code)")
    return kv
