"""Read a ``vllm serve`` command line into plan options (the flags whose meaning kvcalc models).

``parse_vllm_serve("vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 -tp 2")`` ->
``VllmCommand(model="meta-llama/Llama-3.1-8B", options={"max_model_len": 32768,
"tensor_parallel_size": 2}, ignored=())``. Flags kvcalc does not model are listed in ``ignored``.
``--enable-lora`` and its flags become one ``lora`` option (kvcalc.vllm.lora.LoraConfig fields); a
leading ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`` sets ``allow_long_max_model_len``. ``--quantization`` is
checked against :data:`QUANTIZATION_DTYPES` (the weight dtype of kvcalc's table each method stores);
:func:`deploy_options` turns a parsed command into ``kvcalc.deploy`` keyword options.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .command_line import env_prefix, scan_flags, split_command
from .engines.readers import fraction, human_readable_int, json_object, positive_int
from .errors import InputError
from .vllm.options import DECLARATIONS as VLLM_OPTIONS

__all__ = ["DEPLOY_KEYS", "FLAGS", "QUANTIZATION_DTYPES", "VllmCommand", "deploy_options", "fraction",
           "human_readable_int", "json_object", "parse_vllm_serve", "positive_int", "weights_dtype"]


def _max_model_len(text: str) -> int:
    """``--max-model-len``: a human-readable int. -1 / 'auto' (0.33's auto-fit) is refused here: the
    Planner's options hold a length (``kvcalc plan --max-model-len auto`` and ``deploy(max_model_len=-1)``
    model it)."""
    if text.strip() in ("-1", "auto"):
        raise ValueError
    return human_readable_int(text)


def _kv_dtype(text: str) -> str | None:
    return None if text == "auto" else text


def _dtype(text: str) -> str | None:
    return None if text == "auto" else text


def _lora_rank(text: str) -> int:
    from .vllm.lora import MAX_LORA_RANKS

    value = int(text)
    if value not in MAX_LORA_RANKS:
        raise ValueError
    return value


def _lora_dtype(text: str) -> str:
    from .vllm.lora import LORA_DTYPES

    if text not in LORA_DTYPES:
        raise ValueError
    return text


QUANTIZATION_DTYPES: dict[str, str | None] = {
    "awq": "int4", "awq_marlin": "int4", "gptq": "int4", "gptq_marlin": "int4", "gptq_marlin_24": "int4",
    "bitsandbytes": "int4", "fp8": "fp8_e4m3", "fbgemm_fp8": "fp8_e4m3", "ptpc_fp8": "fp8_e4m3",
    "mxfp4": None, "compressed-tensors": None, "modelopt": None, "modelopt_fp4": None,
}
"""``--quantization`` (vllm/model_executor/layers/quantization/__init__.py ``QUANTIZATION_METHODS``) -> the
weight dtype kvcalc plans it with (kvcalc.dtypes; kvcalc.weights gives int4 the 4-bit + fp16 scales per 128
layout AWQ / GPTQ use by default, and bitsandbytes' in-flight 4-bit nearly the same bytes). None: the
format is the checkpoint's own (its config's ``quantization_config`` decides, as vLLM reads it)."""
DTYPE_QUANTIZATION = {"int4": "awq", "fp8_e4m3": "fp8"}
"""The ``--quantization`` written for a weights dtype chosen in kvcalc (the inverse of the table above)."""


def _quantization(text: str) -> str:
    if text not in QUANTIZATION_DTYPES:
        raise InputError(f"--quantization {text[:30]!r} is not modelled; known: {', '.join(QUANTIZATION_DTYPES)}")
    return text


_PASTE_PARSERS: dict[str, Callable[[str], Any]] = {"max_model_len": _max_model_len}
"""Where the paste box reads a declared option differently from vLLM (``--max-model-len -1`` is refused)."""


def _declared() -> dict[str, tuple[str, Callable[[str], Any]]]:
    """vLLM's own value flags from its option declarations (kvcalc.vllm.options.DECLARATIONS: spellings, kind,
    bounds, ``parse``); kvcalc-only flags (``command=False``) and switches are not read here."""
    return {flag: (o.dest, _PASTE_PARSERS.get(o.dest, o.read)) for o in VLLM_OPTIONS
            if o.command and o.kind != "bool" for flag in o.flags}


# flag -> (plan option, parser): the deployment's flags in vLLM's spelling, then vLLM's own options
FLAGS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--tensor-parallel-size": ("tensor_parallel_size", positive_int), "-tp": ("tensor_parallel_size", positive_int),
    "--pipeline-parallel-size": ("pipeline_parallel_size", positive_int),
    "-pp": ("pipeline_parallel_size", positive_int),
    "--kv-cache-dtype": ("kv_dtype", _kv_dtype),
    "--dtype": ("dtype", _dtype),
    "--model": ("model", str),
    **_declared(),
    "--max-loras": ("max_loras", positive_int),
    "--max-lora-rank": ("max_lora_rank", _lora_rank),
    "--max-cpu-loras": ("max_cpu_loras", positive_int),
    "--lora-dtype": ("lora_dtype", _lora_dtype),
    "--quantization": ("quantization", _quantization), "-q": ("quantization", _quantization),
}
LORA_OPTIONS = ("max_loras", "max_lora_rank", "max_cpu_loras", "lora_dtype", "fully_sharded_loras")
"""Flags gathered into the ``lora`` option (vLLM ignores them without ``--enable-lora``)."""
SWITCHES = {"--enable-lora": "enable_lora", "--fully-sharded-loras": "fully_sharded_loras",
            "--enable-prefix-caching": "enable_prefix_caching"}
"""Boolean flags kvcalc models (present = on). Prefix caching is vLLM 0.33's default and changes no
memory figure (kvcalc.vllm.hybrid models its ``align`` mode, on); ``--no-enable-prefix-caching`` sets it False."""
OFF_SWITCHES = {"--no-enable-prefix-caching": "enable_prefix_caching"}
ALLOW_LONG_ENV = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
BOOLEAN_FLAGS = {"--enforce-eager", "--trust-remote-code", "--disable-log-requests",
                 "--enable-chunked-prefill", "--disable-log-stats"}


@dataclass(frozen=True)
class VllmCommand:
    """A parsed command: the model id (or path), the options under kvcalc's names, the flags not modelled."""

    model: str | None
    options: dict[str, Any] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()


