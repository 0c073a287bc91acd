"""Runtime ``llama_cpp`` through deploy / plan / layer table / curve / CLI.

Expected values come from llama.cpp's own startup logs (tests/fixtures/engine_logs/llama_cpp.json, each
with its public source) and from hand arithmetic on llama.cpp's source rules (cited per test), never
from kvcalc's output: ``q8_0`` is 34 bytes per 32 values (ggml-common.h ``block_q8_0``), f16 2 bytes;
a cell holds ``kv_heads x head_dim`` values of K and of V per layer (llama-kv-cache.cpp).
"""
from __future__ import annotations

import json
import os
import struct

import pytest
from paths import load_config, load_fixture

import kvcalc
from kvcalc.cli import main
from kvcalc.errors import InputError, UnsupportedError
from kvcalc.llama_cpp import LlamaCppOptions
from kvcalc.llama_cpp.command import parse_llama_command

MiB, GiB = 2**20, 2**30
LOGS = load_fixture("engine_logs/llama_cpp.json")
LLAMA8B = "meta-llama/Llama-3.1-8B"      # 32 layers, 8 KV heads x 128, vocab 128,256
GEMMA3 = "google/gemma-3-27b-it"         # 62 layers (10 full, 52 sliding, window 1024), 16 KV heads x 128


def _case(section: str, case_id: str) -> dict:
    return next(c for c in LOGS[section] if c["id"] == case_id)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case_id", ["qwen25-coder-32b-q8_0-32k", "deepseek-r1-distill-qwen-7b-f16"])
def test_plan_reproduces_the_logged_kv_size(case_id: str) -> None:
    """The plan's KV allocation and its engine line equal the log's 'KV self size = X MiB, K (t): Y MiB'."""
    case = _case("kv", case_id)
    pins = case["pins"]
    d = kvcalc.deploy(load_config(case["config"]), gpu="h200", runtime="llama_cpp",
                      llama_cpp=LlamaCppOptions(**case["options"]), gguf="Q8_0")
    p = kvcalc.plan(d, batch=1)
    assert p.available_kv_bytes == round(pins["size_mib"] * MiB)
    k_type = case["options"].get("cache_type_k", "f16")
    line = next(x for x in p.engine_lines if x.startswith("llama_kv_cache: size"))
    assert f"size = {pins['size_mib']:7.2f} MiB" in line and f"K ({k_type}): {pins['k_mib']:7.2f} MiB" in line
    assert f"{pins['layers']:3d} layers" in line


def test_plan_weights_reproduce_logged_file_sizes() -> None:
    """GGUF weights through deploy: F16 Qwen2.5-7B-geometry file 14.19 GiB (JamePeng/llama-cpp-python#1),
    Llama-3.1-70B Q4_0 37.22 GiB (ollama/ollama#6279), both as llama.cpp prints them (%.2f GiB)."""
    f16 = _case("kv", "deepseek-r1-distill-qwen-7b-f16")
    d = kvcalc.deploy(load_config(f16["config"]), gpu="h200", runtime="llama_cpp", gguf="F16", n_ctx=2048)
    p = kvcalc.plan(d, batch=1, solve_gpus=False)
    assert f"{p.weights_bytes_total / GiB:.2f}" == f"{f16['pins']['file_gib']:.2f}"
    assert p.weights_scheme == "GGUF F16" and p.weights_quality == "exact"
    d70 = kvcalc.deploy(load_config("meta-llama/Llama-3.1-70B"), gpu="h200", runtime="llama_cpp", gguf="Q4_0",
                        n_ctx=4096)
    assert f"{kvcalc.plan(d70, batch=1, solve_gpus=False).weights_bytes_total / GiB:.2f}" == "37.22"


