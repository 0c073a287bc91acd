"""GGUF weights: ggml block sizes (ggml/src/ggml-common.h), llama.cpp's file-type mixes against public
loader logs (tests/fixtures/engine_logs/llama_cpp.json), and the header reader on synthetic headers
written per ggml's docs/gguf.md (magic, version, counts, typed KV pairs, tensor infos)."""
from __future__ import annotations

import io
import struct

import pytest
from gguf_writer import gguf, gstr, kv_u32, tensor, tiny_header
from paths import load_config, load_fixture

from kvcalc.errors import InputError, UnsupportedError
from kvcalc.gguf.mixes import gguf_weights
from kvcalc.gguf.reader import SkippedArray, read_gguf_header
from kvcalc.gguf.types import ggml_type

LOGS = load_fixture("engine_logs/llama_cpp.json")


def _weights_case(case_id: str) -> dict:
    return next(c for c in LOGS["weights"] if c["id"] == case_id)


@pytest.mark.parametrize(("name", "block", "size"), [
    # sizeof(block_*) from ggml-common.h's static_asserts, ggml_half = 2 bytes, QK_K = 256
    ("Q4_0", 32, 2 + 16), ("Q4_1", 32, 2 * 2 + 16), ("Q5_0", 32, 2 + 4 + 16), ("Q5_1", 32, 2 * 2 + 4 + 16),
    ("Q8_0", 32, 2 + 32), ("Q2_K", 256, 2 * 2 + 16 + 64), ("Q3_K", 256, 2 + 64 + 32 + 12),
    ("Q4_K", 256, 2 * 2 + 12 + 128), ("Q5_K", 256, 2 * 2 + 12 + 128 + 32), ("Q6_K", 256, 2 + 16 + 192),
    ("IQ4_NL", 32, 2 + 16), ("IQ4_XS", 256, 2 + 2 + 4 + 128), ("IQ2_XXS", 256, 2 + 64),
    ("IQ3_S", 256, 2 + 13 * 8 + 4), ("F16", 1, 2), ("BF16", 1, 2), ("F32", 1, 4),
])
def test_block_layouts(name: str, block: int, size: int) -> None:
    t = ggml_type(name)
    assert (t.block_size, t.type_size) == (block, size)


def test_unknown_types_are_refused() -> None:
    with pytest.raises(UnsupportedError):
        ggml_type(4)                       # GGML_TYPE_Q4_2: removed upstream
    with pytest.raises(InputError):
        ggml_type("q9_9")
    with pytest.raises(InputError):
        ggml_type("Q4_K").row_bytes(100)   # not whole 256-value blocks


@pytest.mark.parametrize("case_id", ["llama-3.1-70b-q4_0", "llama-3.3-70b-q3_k_m"])
def test_file_size_matches_ollama_log(case_id: str) -> None:
    """ollama#6279: Llama 3.1 70B Q4_0 'model size = 37.22 GiB (4.53 BPW)'; ollama#10553: Llama 3.3 70B
    Q3_K_M 'file size = 31.91 GiB (3.88 BPW)' (the 70B attn_v rule and Q3_K_M's ffn_down / attn_output
    rules); both 'model params = 70.55 B'."""
    case = _weights_case(case_id)
    w = gguf_weights(load_config(case["config"]), case["file_type"])
    assert f"{sum(t.elements for t in w.tensors) / 1e9:.2f}" == f"{case['pins']['params_b']:.2f}"
    assert f"{w.total_bytes / 2**30:.2f}" == f"{case['pins']['size_gib']:.2f}"
    assert f"{w.bits_per_weight:.2f}" == f"{case['pins']['bpw']:.2f}"
    assert w.quality == "exact"


def test_gemma4_moe_file_counts_its_experts_and_its_dense_mlp() -> None:
    """A public llama-bench record (stored file id 60075637624, 'Measurements, ProArt PX13 - 22 August 2026',
    llama.cpp b10577) of gemma-4-26B_q4_0-it.gguf: 'gemma4 26B.A4B Q4_0 | 13.43 GiB | 25.23 B'. Each of the 30
    blocks holds the dense MLP beside 128 routed experts, and the 5 full-attention blocks have no attn_v
    (attention_k_eq_v; llama.cpp src/models/gemma4.cpp). Before the experts were listed the file came to 1.43 GiB."""
    w = gguf_weights(load_config("google/gemma-4-26B-A4B"), "Q4_0")
    assert f"{sum(t.elements for t in w.tensors) / 1e9:.2f}" == "25.23"
    assert f"{w.total_bytes / 2**30:.2f}" == "13.43"
    assert w.quality == "estimated"      # the tensor list is rebuilt, not read from a header


def test_gemma4_with_its_moe_block_off_is_dense() -> None:
    """transformers' Gemma4TextConfig ignores num_experts / top_k_experts when enable_moe_block is false (the
    gemma-4 dense sizes): the spec has no experts and the GGUF list no ffn_*_exps."""
    from kvcalc.architectures import read_spec

    config = load_config("google/gemma-4-26B-A4B")
    config = {**config, "text_config": {**config["text_config"], "enable_moe_block": False}}
    assert read_spec(config).moe_experts is None
    names = {t.name for t in gguf_weights(config, "Q4_0").tensors}
    assert "blk.0.ffn_gate.weight" in names and not any("_exps" in n for n in names)


