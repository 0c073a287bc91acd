"""Streamlit side of KV Cache Planner: URL state, shared widgets, charts and page bodies.

All numbers come from :mod:`kvcalc`; this package holds widgets, URL state, caching and layout.
Importing it first finishes the heavy third-party imports (:mod:`dashboard.warmup`), so that
simultaneous first visits to a fresh server never see a half-imported pandas or plotly.
"""
from . import warmup

warmup.run()
