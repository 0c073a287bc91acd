"""ggml tensor types: id, block size and bytes per block (the GGUF ``ggml_type`` field).

Bytes of a row of ``n`` values of type ``t`` (ggml ``ggml_row_size``)::

    n / t.block_size * t.type_size        (n must be a multiple of the block size)

Sources (ggml-org/llama.cpp, read, not copied):

* ids: ``ggml/include/ggml.h`` ``enum ggml_type`` (ids 4, 5, 31-33 and 36-38 were removed upstream and
  are unknown here, so a file using them is refused).
* block layouts: ``ggml/src/ggml-common.h`` (commit 01243c587feceaa5d6a6c2305535ef2f549c48b8), the
  ``static_assert(sizeof(block_...))`` of each struct, with ``ggml_half`` = 2 bytes and ``QK_K`` = 256:
  ``block_q4_0`` = 2 + 32/2 = 18 bytes per 32, ``block_q8_0`` = 2 + 32 = 34 / 32,
  ``block_q2_K`` = 2*2 + 256/16 + 256/4 = 84 / 256, ``block_q3_K`` = 2 + 256/4 + 256/8 + 12 = 110 / 256,
  ``block_q4_K`` = 2*2 + 12 + 256/2 = 144 / 256, ``block_q5_K`` = 2*2 + 12 + 256/2 + 256/8 = 176 / 256,
  ``block_q6_K`` = 2 + 256/16 + 3*256/4 = 210 / 256, and so on in the table below.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError, UnsupportedError


@dataclass(frozen=True)
class GGMLType:
    """One ggml tensor type: ``type_size`` bytes hold ``block_size`` values."""

    id: int
    name: str
    block_size: int
    type_size: int
    quantized: bool

    @property
    def bits_per_weight(self) -> float:
        """Average bits per value, scales included (e.g. Q4_K: 144 * 8 / 256 = 4.5)."""
        return self.type_size * 8 / self.block_size

    def row_bytes(self, n: int) -> int:
        """Bytes of ``n`` values (ggml ``ggml_row_size``); ``n`` must fill whole blocks."""
        if n < 0 or n % self.block_size:
            raise InputError(f"{n} values do not fill whole {self.name} blocks of {self.block_size}")
        return n // self.block_size * self.type_size


QK_K = 256

_TABLE: tuple[GGMLType, ...] = (
    GGMLType(0, "F32", 1, 4, False),
    GGMLType(1, "F16", 1, 2, False),
    GGMLType(2, "Q4_0", 32, 18, True),          # d (half) + 16 nibble bytes
    GGMLType(3, "Q4_1", 32, 20, True),          # d, m (half) + 16
    GGMLType(6, "Q5_0", 32, 22, True),          # d + qh[4] + 16
    GGMLType(7, "Q5_1", 32, 24, True),          # d, m + qh[4] + 16
    GGMLType(8, "Q8_0", 32, 34, True),          # d + 32 int8
    GGMLType(9, "Q8_1", 32, 36, True),          # d, s + 32 int8
    GGMLType(10, "Q2_K", QK_K, 84, True),
    GGMLType(11, "Q3_K", QK_K, 110, True),
    GGMLType(12, "Q4_K", QK_K, 144, True),
    GGMLType(13, "Q5_K", QK_K, 176, True),
    GGMLType(14, "Q6_K", QK_K, 210, True),
    GGMLType(15, "Q8_K", QK_K, 292, True),      # float d + 256 int8 + 16 int16 bsums
    GGMLType(16, "IQ2_XXS", QK_K, 66, True),    # d + 32 uint16
    GGMLType(17, "IQ2_XS", QK_K, 74, True),     # d + 32 uint16 + 8 scales
    GGMLType(18, "IQ3_XXS", QK_K, 98, True),    # d + 3*256/8
    GGMLType(19, "IQ1_S", QK_K, 50, True),      # d + 32 + 16
    GGMLType(20, "IQ4_NL", 32, 18, True),       # d + 16
    GGMLType(21, "IQ3_S", QK_K, 110, True),     # d + 13*8 + 4
    GGMLType(22, "IQ2_S", QK_K, 82, True),      # d + 64 + 16
    GGMLType(23, "IQ4_XS", QK_K, 136, True),    # d + scales_h (2) + 4 + 128
    GGMLType(24, "I8", 1, 1, False),
    GGMLType(25, "I16", 1, 2, False),
    GGMLType(26, "I32", 1, 4, False),
    GGMLType(27, "I64", 1, 8, False),
    GGMLType(28, "F64", 1, 8, False),
    GGMLType(29, "IQ1_M", QK_K, 56, True),      # 32 + 16 + 8
    GGMLType(30, "BF16", 1, 2, False),
    GGMLType(34, "TQ1_0", QK_K, 54, True),      # (256 - 4*4)/5 + 4 + d
    GGMLType(35, "TQ2_0", QK_K, 66, True),      # 64 + d
    GGMLType(39, "MXFP4", 32, 17, True),        # e8m0 + 16
)

GGML_TYPES: dict[str, GGMLType] = {t.name: t for t in _TABLE}
_BY_ID: dict[int, GGMLType] = {t.id: t for t in _TABLE}


def ggml_type(name_or_id: "str | int | GGMLType") -> GGMLType:
    """The type called ``name`` (case-insensitive: ``q8_0``, ``Q4_K``) or with GGUF id ``n``."""
    if isinstance(name_or_id, GGMLType):
        return name_or_id
    if isinstance(name_or_id, bool) or not isinstance(name_or_id, (int, str)):
        raise InputError(f"a ggml type is a name or an id, got {type(name_or_id).__name__}")
    if isinstance(name_or_id, int):
        if name_or_id not in _BY_ID:
            raise UnsupportedError(f"ggml type id {name_or_id} is not a type kvcalc knows "
                                   f"(removed upstream or newer than ggml.h's MXFP4 = 39)")
        return _BY_ID[name_or_id]
    key = name_or_id.strip().upper()
    if key not in GGML_TYPES:
        raise InputError(f"unknown ggml type '{name_or_id[:20]}'; known: {', '.join(GGML_TYPES)}")
    return GGML_TYPES[key]
