"""The vLLM 0.33.0 oracle fixture is well formed (tests/fixtures/vllm_0_33_oracle.json).

The fixture is vLLM's own planning code run by tests/oracles/vllm_oracle.py (in a separate venv; vLLM is
not a dependency). These tests only check its shape, so that the later replay against kvcalc can rely on
it: the version, every case's inputs and outputs, and that every model file it names exists. The one
arithmetic check restates vLLM's own rule on vLLM's own numbers (``get_kv_cache_capacity``:
tokens = int(max_concurrency * max_model_len)), it asserts nothing about kvcalc.
"""
from __future__ import annotations

import os
import re
from typing import Any

import pytest
from paths import ROOT, load_fixture

MODEL_FOLDERS = ("data/configs", "tests/oracles/configs")
INPUT_KEYS = {"model_file", "kv_cache_memory", "max_model_len", "block_size", "tensor_parallel_size",
              "kv_cache_dtype", "max_num_batched_tokens", "max_num_seqs", "speculative_config", "device"}
STATUSES = {"ok", "refused", "config_refused"}
LOG_LINE = re.compile(r"^GPU KV cache size: [\d,]+ tokens, Maximum concurrency for [\d,]+ tokens per request: "
                      r"\d+\.\d\dx$")


FIXTURE_DATA: dict[str, Any] = load_fixture("vllm_0_33_oracle.json")
CASES = FIXTURE_DATA["cases"]


def _model_exists(path: str) -> bool:
    return os.path.dirname(path) in MODEL_FOLDERS and os.path.isfile(os.path.join(ROOT, path))


def test_header_names_vllm_0_33_and_how_it_was_made() -> None:
    assert FIXTURE_DATA["vllm_version"] == "0.33.0"
    assert FIXTURE_DATA["versions"]["vllm"] == "0.33.0"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", FIXTURE_DATA["generated"])
    assert "tests/oracles/vllm_oracle.py" in FIXTURE_DATA["produced_by"]
    assert len(CASES) >= 30
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "case names are the replay's keys: they must be unique"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case_has_inputs_and_outputs(case: dict[str, Any]) -> None:
    inputs, outputs = case["inputs"], case["outputs"]
    assert INPUT_KEYS <= set(inputs)
    assert _model_exists(inputs["model_file"]), inputs["model_file"]
    assert isinstance(inputs["kv_cache_memory"], int) and inputs["kv_cache_memory"] > 0
    assert inputs["tensor_parallel_size"] in (1, 2, 4, 8)
    assert inputs["device"] in FIXTURE_DATA["devices"]
    assert outputs["status"] in STATUSES, outputs.get("error")
    if outputs["status"] == "config_refused":
        assert outputs["error"]
        return
    resolved = outputs["resolved"]
    assert isinstance(resolved["max_model_len"], int) and resolved["max_model_len"] > 0
    if inputs["max_model_len"] not in (None, -1):
        assert resolved["max_model_len"] == inputs["max_model_len"]
    assert outputs["layer_specs"] and outputs["num_layer_specs"] == sum(s["layers"] for s in outputs["layer_specs"])
    if outputs["status"] == "refused":
        assert outputs["error"].startswith("To serve at least one request with the model's max seq len")
        assert outputs["estimated_max_model_len"] is None or 0 < outputs["estimated_max_model_len"] \
            < resolved["max_model_len"]
        return
    assert outputs["num_gpu_blocks"] > 0 and outputs["kv_cache_groups"]
    for group in outputs["kv_cache_groups"]:
        assert group["spec"].endswith("Spec") and group["num_layers"] > 0
        assert group["block_size"] > 0 and group["page_size_bytes"] > 0 and group["blocks_per_request"] > 0
    assert LOG_LINE.match(outputs["log_line"]), outputs["log_line"]


@pytest.mark.parametrize("case", [c for c in CASES if c["outputs"]["status"] == "ok"],
                         ids=[c["name"] for c in CASES if c["outputs"]["status"] == "ok"])
def test_capacity_line_restates_vllm_0_33_rule(case: dict[str, Any]) -> None:
    """``get_kv_cache_capacity``: tokens = int(concurrency x max_model_len); concurrency = blocks / request blocks."""
    out = case["outputs"]
    max_model_len = out["max_model_len"]  # auto-fit (-1) lowers the resolved length
    per_request = sum(g["blocks_per_request"] for g in out["kv_cache_groups"])
    assert out["max_concurrency"] == out["num_gpu_blocks"] / per_request
    assert out["kv_cache_size_tokens"] == int(out["max_concurrency"] * max_model_len)
    assert out["log_line"] == (f"GPU KV cache size: {out['kv_cache_size_tokens']:,} tokens, Maximum concurrency for "
                               f"{max_model_len:,} tokens per request: {out['max_concurrency']:.2f}x")


def test_grid_covers_the_issue() -> None:
    """Full, sliding, MLA, MoE, two hybrids; fp8; TP 1/2/8; fits, refusals, a config refusal; spec decoding."""
    files = {c["inputs"]["model_file"] for c in CASES}
    for name in ("meta-llama__Llama-3.1-8B", "Qwen__Qwen3-8B", "mistralai__Mistral-7B-v0.1", "google__gemma-2-9b-it",
                 "google__gemma-3-27b-it", "openai__gpt-oss-20b", "deepseek-ai__DeepSeek-V2-Lite",
                 "deepseek-ai__DeepSeek-V3", "mistralai__Mixtral-8x7B-v0.1", "Qwen__Qwen3-30B-A3B",
                 "ai21labs__Jamba-v0.1", "Qwen__Qwen3-Next-80B-A3B-Thinking"):
        assert any(name in f for f in files), name
    statuses = {c["outputs"]["status"] for c in CASES}
    assert statuses == STATUSES
    assert {c["inputs"]["tensor_parallel_size"] for c in CASES} >= {1, 2, 8}
    assert any(c["inputs"]["kv_cache_dtype"] == "fp8" for c in CASES)
    assert any(c["inputs"]["speculative_config"] for c in CASES)
    assert any(g["spec"] == "MambaSpec" for c in CASES for g in c["outputs"].get("kv_cache_groups", []))


def test_default_max_model_len_table() -> None:
    """One row per config file: vLLM's derived default and its refusal one token over it."""
    rows = FIXTURE_DATA["default_max_model_len"]
    assert len(rows) >= 40
    for row in rows:
        assert _model_exists(row["model_file"]), row["model_file"]
        assert row["status"] in ("ok", "config_refused", "oracle_error")
        if row["status"] != "ok":
            assert row["error"]
            continue
        assert isinstance(row["max_model_len"], int) and row["max_model_len"] > 0
        over = row["over_by_one"]
        assert over["max_model_len"] == row["max_model_len"] + 1
        if row["max_len_key"] is None:      # no length key in the config: vLLM assumes 2048, accepts longer
            assert row["max_model_len"] == 2048 and over["status"] == "accepted"
            continue
        assert over["status"] == "config_refused" and "is greater than the derived max_model_len" in over["error"]
