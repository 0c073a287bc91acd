"""Measure the KV cache of every text-generating architecture transformers ships (dev-only oracle).

For every model type of transformers' own auto mappings (``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES``,
``MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES``, ``MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES``)
this script

1. shrinks the config class's DEFAULT config to a tiny one: widths only (hidden 64, 4 heads,
   head_dim 16, small FFN / experts / MLA ranks / SSM states / vocabulary, windows of 6 tokens);
   the number of layers and every per-layer list (layer_types, KV sharing, hybrid patterns) are
   kept as the default has them, so every structural feature of the type is kept;
2. builds the random-init model (same class choice as tests/hf_reference.py: image-text-to-text,
   then seq2seq, then causal LM), runs one prefill of ``PREFILL`` tokens and ``DECODE`` one-token
   decode steps on CPU, and counts the bytes of every distinct tensor storage the returned
   ``Cache`` holds, per layer (tests/cache_probe.py's rule: a view pins its whole base storage);
3. builds the default (full-size) model on the meta device and counts its parameters
   (``sum(p.numel() for p in model.parameters())``: tied weights once, as tests/test_params.py).

The result goes to tests/fixtures/transformers_5_24_coverage.json (see ``FORMAT`` below). Run:

    python tests/oracles/transformers_coverage.py            # everything (resumes: done types kept)
    python tests/oracles/transformers_coverage.py --restart  # everything, from scratch
    python tests/oracles/transformers_coverage.py --only llama --only gemma3   # re-measure, merge
    python tests/oracles/transformers_coverage.py --sample 5 # re-measure 5 types, compare, exit 1 on drift

Needs the dev stack: torch 2.13 (CPU) and transformers 5.24.0. No network: nothing is downloaded.
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import random
import re
import signal
import sys
import time
import traceback
import warnings
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
FIXTURE = os.path.join(TESTS, "fixtures", "transformers_5_24_coverage.json")
TRANSFORMERS_VERSION = "5.24.0"

BATCH, PREFILL, DECODE, DTYPE = 2, 9, 2, "bfloat16"
ENCODER_TOKENS = 7          # encoder input tokens of encoder-decoder models
WINDOW = 6                  # sliding windows / attention chunks shrink to this (< PREFILL + DECODE)
TINY_TIMEOUT_S = 180        # per type: build the tiny model and feed it
META_TIMEOUT_S = 180        # per type: build the default model on the meta device

FORMAT = """{"transformers": version, "torch": version, "inputs": {batch, prefill, decode, dtype, encoder_tokens},
 "mappings": {mapping name: [model types]},
 "types": {model_type: {"status": "measured", "class", "config" (config.to_dict() of the tiny model),
            "inputs", "cache_class", "layer_classes", "layer_bytes" [per layer, int], "total_bytes"
            (distinct storages of the whole cache), "default_config" (to_diff_dict() of the config
            class's default: what save_pretrained writes), "default_params" (meta device, that
            default config) or "default_params_error", "seconds"}
          | {"status": "excluded", "reason": one line}}}"""

# Out of scope, decided before measuring (one line each). Everything else that generates text is
# attempted; a type that fails is recorded with its exception text (status "excluded", reason
# starting "failed:") so the failure is visible, never silently dropped.
OUT_OF_SCOPE: dict[str, str] = {
    **{mt: "encoder-only masked-LM model registered as a causal LM head (is_decoder flag); not a text generator"
       for mt in ("bert", "bert-generation", "big_bird", "camembert", "data2vec-text", "electra", "ernie",
                  "megatron-bert", "rembert", "roberta", "roberta-prelayernorm", "roc_bert", "roformer",
                  "xlm-roberta", "xlm-roberta-xl", "xmod")},
    "xlm": "encoder-only masked-LM (XLMWithLMHeadModel): no KV cache",
    "xlnet": "keeps its state in `mems` tensors outside Cache",
    "musicgen": "music (audio token) generator",
    "musicgen_melody": "music (audio token) generator",
    "moshi": "speech-audio generator (audio codebooks, depth decoder)",
    "pi0": "robot-action generator (flow-matching action expert), not a text generator",
}

# --------------------------------------------------------------------------- shrinking rules
H = 64
_HIDDEN = re.compile(r"^(hidden_size|d_model|n_embd|n_embed|dim|embed_dim|model_dim|word_embed_proj_dim|hidden_dim|"
                     r"d_embed|embedding_size|text_hidden_size|vision_hidden_size|out_hidden_size|"
                     r"projector_hidden_size|.*_hidden_size)$")
_FFN = re.compile(r"(intermediate_size|ffn_dim|^d_ff$|^n_inner$|ffn_hidden_size|^mlp_dim$|^ffn_size$|"
                  r"^intermediate_size_mlp$|^dim_ff$)")
_HEADS = re.compile(r"^(num_attention_heads|n_head|n_heads|num_heads|encoder_attention_heads|"
                    r"decoder_attention_heads|num_attention_heads_per_layer)$")
_KV_HEADS = re.compile(r"^(num_key_value_heads|num_kv_heads|n_kv_heads|multi_query_group_num|n_head_kv|"
                       r"num_key_value_heads_per_layer)$")
_FIXED: dict[str, int] = {
    "head_dim": 16, "d_kv": 16, "attention_head_dim": 16, "kv_channels": 16, "global_head_dim": 32,
    "kv_lora_rank": 16, "q_lora_rank": 24, "qk_rope_head_dim": 8, "qk_nope_head_dim": 16, "v_head_dim": 16,
    "index_head_dim": 16, "index_n_heads": 2, "index_topk": 4,
    "num_experts": 4, "num_local_experts": 4, "n_routed_experts": 4, "moe_num_experts": 4,
    "num_experts_per_tok": 2, "num_experts_per_token": 2, "moe_topk": 2, "moe_k": 2, "top_k": 2,
    "num_selected_experts": 2, "n_group": 1, "topk_group": 1,
    "state_size": 8, "ssm_state_size": 8, "mamba_d_state": 8, "d_state": 8,
    "linear_num_value_heads": 4, "linear_num_key_heads": 2, "linear_key_head_dim": 16,
    "linear_value_head_dim": 16, "mamba_d_head": 16, "mamba_head_dim": 16, "mamba_headdim": 16,
    "mamba_n_heads": 8, "mamba_num_heads": 8, "n_mamba_heads": 8, "mamba_d_ssm": 128,
    "mamba_n_groups": 1, "mamba_ngroups": 1, "n_groups": 1, "mamba_dt_rank": 8,
    "hidden_size_per_layer_input": 8, "laurel_rank": 4, "projection_dim": 64,
    "sliding_window": WINDOW, "attention_chunk_size": WINDOW, "sliding_window_size": WINDOW,
    "local_window_size": WINDOW, "window_size": WINDOW,
}
_VOCAB = re.compile(r"^(vocab_size|vocab_size_per_layer_input|n_vocab)$")
_TOKEN_ID = re.compile(r"(_token_id|_token_index|_token_ids|token_id)$")


def _special_ids(d: Any, out: set[int]) -> set[int]:
    """Every token id a config names (pad/bos/eos/image/... ids), recursively."""
    if isinstance(d, dict):
        for k, v in d.items():
            if isinstance(k, str) and _TOKEN_ID.search(k):
                for x in v if isinstance(v, list) else [v]:
                    if isinstance(x, int) and not isinstance(x, bool) and x >= 0:
                        out.add(x)
            _special_ids(v, out)
    return out


def _small(key: str, value: Any, full: dict, vocab: int) -> Any:
    """The tiny value for one config field, or ``value`` unchanged (only ever shrinks)."""
    if isinstance(value, list) and value and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        if _FFN.search(key) or _HEADS.match(key) or _KV_HEADS.match(key) or key in ("sliding_window", "window_size"):
            return [_small(key, x, full, vocab) for x in value]
        return value
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return value
    if key in _FIXED:
        return min(value, _FIXED[key])
    if _VOCAB.match(key):
        return min(value, vocab)
    if _HIDDEN.match(key):
        return min(value, H)
    if _FFN.search(key):
        return min(value, 32 if ("moe" in key or "expert" in key) else 96)
    if _HEADS.match(key):
        return min(value, 4)
    if _KV_HEADS.match(key):
        heads = next((v for k, v in full.items() if _HEADS.match(k) and isinstance(v, int)), None)
        if value == 1:
            return 1
        return 4 if value == heads else min(value, 2)
    return value


def _is_config(obj: Any) -> bool:
    from transformers import PreTrainedConfig

    return isinstance(obj, PreTrainedConfig)


def shrink(config: Any, vocab: int) -> dict[str, Any]:
    """Constructor kwargs of a tiny copy of ``config``: its non-default fields, widths shrunk."""
    fields = {f.name for f in dataclasses.fields(config)} if dataclasses.is_dataclass(config) else set()
    full = config.to_dict()
    out: dict[str, Any] = {}
    diff = config.to_diff_dict()
    for k in full:
        v = getattr(config, k, full[k])
        if _is_config(v):
            out[k] = shrink(v, vocab)
            continue
        if k not in fields or k in ("transformers_version", "architectures", "dtype"):
            continue
        new = _small(k, full[k], full, vocab)
        if new != full[k] or k in diff:
            out[k] = new
    if {"expand", "num_heads", "head_dim"} <= fields and isinstance(full.get("expand"), int):
        # Mamba-2 style mixers: num_heads * head_dim must equal expand * hidden_size
        hidden = out.get("hidden_size", full.get("hidden_size", H))
        out["num_heads"] = full["expand"] * hidden // out.get("head_dim", 16)
    out["model_type"] = config.model_type
    return out


# --------------------------------------------------------------------------- building
def mappings() -> dict[str, list[str]]:
    from transformers.models.auto import modeling_auto as auto

    return {"MODEL_FOR_CAUSAL_LM_MAPPING_NAMES": sorted(auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES),
            "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES": sorted(auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES),
            "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES": sorted(auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES)}


def class_name(model_type: str) -> str:
    """The class measured: tests/hf_reference.py's order (image-text-to-text, seq2seq, causal LM)."""
    from transformers.models.auto import modeling_auto as auto

    return (auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.get(model_type)
            or auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES.get(model_type)
            or auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[model_type])


