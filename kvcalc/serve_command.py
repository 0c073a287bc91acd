"""The command that serves a plan: ``vllm serve <model> ...``, or the transformers calls.

``vllm_serve(model, deployment)`` writes only the flags that differ from vLLM 0.33's defaults
(vllm/engine/arg_utils.py ``EngineArgs``: tensor / pipeline parallel 1, ``gpu_memory_utilization``
0.9, ``kv_cache_dtype`` auto, block size / ``max_num_seqs`` / ``max_num_batched_tokens`` from the
platform, no speculative decoding, no LoRA, no CPU offload), plus ``--max-model-len`` always (its
default is the model's maximum, which often does not fit). Flag names are those
kvcalc.vllm_command reads, so ``parse_vllm_serve`` of the line gives the deployment's options back
(``deploy_options``). What the line cannot say (a weights or KV dtype vLLM has no flag for) is in
``notes``.

``transformers_call(model, deployment, batch, context)``: the ``from_pretrained`` and ``generate``
arguments of the same plan (``device_map="auto"`` splits layers over the GPUs, as the plan assumes).
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, replace

from .deployment import Deployment
from .vllm import DEFAULT_GPU_MEMORY_UTILIZATION
from .vllm.defaults import DEFAULT_VLLM_VERSION, VLLM_KV_CACHE_DTYPES
from .vllm.lora import LoraConfig
from .vllm_command import ALLOW_LONG_ENV, DTYPE_QUANTIZATION


@dataclass(frozen=True)
class ServeCommand:
    """``text``: the command or code; ``language``: for display ('bash', 'python'); ``notes``: what it cannot say."""

    text: str
    language: str
    notes: tuple[str, ...] = ()


def _lora_flags(lora: LoraConfig) -> list[str]:
    d = LoraConfig()
    out = ["--enable-lora"]
    if lora.max_loras != d.max_loras:
        out += ["--max-loras", str(lora.max_loras)]
    if lora.max_lora_rank != d.max_lora_rank:
        out += ["--max-lora-rank", str(lora.max_lora_rank)]
    if lora.max_cpu_loras is not None:
        out += ["--max-cpu-loras", str(lora.max_cpu_loras)]
    if lora.fully_sharded_loras:
        out.append("--fully-sharded-loras")
    if lora.lora_dtype != d.lora_dtype:
        out += ["--lora-dtype", lora.lora_dtype]
    return out


def _weights_flags(dtype: str | None) -> tuple[list[str], list[str]]:
    """(flags, notes) for the weights dtype chosen in kvcalc (None: the checkpoint's, no flag)."""
    if dtype is None:
        return [], []
    if dtype in DTYPE_QUANTIZATION:
        q = DTYPE_QUANTIZATION[dtype]
        note = [] if q == "fp8" else [f"--quantization {q}: serve an {q.upper()} (4-bit) checkpoint of this model"]
        return ["--quantization", q], note
    if dtype in ("float16", "bfloat16", "float32"):
        return ["--dtype", dtype], []
    return [], [f"weights {dtype}: vLLM has no flag that quantizes to it; serve a checkpoint stored in {dtype}"]


def _default_block(d: Deployment) -> int:
    """The block size vLLM picks when ``--block-size`` is not given (the attention backend's, kvcalc.vllm)."""
    return replace(d, vllm=replace(d.vllm, block_size=None)).vllm_plan().block_size


def vllm_serve(model: str, d: Deployment, max_model_len: int | None = None) -> ServeCommand:
    """The ``vllm serve`` line for deployment ``d`` (module docstring); ``max_model_len`` defaults to the
    one the deployment's vLLM budget uses."""
    o = d.vllm
    words = ["vllm", "serve", model]
    notes: list[str] = []
    if d.tp > 1:
        words += ["--tensor-parallel-size", str(d.tp)]
    if d.pp > 1:
        words += ["--pipeline-parallel-size", str(d.pp)]
    words += ["--max-model-len", str(max_model_len or d.vllm_plan().max_model_len)]
    if o.gpu_memory_utilization != DEFAULT_GPU_MEMORY_UTILIZATION:
        words += ["--gpu-memory-utilization", f"{o.gpu_memory_utilization:g}"]
    flags, more = _weights_flags(d.dtype)
    words += flags
    notes += more
    if d.kv_dtype is not None:
        if d.kv_dtype in VLLM_KV_CACHE_DTYPES:
            words += ["--kv-cache-dtype", d.kv_dtype]
        else:
            notes.append(f"KV cache {d.kv_dtype}: not a vLLM --kv-cache-dtype (use fp8 or auto)")
    block = None if o.block_size is None or _default_block(d) == o.block_size else o.block_size
    for flag, value in (("--block-size", block), ("--max-num-seqs", o.max_num_seqs),
                        ("--max-num-batched-tokens", o.max_num_batched_tokens),
                        ("--kv-cache-memory-bytes", o.kv_cache_memory)):
        if value is not None:
            words += [flag, str(value)]
    if o.cpu_offload_gb:
        words += ["--cpu-offload-gb", f"{o.cpu_offload_gb:g}"]
    if o.speculative_config is not None:
        sc = o.speculative_config
        words += ["--speculative-config", json.dumps({"method": sc.method,
                                                       "num_speculative_tokens": sc.num_speculative_tokens})]
    if o.lora is not None:
        words += _lora_flags(o.lora)
    if o.vllm_version != DEFAULT_VLLM_VERSION:
        notes.append(f"planned with vLLM {o.vllm_version}'s rules")
    line = " ".join(shlex.quote(w) for w in words)
    if o.allow_long_max_model_len:
        line = f"{ALLOW_LONG_ENV}=1 {line}"
    return ServeCommand(line, "bash", tuple(notes))


def transformers_call(model: str, d: Deployment, batch: int, context: int) -> ServeCommand:
    """``AutoModelForCausalLM.from_pretrained`` + ``generate`` for ``batch`` prompts filling ``context`` tokens."""
    dtype = d.model_dtype.name
    lines = ["import torch",
             "from transformers import AutoModelForCausalLM",
             "",
             f"model = AutoModelForCausalLM.from_pretrained({model!r}, dtype=torch.{dtype}"
             + (', device_map="auto")' if d.gpus > 1 else ', device_map="cuda")'),
             f"# input_ids: {batch:,} prompts, shape [{batch}, prompt_len]; each sequence ends at {context:,} tokens",
             f"out = model.generate(input_ids, max_length={context}, do_sample=False)"]
    notes = [] if d.gpus == 1 else [f'device_map="auto" splits the layers over the {d.gpus} GPUs']
    return ServeCommand("\n".join(lines), "python", tuple(notes))
