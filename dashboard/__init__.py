"""Streamlit side of KV Cache Planner: URL state, shared widgets, charts and page bodies.

All numbers come from :mod:`kvcalc`; this package holds widgets, URL state, caching and layout.
"""
