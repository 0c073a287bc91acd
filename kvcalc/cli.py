"""Command line: ``python -m kvcalc kv CONFIG --batch B --context T [...]``.

CONFIG is a config.json path (also a FIFO or ``<(process substitution)``), ``-`` for standard
input, a bundled model or a Hub id. Output is a table, or JSON with ``--json``.

Exit status: 0 done; 2 bad input (one line on stderr: an unknown option, a value out of its
stated bound, a config that cannot be read or planned, nothing on a pipe within ``--timeout``);
141 (128 + SIGPIPE, what a shell reports for a Unix tool stopped by a closed pipe) when the reader
of stdout went away, e.g. ``| head -1``: stdout is then sent to /dev/null and nothing is printed;
130 on Ctrl-C. Every text printed, output, notes and errors alike, goes through
:func:`terminal_safe`, so a config string cannot send escape sequences to the terminal.
"""
from __future__ import annotations

import argparse
import logging
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .dtypes import dtype_names
from .engines.registry import get_engine
from .engines.registry import names as engine_names
from .errors import InputError, KVCalcError
from .kv import kv_cache
from .limits import MAX_MAGNITUDE, MIN_MAGNITUDE, check_count, finite_json
from .runtimes import KV_RUNTIMES
from .units import human_bytes

EXIT_BAD_INPUT = 2
EXIT_BROKEN_PIPE = 128 + 13      # SIGPIPE
EXIT_INTERRUPTED = 128 + 2       # SIGINT
MAX_KV_GROUP_SIZE = 4096         # values per quantization group (sanity bound; KV quantizers use 32-128)
MAX_KV_GROUP_OVERHEAD = 64       # bytes of scale + zero point per group (fp16 pair: 4; fp32 pair: 8)


def _escape(ch: str) -> str:
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control or format character (ESC, BEL, CR, bidi overrides...) but the
    newline shown escaped (ESC -> ``\\x1b``, U+202E -> ``\\u202e``): what the CLI prints."""
    if text.replace("\n", "").isprintable():
        return text
    return "".join(ch if ch == "\n" or ch.isprintable() else _escape(ch) for ch in text)


def _note(message: str) -> None:
    print(terminal_safe(f"note: {message}"), file=sys.stderr)


class _NoteHandler(logging.Handler):
    """kvcalc's logged warnings (e.g. 'waiting for a config.json on standard input') as notes."""

    def emit(self, record: logging.LogRecord) -> None:
        _note(record.getMessage())


class CliError(Exception):
    """A one-line message for stderr (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2
        raise CliError(message)


def load_config_arg(source: str, *, offline: bool = False, revision: str | None = None,
                    timeout: float = 10.0) -> dict[str, Any]:
    return resolve_arg(source, offline=offline, revision=revision, timeout=timeout).config


def resolve_arg(source: str, *, offline: bool = False, revision: str | None = None, timeout: float = 10.0) -> Any:
    """A config from a path, '-' (stdin), a bundled model name or a Hugging Face Hub id.

    Hub fetches use ``HF_TOKEN`` from the environment; ``--offline`` forbids the network (bundled
    snapshots still work). A notice (e.g. a fallback to the bundled snapshot) goes to stderr."""
    from .sources import pasted_config, resolve_config, token_from_env

    if source == "-":
        return pasted_config(_read_stdin(timeout), name="standard input")
    r = resolve_config(source, offline=offline, revision=revision, token=token_from_env(), timeout=timeout,
                       allow_files=True)
    if r.notice:
        _note(r.notice)
    return r


def _read_stdin(timeout: float) -> bytes | str:
    """Standard input, bounded like a FIFO (:func:`kvcalc.sources.read_config_fd`): a terminal or an
    idle pipe gets a note after 2 s and an error after ``timeout`` s. An in-memory stream (a test's
    stand-in) is read directly, capped."""
    from .hub import MAX_CONFIG_BYTES
    from .sources import read_config_fd

    if sys.stdin is None:
        raise InputError("there is no standard input: give a config.json path or a Hub id instead of '-'")
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        return stream.read(MAX_CONFIG_BYTES + 1)
    return read_config_fd(fd, "standard input", timeout=timeout)


def _whole_number(text: str) -> int:
    """An integer argument; its range is checked by kvcalc, which names the bound in its error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a whole number") from None
    return value


