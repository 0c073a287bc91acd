"""The serving engines on the pages (AppTest): SGLang, TensorRT-LLM and llama.cpp chosen by a link or by a
pasted launch line show their own numbers, in the engines' own words.

Expected values are hand arithmetic from the rules in docs/engines.md (each engine's source named there):

Llama-3.1-8B (data/configs): 32 layers, 8 KV heads of 128 -> K or V per token per layer 8 x 128 = 1,024
values; f16/bf16 K+V for all layers 32 x 1,024 x 2 x 2 B = 131,072 B per token. 8,030,261,248 parameters
x 2 B = 16,060,522,496 B of bf16 weights. H100 SXM: 81,559 MiB = 85,520,809,984 B (data/gpus.csv).
llama.cpp q8_0 = 34 bytes per 32 values (ggml-common.h block_q8_0): 1,024 values = 1,088 B per layer.
"""
from __future__ import annotations

import pytest
from apptest import COMPARE, GPU_FIT, HOW, PLANNER, paste_launch_line, rerun, run_page

pytest.importorskip("streamlit.testing.v1")
GiB, MiB = 1 << 30, 1 << 20
H100 = 81_559 * MiB
WEIGHTS_8B = 8_030_261_248 * 2
CELL_8B = 32 * 1024 * 2 * 2          # f16 K + V, every layer, one token


def code_blocks(at) -> list[str]:
    return [c.value for c in at.code]


def side_by_side(at) -> list[dict]:
    frame = next(t.value for t in at.dataframe if "runtime" in t.value.columns
                 and "binding constraint or refusal" in t.value.columns)
    return frame.to_dict("records")


def row(rows: list[dict], runtime: str) -> dict:
    return next(r for r in rows if r["runtime"] == runtime)


def test_sglang_link_shows_its_token_pool_and_launch_line():
    # server_args / profile_max_num_token: rest = mem_fraction_static x (total - 0.86 GiB used before load)
    # - weights; tokens = rest // cell (page size 1); K buffer (tokens + page_size) x layers x 1,024 x 2 B
    at = run_page(PLANNER, runtime="sglang", sg_mem="0.8", gpu="h100-sxm", batch="4", ctx="8192")
    pre_load_free = H100 - round(0.86 * GiB)
    tokens = (int(pre_load_free * 0.8) - WEIGHTS_8B) // CELL_8B
    k_gb = (tokens + 1) * 32 * 1024 * 2 / GiB
    lines = "\n".join(code_blocks(at))
    assert f"KV Cache is allocated. #tokens: {tokens}, K size: {k_gb:.2f} GB, V size: {k_gb:.2f} GB" in lines
    assert "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --mem-fraction-static 0.8" \
        in code_blocks(at)
    assert row(side_by_side(at), "SGLang")["KV pool (tokens)"] == f"{tokens:,}"
    assert at.success and at.success[0].value.startswith("**Fits: 4 sequences of 8,192 tokens")


def test_llama_cpp_link_prints_llama_kv_cache_line():
    # llama-server -c 8192 (-np 1 -> 4 unified slots: tools/server/server.cpp), f16: 8,192 cells x 131,072 B
    # = 1,024 MiB; format "size = %7.2f MiB (%6u cells, %3d layers, %2u/%u seqs), K (%s): %7.2f MiB, ..."
    at = run_page(PLANNER, runtime="llama_cpp", ll_ctx="8192", gpu="rtx-4090")
    assert ("llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  4/1 seqs), K (f16):  512.00 MiB, "
            "V (f16):  512.00 MiB") in "\n".join(code_blocks(at))
    assert "llama-server -m /path/to/Llama-3.1-8B-Q4_K_M.gguf -c 8192" in code_blocks(at)
    assert row(side_by_side(at), "llama.cpp")["KV pool (tokens)"] == "8,192"


def test_llama_cpp_quantized_cache_and_bad_link_values():
    # q8_0 K and V: 32 layers x 1,088 B x 8,192 cells = 272 MiB each
    at = run_page(PLANNER, runtime="llama_cpp", ll_ctx="8192", ll_ctk="q8_0", ll_ctv="q8_0", ll_fa="on",
                  ll_gguf="Q8_0", gpu="rtx-4090")
    assert ("llama_kv_cache: size =  544.00 MiB (  8192 cells,  32 layers,  4/1 seqs), K (q8_0):  272.00 MiB, "
            "V (q8_0):  272.00 MiB") in "\n".join(code_blocks(at))
    at = run_page(PLANNER, runtime="llama_cpp", ll_ctk="q9_9", ll_np="999")
    notices = " ".join(w.value for w in at.warning)
    assert "ll\\_ctk" in notices and "ll\\_np" in notices and "using the default" in notices


