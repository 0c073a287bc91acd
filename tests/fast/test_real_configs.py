"""Real config.json files, replayed through kvcalc against transformers 5.24 building each one itself.

tests/fixtures/real_configs_oracle.json.gz (tests/oracles/real_config_oracle.py) holds, for every file of
the real-config corpus (tests/fixtures/real_configs/), what transformers 5.24 made of the file as it is:
the whole model built on the meta device (parameter count, tied weights once) and the tensors its
``DynamicCache`` holds after one meta-device prefill of 64 tokens, batch 1, in the checkpoint dtype. Here:

* KV: ``kvcalc.kv_cache(file, runtime="transformers", batch=1, context=prefill=64, dtype=<checkpoint>)``
  per layer against the oracle's per-layer tensor bytes;
* parameters: ``kvcalc.count_params(file).total`` against the whole meta-device model.

Every file is classed exact-agree, exact-differs (kvcalc says ``exact`` and is wrong: the bad case),
estimated or refused. The exact-differs files are listed by name with the field kvcalc misreads in
:data:`KV_DIFFERS` / :data:`PARAMS_DIFFERS` (strict xfail: a fix makes the test fail until the entry goes).
The only numbers asserted are the oracle's, and the class counts as they stand.
"""
from __future__ import annotations

import os
from collections import Counter

import pytest
from paths import ROOT, load_oracle

ORACLE = load_oracle("real_config_oracle")
DATA = ORACLE.load()
FILES: dict[str, dict] = DATA["files"]
BUILT = {n: r for n, r in FILES.items() if r["status"] == "built"}
PREFILLED = {n: r for n, r in BUILT.items() if r.get("forward") == "ok"}
TABLE = ORACLE.table(DATA)

# Files kvcalc labels exact whose KV cache differs from transformers', with the field it misreads.
KV_DIFFERS: dict[str, str] = {
}

# Files kvcalc labels exact whose parameter count differs from transformers', with the field it misreads.
PARAMS_DIFFERS: dict[str, str] = {
}

# The classes as they stand (fix a file: move it from exact-differs, and drop its entry above).
STATUS_COUNTS = {"built": 263, "needs remote code": 84, "failed": 3}
KV_COUNTS = {"exact-agree": 260, "exact-differs": 0, "estimated": 1, "refused": 0}
PARAMS_COUNTS = {"exact-agree": 258, "exact-differs": 0, "refused": 5}


def _param(name: str, differs: dict[str, str]):
    marks = [pytest.mark.xfail(strict=True, reason=differs[name])] if name in differs else []
    return pytest.param(name, marks=marks, id=name)


def test_fixture_records_versions_and_every_corpus_file():
    assert DATA["transformers"] == "5.24.0"
    assert DATA["torch"].startswith("2.13")
    assert DATA["inputs"] == {"batch": 1, "tokens": ORACLE.TOKENS}
    assert set(FILES) == set(ORACLE.corpus_files()) and DATA["subset"] == "all"


def test_every_failure_has_a_reason():
    for name, rec in FILES.items():
        assert rec["status"] in ("built", "needs remote code", "failed"), name
        if rec["status"] != "built":
            assert rec["reason"].strip() and not rec["reason"].startswith("crashed"), name
        else:
            assert isinstance(rec["params"], int) and rec["params"] > 0, name
            assert rec["forward"] == "ok" or rec["forward"].strip(), name


def test_oracle_statuses_as_they_stand():
    assert dict(Counter(r["status"] for r in FILES.values())) == STATUS_COUNTS


def test_kv_classes_as_they_stand():
    assert Counter(c for c, _ in TABLE["kv"].values()) == +Counter(KV_COUNTS)   # + drops zero counts


def test_params_classes_as_they_stand():
    assert Counter(c for c, _ in TABLE["params"].values()) == +Counter(PARAMS_COUNTS)


def test_differs_lists_name_built_files():
    assert set(KV_DIFFERS) <= set(PREFILLED) and set(PARAMS_DIFFERS) <= set(BUILT)


@pytest.mark.parametrize("name", [_param(n, KV_DIFFERS) for n in sorted(PREFILLED)])
def test_kv_labelled_exact_equals_transformers_cache(name):
    cls, detail = TABLE["kv"][name]
    assert cls != "exact-differs", detail


