"""Speed estimates (kvcalc.speed): the roofline arithmetic checked by hand, and its refusals.

Hand figures: Llama-3.1-8B in bf16 has 8,030,261,248 parameters (transformers' own count) =
16,060,522,496 weight bytes, and caches 131,072 bytes per token (32 layers x 8 KV heads x 128 x
K+V x 2 B).
"""
from __future__ import annotations

import math

import pytest
from paths import load_config

import kvcalc
from kvcalc import speed
from kvcalc.gpus import custom_gpu
from kvcalc.speed import GB, TFLOP, estimate_speed, expected_experts

LLAMA_WEIGHTS = 8_030_261_248 * 2
LLAMA_KV_PER_TOKEN = 131_072
LLAMA_EMBEDDING = 128_256 * 4096 * 2        # the input table (untied): a step reads only its batch rows


FIXED = 32 * speed.LAYER_OVERHEAD_S          # 32 decoder layers x the fixed per-layer cost (dense: no experts)


def llama_read(batch: int) -> int:
    """Weight bytes one decode step reads: everything but the input table's rows not looked up."""
    return LLAMA_WEIGHTS - LLAMA_EMBEDDING + batch * 4096 * 2


def _llama(runtime: str = "vllm", **options):
    return kvcalc.deploy(load_config("meta-llama/Llama-3.1-8B"), runtime=runtime, **options)


def test_decode_reads_the_weights_and_every_sequence_cache_once_per_step() -> None:
    d = _llama(gpu="h100-sxm")
    e = estimate_speed(d, 4, 2048, bandwidth_efficiency=0.5, compute_efficiency=0.5)
    kv = 4 * 2048 * LLAMA_KV_PER_TOKEN
    assert e.decode_weight_bytes == llama_read(4) and e.decode_kv_bytes == kv
    step = (llama_read(4) + kv) / (3350 * GB * 0.5) + FIXED  # H100 SXM: 3,350 GB/s (data/gpus.csv)
    assert e.decode_fixed_seconds == FIXED and e.decode_allreduce_seconds == 0
    assert e.decode_bound == "memory bandwidth"
    assert math.isclose(e.decode_step_seconds, step, rel_tol=1e-12)
    assert math.isclose(e.decode_tokens_per_s_per_sequence, 1 / step, rel_tol=1e-12)
    assert math.isclose(e.decode_tokens_per_s_total, 4 / step, rel_tol=1e-12)
    assert e.quality == "estimated" and e.assumptions


def test_gqa_and_mqa_speed_decoding_as_they_shrink_the_cache() -> None:
    """The seeds' lesson: every step reads the whole cache, so fewer KV heads decode faster."""
    from kvcalc.variants import apply_variant

    cfg = load_config("meta-llama/Llama-3.1-8B")
    spec = kvcalc.read_spec(cfg)
    rates = {}
    for variant in ("mha", "gqa", "mqa"):
        s = apply_variant(spec, variant, kv_heads=8)
        d = kvcalc.deploy(s, config_dict=cfg, gpu="h100-sxm", runtime="vllm")
        rates[variant] = estimate_speed(d, 16, 32768).decode_tokens_per_s_per_sequence
    assert rates["mha"] < rates["gqa"] < rates["mqa"]