def test_tensorrt_llm_max_tokens_rounds_down_to_whole_blocks():
    # KvCacheConfig.max_tokens 10,000 with 32-token blocks under the PyTorch backend (trtllm-serve's default):
    # KVCacheManager.calculate_max_num_blocks takes int(10,000 // 32) = 312 blocks = 9,984 tokens
    # (tests/fixtures/trtllm_oracle.json); 8,192 tokens = 256 blocks: one such sequence fits
    at = run_page(PLANNER, runtime="tensorrt_llm", trt_max_tokens="10000", gpu="h100-sxm", ctx="8192", batch="2")
    lines = "\n".join(code_blocks(at))
    assert "Number of blocks in KV cache primary pool: 312" in lines
    r = row(side_by_side(at), "TensorRT-LLM")
    assert r["KV pool (tokens)"] == f"{312 * 32:,}" and r["largest batch @ 8,192 tokens"] == 1
    assert "trtllm-serve" in lines and "max_tokens: 10000" in lines


def test_side_by_side_lists_all_six_runtimes_and_refusals_as_text():
    # Gemma 4's per-layer head dims: TensorRT-LLM's KVCacheManagerV2 is refused (docs/engines.md)
    at = run_page(PLANNER, model="google/gemma-4-26B-A4B", gpu="h100-sxm", ctx="4096")
    rows = side_by_side(at)
    assert [r["runtime"] for r in rows] == ["ideal", "transformers", "vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"]
    trt = row(rows, "TensorRT-LLM")
    assert trt["fits 1 x 4,096"] == "refused" and "TensorRT-LLM" in trt["binding constraint or refusal"]
    assert "Traceback" not in " ".join(str(r) for r in rows)
    frame = next(t.value for t in at.dataframe if "binding constraint or refusal" in t.value.columns)
    for column in frame.select_dtypes("number").columns:         # no NaN where a runtime refused
        assert frame[column].notna().all(), column


def test_llama_cpp_that_cannot_allocate_gets_its_own_refusal_in_red():
    # Llama-3.1-70B Q4_K_M is about 40 GiB of GGUF tensors: more than an RTX 4090's 24 GiB
    at = run_page(PLANNER, model="meta-llama/Llama-3.1-70B", runtime="llama_cpp", ll_ctx="8192", gpu="rtx-4090")
    assert at.error, "expected a red verdict"
    text = at.error[0].value
    assert "cudaMalloc failed: out of memory" in text and "offload fewer layers (-ngl)" in text


def test_llama_cpp_with_too_few_slots_says_the_flags_and_serves_with_them():
    """Batch 8 over llama-server's 4 auto slots (a reviewer saw 'Does not fit' with 'a smaller GGUF file type'
    as the fix beside 'Largest batch 38'): a yellow 'Fits if you serve with -np 8 -c 32768', the command with
    those flags, and the speed tiles shown."""
    at = run_page(PLANNER, runtime="llama_cpp", gpu="rtx-4090", batch="8", ctx="4096")
    assert not at.error
    assert any("Fits if you serve with -np 8 -c 32768" in w.value for w in at.warning)
    assert any("-np 8" in c.value and "-c 32768" in c.value for c in at.code)
    assert any(m.label.startswith("Decode") for m in at.metric)
    assert any("Fewest GPUs of this type: 1." in c.value for c in at.caption)


@pytest.mark.parametrize("page", ["planner", "gpu_fit"])
def test_a_total_within_the_budget_that_does_not_fit_says_the_pool_binds(page):
    """gpt-oss-20b under SGLang on an A100 80GB at 16 x 98,304 tokens: the requests occupy 63.2 GiB of a 65.7 GiB
    budget, but SGLang splits its pool between full-attention and sliding-window layers at startup and the
    full-attention part holds 1,283,512 tokens of the 16 x 98,304 = 1,572,864 asked (a reviewer saw 'Budget used
    96.2 %' beside 'Fits: no'); both pages say so under the headline."""
    at = run_page(PLANNER if page == "planner" else GPU_FIT, model="openai/gpt-oss-20b", gpu="a100-80gb",
                  runtime="sglang", batch="16", ctx="98304")
    why = [c.value for c in at.caption if "is within the budget" in c.value]
    assert why and "SGLang does not hold the requests: KV pool: 16 requests x 98,304 tokens" in why[0]


