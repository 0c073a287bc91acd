"""Counts a .gguf header claims are bounded by what the file can hold, before anything is allocated (issue 26).

The crafted files are written byte by byte per ggml ``docs/gguf.md`` (tests/gguf_writer.py); the
bounds are hand arithmetic: a metadata entry takes at least 8 (key length) + 4 (type) + 1 (a u8)
= 13 bytes, a tensor entry 8 + 4 + 8 + 4 + 8 = 32, a string array element 8, and every llama.cpp
block ``blk.N`` has tensors, so ``block_count`` cannot exceed the tensor count.
"""
from __future__ import annotations

import struct
import tracemalloc

import pytest
from gguf_writer import gguf, gstr, kv_str, kv_u32, kv_u64, llama_like, tensor

from kvcalc.cli import main
from kvcalc.errors import InputError
from kvcalc.gguf.mixes import GgufWeights
from kvcalc.gguf.reader import GGUFHeader, read_gguf_header

LLAMA_8B = "meta-llama/Llama-3.1-8B"
PEAK_MIB = 8          # every crafted file below is parsed (and refused) within this much Python memory


def _block_count_2_63() -> bytes:
    """The issue's 106-byte file: architecture llama, block_count 2**63 (u64), no tensors."""
    return gguf([kv_str("general.architecture", "llama"), kv_u64("llama.block_count", 2**63)], [], pad=False)


def _block_count_u32_max() -> bytes:
    """block_count 2**32 - 1 in a file with one tensor (an F32 norm of 32 values, its data present)."""
    return gguf([kv_str("general.architecture", "llama"), kv_u32("llama.block_count", 2**32 - 1)],
                [tensor("blk.0.attn_norm.weight", (32,), 0, 0)], data_bytes=128)


def _peak_mib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak / 2**20


def _refused(blob: bytes, **kw) -> str:
    def parse() -> None:
        header = read_gguf_header(blob, **kw)
        header.as_weights()
    with pytest.raises(InputError) as e:
        assert _peak_mib(parse) < PEAK_MIB
    return str(e.value)


def test_the_issue_file_is_106_bytes_and_refused_with_bounded_memory() -> None:
    blob = _block_count_2_63()
    assert len(blob) == 24 + (8 + 20 + 4 + 8 + 5) + (8 + 17 + 4 + 8) == 106     # fixed part + the two entries
    for kw in ({}, {"file_size": len(blob)}):
        assert "no tensors" in _refused(blob, **kw)


def test_block_count_beyond_the_tensor_count_names_the_field() -> None:
    blob = _block_count_u32_max()
    msg = _refused(blob, file_size=len(blob))
    assert "llama.block_count = 4,294,967,295" in msg and "1 tensors" in msg


def test_as_weights_bounds_block_count_on_a_header_built_directly() -> None:
    """A GGUFHeader built in code (not parsed) is checked too, before the per-block tuple is made."""
    good = read_gguf_header(llama_like(blocks=2))
    forged = GGUFHeader(version=3, metadata={**good.metadata, "llama.block_count": 2**63}, tensors=good.tensors,
                        alignment=32, data_offset=good.data_offset)
    with pytest.raises(InputError, match="llama.block_count"):
        assert _peak_mib(forged.as_weights) < PEAK_MIB
    assert good.as_weights().layer_bytes == (1024 + 4 * 8 * 34,) * 2     # F32 norm + Q8_0 256 x 4


@pytest.mark.parametrize(("blob", "field"), [
    # 2**40 metadata entries x 13 bytes cannot fit in a 64-byte file (the cap check says 'announces' first
    # above 65,536, so stay under it: 60,000 x 13 = 780,000 bytes > the file)
    (gguf([], [], n_kv=60_000), "metadata count is 60,000"),
    (gguf([kv_str("general.architecture", "llama")], [], n_tensors=60_000), "tensor count is 60,000"),
    (gguf([gstr("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 1 << 24)], [tensor("t", (32,), 0, 0)]),
     "count is 16,777,216"),
    (gguf([gstr("tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, 1 << 20)], [tensor("t", (32,), 0, 0)]),
     "count is 1,048,576"),
])
def test_counts_are_bounded_by_the_file_size(blob: bytes, field: str) -> None:
    msg = _refused(blob, file_size=len(blob))
    assert field in msg and "bytes left in the file" in msg


def test_a_prefix_without_a_size_is_still_called_truncated() -> None:
    """Without the file size (an upload of the first MiBs), a count the prefix cannot hold is a cut
    header, as before: the message asks for more of the file."""
    blob = llama_like(blocks=2, vocab=64)
    assert "truncated" in _refused(blob[:200])


@pytest.mark.parametrize("name", ["blk.\u00b2.attn_q.weight", "blk." + "9" * 5000 + ".attn_q.weight"])
def test_block_names_that_are_not_ascii_block_numbers_are_not_blocks(name: str) -> None:
    """``'\u00b2'.isdigit()`` is True but int() refuses it; a 5,000-digit index exceeds int()'s digit limit."""
    blob = gguf([kv_str("general.architecture", "llama")], [tensor(name, (32,), 0, 0)], data_bytes=128)
    w = read_gguf_header(blob, file_size=len(blob)).as_weights()
    assert w.layer_bytes == () and w.output_bytes == 128


def test_weights_without_tensors_have_no_bits_per_weight() -> None:
    empty = GgufWeights("F16", (), (), 0, 0, "exact")
    with pytest.raises(InputError, match="no tensors"):
        _ = empty.bits_per_weight


@pytest.mark.parametrize("make", [_block_count_2_63, _block_count_u32_max])
def test_cli_exits_2_with_one_line(make, tmp_path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = tmp_path / "crafted.gguf"
    path.write_bytes(make())
    assert main(["plan", LLAMA_8B, "--offline", "--runtime", "llama_cpp", "--gpu", "h100-sxm",
                 "--gguf", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err


def test_tensor_sizes_are_bounded_without_the_file_size() -> None:
    """An upload is a prefix (no file size), so a tensor's claimed size is bounded on its own: at most
    2^63 - 1 values (llama.cpp gguf.cpp refuses an element count that overflows int64) and all tensors
    at most 2^50 bytes (deploy's checkpoint bound); 4 dims of 2^40 F32 values = 2^162 bytes."""
    arch = [kv_str("general.architecture", "llama"), kv_u32("llama.block_count", 1)]
    huge = gguf(arch, [tensor("blk.0.attn_q.weight", (2**40,) * 4, 0, 0)])
    assert "2^50 bytes" in _refused(huge)
    many = gguf(arch, [tensor(f"blk.0.t{i}.weight", (2**40, 2**8), 0, 0) for i in range(2)])   # 2 x 2^50 B
    assert "tensor 'blk.0.t1.weight'" in _refused(many)
