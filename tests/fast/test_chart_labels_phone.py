"""Compare's small multiples at a phone's width (390 px): no panel's title or line label runs into the next
panel's (a new-user review's 390 x 844 screenshot: "Mistral-7B-Instruct-v0.3 · KV auto · vllm" over its neighbour's
title, "GPU = llama.cpp budget" over the next panel's "GPU").

Geometry: Streamlit draws the chart 358 px wide at 390 px (16 px padding a side); the panels' plot area is that less
the figure's left and right margins (60 + 10 px, dashboard.charts.panels_chart), split into ``columns`` panels with
4 % gaps. Text at 11 px in Source Sans is at most about 6 px a character (10 px: 5.5 px).
"""
from __future__ import annotations

import pytest

from dashboard import charts
from dashboard.text import count
from kvcalc.capacity import CurvePoint

GiB = 1 << 30
PHONE_PLOT_PX = 358 - 60 - 10
NAMES = [f"{m} · KV {k} · {r}" for m in ("Mistral-7B-Instruct-v0.3", "Llama-3.1-8B")
         for k in ("auto", "fp8_e4m3") for r in ("vllm", "llama_cpp", "sglang")]


def points(per_token: int = 131_072) -> list[CurvePoint]:
    return [CurvePoint(context=c, weights=15 * GiB, overhead=GiB, kv=c * per_token, budget=20 * GiB)
            for c in (1, 1024, 131_072)]


def series(n: int) -> list[charts.Series]:
    engine = {"vllm": "vLLM", "llama_cpp": "llama.cpp", "sglang": "SGLang"}
    # vLLM's budget under the GPU's memory; llama.cpp's and SGLang's (plus its overhead) at it: one merged label
    return [charts.Series(name, points(), engine[name.rsplit(" · ", 1)[1]], 20 * GiB if name.endswith("vllm")
                          else 24 * GiB, "SGLang budget + its overhead" if name.endswith("sglang") else "")
            for name in NAMES[:n]]


def panel_px(columns: int) -> float:
    return PHONE_PLOT_PX * (1 - 0.04 * (columns - 1)) / columns


@pytest.mark.parametrize("n", [5, 6, 9, 12])
def test_panel_titles_and_line_labels_fit_their_panel_at_390_px(n):
    fig = charts.panels_chart(series(n), log_x=True, gpu=("RTX 4090", 24 * GiB))
    columns = charts.panel_columns(n)
    width = panel_px(columns)
    for a in fig["layout"]["annotations"]:
        if a["name"].startswith("panel ") and ":" not in a["name"]:            # a panel's title
            widest = max(len(line) for line in a["text"].split("<br>"))
            assert widest * 6 <= width + 0.04 * PHONE_PLOT_PX, a["text"]
        elif a["name"].startswith("gpu: "):                                    # a line label, 10 px text
            assert len(a["text"]) * 5.5 <= width, a["text"]


def test_five_or_six_scenarios_go_two_across_seven_and_more_three():
    assert [charts.panel_columns(n) for n in (5, 6, 7, 12)] == [2, 2, 3, 3]
    fig = charts.panels_chart(series(6), log_x=True, gpu=("RTX 4090", 24 * GiB))
    starts = sorted({round(fig["layout"][f"xaxis{'' if i == 1 else i}"]["domain"][0], 6) for i in range(1, 7)})
    assert starts == [0.0, 0.52]                                                # two columns, a 4 % gap


def test_title_lines_get_room_between_rows():
    fig = charts.panels_chart(series(9), log_x=True, gpu=("RTX 4090", 24 * GiB))
    lines = max(a["text"].count("<br>") + 1 for a in fig["layout"]["annotations"]
                if a["name"].startswith("panel ") and ":" not in a["name"])
    assert lines == 4                                   # 'Mistral-7B-', 'Instruct-v0.3', 'KV fp8_e4m3', 'llama_cpp'
    assert fig["layout"]["margin"]["t"] == 90 + 3 * charts.PANEL_LINE_PX
    # rows: 170 px panels, 48 px gaps plus 14 px a title line past the first (3 rows of 3)
    plot_h = 3 * charts.PANEL_PX + 2 * (charts.PANEL_GAP_PX + 3 * charts.PANEL_LINE_PX)
    top_of_row_2 = fig["layout"]["yaxis4"]["domain"][1]
    assert top_of_row_2 == pytest.approx(1 - (charts.PANEL_PX + charts.PANEL_GAP_PX + 3 * charts.PANEL_LINE_PX)
                                         / plot_h)


def test_a_panel_says_budget_and_keeps_the_engine_in_its_shape_name():
    fig = charts.panels_chart(series(6), log_x=True, gpu=("RTX 4090", 24 * GiB))
    texts = {a["name"]: a["text"] for a in fig["layout"]["annotations"]}
    shapes = {s["name"] for s in fig["layout"]["shapes"]}
    assert "panel 1: vLLM budget" in shapes and "panel 3: SGLang budget + its overhead" in shapes
    assert texts["gpu: vLLM budget"] == "budget"
    assert {"GPU = budget+ovh", "GPU = budget"} <= set(texts.values())     # SGLang's, llama.cpp's at the GPU's


def test_the_planner_clamp_note_breaks_before_show_all():
    pts = [CurvePoint(context=c, weights=15 * GiB, overhead=GiB, kv=c * 131_072 * 64, budget=20 * GiB)
           for c in (1, 1024, 131_072)]
    fig = charts.memory_chart(pts, log_x=True, capacities=[("80 GB", 80 * GiB)], longest=None, chosen=1024,
                              chosen_gpu=("RTX 4090", 24 * GiB), budget=("budget", 20 * GiB))
    clamp = next(a for a in fig["layout"]["annotations"] if a.get("name") == "clamp")
    first, second = clamp["text"].split("<br>")
    assert first.startswith("y axis cut at ") and second == "(turn on Show all)"
    assert len(first) * 6 <= PHONE_PLOT_PX


def test_count_reads_one_in_the_singular():
    assert count(1, "sequence") == "1 sequence" and count(2, "sequence") == "2 sequences"
