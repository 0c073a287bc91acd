"""kvcalc: exact KV-cache, weight and capacity arithmetic from a Hugging Face config.json.

Pure Python, no Streamlit: usable from a notebook, a script or ``python -m kvcalc``.
"""
from .architectures import read_spec
from .dtypes import DTYPES, DType, get_dtype
from .errors import ConfigError, InputError, KVCalcError, UnsupportedError
from .kv import RUNTIMES, KVCacheResult, LayerBytes, kv_cache
from .spec import AttentionCache, LayerSpec, ModelSpec, RecurrentState

__all__ = [
    "AttentionCache", "ConfigError", "DTYPES", "DType", "InputError", "KVCacheResult", "KVCalcError",
    "LayerBytes", "LayerSpec", "ModelSpec", "RUNTIMES", "RecurrentState", "UnsupportedError",
    "get_dtype", "kv_cache", "read_spec",
]
