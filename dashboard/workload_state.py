"""The workload page's URL parameters (shared prefix, request lengths, offload tier, co-located models).

Rows of :data:`dashboard.state.PARAMS`, built from :class:`dashboard.url_params.Param`; see
dashboard.state for how the link is checked and carried between pages. The co-located instances
travel in one compact value, ``wl_colo`` (:func:`encode_instances` / :func:`decode_instances`):
``ENGINE:MODEL=SHARE@MAX_LEN`` entries joined by ``,`` (the ``kvcalc colocate`` argument with the
engine in front), at most :data:`MAX_INSTANCES` of them, each checked strictly (:func:`instances_error`).
Units: tokens, GiB (2**30 bytes), memory shares in (0, 1].
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kvcalc.limits import MAX_CONTEXT

from .url_params import WORKLOAD, Param, _bool, _choice, _float, _int

MAX_INSTANCES = 8
"""Most co-located instances the page (and its link) takes."""
MAX_TOKENS_UI = 1 << 24          # 16,777,216 tokens: the pages' longest context (dashboard.state.MAX_CONTEXT_UI)
CONNECTORS = ["default", "native", "lmcache", "hicache"]
"""The offload connector choices: ``default`` = the engine's first (kvcalc.workload.offload.CONNECTORS)."""
LINK_KEYS = ["pcie5", "pcie4", "nvme5", "nvme4"]
"""Host links (kvcalc.workload.offload.LINKS keys), the default first."""
DEFAULTS: dict[str, Any] = {
    "wl_kvmem": 0.0, "wl_pc": True, "wl_prefix": 2048, "wl_hit": 1.0, "wl_in": 1500, "wl_in95": 3000,
    "wl_out": 300, "wl_out95": 600, "wl_off": 100.0, "wl_conn": "default", "wl_link": "pcie5"}
"""Each workload widget's default (a fresh page; what a bad link value falls back to)."""

_ENTRY = re.compile(r"(?P<engine>[a-z][a-z0-9_]{0,31}):(?P<model>[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9._-]{1,96})"
                    r"=(?P<share>\d{1,2}(?:\.\d{1,4})?|\.\d{1,4})@(?P<len>\d{1,8})")


@dataclass(frozen=True)
class InstanceRow:
    """One co-located instance as the page's table holds it: bundled model id, engine (runtime name),
    memory share (``gpu_memory_utilization``, in (0, 1]) and ``max_model_len`` (tokens)."""

    model: str
    engine: str
    share: float
    max_len: int


DEFAULT_INSTANCES = (InstanceRow("meta-llama/Llama-3.1-8B", "vllm", 0.75, 8192),
                     InstanceRow("Qwen/Qwen3-0.6B", "vllm", 0.2, 8192))
"""A fresh page's table: the kvcalc.workload.colocate doctest's two models at shares that start and hold their
8,192 tokens together on a 24 GB RTX 3090 / 4090, an RTX 5090, an L40S, an A100 80GB and an H100 (the doctest's
0.5 / 0.4 leave the 8B model's 15 GiB of weights no KV on a 24 GB card); not on a 16 GB card, an L4 or an A10."""


def _share_text(share: float) -> str:
    return f"{share:.4f}".rstrip("0").rstrip(".")


def encode_instances(rows: tuple[InstanceRow, ...] | list[InstanceRow]) -> str:
    """The link value of a table (shares written with at most 4 decimals).

    >>> encode_instances(DEFAULT_INSTANCES)
    'vllm:meta-llama/Llama-3.1-8B=0.75@8192,vllm:Qwen/Qwen3-0.6B=0.2@8192'
    """
    return ",".join(f"{r.engine}:{r.model}={_share_text(r.share)}@{r.max_len}" for r in rows)


def _models() -> set[str]:
    from kvcalc.catalog import catalog

    return {e.hub_id for e in catalog()}


def _engines() -> set[str]:
    from kvcalc.runtimes import RUNTIMES

    return set(RUNTIMES)


def instances_error(text: str) -> str | None:
    """Why ``text`` is not a valid ``wl_colo`` value, or None: 1 to :data:`MAX_INSTANCES` entries, each
    ``ENGINE:MODEL=SHARE@MAX_LEN`` with a known runtime, a bundled model, a share in (0, 1] and a length
    in 1..16,777,216 tokens.

    >>> instances_error("vllm:Qwen/Qwen3-0.6B=0.4@8192") is None
    True
    >>> instances_error("vllm:Qwen/Qwen3-0.6B=1.5@8192")
    'entry 1: the memory share must be above 0 and at most 1'
    """
    entries = text.split(",")
    if len(entries) > MAX_INSTANCES:
        return f"has {len(entries)} instances, more than {MAX_INSTANCES}"
    for i, entry in enumerate(entries, 1):
        m = _ENTRY.fullmatch(entry)
        if m is None:
            return f"entry {i} is not ENGINE:MODEL=SHARE@MAX_LEN"
        if m["engine"] not in _engines():
            return f"entry {i}: unknown engine"
        if m["model"] not in _models():
            return f"entry {i}: not a bundled model"
        if not 0 < float(m["share"]) <= 1:
            return f"entry {i}: the memory share must be above 0 and at most 1"
        if not 1 <= int(m["len"]) <= min(MAX_TOKENS_UI, MAX_CONTEXT):
            return f"entry {i}: max_model_len must be 1 to {min(MAX_TOKENS_UI, MAX_CONTEXT):,} tokens"
    return None


def decode_instances(text: str | None) -> tuple[InstanceRow, ...] | None:
    """The table a link value holds, or None when it is missing or fails :func:`instances_error`.

    >>> decode_instances("vllm:Qwen/Qwen3-0.6B=0.4@8192")
    (InstanceRow(model='Qwen/Qwen3-0.6B', engine='vllm', share=0.4, max_len=8192),)
    """
    if not text or len(text) > COLO_MAX_CHARS or instances_error(text) is not None:
        return None
    rows = []
    for entry in text.split(","):
        m = _ENTRY.fullmatch(entry)
        assert m is not None                     # instances_error checked every entry
        rows.append(InstanceRow(m["model"], m["engine"], float(m["share"]), int(m["len"])))
    return tuple(rows)


COLO_MAX_CHARS = MAX_INSTANCES * 260
"""Longest ``wl_colo`` value: 8 entries of at most 32 + 193 + 8 + 8 characters and their separators."""
_PAGE = frozenset({WORKLOAD})

WORKLOAD_PARAMS: tuple[Param, ...] = (
    Param("wl_kvmem", _float(0, 4096), _PAGE),           # vLLM --kv-cache-memory-bytes, in GiB (0 = not set)
    Param("wl_pc", _bool, _PAGE),                        # prefix caching on / off
    Param("wl_prefix", _int(0, MAX_TOKENS_UI), _PAGE),   # shared-prefix tokens
    Param("wl_hit", _float(0, 1), _PAGE),                # share of requests that carry the prefix
    Param("wl_in", _int(1, MAX_TOKENS_UI), _PAGE), Param("wl_in95", _int(1, MAX_TOKENS_UI), _PAGE),
    Param("wl_out", _int(1, MAX_TOKENS_UI), _PAGE), Param("wl_out95", _int(1, MAX_TOKENS_UI), _PAGE),
    Param("wl_off", _float(0, 1 << 20), _PAGE),          # offload tier, GiB (0 = none)
    Param("wl_conn", _choice(lambda: CONNECTORS), _PAGE),
    Param("wl_link", _choice(lambda: LINK_KEYS), _PAGE),
    Param("wl_colo", instances_error, _PAGE, max_chars=COLO_MAX_CHARS, url_only=True),
)
