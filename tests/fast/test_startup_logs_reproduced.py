"""Which public startup logs a calibrated plan reproduces exactly: the enumeration the README's count comes from.

Each log of tests/fixtures/startup_logs (sources in SOURCES.csv and ../shared/reference/engine_logs.csv) is
planned the way a user plans it, ``kvcalc plan MODEL --startup-log LOG --json`` in-process, with only the flags
the log's source states and the log does not print (its tensor-parallel size, a KV dtype, the user's ``-c``, a
GPU large enough for the pool). The log is reproduced when every KV figure it prints (vLLM "GPU KV cache size"
/ "# GPU blocks" / "Maximum concurrency" / the refusal's capacity / "Available KV cache memory" at TP 1;
SGLang "#tokens, K size, V size" and "max_total_num_tokens"; TensorRT-LLM "Allocated X GiB ... (N)" and its
block count; llama.cpp "KV self size" / "llama_kv_cache: size", K and V) is printed by the plan as the log
prints it, and at least one such figure is a prediction (not a number the calibration copied in).

Reproduced today: 41 logs (10 vLLM, 10 SGLang, 10 TensorRT-LLM, 11 llama.cpp, of which 6 are ik_llama.cpp, the
llama.cpp fork whose KV cache for these models is llama.cpp's). One needs a stand-in for a fact the log does
not print but no KV figure depends on: llama_cpp__qwen2-32b-ollama__1 (the weights' GGUF type). Two numbers
that only an older release's rules give are checked at the end under that release's version switch
(TensorRT-LLM 1.0's rounding of a user max_tokens, SGLang 0.4's max_running_requests; docs/engines.md).

Not reproducible, and why (kept out of the count):
- vllm__qwen3.6-* / vllm__qwen3.8-* and vLLM issue 40691 (hybrid Gated DeltaNet models): vLLM's hybrid token
  report differs from the modelled one by 5 % to 2x; no sliding-window or hybrid log is reproduced yet.
- vllm__gpt-oss-120b__1: the log stops at its KV memory (no token count to compare).
- vllm__qwen3-235b-a22b-fp8__1 (TP 4), vllm__meta-llama-3-70b__1: the only KV figures are the token / block
  counts the calibration pins; vllm__qwen3-14b__1: Qwen3-14B is not a bundled config; vllm__unknown-fp8-kv__1:
  the model is not stated.
- llama_cpp__deepseek-r1-distill-qwen-7b__1 and Ollama issue 9496 (mistral:latest, "KV self size = 4048.00
  MiB"): the cell count is not printed, only inferable from the KV size itself.
- llama_cpp__qwen3-235b-a22b-ik__1 / __2: IQ3_K is an ik_llama.cpp-only file type kvcalc does not model (with
  any modelled stand-in type the KV lines agree: 6016.00 and 3196.00 MiB).
- llama_cpp__deepseek-r1-ik__* and the DeepSeek logs of ik_llama.cpp's threads: MLA under llama.cpp is not
  modelled; gemma-3 logs of ik_llama.cpp: that fork allocates full-length caches for sliding-window layers.
- llama.cpp issue 10664 (Qwen2.5 1.5B draft), ik_llama.cpp's bitnet / GLM-4 logs, LLamaSharp issue 1099
  (Qwen2.5-3B), fedora-copr/logdetective PR 106 (model not named): no bundled config of the model.
- tensorrt_llm__speculative-triton__1 (22,528 B per token: a 22-layer draft model not bundled),
  tensorrt_llm__unknown__* (model not stated; their block counts are replayed in test_engine_logs.py, exact
  under the C++ runtime's rounding up), tensorrt_llm__llama-2-7b__1 (0.5's token count only, no memory figure).
- tensorrt_llm__qwen1.5-7b__1 is planned from a real config (tests/fixtures/real_configs, Qwen1.5 is not
  bundled) and its block count is the prediction: no token count pins the pool, its printed free memory does.
- sglang__tp8-moe__1, sglang__llama-3.1-8b-instruct__2: truncated before the KV pool line.
- sglang__deepseek-r1-distill-qwen-7b__1: its context_len 131072 comes from the distilled model's own config
  (not bundled); with Qwen2.5-7B-Instruct's geometry and --allow-overwrite-longer-context-len K size agrees.
- TensorRT-LLM's v0.12 perf-benchmarking doc (Llama-2-7b-hf FP8, 62.99 GiB for 294,848 tokens): 229,376 B
  per token is a 28-layer model's, not Llama-2-7B's 262,144 B; the doc's log is not of the model it names.
- triton-inference-server/tensorrtllm_backend docs/multimodal.md (llava-1.5-7b, "77.02 GiB ... (315488)"): the
  doc states FP8 KV at TP 2, its log's 262,144 B per token is FP16 at TP 2 (or FP8 at TP 1).
- NVIDIA/TensorRT-LLM issue 1188 (Qwen2.5-Coder-0.5B, "4.53 GiB ... (395776)") and Triton walk-throughs of
  Qwen2.5-0.5B / 1.5B (an L4 lab notebook: "7.31 GiB ... (273792)", "2.18 GiB ... (190656)"): their text or its
  repository was not found to vendor (the real Qwen2.5-0.5B / 1.5B configs would do); dynamo's multi-node
  "18.88 GiB ... (1800032)": 11,264 B per token is not its config's DeepSeek-R1-Distill-Llama-8B at TP 2.
- lmontigny/lm7 docs/tensorrt-llm.md (SmolLM2-135M, "9.06 GiB ... (422048)", 13,189 blocks: 422,048 x 23,040 B
  agrees): its log lines are re-wrapped by the doc, not verbatim. A Kimi-K2.5 test log ("166.02 GiB ...
  (5073376)": Kimi-K2's fp8 MLA cell, 35,136 B, gives it) and a MiMo-V2-Flash log (hybrid sliding window, not
  modelled under the PyTorch backend): their repositories were not found to vendor.
"""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from kvcalc.cli import main

