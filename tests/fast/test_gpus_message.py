"""A GPU count no tensor-parallel split can use names the GPU count (--gpus), not an option never given
(issue 26). Qwen3-8B has 32 attention heads and 8 KV heads (its config.json): 65 GPUs divide neither,
64 divides neither the heads nor is it divided by them, 2 and 4 fit."""
from __future__ import annotations

import pytest
from paths import load_config

from kvcalc.capacity import deploy
from kvcalc.cli import main
from kvcalc.errors import InputError

QWEN = "Qwen/Qwen3-8B"


@pytest.mark.parametrize("gpus", [3, 65])
def test_gpus_alone_blame_the_gpu_count(gpus: int, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["plan", QWEN, "--offline", "--gpu", "h100-sxm", "--gpus", str(gpus)]) == 2
    err = capsys.readouterr().err
    assert f"the GPU count {gpus} (--gpus" in err and "32 attention heads" in err
    assert not err.startswith("error: tensor_parallel_size")


def test_an_explicit_tensor_parallel_size_is_still_named() -> None:
    with pytest.raises(InputError, match="^tensor_parallel_size 64 must divide the 32 attention heads$"):
        deploy(load_config(QWEN), gpu="h100-sxm", gpus=64, tensor_parallel_size=64)


def test_library_names_the_gpu_count_and_a_dividing_count_still_plans() -> None:
    with pytest.raises(InputError, match="^the GPU count 12 .* must divide the 32 attention heads"):
        deploy(load_config(QWEN), gpu="h100-sxm", gpus=12)
    assert deploy(load_config(QWEN), gpu="h100-sxm", gpus=4).tp == 4
