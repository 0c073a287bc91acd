"""plan(): budgets per runtime, solvers and the vLLM logs, through the public API and CLI."""
from __future__ import annotations

import functools
import json

import pytest
from paths import config_path, load_config, load_json, reference_configs

import kvcalc
from kvcalc.capacity import plan
from kvcalc.cli import main

GiB, MiB = 2**30, 2**20

LLAMA8 = load_config("meta-llama__Llama-3.1-8B.json")
MISTRAL = load_config("mistralai__Mistral-7B-Instruct-v0.3.json")
QWEN7 = load_config("Qwen__Qwen2.5-7B-Instruct.json")


LOG_RELEASE = "0.10"   # the three public logs are from releases before 0.33 (tests/fast/test_vllm.py)
log_plan = functools.partial(plan, vllm_version=LOG_RELEASE)


def test_vllm_log_mistral_h100_exact_budget():
    # vLLM log: 28,234 blocks of 16 tokens, 451,744 tokens, 110.29x at max_model_len 4,096.
    # One block holds 16 tokens x 32 layers x 8 KV heads x 128 x (K+V) x bf16 = 2 MiB.
    p = log_plan(MISTRAL, gpu_mem_gib=79.19, max_model_len=4096, context=4096, kv_cache_memory=28_234 * 2 * MiB + 1)
    assert (p.num_gpu_blocks, p.kv_cache_tokens, f"{p.max_concurrency:.2f}") == (28_234, 451_744, "110.29")


def test_vllm_log_mistral_h100_from_logged_gib():
    # weights 14.08 GiB, activation 1.97, non-torch 0.07 of 0.9 x 79.19 GiB -> 55.15 GiB available
    p = log_plan(MISTRAL, gpu_mem_gib=79.19, max_model_len=4096, context=4096, weights_gib=14.08,
             activation_gib=1.97, non_torch_gib=0.07)
    assert abs(p.available_kv_bytes / GiB - 55.15) <= 0.005 + 1e-9
    assert abs(p.num_gpu_blocks - 28_234) <= 0.015 * GiB / (2 * MiB)   # the logged GiB are rounded to 0.01


def test_vllm_log_llama_3090():
    # KV 3.81 GiB -> 1,952 blocks (31,232 tokens), concurrency 1.56x at max_model_len 20,000
    p = log_plan(LLAMA8, gpu_mem_gib=23.58, max_model_len=20_000, context=20_000, kv_cache_memory=1952 * 2 * MiB)
    assert (p.num_gpu_blocks, p.kv_cache_tokens, f"{p.max_concurrency:.2f}") == (1952, 31_232, "1.56")
    assert p.fits and p.max_batch == 1 and p.max_context == 20_000


def test_vllm_log_qwen_awq_16gb():
    # weights 5.29, activation 1.04, non-torch 0.06 of 0.9 x 15.99 -> 8.0 GiB; 9,357 blocks, 149,712 tokens, 4.57x.
    # Qwen2.5-7B: 28 layers x 4 KV heads x 128 x 2 x bf16 = 57,344 B/token; a block of 16 = 917,504 B
    p = log_plan(QWEN7, gpu_mem_gib=15.99, max_model_len=32_768, context=32_768, weights_gib=5.29, activation_gib=1.04,
             non_torch_gib=0.06)
    assert abs(p.available_kv_bytes / GiB - 8.0) <= 0.015
    assert abs(p.num_gpu_blocks - 9357) <= 0.015 * GiB / 917_504
    exact = log_plan(QWEN7, gpu_mem_gib=15.99, max_model_len=32_768, context=32_768, kv_cache_memory=9357 * 917_504)
    assert (exact.num_gpu_blocks, exact.kv_cache_tokens, f"{exact.max_concurrency:.2f}") == (9357, 149_712, "4.57")