LOGS = Path(ROOT) / "tests" / "fixtures" / "startup_logs"
REAL = Path(ROOT) / "tests" / "fixtures" / "real_configs"     # a model no bundled config stands for
BIG = ["--gpu-mem-gib", "1024"]             # room for any pool: the log's own token count then sets it
TP4 = ["-tp", "4", "--gpus", "4", "--gpu-mem-gib", "80"]
KV_FIGURES = {
    "kv_tokens", "gpu_blocks", "max_concurrency", "kv_capacity", "available_kv", "max_total_num_tokens",
    "k_size", "v_size", "kv_size", "kv_allocated", "blocks", "kv_total",
}
# figures that are a prediction: the calibration never sets them from the log (the token / block / cell counts
# it pins are not: a log whose only KV figures are those, or whose cells the calibration inferred from its KV
# size, is not counted: vllm__qwen3-235b-a22b-fp8__1 at TP 4, vllm__meta-llama-3-70b__1,
# llama_cpp__deepseek-r1-distill-qwen-7b__1)
PREDICTED = {
    "max_concurrency", "kv_capacity", "available_kv", "k_size", "v_size", "kv_size", "kv_allocated", "kv_total",
}

# (log, model planned, extra flags; why that model / those flags)
REPRODUCED: list[tuple[str, str, list[str], str]] = [
    ("vllm__llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", [], "Instruct = base geometry"),
    ("vllm__llama-3.1-8b-instruct__2.log", "meta-llama/Llama-3.1-8B", [], "the refusal at 29,000 tokens"),
    ("vllm__llama-3.1-70b-instruct-w8a8__1.log", "meta-llama/Llama-3.1-70B", ["--gpu-mem-gib", "80"],
     "w8a8 weights, bf16 KV"),
    ("vllm__qwen3-30b-a3b__1.log", "Qwen/Qwen3-30B-A3B", TP4, "SOURCES.csv: -tp 4"),
    ("vllm__qwen3-0.6b__1.log", "Qwen/Qwen3-0.6B", [], "V0 profile, nothing pinned but the blocks"),
    ("vllm__meta-llama-3-8b__1.log", "meta-llama/Meta-Llama-3-8B", [], "H100 profile: 53.29 GiB from its parts"),
    ("vllm__qwen2.5-7b-rtx4060__1.log", "Qwen/Qwen2.5-7B-Instruct", [],
     "RTX 4060 profile: -1.05 GiB left, 0 blocks, 0.00x, vLLM refuses"),
    ("vllm__unknown__1.log", "meta-llama/Llama-3.1-8B", BIG,
     "model not stated: 127,626 blocks at 2,048 tokens give 997.08x whatever the geometry"),
    ("vllm__unknown__2.log", "meta-llama/Llama-3.1-8B", BIG, "the same run after PR 13596 (tokens)"),
    ("vllm__mistral-7b-instruct-v0.2-gptq__1.log", "mistralai/Mistral-7B-Instruct-v0.3", [],
     "v0.2 = v0.3 KV geometry, no sliding window; GPTQ weights, fp16 KV; vLLM 0.11 on a DGX Spark"),
    ("sglang__llama-3.1-8b-instruct__3.log", "meta-llama/Llama-3.1-8B", BIG, "a 24 GB card, 0.4.9-era line"),
    ("sglang__meta-llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", BIG,
     "0.4.1: the pool's tokens only in max_total_num_tokens, K / V size on the old line"),
    ("sglang__kimi-k2.5-mi355x__1.log", "moonshotai/Kimi-K2-Instruct", ["-tp", "8", "--gpus", "8", *BIG],
     "Kimi-K2.5's text model = Kimi-K2's MLA geometry; the latent KV is whole on every rank"),
    ("sglang__qwq-32b__1.log", "Qwen/Qwen2.5-32B", [*TP4[:4], *BIG], "QwQ-32B = Qwen2.5-32B geometry"),
    ("sglang__llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", BIG, ""),
    ("sglang__qwen3-0.6b__1.log", "Qwen/Qwen3-0.6B", BIG, ""),
    ("sglang__qwen3-0.6b__2.log", "Qwen/Qwen3-0.6B", BIG, ""),
    ("sglang__qwen3-235b-a22b-fp8__1.log", "Qwen/Qwen3-235B-A22B", [*TP4[:4], *BIG], "FP8 weights, bf16 KV"),
    ("sglang__qwen3-30b-a3b-instruct__1.log", "Qwen/Qwen3-30B-A3B", BIG, ""),
    ("tensorrt_llm__llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B", ["--kv-dtype", "fp8", *BIG],
     "the write-up's fp8 KV"),
    ("tensorrt_llm__llama-3.1-8b__1.log", "meta-llama/Llama-3.1-8B", BIG, ""),
    ("tensorrt_llm__qwen3-reranker-0.6b__1.log", "Qwen/Qwen3-0.6B", BIG, "Qwen3-0.6B geometry"),
    ("tensorrt_llm__smoothquant-a100__1.log", "meta-llama/Llama-2-7b-hf", BIG,
     "69,524,783,104 B / 132,608 tokens = Llama-2-7B's 524,288 B per token"),
    ("llama_cpp__qwen2.5-coder-32b__1.log", "Qwen/Qwen2.5-32B", ["--gguf-type", "q8_0", *BIG],
     "q8_0 KV of 32,768 cells"),
    ("llama_cpp__llama-3.3-70b-q3_k_m__1.log", "meta-llama/Llama-3.1-70B", ["--gguf-type", "Q3_K_M", *BIG],
     "Llama 3.3 70B = Llama-3.1-70B geometry; 4,096 cells from the kv_size header (no offload field)"),
    ("llama_cpp__qwen2-32b-ollama__1.log", "Qwen/Qwen2.5-32B", ["--gguf-type", "Q4_K_M", *BIG],
     "Qwen2 32B (771 tensors, 64 layers); the weights' type is not printed: Ollama's Q4_K_M stands in, the KV "
     "lines do not depend on it"),
    ("llama_cpp__qwen3-30b-a3b-ik__1.log", "Qwen/Qwen3-30B-A3B", BIG, "ik_llama.cpp, -c 32768 -fa"),
    ("llama_cpp__qwen3-32b-ik__1.log", "Qwen/Qwen3-32B", ["-c", "16768", *BIG],
     "ik_llama.cpp: the user's --ctx-size 16768 becomes 16896 cells (padded to 256 with -fa), q8_0 KV"),
    ("llama_cpp__qwen3-32b-ik__2.log", "Qwen/Qwen3-32B", BIG, "ik_llama.cpp, -c 8192 -fa"),
    ("llama_cpp__llama-3.1-8b-ik__1.log", "meta-llama/Llama-3.1-8B", BIG,
     "ik_llama.cpp llama-perplexity: K iq4_nl, V f16, 1024 cells"),
    ("llama_cpp__llama-2-13b-ik__1.log", "meta-llama/Llama-2-13b-hf", BIG, "ik_llama.cpp imatrix, MHA, 512 cells"),
    ("llama_cpp__qwen3-30b-a3b-ik__2.log", "Qwen/Qwen3-30B-A3B", BIG, "ik_llama.cpp on the CPU, -c 4096"),
    ("llama_cpp__qwen3-30b-a3b__1.log", "Qwen/Qwen3-30B-A3B", BIG, "mainline build 5622, 16384 cells"),
    ("llama_cpp__llama-3.1-8b__1.log", "meta-llama/Llama-3.1-8B", BIG, "mainline build 5781 (Vulkan), 16384 cells"),
    ("sglang__qwen3-30b-a3b__1.log", "Qwen/Qwen3-30B-A3B", BIG, "SGLang in ktransformers, RTX 3090"),
    ("tensorrt_llm__llama-3.1-8b-fp8__1.log", "meta-llama/Llama-3.1-8B", ["--kv-dtype", "fp8", *BIG],
     "Llama 3.1 8B FP8 checkpoint: fp8 KV"),
    ("tensorrt_llm__qwen1.5-7b__1.log", str(REAL / "Qwen__Qwen1.5-7B.json"), [],
     "Qwen1.5-7B-sft = Qwen1.5-7B's MHA geometry (real config); the 0.13 engine's C++ runtime: 0.9 x the printed "
     "21.89 GiB free is 40,345 whole tokens, rounded up to 631 blocks of 64 (calculateMaxNumBlocks)"),
    ("tensorrt_llm__qwen3-8b-fp8__1.log", "Qwen/Qwen3-8B", ["--kv-dtype", "fp8", *BIG],
     "nvidia/Qwen3-8B-FP8: Qwen3-8B geometry, FP8 KV; 1.2.0rc2's estimation pool (the first Allocated line)"),
    ("tensorrt_llm__gpt-oss-120b-dgx-spark__1.log", "openai/gpt-oss-120b", BIG,
     "1.1.0rc3 on a DGX Spark, its estimation pool: 8,224 tokens x 73,728 B (36 layers x 8 x 64 x 2 x 2 B)"),
    ("tensorrt_llm__gpt-oss-20b__1.log", "openai/gpt-oss-20b", BIG,
     "1.1.0rc3 (NVIDIA forum), its estimation pool: 4,128 tokens x 49,152 B (24 layers x 8 x 64 x 2 x 2 B)"),
    ("tensorrt_llm__mistral-7b-cortex__1.log", "mistralai/Mistral-7B-Instruct-v0.3", BIG,
     "cortex.cpp's mistral:tensorrt-llm (Mistral 7B v0.2 / v0.3 KV geometry, no sliding window): 128 tokens x "
     "131,072 B = the printed 16,777,216 bytes"),
]


