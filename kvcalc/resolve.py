"""What a caller's omitted inputs resolve to, for every runtime: the model / KV dtypes, the encoder length.

It sits below both kvcalc.kv (ideal / transformers caches and the public ``kv_cache``) and the
kvcalc.vllm package, so the two share these rules without importing each other.
"""
from __future__ import annotations

from .dtypes import BFLOAT16, DType, get_dtype
from .spec import ModelSpec


def resolve_dtypes(spec: ModelSpec, dtype: "str | DType | None", kv_dtype: "str | DType | None") -> tuple[DType, DType]:
    """(model dtype, KV dtype): the config's own dtype unless overridden; KV defaults to the model dtype.

    A chosen weight dtype narrower than 16 bits or not floating (int8, int4, fp8 weights) still
    computes activations, and so K/V, in 16 bits: bfloat16.

    Llama 3.1 8B's config says ``torch_dtype: bfloat16``; int4 weights still cache bfloat16 K/V
    unless a KV dtype is chosen:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> [d.name for d in resolve_dtypes(spec, None, None)], [d.name for d in resolve_dtypes(spec, "int4", "fp8")]
    (['bfloat16', 'bfloat16'], ['bfloat16', 'fp8_e4m3'])
    """
    model = get_dtype(dtype) if dtype is not None else get_dtype(spec.dtype)
    if (not model.is_float or model.bits < 16) and dtype is not None:
        model = BFLOAT16
    kv = get_dtype(kv_dtype) if kv_dtype is not None else model
    return model, kv


def default_encoder_tokens(spec: ModelSpec, fallback: int) -> int:
    """Encoder tokens cached by cross-attention when the caller gives none.

    The model's own length (Whisper: ``max_source_positions``; Mllama: one image of
    ``max_num_tiles`` tiles), else ``fallback`` (kv_cache: the context; vLLM's capacity:
    ``max_num_batched_tokens``, the default of ``max_num_encoder_input_tokens``).

    A decoder-only model (Llama 3.1 8B) has no encoder length of its own, so the fallback stands:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> default_encoder_tokens(read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json")), 4096)
    4096
    """
    return spec.default_encoder_tokens or fallback
