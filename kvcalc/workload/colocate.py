"""Several vLLM instances on one GPU: each one's share, the free-memory check in launch order, the commands.

vLLM 0.33.0's rules (read, not copied):

* ``v1/worker/utils.py`` ``request_memory`` (called by ``v1/worker/gpu_worker.py``
  ``Worker.init_device`` after the CUDA context and NCCL are up): ``requested = ceil(total x
  gpu_memory_utilization)``; when the device's free memory at that snapshot is less, vLLM refuses
  ("Free memory on device ... on startup is less than desired GPU memory utilization").
* the KV cache is then sized from ``requested`` less this process's own non-KV memory (weights, the
  profiled activation peak, its non-torch increase: kvcalc.vllm.budget), so ``gpu_memory_utilization``
  is a per-instance share, not a global limit, and each instance's plan is its own kvcalc plan.

So instance ``k`` (launch order) starts when ``total - sum over j < k of (requested_j + context) - context
>= requested_k``: each earlier instance holds its whole budget (its KV cache fills it) plus its CUDA
context, which is created before the snapshot and so lies outside the budget (``context_bytes``,
estimated). Launch them one after another, each once the previous one logged its KV cache size:
started together, their profiling runs race and the free memory each sees is undefined.
Units: bytes (GiB = 2**30).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import ceil
from typing import Any

from ..errors import InputError, UnsupportedError

CUDA_CONTEXT_BYTES = 512 * 2**20
"""A CUDA context with torch loaded, outside vLLM's budget (estimated: 0.3-0.6 GiB on H100 drivers;
measure ``nvidia-smi`` after ``torch.cuda.init()``), bytes."""
FIRST_PORT = 8000
SOURCES = ("vllm 0.33.0 v1/worker/utils.py request_memory", "vllm 0.33.0 v1/worker/gpu_worker.py Worker.init_device")


@dataclass(frozen=True)
class Instance:
    """One instance in launch order (bytes): ``requested_bytes = ceil(total x gpu_memory_utilization)``,
    ``free_at_start`` what the device has free at its snapshot, ``starts`` whether that is enough;
    ``kv_cache_tokens`` / ``max_concurrency`` its own plan's figures; ``command`` its launch line."""

    model: str
    gpu_memory_utilization: float
    requested_bytes: int
    free_at_start: int
    starts: bool
    kv_cache_tokens: int
    max_concurrency: float
    kv_fits: bool
    command: str


@dataclass(frozen=True)
class Colocation:
    """N vLLM instances on one GPU type (module docstring; bytes). ``total_bytes``: the device's;
    ``requested_bytes``: the sum of the instances' budgets; ``fits``: every instance starts and serves
    one ``max_model_len`` request; ``headroom_bytes``: what the last one leaves free."""

    gpu: str
    total_bytes: int
    context_bytes: int
    instances: tuple[Instance, ...]
    requested_bytes: int
    headroom_bytes: int
    fits: bool
    order: str
    sources: tuple[str, ...] = SOURCES


def _command(model: str, d: Any, index: int, gpus: int) -> str:
    text = d.engine.launch_command(model, d).text
    devices = ",".join(str(i) for i in range(gpus))
    return f"CUDA_VISIBLE_DEVICES={devices} {text} --port {FIRST_PORT + index}"


def colocate(plan: Sequence[tuple[str, Any]], *, context_bytes: int = CUDA_CONTEXT_BYTES) -> Colocation:
    """Check ``plan`` (``(model id, vLLM deployment)`` pairs, in launch order) on one GPU type.

    Every deployment must be vLLM on the same GPU type and count (each GPU then holds one rank of each).

    An H100 SXM (85,520,809,984 B, as the driver reports it): Llama 3.1 8B at 0.5 asks
    ceil(0.5 x total) = 42,760,404,992 B and sees total - 512 MiB = 84,983,939,072 B free; Qwen3 0.6B at 0.4 asks
    34,208,323,994 B and sees total - 42,760,404,992 - 2 x 512 MiB = 41,686,663,168 B free:

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> a = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, gpu_memory_utilization=0.5)
    >>> b = deploy(bundled_config("Qwen/Qwen3-0.6B"), max_model_len=8192, gpu_memory_utilization=0.4)
    >>> c = colocate([("meta-llama/Llama-3.1-8B", a), ("Qwen/Qwen3-0.6B", b)])
    >>> [(i.requested_bytes, i.free_at_start, i.starts) for i in c.instances]
    [(42760404992, 84983939072, True), (34208323994, 41686663168, True)]
    >>> c.fits
    True
    >>> print(c.instances[1].command)
    CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-0.6B --max-model-len 8192 --gpu-memory-utilization 0.4 --port 8001
    """
    if not plan:
        raise InputError("colocate needs at least one (model, deployment) pair")
    first = plan[0][1]
    for model, d in plan:
        if not d.engine.colocates:
            raise UnsupportedError(f"{model}: only vLLM instances are modelled side by side (SGLang sizes its pool "
                                   "from the memory free at its start: not modelled)")
        if d.gpu != first.gpu or d.gpus != first.gpus:
            raise InputError(f"{model}: every instance must run on the same GPUs ({first.gpus} x {first.gpu.name})")
    if isinstance(context_bytes, bool) or not isinstance(context_bytes, int) or context_bytes < 0:
        raise InputError("context_bytes must be a whole number of bytes >= 0")
    total = first.gpu.memory_bytes
    held, rows = 0, []
    for k, (model, d) in enumerate(plan):
        util = d.vllm.gpu_memory_utilization
        requested = ceil(total * util)
        free = total - held - context_bytes
        vp = d.vllm_plan()
        rows.append(Instance(model=model, gpu_memory_utilization=util, requested_bytes=requested, free_at_start=free,
                             starts=free >= requested, kv_cache_tokens=vp.kv_cache_tokens,
                             max_concurrency=vp.max_concurrency, kv_fits=vp.fits,
                             command=_command(model, d, k, d.gpus)))
        held += requested + context_bytes
    order = ("launch in this order, each after the previous one logged its KV cache size: instance k checks "
             "free memory >= ceil(total x gpu_memory_utilization) at startup (vLLM 0.33 request_memory)")
    return Colocation(gpu=first.gpu.name, total_bytes=total, context_bytes=context_bytes, instances=tuple(rows),
                      requested_bytes=sum(r.requested_bytes for r in rows), headroom_bytes=total - held,
                      fits=all(r.starts and r.kv_fits for r in rows), order=order)
