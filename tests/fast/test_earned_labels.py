"""Labels that are earned: a field that looks like cache geometry but that kvcalc's rules do not read makes the
KV figure estimated, naming the field (kvcalc.models.unread). Tested by mutation of the real corpus files:
every file whose KV figure is exact (and agrees with transformers 5.24, tests/fast/test_real_configs.py) must
lose the label when such a field is added at the level its decoder is read from (the top level, text_config,
or a remote-code wrapper's llm_config / language_config), and name it (or be refused, naming it)."""
from __future__ import annotations

import copy

import pytest
from paths import load_oracle

import kvcalc
from kvcalc.models.architecture_names import language_config_key

ORACLE = load_oracle("real_config_oracle")

# fields no kvcalc rule reads, one per kind of cache geometry a remote-code model sizes its cache by: heads
# (MiniCPM-style multi-query heads), KV groups, per-layer KV heads, compressed-KV ratios (DeepSeek-V4), windows
# under names of their own, per-layer sliding lists, sparse-attention blocks, top-k token selection, a LoRA rank
MUTATIONS = {"num_multi_query_heads": 4, "kv_group_size": 2, "num_kv_heads_per_layer": [2, 4],
             "compress_ratios": [1, 4, 128], "local_window_size": 1024, "attention_window_size": 4096,
             "sliding_window_layers": [0, 1], "sparse_block_size": 64, "topk_tokens": 2048, "lora_rank": 16}
# an indexer field sizes a cache only where no layer_types list says which layers hold none (kvcalc.models.unread);
# a DSA model (GLM-5) reads it
INDEX_MUTATION = {"index_n_heads": 64}


def _quality(cfg: dict) -> str | None:
    try:
        return kvcalc.read_spec(cfg).quality
    except (kvcalc.ConfigError, kvcalc.UnsupportedError):
        return None


def _exact_files() -> list[str]:
    out = []
    for name in ORACLE.corpus_files():
        try:
            cfg = ORACLE.corpus_config(name)
        except ValueError:
            continue
        if isinstance(cfg, dict) and _quality(cfg) == "exact":
            out.append(name)
    return sorted(out)


EXACT = _exact_files()


def test_most_corpus_files_are_exact():
    assert len(EXACT) > 150


@pytest.mark.parametrize("name", EXACT)
def test_unread_geometry_field_drops_the_exact_label(name):
    cfg = ORACLE.corpus_config(name)
    key = language_config_key(cfg)
    top_level = cfg if key is None else cfg[key]
    indexed = any(a.indexer_dim for layer in kvcalc.read_spec(cfg).layers for a in layer.attention)
    mutations = {**MUTATIONS, **({} if "layer_types" in top_level or indexed else INDEX_MUTATION)}
    for field, value in mutations.items():
        mutated = copy.deepcopy(cfg)
        level = mutated if key is None else mutated[key]
        level[field] = value
        try:
            spec = kvcalc.read_spec(mutated)
        except kvcalc.UnsupportedError as exc:     # a refusal naming the field earns no label either
            assert field in str(exc), (field, exc)
            continue
        assert spec.quality == "estimated", (field, spec.warnings)
        assert any(field in w and "not read" in w for w in spec.warnings), (field, spec.warnings)


def test_inert_fields_keep_the_label():
    """A null value, a token id and window fields under use_sliding_window false size nothing."""
    base = {"model_type": "qwen2", "torch_dtype": "bfloat16", "use_sliding_window": False}
    assert kvcalc.read_spec(base).quality == "exact"
    for extra in ({"num_multi_query_heads": None}, {"image_token_index": 151655},
                  {"sliding_window": 32768, "max_window_layers": 21}):
        assert kvcalc.read_spec({**base, **extra}).quality == "exact", extra
