"""Ollama's documented defaults as the llama.cpp run kvcalc plans (ollama/ollama docs/context-length.mdx at
948f6933, docs/faq.mdx at 3b857a50; kvcalc.llama_cpp.ollama)."""
from __future__ import annotations

from paths import load_config

from kvcalc.llama_cpp.ollama import ollama_default_context, ollama_options
from kvcalc.llama_cpp.plan import plan_from_config

GiB = 2**30


def test_default_context_follows_the_vram_tiers() -> None:
    # "< 24 GiB VRAM: 4k context - 24-48 GiB VRAM: 32k context - >= 48 GiB VRAM: 256k context"
    assert [ollama_default_context(g * GiB) for g in (8, 23, 24, 47, 48, 141)] == [4096, 4096, 32768, 32768,
                                                                                   262144, 262144]


def test_parallel_requests_multiply_the_context() -> None:
    # faq.mdx: "a 2K context with 4 parallel requests will result in an 8K context"
    o = ollama_options(16 * GiB, num_ctx=2048, num_parallel=4)
    assert (o.n_ctx, o.n_parallel, o.kv_unified) == (8192, 4, False)


def test_llama_3_1_8b_on_a_16_gib_card_with_four_requests() -> None:
    # 4 x 4,096 cells x 32 layers x (K + V) 8 heads x 128 x 2 bytes = 2 GiB, four streams of 4,096 cells
    p = plan_from_config(load_config("meta-llama/Llama-3.1-8B"), ollama_options(16 * GiB, num_parallel=4), "Q4_K_M")
    assert p.kv_bytes == 4 * 4096 * 32 * 2 * 8 * 128 * 2 == 2 * GiB
    assert (p.cells.n_ctx_seq, p.cells.n_stream) == (4096, 4)
