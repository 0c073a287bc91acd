"""Oracle: llama.cpp's own ``-fit`` and its memory breakdown of kvcalc's fit answer, at stated memory sizes.

Dev-only (llama.cpp is never a dependency). Needs the CPU build and the header-only GGUFs that
tests/oracles/llama_cpp_oracle.py makes (same ``LLAMA_CPP_SRC`` / ``LLAMA_CPP_BUILD`` / ``LLAMA_CPP_WORK``);
writes ``tests/fixtures/llama_cpp_fit_oracle.json``, which tests/reference/test_llama_cpp_fit.py replays::

    python tests/oracles/llama_cpp_oracle.py            # once: the library build and the GGUFs
    python tests/oracles/llama_cpp_fit_oracle.py        # ~2 minutes on 2 shared cores

tests/oracles/llama_cpp_fit_driver.cpp is compiled with the vendored ``common/fit.cpp`` (llama.cpp's
``common_fit_params``, what ``llama-server`` runs before loading; ``-fit`` is on by default) and told the
memory of each case: fit.cpp's ``ggml_backend_dev_memory`` is renamed at compile time to the driver's, which
answers the stated size. A CPU build has no GPU device, so ``-fit`` takes its host-memory branch (``nd == 0``):
total memory minus ``--fit-target`` (1 GiB), shrinking the automatic ``-c 0`` to what fits (never below
``--fit-ctx`` 4096 per stream). The same pool is the "device" of kvcalc's fit (``unified_memory=True``).

Per case: (a) llama.cpp's -fit n_ctx for ``-np`` non-unified slots, (b) kvcalc's answer
(kvcalc.llama_cpp.fit.fit_llama_cpp with the GGUF's own tensor table read by kvcalc's header reader: the
header-only GGUFs hold the tensors llama.cpp's loader requires, e.g. no separate ``output.weight`` where the
loader falls back to ``token_embd``; the table is kept in the fixture) created as a context by llama.cpp
with ``no_alloc``, and llama.cpp's ``llama_get_memory_breakdown`` of it (model + context + compute bytes).
"""
from __future__ import annotations

import datetime
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from kvcalc.gguf.reader import read_gguf_header  # noqa: E402
from kvcalc.llama_cpp.fit import FIT_CTX, FIT_TARGET, fit_llama_cpp  # noqa: E402
from tests.oracles.llama_cpp_oracle import (  # noqa: E402
    DATA,
    LLAMA_BUILD,
    LLAMA_COMMIT,
    LLAMA_SRC,
    SDIST,
    WORK,
    _import_llama_python,
    convert_metadata,
    split_cases,
    write_gguf,
)

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "llama_cpp_fit_oracle.json"
DRIVER_SRC = Path(__file__).with_name("llama_cpp_fit_driver.cpp")
GB = 10**9
CASES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("meta-llama__Llama-3.2-1B.json", (6 * GB, 10 * GB, 16 * GB)),
    ("google__gemma-3-1b-it.json", (5 * GB, 8 * GB)),
    ("meta-llama__Llama-3.1-8B.json", (20 * GB, 24 * GB, 32 * GB)),
    ("Qwen__Qwen3-8B.json", (24 * GB, 32 * GB)),
    ("Qwen__Qwen2.5-7B-Instruct.json", (18 * GB, 24 * GB)),
)
CASES_HELDOUT: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("mistralai__Mistral-7B-v0.1.json", (18 * GB,)),
    ("microsoft__phi-4.json", (36 * GB,)),
    ("google__gemma-2-9b-it.json", (30 * GB,)),
    ("openai-community__gpt2.json", (2 * GB,)),
    ("Qwen__Qwen3-30B-A3B.json", (66 * GB,)),
)
"""Kept aside: models and sizes the compute-buffer model (kvcalc.llama_cpp.compute) was not checked on while it
was written; replayed by the same tests under their own names."""
SLOTS = (1, 4)


def build_driver() -> Path:
    exe = WORK / "llama_cpp_fit_driver"
    lib = LLAMA_BUILD / "bin"
    c = LLAMA_SRC / "common"
    subprocess.run(["g++", "-O1", "-std=c++17", str(DRIVER_SRC), str(c / "fit.cpp"), str(c / "log.cpp"),
                    str(c / "json.cpp"), "-Dggml_backend_dev_memory=oracle_dev_memory", "-o", str(exe),
                    *(f"-I{LLAMA_SRC / d}" for d in ("include", "ggml/include", "src", "common", "vendor")),
                    f"-L{lib}", "-lllama", "-lggml", "-lggml-base", f"-Wl,-rpath,{lib}"], check=True)
    return exe


def _breakdown(block: list[str]) -> dict[str, Any]:
    rows = [x.split() for x in block if x.startswith("@@BREAKDOWN")]
    n = next(x.split()[1:] for x in block if x.startswith("@@N_CTX"))
    parts = {k: sum(int(r[i]) for r in rows) for k, i in (("model", 2), ("context", 3), ("compute", 4))}
    return {"n_ctx": int(n[0]), "n_ctx_seq": int(n[1]), **parts, "total": sum(parts.values())}


