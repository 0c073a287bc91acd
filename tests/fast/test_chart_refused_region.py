"""The memory curve past the length an engine serves: what a request of each length needs, in a region shaded
as refused (dashboard.planner.curve_deployment, dashboard.charts.memory_chart's ``refused_from``).

Hand arithmetic: Llama-3.1-8B caches 32 layers x 8 KV heads x (128 + 128) x 2 B = 131,072 B per token
(data/configs), so one request of 131,072 tokens (its max_position_embeddings) needs 16 GiB of KV and one of
8,192 tokens 1 GiB. vLLM started with --max-model-len 8192 refuses the longer one
(vllm/config/model.py: a prompt longer than max_model_len is rejected).
"""
from __future__ import annotations

import plotly.tools
from paths import load_config

from dashboard import charts
from dashboard.planner import curve_deployment
from kvcalc.capacity import CurvePoint, memory_curve
from kvcalc.scenarios import plan_scenario

GiB = 1 << 30
LLAMA = "meta-llama/Llama-3.1-8B"
PER_TOKEN = 32 * 8 * (128 + 128) * 2


def test_vllm_curve_past_the_served_length_is_the_need_of_that_length_and_refused():
    s = plan_scenario(load_config(LLAMA), {"gpu": "rtx-4090", "runtime": "vllm"}, 1, 8192)
    assert s.setup.max_model_len == 8192            # the Planner serves the context asked for
    curve_setup, refused = curve_deployment(s.setup, s.plan)
    assert refused == (8192, "vLLM")
    short, long = memory_curve(curve_setup, 1, [8192, 131_072])
    assert (short.kv, long.kv) == (8192 * PER_TOKEN, 131_072 * PER_TOKEN) == (1 * GiB, 16 * GiB)
    # the served deployment itself caps every request at 8,192 tokens: the old flat line
    assert memory_curve(s.setup, 1, [131_072])[0].kv == 1 * GiB


def test_runtimes_without_a_served_length_are_not_shaded():
    s = plan_scenario(load_config(LLAMA), {"gpu": "rtx-4090", "runtime": "ideal"}, 1, 8192)
    assert curve_deployment(s.setup, s.plan) == (s.setup, None)


def _points() -> list[CurvePoint]:
    return [CurvePoint(c, 15 * GiB, 2 * GiB, c * PER_TOKEN, 22 * GiB) for c in (1024, 8192, 131_072)]


def test_chart_shades_the_refused_range_and_names_it():
    fig = charts.memory_chart(_points(), log_x=True, capacities=[], longest=None, chosen=8192,
                              refused_from=(8192, "vLLM"))
    plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
    rects = [s for s in fig["layout"]["shapes"] if s.get("name") == "refused"]
    assert len(rects) == 1
    assert (rects[0]["type"], rects[0]["x0"], rects[0]["x1"], rects[0]["y0"], rects[0]["y1"]) == \
        ("rect", 8192, 131_072, 0, 1)                # shapes in data units, the full height
    notes = [a for a in fig["layout"]["annotations"] if a.get("name") == "refused"]
    assert [a["text"] for a in notes] == ["vLLM refuses: longer than max_model_len 8,192"]
    kv = next(t for t in fig["data"] if t["name"] == "KV cache")
    assert kv["y"][-1] == 16.0                       # 131,072 x 131,072 B = 16 GiB: not flat past 8,192


def test_no_shade_without_a_refused_length_or_past_the_curve():
    for refused in (None, (131_072, "vLLM")):
        fig = charts.memory_chart(_points(), log_x=False, capacities=[], longest=None, refused_from=refused)
        assert not [s for s in fig["layout"].get("shapes", []) if s.get("name") == "refused"]
