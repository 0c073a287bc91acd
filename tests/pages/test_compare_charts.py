"""Compare's chart through AppTest (issue 25): small multiples from 5 scenarios up, one budget line per engine
below 5, the y axis clamped near the budgets, hover with GiB, the total and % of the scenario's budget.

Every expected figure comes from kvcalc itself (``kvcalc.plan``, the planning call the CLI's ``plan`` makes on the
same deployment), never from the page: each engine's budget on the GPU (vLLM: gpu_memory_utilization 0.9 x the
GPU's memory; ideal and transformers: the whole GPU), the totals the curves draw. The GPU's memory is the
nvidia-smi figure of data/gpus.csv: RTX 4090 24,564 MiB.
"""
from __future__ import annotations

import json

import pytest
from apptest import COMPARE, caption_text, run_page
from paths import load_config

import kvcalc
from dashboard import charts

pytest.importorskip("streamlit.testing.v1")

GiB = 1 << 30
RTX4090 = 24_564 << 20
LLAMA, QWEN, LLAMA70 = "meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B", "meta-llama/Llama-3.1-70B"
ENGINES = {"vllm": "vLLM", "sglang": "SGLang", "ideal": "ideal", "transformers": "transformers"}


def _figure(at) -> dict:
    (chart,) = at.get("plotly_chart")
    return json.loads(chart.proto.spec)


def _config(hub_id: str) -> dict:
    return load_config(hub_id.replace("/", "__") + ".json")


def _budget(hub_id: str, runtime: str, **options) -> int:
    """kvcalc's budget per GPU for ``hub_id`` under ``runtime`` on one RTX 4090 (bytes)."""
    return kvcalc.plan(_config(hub_id), batch=1, context=1024, gpu="rtx-4090", runtime=runtime, **options).budget_bytes


def _limit(hub_id: str, runtime: str) -> tuple[str, int]:
    """(line label, bytes) the scenario's total is read against: its engine's budget; under SGLang the budget plus
    its overhead, which sits outside ``mem_fraction_static`` (that covers the weights and the KV pool), so a plan
    that fits stays under the line (kvcalc.plan's own figures)."""
    p = kvcalc.plan(_config(hub_id), batch=1, context=1024, gpu="rtx-4090", runtime=runtime)
    if runtime == "sglang":
        return "SGLang budget + its overhead", p.budget_bytes + p.overhead_bytes
    return f"{ENGINES[runtime]} budget", p.budget_bytes


def _scenario(name: str) -> tuple[str, str]:
    """'Llama-3.1-8B · vllm' -> (hub id, runtime)."""
    model, runtime = name.split(" · ")
    return {"Llama-3.1-8B": LLAMA, "Qwen3-8B": QWEN, "Llama-3.1-70B": LLAMA70}[model], runtime


def test_nine_scenarios_give_nine_panels_each_with_its_engines_budget_and_the_gpu():
    at = run_page(COMPARE, models=[LLAMA, QWEN, LLAMA70], runtimes=["vllm", "sglang", "ideal"], gpu="rtx-4090")
    fig = _figure(at)
    layout, data = fig["layout"], fig["data"]
    assert len(data) == 9
    axes = [t["xaxis"] for t in data]
    assert axes == ["x"] + [f"x{i}" for i in range(2, 10)]            # one panel per scenario
    for i in range(2, 10):                                             # shared axes: every panel matches the first
        assert layout[f"xaxis{i}"]["matches"] == "x" and layout[f"yaxis{i}"]["matches"] == "y"
        assert layout[f"yaxis{i}"]["range"] == layout["yaxis"]["range"]
    shapes = {s["name"]: s for s in layout["shapes"]}
    titles = {a["name"]: a["text"] for a in layout["annotations"]}
    budgets = []
    for i, trace in enumerate(data, start=1):
        hub_id, runtime = _scenario(trace["name"])
        assert titles[f"panel {i}"].replace("-<br>", "-").replace("<br>", " · ") == trace["name"]   # broken in lines
        name, budget = _limit(hub_id, runtime)
        budgets.append(budget)
        line = shapes[f"panel {i}: {name}"]
        assert line["yref"] == f"y{'' if i == 1 else i}" and line["line"]["dash"] == "dashdot"
        assert line["y0"] == pytest.approx(budget / GiB)
        assert shapes[f"panel {i}: GPU"]["y0"] == pytest.approx(RTX4090 / GiB)
        # no other engine's budget in this panel
        assert [n for n in shapes if n.startswith(f"panel {i}: ") and " budget" in n] == [f"panel {i}: {name}"]
        # hover: GiB, the total and the share of this scenario's own budget (kvcalc's point totals / its budget)
        assert "GiB" in trace["hovertemplate"] and f"of the {name}" in trace["hovertemplate"]
        for (total_gib, share), y in zip(trace["customdata"], trace["y"]):
            assert total_gib == pytest.approx(y, abs=1e-6)
            assert share == pytest.approx(y * GiB / budget, rel=1e-6)
    assert budgets[0] == int(0.9 * RTX4090)                              # vLLM: gpu_memory_utilization 0.9
    assert budgets[2] == RTX4090                                          # ideal: the whole GPU
    # clamped near the budgets (all at or below the GPU): 1.3 x 24 GiB, not the 70B's 300+ GiB
    top = layout["yaxis"]["range"][1]
    assert top == pytest.approx(charts.CLAMP * RTX4090 / GiB)
    w70 = kvcalc.plan(_config(LLAMA70), batch=1, context=1, gpu="rtx-4090", runtime="ideal").weights_bytes
    assert w70 / GiB > top                                               # so its panels say where the curve went
    assert sum(1 for a in layout["annotations"] if a["name"].endswith(": above")) == 3
    assert "each panel" in caption_text(at)


