"""Build every real config.json of the corpus with transformers on the meta device (dev-only oracle).

For each file of tests/fixtures/real_configs/ (see its README and SOURCES.csv) this script

1. writes the file's text, unchanged, as ``config.json`` into a temporary folder and loads it with
   ``AutoConfig.from_pretrained(folder, trust_remote_code=False)``; a type transformers does not ship
   (only ``auto_map`` remote code would load it) is recorded as "needs remote code";
2. builds the whole model on the meta device in the checkpoint dtype (``config.dtype``): the
   ``architectures[0]`` class where transformers has it, else ``AutoModelForCausalLM``,
   ``AutoModelForImageTextToText``, ``AutoModel`` (eager attention: a file asking for flash-attention builds
   too; the cache is the same); records ``sum(p.numel() for p in model.parameters())``
   (tied weights once) and, where the file nests a text config, the same count for
   ``AutoModelForCausalLM.from_config(config.get_text_config(decoder=True))`` (the text part);
3. lists the layer classes of ``DynamicCache(config=config)`` and runs ONE prefill of ``TOKENS`` tokens,
   batch 1, through the meta model (``experts_implementation="batched_mm"`` so MoE routing needs no data);
   every tensor the returned cache holds is recorded per layer by attribute, shape and dtype, and the
   layer's bytes are ``sum(numel x element size)`` over distinct tensors (meta tensors have shapes, no data).
   A model whose forward cannot run on meta keeps its build and layer classes, with the reason.

Each file is time-boxed (``FILE_TIMEOUT_S``, SIGALRM). Every failure is recorded with its reason; nothing
is dropped. The result goes to tests/fixtures/real_configs_oracle.json.gz (``FORMAT``; gzip, mtime 0). Run:

    python tests/oracles/real_config_oracle.py              # every file not yet recorded (resumes)
    python tests/oracles/real_config_oracle.py --restart    # every file, from scratch
    python tests/oracles/real_config_oracle.py --only FILE.json --only ...   # re-measure, merge
    python tests/oracles/real_config_oracle.py --limit 20   # the next 20 files only
    python tests/oracles/real_config_oracle.py --restart --out /tmp/x.json.gz   # elsewhere, to compare

Needs the dev stack (torch 2.13 CPU, transformers 5.24.0). No network: nothing is downloaded. A whole run
(``--restart``, the first 348 files, ``nice -n 10``) took 7 min 49 s on two shared cores (6 min 29 s of CPU).
"""
from __future__ import annotations

import argparse
import datetime
import gc
import gzip
import io
import json
import os
import re
import signal
import sys
import tempfile
import time
import traceback
import warnings
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.dirname(TESTS))   # kvcalc, for --report
CORPUS = os.path.join(TESTS, "fixtures", "real_configs")
FIXTURE = os.path.join(TESTS, "fixtures", "real_configs_oracle.json.gz")
TOKENS = 64            # one prefill of this many tokens, batch 1 (below every window in the corpus but
                       # the smallest, so a sliding layer holds all of them: no view pins a larger base)
FILE_TIMEOUT_S = 180   # per file: load, build, count, prefill (a 61-layer DeepSeek-V4 build passes 30 s
                       # on a loaded 2-core machine; the box only stops a file that hangs)
FALLBACK_DTYPE = "float32"   # a file that names no dtype: transformers' default

FORMAT = """{"transformers", "torch", "date" (UTC day of the run), "inputs": {"batch": 1, "tokens": TOKENS},
 "files": {file name: {"status": "built" | "needs remote code" | "failed", "reason" (not built),
   "model_type", "config_class", "dtype", "class" (the class built), "params" (whole model, meta device),
   "text_class", "text_params" (nested text config only), "cache_layer_classes" (DynamicCache(config=...)),
   "forward" ("ok" | the reason it failed), "layers": [{"class", "sliding_window", "tensors":
   {attribute: [shape, dtype]}, "bytes"}] (forward ok only), "seconds"}}}"""


class Timeout(Exception):
    """The file ran past FILE_TIMEOUT_S."""


