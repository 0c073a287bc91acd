"""KV Cache Planner - Streamlit entry point and home page (the Planner).

Multipage layout by the ``pages/`` folder (no ``st.navigation``), so a deep link to any page
works on a freshly started server; the navigation itself is drawn by ``dashboard.page.NAV``
(home labelled "Planner"). Pages are thin: the bodies live in ``dashboard``.
"""
from dashboard.planner import render

render()
