"""llama.cpp's KV cache: cells, streams, the separate sliding-window cache, bytes and the startup log line.

Sources (ggml-org/llama.cpp, read, not copied):

``src/llama-context.cpp`` ``llama_context::llama_context`` (PR #17046)
    ``n_ctx = GGML_PAD(n_ctx, 256)`` (0 -> the model's ``n_ctx_train``); unified:
    ``n_ctx_seq = n_ctx``; otherwise ``n_ctx_seq = GGML_PAD(n_ctx / n_seq_max, 256)`` and
    ``n_ctx = n_ctx_seq * n_seq_max`` ("n_ctx is not divisible by n_seq_max - rounding down to ...").
    Quantized V needs Flash Attention ("quantized V cache was requested, but this requires Flash
    Attention"); ``n_ctx_seq > n_ctx_train`` only warns ("possible training context overflow").
``src/llama-model.cpp`` ``llama_model::create_memory``
    ``llama_kv_cache(kv_size = n_ctx_seq, n_seq_max, unified, n_pad = 1)``, or ``llama_kv_cache_iswa``
    when the model has sliding-window layers; V is stored transposed (``v_trans``) without FA;
    recurrent layers get ``llama_memory_recurrent`` with ``max(1, n_seq_max)`` cells of f32 states.
``src/llama-kv-cache.cpp`` ``llama_kv_cache::llama_kv_cache`` (commit 3514e9f6e795d3b3cd88d6614f6c07e7ce6f916f)
    per layer with KV, ``K = ggml_new_tensor_3d(type_k, n_embd_k_gqa, kv_size, n_stream)`` and the same
    for V (width ``n_embd_v_gqa_max`` when ``v_trans``), ``n_stream = unified ? 1 : n_seq_max``; the log
    line ``size = %7.2f MiB (%6u cells, %3d layers, %2u/%u seqs), K (%s): %7.2f MiB, V (%s): %7.2f MiB``
    (MiB = bytes / 2**20 as a float). An MLA model (``hparams.is_mla()``: DeepSeek-V2/V3, Kimi-K2; the
    converter writes ``key_length = kv_lora_rank + qk_rope_head_dim``, ``head_count_kv = 1``) caches the latent
    only: ``has_v = !is_mla``, K is ``kv_lora_rank + rope`` wide, V none (the graph views V inside K);
    ``llama_init_from_model`` refuses different K and V types for it (commit 0c1e57098).
``src/llama-kv-cache-iswa.cpp`` ``llama_kv_cache_iswa::llama_kv_cache_iswa``
(commit 2aef9767d982beb7ab61b3ae359366f627eb74dd)
    non-SWA cache of ``kv_size`` cells; SWA cache of
    ``GGML_PAD(min(kv_size, n_swa * (unified ? n_seq_max : 1) + n_ubatch), 256)`` cells, or ``kv_size``
    with ``--swa-full``. Both halves are built with the same ``type_k`` / ``type_v`` (the constructor passes
    them to ``kv_base`` and ``kv_swa`` alike; read at commit 02c28f533ebba3e4ea944fc4a0719a012b3e7097), so a
    quantized ``-ctk`` / ``-ctv`` quantizes the SWA cache too: the F16-SWA rule of PR #21277 ("kv-cache : do
    not quantize SWA KV cache") was reverted by PR #21332 the next day.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from ..dtypes import DType, ceil_div
from ..errors import InputError, UnsupportedError
from ..gguf.types import GGMLType, ggml_type
from ..spec import AttentionCache, ModelSpec
from .options import CTX_PAD, LlamaCppOptions


def pad(n: int, to: int = CTX_PAD) -> int:
    """``GGML_PAD(n, to)``: ``n`` rounded up to a multiple of ``to``."""
    return ceil_div(n, to) * to


@dataclass(frozen=True)
class Cells:
    """How llama.cpp sizes the context: ``n_ctx`` total cells, ``n_ctx_seq`` per slot, the streams."""

    n_ctx: int
    n_ctx_seq: int
    n_seq_max: int
    n_stream: int
    unified: bool
    notes: tuple[str, ...] = ()


def resolve_cells(options: LlamaCppOptions, n_ctx_train: int | None) -> Cells:
    """``llama_context``'s n_ctx / n_ctx_seq rule (see module docstring)."""
    n_seq, unified, note = options.slots()
    notes = [note] if note else []
    n_ctx = options.n_ctx
    if n_ctx == 0:
        if not n_ctx_train:
            raise InputError("-c 0 uses the model's training context, which the config does not give; pass -c N")
        n_ctx = n_ctx_train
        notes.append(f"-c 0: n_ctx = n_ctx_train = {n_ctx_train:,}")
    n_ctx = pad(n_ctx)
    if unified:
        n_ctx_seq = n_ctx
    else:
        n_ctx_seq = pad(n_ctx // n_seq)
        if n_ctx != n_ctx_seq * n_seq:
            n_ctx = n_ctx_seq * n_seq
            notes.append(f"n_ctx is not divisible by n_seq_max - rounding down to {n_ctx}")
    return Cells(n_ctx, n_ctx_seq, n_seq, 1 if unified else n_seq, unified, tuple(notes))


@dataclass(frozen=True)
class KVLayer:
    """One layer's KV in one cache: bytes of K and V over all cells and streams."""

    index: int
    k_bytes: int
    v_bytes: int


@dataclass(frozen=True)
class KVCacheGroup:
    """One ``llama_kv_cache`` (the whole cache, or the non-SWA / SWA half of an iSWA cache)."""

    name: str                        # "kv" | "non-SWA" | "SWA"
    cells: int                       # kv_size (per stream)
    n_seq_max: int
    n_stream: int
    type_k: GGMLType
    type_v: GGMLType
    layers: tuple[KVLayer, ...]

    @property
    def k_bytes(self) -> int:
        return sum(layer.k_bytes for layer in self.layers)

    @property
    def v_bytes(self) -> int:
        return sum(layer.v_bytes for layer in self.layers)

    @property
    def bytes(self) -> int:
        return self.k_bytes + self.v_bytes

    def log_line(self) -> str:
        """The line llama.cpp prints for this cache (``llama_kv_cache`` constructor)."""
        return (f"llama_kv_cache: size = {_mib(self.bytes):7.2f} MiB ({self.cells:6d} cells, "
                f"{len(self.layers):3d} layers, {self.n_seq_max:2d}/{self.n_stream} seqs), "
                f"K ({_name(self.type_k)}): {_mib(self.k_bytes):7.2f} MiB, "
                f"V ({_name(self.type_v)}): {_mib(self.v_bytes):7.2f} MiB")


def _mib(nbytes: int) -> float:
    """``(float) bytes / (1024.0f * 1024.0f)``: the float32 value the C code prints."""
    f32: float = struct.unpack("<f", struct.pack("<f", float(nbytes)))[0]
    return f32 / 2**20


def _name(t: GGMLType) -> str:
    """``ggml_type_name``: lower case except the K of k-quants (``q4_K``)."""
    return t.name.lower().replace("_k", "_K")


def _attention(spec: ModelSpec) -> list[tuple[int, AttentionCache]]:
    out: list[tuple[int, AttentionCache]] = []
    for layer in spec.layers:
        if layer.kind == "shared":
            continue                 # reuses another layer's cache: hparams.has_kv(il) is false
        for a in layer.attention:
            if a.source == "cross":
                raise UnsupportedError("llama.cpp's cross-attention caches (encoder-decoder models) are not modelled")
            if a.latent_dim and a.indexer_dim:
                raise UnsupportedError("llama.cpp's sparse-attention indexer cache (DeepSeek-V3.2) is not "
                                       "modelled for the llama_cpp runtime")
            out.append((layer.index, a))
    return out


def cache_dtype(options: LlamaCppOptions) -> DType:
    """The cache's element type as a kvcalc.dtypes.DType, for the bytes a step reads: ``-ctk``'s ggml type when
    ``-ctv`` is the same (a block of ``block_size`` values in ``type_size`` bytes: Q8_0 34 B per 32), else their mean
    over as many K as V values (exact where K and V rows are equally wide, as in a GQA layer of equal head dims).

    >>> [cache_dtype(LlamaCppOptions(cache_type_k=t, cache_type_v=t)).nbytes(128) for t in ("f16", "q8_0", "f32")]
    [256, 136, 512]
    >>> cache_dtype(LlamaCppOptions(cache_type_k="q8_0", cache_type_v="f16", flash_attn="on")).nbytes(128)
    196
    """
    tk, tv = ggml_type(options.cache_type_k), ggml_type(options.cache_type_v)
    if tk == tv:
        return DType(tk.name.lower(), 0, not tk.quantized, tk.block_size, tk.type_size)
    span = tk.block_size * tv.block_size // math.gcd(tk.block_size, tv.block_size)
    size = span // tk.block_size * tk.type_size + span // tv.block_size * tv.type_size
    return DType(f"{tk.name.lower()}/{tv.name.lower()}", 0, False, 2 * span, size)


def kv_groups(spec: ModelSpec, options: LlamaCppOptions, cells: Cells) -> tuple[KVCacheGroup, ...]:
    """The KV caches llama.cpp allocates for ``spec`` (one, or non-SWA + SWA)."""
    tk, tv = ggml_type(options.cache_type_k), ggml_type(options.cache_type_v)
    if tv.quantized and not options.flash_attention:
        raise InputError("quantized V cache was requested, but this requires Flash Attention "
                         "(llama.cpp refuses -ctv " + options.cache_type_v + " with -fa off): use -fa on or -ctv f16")
    layers = _attention(spec)
    if any(a.latent_dim for _, a in layers) and tk != tv:
        raise InputError("an MLA model (DeepSeek) takes one cache type: llama.cpp refuses -ctk "
                         f"{options.cache_type_k} with -ctv {options.cache_type_v} (\"model does not support "
                         "different K and V cache types\")")
    v_trans = not options.flash_attention
    v_max = max((a.kv_heads * a.v_head_dim for _, a in layers if not a.latent_dim), default=0)
    swa = [(i, a) for i, a in layers if a.window is not None]
    full = [(i, a) for i, a in layers if a.window is None]

    def group(name: str, members: list[tuple[int, AttentionCache]], size: int,
              k: GGMLType, v: GGMLType) -> KVCacheGroup:
        rows = size * cells.n_stream
        out = [KVLayer(i, k.row_bytes(a.latent_dim) * rows, 0) if a.latent_dim else
               KVLayer(i, k.row_bytes(a.kv_heads * a.k_head_dim) * rows,
                       v.row_bytes(v_max if v_trans else a.kv_heads * a.v_head_dim) * rows) for i, a in members]
        return KVCacheGroup(name, size, cells.n_seq_max, cells.n_stream, k, v, tuple(out))

    if not swa:
        return (group("kv", full, cells.n_ctx_seq, tk, tv),)
    n_swa = max(a.window or 0 for _, a in swa)
    n_ubatch = min(options.n_ubatch, options.n_batch)
    size_swa = cells.n_ctx_seq if options.swa_full else pad(
        min(cells.n_ctx_seq, n_swa * (cells.n_seq_max if cells.unified else 1) + n_ubatch))
    return (group("non-SWA", full, cells.n_ctx_seq, tk, tv), group("SWA", swa, size_swa, tk, tv))


@dataclass(frozen=True)
class RecurrentMemory:
    """``llama_memory_recurrent``: ``cells = max(1, n_seq_max)`` f32 states per recurrent layer
    (R = conv window of ``d_conv - 1`` columns, S = SSM / linear-attention state)."""

    cells: int
    layers: int
    r_bytes: int
    s_bytes: int

    @property
    def bytes(self) -> int:
        return self.r_bytes + self.s_bytes


def recurrent_memory(spec: ModelSpec, cells: Cells) -> RecurrentMemory | None:
    n = max(1, cells.n_seq_max)
    r = s = layers = 0
    for layer in spec.layers:
        if not layer.states:
            continue
        layers += 1
        for st in layer.states:
            if st.role == "conv":
                k = max(1, st.conv_kernel - 1) if st.conv_kernel else 0
                r += (st.elements_with_kernel(k) if k else st.elements) * 4 * n
            else:
                s += st.elements * 4 * n
    return RecurrentMemory(n, layers, r, s) if layers else None
