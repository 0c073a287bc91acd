"""Index-key caches of sparse-attention layers on plain (GQA) attention: MiniMax-M3.

transformers 5.24 (models/minimax_m3_vl): ``MiniMaxM3VLTextConfig.__post_init__`` reads the nested
``sparse_attention_config``: ``sparse_index_dim`` becomes ``index_head_dim`` (class default 128) and, when the
file lists no ``layer_types``, ``sparse_attention_freq`` gives them (``"minimax_m3_sparse"`` where the flag is
set, else ``"full_attention"``). ``DynamicCache(config=...)`` gives each ``minimax_m3_sparse`` layer a
``MiniMaxM3VLSparseCacheLayer`` (modeling_minimax_m3_vl.py), a DynamicLayer that also keeps ``idx_keys``:
``MiniMaxM3VLIndexer.forward`` caches ``k_proj(hidden)`` as ONE head of ``index_head_dim`` per token
(``[batch, 1, tokens, index_head_dim]``, model dtype) beside K and V. Other fields of the block
(``use_sparse_attention``, ``sparse_topk_blocks``, ``sparse_block_size``, ``sparse_disable_index_value``, ...)
choose which keys attend, not what is cached.
"""
from __future__ import annotations

from ..config import ConfigReader

INDEX_KEY_TYPES = frozenset({"minimax_m3_vl_text"})
"""Model types whose ``minimax_m3_sparse`` layers cache one index key per token (module docstring)."""

SPARSE_LAYER_TYPE = "minimax_m3_sparse"
_INDEX_HEAD_DIM_DEFAULT = 128     # MiniMaxM3VLTextConfig.index_head_dim


def index_key_layers(r: ConfigReader, model_type: str, n: int) -> dict[int, int]:
    """Layer index -> index-key width (elements per token) for the sparse layers of ``r`` (a text config of
    ``model_type``, ``n`` layers); empty for other types.

    MiniMax-M3's first three layers are full, the rest sparse with a 128-wide index key:

    >>> r = ConfigReader({"sparse_attention_config": {"sparse_index_dim": 128, "sparse_attention_freq": [0, 0, 0, 1]}})
    >>> index_key_layers(r, "minimax_m3_vl_text", 4)
    {3: 128}
    """
    if model_type not in INDEX_KEY_TYPES:
        return {}
    sparse = r.sub("sparse_attention_config")
    types = r.opt_str_list("layer_types")
    if types is None:
        freq = sparse.opt_int_list("sparse_attention_freq") if sparse is not None else None
        if freq is None:
            return {}
        types = [SPARSE_LAYER_TYPE if f else "full_attention" for f in freq]
    dim = sparse.opt_int("sparse_index_dim") if sparse is not None else None
    if dim is None:
        dim = r.get_int("index_head_dim", default=_INDEX_HEAD_DIM_DEFAULT)
    return {i: dim for i, t in enumerate(types[:n]) if t == SPARSE_LAYER_TYPE}
