"""llama.cpp's compute buffer: the worst-case graph it reserves for one ubatch, as live f32 tensors (bytes).

llama.cpp measures the buffer instead of estimating it (ggml-org/llama.cpp commit 0c1e57098,
``src/llama-context.cpp`` ``llama_context::sched_reserve`` -> ``graph_reserve``): it builds the graph of one
ubatch of ``n_tokens = min(n_ctx, n_ubatch)`` tokens (rounded up to a multiple of ``n_seq_max``), with
``n_outputs = n_tokens`` logits rows, over the FULL cache (``llama_kv_cache_context``'s reservation
constructor: ``n_kv = kv->get_size()``, the cells per stream), and ggml-alloc (``ggml/src/ggml-alloc.c``
``ggml_gallocr_reserve``) sizes the buffer to the largest set of intermediate tensors alive at once (a
tensor's memory is reused once its last consumer ran). Three stages compete (``src/models/llama.cpp``
``llm_build_llama`` and its kin; ``src/llama-graph.cpp`` ``build_attn_mha``, ``build_ffn``):

- **output**: the logits ``n_vocab x n_tokens`` beside the final norm's input and output
  (``2 x n_embd x n_tokens``): ``4 x n_tokens x (n_vocab + 2 x n_embd)``;
- **attention**: the residual, the norm, Q, K, V and the attention output
  (``4 x n_tokens x (3 x n_embd + 2 x n_head x d_k + 2 x n_head_kv x d_k)``), plus the mask over the cache
  (``n_kv x n_tokens``, f16 with Flash Attention, f32 without) and, without Flash Attention, the scores
  ``KQ`` (``4 x n_kv x n_tokens x n_head``, f32, softmax in place);
- **FFN**: the residual, the norm and the gate, up and gated products (``4 x n_tokens x (3 x n_ff + 4 x
  n_embd)``) with the mask; a MoE layer (``build_moe_ffn``: ``ggml_mul_mat_id`` rows of top-k x expert
  width ``n_ff``, the router's logits and weights) ``4 x n_tokens x (n_ff + 6 x n_embd)``.

Plus ``16 x n_tokens`` of integer inputs (token ids, positions, output ids). Checked against the buffer a
CPU build reserves (tests/fixtures/llama_cpp_oracle.json; tests/reference/test_llama_cpp_compute.py): equal to
the byte for large vocabularies with Flash Attention, within the bands that test states elsewhere; a GPU
backend reserves the same graph with its own kernels' scratch (not modelled).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..spec import ModelSpec
from .cache import Cells, KVCacheGroup
from .options import LlamaCppOptions

F32 = 4


@dataclass(frozen=True)
class ComputeStages:
    """Bytes of each competing stage; the buffer is the largest (``total``)."""

    n_tokens: int
    output: int
    attention: int
    ffn: int

    @property
    def total(self) -> int:
        return max(self.output, self.attention, self.ffn)


def reserve_tokens(options: LlamaCppOptions, cells: Cells) -> int:
    """``sched_reserve``'s ``n_tokens = min(n_ctx, n_ubatch)``, rounded up to a multiple of ``n_seq_max`` by
    ``graph_reserve``; the ``llama_context`` constructor caps ``n_batch`` at the REQUESTED ``n_ctx`` (before its
    256-cell padding; the training context for ``-c 0``) and ``n_ubatch`` at ``n_batch``.

    >>> reserve_tokens(LlamaCppOptions(n_ctx=8192, n_parallel=3, n_ubatch=256), Cells(8448, 2816, 3, 3, False))
    258
    """
    n = min(options.n_ctx or cells.n_ctx, options.n_ubatch, options.n_batch)
    return -(-n // cells.n_seq_max) * cells.n_seq_max


def compute_stages(spec: ModelSpec, options: LlamaCppOptions, cells: Cells,
                   caches: tuple[KVCacheGroup, ...]) -> ComputeStages:
    """The three stages of llama.cpp's reserved graph for ``spec`` (see the module docstring).

    >>> from kvcalc.catalog import bundled_config
    >>> from kvcalc.architectures import read_spec
    >>> from kvcalc.llama_cpp.cache import kv_groups, resolve_cells
    >>> spec = read_spec(bundled_config("meta-llama/Llama-3.1-8B"))
    >>> o = LlamaCppOptions(n_ctx=4096, flash_attn="on")
    >>> cells = resolve_cells(o, spec.max_position_embeddings)
    >>> compute_stages(spec, o, cells, kv_groups(spec, o, cells)).total   # llama.cpp CPU: 279,447,552
    279447552
    """
    t = reserve_tokens(options, cells)
    fa = options.flash_attention
    inputs = 4 * t
    e = spec.hidden_size
    output = F32 * t * (spec.vocab_size + 2 * e) + inputs
    n_kv = {layer.index: c.cells for c in caches for layer in c.layers}
    attention = ffn = 0
    ff = spec.mlp_width or 4 * e
    for layer in spec.layers:
        kv = n_kv.get(layer.index, 0)
        mask = (2 if fa else F32) * kv * t
        for a in layer.attention:
            act = F32 * t * (3 * e + 2 * a.query_heads * a.k_head_dim + 2 * a.kv_heads * a.k_head_dim)
            scores = 0 if fa else F32 * kv * t * a.query_heads
            attention = max(attention, act + mask + scores + 4 * inputs)
        if layer.attention:
            width = ff + 6 * e if spec.moe_experts else 3 * ff + 4 * e
            ffn = max(ffn, F32 * t * width + mask + inputs)
    return ComputeStages(t, output, attention, ffn)