def _bounded(what: str, minimum: int, maximum: int, unit: str = "") -> Callable[[str], int]:
    """An integer argument type checked against [minimum, maximum] (kvcalc.limits.check_count)."""
    def parse(text: str) -> int:
        try:
            return check_count(what, _whole_number(text), minimum, maximum)
        except InputError as e:
            raise argparse.ArgumentTypeError(f"{e}{unit}") from None
    return parse


def _text(text: str) -> str:
    """A non-empty text argument: an empty value must not quietly mean the default."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: give a value, or leave the option out for the default")
    return text.strip()


def _seconds(text: str) -> float:
    """A timeout in seconds, in the Hub client's bound (0, MAX_TIMEOUT]."""
    from .hub import MAX_TIMEOUT

    value = _number(text)
    if not 0 < value <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_TIMEOUT:g} seconds, got {text[:20]}")
    return value


def _max_model_len(text: str) -> int:
    if text.strip() in ("-1", "auto"):
        return -1
    return _whole_number(text)


def _json_object(text: str) -> dict[str, Any]:
    from .vllm_command import json_object
    try:
        return json_object(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:40]}' is not a JSON object") from None


def _number(text: str) -> float:
    """A float argument: finite, 0 or of a size from 1e-9 to 1e12; each option's own range (a fraction in
    (0, 1], GiB up to the catalog's largest card...) is checked by kvcalc, which names it in its error."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is not a finite number")
    if value and not MIN_MAGNITUDE <= abs(value) <= MAX_MAGNITUDE:
        raise argparse.ArgumentTypeError(f"'{text[:20]}' is out of range: give 0 or a number of size "
                                         f"{MIN_MAGNITUDE:g} to {MAX_MAGNITUDE:g}")
    return value


def _add_source_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--offline", action="store_true", help="never use the network (bundled snapshots only)")
    p.add_argument("--revision", type=_text, help="Hub branch, tag or commit")
    p.add_argument("--timeout", type=_seconds, default=10.0,
                   help="seconds to wait for the Hub, or for a pipe / stdin to deliver the config (default 10)")


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
        _note(f"no safetensors metadata ({e}); weights computed from the config")
        return None
    return safetensors_weight_bytes(info.parameters) if info else None


_OPTION_TYPES: dict[str, Callable[[str], Any]] = {"int": _whole_number, "float": _number, "text": _text,
                                                  "json": _json_object, "length": _max_model_len}
"""How the CLI reads each kind of declared option (kvcalc.engines.base.Option.kind); its bounds are the engine's."""


