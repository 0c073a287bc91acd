"""SGLang's budget, pool and refusals (kvcalc.sglang) against hand arithmetic from SGLang's own rules.

Sources: sgl-project/sglang ``server_args.py`` ``_handle_gpu_memory_settings`` (default
mem_fraction_static), ``model_runner.py`` ``profile_max_num_token`` / ``init_memory_pool`` (the
pool), ``mem_cache/memory_pool.py`` (K / V buffers of N + page_size slots). The public startup
logs are reproduced in tests/fast/test_engine_logs.py.
"""
from __future__ import annotations

import pytest
from paths import load_config

import kvcalc
from kvcalc.engine_commands import parse_engine_command
from kvcalc.sglang import NOT_ENOUGH_MEMORY, default_max_running_requests, default_mem_fraction_static

MiB, GiB = 2**20, 2**30
H100 = 81559 * MiB            # data/gpus.csv h100-sxm (nvidia-smi total)
LLAMA_8B = load_config("meta-llama/Llama-3.1-8B")
LLAMA_CELL = 32 * 8 * 128 * 2 * 2          # layers x KV heads x head_dim x (K+V) x bf16 = 131,072 B


@pytest.mark.parametrize(("mib", "tp", "expected"), [
    # reserved = 512 + max(chunked, 2048) x 1.5 + cuda_graph_max_bs x 2 + tp / 8 x 1024 MiB; >= 10 GiB above 60 GiB
    (81559, 1, round((81559 - (512 + 8192 * 1.5 + 256 * 2 + 1024 / 8)) / 81559, 3)),        # H100: 0.835
    (81559, 4, round((81559 - (512 + 8192 * 1.5 + 512 * 2 + 4 * 1024 / 8)) / 81559, 3)),    # 0.824
    (24564, 1, round((24564 - (512 + 2048 * 1.5 + 24 * 2 + 1024 / 8)) / 24564, 3)),         # RTX 4090: 0.847
    (15360, 1, round((15360 - (512 + 2048 * 1.5 + 8 * 2 + 1024 / 8)) / 15360, 3)),          # T4: 0.757
    (143771, 8, round((143771 - (512 + 8192 * 1.5 + 512 * 2 + 8 * 1024 / 8)) / 143771, 3)),  # H200: 0.897
])
def test_default_mem_fraction_static_of_0_5_9(mib: int, tp: int, expected: float) -> None:
    assert default_mem_fraction_static(mib * MiB, tp, version="0.5.9") == expected


@pytest.mark.parametrize(("mib", "tp", "mla", "expected"), [
    # 0.5.23 memory_hook.py: + decode graph max_bs x 2 + 8 MiB per prefill graph bucket (1.5 GiB for MLA);
    # buckets up to 8192: 8 + 14 + 8 + 8 + 12 + 8 = 58, up to 4096: 50, up to 2048: 42
    (81559, 1, False, round((81559 - (512 + 8192 * 1.5 + 1024 / 8 + 256 * 2 + 58 * 8)) / 81559, 3)),   # 0.83
    (24564, 1, False, round((24564 - (512 + 4096 * 1.5 + 1024 / 8 + 48 * 2 + 50 * 8)) / 24564, 3)),    # 0.704
    (15360, 1, False, round((15360 - (512 + 2048 * 1.5 + 1024 / 8 + 8 * 2 + 42 * 8)) / 15360, 3)),     # 0.735
    (143771, 8, False, round((143771 - (512 + 8192 * 1.5 + 1024 + 512 * 2 + 58 * 8)) / 143771, 3)),    # 0.893
    (143771, 8, True, round((143771 - (512 + 8192 * 1.5 + 1024 + 512 * 2 + 1536)) / 143771, 3)),       # 0.886
])
def test_default_mem_fraction_static(mib: int, tp: int, mla: bool, expected: float) -> None:
    assert default_mem_fraction_static(mib * MiB, tp, mla=mla) == expected


