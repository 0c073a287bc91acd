"""llama.cpp's memory on one GPU and the host: weights split by ``-ngl``, KV cache, compute buffer.

Entry points: :func:`llama_cpp_plan` (a spec and weights) and :func:`plan_from_config` (a config.json and
a file type or header); bytes, MiB = 2**20 in log lines.

Offload (ggml-org/llama.cpp ``src/llama-model.cpp`` ``llama_model::load_tensors``, current form):
``i_gpu_start = max(n_layer + 1 - g, 0)`` with ``g = n_gpu_layers``; slot ``il`` (blocks 0..n_layer-1,
then the output layer output_norm + output as slot n_layer) is on the GPU when ``il >= i_gpu_start``. So
any ``g >= 1`` puts the output layer on the GPU first, then the last ``g - 1`` blocks; at most
``n_layer + 1`` slots ("offloaded X/Y layers to GPU", Y = n_layer + 1), a larger ``-ngl`` is clamped,
``-1`` is taken as all (newer builds' ``--fit`` may pick fewer to fit memory; not modelled). ``--n-cpu-moe N``
(``common/arg.cpp``: a tensor-buffer override ``blk.(0..N-1).ffn_(up|down|gate|gate_up)_(ch|)exps`` -> CPU; ``-ot
exps=CPU`` is every layer) keeps the merged expert tensors of the first N blocks in host memory. Older builds
used ``max(n_layer - g, 0)`` (the output layer only when ``g > n_layer``). The input embedding
(token_embd) stays in host memory; a GGUF without output.weight (tied embeddings) gets a second copy of it
as the output layer on the GPU (``TENSOR_DUPLICATED``: GgufWeights.duplicated_output_bytes). A layer's KV
cells live on its layer's device unless ``-nkvo``
(``llama_kv_cache``: ``offload ? model.dev_layer(il) : CPU``).

Compute buffer: llama.cpp measures it by reserving the worst-case graph (``graph_reserve``); kvcalc models
that graph's largest live set (:mod:`kvcalc.llama_cpp.compute`: logits + final norm, attention with its
mask and, without Flash Attention, the f32 scores, or the FFN).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..architectures import read_spec
from ..errors import InputError, UnsupportedError
from ..gguf.mixes import GgufWeights, gguf_weights
from ..gguf.reader import GGUFHeader
from ..spec import ModelSpec, Quality, combine_quality
from .arches import gguf_view
from .cache import Cells, KVCacheGroup, RecurrentMemory, kv_groups, recurrent_memory, resolve_cells
from .compute import compute_stages
from .options import LlamaCppOptions


@dataclass(frozen=True)
class DeviceBytes:
    """What one device holds (bytes)."""

    weights: int
    kv: int
    recurrent: int
    compute: int

    @property
    def total(self) -> int:
        return self.weights + self.kv + self.recurrent + self.compute


@dataclass(frozen=True)
class LlamaCppPlan:
    """llama.cpp's allocation for one run: the caches it prints, what the GPU and the host hold.

    ``fits`` is None when no GPU size was given. ``quality``: ``exact`` for the KV bytes of a spec read
    exactly and, with a GGUF header or an exact mix, the weights; the compute buffer is always
    estimated (its assumptions are in ``assumptions``)."""

    options: LlamaCppOptions
    cells: Cells
    caches: tuple[KVCacheGroup, ...]
    recurrent: RecurrentMemory | None
    gpu_layers: int                  # repeating layers on the GPU
    output_on_gpu: bool
    output_bytes: int                # the output layer's bytes on its device (a tied token_embd's copy included)
    gpu: DeviceBytes
    host: DeviceBytes
    gpu_bytes: int | None
    kv_quality: Quality
    weights_quality: Quality
    warnings: tuple[str, ...]
    assumptions: tuple[str, ...]

    @property
    def kv_bytes(self) -> int:
        return sum(c.bytes for c in self.caches)

    @property
    def fits(self) -> bool | None:
        return None if self.gpu_bytes is None else self.gpu.total <= self.gpu_bytes

    @property
    def quality(self) -> Quality:
        return combine_quality(self.kv_quality, self.weights_quality, "estimated")

    def log_lines(self, n_layer: int) -> tuple[str, ...]:
        """The engine's own lines for this run (load_tensors offload, iSWA sizes, each cache)."""
        lines = [f"load_tensors: offloaded {self.gpu_layers + int(self.output_on_gpu)}/{n_layer + 1} layers to GPU"]
        for c in self.caches:
            if c.name != "kv":
                lines.append(f"llama_kv_cache_iswa: creating {c.name:>7} KV cache, size = {c.cells} cells")
            lines.append(c.log_line())
        return tuple(lines)