def test_the_issue_command_line_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    """-c 8192 -np 4 (not unified): n_ctx_seq = PAD(8192 / 4, 256) = 2048 cells x 4 streams
    (llama_context); q8_0 K and V: 32 layers x 8192 cells x 1024 values x 34/32 B x 2 = 570,425,344 B
    (544.00 MiB); -ngl 99 is clamped to n_layer + 1 = 33 (load_tensors)."""
    code, out, err = _cli(capsys, "plan", LLAMA8B, "--offline", "--gpu", "4090", "--runtime", "llama_cpp",
                          "-c", "8192", "-np", "4", "-ctk", "q8_0", "-ctv", "q8_0", "-fa", "-ngl", "99", "--swa-full",
                          "--gguf-type", "Q4_K_M", "--batch", "4", "--context", "2048", "--json")
    assert code == 0, err
    p = json.loads(out)
    assert p["available_kv_bytes"] == 32 * 8192 * 1024 * 34 // 32 * 2 == 570_425_344
    assert p["kv_bytes"] == 570_425_344          # 4 requests of 2048 tokens fill the 4 streams exactly
    assert p["kv_cache_tokens"] == 8192 and p["fits"] is True
    assert p["kv_dtype"] == "q8_0/q8_0" and p["weights_scheme"] == "GGUF Q4_K_M"
    assert "load_tensors: offloaded 33/33 layers to GPU" in p["engine_lines"]
    assert any("(  2048 cells,  32 layers,  4/4 seqs)" in x for x in p["engine_lines"])
    assert p["quality"] == "estimated"           # the compute buffer is an estimate (listed in the warnings)
    assert any("compute buffer estimated" in w for w in p["warnings"])


def test_request_beyond_the_cells_does_not_fit() -> None:
    """Non-unified -c 8192 -np 4: a request longer than n_ctx_seq = 2048, or a fifth one, is refused."""
    d = kvcalc.deploy(load_config(LLAMA8B), gpu="4090", runtime="llama_cpp", gguf="Q4_K_M", n_ctx=8192,
                      n_parallel=4)
    assert kvcalc.plan(d, batch=4, context=2048).fits
    assert not kvcalc.plan(d, batch=4, context=2049).fits
    five = kvcalc.plan(d, batch=5, context=1000)
    assert not five.fits and "exceeds the 4 requests" in five.binding_constraint


def test_sliding_window_layers_are_capped_in_the_table_and_curve() -> None:
    """gemma-3-27b, llama-server (4 unified slots), -c 32768, f16: the non-SWA cache holds 32768 cells of 10
    layers, the SWA cache PAD(min(32768, 1024 x 4 + 512), 256) = 4608 cells of 52 layers
    (llama-kv-cache-iswa.cpp); 16 KV heads x 128 x K+V x 2 B = 8192 B per cell per layer. One request of
    8192 tokens occupies 8192 cells of a full layer and 1024 (its window) of a sliding one."""
    d = kvcalc.deploy(load_config(GEMMA3), gpu="h200", runtime="llama_cpp", gguf="Q4_K_M", n_ctx=32768)
    p = kvcalc.plan(d, batch=1, context=8192, solve_gpus=False)
    assert p.available_kv_bytes == (32768 * 10 + 4608 * 52) * 8192
    assert "llama_kv_cache_iswa: creating     SWA KV cache, size = 4608 cells" in p.engine_lines
    rows = kvcalc.layer_bytes(d, 1, 8192).rows
    assert sorted({r.tokens for r in rows}) == [1024, 8192]
    assert sum(r.tokens == 8192 for r in rows) == 10
    assert p.kv_bytes == (8192 * 10 + 1024 * 52) * 8192
    assert kvcalc.memory_curve(d, 1, [8192])[0].kv == p.kv_bytes
    full = kvcalc.deploy(load_config(GEMMA3), gpu="h200", runtime="llama_cpp", gguf="Q4_K_M", n_ctx=32768,
                         swa_full=True)
    assert kvcalc.plan(full, batch=1, context=8192, solve_gpus=False).available_kv_bytes == 32768 * 62 * 8192


