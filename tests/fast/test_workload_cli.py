"""The workload flags' glue (kvcalc.workload.cli_flags) beside today's CLI, run in-process: nothing shared,
effective_concurrency equals ``kvcalc plan --json``'s max_concurrency; the hand check of the issue."""
import argparse
import json

import pytest

from kvcalc import cli, deploy, plan
from kvcalc.catalog import bundled_config
from kvcalc.errors import InputError
from kvcalc.workload.cli_flags import (
    add_colocate_parser,
    add_workload_flags,
    colocate_command,
    workload_json,
    workload_lines,
)

MODEL = "meta-llama/Llama-3.1-8B"
KV = 10240 * 2 * 2**20


def flags(*argv):
    p = argparse.ArgumentParser()
    add_workload_flags(p)
    return p.parse_args(list(argv))


def cli_plan_json(capsys, *extra):
    assert cli.main(["plan", MODEL, "--offline", "--max-model-len", "8192", "--kv-cache-memory", str(KV), "--json",
                     *extra]) == 0
    return json.loads(capsys.readouterr().out)


def llama_plan():
    d = deploy(bundled_config(MODEL), max_model_len=8192, kv_cache_memory=KV)
    return d, plan(d)


def test_no_workload_flag_gives_the_plain_concurrency():
    d, p = llama_plan()
    # 10,240 blocks x 16 tokens / 8,192 tokens per request = 20.0 (vLLM's own "Maximum concurrency" line)
    assert workload_json(d, p, flags()) == {"effective_concurrency": 20.0}


def test_nothing_shared_equals_the_cli_concurrency(capsys):
    shown = cli_plan_json(capsys)
    d, p = llama_plan()
    out = workload_json(d, p, flags("--shared-prefix-tokens", "0", "--enable-prefix-caching"))
    assert out["effective_concurrency"] == shown["max_concurrency"] == 20.0


def test_issue_hand_check_through_the_flags():
    d, p = llama_plan()
    out = workload_json(d, p, flags("--enable-prefix-caching", "--shared-prefix-tokens", "4096"))
    assert out["effective_concurrency"] == 39.0
    assert out["workload"]["prefix_sharing"]["requests_at_once"] == 38
    off = workload_json(d, p, flags("--no-enable-prefix-caching", "--shared-prefix-tokens", "4096"))
    assert off["effective_concurrency"] == 20.0
    assert any("39.00x" in line for line in workload_lines(out))


def test_lengths_and_offload_sections():
    d, p = llama_plan()
    out = workload_json(d, p, flags("--mean-input-tokens", "1500", "--p95-input-tokens", "3000",
                                    "--mean-output-tokens", "300", "--p95-output-tokens", "600",
                                    "--kv-offload-gib", "100", "--host-link", "pcie4"))
    assert out["workload"]["lengths"]["concurrency_at_5pct"] == 91
    assert out["workload"]["offload"]["tokens"] == 819200
    assert len(workload_lines(out)) == 3
    with pytest.raises(InputError):
        workload_json(d, p, flags("--mean-input-tokens", "1500"))


def test_colocate_command_text():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command")
    add_colocate_parser(sub, lambda q: q.add_argument("--offline", action="store_true"))
    args = p.parse_args(["colocate", f"{MODEL}=0.6@8192", "Qwen/Qwen3-0.6B=0.3@8192", "--gpu", "h100-sxm"])
    text = colocate_command(args, bundled_config)
    assert "fits" in text and "--port 8001" in text and "--gpu-memory-utilization 0.3" in text


def _wired() -> bool:
    try:
        cli.build_parser().parse_args(["plan", MODEL, "--shared-prefix-tokens", "1"])
    except Exception:
        return False
    return True


@pytest.mark.skipif(not _wired(), reason="kvcalc.cli has no workload flags yet (kvcalc/workload/WIRING.md)")
def test_wired_cli_plan_json_has_effective_concurrency(capsys):
    shown = cli_plan_json(capsys, "--enable-prefix-caching", "--shared-prefix-tokens", "4096")
    assert shown["max_concurrency"] == 20.0 and shown["effective_concurrency"] == 39.0
    assert cli_plan_json(capsys)["effective_concurrency"] == 20.0        # nothing shared: the plain concurrency
    assert cli.main(["colocate", f"{MODEL}=0.6@8192", "Qwen/Qwen3-0.6B=0.3@8192", "--offline"]) == 0
    assert "--port 8001" in capsys.readouterr().out


def test_histogram_and_hit_rate_flags():
    d, p = llama_plan()
    out = workload_json(d, p, flags("--input-histogram", "1000:1,3000:1", "--output-histogram", "200:1",
                                    "--shared-prefix-tokens", "4096", "--prefix-hit-rate", "0.5"))
    assert out["workload"]["lengths"]["occupancy_mean"] == 2000 + 100 + 8
    assert out["effective_concurrency"] == 26.0
    with pytest.raises(InputError):
        workload_json(d, p, flags("--input-histogram", "1000:1"))        # output lengths missing
    with pytest.raises(SystemExit):
        flags("--input-histogram", "1000")
