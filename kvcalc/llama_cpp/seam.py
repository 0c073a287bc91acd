"""llama.cpp on kvcalc's engine seam: a :class:`~kvcalc.llama_cpp.plan.LlamaCppPlan` as a
:class:`kvcalc.engine.EngineMemoryPlan`, the cells a batch occupies per layer, and the solvers.

llama.cpp preallocates its cells at startup (``llama_kv_cache`` constructor): the run the options
describe either allocates on the GPU or fails (``ggml_backend_cuda_buffer_type_alloc_buffer``:
"cudaMalloc failed: out of memory"). So the plan is:

* the pool: ``n_ctx`` cells (``n_ctx_seq`` per sequence, ``n_seq_max`` sequences, page size 1 cell);
  ``available_kv_bytes`` is the KV the run allocates on the GPU, the budget the GPU's memory;
* what ``batch`` requests of ``T`` tokens occupy, per layer (kvcalc.layer_table / kvcalc.curve):
  a full-attention layer ``min(T, n_ctx_seq)`` cells per sequence, a sliding-window layer at most its
  window ``min(T, n_swa, SWA cells)`` (llama.cpp masks and reuses cells older than ``n_swa``:
  ``llama_hparams::is_masked_swa``), times the layer's bytes per cell;
* the solvers, like vLLM's for ``max_model_len``, answer for a run sized to the request: the longest
  ``T`` with ``-np batch -c batch*T`` (other flags as given) whose allocation fits the GPU, and the
  largest ``-np`` at ``-c np*T``.

Bytes; MiB = 2**20 in the engine's lines.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..engine import EngineMemoryPlan
from ..gguf.mixes import GgufWeights
from ..limits import MAX_CONTEXT
from ..solve import largest_true
from ..spec import ModelSpec
from ..units import GiB
from .options import LLAMA_MAX_SEQ, LlamaCppOptions
from .plan import LlamaCppPlan, llama_cpp_plan
from .split import Split, plan_split

VERSION = "master 2026-04"
"""The llama.cpp source read (commits per file in docs/engines.md; the SWA cache's type: PR #21277, reverted by
PR #21332)."""

SOURCES = (
    "src/llama-context.cpp llama_context::llama_context (n_ctx / n_ctx_seq padding, n_seq_max)",
    "src/llama-kv-cache.cpp llama_kv_cache::llama_kv_cache (K/V tensors, size log line)",
    "src/llama-kv-cache-iswa.cpp llama_kv_cache_iswa::llama_kv_cache_iswa (SWA cells)",
    "src/llama-hparams.cpp llama_hparams::is_masked_swa (cells older than n_swa are reused)",
    "src/llama-model.cpp llama_model::load_tensors (-ngl offload), create_memory",
    "tools/server/server.cpp main (llama-server's 4 unified slots)",
    "ggml/src/ggml-cuda/ggml-cuda.cu ggml_backend_cuda_buffer_type_alloc_buffer (out-of-memory message)",
)

OOM = ("llama.cpp fails to allocate: {need} needed on the GPU > {have} "
       "(ggml_backend_cuda_buffer_type_alloc_buffer: cudaMalloc failed: out of memory); "
       "lower -c, quantize the cache (-ctk q8_0 -ctv q8_0 -fa on), or offload fewer layers (-ngl)")


OOM_SPLIT = ("llama.cpp fails to allocate: {need} needed on GPU {gpu} of {gpus} > {have} "
             "(ggml_backend_cuda_buffer_type_alloc_buffer: cudaMalloc failed: out of memory); "
             "move layers to another GPU (-ts), lower -c, quantize the cache (-ctk q8_0 -ctv q8_0 -fa on), "
             "or offload fewer layers (-ngl)")


def _gib(x: int) -> str:
    return f"{x / GiB:.2f} GiB"


@dataclass(frozen=True)
class LayerCells:
    """One layer's cache in a llama.cpp run: its bytes per cell, its cells per sequence, its window,
    and whether it lives on the GPU."""

    index: int
    cell_bytes: int          # K + V bytes of one cell (one token of one stream)
    cells: int               # cells per stream (n_ctx_seq, or the SWA cache's size)
    window: int | None       # sliding window (n_swa); None for full attention
    on_gpu: bool

    def tokens(self, context: int) -> int:
        """Cells one sequence of ``context`` tokens occupies in this layer."""
        held = min(context, self.cells)
        return held if self.window is None else min(held, self.window)


def layer_cells(spec: ModelSpec, lp: LlamaCppPlan) -> tuple[LayerCells, ...]:
    """Every cached layer of the run, in layer order (a layer in two caches appears twice)."""
    windows = {layer.index: max((a.window or 0 for a in layer.attention), default=0) or None for layer in spec.layers}
    first_gpu = spec.num_layers - lp.gpu_layers
    out: list[LayerCells] = []
    for c in lp.caches:
        rows = c.cells * c.n_stream
        for layer in c.layers:
            out.append(LayerCells(layer.index, (layer.k_bytes + layer.v_bytes) // rows, c.cells,
                                  windows.get(layer.index) if c.name == "SWA" else None,
                                  lp.options.kv_offload and layer.index >= first_gpu))
    return tuple(sorted(out, key=lambda x: x.index))


def to_engine_plan(spec: ModelSpec, lp: LlamaCppPlan, gpu_bytes: int, split: Split | None = None) -> EngineMemoryPlan:
    """The run as kvcalc.engine's record (module docstring). ``refusal`` when the GPU allocation
    (weights + KV + recurrent state + the estimated compute buffer) exceeds ``gpu_bytes``; over several GPUs
    (``split``: kvcalc.llama_cpp.split) the busiest GPU's bytes are the plan's and any GPU over ``gpu_bytes``
    refuses, each GPU in the formulas."""
    g, h = lp.gpu, lp.host
    cells = lp.cells
    full = [x for x in layer_cells(spec, lp) if x.window is None and x.on_gpu]
    refusal = None if g.total <= gpu_bytes else OOM.format(need=_gib(g.total), have=_gib(gpu_bytes))
    weights, overhead, kv = g.weights, g.compute + g.recurrent, g.kv
    devices: tuple[str, ...] = ()
    if split is not None:
        top, totals = split.busiest, split.totals
        b = split.shares[top]
        weights, overhead, kv = b.weights, b.compute + split.recurrent, b.kv
        full = [x for x in full if split.devices[x.index] == top]
        over = [i for i, t in enumerate(totals) if t > gpu_bytes]
        refusal = None if not over else OOM_SPLIT.format(need=_gib(totals[over[0]]), gpu=over[0],
                                                         gpus=len(totals), have=_gib(gpu_bytes))
        ts = ",".join(f"{x:g}" for x in split.tensor_split)
        devices = (f"-ts {ts} (--split-mode layer): blocks per GPU "
                   f"{', '.join(str(sum(1 for d in split.devices[:-1] if d == i)) for i in range(len(totals)))}"
                   f", output layer on GPU {split.devices[-1] if split.devices[-1] is not None else 'host'}; "
                   f"the busiest GPU ({top}) is the plan's",
                   *(f"GPU {i} = weights {_gib(s.weights)} + KV {_gib(s.kv)} + compute {_gib(s.compute)} (estimated)"
                     f"{f' + recurrent {_gib(split.recurrent)}' if i == top and split.recurrent else ''} = "
                     f"{_gib(totals[i])} {'<=' if totals[i] <= gpu_bytes else '>'} {_gib(gpu_bytes)}"
                     for i, s in enumerate(split.shares)))
    caches = " + ".join(f"{c.name} {c.cells:,} cells x {c.n_stream} stream(s) = {_gib(c.bytes)}" for c in lp.caches)
    formulas = (
        f"cells: n_ctx = {cells.n_ctx:,}, n_ctx_seq = {cells.n_ctx_seq:,} per sequence, n_seq_max = {cells.n_seq_max}"
        f" ({'unified: one stream' if cells.unified else f'{cells.n_stream} streams'})",
        f"KV = {caches} ({lp.options.cache_type_k} K, {lp.options.cache_type_v} V)",
        *(devices or (f"GPU = weights {_gib(g.weights)} + KV {_gib(g.kv)} + recurrent {_gib(g.recurrent)} + compute "
                      f"{_gib(g.compute)} (estimated) = {_gib(g.total)} {'<=' if g.total <= gpu_bytes else '>'} "
                      f"{_gib(gpu_bytes)}",)),
        f"host = weights {_gib(h.weights)} (token_embd and blocks off the GPU) + KV {_gib(h.kv)}"
        f" + recurrent {_gib(h.recurrent)} + compute {_gib(h.compute)} = {_gib(h.total)}",
    )
    return EngineMemoryPlan(
        engine="llama_cpp", version=VERSION, total_gpu_bytes=gpu_bytes, budget_bytes=gpu_bytes,
        weights_bytes=weights, overhead_bytes=overhead, available_kv_bytes=kv,
        cell_bytes=sum(x.cell_bytes for x in full), page_size=1, pool_tokens=cells.n_ctx,
        pool_bytes=kv, max_context=cells.n_ctx_seq, max_running=cells.n_seq_max,
        log_lines=lp.log_lines(spec.num_layers), formulas=formulas, notes=lp.warnings + lp.assumptions,
        sources=SOURCES, refusal=refusal)


def sized_options(options: LlamaCppOptions, batch: int, context: int) -> LlamaCppOptions:
    """The flags of a run for ``batch`` requests of ``context`` tokens: ``-np batch -c batch*context``,
    everything else as given (llama-server's 4 unified slots still apply to ``-np 1``)."""
    return replace(options, n_ctx=batch * context, n_parallel=batch)


def sized_fits(spec: ModelSpec, options: LlamaCppOptions, weights: GgufWeights, gpu_bytes: int,
               batch: int, context: int, gpus: int = 1) -> bool:
    """Whether the run sized to ``batch`` x ``context`` allocates within ``gpu_bytes`` (on each of ``gpus`` GPUs
    split by ``-ts``: kvcalc.llama_cpp.split)."""
    if batch > LLAMA_MAX_SEQ or batch * context > MAX_CONTEXT:
        return False
    p = llama_cpp_plan(spec, sized_options(options, batch, context), weights)
    if gpus > 1:
        return max(plan_split(p, spec, weights, options.split_shares(gpus)).totals) <= gpu_bytes
    return p.gpu.total <= gpu_bytes


def longest_context(spec: ModelSpec, options: LlamaCppOptions, weights: GgufWeights, gpu_bytes: int,
                    batch: int, cap: int, gpus: int = 1) -> int | None:
    """The longest per-request context a run sized to ``batch`` requests fits (None when none)."""
    if batch > LLAMA_MAX_SEQ:
        return None
    return largest_true(lambda t: sized_fits(spec, options, weights, gpu_bytes, batch, t, gpus),
                        max(1, min(cap, MAX_CONTEXT // batch)))


def largest_batch(spec: ModelSpec, options: LlamaCppOptions, weights: GgufWeights, gpu_bytes: int,
                  context: int, gpus: int = 1) -> int | None:
    """The most slots (``-np``) of ``context`` tokens a sized run fits (None when none)."""
    return largest_true(lambda b: sized_fits(spec, options, weights, gpu_bytes, b, context, gpus),
                        max(1, min(LLAMA_MAX_SEQ, MAX_CONTEXT // context)))
