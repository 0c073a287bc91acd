"""One GGUF tensor: name, dimensions (ggml order: ``dims[0]`` = values per row), type, and its bytes."""
from __future__ import annotations

from dataclasses import dataclass
from math import prod

from .types import GGMLType


@dataclass(frozen=True)
class TensorInfo:
    """A tensor as the GGUF tensor-info table describes it (``offset`` from the start of the data section).

    ``nbytes = dims[0] / block_size * type_size * prod(dims[1:])`` (ggml ``ggml_nbytes`` of a
    contiguous tensor)."""

    name: str
    dims: tuple[int, ...]
    type: GGMLType
    offset: int = 0

    @property
    def elements(self) -> int:
        return prod(self.dims) if self.dims else 1

    @property
    def nbytes(self) -> int:
        cols = self.dims[0] if self.dims else 1
        rows = prod(self.dims[1:]) if len(self.dims) > 1 else 1
        return self.type.row_bytes(cols) * rows
