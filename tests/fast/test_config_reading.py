"""Plans never blocked by what the file lets one know: a config without ``model_type`` read through the class its
``architectures`` names (as ``<Class>.from_pretrained`` reads it with the class's ``config_class``), a language
model nested as ``llm_config`` / ``language_config`` read like ``text_config``, and a large config (a quantized
export's thousands of ignored modules) read within bounds on its structure rather than refused for its bytes.

The expected numbers are transformers 5.24's (the real-config oracle fixture: the meta-device parameter count and
the cache of each corpus file, tests/oracles/real_config_oracle.py) or hand arithmetic from the file's fields."""
from __future__ import annotations

import copy
import json

import pytest
from paths import load_oracle

import kvcalc
from kvcalc.hub import MAX_CONFIG_BYTES, ConfigTooLargeError
from kvcalc.models.architecture_names import architecture_types, with_model_types
from kvcalc.sources import parse_config_text
from kvcalc.weights import plan_weights

ORACLE = load_oracle("real_config_oracle")
FILES = ORACLE.load()["files"]


def _named_by_class() -> list[str]:
    """Built corpus files whose first known architectures class has the config class transformers loaded."""
    table, out = architecture_types(), []
    for name, rec in FILES.items():
        if rec["status"] != "built":
            continue
        cfg = ORACLE.corpus_config(name)
        archs = [a for a in cfg.get("architectures") or [] if a in table]
        if archs and table[archs[0]] == rec["model_type"] == cfg.get("model_type"):
            out.append(name)
    return sorted(out)


NAMED = _named_by_class()


def test_the_table_holds_transformers_classes():
    """Spot checks against transformers 5.24's modeling_auto (LlamaForCausalLM.config_class is LlamaConfig...)."""
    table = architecture_types()
    assert len(table) > 1000
    assert table["LlamaForCausalLM"] == "llama" and table["MistralForCausalLM"] == "mistral"
    assert table["Qwen2VLForConditionalGeneration"] == "qwen2_vl" and table["GPT2LMHeadModel"] == "gpt2"


def test_most_corpus_files_name_a_known_class():
    assert len(NAMED) > 150


@pytest.mark.parametrize("name", NAMED)
def test_without_model_type_the_class_decides(name):
    """The same file without model_type: the same cache and transformers' parameter count, labelled estimated
    with the assumption named."""
    cfg = ORACLE.corpus_config(name)
    bare = {k: v for k, v in cfg.items() if k != "model_type"}
    try:
        full = kvcalc.read_spec(cfg)
    except kvcalc.UnsupportedError as e:       # refused with the type (DeepSeek-V4's compress_ratios): refused without
        with pytest.raises(kvcalc.UnsupportedError, match=str(e)[:40]):
            kvcalc.read_spec(bare)
        return
    spec = kvcalc.read_spec(bare)
    assert spec.layers == full.layers
    assert spec.quality == "estimated"
    assert any("no model_type: read as" in w and cfg["model_type"] in w for w in spec.warnings), spec.warnings
    try:
        count = kvcalc.count_params(cfg)
    except (kvcalc.UnsupportedError, kvcalc.ConfigError):   # the count is refused with the type too
        return
    if count.total == FILES[name]["params"]:
        bare_count = kvcalc.count_params(bare)
        assert bare_count.total == FILES[name]["params"] and bare_count.quality == "estimated"


def test_no_type_and_no_known_class_plans_with_given_weights():
    """Neither model_type nor a transformers class: the parameter count is refused as unsupported, so measured
    weights plan it (the KV figure reads the generic decoder fields, estimated)."""
    cfg = {"architectures": ["MyRemoteForCausalLM"], "hidden_size": 1024, "num_hidden_layers": 4,
           "num_attention_heads": 8, "vocab_size": 1000}
    with pytest.raises(kvcalc.UnsupportedError, match="model_type"):
        kvcalc.count_params(cfg)
    w = plan_weights(cfg, None, 5 << 30)
    assert w.total_bytes == 5 << 30 and w.scheme.startswith("given")
    # 4 layers x K and V x 8 heads x 128 (1024 / 8) x 2 bytes (bfloat16) per token
    assert kvcalc.read_spec(cfg).quality == "estimated"


def test_a_filled_type_is_not_a_file_field():
    """with_model_types leaves a file that names its type alone (the same object)."""
    cfg = ORACLE.corpus_config("meta-llama__Llama-2-7b-hf.json")
    assert with_model_types(cfg) == (cfg, ())


INTERNVL = "OpenGVLab__InternVL2-2B__finetune.json"


def test_llm_config_is_the_language_model():
    """InternVL2-2B (remote code, model_type internvl_chat): its language model is the InternLM2 of llm_config,
    24 layers x K and V x 8 KV heads x head_dim 128 (2048 / 16 heads) x 2 bytes (bfloat16) per token, as the
    llm_config read on its own."""
    cfg = ORACLE.corpus_config(INTERNVL)
    llm = cfg["llm_config"]
    spec = kvcalc.read_spec(cfg)
    assert spec.model_type == llm["model_type"] == "internlm2"
    assert len(spec.layers) == llm["num_hidden_layers"] == 24
    assert {(a.kv_heads, a.k_head_dim) for layer in spec.layers for a in layer.attention} == {(8, 128)}
    assert spec.layers == kvcalc.read_spec(llm).layers
    per_token = kvcalc.kv_cache(cfg, runtime="ideal", batch=1, context=1, dtype="bfloat16").total_bytes
    assert per_token == 24 * 2 * 8 * 128 * 2


