"""Figure building (dashboard.charts) and the Planner's exports (dashboard.exports), without a page.

References: plotly.js places annotations on a log axis in log10 units ("If the axis type is log,
then you must take the log of your desired range", plotly's ``layout.annotation.x`` docs) and
shapes in data units; every figure must pass plotly's own validation
(``plotly.tools.return_figure_from_figure_or_data(validate_figure=True)``). Byte figures are hand
arithmetic on round numbers (GiB = 2**30); Llama-3.1-8B: 131,072 B of KV per token,
8,030,261,248 parameters; RTX 4090: 24,564 MiB (data/gpus.csv, nvidia-smi).
"""
from __future__ import annotations

import csv
import io
import json
import math
import os

import plotly.io
import plotly.tools
import pytest
from paths import ROOT, load_config

import kvcalc
from dashboard import charts, exports
from kvcalc.capacity import CurvePoint

GiB = 1 << 30


def valid(fig: dict) -> dict:
    plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True), validate=False)
    return fig


def llama_like(contexts: list[int], weights: int = 15 * GiB, per_token: int = 131_072) -> list[CurvePoint]:
    return [CurvePoint(context=c, weights=weights, overhead=GiB, kv=c * per_token, budget=20 * GiB) for c in contexts]


def note(fig: dict, name: str) -> dict:
    return next(a for a in fig["layout"]["annotations"] if a.get("name") == name)


def shape(fig: dict, name: str) -> dict:
    return next(s for s in fig["layout"]["shapes"] if s.get("name") == name)


@pytest.mark.parametrize("log_x", [True, False])
def test_chosen_and_longest_context_are_marked_on_both_axis_types(log_x: bool):
    pts = llama_like(charts.context_points(131_072, log_x, extra=[8192, 46_672]))
    fig = valid(charts.memory_chart(pts, log_x=log_x, capacities=[], longest=46_672, chosen=8192,
                                    chosen_gpu=("RTX 4090", 24_564 << 20)))
    assert fig["layout"]["xaxis"]["type"] == ("log" if log_x else "linear")
    for kind, x, text in (("chosen", 8192, "chosen 8,192 tokens"), ("longest", 46_672, "longest context 46,672")):
        n = note(fig, f"marker: {kind}")
        assert n["text"] == text
        # annotation x in axis units: log10(8192) = 3.913 on a log axis; shapes stay in tokens
        assert n["x"] == pytest.approx(math.log10(x) if log_x else x)
        s = shape(fig, text)
        assert (s["x0"], s["x1"], s["yref"]) == (x, x, "paper")
    # the two labels sit in two rows above the plot area (paper y = 1, anchored at their bottom),
    # clear of the GPU labels inside it, so they cannot overlap; each right of its line unless the
    # line is in the right 30 % of the axis (46,672 of 131,072 tokens: 89 % of a log axis, 36 % of a linear one)
    a, b = note(fig, "marker: chosen"), note(fig, "marker: longest")
    assert (a["xanchor"], b["xanchor"]) == (("right", "right") if log_x else ("left", "left"))
    assert a["y"] == b["y"] == 1 and a["yanchor"] == b["yanchor"] == "bottom" and b["yshift"] - a["yshift"] >= 14
    assert fig["layout"]["margin"]["t"] >= 50 + 2 * 14


def test_y_axis_is_clamped_unless_show_all():
    # batch 64 at 131,072 tokens: 64 x 131,072 x 131,072 B = 1,024 GiB of KV, far above every GPU line
    pts = [CurvePoint(context=c, weights=15 * GiB, overhead=0, kv=64 * c * 131_072, budget=80 * GiB)
           for c in (1024, 8192, 131_072)]
    lines = dict(capacities=[("80 GB class", 80 * GiB)], chosen_gpu=("24 GB GPU", 24 * GiB))
    clamped = valid(charts.memory_chart(pts, log_x=True, longest=None, chosen=1024, **lines))
    # 1.3 x the largest GPU line (80 GiB) = 104 GiB > the chosen point (15 + 64 x 1024 x 128 KiB = 23 GiB)
    assert clamped["layout"]["yaxis"]["range"] == [0, pytest.approx(104.0)]
    assert "Show all" in note(clamped, "clamp")["text"]
    full = valid(charts.memory_chart(pts, log_x=True, longest=None, chosen=1024, show_all=True, **lines))
    assert full["layout"]["yaxis"]["range"] == [0, pytest.approx((15 + 1024) * 1.05)]
    assert not [a for a in full["layout"]["annotations"] if a.get("name") == "clamp"]
    # a chosen point above every line sets the clamp instead: 1.3 x (15 + 64 x 131,072 x 128 KiB) GiB
    high = charts.memory_chart(pts, log_x=True, longest=None, chosen=131_072, **lines)
    assert high["layout"]["yaxis"]["range"][1] == pytest.approx((15 + 1024) * 1.05)       # all shown: no cut