def _list_reader(o: Any) -> Callable[[str], Any]:
    """The CLI reader of a ``list`` option (llama.cpp's ``-ts 3,1``): the option's own reader, its error as
    argparse's message."""
    def read(text: str) -> Any:
        try:
            return o.read(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(f"'{text[:40]}': {e}") from None
    read.__name__ = o.dest
    return read


def _add_engine_flags(p: argparse.ArgumentParser) -> dict[str, Any]:
    """One argument group per engine, generated from its option declarations (kvcalc.engines: flag names in
    the engine's own spelling; an option two engines share is added once). Returns the groups by runtime."""
    groups: dict[str, Any] = {}
    added: set[str] = {"max_model_len"}
    for name in engine_names():
        engine = get_engine(name)
        group = p.add_argument_group(f"{engine.label} (--runtime {name}), under its flag names")
        groups[name] = group
        for o in engine.declarations:
            if not o.cli or o.dest in added:
                continue
            added.add(o.dest)
            if o.kind == "bool":
                group.add_argument(*o.flags, dest=o.dest, action="store_false" if o.negate else "store_true",
                                   default=None, help=o.help)
            elif o.kind == "choice":
                group.add_argument(*o.flags, dest=o.dest, nargs="?" if o.const else None, const=o.const,
                                   choices=o.choices, help=o.help)
            else:
                reader = _list_reader(o) if o.kind == "list" else _OPTION_TYPES[o.kind]
                group.add_argument(*o.flags, dest=o.dest, type=reader, help=o.help)
    return groups


def _add_plan_parser(sub: Any) -> None:
    p = sub.add_parser("plan", help="will it fit: weights + KV + runtime overhead on GPUs, with solvers")
    p.add_argument("config", help="config.json path, - for stdin, a bundled model or a Hub id")
    _add_source_options(p)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--gpu", type=_text, help="GPU from the catalog (key, name or fragment, e.g. h100-sxm, 4090)")
    where.add_argument("--gpu-mem-gib", type=_number, help="custom GPU memory in GiB (2**30 bytes)")
    p.add_argument("--gpus", type=_whole_number, default=1, help="number of GPUs")
    p.add_argument("--runtime", default="vllm", choices=engine_names())
    p.add_argument("--startup-log", metavar="FILE",
                   help="engine startup log (vLLM, SGLang, llama.cpp, TensorRT-LLM; - for stdin): its measured "
                        "lines replace the estimates; your own flags still win")
    p.add_argument("--batch", type=_whole_number, default=1, help="concurrent sequences")
    p.add_argument("--context", type=_whole_number, help="tokens per sequence (default: max-model-len or the model's)")
    p.add_argument("--dtype", type=_text, help="weights dtype (default: the checkpoint's)")
    kv = p.add_mutually_exclusive_group()
    kv.add_argument("--kv-dtype", type=_text, help="KV-cache dtype")
    kv.add_argument("--kv-cache-dtype", dest="kv_dtype", type=_text,
                    help="vLLM's name for --kv-dtype ('auto' = model dtype)")
    p.add_argument("--max-model-len", type=_max_model_len,
                   help="vLLM: tokens per request (-1 or auto: vLLM 0.33 fits it to the KV memory)")
    p.add_argument("--tensor-parallel-size", "-tp", type=_whole_number)
    p.add_argument("--pipeline-parallel-size", "-pp", type=_whole_number)
    groups = _add_engine_flags(p)
    vllm = groups["vllm"]
    vllm.add_argument("--enable-lora", action="store_true", default=None,
                      help="vLLM: serve LoRA adapters (their preallocated slots count with the weights)")
    vllm.add_argument("--max-loras", type=_whole_number, help="vLLM: LoRA adapters in one batch (default 1)")
    vllm.add_argument("--max-lora-rank", type=_whole_number, help="vLLM: largest LoRA rank (default 16)")
    vllm.add_argument("--max-cpu-loras", type=_whole_number, help="vLLM: LoRA adapters cached in CPU memory")
    vllm.add_argument("--fully-sharded-loras", action="store_true", default=None,
                      help="vLLM: shard LoRA A/B over tensor-parallel ranks fully")
    vllm.add_argument("--lora-dtype", type=_text, help="vLLM: LoRA dtype (auto, float16, bfloat16)")
    vllm.add_argument("--cuda-graph-gib", type=_number,
                      help="vLLM: measured CUDA-graph memory per GPU (GiB; default: 0.33 assumes 0.67 GiB)")
    ll = groups["llama_cpp"]
    gg = ll.add_mutually_exclusive_group()
    gg.add_argument("--gguf-type", type=_text, help="the GGUF file type of the weights (Q4_K_M, Q8_0, F16, ...)")
    gg.add_argument("--gguf", dest="gguf_file", type=_text,
                    help="a .gguf file, or hf://ORG/REPO/FILE.gguf on the Hub: only its header is read "
                         "(exact weight bytes; the Hub file by one range request)")
    ll.add_argument("--fit", action="store_true",
                    help="llama.cpp: the largest -c (and, when needed, the fewest layers off the GPU) that fits "
                         "the GPU, and the llama-server command (kvcalc.llama_cpp.fit)")
    ll.add_argument("--fit-target", type=_number, default=1024,
                    help="llama.cpp --fit: MiB left free on the GPU (llama.cpp's --fit-target, default 1024)")
    p.add_argument("--weights-gib", type=_number, help="measured weights per GPU (GiB)")
    p.add_argument("--activation-gib", type=_number, help="measured activation peak per GPU (GiB)")
    p.add_argument("--non-torch-gib", type=_number, help="measured non-torch memory per GPU (GiB)")
    p.add_argument("--prompt-tokens", type=_whole_number,
                   help="speed estimate: prompt length for the time to first token (default: --context)")
    p.add_argument("--bandwidth-efficiency", type=_number,
                   help="speed estimate: share of the memory bandwidth decoding achieves (default from published "
                        "measurements)")
    p.add_argument("--compute-efficiency", type=_number,
                   help="speed estimate: share of the bf16 tensor rate a prefill achieves (default from published "
                        "measurements)")
    p.add_argument("--json", action="store_true", help="print JSON")
    from .workload.cli_flags import add_workload_flags

    add_workload_flags(p)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m kvcalc", description="KV-cache, weights and capacity planner.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    kv = sub.add_parser("kv", help="KV-cache bytes for a config at a batch and context")
    kv.add_argument("config", help="config.json path, - for stdin, a bundled model or a Hub id")
    _add_source_options(kv)
    kv.add_argument("--batch", type=_whole_number, required=True, help="sequences in the batch")
    kv.add_argument("--context", type=_whole_number, required=True, help="tokens per sequence")
    kv.add_argument("--dtype", type=_text, help=f"model dtype ({', '.join(dtype_names())}); default: the config's")
    kv.add_argument("--kv-dtype", type=_text, help="KV-cache dtype; default: the model dtype")
    kv.add_argument("--kv-group-size", type=_bounded("group size", 1, MAX_KV_GROUP_SIZE, " values"),
                    help=f"integer KV dtypes: values per quantization group, 1-{MAX_KV_GROUP_SIZE} (default 64)")
    kv.add_argument("--kv-group-overhead", type=_bounded("group overhead", 0, MAX_KV_GROUP_OVERHEAD, " bytes"),
                    help=f"integer KV dtypes: bytes of scale + zero point per group, 0-{MAX_KV_GROUP_OVERHEAD} "
                         "(default 4)")
    kv.add_argument("--runtime", default="ideal", choices=KV_RUNTIMES)
    kv.add_argument("--encoder-tokens", type=_whole_number, help="encoder / vision tokens for cross-attention")
    kv.add_argument("--prefill", type=_whole_number, help="transformers runtime: tokens in the first forward pass")
    kv.add_argument("--cache-implementation", default="dynamic", choices=("dynamic", "static"),
                    help="transformers runtime: DynamicCache (default) or StaticCache (preallocated)")
    kv.add_argument("--max-cache-len", type=_whole_number,
                    help="transformers static cache: tokens preallocated per layer (default: --context)")
    kv.add_argument("--beam-search", action="store_true",
                    help="transformers runtime: the cache after a beam reorder (--batch = sequences x beams)")
    kv.add_argument("--json", action="store_true", help="print JSON")
    _add_plan_parser(sub)
    from .workload.cli_flags import add_colocate_parser

    add_colocate_parser(sub, _add_source_options)
    return parser


def _kv_command(args: argparse.Namespace) -> str:
    config = _load(args)
    kv_dtype: Any = args.kv_dtype
    if args.kv_group_size is not None or args.kv_group_overhead is not None:
        from .dtypes import get_dtype

        if args.kv_dtype is None:
            raise CliError("--kv-group-size / --kv-group-overhead apply to an integer --kv-dtype "
                           "(int8, int4, int2): give one")
        base = get_dtype(args.kv_dtype)
        kv_dtype = base.with_groups(
            base.group_size if args.kv_group_size is None else args.kv_group_size,
            base.group_overhead_bytes if args.kv_group_overhead is None else args.kv_group_overhead)
    if args.prefill is not None and not get_engine(args.runtime).prefill_cache:
        raise CliError(f"--prefill applies to --runtime transformers only (runtime is {args.runtime})")
    result = kv_cache(config, batch=args.batch, context=args.context, dtype=args.dtype, kv_dtype=kv_dtype,
                      runtime=args.runtime, encoder_tokens=args.encoder_tokens, prefill=args.prefill,
                      cache_implementation=args.cache_implementation, max_cache_len=args.max_cache_len,
                      beam_search=args.beam_search)
    if args.encoder_tokens is not None and not any(layer.kind == "cross" for layer in result.layers):
        raise CliError("--encoder-tokens applies to models with cross-attention (T5, BART, Whisper, Mllama); "
                       f"this {result.model_type[:60]} config has none")
    if args.json:
        return finite_json(result.to_dict())
    lines = [
        f"model_type {result.model_type}   runtime {result.runtime}   dtype {result.dtype}   kv {result.kv_dtype}",
        f"batch {result.batch:,}   context {result.context:,} tokens   "
        f"per token {result.bytes_per_token:,} B",
        "",
        f"{'layer':>5}  {'kind':<8} {'tokens':>12} {'bytes':>16}",
    ]
    lines += [f"{l.index:>5}  {l.kind:<8} {l.tokens:>12,} {l.bytes:>16,}" for l in result.layers]
    lines += ["", f"total {result.total_bytes:,} bytes ({human_bytes(result.total_bytes)})   [{result.quality}]"]
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)


