"""A bounded reader of a .gguf file's header: metadata key/values and the tensor-info table.

Layout (ggml-org/ggml ``docs/gguf.md``; llama.cpp ``ggml/src/gguf.cpp`` ``gguf_init_from_file_impl``),
all little-endian:

    magic "GGUF" | uint32 version (2 or 3) | uint64 n_tensors | uint64 n_kv
    n_kv x  { string key | uint32 value_type | value }
    n_tensors x { string name | uint32 n_dims | uint64 dims[n_dims] | uint32 ggml_type | uint64 offset }
    padding to ``general.alignment`` (default 32), then the tensor data (never read here)

``string`` = uint64 length + UTF-8 bytes; value types 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32,
7 bool, 8 string, 9 array (uint32 element type + uint64 count + elements), 10 u64, 11 i64, 12 f64.

Hard caps: at most :data:`MAX_HEADER_BYTES` are read, counts and string lengths are bounded, a tensor
has 1 to 4 dimensions and at most 2^63 - 1 values, all tensors at most 2^50 bytes (1 PiB, what a
plan accepts), offsets must be aligned and inside the data the header announces; anything else
is an :class:`~kvcalc.errors.InputError` naming what is wrong. Every count is also checked against the
bytes the file can still hold (its size when known, else the cap) before anything is read or built for
it: a metadata entry takes at least :data:`MIN_KV_BYTES`, a tensor entry :data:`MIN_TENSOR_BYTES`, an
array element its scalar width (a string 8); ``{arch}.block_count`` is at most the tensor count (every
llama.cpp block ``blk.N`` has tensors), and a header without tensors is refused (nothing to plan).
Tensor bytes come from the type table (:mod:`.types`), so the weight figure is exact without reading
any weight.
"""
from __future__ import annotations

import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from ..errors import InputError, UnsupportedError
from ..limits import MAX_CHECKPOINT_BYTES
from .mixes import GgufWeights
from .tensor import TensorInfo
from .types import ggml_type

MAGIC = b"GGUF"
MAX_HEADER_BYTES = 64 * 2**20      # a 256k-token vocabulary header is ~10 MiB
MAX_TENSORS = 1 << 16
MAX_KV = 1 << 16
MAX_STRING = 1 << 20
MAX_ARRAY = 1 << 24
MAX_DIM = 1 << 40
MAX_ELEMENTS = (1 << 63) - 1       # values of one tensor (llama.cpp gguf.cpp: "total element count overflows")
KEEP_ARRAY = 64                    # arrays longer than this are skipped, only their length is kept
DEFAULT_ALIGNMENT = 32
MIN_KV_BYTES = 8 + 4 + 1           # key length + value type + the smallest value (u8, i8, bool)
MIN_TENSOR_BYTES = 8 + 4 + 8 + 4 + 8   # name length + n_dims + one dimension + type + offset
_BLOCK = re.compile(r"blk\.([0-9]{1,9})\.")

_SCALARS: dict[int, tuple[str, int]] = {0: ("<B", 1), 1: ("<b", 1), 2: ("<H", 2), 3: ("<h", 2), 4: ("<I", 4),
                                        5: ("<i", 4), 6: ("<f", 4), 7: ("<?", 1), 10: ("<Q", 8), 11: ("<q", 8),
                                        12: ("<d", 8)}
_STRING, _ARRAY = 8, 9


@dataclass(frozen=True)
class SkippedArray:
    """A long metadata array (a tokenizer's vocabulary) that was read past, not kept."""

    type: int
    length: int


