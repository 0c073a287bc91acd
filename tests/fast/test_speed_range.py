"""The speed estimate's range (issue 24 item 3): low-high from each category's measured spread, and
time to first token per prompt and for the whole batch as separate fields.

References: kvcalc.speed.SPREAD is recomputed from data/speed_measurements.csv (the published rows);
the range arithmetic is checked by hand (tokens/s divided by the spread's ends, seconds multiplied)."""
from __future__ import annotations

import math

import pytest

from kvcalc import deploy, speed
from kvcalc.catalog import bundled_config
from kvcalc.speed import estimate_speed
from kvcalc.speed_reference import (
    estimate_for,
    estimated_seconds,
    estimated_value,
    measured_spread,
    published_measurements,
)

ROWS = published_measurements()


def test_the_spread_constants_are_what_the_published_rows_give() -> None:
    assert speed.SPREAD == measured_spread()


def test_the_range_divides_the_point_by_the_spread_of_its_category() -> None:
    d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), gpu="h100-sxm", runtime="vllm")
    e = estimate_speed(d, 4, 4096)
    lo, hi = speed.SPREAD["dense"]
    assert e.decode_category == "dense" and e.prefill_category == "long prefill"
    assert math.isclose(e.decode_tokens_per_s_per_sequence_low, e.decode_tokens_per_s_per_sequence / hi)
    # the fast end stops at the datasheet bandwidth (H100 SXM 3,350 GB/s): point / 0.7 would be 1.1x it
    ceiling = 3350e9 / e.decode_bytes_per_step
    assert e.decode_tokens_per_s_per_sequence / lo > ceiling
    assert math.isclose(e.decode_tokens_per_s_per_sequence_high, ceiling)
    assert math.isclose(e.decode_tokens_per_s_total_low, 4 * e.decode_tokens_per_s_per_sequence_low)
    p_lo, p_hi = speed.SPREAD["long prefill"]
    # and the short end of the prefill at the datasheet bf16 rate (989 TFLOP/s): x 0.7 would be 0.83 of it
    floor = e.prefill_flops / 989e12
    assert e.ttft_seconds * p_lo < floor
    assert math.isclose(e.ttft_seconds_low, floor)
    assert math.isclose(e.ttft_seconds_high, e.ttft_seconds * p_hi)


PHYSICS_CASES = [("meta-llama/Llama-3.1-8B", "h100-sxm", 1, "vllm", {}), ("meta-llama/Llama-3.1-8B", "rtx-4090", 1,
                  "llama_cpp", {"gguf": "Q4_K_M"}), ("meta-llama/Llama-3.1-70B", "h200", 2, "sglang", {}),
                 ("Qwen/Qwen3-30B-A3B", "a100-80gb", 1, "vllm", {}), ("openai/gpt-oss-20b", "rtx-4090", 1,
                  "llama_cpp", {"gguf": "Q4_K_M"}), ("meta-llama/Llama-3.1-70B", "a100-80gb", 4, "tensorrt_llm", {}),
                 ("meta-llama/Llama-3.1-8B", "t4", 1, "vllm", {"dtype": "float16"}),
                 ("meta-llama/Llama-3.1-70B", "h100-sxm", 4, "vllm", {"tensor_parallel_size": 2,
                                                                       "pipeline_parallel_size": 2}),
                 ("meta-llama/Llama-3.1-70B", "rtx-4090", 3, "llama_cpp", {"gguf": "Q4_K_M"}),
                 ("deepseek-ai/DeepSeek-V2-Lite", "mi300x", 1, "llama_cpp", {"gguf": "Q4_0", "flash_attn": "off"}),
                 ("deepseek-ai/DeepSeek-V2-Lite", "rtx-3090", 1, "llama_cpp", {"gguf": "Q4_0", "flash_attn": "off"}),
                 ("meta-llama/Llama-3.1-8B", "mi300x", 2, "vllm", {}), ("deepseek-ai/DeepSeek-R1", "mi300x", 8,
                                                                        "sglang", {})]