def _plan(name: str, model: str, extra: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["plan", model, "--offline", "--startup-log", str(LOGS / name), *extra, "--json"])
    assert rc == 0, name
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


@pytest.mark.parametrize(("name", "model", "extra", "why"), REPRODUCED, ids=[r[0] for r in REPRODUCED])
def test_calibrated_plan_prints_every_kv_figure_of_the_log(name: str, model: str, extra: list[str],
                                                            why: str) -> None:
    report = _plan(name, model, extra)["startup_log"]
    rows = [r for r in report["rows"] if r["name"] in KV_FIGURES]
    multi_rank = any(f in extra for f in ("-tp",))
    checked = [r for r in rows if not (multi_rank and r["name"] == "available_kv")]   # one rank's figure
    assert checked, name
    wrong = [(r["name"], r["observed"], r["predicted"]) for r in checked if r["agrees"] is not True]
    assert not wrong, (name, wrong)
    assert {r["name"] for r in checked} & _predicted(report), name
    assert report["model_check"]["consistent"] is not False, (name, report["model_check"])


def _predicted(report: dict[str, Any]) -> set[str]:
    """PREDICTED, and TensorRT-LLM's block count where the log prints no token count to pin the pool (its
    free memory is calibrated instead: the blocks follow from free_gpu_memory_fraction and the rounding)."""
    names = {r["name"] for r in report["rows"]}
    trtllm_unpinned = report.get("engine") == "tensorrt_llm" and "kv_tokens" not in names
    return PREDICTED | ({"blocks"} if trtllm_unpinned else set())


