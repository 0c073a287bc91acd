"""The Workload page (AppTest): the issue's case, the share link's round trip, a bad link, a colocation over
the device, and the link encoding of the co-located instances.

Expected values are hand arithmetic on the bundled Llama-3.1-8B config (32 layers, 8 KV heads, head_dim 128,
bf16) and data/gpus.csv, never the page's own output.
"""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
from apptest import rerun, run_page

from dashboard.workload_state import (
    DEFAULT_INSTANCES,
    MAX_INSTANCES,
    InstanceRow,
    decode_instances,
    encode_instances,
    instances_error,
)

WORKLOAD = "pages/4_Workload.py"
MiB, GiB = 2**20, 2**30
# one vLLM block of 16 tokens: 32 layers x (K + V) x 8 heads x 128 x 2 B x 16 = 2 MiB
BLOCK = 32 * 2 * 8 * 128 * 2 * 16
H100 = 81_559 * MiB                      # data/gpus.csv h100-sxm: 85,520,809,984 B
ISSUE = {"wl_kvmem": "20", "wl_prefix": "4096"}      # 20 GiB / 2 MiB = 10,240 blocks; max_model_len = ctx 8,192


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_issue_case_shows_39_at_once():
    assert BLOCK == 2 * MiB and 20 * GiB // BLOCK == 10_240
    at = run_page(WORKLOAD, **ISSUE)
    m = metrics(at)
    # 8,192 / 16 = 512 blocks a request; 4,096 / 16 = 256 shared: (10,240 - 256) / (512 - 256) = 39
    assert (10_240 - 256) / (512 - 256) == 39.0
    assert m["Effective concurrency"] == "39.00x"
    assert m["Worst case (nothing shared)"] == f"{10_240 / 512:.2f}x" == "20.00x"      # vLLM's own line
    # the null block: floor((10,240 - 1 - 256) / 256) = 38 whole requests, 38 x 256 + 256 = 9,984 blocks
    assert m["Whole requests at once"] == f"{(10_240 - 1 - 256) // 256} requests" == "38 requests"
    assert m["Blocks resident"] == f"{38 * 256 + 256:,} blocks"
    # lengths (defaults 1,500 / 3,000 in, 300 / 600 out): (10,239 x 16) / (1,500 + 300 / 2 + 16 / 2) = 98.8
    assert m["Expected at once"] == f"{10_239 * 16 / 1_658:.1f} requests" == "98.8 requests"
    # offload (default 100 GiB, vLLM native): 100 GiB / 2 MiB = 51,200 blocks x 16 = 819,200 tokens
    assert m["Off the GPU (tokens)"] == f"{100 * GiB // BLOCK * 16:,}"
    assert not at.warning and not at.error
    assert any("(10,240 - 256) / (512 - 256) = 39.00" in c.value for c in at.caption)
    assert any("Requests of 8,192 tokens each" in c.value for c in at.caption)


ROUND_TRIP = {"gpu": "a100-80gb", "ctx": "16384", "wl_kvmem": "24", "wl_prefix": "1000",
              "wl_hit": "0.5", "wl_in": "1000", "wl_in95": "2500", "wl_out": "200", "wl_out95": "500",
              "wl_off": "50", "wl_conn": "lmcache", "wl_link": "pcie4",
              "wl_colo": "vllm:Qwen/Qwen3-0.6B=0.3@4096,vllm:Qwen/Qwen3-8B=0.6@8192"}


def shared_link(at) -> dict[str, str]:
    """The query string of the page's "Copy share link" box, as one value per key."""
    text = at.sidebar.code[-1].value
    return {k: v[0] for k, v in parse_qs(urlsplit(text).query).items()}