def test_pasted_llama_server_line_sets_the_runtime_and_its_flags():
    at = run_page(PLANNER)
    at.text_area(key="vllm_cmd").set_value(
        "llama-server -hf unsloth/Llama-3.1-8B-Instruct-GGUF:Q8_0 -c 16384 -np 2 -ctk q8_0 -ctv q8_0 -fa on "
        "--port 8080")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert at.radio(key="runtime").value == "llama_cpp"
    assert at.query_params["ll_ctx"] == "16384" and at.query_params["ll_np"] == "2"
    assert at.selectbox(key="ll_gguf").value == "Q8_0" and at.selectbox(key="ll_ctk").value == "q8_0"
    # -np 2 not unified: n_ctx_seq = 16,384 / 2 = 8,192 cells per stream, 2 streams; q8_0 K: 2 x 8,192 x
    # 32 x 1,088 B = 544 MiB (llama-kv-cache.cpp: kv_size = n_ctx_seq, n_stream = n_seq_max)
    assert ("llama_kv_cache: size = 1088.00 MiB (  8192 cells,  32 layers,  2/2 seqs), K (q8_0):  544.00 MiB, "
            "V (q8_0):  544.00 MiB") in "\n".join(code_blocks(at))
    assert "--port" in " ".join(c.value for c in at.caption)


def test_a_second_paste_keeps_no_context_of_the_first():
    """Review of issue 14/16: a llama-server line after a vLLM line at 32k plans its own per-slot context
    (llama_context: n_ctx_seq = n_ctx / n_seq_max without -kvu: 16,384 / 2 = 8,192 tokens, 2 slots), and a line
    that sets no length goes back to the page's default context (8,192), not the previous paste's."""
    at = run_page(PLANNER)
    for line in ("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768",
                 "llama-server -hf unsloth/Llama-3.1-8B-Instruct-GGUF:Q4_K_M -c 16384 -np 2 -ctk q8_0 -ctv q8_0 "
                 "-fa on"):
        at.text_area(key="vllm_cmd").set_value(line)
        at.button(key="vllm_cmd_apply").click()
        rerun(at)
    assert at.radio(key="runtime").value == "llama_cpp"
    assert at.number_input(key="ctx").value == 8192 and at.number_input(key="batch").value == 2
    at.text_area(key="vllm_cmd").set_value("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B "
                                           "--mem-fraction-static 0.8")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert at.radio(key="runtime").value == "sglang" and at.number_input(key="ctx").value == 8192


def test_pasted_sglang_line_then_vllm_line_resets_the_engine_options():
    at = run_page(PLANNER)
    at.text_area(key="vllm_cmd").set_value("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 "
                                           "--mem-fraction-static 0.8 --context-length 16384")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert at.radio(key="runtime").value == "sglang" and at.number_input(key="sg_mem").value == 0.8
    assert at.number_input(key="gpus").value == 2 and at.number_input(key="ctx").value == 16384
    assert ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --mem-fraction-static 0.8 "
            "--context-length 16384") in code_blocks(at)
    at.text_area(key="vllm_cmd").set_value("vllm serve Qwen/Qwen3-8B --max-model-len 4096")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert at.radio(key="runtime").value == "vllm"
    assert "sg_mem" not in at.query_params and "sg_ctx" not in at.query_params


def test_pasted_trtllm_serve_line():
    at = paste_launch_line("trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192 "
                           "--kv_cache_free_gpu_memory_fraction 0.8 --max_batch_size 16")
    assert at.radio(key="runtime").value == "tensorrt_llm"
    assert at.slider(key="trt_frac").value == 0.8 and at.number_input(key="trt_mbs").value == 16
    assert at.number_input(key="ctx").value == 8192