def model_class(model_type: str) -> Any:
    import transformers

    return getattr(transformers, class_name(model_type))


def default_config(model_type: str) -> Any:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    return CONFIG_MAPPING[model_type]()


def tiny_config(model_type: str) -> Any:
    """The default config of ``model_type`` with every width shrunk (layer counts kept)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    default = default_config(model_type)
    special = _special_ids(default.to_dict(), set())
    vocab = max([128] + [i + 1 for i in special if i < 1_000_000])
    kwargs = shrink(default, vocab)
    kwargs.pop("model_type")
    return CONFIG_MAPPING[model_type](**kwargs)


class Timeout(Exception):
    """The step ran past its time limit."""


class _alarm:
    def __init__(self, seconds: int, what: str) -> None:
        self.seconds, self.what = seconds, what

    def _fire(self, *_: Any) -> None:
        raise Timeout(f"{self.what} ran past {self.seconds} s")

    def __enter__(self) -> None:
        signal.signal(signal.SIGALRM, self._fire)
        signal.alarm(self.seconds)

    def __exit__(self, *_: Any) -> None:
        signal.alarm(0)


def _token_ids(config: Any, n: int, batch: int, gen: Any) -> Any:
    """``batch x n`` ordinary token ids: below 100, never a special (pad, image, ...) id."""
    import torch

    text = config.get_text_config(decoder=True)
    vocab = getattr(text, "vocab_size", None) or 128
    special = _special_ids(config.to_dict(), set())
    pool = [i for i in range(3, min(vocab, 100)) if i not in special]
    idx = torch.randint(0, len(pool), (batch, n), generator=gen)
    return torch.tensor(pool)[idx]


def is_encoder_decoder(model: Any) -> bool:
    """An encoder-decoder model as built: Whisper's config says encoder-decoder, WhisperForCausalLM is not."""
    import inspect

    return "decoder_input_ids" in inspect.signature(model.forward).parameters