def test_partial_offload_shows_gpu_and_host_bytes() -> None:
    """-ngl 16 on 32 blocks (load_tensors: i_gpu_start = 33 - 16 = 17): blocks 17..31 and the output layer on
    the GPU, token_embd and blocks 0..16 on the host; llama-cli -c 4096: 4096 cells x 1024 x 2 x 2 B = 16 MiB
    of f16 KV per layer, 15 layers on the GPU, 17 on the host."""
    config = load_config(LLAMA8B)
    d = kvcalc.deploy(config, gpu="4090", runtime="llama_cpp", gguf="Q4_K_M", n_ctx=4096, n_gpu_layers=16,
                      llama_cpp=LlamaCppOptions(program="llama-cli"))
    p = kvcalc.plan(d, batch=1, context=4096, solve_gpus=False)
    assert p.available_kv_bytes == 15 * 16 * MiB and p.kv_bytes == 15 * 16 * MiB
    assert p.engine_lines[0] == "load_tensors: offloaded 16/33 layers to GPU"
    assert d.gguf is not None
    assert p.weights_bytes == sum(d.gguf.layer_bytes[17:]) + d.gguf.output_bytes
    host_weights = d.gguf.input_bytes + sum(d.gguf.layer_bytes[:17])
    assert p.host_bytes == host_weights + 17 * 16 * MiB
    table = kvcalc.layer_bytes(d, 1, 4096)
    assert [r.device for r in table.rows] == ["host"] * 17 + ["gpu"] * 15
    assert table.host_bytes == 17 * 16 * MiB and table.per_gpu_bytes == p.kv_bytes


def test_solvers_size_the_run_to_the_request() -> None:
    """The longest context is a whole number of 256-cell pads (llama_context pads n_ctx to 256): a run of
    -c T fits, -c T + 1 does not; the largest batch B at 4096 tokens: -np B -c 4096 B fits, B + 1 does not."""
    config = load_config(LLAMA8B)
    d = kvcalc.deploy(config, gpu_mem_gib=8, runtime="llama_cpp", gguf="Q4_K_M", n_ctx=4096)
    p = kvcalc.plan(d, batch=1, context=4096)
    t = p.max_context
    assert t is not None and t % 256 == 0 and t < 131072

    def fits(n_ctx: int, n_parallel: int = 1) -> bool:
        run = kvcalc.deploy(config, gpu_mem_gib=8, runtime="llama_cpp", gguf="Q4_K_M", n_ctx=n_ctx,
                            n_parallel=n_parallel)
        return run.engine_plan().refusal is None

    assert fits(t) and not fits(t + 1)
    b = p.max_batch
    assert b is not None and fits(4096 * b, b) and not fits(4096 * (b + 1), b + 1)
    assert p.min_gpus == 1


def test_out_of_memory_is_the_engines_refusal() -> None:
    d = kvcalc.deploy(load_config("meta-llama/Llama-3.1-70B"), gpu="4090", runtime="llama_cpp", gguf="Q4_K_M",
                      n_ctx=8192)
    p = kvcalc.plan(d, batch=1, context=8192)
    assert not p.fits and "cudaMalloc failed: out of memory" in p.binding_constraint and "-ngl" in p.binding_constraint
    assert p.min_gpus is None
    offloaded = kvcalc.deploy(load_config("meta-llama/Llama-3.1-70B"), gpu="4090", runtime="llama_cpp",
                              gguf="Q4_K_M", n_ctx=8192, n_gpu_layers=30)
    assert kvcalc.plan(offloaded, batch=1, context=8192).fits


@pytest.mark.parametrize("kwargs, error, words", [
    ({"cache_type_v": "q8_0", "flash_attn": "off"}, InputError, "requires Flash Attention"),
    ({"cache_type_k": "q3_k"}, InputError, "Unsupported cache type"),
    ({"n_parallel": 300}, InputError, "n_seq_max must be <= 256"),
    ({"gpus": 2, "tensor_parallel_size": 2}, UnsupportedError, "splits whole layers"),
    ({"max_model_len": 4096}, InputError, "llama.cpp's option is n_ctx (-c)"),
    ({"kv_dtype": "fp8_e4m3"}, InputError, "cache_type_k / cache_type_v"),
    ({"dtype": "bfloat16"}, InputError, "GGUF file's"),
    ({"gguf": None}, InputError, "needs the GGUF weights"),
    ({"gguf": "UD-Q4_K_XL"}, UnsupportedError, "not modelled"),
])
def test_refusals_in_the_engines_words(kwargs: dict, error: type, words: str) -> None:
    opts = {"gpu": "4090", "runtime": "llama_cpp", "gguf": "Q4_K_M", "n_ctx": 4096, **kwargs}
    with pytest.raises(error, match=None) as e:
        kvcalc.plan(kvcalc.deploy(load_config(LLAMA8B), **opts), batch=1)
    assert words in str(e.value)