def test_every_input_in_the_link_and_reopening_it_reproduces_the_numbers():
    at = run_page(WORKLOAD, **ROUND_TRIP)
    assert not at.warning, [w.value for w in at.warning]
    link = shared_link(at)
    assert link == ROUND_TRIP                      # every input the link set is in the share link
    again = run_page(WORKLOAD, **link)            # a fresh session opened with the share link
    assert metrics(again) == metrics(at)
    assert metrics(at)["Effective concurrency"] != metrics(run_page(WORKLOAD))["Effective concurrency"]
    assert [c.value for c in again.code] == [c.value for c in at.code]        # the launch commands too
    assert shared_link(again) == ROUND_TRIP and not again.warning
    # a widget changed in the session reruns with its value (the browser test checks it reaches the link)
    at.number_input(key="wl_prefix").set_value(3000)
    rerun(at)
    assert metrics(at) != metrics(again)


def test_a_bad_link_value_falls_back_to_the_defaults_with_a_notice():
    plain = metrics(run_page(WORKLOAD))
    too_many = ",".join(["vllm:Qwen/Qwen3-0.6B=0.1@4096"] * (MAX_INSTANCES + 1))
    at = run_page(WORKLOAD, wl_prefix="-1", wl_hit="2", wl_conn="nvme", wl_colo=too_many)
    notice = " ".join(w.value for w in at.warning)
    assert "fell back to defaults" in notice
    for key in ("wl\\_prefix", "wl\\_hit", "wl\\_conn", "wl\\_colo"):
        assert key in notice
    assert "more than 8" in notice
    assert metrics(at) == plain
    assert "wl_colo" not in at.query_params