class _alarm:
    def __init__(self, seconds: int) -> None:
        self.seconds = seconds

    def _fire(self, *_: Any) -> None:
        raise Timeout(f"ran past {self.seconds} s")

    def __enter__(self) -> None:
        signal.signal(signal.SIGALRM, self._fire)
        signal.alarm(self.seconds)

    def __exit__(self, *_: Any) -> None:
        signal.alarm(0)


def _reason(exc: BaseException) -> str:
    """One line: exception type, message (200 chars) and the frame that raised it."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" ({os.path.basename(tb[-1].filename)}:{tb[-1].lineno})" if tb else ""
    message = re.sub(re.escape(tempfile.gettempdir()) + r"/tmp\w+", "<folder>", str(exc))   # same text each run
    return " ".join(f"{type(exc).__name__}: {message[:200]}{where}".split())


def corpus_files() -> list[str]:
    return sorted(f for f in os.listdir(CORPUS) if f.endswith(".json"))


def load_config(text: str, arch: str | None = None) -> Any:
    """transformers' config for the file text, read from a folder as ``from_pretrained`` reads a checkout:
    ``AutoConfig``, or, for a file with no ``model_type``, the config class of its ``architectures`` class
    (what ``<arch>.from_pretrained(folder)`` reads)."""
    import transformers

    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
            f.write(text)
        if arch is not None:
            return getattr(transformers, arch).config_class.from_pretrained(folder)
        return transformers.AutoConfig.from_pretrained(folder, trust_remote_code=False)


def _dtype(config: Any) -> Any:
    import torch

    d = getattr(config, "dtype", None)
    if isinstance(d, str):
        d = getattr(torch, d, None)
    return d if isinstance(d, torch.dtype) else getattr(torch, FALLBACK_DTYPE)


def build(config: Any, dtype: Any) -> Any:
    """The whole model on the meta device: the file's architectures class, else the auto classes in turn."""
    import torch
    import transformers

    errors = []
    archs = [a for a in (getattr(config, "architectures", None) or []) if hasattr(transformers, a)]
    tries = [(a, getattr(transformers, a)._from_config) for a in archs[:1]] + [
        (n, getattr(transformers, n).from_config)
        for n in ("AutoModelForCausalLM", "AutoModelForImageTextToText", "AutoModel")]
    for name, make in tries:
        try:
            with torch.device("meta"):
                extra = {} if name in archs else {"trust_remote_code": False}
                return make(config, dtype=dtype, experts_implementation="batched_mm", attn_implementation="eager",
                            **extra)
        except Timeout:
            raise
        except Exception as exc:  # noqa: BLE001 - the next class; all reasons kept
            errors.append(f"{name}: {_reason(exc)}")
    raise RuntimeError(" | ".join(errors))


def _params(model: Any) -> int:
    return int(sum(p.numel() for p in model.parameters()))


def text_part(config: Any, dtype: Any) -> tuple[str, int] | None:
    """(class, parameters) of the causal LM over the nested text config; None when there is none."""
    import torch
    import transformers

    text = config.get_text_config(decoder=True)
    if text is config:
        return None
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(text, dtype=dtype, experts_implementation="batched_mm",
                                                              attn_implementation="eager", trust_remote_code=False)
    return type(model).__name__, _params(model)


def _tensor_attrs(layer: Any) -> dict[str, Any]:
    """Every tensor a cache layer holds, by attribute; ``name[i]`` for one held in a dict or list
    (LinearAttentionLayer keeps ``conv_states`` / ``recurrent_states`` as {state index: tensor})."""
    import torch

    out = {}
    for k, v in sorted(vars(layer).items()):
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, (list, tuple)) else None
        if isinstance(v, torch.Tensor):
            out[k] = v
        elif items is not None:
            out.update({f"{k}[{i}]": t for i, t in items if isinstance(t, torch.Tensor)})
    return out


