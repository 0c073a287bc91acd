"""llama.cpp's decode estimate reads the GGUF weights resident on the GPU (issue 24 item 1): with every
layer offloaded (-ngl -1) that is the file's tensor data less token_embd, which llama.cpp keeps in host
memory (src/llama-model.cpp ``load_tensors``: the input layer is always on the CPU)."""
from __future__ import annotations

import pytest
from paths import load_config

from kvcalc import deploy
from kvcalc.gguf.mixes import gguf_weights
from kvcalc.speed import estimate_speed


def _config() -> dict:
    return load_config("Qwen__Qwen2-7B.json")


def test_decode_reads_the_gguf_weights_on_the_gpu():
    config = _config()
    g = gguf_weights(config, "Q8_0")
    d = deploy(config, runtime="llama_cpp", gguf="Q8_0", gpu="h100-sxm")
    e = estimate_speed(d, 1, 1024)
    assert e.decode_weight_bytes == sum(g.layer_bytes) + g.output_bytes == g.total_bytes - g.input_bytes
    assert e.decode_weight_bytes > 0


def test_fewer_offloaded_layers_read_fewer_weight_bytes():
    config = _config()
    g = gguf_weights(config, "Q8_0")
    d = deploy(config, runtime="llama_cpp", gguf="Q8_0", gpu="h100-sxm", n_gpu_layers=10)
    # -ngl 10 (llama.cpp master, src/llama-model.cpp load_tensors: i_gpu_start = n_layer + 1 - 10): the
    # output layer first, then the last 9 blocks
    assert estimate_speed(d, 1, 1024).decode_weight_bytes == g.output_bytes + sum(g.layer_bytes[-9:])


def test_a_geforce_cards_fp16_accumulate_rate_is_twice_its_listed_fp32_accumulate_one() -> None:
    """data/gpus.csv's fp16_acc16_tflops_dense: set on the GeForce cards only (NVIDIA's whitepapers: RTX 3090 142 with
    FP16 accumulate against 71 with FP32, RTX 4090 330.3 against 165.2), within 1 % of twice their bf16 figure; the
    data-center and workstation cards run both at one rate, so they leave it blank."""
    from kvcalc.gpus import gpu_catalog

    for g in gpu_catalog():
        if g.fp16_acc16_tflops is not None:
            assert g.name.startswith("GeForce") and abs(g.fp16_acc16_tflops / (2 * g.bf16_tflops) - 1) < 0.01, g.key
        else:
            assert not g.name.startswith("GeForce"), g.key


def test_llama_cpps_prefill_runs_at_its_share_of_the_fp16_accumulate_rate() -> None:
    """llama.cpp's cuBLAS GEMMs accumulate in fp16 (ggml_cuda_op_mul_mat_cublas, CUBLAS_COMPUTE_16F): on an RTX 4090
    the prefill is costed at LLAMA_CPP_RATE_SHARE x 330.3 TFLOP/s, about the 165.2 FP32-accumulate figure the other
    engines use; on an L40S, whose two rates are both 362, at half of it; vLLM keeps the bf16 rate on both."""
    from kvcalc import speed

    config = load_config("meta-llama__Llama-3.1-8B.json")
    for gpu, full in (("rtx-4090", 330.3), ("l40s", 362.0)):
        d = deploy(config, gpu=gpu, runtime="llama_cpp", gguf="F16")
        assert speed._tensor_rate(d) == (full * speed.LLAMA_CPP_RATE_SHARE, speed.LLAMA_CPP_RATE_NAME)
        v = deploy(config, gpu=gpu, runtime="vllm")
        assert speed._tensor_rate(v) == (v.gpu.bf16_tflops, "bf16")
    mi = deploy(config, gpu="mi300x", runtime="llama_cpp", gguf="F16")
    assert speed._tensor_rate(mi)[1] == "bf16"          # ROCm: no fp16-accumulate rule


