"""KV-cache bytes vLLM allocates for ``batch`` requests, layer by layer (the ``runtime='vllm'`` path of kv_cache).

Bytes per layer and request = ``blocks * page_size_bytes`` of each of the layer's specs
(:mod:`kvcalc.vllm.specs`, after vllm-project/vllm ``v1/kv_cache_interface.py``), on ONE
tensor-parallel rank.
"""
from __future__ import annotations

from ..dtypes import DType
from ..limits import MAX_BATCH, MAX_CONTEXT, check_count
from ..resolve import default_encoder_tokens
from ..results import KVCacheResult, LayerBytes
from ..spec import ModelSpec
from .defaults import DEFAULT_BLOCK_SIZE, SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS, engine, vllm_dtypes
from .specs import KVCacheSpec, MambaSpec, layer_caches


def vllm_kv_cache(spec: ModelSpec, *, batch: int, context: int, dtype: "str | DType | None" = None,
                  kv_dtype: "str | DType | None" = None, encoder_tokens: int | None = None,
                  block_size: int = DEFAULT_BLOCK_SIZE, max_num_batched_tokens: int | None = None,
                  tensor_parallel_size: int = 1, vllm_version: str | None = None) -> KVCacheResult:
    """KV-cache bytes vLLM allocates for ``batch`` requests of ``context`` tokens, per layer, on one rank.

    Per request and layer: full attention / MLA ``ceil(T / block_size)`` blocks; sliding window
    ``min(cdiv(min(W - 1 + in_flight, T), block_size) + 1, ceil(T / block_size))``;
    chunked local attention ``cdiv(min(C + in_flight, T), block_size)``; cross-attention
    ``ceil(encoder_tokens / block_size)``; a recurrent layer one state page. Bytes = ``batch * blocks *
    page_size_bytes`` (the spec classes of :mod:`kvcalc.vllm.specs`). ``LayerBytes.tokens`` is the
    token slots held (``blocks * block_size``).

    ``max_num_batched_tokens`` (the prefill chunk) only matters for sliding / chunked layers; the
    default is 2048 (vLLM's scheduler default and its online-server default on GPUs under 70 GiB).
    Those layers count the tokens in flight, ``max_concurrent_batches x max_num_batched_tokens``
    (``vllm_version`` 0.33, the default: two batches with async scheduling; 0.10: one).
    With ``tensor_parallel_size > 1`` the bytes are those of ONE rank (every rank holds the same).

    Llama 3.1 8B, 2 requests of 1,000 tokens: ceil(1,000 / 16) = 63 blocks = 1,008 token slots per
    layer, 63 x 65,536 B = 4,128,768 B per request and layer, x 2 requests = 8,257,536 B, x 32 layers:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> r = vllm_kv_cache(spec, batch=2, context=1000)
    >>> r.layers[0].tokens, r.layers[0].bytes, r.total_bytes == 32 * 8257536
    (1008, 8257536, True)
    """
    batch = check_count("batch", batch, 1, MAX_BATCH)
    context = check_count("context", context, 1, MAX_CONTEXT)
    block_size = check_count("block_size", block_size, 1, 1 << 16)
    tp = check_count("tensor_parallel_size", tensor_parallel_size, 1, 4096)
    mnbt = SCHEDULER_DEFAULT_MAX_NUM_BATCHED_TOKENS if max_num_batched_tokens is None else check_count(
        "max_num_batched_tokens", max_num_batched_tokens, 1, MAX_CONTEXT)
    inflight = mnbt * engine(vllm_version).max_concurrent_batches
    enc = default_encoder_tokens(spec, context) if encoder_tokens is None else check_count(
        "encoder_tokens", encoder_tokens, 1, MAX_CONTEXT)
    model, kv = vllm_dtypes(spec, dtype, kv_dtype)
    caches = layer_caches(spec, model, kv, block_size, tp)

    per_layer: dict[int, list[KVCacheSpec]] = {}
    for c in caches:
        per_layer.setdefault(c.layer, []).append(c)
    layers: list[LayerBytes] = []
    for layer in spec.layers:
        nbytes, self_slots, cross_slots = 0, 0, 0
        for c in per_layer.get(layer.index, []):
            blocks = c.blocks(context, max_num_batched_tokens=inflight, encoder_tokens=enc, cap=True)
            nbytes += batch * blocks * c.page_size_bytes
            own, cross = c.token_slots(blocks)
            self_slots, cross_slots = max(self_slots, own), max(cross_slots, cross)
        layers.append(LayerBytes(layer.index, layer.kind, self_slots or cross_slots, nbytes))

    warnings = list(spec.warnings)
    if tp > 1:
        warnings.append(f"vLLM bytes are per tensor-parallel rank (tp={tp}); every rank holds the same")
    if any(isinstance(c, MambaSpec) for c in caches):
        warnings.append("vLLM recurrent states: in the model dtype, conv windows of conv_kernel - 1 columns")
    return KVCacheResult(
        total_bytes=sum(l.bytes for l in layers), layers=tuple(layers), runtime="vllm", batch=batch,
        context=context, encoder_tokens=enc, dtype=model.name, kv_dtype=kv.name, model_type=spec.model_type,
        bytes_per_token=sum(c.bytes_per_token for c in caches), fields_used=spec.fields_used,
        warnings=tuple(warnings),
    )
