"""One deployment, one byte path: the per-layer table adds up to the plan's KV figures exactly.

For every runtime and for non-default block size, max_num_batched_tokens, tensor and pipeline
parallelism, across full-attention, sliding/interleaved, MLA, MoE and cross-attention models:
``layer_bytes(d).per_gpu_bytes == plan(d).kv_bytes``, ``all_gpus_bytes == kv_bytes_total``, and
both equal figures computed by a second, independent path: kvcalc.kv_cache on the whole model
(one GPU), vLLM's block arithmetic ``batch x blocks(T) x block bytes`` from ``vllm_memory_plan``,
the chart's curve, and hand arithmetic for the cases the issue reported.
"""
from __future__ import annotations

import itertools

import pytest
from paths import load_config

import kvcalc
from kvcalc.layer_table import PADDING
from kvcalc.runtimes import ENGINE_RUNTIMES

MODELS = ("meta-llama/Llama-3.1-8B", "google/gemma-2-9b-it", "google/gemma-3-27b-it", "mistralai/Mistral-7B-v0.1",
          "deepseek-ai/DeepSeek-V2-Lite", "openai/gpt-oss-20b", "Qwen/Qwen3-30B-A3B", "google-t5/t5-small")
OPTIONS = (
    {},
    {"block_size": 128},
    {"max_num_batched_tokens": 512},
    {"gpus": 2},
    {"gpus": 2, "tensor_parallel_size": 1, "pipeline_parallel_size": 2},
    {"gpus": 8, "tensor_parallel_size": 4, "pipeline_parallel_size": 2, "block_size": 32},
)
SHAPES = ((1, 1), (4, 1000), (3, 8191))