EXPERTS = re.compile(r"\.ffn_(up|down|gate|gate_up)_(ch|)exps")
"""``common/common.h`` ``LLM_FFN_EXPS_REGEX``: the tensors ``--n-cpu-moe`` / ``-ot exps=CPU`` keep in host memory."""


def expert_bytes(weights: GgufWeights) -> tuple[int, ...]:
    """Bytes of each block's merged MoE expert tensors (0 for a dense block).

    >>> from kvcalc.catalog import bundled_config
    >>> w = gguf_weights(bundled_config("Qwen/Qwen3-30B-A3B"), "Q8_0")
    >>> expert_bytes(w)[0] == 3 * 128 * 768 * 2048 // 32 * 34     # gate, up, down: 128 experts of 768 x 2048
    True
    """
    out = [0] * len(weights.layer_bytes)
    for t in weights.tensors:
        if t.name.startswith("blk.") and EXPERTS.search(t.name):
            out[int(t.name.split(".")[1])] += t.nbytes
    return tuple(out)


def _compute_estimate(spec: ModelSpec, options: LlamaCppOptions, cells: Cells,
                      caches: tuple[KVCacheGroup, ...]) -> tuple[int, str]:
    s = compute_stages(spec, options, cells, caches)
    why = (f"compute buffer estimated: llama.cpp's reserved graph for {s.n_tokens} tokens modelled as the largest of "
           f"logits + final norm ({s.output / 2**20:.1f} MiB), attention ({s.attention / 2**20:.1f} MiB"
           + ("" if options.flash_attention else ", f32 scores n_head x n_tokens x n_kv")
           + f"), FFN ({s.ffn / 2**20:.1f} MiB) of f32 activations (kvcalc.llama_cpp.compute); "
           "a GPU backend's kernels may reserve more")
    return s.total, why