def cache_layers(cache: Any) -> list[dict[str, Any]]:
    """Every layer of the cache: class, window, tensors by attribute (shape, dtype) and distinct bytes."""
    seen: set[int] = set()
    out = []
    inner = getattr(cache, "self_attention_cache", cache)
    for layer in inner.layers:
        tensors, nbytes = {}, 0
        for name, t in _tensor_attrs(layer).items():
            tensors[name] = [list(t.shape), str(t.dtype).replace("torch.", "")]
            if id(t) not in seen:
                seen.add(id(t))
                nbytes += t.numel() * t.element_size()
        out.append({"class": type(layer).__name__, "sliding_window": getattr(layer, "sliding_window", None),
                    "tensors": tensors, "bytes": int(nbytes)})
    return out


def prefill(model: Any) -> Any:
    """The cache after one meta-device prefill of TOKENS token ids (the decoder alone if the whole model fails)."""
    import torch

    ids = torch.zeros((1, TOKENS), dtype=torch.long, device="meta")
    errors = []
    for name, module in (("model", model), ("decoder", getattr(model, "get_decoder", lambda: None)())):
        if module is None:
            continue
        try:
            with torch.no_grad():
                out = module(input_ids=ids, use_cache=True, return_dict=True)
            cache = getattr(out, "past_key_values", None) or getattr(out, "cache", None)
            if cache is None:
                raise RuntimeError(f"{type(out).__name__} returns no cache")
            return cache
        except Timeout:
            raise
        except Exception as exc:  # noqa: BLE001 - the decoder next
            errors.append(f"{name}: {_reason(exc)}")
    raise RuntimeError(" | ".join(errors))


