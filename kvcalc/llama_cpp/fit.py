"""A fit for llama.cpp: the largest context per slot that fits the device, else the fewest layers off it.

What llama.cpp's own ``-fit`` (on by default; ggml-org/llama.cpp ``common/fit.cpp`` ``common_fit_params``,
commit 0c1e57098) does: measure the run at the model's full context and at ``--fit-ctx`` (4096 per
stream), interpolate linearly to the free memory minus ``--fit-target`` (1 GiB), round down to
``256 x n_streams`` cells, then move layers to the host when even the smallest context does not fit.

This solver asks kvcalc's llama.cpp engine (:func:`kvcalc.llama_cpp.plan.llama_cpp_plan`: the KV cells
and bytes llama.cpp allocates, the GGUF weights per layer, the compute buffer) for each candidate and
keeps the largest whole-256-cell context per slot whose bytes fit ``memory_bytes - margin_bytes``
(binary search: the bytes only grow with the context), with every layer on the device; when even
``min_ctx`` per slot does not fit, a MoE model first keeps the experts of its first N blocks in host memory
(``--n-cpu-moe N``, the fewest N that fit; -fit's own MoE step also moves expert tensors first, fit.cpp
``LAYER_FRACTION_MOE``), any other model (or a MoE model whose experts all on the host still do not fit) the
most layers (``-ngl``) that do; then the largest context there.
``unified_memory`` counts the host's share too (Apple silicon, DGX Spark, a CPU-only build: one pool), and a
tied model's token_embd once (a CPU build's one buffer type holds it once; DGX Spark's CUDA buffer would hold a
second copy, not counted).

Assumes: the compute buffer is kvcalc's model of the graph llama.cpp reserves (:mod:`kvcalc.llama_cpp.compute`:
the largest of logits + final norm, attention, FFN), equal to the byte to the buffer a CPU build reserves in
the 24 fit cases of tests/fixtures/llama_cpp_fit_oracle.json, so the context found is -fit's or larger; a GPU
backend's kernels may reserve more. With experts on the host, the host's compute buffer is not counted and the
probe cannot check it (a CPU build has one device). Several GPUs: :func:`fit_llama_cpp_gpus` (``-ts``).

>>> from kvcalc.catalog import bundled_config
>>> a = fit_llama_cpp(bundled_config("meta-llama/Llama-3.1-8B"), "Q4_K_M", 12 * 2**30, n_parallel=1)
>>> (a.n_ctx_seq, a.n_gpu_layers, a.plan.gpu.total <= 11 * 2**30)
(52736, -1, True)
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..architectures import read_spec
from ..engines.readers import list_text
from ..errors import InputError
from ..gguf.mixes import GgufWeights, gguf_weights
from .arches import gguf_view
from .cache import CTX_PAD
from .options import LlamaCppOptions
from .plan import LlamaCppPlan, expert_bytes, llama_cpp_plan
from .split import DeviceShare, split_bytes

GiB = 2**30
FIT_TARGET = GiB
"""``--fit-target`` default: 1024 MiB left free per device (``common/common.h`` ``fit_params_target``)."""
FIT_CTX = 4096
"""``--fit-ctx`` default: the smallest context per stream ``-fit`` sets (``fit_params_min_ctx``)."""


@dataclass(frozen=True)
class FitAnswer:
    """The fitted run: ``-c`` (n_ctx, all slots), the cells per slot, ``-ngl`` (-1 = all) and its plan."""

    n_ctx: int
    n_ctx_seq: int
    n_parallel: int
    n_gpu_layers: int
    plan: LlamaCppPlan
    budget_bytes: int
    command: str
    assumptions: tuple[str, ...]
    n_cpu_moe: int = 0
    tensor_split: tuple[float, ...] = ()         # -ts, one share per GPU (a multi-GPU fit)
    shares: tuple[DeviceShare, ...] = ()         # what each GPU holds (a multi-GPU fit)


def _used(p: LlamaCppPlan, unified_memory: bool) -> int:
    return p.gpu.total + (p.host.total if unified_memory else 0)


def _command(model: str, o: LlamaCppOptions, tensor_split: tuple[float, ...] = ()) -> str:
    parts = ["llama-server", "-m", model, "-c", str(o.n_ctx), "-np", str(o.n_parallel), "-ngl", str(o.n_gpu_layers),
             "-ctk", o.cache_type_k, "-ctv", o.cache_type_v, "-fa", o.flash_attn, "--fit", "off"]
    if o.kv_unified:
        parts.append("-kvu")
    if o.n_cpu_moe:
        parts += ["--n-cpu-moe", str(o.n_cpu_moe)]
    if tensor_split:
        parts += ["-ts", list_text(tensor_split)]
    return " ".join(parts)


def fit_llama_cpp(config: Mapping[str, Any], weights: str | GgufWeights, memory_bytes: int, *,
                  margin_bytes: int = FIT_TARGET, n_parallel: int = 1, base: LlamaCppOptions | None = None,
                  unified_memory: bool = False, min_ctx: int = FIT_CTX, n_ctx: int = 0,
                  model: str = "MODEL.gguf") -> FitAnswer:
    """Fit a llama.cpp run of ``config`` with GGUF ``weights`` (a file type or GgufWeights) into
    ``memory_bytes`` free on the device, leaving ``margin_bytes``; ``n_parallel`` slots of equal
    context (``-c`` = slots x cells per slot; with ``kv_unified`` in ``base`` one shared pool of at most the
    training context, as ``-fit`` counts one stream). A given ``n_ctx`` (``-c``, all slots) is kept and only
    ``-ngl`` is fitted, as ``-fit`` changes the context only when it is 0. InputError when not even one layer fits."""
    if n_parallel < 1:
        raise InputError("n_parallel must be at least 1 for a fit")
    spec = gguf_view(config, read_spec(config))[0]
    gw = gguf_weights(config, weights) if isinstance(weights, str) else weights
    base = replace(base or LlamaCppOptions(), n_parallel=n_parallel)
    budget = memory_bytes - margin_bytes
    train = spec.max_position_embeddings or 131072
    top = max(train // CTX_PAD, 1)

    step = CTX_PAD * (1 if base.kv_unified else n_parallel)     # one shared pool, or cells per slot x slots
    moe = any(expert_bytes(gw)) and not unified_memory            # one pool: offload frees nothing

    def plan(k: int, ngl: int, ncmoe: int = 0) -> LlamaCppPlan:
        o = replace(base, n_ctx=k * step, n_gpu_layers=ngl, n_cpu_moe=ncmoe)
        return llama_cpp_plan(spec, o, gw, duplicate_output=not unified_memory)    # one pool, one token_embd

    def fits(k: int, ngl: int, ncmoe: int = 0) -> bool:
        return _used(plan(k, ngl, ncmoe), unified_memory) <= budget

    def smallest(lo: int, hi: int, ok: Callable[[int], bool]) -> int:
        while lo < hi:                     # invariant: hi is ok (or the bound)
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
        return lo

    k_min = min(max(min_ctx // CTX_PAD, 1), top) if n_ctx <= 0 else max(-(-n_ctx // step), 1)
    ngl, ncmoe, n_layer = -1, 0, spec.num_layers
    if not fits(k_min, ngl):
        if moe and fits(k_min, ngl, n_layer):          # MoE: experts of the first N blocks to the host first
            ncmoe = smallest(1, n_layer, lambda n: fits(k_min, -1, n))
        else:
            ncmoe = n_layer if moe else 0
            layers = () if unified_memory else range(n_layer, 0, -1)
            ngl = next((g for g in layers if fits(k_min, g, ncmoe)), 0)
            if ngl == 0:
                raise InputError(f"the model does not fit {budget / GiB:.2f} GiB at {k_min * CTX_PAD} "
                                 "cells per slot")
    k = k_min
    if n_ctx <= 0:                         # the largest context that fits (bytes grow with it)
        k = top - smallest(0, top - k_min, lambda d: fits(top - d, ngl, ncmoe))
    p = plan(k, ngl, ncmoe)
    return FitAnswer(n_ctx=p.options.n_ctx, n_ctx_seq=p.cells.n_ctx_seq, n_parallel=n_parallel, n_gpu_layers=ngl,
                     plan=p, budget_bytes=budget, command=_command(model, p.options),
                     assumptions=p.assumptions, n_cpu_moe=ncmoe)


def fit_llama_cpp_gpus(config: Mapping[str, Any], weights: str | GgufWeights, gpu_memories: Sequence[int], *,
                       margin_bytes: int = FIT_TARGET, n_parallel: int = 1, base: LlamaCppOptions | None = None,
                       min_ctx: int = FIT_CTX, model: str = "MODEL.gguf") -> FitAnswer:
    """The largest context per slot with every layer on ``gpu_memories`` GPUs (bytes free on each) split by layer
    as llama.cpp splits them (:mod:`kvcalc.llama_cpp.split`), ``-ts`` = ``base``'s ``tensor_split`` where given,
    else each GPU's memory in MiB (llama.cpp's default split is by free memory); every GPU keeps ``margin_bytes``
    free. InputError when not even ``min_ctx`` per slot fits (no per-GPU offload is searched: every layer stays on
    the GPUs).

    >>> from kvcalc.catalog import bundled_config
    >>> a = fit_llama_cpp_gpus(bundled_config("meta-llama/Llama-3.1-8B"), "F16", [12 * 2**30, 12 * 2**30])
    >>> (a.tensor_split, a.n_ctx_seq >= 4096, all(s.total <= 11 * 2**30 for s in a.shares))
    ((12288, 12288), True, True)
    """
    if len(gpu_memories) < 2:
        raise InputError("a multi-GPU fit needs two or more GPUs (use fit_llama_cpp for one)")
    spec = gguf_view(config, read_spec(config))[0]
    gw = gguf_weights(config, weights) if isinstance(weights, str) else weights
    base = replace(base or LlamaCppOptions(), n_parallel=n_parallel, n_gpu_layers=-1)
    given = base.tensor_split and any(base.tensor_split)      # the user's -ts, else llama.cpp's default
    ts: tuple[float, ...] = (base.split_shares(len(gpu_memories)) if given
                             else tuple(max(m // 2**20, 1) for m in gpu_memories))
    top = max((spec.max_position_embeddings or 131072) // CTX_PAD, 1)
    step = CTX_PAD * (1 if base.kv_unified else n_parallel)

    def at(k: int) -> tuple[LlamaCppPlan, tuple[DeviceShare, ...]]:
        p = llama_cpp_plan(spec, replace(base, n_ctx=k * step), gw)
        return p, split_bytes(p, spec, gw, ts)

    def fits(k: int) -> bool:
        return all(s.total <= m - margin_bytes for s, m in zip(at(k)[1], gpu_memories))

    lo, hi = min(max(min_ctx // CTX_PAD, 1), top), top
    if not fits(lo):
        raise InputError(f"the model does not fit {len(gpu_memories)} GPUs at {lo * CTX_PAD} cells per slot")
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    p, shares = at(lo)
    return FitAnswer(n_ctx=p.options.n_ctx, n_ctx_seq=p.cells.n_ctx_seq, n_parallel=n_parallel, n_gpu_layers=-1,
                     plan=p, budget_bytes=min(gpu_memories) - margin_bytes,
                     command=_command(model, p.options, ts),
                     assumptions=(*p.assumptions, "compute buffer per GPU estimated (kvcalc.llama_cpp.split)"),
                     tensor_split=ts, shares=shares)


def fit_lines(a: FitAnswer) -> list[str]:
    """The answer as text: context, slots, layers, the bytes it needs, the command and the assumptions.

    >>> from kvcalc.catalog import bundled_config
    >>> a = fit_llama_cpp(bundled_config("meta-llama/Llama-3.2-1B"), "Q8_0", 8 * 2**30, n_ctx=8192)
    >>> fit_lines(a)[0]
    'fit: -c 8,192 (1 slot(s), 8,192 cells per sequence), -ngl all'
    """
    p = a.plan
    ngl = "all" if a.n_gpu_layers < 0 else str(a.n_gpu_layers)
    moe = f", --n-cpu-moe {a.n_cpu_moe} (those blocks' experts in host memory)" if a.n_cpu_moe else ""
    return [f"fit: -c {a.n_ctx:,} ({a.n_parallel} slot(s), {a.n_ctx_seq:,} cells per sequence), -ngl {ngl}{moe}",
            f"device {p.gpu.total / GiB:.2f} GiB (weights {p.gpu.weights / GiB:.2f}, KV {p.gpu.kv / GiB:.2f}, "
            f"compute {p.gpu.compute / GiB:.2f}) of {a.budget_bytes / GiB:.2f} GiB (memory less --fit-target); "
            f"host {p.host.total / GiB:.2f} GiB",
            *(f"GPU {i}: {s.total / GiB:.2f} GiB (weights {s.weights / GiB:.2f}, KV {s.kv / GiB:.2f}, compute "
              f"{s.compute / GiB:.2f})" for i, s in enumerate(a.shares)),
            f"command: {a.command}",
            *(f"assumes: {x}" for x in a.assumptions)]
