"""llama.cpp loads a tied model's token_embd twice once its output layer is on a GPU: the input copy stays
in host memory and a second copy (``TENSOR_DUPLICATED``) is the output on the GPU
(ggml-org/llama.cpp src/llama-model.cpp ``load_tensors``: "if output is NULL, init from the input tok embed";
src/llama-model-loader.cpp ``create_tensor`` reuses the tensor only within one buffer type).

The figures are public startup logs of the GGUF files kvcalc's mix reproduces tensor for tensor, all layers
offloaded ('load_tensors: offloaded N/N layers to GPU'): the GPU buffer is the file's whole tensor data
and the host buffer is token_embd once."""
from __future__ import annotations

import pytest

from kvcalc.catalog import bundled_config
from kvcalc.deployment import deploy
from kvcalc.llama_cpp.engine import llama_plan

pytestmark = pytest.mark.fast

MIB = 2**20

PUBLIC_LOGS = [
    # github.com/ollama/ollama/issues/8310 (blueApple12's log, 2025-01-05), ollama llama3.2 on CUDA:
    # 'CUDA0 model buffer size =  1918.35 MiB', 'CPU model buffer size =   308.23 MiB', 29/29 offloaded
    ("meta-llama/Llama-3.2-3B-Instruct", "Q4_K_M", 1918.35, 308.23),
    # a public llama.cpp log on an NVIDIA A10 (stored copy): 'CUDA0 model buffer size = 762.81 MiB',
    # 'CPU_Mapped model buffer size = 205.49 MiB', 'file size = 762.81 MiB (5.18 BPW)', 17/17 offloaded
    ("meta-llama/Llama-3.2-1B", "Q4_K_M", 762.81, 205.49),
    # a public llama.cpp log on an RTX 3070 Laptop (stored copy): CUDA0 372.65 MiB, CPU_Mapped 121.71 MiB, 29/29
    ("Qwen/Qwen3-0.6B", "Q4_K_M", 372.65, 121.71),
]


@pytest.mark.parametrize(("model", "file_type", "gpu_mib", "host_mib"), PUBLIC_LOGS)
def test_a_tied_models_gpu_holds_the_whole_file_and_the_host_its_token_embd(model, file_type, gpu_mib, host_mib):
    p = llama_plan(deploy(bundled_config(model), gpu="rtx-4090", runtime="llama_cpp", gguf=file_type, n_ctx=4096))
    assert round(p.gpu.weights / MIB, 2) == gpu_mib
    assert round(p.host.weights / MIB, 2) == host_mib


def test_without_offload_the_output_shares_token_embds_host_copy() -> None:
    """-ngl 0: the output layer's buffer type is token_embd's, so create_tensor returns the same tensor."""
    d = deploy(bundled_config("meta-llama/Llama-3.2-1B"), gpu="rtx-4090", runtime="llama_cpp", gguf="Q4_K_M",
               n_ctx=4096, n_gpu_layers=0)
    p = llama_plan(d)
    assert p.gpu.weights == 0 and round(p.host.weights / MIB, 2) == 762.81


def test_an_untied_model_loads_no_second_copy() -> None:
    w = deploy(bundled_config("meta-llama/Llama-3.1-8B"), gpu="rtx-4090", runtime="llama_cpp", gguf="Q4_K_M",
               n_ctx=4096)
    assert w.gguf is not None and w.gguf.duplicated_output_bytes == 0
    p = llama_plan(w)
    assert p.gpu.weights + p.host.weights == w.gguf.total_bytes
