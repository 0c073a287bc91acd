"""``kvcalc plan MODEL --startup-log FILE``: a public vLLM log (vllm-project/vllm#10517, an RTX 3090,
Llama-3.1-8B-Instruct at --max-model-len 20000) calibrates the plan, which then prints the log's own
lines: "GPU blocks: 1952" (x 16 tokens = 31,232 tokens) and "Maximum concurrency for 20000 tokens per
request: 1.56x" (31,232 / 20,000 = 1.5616)."""
from __future__ import annotations

import contextlib
import io
import json
import os

from paths import ROOT

from kvcalc.cli import main

LOG = os.path.join(ROOT, "tests", "fixtures", "startup_logs", "vllm__llama-3.1-8b-instruct__1.log")


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def test_a_calibrated_plan_prints_the_logs_own_lines() -> None:
    rc, out, err = _run("plan", "meta-llama/Llama-3.1-8B", "--offline", "--gpu", "rtx-3090", "--startup-log", LOG,
                        "--json")
    assert rc == 0, err
    plan = json.loads(out)
    assert "GPU KV cache size: 31,232 tokens" in plan["engine_lines"]
    assert "Maximum concurrency for 20,000 tokens per request: 1.56x" in plan["engine_lines"]
    assert plan["gpu"] == "NVIDIA GeForce RTX 3090" or "3090" in plan["gpu"]     # the user's --gpu is kept
    assert plan["startup_log"]


def test_the_users_own_flag_wins_over_the_log() -> None:
    rc, out, err = _run("plan", "meta-llama/Llama-3.1-8B", "--offline", "--gpu", "rtx-3090", "--startup-log", LOG,
                        "--max-model-len", "10000", "--json")
    assert rc == 0, err
    # the log's KV memory (1,952 blocks) at the user's 10,000 tokens: 31,232 / 10,000 = 3.12x
    assert "Maximum concurrency for 10,000 tokens per request: 3.12x" in json.loads(out)["engine_lines"]


def test_config_and_log_cannot_both_be_stdin() -> None:
    rc, _, err = _run("plan", "-", "--startup-log", "-")
    assert rc == 2 and "standard input" in err
