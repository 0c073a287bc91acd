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


def test_mistral_converts_to_llama_which_reads_no_sliding_window() -> None:
    """conversion/llama.py ``LlamaModel`` is registered for ``MistralForCausalLM`` with ``MODEL_ARCH.LLAMA`` and writes
    no sliding window; src/llama-model.cpp ``load_hparams`` reads none for ``LLM_ARCH_LLAMA``. Mistral-7B-v0.1 at
    -c 16384 under llama-server (4 unified slots): one cache of 16,384 cells x 32 layers x 8 KV heads x 128 x
    (K, V) x 2 B = 2,147,483,648 B = 2,048 MiB (the config's 4,096-token window would give a 576 MiB SWA cache)."""
    import kvcalc
    from kvcalc.llama_cpp.engine import llama_plan

    d = kvcalc.deploy(load_config("mistralai__Mistral-7B-v0.1.json"), gpu="h100-sxm", runtime="llama_cpp",
                      gguf="F16", n_ctx=16384)
    caches = llama_plan(d).caches
    assert [(c.name, c.cells, len(c.layers)) for c in caches] == [("kv", 16384, 32)]
    assert caches[0].bytes == 16384 * 32 * 8 * 128 * 2 * 2 == 2048 * MiB
    assert "llama_kv_cache: size = 2048.00 MiB ( 16384 cells,  32 layers,  4/1 seqs)" in caches[0].log_line()


def test_architectures_that_read_a_sliding_window_keep_it() -> None:
    """conversion/gemma.py ``Gemma3Model`` writes ``add_sliding_window``: Gemma 3 27B keeps its 52 SWA layers."""
    from kvcalc.llama_cpp.arches import converted_arch, gguf_view

    config = load_config("google__gemma-3-27b-it.json")
    spec = read_spec(config)
    assert converted_arch(config).name == "gemma3"
    assert gguf_view(config, spec) == (spec, None)


def test_explicit_np_1_stays_one_slot() -> None:
    """common/arg.cpp sets llama-server's ``n_parallel = -1`` (auto); tools/server/server.cpp ``main`` turns only
    ``n_parallel < 0`` into 4 unified slots. Gemma 3 27B at -c 32768, f16: an explicit -np 1 is one sequence
    and an SWA cache of PAD(1024 x 1 + 512, 256) = 1,536 cells, 52 x 1,536 x 2 x 2,048 x 2 B = 624.00 MiB; the
    default (auto) is 4 unified slots, PAD(1024 x 4 + 512, 256) = 4,608 cells = 1,872.00 MiB."""
    from kvcalc.llama_cpp.command import parse_llama_command

    spec = read_spec(load_config("google__gemma-3-27b-it.json"))
    one = parse_llama_command("llama-server -m g.gguf -c 32768 -np 1").options
    auto = parse_llama_command("llama-server -m g.gguf -c 32768").options
    assert (one.n_parallel, auto.n_parallel) == (1, -1)
    _, swa_one = kv_groups(spec, one, resolve_cells(one, spec.max_position_embeddings))
    _, swa_auto = kv_groups(spec, auto, resolve_cells(auto, spec.max_position_embeddings))
    assert (swa_one.cells, swa_one.n_seq_max, swa_one.n_stream) == (1536, 1, 1)
    assert swa_one.bytes == 52 * 1536 * 2 * 2048 * 2 == 624 * MiB
    assert (swa_auto.cells, swa_auto.n_seq_max, swa_auto.n_stream) == (4608, 4, 1)
    assert swa_auto.bytes == 1872 * MiB
