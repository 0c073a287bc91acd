"""llama.cpp runtime rules against the engine's own startup logs (tests/fixtures/engine_logs/llama_cpp.json,
each entry with its public source) and against llama.cpp's source (cited per test)."""
from __future__ import annotations

import re

import pytest
from paths import load_config, load_fixture

from kvcalc import AttentionCache, LayerSpec, ModelSpec, read_spec
from kvcalc.errors import InputError, UnsupportedError
from kvcalc.gguf.mixes import GgufWeights, gguf_weights
from kvcalc.llama_cpp import LlamaCppOptions, llama_cpp_plan, plan_from_config
from kvcalc.llama_cpp.cache import kv_groups, resolve_cells
from kvcalc.llama_cpp.command import parse_llama_command

LOGS = load_fixture("engine_logs/llama_cpp.json")
MiB = 2**20
SIZE_LINE = re.compile(r"KV self size\s+=\s+([\d.]+) MiB, K \((\w+)\):\s+([\d.]+) MiB, V \((\w+)\):\s+([\d.]+) MiB")


def _case(case_id: str) -> dict:
    return next(c for c in LOGS["kv"] if c["id"] == case_id)


def _plan(case: dict):
    config = load_config(case["config"])
    spec = read_spec(config)
    return spec, llama_cpp_plan(spec, LlamaCppOptions(**case["options"]), gguf_weights(config, "F16"))


def _logged_sizes(case: dict) -> tuple[float, float, float]:
    for line in case["lines"]:
        m = SIZE_LINE.search(line)
        if m:
            return float(m.group(1)), float(m.group(3)), float(m.group(5))
    raise AssertionError("no size line")


@pytest.mark.parametrize("case_id", ["qwen25-coder-32b-q8_0-32k", "deepseek-r1-distill-qwen-7b-f16"])
def test_kv_self_size_reproduces_the_log_to_the_mib(case_id: str) -> None:
    """The printed total / K / V MiB (older 'KV self size' line) equal ours to the 0.01 MiB printed."""
    case = _case(case_id)
    _, plan = _plan(case)
    (cache,) = plan.caches
    total, k, v = _logged_sizes(case)
    assert f"{cache.bytes / MiB:.2f}" == f"{total:.2f}"
    assert f"{cache.k_bytes / MiB:.2f}" == f"{k:.2f}"
    assert f"{cache.v_bytes / MiB:.2f}" == f"{v:.2f}"
    assert len(cache.layers) == case["pins"]["layers"]
    line = cache.log_line()                 # the current build prints the same numbers in its new format
    k_type = case["options"].get("cache_type_k", "f16")
    assert f"size = {total:7.2f} MiB" in line and f"K ({k_type}): {k:7.2f} MiB" in line


def test_kv_split_over_two_gpus_is_whole_layers() -> None:
    """#11200 prints 2788 + 1564 MiB on CUDA0 / CUDA1: 41 and 23 layers of 68 MiB (llama_kv_cache puts
    each layer's cells on its layer's device)."""
    case = _case("qwen25-coder-32b-q8_0-32k")
    _, plan = _plan(case)
    per_layer = {layer.k_bytes + layer.v_bytes for layer in plan.caches[0].layers}
    assert len(per_layer) == 1
    (one,) = per_layer
    for mib in case["pins"]["device_kv_mib"]:
        assert (mib * MiB) % one == 0
    assert sum(case["pins"]["device_kv_mib"]) * MiB == plan.kv_bytes


def test_cells_and_widths_pinned_by_an_ollama_log() -> None:
    """ollama#9858 pins kv_size = 128000, 80 layers of 1024-wide f16 K and V."""
    case = _case("llama-70b-f16-128000")
    _, plan = _plan(case)
    (cache,) = plan.caches
    assert cache.cells == case["pins"]["cells"] and len(cache.layers) == case["pins"]["layers"]
    width = case["pins"]["width"]
    assert all(layer.k_bytes == width * 2 * cache.cells for layer in cache.layers)
    assert cache.bytes == 2 * 80 * 1024 * 2 * 128000      # 2 (K, V) x layers x width x 2 B x cells


