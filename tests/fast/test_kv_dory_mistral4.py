"""KV cache rules of Dory, Mistral 4 and DiffusionGemma against transformers 5.24's real caches and vLLM 0.33's code.

Dory: every expected list below is ``tests/cache_probe.layer_storage_bytes`` of the cache DoryForCausalLM
(transformers 5.24.0, torch 2.13 CPU, bfloat16, random init) returns after a prefill of 9 tokens and 2 one-token
decode steps fed back as ``cache=`` (DoryForCausalLM's argument; batch 2). Mistral 4 under vLLM: the page of
``MLAAttentionSpec`` (vllm/v1/kv_cache_interface.py: block_size x 1 x (kv_lora_rank + qk_rope_head_dim) x dtype
bytes), the spec vLLM 0.33's Transformers backend allocates once its MLAFuser fuses Mistral4Attention
(vllm/model_executor/models/transformers/fusers/mla.py ``MLAFuser.match`` / ``update_forward``: both accept it;
vLLM 0.33 has no Mistral4 model class, base.py ``_create_attention_instances`` then builds MLAAttention).
"""
from __future__ import annotations

import pytest
from paths import load_fixture

import kvcalc
from kvcalc.errors import ConfigError

_TYPES = load_fixture("transformers_5_24_coverage.json")["types"]

_DORY = dict(model_type="dory", vocab_size=128, hidden_size=64, intermediate_size=96, num_attention_heads=4,
             num_key_value_heads=2, head_dim=16, sliding_window=6)
_S, _F = "sliding_attention", "full_attention"
# per layer: full 11 tokens x 2 x 2 heads x 16 x (K + V) x 2 bytes = 2816; sliding: the 6-token window + its int64
S, F = 1544, 2816

DORY_CASES = [
    # the released config.json layout: 12 attention/mlp blocks = 6 layers, 2 + 2 input / output blocks = 1 + 1
    # layers, 3 loops: the 4 recurrent layers' caches twice more
    ("released_layout_3_loops", dict(_DORY, num_hidden_layers=12, n_input_layers=2, n_output_layers=2,
                                     n_recurrent_loops=3, layer_types=[t for lt in (_S, _F, _S, _S, _F, _S)
                                                                       for t in (lt, "mlp")]),
     [S, F, S, S, F, S, F, S, S, F, F, S, S, F]),
    # last_loop: the earlier loops read the keys without writing them, no extra cache layers
    ("last_loop", dict(_DORY, num_hidden_layers=6, n_input_layers=1, n_output_layers=2, n_recurrent_loops=2,
                       recurrent_kv_cache_mode="last_loop"), [S, S, S, F, S, S]),
    # no layer_types: every 4th layer full (DoryConfig.__post_init__), the 5 recurrent layers copied once
    ("default_rule_2_loops", dict(_DORY, num_hidden_layers=8, n_input_layers=2, n_output_layers=1),
     [S, S, S, F, S, S, S, F, S, F, S, S, S]),
]


@pytest.mark.parametrize("config,measured", [pytest.param(c, m, id=n) for n, c, m in DORY_CASES])
def test_dory_cache_equals_transformers(config, measured):
    r = kvcalc.kv_cache(config, batch=2, context=11, dtype="bfloat16", runtime="transformers", prefill=9)
    assert [layer.bytes for layer in r.layers] == measured
    assert r.quality == "exact"


def test_dory_fixture_layers_hold_one_token():
    """The coverage fixture's decode steps pass past_key_values, which DoryForCausalLM drops (a fresh cache each
    step): its 56 layers hold one token, and kvcalc's layers for one token are those bytes exactly."""
    rec = _TYPES["dory"]
    assert rec["cached_tokens"] == 1
    r = kvcalc.kv_cache(rec["config"], batch=2, context=1, dtype="bfloat16", runtime="transformers", prefill=1)
    assert [layer.bytes for layer in r.layers] == rec["layer_bytes"]


def test_dory_layer_counts_must_add_up():
    with pytest.raises(ConfigError, match="n_recurrent_layers"):
        kvcalc.kv_cache(dict(_DORY, num_hidden_layers=4, n_input_layers=2, n_output_layers=1, n_recurrent_layers=3),
                        batch=1, context=8)


def test_mistral4_vllm_pages_the_mla_latent():
    cfg = _TYPES["mistral4"]["default_config"]       # kv_lora_rank 256, qk_rope_head_dim 64, 36 layers, bf16
    r = kvcalc.kv_cache(cfg, batch=1, context=1000, runtime="vllm")
    assert r.quality == "exact"
    # ceil(1000 / 16) = 63 blocks of 16 x (256 + 64) x 2 bytes per layer
    assert [layer.bytes for layer in r.layers] == [63 * 16 * 320 * 2] * 36


def test_diffusion_gemma_cache_is_marked_estimated():
    """The fixture's DiffusionGemma cache holds only the 7 prompt tokens the encoder wrote (the canvas is read,
    never written): kvcalc's token model has no prefix / canvas split, so its figure says estimated and why."""
    rec = _TYPES["diffusion_gemma"]
    i = rec["inputs"]
    r = kvcalc.kv_cache(rec["config"], batch=i["batch"], context=i["prefill"] + i["decode"], dtype=i["dtype"],
                        runtime="transformers", prefill=i["prefill"], encoder_tokens=i["encoder_tokens"])
    assert r.quality == "estimated"
    assert any("prefix" in w for w in r.warnings)
    assert len(r.layers) == len(rec["layer_bytes"])


def test_dory_vllm_caches_follow_vllms_dory_model():
    """vLLM 0.33's own Dory (vllm/model_executor/models/dory.py): a physical layer is one block of the released
    layout (attention or mlp; mlp blocks hold no cache); DoryAttention builds one Attention per loop on the
    recurrent blocks with per_loop (``unique_layer_idx = loop_idx * num_hidden_layers + layer_idx``) and gives
    sliding blocks ``per_layer_sliding_window``. The class default: 36 attention blocks (27 sliding) and the 20
    recurrent ones (15 sliding) once more = 56 caches, 42 of them sliding."""
    r = kvcalc.kv_cache(_TYPES["dory"]["default_config"], batch=1, context=4096, runtime="vllm")
    assert len(r.layers) == 56
    assert sum(layer.kind == "sliding" for layer in r.layers) == 42
    # 4096 tokens fill 256 blocks of 16 on every layer (the window's blocks reach T): 4 KV heads x 256 x (K + V) x 2
    assert {layer.bytes for layer in r.layers} == {256 * 16 * 4 * 256 * 2 * 2}