def llama_cpp_plan(spec: ModelSpec, options: LlamaCppOptions, weights: GgufWeights,
                   gpu_bytes: int | None = None, *, spec_quality: Quality | None = None,
                   duplicate_output: bool = True) -> LlamaCppPlan:
    """Plan a llama.cpp run of ``spec`` with GGUF ``weights`` (from :func:`kvcalc.gguf.mixes.gguf_weights`
    or a file header, :meth:`kvcalc.gguf.reader.GGUFHeader.as_weights`) on one GPU of ``gpu_bytes``.

    Raises the engine's refusals as InputError (quantized V without Flash Attention, an unknown cache
    type, more than 256 sequences) and UnsupportedError for caches it does not model (cross-attention).

    ``duplicate_output``: whether the output layer's device has its own buffer type, so that a tied model's
    token_embd is loaded there a second time (GgufWeights.duplicated_output_bytes); False for a CPU-only build,
    whose one buffer type holds both (``create_tensor`` returns the same tensor). An Apple GPU's mmap-ed Metal
    buffer may share the file's pages with the host copy; it is counted (the safe side)."""
    n_layer = spec.num_layers
    if len(weights.layer_bytes) != n_layer:
        raise InputError(f"the GGUF weights have {len(weights.layer_bytes)} blocks, the model {n_layer}")
    cells = resolve_cells(options, spec.max_position_embeddings)
    caches = kv_groups(spec, options, cells)
    rec = recurrent_memory(spec, cells)
    warnings = list(cells.notes)
    if spec.max_position_embeddings and cells.n_ctx_seq > spec.max_position_embeddings:
        warnings.append(f"n_ctx_seq ({cells.n_ctx_seq}) > n_ctx_train ({spec.max_position_embeddings}) -- "
                        "possible training context overflow")
    g = options.n_gpu_layers
    if g < 0:
        g = n_layer + 1
    if g > n_layer + 1:
        warnings.append(f"-ngl {g}: llama.cpp offloads at most n_layer + 1 = {n_layer + 1} layers")
        g = n_layer + 1
    first_gpu = max(n_layer + 1 - g, 0)
    on_gpu = [i >= first_gpu for i in range(n_layer)]
    output_on_gpu = g >= 1
    duplicate = weights.duplicated_output_bytes if output_on_gpu and duplicate_output else 0   # tied token_embd
    output = weights.output_bytes + duplicate
    w_gpu = (sum(b for i, b in enumerate(weights.layer_bytes) if on_gpu[i]) + (output if output_on_gpu else 0))
    w_gpu -= sum(b for i, b in enumerate(expert_bytes(weights)) if on_gpu[i] and i < options.n_cpu_moe)
    w_host = weights.total_bytes + duplicate - w_gpu
    kv_gpu = kv_host = 0
    for c in caches:
        for layer in c.layers:
            if options.kv_offload and on_gpu[layer.index]:
                kv_gpu += layer.k_bytes + layer.v_bytes
            else:
                kv_host += layer.k_bytes + layer.v_bytes
    rec_bytes = rec.bytes if rec else 0
    rec_gpu = rec_bytes if (options.kv_offload and all(on_gpu)) else 0
    compute, why = _compute_estimate(spec, options, cells, caches)
    assumptions = [why, *weights.notes]
    if options.n_cpu_moe and any(expert_bytes(weights)):
        assumptions.append("--n-cpu-moe: the host runs those experts' matmuls; its own compute buffer is not "
                           "counted")
    if options.flash_attn == "auto":
        assumptions.append("-fa auto taken as on (llama.cpp turns it off when a layer's device lacks support)")
    if rec:
        assumptions.append("recurrent state cells: f32 conv (d_conv - 1 columns) and SSM states per sequence")
    kv_quality: Quality = spec_quality or spec.quality
    if rec:
        kv_quality = "estimated"
    return LlamaCppPlan(options=options, cells=cells, caches=caches, recurrent=rec, gpu_layers=sum(on_gpu),
                        output_on_gpu=output_on_gpu, output_bytes=output,
                        gpu=DeviceBytes(w_gpu, kv_gpu, rec_gpu, compute if g > 0 else 0),
                        host=DeviceBytes(w_host, kv_host, rec_bytes - rec_gpu, 0 if g > 0 else compute),
                        gpu_bytes=gpu_bytes, kv_quality=kv_quality, weights_quality=weights.quality,
                        warnings=tuple(warnings), assumptions=tuple(assumptions))


def plan_from_config(config: Mapping[str, Any], options: LlamaCppOptions,
                     weights: "str | GGUFHeader | GgufWeights | None" = None,
                     gpu_bytes: int | None = None) -> LlamaCppPlan:
    """:func:`llama_cpp_plan` from a config.json: ``weights`` is a GGUF file type (``"Q4_K_M"``), a
    parsed header (exact bytes), ready GgufWeights, or None for the ``-hf repo:QUANT`` tail of the
    command line (UnsupportedError when neither says which file)."""
    spec = gguf_view(config, read_spec(config))[0]     # as llama.cpp reads the converted GGUF
    if weights is None:
        if not options.hf_quant:
            raise UnsupportedError("which GGUF file? give a file type (Q4_K_M, Q8_0, ...) or the file's header")
        weights = options.hf_quant
    if isinstance(weights, str):
        weights = gguf_weights(config, weights)
    elif isinstance(weights, GGUFHeader):
        weights = weights.as_weights()
    return llama_cpp_plan(spec, options, weights, gpu_bytes)