def feed(model: Any, batch: int, prefill: int, decode: int, encoder_tokens: int) -> Any:
    """One prefill forward, then ``decode`` one-token forwards; the cache the last one returns."""
    import torch

    gen = torch.Generator().manual_seed(0)
    cfg = model.config
    first: dict[str, Any] = {}
    ids_key = "input_ids"
    if is_encoder_decoder(model):
        ids_key = "decoder_input_ids"
        if getattr(cfg, "num_mel_bins", None):    # speech encoders (Whisper-like): features, 2x downsampled
            dtype = next(model.parameters()).dtype
            first["input_features"] = torch.randn(batch, cfg.num_mel_bins, 2 * cfg.max_source_positions,
                                                  generator=gen).to(dtype)
        else:
            first["input_ids"] = _token_ids(cfg, encoder_tokens, batch, gen)
            first["attention_mask"] = torch.ones(batch, encoder_tokens, dtype=torch.long)
    ids = _token_ids(cfg, prefill, batch, gen)
    mask_key = "decoder_attention_mask" if ids_key == "decoder_input_ids" else "attention_mask"
    with torch.no_grad():
        out = model(**{ids_key: ids, mask_key: torch.ones(batch, prefill, dtype=torch.long)}, use_cache=True, **first)
        cache = out.past_key_values
        for step in range(decode):
            nxt = _token_ids(cfg, 1, batch, gen)
            extra: dict[str, Any] = {}
            if ids_key == "decoder_input_ids":
                extra = {"encoder_outputs": (out.encoder_last_hidden_state,)}
                if "attention_mask" in first:
                    extra["attention_mask"] = first["attention_mask"]
            mask = torch.ones(batch, prefill + step + 1, dtype=torch.long)
            out = model(**{ids_key: nxt, mask_key: mask}, past_key_values=cache, use_cache=True, **extra)
            cache = out.past_key_values
    return cache


