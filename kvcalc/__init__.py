"""kvcalc: exact KV-cache, weight and capacity arithmetic from a Hugging Face config.json.

Pure Python, no Streamlit: usable from a notebook, a script or ``python -m kvcalc``.
"""
from .architectures import read_spec
from .capacity import Deployment, LayerTable, PlanResult, deploy, fewest_gpus, layer_bytes, memory_curve, plan
from .dtypes import DTYPES, DType, get_dtype
from .errors import ConfigError, InputError, KVCalcError, UnsupportedError
from .gpus import GPU, get_gpu, gpu_catalog
from .kv import kv_cache
from .params import ParamCount, count_params
from .results import KVCacheResult, LayerBytes
from .runtimes import RUNTIMES
from .spec import AttentionCache, LayerSpec, ModelSpec, RecurrentState
from .weights import WeightBytes, weight_bytes

__all__ = [
    "AttentionCache", "ConfigError", "DTYPES", "DType", "Deployment", "GPU", "InputError", "KVCacheResult",
    "KVCalcError", "LayerBytes", "LayerSpec", "LayerTable", "ModelSpec", "ParamCount", "PlanResult", "RUNTIMES",
    "RecurrentState", "UnsupportedError", "WeightBytes", "count_params", "deploy", "fewest_gpus", "get_dtype",
    "get_gpu", "gpu_catalog", "kv_cache", "layer_bytes", "memory_curve", "plan", "read_spec", "weight_bytes",
]