def test_without_flash_attention_the_scores_go_through_memory() -> None:
    """llama.cpp -fa off writes each layer's scores (llm_build_kqv: kq, soft_max_ext, kqv): Llama-3.1-8B F16 on an
    RTX 4090 (1,008 GB/s x the default 0.78), 32 layers x 32 query heads. A 1,024-token prompt in two 512-token
    microbatches spans 512 x 512 + 512 x 1,024 scores a head at 24 B each (the batched cuBLAS path: F16 out, F32
    conversion, softmax, back to F16); a decode step at 4,096 tokens 4,096 at 16 B. With FlashAttention, none."""
    from kvcalc import speed

    config = load_config("meta-llama__Llama-3.1-8B.json")
    on = deploy(config, gpu="rtx-4090", runtime="llama_cpp", gguf="F16", flash_attn="on")
    off = deploy(config, gpu="rtx-4090", runtime="llama_cpp", gguf="F16", flash_attn="off")
    bw = 1008e9 * speed.DEFAULT_BANDWIDTH_EFFICIENCY
    pre = 32 * 32 * (512 * 512 + 512 * 1024) * 24 / bw
    a, b = estimate_speed(on, 1, 1024), estimate_speed(off, 1, 1024)
    assert abs((b.ttft_seconds - a.ttft_seconds) - pre) < 1e-12
    dec = 32 * 32 * 4096 * 16 / bw
    a, b = estimate_speed(on, 1, 4096), estimate_speed(off, 1, 4096)
    assert abs((b.decode_step_seconds - a.decode_step_seconds) - dec) < 1e-12
    named = [x for x in b.assumptions if x.startswith("llama.cpp without FlashAttention")]
    assert named and "16 B a score in a one-token pass and 24 B" in named[0]
    assert not any(x.startswith("llama.cpp without FlashAttention") for x in a.assumptions)
    assert deploy(config, gpu="rtx-4090", runtime="vllm").engine.materialized_scores(off) is None


def test_the_decode_grid_pays_the_scores_as_the_estimate_does() -> None:
    import math

    from kvcalc.speed import decode_rate_grid

    for d in (deploy(load_config("google__gemma-3-4b-it.json"), gpu="l40s", runtime="llama_cpp", gguf="Q4_K_M",
                     flash_attn="off"),     # sliding-window layers: their scores span their cache's cells
              deploy(load_config("deepseek-ai__DeepSeek-V2-Lite.json"), gpu="rtx-3090", runtime="llama_cpp",
                     gguf="Q4_0", flash_attn="off"),       # MLA: the V copy too
              deploy(load_config("deepseek-ai__DeepSeek-V2-Lite.json"), gpu="mi300x", runtime="llama_cpp",
                     gguf="Q4_0", flash_attn="off"),       # and an AMD GPU's two factors
              deploy(load_config("meta-llama__Llama-3.1-8B.json"), gpu="a100-80gb", runtime="llama_cpp",
                     gguf="Q4_K_M"),                       # the per-SM streaming limit
              deploy(load_config("meta-llama__Llama-3.1-8B.json"), gpu="v100-32gb", runtime="llama_cpp",
                     gguf="Q4_K_M")):                      # a 64-sequence step's F16 conversion
        batches, contexts = [1, 4, 8, 9, 32, 64], [1, 700, 4096, 30_000]
        grid = decode_rate_grid(d, batches, contexts)
        for i, b in enumerate(batches):
            for j, t in enumerate(contexts):
                e = estimate_speed(d, b, t)
                assert math.isclose(grid[i, j], e.decode_tokens_per_s_per_sequence, rel_tol=1e-12)


def test_llama_bench_rows_before_its_flash_attention_default_changed_run_without_it() -> None:
    """llama-bench's default was -fa 0 (cmd_params_defaults at 4426e298 and c392e509; PR #23714, May 2026: 'the
    default is still kept as -fa off'): data/'s PR #4766 rows (January 2024, before FlashAttention existed) are planned
    with -fa off, a row whose table shows fa 1 with it, a row of a later build with kvcalc's default."""
    from kvcalc.speed_reference import heldout_measurements, published_measurements

    rows = {m.id: m for m in published_measurements() + heldout_measurements()}
    # both builds predate PR #8075 too (force_cublas: a float GGUF's prompts are multiplied as stored either way)
    assert rows["llamacpp-4090-llama-7b-f16-pp512"].engine_options == {"flash_attn": "off", "force_cublas": True}
    assert rows["xd-rtx-4090-llama3-8b-f16-pp8192"].engine_options == {"flash_attn": "off", "force_cublas": True}
    assert rows["llamacpp-4090-llama3-8b-q4_0-d32768"].engine_options == {}           # 'CUDA, FlashAttention'
    assert rows["llamacpp-m3ultra-llama33-70b-q4_k_m-tg128"].engine_options == {}     # '-fa 1 -n 128'
    assert rows["llamacpp-3090-gemma4-26b-a4b-q4_0-ub1pp256-pr29152"].engine_options == {}   # after PR #23714
    assert rows["llamacpp-4090-llama3-8b-q6_k-server"].engine_options == {}           # llama-server, not llama-bench