@pytest.mark.parametrize("runtime", ["ideal", "transformers", "vllm"])
def test_solvers_are_tight(runtime):
    # vLLM refuses to start when one max_model_len request does not fit the pool: use one that does
    mml = 32_768
    p = plan(LLAMA8, gpu="rtx-4090", runtime=runtime, batch=4, context=4096, max_model_len=mml)
    assert p.max_context is not None and p.max_batch is not None
    at = plan(LLAMA8, gpu="rtx-4090", runtime=runtime, batch=4, context=p.max_context, max_model_len=mml)
    assert at.fits
    beyond = plan(LLAMA8, gpu="rtx-4090", runtime=runtime, batch=4, context=p.max_context + 1, max_model_len=mml)
    assert not beyond.fits
    assert plan(LLAMA8, gpu="rtx-4090", runtime=runtime, batch=p.max_batch, context=4096, max_model_len=mml).fits
    assert not plan(LLAMA8, gpu="rtx-4090", runtime=runtime, batch=p.max_batch + 1, context=4096,
                    max_model_len=mml).fits


def test_ideal_budget_is_weights_plus_kv():
    p = plan(LLAMA8, gpu="h100-sxm", runtime="ideal", batch=2, context=1000)
    assert p.weights_bytes == 8_030_261_248 * 2                 # bf16, published parameter count
    assert p.kv_bytes == 2 * 1000 * 131_072                     # 128 KiB per token
    assert p.total_bytes == p.weights_bytes + p.kv_bytes and p.overhead_bytes == 0


def test_weights_alone_exceed_the_gpu():
    p = plan(load_config("meta-llama__Llama-3.1-405B.json"), gpu="rtx-4090", runtime="ideal", batch=1, context=1024)
    assert not p.fits and p.max_context is None
    assert p.binding_constraint.startswith("weights alone exceed the GPU")
    # 405,853,388,800 params x 2 B = 811.7 GB: 32 cards of 24,564 MiB (25.76 GB) hold 25.4 GB each
    assert p.min_gpus == 32


def test_tensor_parallel_splits_weights_and_kv_heads():
    cfg = load_config("meta-llama__Llama-3.1-70B.json")
    one = plan(cfg, gpu="h100-sxm", runtime="ideal", gpus=1, batch=1, context=8192)
    four = plan(cfg, gpu="h100-sxm", runtime="ideal", gpus=4, tensor_parallel_size=4, batch=1, context=8192)
    assert four.kv_bytes * 4 == one.kv_bytes                     # 8 KV heads -> 2 per rank
    assert 3.9 < one.weights_bytes / four.weights_bytes < 4.0    # norms are replicated
    assert one.min_gpus == 2


def test_min_gpus_and_bad_parallel_sizes():
    cfg = load_config("meta-llama__Llama-3.1-70B.json")
    with pytest.raises(kvcalc.InputError, match="must divide"):
        plan(cfg, gpu="h100-sxm", gpus=3, batch=1, context=1024)
    with pytest.raises(kvcalc.InputError):
        plan(cfg, gpu="h100-sxm", gpus=2, tensor_parallel_size=4, batch=1, context=1024)
    with pytest.raises(kvcalc.InputError):
        plan(cfg, gpu="h100-sxm", runtime="transformers", tensor_parallel_size=2, gpus=2)


def test_longest_context_on_each_class_for_every_config():
    """Every reference config gets a longest context (or a typed refusal) on a T4, an RTX 4090 and an H100; how
    long that takes is benchmarks/run.py's longest_context row (against one KV figure of the same configs)."""
    configs = [load_json(path) for path in reference_configs()]
    answered = 0
    for cfg in configs:
        for gpu in ("t4", "rtx-4090", "h100-sxm"):
            try:
                p = plan(cfg, gpu=gpu, runtime="ideal", batch=1, solve_gpus=False)
            except kvcalc.UnsupportedError:
                continue
            assert p.max_context is None or p.max_context >= 1
            answered += 1
    assert answered >= 3 * len(configs) - 3