def test_compare_and_gpu_fit_plan_the_engines():
    at = run_page(COMPARE, runtimes=["sglang", "tensorrt_llm", "llama_cpp"], gpu="rtx-4090", timeout=120)
    assert not at.error
    runtimes = set(at.dataframe[0].value["runtime"])
    assert runtimes == {"sglang", "tensorrt_llm", "llama_cpp"}
    at = run_page(GPU_FIT, runtime="sglang", timeout=120)
    frame = next(t.value for t in at.dataframe if "KV budget GiB" in t.value.columns)
    t4 = frame[frame["key"] == "t4"].iloc[0]
    # 16-GiB-class card: bf16 weights of 14.96 GiB leave no pool -> SGLang's own refusal
    assert t4["binding constraint or refusal" if "binding constraint or refusal" in frame.columns
              else "binding constraint"].startswith("RuntimeError: Not enough memory")


def test_how_it_works_has_a_section_per_engine():
    at = run_page(HOW)
    heads = [h.value for h in at.subheader]
    for label in ("SGLang", "TensorRT-LLM", "llama.cpp"):
        assert any(h.startswith(label) for h in heads)


@pytest.mark.parametrize("key, good, bad", [
    ("sg_mem", "0.85", "1.0"),           # SGLang keeps a share for activations: 1 is refused (kvcalc.sglang.options)
    ("sg_page", "16", "0"),
    ("trt_tpb", "64", "48"),             # tokens_per_block: a power of two
    ("ll_ngl", "-1", "-2"),              # -1 = every layer
    ("ll_np", "256", "257"),             # LLAMA_MAX_SEQ (src/llama-cparams.h)
    ("ll_ctk", "q4_0", "q3_k"),          # common/arg.cpp kv_cache_types
    ("ll_gguf", "Q5_K_M", "IQ2_XXS"),    # modelled file types only: imatrix mixes are refused (kvcalc.gguf.mixes)
])
def test_engine_link_values_are_checked_like_the_others(key, good, bad):
    from dashboard import state

    keys = state.page_keys(state.PLANNER)
    assert state.problems({key: [good]}, keys) == ([], [])
    drop, notes = state.problems({key: [bad]}, keys)
    assert drop == [key] and "using the default" in notes[0]


def test_sglang_that_does_not_fit_shows_the_command_on_the_fewest_gpus():
    # Llama-3.1-70B: 70,553,706,496 parameters x 2 B = 131.4 GiB of bf16 weights, more than one H100's 80 GB;
    # it does not fit one GPU; the verdict names the fewest GPUs that do (kvcalc.plan.fewest_gpus) and the
    # command box gives SGLang's own --tp flag (server_args.py) for that count
    at = run_page(PLANNER, model="meta-llama/Llama-3.1-70B", runtime="sglang", gpu="h100-sxm")
    assert at.error and "--tp" in at.error[0].value
    fix = next(c for c in code_blocks(at) if c.startswith("python -m sglang.launch_server"))
    assert fix.startswith("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B --tp ")
    n = int(fix.split("--tp ")[1].split()[0])
    assert any(h.value.startswith(f"Command that fits: {n:,} x NVIDIA H100") for h in at.subheader)   # own section


def test_llama_cpp_greys_out_the_dtypes_a_link_carries_and_still_plans():
    # a link from a vLLM plan (weights bf16, KV f16) switched to llama.cpp: the GGUF file type and -ctk / -ctv
    # set both there, so the two selects are greyed out with a notice, not the page refused; the KV line is
    # llama.cpp's f16 cache (8,192 cells x 131,072 B = 1,024 MiB, as in the test above)
    at = run_page(PLANNER, runtime="llama_cpp", ll_ctx="8192", gpu="rtx-4090", wdtype="bfloat16", kvdtype="float16")
    assert not at.error and not at.exception
    by_label = {s.label: s for s in at.sidebar.selectbox}
    assert by_label["Weights dtype"].disabled and by_label["KV-cache dtype"].disabled
    notice = " ".join(i.value for i in at.sidebar.info)
    assert "Weights dtype bfloat16 and KV-cache dtype float16" in notice and "-ctk / -ctv" in notice
    assert "K (f16):  512.00 MiB" in "\n".join(code_blocks(at))
    assert at.success and at.success[0].value.startswith("**Fits")
    vllm = run_page(PLANNER, runtime="vllm", gpu="rtx-4090", wdtype="bfloat16", kvdtype="float16")
    assert not vllm.sidebar.info and not {s.label: s for s in vllm.sidebar.selectbox}["KV-cache dtype"].disabled