def _deploy(model: str, runtime: str, options: dict) -> kvcalc.Deployment | None:
    opts = dict(options)
    if runtime == "llama_cpp":
        opts["gguf"] = "Q8_0"       # llama.cpp plans a GGUF file; Q8_0 is one of kvcalc.gguf's modelled file types
    if runtime == "transformers":
        opts.pop("tensor_parallel_size", None)
        if "gpus" in opts:
            opts["pipeline_parallel_size"] = opts["gpus"]
    try:
        return kvcalc.deploy(load_config(model), gpu="h100-sxm", runtime=runtime, **opts)
    except kvcalc.InputError:
        return None        # e.g. tp 4 does not divide this model's heads: nothing to compare
    except kvcalc.UnsupportedError:
        if runtime in ENGINE_RUNTIMES:
            return None    # SGLang / TensorRT-LLM refuse layer kinds whose pools kvcalc does not model
        if runtime == "vllm" and kvcalc.read_spec(load_config(model)).is_encoder_decoder:
            return None    # vLLM 0.33 serves no encoder-decoder but Whisper (kvcalc.vllm.removed)
        raise


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("runtime", kvcalc.RUNTIMES)
def test_table_adds_up_to_the_headline(model: str, runtime: str) -> None:
    checked = 0
    for options, (batch, context) in itertools.product(OPTIONS, SHAPES):
        d = _deploy(model, runtime, options)
        if d is None:
            continue
        p = kvcalc.plan(d, batch=batch, context=context, solve_gpus=False)
        table = kvcalc.layer_bytes(d, batch, context)
        assert table.per_gpu_bytes == p.kv_bytes, (options, batch, context)
        assert table.all_gpus_bytes == p.kv_bytes_total, (options, batch, context)
        assert kvcalc.memory_curve(d, batch, [context])[0].kv == p.kv_bytes, (options, batch, context)
        layers = [r for r in table.rows if r.kind != PADDING]
        assert [r.index for r in layers] == list(range(d.spec.num_layers))
        if runtime == "vllm":
            vp = d.vllm_plan()
            blocks = d.request_blocks()(min(context, vp.max_model_len))
            if d.pp == 1:
                assert p.kv_bytes == batch * blocks * vp.block_bytes
            assert p.kv_bytes_total == batch * blocks * vp.block_bytes_all_stages * d.tp
        elif runtime == "llama_cpp":
            # llama_kv_cache: f16 K and V rows of kv_heads x head_dim per cell (FA on: V not transposed); a
            # request holds min(T, n_ctx_seq) cells, a sliding layer at most its window (is_masked_swa)
            cells = d.engine_plan().max_context
            for r, layer in zip(layers, d.spec.layers):
                (a,) = layer.attention
                held = min(context, cells, a.window or cells)
                # MLA (llama-kv-cache.cpp: has_v = !is_mla): one K row of the latent (kv_lora_rank + rope) per cell
                width = a.latent_dim or a.kv_heads * (a.k_head_dim + a.v_head_dim)
                assert r.tokens == held and r.bytes == batch * held * width * 2
        elif runtime in ENGINE_RUNTIMES:   # the engine's own pool arithmetic: batch x page-rounded slots x cell
            ep = d.engine_plan()
            if d.pp == 1:
                # SGLang's hybrid SWA pool (gpt-oss): sliding layers hold at most their window, in pages
                swa = -(-min(context, ep.max_context, ep.swa_window) // ep.page_size) * ep.page_size
                assert p.kv_bytes == batch * (ep.request_tokens(context) * ep.cell_bytes
                                              + (swa * ep.swa_cell_bytes if ep.swa_cell_bytes else 0))
        elif d.tp == 1 and d.pp == 1:
            whole = kvcalc.kv_cache(d.spec, batch=batch, context=context, dtype=d.model_dtype, kv_dtype=d.kv,
                                    runtime=runtime)
            assert [(l.index, l.bytes) for l in whole.layers] == [(r.index, r.bytes) for r in layers]
        checked += 1
    if checked == 0 and runtime in ENGINE_RUNTIMES:
        pytest.skip(f"{runtime} refuses this model's layer kinds (UnsupportedError, tests/fast/test_sglang.py)")
    if checked == 0 and runtime == "vllm":
        pytest.skip("vLLM 0.33 refuses encoder-decoders but Whisper (tests/fast/test_vllm.py)")
    assert checked >= 3


def test_the_reported_cases_by_hand() -> None:
    """The issue's Llama-3.1-8B / H100 / vLLM, batch 4 x 1,000: 131,072 B per token (32 layers x 8 KV
    heads x 128 x K+V x 2 B). Block size 128: ceil(1000/128) = 8 blocks = 1,024 slots -> 536,870,912 B;
    block size 16 on TP 2: 63 blocks = 1,008 slots, 4 KV heads per rank -> 264,241,152 B per GPU."""
    llama = load_config("meta-llama/Llama-3.1-8B")
    d = kvcalc.deploy(llama, gpu="h100-sxm", runtime="vllm", block_size=128)
    assert kvcalc.layer_bytes(d, 4, 1000).per_gpu_bytes == 4 * 1024 * 131_072 == 536_870_912
    assert kvcalc.plan(d, batch=4, context=1000).kv_bytes == 536_870_912
    d2 = kvcalc.deploy(llama, gpu="h100-sxm", runtime="vllm", gpus=2)
    assert kvcalc.layer_bytes(d2, 4, 1000).per_gpu_bytes == 4 * 1008 * 131_072 // 2 == 264_241_152
    assert kvcalc.plan(d2, batch=4, context=1000).kv_bytes == 264_241_152


def test_gemma2_sliding_blocks_follow_max_num_batched_tokens() -> None:
    """Gemma-2-9B, vLLM, max_num_batched_tokens 512, batch 4 x 1,000 tokens: 21 full layers hold
    ceil(1000/16) = 63 blocks, 21 sliding (W = 4096) layers cdiv(min(4095 + 512, 1000), 16) + 1 = 64;
    8 KV heads x 256 x K+V x 2 B x 16 tokens = 131,072 B per layer block."""
    d = kvcalc.deploy(load_config("google/gemma-2-9b-it"), gpu="h100-sxm", runtime="vllm",
                      max_num_batched_tokens=512)
    table = kvcalc.layer_bytes(d, 4, 1000)
    per_block = 8 * 256 * 2 * 2 * 16
    assert table.per_gpu_bytes == 4 * 21 * (63 + 64) * per_block
    assert kvcalc.plan(d, batch=4, context=1000).kv_bytes == table.per_gpu_bytes


def test_vllm_block_padding_is_its_own_row() -> None:
    """Gemma 3 27B on 2 pipeline stages: each stage holds fewer layers of one KV-cache group than the
    stage's group size, so part of every shared block is unused; those bytes are a padding row and
    the table still sums to the plan."""
    d = kvcalc.deploy(load_config("google/gemma-3-27b-it"), gpu="h100-sxm", runtime="vllm", gpus=2,
                      tensor_parallel_size=1, pipeline_parallel_size=2)
    table = kvcalc.layer_bytes(d, 4, 1000)
    pads = [r for r in table.rows if r.kind == PADDING]
    assert pads and all(r.bytes > 0 and r.index == -1 for r in pads)
    assert table.per_gpu_bytes == kvcalc.plan(d, batch=4, context=1000).kv_bytes


def test_a_deployment_is_reused_not_rebuilt() -> None:
    """plan() takes a Deployment as it is: options beside it are refused rather than silently ignored."""
    d = kvcalc.deploy(load_config("meta-llama/Llama-3.1-8B"), gpu="rtx-4090", runtime="vllm")
    assert kvcalc.plan(d, batch=2, context=4096).gpu == d.gpu.name
    with pytest.raises(kvcalc.InputError, match="belong to the Deployment"):
        kvcalc.plan(d, batch=2, context=4096, gpus=2)


def test_gpu_count_and_parallel_sizes_must_agree() -> None:
    """A missing size is derived (4 GPUs at tp 2 -> pp 2); sizes that contradict the count are refused,
    under transformers too (it used to plan 2 stages on 4 GPUs silently)."""
    cfg = load_config("meta-llama/Llama-3.1-8B")
    d = kvcalc.deploy(cfg, runtime="vllm", gpus=4, tensor_parallel_size=2)
    assert (d.tp, d.pp) == (2, 2)
    with pytest.raises(kvcalc.InputError, match="must equal gpus"):
        kvcalc.deploy(cfg, runtime="vllm", gpus=4, tensor_parallel_size=2, pipeline_parallel_size=1)
    with pytest.raises(kvcalc.InputError, match="must equal gpus"):
        kvcalc.deploy(cfg, runtime="transformers", gpus=4, pipeline_parallel_size=2)


@pytest.mark.parametrize("options", [{"gpus": 4}, {"gpus": 2, "tensor_parallel_size": 1, "pipeline_parallel_size": 2},
                                     {"gpus": 4, "block_size": 32}])
def test_hybrid_table_adds_up_to_the_headline(options: dict) -> None:
    # Qwen3-Next (36 gated-delta-net + 12 attention layers) now plans under vLLM 0.33's hybrid allocator:
    # the table's rows, the headline and the chart agree, and the headline is the block arithmetic.

    from paths import load_config
    cfg = load_config("Qwen__Qwen3-Next-80B-A3B-Thinking.json")
    d = kvcalc.deploy(cfg, gpu="h200", runtime="vllm", max_model_len=65536, **options)
    vp = d.vllm_plan()
    for batch, context in SHAPES:
        p = kvcalc.plan(d, batch=batch, context=context, solve_gpus=False)
        table = kvcalc.layer_bytes(d, batch, context)
        assert table.per_gpu_bytes == p.kv_bytes and table.all_gpus_bytes == p.kv_bytes_total
        assert kvcalc.memory_curve(d, batch, [context])[0].kv == p.kv_bytes
        blocks = d.request_blocks()(min(context, vp.max_model_len))
        assert p.kv_bytes_total == batch * blocks * vp.block_bytes_all_stages * d.tp


def test_speculative_drafter_rows_add_up() -> None:
    # DeepSeek-V3 + MTP (num_nextn_predict_layers 1) on 8 GPUs: 61 decoder rows plus one 'draft' row (index
    # 61), each MLA layer 16 x 576 x 2 B = 18,432 B per block, the headline the same block arithmetic.
    from kvcalc.layer_table import DRAFT
    d = kvcalc.deploy(load_config("deepseek-ai/DeepSeek-V3"), gpu="h200", gpus=8, runtime="vllm",
                      max_model_len=65536, speculative_config={"method": "mtp", "num_speculative_tokens": 1})
    p = kvcalc.plan(d, batch=2, context=5000, solve_gpus=False)
    table = kvcalc.layer_bytes(d, 2, 5000)
    assert [r.index for r in table.rows] == list(range(62)) and table.rows[-1].kind == DRAFT
    assert table.per_gpu_bytes == p.kv_bytes == 2 * 313 * 62 * 18_432     # ceil(5000 / 16) = 313 blocks
