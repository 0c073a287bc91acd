"""GPU fit: batch x context heatmap and every catalog GPU (body: dashboard.gpu_fit)."""
from dashboard.gpu_fit import render

render()
