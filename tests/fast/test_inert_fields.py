"""Fields a real file carries that transformers 5.24 never reads for the cache stay inert only while that is true.

MiMo-V2-Flash's ``swa_num_key_value_heads`` / ``swa_num_attention_heads`` are not fields of MiMoV2FlashConfig:
modeling_mimo_v2_flash.py ``MiMoV2FlashAttention.__init__`` gives a sliding layer ``2 * num_key_value_heads`` K/V
heads and ``num_attention_heads`` queries. A file whose copies disagree with that is not one the rules understand,
so its label drops. DeepSeek-V3's ``q_lora_rank`` sizes q_a_proj / q_b_proj only (modeling_deepseek_v3.py), never
the cache; ``kv_lora_rank`` does.
"""
from __future__ import annotations

import copy

from paths import load_fixture

import kvcalc

MIMO = "real_configs/XiaomiMiMo__MiMo-V2-Flash__aiconfigurator.json"
KIMI = "real_configs/nvidia__Kimi-K2.6-NVFP4__aiconfigurator.json"


def _load(name: str) -> dict:
    return copy.deepcopy(load_fixture(name))


def test_mimo_swa_copies_that_agree_earn_exact():
    cfg = _load(MIMO)
    assert cfg["swa_num_key_value_heads"] == 2 * cfg["num_key_value_heads"]
    assert kvcalc.read_spec(cfg).quality == "exact"


def test_mimo_swa_heads_that_disagree_drop_the_label():
    cfg = _load(MIMO)
    cfg["swa_num_key_value_heads"] = 3 * cfg["num_key_value_heads"]
    spec = kvcalc.read_spec(cfg)
    assert spec.quality == "estimated" and any("swa_num_key_value_heads" in w for w in spec.warnings)


def test_q_lora_rank_is_inert_but_an_unknown_rank_is_not():
    cfg = _load(KIMI)
    assert cfg["text_config"]["q_lora_rank"] and kvcalc.read_spec(cfg).quality == "exact"
    cfg["text_config"]["index_lora_rank"] = 64
    assert kvcalc.read_spec(cfg).quality == "estimated"


def test_legacy_deepseek_sparse_attention_reads_as_indexed_attention():
    """transformers 5.24 configuration_utils.py ``_LEGACY_LAYER_TYPE_REMAP``: "deepseek_sparse_attention" ->
    "indexed_attention"; the file's KV is then the same as with the new name."""
    cfg = _load("real_configs/nvidia__GLM-5.2-NVFP4__aiconfigurator.json")
    renamed = copy.deepcopy(cfg)
    renamed["layer_types"] = ["indexed_attention"] * len(cfg["layer_types"])
    old = kvcalc.kv_cache(cfg, batch=1, context=64, runtime="transformers")
    new = kvcalc.kv_cache(renamed, batch=1, context=64, runtime="transformers")
    assert old.quality == "exact" and old.total_bytes == new.total_bytes
