"""Labels that are earned: a field that looks like cache geometry but that kvcalc's rules do not read makes the
KV figure estimated, naming the field (kvcalc.models.unread). Tested by mutation of the real corpus files:
every file whose KV figure is exact (and agrees with transformers 5.24, tests/fast/test_real_configs.py) must
lose the label when such a field is added at the level its decoder is read from, and name it (or be refused,
naming it)."""
from __future__ import annotations

import copy
import importlib.util
import os
import sys

import pytest
from paths import ROOT

import kvcalc

_spec = importlib.util.spec_from_file_location("real_config_oracle",
                                               os.path.join(ROOT, "tests", "oracles", "real_config_oracle.py"))
assert _spec is not None and _spec.loader is not None
ORACLE = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = ORACLE
_spec.loader.exec_module(ORACLE)

# fields no kvcalc rule reads, each of which sizes some real model's cache: MiniCPM / remote-code multi-query
# heads, DeepSeek-V4's compressed-KV ratios, a local-attention window under a name of its own
MUTATIONS = {"num_multi_query_heads": 4, "compress_ratios": [1, 4, 128], "local_window_size": 1024}


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
    for field, value in MUTATIONS.items():
        mutated = copy.deepcopy(cfg)
        level = mutated["text_config"] if isinstance(mutated.get("text_config"), dict) else mutated
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
