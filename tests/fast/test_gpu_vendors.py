"""Engines refuse GPUs they have no backend for (kvcalc.engines.base.Engine.check_device), in words.

References: vLLM's documented GPU backends are CUDA and ROCm (its installation guide; on Apple silicon it runs
on the CPU only); SGLang's the same; TensorRT-LLM runs on NVIDIA GPUs only; llama.cpp has a Metal backend and
transformers runs on torch's MPS device, so both plan an Apple GPU."""
from __future__ import annotations

import pytest
from paths import load_config

from kvcalc import deploy
from kvcalc.errors import UnsupportedError
from kvcalc.gpus import custom_gpu

LLAMA8 = "meta-llama/Llama-3.1-8B"


@pytest.mark.parametrize(("runtime", "gpu", "vendor"), [("vllm", "m3-max-128gb", "Apple"),
                                                         ("sglang", "m2-ultra-192gb", "Apple"),
                                                         ("tensorrt_llm", "mi300x", "AMD")])
def test_a_serving_engine_refuses_a_gpu_it_has_no_backend_for(runtime: str, gpu: str, vendor: str) -> None:
    with pytest.raises(UnsupportedError, match=f"has no backend for {vendor} GPUs"):
        deploy(load_config(LLAMA8), gpu=gpu, runtime=runtime)


@pytest.mark.parametrize(("runtime", "gpu", "kw"), [("vllm", "mi300x", {}), ("sglang", "mi300x", {}),
                                                    ("llama_cpp", "m3-max-128gb", {"gguf": "Q4_K_M"}),
                                                    ("transformers", "m3-max-128gb", {}),
                                                    ("ideal", "m3-max-128gb", {})])
def test_the_others_plan_it(runtime: str, gpu: str, kw: dict) -> None:
    assert deploy(load_config(LLAMA8), gpu=gpu, runtime=runtime, **kw).gpu.key == gpu


def test_a_custom_gpu_has_no_vendor_to_refuse() -> None:
    assert deploy(load_config(LLAMA8), gpu=custom_gpu(48.0), runtime="tensorrt_llm").gpu.vendor == ""


def test_vllm_refuses_a_quantization_below_its_minimum_compute_capability() -> None:
    """vLLM 0.33's Fp8Config.get_min_capability() is 75 and Mxfp4Config's 80 (checked at startup by
    VllmConfig._get_quantization_config): fp8 weights on a V100 (7.0) are refused, on a T4 (7.5) planned;
    gpt-oss-20b's MXFP4 checkpoint is refused on a T4 and planned on an A100 (8.0); bf16 plans on a V100."""
    cfg = load_config(LLAMA8)
    with pytest.raises(UnsupportedError, match="--quantization fp8 on Tesla V100 32GB .*capability 70, its minimum 75"):
        deploy(cfg, gpu="v100-32gb", dtype="fp8_e4m3")
    assert deploy(cfg, gpu="t4", dtype="fp8_e4m3").gpu.cuda_capability == 75
    assert deploy(cfg, gpu="v100-32gb", dtype="float16").gpu.cuda_capability == 70
    oss = load_config("openai/gpt-oss-20b")
    with pytest.raises(UnsupportedError, match="--quantization mxfp4 on Tesla T4"):
        deploy(oss, gpu="t4")
    assert deploy(oss, gpu="a100-80gb").gpu.cuda_capability == 80
    # the catalog's capabilities, as NVIDIA's CUDA GPUs table gives them
    from kvcalc.gpus import get_gpu
    assert {k: get_gpu(k).cuda_capability for k in ("v100-16gb", "t4", "a100-80gb", "rtx-3090", "rtx-4090", "h100-sxm",
                                                     "b200", "rtx-5090", "mi300x")} == {
        "v100-16gb": 70, "t4": 75, "a100-80gb": 80, "rtx-3090": 86, "rtx-4090": 89, "h100-sxm": 90, "b200": 100,
        "rtx-5090": 120, "mi300x": None}


def test_compare_keeps_a_scenario_whose_class_card_the_runtime_refuses() -> None:
    """gpt-oss-20b's MXFP4 checkpoint under vLLM on an H100: the 16 GB class card (a T4, 7.5) is below MXFP4's 80,
    so that column is 0 and the scenario stays, with the H100's and the 80 GB class's contexts."""
    from kvcalc.scenarios import Scenario, evaluate, gpu_class_label

    r = evaluate(Scenario("openai/gpt-oss-20b", "as configured", "auto", "vllm"), load_config("openai/gpt-oss-20b"),
                 gpu={"gpu": "h100-sxm", "gpus": 1}, batch=1, variant={}, contexts=[1024, 8192], name="H100")
    assert r.longest[gpu_class_label(16)] == 0
    assert r.longest["longest context, H100"] > 0 and r.longest[gpu_class_label(80)] > 0


def test_the_pool_caption_only_where_the_pool_binds() -> None:
    """kvcalc.explain.pool_binds_text: gpt-oss-20b under SGLang on an A100 80GB at 16 x 98,304 (its full-attention
    pool, split at startup, holds fewer tokens than asked); a vLLM max_model_len of 4,096 under an 8,192 context or
    max_num_seqs 2 under batch 4 are caps with their own words, not the pool."""
    from kvcalc import plan
    from kvcalc.explain import pool_binds_text

    sg = plan(deploy(load_config("openai/gpt-oss-20b"), gpu="a100-80gb", runtime="sglang"), batch=16, context=98304)
    assert not sg.fits and sg.total_bytes <= sg.budget_bytes
    assert (pool_binds_text(sg) or "").startswith("The total (63.17 GiB) is within the budget (65.69 GiB), yet SGLang")
    cfg = load_config(LLAMA8)
    for kw, batch, ctx in ((dict(max_model_len=4096), 1, 8192), (dict(max_num_seqs=2), 4, 8192)):
        p = plan(deploy(cfg, gpu="h100-sxm", **kw), batch=batch, context=ctx)
        assert not p.fits and p.total_bytes <= p.budget_bytes and pool_binds_text(p) is None


def test_tensorrt_llm_refuses_fp8_weights_below_ada() -> None:
    """TensorRT-LLM's support matrix lists FP8 for Ada (SM89) and Hopper (SM90), not Ampere (SM80, SM86): fp8
    weights are refused on an A100 (8.0) and an RTX 3090 (8.6), planned on an L40S (8.9) and an H100 (9.0); bf16
    plans on the A100."""
    cfg = load_config(LLAMA8)
    for gpu in ("a100-80gb", "rtx-3090"):
        with pytest.raises(UnsupportedError, match="FP8 weights on compute capability 8.9 and above"):
            deploy(cfg, gpu=gpu, runtime="tensorrt_llm", dtype="fp8_e4m3")
    for gpu in ("l40s", "h100-sxm"):
        assert deploy(cfg, gpu=gpu, runtime="tensorrt_llm", dtype="fp8_e4m3").gpu.key == gpu
    assert deploy(cfg, gpu="a100-80gb", runtime="tensorrt_llm").gpu.key == "a100-80gb"
