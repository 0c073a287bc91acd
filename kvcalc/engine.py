"""The seam every paged serving engine plugs into: one frozen :class:`EngineMemoryPlan` per deployment.

An engine module (kvcalc.sglang, kvcalc.trtllm, kvcalc.llama_cpp.seam) turns a model's per-layer
spec, the GPU and the engine's own options into an ``EngineMemoryPlan``: the budget, the bytes it
sets aside for the KV cache, the pool in tokens and pages, the longest request and the most
concurrent ones it accepts, its startup lines in its own words and the sources of each rule.
kvcalc.engines.paged.PagedEngine answers the plan, the per-layer rows and the curve from this record
(llama.cpp's preallocated cells add a per-layer occupancy and sized-run solvers: kvcalc.llama_cpp.seam).
Wiring a further engine is one package with an engine object whose ``memory_plan`` returns an
``EngineMemoryPlan``, and one line in kvcalc.engines.registry (CONTRIBUTING.md walks through it).

Units: bytes (GiB = 2**30), tokens. Per GPU: the figures are for the busiest GPU (one
tensor-parallel rank of the pipeline stage with the most KV bytes per token).

The per-token cell follows the engines' pools (both keep every full-attention layer's K and V for
every token of the pool): MHA / GQA ``kv_heads_per_rank x (k_head_dim + v_head_dim) x dtype bytes``
per layer, MLA ``latent_dim`` (``kv_lora_rank + qk_rope_head_dim``) x dtype bytes per layer, not
split by tensor parallelism. Layers the engines pool differently (sliding-window, chunked,
cross-attention, recurrent state, sparse-attention indexers) are refused with UnsupportedError
until those pools are modelled.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .dtypes import DType, ceil_div
from .errors import UnsupportedError
from .solve import largest_true
from .spec import LayerSpec, ModelSpec


@dataclass(frozen=True)
class EngineMemoryPlan:
    """One engine's startup budget and KV pool on the busiest GPU of a deployment.

    ``available_kv_bytes`` is what the engine's rule sets aside for the KV cache before it is cut
    into pages; ``pool_tokens`` (a multiple of ``page_size``) what the pool holds; ``pool_bytes``
    what the pool allocates. A request of ``T`` tokens holds ``ceil(T / page_size)`` pages;
    ``batch`` requests fit when ``T <= max_context``, ``batch <= max_running`` and their pages
    fit the pool. ``refusal`` is the engine's error, in its words, when it would not start.

    An engine with a second pool for its sliding-window layers (SGLang's ``SWAKVPool``) sets
    ``swa_pool_tokens`` / ``swa_cell_bytes`` (those layers' bytes per token, not in ``cell_bytes``) and
    ``swa_window``: a request then also holds ``ceil(min(T, swa_window) / page_size)`` pages there.
    """

    engine: str
    version: str
    total_gpu_bytes: int
    budget_bytes: int            # what the engine's rule lets weights + KV + its overhead use
    weights_bytes: int
    overhead_bytes: int          # the rest of the budget: activations, CUDA graphs, runtime buffers
    available_kv_bytes: int
    cell_bytes: int              # KV bytes per token on this GPU (all its layers, K and V)
    page_size: int               # tokens per page / block
    pool_tokens: int
    pool_bytes: int
    max_context: int             # longest request the engine accepts (tokens)
    max_running: int             # most concurrent requests
    log_lines: tuple[str, ...] = ()
    formulas: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()      # assumptions and warnings, shown with the plan
    sources: tuple[str, ...] = ()    # engine file + function of each rule
    refusal: str | None = None
    swa_cell_bytes: int = 0          # sliding-window layers' KV bytes per token in the second pool (0: none)
    swa_pool_tokens: int = 0
    swa_window: int = 0

    @property
    def pool_pages(self) -> int:
        """Pages (blocks) in the pool."""
        return self.pool_tokens // self.page_size

    def request_tokens(self, context: int) -> int:
        """Token slots one request of ``context`` tokens holds: whole pages, the context capped at
        ``max_context``."""
        return ceil_div(min(context, self.max_context), self.page_size) * self.page_size

    def request_swa_tokens(self, context: int) -> int:
        """Token slots one request holds in the sliding-window pool (0 without one): its window, in pages."""
        if not self.swa_cell_bytes:
            return 0
        return ceil_div(min(context, self.max_context, self.swa_window), self.page_size) * self.page_size

    def _pools_hold(self, batch: int, context: int) -> bool:
        return (batch * self.request_tokens(context) <= self.pool_tokens
                and batch * self.request_swa_tokens(context) <= self.swa_pool_tokens if self.swa_cell_bytes
                else batch * self.request_tokens(context) <= self.pool_tokens)

    def fits(self, batch: int, context: int) -> bool:
        """Whether ``batch`` requests of ``context`` tokens run at once (the engine starts, the
        context is allowed, the batch is allowed and their pages fit the pool(s))."""
        return (self.refusal is None and context <= self.max_context and batch <= self.max_running
                and self._pools_hold(batch, context))

    def occupied_bytes(self, batch: int, context: int) -> int:
        """KV bytes ``batch`` requests of ``context`` tokens hold on this GPU (both pools)."""
        return batch * (self.request_tokens(context) * self.cell_bytes
                        + self.request_swa_tokens(context) * self.swa_cell_bytes)

    def longest_context(self, batch: int) -> int | None:
        """The longest context ``batch`` requests can each hold (None when none fits)."""
        if self.refusal is not None or batch > self.max_running:
            return None
        return largest_true(lambda t: self._pools_hold(batch, t), self.max_context)

    def largest_batch(self, context: int) -> int | None:
        """The most requests of ``context`` tokens at once (None when none fits)."""
        if self.refusal is not None or context > self.max_context:
            return None
        n = min(self.pool_tokens // self.request_tokens(context), self.max_running)
        if self.swa_cell_bytes:
            n = min(n, self.swa_pool_tokens // self.request_swa_tokens(context))
        return n or None

    @property
    def max_concurrency(self) -> float:
        """Requests of ``max_context`` tokens the pool holds at once (as vLLM reports it)."""
        return self.pool_tokens / self.request_tokens(self.max_context) if self.max_context else 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_full_attention(spec: ModelSpec, engine_label: str, *, sliding_ok: bool = False) -> None:
    """UnsupportedError unless every cached layer is plain full self-attention (MHA, GQA or MLA), or,
    with ``sliding_ok``, a sliding-window layer (the engine has a rule for them)."""
    for layer in spec.layers:
        if layer.kind in ("shared", "none"):
            continue
        if layer.states:
            raise UnsupportedError(f"{engine_label}: layer {layer.index} keeps a recurrent state (mamba / linear "
                                   "attention); that engine's state pool is not modelled: use runtime 'vllm'")
        for a in layer.attention:
            what = ("cross-attention" if a.source == "cross" else "a sliding-window or chunked layer"
                    if a.window is not None and (a.chunked or not sliding_ok)
                    else "a sparse-attention indexer" if a.indexer_dim else None)
            if what:
                raise UnsupportedError(f"{engine_label}: layer {layer.index} is {what}; that engine's pool for "
                                       "it is not modelled yet: use runtime 'vllm' or 'ideal'")


def layer_cell_bytes(layer: LayerSpec, kv: DType) -> int:
    """KV bytes one token costs in one layer of a rank's spec (module docstring)."""
    if layer.kind in ("shared", "none"):
        return 0
    return sum(kv.nbytes(a.elements_per_token) for a in layer.attention)


def key_value_cell_bytes(spec: ModelSpec, kv: DType) -> tuple[int, int]:
    """(K, V) bytes per token over a rank's layers; MLA's latent counts as K (V is 0)."""
    k = v = 0
    for layer in spec.layers:
        if layer.kind in ("shared", "none"):
            continue
        for a in layer.attention:
            if a.latent_dim:
                k += kv.nbytes(a.latent_dim)
            else:
                k += kv.nbytes(a.kv_heads * a.k_head_dim)
                v += kv.nbytes(a.kv_heads * a.v_head_dim)
    return k, v


def stage_cell_bytes(stages: list[ModelSpec], kv: DType) -> tuple[int, ...]:
    """KV bytes per token on one GPU of each pipeline stage."""
    return tuple(sum(layer_cell_bytes(layer, kv) for layer in s.layers) for s in stages)


def check_fraction(name: str, value: Any, *, allow_one: bool = True, source: str = "") -> float:
    """A memory fraction in (0, 1] (or (0, 1)), else InputError naming the engine's bound."""
    from .errors import InputError

    is_number = not isinstance(value, bool) and isinstance(value, (int, float))
    upper_ok = is_number and (value <= 1 if allow_one else value < 1)
    if not is_number or not (0 < value and upper_ok):
        bound = "(0, 1]" if allow_one else "(0, 1)"
        raise InputError(f"{name} must be in {bound}{f' ({source})' if source else ''}, got {value!r:.20}")
    return float(value)
