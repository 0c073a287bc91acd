"""docs/architectures.md from the transformers 5.24 coverage fixture replayed through kvcalc.

Every model type of transformers' three text-generation mappings gets one row: what kvcalc gives
for its measured cache (runtime ``transformers``, per layer, against the tiny model's real cache
tensors; runtime ``ideal`` checked on the full and sliding-window layers), for its parameters
(against the meta-device count of the class-default model), and why a type is out of scope or
unmeasured. Only kvcalc and the committed fixture are read (no torch, no network), so the table is
regenerated in a second; tests/reference/test_transformers_coverage.py checks that the committed file is current.

    python tests/oracles/coverage_table.py            # rewrite docs/architectures.md
    python tests/oracles/coverage_table.py --check    # exit 1 when it is out of date
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "transformers_5_24_coverage.json")
DOC = os.path.join(ROOT, "docs", "architectures.md")
SUMMARY = os.path.join(ROOT, "data", "coverage.csv")   # the counts the How it works page states
SLIDING_WINDOW_TENSOR_BYTES = 8   # DynamicSlidingWindowLayer's int64 _sliding_window_tensor (cache_utils)


def load(path: str = FIXTURE) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def kv_outcome(rec: Mapping[str, Any], runtime: str = "transformers") -> tuple[str, Any]:
    """("exact" | "differs" | "refused", the kvcalc result or the message) for a measured type."""
    import kvcalc

    i = rec["inputs"]
    enc = None if rec["config"].get("num_mel_bins") else i.get("encoder_tokens", load()["inputs"]["encoder_tokens"])
    try:
        r = kvcalc.kv_cache(rec["config"], batch=i["batch"], context=i["prefill"] + i["decode"], dtype=i["dtype"],
                            runtime=runtime, prefill=i["prefill"], encoder_tokens=enc)
    except kvcalc.KVCalcError as exc:
        return "refused", f"{type(exc).__name__}: {exc}"
    if runtime == "transformers":
        same = [layer.bytes for layer in r.layers] == rec["layer_bytes"] and r.total_bytes == sum(rec["layer_bytes"])
        return ("exact" if same else "differs"), r
    return "ok", r


def ideal_checks(rec: Mapping[str, Any]) -> tuple[int, int]:
    """(layers checked, layers equal) for the ``ideal`` runtime: after the decode steps a full-attention
    layer (``DynamicLayer``) holds exactly the ideal bytes and a sliding one (``DynamicSlidingWindowLayer``)
    the ideal bytes plus its 8-byte window tensor; other layer classes are not comparable."""
    status, r = kv_outcome(rec, "ideal")
    if status != "ok" or len(r.layers) != len(rec["layer_bytes"]):
        return 0, 0
    from kvcalc.models.quirks import Quirk

    expanded = Quirk.KV_EXPANDED_TO_QUERY_HEADS in _spec(rec).quirks
    checked = equal = 0
    for layer, measured, cls in zip(r.layers, rec["layer_bytes"], rec["layer_classes"]):
        extra = {"DynamicLayer": 0, "DynamicSlidingWindowLayer": SLIDING_WINDOW_TENSOR_BYTES}.get(cls)
        if extra is None or expanded or layer.kind in ("hybrid", "cross", "shared"):
            continue
        checked += 1
        equal += layer.bytes + extra == measured
    return checked, equal


def _spec(rec: Mapping[str, Any]) -> Any:
    import kvcalc

    return kvcalc.read_spec(rec["config"])


def params_outcome(model_type: str, rec: Mapping[str, Any]) -> tuple[str, str]:
    """("exact" | "differs" | "not counted" | "unmeasured", detail) against the meta-device count."""
    import kvcalc

    if rec.get("default_params") is None:
        return "unmeasured", str(rec.get("default_params_error") or "")[:80]
    try:
        total = kvcalc.count_params({**rec.get("default_config", {}), "model_type": model_type}).total
    except kvcalc.KVCalcError as exc:
        return "not counted", type(exc).__name__
    if total == rec["default_params"]:
        return "exact", f"{total:,}"
    return "differs", f"kvcalc {total:,} vs transformers {rec['default_params']:,}"


def rows(data: Mapping[str, Any]) -> list[dict[str, str]]:
    mapping_of: dict[str, list[str]] = {}
    short = {"MODEL_FOR_CAUSAL_LM_MAPPING_NAMES": "causal-lm", "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES":
             "image-text-to-text", "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES": "seq2seq"}
    for name, types in data["mappings"].items():
        for mt in types:
            mapping_of.setdefault(mt, []).append(short[name])
    out = []
    for mt in sorted(data["types"]):
        rec = data["types"][mt]
        row = {"type": mt, "mappings": ", ".join(sorted(mapping_of.get(mt, []))), "kv": "", "ideal": "",
               "quality": "", "params": "", "how": ""}
        if rec["status"] != "measured":
            scope = "in scope, not measurable" if rec["reason"].startswith(("failed", "crashed")) else "out of scope"
            row.update(kv=scope, ideal="-", quality="-", params="-", how=rec["reason"].split(" | ")[0][:110])
            out.append(row)
            continue
        kv, result = kv_outcome(rec)
        checked, equal = ideal_checks(rec)
        p, detail = params_outcome(mt, rec)
        row.update(kv=kv, quality=result.quality if kv != "refused" else "refused",
                   ideal=f"{equal}/{checked} layers" if checked else "-",
                   params=p if p != "differs" else f"differs ({detail})",
                   how=f"tiny {rec['class']} cache, {len(rec['layer_bytes'])} layers; meta-device count")
        out.append(row)
    return out


def counts(table: list[dict[str, str]]) -> dict[str, int]:
    in_scope = [r for r in table if r["kv"] != "out of scope"]
    measured = [r for r in in_scope if r["kv"] in ("exact", "differs", "refused")]
    return {
        "types": len(table), "in_scope": len(in_scope), "measured": len(measured),
        "kv_exact": sum(r["kv"] == "exact" for r in measured),
        "params_exact": sum(r["params"] == "exact" for r in measured),
        "params_measured": sum(r["params"] != "unmeasured" for r in measured),
        "both_exact": sum(r["kv"] == "exact" and r["params"] == "exact" for r in measured),
    }


def render(data: Mapping[str, Any] | None = None) -> str:
    data = data or load()
    table = rows(data)
    c = counts(table)
    lines = [
        "# Architectures: transformers 5.24 coverage",
        "",
        "Generated by `python tests/oracles/coverage_table.py` from `tests/fixtures/transformers_5_24_coverage.json`",
        "(transformers' own measurements: the real cache tensors of a tiny random-init model of every type in",
        "`MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`, `MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES` and",
        "`MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES`, after a prefill of 9 tokens and 2 decode steps at batch 2,",
        "bfloat16; and the meta-device parameter count of each class-default model). Do not edit by hand.",
        "",
        f"**{c['both_exact']} of {c['in_scope']} text-generation architectures in transformers 5.24 verified "
        f"exactly** (KV cache per layer and parameter count). KV cache alone: {c['kv_exact']} of {c['measured']} "
        f"measured types exact; parameters: {c['params_exact']} of {c['params_measured']} measured counts exact. "
        f"{c['types'] - c['in_scope']} types are out of scope (encoder-only heads, audio generators, state "
        f"outside `Cache`) and {c['in_scope'] - c['measured']} could not be measured (the reason is the "
        "exception transformers raised).",
        "",
        "Columns: **KV** - runtime `transformers`, every layer's bytes equal to the measured tensors (`exact`),",
        "or not (`differs`), or kvcalc refuses the config with a typed error (`refused`); **quality** - what",
        "kvcalc itself reports for the config (`exact`: the type's rules are in kvcalc's registry; `estimated`:",
        "generic rules, assumptions in the warnings); **ideal** - runtime `ideal` against the full-attention and",
        "sliding layers (the only layer classes whose measured bytes are the ideal ones, plus the 8-byte window",
        "tensor); **parameters** - `count_params` of the default config against transformers (`not counted`:",
        "kvcalc refuses, and a plan takes the measured weights, `weights_gib`).",
        "",
        "| model type | mapping | KV | quality | ideal | parameters | how verified |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table:
        how = r["how"].replace("|", "/")
        lines.append(f"| `{r['type']}` | {r['mappings']} | {r['kv']} | {r['quality']} | {r['ideal']} | "
                     f"{r['params']} | {how} |")
    return "\n".join(lines) + "\n"


def summary(data: Mapping[str, Any] | None = None) -> str:
    """data/coverage.csv: the counts of :func:`counts` (shipped with the app, which has no tests/ folder)."""
    data = data or load()
    c = counts(rows(data))
    src = f"tests/fixtures/transformers_5_24_coverage.json (transformers {data.get('transformers', '5.24')})"
    return "count,value,source\n" + "".join(f"{k},{v},{src}\n" for k, v in c.items())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when docs/architectures.md is out of date")
    args = p.parse_args(argv)
    sys.path.insert(0, ROOT)
    text = render()
    if args.check:
        with open(DOC, encoding="utf-8") as f, open(SUMMARY, encoding="utf-8") as g:
            return 0 if f.read() == text and g.read() == summary() else 1
    os.makedirs(os.path.dirname(DOC), exist_ok=True)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(text)
    with open(SUMMARY, "w", encoding="utf-8") as f:
        f.write(summary())
    print(text.split("\n")[8])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
