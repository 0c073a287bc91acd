"""llama.cpp's multi-GPU layer split (``-ts`` / ``--tensor-split``, ``--split-mode layer``) and a fit over several GPUs.

Layer placement (ggml-org/llama.cpp commit 0c1e57098, ``src/llama-model.cpp`` ``llama_model::load_tensors``): the
split points are the running sums of ``-ts`` (default: each device's free memory) normalised to 1 (float32);
slot ``il`` (blocks 0..n_layer-1, the output layer as slot n_layer) at or after ``i_gpu_start = max(n_layer + 1 -
ngl, 0)`` goes to the first device whose split point exceeds ``(il - i_gpu_start) / act_gpu_layers``
(``std::upper_bound``), with ``act_gpu_layers = min(ngl, n_layer + 1)``; earlier slots and token_embd stay on the
host. A layer's KV cells live on its device (``llama_kv_cache``: ``model.dev_layer(il)``).

Compute buffer per device: estimated. Each device reserves its own part of the graph; kvcalc gives the device of
the output layer the whole reserved buffer (:mod:`kvcalc.llama_cpp.compute`, the logits stage is there) and every
other device the larger of the attention and FFN stages. Not checked against llama.cpp (the oracle's CPU build has
one device); ``--split-mode row`` and ``tensor`` are not modelled.
"""
from __future__ import annotations

import struct
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..architectures import read_spec
from ..errors import InputError
from ..gguf.mixes import GgufWeights
from ..spec import ModelSpec
from .arches import gguf_view
from .compute import compute_stages
from .plan import LlamaCppPlan, expert_bytes


def _f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def layer_devices(n_layer: int, n_gpu_layers: int, tensor_split: Sequence[float]) -> tuple[int | None, ...]:
    """The device of each slot 0..n_layer (the last is the output layer); None = host.

    >>> d = layer_devices(32, -1, (1, 1))      # Llama-3.1-8B, -ngl all, -ts 1,1
    >>> (d.count(0), d.count(1), d[16], d[17], d[32])
    (17, 16, 0, 1, 1)
    """
    if not tensor_split or any(x < 0 for x in tensor_split) or sum(tensor_split) <= 0:
        raise InputError("-ts takes one non-negative share per GPU, not all zero")
    ngl = n_layer + 1 if n_gpu_layers < 0 else n_gpu_layers
    sums, total = [], 0.0
    for x in tensor_split:
        total = _f32(total + _f32(x))
        sums.append(total)
    points = [_f32(s / total) for s in sums]
    start = max(n_layer + 1 - ngl, 0)
    act = min(ngl, n_layer + 1)
    out: list[int | None] = []
    for il in range(n_layer + 1):
        if il < start or il - start >= act:
            out.append(None)
        else:
            out.append(min(bisect_right(points, _f32((il - start) / act)), len(points) - 1))
    return tuple(out)


@dataclass(frozen=True)
class DeviceShare:
    """What one GPU holds under a layer split (bytes)."""

    weights: int
    kv: int
    compute: int

    @property
    def total(self) -> int:
        return self.weights + self.kv + self.compute


def split_bytes(p: LlamaCppPlan, spec: ModelSpec, weights: GgufWeights,
                tensor_split: Sequence[float]) -> tuple[DeviceShare, ...]:
    """Each GPU's weights, KV and compute buffer for plan ``p`` of ``spec`` split by ``tensor_split`` (module
    docstring; the experts of the first ``--n-cpu-moe`` blocks stay on the host).

    >>> from kvcalc.catalog import bundled_config
    >>> from kvcalc.llama_cpp.plan import plan_from_config
    >>> from kvcalc.llama_cpp.options import LlamaCppOptions
    >>> from kvcalc.gguf.mixes import gguf_weights
    >>> config = bundled_config("meta-llama/Llama-3.1-8B")
    >>> w = gguf_weights(config, "Q8_0")
    >>> p = plan_from_config(config, LlamaCppOptions(n_ctx=8192, n_parallel=1), w)
    >>> a, b = split_bytes(p, p_spec(config), w, (1, 1))
    >>> (a.kv, b.kv) == (17 * 8192 * 2 * 1024 * 2, 15 * 8192 * 2 * 1024 * 2)   # 17 and 15 blocks' K and V
    True
    """
    n_layer = len(weights.layer_bytes)
    devs = layer_devices(n_layer, p.options.n_gpu_layers, tensor_split)
    experts = expert_bytes(weights)
    w = [0] * len(tensor_split)
    kv = [0] * len(tensor_split)
    for il, b in enumerate(weights.layer_bytes):
        d = devs[il]
        if d is not None:
            w[d] += b - (experts[il] if il < p.options.n_cpu_moe else 0)
    out_dev = devs[n_layer]
    if out_dev is not None:
        w[out_dev] += p.output_bytes           # as the plan placed it (a tied token_embd's copy included)
    for c in p.caches:
        for layer in c.layers:
            d = devs[layer.index]
            if d is not None and p.options.kv_offload:
                kv[d] += layer.k_bytes + layer.v_bytes
    st = compute_stages(spec, p.options, p.cells, p.caches)
    used = {d for d in devs if d is not None}
    return tuple(DeviceShare(w[i], kv[i], 0 if i not in used else st.total if i == out_dev
                             else max(st.attention, st.ffn)) for i in range(len(tensor_split)))


@dataclass(frozen=True)
class Split:
    """A plan's layer split over several GPUs: the ``-ts`` proportions used, each slot's device
    (:func:`layer_devices`), each GPU's share (:func:`split_bytes`) and the busiest GPU, whose total (with the
    recurrent state, counted whole there: not split per layer) decides whether the run allocates."""

    tensor_split: tuple[float, ...]
    devices: tuple[int | None, ...]
    shares: tuple[DeviceShare, ...]
    recurrent: int

    @property
    def totals(self) -> tuple[int, ...]:
        """Each GPU's bytes (weights + KV + compute; the busiest one with the recurrent state)."""
        top = self.busiest
        return tuple(s.total + (self.recurrent if i == top else 0) for i, s in enumerate(self.shares))

    @property
    def busiest(self) -> int:
        """The GPU with the most bytes (the first such)."""
        t = [s.total for s in self.shares]
        return t.index(max(t))


def plan_split(p: LlamaCppPlan, spec: ModelSpec, weights: GgufWeights, tensor_split: Sequence[float]) -> Split:
    """:class:`Split` of plan ``p`` over ``len(tensor_split)`` GPUs."""
    ts = tuple(float(x) for x in tensor_split)
    return Split(ts, layer_devices(len(weights.layer_bytes), p.options.n_gpu_layers, ts),
                 split_bytes(p, spec, weights, ts), p.gpu.recurrent)


def p_spec(config: Mapping[str, Any]) -> ModelSpec:
    """The spec llama.cpp reads from ``config``'s converted GGUF (kvcalc.llama_cpp.arches.gguf_view)."""
    return gguf_view(config, read_spec(config))[0]
