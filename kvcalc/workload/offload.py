"""A KV offload tier: tokens a CPU (or NVMe) tier holds off the GPU per engine connector, and the reload cost.

Connectors (sources read, not copied):

* ``vllm`` native, vLLM 0.33.0 (``--kv-offloading-size GiB``, ``--kv-offloading-backend native``):
  ``config/vllm.py`` ``VllmConfig._post_init_kv_transfer_config`` sets ``OffloadingConnector`` with
  ``cpu_bytes_to_use = kv_offloading_size x 2**30`` (``config/cache.py``: the total over tensor-parallel
  ranks); ``distributed/kv_transfer/kv_connector/v1/offloading/config.py`` ``build_offloading_config``:
  ``worker_kv_bytes_per_block = total GPU KV bytes // num_blocks``, ``blocks_per_chunk`` 1 by default;
  ``v1/kv_offload/cpu/spec.py`` ``CPUOffloadingSpec.__init__``: ``num_chunks = cpu_bytes_to_use //
  round_up(worker_kv_bytes_per_block x world_size x blocks_per_chunk, mmap.PAGESIZE)``. Tokens held:
  ``num_chunks x blocks_per_chunk x block_size``. One KV-cache group only (several: UnsupportedError).
* ``lmcache`` (``--kv-offloading-backend lmcache``): vLLM 0.33 starts ``LMCacheMPConnector`` and does not
  pass the size on (``_post_init_kv_transfer_config``); the LMCache server's own size setting decides.
  Modelled as ``floor(bytes / (256 x bytes per token)) x 256`` tokens (LMCache's default 256-token
  chunks, all ranks' KV per token): ``estimated``.
* ``sglang`` hierarchical cache, SGLang 0.5.23 (``--enable-hierarchical-cache --hicache-size GB``):
  ``srt/mem_cache/pool_host/base.py`` ``HostKVCache.__init__``: ``size = int(host_size x 1e9 //
  size_per_token)``, ``page_num = size // page_size + 1``, ``size = page_num x page_size``;
  ``size_per_token`` the host pool's per-token bytes of this rank (``memory_pool_host.py``: all layers'
  K and V, ``get_size_per_token``). The size is per rank, in GB (10**9 bytes); the host tier holds
  copies of what the device tier evicts or writes through. ``srt/arg_groups/fields/memory.py``:
  ``hicache_size`` is an int (GB), so the GiB asked for is rounded down to whole GB.

Reload cost: ``bytes / link bandwidth`` over the host link (:data:`LINKS`, per direction, per GPU).
Units: bytes (GiB = 2**30, GB = 10**9), tokens, seconds.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..dtypes import ceil_div
from ..errors import InputError, UnsupportedError

PAGESIZE = 4096
"""``mmap.PAGESIZE`` on x86-64 Linux: vLLM's ``SharedOffloadRegion.BLOCK_SIZE_ALIGNMENT`` (bytes)."""
LMCACHE_CHUNK = 256
"""LMCache's default ``chunk_size`` (tokens)."""


@dataclass(frozen=True)
class HostLink:
    """One host link: ``gbps`` GB/s (10**9 B/s) per direction, and where the figure comes from."""

    key: str
    name: str
    gbps: float
    source: str


def _pcie(gts: float, lanes: int) -> float:
    """PCIe payload rate: ``GT/s x lanes x 128 / 130 / 8`` (128b/130b encoding from gen 3), GB/s."""
    return gts * lanes * 128 / 130 / 8


LINKS: dict[str, HostLink] = {
    "pcie4": HostLink("pcie4", "PCIe 4.0 x16", _pcie(16, 16),
                      "PCI-SIG PCI Express Base Specification 4.0: 16 GT/s a lane, 128b/130b encoding"),
    "pcie5": HostLink("pcie5", "PCIe 5.0 x16", _pcie(32, 16),
                      "PCI-SIG PCI Express Base Specification 5.0: 32 GT/s a lane, 128b/130b encoding"),
    "nvme4": HostLink("nvme4", "NVMe on PCIe 4.0 x4", _pcie(16, 4), "PCIe 4.0 x4 link (the drive may be slower)"),
    "nvme5": HostLink("nvme5", "NVMe on PCIe 5.0 x4", _pcie(32, 4), "PCIe 5.0 x4 link (the drive may be slower)"),
}
"""Host links by key: PCIe x16 links run 31.5 GB/s (gen 4) and 63.0 GB/s (gen 5) each way, before protocol
overhead (measured host-to-device copies reach about 80-90 % of it)."""


