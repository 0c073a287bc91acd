"""Read an SGLang or TensorRT-LLM launch command into plan options (the flags whose meaning kvcalc models).

``parse_engine_command("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 --mem-fraction-static 0.8")``
-> ``EngineCommand(runtime="sglang", model="Qwen/Qwen3-8B", options={"tensor_parallel_size": 2,
"mem_fraction_static": 0.8}, ignored=())``; ``trtllm-serve MODEL --tp_size 2 --max_seq_len 8192
--kv_cache_free_gpu_memory_fraction 0.85`` -> runtime "tensorrt_llm". The result has the shape of
kvcalc.vllm_command.VllmCommand plus the runtime; the options are :func:`kvcalc.deployment.deploy`'s
keywords. Flags kvcalc does not model are listed in ``ignored`` (TensorRT-LLM's
``--extra_llm_api_options`` YAML file is not read: its ``kv_cache_config`` keys are ignored with it).
A leading ``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1`` sets ``allow_overwrite_longer_context_len``.
``llama-server ...`` / ``llama-cli ...`` lines go to kvcalc.llama_cpp.command.parse_llama_command: runtime
"llama_cpp", options ``{"llama_cpp": LlamaCppOptions, "gguf": "Q4_K_M"}`` (the file type from an ``-hf
repo:QUANT`` tail, when there is one).

Flag names: SGLang's ``ServerArgs.add_cli_args`` (python/sglang/srt/server_args.py);
``trtllm-serve``'s click options (tensorrt_llm/commands/serve.py), which use underscores; both
spellings are read for either engine.
"""
from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .command_line import env_prefix, scan_flags, split_command
from .engines.base import Option
from .engines.readers import positive_int as _int
from .errors import InputError
from .llama_cpp.command import parse_llama_command
from .sglang import LONG_CONTEXT_ENV
from .sglang.options import DECLARATIONS as SGLANG_OPTIONS
from .trtllm.options import DECLARATIONS as TRTLLM_OPTIONS


def _auto_none(text: str) -> str | None:
    return None if text == "auto" else text


def _trt_kv_dtype(text: str) -> str | None:
    return None if text == "auto" else "fp8_e4m3" if text == "fp8" else text


Flags = dict[str, tuple[str, Callable[[str], Any]]]
"""flag (dashes; underscores are read as dashes) -> (deploy keyword, parser)."""


def _declared(declarations: tuple[Option, ...]) -> Flags:
    """The value flags an engine declares (kvcalc.engines.base.Option), each read by ``Option.read`` (its kind
    within its bounds, or its ``parse``). Switches are left to :data:`_SWITCHES` (ignored)."""
    return {flag.replace("_", "-"): (o.dest, o.read)
            for o in declarations if o.command and o.kind in ("int", "float") for flag in o.flags}


# the deployment's flags in each engine's spelling; the engine's own options from its declarations
_SGLANG: Flags = {
    "--model-path": ("model", str), "--model": ("model", str),
    "--tp-size": ("tensor_parallel_size", _int), "--tp": ("tensor_parallel_size", _int),
    "--tensor-parallel-size": ("tensor_parallel_size", _int),
    "--pp-size": ("pipeline_parallel_size", _int), "--pipeline-parallel-size": ("pipeline_parallel_size", _int),
    **_declared(SGLANG_OPTIONS),
    "--kv-cache-dtype": ("kv_dtype", _auto_none),
    "--dtype": ("dtype", _auto_none),
}
_TRTLLM: Flags = {
    "--model": ("model", str),
    "--tp-size": ("tensor_parallel_size", _int), "--pp-size": ("pipeline_parallel_size", _int),
    **_declared(TRTLLM_OPTIONS),
    "--kv-cache-dtype": ("kv_dtype", _trt_kv_dtype),
}
_SWITCHES = {"--trust-remote-code", "--enable-metrics", "--disable-radix-cache", "--disable-cuda-graph",
             "--enable-p2p-check", "--enable-dp-attention", "--trust_remote_code", "--enable-torch-compile",
             "--disable-overlap-schedule", "--enable-chunked-prefill", "--enable_chunked_prefill"}


