"""Oracle: llama.cpp itself sizes the KV cache and the compute buffer of bundled model geometries.

Dev-only. llama.cpp is never a dependency of kvcalc or of the test suite; this script drives a CPU build
of the llama.cpp source that the ``llama-cpp-python`` sdist on PyPI vendors, and writes
``tests/fixtures/llama_cpp_oracle.json``, which tests/reference/test_llama_cpp_oracle.py replays::

    mkdir -p /work/llama-build && cd /work/llama-build
    pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36 -d . && tar xzf llama_cpp_python-0.3.36.tar.gz
    cmake -S llama_cpp_python-0.3.36/vendor/llama.cpp -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \\
        -DGGML_BLAS=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_EXAMPLES=OFF \\
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_APP=OFF \\
        -DLLAMA_OPENSSL=OFF -DGGML_OPENMP=OFF -DBUILD_SHARED_LIBS=ON
    nice -n 10 ninja -C build -j2 llama                        # libllama.so + libggml*.so (815 s on 2 shared cores)
    python tests/oracles/llama_cpp_oracle.py                   # every case; --only gemma for a subset

(``LLAMA_CPP_SRC`` / ``LLAMA_CPP_BUILD`` / ``LLAMA_CPP_WORK`` move the three folders.)

What runs, per bundled config (everything that decides a number is llama.cpp's own code):

1. **Conversion:** llama.cpp's converter (the vendored ``conversion`` package behind
   ``convert_hf_to_gguf.py``: ``get_model_class`` for the config's ``architectures``, then the class's
   ``set_gguf_parameters``) writes the GGUF metadata from the config.json alone (a folder holding only it:
   no weights are indexed). So the architecture llama.cpp converts to, and the keys it keeps (a Mistral
   sliding window dropped, Gemma 3's SWA pattern, head dims), are the converter's. The vocabulary is
   ``tokenizer.ggml.model = "none"`` with ``<arch>.vocab_size`` (``llama_vocab::impl::load``: dummy tokens).
2. **Tensors:** the vendored ``gguf-py`` writes the header; the tensor list is the one llama.cpp's loader
   asks for (``llama_model_loader``: "missing tensor 'X'", then "tensor 'X' has wrong shape; expected ...",
   repeated until the model loads), F16 matrices and F32 vectors, the data section a sparse file (no bytes
   on disk; ``no_alloc`` never reads it).
3. **Contexts:** tests/oracles/llama_cpp_driver.cpp (built here against the library) loads the file with
   ``llama_model_params.no_alloc = true`` and creates one ``llama_context`` per case
   (``llama_context_params``: n_ctx, n_seq_max, kv_unified, type_k, type_v, flash_attn_type, swa_full,
   n_ubatch, n_batch); it prints llama.cpp's own log lines (``llama_kv_cache: size = ...``,
   ``llama_kv_cache_iswa: creating ... KV cache``, ``sched_reserve: CPU compute buffer size = ...``) and the
   exact bytes of ``llama_get_memory_breakdown`` (src/llama-ext.h: per buffer type, model / context /
   compute; ``context`` is the memory module, i.e. every KV cache and recurrent state).

The compute buffer is the CPU backend's (this build has no GPU backend): it is the graph llama.cpp
reserves for ``n_ubatch`` tokens on the CPU, which a CUDA build reserves with the same graph but its own
buffer layout, so it is recorded for comparison, not asserted exactly.

Two sets: ``main`` (the grid ``GRID_MAIN``) and ``heldout`` (``GRID_HELDOUT``: other values, drawn with
a fixed seed), kept apart so a fix made against one is judged on the other.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "configs"
OUT = ROOT / "tests" / "fixtures" / "llama_cpp_oracle.json"
DRIVER_SRC = Path(__file__).with_name("llama_cpp_driver.cpp")

SDIST = "llama-cpp-python 0.3.36"
GGML_VERSION = "0.25.3"      # vendor/llama.cpp/ggml/CMakeLists.txt GGML_VERSION_MAJOR/MINOR/PATCH
LLAMA_COMMIT = "0c1e57098"  # llama-cpp-python CHANGELOG 0.3.36: "update llama.cpp to ggml-org/llama.cpp@0c1e57098"
LLAMA_SRC = Path(os.environ.get("LLAMA_CPP_SRC", "/work/llama-build/llama_cpp_python-0.3.36/vendor/llama.cpp"))
LLAMA_BUILD = Path(os.environ.get("LLAMA_CPP_BUILD", "/work/llama-build/build"))
WORK = Path(os.environ.get("LLAMA_CPP_WORK", "/work/llama-build/oracle"))

MODELS = (
    "meta-llama__Llama-3.1-8B.json",          # llama, GQA 32/8
    "meta-llama__Llama-2-7b-hf.json",          # llama, MHA
    "meta-llama__Llama-3.2-1B.json",           # llama, GQA 32/8, head 64
    "mistralai__Mistral-7B-v0.1.json",         # llama (the converter drops sliding_window 4096)
    "mistralai__Mixtral-8x7B-v0.1.json",       # llama MoE
    "Qwen__Qwen2.5-7B-Instruct.json",          # qwen2, GQA 28/4
    "Qwen__Qwen3-8B.json",                     # qwen3
    "Qwen__Qwen3-30B-A3B.json",                # qwen3moe, GQA 32/4
    "google__gemma-2-9b-it.json",              # gemma2: SWA 4096 every other layer, head 256
    "google__gemma-3-27b-it.json",             # gemma3: SWA 1024, 5 of 6 layers, head 128
    "google__gemma-3-1b-it.json",              # gemma3: SWA 512, 1 KV head
    "microsoft__phi-4.json",                   # phi3
    "openai__gpt-oss-20b.json",                # gpt-oss: SWA 128 every other layer
    "google__gemma-4-26B-A4B.json",            # gemma4: SWA 1024, per-layer head dims (256 / 512), MoE
    "openai-community__gpt2.json",             # gpt2: MHA, learned positions
)
"""Hybrid recurrent (Qwen3.5, Nemotron-H) configs convert and load, but their contexts need optional tensors the
discovery does not add (the graph aborts); not recorded."""
MODELS_KV_ONLY = (
    "deepseek-ai__DeepSeek-V2-Lite.json",     # deepseek2, MLA: the latent cache (K = kv_lora_rank + rope, no V)
    "deepseek-ai__DeepSeek-V2.json",          # deepseek2, MLA with q_lora_rank
    "moonshotai__Kimi-K2-Instruct.json",      # deepseek2 (Kimi-K2 converts to it), MLA, 61 layers
)
"""MLA models: the context prints its ``llama_kv_cache`` line, then the graph reservation aborts on the
header-only file (``ggml_backend_sched_split_graph``: a node with no backend); each case runs in its own process
and the line is recorded without the breakdown bytes (``kv_only``)."""
GRID_MLA = (
    (4096, 1, False, "f16", "f16", "on", False, 512),
    (8192, 1, False, "f16", "f16", "off", False, 512),
    (16384, 4, False, "q8_0", "q8_0", "on", False, 512),
    (10000, 3, True, "bf16", "bf16", "on", False, 256),
    (0, 1, False, "q4_0", "q4_0", "on", False, 512),
    (4096, 1, False, "q8_0", "f16", "on", False, 512),        # refused: MLA takes one cache type
)

FA = {"auto": -1, "off": 0, "on": 1}

# (n_ctx, n_seq_max, kv_unified, type_k, type_v, flash_attn, swa_full, n_ubatch)
GRID_MAIN: tuple[tuple[int, int, bool, str, str, str, bool, int], ...] = (
    (4096, 1, False, "f16", "f16", "on", False, 512),
    (8192, 1, False, "f16", "f16", "off", False, 512),
    (5000, 1, False, "q8_0", "q8_0", "on", False, 512),
    (16384, 4, False, "f16", "f16", "auto", False, 512),
    (16384, 4, True, "q4_0", "q4_0", "on", False, 512),
    (10000, 3, False, "bf16", "f16", "off", False, 256),
    (32768, 2, True, "f16", "q8_0", "on", False, 1024),
    (0, 1, False, "q5_1", "iq4_nl", "on", False, 512),
    (4096, 1, False, "f16", "q8_0", "off", False, 512),        # refused: quantized V needs Flash Attention
)
"""Every model runs these; sliding-window models also run :data:`GRID_SWA`."""
GRID_SWA = (
    (8192, 1, False, "f16", "f16", "on", True, 512),
    (8192, 4, True, "q8_0", "q8_0", "on", False, 2048),
    (300, 1, False, "f16", "f16", "off", False, 512),
)
TYPES_HELDOUT = ("f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "iq4_nl", "f32")


def grid_heldout(model: str, swa: bool, n: int = 2) -> list[tuple[int, int, bool, str, str, str, bool, int]]:
    """``n`` cases per model drawn with a seed of the model's name (a grid the fixes never saw)."""
    rng = random.Random(f"heldout-{model}")
    out = []
    for _ in range(n + (1 if swa else 0)):
        tk = rng.choice(TYPES_HELDOUT)
        tv = rng.choice(TYPES_HELDOUT)
        fa = "on" if tv not in ("f16", "bf16", "f32") else rng.choice(("on", "off", "auto"))
        out.append((rng.choice((1000, 2048, 7777, 12288, 20000, 65536)), rng.choice((1, 2, 5, 8)),
                    rng.random() < 0.5, tk, tv, fa, swa and rng.random() < 0.3, rng.choice((128, 512, 768))))
    return out