@pytest.mark.parametrize("name", [_param(n, PARAMS_DIFFERS) for n in sorted(BUILT)])
def test_params_labelled_exact_equal_meta_device_count(name):
    cls, detail = TABLE["params"][name]
    assert cls != "exact-differs", detail


def test_llama_70b_cache_matches_hand_arithmetic():
    """Reflection-Llama-3.1-70B (saved in float32): 80 layers x K and V x 8 KV heads x 64 tokens x head_dim 128
    x 4 bytes."""
    rec = FILES["mattshumer__Reflection-Llama-3.1-70B.json"]
    assert rec["dtype"] == ORACLE.corpus_config("mattshumer__Reflection-Llama-3.1-70B.json")["torch_dtype"]
    assert [layer["bytes"] for layer in rec["layers"]] == [2 * 8 * 64 * 128 * 4] * 80


def test_qwen3_next_linear_layer_matches_its_fields():
    """Qwen3-Next gated-delta layer: conv state (2 x 16 key heads x 128 + 32 value heads x 128 channels,
    linear_conv_kernel_dim 4 taps, bf16) and a float32 recurrent state (32 value heads x 128 x 128)."""
    name = "Qwen__Qwen3-Next-80B-A3B-Thinking.json"
    cfg = ORACLE.corpus_config(name)
    layer = FILES[name]["layers"][0]
    channels = 2 * cfg["linear_num_key_heads"] * cfg["linear_key_head_dim"] + (
        cfg["linear_num_value_heads"] * cfg["linear_value_head_dim"])
    assert layer["tensors"]["conv_states[0]"] == [[1, channels, cfg["linear_conv_kernel_dim"]], "bfloat16"]
    heads, k, v = cfg["linear_num_value_heads"], cfg["linear_key_head_dim"], cfg["linear_value_head_dim"]
    assert layer["tensors"]["recurrent_states[0]"] == [[1, heads, k, v], "float32"]
    assert layer["bytes"] == channels * 4 * 2 + heads * k * v * 4


# A remote-code file transformers 5.24 cannot build (its MptAttentionConfig refuses the attn_type), checked by
# hand against the file's own modeling code: oldjar07/replit-hiddensize, attention.py at commit
# fe58961d0e70aec9b94797c67d450bd4865773d9, GroupedQueryAttention.forward splits Wqkv into kv_n_heads x head_dim
# keys and values, and scaled_multihead_dot_product_attention caches them as past_key_value = (k, v) with
# h=kv_n_heads, before repeat_interleave widens them to n_heads.
MPT_GQA = "oldjar07__replit-hiddensize__mpt-gqa.json"


def test_mpt_grouped_query_attention_caches_kv_n_heads():
    import kvcalc

    cfg = ORACLE.corpus_config(MPT_GQA)
    assert FILES[MPT_GQA]["status"] == "failed" and "attn_type" in FILES[MPT_GQA]["reason"]
    spec = kvcalc.read_spec(cfg)
    assert {a.kv_heads for layer in spec.layers for a in layer.attention} == {cfg["attn_config"]["kv_n_heads"]}


