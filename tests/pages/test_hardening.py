"""Dashboard hardening (issue 11 items 3, 4, 5, 6, 11; issue 10 item 4), AppTest.

Expected texts are written out by hand from the Markdown rules (CommonMark backslash escapes,
GFM bare-link literals, Streamlit's ``:name`` directives), never taken from the app's output:

* a link key ``![x](http://tracker.example/t.png)`` must reach the notice as
  ``\\!\\[x\\](http:`` + U+2060 + ``//tracker.example/t.png)``: no image, no link, no bare URL;
* numbers past 2^63 are exact decimal text; 2^70 = 1,180,591,620,717,411,303,424.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from apptest import GPU_FIT, HOW, PLANNER, run_page
from paths import ROOT, load_config

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest


WJ = "\u2060"                        # WORD JOINER: breaks a bare URL without showing anything
# live Markdown: an unescaped [text]( or ![alt]( , an autolink <scheme: , a bare URL scheme
LIVE = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\(|(?<!\\)<[a-z]+:|https?://", re.IGNORECASE)
IMAGE = "![x](http://tracker.example/t.png)"
LINK = "[text](http://evil.example/)"
IMAGE_ESCAPED = r"\!\[x\](http:" + WJ + "//tracker.example/t.png)"
LINK_ESCAPED = r"\[text\](http:" + WJ + "//evil.example/)"


def llama() -> dict:
    return load_config("meta-llama__Llama-3.1-8B.json")


run = run_page


def pasted(page: str, config: dict, **query) -> AppTest:
    at = run(page, source="paste", **query)
    at.text_area(key="pasted").set_value(json.dumps(config))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def bodies(at: AppTest) -> list[str]:
    """Every Markdown body the page shows (notices, errors, captions, markdown, subheaders)."""
    out = []
    for kind in ("warning", "error", "info", "caption", "markdown", "subheader"):
        out += [e.value for e in at.get(kind)]
    return out


def alerts(at: AppTest) -> list[str]:
    return [e.value for kind in ("warning", "error", "info") for e in at.get(kind)]


# ------------------------------------------------------------------ item 3: Markdown injection
def test_markdown_in_a_link_key_is_shown_as_text():
    at = run(PLANNER, **{IMAGE: "1", LINK: "2"})
    (notice,) = [w.value for w in at.warning if "fell back to defaults" in w.value]
    assert f"unknown link parameter '{IMAGE_ESCAPED}' ignored" in notice
    assert f"unknown link parameter '{LINK_ESCAPED}' ignored" in notice
    assert not LIVE.search(notice), notice


def test_markdown_in_a_link_value_is_shown_as_text():
    at = run(PLANNER, batch=LINK)
    (notice,) = [w.value for w in at.warning if "fell back to defaults" in w.value]
    assert "batch='" + LINK_ESCAPED + "'" in notice and not LIVE.search(notice)


@pytest.mark.parametrize("page", [PLANNER, GPU_FIT, HOW])
def test_markdown_in_a_pasted_model_type_is_shown_as_text(page):
    at = pasted(page, {**llama(), "model_type": LINK + IMAGE})
    shown = [b for b in bodies(at) if "tracker.example" in b]
    assert shown, bodies(at)               # the page names the model type somewhere
    for body in shown:
        assert LINK_ESCAPED + IMAGE_ESCAPED in body and not LIVE.search(body), body


def test_markdown_in_a_vllm_command_is_shown_as_text():
    at = run(PLANNER)
    at.text_area(key="vllm_cmd").set_value("vllm serve x --max-model-len " + LINK)
    at.button(key="vllm_cmd_apply").click()
    at.run()
    captions = [c.value for c in at.caption if "evil.example" in c.value]
    assert captions and all(LINK_ESCAPED in c and not LIVE.search(c) for c in captions), captions


# ------------------------------------------------------------------ item 4: lone surrogates
@pytest.mark.parametrize("page", [PLANNER, GPU_FIT, HOW])
def test_lone_surrogate_in_a_pasted_config_shows_a_message(page):
    at = pasted(page, {**llama(), "model_type": "\ud800llama"})
    texts = bodies(at)
    for t in texts:
        t.encode("utf-8")                  # every text on the page can be sent (raises otherwise)
    # a message, not a blank page: kvcalc's refusal, or the model type shown with U+FFFD
    assert at.error or any("\ufffdllama" in t for t in texts), texts


# ------------------------------------------------------------------ item 6: numbers past 2^64
def huge_config(layers: int, dtype: str) -> dict:
    return {**llama(), "num_attention_heads": 16_384, "num_key_value_heads": 16_384, "head_dim": 16_384,
            "num_hidden_layers": layers, "torch_dtype": dtype}


def test_planner_per_layer_table_past_int64():
    at = pasted(PLANNER, huge_config(32, "bfloat16"), runtime="ideal", batch="65536", ctx=str(1 << 24))
    rows = at.dataframe[0].value.to_dict("records")
    # one run of 32 full-attention layers; each: 65,536 x 2^24 tokens x 16,384 heads x (16,384 + 16,384) x 2 B
    each = 65_536 * (1 << 24) * 16_384 * (16_384 + 16_384) * 2
    assert each == 2 ** 70 == 1_180_591_620_717_411_303_424
    assert len(rows) == 1 and rows[0]["layers"] == "0-31" and rows[0]["layers in run"] == 32
    assert rows[0]["bytes each"] == "1,180,591,620,717,411,303,424"
    assert rows[0]["bytes in run"] == f"{32 * 2 ** 70:,}"
    assert rows[0]["tokens held"] == 1 << 24


def test_how_it_works_tables_past_int64():
    at = pasted(HOW, huge_config(512, "float32"), ctx=str(1 << 24))
    dtypes = {r["KV dtype"].split(" ")[0]: r for r in at.dataframe[1].value.to_dict("records")}
    # float32: 512 layers x 16,384 heads x (16,384 + 16,384) x 4 B x 2^24 tokens = 2^64
    assert dtypes["float32"]["bytes at 16,777,216 tokens"] == f"{2 ** 64:,}" == "18,446,744,073,709,551,616"
    assert dtypes["bfloat16"]["bytes at 16,777,216 tokens"] == f"{2 ** 63:,}"    # 2^63 > int64 max too
    assert dtypes["float32"]["bytes / token"] == 2 ** 40          # a column that fits int64 stays numeric


# ------------------------------------------------------------------ item 11: links Streamlit drops
def test_link_with_too_many_parameters_shows_a_notice():
    # Streamlit 1.67 ignores a query string with more than 1,000 parameters (query_params.py,
    # CLIENT_STATE_QUERY_STRING_MAX_FIELDS): the page sees none, and loads the browser-side check
    at = run(PLANNER, batch=[str(i) for i in range(1001)])
    assert not [w for w in at.warning if "fell back" in w.value]
    assert any("link_dropped" in h.proto.body and "1000" in h.proto.body for h in at.get("html"))
    # what the browser-side check sends back: a notice, and the URL cleared
    at = run(PLANNER, link_dropped="1001")
    (notice,) = [w.value for w in at.warning if "fell back to defaults" in w.value]
    assert "the link had 1,001 parameters" in notice and "fell back to defaults" in notice
    assert "link_dropped" not in at.query_params


def test_link_check_is_not_loaded_for_a_normal_link():
    at = run(PLANNER, batch="2")
    # the page frame's phone CSS and sidebar script are html elements too; the link check is not among them
    bodies = [h.proto.body for h in at.get("html")]
    assert bodies and not [b for b in bodies if "link_dropped" in b or "history.replaceState" in b], bodies


# ------------------------------------------------------------------ item 5: cold-start import race
def test_heavy_imports_finish_before_any_page_runs():
    """After ``import dashboard`` no page run imports pandas / pyarrow / numpy / plotly modules
    (lazily importing them from several session threads at once raced on a fresh server)."""
    code = r"""