def test_a_sliding_window_layers_scores_span_its_cache_and_swa_full_spans_every_cell() -> None:
    """gemma-3-1b's sliding layers (window 512, llama.cpp's SWA cache GGML_PAD(512 + 512, 256) = 1,024 cells, as
    kvcalc.llama_cpp.cache sizes it): a decode step at 30,000 tokens pays 1,024 cells a head there, and every cell with
    --swa-full; a prompt fed one token a pass (-ub 1) pays the one-token pass's 16 B a score, not 24."""
    from kvcalc import speed

    config = load_config("google__gemma-3-1b-it.json")
    kw = dict(gpu="rtx-4090", runtime="llama_cpp", gguf="F16", flash_attn="off")
    d = deploy(config, **kw)
    st = speed._stages(d)[0]
    heads = dict(st.score_heads)
    windowed = next(cap for cap in heads if cap)
    assert d.engine.materialized_scores(d).span_cap(windowed) == 1024
    assert speed._materialized_bytes(d, st, 1, context=30_000) == 16 * (heads[0] * 30_000 + heads[windowed] * 1024)
    full = deploy(config, swa_full=True, **kw)
    full_st = speed._stages(full)[0]
    assert speed._materialized_bytes(full, full_st, 1, context=30_000) == 16 * sum(heads.values()) * 30_000
    one = deploy(config, n_ubatch=1, **kw)
    ub1 = speed._materialized_bytes(one, speed._stages(one)[0], 1, prompt=300)
    assert ub1 == 16 * sum(h * speed._passes(300, 1, 0)[1] for h in heads.values())   # 300 < the window's cells


def test_without_flash_attention_an_mla_layer_copies_the_v_it_views_inside_its_latent() -> None:
    """DeepSeek-V2-Lite (27 layers, 16 query heads, kv_lora_rank 512 + RoPE key 64) caches the 576-wide latent only;
    llama.cpp views V inside it (build_attn with llm_graph_input_attn_k: ``ggml_view_4d(k, v_cur->ne[0], ...)`` with
    K's strides), so build_attn_mha's path without FlashAttention copies it (``ggml_cont(ggml_transpose(v))``) before
    the KQV product: 3 passes over 512 f16 columns of every cell a forward pass, besides the 16 B a score. At batch 1
    and 32,768 cells that is 27 x (16 x 32,768 x 16 B + 3 x 32,768 x 512 x 2 B); a 1,024-token prompt in two 512-token
    passes copies 512 + 1,024 cells' columns."""
    from kvcalc import speed

    config = load_config("deepseek-ai__DeepSeek-V2-Lite.json")
    d = deploy(config, gpu="rtx-3090", runtime="llama_cpp", gguf="Q4_0", flash_attn="off")
    st = speed._stages(d)[0]
    assert st.viewed_v == ((0, 27 * 512),)
    assert speed._materialized_bytes(d, st, 1, context=32_768) == 27 * (16 * 32_768 * 16 + 3 * 32_768 * 512 * 2)
    # two sequences decode in one two-token pass (24 B a score), each over its own stream's cells
    assert speed._materialized_bytes(d, st, 2, context=100) == 2 * 27 * (16 * 100 * 24 + 3 * 100 * 512 * 2)
    scores = 24 * 27 * 16 * (512 * 512 + 512 * 1024)
    assert speed._materialized_bytes(d, st, 1, prompt=1024) == scores + 27 * 3 * (512 + 1024) * 512 * 2
    gqa = deploy(load_config("meta-llama__Llama-3.1-8B.json"), gpu="rtx-3090", runtime="llama_cpp", gguf="Q4_0",
                 flash_attn="off")
    assert speed._stages(gqa)[0].viewed_v == ()          # V stored transposed (v_trans): no copy