@dataclass(frozen=True)
class OffloadTier:
    """Tokens an offload tier holds and what reloading them costs (module docstring; bytes, tokens, seconds).

    ``bytes_per_token``: KV bytes one token takes in the tier (all ranks for vLLM / LMCache, one rank for
    SGLang); ``tokens``: tokens the tier holds; ``gpu_pool_tokens``: the GPU pool's, for comparison;
    ``request_tokens`` / ``requests_held``: the request length and how many such requests' KV the tier holds;
    ``reload_seconds``: one such request's KV over ``link`` (per GPU: its share of the bytes)."""

    engine: str
    connector: str
    offload_bytes: int
    bytes_per_token: int
    tokens: int
    gpu_pool_tokens: int
    request_tokens: int
    requests_held: int
    link: HostLink
    reload_seconds: float
    quality: str
    formula: str
    flags: tuple[str, ...]
    sources: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


VLLM_OFFLOAD_SOURCES = (
    "vllm 0.33.0 config/vllm.py _post_init_kv_transfer_config",
    "vllm 0.33.0 distributed/kv_transfer/kv_connector/v1/offloading/config.py build_offloading_config",
    "vllm 0.33.0 v1/kv_offload/cpu/spec.py CPUOffloadingSpec.__init__")


def _vllm(d: Any, offload: int) -> tuple[str, int, int, int, str, str, tuple[str, ...], tuple[str, ...]]:
    vp = d.vllm_plan()
    if len(vp.groups) != 1:
        raise UnsupportedError("vLLM's offloading connector with several KV-cache groups is not modelled")
    if d.pp != 1:
        raise UnsupportedError("vLLM's offloading connector over pipeline stages is not modelled")
    world = d.tp * d.pp
    chunk = ceil_div(vp.block_bytes * world, PAGESIZE) * PAGESIZE
    chunks = offload // chunk
    tokens = chunks * vp.block_size
    formula = (f"{offload:,} B // round_up({vp.block_bytes:,} B x {world} ranks, {PAGESIZE}) = {chunks:,} blocks x "
               f"{vp.block_size} tokens = {tokens:,} tokens")
    flag = f"--kv-offloading-size {offload / 2**30:g} --kv-offloading-backend native"
    return ("offloading", chunk // vp.block_size, tokens, vp.num_gpu_blocks * vp.block_size, "exact", formula,
            (flag,), VLLM_OFFLOAD_SOURCES)


def _lmcache(d: Any, offload: int) -> tuple[str, int, int, int, str, str, tuple[str, ...], tuple[str, ...]]:
    vp = d.vllm_plan()
    per_token = vp.block_bytes_all_stages * d.tp // vp.block_size
    tokens = offload // (LMCACHE_CHUNK * per_token) * LMCACHE_CHUNK
    formula = f"{offload:,} B // ({LMCACHE_CHUNK} x {per_token:,} B) x {LMCACHE_CHUNK} = {tokens:,} tokens"
    return ("lmcache", per_token, tokens, vp.num_gpu_blocks * vp.block_size, "estimated", formula,
            ("--kv-offloading-backend lmcache (size: the LMCache server's own setting)",),
            ("vllm 0.33.0 config/vllm.py _post_init_kv_transfer_config (LMCacheMPConnector, size not passed)",))


