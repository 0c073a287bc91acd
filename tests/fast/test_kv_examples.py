"""Worked examples with numbers from the literature and from arithmetic on real configs.

Every expected value is written out as plain arithmetic on published shapes, never taken from
kvcalc's own output.
"""
from __future__ import annotations

import os

import pytest
from paths import load_config, load_json, reference_configs

import kvcalc

GiB, MiB = 2**30, 2**20

LLAMA_7B = {"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32, "hidden_size": 4096,
            "torch_dtype": "float16", "vocab_size": 32000}


def test_llama_7b_fp16_seed_examples():
    assert kvcalc.kv_cache(LLAMA_7B, batch=1, context=1024).total_bytes == 536_870_912
    assert kvcalc.kv_cache(LLAMA_7B, batch=1, context=2048).total_bytes == 1 * GiB
    gqa = dict(LLAMA_7B, num_key_value_heads=8)
    mqa = dict(LLAMA_7B, num_key_value_heads=1)
    assert kvcalc.kv_cache(gqa, batch=1, context=2048).total_bytes == 256 * MiB
    assert kvcalc.kv_cache(mqa, batch=1, context=2048).total_bytes == 32 * MiB


def test_per_token_figures_checked_by_hand():
    # Llama-3-8B: 32 layers x 8 KV heads x 128 dims x (K+V) x 2 bytes
    llama3 = load_config("meta-llama__Meta-Llama-3-8B.json")
    assert kvcalc.kv_cache(llama3, batch=1, context=1).bytes_per_token == 32 * 8 * 128 * 2 * 2 == 131_072
    # DeepSeek-V3: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes, one latent per token
    dsv3 = load_config("deepseek-ai__DeepSeek-V3.json")
    assert kvcalc.kv_cache(dsv3, batch=1, context=1).bytes_per_token == 61 * 576 * 2 == 70_272
    # Qwen3-8B states head_dim 128 explicitly (hidden 4096 / 32 heads would also be 128), 36 layers, 8 KV heads
    qwen3 = load_config("Qwen__Qwen3-8B.json")
    assert kvcalc.kv_cache(qwen3, batch=1, context=1).bytes_per_token == 36 * 8 * 128 * 2 * 2
    # Qwen3-0.6B: head_dim 128 stated, although hidden 1024 / 16 heads = 64
    qwen3_small = load_config("Qwen__Qwen3-0.6B.json")
    assert kvcalc.kv_cache(qwen3_small, batch=1, context=1).bytes_per_token == 28 * 8 * 128 * 2 * 2


def test_gemma3_27b_interleaved_sliding_window_at_128k():
    cfg = load_config("google__gemma-3-27b-it.json")
    r = kvcalc.kv_cache(cfg, batch=1, context=131_072)
    per_layer_token = 16 * 128 * 2 * 2        # 16 KV heads x head_dim 128 x (K+V) x bf16
    full_layers = 62 // 6                     # pattern 6: every 6th layer is global -> 10
    sliding_layers = 62 - full_layers         # window 1024
    assert r.total_bytes == full_layers * per_layer_token * 131_072 + sliding_layers * per_layer_token * 1024
    assert 10 * GiB < r.total_bytes < 10.5 * GiB
    assert [l.kind for l in r.layers].count("full") == 10


def test_mistral_7b_v01_sliding_window_caps_every_layer():
    cfg = load_config("mistralai__Mistral-7B-v0.1.json")   # sliding_window 4096 on all 32 layers
    at_32k = kvcalc.kv_cache(cfg, batch=2, context=32_768).total_bytes
    assert at_32k == 2 * 32 * 4096 * 8 * 128 * 2 * 2


def test_gpt_oss_alternating_128_token_window():
    cfg = load_config("openai__gpt-oss-20b.json")           # 24 layers, half sliding (128), 8 KV heads x 64
    r = kvcalc.kv_cache(cfg, batch=1, context=8192, dtype="bfloat16")
    per = 8 * 64 * 2 * 2
    assert r.total_bytes == 12 * per * 8192 + 12 * per * 128


