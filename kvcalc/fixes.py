"""What to change when a plan does not fit, each change with the number kvcalc's own solvers give for it.

``fixes(d, p, longest)`` -> a tuple of :class:`Fix`, in this order, each only where it helps:

``batch``
    a smaller batch at the same context: ``p.max_batch`` (kvcalc.plan's largest batch), "batch 8 -> 3 fits".
``context``
    a shorter context at the same batch: the verdict's longest (``Engine.served_longest``; under vLLM the longest
    ``--max-model-len`` that starts and holds the batch), "context 131,072 -> 40,960 fits". Both name what the
    engine must be started with for it (``Engine.request_words``: vLLM's ``--max-model-len``, llama.cpp's
    ``-np`` / ``-c``).
``kv_dtype``
    an 8-bit KV cache on the same GPUs (``Engine.quantized_kv``: vLLM ``--kv-cache-dtype fp8``, SGLang
    ``fp8_e4m3``, TensorRT-LLM ``kv_cache_config.dtype``, llama.cpp ``-ctk q8_0 -ctv q8_0``), planned again: "fits"
    or the longest context it gives at this batch.
``weights``
    4-bit weights (:data:`WEIGHTS_FIX`, from an AWQ checkpoint) on the same GPUs, planned again, for a model
    whose weights are 16 or 32 bits and not quantized already: "fits" or the longest context it gives.
``tensor_parallel``
    the fewest GPUs of this type (``p.min_gpus``, kvcalc.plan.fewest_gpus) with the engine's flag.
``pipeline_parallel``
    the fewest pipeline stages (:data:`kvcalc.deployment.FEWEST_GPU_COUNTS`) at the plan's tensor-parallel size
    that fit (``Engine.pp_flag``; none where the engine has no pipeline split to offer).

The words are plain text (no Markdown); numbers with thousands separators, as kvcalc.verdict writes them.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from .deployment import FEWEST_GPU_COUNTS, Deployment, deploy
from .errors import KVCalcError
from .plan import PlanResult, fits, plan_at

FixKind = Literal["batch", "context", "kv_dtype", "weights", "tensor_parallel", "pipeline_parallel"]

WEIGHTS_FIX = "int4"
"""The weights dtype the weights fix plans with (4-bit + fp16 scales, kvcalc.weights; served from an AWQ
checkpoint: kvcalc.checkpoints)."""


@dataclass(frozen=True)
class Fix:
    """One change: ``kind``; ``text``, what to do and what it gives ("batch 8 -> 3 fits"); ``value``, the number
    (the batch, the context in tokens, the GPU count, or under ``kv_dtype`` the longest context in tokens at the
    plan's batch); ``fits``, whether the request as asked fits after it (False: ``value`` is what it reaches)."""

    kind: FixKind
    text: str
    value: int
    fits: bool = True


def _batch(d: Deployment, p: PlanResult) -> Fix | None:
    m = p.max_batch
    if not m or m >= p.batch:
        return None
    return Fix("batch", f"batch {p.batch:,} -> {m:,} fits{d.engine.request_words(d, m, p.context)}", m)


def _context(d: Deployment, p: PlanResult, longest: int | None) -> Fix | None:
    if not longest or longest >= p.context:
        return None
    words = d.engine.request_words(d, p.batch, longest)
    return Fix("context", f"context {p.context:,} -> {longest:,} fits{words}", longest)


def _kv(d: Deployment, p: PlanResult) -> Fix | None:
    q = d.engine.quantized_kv(d)
    if q is None:
        return None
    try:
        d8 = d.with_cache(q.kv_dtype, q.options)
        p8 = plan_at(d8, p.batch, p.context)
        longest = d8.engine.served_longest(d8, p8)
    except KVCalcError:
        return None
    if p8.fits:
        more = f" (up to {longest:,} tokens each)" if longest and longest > p.context else ""
        return Fix("kv_dtype", f"{q.words} fits{more}", longest or p.context)
    if not longest:
        return None
    return Fix("kv_dtype", f"{q.words}: max context {longest:,} at batch {p.batch:,}", longest, fits=False)


def _weights(d: Deployment, p: PlanResult) -> Fix | None:
    """4-bit weights on the same GPUs, for 16- or 32-bit weights of a model not quantized already (not GGUF)."""
    if d.engine.serves_gguf or d.dtype not in (None, "bfloat16", "float16", "float32") \
            or d.model_dtype.bits < 16 or d.weights_computed.scheme != d.model_dtype.name \
            or isinstance(d.config.get("quantization_config"), Mapping):
        return None
    try:
        d4 = deploy(d.config, gpu=d.gpu, gpus=d.gpus, runtime=d.runtime, dtype=WEIGHTS_FIX, kv_dtype=d.kv_dtype,
                    tensor_parallel_size=d.tp if d.explicit_parallel else None,
                    pipeline_parallel_size=d.pp if d.explicit_parallel else None, options=d.options,
                    measured=replace(d.measured, weights_bytes=None, checkpoint_bytes=None))
        p4 = plan_at(d4, p.batch, p.context)
        longest = d4.engine.served_longest(d4, p4)
    except KVCalcError:
        return None
    words = f"{WEIGHTS_FIX} weights (an AWQ checkpoint)"
    if p4.fits:
        return Fix("weights", f"{words} fits", longest or p.context)
    if not longest:
        return None
    return Fix("weights", f"{words}: max context {longest:,} at batch {p.batch:,}", longest, fits=False)


def _tensor(d: Deployment, p: PlanResult) -> Fix | None:
    n = p.min_gpus
    if n is None or n <= d.gpus or not d.engine.multi_gpu:
        return None
    return Fix("tensor_parallel", f"{d.engine.more_gpus(n)} fits on {n:,} x {d.gpu.name}", n)


def _pipeline(d: Deployment, p: PlanResult) -> Fix | None:
    eng = d.engine
    if eng.pp_flag is None or not eng.multi_gpu:
        return None
    for stages in FEWEST_GPU_COUNTS:
        if stages <= d.pp:
            continue
        try:
            other = d.with_parallel(d.tp, stages)
        except KVCalcError:
            continue
        if fits(other, p.batch, p.context):
            with_tp = f" with {eng.tp_flag} {d.tp}" if d.tp > 1 else ""
            return Fix("pipeline_parallel", f"{eng.pp_flag} {stages}{with_tp} fits on {other.gpus:,} x {d.gpu.name}",
                       other.gpus)
    return None


def fixes(d: Deployment, p: PlanResult, longest: int | None) -> tuple[Fix, ...]:
    """The changes that make plan ``p`` of ``d`` fit (module docstring); none when it fits or asks for more than
    the engine's longest context (``Engine.context_limit``: the verdict says to lower it). ``longest``: the
    verdict's longest context at this batch (``kvcalc.verdict.Verdict.longest``); ``p`` should carry the
    fewest-GPUs search (``min_gpus``).

    Llama-3.1-8B (128 KiB of bf16 KV a token) in vLLM on one RTX 4090 at 8 x 32,768 tokens needs 32 GiB of KV
    beside 15 GiB of weights; vLLM's 0.9 budget leaves about 5 GiB for the cache:

    >>> from kvcalc.catalog import bundled_config
    >>> from kvcalc.plan import plan
    >>> from kvcalc.deployment import deploy
    >>> d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), gpu="rtx-4090", max_model_len=32768)
    >>> p = plan(d, batch=8, context=32768)
    >>> for f in fixes(d, p, d.engine.served_longest(d, p)):
    ...     print(f.text)
    batch 8 -> 1 fits
    context 32,768 -> 5,136 fits (--max-model-len 5136)
    --kv-cache-dtype fp8: max context 10,288 at batch 8
    int4 weights (an AWQ checkpoint): max context 14,992 at batch 8
    --tensor-parallel-size 4 fits on 4 x GeForce RTX 4090 24GB
    --pipeline-parallel-size 4 fits on 4 x GeForce RTX 4090 24GB
    """
    if p.fits or p.context > d.engine.context_limit(d):     # past the model's maximum only a shorter context helps
        return ()                                           # (the verdict's own fix says how short)
    found = (_batch(d, p), _context(d, p, longest), _kv(d, p), _weights(d, p), _tensor(d, p), _pipeline(d, p))
    return tuple(f for f in found if f is not None)
