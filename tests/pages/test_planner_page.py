"""The Planner page (AppTest): every Planner-specific widget changed at least once, with effects
checked against plain arithmetic on published figures (see tests/pages/test_pages.py for the shared
sidebar, which the GPU fit test drives widget by widget).

Llama-3.1-8B: 32 layers x 8 KV heads x (128 + 128) x 2 B (bf16) = 131,072 B per token; 32 query
heads; 8,030,261,248 parameters x 2 B = 14.96 GiB of weights. RTX 4090: 24,564 MiB.
"""
from __future__ import annotations

import json
import os

import pytest
from paths import ROOT, load_fixture

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest
GiB, MiB = 1 << 30, 1 << 20
KV_TOKEN = 32 * 8 * 256 * 2


def start(**query):
    at = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    return rerun(at)


def rerun(at):
    at.run()
    assert not at.exception, at.exception
    return at


def metric(at, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def gib(n: float) -> str:
    """Binary units as the page shows them: 512 MiB, 1.50 GiB."""
    return f"{n / GiB:,.2f} GiB" if n >= GiB else f"{n / MiB:,.2f} MiB"


def test_attention_override_every_variant():
    at = start(runtime="ideal", batch="1", ctx="4096")
    assert metric(at, "KV cache") == gib(4096 * KV_TOKEN)                        # 512 MiB as configured
    at.selectbox(key="attn").select("mha")
    assert metric(rerun(at), "KV cache") == gib(4096 * KV_TOKEN * 4)             # 32 KV heads instead of 8
    at.selectbox(key="attn").select("mqa")
    assert metric(rerun(at), "KV cache") == gib(4096 * KV_TOKEN // 8)
    at.selectbox(key="attn").select("gqa")
    rerun(at)
    at.number_input(key="attn_kv").set_value(2)
    assert metric(rerun(at), "KV cache") == gib(4096 * KV_TOKEN // 4)
    at.number_input(key="attn_kv").set_value(5)                                  # does not divide 32 heads
    rerun(at)
    assert any("divides the 32 query heads" in e.value for e in at.error)
    at.selectbox(key="attn").select("sliding")
    rerun(at)
    at.number_input(key="attn_window").set_value(1024)
    assert metric(rerun(at), "KV cache") == gib(1024 * KV_TOKEN)
    at.text_input(key="attn_pattern").set_value("3:1")                           # 24 local + 8 global
    per_layer = KV_TOKEN // 32
    assert metric(rerun(at), "KV cache") == gib(24 * per_layer * 1024 + 8 * per_layer * 4096)
    at.text_input(key="attn_pattern").set_value("x")
    rerun(at)
    assert any("5:1" in e.value for e in at.error)
    at.selectbox(key="attn").select("full")
    assert metric(rerun(at), "KV cache") == gib(4096 * KV_TOKEN)


def test_vllm_serve_command_fills_the_options():
    at = start()
    at.text_area(key="vllm_cmd").set_value("vllm serve Qwen/Qwen3-8B --max-model-len 16384 "
                                           "--gpu-memory-utilization 0.8 -tp 2 --block-size 32 --swap-space 4")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert at.selectbox(key="model").value == "Qwen/Qwen3-8B"
    assert at.number_input(key="mml").value == 16384 and at.number_input(key="tp").value == 2
    assert at.slider(key="util").value == pytest.approx(0.8) and at.selectbox(key="block").value == 32
    assert at.number_input(key="gpus").value == 2 and at.number_input(key="ctx").value == 16384
    assert "Qwen/Qwen3-8B on 2 x" in at.subheader[0].value
    assert any("--swap-space" in c.value for c in at.caption)                    # ignored flags are listed
    at.text_area(key="vllm_cmd").set_value("vllm serve x --max-model-len -1")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert any("invalid value" in c.value for c in at.caption)


def test_chart_controls_and_exports():
    at = start(runtime="ideal", gpu="rtx-4090", batch="2", ctx="8192")
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert chart["layout"]["xaxis"]["type"] == "log"
    at.toggle(key="logx").set_value(False)
    rerun(at)
    assert json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["xaxis"]["type"] == "linear"
    at.multiselect(key="curves").set_value([8, 32])
    rerun(at)
    names = [t["name"] for t in json.loads(at.get("plotly_chart")[0].proto.spec)["data"]]
    assert "total, batch 8" in names and "total, batch 32" in names
    # at the chosen context the KV area is batch x context x 131,072 B
    data = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    kv = next(t for t in data if t["name"] == "KV cache")
    i = kv["x"].index(8192)
    assert kv["y"][i] == pytest.approx(2 * 8192 * KV_TOKEN / GiB, abs=1e-6)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Chart data (CSV)", "Plan (JSON)"]


def test_per_layer_table_groups_identical_layers():
    at = start(model="google/gemma-3-1b-it", runtime="ideal", batch="1", ctx="4096")
    rows = at.dataframe[0].value.to_dict("records")
    # gemma-3-1b: 26 layers, pattern 5 sliding (window 512) : 1 full; 1 KV head x 256 x 2 x bf16
    assert rows[0]["layers"] == "0-4" and rows[0]["kind"] == "sliding" and rows[0]["tokens held"] == 512
    assert rows[1]["layers"] == "5" and rows[1]["kind"] == "full" and rows[1]["bytes each"] == 4096 * 1024
    assert sum(r["bytes in run"] for r in rows) == 4 * 4096 * 1024 + 22 * 512 * 1024


def test_model_errors_show_next_to_the_model_input(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = start(source="paste")
    at.text_area(key="pasted").set_value('{"model_type": "bert", "num_hidden_layers": 12}')
    rerun(at)
    assert any("not a decoder language model" in e.value for e in at.sidebar.error)


LAYER_TABLE_CASES = [
    # (runtime, model, extra query): every runtime, non-default block size and max_num_batched_tokens,
    # tensor and pipeline parallelism, a sliding/full hybrid and an MLA model
    ("ideal", "meta-llama/Llama-3.1-8B", {}),
    ("ideal", "google/gemma-3-27b-it", {"gpus": "2", "tp": "2", "pp": "1"}),
    ("transformers", "google/gemma-2-9b-it", {}),
    ("transformers", "meta-llama/Llama-3.1-8B", {"gpus": "2", "tp": "1", "pp": "2"}),
    ("vllm", "meta-llama/Llama-3.1-8B", {"block": "128"}),
    ("vllm", "meta-llama/Llama-3.1-8B", {"gpus": "2", "tp": "2", "pp": "1"}),
    ("vllm", "google/gemma-2-9b-it", {"mnbt": "512"}),
    ("vllm", "google/gemma-3-27b-it", {"gpus": "2", "tp": "1", "pp": "2"}),
    ("vllm", "deepseek-ai/DeepSeek-V2-Lite", {"gpus": "2", "tp": "2", "pp": "1", "block": "32"}),
]


@pytest.mark.parametrize("runtime,model,extra", LAYER_TABLE_CASES)
def test_the_layer_table_adds_up_to_the_headline(runtime, model, extra):
    """One byte path: the per-layer table's bytes on the busiest GPU equal the 'KV cache / GPU'
    headline to the byte (issue 10: they disagreed for block size, max_num_batched_tokens and TP)."""
    at = start(runtime=runtime, model=model, batch="4", ctx="1000", gpu="h100-sxm", **extra)
    m = next(m for m in at.metric if m.label.startswith("KV cache"))
    headline = int(m.proto.help.split(" bytes")[0].replace(",", ""))
    table = at.dataframe[0].value
    per_stage = table.groupby("stage")["bytes in run"].sum() if "stage" in table.columns else \
        {0: table["bytes in run"].sum()}
    assert max(int(v) for v in dict(per_stage).values()) == headline


def test_an_attention_what_if_shows_its_memory_and_speed_change():
    """MQA on Llama-3.1-8B keeps 1 of 8 KV heads: the cache is an eighth (-87.5 %), and decoding,
    which reads that cache every step, gets faster (issue 15: speed beside memory)."""
    at = start(runtime="ideal", batch="8", ctx="32768", gpu="h100-sxm", attn="mqa")
    banner = next(w.value for w in at.warning if "what-if" in w.value)
    assert "-87.5%" in banner and "as configured" in banner
    speed_change = banner.split("tokens/s per sequence (")[1].split("%")[0]
    assert float(speed_change) > 0


def test_each_figure_shows_how_it_was_obtained():
    """Issue 12: a visible quality badge beside the numbers (exact for a registered type; kvcalc's
    estimated / given qualities are tested in tests/fast/test_kv_examples.py and map to their own badges)."""
    at = start(runtime="ideal", batch="1", ctx="4096")
    assert any("KV cache :green-badge[exact]" in m.value and "weights :green-badge[exact]" in m.value
               for m in at.markdown)


# ----------------------------------------------------------------------------- vLLM options (issue 13)
def lora_case(name: str) -> dict:
    return next(c for c in load_fixture("vllm_0_33_lora.json")["cases"] if c["name"] == name)


def metric_bytes(at, label_start: str) -> int:
    """The exact bytes a metric's help text starts with ('15,316,103,168 bytes ...')."""
    m = next(m for m in at.metric if m.label.startswith(label_start))
    return int(m.proto.help.split(" bytes")[0].replace(",", ""))


def engine_lines(at) -> list[str]:
    return next(c.value for c in at.code if "Available KV cache memory" in c.value).splitlines()


def test_lora_slots_count_with_the_weights():
    """--enable-lora --max-loras 4 (rank 16) on Llama-3.1-8B, H100: vLLM 0.33's LoRA manager allocates
    369,844,352 bytes (the oracle's meta-built LoRA model), counted in "Model loading took"."""
    case = lora_case("lora_llama31_8b_r16_x4")
    assert case["resolved"]["max_num_batched_tokens"] == 8192 and case["resolved"]["max_num_seqs"] == 1024
    at = start(gpu="h100-sxm", mml="8192", ctx="8192")
    before = metric_bytes(at, "Weights")
    at.number_input(key="loras").set_value(4)
    rerun(at)
    assert at.selectbox(key="lora_rank").value == 16
    assert metric_bytes(at, "Weights") - before == case["outputs"]["lora_bytes"]
    at.selectbox(key="lora_rank").select(8)                      # half the rank: the A/B slots halve
    rerun(at)
    stacked = case["outputs"]["stacked_bytes"]
    assert metric_bytes(at, "Weights") - before == stacked // 2 + case["outputs"]["other_bytes"]


def test_vllm_release_switch_prints_each_release_s_lines():
    """0.33 logs capacity and concurrency on one line and subtracts its CUDA-graph estimate (assumed 0.67 GiB);
    0.10 prints three lines and subtracts nothing (kvcalc.vllm.defaults)."""
    at = start(gpu="h100-sxm", mml="8192", ctx="8192")
    new = engine_lines(at)
    assert len(new) == 2 and ", Maximum concurrency for 8,192 tokens per request:" in new[1]
    at.selectbox(key="vllm_ver").select("0.10")
    old = engine_lines(rerun(at))
    assert len(old) == 3 and old[2].startswith("Maximum concurrency for 8,192 tokens per request:")
    gib_of = lambda line: float(line.split(": ")[1].split(" GiB")[0])  # noqa: E731
    assert gib_of(old[0]) - gib_of(new[0]) == pytest.approx(0.67, abs=0.011)


def test_speculative_eagle_adds_one_drafter_layer():
    """EAGLE on Llama-3.1-8B: 33 KV layers instead of 32 (its public log), so a request's pages grow by 33/32."""
    at = start(gpu="h100-sxm", mml="8192", ctx="8192", batch="4")
    target = metric_bytes(at, "KV cache")
    assert target == 4 * 8192 * KV_TOKEN                         # 512 pages of 16 tokens per request
    at.selectbox(key="spec").select("eagle")
    rerun(at)
    at.number_input(key="spec_tokens").set_value(3)
    rerun(at)
    assert metric_bytes(at, "KV cache") == target * 33 // 32
    at.selectbox(key="spec").select("mtp")                       # Llama has no MTP layers: refused, named
    rerun(at)
    assert any("needs MTP layers" in e.value for e in at.error)


def test_cpu_offload_moves_weights_off_the_gpu():
    at = start(gpu="h100-sxm", mml="8192", ctx="8192")
    before = metric_bytes(at, "Weights")
    at.number_input(key="offload").set_value(2.0)
    rerun(at)
    assert before - metric_bytes(at, "Weights") == 2 * GiB       # min(weights, 2 GiB)


def test_allow_long_max_model_len_accepts_a_length_over_the_model_s():
    """Llama-3.1-8B's derived maximum is 131,072 (the oracle's default_max_model_len); 200,000 is refused
    unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1."""
    at = start(gpu="h100-sxm", mml="200000", ctx="8192")
    assert any("131072" in e.value.replace(",", "") for e in at.error)
    at.toggle(key="long_mml").set_value(True)
    rerun(at)
    assert not [e for e in at.error if "131072" in e.value.replace(",", "")]
    assert any("Maximum concurrency for 200,000 tokens" in line or "200000" in line for line in engine_lines(at))


def test_vllm_serve_paste_fills_lora_speculative_offload_and_long_len():
    at = start()
    at.text_area(key="vllm_cmd").set_value(
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve meta-llama/Llama-3.1-8B --enable-lora --max-loras 4 "
        "--max-lora-rank 32 --fully-sharded-loras --cpu-offload-gb 2 "
        "--speculative-config '{\"method\": \"eagle3\", \"num_speculative_tokens\": 3}'")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert at.number_input(key="loras").value == 4 and at.selectbox(key="lora_rank").value == 32
    assert at.selectbox(key="spec").value == "eagle3" and at.number_input(key="spec_tokens").value == 3
    assert at.number_input(key="offload").value == pytest.approx(2.0) and at.toggle(key="long_mml").value
    assert any("--fully-sharded-loras" in c.value for c in at.caption)   # not a Planner widget: listed


# ----------------------------------------------------------------------------- issue 14: the verdict first
def verdict_box(at):
    """(state, text) of the verdict: the first success / warning / error whose text starts with Fits / Does."""
    for state, boxes in (("fits", at.success), ("fits_if", at.warning), ("does_not_fit", at.error)):
        for b in boxes:
            if b.value.startswith(("**Fits", "**Does not fit")):
                return state, b.value
    raise AssertionError("no verdict on the page")


def test_rtx_4090_default_fits_in_green_with_the_context_as_max_model_len():
    """Llama-3.1-8B, batch 1, 8,192 tokens: 14.96 GiB of weights + 8,192 x 131,072 B = 1 GiB of KV under the
    0.9 x 24,564 MiB budget; vLLM serves it with --max-model-len 8192 (not the model's 131,072)."""
    at = start(gpu="rtx-4090")
    state, text = verdict_box(at)
    assert state == "fits" and text.startswith("**Fits: 1 sequence of 8,192 tokens (up to ")
    assert "max\\_model\\_len 8,192: the context asked for" in text
    assert metric(at, "KV cache") == gib(8192 * KV_TOKEN) == "1.00 GiB"
    assert any(c.value == "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192" for c in at.code)
    labels = [m.label for m in at.metric][:6]
    assert labels == ["Weights / GPU", "KV cache / GPU", "Total / GPU", "Budget / GPU", "Longest context",
                      "Largest batch"]
    # an explicit max_model_len (here the model's 131,072) is kept, and the verdict names the fix
    at = start(gpu="rtx-4090", mml="131072")
    state, text = verdict_box(at)
    assert state == "fits_if" and "(max\\_model\\_len 131,072 does not)" in text      # escaped Markdown
    fix = int(text.split("serve with --max-model-len ")[1].split(" ")[0])
    assert 8192 < fix < 131072
    assert any(c.value == f"vllm serve meta-llama/Llama-3.1-8B --max-model-len {fix}" for c in at.code)


def test_70b_on_two_h100s_then_with_awq_and_fp8_kv():
    """70,553,706,496 params x 2 B / 2 GPUs = 65.7 GiB per GPU: no 32k sequence fits beside it (red); AWQ-style
    4-bit weights and an fp8 cache (80 x 8 x 128 x 2 x 1 B / 2 = 81,920 B per token per GPU) fit (green)."""
    q = dict(model="meta-llama/Llama-3.1-70B", gpu="h100-sxm", gpus="2", batch="16", ctx="32768")
    state, text = verdict_box(start(**q))
    assert state == "does_not_fit" and "weights alone need 65.7 GiB per GPU" in text
    at = start(**q, wdtype="int4", kvdtype="fp8_e4m3")
    state, text = verdict_box(at)
    assert state == "fits" and text.startswith("**Fits: 16 sequences of 32,768 tokens")
    assert metric(at, "KV cache") == gib(16 * 32768 * 81_920) == "40.00 GiB"
    # --quantization awq reads an AWQ checkpoint: hugging-quants' (its Hub page), never the bf16 repository
    assert any(c.value.startswith("vllm serve hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4 "
                                  "--tensor-parallel-size 2 --max-model-len 32768 --quantization awq "
                                  "--kv-cache-dtype fp8_e4m3") for c in at.code)


def test_gemma_3_27b_at_128k_on_a_24_gb_card_does_not_fit():
    """27,432,406,640 params x 2 B = 51.1 GiB: more than a 24 GB card; the command shown is for the fewest cards."""
    at = start(model="google/gemma-3-27b-it", gpu="rtx-4090", ctx="131072")
    state, text = verdict_box(at)
    assert state == "does_not_fit" and "weights alone need 51.1 GiB per GPU" in text
    assert any(h.value.startswith("Command that fits: ") for h in at.subheader)


def test_pasted_unbundled_instruct_id_plans_with_the_bundled_base(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = start()
    at.text_area(key="vllm_cmd").set_value("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 "
                                           "-tp 2 --kv-cache-dtype fp8 --max-num-seqs 64 --quantization awq")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert at.radio(key="source").value == "hub" and at.text_input(key="hub").value.endswith("8B-Instruct")
    assert at.query_params["hub"] == "meta-llama/Llama-3.1-8B-Instruct"     # the share link names the id
    assert any("planned with meta-llama/Llama-3.1-8B's config: same architecture as "
               "meta-llama/Llama-3.1-8B-Instruct" in i.value for i in at.info)
    assert "Llama-3.1-8B-Instruct on 2 x" in at.subheader[0].value
    assert at.selectbox(key="wdtype").value == "int4" and at.selectbox(key="kvdtype").value == "fp8_e4m3"
    assert verdict_box(at)[0] == "fits"
    # a second paste resets what it does not set: no fp8, no tp 2, no max-num-seqs 64, no AWQ
    at.text_area(key="vllm_cmd").set_value("vllm serve meta-llama/Llama-3.1-8B --max-model-len 4096")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert at.radio(key="source").value == "bundled" and at.selectbox(key="model").value == "meta-llama/Llama-3.1-8B"
    assert at.selectbox(key="kvdtype").value == "auto" and at.selectbox(key="wdtype").value == "auto"
    assert at.number_input(key="tp").value == 1 and at.number_input(key="gpus").value == 1
    assert at.number_input(key="seqs").value == 0 and at.number_input(key="mml").value == 4096
    at.text_area(key="vllm_cmd").set_value("vllm serve m --quantization hqq")
    at.button(key="vllm_cmd_apply").click()
    rerun(at)
    assert any("--quantization 'hqq' is not modelled" in c.value for c in at.caption)


def test_an_attention_what_if_shows_a_badge_with_its_saving():
    """MQA keeps 1 of Llama-3.1-8B's 8 KV heads: 8 x 32,768 x 131,072 B = 32 GiB becomes 4 GiB, 28 GiB saved."""
    at = start(runtime="ideal", batch="8", ctx="32768", gpu="h100-sxm", attn="mqa")
    assert any(":orange-badge[attention what-if mqa: KV -28.00 GiB (-87.5%) against the model as configured]"
               in m.value for m in at.markdown)


def test_a_context_past_the_model_s_maximum_gets_a_red_verdict_not_an_error():
    """Llama-3.1-8B's derived maximum is 131,072: a 200,000-token context plans at vLLM's default length and
    the verdict says why it cannot be served (before, the context was never vLLM's max_model_len)."""
    state, text = verdict_box(start(gpu="h100-sxm", ctx="200000"))
    assert state == "does_not_fit" and "200,000 tokens is more than the model's maximum context 131,072" in text


def test_transformers_runtime_shows_its_calls():
    at = start(runtime="transformers", gpu="h100-sxm", batch="4", ctx="8192")
    code_blocks = [c.value for c in at.code if "from_pretrained" in c.value]
    assert code_blocks and "AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.1-8B', dtype=torch.bfloat16" \
        in code_blocks[0] and "max_length=8192" in code_blocks[0]



def test_a_quantized_re_upload_plans_with_the_base_config_and_4_bit_weights(monkeypatch):
    """hugging-quants' AWQ-INT4 upload of Llama-3.1-70B-Instruct: the Hub cannot give it offline; the bundled
    Llama-3.1-70B has the same geometry, and its weights are planned 4-bit as the name says (vLLM reads the
    format from the checkpoint). 80 layers x 8 KV heads x 256 x 2 B / 2 GPUs = 163,840 B per token per GPU."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = start(source="hub", hub="hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", gpu="h100-sxm", gpus="2",
               ctx="8192")
    assert any("planned with meta-llama/Llama-3.1-70B's config" in i.value and "int4" in i.value for i in at.info)
    assert metric(at, "KV cache") == gib(8192 * 163_840)
    full = start(model="meta-llama/Llama-3.1-70B", gpu="h100-sxm", gpus="2", ctx="8192")
    assert metric_bytes(at, "Weights") < metric_bytes(full, "Weights") / 3      # 4-bit + scales against bf16
    assert any("--quantization awq" in c.value for c in at.code)


# --------------------------------------------------------------------------- weights kvcalc cannot count
# A decoder type kvcalc does not know: its KV cache is read with the generic conventions (estimated), its
# parameters are not counted, so the Planner asks for the weights per GPU (issue 12: weights never block a plan).
# KV: 4 layers x 2 KV heads x (64 + 64) x 2 B = 2,048 B per token.
UNKNOWN = {"model_type": "acme_decoder", "architectures": ["AcmeForCausalLM"], "hidden_size": 256,
           "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
           "intermediate_size": 512, "vocab_size": 1000, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}


def _unknown_link() -> str:
    from dashboard.config_link import encode_config

    return encode_config(UNKNOWN)


def test_uncountable_model_asks_for_its_weights_instead_of_refusing():
    at = start(source="paste", cfg=_unknown_link(), runtime="ideal", gpu="rtx-4090", ctx="4096")
    assert not at.error
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any("Enter the weights per GPU" in w and "acme_decoder" in w for w in warnings)
    assert any(n.label.startswith("Weights per GPU (GiB)") for n in at.number_input)
    at.number_input(key="wgib").set_value(3.0)
    rerun(at)
    assert metric(at, "Weights / GPU") == "3.00 GiB"
    assert metric(at, "KV cache / GPU") == gib(4096 * 2048)
    assert any("weights :blue-badge[given]" in m.value for m in at.markdown)
    assert any("as given (weights_gib)" in w.value.replace("\\", "") for w in at.warning)


def test_weights_link_value_plans_an_uncountable_model_and_is_ignored_for_a_counted_one():
    at = start(source="paste", cfg=_unknown_link(), runtime="ideal", gpu="rtx-4090", wgib="2.5")
    assert metric(at, "Weights / GPU") == "2.50 GiB"
    at = start(gpu="rtx-4090", runtime="ideal", wgib="2.5")       # Llama-3.1-8B is counted: its 14.96 GiB
    assert metric(at, "Weights / GPU") == "14.96 GiB"
    assert not any(n.label.startswith("Weights per GPU (GiB)") for n in at.number_input)


def test_tensor_parallel_following_the_gpu_count_logs_no_widget_state_warning(monkeypatch) -> None:
    """Tensor parallel follows GPUs through Session State (dashboard.state.override): its widget takes no default
    beside that write, or Streamlit logs 'created with a default value but also had its value set via the Session
    State API' with a stack on every such change (a browser check found it setting 8 x MI300X)."""
    from streamlit.elements.lib import policies

    logged: list[str] = []
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    monkeypatch.setattr(policies._LOGGER, "warning", lambda msg, *a, **k: logged.append(msg % a))
    at = start(model="meta-llama/Llama-3.1-8B", gpu="mi300x")
    at.number_input(key="gpus").set_value(8)
    rerun(at)
    assert at.number_input(key="tp").value == 8
    assert not [m for m in logged if "default value" in m], logged
