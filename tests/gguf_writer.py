"""GGUF bytes written field by field per ggml ``docs/gguf.md`` (little-endian; v3): the crafted and
real-shaped headers the reader tests feed kvcalc.gguf.reader, and the tiny header the browser test uploads."""
from __future__ import annotations

import struct

U32, I32, F32, STRING, ARRAY, U64 = 4, 5, 6, 8, 9, 10


def gstr(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv_u32(key: str, v: int) -> bytes:
    return gstr(key) + struct.pack("<II", U32, v)


def kv_u64(key: str, v: int) -> bytes:
    return gstr(key) + struct.pack("<IQ", U64, v)


def kv_str(key: str, v: str) -> bytes:
    return gstr(key) + struct.pack("<I", STRING) + gstr(v)


def kv_f32(key: str, v: float) -> bytes:
    return gstr(key) + struct.pack("<If", F32, v)


def kv_strings(key: str, items: list[str]) -> bytes:
    return gstr(key) + struct.pack("<IIQ", ARRAY, STRING, len(items)) + b"".join(gstr(x) for x in items)


def tensor(name: str, dims: tuple[int, ...], gtype: int, offset: int) -> bytes:
    return gstr(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + \
        struct.pack("<IQ", gtype, offset)


def gguf(kvs: list[bytes], tensors: list[bytes], *, n_tensors: int | None = None, n_kv: int | None = None,
         data_bytes: int = 0, pad: bool = True) -> bytes:
    """A whole file: header (counts as given, else the lists' lengths), padding to 32 (unless ``pad`` is
    False), ``data_bytes`` zeros."""
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors) if n_tensors is None else n_tensors,
                                 len(kvs) if n_kv is None else n_kv) + b"".join(kvs) + b"".join(tensors)
    return head + b"\0" * (-len(head) % 32 if pad else 0) + b"\0" * data_bytes


def llama_like(blocks: int = 2, vocab: int = 16) -> bytes:
    """A real-shaped llama header: architecture, geometry keys, a token list, per block attn_norm (F32) +
    attn_q (Q8_0, 256 x 4), token_embd and output (F16 256 x vocab); the tensor data present as zeros."""
    kvs = [kv_str("general.architecture", "llama"), kv_str("general.name", "tiny"), kv_u32("general.file_type", 7),
           kv_u32("llama.block_count", blocks), kv_u32("llama.context_length", 4096),
           kv_u32("llama.embedding_length", 256), kv_u32("llama.attention.head_count", 4),
           kv_u32("llama.attention.head_count_kv", 2), kv_f32("llama.rope.freq_base", 10000.0),
           kv_strings("tokenizer.ggml.tokens", [f"t{i}" for i in range(vocab)])]
    specs: list[tuple[str, tuple[int, ...], int, int]] = [("token_embd.weight", (256, vocab), 1, 512 * vocab)]
    for i in range(blocks):
        specs += [(f"blk.{i}.attn_norm.weight", (256,), 0, 1024), (f"blk.{i}.attn_q.weight", (256, 4), 8, 4 * 272)]
    specs.append(("output.weight", (256, vocab), 1, 512 * vocab))
    tensors, offset = [], 0
    for name, dims, gtype, nbytes in specs:
        tensors.append(tensor(name, dims, gtype, offset))
        offset += -(-nbytes // 32) * 32
    return gguf(kvs, tensors, data_bytes=offset)


def tiny_header() -> bytes:
    """A 2-block llama header alone (2 KV heads, 4,096 context, file type 15 = Q4_K_M, a 100-token vocabulary),
    no padding and no tensor data: five tensors of four ggml types."""
    vocab = gstr("tokenizer.ggml.tokens") + struct.pack("<IIQ", ARRAY, STRING, 100) + \
        b"".join(gstr(f"t{i}") for i in range(100))
    kvs = [kv_str("general.architecture", "llama"), kv_u32("llama.block_count", 2),
           kv_u32("llama.attention.head_count_kv", 2), kv_u32("llama.context_length", 4096),
           kv_u32("general.file_type", 15), vocab]
    tensors = [tensor("token_embd.weight", (256, 100), 12, 0),          # Q4_K: 100 rows x 144 B
               tensor("blk.0.attn_v.weight", (256, 64), 14, 14400),     # Q6_K: 64 x 210 B
               tensor("blk.1.attn_v.weight", (256, 64), 12, 27872),     # Q4_K: 64 x 144 B
               tensor("blk.1.attn_norm.weight", (256,), 0, 37088),      # F32: 1 KiB
               tensor("output.weight", (256, 100), 8, 38112)]           # Q8_0: 100 x 8 blocks x 34 B
    return gguf(kvs, tensors, pad=False)
