"""DeepSeek-V4's cache layers, read the way transformers 5.24 reads its config (configuration_deepseek_v4.py).

``compress_ratios`` (one int per layer; the legacy field ``DeepseekV4Config.__post_init__`` folds into
``layer_types`` through ``_COMPRESS_RATIO_TO_LAYER_TYPE``: 0 sliding_attention, 4 compressed_sparse_attention,
128 heavily_compressed_attention), cut to ``num_hidden_layers`` (the MTP layer's entry is dropped). Every layer
attends over a shared-KV window of ``sliding_window`` tokens (one head of ``head_dim``). A sliding layer is a
``DynamicSlidingWindowLayer`` (keys and values two tensors); a CSA / HCA layer (``DeepseekV4CSACache`` /
``DeepseekV4HCACache``) holds one K=V tensor plus the compressor's state at its rate (``compress_rates``, else
``compress_rate_csa`` / ``compress_rate_hca``, else 4 / 128), and CSA adds the indexer's (``index_head_dim``):
the bytes are kvcalc.kv ``_compressed_terms``.
"""
from __future__ import annotations

from ..config import ConfigReader
from ..errors import ConfigError, UnsupportedError
from ..spec import AttentionCache, LayerSpec

_RATE_TYPES = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
_DEFAULT_RATES = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128}


def _rates(r: ConfigReader) -> dict[str, int]:
    rates = dict(_DEFAULT_RATES)
    given = r.raw("compress_rates", default=None)
    if isinstance(given, dict):
        rates.update({k: int(v) for k, v in given.items() if k in rates})
    for kind, legacy in (("compressed_sparse_attention", "compress_rate_csa"),
                         ("heavily_compressed_attention", "compress_rate_hca")):
        rates[kind] = r.opt_int(legacy) or rates[kind]
    return rates


def deepseek_v4_layers(r: ConfigReader) -> list[LayerSpec]:
    """The cache layers of a DeepSeek-V4 config (module docstring).

    >>> layers = deepseek_v4_layers(ConfigReader({"num_hidden_layers": 3, "compress_ratios": [0, 4, 128, 0],
    ...     "sliding_window": 128, "head_dim": 512, "index_head_dim": 128, "num_attention_heads": 64}))
    >>> [(l.kind, l.attention[0].compress_rate, l.attention[0].indexer_dim) for l in layers]
    [('sliding', 0, 0), ('sliding', 4, 128), ('sliding', 128, 0)]
    """
    n = r.get_int("num_hidden_layers")
    ratios = r.get_int_list("compress_ratios")
    unknown = sorted({x for x in ratios if x not in _RATE_TYPES})
    if unknown:
        raise UnsupportedError(f"config field '{r.field_name('compress_ratios')}' holds {unknown}: transformers "
                               "5.24 maps only the compress ratios 0, 4 and 128 to DeepSeek-V4 cache layers")
    if len(ratios) < n:
        raise ConfigError(r.field_name("compress_ratios"), ratios, f"lists {len(ratios)} layers, the model has {n}")
    rates = _rates(r)
    window, d = r.get_int("sliding_window"), r.get_int("head_dim")
    heads = r.get_int("num_attention_heads")
    kv_heads = r.opt_int("num_key_value_heads")
    if kv_heads not in (None, 1):       # DeepseekV4Attention.kv_proj: one shared K=V head, whatever the file says
        raise UnsupportedError(f"config field '{r.field_name('num_key_value_heads')}' = {kv_heads}: DeepSeek-V4's "
                               "attention caches one shared K=V head; another count is not modelled")
    r.opt_int("index_topk")     # how many compressed entries DeepseekV4Indexer selects per query: none stored
    layers = []
    for i, ratio in enumerate(ratios[:n]):
        kind = _RATE_TYPES[ratio]
        if kind == "sliding_attention":
            a = AttentionCache(kv_heads=1, k_head_dim=d, v_head_dim=d, query_heads=heads, window=window)
        else:
            di = r.get_int("index_head_dim") if kind == "compressed_sparse_attention" else 0
            a = AttentionCache(kv_heads=1, k_head_dim=d, v_head_dim=0, query_heads=heads, window=window,
                               indexer_dim=di, compress_rate=rates[kind])
        layers.append(LayerSpec(i, "sliding", attention=(a,)))
    return layers
