"""How it works: the formula and what each design changes (body: dashboard.how_it_works)."""
from dashboard.how_it_works import render

render()