def _sglang(d: Any, offload: int) -> tuple[str, int, int, int, str, str, tuple[str, ...], tuple[str, ...]]:
    ep = d.engine_plan()
    if ep.swa_cell_bytes:
        raise UnsupportedError("SGLang's hierarchical cache for a sliding-window pool is not modelled")
    gb = offload // 10**9                 # --hicache-size is a whole number of GB
    if gb < 1:
        raise InputError("SGLang's --hicache-size is whole GB (10**9 bytes): give at least 1 GB (0.94 GiB)")
    size = gb * 10**9 // ep.cell_bytes
    tokens = (size // ep.page_size + 1) * ep.page_size
    formula = (f"({gb} GB x 1e9 // {ep.cell_bytes:,} B = {size:,}) // {ep.page_size} + 1 pages x {ep.page_size} = "
               f"{tokens:,} tokens")
    return ("hierarchical cache", ep.cell_bytes, tokens, ep.pool_tokens, "exact", formula,
            (f"--enable-hierarchical-cache --hicache-size {gb}",),
            ("sglang 0.5.23 srt/mem_cache/pool_host/base.py HostKVCache.__init__",
             "sglang 0.5.23 srt/mem_cache/memory_pool_host.py get_size_per_token"))


CONNECTORS = {"vllm": {"native": _vllm, "lmcache": _lmcache}, "sglang": {"hicache": _sglang}}
"""Connectors by runtime, the first of each the default."""


def offload_tier(d: Any, offload_gib: float, *, connector: str | None = None, link: str = "pcie5",
                 request_tokens: int | None = None) -> OffloadTier:
    """Tokens ``offload_gib`` GiB of CPU KV offload holds on deployment ``d``, and the reload cost.

    ``connector``: ``native`` / ``lmcache`` (vLLM), ``hicache`` (SGLang); ``link``: a :data:`LINKS` key;
    ``request_tokens``: the request whose reload is costed (default: vLLM's ``max_model_len`` / SGLang's
    context length). ``offload_gib`` is all ranks' total for vLLM, one rank's for SGLang (their flags).

    Llama 3.1 8B under vLLM, one GPU: a 16-token block is 2 MiB (a multiple of 4,096), so 100 GiB hold
    100 x 2**30 / 2**21 = 51,200 blocks = 819,200 tokens; an 8,192-token request is 512 x 2 MiB = 1 GiB,
    reloaded over PCIe 5.0 x16 (63.0 GB/s) in 2**30 / 63.02e9 = 17.0 ms:

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=20 * 2**30)
    >>> t = offload_tier(d, 100)
    >>> t.tokens, t.bytes_per_token, t.requests_held, round(t.reload_seconds * 1000, 1)
    (819200, 131072, 100, 17.0)
    """
    table = CONNECTORS.get(d.runtime)
    if table is None:
        raise UnsupportedError(f"KV offload is modelled for {', '.join(sorted(CONNECTORS))}, not {d.runtime!r}")
    rule = table.get(connector or next(iter(table)))
    if rule is None:
        raise InputError(f"{d.engine.label}'s offload connectors are {', '.join(table)}, not {connector!r}")
    if link not in LINKS:
        raise InputError(f"link must be one of {', '.join(LINKS)}, not {link!r:.20}")
    if isinstance(offload_gib, bool) or not isinstance(offload_gib, (int, float)) or not 0 < offload_gib <= 1 << 20:
        raise InputError(f"offload_gib must be a number in (0, {1 << 20}], got {offload_gib!r:.20}")
    offload = int(offload_gib * 2**30)
    name, per_token, tokens, gpu_tokens, quality, formula, flags, sources = rule(d, offload)
    length = request_tokens or d.engine.request_length(d)
    ranks = d.tp if d.engine.kv_bytes_all_ranks else 1  # vLLM's bytes per token are all ranks'; each has its link
    seconds = length * per_token / ranks / (LINKS[link].gbps * 1e9)
    return OffloadTier(engine=d.runtime, connector=name, offload_bytes=offload, bytes_per_token=per_token,
                       tokens=tokens, gpu_pool_tokens=gpu_tokens, request_tokens=length,
                       requests_held=tokens // length, link=LINKS[link], reload_seconds=seconds, quality=quality,
                       formula=formula, flags=flags, sources=sources)