def grid_heldout_mla(model: str, n: int = 2) -> list[tuple[int, int, bool, str, str, str, bool, int]]:
    """Held-out cases of an MLA model: one cache type for K and V (llama.cpp refuses two), FA on when quantized."""
    rng = random.Random(f"heldout-mla-{model}")
    out = []
    for _ in range(n):
        t = rng.choice(TYPES_HELDOUT)
        fa = "on" if t not in ("f16", "bf16", "f32") else rng.choice(("on", "off", "auto"))
        out.append((rng.choice((1000, 2048, 7777, 12288, 20000, 65536)), rng.choice((1, 2, 5, 8)),
                    rng.random() < 0.5, t, t, fa, False, rng.choice((128, 512, 768))))
    return out


# ---------------------------------------------------------------- 1. conversion (llama.cpp's converter)
def _import_llama_python() -> Any:
    sys.path[:0] = [str(LLAMA_SRC / "gguf-py"), str(LLAMA_SRC)]
    import gguf  # noqa: PLC0415  (the vendored gguf-py, the converter's own version)

    return gguf


def convert_metadata(config_path: Path, gguf: Any) -> tuple[str, dict[str, Any]]:
    """(llama.cpp architecture, GGUF key -> GGUFValue) as llama.cpp's converter writes them."""
    from conversion import ModelType, get_model_architecture, get_model_class  # noqa: PLC0415
    from conversion.base import ModelBase  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(config_path, Path(tmp) / "config.json")
        hparams = ModelBase.load_hparams(Path(tmp), False)
        cls = get_model_class(get_model_architecture(hparams, ModelType.TEXT), mmproj=False)
        model = cls(Path(tmp), gguf.LlamaFileType.MOSTLY_F16, Path(tmp) / "out.gguf")
        model.set_gguf_parameters()
        kv = dict(model.gguf_writer.kv_data[0])
        arch = gguf.MODEL_ARCH_NAMES[model.model_arch]
        text = hparams.get("text_config", hparams)
    kv.pop("general.architecture", None)
    vocab_key = f"{arch}.vocab_size"
    if vocab_key not in kv:
        kv[vocab_key] = gguf.GGUFValue(int(text.get("vocab_size") or hparams["vocab_size"]), gguf.GGUFValueType.UINT32)
    kv["tokenizer.ggml.model"] = gguf.GGUFValue("none", gguf.GGUFValueType.STRING)
    return arch, kv