_DEPLOY_OPTIONS = ("gpu", "gpu_mem_gib", "context", "tensor_parallel_size", "pipeline_parallel_size", "max_model_len",
                   "weights_gib", "activation_gib", "non_torch_gib", "cuda_graph_gib")
"""The plan command's options that are the deployment's (the rest are the engines' declared options)."""
_LORA_FLAGS = ("max_loras", "max_lora_rank", "max_cpu_loras", "fully_sharded_loras", "lora_dtype")
_OVERHEAD = ("activation_gib", "non_torch_gib")


def _engine_dests() -> dict[str, tuple[str, ...]]:
    """Runtime -> the CLI dests only that engine has: its declared options and ``Engine.cli_flags``."""
    return {n: get_engine(n).option_names() + get_engine(n).cli_flags for n in engine_names()}


def _plan_options() -> tuple[str, ...]:
    """Every dest the plan command hands on (deployment options first, then each engine's, once)."""
    out = list(_DEPLOY_OPTIONS)
    for dests in _engine_dests().values():
        out += [d for d in dests if d not in out]
    return tuple(out)


def _lora_options(args: argparse.Namespace) -> dict[str, Any] | None:
    """``--enable-lora`` and its flags as kvcalc.vllm.lora.LoraConfig fields; None without ``--enable-lora``."""
    given = {k: getattr(args, k) for k in _LORA_FLAGS if getattr(args, k) is not None}
    if not args.enable_lora:
        if given:
            flag = "--" + next(iter(given)).replace("_", "-")
            raise CliError(f"{flag} does nothing without --enable-lora (as in vLLM): add --enable-lora or drop it")
        return None
    return given
