"""The Compare, GPU fit and How it works pages (AppTest): default render, every widget, links, bad links.

Expected numbers come from plain arithmetic on published figures, never from the app's output:

* Llama-3.1-8B: 32 layers x 8 KV heads x (128 + 128) head dims x 2 bytes (bf16) = 131,072 B per
  token; 8,030,261,248 parameters (Hub safetensors total) x 2 B = 16,060,522,496 B of weights.
* Qwen3-8B: 36 layers x 8 KV heads x (128 + 128) x 2 B = 147,456 B per token; 8,190,735,360
  parameters x 2 B of weights; max_position_embeddings 40,960.
* Qwen3-0.6B: 28 layers x 8 KV heads x (128 + 128) x 2 B = 114,688 B per token.
* DeepSeek-V2-Lite (MLA): 27 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B = 31,104 B
  per token; expanded, 27 x 16 heads x (K 128 + 64, V 128) x 2 B = 276,480 B.
* GPU memory as nvidia-smi reports it: T4 15,360 MiB, RTX 4090 24,564 MiB, H100 SXM 81,559 MiB.
* Integer KV caches: per head vector of n values, n x bits / 8 bytes + 4 bytes per group of 64
  (fp16 scale + zero point): int4, n = 128 -> 64 + 8 = 72 B.
"""
from __future__ import annotations

import csv
import json
import math
import os
import re

import pytest
from apptest import COMPARE, GPU_FIT, HOW, PLANNER, rerun, run_page
from paths import ROOT, config_path, load_config

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

MiB, GiB = 1 << 20, 1 << 30
LLAMA, QWEN, QWEN06 = "meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B", "Qwen/Qwen3-0.6B"
DSV2L = "deepseek-ai/DeepSeek-V2-Lite"
KV_LLAMA = 32 * 8 * (128 + 128) * 2                   # 131,072 B per token
W_LLAMA = 8_030_261_248 * 2                           # 16,060,522,496 B
KV_QWEN = 36 * 8 * (128 + 128) * 2                    # 147,456
W_QWEN = 8_190_735_360 * 2
KV_QWEN06 = 28 * 8 * (128 + 128) * 2                  # 114,688
T4, RTX4090, H100 = 15_360 * MiB, 24_564 * MiB, 81_559 * MiB
LLAMA_MAX, QWEN_MAX = 131_072, 40_960


run = run_page
ok = rerun


def table(at, i: int = 0) -> list[dict]:
    return at.dataframe[i].value.to_dict("records")


def row(rows: list[dict], **match) -> dict:
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, rows)
    return found[0]


def figure(at) -> dict:
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    return json.loads(charts[0].proto.spec)


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def num(text: str) -> int:
    return int(text.replace(",", ""))


def exact_bytes(at) -> dict[str, int]:
    """The exact bytes of every metric whose help starts with them ('131,072 bytes'): How it works shows the
    value with units (128.00 KiB)."""
    return {m.label: num(m.proto.help.split(" bytes")[0]) for m in at.metric
            if re.match(r"^[\d,]+ bytes", m.proto.help or "")}


def notices(at) -> str:
    return " ".join(w.value for w in at.warning)


