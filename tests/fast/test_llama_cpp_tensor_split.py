"""llama.cpp's ``-ts`` / ``--tensor-split`` as a declared option: read like common/arg.cpp, planned over several GPUs
as src/llama-model.cpp places layers, echoed in the llama-server command; every figure worked by hand.

Layer placement (ggml-org/llama.cpp commit 0c1e57098, src/llama-model.cpp ``llama_model::load_tensors``, quoted
in kvcalc/llama_cpp/split.py): split points = running sums of -ts over their total; slot il (blocks 0..n_layer-1,
the output layer is slot n_layer) goes to the first device whose point exceeds il / min(ngl, n_layer + 1).
-ts parsing (common/arg.cpp ``-ts``): split on ``[,/]+``, each part std::stof, ``split_arg.size() >=
llama_max_devices()`` (16) refused.
"""
from __future__ import annotations

import json

import pytest

from kvcalc import deploy
from kvcalc.catalog import bundled_config
from kvcalc.cli import main
from kvcalc.engine_commands import parse_engine_command
from kvcalc.errors import InputError
from kvcalc.llama_cpp.options import LlamaCppOptions, read_tensor_split
from kvcalc.serve_command import engine_command

GiB = 2**30
# Llama-3.1-8B (bundled config): hidden 4,096, 8 KV heads x 128, intermediate 14,336, 32 blocks, vocab 128,256.
# Q8_0 (ggml-common.h block_q8_0: 32 weights in 34 bytes); norms F32. One block: q, o 4096x4096; k, v 4096x1024;
# gate, up, down 4096x14336; attn_norm + ffn_norm 2 x 4096 x 4 B.
BLOCK_Q8_0 = (4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 14336) * 34 // 32 + 2 * 4096 * 4
OUTPUT_Q8_0 = 128256 * 4096 * 34 // 32 + 4096 * 4          # output.weight + output_norm
CELL = 2 * 1024 * 2                                         # K + V, 8 x 128 f16 each, one block, one cell


