"""The CLI's workload flags and their output: ``kvcalc plan ... --shared-prefix-tokens N`` and friends.

kvcalc.cli calls three functions here (WIRING.md gives the lines): :func:`add_workload_flags` on the
plan parser, :func:`workload_json` for ``plan --json`` (adds ``effective_concurrency`` and a ``workload``
object) and :func:`workload_lines` for the text report; and, for ``kvcalc colocate``,
:func:`add_colocate_parser` / :func:`colocate_command`. No flag given: nothing is added (the golden
plans stay byte-identical). Units as in the flags: tokens, GiB (2**30 bytes).
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..errors import InputError
from .colocate import colocate
from .lengths import Histogram, length_concurrency
from .offload import CONNECTORS, LINKS, offload_tier
from .prefix import prefix_sharing, with_hit_rate

LENGTH_DESTS = ("mean_input_tokens", "p95_input_tokens", "mean_output_tokens", "p95_output_tokens")
WORKLOAD_DESTS = ("enable_prefix_caching", "shared_prefix_tokens", "prefix_hit_rate", *LENGTH_DESTS,
                  "input_histogram", "output_histogram", "kv_offload_gib", "kv_offload_connector", "host_link")
"""The dests :func:`add_workload_flags` adds (none of them reaches ``deploy``)."""


def _tokens(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens, got {text[:40]!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a token count must be >= 0")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError("expected a positive finite number")
    return value


def _histogram(text: str) -> Histogram:
    """``TOKENS:COUNT,TOKENS:COUNT,...`` (at most 1,000 bins)."""
    try:
        bins = tuple((int(t), float(c)) for t, c in (b.split(":") for b in text.split(",")[:1001]))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a histogram is TOKENS:COUNT,..., got {text[:40]!r}") from None
    if len(bins) > 1000:
        raise argparse.ArgumentTypeError("at most 1,000 histogram bins")
    return Histogram(bins)


def _fraction(text: str) -> float:
    value = _positive(text)
    if value > 1:
        raise argparse.ArgumentTypeError("expected a fraction in (0, 1]")
    return value


def add_workload_flags(p: argparse.ArgumentParser) -> None:
    """The plan command's workload group (kvcalc.workload)."""
    g = p.add_argument_group("workload (kvcalc.workload): prefix sharing, request lengths, KV offload")
    g.add_argument("--enable-prefix-caching", action=argparse.BooleanOptionalAction, default=None,
                   help="count the shared prefix once (the engines' default: vLLM 0.33 prefix caching, SGLang's "
                        "radix cache); --no-enable-prefix-caching: every request its own copy")
    g.add_argument("--shared-prefix-tokens", type=_tokens, help="tokens of prompt prefix every request shares")
    g.add_argument("--prefix-hit-rate", type=_fraction,
                   help="share of requests that carry the shared prefix (default 1: all; below 1: expected values)")
    for dest in LENGTH_DESTS:
        stat, kind = dest.split("_")[:2]
        g.add_argument("--" + dest.replace("_", "-"), type=_positive,
                       help=f"{stat} {kind} tokens per request (lognormal fit: expected concurrency, wait chance)")
    g.add_argument("--input-histogram", type=_histogram, help="input lengths as TOKENS:COUNT,... (instead of "
                   "mean / p95)")
    g.add_argument("--output-histogram", type=_histogram, help="output lengths as TOKENS:COUNT,...")
    g.add_argument("--kv-offload-gib", type=_positive, help="CPU KV offload tier in GiB (vLLM: all ranks' total "
                   "--kv-offloading-size; SGLang: --hicache-size per rank)")
    g.add_argument("--kv-offload-connector", choices=sorted({c for t in CONNECTORS.values() for c in t}),
                   help="offload connector (default: vLLM native, SGLang hicache)")
    g.add_argument("--host-link", choices=tuple(LINKS), default="pcie5", help="host link for the reload cost")


def _given(args: argparse.Namespace, dest: str) -> Any:
    return getattr(args, dest, None)


def workload_json(d: Any, p: Any, args: argparse.Namespace) -> dict[str, Any]:
    """``{"effective_concurrency": ...}`` for every ``plan --json``, with ``"workload": {...}`` when a workload
    flag is given. ``effective_concurrency`` is the plan's ``max_concurrency`` when nothing is shared."""
    if all(_given(args, k) in (None, "pcie5") for k in WORKLOAD_DESTS):
        return {"effective_concurrency": p.max_concurrency}
    out: dict[str, Any] = {}
    prefix = _given(args, "shared_prefix_tokens") or 0
    caching = _given(args, "enable_prefix_caching") is not False
    if prefix and caching:
        s = prefix_sharing(d, prefix)          # at the engine's longest request, as max_concurrency is
        if _given(args, "prefix_hit_rate") is not None:
            s = with_hit_rate(s, args.prefix_hit_rate)
        out["prefix_sharing"] = s.to_dict()
        effective: Any = s.effective_concurrency
    else:
        effective = p.max_concurrency
    lengths = [_given(args, k) for k in LENGTH_DESTS]
    hists = _given(args, "input_histogram"), _given(args, "output_histogram")
    if any(v is not None for v in [*lengths, *hists]):
        for side, pair, hist in (("input", lengths[:2], hists[0]), ("output", lengths[2:], hists[1])):
            if hist is None and None in pair:
                raise InputError(f"give --mean-{side}-tokens and --p95-{side}-tokens, or --{side}-histogram")
        out["lengths"] = length_concurrency(d, *lengths, input_histogram=hists[0],
                                            output_histogram=hists[1]).to_dict()
    if _given(args, "kv_offload_gib") is not None:
        out["offload"] = offload_tier(d, args.kv_offload_gib, connector=_given(args, "kv_offload_connector"),
                                      link=_given(args, "host_link") or "pcie5").to_dict()
    return {"effective_concurrency": effective, "workload": out}