# ---------------------------------------------------------------- 2. the GGUF file and its tensors
def write_gguf(path: Path, arch: str, kv: dict[str, Any], tensors: dict[str, tuple[int, ...]], gguf: Any,
               types: dict[str, str] | None = None) -> None:
    """Header + metadata + tensor infos (``ne`` in ggml order); the data section sparse. ``types`` names a
    tensor's ggml type (``"MXFP4"``); otherwise F32 vectors and F16 matrices."""
    w = gguf.GGUFWriter(path, arch)
    w.kv_data[0].update(kv)
    total = 0
    for name, ne in tensors.items():
        n = 1
        for d in ne:
            n *= d
        kind = (types or {}).get(name) or ("F32" if len(ne) == 1 else "F16")
        qt = gguf.GGMLQuantizationType[kind]
        block, size = gguf.GGML_QUANT_SIZES[qt]
        nbytes = n // block * size
        w.add_tensor_info(name, tuple(reversed(ne)), None, nbytes, raw_dtype=qt)
        total += gguf.GGUFWriter.ggml_pad(nbytes, w.data_alignment)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    fout = w.fout[0]
    start = gguf.GGUFWriter.ggml_pad(fout.tell(), w.data_alignment)
    fout.truncate(start + total)
    w.close()


SEED = {"phi3": ("attn_qkv.weight",)}
"""Optional tensors (``TENSOR_NOT_REQUIRED``) whose absence the loader accepts but the graph does not (phi3 has
only the fused QKV projection)."""
MISSING = re.compile(r"(?:missing tensor|tensor) '([^']+)'(?: not found)?$", re.M)
WRONG = re.compile(r"tensor '([^']+)' has wrong shape; expected ([0-9, ]+), got")
BLOCK = re.compile(r"^blk\.(\d+)\.(.+)$")