def _json_safe(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=str))


def measure(model_type: str) -> dict[str, Any]:
    """One type's record (see FORMAT); raises on any failure (the caller records it)."""
    import torch
    import transformers
    from cache_probe import layer_storage_bytes, storage_bytes

    start = time.monotonic()
    rec: dict[str, Any] = {"status": "measured", "class": class_name(model_type)}
    cls = model_class(model_type)
    with _alarm(TINY_TIMEOUT_S, "tiny model build and feed"):
        config = tiny_config(model_type)
        torch.manual_seed(0)
        model = cls(config).to(getattr(torch, DTYPE)).eval()
        cache = feed(model, BATCH, PREFILL, DECODE, ENCODER_TOKENS)
    if not isinstance(cache, transformers.Cache):
        raise RuntimeError(f"keeps state outside Cache: past_key_values is {type(cache).__name__}")
    layers = layer_storage_bytes(cache)
    rec["config"] = _json_safe(model.config.to_dict())
    rec["inputs"] = {"batch": BATCH, "prefill": PREFILL, "decode": DECODE, "dtype": DTYPE}
    if is_encoder_decoder(model):
        rec["inputs"]["encoder_tokens"] = ENCODER_TOKENS
    inner = getattr(cache, "self_attention_cache", cache)
    rec["cache_class"] = type(cache).__name__
    rec["layer_classes"] = [type(layer).__name__ for layer in getattr(inner, "layers", [])]
    rec["layer_bytes"] = [int(b) for b in layers]
    rec["total_bytes"] = int(storage_bytes(cache))
    del model, cache
    try:
        with _alarm(META_TIMEOUT_S, "default model build on the meta device"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            default = default_config(model_type)
            rec["default_config"] = _json_safe(default.to_diff_dict())
            with torch.device("meta"):
                big = cls._from_config(default)
            rec["default_params"] = int(sum(p.numel() for p in big.parameters()))
            del big
    except Exception as exc:  # noqa: BLE001 - recorded as a finding
        rec["default_params"] = None
        rec["default_params_error"] = f"{type(exc).__name__}: {exc}"[:300]
    gc.collect()
    rec["seconds"] = round(time.monotonic() - start, 2)
    return rec


def record(model_type: str) -> dict[str, Any]:
    """``measure`` with failures turned into an excluded record carrying the exception text."""
    if model_type in OUT_OF_SCOPE:
        return {"status": "excluded", "reason": OUT_OF_SCOPE[model_type]}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return measure(model_type)
    except Exception as exc:  # noqa: BLE001 - every failure is a recorded finding
        last = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{os.path.basename(last.filename)}:{last.lineno}"
        return {"status": "excluded", "reason": f"failed: {type(exc).__name__}: {str(exc)[:300]} ({where})"}
    finally:
        gc.collect()


# --------------------------------------------------------------------------- the fixture file
def all_types() -> list[str]:
    return sorted(set().union(*mappings().values()))


def load(path: str) -> dict[str, Any]:
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def header() -> dict[str, Any]:
    import torch
    import transformers

    return {"transformers": transformers.__version__, "torch": torch.__version__,
            "inputs": {"batch": BATCH, "prefill": PREFILL, "decode": DECODE, "dtype": DTYPE,
                       "encoder_tokens": ENCODER_TOKENS, "window": WINDOW},
            "mappings": mappings()}


def save(path: str, data: dict[str, Any]) -> None:
    """Write atomically: one type per line, so diffs stay readable."""
    tmp = path + ".tmp"
    types = data.get("types", {})
    with open(tmp, "w") as f:
        f.write("{\n")
        for k in ("transformers", "torch", "inputs", "mappings"):
            f.write(f"{json.dumps(k)}: {json.dumps(data[k], sort_keys=True)},\n")
        f.write('"types": {\n')
        f.write(",\n".join(f"{json.dumps(mt)}: {json.dumps(types[mt], sort_keys=True)}" for mt in sorted(types)))
        f.write("\n}\n}\n")
    os.replace(tmp, path)


def run(path: str, only: list[str], restart: bool) -> None:
    data = {} if restart else load(path)
    types = data.get("types", {})
    data.update(header())
    todo = only or [mt for mt in all_types() if mt not in types or types[mt].get("reason", "").startswith("crashed")]
    for mt in todo:
        # marker first: a hard crash (segfault, OOM kill) leaves it, and --resume moves on
        types[mt] = {"status": "excluded", "reason": "crashed: the process died measuring this type"}
        data["types"] = types
        save(path, data)
        print(f"{mt} ...", end=" ", flush=True)
        types[mt] = record(mt)
        r = types[mt]
        print(r["status"], r.get("seconds", ""), r.get("reason", "")[:160], flush=True)
        data["types"] = types
        save(path, data)


def _comparable(rec: dict[str, Any]) -> dict[str, Any]:
    return {k: rec.get(k) for k in ("status", "class", "layer_bytes", "total_bytes", "default_params", "cache_class")}


def sample(path: str, n: int, seed: int) -> int:
    """Re-measure ``n`` measured types from the committed file; print differences; 1 if any drifted."""
    data = load(path)
    measured = sorted(mt for mt, r in data["types"].items() if r["status"] == "measured")
    picked = random.Random(seed).sample(measured, min(n, len(measured)))
    drift = 0
    for mt in picked:
        now, then = _comparable(record(mt)), _comparable(data["types"][mt])
        ok = now == then
        drift += not ok
        print(f"{mt}: {'same' if ok else f'DRIFT committed={then} now={now}'}", flush=True)
    return 1 if drift else 0


def _kvcalc_outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("ok", value) or ("refused", message) for a KVCalcError, ("crashed", message) for anything else."""
    from kvcalc.errors import KVCalcError

    try:
        return "ok", call(*args, **kwargs)
    except KVCalcError as exc:
        return "refused", f"{type(exc).__name__}: {exc}"[:200]
    except Exception as exc:  # noqa: BLE001 - a crash is a kvcalc bug to report
        return "crashed", f"{type(exc).__name__}: {exc}"[:200]


def report(path: str) -> dict[str, Any]:
    """Replay every measured type through kvcalc (read-only use): cache bytes and parameter count.

    Cache: ``kvcalc.kv_cache(config, batch, context=prefill + decode, dtype, runtime="transformers",
    prefill)`` per layer and in total against the measured bytes. Parameters:
    ``kvcalc.count_params(default_config).total`` against the meta-device count."""
    import kvcalc

    data = load(path)
    out: dict[str, Any] = {"kv": {}, "params": {}}
    for mt, rec in sorted(data["types"].items()):
        if rec["status"] != "measured":
            continue
        i = rec["inputs"]
        enc = None if rec["config"].get("num_mel_bins") else i.get("encoder_tokens")
        status, value = _kvcalc_outcome(
            kvcalc.kv_cache, rec["config"], batch=i["batch"], context=i["prefill"] + i["decode"], dtype=i["dtype"],
            runtime="transformers", prefill=i["prefill"], encoder_tokens=enc)
        if status == "ok":
            ours = [layer.bytes for layer in value.layers]
            same = ours == rec["layer_bytes"] and value.total_bytes == sum(rec["layer_bytes"])
            status, value = ("match", None) if same else (
                "differ", f"kvcalc {value.total_bytes} B {ours[:6]} vs measured {sum(rec['layer_bytes'])} B "
                          f"{rec['layer_bytes'][:6]}")
        out["kv"][mt] = [status, value]
        if rec.get("default_params") is None:
            out["params"][mt] = ["unmeasured", rec.get("default_params_error")]
            continue
        cfg = {**rec.get("default_config", {}), "model_type": mt}
        status, value = _kvcalc_outcome(kvcalc.count_params, cfg)
        if status == "ok":
            value = value.total
            status, value = ("match", None) if value == rec["default_params"] else (
                "differ", f"kvcalc {value:,} vs transformers {rec['default_params']:,}")
        out["params"][mt] = [status, value]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=FIXTURE, help="the coverage JSON file (default: the committed fixture)")
    p.add_argument("--only", action="append", default=[], metavar="TYPE", help="re-measure this type (repeatable)")
    p.add_argument("--restart", action="store_true", help="ignore the existing file; measure everything")
    p.add_argument("--sample", type=int, metavar="N", help="re-measure N types and compare with the file")
    p.add_argument("--seed", type=int, default=0, help="which types --sample picks")
    p.add_argument("--report", action="store_true",
                   help="replay the file through kvcalc; print JSON {kv, params: {type: [outcome, detail]}}")
    args = p.parse_args(argv)
    if args.report:
        sys.path.insert(0, os.path.dirname(TESTS))
        print(json.dumps(report(args.out), indent=1))
        return 0
    import torch
    import transformers

    torch.set_num_threads(1)    # tiny tensors on shared cores: threads only add overhead
    if transformers.__version__ != TRANSFORMERS_VERSION:
        print(f"warning: transformers {transformers.__version__}, the fixture is for {TRANSFORMERS_VERSION}",
              file=sys.stderr)
    if args.sample is not None:
        return sample(args.out, args.sample, args.seed)
    unknown = [mt for mt in args.only if mt not in all_types()]
    if unknown:
        p.error(f"not in the three mappings: {', '.join(unknown)}")
    run(args.out, args.only, args.restart)
    return 0


if __name__ == "__main__":
    sys.exit(main())