@dataclass(frozen=True)
class GGUFHeader:
    """What a GGUF header says: metadata, tensors (bytes each), and where the data starts."""

    version: int
    metadata: Mapping[str, Any]
    tensors: tuple[TensorInfo, ...]
    alignment: int
    data_offset: int                 # bytes from the file start to the tensor data
    header_bytes: int = field(default=0)

    @property
    def architecture(self) -> str:
        arch = self.metadata.get("general.architecture")
        if not isinstance(arch, str) or not arch:
            raise InputError("the GGUF header has no general.architecture")
        return arch

    def arch_value(self, key: str) -> Any:
        """``{architecture}.{key}``, e.g. ``arch_value("attention.head_count_kv")``; None when absent."""
        return self.metadata.get(f"{self.architecture}.{key}")

    @property
    def weight_bytes(self) -> int:
        """Exact bytes of all tensors (the sum of ``ggml_nbytes``; alignment padding not counted)."""
        return sum(t.nbytes for t in self.tensors)

    def layer_bytes(self) -> dict[int, int]:
        """Bytes of the ``blk.N.*`` tensors of each block N."""
        out: dict[int, int] = {}
        for t in self.tensors:
            m = _BLOCK.match(t.name)
            if m:
                out[int(m.group(1))] = out.get(int(m.group(1)), 0) + t.nbytes
        return out

    def as_weights(self) -> GgufWeights:
        """The header's tensors as the weights a llama.cpp plan uses (exact bytes, per block)."""
        if not self.tensors:
            raise InputError(NO_TENSORS)
        blocks = self.layer_bytes()
        n = self.arch_value("block_count")
        n_layer = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else (max(blocks) + 1 if blocks else 0)
        if n_layer > len(self.tensors):
            raise InputError(_too_many_blocks(f"{self.architecture}.block_count", n_layer, len(self.tensors)))
        if blocks and max(blocks) >= n_layer:
            raise InputError(f"GGUF tensor blk.{max(blocks)} is beyond block_count = {n_layer}")
        inp = sum(t.nbytes for t in self.tensors if t.name == "token_embd.weight")
        out = self.weight_bytes - sum(blocks.values()) - inp
        ftype = self.metadata.get("general.file_type")
        return GgufWeights(file_type=f"file_type {ftype}" if isinstance(ftype, int) else "from header",
                           tensors=self.tensors, layer_bytes=tuple(blocks.get(i, 0) for i in range(n_layer)),
                           input_bytes=inp, output_bytes=out, quality="exact",
                           notes=("weights: exact tensor bytes from the GGUF header",))

    def geometry(self) -> dict[str, Any]:
        """The KV-cache geometry llama.cpp reads (``llama-model.cpp`` ``load_hparams``): block_count,
        attention.head_count / head_count_kv / key_length / value_length / sliding_window,
        context_length, embedding_length (None where the file does not say)."""
        keys = ("block_count", "context_length", "embedding_length", "attention.head_count",
                "attention.head_count_kv", "attention.key_length", "attention.value_length",
                "attention.sliding_window")
        return {k: self.arch_value(k) for k in keys}


NO_TENSORS = ("the GGUF header lists no tensors (a vocab-only file?): kvcalc needs the tensor-info table "
              "for the weights")


def _too_many_blocks(key: str, n: int, tensors: int) -> str:
    return (f"GGUF {key[:80]} = {n:,} is more blocks than the file's {tensors:,} tensors can hold "
            "(every block has tensors): the header is corrupted")


