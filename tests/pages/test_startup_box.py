"""The Planner's startup-log box (dashboard/startup_box.py) under AppTest: a real public log pasted in gives a
predicted vs observed table holding the log's own figures (vLLM issue 10517's RTX 3090 run of Llama-3.1-8B:
"# GPU blocks: 1952", "Maximum concurrency for 20000 tokens per request: 1.56x"), the calibration goes into
the share link, and a fresh page opened with that link alone shows the same figures; a tampered link value
is refused with a notice and the plan is not calibrated."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from apptest import PLANNER, rerun, run_page
from paths import ROOT

from dashboard.calibration_state import CALIBRATION_KEY

LOG = Path(ROOT) / "tests" / "fixtures" / "startup_logs" / "vllm__llama-3.1-8b-instruct__1.log"
MODEL = "meta-llama/Llama-3.1-8B"


def _table(at: Any) -> dict[str, dict[str, str]]:
    for df in at.table:
        frame = df.value
        if "observed" in frame.columns and "predicted" in frame.columns:
            return {str(r["figure"]): {k: str(v) for k, v in r.items()} for r in frame.to_dict("records")}
    return {}


def test_pasted_log_gives_predicted_vs_observed_and_a_link_that_reproduces_it() -> None:
    at = run_page(PLANNER, model=MODEL)
    at.text_area(key="startup_log_text").set_value(LOG.read_text(encoding="utf-8"))
    rerun(at)
    rows = _table(at)
    assert rows["gpu_blocks"]["observed"] == "1952 blocks" and rows["gpu_blocks"]["predicted"] == "1,952"
    assert rows["max_concurrency"]["observed"] == "1.56 x" and rows["max_concurrency"]["agrees"] == "yes"
    assert rows["weights"]["agrees"] == "yes"
    link = at.query_params[CALIBRATION_KEY]
    link = link[0] if isinstance(link, list) else link
    assert 0 < len(link) < 2048

    fresh = run_page(PLANNER, model=MODEL, **{CALIBRATION_KEY: link})
    again = _table(fresh)
    assert again["gpu_blocks"]["predicted"] == "1,952" and again["max_concurrency"]["agrees"] == "yes"
    assert any("share link" in c.value for c in fresh.caption)


def test_tampered_calibration_link_is_refused_and_the_plan_uncalibrated() -> None:
    garbled = "eNotjEEKgzAUBe_y1knRJLT4ryIian9jiCbFhJQi3r1ZdDfM8N4JDtYFBq"
    at = run_page(PLANNER, model=MODEL, **{CALIBRATION_KEY: garbled})
    assert any("not usable" in w.value for w in at.warning)
    assert _table(at) == {}


def test_calibrated_options_read_the_flags_as_the_cli_does() -> None:
    """The log's card replaces the GPU picked; its parallel size sets the GPU count; other choices stay."""
    from dashboard.startup_box import calibrated_options

    got = calibrated_options({"runtime": "vllm", "gpu": "h100-sxm", "gpus": 2, "dtype": None},
                             {"--kv-cache-memory": 1952 * 2**21, "--gpu-mem-gib": 23.58})
    assert got == {"runtime": "vllm", "gpus": 2, "dtype": None, "gpu_mem_gib": 23.58, "kv_cache_memory": 1952 * 2**21}
    tp = calibrated_options({"runtime": "sglang", "gpu": "l4", "gpus": 1}, {"-tp": 4, "--max-total-tokens": 46611})
    assert (tp["gpus"], tp["tensor_parallel_size"], tp["max_total_tokens"], tp["gpu"]) == (4, 4, 46611, "l4")
