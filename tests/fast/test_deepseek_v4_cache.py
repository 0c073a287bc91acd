"""DeepSeek-V4's compressed-KV layers, by hand from transformers 5.24 modeling_deepseek_v4.py.

``DeepseekV4HCACache`` / ``DeepseekV4CSACache`` (rate ``m``; head_dim ``d`` = 512, index_head_dim ``d_i`` = 128,
sliding_window ``W`` = 128, bf16): ``update`` keeps one shared K=V tensor of the last ``W - 1`` tokens
(``full[:, :, -W + 1:]``) beside the int64 window tensor; ``update_compressor_states`` holds ``T // m`` entries
of ``d`` (CSA: plus the indexer's ``d_i``); ``store_compression_weights`` leaves the ``T % m`` tokens not yet
compressed as kv and gate of ``d`` (CSA: ``2d`` and ``2d_i``, the two overlapping series);
``update_overlap_state`` keeps, on CSA, the last window's first series ``m x d`` (and ``m x d_i``) as kv
(bf16) and gate (float32). The corpus' real files are checked at 64 tokens against transformers itself
(tests/fast/test_real_configs.py); here a longer context, where the window caps and the buffer is partial.
"""
from __future__ import annotations

import pytest

import kvcalc

CFG = {"model_type": "deepseek_v4", "torch_dtype": "bfloat16", "num_hidden_layers": 3, "hidden_size": 4096,
       "num_attention_heads": 64, "num_key_value_heads": 1, "head_dim": 512, "index_head_dim": 128,
       "sliding_window": 128, "compress_ratios": [0, 4, 128, 0]}


def test_each_layer_kind_by_hand_at_1000_tokens():
    r = kvcalc.kv_cache(CFG, batch=1, context=1000, runtime="transformers")
    window = 127 * 512 * 2 + 8                             # shared K=V, last W - 1 tokens, + window tensor
    sliding = 1000 * 2 * 512 * 2 + 8                       # DynamicSlidingWindowLayer after one prefill: a view
    csa = window + 250 * (512 + 128) * 2 + 0 + 4 * (512 + 128) * (2 + 4)   # 1000 % 4 = 0: empty buffer
    hca = window + 7 * 512 * 2 + 104 * 2 * 512 * 2        # 1000 // 128 = 7 entries, 104 buffered (kv + gate)
    assert [layer.bytes for layer in r.layers] == [sliding, csa, hca]
    assert r.quality == "exact" and r.total_bytes == sliding + csa + hca


def test_overlap_state_waits_for_a_closed_window():
    r = kvcalc.kv_cache({**CFG, "compress_ratios": [4, 4, 4]}, batch=1, context=3, runtime="transformers")
    assert r.layers[0].bytes == 3 * 512 * 2 + 8 + 3 * 2 * (2 * 512 + 2 * 128) * 2   # 3 tokens buffered, no entry


@pytest.mark.parametrize("runtime", ["vllm", "sglang", "tensorrt_llm", "llama_cpp", "ideal"])
def test_engines_without_a_rule_refuse(runtime):
    with pytest.raises(kvcalc.UnsupportedError):
        kvcalc.deploy(CFG, runtime=runtime)


def test_a_ratio_transformers_does_not_map_is_refused_naming_it():
    with pytest.raises(kvcalc.UnsupportedError, match="compress_ratios"):
        kvcalc.read_spec({**CFG, "compress_ratios": [0, 8, 128]})