def test_the_ideal_panels_draw_kvcalcs_totals():
    at = run_page(COMPARE, models=[LLAMA, QWEN, LLAMA70], runtimes=["vllm", "sglang", "ideal"], gpu="rtx-4090")
    trace = next(t for t in _figure(at)["data"] if t["name"] == "Llama-3.1-8B · ideal")
    cfg = _config(LLAMA)
    for x, y in list(zip(trace["x"], trace["y"]))[::16]:
        total = kvcalc.plan(cfg, batch=1, context=x, gpu="rtx-4090", runtime="ideal").total_bytes
        assert y == pytest.approx(total / GiB, abs=1e-6)


def test_three_scenarios_of_two_engines_give_two_budget_lines_named_by_engine():
    # fp8 KV x transformers is refused (not a transformers cache): 3 scenarios left, vLLM twice, transformers once
    at = run_page(COMPARE, models=[LLAMA], kvdtypes=["auto", "fp8_e4m3"], runtimes=["vllm", "transformers"],
                  gpu="rtx-4090")
    fig = _figure(at)
    assert len(fig["data"]) == 3 and all(t.get("xaxis", "x") == "x" for t in fig["data"])    # one chart
    lines = {s["name"]: s["y0"] for s in fig["layout"]["shapes"] if s["name"].endswith(" budget")}
    assert lines == {"vLLM budget": pytest.approx(_budget(LLAMA, "vllm") / GiB),
                     "transformers budget": pytest.approx(_budget(LLAMA, "transformers") / GiB)}
    assert "vllm budget" not in {s["name"] for s in fig["layout"]["shapes"]}        # the old one-for-all label
    for t in fig["data"]:
        engine = ENGINES[t["name"].split(" · ")[-1]]
        assert f"of the {engine} budget" in t["hovertemplate"] and "GiB" in t["hovertemplate"]


def test_two_engines_below_the_gpu_each_have_their_line_and_the_axis_ends_near_them():
    at = run_page(COMPARE, models=[LLAMA70, LLAMA], runtimes=["vllm", "sglang"], gpu="rtx-4090")
    fig = _figure(at)
    assert len(fig["data"]) == 4
    lines = {s["name"]: s["y0"] for s in fig["layout"]["shapes"] if " budget" in s["name"]}
    assert lines == {name: pytest.approx(b / GiB) for name, b in (_limit(LLAMA, "vllm"), _limit(LLAMA, "sglang"))}
    assert lines["vLLM budget"] < lines["SGLang budget + its overhead"] <= RTX4090 / GiB
    # the 70B runs to hundreds of GiB; the axis stops at 1.3 x the GPU, the largest of the GPU and the budgets
    assert fig["layout"]["yaxis"]["range"][1] == pytest.approx(charts.CLAMP * RTX4090 / GiB)
    assert max(y for t in fig["data"] for y in t["y"]) > 100


def test_an_sglang_plan_that_fits_stays_under_its_line_and_under_100_percent():
    # SGLang's overhead sits outside mem_fraction_static: kvcalc.plan says Llama-3.1-8B at 1 x 8,192 fits on a 4090
    # with a total above the budget; the curve is read against the budget plus that overhead, never over 100 %
    at = run_page(COMPARE, models=[LLAMA], runtimes=["vllm", "sglang"], gpu="rtx-4090")
    fig = _figure(at)
    trace = next(t for t in fig["data"] if t["name"].endswith("sglang"))
    cfg = _config(LLAMA)
    name, limit = _limit(LLAMA, "sglang")
    checked = 0
    for x, (total_gib, share) in zip(trace["x"], trace["customdata"]):
        p = kvcalc.plan(cfg, batch=1, context=x, gpu="rtx-4090", runtime="sglang")
        if p.fits:
            checked += 1
            assert p.total_bytes > p.budget_bytes and total_gib * GiB <= limit and share <= 1.0
    assert checked and "budget covers the weights and the KV pool" in caption_text(at)