def parse_vllm_serve(command: str) -> VllmCommand:
    """Parse ``vllm serve MODEL [flags]`` (also ``python -m vllm.entrypoints.openai.api_server --model M``)."""
    if not isinstance(command, str) or not command.strip():
        raise InputError("paste a 'vllm serve ...' command")
    env, words = env_prefix(split_command(command))
    model: str | None = None
    options: dict[str, Any] = {}
    ignored: list[str] = []
    if ALLOW_LONG_ENV in env:
        options["allow_long_max_model_len"] = env[ALLOW_LONG_ENV].strip().lower() in ("1", "true")
    i = 0
    if words[:2] == ["vllm", "serve"]:
        i = 2
        if i < len(words) and not words[i].startswith("-"):
            model, i = words[i], i + 1
    switch = {**{k: (v, True) for k, v in SWITCHES.items()}, **{k: (v, False) for k, v in OFF_SWITCHES.items()}}
    for kind, name, value in scan_flags(words, i, FLAGS.__contains__, switch.__contains__,
                                        BOOLEAN_FLAGS.__contains__, negative_values=True):
        if kind == "switch":
            options[switch[name][0]] = switch[name][1]
        elif kind == "ignored":
            ignored.append(name)
        else:
            assert value is not None
            key, parse = FLAGS[name]
            try:
                parsed = parse(value)
            except InputError:
                raise
            except ValueError as e:
                why = f": {e}" if str(e).startswith("must be") else ""
                raise InputError(f"{name} has an invalid value '{value[:30]}'{why}") from None
            if key == "model":
                model = parsed
            else:
                options[key] = parsed
    lora = {k: options.pop(k) for k in LORA_OPTIONS if k in options}
    if options.pop("enable_lora", False):
        options["lora"] = lora
    elif lora:
        ignored += [f"--{k.replace('_', '-')} (without --enable-lora)" for k in lora]
    return VllmCommand(model=model, options=options, ignored=tuple(ignored))


VLLM_DTYPE_ALIASES = {"half": "float16", "float": "float32"}
"""``--dtype`` words vLLM takes beside the dtype names (vllm/config/model.py ``_STR_DTYPE_TO_TORCH_DTYPE``)."""


def weights_dtype(options: dict[str, Any]) -> str | None:
    """The kvcalc weights dtype a parsed command asks for: ``--quantization`` (:data:`QUANTIZATION_DTYPES`),
    else ``--dtype`` (vLLM's model dtype, which the unquantized weights are stored in), else None (the
    checkpoint's)."""
    if options.get("quantization"):
        return QUANTIZATION_DTYPES[options["quantization"]]
    dtype = options.get("dtype")
    return None if dtype is None else VLLM_DTYPE_ALIASES.get(dtype, dtype)


DEPLOY_KEYS = ("max_model_len", "gpu_memory_utilization", "tensor_parallel_size", "pipeline_parallel_size",
               "kv_dtype", "max_num_seqs", "max_num_batched_tokens", "block_size", "kv_cache_memory",
               "speculative_config", "cpu_offload_gb", "lora", "allow_long_max_model_len")
"""Parsed options that are ``kvcalc.deploy`` keyword options under the same name."""


def deploy_options(command: VllmCommand) -> dict[str, Any]:
    """``kvcalc.deploy`` keyword options for a parsed command: vLLM's own under their names, the weights
    dtype (:func:`weights_dtype`) and ``gpus`` = tensor x pipeline parallel size; ``runtime`` 'vllm'."""
    o = command.options
    out: dict[str, Any] = {k: o[k] for k in DEPLOY_KEYS if k in o and o[k] is not None}
    out["dtype"] = weights_dtype(o)
    out["gpus"] = o.get("tensor_parallel_size", 1) * o.get("pipeline_parallel_size", 1)
    out["runtime"] = "vllm"
    return out
