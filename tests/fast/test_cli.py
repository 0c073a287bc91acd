"""The CLI: table and JSON output, stdin, and one-line errors with exit status 2."""
from __future__ import annotations

import io
import json

import pytest
from paths import config_path

from kvcalc.cli import main

LLAMA_32_1B = config_path("meta-llama__Llama-3.2-1B.json")


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output(capsys):
    code, out, err = run(capsys, "kv", LLAMA_32_1B, "--batch", "2", "--context", "100", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    # Llama-3.2-1B: 16 layers x 8 KV heads x 64 dims x (K+V) x bf16
    assert data["total_bytes"] == 2 * 100 * 16 * 8 * 64 * 2 * 2
    assert {"total_bytes", "layers", "fields_used", "warnings"} <= data.keys()
    assert data["layers"][0] == {"index": 0, "kind": "full", "tokens": 100, "bytes": 2 * 100 * 8 * 64 * 2 * 2}


def test_table_and_stdin(capsys, monkeypatch):
    with open(LLAMA_32_1B, encoding="utf-8") as f:
        text = f.read()
    code, out, _ = run(capsys, "kv", "-", "--batch", "1", "--context", "10", stdin=text, monkeypatch=monkeypatch)
    assert code == 0
    assert "total 327,680 bytes" in out


@pytest.mark.parametrize("argv, message", [
    (["kv", "missing.json", "--batch", "1", "--context", "1"], "does not exist"),
    (["kv", "not/a..valid", "--batch", "1", "--context", "1", "--offline"], "not a valid Hugging Face model id"),
    (["kv", LLAMA_32_1B, "--batch", "zero", "--context", "1"], "not a whole number"),
    (["kv", LLAMA_32_1B, "--batch", "0", "--context", "1"], "batch must be between"),
    (["kv", LLAMA_32_1B, "--batch", "1", "--context", "1", "--kv-dtype", "int3"], "unknown dtype"),
    (["kv", LLAMA_32_1B, "--batch", "1", "--context", "1", "--runtime", "tgi"], "invalid choice"),
])
def test_bad_input_one_line_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_bad_json_on_stdin(capsys, monkeypatch):
    code, _, err = run(capsys, "kv", "-", "--batch", "1", "--context", "1", stdin="{not json", monkeypatch=monkeypatch)
    assert code == 2 and "not valid JSON" in err


def test_bundled_name_and_offline(capsys):
    # a bundled Hub id works with the network forbidden: Qwen3-8B, 36 layers x 8 KV heads x 128 x 2 x bf16
    code, out, err = run(capsys, "kv", "Qwen/Qwen3-8B", "--batch", "1", "--context", "32768", "--offline", "--json")
    assert code == 0, err
    assert json.loads(out)["total_bytes"] == 32768 * 36 * 8 * 128 * 2 * 2


def test_plan_from_a_hub_id_offline(capsys):
    code, out, err = run(capsys, "plan", "meta-llama/Llama-3.1-8B", "--gpu", "rtx-4090", "--runtime", "ideal",
                         "--offline", "--json")
    assert code == 0, err
    assert json.loads(out)["weights_bytes"] == 8_030_261_248 * 2


def test_plan_uses_the_hubs_safetensors_size(capsys, fake_hub):  # noqa: F811 - fixture
    # the fake Hub reports BF16 6,000,000 + F32 1,024 parameters: 12,004,096 bytes of checkpoint
    code, out, err = run(capsys, "plan", "acme/tiny-llama", "--gpu", "t4", "--runtime", "ideal", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["weights_bytes_total"] == 6_000_000 * 2 + 1_024 * 4
    assert data["weights_bytes"] == data["weights_bytes_total"]          # one GPU holds all of it
    assert "safetensors metadata" in " ".join(data["warnings"])


def test_kv_quantization_groups_are_configurable(capsys):
    # int4, groups of 128: 128 values -> 64 bytes + one 4-byte scale/zero group, per head vector
    code, out, err = run(capsys, "kv", "meta-llama/Llama-3.1-8B", "--batch", "1", "--context", "1000",
                         "--kv-dtype", "int4", "--kv-group-size", "128", "--offline", "--json")
    assert code == 0, err
    assert json.loads(out)["total_bytes"] == 1000 * 32 * 8 * 2 * (64 + 4)
    code, _, err = run(capsys, "kv", "meta-llama/Llama-3.1-8B", "--batch", "1", "--context", "1", "--kv-dtype",
                       "bf16", "--kv-group-size", "128", "--offline")
    assert code == 2 and "no quantization groups" in err


L8B = ["meta-llama/Llama-3.1-8B", "--offline"]
KV = ["kv", *L8B, "--batch", "1", "--context", "1000"]


@pytest.mark.parametrize("argv, message", [
    # before: 0 became the default 64 / 4, and there was no upper bound
    ([*KV, "--kv-dtype", "int4", "--kv-group-size", "0"], "group size must be between 1 and 4,096, got 0 values"),
    ([*KV, "--kv-dtype", "int4", "--kv-group-size", "4097"], "group size must be between 1 and 4,096"),
    ([*KV, "--kv-dtype", "int4", "--kv-group-overhead", "65"], "group overhead must be between 0 and 64, got 65 bytes"),
    ([*KV, "--kv-dtype", "int4", "--kv-group-overhead", "-1"], "group overhead must be between 0 and 64"),
    # before: a group option alone quietly switched the KV cache to int8
    ([*KV, "--kv-group-size", "128"], "apply to an integer --kv-dtype (int8, int4, int2)"),
    # before: an empty --gpu meant the H100, an empty --revision the default branch, a timeout <= 0 was taken
    (["plan", *L8B, "--gpu", ""], "argument --gpu: is empty"),
    (["plan", *L8B, "--gpu", "  "], "argument --gpu: is empty"),
    (["plan", *L8B, "--revision", ""], "argument --revision: is empty"),
    (["plan", *L8B, "--dtype", ""], "argument --dtype: is empty"),
    (["plan", *L8B, "--kv-cache-dtype", ""], "argument --kv-cache-dtype: is empty"),
    ([*KV, "--kv-dtype", ""], "argument --kv-dtype: is empty"),
    ([*KV, "--timeout", "0"], "argument --timeout: must be more than 0 and at most 300 seconds"),
    ([*KV, "--timeout", "-1"], "at most 300 seconds"),
    ([*KV, "--timeout", "1e9"], "at most 300 seconds"),
])
def test_values_are_never_silently_changed(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_group_overhead_zero_means_zero(capsys):
    # int4, groups of 64, no scale/zero bytes: 128 dims x 0.5 B = 64 B per head vector; before, 0 became 4 (72 B)
    code, out, err = run(capsys, *KV, "--kv-dtype", "int4", "--kv-group-overhead", "0", "--json")
    assert code == 0, err
    assert json.loads(out)["total_bytes"] == 1000 * 32 * 8 * 2 * 64


PLAN_IDEAL = ["plan", *L8B, "--gpu", "rtx-4090", "--runtime", "ideal"]


@pytest.mark.parametrize("argv, message", [
    # before: each was accepted and did nothing
    ([*PLAN_IDEAL, "--block-size", "32"], "--block-size is a vLLM option and does nothing with --runtime ideal"),
    ([*PLAN_IDEAL, "--max-num-seqs", "3"], "--max-num-seqs is a vLLM option"),
    ([*PLAN_IDEAL, "--gpu-memory-utilization", "0.5"], "--gpu-memory-utilization is a vLLM option"),
    ([*PLAN_IDEAL, "--kv-cache-memory", "1000000"], "--kv-cache-memory is a vLLM option"),
    ([*PLAN_IDEAL, "--activation-gib", "1"], "--activation-gib does nothing with --runtime ideal"),
    ([*KV, "--prefill", "5"], "--prefill applies to --runtime transformers only (runtime is ideal)"),
    ([*KV, "--encoder-tokens", "5"], "--encoder-tokens applies to models with cross-attention"),
])
def test_options_the_runtime_ignores_are_refused(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_vllm_defaults_still_apply(capsys):
    # no --gpu-memory-utilization / --block-size given: vLLM's 0.9 and 16 (as in the README's example)
    code, out, err = run(capsys, "plan", *L8B, "--gpu", "rtx-4090", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["budget_bytes"] == int(0.9 * 24564 * 2**20)                 # RTX 4090: 24,564 MiB (nvidia-smi)
    assert data["kv_cache_tokens"] == data["num_gpu_blocks"] * 16


@pytest.mark.parametrize("argv, message", [
    ([*PLAN_IDEAL, "--page-size", "16"], "--page-size is an SGLang option and does nothing with --runtime ideal"),
    (["plan", *L8B, "--runtime", "vllm", "--mem-fraction-static", "0.8"], "--mem-fraction-static is an SGLang option"),
    (["plan", *L8B, "--runtime", "sglang", "--tokens-per-block", "64"], "--tokens-per-block is a TensorRT-LLM option"),
    (["plan", *L8B, "--runtime", "sglang", "--max-model-len", "4096"], "SGLang's option is context_length"),
    (["plan", *L8B, "--runtime", "tensorrt_llm", "--tokens-per-block", "48"], "not a power of two"),
    (["plan", *L8B, "--runtime", "sglang", "--context-length", "200000"],
     "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"),
    (["kv", *L8B, "--batch", "1", "--context", "10", "--runtime", "sglang"], "invalid choice"),
])
def test_engine_options_are_refused_in_the_engines_words(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_sglang_plan_prints_its_startup_lines(capsys):
    """0.85 x (RTX 4090 24,564 MiB - 1 GiB before load) - 15 GiB of weights, // 131,072 B per token."""
    code, out, err = run(capsys, "plan", *L8B, "--gpu", "rtx-4090", "--runtime", "sglang", "--mem-fraction-static",
                         "0.85", "--non-torch-gib", "1", "--weights-gib", "15", "--context-length", "8192",
                         "--max-running-requests", "4", "--batch", "2", "--json")
    assert code == 0, err
    data = json.loads(out)
    tokens = (int((24564 * 2**20 - 2**30) * 0.85) - 15 * 2**30) // 131072
    assert data["kv_cache_tokens"] == tokens and data["runtime"] == "sglang"
    assert data["engine_lines"][0].startswith(f"KV Cache is allocated. #tokens: {tokens}, K size: ")
    assert data["engine_lines"][1] == f"max_total_num_tokens={tokens}, max_running_requests=4, context_len=8192"


def test_trtllm_plan_table(capsys):
    code, out, err = run(capsys, "plan", *L8B, "--gpu", "h100-sxm", "--runtime", "tensorrt_llm",
                         "--free-gpu-memory-fraction", "0.8", "--max-seq-len", "16384", "--max-batch-size", "8",
                         "--tokens-per-block", "64", "--batch", "4")
    assert code == 0, err
    assert "runtime tensorrt_llm" in out and "Number of tokens per block: 64." in out
    assert "for max tokens in paged KV cache (" in out and "fits: yes" in out


def test_llama_cpp_flags_in_the_engines_names(capsys):
    """llama-server's flags under --runtime llama_cpp: Llama-3.2-1B, -c 4096 -np 2 -ctk q8_0 -ctv q8_0 -fa:
    n_ctx_seq = PAD(4096 / 2, 256) = 2048 cells x 2 streams; 16 layers x 4096 cells x 512 values x 34/32 B
    x (K+V) = 71,303,168 B = 68.00 MiB (llama_kv_cache's size line)."""
    code, out, err = run(capsys, "plan", LLAMA_32_1B, "--runtime", "llama_cpp", "--gpu", "4090", "-c", "4096",
                         "-np", "2", "-ctk", "q8_0", "-ctv", "q8_0", "-fa", "--gguf-type", "Q8_0")
    assert code == 0, err
    assert "llama_kv_cache: size =   68.00 MiB (  2048 cells,  16 layers,  2/2 seqs)" in out
    code, _, err = run(capsys, "plan", LLAMA_32_1B, "--runtime", "llama_cpp", "-c", "4096")
    assert code == 2 and "needs the GGUF weights" in err
    code, _, err = run(capsys, "plan", LLAMA_32_1B, "--runtime", "llama_cpp", "--gguf-type", "Q8_0",
                       "--max-model-len", "4096")
    assert code == 2 and "n_ctx (-c)" in err
    code, _, err = run(capsys, "plan", LLAMA_32_1B, "--runtime", "vllm", "-ctk", "q8_0")
    assert code == 2 and "-ctk is a llama.cpp option" in err
