"""Picker labels and search (dashboard.pickers) and the pasted config carried in a link
(dashboard.config_link): pure functions, no Streamlit.

Expected values come from the data files read here with csv / json, and from published figures:
GPU memory as nvidia-smi reports it (data/gpus.csv ``memory_mib``: H100 SXM 81,559 MiB ->
79.6 GiB; RTX 4090 24,564 MiB -> 24.0 GiB), Llama-3.1-8B 8,030,261,248 parameters (Hub
safetensors total, data/params.csv), vendors and marketed sizes from data/gpus.csv.
"""
from __future__ import annotations

import base64
import csv
import json
import os
import zlib

import pytest
from paths import ROOT, load_config

from dashboard import config_link, pickers
from dashboard.state import CONFIG_LINK_MAX_CHARS
from kvcalc.catalog import catalog, find_entry
from kvcalc.errors import KVCalcError
from kvcalc.gpus import get_gpu, gpu_catalog
from kvcalc.hub import ConfigJSONError, NotADecoderError

with open(os.path.join(ROOT, "data", "gpus.csv"), newline="", encoding="utf-8") as f:
    GPU_ROWS = list(csv.DictReader(f))


def gpus_found(query: str) -> set[str]:
    return {g.key for g in gpu_catalog() if pickers.matches(query, pickers.gpu_search_text(g))}


def models_found(query: str) -> set[str]:
    return {e.hub_id for e in catalog() if pickers.matches(query, pickers.model_search_text(e))}


# ----------------------------------------------------------------------------- labels
def test_gpu_labels_name_the_card_and_its_memory():
    assert pickers.gpu_label(get_gpu("h100-sxm")) == f"NVIDIA H100 80GB HBM3 (SXM) — {81_559 / 1024:.1f} GiB"
    assert pickers.gpu_label(get_gpu("h100-sxm")).endswith("79.6 GiB")
    # the vendor is added where the catalog name lacks it (GeForce cards)
    assert pickers.gpu_label(get_gpu("rtx-4090")) == "NVIDIA GeForce RTX 4090 24GB — 24.0 GiB"
    assert pickers.gpu_label(get_gpu("mi300x")).startswith("AMD Instinct MI300X")


def test_model_labels_have_size_and_family():
    e = find_entry("meta-llama/Llama-3.1-8B")
    assert e is not None
    assert pickers.model_label(e) == "Llama-3.1-8B — 8.0B params · llama"       # 8,030,261,248
    assert pickers.params_text(8_030_261_248) == "8.0B params"
    assert pickers.params_text(999_885_952) == "1.0B params"
    assert pickers.params_text(596_049_920) == "596M params"
    assert pickers.params_text(684_531_386_000) == "685B params"
    assert pickers.params_text(None) == "? params"


# ----------------------------------------------------------------------------- search
def test_gpu_search_by_any_fragment():
    assert gpus_found("a100 80") == {"a100-80gb", "a100-80gb-pcie"}
    assert gpus_found("A100 80") == gpus_found("80 a100") == gpus_found("a100 80")      # case, order
    assert gpus_found("24gb") == {r["key"] for r in GPU_ROWS if r["marketed_gb"] == "24"}
    assert gpus_found("24 GB") == gpus_found("24gb")
    assert gpus_found("nvidia") == {r["key"] for r in GPU_ROWS if r["vendor"] == "NVIDIA"}
    assert gpus_found("4090") == {"rtx-4090"}
    assert gpus_found("rtx-4090") == {"rtx-4090"}                                      # the catalog key too
    assert gpus_found("h100 pcie") == {"h100-pcie"}
    assert gpus_found("tpu") == set()
    assert gpus_found("") == {r["key"] for r in GPU_ROWS}


def test_model_search_by_fuzzy_fragments():
    assert models_found("llama 8b") == {"meta-llama/Llama-3.1-8B", "meta-llama/Meta-Llama-3-8B"}
    assert models_found("8B LLAMA") == models_found("llama 8b")
    assert models_found("qwen3 30b") == {"Qwen/Qwen3-30B-A3B"}
    assert models_found("llama3.1 70") == {"meta-llama/Llama-3.1-70B"}        # separators ignored
    assert models_found("gemma 27") == {"google/gemma-3-27b-it"}
    assert models_found("deepseek-ai") == {e.hub_id for e in catalog() if e.hub_id.startswith("deepseek-ai/")}
    assert models_found("mistral nope") == set()


def test_narrow_keeps_the_current_choice():
    keys = [g.key for g in gpu_catalog()]
    text = {g.key: pickers.gpu_search_text(g) for g in gpu_catalog()}
    assert pickers.narrow("4090", keys, text.__getitem__, keep="h100-sxm") == [
        k for k in keys if k in ("h100-sxm", "rtx-4090")]
    assert pickers.narrow("", keys, text.__getitem__, keep="t4") == keys


# ----------------------------------------------------------------------------- config in the link
def test_a_pasted_config_round_trips_through_the_link():
    cfg = load_config("meta-llama__Llama-3.1-8B.json")
    value = config_link.encode_config(cfg)
    assert len(value) <= CONFIG_LINK_MAX_CHARS
    assert set(value) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")   # URL-safe
    assert config_link.decode_config(value) == cfg
    # independent decoder: base64 + zlib + json from the standard library
    assert json.loads(zlib.decompress(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))) == cfg
    assert config_link.link_error(value) is None


def _pack(raw: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


@pytest.mark.parametrize("value, fragment", [
    ("x" * (CONFIG_LINK_MAX_CHARS + 1), "longer than"),
    ("abc$%", "not URL-safe base64"),
    ("QUJD", "not zlib"),
    (_pack(b" " * (2 << 20)), "unpacks to more than"),                # a 2 MiB zip bomb: stopped at 1 MiB
])
def test_a_bad_link_payload_is_refused(value, fragment):
    with pytest.raises(config_link.ConfigLinkError, match=fragment):
        config_link.decode_config(value)
    assert fragment in (config_link.link_error(value) or "")


def test_a_cut_payload_is_refused():
    value = config_link.encode_config(load_config("meta-llama__Llama-3.1-8B.json"))
    with pytest.raises(KVCalcError):
        config_link.decode_config(value[: len(value) // 2])


def test_a_payload_gets_the_checks_of_a_paste():
    with pytest.raises(ConfigJSONError):
        config_link.decode_config(_pack(b"not json at all"))
    bert = {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": 768, "num_hidden_layers": 12,
            "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 30522}
    with pytest.raises(NotADecoderError):
        config_link.decode_config(_pack(json.dumps(bert).encode()))


def test_a_config_too_large_for_a_link_is_detected_by_its_length():
    cfg = {**load_config("meta-llama__Llama-3.1-8B.json"), "notes": os.urandom(8000).hex()}   # incompressible
    assert len(config_link.encode_config(cfg)) > CONFIG_LINK_MAX_CHARS


def test_the_title_of_a_pasted_config():
    assert config_link.config_title({"_name_or_path": "acme/tuned-8b"}, "x.json") == "acme/tuned-8b"
    assert config_link.config_title({}, "my-config.json") == "my-config.json"
    assert config_link.config_title({"_name_or_path": ""}, None) == "pasted config"
