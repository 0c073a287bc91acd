"""A Hub repository's GGUF header through one range request (kvcalc.hub.gguf_header), on the local fake Hub.

The headers are written byte by byte per ggml ``docs/gguf.md`` (magic, version 3, tensor and metadata
counts, typed key/values, tensor infos); the expected bytes are the declared tensor shapes' arithmetic
(Q8_0: 34 bytes per 32 values, ggml-common.h ``block_q8_0``), never kvcalc's output. No real network.
"""
from __future__ import annotations

import struct

import pytest
from fake_hub import FakeHub, FakeRepo

from kvcalc.errors import InputError
from kvcalc.hub.errors import NoGGUFFileError, RepoNotFoundError
from kvcalc.hub.gguf_header import fetch_gguf_header

MiB = 2**20


def _str(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def _gguf(blocks: int = 4, vocab: int = 0, data_bytes: int = 0) -> bytes:
    """A GGUF v3 file: ``blocks`` Q8_0 tensors of 256 x 16 (16 rows x 8 blocks x 34 B = 4,352 B each), a token list
    of ``vocab`` strings (a big header), then ``data_bytes`` of zeros standing in for the tensor data."""
    kvs = [_str("general.architecture") + struct.pack("<I", 8) + _str("llama"),
           _str("llama.block_count") + struct.pack("<II", 4, blocks)]
    if vocab:
        kvs.append(_str("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, vocab)
                   + b"".join(_str(f"token-{i:07d}") for i in range(vocab)))
    tensors = [_str(f"blk.{i}.attn_q.weight") + struct.pack("<IQQIQ", 2, 256, 16, 8, i * 4_352)
               for i in range(blocks)]
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs) + b"".join(tensors)
    return head + b"\0" * (-len(head) % 32) + b"\0" * data_bytes


@pytest.fixture
def gguf_hub(fake_hub: FakeHub) -> FakeHub:
    fake_hub.repos["acme/tiny-GGUF"] = FakeRepo(files={"tiny-Q8_0.gguf": _gguf(data_bytes=4 * 4_352 + 2 * MiB),
                                                       "big-vocab.gguf": _gguf(vocab=120_000, data_bytes=4 * 4_352)})
    return fake_hub


def test_header_from_a_range_request(gguf_hub: FakeHub) -> None:
    """4 blocks x 16 rows x 8 blocks of 34 B = 17,408 B, from the first MiB of a 2 MiB+ file."""
    header = fetch_gguf_header("acme/tiny-GGUF", "tiny-Q8_0.gguf", max_bytes=1 * MiB)
    assert header.weight_bytes == 4 * 16 * 8 * 34 == 17_408
    assert header.as_weights().layer_bytes == (4_352,) * 4
    assert [(r.method, r.path) for r in gguf_hub.requests] == [("GET", "/acme/tiny-GGUF/resolve/main/tiny-Q8_0.gguf")]


def test_a_header_longer_than_the_range_says_so(gguf_hub: FakeHub) -> None:
    """120,000 tokens of 21 bytes each (8-byte length + 13 characters) make a 2.4 MiB header."""
    with pytest.raises(InputError, match="longer than the 1 MiB read"):
        fetch_gguf_header("acme/tiny-GGUF", "big-vocab.gguf", max_bytes=1 * MiB)
    assert fetch_gguf_header("acme/tiny-GGUF", "big-vocab.gguf", max_bytes=4 * MiB).weight_bytes == 17_408


@pytest.mark.parametrize("name", ["../config.json", "/etc/passwd.gguf", "https://evil.example/x.gguf",
                                  "model.bin", "a/../../b.gguf", "x\n.gguf", ""])
def test_file_names_are_checked_before_any_request(gguf_hub: FakeHub, name: str) -> None:
    with pytest.raises(InputError, match="not a .gguf file name"):
        fetch_gguf_header("acme/tiny-GGUF", name)
    assert gguf_hub.requests == []


def test_missing_file_and_repo_are_typed(gguf_hub: FakeHub) -> None:
    with pytest.raises(NoGGUFFileError, match="has no file 'absent.gguf'"):
        fetch_gguf_header("acme/tiny-GGUF", "absent.gguf")
    with pytest.raises(RepoNotFoundError):
        fetch_gguf_header("acme/nothing-here", "x.gguf")


def test_range_size_is_bounded() -> None:
    with pytest.raises(InputError, match="from 1 MiB to 64 MiB"):
        fetch_gguf_header("acme/tiny-GGUF", "tiny-Q8_0.gguf", max_bytes=1 << 30)


def test_cli_reads_a_hub_gguf_header(gguf_hub: FakeHub, capsys: pytest.CaptureFixture[str]) -> None:
    """``--gguf hf://ORG/REPO/FILE`` plans with the header's exact bytes (a 4-block geometry stand-in)."""
    import json

    from kvcalc.cli import main

    gguf_hub.repos["acme/tiny-GGUF"].files["llama-32.gguf"] = _gguf(blocks=32, data_bytes=32 * 4_352)
    code = main(["plan", "meta-llama/Llama-3.1-8B", "--runtime", "llama_cpp", "--gpu", "4090", "-c", "4096",
                 "--gguf", "hf://acme/tiny-GGUF/llama-32.gguf", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["weights_bytes_total"] == 32 * 4_352
    assert main(["plan", "meta-llama/Llama-3.1-8B", "--offline", "--runtime", "llama_cpp", "--gguf",
                 "hf://acme/tiny-GGUF/llama-32.gguf"]) == 2