def _shape(text: str) -> tuple[int, ...]:
    dims = [int(x) for x in text.split(",")]
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return tuple(dims)


def discover_tensors(path: Path, arch: str, kv: dict[str, Any], gguf: Any, driver: Path,
                     fill: bool = True) -> dict[str, tuple[int, ...]]:
    """The tensors llama.cpp's loader asks for, found by loading until it stops complaining. ``fill``
    guesses a block tensor in every block at once; when the blocks differ (hybrid, dense-then-MoE) the
    loader answers "wrong number of tensors" and the search runs again one tensor at a time."""
    tensors: dict[str, tuple[int, ...]] = {}
    per_suffix: dict[str, tuple[int, ...]] = {}
    n_layer = int(_plain(kv[f"{arch}.block_count"].value))
    for suffix in SEED.get(arch, ()):
        tensors[f"blk.0.{suffix}"] = (1,)      # an optional tensor the graph needs: the loader gives its shape
    for _ in range(4000):
        write_gguf(path, arch, kv, tensors, gguf)
        out = run_driver(driver, path, ["PROBE"])
        if "@@MODEL_OK" in out:
            return tensors
        if m := WRONG.search(out):
            name, ne = m.group(1), _shape(m.group(2))
            tensors[name] = ne
            if b := BLOCK.match(name):      # the same tensor in every block, until the loader says otherwise
                per_suffix[b.group(2)] = ne
                for i in range(n_layer if fill else 0):
                    tensors.setdefault(f"blk.{i}.{b.group(2)}", ne)
            continue
        if m := MISSING.search(out):
            name = m.group(1)
            b = BLOCK.match(name)
            tensors[name] = per_suffix.get(b.group(2), (1,)) if b else (1,)
            continue
        if fill and "wrong number of tensors" in out:
            return discover_tensors(path, arch, kv, gguf, driver, fill=False)
        raise RuntimeError(f"{path.name}: llama.cpp refused the model:\n{_errors(out)}")
    raise RuntimeError(f"{path.name}: tensor discovery did not converge")


def _errors(out: str) -> str:
    return "\n".join(line for line in out.splitlines() if line.startswith("E "))[-2000:]


