"""Capacity for the workload served: shared prefixes, request-length distributions, a KV offload tier and
several models on one GPU (issue 28). Pure Python over kvcalc's deployments; no Streamlit.

``prefix``    :func:`prefix_sharing`: requests at once with a shared prompt prefix, per engine.
``lengths``   :func:`length_concurrency`: expected concurrency and the chance a request waits, from
              mean / p95 request lengths (lognormal lengths, a token-budget model).
``offload``   :func:`offload_tier`: tokens a CPU KV tier holds per engine connector, and the reload cost.
``colocate``  :func:`colocate`: several vLLM instances on one GPU, in launch order.

Units: bytes (GiB = 2**30), tokens, blocks, seconds.
"""
from .colocate import CUDA_CONTEXT_BYTES, Colocation, Instance, colocate
from .lengths import MODEL as LENGTH_MODEL
from .lengths import Histogram, LengthConcurrency, LengthStats, length_concurrency, lognormal_stats
from .offload import LINKS, HostLink, OffloadTier, offload_tier
from .prefix import GroupSharing, PrefixSharing, prefix_sharing, with_hit_rate

__all__ = [
    "CUDA_CONTEXT_BYTES", "Colocation", "GroupSharing", "Histogram", "HostLink", "Instance", "LENGTH_MODEL", "LINKS",
    "LengthConcurrency", "LengthStats", "OffloadTier", "PrefixSharing", "colocate", "length_concurrency",
    "lognormal_stats", "offload_tier", "prefix_sharing", "with_hit_rate",
]
