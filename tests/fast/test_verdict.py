"""The verdict (kvcalc.verdict): three states, each with its fix, against vLLM's own words and arithmetic.

References: vLLM 0.33's planning code run by tests/oracles/vllm_oracle.py (tests/fixtures/vllm_0_33_oracle.json):
Llama-3.1-8B with ``--kv-cache-memory-bytes`` one byte short of one 131,072-token request is refused with
"the estimated maximum model length is 131056"; with 10 GiB and ``--max-model-len -1`` vLLM settles on 81,904.
Published parameter counts (data/params.csv, from the Hub's safetensors totals): Llama-3.1-70B 70,553,706,496;
Gemma-3-27B 27,432,406,640; bf16 = 2 bytes each. RTX 4090: 24,564 MiB (data/gpus.csv).
"""
from __future__ import annotations

import pytest
from paths import load_config, load_fixture

from kvcalc.capacity import deploy, fewest_gpus, plan
from kvcalc.verdict import fewest_gpus_text, gib, judge

LLAMA8, LLAMA70, GEMMA27 = "meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-70B", "google/gemma-3-27b-it"
GiB = 1 << 30


def oracle(name: str) -> dict:
    return next(c for c in load_fixture("vllm_0_33_oracle.json")["cases"] if c["name"] == name)


def verdict(model: str, batch: int, context: int, source: str = "given", **options):
    d = deploy(load_config(model), **options)
    return judge(d, plan(d, batch=batch, context=context), source), d


def test_fits_if_names_the_max_model_len_vllm_itself_estimates():
    case = oracle("llama31_8b_one_byte_short")
    assert "the estimated maximum model length is 131056" in case["outputs"]["error"]
    v, _ = verdict(LLAMA8, 1, 8192, "model", gpu="h100-sxm", kv_cache_memory=case["inputs"]["kv_cache_memory"])
    assert v.state == "fits_if" and v.longest == 131_056 and v.serve_max_model_len == 131_056
    assert v.sentence == "Fits if you serve with --max-model-len 131056 (the model's default 131,072 does not)"
    assert v.max_model_len == 131_072 and "the model's default" in v.max_model_len_note


def test_fits_up_to_the_length_vllm_auto_fits():
    """10 GiB of KV pool: vLLM's auto-fit (--max-model-len -1) settles on 81,904 tokens, so a plan served at
    the 8,192 the user asked for fits and says how far it could go."""
    auto = oracle("llama31_8b_autofit")
    assert auto["outputs"]["max_model_len"] == 81_904
    v, _ = verdict(LLAMA8, 1, 8192, "context", gpu="h100-sxm", kv_cache_memory=auto["inputs"]["kv_cache_memory"],
                   max_model_len=8192)
    assert v.state == "fits" and v.fix is None and v.longest == 81_904
    # (how many 8,192-token sequences fit at once is plan.max_batch's, not asserted here: vLLM logs
    # "Maximum concurrency 10.00x" for this pool, but one of its 5,120 blocks is the null block)
    # served at max_model_len 8,192, vLLM refuses a longer request: the longest needs the flag raised
    assert v.sentence.startswith("Fits: 1 sequence of 8,192 tokens (up to 81,904 tokens each with "
                                 "--max-model-len 81904); up to ")
    assert v.max_model_len == 8192 and "the context asked for" in v.max_model_len_note


def test_rtx_4090_default_story():
    """Issue 14's blocker: Llama-3.1-8B, batch 1, 8,192 tokens on an RTX 4090 said 'Fits: no' because vLLM's
    max_model_len was the model's 131,072. With the context as max_model_len it fits; with the default the
    verdict names the longest length that fits, the one vLLM's own refusal estimates (kvcalc.vllm's port of
    estimate_max_model_len, in the binding text)."""
    served, _ = verdict(LLAMA8, 1, 8192, "context", gpu="rtx-4090", max_model_len=8192)
    default, d = verdict(LLAMA8, 1, 8192, "model", gpu="rtx-4090")
    binding = plan(d, batch=1, context=8192).binding_constraint
    estimate = int(binding.split("estimated maximum model length ")[1].split(")")[0].replace(",", ""))
    assert served.state == "fits" and served.longest == estimate
    assert served.sentence.startswith(f"Fits: 1 sequence of 8,192 tokens (up to {estimate:,} tokens each "
                                      f"with --max-model-len {estimate})")
    assert default.state == "fits_if" and default.serve_max_model_len == estimate
    assert default.sentence == (f"Fits if you serve with --max-model-len {estimate} "
                                "(the model's default 131,072 does not)")


def test_fits_if_a_smaller_batch():
    served, d = verdict(LLAMA8, 8, 8192, "context", gpu="rtx-4090", max_model_len=8192)
    p = plan(d, batch=8, context=8192)
    assert served.state == "fits_if" and 1 <= p.max_batch < 8
    assert served.sentence.startswith(f"Fits if you lower the batch to {p.max_batch} sequences of 8,192 tokens")
    n = fewest_gpus(d, 8, 8192)
    assert f"or serve on {n} x GeForce RTX 4090 24GB (--tensor-parallel-size {n})" in served.sentence


