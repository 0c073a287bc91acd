"""Files written by ggml's own ``gguf`` package (``GGUFWriter``, PyPI ``gguf``) through the reader (issue 26):
a valid file gives the tensor bytes ``gguf.GGML_QUANT_SIZES`` says, and crafted counts (block_count
2^32 - 1 with one tensor, 2^63, no tensors) are typed errors. Skipped where the package is not installed
(tests/fast/test_gguf_bounds.py covers the same files written with struct)."""
from __future__ import annotations

import os

import pytest

from kvcalc.errors import InputError
from kvcalc.gguf.reader import read_gguf_header

gguf = pytest.importorskip("gguf")
np = pytest.importorskip("numpy")


def _write(path: str, block_count: int | None, tensors: int, *, u64: bool = False) -> bytes:
    w = gguf.GGUFWriter(path, "llama")
    if block_count is not None:
        if u64:
            w.add_uint64("llama.block_count", block_count)
        else:
            w.add_block_count(block_count)
    if tensors:
        w.add_tensor("token_embd.weight", np.zeros((16, 64), dtype=np.float16))
    for i in range(tensors - 1):
        w.add_tensor(f"blk.{i}.attn_q.weight", gguf.quants.quantize(np.zeros((8, 64), dtype=np.float32),
                                                                    gguf.GGMLQuantizationType.Q8_0),
                     raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    with open(path, "rb") as f:
        return f.read()


def test_a_gguf_package_file_gives_its_own_tensor_bytes(tmp_path) -> None:
    blob = _write(str(tmp_path / "ok.gguf"), 2, 3)
    h = read_gguf_header(blob, file_size=len(blob))
    block, size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType.Q8_0]
    q8_row = 64 // block * size
    assert {t.name: t.nbytes for t in h.tensors} == {
        "token_embd.weight": 16 * 64 * 2, "blk.0.attn_q.weight": 8 * q8_row, "blk.1.attn_q.weight": 8 * q8_row}
    assert h.as_weights().layer_bytes == (8 * q8_row, 8 * q8_row)


@pytest.mark.parametrize(("block_count", "tensors", "u64", "words"), [
    (2**32 - 1, 1, False, "llama.block_count = 4,294,967,295"),
    (2**63, 1, True, "llama.block_count = 9,223,372,036,854,775,808"),
    (2**63, 0, True, "no tensors"),
    (None, 0, False, "no tensors"),
])
def test_crafted_counts_in_gguf_package_files_are_typed_errors(tmp_path, block_count: int | None, tensors: int,
                                                              u64: bool, words: str) -> None:
    blob = _write(str(tmp_path / "bad.gguf"), block_count, tensors, u64=u64)
    for size in (None, len(blob)):
        with pytest.raises(InputError, match=words):
            read_gguf_header(blob, file_size=size).as_weights()
    assert os.path.getsize(tmp_path / "bad.gguf") == len(blob)