@pytest.mark.parametrize(("model", "gpu", "gpus", "runtime", "kw"), PHYSICS_CASES,
                         ids=[f"{c[0].split('/')[1]}-{c[1]}x{c[2]}-{c[3]}" for c in PHYSICS_CASES])
@pytest.mark.parametrize(("batch", "context"), [(1, 128), (1, 8192), (8, 4096), (64, 32768)])
def test_no_end_of_a_range_is_faster_than_the_datasheet_allows(model, gpu, gpus, runtime, kw, batch,
                                                                 context) -> None:
    """The brief's physics: a decode step reads at least its bytes at the datasheet bandwidth and a
    prefill does its FLOPs at no more than the datasheet tensor rate, so the fast end of each range stops
    there (data/gpus.csv bandwidth_gbps and the rate the estimate names). Pipeline stages and a llama.cpp layer
    split run one after another: their bytes and FLOPs add up."""
    d = deploy(bundled_config(model), gpu=gpu, gpus=gpus, runtime=runtime, **kw)
    e = estimate_speed(d, batch, context)
    bandwidth = d.gpu.bandwidth_gbps * 1e9
    assert e.decode_tokens_per_s_per_sequence_high * e.decode_bytes_per_step <= bandwidth * (1 + 1e-9)
    assert e.decode_tokens_per_s_total_high <= batch * bandwidth / e.decode_bytes_per_step * (1 + 1e-9)
    rate = {"bf16": d.gpu.bf16_tflops, "fp16": d.gpu.fp16_tflops, "fp8": d.gpu.fp8_tflops, "fp4": d.gpu.fp4_tflops,
            speed.LLAMA_CPP_RATE_NAME: d.gpu.fp16_acc16_tflops or d.gpu.bf16_tflops or d.gpu.fp16_tflops}
    peak = rate[e.prefill_tensor_rate] * 1e12
    assert e.ttft_seconds_low >= e.prefill_flops / (d.tp * peak) * (1 - 1e-9)
    # one prompt does 1 / batch of the batch's FLOPs (every prompt the same length)
    assert e.ttft_seconds_per_prompt_low >= e.prefill_flops / batch / (d.tp * peak) * (1 - 1e-9)
    assert e.ttft_seconds_per_prompt_low <= e.ttft_seconds_low * (1 + 1e-9)
    assert e.decode_tokens_per_s_per_sequence_low <= e.decode_tokens_per_s_per_sequence <= \
        e.decode_tokens_per_s_per_sequence_high


def test_ttft_per_prompt_is_one_prompt_and_the_batch_field_is_all_of_them() -> None:
    """70B at batch 16 on 2 x H100 with an 8,192-token prompt: the whole batch's prefill is about 16 x
    one prompt's (2 x 70e9 x 8,192 x 16 FLOP; the page's tile showed it as 'one prompt')."""
    d = deploy(bundled_config("meta-llama/Llama-3.1-70B"), gpu="h100-sxm", gpus=2, runtime="vllm")
    e = estimate_speed(d, 16, 8192)
    one = estimate_speed(d, 1, 8192)
    assert math.isclose(e.ttft_seconds_per_prompt, one.ttft_seconds, rel_tol=1e-12)
    assert 12 < e.ttft_seconds / e.ttft_seconds_per_prompt < 17
    assert e.ttft_seconds_per_prompt_low <= e.ttft_seconds_per_prompt <= e.ttft_seconds_per_prompt_high


def test_the_prefill_formula_line_says_whose_prefill_it_is() -> None:
    """At batch 8 the third formula line is the whole batch's prefill (the tile beside it is one prompt's),
    with 8 x one prompt's FLOPs; at batch 1 it is the time to first token."""
    d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), gpu="h100-sxm", runtime="vllm")
    eight, one = estimate_speed(d, 8, 8192), estimate_speed(d, 1, 8192)
    assert eight.formulas[2].startswith(f"prefill of the whole batch, 8 prompts in one pass = {eight.prefill_flops:,}")
    assert eight.prefill_flops == 8 * one.prefill_flops
    assert eight.formulas[2].endswith(f"= {eight.ttft_seconds * 1e3:.1f} ms")
    assert one.formulas[2].startswith("time to first token = ")


