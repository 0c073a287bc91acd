"""kvcalc's model of llama.cpp's compute buffer against the buffer llama.cpp itself reserved.

The reference is tests/fixtures/llama_cpp_oracle.json (llama.cpp commit in the fixture, CPU backend,
``llama_get_memory_breakdown``'s compute bytes after ``sched_reserve``), not kvcalc's output. That driver
loads with llama.cpp's default extra weight buffers (AMX / repack on this CPU), where the reserved graph
sometimes keeps one more ``n_embd x n_tokens`` f32 tensor alive than with the plain buffer a GPU build uses
(tests/reference/test_llama_cpp_fit.py checks the plain-buffer case to the byte). Known misses, kept in the
band below: phi3's fused QKV / gate-up projections (phi-4, up to 13 % under), a 65,536-cell unified
Mistral cache (22 % under: a Flash Attention stage kvcalc does not model).
"""
from __future__ import annotations

from typing import Any

import pytest
from paths import load_config, load_fixture

from kvcalc.architectures import read_spec
from kvcalc.llama_cpp.arches import gguf_view
from kvcalc.llama_cpp.cache import kv_groups, resolve_cells
from kvcalc.llama_cpp.compute import compute_stages
from kvcalc.llama_cpp.options import LlamaCppOptions

FIXTURE: dict[str, Any] = load_fixture("llama_cpp_oracle.json")


def _ratios(cases: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    out = []
    for c in cases:
        if not c["ok"] or c.get("kv_only"):       # MLA: the graph aborted, no buffer was reserved
            continue
        p = c["params"]
        o = LlamaCppOptions(n_ctx=p["n_ctx"], n_parallel=p["n_seq_max"], kv_unified=p["kv_unified"],
                            cache_type_k=p["type_k"], cache_type_v=p["type_v"], flash_attn=p["flash_attn"],
                            swa_full=p["swa_full"], n_ubatch=p["n_ubatch"], n_batch=p["n_batch"])
        config = load_config(c["model"])
        spec = gguf_view(config, read_spec(config))[0]
        cells = resolve_cells(o, spec.max_position_embeddings)
        est = compute_stages(spec, o, cells, kv_groups(spec, o, cells)).total
        out.append((f"{c['model']} {p}", est, c["compute_bytes"]))
    return out


@pytest.mark.parametrize("kept", ["main", "heldout"])
def test_compute_buffer_within_the_band_of_llama_cpp(kept: str) -> None:
    rows = _ratios(FIXTURE[kept])
    bad = [(name, est / got) for name, est, got in rows if not 0.75 <= est / got <= 1.10]
    assert not bad, bad
    near = sum(abs(est - got) <= 2**18 for _, est, got in rows)      # within 256 KiB
    assert 3 * near >= len(rows), (near, len(rows))                  # a third or more to 256 KiB


def test_large_vocabulary_flash_attention_is_the_logits_stage() -> None:
    """Llama-3.1-8B, -fa on, 4,096 cells, 512 tokens: logits 128,256 x 512 + the final norm's input and
    output 2 x 4,096 x 512 (f32) + 512 token ids = 279,447,552 bytes, the buffer llama.cpp reserved."""
    c = next(c for c in FIXTURE["main"] if c["model"] == "meta-llama__Llama-3.1-8B.json"
             and c["params"]["n_ctx"] == 4096 and c["params"]["flash_attn"] == "on")
    assert c["compute_bytes"] == 4 * 512 * (128256 + 2 * 4096) + 4 * 512 == 279447552
    (_, est, _), = _ratios([c])
    assert est == c["compute_bytes"]
