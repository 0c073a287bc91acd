"""Share-link fuzzing: random and hostile query strings on every page (AppTest, fixed seed).

Each page gets at least 200 generated query strings: unknown keys, wrong types, huge numbers,
empty values, repeated keys, unicode, Hub ids with ``../``, very long values, Markdown (images,
links, bare URLs, directives) in keys and values. Every page must
render without an exception, show a fall-back notice whenever a value is invalid (expectations
come from the hand-written tables below, not from the app's own validator), keep charts and
tables free of NaN / infinity / negative sizes, show no notice with live Markdown in it, and make no
Hub request for an invalid Hub id.
"""
from __future__ import annotations

import json
import math
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import ROOT

import kvcalc.hub

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

PAGES = {"planner": "app.py", "compare": "pages/1_Compare.py", "gpu_fit": "pages/2_GPU_fit.py",
         "how_it_works": "pages/3_How_it_works.py"}
LONG = "9" * 5000
# Markdown that would be live if a notice interpreted it: an image from any host, a link, an
# autolink, a bare URL, emphasis / code / math, a Streamlit directive
MARKDOWN = ["![x](http://tracker.example/t.png)", "[text](http://evil.example/)", "<http://evil.example/>",
            "http://evil.example/x", "**b** `c` $x$", ":red[r]"]
# live markup in a notice body: an unescaped [..]( , an autolink <scheme: , a bare URL scheme
LIVE = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\(|(?<!\\)<[a-z]+:|https?://|(?<![\\\w]):[a-z]+\[", re.IGNORECASE)

# key -> (valid values, invalid values); invalid ones must trigger the notice
TABLE: dict[str, tuple[list[str], list[str]]] = {
    "batch": (["1", "8", "65536"], ["0", "-3", "abc", "1e9", "65537", "NaN", "", LONG, "８"]),
    "ctx": (["1", "4096", "131072"], ["0", "99999999999", "1.5", "∞", ""]),
    "gpus": (["1", "2", "64"], ["65", "0", "two"]),
    "gpu": (["h100-sxm", "rtx-4090", "t4", "custom"], ["H100", "nope", "../../etc", "", "rtx 4090"]),
    "gpu_mem": (["24", "79.19"], ["0", "-1", "inf", "nan", "1e309", "lots"]),
    "runtime": (["vllm", "ideal", "transformers"], ["tgi", "VLLM", ""]),
    "model": (["meta-llama/Llama-3.1-8B", "Qwen/Qwen3-8B", "google/gemma-3-1b-it"],
              ["meta-llama/Llama-9", "../etc/passwd", "x" * 300, *MARKDOWN]),
    "hub": (["acme/not-there"], ["../etc/passwd", "a--b/c", "no slash at all", "acme/../x", "ü/ß", "a/b/c",
                                 *MARKDOWN]),
    "source": (["bundled", "hub", "paste"], ["file", "Hub id"]),
    "wdtype": (["auto", "int4", "float16"], ["int3", "fp4"]),
    "kvdtype": (["auto", "fp8_e4m3", "int2"], ["int3", "fp16x"]),
    "util": (["0.9", "0.5", "1.0"], ["1.5", "0", "-0.2", "nan"]),
    "logx": (["true", "false"], ["yes", "2"]),
    "attn": (["mha", "sliding", "as configured"], ["mla", "rope"]),
    "attn_pattern": (["5:1", "all"], ["foo", "1:2", "5:1; drop table", *MARKDOWN]),
    "models": (["Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B"], ["nope/none", "../x"]),
    "vllm_ver": (["0.33", "0.10"], ["0.9", "v0.33", "latest", "0.33.0"]),
    "spec": (["none", "mtp", "eagle", "eagle3", "ngram", "suffix"], ["medusa", "EAGLE", "draft_model"]),
    "spec_tokens": (["1", "4", "64"], ["0", "65", "-1", "two"]),
    "offload": (["0", "2", "40.5", "4097"], ["-1", "nan", "inf", "1048577", "lots"]),   # vLLM: 0..2**20 GiB
    "loras": (["0", "1", "8"], ["-1", "1025", "1.5", "x"]),
    "lora_rank": (["8", "16", "512"], ["7", "0", "1024", "r16"]),
    "long_mml": (["true", "false"], ["yes", "1"]),
}
UNKNOWN = ["zzz", "utm_source", "batch_size", "__proto__", "ключ", "a" * 100, *MARKDOWN]
HUB_CALLS: list[str] = []


def _record_run(original):
    def run(ctx, work):
        HUB_CALLS.append(ctx.repo_id)
        return original(ctx, work)
    return run


@pytest.fixture(autouse=True)
def offline_hub(monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")     # discard port: nothing listens
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(kvcalc.hub.mapping, "run", _record_run(kvcalc.hub.mapping.run))
    HUB_CALLS.clear()


entries = st.one_of(
    st.sampled_from(sorted(TABLE)).flatmap(lambda k: st.tuples(st.just(k), st.booleans(), st.sampled_from(TABLE[k][0]),
                                                                st.sampled_from(TABLE[k][1]))),
)
unknown = st.tuples(st.sampled_from(UNKNOWN), st.text(max_size=20))


def build(picks, extras, repeat):
    """query dict (key -> str or list of str) and the keys whose value is invalid by construction."""
    query: dict[str, object] = {}
    invalid: set[str] = set()
    for key, bad, good_value, bad_value in picks:
        query[key] = bad_value if bad else good_value
        if bad:
            invalid.add(key)
        else:
            invalid.discard(key)
    for key, value in extras:
        query[key] = value
        invalid.add(key)
    if repeat and picks:
        key = picks[0][0]
        if key != "models":
            query[key] = [str(query[key]), str(query[key]) + "0"]
            invalid.add(key)
    return query, invalid


def finite_and_non_negative(at) -> None:
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        for trace in spec.get("data", []):
            for axis in ("z",) if trace.get("type") == "heatmap" else ("y",):
                values = trace.get(axis) or []
                flat = [v for row in values for v in (row if isinstance(row, list) else [row])]
                assert all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in flat if v is not None)
    for frame in at.dataframe:
        for column in frame.value.select_dtypes("number").columns:
            values = frame.value[column].tolist()
            if "(estimated)" in column:
                # Compare's speed cells are empty by design where the GPU has no figure or the batch does not run
                # at that context (dashboard.compare.table_rows): empty, never infinite or negative
                values = [v for v in values if not math.isnan(v)]
            assert all(math.isfinite(v) and v >= 0 for v in values), column


FUZZ = settings(max_examples=200, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.mark.parametrize("page", sorted(PAGES))
@FUZZ
@given(picks=st.lists(entries, max_size=5), extras=st.lists(unknown, max_size=2), repeat=st.booleans())
def test_hostile_links_render_with_a_notice(page, picks, extras, repeat):
    query, invalid = build(picks, extras, repeat)
    HUB_CALLS.clear()
    at = AppTest.from_file(os.path.join(ROOT, PAGES[page]), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    notices = " ".join(w.value for w in at.warning)
    relevant = {k for k in invalid if k in TABLE or k in dict(UNKNOWN_KEYS)}
    if relevant:
        assert "fell back to defaults" in notices, (query, notices)
    hub = query.get("hub")
    if isinstance(hub, str) and "hub" in invalid:
        assert hub not in HUB_CALLS, "a Hub request was made for an invalid id"
    finite_and_non_negative(at)
    for kind in ("warning", "error", "info", "caption"):
        for element in at.get(kind):
            assert not LIVE.search(element.value), (query, element.value)       # Markdown shown as text


UNKNOWN_KEYS = [(k, None) for k in UNKNOWN]
