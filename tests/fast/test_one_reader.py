"""The KV rules and the parameter rules read one view of a config: for every real corpus file and every bundled
config both can read, the decoder's hidden size, attention heads and layer count come from the same fields
(or the same class defaults) with the same values.

Each side records the dotted fields it read (``fields_used``; the parameter count also the class defaults it
took, ``defaults_used``). Per quantity, the decoder's readings are those outside the towers (paths naming a
vision / audio / encoder / projector sub-config); the two sides must share a value wherever both read one,
and the spec's own resolved hidden size and heads count as the KV side's readings.
"""
from __future__ import annotations

import glob
import json
import os
import re
from typing import Any

import pytest
from paths import ROOT

import kvcalc
from kvcalc.config import ALIASES

TOWER = re.compile(r"vision|visual|audio|speech|encoder|image|projector|tower|connector|perceiver|qformer|vit|"
                   r"sam_|clip|siglip|mm_|vq|perception", re.I)
QUANTITIES = {"hidden_size": ALIASES["hidden_size"] + ("n_embed",),
              "num_attention_heads": ALIASES["num_attention_heads"],
              "num_hidden_layers": ALIASES["num_hidden_layers"]}
FILES = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "real_configs", "*.json"))
               + glob.glob(os.path.join(ROOT, "data", "configs", "*.json")))


def _at(cfg: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(cfg, dict) or part not in cfg:
            return None
        cfg = cfg[part]
    return cfg


def _readings(cfg: dict, used: tuple[str, ...], defaults: tuple[str, ...], names: tuple[str, ...]) -> set[int]:
    """The decoder values of one quantity a side read: config fields first, class defaults where it took one."""
    out: dict[str, int] = {}
    for path in used:
        prefix, _, last = path.rpartition(".")
        value = _at(cfg, path)
        if last in names and not TOWER.search(prefix) and isinstance(value, int):
            out[prefix] = value
    for note in defaults:
        path, _, value = note.partition("=")
        prefix, _, last = path.rpartition(".")
        if last in names and not TOWER.search(prefix) and prefix not in out and value.isdigit():
            out[prefix] = int(value)
    return set(out.values())


def _load(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as fh:
            cfg = json.load(fh)
    except (ValueError, UnicodeDecodeError):
        return None
    return cfg if isinstance(cfg, dict) else None


def test_corpus_and_bundled_configs_are_many():
    assert len(FILES) > 280


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p) for p in FILES])
def test_kv_and_parameter_rules_agree_on_layers_width_and_heads(path):
    cfg = _load(path)
    if cfg is None:
        pytest.skip("not a JSON object (a corpus file kept for the reader's refusal)")
    try:
        spec, count = kvcalc.read_spec(cfg), kvcalc.count_params(cfg)
    except (kvcalc.ConfigError, kvcalc.UnsupportedError):
        pytest.skip("one side refuses the file")
    resolved = {"hidden_size": spec.hidden_size, "num_attention_heads": spec.num_attention_heads}
    for quantity, names in QUANTITIES.items():
        kv = _readings(cfg, spec.fields_used, (), names) | ({resolved[quantity]} if resolved.get(quantity) else set())
        params = _readings(cfg, count.fields_used, count.defaults_used, names)
        assert not (kv and params) or kv & params, f"{quantity}: KV side {sorted(kv)}, parameter side {sorted(params)}"


def test_kimi_k25_flat_file_is_read_as_its_config_class_reads_it():
    """KimiK25Config without text_config builds the DeepSeek-V3 class-default decoder (128 heads), ignoring the
    file's top-level num_attention_heads 64: both sides read 128, and the KV figure says why it is estimated."""
    cfg = _load(os.path.join(ROOT, "tests", "fixtures", "real_configs",
                             "moonshotai__Kimi-K2.5__aiconfigurator-abridged.json"))
    assert cfg is not None and cfg["num_attention_heads"] == 64 and "text_config" not in cfg
    spec = kvcalc.read_spec(cfg)
    assert spec.num_attention_heads == 128 and spec.quality == "estimated"
    assert any("num_attention_heads=64 is not read" in w for w in spec.warnings)
