"""Blocks of vLLM's shared pool one request holds, as a function of its length (blocks).

``blocks(T)`` = the sum over KV-cache groups of ``max_memory_usage_bytes / page_size`` at ``T``
tokens (``v1/core/kv_cache_utils.py``: the count "Maximum concurrency" divides by). The capacity
solvers (kvcalc.capacity) call it for many lengths, so the groups are built once.
"""
from __future__ import annotations

from ..dtypes import DType
from ..resolve import default_encoder_tokens
from ..spec import ModelSpec
from .defaults import DEFAULT_BLOCK_SIZE, vllm_dtypes
from .grouping import group_blocks, group_caches
from .hybrid import engine_caches
from .specs import KVCacheSpec


class RequestBlocks:
    """Blocks of the shared pool one request may hold, as a function of its length (built once).

    Per group, the largest block count of its members (uniform-type groups) or of its one spec.
    ``encoder_tokens`` defaults to the model's own, else ``max_num_batched_tokens`` (vLLM's default
    ``max_num_encoder_input_tokens``). Sliding / chunked layers count ``max_in_flight_tokens``
    (default ``max_num_batched_tokens``; vLLM 0.33 with async scheduling: twice that, see
    ``EngineDefaults.max_concurrent_batches``). Pass the plan's resolved ``block_size`` and
    ``vllm_version`` (hybrid models: kvcalc.vllm.hybrid).

    Gemma 2 9B at 8,192 tokens with 8,192 tokens in flight: the full group holds 8,192 / 16 = 512
    blocks, the sliding group cdiv(min(4,095 + 8,192, 8,192), 16) + 1 = 513; Llama 3.1 8B (one
    full group) 512:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> def blocks(name, tokens):
    ...     spec = read_spec(read_data_json("configs", name))
    ...     return RequestBlocks(spec, max_num_batched_tokens=8192)(tokens)
    >>> blocks("google__gemma-2-9b-it.json", 8192), blocks("meta-llama__Llama-3.1-8B.json", 8192)
    (1025, 512)
    """

    def __init__(self, spec: ModelSpec, *, dtype: "str | DType | None" = None,
                 kv_cache_dtype: "str | DType | None" = None, block_size: int = DEFAULT_BLOCK_SIZE,
                 tensor_parallel_size: int = 1, max_num_batched_tokens: int, encoder_tokens: int | None = None,
                 max_in_flight_tokens: int | None = None, vllm_version: str | None = None,
                 draft_layers: int = 0):
        model, kv = vllm_dtypes(spec, dtype, kv_cache_dtype)
        groups, uniform = group_caches(engine_caches(spec, model, kv, block_size, tensor_parallel_size,
                                                     vllm_version, draft_layers)[0])
        self._mnbt = max_num_batched_tokens if max_in_flight_tokens is None else max_in_flight_tokens
        self._enc = default_encoder_tokens(spec, max_num_batched_tokens) if encoder_tokens is None else encoder_tokens
        # one representative per distinct spec in each group: equal specs hold equal blocks
        self._groups: list[list[KVCacheSpec]] = [list({c.key: c for c in (g if uniform else g[:1])}.values())
                                                 for g in groups]

    def __call__(self, tokens: int) -> int:
        return sum(group_blocks(reps, tokens, self._mnbt, self._enc) for reps in self._groups)