def _flag(name: str) -> str:
    """The flag a dest was given under (the engine's own spelling where it declares one)."""
    for runtime in engine_names():
        for o in get_engine(runtime).declarations:
            if o.dest == name and o.cli:
                return o.flag
    return "--" + name.replace("_", "-").replace("gguf-file", "gguf")


def _check_runtime_options(runtime: str, given: dict[str, Any]) -> None:
    """An option the chosen runtime would ignore is an error, not a silent no-op: another engine's own
    option (declared by that engine alone: an option several engines share is left to deploy's words),
    or measured overhead under a runtime that counts none."""
    engine = get_engine(runtime)
    owners = _engine_dests()
    for name in given:
        holders = [n for n, dests in owners.items() if name in dests]
        if len(holders) == 1 and holders[0] != runtime:
            other = get_engine(holders[0])
            raise CliError(f"{_flag(name)} is {other.article} {other.label} option and does nothing with --runtime "
                           f"{runtime}: drop it, or use --runtime {other.name}")
        if name in _OVERHEAD and not engine.counts_overhead:
            raise CliError(f"{_flag(name)} does nothing with --runtime {runtime} (which counts no overhead): drop it, "
                           "or use --runtime vllm or transformers")


def _speed_lines(e: Any) -> list[str]:
    """The speed estimate in words: always marked estimated, with its assumptions."""
    if e.decode_tokens_per_s_per_sequence is None:
        return [f"speed: {u}" for u in e.unavailable]
    lines = [f"decode (estimated): {e.decode_tokens_per_s_per_sequence:,.1f} tokens/s per sequence, "
             f"{e.decode_tokens_per_s_total:,.1f} tokens/s in total at batch {e.batch:,} and {e.context:,} tokens "
             f"({e.decode_bound} bound)"]
    if e.ttft_seconds is not None:
        lines.append(f"time to first token (estimated): {e.ttft_seconds * 1e3:,.1f} ms for {e.batch:,} prompt(s) of "
                     f"{e.prompt_tokens:,} tokens ({e.prefill_bound} bound)")
    lines += [f"speed: {u}" for u in e.unavailable]
    lines += [f"speed assumes: {a}" for a in e.assumptions]
    return lines


def _verdict_lines(d: Any, p: Any, source: Any) -> list[str]:
    """The Planner's verdict for a plan that does not fit as given (kvcalc.verdict.judge): its sentence and
    fix, e.g. "Fits if you serve with --max-model-len 208832 ..." when only vLLM's default max_model_len does
    not fit, then one ``fix:`` line per change kvcalc.fixes finds, each with its number (the Planner shows the
    same list). ``source`` says where max_model_len came from (given, the context asked for, the model's)."""
    from .fixes import fixes
    from .verdict import judge

    v = judge(d, p, source)
    return [f"verdict: {v.sentence}" + (f"; fix: {v.fix}" if v.fix else ""),
            *(f"fix: {f.text}" for f in fixes(d, p, v.longest))]