def test_categories_follow_the_deployment() -> None:
    cfg = bundled_config("meta-llama/Llama-3.1-8B")
    assert estimate_speed(deploy(cfg, gpu="h100-sxm", gpus=2), 1, 128).decode_category == "tensor parallel"
    assert estimate_speed(deploy(cfg, gpu="h100-sxm"), 1, 128).prefill_category == "short prefill"
    q = deploy(cfg, gpu="rtx-4090", runtime="llama_cpp", gguf="Q4_K_M")
    assert estimate_speed(q, 1, 1024).decode_category == "quantized"
    moe = deploy(bundled_config("Qwen/Qwen3-30B-A3B"), gpu="h100-sxm")
    assert estimate_speed(moe, 1, 1024).decode_category == "moe"


def test_an_amd_gpu_has_its_own_category_and_time_factors(monkeypatch) -> None:
    """On an MI300X memory is read at 1 / kvcalc.speed.AMD_BANDWIDTH_FACTOR of the NVIDIA-fitted bandwidth share and
    the fixed seconds (with the all-reduce) are AMD_FIXED_FACTOR times theirs; a compute-bound part (a 4 x 4,096-token
    prefill) keeps their share of the tensor rate, as every AMD row of data/ is bandwidth-bound. The estimate is in the
    ``AMD GPU`` category whatever the model or split; the pair is the least-squares fit of log r over data/'s AMD rows
    on the fit script's 0.05 grid (each row's estimate is memory-bound + fixed seconds, so the grid is searched here
    from two estimates a row)."""
    cfg = bundled_config("meta-llama/Llama-3.1-8B")
    d = deploy(cfg, gpu="mi300x", gpus=2, runtime="vllm")
    e = estimate_speed(d, 4, 4096)
    assert e.decode_category == e.prefill_category == "AMD GPU"
    assert e.decode_bound == "memory bandwidth" and e.prefill_bound == "compute"
    assert any("AMD GPU" in a and "read at 1/2.3 of their bandwidth share and the fixed costs are 1.1x" in a
               and "extrapolation" in a for a in e.assumptions)
    monkeypatch.setattr(speed, "AMD_BANDWIDTH_FACTOR", 1.0)
    monkeypatch.setattr(speed, "AMD_FIXED_FACTOR", 1.0)
    base = estimate_speed(d, 4, 4096)
    flat = base.decode_fixed_seconds + base.decode_allreduce_seconds
    assert math.isclose(e.decode_step_seconds, 2.3 * (base.decode_step_seconds - flat) + 1.1 * flat)
    monkeypatch.setattr(speed, "AMD_FIXED_FACTOR", 1.1)
    assert math.isclose(estimate_speed(d, 4, 4096).ttft_seconds, e.ttft_seconds)    # compute-bound: no 2.3
    amd = [m for m in ROWS if m.gpu == "mi300x"]
    assert len(amd) >= 20
    parts = []
    monkeypatch.setattr(speed, "AMD_FIXED_FACTOR", 1.0)
    for m in amd:
        monkeypatch.setattr(speed, "AMD_BANDWIDTH_FACTOR", 1.0)
        one = estimate_for(m)
        monkeypatch.setattr(speed, "AMD_BANDWIDTH_FACTOR", 2.0)
        two = estimate_for(m)
        assert (two.prefill_bound if m.metric == "ttft_ms" else two.decode_bound) == "memory bandwidth", m.id
        memory = estimated_seconds(m, two) - estimated_seconds(m, one)
        parts.append((m.measured_seconds, memory, estimated_seconds(m, one) - memory))
    grid = [(1 + i * 0.05, 0.5 + j * 0.05) for i in range(61) for j in range(31)]
    best = min(grid, key=lambda ab: sum(math.log(s / (ab[0] * v + ab[1] * f)) ** 2 for s, v, f in parts))
    assert best == pytest.approx((2.3, 1.1))


