"""vLLM's startup steps on one deployment, built once and kept on it: the ``max_model_len`` vLLM settles
on, its startup budget (kvcalc.vllm.vllm_memory_plan) and the blocks one request holds (RequestBlocks).

The engine (kvcalc.vllm.engine) and the launch-command printer read them from here; each is memoized in
the deployment's ``_memo`` (a deployment is frozen, its inputs never change). ``d`` is a
kvcalc.deployment.Deployment of runtime ``vllm`` (named, not imported: kvcalc.deployment sits above
this package). Units: bytes, tokens.
"""
from __future__ import annotations

from typing import Any

from ..limits import MAX_CONTEXT
from ..units import GiB
from .blocks import RequestBlocks
from .budget import AUTO_FIT, VllmMemoryPlan, vllm_memory_plan
from .model_len import ASSUMED_MAX_MODEL_LEN, derived_max_model_len
from .speculative import speculative_kv_layers

Deployment = Any    # kvcalc.deployment.Deployment


def max_model_len(d: Deployment) -> int:
    """vLLM's ``max_model_len``: the one given, else (as vLLM) the model's derived maximum (kvcalc.vllm.model_len,
    RoPE factors included), else vLLM's assumed 2048 for a config without a length key (or the deployment's
    context cap when no config dict is known)."""
    if d.max_model_len:
        return int(d.max_model_len)
    got = derived_max_model_len(d.config, d.vllm.vllm_version, d.spec.max_position_embeddings)
    if got is None and d.config:
        return ASSUMED_MAX_MODEL_LEN
    return min(int(got[0]), MAX_CONTEXT) if got else int(d.context_cap)


def draft_layers(d: Deployment) -> int:
    """KV layers vLLM's speculative drafter adds (kvcalc.vllm.speculative); 0 without one."""
    return speculative_kv_layers(d.config, d.vllm.speculative_config)


def startup_plan(d: Deployment, length: int | None = None) -> VllmMemoryPlan:
    """vLLM's startup budget for ``d`` at ``max_model_len`` ``length`` (None: :func:`max_model_len`, or the
    auto-fit of ``--max-model-len -1``), memoized on ``d``."""
    auto = length is None and d.vllm.auto_fit_max_model_len
    mml = AUTO_FIT if auto else length or max_model_len(d)
    key = ("vllm_plan", mml)
    if key not in d._memo:
        o, m = d.vllm, d.measured
        d._memo[key] = vllm_memory_plan(
            d.spec, total_gpu_bytes=d.gpu.memory_bytes, weights_bytes=d.weights_rank,
            gpu_memory_utilization=o.gpu_memory_utilization, max_model_len=mml, block_size=o.block_size,
            kv_cache_dtype=d.kv_dtype, dtype=d.dtype, tensor_parallel_size=d.tp,
            pipeline_parallel_size=d.pp, max_num_batched_tokens=o.max_num_batched_tokens,
            max_num_seqs=o.max_num_seqs, activation_bytes=m.activation_bytes, non_torch_bytes=m.non_torch_bytes,
            cuda_graph_bytes=m.cuda_graph_bytes, kv_cache_memory=o.kv_cache_memory, gpu_name=d.gpu.name,
            vllm_version=o.vllm_version, draft_layers=draft_layers(d),
            derived_max_model_len=max_model_len(d) if auto else None,
            cpu_offload_bytes=int(o.cpu_offload_gb * GiB), lora=o.lora)
    plan: VllmMemoryPlan = d._memo[key]
    return plan


def request_blocks(d: Deployment) -> RequestBlocks:
    """Blocks one vLLM request of ``d`` holds as a function of its length (kvcalc.vllm.RequestBlocks), memoized."""
    if "request_blocks" not in d._memo:
        vp = startup_plan(d)
        d._memo["request_blocks"] = RequestBlocks(
            d.spec, dtype=d.dtype, kv_cache_dtype=d.kv_dtype, block_size=vp.block_size,
            tensor_parallel_size=d.tp, max_num_batched_tokens=vp.max_num_batched_tokens,
            max_in_flight_tokens=vp.max_in_flight_tokens, vllm_version=vp.vllm_version,
            draft_layers=vp.draft_layers)
    blocks: RequestBlocks = d._memo["request_blocks"]
    return blocks