def test_language_config_without_type_reads_its_class():
    """A language_config naming no model_type but an architectures class (DeepSeek-VL2 / DeepSeek-OCR style): read
    as that class's type, estimated, the assumption named."""
    llm = ORACLE.corpus_config("meta-llama__Llama-2-7b-hf.json")
    inner = {k: v for k, v in llm.items() if k != "model_type"}
    spec = kvcalc.read_spec({"model_type": "acme_vl", "language_config": inner, "vision_config": {"width": 8}})
    assert spec.layers == kvcalc.read_spec(llm).layers and spec.quality == "estimated"
    assert any("no language_config.model_type: read as 'llama'" in w for w in spec.warnings)


def test_a_known_wrapper_keeps_its_own_rule_for_legacy_names():
    """UnlimitedOcrConfig moves language_config (and the top-level sliding_window) by its own rule: kvcalc does
    not read a legacy name for a type transformers defines by the generic one."""
    from kvcalc.models.architecture_names import language_config_key

    assert language_config_key({"language_config": {}}, remote=False) is None
    assert language_config_key({"language_config": {}, "text_config": {}}) == "text_config"


def _ignored_modules(n_layers: int, n_experts: int) -> list[str]:
    """The module names a quantized MoE export lists as not quantized (one per expert projection)."""
    return [f"model.layers.{i}.mlp.experts.{e}.{p}" for i in range(n_layers) for e in range(n_experts)
            for p in ("gate_proj", "up_proj", "down_proj")]


def test_a_config_with_thousands_of_ignored_modules_is_read(tmp_path, capsys):
    """A 4 MB config.json (a quantization_config ignoring 61 layers x 384 experts x 3 projections, Kimi-K2's
    shape, one name each as quantizers write them) is over the old 1 MiB cap: the CLI now reads it, and plans it
    as the Python API does."""
    cfg = copy.deepcopy(ORACLE.corpus_config("meta-llama__Llama-2-7b-hf.json"))
    cfg["quantization_config"] = {"quant_method": "fp8", "ignore": _ignored_modules(61, 384)}
    text = json.dumps(cfg, indent=2)
    assert 3 << 20 < len(text) < MAX_CONFIG_BYTES
    assert parse_config_text(text) == cfg
    path = tmp_path / "config.json"
    path.write_text(text)
    from kvcalc.cli import main

    assert main(["kv", str(path), "--json", "--context", "1024", "--batch", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    # Llama-2-7B: 32 layers x K and V x 32 KV heads x head_dim 128 x 2 bytes (float16) x 1,024 tokens
    assert out["total_bytes"] == 32 * 2 * 32 * 128 * 2 * 1024 and out["quality"] == "exact"


@pytest.mark.parametrize("extra, words", [
    ({"x" * 2000: 1}, "field name"),
    ({"pad": "x" * 100_000}, "string at pad"),
    ({"num_hidden_layers": 10 ** 25}, "integer at num_hidden_layers has 26 digits"),
    ({"pad": [0] * 2_100_000}, "JSON values"),
])
def test_structure_bounds_refuse_what_no_config_holds(extra, words):
    cfg = {"model_type": "llama", **extra}
    with pytest.raises(ConfigTooLargeError, match=words):
        parse_config_text(json.dumps(cfg))


def test_the_byte_ceiling_still_holds():
    body = '{"model_type": "llama", "pad": [' + ",".join(['"ab"'] * (MAX_CONFIG_BYTES // 5 + 1)) + "]}"
    with pytest.raises(ConfigTooLargeError, match="16 MiB limit"):
        parse_config_text(body)


def test_deepseek_ocr_language_model_without_mla():
    """DeepSeek-OCR (remote code): its language_config names no model_type but DeepseekV2ForCausalLM, and sets
    use_mla false (its modeling_deepseek.py then builds LlamaAttention): 12 layers x K and V x 10 KV heads x
    head_dim 128 (1280 / 10) x 2 bytes (bfloat16) per token, estimated with both assumptions named."""
    cfg = ORACLE.corpus_config("deepseek-ai__DeepSeek-OCR.json")
    lm = cfg["language_config"]
    assert lm["use_mla"] is False and "model_type" not in lm
    spec = kvcalc.read_spec(cfg)
    assert spec.quality == "estimated" and spec.model_type == "deepseek_v2"
    assert any("use_mla is false" in w for w in spec.warnings)
    per_token = kvcalc.kv_cache(cfg, runtime="ideal", batch=1, context=1, dtype="bfloat16").total_bytes
    assert per_token == 12 * 2 * 10 * 128 * 2
