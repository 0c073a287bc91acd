"""The older engine rule sets kept for public logs (``--trtllm-version 1.0``, ``--sglang-version 0.4``), against
hand arithmetic from those releases' own code and the numbers the logs print.

TensorRT-LLM 1.0 (mid-2025 PyTorch backend): ``_util.py`` ``estimate_max_kv_cache_tokens`` takes
``min(int(available_kv_mem // kv_size_per_token), kv_cache_config.max_tokens)``, then ``resource_manager.py``
``KVCacheManager.calculate_max_num_blocks`` ``math.ceil(max_tokens / tokens_per_block)``: rounded UP (1.3, the
default, rounds down). Log: NVIDIA/TensorRT-LLM#6294 (Llama 3.1 8B FP8 on H100, trtllm-bench, July 2025),
"Both free_gpu_memory_fraction and max_tokens are set (to 0.8 and 860308 ...)" then "Allocated 52.51 GiB for max
tokens in paged KV cache (860320)".

SGLang 0.4 (v0.4.1-0.4.2): ``server_args.py`` ``ServerArgs.__post_init__`` (mem_fraction_static 0.88 / 0.87 /
0.85 / 0.81 / 0.79 at TP 1 / 2 / 4 / 8 / 16; chunked_prefill_size 2048 below 25,000 MiB else 8192);
``model_runner.py`` ``init_memory_pool`` (``ReqToTokenPool(size=max_num_reqs + 1)``, one pool for every layer);
``tp_worker.py`` ``TpModelWorker.__init__`` (``max_running_requests = min(max_total_num_tokens // 2,
req_to_token_pool.size)``). Logs: the Quick Start notebook of 2025-01-23 (444,500 tokens, 2049 requests) and
jerryzsj/my-deepseek-r1 (RTX 3090, 105,531 tokens, chunked_prefill_size=2048, 2049 requests).
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest
from paths import load_config

import kvcalc
from kvcalc.cli import main
from kvcalc.errors import InputError
from kvcalc.sglang import default_mem_fraction_static
from kvcalc.sglang.defaults import chunked_prefill_size_0_4, running_requests_0_4

MiB, GiB = 2**20, 2**30
H100 = 81559 * MiB
LLAMA_8B = load_config("meta-llama/Llama-3.1-8B")
LLAMA_CELL = 32 * 8 * 128 * 2 * 2          # layers x KV heads x head_dim x (K+V) x bf16 = 131,072 B
FP8_CELL = LLAMA_CELL // 2                 # 65,536 B: the log's 52.51 GiB / 860,320 tokens


def _cli_json(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["plan", "meta-llama/Llama-3.1-8B", "--offline", *args, "--json"]) == 0
    result: dict = json.loads(out.getvalue())
    return result


def test_trtllm_1_0_rounds_the_users_max_tokens_up_as_the_log_does() -> None:
    """860,308 tokens / 32 = 26,884.6 -> math.ceil 26,885 blocks = 860,320 tokens x 65,536 B = 52.51 GiB (the
    log); 1.3's int(860308 // 32) = 26,884 blocks."""
    flags = ("--runtime", "tensorrt_llm", "--kv-dtype", "fp8", "--max-tokens-in-paged-kv-cache", "860308",
             "--tokens-per-block", "32", "--gpu-mem-gib", "1024")
    assert _cli_json(*flags, "--trtllm-version", "1.0")["num_gpu_blocks"] == 26885 == -(-860308 // 32)
    assert _cli_json(*flags)["num_gpu_blocks"] == 26884 == 860308 // 32
    d = kvcalc.deploy(LLAMA_8B, runtime="tensorrt_llm", kv_dtype="fp8", gpu_mem_gib=1024,
                      max_tokens_in_paged_kv_cache=860308, tokens_per_block=32, trtllm_version="1.0")
    ep = d.engine_plan()
    assert ep.version == "1.0" and ep.pool_tokens == 860320
    assert ep.log_lines[-1] == ("[MemUsageChange] Allocated " f"{860320 * FP8_CELL / GiB:.2f}"
                                " GiB for max tokens in paged KV cache (860320).") == (
        "[MemUsageChange] Allocated 52.51 GiB for max tokens in paged KV cache (860320).")


def test_trtllm_1_0_rounds_the_fraction_pool_up_to_whole_blocks() -> None:
    """Measured 15 GiB weights, 1 GiB activations, 0.5 GiB runtime on an H100: KV = int(0.9 x free);
    1.0: ceil((KV // 131,072 B) / 32) blocks; 1.3: KV // (32 x 131,072 B)."""
    kw = dict(runtime="tensorrt_llm", gpu="h100-sxm", weights_gib=15.0, activation_gib=1.0, non_torch_gib=0.5)
    available = int((H100 - int(16.5 * GiB)) * 0.9)
    old = kvcalc.deploy(LLAMA_8B, trtllm_version="1.0", **kw).engine_plan()
    new = kvcalc.deploy(LLAMA_8B, **kw).engine_plan()
    assert old.pool_pages == -(-(available // LLAMA_CELL) // 32)
    assert new.pool_pages == available // (32 * LLAMA_CELL)
    assert (old.pool_pages, new.version) == (new.pool_pages + 1, "1.3")   # not a whole number of blocks here


def test_trtllm_version_is_checked() -> None:
    with pytest.raises(InputError, match="trtllm_version must be one of 1.3, 1.0"):
        kvcalc.deploy(LLAMA_8B, runtime="tensorrt_llm", trtllm_version="0.9")


@pytest.mark.parametrize(("tp", "expected"), [(1, 0.88), (2, 0.87), (4, 0.85), (8, 0.81), (16, 0.79)])
def test_sglang_0_4_mem_fraction_static_by_tp_size(tp: int, expected: float) -> None:
    """v0.4 ServerArgs.__post_init__: by TP size alone, the same on a 24 GB card as on an H100."""
    assert default_mem_fraction_static(H100, tp, version="0.4") == expected
    assert default_mem_fraction_static(24576 * MiB, tp, version="0.4") == expected


def test_sglang_0_4_chunked_prefill_size() -> None:
    """The RTX 3090 log (24,576 MiB) prints chunked_prefill_size=2048; 25,000 MiB and up: 8192."""
    assert (chunked_prefill_size_0_4(24576), chunked_prefill_size_0_4(25000)) == (2048, 8192)


@pytest.mark.parametrize("tokens", [444500, 105531])
def test_sglang_0_4_running_requests_of_the_logs(tokens: int) -> None:
    """max_num_reqs = min(max(int(tokens / 131072 x 512), 2048), 4096) = 2048 (int(...) is 1,736 / 412); the
    request pool has 2048 + 1 slots; min(tokens // 2, 2049) = 2049, as both logs print."""
    assert int(tokens / 131072 * 512) < 2048
    assert running_requests_0_4(tokens, 131072) == min(tokens // 2, 2048 + 1) == 2049


def test_sglang_0_4_pool_by_hand() -> None:
    """rest = 0.88 x (total - 1 GiB before load) - 15 GiB weights; tokens = rest // 131,072; 2049 requests;
    a given --max-running-requests is kept (min(64, 64 + 1))."""
    kw = dict(runtime="sglang", gpu="h100-sxm", non_torch_gib=1.0, weights_gib=15.0, sglang_version="0.4")
    ep = kvcalc.deploy(LLAMA_8B, **kw).engine_plan()
    tokens = (int((H100 - GiB) * 0.88) - 15 * GiB) // LLAMA_CELL
    assert (ep.version, ep.pool_tokens, ep.max_running) == ("0.4", tokens, 2049)
    assert ep.log_lines[-1] == f"max_total_num_tokens={tokens}, max_running_requests=2049, context_len=131072"
    assert kvcalc.deploy(LLAMA_8B, max_running_requests=64, **kw).engine_plan().max_running == 64
    assert kvcalc.deploy(LLAMA_8B, **{**kw, "sglang_version": "0.5.9"}).engine_plan().max_running == 2048


def test_sglang_0_4_pools_sliding_layers_at_full_length() -> None:
    """v0.4 init_memory_pool builds one MHATokenToKVPool for every layer: gpt-oss-20b's 24 layers x 2,048 B per
    token, no SWA pool (0.5.9 / 0.5.23 give it SGLang's hybrid SWA pool)."""
    ep = kvcalc.deploy(load_config("openai/gpt-oss-20b"), runtime="sglang", gpu="h100-sxm", mem_fraction_static=0.8,
                       sglang_version="0.4").engine_plan()
    assert ep.swa_pool_tokens == 0 and ep.cell_bytes == 24 * 2048
    assert not any("sliding window memory pool" in line for line in ep.log_lines)