def test_prefill_flops_are_two_per_parameter_per_token_plus_causal_attention() -> None:
    d = _llama(gpu="h100-sxm")
    p = 1024
    e = estimate_speed(d, 1, p, compute_efficiency=0.5)
    # 32 layers x 32 query heads x (128 + 128) x 2 FLOP x sum_{t=1..P} t
    attention = 32 * 2 * 32 * 256 * (p * (p + 1) // 2)
    assert e.prefill_flops == 2 * 8_030_261_248 * p + attention
    assert e.prefill_bound == "compute"
    # compute-bound: the FLOPs at half the bf16 rate, plus PREFILL_OVERLAP of the weight read (all the
    # weights and the 1,024 tokens' cache written, at 77 % of 3,350 GB/s), the fixed per-layer cost of
    # any forward pass and of a prefill (32 layers each), and the fixed cost once
    read = (LLAMA_WEIGHTS + p * LLAMA_KV_PER_TOKEN) / (3350 * GB * speed.DEFAULT_BANDWIDTH_EFFICIENCY)
    ttft = (e.prefill_flops / (989 * TFLOP * 0.5) + speed.PREFILL_OVERLAP * read + FIXED
            + 32 * speed.PREFILL_LAYER_OVERHEAD_S + speed.TTFT_FIXED_S)
    assert e.prefill_tensor_rate == "bf16"
    assert math.isclose(e.ttft_seconds, ttft, rel_tol=1e-9)


def test_tensor_parallel_splits_the_bytes_each_gpu_reads() -> None:
    one = estimate_speed(_llama(gpu="h100-sxm"), 1, 4096)
    two = estimate_speed(_llama(gpu="h100-sxm", gpus=2), 1, 4096)
    assert two.decode_kv_bytes * 2 == one.decode_kv_bytes
    assert abs(two.decode_weight_bytes * 2 - one.decode_weight_bytes) < 1 << 20
    # two all-reduces per layer of 1 token x 4,096 x 2 B, ring: 2 x (2 - 1) / 2 of it over the H100's
    # 450 GB/s NVLink per direction, plus the latency per collective
    allreduce = 2 * 32 * (speed.ALLREDUCE_LATENCY_S + 4096 * 2 / (450 * GB))
    assert math.isclose(two.decode_allreduce_seconds, allreduce, rel_tol=1e-12)
    bw = 3350 * GB * speed.DEFAULT_BANDWIDTH_EFFICIENCY
    assert math.isclose(two.decode_step_seconds,
                        (two.decode_weight_bytes + two.decode_kv_bytes) / bw + FIXED + allreduce, rel_tol=1e-12)
    assert 1.25 * one.decode_tokens_per_s_per_sequence < two.decode_tokens_per_s_per_sequence


def test_moe_reads_only_the_experts_a_batch_activates() -> None:
    """Qwen3-30B-A3B: 128 experts, 8 per token. One token touches 8 experts per layer; 64 tokens
    128 x (1 - (120/128)^64) = 125.9 on average under uniform routing."""
    assert math.isclose(expected_experts(128, 8, 1), 8.0)
    assert math.isclose(expected_experts(128, 8, 64), 128 * (1 - (120 / 128) ** 64))
    d = kvcalc.deploy(load_config("Qwen/Qwen3-30B-A3B"), gpu="h100-sxm", runtime="vllm")
    params = d.weights.params
    one, many = estimate_speed(d, 1, 1024), estimate_speed(d, 64, 1024)
    share = params.moe_experts / params.total
    unread_table = 151_936 * 2048 * 2 - 2048 * 2           # untied input table, but the one row looked up
    assert math.isclose((one.decode_weight_bytes + unread_table) / d.weights_rank, 1 - share * (1 - 8 / 128),
                        rel_tol=1e-6)
    assert one.decode_weight_bytes < many.decode_weight_bytes <= d.weights_rank
    assert any("uniform routing" in a for a in one.assumptions)


def test_the_fixed_cost_follows_the_engine_family_and_the_gpu_vendor() -> None:
    """Qwen3-30B-A3B (config: 48 layers, 8 experts a token): a decode step's fixed cost is 48 x (per-layer +
    8 x per-expert) in the serving engines (vLLM / SGLang's fused_moe, TensorRT-LLM's own kernels) and
    48 x (per-layer + per-MoE-layer) under llama.cpp's one-launch mul_mat_id (``ideal`` follows it), Metal's
    costs on an Apple GPU (data/gpus.csv vendor Apple); Llama-3.1-8B (32 layers, dense) on an Apple GPU pays
    the Metal per-layer cost instead of the CUDA-graph one."""
    cfg = load_config("Qwen/Qwen3-30B-A3B")
    for runtime, per_layer in (("vllm", 8 * speed.EXPERT_OVERHEAD_S), ("sglang", 8 * speed.EXPERT_OVERHEAD_S),
                               ("tensorrt_llm", 8 * speed.TRTLLM_EXPERT_OVERHEAD_S),
                               ("ideal", speed.MOE_LAYER_OVERHEAD_S)):
        e = estimate_speed(kvcalc.deploy(cfg, gpu="h100-sxm", runtime=runtime), 1, 1024)
        assert math.isclose(e.decode_fixed_seconds, 48 * (speed.LAYER_OVERHEAD_S + per_layer), rel_tol=1e-12)
    apple = estimate_speed(kvcalc.deploy(cfg, gpu="m2-ultra-192gb", runtime="ideal"), 1, 1024)
    assert math.isclose(apple.decode_fixed_seconds,
                        48 * (speed.METAL_LAYER_OVERHEAD_S + speed.METAL_MOE_LAYER_OVERHEAD_S), rel_tol=1e-12)
    mac = estimate_speed(_llama(gpu="m2-ultra-192gb", runtime="ideal"), 1, 1024)
    assert math.isclose(mac.decode_fixed_seconds, 32 * speed.METAL_LAYER_OVERHEAD_S, rel_tol=1e-12)
    assert speed.METAL_LAYER_OVERHEAD_S > speed.LAYER_OVERHEAD_S


def test_a_grouped_moe_prefill_pays_top_k_and_llama_cpps_pays_every_touched_expert() -> None:
    """A 512-token prompt of Qwen3-30B-A3B touches all 128 experts of a layer (uniform routing): vLLM's
    fused_moe is one grouped launch (8 experts' fixed cost, as in decode), llama.cpp's mul_mat_id a matmul
    per touched expert (kvcalc.speed.GROUPED_MOE_RUNTIMES)."""
    cfg = load_config("Qwen/Qwen3-30B-A3B")
    vllm = kvcalc.deploy(cfg, gpu="h100-sxm", runtime="vllm")
    ideal = kvcalc.deploy(cfg, gpu="h100-sxm", runtime="ideal")
    touched = speed.expected_experts(128, 8, 512)
    assert touched > 127.9
    assert math.isclose(speed._fixed_seconds(vllm, 48, touched),
                        48 * (speed.LAYER_OVERHEAD_S + 8 * speed.EXPERT_OVERHEAD_S), rel_tol=1e-12)
    assert math.isclose(speed._fixed_seconds(ideal, 48, touched), 48 * (
        speed.LAYER_OVERHEAD_S + speed.MOE_LAYER_OVERHEAD_S + touched * speed.FUSED_EXPERT_OVERHEAD_S), rel_tol=1e-12)


def test_a_gpu_without_figures_gets_words_not_a_number() -> None:
    d = _llama(gpu_mem_gib=80)
    e = estimate_speed(d, 1, 1024)
    assert e.decode_tokens_per_s_per_sequence is None and e.ttft_seconds is None
    assert any("bandwidth unknown" in u for u in e.unavailable)
    a10g = estimate_speed(_llama(gpu="a10g"), 1, 1024)       # AWS A10G: bandwidth known, no tensor rate published
    assert a10g.decode_tokens_per_s_per_sequence and a10g.ttft_seconds is None
    assert any("FLOP/s unknown" in u for u in a10g.unavailable)
    # the formulas name the missing figure instead of printing a rate of 0
    assert "unknown GB/s" in e.formulas[0] and " 0 GB/s" not in e.formulas[0]
    assert "unknown bf16 TFLOP/s" in a10g.formulas[2] and " 0 bf16" not in a10g.formulas[2]


@pytest.mark.parametrize(("gpu", "datasheet"), [("t4", 65.0), ("v100-16gb", 125.0), ("v100-32gb", 112.0)])
def test_a_gpu_without_bf16_prefills_at_its_fp16_tensor_rate(gpu: str, datasheet: float) -> None:
    """Turing and Volta have no bf16: the engines run the model in fp16 there, so a prefill runs at the datasheet's
    dense FP16 tensor rate (T4 65, V100 SXM2 125 / PCIe 112 TFLOP/s: 320 or 640 tensor cores x boost clock x 128
    FLOP/clk); the fixed costs are the same as on any CUDA GPU (an H100's, the same 32 layers)."""
    from kvcalc.speed import DEFAULT_COMPUTE_EFFICIENCY as ETA

    e = estimate_speed(_llama(gpu=gpu, dtype="float16"), 1, 4096)
    h100 = estimate_speed(_llama(gpu="h100-sxm", dtype="float16"), 1, 4096)
    assert e.prefill_tensor_rate == "fp16" and e.prefill_bound == "compute" and not e.unavailable
    compute = e.prefill_flops / (datasheet * TFLOP * ETA)
    h100_compute = h100.prefill_flops / (989 * TFLOP * ETA)      # H100 SXM dense bf16 / fp16: 989 TFLOP/s
    assert math.isclose(e.ttft_seconds - compute, h100.ttft_seconds - h100_compute, rel_tol=1e-9)
    assert any("dense fp16 tensor rate" in a for a in e.assumptions)


def test_a_custom_gpu_can_be_given_both_figures() -> None:
    gpu = custom_gpu(24, bandwidth_gbps=1000, bf16_tflops=100)
    e = estimate_speed(_llama(gpu=gpu), 1, 1024, bandwidth_efficiency=1.0)
    assert math.isclose(e.decode_step_seconds, (llama_read(1) + 1024 * LLAMA_KV_PER_TOKEN) / (1000 * GB) + FIXED)
    assert e.ttft_seconds is not None


@pytest.mark.parametrize("bad", [0, 1.5, -0.1, True, "0.5"])
def test_efficiency_must_be_a_share(bad) -> None:
    with pytest.raises(kvcalc.InputError, match="efficiency"):
        estimate_speed(_llama(gpu="h100-sxm"), 1, 1024, bandwidth_efficiency=bad)


def test_cli_plan_prints_and_exports_the_estimate(capsys) -> None:
    from kvcalc.cli import main

    assert main(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--batch", "4", "--context", "2048",
                 "--offline", "--bandwidth-efficiency", "0.5"]) == 0
    out = capsys.readouterr().out
    step = (llama_read(4) + 4 * 2048 * LLAMA_KV_PER_TOKEN) / (3350 * GB * 0.5) + FIXED
    assert f"decode (estimated): {1 / step:,.1f} tokens/s per sequence" in out
    assert "time to first token (estimated)" in out and "speed assumes:" in out
    assert main(["plan", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm", "--offline", "--json"]) == 0
    import json

    speed = json.loads(capsys.readouterr().out)["speed"]
    assert speed["quality"] == "estimated" and speed["decode_tokens_per_s_per_sequence"] > 0
    assert main(["plan", "meta-llama/Llama-3.1-8B", "--gpu-mem-gib", "24", "--offline"]) == 0
    assert "no speed estimate for Custom GPU: memory bandwidth unknown" in capsys.readouterr().out


@pytest.mark.parametrize("model,options", [("meta-llama/Llama-3.1-8B", {"gpu": "h100-sxm"}),
                                           ("google/gemma-3-27b-it", {"gpu": "h100-sxm", "gpus": 2}),
                                           ("Qwen/Qwen3-30B-A3B", {"gpu": "a100-80gb"}),
                                           ("meta-llama/Llama-3.1-8B", {"gpu": "t4"}),
                                           ("google-t5/t5-small", {"gpu": "rtx-4090"}),
                                           ("Qwen/Qwen3-30B-A3B", {"gpu": "mi300x", "gpus": 2})])
def test_the_vectorized_grid_equals_the_estimate_point_by_point(model: str, options: dict) -> None:
    from kvcalc.speed import decode_rate_grid

    d = kvcalc.deploy(load_config(model), runtime="ideal", **options)
    batches, contexts = [1, 3, 64], [1, 500, 4096, 40_000]
    grid = decode_rate_grid(d, batches, contexts)
    for i, b in enumerate(batches):
        for j, t in enumerate(contexts):
            assert math.isclose(grid[i, j], estimate_speed(d, b, t).decode_tokens_per_s_per_sequence, rel_tol=1e-12)


def test_a_large_batch_pays_its_compute_bound_gemms_and_its_cache_read_one_after_the_other() -> None:
    """Batch 1,024 at 1,024 tokens on one H100 (989 TFLOP/s bf16, 3,350 GB/s, both at 0.5): the weight
    GEMMs' 2 x 8,030,261,248 x 1,024 FLOPs take 33 ms, longer than the 16 GB weight read (9.6 ms); the
    attention kernels then read 1,024 x 1,024 x 131,072 B of cache (82 ms) on their own. The step is the
    sum of the two rooflines (kernels run one after the other), not the max of the totals."""
    d = _llama(gpu="h100-sxm")
    b, t = 1024, 1024
    e = estimate_speed(d, b, t, bandwidth_efficiency=0.5, compute_efficiency=0.5)
    bw, rate = 3350 * GB * 0.5, 989 * TFLOP * 0.5
    gemm = 2 * 8_030_261_248 * b / rate
    attention = 32 * 2 * 32 * 256 * t * b / rate                 # 2 x heads x (k + v dim) per attended token
    kv = b * t * LLAMA_KV_PER_TOKEN / bw
    assert gemm > llama_read(b) / bw and kv > attention
    assert math.isclose(e.decode_step_seconds, gemm + kv + FIXED, rel_tol=1e-12)
    assert e.decode_bound == "compute"


def test_integer_weights_are_read_at_the_quantized_share_and_say_so() -> None:
    """A 4-bit checkpoint given by its measured size (4.5 GiB, under 0.6 of the 16-bit count): its weight
    read runs at QUANTIZED_BANDWIDTH_SHARE of the bandwidth share, and the assumptions name it (the
    issue: --weights-gib for a 4-bit checkpoint dropped the dequantization caveat)."""
    d = _llama(gpu="h100-sxm", weights_gib=4.5)
    e = estimate_speed(d, 1, 1024, bandwidth_efficiency=0.5, compute_efficiency=0.5)
    bw = 3350 * GB * 0.5
    step = e.decode_weight_bytes / (bw * speed.QUANTIZED_BANDWIDTH_SHARE) + e.decode_kv_bytes / bw + FIXED
    assert e.decode_category == "quantized"
    assert math.isclose(e.decode_step_seconds, step, rel_tol=1e-12)
    assert any("integer-quantized" in a for a in e.assumptions)


def test_a_configured_speculative_decoding_is_named_as_not_modelled() -> None:
    """vLLM's --speculative-config (here n-gram, 4 proposed tokens): the estimate stays one token a step and says
    so; without it the assumption reads 'no speculative decoding'."""
    cfg = load_config("meta-llama/Llama-3.1-8B")
    spec = kvcalc.deploy(cfg, gpu="h100-sxm", speculative_config={"method": "ngram", "num_speculative_tokens": 4})
    plain = kvcalc.deploy(cfg, gpu="h100-sxm")
    e, e0 = estimate_speed(spec, 1, 4096), estimate_speed(plain, 1, 4096)
    assert "speculative decoding (ngram, 4 tokens a step) not modelled" in e.assumptions[-1]
    assert e0.assumptions[-1].endswith("no speculative decoding")


def test_a_llama_cpp_draft_model_is_named_as_not_modelled() -> None:
    """llama-server -md (LlamaCppOptions.speculative, set by a pasted -md / -hfd)."""
    from kvcalc.llama_cpp.options import LlamaCppOptions

    d = kvcalc.deploy(load_config("meta-llama/Llama-3.1-8B"), gpu="rtx-4090", runtime="llama_cpp", gguf="Q4_K_M",
                      options=LlamaCppOptions(speculative=True))
    assert "speculative decoding (a draft model, -md) not modelled" in estimate_speed(d, 1, 4096).assumptions[-1]