# ---------------------------------------------------------------- 3. the driver and the contexts
def build_driver() -> Path:
    WORK.mkdir(parents=True, exist_ok=True)
    exe = WORK / "llama_cpp_driver"
    if exe.exists() and exe.stat().st_mtime > DRIVER_SRC.stat().st_mtime:
        return exe
    lib = LLAMA_BUILD / "bin"
    subprocess.run(["g++", "-O1", "-std=c++17", str(DRIVER_SRC), "-o", str(exe),
                    f"-I{LLAMA_SRC / 'include'}", f"-I{LLAMA_SRC / 'ggml' / 'include'}", f"-I{LLAMA_SRC / 'src'}",
                    f"-L{lib}", "-lllama", "-lggml", "-lggml-base", f"-Wl,-rpath,{lib}"], check=True)
    return exe


def run_driver(driver: Path, model: Path, lines: list[str]) -> str:
    done = subprocess.run([str(driver), str(model)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=1800, env={**os.environ, "LLAMA_ARG_THREADS": "1"})
    return done.stdout + done.stderr


KV_LINE = re.compile(r"llama_kv_cache: size = +([0-9.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+)/(\d+) seqs\), "
                     r"K \((\w+)\): +([0-9.]+) MiB, V \((\w+)\): +([0-9.]+) MiB")
COMPUTE = re.compile(r"(\S+) compute buffer size = +([0-9.]+) MiB")
KEEP = ("llama_context:", "llama_kv_cache", "llama_memory", "sched_reserve:", "llama_init_from_model:"
)


def parse_case(block: list[str], kv_only: bool = False) -> dict[str, Any]:
    """One context's lines -> the fixture's record (lines verbatim, caches parsed, exact bytes). ``kv_only``: the
    graph aborted after the caches were created; a case is ok when its cache line was printed."""
    lines = [x[2:].rstrip("\n") for x in block if x[:2] in ("I ", "W ", "E ") and x[2:].startswith(KEEP)]
    caches = []
    for x in lines:
        if m := KV_LINE.search(x):
            caches.append({"size_mib": float(m.group(1)), "cells": int(m.group(2)), "layers": int(m.group(3)),
                           "n_seq_max": int(m.group(4)), "n_stream": int(m.group(5)), "type_k": m.group(6),
                           "k_mib": float(m.group(7)), "type_v": m.group(8), "v_mib": float(m.group(9)), "line": x})
    ok = bool(caches) if kv_only else any(x.startswith("@@CTX_OK") for x in block)
    rec: dict[str, Any] = {"ok": ok, "lines": lines, "caches": caches}
    if kv_only:
        rec["kv_only"] = True
    for x in block:
        if x.startswith("@@N_CTX"):
            rec["n_ctx"], rec["n_ctx_seq"], rec["n_seq_max"] = (int(v) for v in x.split()[1:4])
        elif x.startswith("@@BREAKDOWN"):
            _, buft, model, context, compute = x.split()
            rec.setdefault("breakdown", {})[buft] = {"model": int(model), "context": int(context),
                                                      "compute": int(compute)}
    if "breakdown" in rec:
        rec["kv_bytes"] = sum(b["context"] for b in rec["breakdown"].values())
        rec["compute_bytes"] = sum(b["compute"] for b in rec["breakdown"].values())
    fa = [x for x in lines if "Flash Attention" in x or "flash_attn" in x]
    rec["flash_attn_lines"] = fa
    if not rec["ok"]:
        rec["error"] = " | ".join(x for x in lines if x.startswith(("llama_init_from_model", "llama_context")) and
                                  ("requires" in x or "error" in x.lower() or "failed" in x or "support" in x))
    return rec


def split_cases(out: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("@@CASE"):
            blocks.append([])
        elif blocks:
            blocks[-1].append(line)
    return blocks


def case_line(c: dict[str, Any]) -> str:
    return (f"{c['n_ctx']} {c['n_seq_max']} {int(c['kv_unified'])} {c['type_k']} {c['type_v']} "
            f"{FA[c['flash_attn']]} {int(c['swa_full'])} {c['n_ubatch']} {c['n_batch']}")


def as_params(row: tuple[int, int, bool, str, str, str, bool, int]) -> dict[str, Any]:
    n_ctx, n_seq, unified, tk, tv, fa, swa_full, n_ubatch = row
    return {"n_ctx": n_ctx, "n_seq_max": n_seq, "kv_unified": unified, "type_k": tk, "type_v": tv,
            "flash_attn": fa, "swa_full": swa_full, "n_ubatch": n_ubatch, "n_batch": 2048}


def run_model(config: str, gguf: Any, driver: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    arch, kv = convert_metadata(DATA / config, gguf)
    path = WORK / (config.removesuffix(".json") + ".gguf")
    tensors = discover_tensors(path, arch, kv, gguf, driver)
    write_gguf(path, arch, kv, tensors, gguf)
    swa = any(k.endswith(".attention.sliding_window") and _plain(v.value) for k, v in kv.items())
    rows = [("main", r) for r in GRID_MAIN + (GRID_SWA if swa else ())]
    rows += [("heldout", r) for r in grid_heldout(config, swa)]
    if config in MODELS_KV_ONLY:
        rows = [("main", r) for r in GRID_MLA] + [("heldout", r) for r in grid_heldout_mla(config)]
    params = [as_params(r) for _, r in rows]
    if config in MODELS_KV_ONLY:
        blocks = [split_cases(run_driver(driver, path, [case_line(p)]))[0] for p in params]
    else:
        blocks = split_cases(run_driver(driver, path, [case_line(p) for p in params]))
    out = ""
    if len(blocks) != len(params):
        raise RuntimeError(f"{config}: {len(blocks)} context outputs for {len(params)} cases:\n{_errors(out)}")
    meta = {"config": config, "arch": arch, "gguf_keys": {k: _plain(v.value) for k, v in kv.items()},
            "tensors": len(tensors)}
    cases = [{"model": config, "arch": arch, "set": s, "params": p, **parse_case(b, config in MODELS_KV_ONLY)}
             for (s, _), p, b in zip(rows, params, blocks)]
    return meta, cases


def _plain(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v.item() if hasattr(v, "item") else v


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--only", help="models whose config name contains this text")
    ap.add_argument("--out", type=Path, default=OUT, help="the fixture to write (default: %(default)s)")
    ap.add_argument("--models", nargs="*", default=list(MODELS + MODELS_KV_ONLY),
                    help="config files of data/configs to run")
    ap.add_argument("--merge", action="store_true",
                    help="replace only these models' cases in the existing fixture (the others are kept)")
    args = ap.parse_args()
    gguf = _import_llama_python()
    driver = build_driver()
    models, cases = [], []
    for config in args.models:
        if args.only and args.only not in config:
            continue
        try:
            meta, got = run_model(config, gguf, driver)
        except RuntimeError as e:
            print(f"{config}: skipped: {e}", flush=True)
            continue
        models.append(meta)
        cases.extend(got)
        print(f"{config}: {meta['arch']}, {meta['tensors']} tensors, {len(got)} cases, "
              f"{sum(c['ok'] for c in got)} contexts", flush=True)
    if args.merge and args.out.exists():
        old = json.loads(args.out.read_text())
        ran = {m["config"] for m in models}
        models = [m for m in old["models"] if m["config"] not in ran] + models
        cases = [c for c in old["main"] + old["heldout"] if c["model"] not in ran] + cases
    fixture = {
        "engine": "llama.cpp", "llama_cpp_commit": LLAMA_COMMIT, "source": f"{SDIST} sdist (PyPI), vendor/llama.cpp",
        "build": "CPU backend only (GGML_BLAS=OFF, no GPU backend), libllama shared library",
        "recorded": datetime.date.today().isoformat(), "script": "tests/oracles/llama_cpp_oracle.py",
        "ggml_version": GGML_VERSION,
        "models": models,
        "main": [c for c in cases if c["set"] == "main"],
        "heldout": [c for c in cases if c["set"] == "heldout"],
    }
    args.out.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {args.out}: {len(fixture['main'])} main + {len(fixture['heldout'])} held-out cases")


if __name__ == "__main__":
    main()