def _deployment(args: argparse.Namespace, resolved: Any) -> tuple[Any, int | None, str]:
    """(the deployment the plan command's flags describe, the context asked for). The runtime's own flags
    become its options object (``Engine.options_from_flags``); the rest are the deployment's."""
    from .capacity import deploy

    kv_dtype = None if args.kv_dtype in (None, "auto") else args.kv_dtype
    given = {k: getattr(args, k) for k in _plan_options() if getattr(args, k, None) is not None}  # the rest: defaults
    _check_runtime_options(args.runtime, given)
    lora = _lora_options(args)
    if lora is not None:
        _check_runtime_options(args.runtime, {"enable_lora": True})
        given["lora"] = lora
    given.pop("enable_lora", None)
    context = given.pop("context", None)
    if "n_gpu_layers" in given and given["n_gpu_layers"] < -1:
        given["n_gpu_layers"] = -1          # llama.cpp: any negative -ngl means all layers
    engine = get_engine(args.runtime)
    flags = {k: given.pop(k) for k in engine.option_names() if k in given}
    if "gguf_file" in given:
        given["gguf"] = _gguf_header(given.pop("gguf_file"), args)
    elif "gguf_type" in given:
        given["gguf"] = given.pop("gguf_type")

    def build(options: Any) -> Any:
        return deploy(resolved.config, gpus=args.gpus, runtime=args.runtime, dtype=args.dtype, kv_dtype=kv_dtype,
                      options=options, checkpoint_bytes=_checkpoint_bytes(args, resolved), **given)

    from .scenarios import served_options

    # the pages' default (kvcalc.scenarios.served_options): an engine that starts with one max_model_len
    # serves the context asked for as that length unless one is given; past what it accepts, the model's
    if context is not None and "max_model_len" not in flags:
        served, source = served_options({"runtime": args.runtime, **flags}, context)
        served.pop("runtime")
        if source == "context":
            try:
                return build(engine.options_from_flags(served)), context, source
            except InputError:
                return build(engine.options_from_flags(flags)), context, "model"
    return build(engine.options_from_flags(flags)), context, "given" if "max_model_len" in flags else "model"


def _apply_startup_log(args: argparse.Namespace, config: dict[str, Any]) -> tuple[Any, Any, Any]:
    """Read ``--startup-log`` and set every plan option it measures that the command line left at its
    default (the user's own flags win); the runtime follows the log's engine unless one was given."""
    from .startup_log import calibrate, calibration_argv, check_model, read_startup_log

    log = read_startup_log(args.startup_log)
    defaults = build_parser().parse_args(["plan", args.config])
    if log.engine in engine_names() and args.runtime == defaults.runtime:
        args.runtime = log.engine
    flags = calibrate(log, config, tensor_parallel_size=args.tensor_parallel_size)
    measured = build_parser().parse_args(["plan", args.config, *calibration_argv(flags)])
    chosen_gpu = {"gpu_mem_gib"} if args.gpu is not None else set()    # --gpu and --gpu-mem-gib exclude each other
    for key, value in vars(measured).items():
        if key in chosen_gpu:
            continue
        if value != getattr(defaults, key) and getattr(args, key) == getattr(defaults, key):
            setattr(args, key, value)
    return log, flags, check_model(log, config, tensor_parallel_size=args.tensor_parallel_size)


def plan_json(deployment: Any, p: Any) -> dict[str, Any]:
    """``plan --json``'s plan fields: ``p.to_dict()`` with ``overhead_parts`` (the engine's split of
    ``overhead_bytes`` into named parts, bytes per GPU, summing to it: Engine.overhead_parts) after
    ``overhead_bytes``."""
    out: dict[str, Any] = {}
    for key, value in p.to_dict().items():
        out[key] = value
        if key == "overhead_bytes":
            out["overhead_parts"] = deployment.engine.overhead_parts(deployment, p)
    return out


