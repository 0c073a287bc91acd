"""TensorRT-LLM's KV budget and block pool (kvcalc.trtllm) against hand arithmetic from its rules.

Sources: NVIDIA/TensorRT-LLM ``tensorrt_llm/_torch/pyexecutor/_util.py`` ``KvCacheCreator._cal_max_memory``
(``(total - peak) x free_gpu_memory_fraction``), ``tensorrt_llm/llmapi/llm_args.py`` ``KvCacheConfig``
(fraction 0.9, tokens_per_block 32, max_tokens), ``docs/source/reference/memory.md``. Public logs:
tests/fast/test_engine_logs.py.
"""
from __future__ import annotations

import pytest
from paths import load_config

import kvcalc
from kvcalc.engine_commands import parse_engine_command

MiB, GiB = 2**20, 2**30
H100 = 81559 * MiB
LLAMA_8B = load_config("meta-llama/Llama-3.1-8B")
LLAMA_CELL = 32 * 8 * 128 * 2 * 2          # 131,072 B per token (bf16)


def _measured(**options: object) -> kvcalc.Deployment:
    return kvcalc.deploy(LLAMA_8B, runtime="tensorrt_llm", gpu="h100-sxm", weights_gib=15.0, activation_gib=1.0,
                         non_torch_gib=0.5, **options)


def test_pool_by_hand() -> None:
    """free = total - 15 - 1 - 0.5 GiB; KV = int(0.9 x free); blocks = KV // (32 tokens x 131,072 B)."""
    ep = _measured().engine_plan()
    available = int((H100 - int(16.5 * GiB)) * 0.9)
    blocks = available // (32 * LLAMA_CELL)
    assert (ep.available_kv_bytes, ep.pool_pages, ep.pool_tokens) == (available, blocks, blocks * 32)
    assert ep.log_lines[-1] == (f"[MemUsageChange] Allocated {blocks * 32 * LLAMA_CELL / GiB:.2f} GiB for max tokens "
                                f"in paged KV cache ({blocks * 32}).")
    p = kvcalc.plan(_measured(), batch=3, context=1000)
    assert p.kv_bytes == 3 * 1024 * LLAMA_CELL                          # ceil(1000 / 32) = 32 blocks of 32
    assert p.max_batch == blocks * 32 // 1024


def test_fraction_and_max_tokens() -> None:
    """With both, the smaller pool: max_tokens 1000 rounds down to 15 blocks of 64 = 960 tokens on the PyTorch
    backend (KVCacheManager.calculate_max_num_blocks: int(max_tokens // tokens_per_block)), up to 16 blocks =
    1,024 tokens on the C++ runtime."""
    ep = _measured(free_gpu_memory_fraction=0.5, max_tokens_in_paged_kv_cache=1000, tokens_per_block=64).engine_plan()
    assert ep.pool_tokens == 960 and ep.pool_pages == 15
    cpp = _measured(free_gpu_memory_fraction=0.5, max_tokens_in_paged_kv_cache=1000, tokens_per_block=64,
                    trtllm_backend="cpp").engine_plan()
    assert cpp.pool_tokens == 1024 and cpp.pool_pages == 16
    half = _measured(free_gpu_memory_fraction=0.5).engine_plan()
    assert half.available_kv_bytes == int((H100 - int(16.5 * GiB)) * 0.5)


def test_max_seq_len_is_reduced_when_one_request_does_not_fit() -> None:
    """A 2,048-token pool cannot hold one 131,072-token request: the C++ runtime serves 2048 - 32 + 1 = 2017 tokens,
    with the warning; the PyTorch backend the whole pool (get_max_atten_window_upper_bound: blocks x 32)."""
    torch_ep = _measured(max_tokens_in_paged_kv_cache=2048).engine_plan()
    assert torch_ep.max_context == 2048
    assert any("They are reduced to 2048" in line for line in torch_ep.log_lines)
    d = _measured(max_tokens_in_paged_kv_cache=2048, trtllm_backend="cpp")
    ep = d.engine_plan()
    assert ep.max_context == 2048 - 32 + 1
    assert any("they are reduced to 2017" in line for line in ep.log_lines)
    p = kvcalc.plan(d, batch=1, context=4096, solve_gpus=False)
    assert not p.fits and p.max_context == 2017     # ceil(2017 / 32) = 64 blocks: the whole pool
    assert "2,017" in p.binding_constraint