@dataclass(frozen=True)
class _Syntax:
    """How one engine's launch line is read: its runtime, flag table, whether the model is the first word
    after the program (``trtllm-serve MODEL``) and whether SGLang's long-context variable applies."""

    runtime: str
    flags: Flags
    model_first: bool = False
    long_context_env: bool = False


_SGLANG_SYNTAX = _Syntax("sglang", _SGLANG, long_context_env=True)
_TRTLLM_SYNTAX = _Syntax("tensorrt_llm", _TRTLLM, model_first=True)


@dataclass(frozen=True)
class EngineCommand:
    runtime: str
    model: str | None
    options: dict[str, Any] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()


def _program(words: list[str]) -> tuple[_Syntax | None, int] | None:
    """(the engine's syntax, index of the first word after the program) for a launch command (syntax None:
    llama.cpp's, read by kvcalc.llama_cpp.command), else None."""
    if words[:1] == ["trtllm-serve"]:
        return _TRTLLM_SYNTAX, 1 + (words[1:2] == ["serve"])
    if words[:2] == ["sglang", "serve"]:
        return _SGLANG_SYNTAX, 2
    if words and words[0].rsplit("/", 1)[-1].removesuffix(".exe") in LLAMA_PROGRAMS:
        return None, 1
    for i, w in enumerate(words[:3]):
        if w == "-m" and i + 1 < len(words) and words[i + 1] in ("sglang.launch_server", "sglang.launch_server.py"):
            return _SGLANG_SYNTAX, i + 2
    return None


LLAMA_PROGRAMS = ("llama-server", "llama-cli")


def _llama(command: str) -> EngineCommand:
    """A llama.cpp command line (kvcalc.llama_cpp.command) as an EngineCommand."""
    parsed = parse_llama_command(command)
    o = parsed.options
    options: dict[str, Any] = {"llama_cpp": o}
    if o.hf_quant:
        options["gguf"] = o.hf_quant
    return EngineCommand(runtime="llama_cpp", model=o.model, options=options, ignored=parsed.ignored)


def parse_engine_command(command: str) -> EngineCommand:
    """Parse ``python -m sglang.launch_server ...`` / ``sglang serve ...`` or ``trtllm-serve MODEL ...``."""
    if not isinstance(command, str) or not command.strip():
        raise InputError("paste a 'python -m sglang.launch_server ...', 'trtllm-serve ...' or 'llama-server ...' "
                         "command")
    env, words = env_prefix(split_command(command))
    options: dict[str, Any] = {}
    if env.get(LONG_CONTEXT_ENV, "").strip().lower() in ("1", "true"):
        options["allow_overwrite_longer_context_len"] = True
    found = _program(words)
    if found is None:
        raise InputError("not an SGLang or TensorRT-LLM launch command (nor llama.cpp's): start with 'python -m "
                         "sglang.launch_server', 'sglang serve', 'trtllm-serve', 'llama-server' or 'llama-cli'")
    syntax, i = found
    if syntax is None:
        return _llama(" ".join(shlex.quote(w) for w in words))
    flags = syntax.flags
    model: str | None = None
    if syntax.model_first and i < len(words) and not words[i].startswith("-"):
        model, i = words[i], i + 1
    ignored: list[str] = []
    for kind, name, value in scan_flags(words, i, lambda f: f.replace("_", "-") in flags, lambda f: False,
                                        _SWITCHES.__contains__):
        if kind != "value":
            ignored.append(name)
            continue
        assert value is not None
        key, parse = flags[name.replace("_", "-")]
        try:
            parsed = parse(value)
        except ValueError as e:
            why = f": {e}" if str(e).startswith("must be") else ""
            raise InputError(f"{name} has an invalid value '{value[:30]}'{why}") from None
        if key == "model":
            model = parsed
        else:
            options[key] = parsed
    if options.get("allow_overwrite_longer_context_len") and not syntax.long_context_env:
        options.pop("allow_overwrite_longer_context_len")
        ignored.append(LONG_CONTEXT_ENV)
    return EngineCommand(runtime=syntax.runtime, model=model, options=options, ignored=tuple(ignored))
