"""SGLang's server options kvcalc models, under SGLang's names (``python -m sglang.launch_server --...``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine import check_fraction
from ..engines.base import Option
from ..errors import InputError
from ..limits import MAX_CONTEXT, check_count
from .defaults import DEFAULT_PAGE_SIZE, SGLANG_VERSION, SGLANG_VERSIONS


@dataclass(frozen=True)
class SglangOptions:
    """``None`` = SGLang's default. ``mem_fraction_static`` (``--mem-fraction-static``): the share of
    the memory free before the weights load that weights + KV pool may use (default by GPU memory and
    TP, kvcalc.sglang.defaults); ``context_length`` (``--context-length``; default the model's);
    ``max_running_requests``; ``page_size`` (tokens per page, default 1); ``max_total_tokens``
    (``--max-total-tokens``, a cap on the pool); ``allow_long_context`` is
    ``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1``; ``swa_full_tokens_ratio`` (``--swa-full-tokens-ratio``,
    default 0.8) and ``disable_hybrid_swa_memory`` (``--disable-hybrid-swa-memory``) size the hybrid SWA
    pool (kvcalc.sglang.swa); ``sglang_version`` the release whose rules apply (kvcalc.sglang.defaults)."""

    mem_fraction_static: float | None = None
    context_length: int | None = None
    max_running_requests: int | None = None
    page_size: int | None = None
    max_total_tokens: int | None = None
    allow_long_context: bool = False
    swa_full_tokens_ratio: float | None = None
    disable_hybrid_swa_memory: bool = False
    sglang_version: str = SGLANG_VERSION

    @property
    def given(self) -> bool:
        return any(v not in (None, False) for v in (self.mem_fraction_static, self.context_length,
                                                    self.max_running_requests, self.page_size,
                                                    self.max_total_tokens, self.allow_long_context,
                                                    self.swa_full_tokens_ratio, self.disable_hybrid_swa_memory))


def sglang_options(mem_fraction_static: Any = None, context_length: Any = None, max_running_requests: Any = None,
                   page_size: Any = None, max_total_tokens: Any = None, allow_long_context: Any = False,
                   swa_full_tokens_ratio: Any = None, disable_hybrid_swa_memory: Any = False,
                   sglang_version: Any = SGLANG_VERSION) -> SglangOptions:
    """Validated :class:`SglangOptions` (InputError naming the flag and its bound)."""
    if mem_fraction_static is not None:
        mem_fraction_static = check_fraction("--mem-fraction-static", mem_fraction_static, allow_one=False,
                                             source="SGLang keeps the rest for activations and CUDA graphs")
    if page_size is not None:
        page_size = check_count("--page-size", page_size, 1, 1 << 16)
    if context_length is not None:
        context_length = check_count("--context-length", context_length, 1, MAX_CONTEXT)
    if max_running_requests is not None:
        max_running_requests = check_count("--max-running-requests", max_running_requests, 1, 1 << 20)
    if max_total_tokens is not None:
        max_total_tokens = check_count("--max-total-tokens", max_total_tokens, 1, 1 << 40)
    if not isinstance(allow_long_context, bool):
        raise InputError("allow_long_context must be true or false")
    if swa_full_tokens_ratio is not None:
        swa_full_tokens_ratio = check_fraction("--swa-full-tokens-ratio", swa_full_tokens_ratio,
                                               source="SWA-pool tokens per full-pool token")
    if not isinstance(disable_hybrid_swa_memory, bool):
        raise InputError("disable_hybrid_swa_memory must be true or false")
    if sglang_version not in SGLANG_VERSIONS:
        raise InputError(f"sglang_version must be one of {', '.join(SGLANG_VERSIONS)}, got {sglang_version!r:.20}")
    return SglangOptions(mem_fraction_static, context_length, max_running_requests, page_size, max_total_tokens,
                         allow_long_context, swa_full_tokens_ratio, disable_hybrid_swa_memory, sglang_version)


DECLARATIONS: tuple[Option, ...] = (
    Option("mem_fraction_static", ("--mem-fraction-static",), "float",
           "share of the memory free before the weights load for weights + KV pool "
           "(default: by GPU memory and TP, as SGLang's server_args; below 1)", "fraction", 0, 1, None, "sg_mem",
           open_high=True),
    Option("context_length", ("--context-length",), "int", "longest request (default: the model's)", "tokens", 1,
           MAX_CONTEXT, None, "sg_ctx"),
    Option("max_running_requests", ("--max-running-requests",), "int", "requests run at once", "requests", 1,
           1 << 20, None, "sg_mrr"),
    Option("page_size", ("--page-size",), "int", "tokens per KV page (default 1)", "tokens", 1, 1 << 16, None,
           "sg_page", usual=DEFAULT_PAGE_SIZE),
    Option("max_total_tokens", ("--max-total-tokens",), "int", "cap on the token pool", "tokens", 1, 1 << 40, None,
           None),
    Option("swa_full_tokens_ratio", ("--swa-full-tokens-ratio",), "float",
           "hybrid SWA models (gpt-oss): SWA-pool tokens per full-pool token (default 0.8)", "fraction", 0, 1, None,
           None),
    Option("disable_hybrid_swa_memory", ("--disable-hybrid-swa-memory",), "bool",
           "pool sliding-window layers at full length even for hybrid SWA models", "", None, None, False, None),
    Option("sglang_version", ("--sglang-version",), "text", "the SGLang release whose rules apply "
           f"({', '.join(SGLANG_VERSIONS)})", "", None, None, SGLANG_VERSION, None, command=False),
    Option("allow_overwrite_longer_context_len", ("--allow-overwrite-longer-context-len",), "bool",
           "accept a context length above the model's (SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1)", "", None,
           None, False, None),
)
"""SGLang's flags kvcalc models (python/sglang/srt/server_args.py ``ServerArgs``), declared once."""