@pytest.mark.parametrize("m", ROWS, ids=lambda m: m.id)
def test_every_published_figure_is_inside_its_shown_range(m) -> None:
    e = estimate_for(m)
    if m.metric == "decode_tokens_per_s_per_sequence":
        low, high = e.decode_tokens_per_s_per_sequence_low, e.decode_tokens_per_s_per_sequence_high
    elif m.metric == "ttft_ms":
        low, high = e.ttft_seconds_low * 1e3, e.ttft_seconds_high * 1e3
    else:       # totals, prefill and static-batch rates: the point scaled by the category's spread
        lo, hi = speed.SPREAD[e.decode_category if m.is_decode else e.prefill_category]
        point = estimated_value(m, e)
        low, high = point / hi, point / lo
    assert low * (1 - 1e-9) <= m.value <= high * (1 + 1e-9), f"{m.id}: {m.value} outside {low:.4g}-{high:.4g}"


def test_the_amd_assumption_line_states_the_counts_the_data_give() -> None:
    """The AMD assumption line's literals ('24 published MI300X figures', 'up to 3.1x') are the count of data/'s AMD
    rows and the largest held-out AMD r, rounded to 0.1: a new row that changes either fails here."""
    from kvcalc.speed_reference import heldout_measurements, speed_ratio

    d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), gpu="mi300x", runtime="vllm")
    line = next(a for a in estimate_speed(d, 1, 1024).assumptions if a.startswith("AMD GPU: "))
    amd = [m for m in ROWS if m.gpu == "mi300x"]
    worst = max(speed_ratio(m, estimate_for(m)) for m in heldout_measurements() if m.gpu == "mi300x")
    assert f"{len(amd)} published MI300X figures" in line and f"up to {worst:.1f}x" in line


def test_the_llama_cpp_gpu_line_states_what_the_data_give() -> None:
    """kvcalc.speed.LLAMA_CPP_FITTED_GPUS is the set of GPUs of data/'s llama.cpp rows; a llama.cpp estimate on a GPU
    outside it (an A100) says so, and its 'up to 2.0x' (decode) and 'up to 12.5x' (prefill) are the largest r of the
    held-out llama.cpp rows on such GPUs (not an AMD GPU's: its own line covers it); on an RTX 4090 (fitted) the line is
    absent."""
    from kvcalc.speed_reference import category, heldout_measurements, speed_ratio

    assert {m.gpu for m in ROWS if m.runtime == "llama_cpp"} == speed.LLAMA_CPP_FITTED_GPUS
    cfg = bundled_config("meta-llama/Llama-3.1-8B")

    def line(gpu: str) -> list[str]:
        return [a for a in estimate_speed(deploy(cfg, gpu=gpu, runtime="llama_cpp", gguf="Q4_K_M"), 1, 1024).assumptions
                if a.startswith("llama.cpp on ")]

    assert not line("rtx-4090")
    (text,) = line("a100-80gb")
    fitted, amd = speed.LLAMA_CPP_FITTED_GPUS, speed.UNCALIBRATED_VENDORS.values()
    outside = [m for m in heldout_measurements()
               if m.runtime == "llama_cpp" and m.gpu not in fitted and category(m) not in amd]
    decode = max(speed_ratio(m, estimate_for(m)) for m in outside if m.is_decode)
    prefill = max(speed_ratio(m, estimate_for(m)) for m in outside if not m.is_decode)
    assert f"up to {decode:.1f}x this decode's time" in text and f"up to {prefill:.1f}x this prefill's" in text


def test_an_estimate_for_a_sparse_attention_model_says_it_reads_every_cached_token() -> None:
    """GLM-5's DeepSeek sparse attention (an indexer key per token: AttentionCache.indexer_dim) attends a top-k of the
    cache; the estimate reads and attends all of it, and says so. A dense-attention model has no such line."""
    line = "sparse attention (an indexer picks the cached tokens each query attends) is not modelled"
    glm = estimate_speed(deploy(bundled_config("zai-org/GLM-5"), gpu="h200", gpus=8, tensor_parallel_size=8), 1, 65_536)
    assert any(a.startswith(line) for a in glm.assumptions)
    llama = estimate_speed(deploy(bundled_config("meta-llama/Llama-3.1-8B"), gpu="h200"), 1, 65_536)
    assert not any(a.startswith(line) for a in llama.assumptions)