def test_t5_cross_attention_counts_encoder_tokens():
    cfg = load_config("google-t5__t5-small.json")           # 6 decoder layers, 8 heads x d_kv 64, float32
    r = kvcalc.kv_cache(cfg, batch=1, context=100, encoder_tokens=512)
    assert r.total_bytes == 6 * 8 * 64 * 2 * 4 * (100 + 512)


def test_quantized_kv_includes_group_scales():
    cfg = load_config("meta-llama__Meta-Llama-3-8B.json")
    # int4: 128 values -> 64 bytes + 2 groups of 64 x (fp16 scale + fp16 zero) = 72 bytes per head vector
    r = kvcalc.kv_cache(cfg, batch=1, context=1000, kv_dtype="int4")
    assert r.total_bytes == 1000 * 32 * 8 * 2 * 72
    fp8 = kvcalc.kv_cache(cfg, batch=1, context=1000, kv_dtype="fp8")
    assert fp8.total_bytes == 1000 * 32 * 8 * 2 * 128


@pytest.mark.parametrize("path", reference_configs(), ids=os.path.basename)
def test_every_reference_config_parses(path):
    cfg = load_json(path)
    r = kvcalc.kv_cache(cfg, batch=1, context=4096)
    assert r.bytes_per_token > 0
    assert r.total_bytes > 0
    assert len(r.layers) == len(kvcalc.read_spec(cfg).layers)
    assert r.fields_used


def test_transformers_runtime_differences_from_ideal():
    cfg = load_config("mistralai__Mistral-7B-v0.1.json")
    W, T, per = 4096, 10_000, 8 * 128 * 2 * 2
    ideal = kvcalc.kv_cache(cfg, batch=1, context=T).total_bytes
    prefill = kvcalc.kv_cache(cfg, batch=1, context=T, runtime="transformers").total_bytes
    decoded = kvcalc.kv_cache(cfg, batch=1, context=T, runtime="transformers", prefill=T - 1).total_bytes
    assert ideal == 32 * per * W
    assert prefill == 32 * (per * T + 8)          # a view over the whole prefill + int64 window tensor
    assert decoded == 32 * (per * W + 8)


def test_unknown_architecture_warns_with_assumed_fields():
    cfg = {"model_type": "brand_new_lm", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64}
    r = kvcalc.kv_cache(cfg, batch=1, context=10)
    assert r.total_bytes == 2 * 4 * 16 * 2 * 2 * 10
    text = " ".join(r.warnings)
    assert "unknown architecture" in text and "num_key_value_heads" in text and "head_dim" in text


def test_bad_inputs_raise_typed_errors():
    with pytest.raises(kvcalc.ConfigError) as e:
        kvcalc.kv_cache({"model_type": "llama", "num_hidden_layers": "32", "num_attention_heads": 32,
                         "hidden_size": 4096}, batch=1, context=1)
    assert e.value.field == "num_hidden_layers"
    with pytest.raises(kvcalc.ConfigError):
        kvcalc.kv_cache({"model_type": "bert", "num_hidden_layers": 12}, batch=1, context=1)
    with pytest.raises(kvcalc.InputError):
        kvcalc.kv_cache(LLAMA_7B, batch=0, context=1)
    with pytest.raises(kvcalc.InputError):
        kvcalc.kv_cache(LLAMA_7B, batch=1, context=1, kv_dtype="int3")
    with pytest.raises(kvcalc.UnsupportedError):
        kvcalc.kv_cache(LLAMA_7B, batch=1, context=1, kv_dtype="int4", runtime="transformers")