def test_gpu_lines_full_memory_and_the_budget_as_its_own_line():
    pts = llama_like([1, 1024, 8192])
    fig = valid(charts.memory_chart(pts, log_x=False, capacities=[("16 GB class", 15 * GiB), ("80 GB", 80 * GiB)],
                                    longest=None, chosen_gpu=("RTX 4090", 24 * GiB),
                                    budget=("vllm budget", int(0.9 * 24 * GiB))))
    gpu = shape(fig, "RTX 4090")
    budget = shape(fig, "vllm budget")
    assert (gpu["y0"], budget["y0"]) == (24.0, pytest.approx(21.6))
    assert budget["line"]["dash"] == "dashdot" and gpu["line"]["dash"] != "dashdot"
    assert budget["line"]["color"] != gpu["line"]["color"]
    # labels at the right edge, each at least LABEL_GAP_PX above the one below (21.6 and 24 GiB are
    # 2.4 / 84 x 330 px = 9.4 px apart, so the upper one is lifted)
    labels = sorted((n for n in fig["layout"]["annotations"] if n["name"].startswith("gpu: ")), key=lambda n: n["y"])
    top = fig["layout"]["yaxis"]["range"][1]
    pos = [n["y"] / top * charts.PLOT_PX + n["yshift"] for n in labels]
    assert all(b - a >= charts.LABEL_GAP_PX - 0.1 for a, b in zip(pos, pos[1:])), pos
    assert all(n["x"] == 1 and n["xanchor"] == "right" for n in labels)


def test_hover_has_units_and_the_stacked_total():
    fig = charts.memory_chart(llama_like([1024, 8192]), log_x=True, capacities=[], longest=None)
    kv = next(t for t in fig["data"] if t["name"] == "KV cache")
    assert "GiB" in kv["hovertemplate"] and "total" in kv["hovertemplate"] and "tokens" in kv["hovertemplate"]
    # total at 8,192 tokens: 15 GiB weights + 1 GiB overhead + 8,192 x 128 KiB = 17 GiB, 17 / 20 GiB of the budget
    assert kv["customdata"][1] == pytest.approx([17.0, 0.85])
    assert "of the budget" in kv["hovertemplate"]
    assert all("GiB" in t["hovertemplate"] for t in fig["data"])


def test_compare_curves_have_distinct_colours():
    series = {f"scenario {i}": llama_like([1, 100], per_token=1000 * (i + 1)) for i in range(12)}
    fig = valid(charts.curves_chart(series, log_x=True, capacities=[("GPU", 24 * GiB)]))
    styles = [(t["line"]["color"], t["line"]["dash"]) for t in fig["data"]]
    assert len(set(styles)) == 12
    assert len({c for c, _ in styles[:10]}) == 10          # the first ten differ in colour alone
    assert len(fig["data"]) == 12                          # one trace per scenario, nothing added


# --------------------------------------------------------------------------------------------
# Exports


LLAMA = "meta-llama/Llama-3.1-8B"


def _plan():
    cfg = load_config("meta-llama__Llama-3.1-8B.json")
    options = {"gpu": "rtx-4090", "gpus": 1, "runtime": "ideal", "dtype": None, "kv_dtype": None}
    return kvcalc.plan(cfg, batch=8, context=8192, **options), options


