from __future__ import annotations

import pytest

from kvcalc import InputError
from kvcalc.vllm_command import parse_vllm_serve


def test_serve_command_with_flags():
    cmd = ("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 --gpu-memory-utilization=0.85 "
           "-tp 2 --kv-cache-dtype fp8 --max-num-seqs 64 --enforce-eager --swap-space 4")
    c = parse_vllm_serve(cmd)
    assert c.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert c.options == {"max_model_len": 32768, "gpu_memory_utilization": 0.85, "tensor_parallel_size": 2,
                         "kv_dtype": "fp8", "max_num_seqs": 64}
    assert c.ignored == ("--enforce-eager", "--swap-space")


def test_api_server_form_and_auto():
    c = parse_vllm_serve("python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --kv-cache-dtype auto")
    assert c.model == "Qwen/Qwen3-8B" and c.options == {"kv_dtype": None}


@pytest.mark.parametrize("bad", ["", "vllm serve m --max-model-len", "vllm serve m --max-model-len -5",
                                 "vllm serve m --gpu-memory-utilization 2", "vllm serve 'unclosed", "x" * 5000])
def test_bad_commands(bad):
    with pytest.raises(InputError):
        parse_vllm_serve(bad)


@pytest.mark.parametrize("bad, message", [
    ("vllm serve m --kv-cache-dtype ''", "--kv-cache-dtype needs a value, got nothing"),   # was kv_dtype ''
    ("vllm serve m --dtype= -tp 2", "--dtype needs a value, got nothing"),                  # was dtype '-tp'
    ("vllm serve --model --max-model-len 5", "--model needs a value, got '--max-model-len'"),  # was the model
])
def test_empty_or_missing_values_are_refused(bad, message):
    with pytest.raises(InputError, match=message):
        parse_vllm_serve(bad)
    assert parse_vllm_serve("vllm serve m --max-model-len=4096 -tp 2").options == {
        "max_model_len": 4096, "tensor_parallel_size": 2}


def test_vllm_0_33_flag_names_and_human_readable_ints():
    # vLLM 0.33 names the budget flag --kv-cache-memory-bytes and reads sizes with human_readable_int
    # (vllm/utils/argparse_utils.py): '20G' = 20 x 2**30, '32k' = 32,000, '1K' = 1,024.
    c = parse_vllm_serve("vllm serve google/gemma-3-27b-it --kv-cache-memory-bytes 20G --max-model-len 32k "
                         "--max-num-batched-tokens 1K")
    assert c.options == {"kv_cache_memory": 20 * 2**30, "max_model_len": 32_000, "max_num_batched_tokens": 1024}
    with pytest.raises(InputError, match="invalid value '1.5K'"):      # vLLM: no decimals with binary suffixes
        parse_vllm_serve("vllm serve m --kv-cache-memory-bytes 1.5K")
    # -1 / auto (vLLM 0.33's auto-fit): the Planner's options hold a length, so the paste box refuses it
    for auto in ("-1", "auto"):
        with pytest.raises(InputError, match=f"invalid value '{auto}'"):
            parse_vllm_serve(f"vllm serve m --max-model-len {auto}")


def test_speculative_config_and_cpu_offload_flags():
    c = parse_vllm_serve("""vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --cpu-offload-gb 2.5 """
                         """--speculative-config '{"method": "mtp", "num_speculative_tokens": 1}'""")
    assert c.options == {"tensor_parallel_size": 8, "cpu_offload_gb": 2.5,
                         "speculative_config": {"method": "mtp", "num_speculative_tokens": 1}}
    with pytest.raises(InputError, match="--speculative-config has an invalid value"):
        parse_vllm_serve("vllm serve m --speculative-config '[1, 2]'")


def test_lora_flags_env_prefix_and_speculative_config():
    c = parse_vllm_serve("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve meta-llama/Llama-3.1-8B --enable-lora "
                         "--max-loras 4 --max-lora-rank 64 --max-cpu-loras 8 --fully-sharded-loras "
                         "--lora-dtype float16 "
                         "--speculative-config '{\"method\": \"eagle\", \"num_speculative_tokens\": 3}' "
                         "--cpu-offload-gb 2")
    assert c.model == "meta-llama/Llama-3.1-8B" and c.ignored == ()
    assert c.options == {"allow_long_max_model_len": True, "cpu_offload_gb": 2.0,
                         "speculative_config": {"method": "eagle", "num_speculative_tokens": 3},
                         "lora": {"max_loras": 4, "max_lora_rank": 64, "max_cpu_loras": 8, "lora_dtype": "float16",
                                  "fully_sharded_loras": True}}
    assert parse_vllm_serve("vllm serve m --enable-lora").options == {"lora": {}}     # vLLM's defaults: 1 x rank 16
    off = parse_vllm_serve("vllm serve m --max-loras 4")                          # vLLM ignores it without the switch
    assert off.options == {} and off.ignored == ("--max-loras (without --enable-lora)",)


@pytest.mark.parametrize("bad", ["vllm serve m --enable-lora --max-lora-rank 7",
                                 "vllm serve m --enable-lora --lora-dtype float32",
                                 "vllm serve m --enable-lora --max-loras 0"])
def test_bad_lora_flags(bad):
    with pytest.raises(InputError, match="invalid value"):
        parse_vllm_serve(bad)
