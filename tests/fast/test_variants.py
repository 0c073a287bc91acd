"""Attention what-ifs reproduce the textbook savings on a real model (plain arithmetic)."""
from __future__ import annotations

import pytest
from paths import load_config

import kvcalc
from kvcalc.variants import apply_variant


def spec(name):
    return kvcalc.read_spec(load_config(name))


LLAMA2_7B = spec("meta-llama__Llama-2-7b-hf.json")     # 32 layers, 32 heads, head_dim 128, fp16, MHA


def kv(s, context=4096, **kw):
    return kvcalc.kv_cache(s, batch=1, context=context, **kw).total_bytes


def test_mha_gqa_mqa_ratios():
    full = kv(LLAMA2_7B)
    assert full == 32 * 32 * 128 * 2 * 2 * 4096
    assert kv(apply_variant(LLAMA2_7B, "gqa", kv_heads=8)) * 4 == full
    assert kv(apply_variant(LLAMA2_7B, "mqa")) * 32 == full
    assert kv(apply_variant(LLAMA2_7B, "mha")) == full


def test_sliding_window_everywhere_and_by_pattern():
    w = apply_variant(LLAMA2_7B, "sliding", window=1024)
    assert kv(w, context=8192) == 32 * 32 * 128 * 2 * 2 * 1024
    p = apply_variant(LLAMA2_7B, "sliding", window=1024, pattern="3:1")     # 24 local + 8 global layers
    per = 32 * 128 * 2 * 2
    assert kv(p, context=8192) == 24 * per * 1024 + 8 * per * 8192
    assert [l.kind for l in p.layers[:4]] == ["sliding", "sliding", "sliding", "full"]


def test_mla_expanded_to_per_head_kv():
    v3 = spec("deepseek-ai__DeepSeek-V3.json")   # 128 heads, K 128+64, V 128, 61 layers
    assert kv(apply_variant(v3, "mha"), context=1) == 61 * 128 * (192 + 128) * 2
    assert kv(v3, context=1) == 61 * 576 * 2      # the latent: ~71x smaller


@pytest.mark.parametrize("bad", [dict(variant="gqa", kv_heads=5), dict(variant="sliding", window=0),
                                 dict(variant="sliding", window=64, pattern="x"), dict(variant="bogus")])
def test_bad_variants(bad):
    with pytest.raises(kvcalc.InputError):
        apply_variant(LLAMA2_7B, **bad)
