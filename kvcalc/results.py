"""Result types of the KV-cache calculation (kvcalc.kv, kvcalc.vllm): plain frozen records, no logic."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LayerBytes:
    """Bytes one layer's cache holds: ``tokens`` is the number of tokens it keeps per sequence."""

    index: int
    kind: str
    tokens: int
    bytes: int


@dataclass(frozen=True)
class KVCacheResult:
    """Total and per-layer cache bytes for one (model, batch, context, dtype, runtime)."""

    total_bytes: int
    layers: tuple[LayerBytes, ...]
    runtime: str
    batch: int
    context: int
    encoder_tokens: int
    dtype: str
    kv_dtype: str
    model_type: str
    bytes_per_token: int            # bytes one more token adds at batch 1 while below every window
    fields_used: tuple[str, ...]
    warnings: tuple[str, ...]
    quality: str = "exact"          # kvcalc.spec.Quality of the model's rules ("estimated": see warnings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total_bytes": self.total_bytes,
            "layers": [{"index": l.index, "kind": l.kind, "tokens": l.tokens, "bytes": l.bytes} for l in self.layers],
            "runtime": self.runtime, "batch": self.batch, "context": self.context,
            "encoder_tokens": self.encoder_tokens, "dtype": self.dtype, "kv_dtype": self.kv_dtype,
            "model_type": self.model_type, "bytes_per_token": self.bytes_per_token,
            "fields_used": list(self.fields_used), "warnings": list(self.warnings), "quality": self.quality,
        }
