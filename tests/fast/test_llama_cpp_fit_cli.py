"""``kvcalc plan MODEL --runtime llama_cpp --fit``: the fit solver's answer and its llama-server command."""
from __future__ import annotations

import re

import pytest

from kvcalc.cli import main
from kvcalc.llama_cpp.command import parse_llama_command

GiB = 2**30


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["plan", *argv, "--offline"])
    out, err = capsys.readouterr()
    return code, out + err


def test_fit_prints_the_largest_context_and_a_command_that_parses_back(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _out(capsys, "meta-llama/Llama-3.1-8B", "--runtime", "llama_cpp", "--gpu", "4090",
                     "--gguf-type", "Q4_K_M", "--fit", "-np", "1", "-ngl", "5")
    assert code == 0, out
    cmd = parse_llama_command(re.search(r"command: (.*)", out)[1]).options      # type: ignore[index]
    assert (cmd.n_parallel, cmd.n_gpu_layers) == (1, -1)                        # -fit's choice of -ngl, not the flag
    # KV per cell: K+V x 32 layers x 8 KV heads x 128 x 2 B (f16) = 128 KiB, so the printed KV is -c / 8192 GiB
    kv = float(re.search(r"KV (\d+\.\d+)", out)[1])                             # type: ignore[index]
    assert abs(kv - cmd.n_ctx * 128 * 1024 / GiB) < 0.006
    assert cmd.n_ctx % 256 == 0 and 65536 < cmd.n_ctx <= 131072                # 24 GB - 1 GiB - 4.3 GiB weights
    used, budget = map(float, re.search(r"device (\d+\.\d+) GiB .* of (\d+\.\d+) GiB", out).groups())  # type: ignore[union-attr]
    assert used <= budget and budget == pytest.approx(23.99 - 1, abs=0.01)


def test_fit_moves_experts_off_a_small_card(capsys: pytest.CaptureFixture[str]) -> None:
    # Qwen3-30B-A3B Q4_K_M (~17 GiB) cannot sit whole on 16 GB: every layer stays, the experts of its first
    # blocks (of 48) go to the host (--n-cpu-moe), as llama.cpp's own -fit moves expert tensors first
    code, out = _out(capsys, "Qwen/Qwen3-30B-A3B", "--runtime", "llama_cpp", "--gpu", "4060-ti-16",
                     "--gguf-type", "Q4_K_M", "--fit", "-np", "1")
    assert code == 0, out
    o = parse_llama_command(re.search(r"command: (.*)", out)[1]).options  # type: ignore[index]
    assert o.n_gpu_layers == -1 and 1 <= o.n_cpu_moe < 48


def test_fit_moves_layers_of_a_dense_model_off_a_small_card(capsys: pytest.CaptureFixture[str]) -> None:
    # Llama-3.1-8B F16 blocks and output (~14 GiB) + 4 GiB of KV at -c 32768 (32 layers x 2 x 1024 x 2 bytes per
    # cell) exceed 16,380 MiB less 1 GiB: some of its 32 blocks stay on the host, no experts to move
    code, out = _out(capsys, "meta-llama/Llama-3.1-8B", "--runtime", "llama_cpp", "--gpu", "4060-ti-16",
                     "--gguf-type", "F16", "--fit", "-np", "1", "-c", "32768")
    assert code == 0, out
    o = parse_llama_command(re.search(r"command: (.*)", out)[1]).options  # type: ignore[index]
    assert 1 <= o.n_gpu_layers < 33 and o.n_cpu_moe == 0


def test_a_given_context_is_kept_and_only_layers_are_fitted(capsys: pytest.CaptureFixture[str]) -> None:
    # as llama.cpp's -fit: -c 16384 stays; experts move to the host until the rest fits 16 GB less 1 GiB
    code, out = _out(capsys, "Qwen/Qwen3-30B-A3B", "--runtime", "llama_cpp", "--gpu", "4060-ti-16",
                     "--gguf-type", "Q4_K_M", "--fit", "-np", "1", "-c", "16384")
    assert code == 0, out
    o = parse_llama_command(re.search(r"command: (.*)", out)[1]).options             # type: ignore[index]
    assert o.n_ctx == 16384 and o.n_gpu_layers == -1 and 1 <= o.n_cpu_moe < 48


def test_fit_asks_for_llama_cpp(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _out(capsys, "meta-llama/Llama-3.1-8B", "--gpu", "4090", "--fit")
    assert code != 0 and "--fit is llama.cpp's" in out
