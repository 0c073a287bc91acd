"""The workload page's URL parameters (shared prefix, request lengths, offload tier, co-located models).

Rows of :data:`dashboard.state.PARAMS`, built from :class:`dashboard.url_params.Param`; see
dashboard.state for how the link is checked and carried between pages.
"""
from __future__ import annotations

from .url_params import Param

WORKLOAD_PARAMS: tuple[Param, ...] = ()
