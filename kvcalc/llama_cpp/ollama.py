"""Ollama's defaults, read as the llama.cpp run they describe (what is modelled and what is not).

Ollama runs GGUF models on ggml (its llama.cpp-derived runner), so kvcalc plans an Ollama model as the llama.cpp run
its settings name. Sources (ollama/ollama docs, read, not copied):

``docs/context-length.mdx`` (commit 948f69330acf96a2310f1b53fdfc211731a386d8)
    the default context by VRAM: under 24 GiB 4k, 24-48 GiB 32k, 48 GiB or more 256k; ``OLLAMA_CONTEXT_LENGTH``
    or ``num_ctx`` override it (``docs/faq.mdx`` at 3b857a50568845524da0ff2b2be63f3138bffba5 still says 4096).
``docs/faq.mdx`` (commit 3b857a50568845524da0ff2b2be63f3138bffba5)
    ``OLLAMA_NUM_PARALLEL``: 4 or 1 picked from the free memory; "a 2K context with 4 parallel requests will
    result in an 8K context" (``-c = num_ctx x parallel``, one stream per request); ``OLLAMA_KV_CACHE_TYPE``
    f16 by default (q8_0 / q4_0 need ``OLLAMA_FLASH_ATTENTION=1``).

Modelled: that context, the slots and the cache type, as llama.cpp allocates them. Not modelled: Ollama's own
memory estimate and layer split (it chooses ``-ngl`` itself), its Go engine's cache layout for the models it runs
without llama.cpp, the automatic choice between 4 and 1 parallel requests, and which file a tag pulls (the
quantization is the GGUF file's: give the file type, e.g. Q4_K_M, or the file's header).
"""
from __future__ import annotations

from .options import LlamaCppOptions

GiB = 2**30
OLLAMA_DEFAULT_PARALLEL = 1
"""``OLLAMA_NUM_PARALLEL`` when memory is short (the documented default picks 4 or 1)."""


def ollama_default_context(vram_bytes: int) -> int:
    """Ollama's default ``num_ctx`` for a GPU of ``vram_bytes`` (tokens; docs/context-length.mdx).

    >>> [ollama_default_context(g * 2**30) for g in (16, 24, 80)]
    [4096, 32768, 262144]
    """
    if vram_bytes < 24 * GiB:
        return 4096
    return 32768 if vram_bytes < 48 * GiB else 262144


def ollama_options(vram_bytes: int, *, num_ctx: int | None = None, num_parallel: int = OLLAMA_DEFAULT_PARALLEL,
                   kv_cache_type: str = "f16", flash_attention: bool = False) -> LlamaCppOptions:
    """The llama.cpp run an Ollama model is loaded as: ``-c num_ctx x num_parallel``, ``-np num_parallel``
    (one stream each), ``-ctk`` / ``-ctv`` ``OLLAMA_KV_CACHE_TYPE``, ``-fa`` from ``OLLAMA_FLASH_ATTENTION``.

    >>> o = ollama_options(16 * 2**30, num_parallel=4)
    >>> (o.n_ctx, o.n_parallel, o.kv_unified, o.cache_type_k)
    (16384, 4, False, 'f16')
    """
    ctx = num_ctx if num_ctx is not None else ollama_default_context(vram_bytes)
    return LlamaCppOptions(n_ctx=ctx * num_parallel, n_parallel=num_parallel, kv_unified=False,
                           cache_type_k=kv_cache_type, cache_type_v=kv_cache_type,
                           flash_attn="on" if flash_attention else "off")