def _counts() -> dict[str, int]:
    engines = [name.split("__")[0] for name, *_ in REPRODUCED]
    return {e: engines.count(e) for e in ("vllm", "sglang", "tensorrt_llm", "llama_cpp")}


def test_every_reproduced_log_is_sourced_and_the_readme_says_how_many() -> None:
    """Each log has its row in SOURCES.csv, and the README's count sentence is this enumeration's."""
    sources = (LOGS / "SOURCES.csv").read_text(encoding="utf-8")
    assert all(name in sources for name, *_ in REPRODUCED)
    assert len({name for name, *_ in REPRODUCED}) == len(REPRODUCED)
    n = _counts()
    fixtures = len(list(LOGS.glob("*.log")))
    sentence = (
        f"{fixtures} public logs in tests/fixtures/startup_logs/ with their sources, "
        f"{len(REPRODUCED)} of them reproduced exactly after calibration ({n['vllm']} vLLM, {n['sglang']} SGLang, "
        f"{n['tensorrt_llm']} TensorRT-LLM, {n['llama_cpp']} llama.cpp)"
    )
    readme = " ".join((Path(ROOT) / "README.md").read_text(encoding="utf-8").split())
    assert sentence in readme, sentence
    assert len(REPRODUCED) >= 20 and min(n.values()) >= 1


