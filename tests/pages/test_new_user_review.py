"""Defects a new-user review of the pages found (AppTest): counts in the singular for one ("1 sequence", never
"1 seqs"), llama.cpp scenarios kept in Compare under a KV dtype (its -ctk / -ctv cache type, or listed as not
compared with the reason), and the Planner's command in a section of its own after the verdict and its fixes.

Reference figures (see tests/pages/test_pages.py): Llama-3.1-8B has 8,030,261,248 parameters x 2 B = 16,060,522,496
B of bf16 weights and 32 x 8 x (128 + 128) x 2 B = 131,072 B of KV a token; an RTX 4090 has 24,564 MiB. The ideal
runtime may use the whole GPU: 25,757,220,864 - 16,060,522,496 = 9,696,698,368 B for the KV cache, i.e.
9,696,698,368 / (8,192 x 131,072) = 9.03 -> 9 sequences of 8,192 tokens and 9,696,698,368 / (40,000 x 131,072) =
1.85 -> 1 sequence of 40,000 tokens. llama.cpp's cache types: ``common/arg.cpp`` ``kv_cache_types``.
"""
from __future__ import annotations

import pytest
from apptest import COMPARE, MARKDOWN_ESCAPES, PLANNER, run_page

from dashboard.text import count

pytest.importorskip("streamlit.testing.v1")

MiB = 1 << 20
LLAMA = "meta-llama/Llama-3.1-8B"
KV_LLAMA = 32 * 8 * (128 + 128) * 2
FREE_4090_IDEAL = 24_564 * MiB - 8_030_261_248 * 2


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_count_says_one_in_the_singular():
    assert [count(1, "sequence"), count(8, "sequence"), count(1, "token"), count(32_768, "token"),
            count(1, "GPU"), count(2, "GPU")] == ["1 sequence", "8 sequences", "1 token", "32,768 tokens",
                                                  "1 GPU", "2 GPUs"]


@pytest.mark.parametrize(("ctx", "shown"), [("40000", "1 sequence"), ("8192", "9 sequences")])
def test_largest_batch_reads_sequences_in_the_right_number(ctx, shown):
    assert FREE_4090_IDEAL // (int(ctx) * KV_LLAMA) == int(shown.split()[0])
    at = run_page(PLANNER, open_runtimes=False, runtime="ideal", gpu="rtx-4090", batch="1", ctx=ctx)
    assert metric(at, "Largest batch") == shown
    assert not any("seqs" in m.value for m in at.metric)


def _rows(at, first_column: str) -> list[dict]:
    """The records of the one table whose second column is ``first_column`` (after the scenario's name)."""
    [d] = [d for d in at.dataframe if list(d.value.columns)[1:2] == [first_column]]
    return d.value.to_dict("records")


def not_compared(at) -> list[str]:
    """The lines of the Compare page's "Not compared" list (the Markdown escapes removed)."""
    heads = list(at.main.children.values())
    i = next(n for n, e in enumerate(heads) if getattr(e, "type", "") == "subheader" and e.value == "Not compared")
    return heads[i + 1].value.translate(MARKDOWN_ESCAPES).split("\n")


def test_compare_maps_the_kv_dtype_to_llama_cpp_s_cache_type_and_keeps_fp8_visible():
    at = run_page(COMPARE, models=[LLAMA], runtimes=["llama_cpp", "vllm"], kvdtypes=["bfloat16", "float32", "fp8_e4m3"],
                  gpu="rtx-4090")
    rows = _rows(at, "longest context, chosen: GeForce RTX 4090 24GB")
    llama = {r["scenario"]: r["KV dtype"] for r in rows if r["runtime"] == "llama_cpp"}
    assert llama == {"KV bfloat16 · llama_cpp": "bf16/bf16", "KV float32 · llama_cpp": "f32/f32"}
    [gone] = not_compared(at)
    assert gone.startswith("- Llama-3.1-8B · as configured · KV fp8_e4m3 · llama_cpp: llama.cpp has no fp8 KV-cache "
                           "type ('fp8_e4m3'): -ctk / -ctv take f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1")
    notes = [i.value.translate(MARKDOWN_ESCAPES) for i in at.info]
    assert any(n.startswith("Not compared (KV fp8_e4m3 · llama_cpp): llama.cpp has no fp8") for n in notes)
    assert {h.value for h in at.subheader} >= {"Not compared"}


def test_compare_lists_another_engine_s_refusal_the_same_way():
    at = run_page(COMPARE, models=[LLAMA], runtimes=["ideal", "transformers"], kvdtypes=["int4"], gpu="rtx-4090")
    [gone] = not_compared(at)
    assert gone.startswith("- Llama-3.1-8B · as configured · KV int4 · transformers: ") and "DynamicCache" in gone


def _after_verdict(at):
    """The top-level element right after the verdict box, and the verdict's text."""
    items = list(at.main.children.values())
    i = next(n for n, e in enumerate(items) if getattr(e, "type", "") in ("success", "warning", "error")
             and str(e.value).startswith(("**Fits", "**Does not fit")))
    return items[i + 1], items[i].value


def _walk(block):
    for e in getattr(block, "children", {}).values():
        yield e
        yield from _walk(e)


@pytest.mark.parametrize(("query", "title"), [
    ({"gpu": "rtx-4090", "batch": "64", "ctx": "32768"}, "Command to run"),                  # fits if: lower the batch
    ({"gpu": "rtx-4090", "batch": "1", "ctx": "8192", "mml": "131072"}, "Command to run (with the fix)"),
    ({"gpu": "rtx-4090", "batch": "1", "ctx": "131072"}, "Command that fits: 2 x GeForce RTX 4090 24GB"),
    ({"gpu": "rtx-4090", "batch": "1", "ctx": "8192"}, "Command to run")])                   # fits
def test_the_command_has_its_own_section_after_the_verdict_and_its_fixes(query, title):
    at = run_page(PLANNER, open_runtimes=False, **query)
    section, verdict = _after_verdict(at)
    inside = list(_walk(section))
    heads = [e.value for e in inside if getattr(e, "type", "") == "subheader"]
    assert heads == [title] and "Command" not in verdict
    [cmd] = [e.value for e in inside if getattr(e, "type", "") == "code"]
    assert cmd.startswith("vllm serve meta-llama/Llama-3.1-8B")
    note = [e.value for e in inside if getattr(e, "type", "") == "caption"]
    fixed = title != "Command to run" or verdict.startswith("**Fits:")
    assert any("does not include the fix above" in n for n in note) is not fixed