def test_f16_size_matches_log() -> None:
    """JamePeng/llama-cpp-python#1: a Qwen2-7B-geometry F16 file, 'file size = 14.19 GiB (16.00 BPW)'."""
    case = next(c for c in LOGS["kv"] if c["id"] == "deepseek-r1-distill-qwen-7b-f16")
    w = gguf_weights(load_config(case["config"]), "F16")
    assert f"{w.total_bytes / 2**30:.2f}" == f"{case['pins']['file_gib']:.2f}"
    assert f"{w.bits_per_weight:.2f}" == f"{case['pins']['bpw']:.2f}"


@pytest.mark.parametrize("case_id", ["llama-3.2-3b-q4_k_m", "gemma-3-27b-iq3_m", "qwen2-7b-f16-types",
                                     "llama-3.3-70b-q3_k_m"])
def test_type_counts_match_loader_log(case_id: str) -> None:
    """Loader logs' '- type X: N tensors'. Llama 3.2 3B Q4_K_M: 58 f32, 168 q4_K, 29 q6_K (attn_v and
    ffn_down in the use_more_bits layers, and the tied token_embd as the output tensor, go to Q6_K).
    gemma-3-27b IQ3_M: attn_v, attn_output and the first n/8 ffn_down go to Q4_K, the tied embedding to
    Q6_K, 6 norms per block + output_norm stay F32. Qwen2 F16: biases and norms F32."""
    case = _weights_case(case_id)
    w = gguf_weights(load_config(case["config"]), case["file_type"])
    assert w.type_counts() == case["pins"]["type_counts"]


def test_q5_k_m_tensor_types_match_loader_log() -> None:
    """A Q5_K_M loader log lists each tensor's type and shape (ggml order: ne[0] first)."""
    case = _weights_case("llama-2-7b-q5_k_m")
    w = gguf_weights(load_config(case["config"]), case["file_type"])
    by_name = {t.name: t for t in w.tensors}
    for name, (tname, dims) in case["pins"]["tensors"].items():
        assert by_name[name].type.name == tname, name
        assert list(by_name[name].dims) == dims, name


def test_unmodelled_file_type_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="IQ2_XXS"):
        gguf_weights(load_config("meta-llama__Llama-3.1-8B.json"), "IQ2_XXS")


# ---- synthetic GGUF headers, written per docs/gguf.md (tests/gguf_writer.py) ----------------------

def _header(kvs: list[bytes], tensors: list[bytes]) -> bytes:
    """A header alone: no padding, no tensor data."""
    return gguf(kvs, tensors, pad=False)


def test_reader_gives_exact_tensor_bytes_and_geometry() -> None:
    h = read_gguf_header(tiny_header())
    assert h.version == 3 and h.architecture == "llama"
    assert h.geometry()["block_count"] == 2 and h.geometry()["attention.head_count_kv"] == 2
    assert isinstance(h.metadata["tokenizer.ggml.tokens"], SkippedArray)
    sizes = {t.name: t.nbytes for t in h.tensors}
    assert sizes == {"token_embd.weight": 100 * 144, "blk.0.attn_v.weight": 64 * 210, "blk.1.attn_v.weight": 64 * 144,
                     "blk.1.attn_norm.weight": 1024, "output.weight": 100 * 8 * 34}
    assert h.data_offset % 32 == 0 and h.data_offset >= h.header_bytes
    w = h.as_weights()
    assert w.layer_bytes == (64 * 210, 64 * 144 + 1024) and w.input_bytes == 14400
    assert w.output_bytes == 100 * 8 * 34 and w.quality == "exact"


def test_reader_reads_a_file_object_without_the_data() -> None:
    data = tiny_header()
    f = io.BytesIO(data + b"\xff" * 1000)      # trailing "tensor data" is never needed
    assert read_gguf_header(f).weight_bytes == read_gguf_header(data).weight_bytes


@pytest.mark.parametrize(("blob", "message"), [
    (b"GGML" + b"\0" * 20, "not a GGUF file"),
    (tiny_header()[:40], "truncated"),
    (b"GGUF" + struct.pack("<IQQ", 3, 1 << 40, 0), "announces"),
    (_header([gstr("k") + struct.pack("<I", 99)], []), "unknown value type"),
    (_header([gstr("k") + struct.pack("<IQ", 8, 1 << 40)], []), "bytes long"),
    (_header([], [tensor("t", (32, 2, 1, 1, 1), 0, 0)]), "dimensions"),
    (_header([], [tensor("t", (32,), 0, 3)]), "not a multiple of 32"),
    (_header([], [tensor("t", (100,), 8, 0)]), "do not fill"),
    (_header([kv_u32("a", 1), kv_u32("a", 2)], []), "appears twice"),
])
def test_reader_refuses_malformed_headers(blob: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_gguf_header(blob)


def test_reader_checks_tensor_bounds_against_the_file_size() -> None:
    h = read_gguf_header(tiny_header())
    end = h.data_offset + 38112 + 100 * 8 * 34            # the last tensor's offset + bytes
    assert read_gguf_header(tiny_header(), file_size=end).weight_bytes == h.weight_bytes
    with pytest.raises(InputError, match="not within the file bounds"):
        read_gguf_header(tiny_header(), file_size=end - 1)


def test_reader_caps_header_size_and_versions() -> None:
    with pytest.raises(InputError, match="larger than"):
        read_gguf_header(tiny_header(), max_bytes=100)
    with pytest.raises(UnsupportedError, match="version 1"):
        read_gguf_header(b"GGUF" + struct.pack("<I", 1) + b"\0" * 16)
    with pytest.raises(UnsupportedError, match="type id 4"):
        read_gguf_header(_header([], [tensor("t", (32,), 4, 0)]))