class _Cursor:
    """Reads from bytes or a binary file, never past ``limit`` bytes."""

    def __init__(self, source: "bytes | bytearray | memoryview | BinaryIO", limit: int):
        self.buf: bytes | None = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else None
        self.file = None if self.buf is not None else source
        self.pos = 0
        self.limit = limit
        self.end: int | None = None          # bytes of the whole file, when known

    def check_count(self, count: int, each: int, what: str) -> None:
        """InputError naming ``what`` when ``count`` entries of at least ``each`` bytes cannot fit in
        the bytes the file has left (its size when known), or in the header cap; checked before any
        of them is read or allocated."""
        need = count * each
        if self.end is not None and need > self.end - self.pos:
            raise InputError(f"GGUF {what} is {count:,}, more than the {max(self.end - self.pos, 0):,} bytes left "
                             f"in the file can hold ({each} bytes each at least): the header is corrupted")
        if need > self.limit - self.pos:
            raise InputError(f"GGUF header larger than {self.limit:,} bytes while reading {what} ({count:,}, "
                             f"{each} bytes each at least)")

    def read(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > self.limit:
            raise InputError(f"GGUF header larger than {self.limit:,} bytes while reading {what}")
        if self.buf is not None:
            out = self.buf[self.pos:self.pos + n]
        else:
            assert self.file is not None
            out = self.file.read(n)          # type: ignore[union-attr]
        if len(out) != n:
            raise InputError(f"GGUF data ends after {self.pos + len(out):,} bytes, inside {what} "
                             "(truncated file or prefix: give more of the file)")
        self.pos += n
        return out

    def unpack(self, fmt: str, size: int, what: str) -> Any:
        return struct.unpack(fmt, self.read(size, what))[0]

    def u32(self, what: str) -> int:
        return int(self.unpack("<I", 4, what))

    def u64(self, what: str) -> int:
        return int(self.unpack("<Q", 8, what))

    def string(self, what: str) -> str:
        n = self.u64(what + " length")
        if n > MAX_STRING:
            raise InputError(f"GGUF {what} is {n:,} bytes long (at most {MAX_STRING:,})")
        try:
            return self.read(n, what).decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"GGUF {what} is not UTF-8") from None


def _value(c: _Cursor, vtype: int, what: str, depth: int = 0) -> Any:
    if vtype in _SCALARS:
        fmt, size = _SCALARS[vtype]
        return c.unpack(fmt, size, what)
    if vtype == _STRING:
        return c.string(what)
    if vtype == _ARRAY:
        if depth:
            raise InputError(f"GGUF {what}: nested arrays are not supported")
        etype = c.u32(what + " element type")
        count = c.u64(what + " count")
        if count > MAX_ARRAY:
            raise InputError(f"GGUF {what} has {count:,} elements (at most {MAX_ARRAY:,})")
        if etype not in _SCALARS and etype not in (_STRING,):
            raise InputError(f"GGUF {what}: unknown array element type {etype}")
        c.check_count(count, _SCALARS[etype][1] if etype in _SCALARS else 8, what + " count")
        if count > KEEP_ARRAY:
            if etype in _SCALARS:
                c.read(_SCALARS[etype][1] * count, what)
            else:
                for _ in range(count):
                    c.string(what + " element")
            return SkippedArray(etype, count)
        return tuple(_value(c, etype, what, depth + 1) for _ in range(count))
    raise InputError(f"GGUF {what}: unknown value type {vtype}")


def _check_block_counts(meta: Mapping[str, Any], n_tensors: int) -> None:
    """Every ``*.block_count`` fits the tensor count (a block has tensors); a file with none is refused."""
    if not n_tensors:
        raise InputError(NO_TENSORS)
    for key, value in meta.items():
        if key.endswith(".block_count") and isinstance(value, int) and not isinstance(value, bool) \
                and value > n_tensors:
            raise InputError(_too_many_blocks(key, value, n_tensors))