import os, sys
sys.path.insert(0, os.environ["ROOT"])
from streamlit.testing.v1 import AppTest
import dashboard
before = set(sys.modules)
for page in ("app.py", "pages/1_Compare.py", "pages/2_GPU_fit.py", "pages/3_How_it_works.py", "pages/4_Workload.py"):
    at = AppTest.from_file(os.path.join(os.environ["ROOT"], page), default_timeout=120)
    at.query_params["runtime"] = "ideal"
    at.run()
    assert not at.exception, page
heavy = ("numpy", "pandas", "pyarrow", "plotly", "_plotly_utils")
print(sorted(m for m in set(sys.modules) - before if m.split(".")[0] in heavy))
"""
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "ROOT": ROOT}, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


# ------------------------------------------------------------------ issue 10 item 4: one table
def test_each_page_binds_the_keys_of_its_widgets():
    from dashboard import state

    # the engines' declared options (dashboard.option_params), in registry and declaration order
    ENGINE_KEYS = ("mml", "util", "block", "mnbt", "seqs", "vllm_ver", "offload", "long_mml",
                   "sg_mem", "sg_ctx", "sg_mrr", "sg_page", "trt_frac", "trt_max_tokens", "trt_tpb", "trt_mseq",
                   "trt_mbs", "ll_ctx", "ll_np", "ll_kvu", "ll_ctk", "ll_ctv", "ll_fa", "ll_ngl", "ll_swa_full",
                   "ll_ts", "ll_cublas", "ll_prog", "ll_gguf")

    # read off each page's sidebar by hand (How it works: model source, example context, GQA and
    # sliding-window examples)
    # (issue 14: cfg / cfg_name carry a pasted config; Compare has the Planner's weights dtype and its
    # parallelism / vLLM options expander)
    assert state.page_keys(state.HOW_IT_WORKS) == ("source", "model", "hub", "cfg", "cfg_name", "ctx", "attn_kv",
                                                  "attn_window")
    # (issue 24: Compare's speed columns at the user's context, ctx)
    assert state.page_keys(state.COMPARE) == ("models", "gpu", "gpu_mem", "gpus", "wdtype", "kvdtypes", "batch",
                                             "ctx", "runtimes", "tp", "pp", "spec", "spec_tokens", "loras", "lora_rank",
                                             "attns", "attn_kv", "attn_window", "attn_pattern", "logx",
                                             # issue 16: the engine options Compare draws for an engine runtime
                                             *ENGINE_KEYS)
    assert set(state.page_keys(state.PLANNER)) - set(state.page_keys(state.GPU_FIT)) == {
        "attn", "attn_kv", "attn_window", "attn_pattern", "logx", "yall", "curves",
        "wgib",   # issue 12: the weights per GPU of a model kvcalc cannot count
        "cal"}    # a startup-log calibration (dashboard.calibration_state)
    # vllm serve flags that fill a widget as they are
    assert state.VLLM_OPTIONS == {"gpu_memory_utilization": "util", "max_model_len": "mml", "max_num_seqs": "seqs",
                                  "max_num_batched_tokens": "mnbt", "tensor_parallel_size": "tp",
                                  "pipeline_parallel_size": "pp", "cpu_offload_gb": "offload",
                                  "allow_long_max_model_len": "long_mml", "block_size": "block",
                                  "vllm_version": "vllm_ver"}


def test_a_widget_cannot_bind_a_key_its_page_does_not_list(monkeypatch):
    import streamlit as st

    from dashboard import state

    monkeypatch.setattr(st, "session_state", {state._PAGE: state.HOW_IT_WORKS})   # noqa: SLF001
    assert state.bound("ctx") == {"key": "ctx", "bind": "query-params"}
    with pytest.raises(KeyError, match="'batch' is not listed for page 'how_it_works'"):
        state.bound("batch")
    with pytest.raises(KeyError):
        state.bound("nope")


def test_how_it_works_prose_numbers():
    at = run(HOW)
    text = " ".join(m.value for m in at.markdown)
    # vLLM's default --block-size is 16 (vllm/config/cache.py, CacheConfig.block_size on CUDA);
    # transformers' quantized caches: q_group_size 64, fp16 scale + zero point = 4 bytes
    assert "paged blocks of 16 tokens" in text
    assert "4 bytes (an fp16 scale and zero point) per group of 64 values" in text
    assert any(r"4 \lceil n / 64 \rceil" in l.value for l in at.latex)
    # the stale count of the first release ("45 architectures"); bundled configs' notes may hold other 45s
    assert not re.search(r"\b45 (architectures|model types|types)", text) and "architectures build" not in text


# ------------------------------------------------------------------ item 3: every sink, statically
SINKS = {"markdown", "error", "warning", "info", "caption", "metric", "title", "header", "subheader", "toast",
         "expander", "tabs", "success", "write", "metric_grid"}
PASS_THROUGH = {"metric_grid"}
"""dashboard helpers that hand their arguments to a sink unchanged: their callers' arguments are checked (they are
in SINKS), not the helper's own body."""
ESCAPERS = {"md", "code"}
# Interpolations that hold only the app's own text or numbers (reviewed one by one): counts and
# sizes from kvcalc, bundled catalog entries, constants. Anything else must go through md()/code().
OWN = {"gpu.get('gpus', 1)", "MAX_SCENARIOS", "setup.gpus", "setup.runtime", "spec.num_layers", "r.kv_dtype",
       "coverage_line()",
       "'max_model_len' if setup.max_model_len else 'the model maximum'", "a.latent_dim", "a.indexer_dim",
       "a.kv_heads", "a.k_head_dim", "a.v_head_dim", "overhead", "group", "DEFAULT_BLOCK_SIZE",
       "LINKS['transformers_cache']", "LINKS['vllm_spec']", "LINKS['vllm_utils']", "LINKS['vllm_worker']",
       "_fmt(entry.params) if entry.params else '-'", "entry.params_source", "entry.display_name", "entry.file",
       "entry.hub_id", "row", "title", "len(notes) - 8", "p.gpus",
       "p.runtime", "p.min_gpus", "quote(plain(choice.name), safe='/')", "names[k]", "f.read()",
       "e.decode_bound", "e.prefill_bound", "table.busiest_stage"}
