"""Workload: shared prefixes, request lengths, a KV offload tier, several models on one GPU (dashboard.workload)."""
from dashboard.workload import render

render()