def read_gguf_header(source: "bytes | bytearray | memoryview | BinaryIO", *,
                     max_bytes: int = MAX_HEADER_BYTES, file_size: int | None = None) -> GGUFHeader:
    """Parse the header and tensor-info table of a .gguf file (bytes, a prefix of them, or a binary
    file object); the tensor data is never read. With ``file_size`` (bytes of the whole file) every
    tensor must lie inside it, as llama.cpp's loader checks ("tensor data is not within the file
    bounds"). Raises InputError on anything malformed or truncated, UnsupportedError for a ggml type
    kvcalc does not know."""
    c = _Cursor(source, max_bytes)
    if file_size is not None:
        c.end = max(int(file_size), 0)
    if c.read(4, "magic") != MAGIC:
        raise InputError("not a GGUF file (the first 4 bytes are not 'GGUF')")
    version = c.u32("version")
    if version not in (2, 3):
        raise UnsupportedError(f"GGUF version {version} is not supported (2 and 3 are)")
    n_tensors = c.u64("tensor count")
    n_kv = c.u64("metadata count")
    if n_tensors > MAX_TENSORS or n_kv > MAX_KV:
        raise InputError(f"GGUF header announces {n_tensors:,} tensors and {n_kv:,} metadata keys "
                         f"(at most {MAX_TENSORS:,} / {MAX_KV:,})")
    c.check_count(n_kv, MIN_KV_BYTES, "metadata count")
    c.check_count(n_tensors, MIN_TENSOR_BYTES, "tensor count")
    c.check_count(n_kv * MIN_KV_BYTES + n_tensors * MIN_TENSOR_BYTES, 1, "metadata and tensor table")
    meta: dict[str, Any] = {}
    for i in range(n_kv):
        key = c.string(f"metadata key {i}")
        if key in meta:
            raise InputError(f"GGUF metadata key '{key[:80]}' appears twice")
        meta[key] = _value(c, c.u32(f"type of '{key[:80]}'"), f"value of '{key[:80]}'")
    _check_block_counts(meta, n_tensors)
    alignment = meta.get("general.alignment", DEFAULT_ALIGNMENT)
    if isinstance(alignment, bool) or not isinstance(alignment, int) or alignment < 1 or alignment & (alignment - 1):
        raise InputError(f"GGUF general.alignment = {alignment!r} is not a power of two")
    tensors: list[TensorInfo] = []
    names: set[str] = set()
    total = 0
    for i in range(n_tensors):
        name = c.string(f"tensor {i} name")
        if name in names:
            raise InputError(f"GGUF tensor '{name[:80]}' appears twice")
        names.add(name)
        n_dims = c.u32(f"tensor '{name[:80]}' dimension count")
        if not 1 <= n_dims <= 4:
            raise InputError(f"GGUF tensor '{name[:80]}' has {n_dims} dimensions (1 to 4)")
        dims = tuple(c.u64(f"tensor '{name[:80]}' dimension") for _ in range(n_dims))
        if any(d < 1 or d > MAX_DIM for d in dims):
            raise InputError(f"GGUF tensor '{name[:80]}' has a dimension out of range: {dims}")
        gtype = ggml_type(c.u32(f"tensor '{name[:80]}' type"))
        offset = c.u64(f"tensor '{name[:80]}' offset")
        if offset % alignment:
            raise InputError(f"GGUF tensor '{name[:80]}' offset {offset} is not a multiple of {alignment}")
        if dims[0] % gtype.block_size:
            raise InputError(f"GGUF tensor '{name[:80]}': {dims[0]} values per row do not fill "
                             f"{gtype.name} blocks of {gtype.block_size}")
        info = TensorInfo(name, dims, gtype, offset)
        total += info.nbytes
        if info.elements > MAX_ELEMENTS or total > MAX_CHECKPOINT_BYTES:
            raise InputError(f"GGUF tensor '{name[:80]}' {dims} takes the tensor data past what a file can hold "
                             f"(at most {MAX_ELEMENTS:,} values per tensor, 2^50 bytes in all)")
        tensors.append(info)
    header_bytes = c.pos
    data_offset = -(-header_bytes // alignment) * alignment
    if file_size is not None:
        for t in tensors:
            if data_offset + t.offset + t.nbytes > file_size:
                raise InputError(f"GGUF tensor '{t.name[:80]}' data is not within the file bounds "
                                 f"({file_size:,} bytes): the file is truncated or corrupted")
    return GGUFHeader(version=version, metadata=meta, tensors=tuple(tensors), alignment=alignment,
                      data_offset=data_offset, header_bytes=header_bytes)