def _plan_command(args: argparse.Namespace) -> str:
    from .capacity import plan
    from .speed import DEFAULT_BANDWIDTH_EFFICIENCY, DEFAULT_COMPUTE_EFFICIENCY, estimate_speed

    if args.startup_log == "-" and args.config == "-":
        raise CliError("--startup-log - and CONFIG - cannot both be standard input: give one of them as a file")
    resolved = resolve_arg(args.config, offline=args.offline, revision=args.revision, timeout=args.timeout)
    startup = _apply_startup_log(args, resolved.config) if args.startup_log is not None else None
    deployment, context, source = _deployment(args, resolved)
    if getattr(args, "fit", False):
        return _fit_text(deployment, args)
    p = plan(deployment, batch=args.batch, context=context)
    speed = estimate_speed(
        deployment, p.batch, p.context, prompt_tokens=args.prompt_tokens,
        bandwidth_efficiency=DEFAULT_BANDWIDTH_EFFICIENCY if args.bandwidth_efficiency is None
        else args.bandwidth_efficiency,
        compute_efficiency=DEFAULT_COMPUTE_EFFICIENCY if args.compute_efficiency is None else args.compute_efficiency)
    from .workload.cli_flags import workload_json, workload_lines

    extra = workload_json(deployment, p, args)
    out = {**plan_json(deployment, p), **extra, "speed": speed.to_dict()}
    report = None
    if startup is not None:
        from .startup_log import startup_log_report

        report = startup_log_report(out, *startup)
        out["startup_log"] = report
    if args.json:
        return finite_json(out)
    lines = _plan_lines(deployment, p, speed, source) + workload_lines(extra)
    if report is not None:
        from .startup_log import startup_log_lines

        lines += ["", *startup_log_lines(report)]
    return "\n".join(lines)


def _fit_text(d: Any, args: argparse.Namespace) -> str:
    """``plan --fit``: kvcalc.llama_cpp.fit's answer for the GPU's memory (llama.cpp runtime only)."""
    from dataclasses import replace

    from .llama_cpp.fit import fit_lines, fit_llama_cpp, fit_llama_cpp_gpus
    from .llama_cpp.options import LlamaCppOptions

    if not isinstance(d.options, LlamaCppOptions) or d.gguf is None:
        raise CliError("--fit is llama.cpp's: give --runtime llama_cpp and the GGUF (--gguf-type or --gguf)")
    n, unified, _ = d.options.slots()
    base = replace(d.options, kv_unified=unified)
    model, margin = getattr(args, "gguf_file", None) or "MODEL.gguf", int(args.fit_target * 2**20)
    if d.gpus > 1:       # --split-mode layer over the GPUs (every layer on them; the user's -ts, else by memory)
        a = fit_llama_cpp_gpus(d.config, d.gguf, [d.gpu.memory_bytes] * d.gpus, margin_bytes=margin, n_parallel=n,
                               base=base, model=model)
    else:
        a = fit_llama_cpp(d.config, d.gguf, d.gpu.memory_bytes, margin_bytes=margin, n_parallel=n, base=base,
                          n_ctx=d.options.n_ctx, model=model)
    where = f"{d.gpus} x {d.gpu.name}" if d.gpus > 1 else d.gpu.name
    return "\n".join([f"{d.spec.model_type} on {where} ({human_bytes(d.gpu.memory_bytes)})", *fit_lines(a)])


def _longest_line(d: Any, p: Any) -> str:
    """The longest context per sequence at the plan's batch, the figure the pages show (the engine's
    ``served_longest``: under vLLM the longest ``--max-model-len`` it still starts with), and the cap of this
    run's own ``max_model_len`` where that is shorter."""
    head = f"longest context at batch {p.batch:,}: "
    if not p.max_context:
        return head + "nothing fits"
    longest = d.engine.served_longest(d, p) or p.max_context
    if longest > p.max_context:
        return head + (f"{longest:,} tokens (served with max_model_len set to it; as configured, "
                       f"{p.max_context:,} caps a request)")
    return head + f"{p.max_context:,} tokens"


def _plan_lines(deployment: Any, p: Any, speed: Any, source: str) -> list[str]:
    """The plan as text: the headline figures, the solvers, the engine's own lines, the speed estimate."""
    from .verdict import fewest_gpus_text

    fmt = human_bytes
    engine = deployment.engine
    lines = [
        f"{p.model_type} on {p.gpus} x {p.gpu} ({fmt(p.gpu_memory_bytes)} each), runtime {p.runtime}, "
        f"tp={p.tensor_parallel_size} pp={p.pipeline_parallel_size}",
        f"batch {p.batch:,} x context {p.context:,} tokens, dtype {p.dtype}, kv {p.kv_dtype}, "
        f"weights {p.weights_scheme}",
        "",
        f"weights per GPU   {fmt(p.weights_bytes):>14}   [{p.weights_quality}]",
        f"KV cache per GPU  {fmt(p.kv_bytes):>14}   [{p.kv_quality}]",
        f"overhead per GPU  {fmt(p.overhead_bytes):>14}",
        f"total per GPU     {fmt(p.total_bytes):>14}   (budget {fmt(p.budget_bytes)})",
        "",
        f"fits: {'yes' if p.fits else 'NO'}",
        *([] if p.fits else _verdict_lines(deployment, p, source)),
        _longest_line(deployment, p),
        f"largest batch at {p.context:,} tokens: {p.max_batch:,}" if p.max_batch else
        f"largest batch at {p.context:,} tokens: nothing fits",
        fewest_gpus_text(engine, p),
        f"binding constraint: {p.binding_constraint}",
    ]
    if p.host_bytes is not None:
        lines.insert(7, f"host memory       {fmt(p.host_bytes):>14}   (weights and KV -ngl leaves off the GPU)")
    lines += engine.report_lines(p)
    lines += ["", *_speed_lines(speed)]
    if not p.fits:
        lines.append("speed: estimated for the batch and context asked, which do not fit as given")
    lines += [f"warning: {w}" for w in p.warnings]
    return lines


