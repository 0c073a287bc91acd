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
