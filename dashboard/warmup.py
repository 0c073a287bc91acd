"""Heavy third-party imports, done once per process before any page runs (issue 11 item 5).

Streamlit runs each session's script in its own thread, and pandas, pyarrow and plotly are
imported lazily, on a page's first ``st.dataframe`` / ``st.plotly_chart``: on a freshly started
server several first visits then import them at the same time, and one could see a module
another thread had only partly initialized (``partially initialized module 'pandas' has no
attribute 'Series'``; plotly's ``graph_objs`` loads its submodules lazily on attribute access).

:func:`run` is called by ``dashboard/__init__.py``. Every page imports ``dashboard`` first, and
Python's import lock makes every other thread wait until a package being imported has finished
initializing, so these imports complete, in one thread, before any page code runs. It goes
through the same conversions the pages' elements do (a table to Arrow bytes, a figure of each
kind the pages draw validated and serialized as ``st.plotly_chart`` does), so every submodule
they load lazily is loaded here, without drawing anything.
"""
from __future__ import annotations

import threading

_LOCK = threading.Lock()
_DONE = False


def run() -> None:
    """Import and exercise pandas / pyarrow / plotly once (idempotent, thread-safe)."""
    global _DONE
    with _LOCK:
        if _DONE:
            return
        import pandas.core.methods.to_dict  # noqa: F401 - st.data_editor's rows back to a list (the Workload page)
        import plotly.io
        import plotly.tools
        from streamlit import dataframe_util

        from kvcalc.capacity import CurvePoint
        from kvcalc.scenarios import HeatCell

        from . import charts

        dataframe_util.convert_anything_to_arrow_bytes([{"a": 1, "b": "x", "c": 0.5}])
        pts = [CurvePoint(context=c, weights=1, overhead=1, kv=c, budget=10) for c in (1, 2)]
        figures = [charts.memory_chart(pts, log_x=True, capacities=[("gpu", 10)], longest=2, extra_curves={2: pts}),
                   charts.curves_chart({"a": pts}, log_x=False, capacities=[("gpu", 10)]),
                   charts.fit_heatmap([1], [1, 2], [[HeatCell(0.1, "budget", True), HeatCell(1.2, "budget", False)]])]
        for fig in figures:
            plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True), validate=False)
        _DONE = True
