"""The one dtype table: storage width of every element type kvcalc knows, and quantization overhead.

Bytes of ``n`` elements of dtype ``d``::

    ceil(n * d.bits / 8) + ceil(n / d.group_size) * d.group_overhead_bytes

Floating types have no groups. Integer KV-cache types (int8, int4, int2) are stored the way
transformers' quantized caches (quanto / HQQ) store them: per group of ``group_size`` elements
(default 64) a scale and a zero-point, each 2 bytes (fp16), i.e. 4 bytes per group. fp8 caches
(vLLM ``--kv-cache-dtype fp8``) use one float32 scale per tensor, which does not grow with
tokens and is ignored here.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import InputError


@dataclass(frozen=True)
class DType:
    """An element type. ``bits`` per element; optional per-group overhead for quantized ints."""

    name: str
    bits: int
    is_float: bool
    group_size: int = 0
    group_overhead_bytes: int = 0

    def nbytes(self, elements: int) -> int:
        """Bytes for ``elements`` values, including group scales/zeros (see module docstring).

        128 int4 values: 128 x 4 / 8 = 64 data bytes plus 2 groups of 64 x 4 bytes of scale and zero
        point = 72; 100 bfloat16 values: 200 bytes:

        >>> get_dtype("int4").nbytes(128), get_dtype("bf16").nbytes(100)
        (72, 200)
        """
        data = ceil_div(elements * self.bits, 8)
        if self.group_size:
            data += ceil_div(elements, self.group_size) * self.group_overhead_bytes
        return data

    @property
    def bytes_per_element(self) -> float:
        """Average bytes per element, overhead included (exact for whole groups).

        int8: 1 byte plus 4 bytes per 64-element group = 1 + 4 / 64 = 1.0625:

        >>> get_dtype("int8").bytes_per_element, get_dtype("fp8").bytes_per_element
        (1.0625, 1.0)
        """
        extra = self.group_overhead_bytes / self.group_size if self.group_size else 0.0
        return self.bits / 8 + extra

    def with_groups(self, group_size: int, overhead_bytes: int) -> "DType":
        """The same type with another quantization group size / per-group overhead.

        int4 in groups of 128 with a 2-byte scale: 128 values take 64 + 1 x 2 = 66 bytes:

        >>> get_dtype("int4").with_groups(128, 2).nbytes(128)
        66
        """
        if self.is_float:
            raise InputError(f"{self.name} is a floating type and has no quantization groups")
        if group_size < 1 or overhead_bytes < 0:
            raise InputError("group size must be >= 1 and overhead >= 0 bytes")
        return replace(self, group_size=group_size, group_overhead_bytes=overhead_bytes)


_TABLE: tuple[tuple[DType, tuple[str, ...]], ...] = (
    (DType("float32", 32, True), ("fp32", "float", "torch.float32", "f32")),
    (DType("float16", 16, True), ("fp16", "half", "torch.float16", "f16")),
    (DType("bfloat16", 16, True), ("bf16", "torch.bfloat16")),
    (DType("fp8_e4m3", 8, True), ("fp8", "float8", "float8_e4m3fn", "fp8_e4m3fn", "e4m3", "torch.float8_e4m3fn")),
    (DType("fp8_e5m2", 8, True), ("float8_e5m2", "e5m2", "torch.float8_e5m2")),
    (DType("int8", 8, False, 64, 4), ("i8", "q8")),
    (DType("int4", 4, False, 64, 4), ("i4", "q4")),
    (DType("int2", 2, False, 64, 4), ("i2", "q2")),
)

DTYPES: dict[str, DType] = {d.name: d for d, _ in _TABLE}
_ALIASES: dict[str, str] = {}
for _d, _names in _TABLE:
    _ALIASES[_d.name] = _d.name
    for _n in _names:
        _ALIASES[_n] = _d.name

FLOAT32 = DTYPES["float32"]
BFLOAT16 = DTYPES["bfloat16"]


def dtype_names() -> list[str]:
    """Canonical names, widest first (the order of the table above).

    >>> dtype_names()
    ['float32', 'float16', 'bfloat16', 'fp8_e4m3', 'fp8_e5m2', 'int8', 'int4', 'int2']
    """
    return list(DTYPES)


def get_dtype(name: "str | DType") -> DType:
    """Resolve a dtype name or alias (case-insensitive) to its table entry; raise InputError if unknown.

    PyTorch's ``torch.float8_e4m3fn`` and vLLM's ``fp8`` are the same 8-bit e4m3 type:

    >>> get_dtype("BF16").name, get_dtype("torch.float8_e4m3fn") is get_dtype("fp8")
    ('bfloat16', True)
    """
    if isinstance(name, DType):
        return name
    if not isinstance(name, str):
        raise InputError(f"dtype must be a string, got {type(name).__name__}")
    key = name.strip().lower()
    if key not in _ALIASES:
        raise InputError(f"unknown dtype '{name[:40]}'; known: {', '.join(DTYPES)}")
    return DTYPES[_ALIASES[key]]


def is_known_dtype(name: object) -> bool:
    """Whether ``name`` is a dtype name or alias of the table (no error for anything else).

    >>> is_known_dtype("fp16"), is_known_dtype("int3"), is_known_dtype(16)
    (True, False, False)
    """
    return isinstance(name, str) and name.strip().lower() in _ALIASES


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for integers, exactly (no float): 7 / 2 = 3.5 rounds up to 4, 8 / 2 = 4 stays;
    2**60 + 1 over 2 is 2**59 + 1 where a float division would lose the 1.

    >>> ceil_div(7, 2), ceil_div(8, 2), ceil_div(2**60 + 1, 2) == 2**59 + 1
    (4, 4, True)
    """
    return -(-a // b)


SAFETENSORS_DTYPE_BITS: dict[str, int] = {
    "F64": 64, "I64": 64, "U64": 64,
    "F32": 32, "I32": 32, "U32": 32,
    "F16": 16, "BF16": 16, "I16": 16, "U16": 16,
    "F8_E4M3": 8, "F8_E5M2": 8, "F8_E8M0": 8, "I8": 8, "U8": 8, "BOOL": 8,
    "F6_E2M3": 6, "F6_E3M2": 6, "F4": 4,
}
"""Bits per element of each safetensors dtype, under the names the Hub's ``safetensors.parameters``
uses (kvcalc.hub sizes checkpoints with it)."""

