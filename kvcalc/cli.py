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
from .kv import RUNTIMES, kv_cache
from .units import human_bytes

MAX_CONFIG_BYTES = 4 * 1024 * 1024


class CliError(Exception):
    """A one-line message for stderr (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2
        raise CliError(message)


def load_config_arg(source: str) -> dict[str, Any]:
    """Read a config.json from a path or stdin ('-'); return the dict."""
    try:
        if source == "-":
            text = sys.stdin.read(MAX_CONFIG_BYTES + 1)
        else:
            with open(source, encoding="utf-8") as f:
                text = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise CliError(f"cannot read config '{source}': {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise CliError(f"config '{source}' is not UTF-8 text") from None
    if len(text) > MAX_CONFIG_BYTES:
        raise CliError(f"config '{source}' is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise CliError(f"config '{source}' is not valid JSON: {getattr(e, 'msg', 'too deeply nested')}") from None
    if not isinstance(data, dict):
        raise CliError(f"config '{source}' must be a JSON object")
    return data


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a whole number") from None
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m kvcalc", description="KV-cache, weights and capacity planner.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    kv = sub.add_parser("kv", help="KV-cache bytes for a config at a batch and context")
    kv.add_argument("config", help="config.json path, or - for stdin")
    kv.add_argument("--batch", type=_positive, required=True, help="sequences in the batch")
    kv.add_argument("--context", type=_positive, required=True, help="tokens per sequence")
    kv.add_argument("--dtype", help=f"model dtype ({', '.join(dtype_names())}); default: the config's")
    kv.add_argument("--kv-dtype", help="KV-cache dtype; default: the model dtype")
    kv.add_argument("--runtime", default="ideal", choices=RUNTIMES)
    kv.add_argument("--encoder-tokens", type=_positive, help="encoder / vision tokens for cross-attention")
    kv.add_argument("--prefill", type=_positive, help="transformers runtime: tokens in the first forward pass")
    kv.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _kv_command(args: argparse.Namespace) -> str:
    config = load_config_arg(args.config)
    result = kv_cache(config, batch=args.batch, context=args.context, dtype=args.dtype, kv_dtype=args.kv_dtype,
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


COMMANDS = {"kv": _kv_command}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        print(COMMANDS[args.command](args))
        return 0
    except (CliError, KVCalcError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
