"""vLLM's engine options kvcalc models, under vLLM's names, declared once (``vllm serve --...``).

:data:`DECLARATIONS` lists each option's flag, type, unit, bounds, default and help (the CLI's
vLLM flags are generated from them); :class:`VllmOptions` holds them; :func:`vllm_options`
validates flat values into one (InputError naming the option and its bound). Defaults follow
vLLM 0.33's ``EngineArgs`` (vllm/engine/arg_utils.py); ``None`` = vLLM picks per GPU / backend.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engines.base import Option
from ..engines.readers import human_readable_int
from ..errors import InputError
from ..limits import MAX_CONTEXT, check_count
from .budget import AUTO_FIT
from .defaults import DEFAULT_BLOCK_SIZE, DEFAULT_GPU_MEMORY_UTILIZATION, DEFAULT_VLLM_VERSION, ENGINES, engine
from .lora import LoraConfig, check_lora_config
from .speculative import SpeculativeConfig, parse_speculative_config

MAX_BLOCK_SIZE = 1 << 16
MAX_KV_CACHE_MEMORY = 1 << 50
MAX_OFFLOAD_GIB = float(1 << 20)


@dataclass(frozen=True)
class VllmOptions:
    """vLLM's own engine options, under vLLM's names (``vllm serve --gpu-memory-utilization`` ...).

    ``None`` means vLLM's default for this GPU (kvcalc.vllm: ``EngineArgs`` batch defaults; the
    attention backend's block size). ``max_model_len`` (``--max-model-len``; None = the model's derived
    maximum); ``kv_cache_memory`` is bytes (``--kv-cache-memory``), replacing
    the whole budget. ``vllm_version`` picks the release whose rules apply (kvcalc.vllm.defaults.ENGINES).
    ``allow_long_max_model_len`` is ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``. ``speculative_config`` is
    ``--speculative-config`` (kvcalc.vllm.speculative: the drafter's KV layers); ``cpu_offload_gb``
    ``--cpu-offload-gb`` (GiB of weights per GPU vLLM keeps in CPU memory); ``lora`` ``--enable-lora`` with
    its ``--max-loras`` / ``--max-lora-rank`` / ... (kvcalc.vllm.lora: bytes added to the weights; None = off)."""

    gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION
    block_size: int | None = None
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    kv_cache_memory: int | None = None
    vllm_version: str = DEFAULT_VLLM_VERSION
    allow_long_max_model_len: bool = False
    speculative_config: SpeculativeConfig | None = None
    cpu_offload_gb: float = 0.0
    auto_fit_max_model_len: bool = False    # --max-model-len -1 / auto (vLLM 0.33): fit it to the KV memory
    lora: LoraConfig | None = None
    max_model_len: int | None = None


def read_max_model_len(text: str) -> int:
    """``--max-model-len``'s text as vLLM 0.33 reads it: a human-readable int ('32k'), or -1 / 'auto' (auto-fit)."""
    return AUTO_FIT if text.strip() in ("-1", "auto") else human_readable_int(text)


DECLARATIONS: tuple[Option, ...] = (
    Option("max_model_len", ("--max-model-len",), "length", "tokens per request (-1 or auto: vLLM 0.33 fits it "
           "to the KV memory)", "tokens", -1, MAX_CONTEXT, None, "mml", cli=False, parse=read_max_model_len),
    Option("gpu_memory_utilization", ("--gpu-memory-utilization",), "float",
           "vLLM: share of GPU memory to use (default 0.9)", "fraction", 0, 1, DEFAULT_GPU_MEMORY_UTILIZATION, "util"),
    Option("block_size", ("--block-size",), "int",
           "vLLM: tokens per KV block (default: the attention backend's, 16; 64 for fp8 MLA)", "tokens", 1,
           MAX_BLOCK_SIZE, None, "block", usual=DEFAULT_BLOCK_SIZE),
    Option("max_num_batched_tokens", ("--max-num-batched-tokens",), "int",
           "vLLM: tokens in one scheduler step (default: by GPU and usage context)", "tokens", 1, MAX_CONTEXT,
           None, "mnbt", parse=human_readable_int),
    Option("max_num_seqs", ("--max-num-seqs",), "int", "vLLM: requests run at once (default: by GPU)", "requests",
           1, 1 << 20, None, "seqs"),
    Option("kv_cache_memory", ("--kv-cache-memory", "--kv-cache-memory-bytes"), "int",
           "KV-cache bytes per GPU (replaces the budget; vLLM 0.33: --kv-cache-memory-bytes)", "bytes", 1,
           MAX_KV_CACHE_MEMORY, None, None, parse=human_readable_int),
    Option("vllm_version", ("--vllm-version",), "text",
           "vLLM release whose rules apply: 0.33 (default) or 0.10 (the releases before)", "", None, None,
           DEFAULT_VLLM_VERSION, "vllm_ver", (DEFAULT_VLLM_VERSION, *sorted(set(ENGINES) - {DEFAULT_VLLM_VERSION})),
           command=False),
    Option("speculative_config", ("--speculative-config",), "json",
           'vLLM: speculative decoding, e.g. \'{"method": "mtp", "num_speculative_tokens": 1}\'', "", None, None,
           None, "spec"),
    Option("cpu_offload_gb", ("--cpu-offload-gb",), "float", "vLLM: GiB of weights per GPU kept in CPU memory",
           "GiB", 0, MAX_OFFLOAD_GIB, 0.0, "offload"),
    Option("allow_long_max_model_len", ("--allow-long-max-model-len",), "bool",
           "vLLM: accept a max-model-len above the model's maximum (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)", "", None,
           None, False, "long_mml", command=False),
    Option("lora", ("--enable-lora",), "json", "vLLM: LoRA adapters (kvcalc.vllm.lora.LoraConfig fields); the CLI "
           "builds it from --enable-lora, --max-loras, --max-lora-rank, ...", "", None, None, None, None,
           cli=False, command=False),
)
"""vLLM's options, declared once (kvcalc.engines.base.Option)."""


def check_gib(name: str, value: Any, hi: float) -> float:
    """A size in GiB (a number in [0, ``hi``]), else InputError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= hi:
        raise InputError(f"{name} must be a number between 0 and {hi:g}, got {value!r:.30}")
    return float(value)


def check_utilization(value: Any) -> float:
    """vLLM's ``gpu_memory_utilization``: a number in (0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise InputError(f"gpu_memory_utilization must be in (0, 1], got {value!r:.20}")
    return float(value)


def check_max_len(max_model_len: Any, vllm_version: str | None) -> tuple[int | None, bool]:
    """(max_model_len, auto-fit): ``-1`` is vLLM 0.33's auto-fit (``vllm_version`` None: not vLLM)."""
    auto_fit = max_model_len == AUTO_FIT and not isinstance(max_model_len, bool)
    if auto_fit:
        if vllm_version is None or engine(vllm_version).version == "0.10":
            raise InputError("max_model_len -1 (auto-fit) is vLLM 0.33's: use runtime 'vllm' (vllm_version 0.33)")
        return None, True
    if max_model_len is not None:
        max_model_len = check_count("max_model_len", max_model_len, 1, MAX_CONTEXT)
    return max_model_len, False


def vllm_options(gpu_memory_utilization: Any = DEFAULT_GPU_MEMORY_UTILIZATION, block_size: Any = None,
                 max_num_batched_tokens: Any = None, max_num_seqs: Any = None, kv_cache_memory: Any = None,
                 vllm_version: Any = DEFAULT_VLLM_VERSION, allow_long_max_model_len: Any = False,
                 speculative_config: Any = None, cpu_offload_gb: Any = 0.0, lora: Any = None,
                 max_model_len: Any = None) -> VllmOptions:
    """Validated :class:`VllmOptions` from flat values (InputError naming the option and its bound)."""
    version = engine(vllm_version).version
    mml, auto_fit = check_max_len(max_model_len, version)
    return VllmOptions(
        gpu_memory_utilization=check_utilization(gpu_memory_utilization),
        block_size=None if block_size is None else check_count("block_size", block_size, 1, MAX_BLOCK_SIZE),
        max_num_batched_tokens=None if max_num_batched_tokens is None else check_count(
            "max_num_batched_tokens", max_num_batched_tokens, 1, MAX_CONTEXT),
        max_num_seqs=None if max_num_seqs is None else check_count("max_num_seqs", max_num_seqs, 1, 1 << 20),
        kv_cache_memory=None if kv_cache_memory is None else check_count(
            "kv_cache_memory", kv_cache_memory, 1, MAX_KV_CACHE_MEMORY),
        vllm_version=version, allow_long_max_model_len=bool(allow_long_max_model_len),
        speculative_config=parse_speculative_config(speculative_config),
        cpu_offload_gb=check_gib("cpu_offload_gb", cpu_offload_gb, MAX_OFFLOAD_GIB),
        auto_fit_max_model_len=auto_fit, lora=check_lora_config(lora), max_model_len=mml)
