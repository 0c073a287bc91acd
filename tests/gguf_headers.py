"""Synthetic GGUF headers written byte by byte per ggml's docs/gguf.md (little-endian, version 3): the
pieces (strings, key/value pairs, tensor infos) and a tiny two-block llama header, for the reader tests
(tests/fast/test_gguf.py) and the upload test in the browser (tests/browser/test_browser_engines.py)."""
from __future__ import annotations

import struct


def gguf_string(s: str) -> bytes:
    """A GGUF string: uint64 length, then the UTF-8 bytes."""
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv_u32(key: str, v: int) -> bytes:
    """A key/value pair of type 4 (uint32)."""
    return gguf_string(key) + struct.pack("<I", 4) + struct.pack("<I", v)


def kv_str(key: str, v: str) -> bytes:
    """A key/value pair of type 8 (string)."""
    return gguf_string(key) + struct.pack("<I", 8) + gguf_string(v)


def tensor_info(name: str, dims: tuple[int, ...], gtype: int, offset: int) -> bytes:
    """A tensor info: name, dimension count, dimensions, ggml type, data offset (bytes)."""
    return gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + \
        struct.pack("<IQ", gtype, offset)


def header(kvs: list[bytes], tensors: list[bytes], version: int = 3) -> bytes:
    """Magic, version, tensor count, key/value count, then the pairs and the tensor infos."""
    return b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)) + b"".join(kvs) + b"".join(tensors)


def tiny_header() -> bytes:
    """A 2-block llama header (2 KV heads, 4,096 context, file type 15 = Q4_K_M) over a 100-token vocabulary,
    with five tensors of four ggml types."""
    vocab = gguf_string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 100) + \
        b"".join(gguf_string(f"t{i}") for i in range(100))
    kvs = [kv_str("general.architecture", "llama"), kv_u32("llama.block_count", 2),
           kv_u32("llama.attention.head_count_kv", 2), kv_u32("llama.context_length", 4096),
           kv_u32("general.file_type", 15), vocab]
    tensors = [tensor_info("token_embd.weight", (256, 100), 12, 0),          # Q4_K: 100 rows x 144 B
               tensor_info("blk.0.attn_v.weight", (256, 64), 14, 14400),     # Q6_K: 64 x 210 B
               tensor_info("blk.1.attn_v.weight", (256, 64), 12, 27872),     # Q4_K: 64 x 144 B
               tensor_info("blk.1.attn_norm.weight", (256,), 0, 37088),      # F32: 1 KiB
               tensor_info("output.weight", (256, 100), 8, 38112)]           # Q8_0: 100 x 8 blocks x 34 B
    return header(kvs, tensors)