def test_mpt_grouped_query_attention_counts_narrower_wqkv():
    """GroupedQueryAttention.Wqkv is d_model -> (n_heads + 2 * kv_n_heads) * head_dim: against the multi-head file,
    each of the n_layers blocks loses 2 * (n_heads - kv_n_heads) * head_dim * d_model weights (no_bias)."""
    import copy

    import kvcalc

    cfg = ORACLE.corpus_config(MPT_GQA)
    mha = copy.deepcopy(cfg)
    mha["attn_config"]["attn_type"] = "multihead_attention"
    d, n_q, kv = cfg["hidden_size"], cfg["n_heads"], cfg["attn_config"]["kv_n_heads"]
    fewer = cfg["n_layers"] * 2 * (n_q - kv) * (d // n_q) * d
    assert kvcalc.count_params(mha).total - kvcalc.count_params(cfg).total == fewer


def test_bloom_reads_n_embed_for_hidden_size():
    """BLOOM-176B writes its width as n_embed (14336), which BloomConfig moves into hidden_size: 70 layers x K and V
    x 112 heads x 64 tokens x head_dim 128 x 2 bytes (bfloat16), as transformers' cache holds it."""
    name = "bigscience__bloom.json"
    cfg = ORACLE.corpus_config(name)
    assert cfg["n_embed"] // cfg["num_attention_heads"] == 128
    assert [layer["bytes"] for layer in FILES[name]["layers"]] == [2 * 112 * 64 * 128 * 2] * 70
    assert TABLE["kv"][name][0] == "exact-agree"


MINIMAX_M3 = "nvidia__MiniMax-M3-NVFP4__aiconfigurator.json"


def test_minimax_m3_sparse_layers_cache_one_index_key_head():
    """transformers 5.24 modeling_minimax_m3_vl.py: MiniMaxM3VLIndexer.forward caches k_proj(hidden) as one head of
    index_head_dim (sparse_attention_config.sparse_index_dim, 128) in a MiniMaxM3VLSparseCacheLayer on the layers
    whose sparse_attention_freq flag is set (configuration_minimax_m3_vl.py __post_init__). After the 64-token
    prefill: 4 KV heads x (128 + 128) x 64 x 2 bytes, plus 1 x 128 x 64 x 2 = 16,384 index-key bytes there."""
    cfg = ORACLE.corpus_config(MINIMAX_M3)["text_config"]
    sparse = cfg["sparse_attention_config"]
    d, kv, tokens = sparse["sparse_index_dim"], cfg["num_key_value_heads"], ORACLE.TOKENS
    want = [2 * kv * 128 * tokens * 2 + (d * tokens * 2 if flag else 0) for flag in sparse["sparse_attention_freq"]]
    assert sum(sparse["sparse_attention_freq"]) == 57 and d * tokens * 2 == 16_384
    assert [layer["bytes"] for layer in FILES[MINIMAX_M3]["layers"]] == want
    assert TABLE["kv"][MINIMAX_M3][0] == "exact-agree"


def test_minimax_m3_index_keys_grow_with_the_context():
    """MiniMaxM3VLSparseCacheLayer.update_index concatenates every token's index key (no window): at 100,000 tokens
    a sparse layer holds 100,000 x (4 x 256 + 128) x 2 bytes."""
    import kvcalc

    r = kvcalc.kv_cache(ORACLE.corpus_config(MINIMAX_M3), batch=1, context=100_000, prefill=100_000,
                        runtime="transformers")
    assert (r.layers[0].bytes, r.layers[3].bytes) == (100_000 * 4 * 256 * 2, 100_000 * (4 * 256 + 128) * 2)


def test_vllm_refuses_minimax_m3_index_keys():
    """Index keys beside GQA K/V have no vLLM spec in kvcalc: refused, naming the layer, not undercounted."""
    import kvcalc

    with pytest.raises(kvcalc.UnsupportedError, match="index keys"):
        kvcalc.kv_cache(ORACLE.corpus_config(MINIMAX_M3), batch=1, context=4096, runtime="vllm")


@pytest.mark.parametrize("name", ["meta-llama__Llama-4-Scout-17B-16E-Instruct__aiconfigurator-abridged.json",
                                  "meta-llama__Llama-4-Maverick-17B-128E-Instruct__aiconfigurator-abridged.json"])
def test_llama4_chunked_layers_are_windowed_like_transformers(name):
    """transformers 5.24 cache_utils.py: DynamicCache.__init__ gives a chunked_attention layer sliding_window =
    attention_chunk_size, and LAYER_TYPE_CACHE_MAPPING a DynamicSlidingWindowLayer (the oracle: 8192 on 36 of 48
    layers, every fourth layer full). Its update keeps a view of the last W - 1 tokens of the W it concatenated, so
    after a decode step past the window a chunked layer's storage is 8,192 tokens x 8 KV heads x (128 + 128) x 2
    bytes plus the int64 window tensor; a full layer holds all 100,000."""
    import kvcalc

    chunk = ORACLE.corpus_config(name)["text_config"]["attention_chunk_size"]
    assert [layer["sliding_window"] for layer in FILES[name]["layers"]] == [
        None if (i + 1) % 4 == 0 else chunk for i in range(48)]
    r = kvcalc.kv_cache(ORACLE.corpus_config(name), batch=1, context=100_000, prefill=64, runtime="transformers")
    assert (r.layers[0].bytes, r.layers[3].bytes) == (chunk * 8 * 256 * 2 + 8, 100_000 * 8 * 256 * 2)
    assert r.quality == "exact" and TABLE["kv"][name][0] == "exact-agree"


# A remote-code file (no model_type; architectures CogVLMVideoForCausalLM), checked against CogVLM2's own code:
# THUDM/cogvlm2-llama3-chat-19B's modeling_cogvlm.py as vendored in yongchenglai/llm-research,
# model/model_cogvlm2/modeling_cogvlm.py at commit 657c2d515ec2566cebff321b1e27e7eec43e6678:
# VisionExpertAttention splits the fused QKV by stride [num_attention_heads, num_multi_query_heads,
# num_multi_query_heads] of hidden_size // num_attention_heads and caches past_key_value = (key_states,
# value_states) with num_multi_query_heads heads before expand widens them to the query heads.
COGVLM2 = "THUDM__cogvlm2-llama3-caption.json"


def test_cogvlm2_caches_num_multi_query_heads():
    """32 layers x K and V x 8 heads x 64 tokens x 4096 // 32 x 2 bytes (bfloat16), labelled estimated (the video
    variant's own modeling file was not read), naming the field."""
    import kvcalc

    cfg = ORACLE.corpus_config(COGVLM2)
    assert FILES[COGVLM2]["status"] == "needs remote code" and "model_type" not in cfg
    r = kvcalc.kv_cache(cfg, batch=1, context=64, runtime="transformers")
    kv, d = cfg["num_multi_query_heads"], cfg["hidden_size"] // cfg["num_attention_heads"]
    assert r.total_bytes == cfg["num_hidden_layers"] * 2 * kv * 64 * d * 2 == 8_388_608
    assert r.quality == "estimated" and any("num_multi_query_heads" in w for w in r.warnings)
    assert not any("num_key_value_heads not in config" in w for w in r.warnings)


def test_readme_states_the_real_file_counts():
    """The README's "Coverage, on real files" sentence says what this table measures."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = " ".join(f.read().split())
    corpus = len(FILES)
    assert f"{corpus} verbatim config.json files" in readme
    assert (f"of the {STATUS_COUNTS['built']} files transformers builds without remote code, "
            f"**{KV_COUNTS['exact-agree']} exact on the KV cache and {PARAMS_COUNTS['exact-agree']} on the "
            f"parameter count, {KV_COUNTS['exact-differs'] + PARAMS_COUNTS['exact-differs']} labelled exact "
            f"that differ from transformers**") in readme
    assert f"{STATUS_COUNTS['needs remote code']} files need remote code" in readme


# A remote-code file transformers 5.24 cannot build (model_type 'hunyuan' is not one of its types), checked by hand
# against the model's own code: Tencent-Hunyuan/Hunyuan-A13B, models/modeling_hunyuan.py at commit
# df832ebcc42e64db91ec1a4eadb90c296f3c7346. HunYuanAttention.__init__ sets head_dim = hidden_size //
# num_attention_heads and, for attention_type 'self' (every layer when use_cla is false), k_proj / v_proj of
# num_key_value_heads x head_dim; forward caches those keys and values with past_key_value.update before repeat_kv.
HUNYUAN = "tencent__Hunyuan-A13B-Instruct.json"


def test_hunyuan_a13b_caches_kv_heads_on_every_layer():
    import kvcalc

    cfg = ORACLE.corpus_config(HUNYUAN)
    assert FILES[HUNYUAN]["status"] == "needs remote code" and cfg["use_cla"] is False
    head_dim = cfg["hidden_size"] // cfg["num_attention_heads"]
    assert head_dim == cfg["attention_head_dim"] == 128
    r = kvcalc.kv_cache(cfg, batch=1, context=64, prefill=64, dtype="bfloat16", runtime="transformers")
    assert [layer.bytes for layer in r.layers] == [2 * cfg["num_key_value_heads"] * 64 * head_dim * 2] * 32


def test_every_corpus_file_names_its_source_commit():
    """SOURCES.csv has one row per corpus file: the repository (owner/name), the path and a 40-hex commit."""
    import csv
    import re

    with open(os.path.join(ORACLE.CORPUS, "SOURCES.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["file"] for r in rows) == ORACLE.corpus_files()
    for r in rows:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", r["repository"]) and r["path"].strip(), r["file"]
        assert re.fullmatch(r"[0-9a-f]{40}", r["commit"]), r["file"]