def run_model(config: str, memories: tuple[int, ...], driver: Path, kept: str = "main") -> list[dict[str, Any]]:
    raw = json.loads((DATA / config).read_text())
    path = WORK / (config.removesuffix(".json") + ".gguf")
    with path.open("rb") as f:
        header = read_gguf_header(f, file_size=path.stat().st_size)
    table = {"architecture": header.architecture, "block_count": header.arch_value("block_count"),
             "tensors": [[t.name, list(t.dims), t.type.name] for t in header.tensors]}
    answers, lines = [], []
    for mem in memories:
        for np_ in SLOTS:
            a = fit_llama_cpp(raw, header.as_weights(), mem, n_parallel=np_, unified_memory=True)
            answers.append((mem, np_, a))
            lines.append(f"FIT {np_} 0 f16 f16 -1 512 {mem} {FIT_TARGET} {FIT_CTX}")
            lines.append(f"CTX {a.n_ctx} {np_} 0 f16 f16 -1 512")
    out = subprocess.run([str(driver), str(path)], input="\n".join(lines),
                         capture_output=True, text=True, check=True).stdout
    blocks = split_cases(out)
    cases = []
    for i, (mem, np_, a) in enumerate(answers):
        fit = re.search(r"@@FIT (\d+) (\d+) (-?\d+)", "\n".join(blocks[2 * i]))
        assert fit, blocks[2 * i][-5:]
        cases.append({"model": config, "set": kept, "gguf_tensors": table if i == 0 else None, "memory_bytes": mem,
                      "margin_bytes": FIT_TARGET, "n_parallel": np_,
                      "llama_fit": {"status": int(fit[1]), "n_ctx": int(fit[2]), "n_gpu_layers": int(fit[3])},
                      "kvcalc": {"n_ctx": a.n_ctx, "n_ctx_seq": a.n_ctx_seq, "n_gpu_layers": a.n_gpu_layers,
                                 "compute_estimate": a.plan.gpu.compute + a.plan.host.compute},
                      "llama_breakdown": _breakdown(blocks[2 * i + 1])})
    return cases


WEIGHTS_OUT = OUT.with_name("llama_cpp_weights_oracle.json")
WEIGHTS = ("openai__gpt-oss-20b.json", "Qwen__Qwen3-30B-A3B.json")
"""MoE models re-written as ``MXFP4_MOE`` files (``src/llama-quant.cpp`` ``llama_tensor_get_type_impl``: a merged
expert tensor, ``ne[2] > 1``, MXFP4; every other quantizable matrix Q8_0; vectors and the router as converted)."""


def mxfp4_moe_type(name: str, dims: tuple[int, ...], kind: str) -> str:
    if len(dims) < 2 or not name.endswith("weight") or "ffn_gate_inp" in name:
        return kind
    return "MXFP4" if len(dims) == 3 and dims[2] > 1 else "Q8_0"


def run_weights(driver: Path) -> None:
    """llama.cpp's model bytes (``llama_get_memory_breakdown``, plain CPU buffer) of each MXFP4_MOE file."""
    gguf = _import_llama_python()
    records = []
    for config in WEIGHTS:
        src = WORK / (config.removesuffix(".json") + ".gguf")
        with src.open("rb") as f:
            header = read_gguf_header(f, file_size=src.stat().st_size)
        tensors = {t.name: tuple(t.dims) for t in header.tensors}
        types = {t.name: mxfp4_moe_type(t.name, tuple(t.dims), t.type.name) for t in header.tensors}
        arch, kv = convert_metadata(DATA / config, gguf)
        path = WORK / (config.removesuffix(".json") + ".MXFP4_MOE.gguf")
        write_gguf(path, arch, kv, tensors, gguf, types)
        out = subprocess.run([str(driver), str(path)], input="CTX 4096 1 0 f16 f16 1 512\n", capture_output=True,
                             text=True, check=True).stdout
        b = _breakdown(split_cases(out)[0])
        records.append({"model": config, "file_type": "MXFP4_MOE", "architecture": arch,
                        "block_count": header.arch_value("block_count"),
                        "tensors": [[n, list(tensors[n]), types[n]] for n in tensors],
                        "llama_model_bytes": b["model"]})
        print(config, "MXFP4_MOE model bytes", b["model"])
    WEIGHTS_OUT.write_text(json.dumps({
        "engine": "llama.cpp", "llama_cpp_commit": LLAMA_COMMIT, "source": SDIST,
        "script": "tests/oracles/llama_cpp_fit_oracle.py --weights", "recorded": datetime.date.today().isoformat(),
        "cases": records}, indent=1) + "\n")


def main() -> None:
    driver = build_driver()
    if "--weights" in sys.argv[1:]:
        run_weights(driver)
        return
    cases = [c for config, mems in CASES for c in run_model(config, mems, driver)]
    cases += [c for config, mems in CASES_HELDOUT for c in run_model(config, mems, driver, "heldout")]
    tables = {c["model"]: c.pop("gguf_tensors") for c in cases if c["gguf_tensors"]}
    for c in cases:
        c.pop("gguf_tensors", None)
    OUT.write_text(json.dumps({
        "engine": "llama.cpp", "llama_cpp_commit": LLAMA_COMMIT, "source": SDIST,
        "script": "tests/oracles/llama_cpp_fit_oracle.py", "driver": "tests/oracles/llama_cpp_fit_driver.cpp",
        "recorded": datetime.date.today().isoformat(), "backend": "CPU (the device is host memory: -fit's nd == 0 "
        "branch)", "fit_defaults": {"fit_target": FIT_TARGET, "fit_ctx": FIT_CTX, "flash_attn": "auto",
                                    "type_k": "f16", "type_v": "f16", "n_ubatch": 512, "kv_unified": False},
        "gguf_tensors": tables, "cases": cases}, indent=1) + "\n")
    for c in cases:
        print(c["model"], c["memory_bytes"] // GB, c["n_parallel"], "fit", c["llama_fit"]["n_ctx"], "kvcalc",
              c["kvcalc"]["n_ctx"], "used", c["llama_breakdown"]["total"], "<=", c["memory_bytes"])


if __name__ == "__main__":
    main()