def longest(free: int, per_token: int, cap: int) -> int:
    """Longest context: the free bytes over the bytes per token, capped at the model maximum; 0 if none."""
    return min(cap, max(0, free // per_token))


def no_bad_numbers(fig: dict) -> None:
    """Plotted values (a line's y, a heatmap's z) are finite, non-negative numbers."""
    for trace in fig["data"]:
        values = trace["z"] if trace.get("type") == "heatmap" else trace["y"]
        flat = [v for r in values for v in (r if isinstance(r, list) else [r])]
        assert flat and all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in flat)


# ----------------------------------------------------------------------------- Compare
CLS16 = "longest context, 16 GB (Tesla T4 16GB)"
CLS24 = "longest context, 24 GB (GeForce RTX 4090 24GB)"
CLS80 = "longest context, 80 GB (NVIDIA H100 80GB HBM3 (SXM))"
CHOSEN_H100 = "longest context, chosen: NVIDIA H100 80GB HBM3 (SXM)"


def test_compare_default_view():
    """The default runtime is the Planner's (vllm, issue 14 item 6); the ideal arithmetic below is
    checked through the link (runtimes=ideal)."""
    assert run(COMPARE).multiselect(key="runtimes").value == ["vllm"]
    at = run(COMPARE, runtimes=["ideal"])
    assert at.multiselect(key="models").value == [LLAMA, QWEN]
    assert at.multiselect(key="attns").value == ["as configured"]
    assert at.multiselect(key="kvdtypes").value == ["auto"]
    assert at.multiselect(key="runtimes").value == ["ideal"]
    rows = table(at)
    assert len(rows) == 2
    llama, qwen = row(rows, model=LLAMA), row(rows, model=QWEN)
    assert llama["KV bytes / token"] == KV_LLAMA and llama["weights bytes / GPU"] == W_LLAMA
    assert qwen["KV bytes / token"] == KV_QWEN and qwen["weights bytes / GPU"] == W_QWEN
    # ideal runtime, batch 1: (GPU memory - weights) // bytes per token, capped at the model maximum
    assert llama[CLS16] == longest(T4 - W_LLAMA, KV_LLAMA, LLAMA_MAX) == 347
    assert llama[CLS24] == longest(RTX4090 - W_LLAMA, KV_LLAMA, LLAMA_MAX) == 73_979
    assert llama[CLS80] == llama[CHOSEN_H100] == LLAMA_MAX
    assert qwen[CLS16] == 0                                   # 15.26 GiB of weights > 15 GiB
    assert qwen[CLS24] == longest(RTX4090 - W_QWEN, KV_QWEN, QWEN_MAX) == QWEN_MAX
    fig = figure(at)
    no_bad_numbers(fig)
    assert sorted(t["name"] for t in fig["data"]) == ["Llama-3.1-8B", "Qwen3-8B"]
    assert fig["layout"]["xaxis"]["type"] == "log"
    trace = next(t for t in fig["data"] if t["name"] == "Llama-3.1-8B")
    assert max(trace["x"]) == LLAMA_MAX
    for x, y in zip(trace["x"], trace["y"]):
        assert y == pytest.approx((W_LLAMA + x * KV_LLAMA) / GiB, abs=1e-6)   # plotly JSON may round to 6 decimals
    qwen_trace = next(t for t in fig["data"] if t["name"] == "Qwen3-8B")
    assert max(qwen_trace["x"]) == QWEN_MAX
    assert len(at.get("download_button")) == 1
    assert not at.warning and not at.error


def test_compare_every_widget():
    at = run(COMPARE, runtimes=["ideal"])          # the arithmetic below is the ideal runtime's
    at.multiselect(key="models").set_value([LLAMA])
    rows = table(ok(at))
    assert [r["model"] for r in rows] == [LLAMA]

    at.multiselect(key="attns").set_value(["as configured", "mqa", "gqa", "sliding"])
    rows = table(ok(at))
    assert row(rows, attention="mqa")["KV bytes / token"] == 32 * 1 * 256 * 2
    assert row(rows, attention="gqa")["KV bytes / token"] == KV_LLAMA          # default 8 KV heads
    at.number_input(key="attn_kv").set_value(2)
    assert row(table(ok(at)), attention="gqa")["KV bytes / token"] == 32 * 2 * 256 * 2

    at.number_input(key="attn_window").set_value(1024)
    rows = table(ok(at))
    # a 1,024-token window on every layer caps the cache at 1,024 x 131,072 B = 128 MiB: every context fits 24 GB
    assert row(rows, attention="sliding")[CLS24] == LLAMA_MAX
    assert row(rows, attention="sliding")[CLS16] == 347     # T4: 43.5 MiB free, below the window
    at.text_input(key="attn_pattern").set_value("five")
    ok(at)
    assert any("sliding" in i.value and "5:1" in i.value for i in at.info)
    assert len(table(at)) == 3
    at.text_input(key="attn_pattern").set_value("5:1")
    assert len(table(ok(at))) == 4

    at.multiselect(key="attns").set_value(["as configured"])
    at.multiselect(key="kvdtypes").set_value(["auto", "int4"])
    rows = table(ok(at))
    # int4: per layer 8 heads x (K + V) x (128 / 2 + 4 x 2) = 1,152 B; 32 layers
    assert row(rows, **{"KV dtype": "int4"})["KV bytes / token"] == 32 * 8 * 2 * (64 + 8)

    at.multiselect(key="runtimes").set_value(["ideal", "transformers"])
    ok(at)
    assert any("transformers" in i.value and "Not compared" in i.value for i in at.info)   # int4 x transformers
    rows = table(at)
    assert len(rows) == 3 and len(figure(at)["data"]) == 3

    at.selectbox(key="gpu").select("rtx-4090")
    rows = table(ok(at))
    chosen = "longest context, chosen: GeForce RTX 4090 24GB"
    r = row(rows, runtime="ideal", **{"KV dtype": "bfloat16"})
    assert r[chosen] == r[CLS24] == 73_979

    at.selectbox(key="gpu").select("custom")
    ok(at)
    at.number_input(key="gpu_mem").set_value(48.0)
    at.number_input(key="batch").set_value(4)
    rows = table(ok(at))
    r = row(rows, runtime="ideal", **{"KV dtype": "bfloat16"})
    assert r["longest context, chosen: Custom GPU (48 GiB)"] == longest(48 * GiB - W_LLAMA, 4 * KV_LLAMA, LLAMA_MAX)
    assert r[CLS24] == longest(RTX4090 - W_LLAMA, 4 * KV_LLAMA, LLAMA_MAX) == 18_494
    assert r["batch"] == 4

    at.number_input(key="gpus").set_value(2)
    rows = table(ok(at))
    r = row(rows, runtime="ideal", **{"KV dtype": "bfloat16"})
    assert r["weights GiB / GPU"] == pytest.approx(W_LLAMA / 2 / GiB, abs=0.01)   # tensor parallel 2

    at.toggle(key="logx").set_value(False)
    assert figure(ok(at))["layout"]["xaxis"]["type"] == "linear"


def test_compare_caps_at_twelve_scenarios():
    at = run(COMPARE, models=[LLAMA, QWEN, QWEN06], attns=["as configured", "mha", "mqa", "gqa", "sliding"])
    assert any("15 combinations" in i.value and "first 12" in i.value for i in at.info)
    assert len(table(at)) == 12
    assert len(figure(at)["data"]) == 12


def test_compare_nothing_picked():
    at = run(COMPARE)
    at.multiselect(key="runtimes").set_value([])
    ok(at)
    assert any("Pick at least a runtime" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_compare_from_link():
    at = run(COMPARE, models=[QWEN06, LLAMA], attns=["mqa"], kvdtypes=["fp8_e4m3"], runtimes=["ideal", "vllm"],
             gpu="rtx-4090", batch="2", logx="false")
    assert at.multiselect(key="models").value == [QWEN06, LLAMA]
    assert at.multiselect(key="attns").value == ["mqa"]
    assert at.multiselect(key="kvdtypes").value == ["fp8_e4m3"]
    assert at.multiselect(key="runtimes").value == ["ideal", "vllm"]
    assert at.selectbox(key="gpu").value == "rtx-4090"
    assert at.number_input(key="batch").value == 2
    assert at.toggle(key="logx").value is False
    assert not at.warning
    rows = table(at)
    assert len(rows) == 4
    r = row(rows, model=LLAMA, runtime="ideal")
    per_token = 32 * 1 * (128 + 128) * 1                     # MQA, fp8: one KV head, 1 byte per value
    assert r["KV bytes / token"] == per_token
    assert r["longest context, chosen: GeForce RTX 4090 24GB"] == longest(RTX4090 - W_LLAMA, 2 * per_token, LLAMA_MAX)
    assert figure(at)["layout"]["xaxis"]["type"] == "linear"


def test_compare_bad_link_falls_back_with_a_notice():
    at = run(COMPARE, models=["nope/nope"], attns=["bogus"], runtimes=["fast"], batch="abc", gpu="nope", zzz="1")
    text = notices(at)
    for part in ("models='nope/nope'", "attns='bogus'", "runtimes='fast'", "batch='abc'", "gpu='nope'", "zzz"):
        assert part in text
    assert at.multiselect(key="models").value == [LLAMA, QWEN]
    assert at.multiselect(key="runtimes").value == ["vllm"]
    assert at.number_input(key="batch").value == 1
    assert row(table(at), model=LLAMA)["KV bytes / token"] == KV_LLAMA


def test_compare_csv_matches_the_table():
    from paths import load_config

    import kvcalc
    from dashboard import compare
    from kvcalc import scenarios

    cfg = load_config(LLAMA)
    s = scenarios.Scenario(LLAMA, "as configured", "auto", "ideal")
    r = scenarios.evaluate(s, cfg, gpu={"gpu": "h100-sxm", "gpus": 1}, batch=1, variant={},
                           contexts=[1, 1024, LLAMA_MAX], name="H100")
    assert kvcalc.read_spec(cfg).num_layers == 32
    text = compare.to_csv(compare.table_rows([r], 1))
    got = list(csv.DictReader(text.splitlines()))
    assert len(got) == 1
    assert int(got[0]["KV bytes / token"]) == KV_LLAMA
    assert int(got[0]["weights bytes / GPU"]) == W_LLAMA
    assert int(got[0][CLS24]) == 73_979
    assert [p.total for p in r.curve] == [W_LLAMA + t * KV_LLAMA for t in (1, 1024, LLAMA_MAX)]


# ----------------------------------------------------------------------------- GPU fit
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def catalog_rows() -> list[dict]:
    with open(os.path.join(ROOT, "data", "gpus.csv"), encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def heat(at) -> tuple[list[int], list[int], list[list[float]]]:
    fig = figure(at)
    no_bad_numbers(fig)
    h = fig["data"][0]
    return [int(b) for b in h["y"]], [num(c) for c in h["x"]], h["z"]


def test_gpu_fit_default_view():
    at = run(GPU_FIT)
    batches, contexts, z = heat(at)
    assert batches == BATCHES
    assert contexts[-1] == LLAMA_MAX and contexts == sorted(contexts)
    assert all(b > a for a, b in zip(contexts, contexts[1:]))
    # more batch or more context never uses less of the budget
    assert all(z[i][j] <= z[i][j + 1] for i in range(len(z)) for j in range(len(contexts) - 1))
    assert all(z[i][j] <= z[i + 1][j] for i in range(len(z) - 1) for j in range(len(contexts)))
    rows = table(at)
    assert sorted(r["key"] for r in rows) == sorted(r["key"] for r in catalog_rows())   # every GPU of data/gpus.csv
    # vLLM (default): budget = 0.9 x memory; T4 0.9 x 15,360 MiB = 13.5 GiB < 14.96 GiB of weights
    t4 = row(rows, key="t4")
    assert t4["longest context @ batch 1"] == 0 and t4["largest batch @ 8,192 tokens"] == 0
    assert 0.9 * T4 < W_LLAMA
    assert row(rows, key="h100-sxm")["budget GiB"] == round(0.9 * H100 / GiB, 2)
    # vLLM has no Apple (Metal) backend: those cards are rows that say so, not plans
    m3 = row(rows, key="m3-max-128gb")
    assert m3["fits 1 x 8,192"] == "refused" and m3["longest context @ batch 1"] == 0
    assert m3["binding constraint"].startswith("vLLM has no backend for Apple GPUs")
    assert any(c.value.startswith("Computed in") for c in at.caption)


def test_gpu_fit_from_link_ideal_matches_arithmetic():
    at = run(GPU_FIT, runtime="ideal", gpu="h100-sxm", batch="8", ctx="8192", model=LLAMA)
    assert at.radio(key="runtime").value == "ideal"
    assert at.selectbox(key="gpu").value == "h100-sxm"
    assert at.number_input(key="batch").value == 8 and at.number_input(key="ctx").value == 8192
    assert at.selectbox(key="model").value == LLAMA
    assert not at.warning
    batches, contexts, z = heat(at)
    for i, b in enumerate(batches):
        for j, c in enumerate(contexts):
            assert z[i][j] == pytest.approx((W_LLAMA + b * c * KV_LLAMA) / H100, abs=1e-6)
    m = metrics(at)
    assert m["Budget used @ 8 x 8,192"] == f"{(W_LLAMA + 8 * 8192 * KV_LLAMA) / H100:.1%}" == "28.8%"
    assert m["Fits"] == "yes"
    assert num(m["Longest context @ batch 8"]) == longest(H100 - W_LLAMA, 8 * KV_LLAMA, LLAMA_MAX) == 66_242
    assert num(m["Largest batch @ 8,192"]) == (H100 - W_LLAMA) // (8192 * KV_LLAMA) == 64
    rows = table(at)
    r4090 = row(rows, key="rtx-4090")
    assert r4090["longest context @ batch 8"] == longest(RTX4090 - W_LLAMA, 8 * KV_LLAMA, LLAMA_MAX) == 9_247
    assert r4090["largest batch @ 8,192 tokens"] == (RTX4090 - W_LLAMA) // (8192 * KV_LLAMA) == 9
    assert r4090["fits 8 x 8,192"] == "yes"
    t4 = row(rows, key="t4")
    assert t4["longest context @ batch 8"] == (T4 - W_LLAMA) // (8 * KV_LLAMA) == 43
    assert t4["largest batch @ 8,192 tokens"] == 0 and t4["fits 8 x 8,192"] == "no"
    assert row(rows, key="h100-sxm")["budget GiB"] == round(H100 / GiB, 2)


def test_gpu_fit_every_widget(monkeypatch):
    at = run(GPU_FIT, runtime="ideal")
    at.selectbox(key="model").select(QWEN)
    ok(at)
    assert heat(at)[1][-1] == QWEN_MAX
    assert row(table(at), key="h100-sxm")["weights GiB / GPU"] == round(W_QWEN / GiB, 2)

    at.selectbox(key="gpu").select("rtx-4090")
    ok(at)
    assert "GeForce RTX 4090" in at.subheader[0].value
    at.selectbox(key="gpu").select("custom")
    ok(at)
    at.number_input(key="gpu_mem").set_value(48.0)
    ok(at)
    _, contexts, z = heat(at)
    assert z[0][0] == pytest.approx((W_QWEN + contexts[0] * KV_QWEN) / (48 * GiB), abs=1e-6)

    at.number_input(key="batch").set_value(4)
    at.number_input(key="ctx").set_value(4096)
    ok(at)
    assert "Longest context @ batch 4" in metrics(at)
    assert "largest batch @ 4,096 tokens" in table(at)[0]

    at.selectbox(key="kvdtype").select("fp8_e4m3")
    ok(at)
    # ideal: KV in fp8 is half of bf16, so the 24 GB row's longest context doubles (up to rounding)
    r = row(table(at), key="rtx-4090")
    assert r["longest context @ batch 4"] == longest(RTX4090 - W_QWEN, 4 * KV_QWEN // 2, QWEN_MAX)

    at.selectbox(key="wdtype").select("int4")
    ok(at)
    assert row(table(at), key="rtx-4090")["weights GiB / GPU"] < W_QWEN / GiB / 2   # 4-bit body, 16-bit embeddings

    at.radio(key="runtime").set_value("transformers")
    ok(at)
    assert any("DynamicCache" in e.value for e in at.error)      # fp8 KV is not a transformers cache
    at.selectbox(key="kvdtype").select("auto")
    at.selectbox(key="wdtype").select("auto")
    ok(at)
    assert not at.error

    at.number_input(key="gpus").set_value(2)
    ok(at)
    at.number_input(key="pp").set_value(2)       # transformers: pipeline stages
    ok(at)
    assert "2 x" in at.subheader[0].value

    at.radio(key="runtime").set_value("vllm")
    at.selectbox(key="gpu").select("h100-sxm")
    at.number_input(key="pp").set_value(1)
    ok(at)
    assert at.number_input(key="tp").value == 2      # tensor parallel follows GPUs / PP (2 / 1)
    assert row(table(at), key="h100-sxm")["weights GiB / GPU"] == pytest.approx(W_QWEN / 2 / GiB, abs=0.01)
    at.number_input(key="gpus").set_value(1)
    at.slider(key="util").set_value(0.5)
    ok(at)
    assert row(table(at), key="h100-sxm")["budget GiB"] == round(0.5 * H100 / GiB, 2)
    at.number_input(key="mml").set_value(8192)
    ok(at)
    assert heat(at)[1][-1] == 8192
    at.selectbox(key="block").select(32)
    ok(at)
    assert "blocks of 32 tokens" in row(table(at), key="h100-sxm")["binding constraint"]
    at.number_input(key="seqs").set_value(3)
    ok(at)
    assert row(table(at), key="h100-sxm")["largest batch @ 4,096 tokens"] == 3
    at.number_input(key="mnbt").set_value(4096)
    ok(at)
    assert at.number_input(key="mnbt").value == 4096

    # model sources: pasted text, an uploaded file, a Hub id (offline: no network in tests)
    at.radio(key="source").set_value("paste")
    ok(at)
    assert any("Paste or upload" in e.value for e in at.error)
    with open(config_path("Qwen__Qwen3-0.6B.json"), "rb") as f:
        raw = f.read()
    at.text_area(key="pasted").set_value(raw.decode())
    ok(at)
    assert not at.error and row(table(at), key="h100-sxm")["GPU"]
    at.text_area(key="pasted").set_value("{not json")
    ok(at)
    assert len(at.error) == 1 and "\n" not in at.error[0].value
    at.text_area(key="pasted").set_value("")
    at.file_uploader(key="uploaded").upload("config.json", raw, "application/json")
    ok(at)
    assert not at.error

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    at.radio(key="source").set_value("hub")
    ok(at)
    assert any("Hugging Face model id" in e.value for e in at.error)
    at.text_input(key="hf_token_input").set_value("hf_" + "x" * 30)
    at.text_input(key="hub").set_value("someone/not-bundled-model")
    ok(at)
    assert len(at.error) == 1
    assert "hf_xxx" not in " ".join(e.value for e in at.error)


def test_gpu_fit_bad_link_falls_back_with_a_notice():
    at = run(GPU_FIT, model="nope/nope", runtime="warp", batch="-3", ctx="1e9", util="2", block="7")
    text = notices(at)
    for part in ("model='nope/nope'", "runtime='warp'", "batch='-3'", "ctx='1e9'", "util='2'", "block='7'"):
        assert part in text
    assert at.selectbox(key="model").value == LLAMA
    assert at.radio(key="runtime").value == "vllm"
    assert heat(at)[0] == BATCHES


# ----------------------------------------------------------------------------- How it works
def variants(at) -> dict[str, dict]:
    return {r["attention"]: r for r in table(at, 0)}


def kv_dtypes(at) -> dict[str, dict]:
    return {r["KV dtype"].split(" ")[0]: r for r in table(at, 1)}


def test_how_it_works_default_view():
    at = run(HOW)
    m = metrics(at)
    exact = exact_bytes(at)                                                        # the value has units
    assert (m["KV bytes / token"], exact["KV bytes / token"]) == ("128.00 KiB", KV_LLAMA)
    assert (m["KV at 32,768 tokens, batch 1"], exact["KV at 32,768 tokens, batch 1"]) == ("4.00 GiB", 32_768 * KV_LLAMA)
    assert exact["KV at 32,768 tokens, batch 8"] == 8 * 32_768 * KV_LLAMA
    assert any("32 \\times 8 \\times (128 + 128) \\times 2" in l.value for l in at.latex)
    v = variants(at)
    assert v["as configured"]["bytes / token (below the window)"] == KV_LLAMA
    assert v["MHA"]["bytes / token (below the window)"] == 32 * 32 * 256 * 2
    assert v["MQA"]["bytes / token (below the window)"] == 32 * 1 * 256 * 2
    assert v["GQA, 4 KV heads"]["bytes / token (below the window)"] == 32 * 4 * 256 * 2
    assert v["sliding window 4,096, every layer"]["bytes at 32,768 tokens"] == 4096 * KV_LLAMA
    # 5 local : 1 global over 32 layers: layers 5, 11, 17, 23, 29 stay full -> 5 full + 27 windowed
    per_layer = KV_LLAMA // 32
    assert v["sliding window 4,096, 5 local : 1 global"]["bytes at 32,768 tokens"] == \
        5 * 32_768 * per_layer + 27 * 4096 * per_layer
    q = kv_dtypes(at)
    assert q["bfloat16"]["bytes / token"] == KV_LLAMA
    assert q["fp8_e4m3"]["bytes / token"] == KV_LLAMA // 2
    assert q["int8"]["bytes / token"] == 32 * 8 * 2 * (128 + 8)
    assert q["int4"]["bytes / token"] == 32 * 8 * 2 * (64 + 8)
    assert q["int2"]["bytes / token"] == 32 * 8 * 2 * (32 + 8)
    # Llama is not MLA: the section uses the bundled DeepSeek-V2-Lite
    assert exact_bytes(at)["DeepSeek-V2-Lite: latent bytes / token"] == 27 * (512 + 64) * 2
    assert exact_bytes(at)["expanded per-head K/V bytes / token"] == 27 * 16 * (128 + 64 + 128) * 2
    runtimes = {r["runtime"]: r for r in table(at, 2)}
    assert runtimes["ideal"]["bytes at 32,768 tokens (batch 1)"] == 32_768 * KV_LLAMA
    assert runtimes["vllm"]["bytes at 32,768 tokens (batch 1)"] == 32_768 * KV_LLAMA   # 2,048 whole blocks
    text = " ".join(x.value for x in at.markdown)
    assert "SOURCES.md" in text and "gpus.csv" in text and "params.csv" in text
    assert "huggingface.co/meta-llama/Llama-3.1-8B" in text
    assert not at.warning and not at.error


def test_how_it_works_states_the_coverage_count():
    """Issue 12: the page states the count, from the same enumeration as docs/architectures.md."""
    with open(os.path.join(ROOT, "data", "coverage.csv"), encoding="utf-8") as f:
        c = {r["count"]: int(r["value"]) for r in csv.DictReader(f)}
    at = run(HOW)
    text = " ".join(m.value for m in at.markdown)
    assert f"{c['both_exact']:,} of {c['in_scope']:,} text-generation architectures in transformers 5.24 verified " \
        "exactly" in text


def test_how_it_works_every_widget(monkeypatch):
    at = run(HOW)
    at.selectbox(key="model").select(DSV2L)
    ok(at)
    assert metrics(at)["KV bytes / token"] == "30.38 KiB"                  # 31,104 B, with units
    assert exact_bytes(at)["KV bytes / token"] == 27 * (512 + 64) * 2
    assert exact_bytes(at)["DeepSeek-V2-Lite: latent bytes / token"] == 27 * (512 + 64) * 2
    assert any("27 \\times (512 + 64) \\times 2" in l.value for l in at.latex)

    at.selectbox(key="model").select(LLAMA)
    at.number_input(key="ctx").set_value(8192)
    ok(at)
    assert metrics(at)["KV at 8,192 tokens, batch 1"] == "1.00 GiB"        # 8,192 x 131,072 B = 2**30
    assert exact_bytes(at)["KV at 8,192 tokens, batch 1"] == 8192 * KV_LLAMA
    at.number_input(key="attn_kv").set_value(2)
    ok(at)
    assert variants(at)["GQA, 2 KV heads"]["bytes / token (below the window)"] == 32 * 2 * 256 * 2
    at.number_input(key="attn_kv").set_value(5)                 # 32 query heads: 5 does not divide
    ok(at)
    assert any("GQA" in i.value and "divides" in i.value for i in at.info)
    at.number_input(key="attn_window").set_value(1024)
    ok(at)
    assert variants(at)["sliding window 1,024, every layer"]["bytes at 8,192 tokens"] == 1024 * KV_LLAMA

    at.radio(key="source").set_value("paste")
    ok(at)
    with open(config_path("Qwen__Qwen3-0.6B.json"), encoding="utf-8") as f:
        at.text_area(key="pasted").set_value(f.read())
    ok(at)
    assert exact_bytes(at)["KV bytes / token"] == KV_QWEN06
    at.text_area(key="pasted").set_value("")
    at.file_uploader(key="uploaded").upload("config.json", b"[1, 2]", "application/json")
    ok(at)
    assert len(at.error) == 1

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    at.radio(key="source").set_value("hub")
    ok(at)
    at.text_input(key="hf_token_input").set_value("hf_" + "y" * 30)
    at.text_input(key="hub").set_value(QWEN)      # bundled: offline falls back to the snapshot, with a notice
    ok(at)
    assert exact_bytes(at)["KV bytes / token"] == KV_QWEN
    assert at.info


def test_how_it_works_from_link():
    at = run(HOW, model=QWEN, ctx="4096", attn_kv="1", attn_window="512")
    assert at.selectbox(key="model").value == QWEN
    assert at.number_input(key="ctx").value == 4096
    assert not at.warning
    assert metrics(at)["KV bytes / token"] == "144.00 KiB"                 # 147,456 B, with units
    assert exact_bytes(at)["KV bytes / token"] == KV_QWEN
    assert exact_bytes(at)["KV at 4,096 tokens, batch 1"] == 4096 * KV_QWEN
    v = variants(at)
    assert v["GQA, 1 KV heads"]["bytes / token (below the window)"] == 36 * 1 * 256 * 2
    assert v["sliding window 512, every layer"]["bytes at 4,096 tokens"] == 512 * KV_QWEN


def test_how_it_works_bad_link_falls_back_with_a_notice():
    at = run(HOW, model="../etc/passwd", ctx="lots", source="ftp", extra="x")
    text = notices(at)
    for part in ("model='../etc/passwd'", "ctx='lots'", "source='ftp'", "extra"):
        assert part in text
    assert at.selectbox(key="model").value == LLAMA
    assert exact_bytes(at)["KV bytes / token"] == KV_LLAMA


def test_compare_has_the_estimated_decode_speed_of_each_scenario():
    """Issue 15: a tokens/s column. Llama-3.1-8B bf16 on one H100 SXM (3,350 GB/s x the default 0.76):
    a step at 4,096 tokens reads the weights less the 128,256 x 4,096 x 2 B input table but its one row,
    and 4,096 x 131,072 B of cache; and the MQA what-if reads an eighth of that cache, so it is faster."""
    from paths import load_config

    from dashboard import compare
    from kvcalc import scenarios
    from kvcalc.speed import DEFAULT_BANDWIDTH_EFFICIENCY, LAYER_OVERHEAD_S

    cfg = load_config(LLAMA)
    rows = []
    for attn in ("as configured", "mqa"):
        s = scenarios.Scenario(LLAMA, attn, "auto", "vllm")
        r = scenarios.evaluate(s, cfg, gpu={"gpu": "h100-sxm", "gpus": 1}, batch=1, variant={},
                               contexts=[1, 1024, 4096], name="H100")
        rows += compare.table_rows([r], 1)
    # plus the fixed cost of 32 layers' kernels per step (kvcalc.speed.LAYER_OVERHEAD_S, fitted on published rows)
    step = (W_LLAMA - 128_256 * 4096 * 2 + 4096 * 2 + 4096 * KV_LLAMA) / (3350e9 * DEFAULT_BANDWIDTH_EFFICIENCY) \
        + 32 * LAYER_OVERHEAD_S
    assert rows[0][compare.SPEED_COLUMN] == round(1 / step, 1)
    assert rows[1][compare.SPEED_COLUMN] > rows[0][compare.SPEED_COLUMN]
    # time to first token: 2 x 8,030,261,248 x 4,096 + 32 layers x 2 x 32 heads x 256 x 4,096 x 4,097 / 2
    # FLOPs over 989 TFLOP/s x the default 0.80 (compute bound on an H100)
    # the weights' read overlaps the compute but for kvcalc.speed.PREFILL_OVERLAP of it, and the layers' fixed cost
    from kvcalc.speed import DEFAULT_COMPUTE_EFFICIENCY, PREFILL_LAYER_OVERHEAD_S, PREFILL_OVERLAP, TTFT_FIXED_S
    flops = 2 * 8_030_261_248 * 4096 + 32 * 2 * 32 * 256 * (4096 * 4097 // 2)
    c = flops / (989e12 * DEFAULT_COMPUTE_EFFICIENCY)
    m = (W_LLAMA + 4096 * KV_LLAMA) / (3350e9 * DEFAULT_BANDWIDTH_EFFICIENCY)
    ttft = max(c, m) + PREFILL_OVERLAP * min(c, m) + 32 * (LAYER_OVERHEAD_S + PREFILL_LAYER_OVERHEAD_S) + TTFT_FIXED_S
    assert rows[0][compare.TTFT_COLUMN] == round(ttft * 1e3, 1)


# ----------------------------------------------------------------------------- across pages (issue 14 item 6-8)
def switch(at, page: str):
    at.switch_page(page)
    return ok(at)


def test_inputs_carry_over_between_pages():
    """Streamlit's navigation drops the link and the page's widget state; the model, GPU, workload,
    dtypes, runtime and options follow the user anyway."""
    at = run(PLANNER, model=QWEN, gpu="rtx-4090", gpus="2", batch="4", ctx="4096", runtime="ideal", kvdtype="fp8_e4m3")
    switch(at, GPU_FIT)
    assert at.selectbox(key="model").value == QWEN
    assert at.selectbox(key="gpu").value == "rtx-4090"
    assert at.number_input(key="gpus").value == 2
    assert at.number_input(key="batch").value == 4 and at.number_input(key="ctx").value == 4096
    assert at.radio(key="runtime").value == "ideal" and at.selectbox(key="kvdtype").value == "fp8_e4m3"
    assert not at.warning                          # leftovers of the page before are not a "bad link"
    at.selectbox(key="model").select(QWEN06)
    ok(at)
    switch(at, HOW)
    assert at.selectbox(key="model").value == QWEN06
    assert at.number_input(key="ctx").value == 4096
    assert not at.warning
    switch(at, COMPARE)
    assert at.multiselect(key="models").value == [QWEN06, LLAMA]
    assert at.multiselect(key="runtimes").value == ["ideal"]
    assert at.multiselect(key="kvdtypes").value == ["fp8_e4m3"]
    assert at.selectbox(key="gpu").value == "rtx-4090"
    assert not at.warning
    switch(at, PLANNER)
    assert at.selectbox(key="model").value == QWEN06 and at.radio(key="runtime").value == "ideal"


def test_compare_gives_the_planners_answer():
    """Issue 14: the same model and GPU gave 73,979 tokens on Compare (ideal) and 46,672 on the
    Planner (vllm). Compare now uses the Planner's runtime and options, so the two pages agree."""
    at = run(PLANNER, gpu="rtx-4090", util="0.8", block="32")
    planner = num(metrics(at)["Longest context"].removesuffix(" tokens"))
    switch(at, COMPARE)
    assert at.multiselect(key="runtimes").value == ["vllm"]
    assert at.slider(key="util").value == 0.8 and at.selectbox(key="block").value == 32
    r = row(table(at), model=LLAMA)
    assert r["longest context, chosen: GeForce RTX 4090 24GB"] == r[CLS24] == planner
    fresh = run(COMPARE, gpu="rtx-4090", util="0.8", block="32")          # the same view from its link
    assert row(table(fresh), model=LLAMA)[CLS24] == planner


def test_gpus_win_over_a_disagreeing_tp_with_a_notice():
    at = run(GPU_FIT, model=LLAMA, gpu="h100-sxm", gpus="4", tp="2", runtime="ideal")
    assert "the GPU count wins" in notices(at) and "planning TP 4 x PP 1" in notices(at)
    assert at.number_input(key="tp").value == 4
    same = run(GPU_FIT, model=LLAMA, gpu="h100-sxm", gpus="4", tp="4", runtime="ideal")
    assert not at.error and "GPU count" not in notices(same)
    assert table(at) == table(same)
    at = run(GPU_FIT, model=LLAMA, gpu="h100-sxm", gpus="4", pp="3", runtime="ideal")
    assert "pipeline parallel 3 does not divide 4 GPUs" in notices(at)
    assert at.number_input(key="pp").value == 1 and at.number_input(key="tp").value == 4
    at.number_input(key="pp").set_value(2)            # a user's own change: TP follows, no notice
    ok(at)
    assert at.number_input(key="tp").value == 2 and "GPU count" not in notices(at)


def _config_link(config: dict) -> str:
    from dashboard.config_link import encode_config

    return encode_config(config)


def test_a_pasted_config_is_shared_through_the_link():
    import base64
    import zlib

    cfg = {**load_config(QWEN06), "_name_or_path": "acme/*tuned* qwen"}
    at = run(GPU_FIT, source="paste", runtime="ideal", gpu="rtx-4090")
    at.text_area(key="pasted").input(json.dumps(cfg))
    ok(at)
    link = at.query_params["cfg"]
    link = link[0] if isinstance(link, list) else link
    assert json.loads(zlib.decompress(base64.urlsafe_b64decode(link + "=" * (-len(link) % 4)))) == cfg
    assert at.subheader[0].value.startswith(r"acme/\*tuned\* qwen on 1 x")      # the config's name, as text
    opened = run(GPU_FIT, source="paste", runtime="ideal", gpu="rtx-4090", cfg=link)     # a fresh session
    assert not opened.warning
    assert opened.subheader[0].value == at.subheader[0].value
    bundled_plan = run(GPU_FIT, model=QWEN06, runtime="ideal", gpu="rtx-4090")
    assert table(opened) == table(bundled_plan)               # the same geometry plans the same
    assert any(r["memory GiB"] for r in table(opened))


def test_a_bad_config_link_falls_back_to_the_default_model():
    link = _config_link(load_config(QWEN06))
    at = run(GPU_FIT, source="paste", cfg="A" + link[2:], runtime="ideal")
    assert "cfg=" in notices(at) and "showing the default model instead" in notices(at)
    assert at.radio(key="source").value == "bundled"
    assert at.selectbox(key="model").value == LLAMA
    assert "cfg" not in at.query_params


def test_an_uploaded_config_is_titled_by_its_file_name():
    cfg = {k: v for k, v in load_config(QWEN06).items() if k != "_name_or_path"}
    at = run(GPU_FIT, source="paste", runtime="ideal", cfg=_config_link(cfg), cfg_name="my-model.json")
    assert at.subheader[0].value.startswith("my-model.json on 1 x")


def test_a_mistyped_hub_id_is_not_found_not_a_bad_link(fake_hub):
    at = run(GPU_FIT, source="hub")
    at.text_input(key="hub").input("acme/no-such-model")
    ok(at)
    ok(at)                                              # the rerun that reads the link the box wrote
    assert not at.warning
    assert any("was not found on the Hugging Face Hub" in e.value for e in at.error)
    at.text_input(key="hub").input("not an id")
    ok(at)
    ok(at)
    assert not at.warning
    assert at.error                                     # the box's own message, under the box


def test_a_config_too_large_for_a_link_says_so():
    cfg = {**load_config(QWEN06), "notes": os.urandom(6000).hex()}       # 12,000 random hex digits: incompressible
    at = run(GPU_FIT, source="paste", runtime="ideal")
    at.text_area(key="pasted").input(json.dumps(cfg))
    ok(at)
    assert any("too large to share in a link" in i.value for i in at.info)
    assert "cfg" not in at.query_params
    assert at.subheader                                      # it still plans


def test_compare_shows_the_answer_columns_first():
    """Issue 14: the longest-context columns were off screen at 1,440 px. They now come right after
    the scenario, with short headers (the full name is the column's help and the CSV header)."""
    from dashboard import compare

    at = run(COMPARE, gpu="rtx-4090")
    cols = list(table(at)[0])
    assert cols[:5] == ["scenario", "longest context, chosen: GeForce RTX 4090 24GB", CLS16, CLS24, CLS80]
    assert [compare.short_header(c) for c in cols[1:5]] == [
        "longest @ chosen GPU", "longest @ 16 GB (T4)", "longest @ 24 GB (RTX 4090)", "longest @ 80 GB (H100)"]


def test_compare_speed_columns_show_one_decimal_each():
    """A browser check read '147' beside '150.2' in Compare's speed columns (a float rounded to 147.0 is shown
    without its decimal): every speed column is a number column formatted '%.1f', the rest keep their type."""
    from dashboard import compare

    cols = list(compare.speed_columns(8192)) + ["longest context, chosen: GeForce RTX 4090 24GB"]
    config = compare.column_config([dict.fromkeys(cols, 147.0)])
    assert [config[c]["type_config"].get("format") for c in cols[:4]] == ["%.1f"] * 4
    assert config[cols[4]].get("type_config") in (None, {})
