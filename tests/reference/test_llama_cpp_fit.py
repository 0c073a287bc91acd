"""kvcalc's llama.cpp fit against llama.cpp itself (tests/fixtures/llama_cpp_fit_oracle.json).

The fixture is llama.cpp's own output (tests/oracles/llama_cpp_fit_oracle.py, commit in the fixture): per case
(a model, a stated memory size, ``-np`` slots) llama.cpp's ``-fit`` (common/fit.cpp ``common_fit_params``,
told the memory) chose an ``n_ctx``, and llama.cpp created kvcalc's answer as a ``no_alloc`` context and
reported its bytes (``llama_get_memory_breakdown``: model + KV + compute). A CPU build's device is host
memory, so kvcalc's fit is asked with ``unified_memory=True`` and the GGUF's own tensor table.

Replayed: kvcalc still gives the answer llama.cpp measured; llama.cpp's bytes for it are within the stated
memory in every case; and kvcalc's context is at least ``-fit``'s. Where it is smaller the case is a strict
xfail naming why: kvcalc's compute-buffer estimate is larger than the buffer llama.cpp reserves, so kvcalc
keeps a few hundred cells more slack than ``-fit`` (which measures the buffer).
"""
from __future__ import annotations

from typing import Any

import pytest
from paths import load_config, load_fixture

from kvcalc.gguf.mixes import GgufWeights
from kvcalc.gguf.reader import GGUFHeader
from kvcalc.gguf.tensor import TensorInfo
from kvcalc.gguf.types import ggml_type
from kvcalc.llama_cpp.fit import fit_llama_cpp

FIXTURE: dict[str, Any] = load_fixture("llama_cpp_fit_oracle.json")
CASES: list[dict[str, Any]] = FIXTURE["cases"]


def _id(c: dict[str, Any]) -> str:
    return f"{c['model'].removesuffix('.json')}-{c['memory_bytes'] // 10**9}GB-np{c['n_parallel']}"


def _weights(model: str) -> GgufWeights:
    t = FIXTURE["gguf_tensors"][model]
    arch = t["architecture"]
    tensors = tuple(TensorInfo(name, tuple(dims), ggml_type(kind)) for name, dims, kind in t["tensors"])
    return GGUFHeader(version=3, metadata={"general.architecture": arch, f"{arch}.block_count": t["block_count"]},
                      tensors=tensors, alignment=32, data_offset=0).as_weights()


def _answer(c: dict[str, Any]) -> Any:
    return fit_llama_cpp(load_config(c["model"]), _weights(c["model"]), c["memory_bytes"],
                         margin_bytes=c["margin_bytes"], n_parallel=c["n_parallel"], unified_memory=True)


def test_fixture_names_llama_cpp_and_enough_cases() -> None:
    assert FIXTURE["engine"] == "llama.cpp" and FIXTURE["llama_cpp_commit"]
    assert FIXTURE["script"] == "tests/oracles/llama_cpp_fit_oracle.py"
    assert len(CASES) >= 20 and len({c["model"] for c in CASES}) >= 4
    assert all(c["llama_fit"]["status"] == 0 for c in CASES)      # -fit found allocations in every case


@pytest.mark.parametrize("c", CASES, ids=_id)
def test_kvcalc_answer_loads_within_the_stated_memory(c: dict[str, Any]) -> None:
    a = _answer(c)
    b = c["llama_breakdown"]
    assert (a.n_ctx, a.n_ctx_seq) == (c["kvcalc"]["n_ctx"], c["kvcalc"]["n_ctx_seq"])   # the answer llama.cpp loaded
    assert (b["n_ctx"], b["n_ctx_seq"]) == (a.n_ctx, a.n_ctx_seq)
    assert b["model"] + b["context"] + b["compute"] == b["total"] <= c["memory_bytes"]
    assert a.plan.kv_bytes == b["context"] and a.plan.gpu.weights + a.plan.host.weights == b["model"]


def _never_less(c: dict[str, Any]) -> Any:
    k, est, got = c["kvcalc"]["n_ctx"], c["kvcalc"]["compute_estimate"], c["llama_breakdown"]["compute"]
    if k < c["llama_fit"]["n_ctx"] and est > got:
        why = (f"kvcalc's compute-buffer estimate ({est / 2**20:.1f} MiB) exceeds the {got / 2**20:.1f} MiB llama.cpp "
               "reserves (CPU backend); -fit measures it, so kvcalc keeps that much more free")
        return pytest.param(c, id=_id(c), marks=pytest.mark.xfail(strict=True, reason=why))
    return pytest.param(c, id=_id(c))


@pytest.mark.parametrize("c", [_never_less(c) for c in CASES])
def test_kvcalc_context_is_at_least_llama_cpp_fit(c: dict[str, Any]) -> None:
    assert _answer(c).n_ctx >= c["llama_fit"]["n_ctx"]