NUMERIC = {"_fmt", "tex_int", "human_bytes", "_ratio", "len", "gpu_label", "gpu_class_label", "badge",
           "count"}      # dashboard.text.count: a number and the page's own word ("1 sequence")


def unescaped(expr) -> list:
    """The parts of ``expr`` that could carry outside text into Markdown unescaped."""
    import ast

    if isinstance(expr, ast.Constant):
        return []
    if isinstance(expr, ast.JoinedStr):
        return [p for v in expr.values if isinstance(v, ast.FormattedValue) and v.format_spec is None
                for p in unescaped(v.value)]
    if isinstance(expr, ast.BinOp):
        return unescaped(expr.left) + unescaped(expr.right)
    if isinstance(expr, ast.BoolOp):
        return [p for v in expr.values for p in unescaped(v)]
    if isinstance(expr, ast.IfExp):
        return unescaped(expr.body) + unescaped(expr.orelse)
    if isinstance(expr, (ast.List, ast.Tuple)):        # metric_grid's (label, value, help) figures
        return [p for v in expr.elts for p in unescaped(v)]
    if isinstance(expr, (ast.GeneratorExp, ast.ListComp)):
        return unescaped(expr.elt)
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "join"
            and isinstance(expr.func.value, ast.Constant)):
        return [p for a in expr.args for p in unescaped(a)]
    fn = expr.func.id if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) else ""
    if fn in ESCAPERS or fn in NUMERIC or ast.unparse(expr) in OWN:
        return []
    return [expr]


def test_every_markdown_sink_escapes_outside_text():
    """Every text passed to a Markdown-rendering Streamlit call in dashboard/ is built from
    constants, md() / code(), formatted numbers and reviewed app-owned values (OWN) only."""
    import ast
    import glob

    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "dashboard", "*.py"))):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        helpers = [range(n.lineno, n.end_lineno + 1) for n in ast.walk(tree)
                   if isinstance(n, ast.FunctionDef) and n.name in PASS_THROUGH]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SINKS):
                continue
            if any(node.lineno in lines for lines in helpers):
                continue
            for arg in [*node.args[:2], *(k.value for k in node.keywords if k.arg in ("label", "body", "help"))]:
                found += [f"{os.path.basename(path)}:{v.lineno}: {ast.unparse(v)}" for v in unescaped(arg)]
    assert not found, "outside text may reach Markdown unescaped:\n" + "\n".join(found)