def test_pool_by_hand() -> None:
    """rest = 0.85 x (total - 1 GiB before load) - 15 GiB weights; tokens = rest // 131,072 in pages of 16."""
    d = kvcalc.deploy(LLAMA_8B, runtime="sglang", gpu="h100-sxm", mem_fraction_static=0.85, non_torch_gib=1.0,
                      weights_gib=15.0, page_size=16)
    rest = int((H100 - GiB) * 0.85) - 15 * GiB
    tokens = rest // LLAMA_CELL // 16 * 16
    ep = d.engine_plan()
    assert ep.cell_bytes == LLAMA_CELL and ep.pool_tokens == tokens and ep.page_size == 16
    k_gb = f"{(tokens + 16) * LLAMA_CELL // 2 / GiB:.2f}"             # K buffer: N + page_size slots
    assert ep.log_lines[0] == f"KV Cache is allocated. #tokens: {tokens}, K size: {k_gb} GB, V size: {k_gb} GB"
    p = kvcalc.plan(d, batch=4, context=1000)
    assert p.kv_bytes == 4 * 1008 * LLAMA_CELL                         # ceil(1000 / 16) = 63 pages of 16
    assert p.max_batch == min(tokens // 1008, default_max_running_requests(tokens, 131072))
    assert p.fits and p.kv_cache_tokens == tokens


def test_max_running_requests_default_and_cap() -> None:
    assert default_max_running_requests(100_000, 2048) == 4096        # int(100000 / 2048 x 512) = 25000 -> 4096
    assert default_max_running_requests(100_000, 131072) == 2048      # 390 -> 2048
    d = kvcalc.deploy(LLAMA_8B, runtime="sglang", max_running_requests=3)
    p = kvcalc.plan(d, batch=4, context=1000)
    assert not p.fits and "3 requests" in p.binding_constraint and p.max_batch == 3


def test_mla_cell_is_whole_on_every_rank() -> None:
    """DeepSeek-V2-Lite: (kv_lora_rank 512 + qk_rope_head_dim 64) x 27 layers x 2 B, not split by TP; one 'KV size'."""
    cfg = load_config("deepseek-ai/DeepSeek-V2-Lite")
    for tp in (1, 2):
        ep = kvcalc.deploy(cfg, runtime="sglang", gpus=tp).engine_plan()
        assert ep.cell_bytes == (512 + 64) * 27 * 2
        assert "KV size:" in ep.log_lines[0] and "K size" not in ep.log_lines[0]


def test_tensor_parallel_splits_kv_heads() -> None:
    ep = kvcalc.deploy(LLAMA_8B, runtime="sglang", gpus=2).engine_plan()
    assert ep.cell_bytes == LLAMA_CELL // 2


def test_no_memory_is_sglangs_refusal() -> None:
    d = kvcalc.deploy(load_config("meta-llama/Llama-3.1-70B"), runtime="sglang", gpu="h100-sxm")
    p = kvcalc.plan(d, batch=1, context=1000, solve_gpus=False)
    assert not p.fits and p.max_context is None and p.binding_constraint == NOT_ENOUGH_MEMORY
    assert p.engine_lines[-1] == f"SGLang refuses to start: {NOT_ENOUGH_MEMORY}"


def test_fewest_gpus() -> None:
    """Llama-3.1-70B, batch 16 x 32,768 = 524,288 tokens on H100s: tp 4 leaves ~0.824 x 78.8 - 32.9 = 32 GiB
    = ~420k tokens of 80 KiB (2 KV heads per rank); tp 8 ~48 GiB of 40 KiB tokens = ~1.26M."""
    p = kvcalc.plan(load_config("meta-llama/Llama-3.1-70B"), runtime="sglang", gpu="h100-sxm", batch=16,
                    context=32768)
    assert p.min_gpus == 8


@pytest.mark.parametrize(("options", "error", "words"), [
    ({"context_length": 200_000}, kvcalc.InputError, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"),
    ({"mem_fraction_static": 1.0}, kvcalc.InputError, "--mem-fraction-static must be in (0, 1)"),
    ({"mem_fraction_static": 0}, kvcalc.InputError, "--mem-fraction-static must be in (0, 1)"),
    ({"page_size": 0}, kvcalc.InputError, "--page-size"),
    ({"kv_dtype": "int8"}, kvcalc.UnsupportedError, "SGLang has no 'int8' KV-cache dtype"),
    ({"block_size": 16}, kvcalc.InputError, "SGLang's option is page_size"),
    ({"max_model_len": 4096}, kvcalc.InputError, "SGLang's option is context_length"),
    ({"gpu_memory_utilization": 0.8}, kvcalc.InputError, "SGLang's option is mem_fraction_static"),
])
def test_refusals_in_words(options: dict, error: type, words: str) -> None:
    with pytest.raises(error) as e:
        kvcalc.deploy(LLAMA_8B, runtime="sglang", **options)
    assert words in str(e.value)


def test_longer_context_with_the_override() -> None:
    d = kvcalc.deploy(LLAMA_8B, runtime="sglang", context_length=200_000, allow_overwrite_longer_context_len=True)
    assert d.engine_plan().max_context == 200_000


def test_sglang_options_need_the_sglang_runtime() -> None:
    with pytest.raises(kvcalc.InputError, match="SGLang options"):
        kvcalc.deploy(LLAMA_8B, runtime="vllm", page_size=16)


def test_unmodelled_layer_kinds_are_refused() -> None:
    """Chunked local attention (Llama 4), recurrent state and cross-attention pools stay refused."""
    with pytest.raises(kvcalc.UnsupportedError, match="SGLang"):
        kvcalc.deploy(load_config("google-t5/t5-small"), runtime="sglang")


@pytest.mark.parametrize("model", ["google/gemma-3-27b-it", "google/gemma-2-9b-it", "mistralai/Mistral-7B-v0.1"])
def test_sliding_layers_outside_the_hybrid_list_pool_at_full_length(model: str) -> None:
    """model_config.py is_hybrid_swa_model lists Llama4 / GptOss / MiMoV2 / Step3p5 only; any other model gets
    MHATokenToKVPool over every layer (sgl-project/sglang#39310: a model missing from the allowlist
    "allocates KV slots in all 36 layers"): the pool is rest // (all layers' K+V bytes per token), as for
    full attention, and a sliding layer holds every token of a request."""
    config = load_config(model)
    d = kvcalc.deploy(config, gpu="h100-sxm", runtime="sglang", mem_fraction_static=0.8)
    ep = d.engine_plan()
    t = config.get("text_config", config)
    heads = t["num_key_value_heads"]
    head_dim = t.get("head_dim") or t["hidden_size"] // t["num_attention_heads"]
    cell = t["num_hidden_layers"] * heads * head_dim * 2 * 2
    rest = int((H100 - round(0.86 * GiB)) * 0.8) - d.weights_rank
    assert ep.cell_bytes == cell and ep.swa_cell_bytes == 0
    assert ep.pool_tokens == rest // cell
    assert {r.tokens for r in kvcalc.layer_bytes(d, 2, 9000).rows} == {min(9000, ep.max_context)}
    assert any("is not one of is_hybrid_swa_model's" in n for n in ep.notes)


def test_gpt_oss_gets_the_hybrid_swa_pool() -> None:
    """gpt-oss-20b (GptOssForCausalLM, in is_hybrid_swa_model): 24 layers, 12 full and 12 sliding (window 128),
    8 KV heads x 64 x K+V x bf16 = 2,048 B per layer per token. set_num_tokens_hybrid_swa
    (model_runner_kv_cache_mixin.py): single-pool T = rest // (24 x 2048); full = int(T x 24 x 2048 /
    (12 x 2048 + 0.8 x 12 x 2048)), swa = int(full x 0.8). A request of T tokens holds T slots in the
    full pool and min(T, 128) in the SWA pool."""
    d = kvcalc.deploy(load_config("openai/gpt-oss-20b"), gpu="h100-sxm", runtime="sglang", mem_fraction_static=0.8,
                      sglang_version="0.5.9")
    ep = d.engine_plan()
    rest = int((H100 - round(0.86 * GiB)) * 0.8) - d.weights_rank
    single = rest // (24 * 2048)
    full = int(single * 24 * 2048 / (12 * 2048 + 0.8 * 12 * 2048))
    assert (ep.pool_tokens, ep.swa_pool_tokens) == (full, int(full * 0.8))
    assert ep.log_lines[0] == (f"Use sliding window memory pool. full_layer_tokens={full}, "
                               f"swa_layer_tokens={int(full * 0.8)}")
    assert ep.max_running == min(max(int(single / 131072 * 512), 2048), 4096)     # from the single-pool count
    p = kvcalc.plan(d, batch=3, context=5000, solve_gpus=False)
    assert p.kv_bytes == 3 * (5000 * 12 + 128 * 12) * 2048
    rows = kvcalc.layer_bytes(d, 3, 5000).rows
    assert sorted({r.tokens for r in rows}) == [128, 5000]
    assert kvcalc.memory_curve(d, 3, [5000])[0].kv == p.kv_bytes
    assert p.max_batch == min(full // 5000, int(full * 0.8) // 128, ep.max_running)
    off = kvcalc.deploy(load_config("openai/gpt-oss-20b"), gpu="h100-sxm", runtime="sglang", sglang_version="0.5.9",
                        mem_fraction_static=0.8, disable_hybrid_swa_memory=True).engine_plan()
    assert off.pool_tokens == single and off.swa_cell_bytes == 0
    half = kvcalc.deploy(load_config("openai/gpt-oss-20b"), gpu="h100-sxm", runtime="sglang", sglang_version="0.5.9",
                         mem_fraction_static=0.8, swa_full_tokens_ratio=0.5).engine_plan()
    full_half = int(single * 24 * 2048 / (12 * 2048 + 0.5 * 12 * 2048))
    assert (half.pool_tokens, half.swa_pool_tokens) == (full_half, int(full_half * 0.5))


def test_launch_server_command() -> None:
    c = parse_engine_command("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python3 -m sglang.launch_server "
                             "--model-path Qwen/QwQ-32B --tp 4 --mem-fraction-static 0.85 --context-length=65536 "
                             "--page-size 16 --kv-cache-dtype fp8_e4m3 --max-running-requests 64 --trust-remote-code "
                             "--port 30000")
    assert c.runtime == "sglang" and c.model == "Qwen/QwQ-32B"
    assert c.options == {"allow_overwrite_longer_context_len": True, "tensor_parallel_size": 4,
                         "mem_fraction_static": 0.85, "context_length": 65536, "page_size": 16,
                         "kv_dtype": "fp8_e4m3", "max_running_requests": 64}
    assert c.ignored == ("--trust-remote-code", "--port")
    kvcalc.deploy(load_config("Qwen/Qwen2.5-32B"), runtime=c.runtime, gpus=4, **c.options)   # the options plan


@pytest.mark.parametrize(("command", "words"), [
    ("python -m sglang.launch_server --mem-fraction-static 1.5", "--mem-fraction-static has an invalid value"),
    ("python -m sglang.launch_server --page-size", "--page-size needs a value"),
    ("vllm serve x", "not an SGLang or TensorRT-LLM launch command"),
    ("", "paste"),
])
def test_bad_commands(command: str, words: str) -> None:
    with pytest.raises(kvcalc.InputError) as e:
        parse_engine_command(command)
    assert words in str(e.value)


@pytest.mark.parametrize("runtime", ["sglang", "tensorrt_llm"])
@pytest.mark.parametrize(("model", "gpu", "gpus", "batch"), [
    ("meta-llama/Llama-3.1-8B", "rtx-4090", 1, 3), ("Qwen/Qwen3-8B", "l4", 2, 7),
    ("deepseek-ai/DeepSeek-V2-Lite", "h100-sxm", 1, 40), ("meta-llama/Llama-3.1-70B", "h200", 4, 64),
])
def test_solvers_are_the_fit_tests_edges(runtime: str, model: str, gpu: str, gpus: int, batch: int) -> None:
    """The longest context fits and one token more does not; the largest batch fits and one more does not."""
    d = kvcalc.deploy(load_config(model), runtime=runtime, gpu=gpu, gpus=gpus, page_size=16) \
        if runtime == "sglang" else kvcalc.deploy(load_config(model), runtime=runtime, gpu=gpu, gpus=gpus)
    p = kvcalc.plan(d, batch=batch, context=4096, solve_gpus=False)
    assert p.max_context is not None and p.max_batch is not None
    assert kvcalc.plan(d, batch=batch, context=p.max_context, solve_gpus=False).fits
    assert not kvcalc.plan(d, batch=batch, context=p.max_context + 1, solve_gpus=False).fits
    assert kvcalc.plan(d, batch=p.max_batch, context=4096, solve_gpus=False).fits
    assert not kvcalc.plan(d, batch=p.max_batch + 1, context=4096, solve_gpus=False).fits


@pytest.mark.parametrize("runtime", ["sglang", "tensorrt_llm"])
def test_kv_cache_points_engines_to_their_pool(runtime: str) -> None:
    """kvcalc.kv_cache has no engine rows (it would answer with ideal bytes): refused, naming layer_bytes."""
    with pytest.raises(kvcalc.UnsupportedError, match="layer_bytes"):
        kvcalc.kv_cache(LLAMA_8B, batch=1, context=10, runtime=runtime)


def test_running_requests_capped_at_half_the_pool() -> None:
    """0.5.23 resolve_max_num_reqs (kv_cache_configurator.py): min(estimate or --max-running-requests,
    max_total_num_tokens // 2); a 3,000-token pool runs at most 1,500 requests, 0.5.9 printed 2,048."""
    d = kvcalc.deploy(LLAMA_8B, runtime="sglang", gpu="h100-sxm", max_total_tokens=3000)
    assert (d.engine_plan().pool_tokens, d.engine_plan().max_running) == (3000, 1500)
    old = kvcalc.deploy(LLAMA_8B, runtime="sglang", gpu="h100-sxm", max_total_tokens=3000, sglang_version="0.5.9")
    assert old.engine_plan().max_running == 2048
    given = kvcalc.deploy(LLAMA_8B, runtime="sglang", gpu="h100-sxm", max_total_tokens=3000,
                          max_running_requests=4000)
    assert given.engine_plan().max_running == 1500


def test_gpt_oss_hybrid_pool_of_0_5_23() -> None:
    """0.5.23 HybridSWAPoolConfigurator (pool_configurator.py): full = int(rest // (12 x 2048 + 0.8 x 12 x 2048)),
    swa = int(full x 0.8); max_running_requests from the full pool's count."""
    d = kvcalc.deploy(load_config("openai/gpt-oss-20b"), gpu="h100-sxm", runtime="sglang", mem_fraction_static=0.8)
    ep = d.engine_plan()
    rest = int((H100 - round(0.86 * GiB)) * 0.8) - d.weights_rank
    full = int(rest // (12 * 2048 + 0.8 * 12 * 2048))
    assert (ep.pool_tokens, ep.swa_pool_tokens) == (full, int(full * 0.8))
    assert ep.max_running == min(min(max(int(full / 131072 * 512), 2048), 4096), full // 2)
    capped = kvcalc.deploy(load_config("openai/gpt-oss-20b"), gpu="h100-sxm", runtime="sglang",
                           mem_fraction_static=0.8, max_total_tokens=100).engine_plan()
    assert capped.refusal is not None and "SWA pool (80 tokens)" in capped.refusal    # 128 + 1 >= 80


def test_gemma4_is_hybrid_swa_in_0_5_23() -> None:
    from kvcalc.sglang.swa import is_hybrid_swa

    assert is_hybrid_swa(["Gemma4ForConditionalGeneration"])
    assert not is_hybrid_swa(["Gemma4ForConditionalGeneration"], version="0.5.9")
    assert not is_hybrid_swa(["Gemma3ForCausalLM"])
