"""llama.cpp's cache rules checked against llama.cpp's own source (issue 23), each figure by hand arithmetic.

``q8_0`` is 34 bytes per 32 values (ggml-common.h ``block_q8_0``: a 2-byte scale + 32 int8), f16 2 bytes;
MiB = 2**20 bytes, as llama.cpp's ``llama_kv_cache`` log line prints it.
"""
from __future__ import annotations

from kvcalc import read_spec
from kvcalc.llama_cpp import LlamaCppOptions
from kvcalc.llama_cpp.cache import kv_groups, resolve_cells
from tests.paths import load_config

MiB = 2**20


def test_swa_cache_is_quantized_like_the_base_cache() -> None:
    """src/llama-kv-cache-iswa.cpp ``llama_kv_cache_iswa::llama_kv_cache_iswa`` builds ``kv_swa`` with the same
    ``type_k`` / ``type_v`` as ``kv_base`` (PR #21277's F16 SWA cache was reverted by #21332). Gemma 3 27B:
    52 sliding layers x 16 KV heads x 128 = 2,048 values of K and of V per cell; under llama-cli at -c 32768
    the SWA cache has PAD(1024 + 512, 256) = 1,536 cells; q8_0: 2,048 / 32 x 34 = 2,176 B a row, so
    52 x 1,536 x 2 x 2,176 B = 347,602,944 B = 331.50 MiB (F16 would be 624.00 MiB)."""
    spec = read_spec(load_config("google__gemma-3-27b-it.json"))
    opts = LlamaCppOptions(n_ctx=32768, program="llama-cli", cache_type_k="q8_0", cache_type_v="q8_0",
                           flash_attn="on")
    _, swa = kv_groups(spec, opts, resolve_cells(opts, spec.max_position_embeddings))
    assert (swa.cells, len(swa.layers)) == (1536, 52)
    assert swa.bytes == 52 * 1536 * 2 * (2048 // 32 * 34) == 347_602_944
    assert f"{swa.bytes / MiB:.2f}" == "331.50"
    assert "K (q8_0):  165.75 MiB, V (q8_0):  165.75 MiB" in swa.log_line()
