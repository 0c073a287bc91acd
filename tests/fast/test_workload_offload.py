"""KV offload tier (kvcalc.workload.offload) against hand arithmetic from the connectors' sizing code.

vLLM 0.33.0 v1/kv_offload/cpu/spec.py CPUOffloadingSpec.__init__ (num_chunks = cpu_bytes //
round_up(block bytes x world size, PAGESIZE)); SGLang 0.5.23 srt/mem_cache/pool_host/base.py
HostKVCache.__init__ (size = host_size x 1e9 // size_per_token, one padding page).
"""
import pytest

from kvcalc import deploy
from kvcalc.catalog import bundled_config
from kvcalc.errors import InputError, UnsupportedError
from kvcalc.workload.offload import LINKS, offload_tier

LLAMA = "meta-llama/Llama-3.1-8B"


def test_pcie_figures():
    assert LINKS["pcie4"].gbps == pytest.approx(31.51, abs=0.01)   # 16 GT/s x 16 x 128/130 / 8
    assert LINKS["pcie5"].gbps == pytest.approx(63.02, abs=0.01)   # 32 GT/s x 16 x 128/130 / 8


def test_vllm_native_100_gib_one_gpu():
    d = deploy(bundled_config(LLAMA), max_model_len=8192, kv_cache_memory=20 * 2**30)
    t = offload_tier(d, 100, link="pcie4")
    # block = 32 layers x 16 tokens x 8 heads x 256 x 2 B = 2 MiB; 100 GiB / 2 MiB = 51,200 blocks x 16 tokens
    assert t.tokens == 51200 * 16 == 819200 and t.bytes_per_token == 2**21 // 16
    assert t.requests_held == 819200 // 8192 == 100
    assert t.reload_seconds == pytest.approx(8192 * 131072 / 31.5077e9, rel=1e-4)   # 1 GiB over PCIe 4.0: 34 ms
    assert t.flags == ("--kv-offloading-size 100 --kv-offloading-backend native",)


def test_vllm_native_total_over_tensor_parallel_ranks():
    # TP 2: each rank's block is 1 MiB (4 of the 8 KV heads); a chunk is 1 MiB x 2 ranks = 2 MiB: same 819,200
    d = deploy(bundled_config(LLAMA), gpus=2, max_model_len=8192)
    t = offload_tier(d, 100)
    assert t.tokens == 819200
    assert t.reload_seconds == pytest.approx(8192 * 131072 / 2 / 63.0154e9, rel=1e-4)   # each rank its half


def test_sglang_hicache_whole_gb_and_padding_page():
    d = deploy(bundled_config(LLAMA), runtime="sglang", page_size=64)
    t = offload_tier(d, 100)
    # 100 GiB = 107.37e9 B -> --hicache-size 107; 107e9 // 131,072 B = 816,345; // 64 = 12,755 (+1) pages
    assert t.flags == ("--enable-hierarchical-cache --hicache-size 107",)
    assert t.tokens == (107 * 10**9 // 131072 // 64 + 1) * 64 == 816384


def test_refusals():
    d = deploy(bundled_config(LLAMA), max_model_len=8192)
    with pytest.raises(InputError):
        offload_tier(d, 0)
    with pytest.raises(InputError):
        offload_tier(d, 10, connector="hicache")
    with pytest.raises(InputError):
        offload_tier(d, 10, link="pcie9")
    with pytest.raises(UnsupportedError):
        offload_tier(deploy(bundled_config(LLAMA), runtime="ideal"), 10)
    with pytest.raises(UnsupportedError):      # Gemma 2: sliding + full groups
        offload_tier(deploy(bundled_config("google/gemma-2-9b-it"), max_model_len=8192), 10)