def test_plan_json_describes_itself():
    p, options = _plan()
    speed = {"decode_tokens_per_s_per_sequence": None}
    doc = json.loads(exports.plan_json(model=LLAMA, model_source="bundled", plan=p.to_dict(), speed=speed, batch=8,
                                       context=8192, options=options, link_inputs={"batch": ["8"]},
                                       widgets={"batch": 8, "attn": "as configured", "curves": [8, 32]},
                                       share_link="http://x/?batch=8"))
    tomllib = pytest.importorskip("tomllib")             # Python 3.11+: an independent TOML reader
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        assert doc["kvcalc_version"] == tomllib.load(f)["project"]["version"]
    assert doc["model"] == {"id": LLAMA, "source": "bundled"}
    assert doc["gpu"]["count"] == 1 and "4090" in doc["gpu"]["name"]
    assert doc["gpu"]["memory_bytes"] == 24_564 << 20
    assert doc["inputs"]["batch"] == 8 and doc["inputs"]["context"] == 8192 and doc["inputs"]["runtime"] == "ideal"
    assert doc["inputs"]["options"]["gpu"] == "rtx-4090" and doc["inputs"]["link"] == {"batch": ["8"]}
    assert doc["inputs"]["widgets"] == {"batch": 8, "attn": "as configured", "curves": [8, 32]}
    assert doc["title"].startswith(f"{LLAMA} on 1 x ")
    # kvcalc's own numbers ride along: (24,564 MiB - 8,030,261,248 x 2 B) / (8 x 131,072 B) = 9,247 tokens
    assert doc["plan"]["max_context"] == 9_247 and doc["plan"]["kv_bytes"] == 8 * 8192 * 131_072


def test_curve_csv_and_titles_name_model_gpu_and_count():
    pts = llama_like([1024, 8192])
    rows = list(csv.DictReader(io.StringIO(exports.curve_csv({8: pts}, model=LLAMA, gpu="GeForce RTX 4090 24GB",
                                                             gpus=2, runtime="vllm"))))
    assert len(rows) == 2
    assert {(r["model"], r["gpu"], r["gpus"], r["runtime"], r["batch"]) for r in rows} == \
        {(LLAMA, "GeForce RTX 4090 24GB", "2", "vllm", "8")}
    assert int(rows[1]["kv_bytes"]) == 8192 * 131_072
    title = exports.chart_title(LLAMA, "GeForce RTX 4090 24GB", 2, 8)
    assert title == f"{LLAMA} on 2 x GeForce RTX 4090 24GB: memory per GPU vs context, batch 8"
    assert exports.file_stem(LLAMA, "GeForce RTX 4090 24GB", 2) == "kv_planner_Llama-3.1-8B_2xGeForce_RTX_4090_24GB"
    # outside text cannot become a spreadsheet formula
    evil = list(csv.reader(io.StringIO(exports.curve_csv({1: pts}, model="=HYPERLINK(1)", gpu="g", gpus=1,
                                                         runtime="ideal"))))
    assert evil[1][0] == "'=HYPERLINK(1)"


def test_compare_with_nine_scenarios_is_clamped_near_the_gpu_lines():
    # nine scenarios, the last at 15 GiB + 1 GiB + 131,072 x 9 x 262,144 B = 304 GiB at 131,072 tokens
    series = {f"scenario {i}": llama_like([1024, 131_072], per_token=262_144 * (i + 1)) for i in range(9)}
    assert max(p.total for p in series["scenario 8"]) == 304 * GiB
    h100 = 81_559 << 20                                  # data/gpus.csv (nvidia-smi), 79.65 GiB
    fig = valid(charts.curves_chart(series, log_x=True, capacities=[("H100", h100), ("24 GB", 24 * GiB)]))
    assert fig["layout"]["yaxis"]["range"][1] == pytest.approx(charts.CLAMP * h100 / GiB)
    assert note(fig, "clamp")["text"].startswith(f"y axis cut at {charts.CLAMP * h100 / GiB:,.0f} GiB")
    everything = charts.curves_chart(series, log_x=True, capacities=[("H100", h100)], show_all=True)
    assert everything["layout"]["yaxis"]["range"][1] == pytest.approx(304 * 1.05)


def test_fit_heatmap_colour_bar_reads_0_to_100_percent():
    from types import SimpleNamespace

    cell = SimpleNamespace(share=0.5, of="budget", fits=True)
    fig = valid(charts.fit_heatmap([1], [1024], [[cell]]))
    trace = fig["data"][0]
    # issue 25: 0..100 %, a share above 100 % saturates the top colour (plotly clamps z to zmax)
    assert (trace["zmin"], trace["zmax"]) == (0, 1)
    assert trace["colorbar"]["tickvals"] == [0, 0.25, 0.5, 0.75, 1] and trace["colorbar"]["ticktext"][-1] == "100 %+"
    assert trace["colorscale"][0][0] == 0 and trace["colorscale"][-1][0] == 1
