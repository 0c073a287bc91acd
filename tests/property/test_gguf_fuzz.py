"""Fuzz of the GGUF header reader (hypothesis, derandomized): every mutated real-shaped header either parses
or raises kvcalc's typed error, within a memory and a time bound (issue 26).

Seeds are real-shaped llama headers (tests/gguf_writer.py, laid out per ggml ``docs/gguf.md``: geometry
keys, a token list, per-block norm + Q8_0 tensors, the tensor data as zeros). Mutations: a u32 / u64
field overwritten with a boundary value (0, 1, 2^31, 2^32 - 1, 2^63, 2^64 - 1, ...), byte flips,
truncation, inserted or deleted bytes; each read with and without the file size. A parsed header is
also turned into plan weights (``as_weights``, the step that once built one entry per claimed block).
Bounds per case: tracemalloc peak under :data:`PEAK_MIB` MiB, :data:`CASE_SECONDS` s.
"""
from __future__ import annotations

import struct
import time
import tracemalloc

from gguf_writer import llama_like
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kvcalc.errors import KVCalcError
from kvcalc.gguf.reader import read_gguf_header

PEAK_MIB = 16          # a seed is ~20 KiB; the reader's own structures stay far below this
CASE_SECONDS = 2.0     # one case (two parses) on a loaded 2-core machine; typically milliseconds
SETTINGS = settings(max_examples=1000, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SEEDS = [llama_like(blocks=1, vocab=4), llama_like(blocks=2, vocab=16), llama_like(blocks=4, vocab=80)]
BOUNDARY = [0, 1, 2, 4, 13, 32, 255, 2**16, 2**24, 2**31, 2**32 - 1, 2**40, 2**63, 2**64 - 1]

field = st.tuples(st.sampled_from(["<I", "<Q"]), st.integers(0, 30_000),
                  st.one_of(st.sampled_from(BOUNDARY), st.integers(0, 2**64 - 1)))
mutation = st.one_of(
    st.tuples(st.just("field"), field),
    st.tuples(st.just("flip"), st.tuples(st.integers(0, 30_000), st.integers(1, 255))),
    st.tuples(st.just("cut"), st.integers(0, 30_000)),
    st.tuples(st.just("insert"), st.tuples(st.integers(0, 30_000), st.binary(min_size=1, max_size=16))),
    st.tuples(st.just("delete"), st.tuples(st.integers(0, 30_000), st.integers(1, 16))),
)


def _mutate(blob: bytes, kind: str, arg) -> bytes:  # type: ignore[no-untyped-def]
    b = bytearray(blob)
    if not b:
        return blob
    if kind == "field":
        fmt, at, value = arg
        at %= max(len(b) - 8, 1)
        b[at:at + struct.calcsize(fmt)] = struct.pack(fmt, value % (1 << (8 * struct.calcsize(fmt))))
    elif kind == "flip":
        at, mask = arg
        b[at % len(b)] ^= mask
    elif kind == "cut":
        del b[arg % len(b):]
    elif kind == "insert":
        at, data = arg
        b[at % len(b):at % len(b)] = data
    else:
        at, n = arg
        del b[at % len(b):at % len(b) + n]
    return bytes(b)


def _outcome(blob: bytes, file_size: int | None) -> str:
    try:
        header = read_gguf_header(blob, file_size=file_size)
        w = header.as_weights()
        assert w.total_bytes == header.weight_bytes >= 0 and len(w.layer_bytes) <= len(header.tensors)
        header.geometry()
        return "parsed"
    except KVCalcError:
        return "refused"


@SETTINGS
@given(seed=st.sampled_from(SEEDS), mutations=st.lists(mutation, min_size=1, max_size=4))
def test_mutated_headers_parse_or_raise_the_typed_error_within_bounds(seed: bytes, mutations: list) -> None:
    blob = seed
    for kind, arg in mutations:
        blob = _mutate(blob, kind, arg)
    start = time.monotonic()
    tracemalloc.start()
    try:
        for size in (None, len(blob)):
            _outcome(blob, size)           # any other exception (MemoryError, ZeroDivisionError...) fails here
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < PEAK_MIB * 2**20, f"{peak / 2**20:.1f} MiB"
    assert time.monotonic() - start < CASE_SECONDS


def test_the_seeds_parse_and_the_fuzz_is_large_enough() -> None:
    assert all(_outcome(s, len(s)) == "parsed" for s in SEEDS)
    assert SETTINGS.max_examples >= 1000
