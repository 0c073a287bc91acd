"""An int4 launch line names a real AWQ checkpoint or says none is known (kvcalc.checkpoints).

``vllm serve meta-llama/Llama-3.1-8B --quantization awq`` does not start: vLLM's AWQConfig reads the
checkpoint's own ``quantization_config`` and the bf16 repository has none. The AWQ repositories below were seen
on their Hub pages (hugging-quants' Meta-Llama-3.1-8B-Instruct-AWQ-INT4 at commit c511867, Qwen's
Qwen2.5-7B-Instruct-AWQ, TheBloke's Mistral-7B-v0.1-AWQ); each table row keeps the page it was seen on.
"""
from __future__ import annotations

import doctest

import pytest

import kvcalc.checkpoints
from kvcalc.catalog import bundled_config
from kvcalc.checkpoints import known_checkpoints
from kvcalc.deployment import deploy
from kvcalc.serve_command import engine_command

LLAMA = "meta-llama/Llama-3.1-8B"


def test_every_row_is_sourced_and_names_its_scheme():
    rows = known_checkpoints()
    assert len(rows) >= 6
    for r in rows:
        assert r.source.startswith("https://huggingface.co/"), r
        assert r.scheme == "awq" and "AWQ" in r.repo.upper() and r.repo.count("/") == 1, r
        assert r.repo.lower() != r.model.lower() and r.note, r


@pytest.mark.parametrize("runtime", ["vllm", "sglang"])
def test_int4_line_names_the_awq_repository_not_the_bf16_one(runtime: str):
    d = deploy(bundled_config(LLAMA), gpu="rtx-4090", runtime=runtime, dtype="int4")
    cmd = engine_command(LLAMA, d)
    words = cmd.text.split()
    assert "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4" in words and LLAMA not in words
    assert any("Instruct model" in n and "huggingface.co" in n for n in cmd.notes)


def test_a_model_without_a_known_checkpoint_says_so():
    d = deploy(bundled_config("google/gemma-3-4b-it"), gpu="rtx-4090", dtype="int4", max_model_len=8192)
    cmd = engine_command("google/gemma-3-4b-it", d)
    assert cmd.text.startswith("vllm serve /path/to/gemma-3-4b-it-AWQ ")
    assert any(n.startswith("no AWQ checkpoint of google/gemma-3-4b-it is known") for n in cmd.notes)


def test_fp8_and_a_checkpoint_already_quantized_keep_the_model():
    """vLLM quantizes bf16 to fp8 at startup; a config with quantization_config is the AWQ checkpoint itself."""
    d = deploy(bundled_config(LLAMA), gpu="rtx-4090", dtype="fp8_e4m3", max_model_len=8192)
    assert engine_command(LLAMA, d).text.split()[2] == LLAMA
    assert kvcalc.checkpoints.checkpoint_to_serve("org/x-AWQ", {"quantization_config": {"quant_method": "awq"}},
                                                  "int4") == ("org/x-AWQ", ())


def test_worked_examples_run():
    assert doctest.testmod(kvcalc.checkpoints).failed == 0
