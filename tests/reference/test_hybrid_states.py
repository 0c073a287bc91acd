"""Recurrent / hybrid state rules and reference sliding windows vs transformers' real cache tensors,
at shapes the coverage fixture does not use.

tests/fixtures/transformers_5_24_coverage.json measures every type once, at its default layout and a
decode shorter than the window. Here each rule added for a type first measured in transformers 5.24
is checked again with the fields it reads set to other values (kernel widths, sliding-layer geometry
unlike the full layers', no ``linear_attn_config``) and with more decode steps than the
window holds: a tiny random-init model (the fixture's recorded tiny config, fields overridden) runs a
prefill and decode steps, and every distinct tensor storage its cache holds (tests/cache_probe.py) is
compared with kvcalc's ``transformers`` runtime, layer by layer.
"""
from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from cache_probe import feed, layer_storage_bytes  # noqa: E402
from paths import load_fixture  # noqa: E402

import kvcalc  # noqa: E402

_TYPES = load_fixture("transformers_5_24_coverage.json")["types"]

PREFILL, DECODE = 5, 6        # more decode steps than every window below
LAYERS = 6                    # the first 6 layers: every layer kind of each pattern below, a quicker build

CASES = {
    # short convolutions of width 5 (conv_L_cache), window 3
    "lfm3": dict(conv_L_cache=5, sliding_window=3),
    # gated DeltaNet with unequal key / value heads and widths, conv width 3
    "lara_mini": dict(linear_num_key_heads=1, linear_num_value_heads=3, linear_key_head_dim=8,
                      linear_value_head_dim=24, linear_conv_kernel_dim=3, sliding_window=3),
    # KDA from the flat 5.24 fields (no linear_attn_config)
    "kimi_linear": dict(linear_num_heads=2, linear_head_dim=8, linear_conv_kernel_dim=3),
    # CCA conv window (cca_time0 - 1) + (cca_time1 - 1) = 3 and the delayed-value state
    "zaya": dict(cca_time0=3, cca_time1=2),
    # sliding hybrid layers with their own heads / head_dim, conv width 3, window 3
    "inkling_text": dict(swa_num_attention_heads=4, swa_num_key_value_heads=1, swa_head_dim=24,
                         conv_kernel_size=3, sliding_window_size=3),
    # R-SWA: the prefill stays whole, the window (3) caps the decoded tokens only
    "unlimited_ocr": dict(sliding_window=3),
}


def _first_layers(cfg: dict) -> dict:
    """``cfg`` cut to its first LAYERS layers (every per-layer list with it)."""
    n = cfg["num_hidden_layers"]
    out = {k: v[:LAYERS] if isinstance(v, list) and len(v) == n else v for k, v in cfg.items()}
    return {**out, "num_hidden_layers": LAYERS}


def _config(model_type: str) -> dict:
    base = dict(_TYPES[model_type]["config"])
    over = CASES[model_type]
    if "text_config" in base:
        base["text_config"] = _first_layers({**base["text_config"], **over})
    else:
        base = _first_layers({**base, **over})
    return base


def _measured(model_type: str, cfg: dict, batch: int) -> list[int]:
    fields = {k: v for k, v in cfg.items() if k != "model_type"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.for_model(model_type, **fields)
        torch.manual_seed(0)
        model = getattr(transformers, _TYPES[model_type]["class"])(config).to(torch.bfloat16).eval()
        cache = feed(model, batch=batch, prefill=PREFILL, decode=DECODE)
    return layer_storage_bytes(cache)


@pytest.mark.parametrize("model_type", sorted(CASES))
def test_state_rules_equal_real_cache_at_other_shapes(model_type):
    cfg = _config(model_type)
    measured = _measured(model_type, cfg, batch=2)
    ours = kvcalc.kv_cache(cfg, batch=2, context=PREFILL + DECODE, prefill=PREFILL, dtype="bfloat16",
                           runtime="transformers")
    assert [layer.bytes for layer in ours.layers] == measured
    assert ours.quality == "exact"


def test_reference_sliding_window_holds_prefill_plus_window():
    """Unlimited-OCR's R-SWA, by hand: 5 prefill + min(6 decoded, window 3) = 8 tokens of
    4 KV heads x 16 x (K + V) x 2 bytes, batch 1, plus the 8-byte int64 window tensor."""
    cfg = _config("unlimited_ocr")
    text = cfg["text_config"]
    assert (text["num_key_value_heads"], text["head_dim"]) == (4, 16)
    per_layer = 8 * 4 * 16 * 2 * 2 + 8
    assert _measured("unlimited_ocr", cfg, batch=1)[0] == per_layer
    ours = kvcalc.kv_cache(cfg, batch=1, context=PREFILL + DECODE, prefill=PREFILL, runtime="transformers")
    assert ours.layers[0].bytes == per_layer
    ideal = kvcalc.kv_cache(cfg, batch=1, context=PREFILL + DECODE, prefill=PREFILL, runtime="ideal")
    assert ideal.layers[0].bytes == 8 * 4 * 16 * 2 * 2
    with pytest.raises(kvcalc.UnsupportedError, match="reference sliding"):
        kvcalc.kv_cache(cfg, batch=1, context=16, runtime="vllm")


def test_compressed_kv_is_refused_naming_the_field():
    """DeepSeek-V4's cache grows one compressed entry per compress_rates[type] tokens on top of a window
    (DeepseekV4HCACache / DeepseekV4CSACache): kvcalc refuses and names the field it cannot bound."""
    with pytest.raises(kvcalc.UnsupportedError, match="compress_rates"):
        kvcalc.kv_cache(_TYPES["deepseek_v4"]["config"], batch=1, context=16)