def test_per_layer_overrides_apply_to_sliding_layers_too():
    cfg = dict(load_config("google__gemma-3-1b-it.json"),
               per_layer_config={"0": {"head_dim": 512}, "5": {"head_dim": 512}})
    r = kvcalc.kv_cache(cfg, batch=1, context=100)
    # gemma-3-1b: 1 KV head; layer 0 sliding (window 512), layer 5 full; both now head_dim 512
    assert r.layers[0].bytes == r.layers[5].bytes == 100 * 1 * 512 * 2 * 2
    assert r.layers[1].bytes == 100 * 1 * 256 * 2 * 2


def test_quality_exact_for_known_estimated_with_assumptions_for_unknown():
    """Every result carries its quality: a registry type is exact; an unknown one is estimated and each
    assumed field is named in an ``estimated:`` warning (hand arithmetic as above)."""
    known = kvcalc.kv_cache(LLAMA_7B, batch=1, context=10)
    assert known.quality == "exact" and known.to_dict()["quality"] == "exact"
    cfg = {"model_type": "brand_new_lm", "num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64}
    for runtime in ("ideal", "transformers", "vllm"):
        r = kvcalc.kv_cache(cfg, batch=1, context=10, runtime=runtime)
        assert r.quality == "estimated" and r.to_dict()["quality"] == "estimated"
    assumed = [w for w in r.warnings if w.startswith("estimated: ")]
    assert any("num_key_value_heads" in w and "assumed 4" in w for w in assumed)
    assert any("head_dim" in w and "= 16" in w for w in assumed)


def test_static_cache_preallocates_and_beam_reorder_caps_at_window_minus_one():
    """Hand arithmetic (per layer 8 KV heads x 128 x 2 (K, V) x 2 bytes = 4,096 B per token, int64
    counters 8 B): StaticCache holds max_cache_len tokens whatever the context (a sliding layer
    min(W, max_cache_len)); after a beam reorder a sliding layer keeps min(T, W - 1) tokens."""
    llama = load_config("meta-llama__Llama-3.1-8B.json")              # 32 full layers
    r = kvcalc.kv_cache(llama, batch=2, context=100, runtime="transformers", cache_implementation="static",
                        max_cache_len=1000)
    assert r.total_bytes == 32 * (2 * 4096 * 1000 + 8) and r.layers[0].tokens == 1000
    mistral = load_config("mistralai__Mistral-7B-v0.1.json")          # 32 sliding layers, W = 4096
    r = kvcalc.kv_cache(mistral, batch=1, context=5000, runtime="transformers", cache_implementation="static",
                        max_cache_len=8000)
    assert r.total_bytes == 32 * (4096 * 4096 + 8)
    beam = kvcalc.kv_cache(mistral, batch=4, context=5000, runtime="transformers", beam_search=True)
    assert beam.total_bytes == 32 * (4 * 4096 * 4095 + 8)
    with pytest.raises(kvcalc.InputError, match="exceeds max_cache_len"):
        kvcalc.kv_cache(llama, batch=1, context=2000, runtime="transformers", cache_implementation="static",
                        max_cache_len=1000)
    with pytest.raises(kvcalc.InputError, match="runtime 'transformers' only"):
        kvcalc.kv_cache(llama, batch=1, context=10, cache_implementation="static")
    with pytest.raises(kvcalc.InputError, match="cache_implementation must be"):
        kvcalc.kv_cache(llama, batch=1, context=10, runtime="transformers", cache_implementation="paged")


def _remote(**fields):
    """A remote-code style config (a model_type kvcalc does not list), bfloat16."""
    return {"model_type": "remote_lm", "torch_dtype": "bfloat16", "vocab_size": 100, **fields}


def test_hybrid_layer_pattern_with_swa_overrides():
    """MiMo-V2-Flash's Hub convention: hybrid_layer_pattern 1 = sliding, swa_* give the sliding layers' own
    geometry. Hand arithmetic at T = 10, bf16: full layer 2 KV heads x (16 + 8) x 10 x 2 B = 960 B; sliding
    layer 4 x (16 + 8) x min(10, 6) x 2 B = 1,152 B."""
    cfg = _remote(num_hidden_layers=4, hidden_size=64, num_attention_heads=8, num_key_value_heads=2, head_dim=16,
                  v_head_dim=8, hybrid_layer_pattern=[0, 1, 1, 0], sliding_window=6, swa_num_key_value_heads=4,
                  swa_head_dim=16, swa_v_head_dim=8)
    r = kvcalc.kv_cache(cfg, batch=1, context=10)
    assert [l.kind for l in r.layers] == ["full", "sliding", "sliding", "full"]
    assert [l.bytes for l in r.layers] == [960, 1152, 1152, 960]
    assert r.quality == "estimated"


def test_block_configs_variable_gqa_and_no_op_attention():
    """DeciLM / Nemotron-NAS block_configs: KV heads = heads / n_heads_in_group per block; no_op and
    replace_with_linear blocks hold no cache. 8 heads x 16: T = 10 bf16 -> 2 x 32 x 10 x 2 = 1,280 B and
    1 x 32 x 10 x 2 = 640 B; no KV-head assumption is warned (the blocks give them)."""
    blocks = [{"attention": {"n_heads_in_group": 4}}, {"attention": {"no_op": True}},
              {"attention": {"replace_with_linear": True}}, {"attention": {"n_heads_in_group": 8}}]
    cfg = _remote(hidden_size=128, num_attention_heads=8, head_dim=16, block_configs=blocks)
    r = kvcalc.kv_cache(cfg, batch=1, context=10)
    assert [l.bytes for l in r.layers] == [1280, 0, 0, 640]
    assert not any("num_key_value_heads" in w for w in r.warnings)
    with pytest.raises(kvcalc.ConfigError, match="n_heads_in_group"):
        kvcalc.kv_cache(_remote(hidden_size=128, num_attention_heads=8, head_dim=16,
                                block_configs=[{"attention": {"n_heads_in_group": 3}}]), batch=1, context=1)


def test_use_sliding_window_false_is_honoured_for_any_type():
    """A 32k window with use_sliding_window false caps nothing (the Qwen config classes drop it)."""
    cfg = _remote(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
                  sliding_window=32768, use_sliding_window=False)
    r = kvcalc.kv_cache(cfg, batch=1, context=40000)
    assert r.total_bytes == 2 * 2 * 16 * 2 * 2 * 40000


def test_unknown_layer_types_estimated_and_compressed_kv_refused():
    cfg = _remote(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
                  layer_types=["full_attention", "foo_layer"])
    r = kvcalc.kv_cache(cfg, batch=1, context=10)
    assert r.quality == "estimated" and r.total_bytes == 2 * 2 * 16 * 2 * 2 * 10
    assert "estimated: 'foo_layer' layers are unknown; assumed full attention with 2 KV heads x 16" in r.warnings
    with pytest.raises(kvcalc.UnsupportedError, match="compress_ratios"):
        kvcalc.kv_cache(_remote(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                                compress_ratios=[4, 128]), batch=1, context=10)
    with pytest.raises(kvcalc.UnsupportedError, match=r"layer_types\[0\]"):
        kvcalc.kv_cache(_remote(num_hidden_layers=1, hidden_size=64, num_attention_heads=4,
                                layer_types=["heavily_compressed_attention"]), batch=1, context=10)


def test_nested_text_type_of_a_known_model():
    """An unlisted ``X_text`` nested type is read with X's rules (Olmo 3: every 4th layer full), estimated."""
    cfg = {"model_type": "olmo3_text", "num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4,
           "num_key_value_heads": 2, "sliding_window": 6, "torch_dtype": "bfloat16"}
    r = kvcalc.kv_cache(cfg, batch=1, context=10)
    assert [l.kind for l in r.layers] == ["sliding", "sliding", "sliding", "full"]
    assert r.quality == "estimated"
