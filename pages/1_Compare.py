"""Compare scenarios side by side (body: dashboard.compare)."""
from dashboard.compare import render

render()