def _gguf_header(path: str, args: argparse.Namespace) -> Any:
    """The header of a local .gguf file (kvcalc.gguf.reader: at most its 64 MiB cap read, never the tensor data),
    or of ``hf://ORG/REPO/FILE.gguf`` on the Hub (kvcalc.hub.gguf_header: one range request)."""
    import stat

    from .gguf.reader import read_gguf_header

    if path.startswith("hf://"):
        from .hub.gguf_header import fetch_gguf_header
        from .sources import token_from_env

        parts = path[len("hf://"):].split("/", 2)
        if len(parts) != 3:
            raise CliError("--gguf hf://ORG/REPO/FILE.gguf: give the repository and the file in it")
        if args.offline:
            raise CliError("--gguf hf://... needs the Hub, and --offline forbids the network")
        return fetch_gguf_header(f"{parts[0]}/{parts[1]}", parts[2], revision=args.revision, token=token_from_env(),
                                 timeout=args.timeout)
    label = f"--gguf {path[:80]}"
    try:
        fd = os.open(os.path.expanduser(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens alone
    except OSError as e:
        raise CliError(f"{label}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode):
            with os.fdopen(os.dup(fd), "rb") as f:
                return read_gguf_header(f, file_size=st.st_size)
        if stat.S_ISDIR(st.st_mode) or os.name == "nt":
            raise CliError(f"{label}: not a regular file")
        from .gguf.stream import read_stream_prefix

        # a pipe / FIFO: bounded by --timeout and the header cap
        return read_gguf_header(read_stream_prefix(fd, label, timeout=args.timeout))
    except OSError as e:
        raise CliError(f"{label}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def _colocate_command(args: argparse.Namespace) -> str:
    from .workload.cli_flags import colocate_command

    return colocate_command(args, lambda source: load_config_arg(source, offline=args.offline, revision=args.revision,
                                                                 timeout=args.timeout))


COMMANDS = {"kv": _kv_command, "plan": _plan_command, "colocate": _colocate_command}


def _print_out(text: str) -> None:
    """``text`` and a newline on stdout, all of it or BrokenPipeError: a short write (the reader
    went away mid-way, which Python's buffered stdout reports as a smaller count, not an error) is
    retried with the rest, which then fails with EPIPE."""
    out = getattr(sys.stdout, "buffer", None)
    if out is None:                                   # a text-only stand-in (StringIO)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        return
    sys.stdout.flush()
    data = memoryview((text + "\n").encode(sys.stdout.encoding or "utf-8", errors="backslashreplace"))
    while data:
        written = out.write(data)
        out.flush()
        if not written:
            raise BrokenPipeError("stdout accepted nothing")
        data = data[written:]


def _stdout_gone() -> int:
    """The reader of stdout closed it (``| head``): point stdout at /dev/null so the interpreter's
    final flush cannot fail again, and exit quietly with :data:`EXIT_BROKEN_PIPE`."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    return EXIT_BROKEN_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status (see the module docstring)."""
    logger = logging.getLogger("kvcalc")
    handler = _NoteHandler(logging.WARNING)
    logger.addHandler(handler)
    try:
        args = build_parser().parse_args(argv)
        text = COMMANDS[args.command](args)
        _print_out(terminal_safe(text))
        return 0
    except BrokenPipeError:
        return _stdout_gone()
    except (CliError, KVCalcError) as e:
        print(terminal_safe(f"error: {e}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        logger.removeHandler(handler)
