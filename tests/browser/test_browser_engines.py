"""A pasted llama-server line in real Chromium shows the llama.cpp plan (issue 16, dashboard side).

Reuses tests/browser/test_browser.py's server / browser / tab fixtures and test_browser_verdict's paste helper.
Expected: Llama-3.1-8B, f16 K+V 32 layers x 8 heads x 128 x 2 x 2 B = 131,072 B per cell; llama-server
with -np 1 runs 4 unified slots (tools/server/server.cpp), so -c 8192 allocates 8,192 cells = 1,024 MiB,
printed as llama-kv-cache.cpp's "size = %7.2f MiB (%6u cells, %3d layers, %2u/%u seqs)" (the startup lines are
the run as pasted; the command is the verdict's fix).
"""
from __future__ import annotations

import re

import test_browser as tb  # skips this module too when Chromium or playwright is missing
from playwright.sync_api import expect
from test_browser import STEP_MS, Tab, no_exception
from test_browser_verdict import paste

workdir, fake_hub, server, browser_context, tab = tb.workdir, tb.fake_hub, tb.server, tb.browser_context, tb.tab


def test_pasted_llama_server_line_shows_the_llama_cpp_plan(tab: Tab):
    page = tab.page
    tab.open("/?gpu=rtx-4090")
    paste(page, "llama-server -hf unsloth/Llama-3.1-8B-Instruct-GGUF:Q8_0 -c 8192 -fa on --port 8080")
    main = page.get_by_test_id("stMain")
    # the paste plans its 4 auto slots at 8,192 tokens each, more than the 8,192 cells they share: the verdict's
    # fix is a run sized to the request, and the command serves it (-np 4 -c 4 x 8,192)
    expect(main.get_by_test_id("stAlert").filter(has_text="Fits if you serve with -np 4 -c 32768").first
           ).to_be_visible(timeout=STEP_MS)
    expect(main.get_by_test_id("stCode").filter(has_text="llama-server -m").first).to_contain_text(
        "llama-server -m /path/to/Llama-3.1-8B-Q8_0.gguf -c 32768 -np 4 -fa on", timeout=STEP_MS)
    expect(main.get_by_test_id("stHeading").filter(has_text="llama_cpp").first).to_be_visible(timeout=STEP_MS)
    main.get_by_test_id("stExpander").filter(has_text="Formulas behind these numbers").locator("summary").click()
    expect(main.get_by_test_id("stCode").filter(has_text="llama_kv_cache").first).to_contain_text(
        re.compile(r"llama_kv_cache: size = 1024\.00 MiB \(\s+8192 cells,\s+32 layers,\s+4/1 seqs\)"),
        timeout=STEP_MS)
    no_exception(page)
    tab.assert_clean()


def test_gguf_header_upload_is_read_and_refused_in_words(tab: Tab):
    """An uploaded .gguf that is not one, then a real (tiny, 2-block) header for a 32-layer model: both refused
    as text (kvcalc.gguf.reader: the magic; kvcalc.llama_cpp.plan: block count against the model's layers)."""
    from gguf_writer import tiny_header  # written byte by byte per ggml docs/gguf.md

    page = tab.page
    tab.open("/?runtime=llama_cpp&gpu=rtx-4090&ll_ctx=8192")
    # the sidebar's .gguf uploader by its widget key (the Planner also has a startup-log uploader)
    uploader = page.locator(".st-key-gguf_upload").get_by_test_id("stFileUploaderDropzoneInput")
    uploader.set_input_files(files=[{"name": "x.gguf", "mimeType": "application/octet-stream",
                                     "buffer": b"not a gguf file at all"}])
    expect(page.get_by_test_id("stAlert").filter(has_text="GGUF header not used").first).to_contain_text(
        "not a GGUF file", timeout=STEP_MS)
    uploader.set_input_files(files=[{"name": "tiny.gguf", "mimeType": "application/octet-stream",
                                     "buffer": tiny_header()}])
    expect(page.get_by_test_id("stAlert").filter(has_text="Cannot plan this").first).to_contain_text(
        "the GGUF weights have 2 blocks, the model 32", timeout=STEP_MS)
    no_exception(page)
    tab.assert_clean()