def test_plan_cli_json(capsys):
    code = main(["plan", config_path("meta-llama__Llama-3.1-8B.json"), "--gpu-mem-gib",
                 "23.58", "--max-model-len", "20000", "--kv-cache-memory", str(1952 * 2 * MiB), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    for key in ("weights_bytes", "kv_bytes", "total_bytes", "fits", "max_context", "max_batch", "binding_constraint",
                "kv_cache_tokens", "num_gpu_blocks", "max_concurrency"):
        assert key in data
    assert data["kv_cache_tokens"] == 31_232 and data["num_gpu_blocks"] == 1952


def test_plan_cli_errors(capsys):
    path = config_path("meta-llama__Llama-3.1-8B.json")
    assert main(["plan", path, "--gpu", "H100"]) == 2
    assert "ambiguous" in capsys.readouterr().err
    assert main(["plan", path, "--gpu-mem-gib", "-3"]) == 2
    assert main(["plan", path, "--gpu-memory-utilization", "1.5"]) == 2


@pytest.mark.parametrize("name, gpus, pp", [("meta-llama__Llama-3.1-70B.json", 4, 2),
                                             ("google__gemma-3-27b-it.json", 2, 2),
                                             ("deepseek-ai__DeepSeek-V3.json", 8, 1)])
@pytest.mark.parametrize("runtime", ["ideal", "transformers"])
def test_per_gpu_kv_equals_layer_by_layer_sum(name, gpus, pp, runtime):
    from kvcalc.capacity import rank_spec
    from kvcalc.vllm import pp_layer_partition

    cfg = load_config(name)
    tp = 1 if runtime == "transformers" else gpus // pp
    pp = gpus if runtime == "transformers" else pp
    p = plan(cfg, gpu="h200", runtime=runtime, gpus=gpus,
             tensor_parallel_size=None if runtime == "transformers" else tp, pipeline_parallel_size=pp,
             batch=3, context=5000, solve_gpus=False)
    layers = kvcalc.kv_cache(rank_spec(kvcalc.read_spec(cfg), tp), batch=3, context=5000, runtime=runtime).layers
    stages, start = [], 0
    for n in pp_layer_partition(len(layers), pp):
        stages.append(sum(l.bytes for l in layers[start:start + n]))
        start += n
    assert p.kv_bytes == max(stages)


def test_merged_vllm_group_counts_each_layer_once():
    # one layer with 4 KV heads, 31 with 8: vLLM merges them into one uniform-type group whose block
    # spans every layer; a batch-1 8,192-token request holds 512 blocks of 16 tokens per layer.
    cfg = dict(LLAMA8, per_layer_config={"0": {"num_key_value_heads": 4}})
    p = plan(cfg, gpu="h100-sxm", runtime="vllm", batch=1, context=8192, max_model_len=8192)
    per_token = 31 * 8 * 128 * 2 * 2 + 4 * 128 * 2 * 2
    assert p.kv_bytes == 8192 * per_token


def test_vllm_total_kv_spans_pipeline_stages():
    cfg = load_config("meta-llama__Llama-3.1-70B.json")          # 80 layers x 8 KV heads x 128 x 2 x bf16
    p = plan(cfg, gpu="h100-sxm", runtime="vllm", gpus=2, tensor_parallel_size=1, pipeline_parallel_size=2,
             batch=4, context=8192, max_model_len=8192)
    assert p.kv_bytes_total == 4 * 8192 * 80 * 8 * 128 * 2 * 2
    assert p.kv_bytes == p.kv_bytes_total // 2


def test_max_model_len_beyond_the_model_warns():
    p = plan(load_config("meta-llama__Llama-3.2-1B.json"), gpu="h200", runtime="ideal", max_model_len=400_000,
             context=1000, solve_gpus=False)
    assert any("exceeds the config's max_position_embeddings 131,072" in w for w in p.warnings)
    assert "max_model_len (400,000 tokens)" in p.binding_constraint or p.max_context < 400_000
