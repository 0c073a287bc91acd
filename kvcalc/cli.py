"""Command line: ``python -m kvcalc kv CONFIG --batch B --context T [...]``.

CONFIG is a config.json path or ``-`` for standard input. Output is a table, or JSON with
``--json``. Any bad input prints one line on stderr and exits with status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from .dtypes import dtype_names
from .errors import KVCalcError
from .kv import kv_cache
from .runtimes import RUNTIMES
from .units import human_bytes

class CliError(Exception):
    """A one-line message for stderr (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2
        raise CliError(message)


def load_config_arg(source: str, *, offline: bool = False, revision: str | None = None,
                    timeout: float = 10.0) -> dict[str, Any]:
    return resolve_arg(source, offline=offline, revision=revision, timeout=timeout).config


def resolve_arg(source: str, *, offline: bool = False, revision: str | None = None, timeout: float = 10.0) -> Any:
    """A config from a path, '-' (stdin), a bundled model name or a Hugging Face Hub id.

    Hub fetches use ``HF_TOKEN`` from the environment; ``--offline`` forbids the network (bundled
    snapshots still work). A notice (e.g. a fallback to the bundled snapshot) goes to stderr."""
    from .hub import MAX_CONFIG_BYTES
    from .sources import pasted_config, resolve_config, token_from_env

    if source == "-":
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        return pasted_config(stream.read(MAX_CONFIG_BYTES + 1), name="standard input")
    r = resolve_config(source, offline=offline, revision=revision, token=token_from_env(), timeout=timeout,
                       allow_files=True)
    if r.notice:
        print(f"note: {r.notice}", file=sys.stderr)
    return r


def _whole_number(text: str) -> int:
    """An integer argument; its range is checked by kvcalc, which names the bound in its error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a whole number") from None
    return value


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a finite number")
    return value


def _add_source_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--offline", action="store_true", help="never use the network (bundled snapshots only)")
    p.add_argument("--revision", help="Hub branch, tag or commit")
    p.add_argument("--timeout", type=_number, default=10.0, help="Hub timeout in seconds")


def _load(args: argparse.Namespace) -> dict[str, Any]:
    return load_config_arg(args.config, offline=args.offline, revision=args.revision, timeout=args.timeout)


def _checkpoint_bytes(args: argparse.Namespace, resolved: Any) -> int | None:
    """Exact checkpoint bytes from the Hub's safetensors metadata, for a config fetched from the Hub."""
    if resolved.origin != "hub":
        return None
    from .hub import fetch_weight_info, safetensors_weight_bytes
    from .sources import token_from_env

    try:
        info = fetch_weight_info(resolved.name, revision=args.revision, token=token_from_env(), timeout=args.timeout)
    except KVCalcError as e:
        print(f"note: no safetensors metadata ({e}); weights computed from the config", file=sys.stderr)
        return None
    return safetensors_weight_bytes(info.parameters) if info else None


def _add_plan_parser(sub: Any) -> None:
    p = sub.add_parser("plan", help="will it fit: weights + KV + runtime overhead on GPUs, with solvers")
    p.add_argument("config", help="config.json path, - for stdin, a bundled model or a Hub id")
    _add_source_options(p)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--gpu", help="GPU from the catalog (key, name or fragment, e.g. h100-sxm, 4090)")
    where.add_argument("--gpu-mem-gib", type=_number, help="custom GPU memory in GiB (2**30 bytes)")
    p.add_argument("--gpus", type=_whole_number, default=1, help="number of GPUs")
    p.add_argument("--runtime", default="vllm", choices=RUNTIMES)
    p.add_argument("--batch", type=_whole_number, default=1, help="concurrent sequences")
    p.add_argument("--context", type=_whole_number, help="tokens per sequence (default: max-model-len or the model's)")
    p.add_argument("--dtype", help="weights dtype (default: the checkpoint's)")
    kv = p.add_mutually_exclusive_group()
    kv.add_argument("--kv-dtype", help="KV-cache dtype")
    kv.add_argument("--kv-cache-dtype", dest="kv_dtype", help="vLLM's name for --kv-dtype ('auto' = model dtype)")
    p.add_argument("--gpu-memory-utilization", type=_number, default=0.9)
    p.add_argument("--max-model-len", type=_whole_number)
    p.add_argument("--block-size", type=_whole_number, default=16)
    p.add_argument("--tensor-parallel-size", "-tp", type=_whole_number)
    p.add_argument("--pipeline-parallel-size", "-pp", type=_whole_number)
    p.add_argument("--max-num-batched-tokens", type=_whole_number)
    p.add_argument("--max-num-seqs", type=_whole_number)
    p.add_argument("--kv-cache-memory", type=_whole_number, help="KV-cache bytes per GPU (replaces the budget)")
    p.add_argument("--weights-gib", type=_number, help="measured weights per GPU (GiB)")
    p.add_argument("--activation-gib", type=_number, help="measured activation peak per GPU (GiB)")
    p.add_argument("--non-torch-gib", type=_number, help="measured non-torch memory per GPU (GiB)")
    p.add_argument("--json", action="store_true", help="print JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m kvcalc", description="KV-cache, weights and capacity planner.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    kv = sub.add_parser("kv", help="KV-cache bytes for a config at a batch and context")
    kv.add_argument("config", help="config.json path, - for stdin, a bundled model or a Hub id")
    _add_source_options(kv)
    kv.add_argument("--batch", type=_whole_number, required=True, help="sequences in the batch")
    kv.add_argument("--context", type=_whole_number, required=True, help="tokens per sequence")
    kv.add_argument("--dtype", help=f"model dtype ({', '.join(dtype_names())}); default: the config's")
    kv.add_argument("--kv-dtype", help="KV-cache dtype; default: the model dtype")
    kv.add_argument("--kv-group-size", type=_whole_number,
                    help="integer KV dtypes: values per quantization group (default 64)")
    kv.add_argument("--kv-group-overhead", type=_whole_number,
                    help="integer KV dtypes: bytes of scale + zero point per group (default 4)")
    kv.add_argument("--runtime", default="ideal", choices=RUNTIMES)
    kv.add_argument("--encoder-tokens", type=_whole_number, help="encoder / vision tokens for cross-attention")
    kv.add_argument("--prefill", type=_whole_number, help="transformers runtime: tokens in the first forward pass")
    kv.add_argument("--json", action="store_true", help="print JSON")
    _add_plan_parser(sub)
    return parser


def _kv_command(args: argparse.Namespace) -> str:
    config = _load(args)
    kv_dtype: Any = args.kv_dtype
    if args.kv_group_size or args.kv_group_overhead:
        from .dtypes import get_dtype

        base = get_dtype(args.kv_dtype or "int8")
        kv_dtype = base.with_groups(args.kv_group_size or base.group_size or 64,
                                    args.kv_group_overhead or base.group_overhead_bytes or 4)
    result = kv_cache(config, batch=args.batch, context=args.context, dtype=args.dtype, kv_dtype=kv_dtype,
                      runtime=args.runtime, encoder_tokens=args.encoder_tokens, prefill=args.prefill)
    if args.json:
        return json.dumps(result.to_dict(), indent=2)
    lines = [
        f"model_type {result.model_type}   runtime {result.runtime}   dtype {result.dtype}   kv {result.kv_dtype}",
        f"batch {result.batch:,}   context {result.context:,} tokens   "
        f"per token {result.bytes_per_token:,} B",
        "",
        f"{'layer':>5}  {'kind':<8} {'tokens':>12} {'bytes':>16}",
    ]
    lines += [f"{l.index:>5}  {l.kind:<8} {l.tokens:>12,} {l.bytes:>16,}" for l in result.layers]
    lines += ["", f"total {result.total_bytes:,} bytes ({human_bytes(result.total_bytes)})"]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def _plan_command(args: argparse.Namespace) -> str:
    from .capacity import plan

    resolved = resolve_arg(args.config, offline=args.offline, revision=args.revision, timeout=args.timeout)
    config = resolved.config
    kv_dtype = None if args.kv_dtype in (None, "auto") else args.kv_dtype
    p = plan(config, gpu=args.gpu, gpu_mem_gib=args.gpu_mem_gib, gpus=args.gpus, runtime=args.runtime,
             batch=args.batch, context=args.context, dtype=args.dtype, kv_dtype=kv_dtype,
             tensor_parallel_size=args.tensor_parallel_size, pipeline_parallel_size=args.pipeline_parallel_size,
             gpu_memory_utilization=args.gpu_memory_utilization, max_model_len=args.max_model_len,
             block_size=args.block_size, max_num_batched_tokens=args.max_num_batched_tokens,
             max_num_seqs=args.max_num_seqs, kv_cache_memory=args.kv_cache_memory, weights_gib=args.weights_gib,
             activation_gib=args.activation_gib, non_torch_gib=args.non_torch_gib,
             checkpoint_bytes=_checkpoint_bytes(args, resolved))
    if args.json:
        return json.dumps(p.to_dict(), indent=2)
    fmt = human_bytes
    lines = [
        f"{p.model_type} on {p.gpus} x {p.gpu} ({fmt(p.gpu_memory_bytes)} each), runtime {p.runtime}, "
        f"tp={p.tensor_parallel_size} pp={p.pipeline_parallel_size}",
        f"batch {p.batch:,} x context {p.context:,} tokens, dtype {p.dtype}, kv {p.kv_dtype}, weights {p.weights_scheme}",
        "",
        f"weights per GPU   {fmt(p.weights_bytes):>14}",
        f"KV cache per GPU  {fmt(p.kv_bytes):>14}",
        f"overhead per GPU  {fmt(p.overhead_bytes):>14}",
        f"total per GPU     {fmt(p.total_bytes):>14}   (budget {fmt(p.budget_bytes)})",
        "",
        f"fits: {'yes' if p.fits else 'NO'}",
        f"longest context at batch {p.batch:,}: {p.max_context:,} tokens" if p.max_context else
        f"longest context at batch {p.batch:,}: nothing fits",
        f"largest batch at {p.context:,} tokens: {p.max_batch:,}" if p.max_batch else
        f"largest batch at {p.context:,} tokens: nothing fits",
        f"fewest GPUs of this type: {p.min_gpus}" if p.min_gpus else "fewest GPUs of this type: more than 64",
        f"binding constraint: {p.binding_constraint}",
    ]
    if p.runtime == "vllm":
        lines += ["", *p.engine_lines]
    lines += [f"warning: {w}" for w in p.warnings]
    return "\n".join(lines)


COMMANDS = {"kv": _kv_command, "plan": _plan_command}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        print(COMMANDS[args.command](args))
        return 0
    except (CliError, KVCalcError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