def test_llama_cpp_cells_follow_from_an_unquantized_kv_size() -> None:
    """DeepSeek-R1-Distill-Qwen-7B prints "KV self size = 112.00 MiB" (f16) and no cell count: 112 MiB /
    (2 x 28 layers x 4 KV heads x 128 x 2 B) = 2,048 cells."""
    from kvcalc.catalog import bundled_config
    from kvcalc.startup_log import calibrate, parse_startup_log

    log = parse_startup_log((LOGS / "llama_cpp__deepseek-r1-distill-qwen-7b__1.log").read_text(encoding="utf-8"))
    flags = calibrate(log, bundled_config("Qwen/Qwen2.5-7B-Instruct"))
    assert flags["-c"] == 112 * 2**20 // (2 * 28 * 4 * 128 * 2) == 2048 and flags["--gguf-type"] == "F16"


def test_a_hybrid_models_log_is_not_called_another_model() -> None:
    """Qwen3.6-35B-A3B's vLLM log (Gated DeltaNet + 1 in 4 full-attention layers) against the Qwen3.5-35B-A3B
    config: its KV bytes per token do not follow the uniform formula, so the check says it cannot compare
    (it said "another model" before)."""
    from kvcalc.catalog import bundled_config
    from kvcalc.startup_log import check_model, parse_startup_log

    log = parse_startup_log((LOGS / "vllm__qwen3.6-35b-a3b-nvfp4__1.log").read_text(encoding="utf-8"))
    check = check_model(log, bundled_config("Qwen/Qwen3.5-35B-A3B"))
    assert check.consistent is None and "hybrid" in check.reasons[0]


