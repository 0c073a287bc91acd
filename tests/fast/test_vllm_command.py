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


# ----------------------------------------------------------------------------- issue 14: quantization, round trip
def test_quantization_maps_to_the_weights_dtype():
    """--quantization names (vllm/model_executor/layers/quantization/__init__.py QUANTIZATION_METHODS): AWQ and
    GPTQ store 4-bit weights (kvcalc int4: 4-bit + fp16 scales per 128), fp8 one byte each; mxfp4 and
    compressed-tensors leave it to the checkpoint's own quantization_config (None)."""
    from kvcalc.vllm_command import deploy_options

    expect = {"awq": "int4", "awq_marlin": "int4", "gptq": "int4", "gptq_marlin": "int4", "bitsandbytes": "int4",
              "fp8": "fp8_e4m3", "mxfp4": None, "compressed-tensors": None}
    for method, dtype in expect.items():
        for flag in (f"--quantization {method}", f"-q {method}", f"--quantization={method}"):
            c = parse_vllm_serve(f"vllm serve m {flag}")
            assert c.options == {"quantization": method} and c.ignored == ()
            assert deploy_options(c)["dtype"] == dtype
    assert deploy_options(parse_vllm_serve("vllm serve m --dtype half"))["dtype"] == "float16"
    with pytest.raises(InputError, match="--quantization 'hqq' is not modelled; known: awq"):
        parse_vllm_serve("vllm serve m --quantization hqq")


def test_prefix_caching_switches_are_read_not_ignored():
    assert parse_vllm_serve("vllm serve m --enable-prefix-caching").options == {"enable_prefix_caching": True}
    c = parse_vllm_serve("vllm serve m --no-enable-prefix-caching --enforce-eager")
    assert c.options == {"enable_prefix_caching": False} and c.ignored == ("--enforce-eager",)


LLAMA8 = "meta-llama/Llama-3.1-8B"
ROUND_TRIPS = [
    {},
    {"gpus": 2},
    {"gpus": 4, "tensor_parallel_size": 2, "pipeline_parallel_size": 2},
    {"max_model_len": 32768, "gpu_memory_utilization": 0.85},
    {"kv_dtype": "fp8_e4m3", "dtype": "int4"},
    {"kv_dtype": "fp8_e5m2", "dtype": "fp8_e4m3", "block_size": 32},
    {"dtype": "float16", "max_num_seqs": 64, "max_num_batched_tokens": 4096},
    {"kv_cache_memory": 20 * 2**30},
    {"speculative_config": {"method": "eagle3", "num_speculative_tokens": 3}},
    {"speculative_config": {"method": "ngram", "num_speculative_tokens": 4}, "cpu_offload_gb": 2.5},
    {"lora": {"max_loras": 4, "max_lora_rank": 64, "fully_sharded_loras": True}},
    {"lora": {}},
    {"max_model_len": 200000, "allow_long_max_model_len": True, "block_size": 16},
    {"gpus": 8, "kv_dtype": "fp8_e4m3", "max_model_len": 131072, "gpu_memory_utilization": 0.95},
]


@pytest.mark.parametrize("options", ROUND_TRIPS)
def test_the_generated_command_parses_back_to_the_same_deployment(options):
    """kvcalc.serve_command writes the line; parse_vllm_serve + deploy_options read it; the deployment built
    from it has the same parallel sizes, dtypes, vLLM options and so the same vLLM budget."""
    from paths import load_config

    from kvcalc.capacity import deploy
    from kvcalc.serve_command import vllm_serve
    from kvcalc.vllm_command import deploy_options

    cfg = load_config(LLAMA8)
    d = deploy(cfg, gpu="h100-sxm", **options)
    cmd = vllm_serve(LLAMA8, d)
    parsed = parse_vllm_serve(cmd.text)
    # int4 weights: --quantization awq reads an AWQ checkpoint (hugging-quants' page names this one)
    served = "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4" if d.dtype == "int4" else LLAMA8
    assert parsed.model == served and parsed.ignored == ()
    assert "--max-model-len" in cmd.text                       # always: vLLM's default is the model's maximum
    back = deploy(cfg, gpu="h100-sxm", **deploy_options(parsed))
    assert (back.tp, back.pp, back.gpus, back.kv.name, back.weights_rank) == (d.tp, d.pp, d.gpus, d.kv.name,
                                                                              d.weights_rank)
    assert back.vllm_plan() == d.vllm_plan()
    assert back.vllm.speculative_config == d.vllm.speculative_config and back.vllm.lora == d.vllm.lora


def test_the_command_writes_only_what_differs_from_vllm_s_defaults():
    from paths import load_config

    from kvcalc.capacity import deploy
    from kvcalc.serve_command import vllm_serve

    d = deploy(load_config(LLAMA8), gpu="rtx-4090", max_model_len=8192, block_size=16,
               gpu_memory_utilization=0.9)
    assert vllm_serve(LLAMA8, d).text == "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192"
    d = deploy(load_config(LLAMA8), gpu="rtx-4090", max_model_len=8192, dtype="int8")
    cmd = vllm_serve(LLAMA8, d)                                 # vLLM has no flag that quantizes to int8
    assert cmd.text == "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192"
    assert any("weights int8" in n for n in cmd.notes)


@pytest.mark.parametrize("model, base, dtype", [
    ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B", None),
    ("meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-hf", None),
    ("google/gemma-3-27b-pt", "google/gemma-3-27b-it", None),
    ("Qwen/Qwen3-8B-Base", "Qwen/Qwen3-8B", None),
    ("unsloth/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-70B", None),         # another org, one stem match
    ("/models/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B", None),            # a local path's last part
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "meta-llama/Llama-3.1-70B", "int4"),
    ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "meta-llama/Llama-3.1-8B", "fp8_e4m3"),
    ("meta-llama/Meta-Llama-3-8B-Instruct", "meta-llama/Meta-Llama-3-8B", None),   # Llama 3, not 3.1
])
def test_bundled_model_of_the_same_architecture(model, base, dtype):
    from kvcalc.bundled_match import bundled_match

    m = bundled_match(model)
    assert m is not None and m.hub_id == base and m.weights_dtype == dtype
    assert m.label.startswith(f"planned with {base}'s config: same architecture as {model}")


@pytest.mark.parametrize("model", ["meta-llama/Llama-3.1-8B", "acme/unknown-model", "", "/", "Qwen/Qwen3-9B-Instruct"])
def test_no_bundled_match(model):
    from kvcalc.bundled_match import bundled_match

    assert bundled_match(model) is None