def workload_lines(section: dict[str, Any]) -> list[str]:
    """The text report's lines for :func:`workload_json`'s section (empty when none)."""
    if "workload" not in section:               # no workload flag: the plain plan's lines say it all
        return []
    w = section["workload"]
    lines = []
    if section["effective_concurrency"] is not None:
        lines.append(f"effective concurrency: {section['effective_concurrency']:,.2f}x")
    if "prefix_sharing" in w:
        s = w["prefix_sharing"]
        lines.append(f"prefix sharing ({s['engine']} {s['version']}, {s['quality']}): {s['shared_blocks']:,} of "
                     f"{s['blocks_per_request']:,} blocks a request shared; {s['requests_at_once']:,} requests of "
                     f"{s['request_tokens']:,} tokens at once, {s['blocks_resident']:,} blocks resident")
    if "lengths" in w:
        c = w["lengths"]
        lines.append(f"request lengths ({c['model']}): expected {c['expected_concurrency']:,.1f} at once, "
                     f"{c['concurrency_at_5pct']:,} with a wait chance <= 5%, worst case "
                     f"{c['worst_case_concurrency']:,.2f}")
    if "offload" in w:
        o = w["offload"]
        lines.append(f"KV offload ({o['connector']}, {o['quality']}): {o['tokens']:,} tokens off the GPU; one "
                     f"{o['request_tokens']:,}-token request reloads in {o['reload_seconds'] * 1e3:,.1f} ms over "
                     f"{o['link']['name']}")
    return lines


def add_colocate_parser(sub: Any, add_source_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """``kvcalc colocate MODEL=UTIL[@MAX_MODEL_LEN] ... --gpu G``: several vLLM instances on one GPU."""
    c = sub.add_parser("colocate", help="several vLLM instances on one GPU, in launch order")
    c.add_argument("instances", nargs="+", help="MODEL=GPU_MEMORY_UTILIZATION[@MAX_MODEL_LEN], in launch order")
    c.add_argument("--gpu", help="GPU from the catalog (default h100-sxm)")
    c.add_argument("--json", action="store_true", help="print JSON")
    add_source_options(c)


def parse_instance(text: str) -> tuple[str, float, int | None]:
    """``MODEL=UTIL[@LEN]`` -> (model, utilization, max_model_len or None).

    >>> parse_instance("Qwen/Qwen3-0.6B=0.3@8192")
    ('Qwen/Qwen3-0.6B', 0.3, 8192)
    """
    model, sep, rest = text.rpartition("=")
    if not sep or not model:
        raise InputError(f"an instance is MODEL=GPU_MEMORY_UTILIZATION[@MAX_MODEL_LEN], got {text[:60]!r}")
    util, _, length = rest.partition("@")
    try:
        return model, float(util), int(length) if length else None
    except ValueError:
        raise InputError(f"bad utilization or length in {text[:60]!r}") from None


def colocate_command(args: argparse.Namespace, load: Callable[[str], Any]) -> str:
    """Run ``kvcalc colocate``; ``load(source)`` is the CLI's config loader."""
    from ..capacity import deploy
    from ..limits import finite_json

    plan = []
    for text in args.instances:
        model, util, length = parse_instance(text)
        extra: dict[str, Any] = {"max_model_len": length} if length else {}
        plan.append((model, deploy(load(model), gpu=args.gpu, gpu_memory_utilization=util, **extra)))
    c = colocate(plan)
    if args.json:
        from dataclasses import asdict

        return finite_json(asdict(c))
    lines = [f"{len(c.instances)} vLLM instances on {c.gpu} ({c.total_bytes / 2**30:,.2f} GiB): "
             f"{'fits' if c.fits else 'does not fit'}", c.order]
    for i in c.instances:
        lines.append(f"  {i.model}: asks {i.requested_bytes / 2**30:,.2f} GiB, {i.free_at_start / 2**30:,.2f} GiB "
                     f"free at start -> {'starts' if i.starts else 'refused'}; KV {i.kv_cache_tokens:,} tokens, "
                     f"{i.max_concurrency:,.2f}x")
        lines.append(f"    {i.command}")
    return "\n".join(lines)