def test_a_decode_step_reads_the_cache_in_its_own_types() -> None:
    """llama.cpp's cache holds -ctk / -ctv elements whatever the model dtype (kvcalc.llama_cpp.cache.cache_dtype):
    Llama-3.1-8B's 32 layers x 8 KV heads x 128 x (K + V) at 32,768 cells are 2**31 values, 2 B each in f16, 34 B per
    32 in q8_0 (ggml's block_q8_0: a half scale + 32 int8), and 1,140,850,688 + 2,147,483,648 B with q8_0 K and f16
    V."""
    config = load_config("meta-llama__Llama-3.1-8B.json")
    kw = dict(gpu="rtx-4090", runtime="llama_cpp", gguf="Q4_K_M", flash_attn="on")
    read = {types: estimate_speed(deploy(config, cache_type_k=types[0], cache_type_v=types[1], **kw), 1,
                                  32_768).decode_kv_bytes
            for types in (("f16", "f16"), ("q8_0", "q8_0"), ("q8_0", "f16"), ("f32", "f32"))}
    assert read == {("f16", "f16"): 2**31 * 2, ("q8_0", "q8_0"): 2**31 // 32 * 34,
                    ("q8_0", "f16"): 2**30 // 32 * 34 + 2**30 * 2, ("f32", "f32"): 2**31 * 4}


def test_llama_cpps_decode_streams_at_most_its_per_sm_limit_and_the_other_engines_the_datasheet(monkeypatch) -> None:
    """kvcalc.speed.decode_bandwidth_gbps: under llama.cpp on an NVIDIA GPU with more datasheet bandwidth per SM than
    LLAMA_CPP_SM_STREAM_GBPS, a decode step streams LLAMA_CPP_SM_STREAM_GBPS x SMs (an A100's 108, data/gpus.csv);
    below it (an RTX 4090: 1,008 GB/s over 128 SMs) and in vLLM the datasheet's; on an Apple GPU (no SM count) too.
    The prefill keeps the datasheet bandwidth. The step's weight read checks the arithmetic by hand."""
    from kvcalc import speed
    from kvcalc.speed import decode_bandwidth_gbps, decode_stream_limit_binds

    cfg = load_config("meta-llama__Llama-3.1-8B.json")
    a100 = deploy(cfg, gpu="a100-80gb", runtime="llama_cpp", gguf="F16")
    assert a100.gpu.sm_count == 108
    assert decode_bandwidth_gbps(a100) == pytest.approx(108 * speed.LLAMA_CPP_SM_STREAM_GBPS)
    assert decode_bandwidth_gbps(a100) < 2039
    assert decode_stream_limit_binds(a100)
    # a batch past the one-token kernels (MMVQ_MAX_BATCH_SIZE 8) runs GEMMs: the datasheet bandwidth
    assert decode_bandwidth_gbps(a100, 8) < 2039 and decode_bandwidth_gbps(a100, 9) == 2039
    assert not decode_stream_limit_binds(a100, 16)
    for d in (deploy(cfg, gpu="rtx-4090", runtime="llama_cpp", gguf="F16"),
              deploy(cfg, gpu="a100-80gb", runtime="vllm"),
              deploy(cfg, gpu="m2-ultra-192gb", runtime="llama_cpp", gguf="F16")):
        assert decode_bandwidth_gbps(d) == d.gpu.bandwidth_gbps and not decode_stream_limit_binds(d)
    e = estimate_speed(a100, 1, 1)
    bw = 108 * speed.LLAMA_CPP_SM_STREAM_GBPS * 1e9 * speed.DEFAULT_BANDWIDTH_EFFICIENCY
    kv_and_fixed = e.decode_kv_bytes / bw + e.decode_fixed_seconds
    assert e.decode_step_seconds == pytest.approx(e.decode_weight_bytes / bw + kv_and_fixed, rel=1e-9)
    assert any("stream at most" in a and "108 SMs 1,177 GB/s of its 2,039" in a and "extrapolation" not in a
               for a in e.assumptions)
    h200 = estimate_speed(deploy(cfg, gpu="h200", runtime="llama_cpp", gguf="F16"), 1, 1)
    assert any("stream at most" in a and "an extrapolation" in a for a in h200.assumptions)
    assert not any("stream at most" in a for a in estimate_speed(a100, 16, 1).assumptions)
    assert "min(2039 GB/s, 108 SMs x 10.9 GB/s)" in e.formulas[0]
    # a prefill's GEMMs fill the GPU: lifting the limit changes the decode step, not a short (memory-bound) prompt's
    short = estimate_speed(a100, 1, 64)
    monkeypatch.setattr(speed, "LLAMA_CPP_SM_STREAM_GBPS", 1e6)
    lifted = estimate_speed(a100, 1, 64)
    assert lifted.ttft_seconds == short.ttft_seconds
    assert lifted.prefill_bound == short.prefill_bound == "memory bandwidth"
    assert lifted.decode_step_seconds < short.decode_step_seconds


def test_the_published_a100_figure_the_limit_is_fitted_on_comes_within_30_percent() -> None:
    """llama.cpp PR #6017's single-GPU block: CodeLlama-7B F16 tg128 at 74.77 tok/s on one A100 80GB PCIe, 1.0 TB/s of
    its 1,935 (1.45x the estimate without the limit); its five F16 prompts, which the limit does not touch, too."""
    from kvcalc.speed_reference import estimate_for, published_measurements, speed_ratio

    rows = [m for m in published_measurements() if m.source == "github.com/ggml-org/llama.cpp/pull/6017"]
    assert len(rows) == 7
    for m in rows:
        assert abs(speed_ratio(m, estimate_for(m)) - 1) <= 0.3, m.id


def test_a_quantized_prompt_on_the_cublas_path_pays_the_conversion_of_its_weights_to_f16() -> None:
    """ggml_cuda_op_mul_mat_cublas converts each quantized weight matrix to F16 before cublasGemmEx: per prompt pass of
    more tokens than MMQ takes (63 on a V100, 32 in a build before PR #8075), Llama-3.1-8B Q4_K_M's matrices are read
    at their stored 4,186,439,680 B (the GPU's 4,617,396,480 less the 430,956,800 B output layer) and written at 2 B
    each of their 6,979,321,856 weights (attention + MLP). Today's builds on a Turing or later card (MMQ) and a
    float GGUF pay nothing."""
    from kvcalc.speed import _dequantized_bytes, _stages

    cfg = load_config("meta-llama__Llama-3.1-8B.json")
    per_pass = 4_186_439_680 + 2 * 6_979_321_856

    def moved(tokens: int, **options) -> int:
        d = deploy(cfg, runtime="llama_cpp", **options)
        return _dequantized_bytes(d, _stages(d)[0], tokens)

    v100 = {"gpu": "v100-32gb", "gguf": "Q4_K_M"}
    assert moved(512, **v100) == per_pass and moved(1024, **v100) == 2 * per_pass
    assert moved(512 + 63, **v100) == per_pass and moved(512 + 64, **v100) == 2 * per_pass
    assert moved(63, **v100) == 0
    assert moved(512, gpu="rtx-4090", gguf="Q4_K_M") == 0 and moved(512, gpu="v100-32gb", gguf="F16") == 0
    old = {"gpu": "rtx-4090", "gguf": "Q4_K_M", "force_cublas": True}
    assert moved(33, **old) == per_pass and moved(32, **old) == 0
    assert moved(4096, **old, n_ubatch=32) == 0                   # every pass within MMQ's limit
    assert moved(4096, **old, n_batch=256) == 16 * per_pass       # -ub is clamped to -b: 16 passes of 256
    # a MoE layer's experts convert by the rows routed to each: at 512 tokens none of Qwen3-30B-A3B's 128 experts
    # gets 64 (8 picks a token), so only the attention and router matrices convert on a V100
    moe = load_config("Qwen__Qwen3-30B-A3B.json")
    d = deploy(moe, gpu="v100-32gb", runtime="llama_cpp", gguf="Q4_K_M")
    p = d.weights.params
    dense = p.attention + p.mlp + p.mixer + p.other - p.moe_experts
    assert 0 < _dequantized_bytes(d, _stages(d)[0], 512) < 1.01 * dense * (2 + 0.7)
    # a decode step of 64 sequences on a V100 runs the same cuBLAS path, and pays it
    many = estimate_speed(deploy(cfg, runtime="llama_cpp", **v100), 64, 1024)
    assert f"+ {per_pass:,} B converting the quantized weights to F16" in many.formulas[0]
    e = estimate_speed(deploy(cfg, runtime="llama_cpp", **v100), 1, 512)
    assert any("converts the quantized weight matrices to F16" in a and "18.1 GB read and written" in a
               for a in e.assumptions)
    assert f"+ {per_pass:,} B converting the quantized weights to F16" in e.formulas[2]


def test_llama_cpp_rows_before_pr_8075_run_their_quantized_prompts_through_cublas() -> None:
    """PR #8075 (June 2024) made MMQ the default; data/'s PR #6017 Q8_0 prompt (March 2024) is planned with
    force_cublas, PR #7676's column (its notes: the int8 tensor-core MMQ) and a 2025 build are not."""
    from kvcalc.speed_reference import published_measurements

    rows = {m.id: m for m in published_measurements()}
    assert rows["llamacpp-a100pcie-llama-7b-q8_0-pp512"].engine_options == {"flash_attn": "off", "force_cublas": True}
    assert "force_cublas" not in rows["llamacpp-4090-llama3-8b-q4_0-pp512-mma"].engine_options
    assert "force_cublas" not in rows["llamacpp-3090-dsv2lite-q4_0-pp512"].engine_options