def test_llama_options_on_another_runtime_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match="llama.cpp options"):
        kvcalc.deploy(load_config(LLAMA8B), runtime="vllm", n_ctx=4096)
    code, _, err = _cli(capsys, "plan", LLAMA8B, "--offline", "--runtime", "sglang", "-ngl", "10")
    assert code == 2 and "-ngl is a llama.cpp option" in err


def test_mla_is_planned_with_the_latent_cache() -> None:
    """DeepSeek-V2-Lite under llama.cpp: 4,096 cells x 27 layers x (kv_lora_rank 512 + rope 64) x 2 bytes, no V
    (src/llama-kv-cache.cpp: has_v = !is_mla); the line llama.cpp prints for it."""
    p = kvcalc.plan(kvcalc.deploy(load_config("deepseek-ai/DeepSeek-V2-Lite"), runtime="llama_cpp",
                                  gguf="Q8_0", n_ctx=4096, n_parallel=1), batch=1, solve_gpus=False)
    assert p.kv_bytes == 4096 * 27 * 576 * 2
    assert any("K (f16):  121.50 MiB, V (f16):    0.00 MiB" in x for x in p.engine_lines)


def test_a_parsed_command_line_and_its_hf_quant_plan() -> None:
    """``llama-server -hf repo:Q4_K_M -c 16384 -ngl 20`` gives the options and the file type."""
    opts = parse_llama_command("llama-server -hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M -c 16384 "
                               "-ngl 20").options
    d = kvcalc.deploy(load_config(LLAMA8B), gpu="4090", runtime="llama_cpp", llama_cpp=opts)
    p = kvcalc.plan(d, batch=1, solve_gpus=False)
    assert p.weights_scheme == "GGUF Q4_K_M" and p.context == 16384       # 4 unified slots share 16384 cells
    assert p.engine_lines[0] == "load_tensors: offloaded 20/33 layers to GPU"


def _str(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def test_cli_reads_only_a_gguf_header(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """A GGUF v3 header written byte by byte per ggml docs/gguf.md: 32 blocks of one Q8_0 tensor 4096 x 1024
    (1024 rows x 128 blocks x 34 B = 4,456,448 B) and an F32 norm of 4096 (16,384 B); no tensor data follows
    beyond what the offsets need, and the CLI reports exactly those bytes as the weights."""
    kvs = [_str("general.architecture") + struct.pack("<I", 8) + _str("llama"),
           _str("llama.block_count") + struct.pack("<II", 4, 32)]
    tensors, offset = [], 0
    for i in range(32):
        tensors.append(_str(f"blk.{i}.attn_q.weight") + struct.pack("<IQQIQ", 2, 4096, 1024, 8, offset))
        offset += 4_456_448
    tensors.append(_str("output_norm.weight") + struct.pack("<IQIQ", 1, 4096, 0, offset))
    blob = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs) + b"".join(tensors)
    path = os.path.join(str(tmp_path), "tiny.gguf")
    with open(path, "wb") as f:
        f.write(blob + b"\0" * (-len(blob) % 32))
        f.truncate(len(blob) + (-len(blob) % 32) + offset + 16_384)          # sparse: the data is never read
    code, out, err = _cli(capsys, "plan", LLAMA8B, "--offline", "--gpu", "4090", "--runtime", "llama_cpp", "-c",
                          "4096", "--gguf", path, "--json")
    assert code == 0, err
    p = json.loads(out)
    assert p["weights_bytes_total"] == 32 * 4_456_448 + 16_384 and p["weights_quality"] == "exact"
    code, _, err = _cli(capsys, "plan", LLAMA8B, "--offline", "--runtime", "llama_cpp", "--gguf",
                        os.path.join(str(tmp_path), "missing.gguf"))
    assert code == 2 and "--gguf" in err