def _plan(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code = main(["plan", "meta-llama/Llama-3.1-8B", "--offline", "--runtime", "llama_cpp", "--gguf-type", "Q8_0",
                 "-c", "8192", "-np", "1", "--json", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return dict(json.loads(out))


def test_cli_three_to_one_split_by_hand(capsys: pytest.CaptureFixture[str]) -> None:
    # -ts 3,1: points 0.75, 1.0; il / 33 < 0.75 for il <= 24 (24/33 = 0.727, 25/33 = 0.758): blocks 0..24 on
    # GPU 0 (25 blocks), blocks 25..31 and the output layer on GPU 1 (7 blocks + output)
    p = _plan(capsys, "--gpu", "4090", "--gpus", "2", "--tensor-split", "3,1")
    assert BLOCK_Q8_0 == 231_768_064
    assert p["weights_bytes"] == 25 * BLOCK_Q8_0 == 5_794_201_600                 # the busiest GPU: GPU 0
    assert p["kv_bytes"] == 25 * 8192 * CELL == 838_860_800                       # 25 blocks x 8,192 cells
    assert p["kv_bytes_total"] == 32 * 8192 * CELL                                # both GPUs
    assert p["total_bytes"] == p["weights_bytes"] + p["kv_bytes"] + p["overhead_parts"]["compute_buffer"]
    assert (p["gpus"], p["pipeline_parallel_size"], p["tensor_parallel_size"], p["fits"]) == (2, 2, 1, True)
    text = "\n".join(p["formulas"])
    assert "-ts 3,1 (--split-mode layer): blocks per GPU 25, 7, output layer on GPU 1" in text
    gpu1 = 7 * BLOCK_Q8_0 + OUTPUT_Q8_0                                            # 2,180,562,944 B = 2.03 GiB
    assert f"GPU 1 = weights {gpu1 / GiB:.2f} GiB + KV {7 * 8192 * CELL / GiB:.2f} GiB" in text
    assert f"GPU 0 = weights {25 * BLOCK_Q8_0 / GiB:.2f} GiB + KV {25 * 8192 * CELL / GiB:.2f} GiB" in text


def test_cli_default_split_is_even_and_the_busiest_gpu_decides(capsys: pytest.CaptureFixture[str]) -> None:
    # no -ts: by free memory, equal on two GPUs of one type: points 0.5, 1.0; il / 33 < 0.5 for il <= 16: 17 blocks
    # on GPU 0, 15 + output on GPU 1 (split.py's doctest). GPU 1 is the busier (the 0.52 GiB output layer and
    # the logits' compute buffer): its 15 blocks' weights and KV are the plan's. kvcalc.gguf.mixes counts Llama
    # 3.1's rope_freqs (64 x f32 = 256 B) with the output layer (llama.cpp: block 0's device, 256 B off)
    even = _plan(capsys, "--gpu-mem-gib", "6", "--gpus", "2")
    assert even["weights_bytes"] == 15 * BLOCK_Q8_0 + OUTPUT_Q8_0 + 256 and even["kv_bytes"] == 15 * 8192 * CELL
    assert even["fits"] is True
    # -ts 3,1 on 6 GiB cards: GPU 0 holds 5.40 GiB of weights + 0.78 GiB KV > 6 GiB, GPU 1 about 2.5 GiB: the
    # busiest GPU refuses the run
    skew = _plan(capsys, "--gpu-mem-gib", "6", "--gpus", "2", "--tensor-split", "3,1")
    assert skew["fits"] is False and "on GPU 0" in skew["binding_constraint"]
    assert 25 * BLOCK_Q8_0 + 25 * 8192 * CELL > 6 * GiB


def test_all_zero_or_missing_parts_read_as_llama_cpp_reads_them() -> None:
    # common/arg.cpp fills the parts not given with 0.0f; load_tensors' all_zero uses the free-memory split
    assert LlamaCppOptions(tensor_split=(0, 0)).split_shares(2) == (1.0, 1.0)
    assert LlamaCppOptions(tensor_split=(1,)).split_shares(3) == (1.0, 0.0, 0.0)
    assert read_tensor_split("3,1") == (3.0, 1.0) and read_tensor_split("1/1//2,") == (1.0, 1.0, 2.0)
    with pytest.raises(InputError, match="3 proportions for 2 GPU"):
        LlamaCppOptions(tensor_split=(1, 1, 1)).split_shares(2)


@pytest.mark.parametrize("text, words", [
    ("-1,1", "not a non-negative proportion"),
    ("a,1", "not a number"),
    (",1", "not a number"),                                    # std::stof("") throws
    ("nan,1", "not a non-negative proportion"),
    (",".join(["1"] * 16), "got 16 input configs"),            # split_arg.size() >= llama_max_devices() = 16
])
def test_bad_values_are_typed_errors(text: str, words: str) -> None:
    with pytest.raises(InputError, match=words):
        LlamaCppOptions(tensor_split=text)          # type: ignore[arg-type]
    with pytest.raises(ValueError, match=words):
        read_tensor_split(text)


def test_cli_refuses_a_bad_split(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", "meta-llama/Llama-3.1-8B", "--offline", "--runtime", "llama_cpp", "--gguf-type", "Q8_0",
                 "--gpus", "2", "--tensor-split=1,x"])
    assert code != 0 and "'x' is not a number" in capsys.readouterr().err


def test_pasted_command_is_read_and_the_printed_command_echoes_it() -> None:
    cmd = parse_engine_command("llama-server -m Llama-3.1-8B-Q8_0.gguf -c 8192 -np 1 --tensor-split 3/1")
    o = cmd.options["llama_cpp"]
    assert o.tensor_split == (3.0, 1.0)
    d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), runtime="llama_cpp", gguf="Q8_0", gpu="4090", gpus=2,
               llama_cpp=o)
    line = engine_command("meta-llama/Llama-3.1-8B", d).text
    assert line == "llama-server -m Llama-3.1-8B-Q8_0.gguf -c 8192 -np 1 -ts 3,1"
    assert parse_engine_command(line).options["llama_cpp"] == o
    with pytest.raises(InputError, match="-ts has an invalid value"):
        parse_engine_command("llama-server -m x.gguf -ts 3,,x")


def test_tensor_or_pipeline_sizes_are_not_llama_cpp_options() -> None:
    from kvcalc.errors import UnsupportedError

    with pytest.raises(UnsupportedError, match="splits whole layers"):
        deploy(bundled_config("meta-llama/Llama-3.1-8B"), runtime="llama_cpp", gguf="Q8_0", gpu="4090", gpus=2,
               tensor_parallel_size=2)


def test_fit_over_two_gpus_keeps_the_users_split(capsys: pytest.CaptureFixture[str]) -> None:
    # --fit --gpus 2 -ts 3,1: every layer on the GPUs, split 25 / 7 + output as above; F16 blocks: 218,103,808
    # weights x 2 B + the two f32 norms = 436,240,384 B, 25 of them = 10.16 GiB on GPU 0
    code = main(["plan", "meta-llama/Llama-3.1-8B", "--offline", "--runtime", "llama_cpp", "--gguf-type", "F16",
                 "--gpu", "4090", "--gpus", "2", "-np", "1", "--tensor-split", "3,1", "--fit"])
    out = capsys.readouterr().out
    assert code == 0, out
    block_f16 = (4096 * 4096 * 2 + 4096 * 1024 * 2 + 3 * 4096 * 14336) * 2 + 2 * 4096 * 4
    gpu0 = next(x for x in out.splitlines() if x.startswith("GPU 0: "))
    assert f"(weights {25 * block_f16 / GiB:.2f}, " in gpu0
    line = next(x for x in out.splitlines() if x.startswith("command: "))
    assert line.endswith("-ts 3,1") and parse_engine_command(line[9:]).options["llama_cpp"].tensor_split == (3, 1)
