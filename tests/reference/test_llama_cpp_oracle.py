"""kvcalc's llama.cpp engine against llama.cpp itself (tests/fixtures/llama_cpp_oracle.json).

The fixture is llama.cpp's own output (commit in the fixture; tests/oracles/llama_cpp_oracle.py built the
library from the llama-cpp-python sdist, converted each bundled config with llama.cpp's converter, loaded it
with ``no_alloc`` and created one context per case). Per case kvcalc must print the same
``llama_kv_cache: size = ...`` lines, byte for byte, allocate the same number of KV bytes
(``llama_get_memory_breakdown``'s context bytes, exact), resolve the same ``n_ctx`` / ``n_ctx_seq``, and refuse
what llama.cpp refuses. The ``heldout`` set (another grid, drawn with a seed) is replayed the same way. The
compute buffer llama.cpp reserved (CPU backend) is checked in tests/reference/test_llama_cpp_compute.py.
"""
from __future__ import annotations

from typing import Any

import pytest
from paths import load_config, load_fixture

import kvcalc
from kvcalc.errors import InputError
from kvcalc.llama_cpp.options import LlamaCppOptions
from kvcalc.llama_cpp.plan import LlamaCppPlan, plan_from_config

FIXTURE: dict[str, Any] = load_fixture("llama_cpp_oracle.json")
MAIN, HELDOUT = FIXTURE["main"], FIXTURE["heldout"]


def _id(c: dict[str, Any]) -> str:
    p = c["params"]
    return (f"{c['model'].removesuffix('.json')}-c{p['n_ctx']}-np{p['n_seq_max']}{'-kvu' if p['kv_unified'] else ''}"
            f"-{p['type_k']}-{p['type_v']}-fa{p['flash_attn']}{'-swafull' if p['swa_full'] else ''}-ub{p['n_ubatch']}")


def _options(p: dict[str, Any]) -> LlamaCppOptions:
    return LlamaCppOptions(n_ctx=p["n_ctx"], n_parallel=p["n_seq_max"], kv_unified=p["kv_unified"],
                           cache_type_k=p["type_k"], cache_type_v=p["type_v"], flash_attn=p["flash_attn"],
                           swa_full=p["swa_full"], n_ubatch=p["n_ubatch"], n_batch=p["n_batch"])


def _plan(c: dict[str, Any]) -> LlamaCppPlan:
    return plan_from_config(load_config(c["model"]), _options(c["params"]), "F16")


def _check(c: dict[str, Any]) -> None:
    if not c["ok"]:
        with pytest.raises(InputError):
            _plan(c)
        return
    p = _plan(c)
    if c.get("kv_only"):            # MLA: the cache line printed, then the graph aborted (no breakdown)
        assert [g.log_line() for g in p.caches] == [x["line"] for x in c["caches"]]
        assert all(abs(g.bytes - x["size_mib"] * 2**20) <= 0.0051 * 2**20 for g, x in zip(p.caches, c["caches"]))
        return
    assert (p.cells.n_ctx, p.cells.n_ctx_seq, p.cells.n_seq_max) == (c["n_ctx"], c["n_ctx_seq"], c["n_seq_max"])
    assert [g.log_line() for g in p.caches] == [x["line"] for x in c["caches"]]
    assert p.kv_bytes == c["kv_bytes"]
    iswa = [x for x in c["lines"] if x.startswith("llama_kv_cache_iswa: creating")]
    assert [x for x in p.log_lines(0) if x.startswith("llama_kv_cache_iswa")] == iswa


def test_fixture_names_llama_cpp_and_its_size() -> None:
    assert FIXTURE["engine"] == "llama.cpp" and FIXTURE["llama_cpp_commit"]
    assert FIXTURE["script"] == "tests/oracles/llama_cpp_oracle.py"
    assert len(MAIN) >= 60 and len(HELDOUT) >= 15
    assert len({c["arch"] for c in MAIN}) >= 6
    assert any(len(c["caches"]) == 2 for c in MAIN), "a sliding-window (iSWA) model is among the cases"


@pytest.mark.parametrize("case", MAIN, ids=[_id(c) for c in MAIN])
def test_kv_cache_equals_llama_cpp(case: dict[str, Any]) -> None:
    _check(case)


@pytest.mark.parametrize("case", HELDOUT, ids=[_id(c) for c in HELDOUT])
def test_heldout_kv_cache_equals_llama_cpp(case: dict[str, Any]) -> None:
    _check(case)


FIRST = list({c["model"]: c for c in reversed([c for c in MAIN if c["ok"]])}.values())


@pytest.mark.parametrize("case", FIRST, ids=[_id(c) for c in FIRST])
def test_deploy_prints_llama_cpp_lines(case: dict[str, Any]) -> None:
    """The public path (kvcalc.deploy with runtime llama_cpp, the engine's model_spec) prints the same lines."""
    d = kvcalc.deploy(load_config(case["model"]), gpu="h200", runtime="llama_cpp", gguf="F16",
                      llama_cpp=_options(case["params"]))
    lines = [x for x in kvcalc.plan(d, batch=1, solve_gpus=False).engine_lines if x.startswith("llama_kv_cache: size")]
    assert lines == [x["line"] for x in case["caches"]]


@pytest.mark.parametrize("case", [c for c in MAIN if c["arch"] == "phi3" and c["ok"]][:3], ids=_id)
def test_phi3_window_is_switched_off_like_llama_cpp(case: dict[str, Any]) -> None:
    """src/models/phi3.cpp (this commit) reads a Phi-3 sliding window and sets ``n_swa = 0`` ("Phi SWA is
    currently disabled"), so a Phi-3-mini-style window of 2047 gets llama.cpp's phi-4 lines (no window)."""
    config = {**load_config(case["model"]), "sliding_window": 2047}
    p = plan_from_config(config, _options(case["params"]), "F16")
    assert [g.log_line() for g in p.caches] == [x["line"] for x in case["caches"]]
    assert p.kv_bytes == case["kv_bytes"]


def test_refusal_is_among_the_cases() -> None:
    refused = [c for c in MAIN if not c["ok"]]
    assert refused and all((c["params"]["type_v"] == "q8_0" and c["params"]["flash_attn"] == "off")
                           or (c["arch"] == "deepseek2" and c["params"]["type_k"] != c["params"]["type_v"])
                           for c in refused)


MLA = [c for c in MAIN + HELDOUT if c["arch"] == "deepseek2" and c["ok"]]


def test_mla_caches_the_latent_only() -> None:
    """DeepSeek-V2-Lite under llama.cpp: K rows of kv_lora_rank 512 + rope 64 = 576 values, no V (``has_v =
    !is_mla``): 4,096 cells x 27 layers x 576 x 2 bytes (f16) = 127,401,984 bytes = 121.50 MiB, V 0.00 MiB."""
    c = next(c for c in MLA if c["model"] == "deepseek-ai__DeepSeek-V2-Lite.json" and c["params"]["n_ctx"] == 4096)
    line = c["caches"][0]
    assert (line["cells"], line["layers"], line["k_mib"], line["v_mib"]) == (4096, 27, 4096 * 27 * 576 * 2 / 2**20, 0)
    assert _plan(c).kv_bytes == 4096 * 27 * 576 * 2
