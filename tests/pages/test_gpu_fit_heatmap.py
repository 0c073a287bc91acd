"""GPU fit's leftovers through AppTest (issue 25): the colour bar 0-100 %, the chosen cell outlined, the GPU table
sorted and narrow enough for a phone, no share over 100 % beside a fit, and the GPU search listing the best
matches first.

Expected figures come from kvcalc (``kvcalc.plan``: the planning call the CLI makes), never from the page. The
ideal runtime is used where a cell's figure is checked: its total is weights + batch x context x KV per token and
its budget the GPU's whole memory, so the share is total / memory with nothing served in between.
"""
from __future__ import annotations

import json

import pytest
from apptest import GPU_FIT, caption_text, rerun, run_page
from paths import load_config

import kvcalc
from kvcalc.gpus import get_gpu

pytest.importorskip("streamlit.testing.v1")
LLAMA = "meta-llama/Llama-3.1-8B"


def _heat(at) -> tuple[dict, dict]:
    (chart,) = at.get("plotly_chart")
    fig = json.loads(chart.proto.spec)
    return fig["data"][0], fig["layout"]


def test_colour_bar_reads_0_to_100_percent_and_x_marks_what_kvcalc_refuses():
    at = run_page(GPU_FIT, model=LLAMA, gpu="rtx-4090", runtime="ideal", batch="1", ctx="8192")
    h, _ = _heat(at)
    assert (h["zmin"], h["zmax"]) == (0, 1)
    assert h["colorbar"]["tickvals"] == [0, 0.25, 0.5, 0.75, 1]
    assert h["colorbar"]["ticktext"] == ["0 %", "25 %", "50 %", "75 %", "100 %+"]
    cfg = load_config("meta-llama__Llama-3.1-8B.json")
    memory = get_gpu("rtx-4090").memory_bytes
    over = 0
    for i, b in enumerate(h["y"]):
        for j, c in enumerate(h["x"]):
            p = kvcalc.plan(cfg, batch=int(b), context=int(c.replace(",", "")), gpu="rtx-4090", runtime="ideal")
            assert h["text"][i][j] == ("" if p.fits else "x")
            assert h["z"][i][j] == pytest.approx(p.total_bytes / memory, abs=1e-6)
            over += h["z"][i][j] > 1
    assert over                     # shares above 100 % exist: they saturate the top colour, the bar stays 0-100 %


def test_the_chosen_cell_is_outlined_on_its_own_row_and_column():
    # batch 3 and 10,000 tokens are on neither grid: the heatmap gets that row and column
    at = run_page(GPU_FIT, model=LLAMA, gpu="h100-sxm", runtime="ideal", batch="3", ctx="10000")
    h, layout = _heat(at)
    i, j = h["y"].index("3"), h["x"].index("10,000")
    contexts = [int(c.replace(",", "")) for c in h["x"]]
    assert contexts == sorted(contexts)
    outlines = [s for s in layout["shapes"] if s["name"] == "chosen"]
    assert outlines and all((s["x0"], s["x1"], s["y0"], s["y1"]) == (j - 0.5, j + 0.5, i - 0.5, i + 0.5)
                            for s in outlines)
    cfg = load_config("meta-llama__Llama-3.1-8B.json")
    p = kvcalc.plan(cfg, batch=3, context=10_000, gpu="h100-sxm", runtime="ideal")
    assert h["z"][i][j] == pytest.approx(p.total_bytes / get_gpu("h100-sxm").memory_bytes, abs=1e-6)
    assert "Outlined: your 3 x 10,000" in caption_text(at)


def test_gpu_table_lists_the_fits_first_then_the_longest_context():
    at = run_page(GPU_FIT, model=LLAMA, gpu="rtx-4090", runtime="ideal", batch="4", ctx="16384")
    frame = at.dataframe[0]
    rows = frame.value.to_dict("records")
    fit, longest = "fits 4 x 16,384", "longest context @ batch 4"
    cfg = load_config("meta-llama__Llama-3.1-8B.json")
    for r in rows:                                       # the table's verdicts are kvcalc's
        p = kvcalc.plan(cfg, batch=4, context=16_384, gpu=r["key"], runtime="ideal")
        assert r[fit] == ("yes" if p.fits else "no")
    keys = [(r[fit] != "yes", -r[longest], r["memory GiB"]) for r in rows]
    assert keys == sorted(keys)
    assert {r[fit] for r in rows} == {"yes", "no"}       # both kinds present: the order is tested, not vacuous
    assert "Sorted: the GPUs that fit 4 x 16,384 first" in caption_text(at)
    # a phone (390 px): the name column is narrow, the answers come right after it, the key stays off screen
    order = list(frame.proto.column_order)
    assert order[:4] == ["GPU", fit, longest, "largest batch @ 16,384 tokens"] and "key" not in order
    config = json.loads(frame.proto.columns)
    assert config["GPU"]["width"] == "small" and config[longest]["label"] == "longest ctx"


@pytest.mark.parametrize("runtime", ["vllm", "sglang", "ideal", "transformers"])
def test_no_share_over_100_percent_beside_a_fit(runtime: str):
    at = run_page(GPU_FIT, model=LLAMA, gpu="rtx-4090", runtime=runtime, batch="1", ctx="8192")
    metrics = {m.label: m.value for m in at.metric}
    share = next(v for k, v in metrics.items() if " used @ " in k)
    if metrics["Fits"] == "yes":
        assert float(share.removesuffix("%")) <= 100
    h, _ = _heat(at)
    for zs, marks in zip(h["z"], h["text"]):
        assert all(z <= 1 for z, m in zip(zs, marks) if m == "")          # a cell that fits reads 100 % at most


def test_gpu_search_lists_the_best_matches_first_and_the_current_choice_last():
    at = run_page(GPU_FIT, model=LLAMA, gpu="h100-sxm", runtime="ideal")
    at.text_input(key="gpu_q").set_value("a10")
    rerun(at)
    box = at.selectbox(key="gpu")
    labels = box.options
    # the card named A10 itself first, then the names with a word starting "a10" (A10G, A100 ...), the current
    # H100 (no match) kept, last, and still chosen
    assert labels[0].startswith("NVIDIA A10 24GB")
    assert labels[-1].startswith("NVIDIA H100 80GB HBM3 (SXM)") and box.value == "h100-sxm"
    assert all("A10" in label for label in labels[:-1]) and len(labels) >= 3
    at.text_input(key="gpu_q").set_value("4090")
    rerun(at)
    assert at.selectbox(key="gpu").options[0].startswith("NVIDIA GeForce RTX 4090")