def test_n_ctx_is_shared_by_slots_and_padded_to_256() -> None:
    """llama_context (PR #17046), hand arithmetic: n_ctx_seq = PAD(n_ctx / n_seq, 256), n_ctx = n_ctx_seq *
    n_seq: -c 32768 -np 10 -> PAD(3276) = 3328, 33280 cells; -c 8192 -np 6 -> PAD(1365) = 1536, 9216 (the
    numbers third-party notes quote from llama-server's 'rounding down to ...' warning)."""
    cells = resolve_cells(LlamaCppOptions(n_ctx=32768, n_parallel=10), 131072)
    assert (cells.n_ctx_seq, cells.n_ctx, cells.n_stream) == (3328, 33280, 10)
    cells = resolve_cells(LlamaCppOptions(n_ctx=8192, n_parallel=6), 131072)
    assert (cells.n_ctx_seq, cells.n_ctx) == (1536, 9216)
    assert any("rounding down to 9216" in n for n in cells.notes)
    unified = resolve_cells(LlamaCppOptions(n_ctx=32768, n_parallel=10, kv_unified=True), 131072)
    assert (unified.n_ctx_seq, unified.n_stream) == (32768, 1)
    # common/arg.cpp: -np defaults to -1 (auto) for the server; tools/server/server.cpp main: n_parallel < 0 ->
    # 4 slots, unified (draft model or not); an explicit -np 1 stays one slot
    bare = resolve_cells(LlamaCppOptions(n_ctx=8192), 131072)
    assert (bare.n_seq_max, bare.n_stream, bare.n_ctx_seq) == (4, 1, 8192)
    assert resolve_cells(parse_llama_command("llama-server -c 8192 -np 1").options, 131072).n_seq_max == 1
    assert resolve_cells(parse_llama_command("llama-server -c 8192 -md d.gguf").options, 131072).n_seq_max == 4
    assert resolve_cells(parse_llama_command("llama-cli -c 8192").options, 131072).n_seq_max == 1


def test_cell_rounding_matches_measured_allocations() -> None:
    """unslothai/unsloth#7530 (a maintainer measured a live llama-server, build 10107): 'ctx 1024 with
    3 slots allocates 1536 cells ..., but 4 slots allocates 1024 cells' (separate, non-unified slots)."""
    three = resolve_cells(parse_llama_command("llama-server -c 1024 -np 3").options, 32768)
    assert (three.n_ctx, three.n_ctx_seq, three.n_stream) == (1536, 512, 3)
    four = resolve_cells(parse_llama_command("llama-server -c 1024 -np 4").options, 32768)
    assert (four.n_ctx, four.n_ctx_seq, four.n_stream) == (1024, 256, 4)


def test_non_unified_cache_bytes_follow_cells_times_streams() -> None:
    """llama_kv_cache allocates K as [n_embd_k_gqa, kv_size, n_stream]: the 33280-cell run above needs
    33280 x 512 KiB for a 32-layer, 4096-wide f16 model (logged: 'allocating 16640.00 MiB')."""
    config = load_config("meta-llama__Llama-2-7b-hf.json")     # 32 layers, 32 KV heads x 128 = 4096 wide
    spec = read_spec(config)
    opts = LlamaCppOptions(n_ctx=32768, n_parallel=10)
    (cache,) = kv_groups(spec, opts, resolve_cells(opts, 4096))
    assert cache.bytes == 16640 * MiB


def test_swa_cache_size_rule() -> None:
    """llama_kv_cache_iswa: SWA cells = PAD(min(n_ctx_seq, n_swa * n_seq (unified) + n_ubatch), 256);
    gemma-3-27b (window 1024, 52 SWA + 10 full layers) at -c 32768: llama-cli (1 seq) -> PAD(1024 + 512) =
    1536 cells; llama-server's 4 unified slots -> PAD(4 x 1024 + 512) = 4608; --swa-full -> all 32768."""
    spec = read_spec(load_config("google__gemma-3-27b-it.json"))
    opts = LlamaCppOptions(n_ctx=32768, program="llama-cli")
    base, swa = kv_groups(spec, opts, resolve_cells(opts, spec.max_position_embeddings))
    assert (base.cells, len(base.layers), swa.cells, len(swa.layers)) == (32768, 10, 1536, 52)
    server = LlamaCppOptions(n_ctx=32768)
    assert kv_groups(spec, server, resolve_cells(server, spec.max_position_embeddings))[1].cells == 4608
    full = LlamaCppOptions(n_ctx=32768, program="llama-cli", swa_full=True)
    _, swa_full = kv_groups(spec, full, resolve_cells(full, spec.max_position_embeddings))
    assert swa_full.cells == 32768