def test_does_not_fit_70b_on_two_h100s():
    """70,553,706,496 x 2 B over 2 GPUs = 65.7 GiB of weights per GPU; what is left holds no 32k sequence."""
    v, d = verdict(LLAMA70, 16, 32768, "context", gpu="h100-sxm", gpus=2, max_model_len=32768)
    assert gib(70_553_706_496 * 2 // 2) == "65.7 GiB"
    n = fewest_gpus(d, 16, 32768)
    assert v.state == "does_not_fit"
    assert v.sentence.startswith("Does not fit: weights alone need 65.7 GiB per GPU")
    assert v.sentence.endswith(f"fewest NVIDIA H100 80GB HBM3 (SXM) GPUs: {n}")
    assert v.fix.startswith(f"serve on {n} x NVIDIA H100 80GB HBM3 (SXM) (--tensor-parallel-size {n})")


def test_70b_fits_with_4_bit_weights_and_fp8_kv():
    """int4 (AWQ layout) weights and an fp8 cache: 80 layers x 8 KV heads x 128 x 2 x 1 B / 2 GPUs = 81,920 B per
    token per GPU; 16 x 32,768 tokens = 40 GiB."""
    v, d = verdict(LLAMA70, 16, 32768, "context", gpu="h100-sxm", gpus=2, max_model_len=32768, dtype="int4",
                   kv_dtype="fp8_e4m3")
    assert plan(d, batch=16, context=32768).kv_bytes == 16 * 32768 * 81_920 == 40 * GiB
    assert v.state == "fits" and v.sentence.startswith("Fits: 16 sequences of 32,768 tokens")


@pytest.mark.parametrize("runtime", ["vllm", "transformers", "ideal"])
def test_gemma_3_27b_at_128k_on_a_24_gb_card(runtime):
    """27,432,406,640 x 2 B = 51.1 GiB of weights: more than a 24 GB card holds under any runtime."""
    opts = {"max_model_len": 131072} if runtime == "vllm" else {}
    v, d = verdict(GEMMA27, 1, 131072, "context", gpu="rtx-4090", runtime=runtime, **opts)
    assert gib(27_432_406_640 * 2) == "51.1 GiB"
    budget = int(0.9 * 24564 * 2**20) if runtime == "vllm" else 24564 * 2**20
    assert v.state == "does_not_fit"
    assert v.sentence.startswith(f"Does not fit: weights alone need 51.1 GiB per GPU (budget {gib(budget)})")
    assert (v.max_model_len is None) == (runtime != "vllm")


def test_a_context_past_the_model_s_maximum_is_refused_in_words():
    """vLLM 0.33 refuses max_model_len 131,073 for Llama-3.1-8B ("greater than the derived max_model_len
    (max_position_embeddings=131072.0 ...)" unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1): 131,073 tokens cannot be
    served at the model's default length; the ideal runtime caps at the same max_position_embeddings."""
    err = oracle("llama31_8b_len_over_derived")["outputs"]["error"]
    assert "max_position_embeddings=131072.0" in err and "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" in err
    v, _ = verdict(LLAMA8, 1, 131_073, "model", gpu="h100-sxm")
    assert v.state == "does_not_fit" and v.sentence == (
        "Does not fit: 131,073 tokens is more than the model's maximum context 131,072 "
        "(vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set)")
    assert v.fix == "lower the context to at most 131,072 tokens"
    v, _ = verdict(LLAMA8, 1, 131_073, gpu="h100-sxm", runtime="ideal")
    assert v.sentence == "Does not fit: 131,073 tokens is more than the model's maximum context 131,072"


def test_sampler_warm_up_is_named_when_it_is_the_activation_peak():
    """Qwen3.5-35B-A3B (bundled) on one H100 at 32k: vLLM 0.33's profiling run samples max_num_seqs = 1,024
    dummy requests (vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run; kvcalc.vllm.activation), which
    outweighs its 8,192-token forward pass; the fix names --max-num-seqs besides more GPUs."""
    v, d = verdict("Qwen/Qwen3.5-35B-A3B", 1, 32768, "context", gpu="h100-sxm", max_model_len=32768)
    assert v.state == "does_not_fit" and "the runtime's own reservations" in v.sentence
    assert "a smaller --max-num-seqs (vLLM's sampler warm-up for 1,024 requests" in v.fix
    fixed, _ = verdict("Qwen/Qwen3.5-35B-A3B", 1, 32768, "context", gpu="h100-sxm",
                       max_model_len=32768, max_num_seqs=128)
    assert fixed.state == "fits"


def test_no_reservation_fix_where_the_weights_alone_are_over_the_budget():
    """Llama-3.1-70B's 70,553,706,496 bf16 parameters (131.4 GiB) on one H100 (71.7 GiB of budget): a smaller
    --max-num-seqs frees activation memory, not weight memory, so the fix names GPUs only."""
    v, _ = verdict(LLAMA70, 1, 8192, "context", gpu="h100-sxm", max_model_len=8192)
    assert v.state == "does_not_fit" and v.sentence.startswith("Does not fit: weights alone need 131.4 GiB per GPU")
    assert "--max-num-seqs" not in v.fix


def test_llama_cpp_with_too_few_slots_fits_if_served_with_them():
    """llama-server's auto slots are 4 (common/common.h n_parallel = -1, the server's 'using n_parallel = 4'):
    batch 8 exceeds them, but a run of -np 8 -c 8 x 4,096 holds Llama-3.1-8B Q4_K_M (4.6 GiB) and 8 x 4,096 x
    128 KiB = 4 GiB of f16 cells on a 24 GB card. The verdict names those flags, plans with them and the plan
    runs as asked (its speed is not greyed out); one GPU count is planned, not searched."""
    v, d = verdict(LLAMA8, 8, 4096, gpu="rtx-4090", runtime="llama_cpp", gguf="Q4_K_M")
    assert v.state == "fits_if" and v.runs_as_asked
    assert v.sentence == ("Fits if you serve with -np 8 -c 32768 (as configured, batch 8 exceeds the 4 requests "
                          "the engine runs at once)")
    served = d.with_cache(d.kv_dtype, v.serve_options)
    assert (served.llama_cpp.n_parallel, served.llama_cpp.n_ctx) == (8, 32768)
    assert plan(served, batch=8, context=4096).fits
    assert "-np 8" in served.engine.plan_command("m", served, 8, 4096).text
    # under a layer split over two GPUs the same: Llama-3.1-70B Q4_K_M on 2 x H200 at batch 16
    v70, d70 = verdict(LLAMA70, 16, 8192, gpu="h200", gpus=2, runtime="llama_cpp", gguf="Q4_K_M")
    assert v70.sentence.startswith("Fits if you serve with -np 16 -c 131072 (as configured, batch 16 exceeds")
    assert plan(d70.with_cache(d70.kv_dtype, v70.serve_options), batch=16, context=8192).fits


def test_fewest_gpus_in_words() -> None:
    """A count where one was found; under an engine that plans the GPU count given, why there is none."""
    d = deploy(load_config(LLAMA8), gpu="rtx-4090", runtime="llama_cpp", gguf="Q4_K_M")
    assert fewest_gpus_text(d.engine, plan(d, batch=1, context=4096)) == "fewest GPUs of this type: 1"
    big = deploy(load_config(LLAMA70), gpu="rtx-4090", runtime="llama_cpp", gguf="Q4_K_M")
    assert fewest_gpus_text(big.engine, plan(big, batch=1, context=4096)) == (
        "fewest GPUs of this type: not one (llama.cpp: the GPU count given is planned, not searched)")


def test_llama_cpp_that_cannot_allocate_its_default_run_fits_if_sized_to_the_request():
    """llama-server's -c 0 is the model's training context: Llama-3.1-8B F16 at 131,072 cells needs 16 GiB of f16 KV
    (32 x 8 x 128 x 2 x 2 B a cell) beside 15 GiB of weights, over a 24 GB card; -c 8192 holds one 8,192-token
    request. The sentence gives the refusal, not llama.cpp's generic fix as well."""
    v, _ = verdict(LLAMA8, 1, 8192, gpu="rtx-4090", runtime="llama_cpp", gguf="F16")
    assert v.state == "fits_if" and v.sentence.startswith("Fits if you serve with -np 1 -c 8192 (as configured, "
                                                          "llama.cpp fails to allocate: ")
    assert v.sentence.endswith("cudaMalloc failed: out of memory))") and "lower -c" not in v.sentence



CAPS = [("vllm", {"max_num_seqs": 2}, "--max-num-seqs 4"),
        ("sglang", {"max_running_requests": 2}, "--max-running-requests 4"),
        ("tensorrt_llm", {"max_batch_size": 2}, "--max_batch_size 4")]


@pytest.mark.parametrize(("runtime", "cap", "flag"), CAPS)
def test_a_concurrency_cap_below_the_batch_is_a_flag_fix(runtime, cap, flag):
    """Batch 4 of Llama-3.1-8B at 8,192 tokens (4 x 1 GiB of bf16 KV beside 15 GiB of weights) fits an H100's memory;
    only the engine's cap of 2 requests at once binds. The verdict raises the cap, in the engine's own spelling
    (trtllm-serve's click options use underscores), plans with it and the plan runs as asked."""
    v, d = verdict(LLAMA8, 4, 8192, "context", gpu="h100-sxm", runtime=runtime, max_model_len=8192, **cap) \
        if runtime == "vllm" else verdict(LLAMA8, 4, 8192, gpu="h100-sxm", runtime=runtime, **cap)
    assert v.state == "fits_if" and v.runs_as_asked and v.sentence.startswith(f"Fits if you serve with {flag} ")
    served = d.with_cache(d.kv_dtype, v.serve_options)
    assert plan(served, batch=4, context=8192).fits
    assert flag in served.engine.plan_command("m", served, 4, 8192).text