def test_tensorrt_llm_rounds_the_users_max_tokens_as_this_log_does() -> None:
    """NVIDIA/TensorRT-LLM#6294 states max_tokens 860308 and tokens_per_block 32; planned with those flags and
    no log under that July-2025 release's rules (``--trtllm-version 1.0``: the PyTorch backend's
    ``calculate_max_num_blocks`` rounds up, ``ceil(860,308 / 32)`` = 26,885 blocks), the pool is the log's
    "(860320)"; the current release rounds down (26,884)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["plan", "meta-llama/Llama-3.1-8B", "--offline", "--runtime", "tensorrt_llm", "--kv-dtype", "fp8",
                   "--max-tokens-in-paged-kv-cache", "860308", "--tokens-per-block", "32", "--trtllm-version", "1.0",
                   *BIG, "--json"])
    assert rc == 0
    assert json.loads(out.getvalue())["num_gpu_blocks"] * 32 == 860320


def test_tensorrt_llm_final_pool_of_the_qwen3_8b_fp8_log() -> None:
    """The same 1.2.0rc2 run's second pool, after the memory profile: "Allocated 3.17 GiB for max tokens in paged KV
    cache (46208)" with 1,444 blocks of 32: 46,208 x 73,728 B (Qwen3-8B, FP8 KV) = 3.17 GiB."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["plan", "Qwen/Qwen3-8B", "--offline", "--runtime", "tensorrt_llm", "--kv-dtype", "fp8",
                   "--max-tokens-in-paged-kv-cache", "46208", *BIG, "--json"])
    assert rc == 0
    plan = json.loads(out.getvalue())
    assert plan["num_gpu_blocks"] == 1444
    assert "[MemUsageChange] Allocated 3.17 GiB for max tokens in paged KV cache (46208)." in plan["engine_lines"]


def test_tensorrt_llm_1_1_rc3_rounds_the_final_pool_up() -> None:
    """jeansblog/trt_llm's 1.1.0rc3 log: after the memory profile, max_tokens 86,711 (5.95 GiB / 73,728 B) becomes
    "upper bound 86720" and "Allocated 5.95 GiB ... (86720)": ceil(86,711 / 32) = 2,710 blocks, the 1.0 rule
    (``--trtllm-version 1.0``); the default 1.3 rule (``int(max_tokens // tokens_per_block)``) gives 2,709."""
    def blocks(version: str) -> int:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = main(["plan", "openai/gpt-oss-120b", "--offline", "--runtime", "tensorrt_llm",
                       "--max-tokens-in-paged-kv-cache", "86711", "--trtllm-version", version, *BIG, "--json"])
        assert rc == 0
        plan = json.loads(out.getvalue())
        line = "[MemUsageChange] Allocated 5.95 GiB for max tokens in paged KV cache (86720)."
        assert (line in plan["engine_lines"]) == (version == "1.0")
        return int(plan["num_gpu_blocks"])

    assert (blocks("1.0"), blocks("1.3")) == (2710, 2709)


def test_tensorrt_llm_allocating_bytes_is_the_exact_pool() -> None:
    """janhq/cortex.cpp#981 prints the pool in bytes: "Max tokens in paged KV cache: 128. Allocating 16777216
    bytes." = 128 tokens x Mistral 7B's 131,072 B (32 layers x 8 KV heads x 128 x K+V x 2 B), exactly."""
    import kvcalc
    from kvcalc.catalog import bundled_config

    d = kvcalc.deploy(bundled_config("mistralai/Mistral-7B-Instruct-v0.3"), runtime="tensorrt_llm", gpu_mem_gib=1024,
                      max_tokens_in_paged_kv_cache=128, trtllm_backend="cpp")
    ep = d.engine_plan()
    assert (ep.pool_tokens, ep.pool_bytes) == (128, 16777216)


def test_sglang_0_4_max_running_requests_as_the_log_prints() -> None:
    """SGLang 0.4.1-0.4.2 print max_running_requests=2049: ``min(max_total_num_tokens // 2,
    req_to_token_pool.size)`` with the pool sized ``max_num_reqs + 1`` = 2,049 (tp_worker.py, model_runner.py
    of 0.4.x); 0.5 prints 2,048."""
    report = _plan("sglang__meta-llama-3.1-8b-instruct__1.log", "meta-llama/Llama-3.1-8B",
                   [*BIG, "--sglang-version", "0.4"])["startup_log"]
    row = next(r for r in report["rows"] if r["name"] == "max_running_requests")
    assert row["agrees"] is True, row