def test_quantized_v_needs_flash_attention() -> None:
    """llama_context: 'quantized V cache was requested, but this requires Flash Attention'."""
    config = load_config("meta-llama__Llama-3.1-8B.json")
    spec = read_spec(config)
    with pytest.raises(InputError, match="requires Flash Attention"):
        llama_cpp_plan(spec, LlamaCppOptions(n_ctx=4096, cache_type_v="q8_0", flash_attn="off"),
                       gguf_weights(config, "Q4_K_M"))
    with pytest.raises(InputError, match="Unsupported cache type"):
        LlamaCppOptions(cache_type_k="q3_k")
    with pytest.raises(InputError, match="n_seq_max must be <= 256"):
        LlamaCppOptions(n_parallel=300)


def test_partial_offload_splits_layers_and_output() -> None:
    """load_tensors: i_gpu_start = max(n_layer + 1 - ngl, 0) over n_layer + 1 slots (the output layer is
    slot n_layer): -ngl 16 on 32 blocks puts the output layer and blocks 17..31 on the GPU; -ngl above
    n_layer + 1 is clamped; token_embd stays on the host. A public b9993 / b10437 reading of the same
    lines: 'the GPU gets the output layer first (any k >= 1), then the last k-1 blocks'."""
    config = load_config("meta-llama__Llama-3.1-8B.json")
    spec = read_spec(config)
    w = gguf_weights(config, "Q4_K_M")
    half = llama_cpp_plan(spec, LlamaCppOptions(n_ctx=4096, n_parallel=1, n_gpu_layers=16), w)
    assert half.gpu_layers == 15 and half.output_on_gpu
    assert half.gpu.weights == sum(w.layer_bytes[17:]) + w.output_bytes
    assert half.gpu.kv * 32 == half.kv_bytes * 15
    assert half.log_lines(32)[0] == "load_tensors: offloaded 16/33 layers to GPU"
    none = llama_cpp_plan(spec, LlamaCppOptions(n_ctx=4096, n_gpu_layers=0), w)
    assert none.gpu.weights == 0 and none.gpu.kv == 0 and none.host.weights == w.total_bytes
    full = llama_cpp_plan(spec, LlamaCppOptions(n_ctx=4096, n_parallel=1, n_gpu_layers=999), w)
    assert full.output_on_gpu and full.gpu.weights == w.total_bytes - w.input_bytes
    assert any("at most n_layer + 1 = 33" in x for x in full.warnings)
    assert full.log_lines(32)[0] == "load_tensors: offloaded 33/33 layers to GPU"
    assert full.quality == "estimated"      # the compute buffer is an estimate
    assert full.weights_quality == "exact" and full.kv_quality == "exact"


def test_mla_caches_the_latent_and_takes_one_cache_type() -> None:
    """src/llama-kv-cache.cpp: has_v = !is_mla; K rows of kv_lora_rank 512 + rope 64 per cell; llama_init_from_model
    refuses different K and V types for an MLA model."""
    spec = read_spec(load_config("deepseek-ai__DeepSeek-V2-Lite.json"))
    o = LlamaCppOptions(n_ctx=4096, n_parallel=1)
    (g,) = kv_groups(spec, o, resolve_cells(o, 4096))
    assert (g.k_bytes, g.v_bytes) == (27 * 4096 * 576 * 2, 0)
    o = LlamaCppOptions(n_ctx=4096, n_parallel=1, cache_type_k="q8_0", flash_attn="on")
    with pytest.raises(InputError, match="one cache type"):
        kv_groups(spec, o, resolve_cells(o, 4096))