def test_max_batch_size_caps_the_batch() -> None:
    p = kvcalc.plan(_measured(max_batch_size=4), batch=5, context=1000, solve_gpus=False)
    assert not p.fits and p.max_batch == 4 and "4 requests" in p.binding_constraint


def test_defaults() -> None:
    """tokens_per_block 32, max_batch_size 2048, max_seq_len = the model's 131,072."""
    ep = kvcalc.deploy(LLAMA_8B, runtime="tensorrt_llm").engine_plan()
    assert (ep.page_size, ep.max_running, ep.max_context) == (32, 2048, 131072)
    assert any("activation peak estimated" in n for n in ep.notes)      # an estimate says so


def test_fp8_kv_halves_the_cell() -> None:
    assert kvcalc.deploy(LLAMA_8B, runtime="tensorrt_llm", kv_dtype="fp8").engine_plan().cell_bytes == LLAMA_CELL // 2


def test_fewest_gpus() -> None:
    p = kvcalc.plan(load_config("meta-llama/Llama-3.1-70B"), runtime="tensorrt_llm", gpu="h100-sxm", batch=16,
                    context=32768)
    # tp 2: 0.9 x (79.65 - 65.7 - ~1.2) GiB ~ 11 GiB < 524,288 tokens x 160 KiB (4 KV heads per rank) = 80 GiB;
    # tp 4: 0.9 x (79.65 - 32.9 - ~1.0) ~ 41 GiB vs 524,288 x 80 KiB = 40 GiB: fits
    assert p.min_gpus == 4


@pytest.mark.parametrize(("options", "error", "words"), [
    ({"tokens_per_block": 48}, kvcalc.InputError, "not a power of two"),
    ({"free_gpu_memory_fraction": 1.5}, kvcalc.InputError, "free_gpu_memory_fraction must be in (0, 1]"),
    ({"free_gpu_memory_fraction": 0}, kvcalc.InputError, "free_gpu_memory_fraction must be in (0, 1]"),
    ({"kv_dtype": "fp8_e5m2"}, kvcalc.UnsupportedError, "TensorRT-LLM has no 'fp8_e5m2' KV-cache dtype"),
    ({"kv_dtype": "int4"}, kvcalc.UnsupportedError, "TensorRT-LLM has no 'int4'"),
    ({"block_size": 64}, kvcalc.InputError, "TensorRT-LLM's option is tokens_per_block"),
    ({"max_num_seqs": 8}, kvcalc.InputError, "TensorRT-LLM's option is max_batch_size"),
])
def test_refusals_in_words(options: dict, error: type, words: str) -> None:
    with pytest.raises(error) as e:
        kvcalc.deploy(LLAMA_8B, runtime="tensorrt_llm", **options)
    assert words in str(e.value)


def test_trtllm_options_need_the_trtllm_runtime() -> None:
    with pytest.raises(kvcalc.InputError, match="TensorRT-LLM options"):
        kvcalc.deploy(LLAMA_8B, runtime="sglang", max_seq_len=4096)


def test_longer_max_seq_len_is_a_warning() -> None:
    ep = kvcalc.deploy(LLAMA_8B, runtime="tensorrt_llm", max_seq_len=200_000).engine_plan()
    assert ep.max_context == 200_000 and any("exceeds the config's max_position_embeddings" in n for n in ep.notes)


def test_trtllm_serve_command() -> None:
    c = parse_engine_command("trtllm-serve meta-llama/Llama-3.1-8B --tp_size 2 --max_batch_size 64 "
                             "--max_seq_len 16384 --kv_cache_free_gpu_memory_fraction 0.85 --max_num_tokens 4096 "
                             "--extra_llm_api_options cfg.yml --trust_remote_code")
    assert c.runtime == "tensorrt_llm" and c.model == "meta-llama/Llama-3.1-8B"
    assert c.options == {"tensor_parallel_size": 2, "max_batch_size": 64, "max_seq_len": 16384,
                         "free_gpu_memory_fraction": 0.85, "max_num_tokens": 4096}
    assert c.ignored == ("--extra_llm_api_options", "--trust_remote_code")
    kvcalc.deploy(LLAMA_8B, runtime=c.runtime, gpus=2, **c.options)