def measure(text: str) -> dict[str, Any]:
    """One file's record (see FORMAT)."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    raw = json.loads(text)
    mt = raw.get("model_type")
    archs = [a for a in raw.get("architectures") or [] if hasattr(transformers, a)]
    remote = "auto_map names remote code" if raw.get("auto_map") else "no auto_map either"
    if isinstance(mt, str) and mt not in CONFIG_MAPPING:
        return {"status": "needs remote code", "model_type": mt,
                "reason": f"model_type {mt!r} is not a transformers {transformers.__version__} type ({remote})"}
    if mt is None and not archs and raw.get("auto_map"):
        return {"status": "needs remote code", "model_type": None,
                "reason": f"no model_type, and no architectures class in transformers ({remote})"}
    config = load_config(text, archs[0] if mt is None and archs else None)
    dtype = _dtype(config)
    rec: dict[str, Any] = {"status": "built", "model_type": config.model_type, "config_class": type(config).__name__,
                           "dtype": str(dtype).replace("torch.", "")}
    model = build(config, dtype)
    rec["class"], rec["params"] = type(model).__name__, _params(model)
    try:
        part = text_part(config, dtype)
        if part:
            rec["text_class"], rec["text_params"] = part
    except Timeout:
        raise
    except Exception as exc:  # noqa: BLE001 - recorded
        rec["text_params_error"] = _reason(exc)
    rec["cache_layer_classes"] = [type(layer).__name__ for layer in
                                  transformers.DynamicCache(config=config).layers]
    try:
        rec["layers"] = cache_layers(prefill(model))
        rec["forward"] = "ok"
    except Timeout:
        raise
    except Exception as exc:  # noqa: BLE001 - the build stands; the cache is unmeasured
        rec["forward"] = _reason(exc)[:600]
    return rec


def record(name: str) -> dict[str, Any]:
    """``measure`` with every failure (bad JSON, config error, build error, timeout) turned into a record."""
    start = time.monotonic()
    with open(os.path.join(CORPUS, name), encoding="utf-8") as f:
        text = f.read()
    try:
        with _alarm(FILE_TIMEOUT_S), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rec = measure(text)
    except Exception as exc:  # noqa: BLE001 - every failure is a finding
        rec = {"status": "failed", "reason": _reason(exc)[:600]}
    finally:
        gc.collect()
    rec["seconds"] = round(time.monotonic() - start, 2)
    return rec


def load(path: str = FIXTURE) -> dict[str, Any]:
    if os.path.exists(path):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            data: dict[str, Any] = json.load(f)
            return data
    return {}


def save(path: str, data: dict[str, Any]) -> None:
    """Write atomically, one file per line, gzip with mtime 0 (the same run gives the same bytes)."""
    tmp = path + ".tmp"
    files = data.get("files", {})
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz, \
            io.TextIOWrapper(gz, encoding="utf-8") as f:
        f.write("{\n")
        for k in ("transformers", "torch", "date", "inputs", "subset"):
            f.write(f"{json.dumps(k)}: {json.dumps(data.get(k), sort_keys=True)},\n")
        f.write('"files": {\n')
        f.write(",\n".join(f"{json.dumps(n)}: {json.dumps(files[n], sort_keys=True)}" for n in sorted(files)))
        f.write("\n}\n}\n")
    os.replace(tmp, path)


def run(path: str, only: list[str], restart: bool, limit: int | None) -> None:
    import torch
    import transformers

    data = {} if restart else load(path)
    files = data.get("files", {})
    data.update({"transformers": transformers.__version__, "torch": torch.__version__,
                 "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
                 "inputs": {"batch": 1, "tokens": TOKENS}})
    todo = only or [n for n in corpus_files() if n not in files]
    for name in todo[:limit]:
        files[name] = {"status": "failed", "reason": "crashed: the process died on this file"}
        data["files"] = files
        save(path, data)
        print(f"{name} ...", end=" ", flush=True)
        files[name] = rec = record(name)
        print(rec["status"], rec["seconds"], rec.get("forward", rec.get("reason", ""))[:120], flush=True)
        data["files"] = files
        missing = [n for n in corpus_files() if n not in files]
        data["subset"] = f"{len(files)} of {len(corpus_files())} files; not run: {missing}" if missing else "all"
        save(path, data)


# --------------------------------------------------------------------------- kvcalc against the oracle
KV_CLASSES = ("exact-agree", "exact-differs", "estimated", "refused")


def corpus_config(name: str) -> Any:
    """The corpus file as kvcalc reads it (``json.loads``: ``Infinity`` is accepted as Python's json does)."""
    with open(os.path.join(CORPUS, name), encoding="utf-8") as f:
        return json.load(f)


def _kvcalc(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("ok", result) | ("refused", "Error: message"); any other exception propagates (a kvcalc bug)."""
    import kvcalc

    try:
        return "ok", call(*args, **kwargs)
    except kvcalc.KVCalcError as exc:
        return "refused", " ".join(f"{type(exc).__name__}: {exc}".split())[:240]


def kv_outcome(name: str, rec: dict[str, Any]) -> tuple[str, str]:
    """(class of KV_CLASSES, detail) for a file whose meta prefill ran.

    kvcalc: ``kv_cache(file, batch=1, context=TOKENS, prefill=TOKENS, dtype=<oracle's dtype>,
    runtime="transformers")`` per layer; oracle: each cache layer's distinct tensor bytes after that prefill.
    The sliding window of every layer must match too (TOKENS is below the windows, so bytes alone would
    miss a window read wrong but for DynamicSlidingWindowLayer's 8-byte window tensor)."""
    import kvcalc

    i = load_inputs(rec)
    status, r = _kvcalc(kvcalc.kv_cache, corpus_config(name), batch=i["batch"], context=i["tokens"],
                        prefill=i["tokens"], dtype=rec["dtype"], runtime="transformers")
    if status == "refused":
        return "refused", r
    ours, layers = [layer.bytes for layer in r.layers], _filled(rec["layers"], len(r.layers))
    theirs = [layer["bytes"] for layer in layers]
    same = ours == theirs and r.total_bytes == sum(theirs)
    detail = f"kvcalc {r.total_bytes:,} B over {len(ours)} layers vs transformers {sum(theirs):,} B over {len(theirs)}"
    windows = _windows(name), [layer["sliding_window"] for layer in layers]
    if windows[0] != windows[1]:
        same, detail = False, f"{detail}; windows: kvcalc {_runs(windows[0])} vs transformers {_runs(windows[1])}"
    if r.quality != "exact":
        return "estimated", ("agrees; " if same else "differs; ") + detail
    return ("exact-agree" if same else "exact-differs"), detail


def _filled(layers: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The cache layers the model fills: ``DynamicCache(config=...)`` sizes the cache from the composite
    config's text config, which for a flat Qwen3_5ForCausalLM file is Qwen3_5TextConfig's class default
    (32 layers) while the model the file builds has its own 24; cache layers past ``n`` that hold no tensor
    after the prefill are not the model's and are dropped (any tensor there keeps them, and the files differ)."""
    if len(layers) > n and all(not layer["tensors"] for layer in layers[n:]):
        return layers[:n]
    return layers


def _windows(name: str) -> list[int | None]:
    """kvcalc's sliding window per layer (None: the layer keeps every token). A chunked layer's window counts:
    transformers 5.24 caches ``chunked_attention`` layers in a DynamicSlidingWindowLayer whose sliding_window is
    ``attention_chunk_size`` (cache_utils.py ``LAYER_TYPE_CACHE_MAPPING`` and ``DynamicCache.__init__``)."""
    import kvcalc

    spec = kvcalc.read_spec(corpus_config(name))
    return [next((a.window for a in layer.attention if a.window), None) for layer in spec.layers]


def _runs(values: list[Any]) -> str:
    """``[a, a, b]`` as ``a x2, b`` (short enough for a message)."""
    out: list[list[Any]] = []
    for v in values:
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return ", ".join(f"{v} x{n}" if n > 1 else str(v) for v, n in out)


def params_outcome(name: str, rec: dict[str, Any]) -> tuple[str, str]:
    """(class of KV_CLASSES, detail): ``count_params(file).total`` against the whole meta-device model."""
    import kvcalc

    status, p = _kvcalc(kvcalc.count_params, corpus_config(name))
    if status == "refused":
        return "refused", p
    same = p.total == rec["params"]
    detail = f"kvcalc {p.total:,} vs transformers {rec['params']:,}" + (
        f" (text part {rec['text_params']:,})" if "text_params" in rec else "")
    if p.quality != "exact":
        return "estimated", ("agrees; " if same else "differs; ") + detail
    return ("exact-agree" if same else "exact-differs"), detail


def load_inputs(rec: dict[str, Any]) -> dict[str, int]:
    """The oracle's prefill (the same for every file: batch 1, TOKENS tokens)."""
    return {"batch": 1, "tokens": TOKENS}


def table(data: dict[str, Any]) -> dict[str, dict[str, tuple[str, str]]]:
    """{"kv": {file: outcome}, "params": {file: outcome}} over the files the oracle built."""
    built = {n: r for n, r in data["files"].items() if r["status"] == "built"}
    return {"kv": {n: kv_outcome(n, r) for n, r in sorted(built.items()) if r.get("forward") == "ok"},
            "params": {n: params_outcome(n, r) for n, r in sorted(built.items())}}


def report(path: str = FIXTURE) -> int:
    from collections import Counter

    data = load(path)
    t = table(data)
    status = Counter(r["status"] for r in data["files"].values())
    print(f"files {len(data['files'])}: {dict(status)}; prefill ran on {len(t['kv'])}")
    for what in ("kv", "params"):
        print(what, dict(Counter(c for c, _ in t[what].values())))
        for n, (c, d) in t[what].items():
            if c != "exact-agree":
                print(f"  {c:14} {n}: {d[:200]}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", default=[], help="a corpus file name (repeatable)")
    ap.add_argument("--restart", action="store_true")
    ap.add_argument("--limit", type=int, default=None, help="at most this many files this run")
    ap.add_argument("--report", action="store_true", help="replay the fixture through kvcalc and print")
    ap.add_argument("--out", default=FIXTURE, help="the fixture to write (default: the committed one)")
    args = ap.parse_args(argv)
    if args.report:
        return report(args.out)
    run(args.out, args.only, args.restart, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