def test_command_line_flags() -> None:
    """Flag names of common/arg.cpp."""
    p = parse_llama_command("./llama-server -m /models/q.gguf -c 32768 -np 4 -ctk q8_0 -ctv q8_0 -fa on "
                            "-ngl 99 --swa-full --port 8080 --kv-unified -ub 1024")
    o = p.options
    assert (o.n_ctx, o.n_parallel, o.cache_type_k, o.cache_type_v, o.flash_attn, o.n_gpu_layers) == \
        (32768, 4, "q8_0", "q8_0", "on", 99)
    assert o.swa_full and o.kv_unified and o.n_ubatch == 1024 and o.program == "llama-server"
    assert p.ignored == ("--port",)
    q = parse_llama_command("llama-cli -hf bartowski/Llama-3.1-8B-GGUF:q4_k_m -fa --ctx-size=8192 -nkvo")
    assert (q.options.model, q.options.hf_quant, q.options.flash_attn, q.options.n_ctx, q.options.kv_offload) == \
        ("bartowski/Llama-3.1-8B-GGUF", "Q4_K_M", "on", 8192, False)
    with pytest.raises(InputError, match="-c takes a whole number"):
        parse_llama_command("llama-server -c lots")
    with pytest.raises(InputError, match="needs a value"):
        parse_llama_command("llama-server -m")
    with pytest.raises(InputError, match="Unsupported cache type"):
        parse_llama_command("llama-server -ctk q3_k")


def test_plan_from_a_command_line_and_config() -> None:
    """The -hf tail names the file type; the plan's weights are that mix, GPU = all but token_embd."""
    config = load_config("meta-llama__Llama-3.1-8B.json")
    opts = parse_llama_command("llama-server -hf bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M -c 8192").options
    plan = plan_from_config(config, opts, gpu_bytes=24 * 2**30)
    w = gguf_weights(config, "Q4_K_M")
    assert plan.gpu.weights == w.total_bytes - w.input_bytes and plan.fits is True
    assert plan.caches[0].cells == 8192 and plan.caches[0].n_seq_max == 4      # the server's 4 unified slots
    with pytest.raises(UnsupportedError, match="which GGUF file"):
        plan_from_config(config, LlamaCppOptions(n_ctx=8192))
    with pytest.raises(UnsupportedError, match="not modelled"):
        plan_from_config(config, LlamaCppOptions(n_ctx=8192), "UD-Q4_K_XL")


def test_log_line_format_matches_a_current_build() -> None:
    """ggml-org/llama.cpp#21730 (a 2026 build) prints 'llama_kv_cache: size = 2048.00 MiB (131072 cells,
    4 layers,  1/1 seqs), K (f16): 1024.00 MiB, V (f16): 1024.00 MiB' (spacing as asserted below) and
    'llama_kv_cache_iswa: creating     SWA KV cache, size = 1024 cells'. 1024 MiB of f16 K over 4 layers
    x 131072 cells is 1024 values per cell per layer (hand arithmetic); a spec with that geometry must print
    the same characters."""
    full = AttentionCache(kv_heads=2, k_head_dim=512, v_head_dim=512, query_heads=8)
    spec = ModelSpec(model_type="test", dtype="bfloat16", hidden_size=2048, vocab_size=1000, num_attention_heads=8,
                     layers=tuple(LayerSpec(i, "full", (full,)) for i in range(4)), max_position_embeddings=131072)
    opts = LlamaCppOptions(n_ctx=131072, program="llama-cli")
    (cache,) = kv_groups(spec, opts, resolve_cells(opts, 131072))
    assert cache.log_line() == ("llama_kv_cache: size = 2048.00 MiB (131072 cells,   4 layers,  1/1 seqs), "
                                "K (f16): 1024.00 MiB, V (f16): 1024.00 MiB")
    swa = AttentionCache(kv_heads=2, k_head_dim=256, v_head_dim=256, query_heads=8, window=512)
    spec2 = ModelSpec(model_type="test", dtype="bfloat16", hidden_size=2048, vocab_size=1000, num_attention_heads=8,
                      layers=(LayerSpec(0, "sliding", (swa,)), LayerSpec(1, "full", (full,))),
                      max_position_embeddings=131072)
    plan = llama_cpp_plan(spec2, opts, _no_weights(2))
    assert "llama_kv_cache_iswa: creating     SWA KV cache, size = 1024 cells" in plan.log_lines(2)


def _no_weights(n_layer: int) -> GgufWeights:
    """Weights of zero bytes (the KV lines do not depend on them)."""
    return GgufWeights("test", (), (0,) * n_layer, 0, 0, "exact")