def test_a_colocation_over_the_device_is_refused():
    at = run_page(WORKLOAD, wl_colo="vllm:meta-llama/Llama-3.1-8B=0.6@8192,vllm:Qwen/Qwen3-0.6B=0.5@8192")
    # ceil(0.6 x 85,520,809,984) = 51,312,485,991 B; ceil(0.5 x ...) = 42,760,404,992 B; in all 94,072,890,983 B
    first, second = -(-H100 * 6 // 10), H100 // 2
    assert (first, second) == (51_312_485_991, 42_760_404_992)
    assert metrics(at)["Asked in all"] == f"{(first + second) / GiB:,.2f} GiB" == "87.61 GiB"
    # the second sees total - first - 2 CUDA contexts of 512 MiB = 33,134,582,169 B free: less than it asks
    free = H100 - first - 2 * 512 * MiB
    assert free == 33_134_582_169 < second
    errors = " ".join(e.value for e in at.error)
    assert (f"Refused: instance 2 (Qwen/Qwen3-0.6B) asks {second / GiB:,.2f} GiB but {free / GiB:,.2f} GiB are free"
            in errors.replace("\\", ""))
    assert "vllm serve Qwen/Qwen3-0.6B" in at.code[0].value and "--port 8001" in at.code[0].value


@pytest.mark.parametrize("gpu", ["rtx-4090", "rtx-3090", "rtx-5090", "h100-sxm"])
def test_the_default_table_starts_on_a_24_gb_card_and_up(gpu):
    """A fresh page's pair (Llama-3.1-8B at 0.75, Qwen3-0.6B at 0.2, 8,192 tokens each) on a 24 GB card: the first asks
    ceil(0.75 x 25,757,220,864) = 19,317,915,648 B (RTX 4090: 24,564 MiB), 14.96 GiB of it weights, and the second
    sees 25,757,220,864 - 19,317,915,648 - 2 x 512 MiB = 5,365,563,392 B free, more than its 0.2 x 24,564 MiB; no
    red box, where the 0.5 / 0.4 pair was refused on every 24 GB card."""
    at = run_page(WORKLOAD, gpu=gpu)
    assert not at.error, [e.value for e in at.error]
    assert not at.exception
    if gpu == "rtx-4090":
        total = 24_564 * MiB
        first = -(-total * 75 // 100)
        assert (total, first) == (25_757_220_864, 19_317_915_648)
        assert total - first - 2 * 512 * MiB == 5_365_563_392 > total * 2 // 10


def test_an_instance_whose_kv_cannot_hold_one_request_is_refused_with_its_numbers():
    """On an L4 the default pair's Llama-3.1-8B (0.75 of 23,034 MiB) has memory to start but a KV cache shorter than
    its 8,192-token max_model_len: vLLM refuses it at startup, so the box gives the cache's tokens and the share of one
    request, and the table does not say it starts."""
    at = run_page(WORKLOAD, gpu="l4")
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "instance 1 (meta-llama/Llama-3.1-8B): its KV cache holds " in errors
    assert "x one max_model_len request, so vLLM refuses to start it" in errors
    table = next(df.value for df in at.dataframe if "starts" in df.value.columns)
    assert table["starts"].tolist()[0] == "no"


def test_an_engine_that_cannot_colocate_is_refused_in_words():
    at = run_page(WORKLOAD, wl_colo="sglang:Qwen/Qwen3-0.6B=0.3@4096")
    assert any("only vLLM instances are modelled side by side" in e.value for e in at.error)


@pytest.mark.parametrize("runtime", ["ideal", "transformers", "sglang", "tensorrt_llm", "llama_cpp"])
def test_every_runtime_renders_without_a_traceback(runtime):
    at = run_page(WORKLOAD, runtime=runtime)
    assert at.metric


def test_instances_encoding_is_strict_and_round_trips():
    text = encode_instances(DEFAULT_INSTANCES)
    assert decode_instances(text) == DEFAULT_INSTANCES
    assert decode_instances(encode_instances([InstanceRow("Qwen/Qwen3-0.6B", "vllm", 0.125, 1)])) == (
        InstanceRow("Qwen/Qwen3-0.6B", "vllm", 0.125, 1),)
    bad = ["", "vllm:Qwen/Qwen3-0.6B=0.3", "vllm:Qwen/Qwen3-0.6B=0@8192", "vllm:Qwen/Qwen3-0.6B=1.01@8192",
           "vllm:acme/unknown=0.3@8192", "warp:Qwen/Qwen3-0.6B=0.3@8192", "vllm:Qwen/Qwen3-0.6B=0.3@0",
           "vllm:Qwen/Qwen3-0.6B=0.3@8192,", "vllm:Qwen/Qwen3-0.6B=0.3@999999999",
           "vllm:Qwen/Qwen3-0.6B=0.3@8192;rm", ",".join(["vllm:Qwen/Qwen3-0.6B=0.1@1"] * 9)]
    for value in bad:
        assert instances_error(value) is not None, value
        assert decode_instances(value) is None


def test_export_names_what_it_describes_and_carries_the_workload_figures():
    from dashboard.workload import export_json
    from kvcalc.catalog import bundled_config
    from kvcalc.scenarios import plan_scenario

    planned = plan_scenario(bundled_config("meta-llama/Llama-3.1-8B"),
                            {"gpu": "h100-sxm", "gpus": 1, "runtime": "vllm", "kv_cache_memory": 20 * GiB}, 1, 8192)
    doc = json.loads(export_json(model="meta-llama/Llama-3.1-8B", model_source="bundled", planned=planned,
                                 sections={"prefix_sharing": {"effective_concurrency": 39.0}},
                                 widgets={"wl_prefix": 4096},
                                 link={"wl_prefix": ["4096"]}, share_link="http://x/Workload?wl_prefix=4096"))
    assert doc["title"] == "meta-llama/Llama-3.1-8B on 1 x NVIDIA H100 80GB HBM3 (SXM)"
    assert doc["effective_concurrency"] == 39.0 and doc["plan"]["max_concurrency"] == 20.0
    assert doc["inputs"]["widgets"] == {"wl_prefix": 4096} and doc["share_link"].endswith("wl_prefix=4096")


def test_any_link_text_is_checked_without_raising():
    from hypothesis import given, settings
    from hypothesis import strategies as hs

    alphabet = hs.sampled_from(list("vlm:Qwen/Qwen3-0.6B=@.,0123456789 ;%\n\u202e"))

    @settings(max_examples=300, deadline=None)
    @given(hs.text(alphabet, max_size=120) | hs.text(max_size=60))
    def check(text):
        err = instances_error(text)
        rows = decode_instances(text)
        assert (rows is None) or (err is None and 1 <= len(rows) <= MAX_INSTANCES)
        if rows:
            assert all(0 < r.share <= 1 and r.max_len >= 1 for r in rows)
            assert decode_instances(encode_instances(rows)) == rows

    check()
