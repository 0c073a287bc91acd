"""GGUF MXFP4 (gpt-oss's format) against llama.cpp's own loader (tests/fixtures/llama_cpp_weights_oracle.json).

The fixture is llama.cpp's output (tests/oracles/llama_cpp_fit_oracle.py --weights, commit in the fixture): two
MoE models' header-only GGUFs written as ``MXFP4_MOE`` files (merged experts MXFP4, other matrices Q8_0, as
``src/llama-quant.cpp`` ``llama_tensor_get_type_impl`` picks them), loaded with ``no_alloc``, and the model bytes
``llama_get_memory_breakdown`` reports. kvcalc's header reader must count the same bytes from the table, which
checks its MXFP4 type size (``block_mxfp4``: one E8M0 scale byte + 16 bytes for 32 FP4 values).
"""
from __future__ import annotations

from typing import Any

import pytest
from paths import load_fixture

from kvcalc.gguf.reader import GGUFHeader
from kvcalc.gguf.tensor import TensorInfo
from kvcalc.gguf.types import ggml_type

FIXTURE: dict[str, Any] = load_fixture("llama_cpp_weights_oracle.json")
CASES: list[dict[str, Any]] = FIXTURE["cases"]


def _header(c: dict[str, Any]) -> GGUFHeader:
    arch = c["architecture"]
    tensors = tuple(TensorInfo(n, tuple(d), ggml_type(k)) for n, d, k in c["tensors"])
    return GGUFHeader(version=3, metadata={"general.architecture": arch, f"{arch}.block_count": c["block_count"]},
                      tensors=tensors, alignment=32, data_offset=0)


def test_mxfp4_block_is_17_bytes_per_32() -> None:
    assert ggml_type("MXFP4").row_bytes(2880) == 2880 // 32 * (1 + 16) == 1530


@pytest.mark.parametrize("c", CASES, ids=[c["model"] for c in CASES])
def test_header_bytes_equal_llama_cpp_model_bytes(c: dict[str, Any]) -> None:
    assert any(k == "MXFP4" for _, _, k in c["tensors"])
    assert _header(c).as_weights().total_bytes == c["llama_model_bytes"]
