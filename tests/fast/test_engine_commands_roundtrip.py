"""The engines' launch lines (kvcalc.serve_command) read back by kvcalc.engine_commands give the same
deployment options: SGLang (python/sglang/srt/server_args.py ``ServerArgs.add_cli_args`` names),
TensorRT-LLM (tensorrt_llm/commands/serve.py click options, ``KvCacheConfig`` fields in the
``--extra_llm_api_options`` YAML) and llama.cpp (common/arg.cpp ``common_params_parser_init``).

Expected lines are written out from those flag names and the engines' documented defaults
(docs/engines.md): a flag at its default is left out.
"""
from __future__ import annotations

import pytest
from paths import load_config

from kvcalc import InputError
from kvcalc.capacity import deploy
from kvcalc.engine_commands import parse_engine_command
from kvcalc.llama_cpp import LlamaCppOptions
from kvcalc.serve_command import engine_command, llama_server, sglang_launch, trtllm_serve

LLAMA = load_config("meta-llama/Llama-3.1-8B")
QWEN = load_config("Qwen/Qwen3-8B")


def _redeploy(config, cmd_text: str):
    c = parse_engine_command(cmd_text)
    return c, deploy(config, runtime=c.runtime, gpus=c.options.get("tensor_parallel_size", 1)
                     * c.options.get("pipeline_parallel_size", 1), **c.options)


def test_sglang_line_has_only_the_flags_set_and_reads_back():
    d = deploy(QWEN, runtime="sglang", gpus=2, mem_fraction_static=0.8, context_length=32768, page_size=16,
               max_running_requests=64, kv_dtype="fp8_e4m3")
    cmd = sglang_launch("Qwen/Qwen3-8B", d)
    assert cmd.text == ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --mem-fraction-static 0.8 "
                        "--context-length 32768 --max-running-requests 64 --page-size 16 --kv-cache-dtype fp8_e4m3")
    c, d2 = _redeploy(QWEN, cmd.text)
    assert c.runtime == "sglang" and c.model == "Qwen/Qwen3-8B" and c.ignored == ()
    assert (d2.sglang, d2.tp, d2.kv) == (d.sglang, d.tp, d.kv)


def test_sglang_defaults_give_a_bare_line_and_the_long_context_switch_an_env_prefix():
    assert sglang_launch("m/x", deploy(QWEN, runtime="sglang")).text == \
        "python -m sglang.launch_server --model-path m/x"
    d = deploy(QWEN, runtime="sglang", context_length=81920, allow_overwrite_longer_context_len=True)
    text = engine_command("m/x", d).text
    assert text.startswith("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server")
    assert _redeploy(QWEN, text)[1].sglang == d.sglang


def test_trtllm_serve_flags_and_kv_cache_config_yaml():
    d = deploy(LLAMA, runtime="tensorrt_llm", gpus=2, max_seq_len=16384, max_batch_size=64,
               free_gpu_memory_fraction=0.85)
    cmd = trtllm_serve("meta-llama/Llama-3.1-8B", d)
    assert cmd.text == ("trtllm-serve meta-llama/Llama-3.1-8B --tp_size 2 --max_batch_size 64 --max_seq_len 16384 "
                        "--kv_cache_free_gpu_memory_fraction 0.85")
    c, d2 = _redeploy(LLAMA, cmd.text)
    assert c.runtime == "tensorrt_llm" and c.model == "meta-llama/Llama-3.1-8B"
    assert (d2.trtllm, d2.tp) == (d.trtllm, d.tp)
    # KvCacheConfig.max_tokens / tokens_per_block have no trtllm-serve flag: the YAML file carries them
    d = deploy(LLAMA, runtime="tensorrt_llm", max_tokens_in_paged_kv_cache=65536, tokens_per_block=64)
    lines = trtllm_serve("m/x", d).text.splitlines()
    assert lines[:5] == ["cat > extra_llm_api_options.yaml <<'EOF'", "kv_cache_config:", "  max_tokens: 65536",
                         "  tokens_per_block: 64", "EOF"]
    assert lines[5] == "trtllm-serve m/x --extra_llm_api_options extra_llm_api_options.yaml"


def test_llama_server_line_reads_back_to_the_same_run():
    opts = LlamaCppOptions(n_ctx=16384, n_parallel=4, kv_unified=True, cache_type_k="q8_0", cache_type_v="q8_0",
                           flash_attn="on", n_gpu_layers=20, swa_full=True, model="bartowski/Llama-3.1-8B-GGUF",
                           hf_quant="Q5_K_M")
    d = deploy(LLAMA, runtime="llama_cpp", gpu="rtx-4090", llama_cpp=opts)
    cmd = llama_server("meta-llama/Llama-3.1-8B", d)
    assert cmd.text == ("llama-server -hf bartowski/Llama-3.1-8B-GGUF:Q5_K_M -c 16384 -np 4 -ctk q8_0 -ctv q8_0 "
                        "-fa on -ngl 20 -kvu --swa-full")
    c, d2 = _redeploy(LLAMA, cmd.text)
    assert c.runtime == "llama_cpp" and c.options["gguf"] == "Q5_K_M"
    assert d2.llama_cpp == d.llama_cpp and d2.gguf == d.gguf


def test_llama_cli_without_a_gguf_repo_names_a_file_of_the_chosen_type():
    d = deploy(LLAMA, runtime="llama_cpp", gguf="Q4_K_M", llama_cpp=LlamaCppOptions(program="llama-cli", n_ctx=8192))
    cmd = llama_server("meta-llama/Llama-3.1-8B", d)
    assert cmd.text == "llama-cli -m /path/to/Llama-3.1-8B-Q4_K_M.gguf -c 8192"
    assert parse_engine_command(cmd.text).options["llama_cpp"] == replace_model(d.llama_cpp,
                                                                                "/path/to/Llama-3.1-8B-Q4_K_M.gguf")


def replace_model(o: LlamaCppOptions, model: str) -> LlamaCppOptions:
    from dataclasses import replace
    return replace(o, model=model)


@pytest.mark.parametrize("line, runtime", [
    ("llama-server -m /models/x.gguf -c 4096", "llama_cpp"),
    ("/opt/llama.cpp/build/bin/llama-cli -hf ggml-org/gemma-3-1b-it-GGUF -c 2048", "llama_cpp"),
    ("sglang serve --model-path Qwen/Qwen3-8B", "sglang"),
    ("trtllm-serve serve Qwen/Qwen3-8B --tp_size 1", "tensorrt_llm"),
])
def test_each_program_is_recognised(line, runtime):
    assert parse_engine_command(line).runtime == runtime


def test_a_bad_llama_value_is_refused_in_llama_cpp_terms():
    with pytest.raises(InputError, match="-c takes a whole number"):
        parse_engine_command("llama-server -m x.gguf -c lots")
    with pytest.raises(InputError, match="llama-server"):
        parse_engine_command("ollama run llama3")


def test_sglang_kv_cache_dtype_spellings():
    # server_args.py --kv-cache-dtype choices: auto, fp8_e5m2, fp8_e4m3, bf16; float16 has none
    d = deploy(QWEN, runtime="sglang", kv_dtype="bfloat16")
    text = sglang_launch("m/x", d).text
    assert text.endswith("--kv-cache-dtype bf16") and _redeploy(QWEN, text)[1].kv == d.kv
    d = deploy(QWEN, runtime="sglang", kv_dtype="float16")
    cmd = sglang_launch("m/x", d)
    assert "--kv-cache-dtype" not in cmd.text and "no such --kv-cache-dtype" in cmd.notes[0]
