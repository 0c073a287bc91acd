"""The command that serves a plan: ``vllm serve <model> ...``, or the transformers calls.

``vllm_serve(model, deployment)`` writes only the flags that differ from vLLM 0.33's defaults
(vllm/engine/arg_utils.py ``EngineArgs``: tensor / pipeline parallel 1, ``gpu_memory_utilization``
0.9, ``kv_cache_dtype`` auto, block size / ``max_num_seqs`` / ``max_num_batched_tokens`` from the
platform, no speculative decoding, no LoRA, no CPU offload), plus ``--max-model-len`` always (its
default is the model's maximum, which often does not fit). Flag names are those
kvcalc.vllm_command reads, so ``parse_vllm_serve`` of the line gives the deployment's options back
(``deploy_options``). What the line cannot say (a weights or KV dtype vLLM has no flag for) is in
``notes``.

``sglang_launch`` / ``trtllm_serve`` / ``llama_server`` write the engines' own launch lines for an
engine deployment, again only the options that differ from the engine's defaults (kvcalc.sglang,
kvcalc.trtllm, kvcalc.llama_cpp), under the flag names kvcalc.engine_commands reads back
(``parse_engine_command`` of the line gives the deployment's options back). TensorRT-LLM's
``KvCacheConfig`` fields that ``trtllm-serve`` has no flag for (``max_tokens``, ``tokens_per_block``,
``dtype``) go in the ``--extra_llm_api_options`` YAML file, written before the line.

A plan whose weights must come quantized (``int4``: ``--quantization awq`` reads an AWQ checkpoint, it does not
make one) names the known AWQ repository of the model or a local directory to quantize into, with a note
(kvcalc.checkpoints.checkpoint_to_serve).

``transformers_call(model, deployment, batch, context)``: the ``from_pretrained`` and ``generate``
arguments of the same plan (``device_map="auto"`` splits layers over the GPUs, as the plan assumes).
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, replace

from .checkpoints import checkpoint_to_serve
from .deployment import Deployment
from .engines.readers import list_text
from .llama_cpp.options import DECLARATIONS as LLAMA_OPTIONS
from .llama_cpp.options import LlamaCppOptions
from .sglang.options import DECLARATIONS as SGLANG_OPTIONS
from .trtllm.options import serve_flag
from .vllm import DEFAULT_GPU_MEMORY_UTILIZATION
from .vllm.defaults import DEFAULT_VLLM_VERSION, VLLM_KV_CACHE_DTYPES
from .vllm.deployed import startup_plan
from .vllm.lora import LoraConfig
from .vllm.options import DECLARATIONS as VLLM_OPTIONS
from .vllm_command import ALLOW_LONG_ENV, DTYPE_QUANTIZATION

_VLLM = {o.dest: o for o in VLLM_OPTIONS}
"""vLLM's option declarations by field: the printer takes each flag's spelling from them (TensorRT-LLM's:
kvcalc.trtllm.options.serve_flag)."""


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
        return ["--quantization", q], []      # the checkpoint it reads: kvcalc.checkpoints
    if dtype in ("float16", "bfloat16", "float32"):
        return ["--dtype", dtype], []
    return [], [f"weights {dtype}: vLLM has no flag that quantizes to it; serve a checkpoint stored in {dtype}"]


def _default_block(d: Deployment) -> int:
    """The block size vLLM picks when ``--block-size`` is not given (the attention backend's, kvcalc.vllm)."""
    return startup_plan(replace(d, options=replace(d.vllm, block_size=None))).block_size


def vllm_serve(model: str, d: Deployment, max_model_len: int | None = None) -> ServeCommand:
    """The ``vllm serve`` line for deployment ``d`` (module docstring); ``max_model_len`` defaults to the
    one the deployment's vLLM budget uses."""
    o = d.vllm
    model, picked = checkpoint_to_serve(model, d.config, d.dtype)
    words = ["vllm", "serve", model]
    notes: list[str] = list(picked)
    if d.tp > 1:
        words += ["--tensor-parallel-size", str(d.tp)]
    if d.pp > 1:
        words += ["--pipeline-parallel-size", str(d.pp)]
    words += [_VLLM["max_model_len"].flag, str(max_model_len or startup_plan(d).max_model_len)]
    if o.gpu_memory_utilization != DEFAULT_GPU_MEMORY_UTILIZATION:
        words += [_VLLM["gpu_memory_utilization"].flag, f"{o.gpu_memory_utilization:g}"]
    flags, more = _weights_flags(d.dtype)
    words += flags
    notes += more
    if d.kv_dtype is not None:
        if d.kv_dtype in VLLM_KV_CACHE_DTYPES:
            words += ["--kv-cache-dtype", d.kv_dtype]
        else:
            notes.append(f"KV cache {d.kv_dtype}: not a vLLM --kv-cache-dtype (use fp8 or auto)")
    # a --block-size that changes nothing is left out: vLLM's default, or one a hybrid model's page alignment
    # raises to the same block anyway (kvcalc.vllm.hybrid: Qwen3.5's 16 -> 832)
    block = None if o.block_size is None or _default_block(d) == startup_plan(d).block_size else o.block_size
    for flag, value in ((_VLLM["block_size"].flag, block), (_VLLM["max_num_seqs"].flag, o.max_num_seqs),
                        (_VLLM["max_num_batched_tokens"].flag, o.max_num_batched_tokens),
                        (_VLLM["kv_cache_memory"].flags[-1], o.kv_cache_memory)):     # vLLM 0.33's spelling
        if value is not None:
            words += [flag, str(value)]
    if o.cpu_offload_gb:
        words += [_VLLM["cpu_offload_gb"].flag, f"{o.cpu_offload_gb:g}"]
    if o.speculative_config is not None:
        sc = o.speculative_config
        words += [_VLLM["speculative_config"].flag, json.dumps({"method": sc.method,
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


def _model_weights_flags(d: Deployment, flag: str) -> tuple[list[str], list[str]]:
    """``--dtype`` for a float weights dtype (SGLang, TensorRT-LLM); other dtypes are the checkpoint's: a note."""
    if d.dtype is None:
        return [], []
    if d.dtype in ("float16", "bfloat16", "float32"):
        return [flag, d.dtype], []
    return [], [f"weights {d.dtype}: serve a checkpoint stored in {d.dtype} (the engine reads its quantization_config)"]


def _parallel(d: Deployment, tp_flag: str, pp_flag: str) -> list[str]:
    out: list[str] = []
    if d.tp > 1:
        out += [tp_flag, str(d.tp)]
    if d.pp > 1:
        out += [pp_flag, str(d.pp)]
    return out


def sglang_launch(model: str, d: Deployment) -> ServeCommand:
    """``python -m sglang.launch_server --model-path MODEL ...`` for an SGLang deployment (server_args.py names)."""
    from .sglang import LONG_CONTEXT_ENV

    o = d.sglang
    model, picked = checkpoint_to_serve(model, d.config, d.dtype)
    words = ["python", "-m", "sglang.launch_server", "--model-path", model, *_parallel(d, "--tp", "--pp-size")]
    for opt in SGLANG_OPTIONS:          # the declared value flags, where set (None = SGLang's default)
        flag, value = opt.flag, getattr(o, opt.dest, None)
        if opt.kind in ("int", "float") and opt.command and value is not None:
            words += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    flags, notes = _model_weights_flags(d, "--dtype")
    notes = list(picked) or notes
    words += flags
    if d.kv_dtype is not None:
        if d.kv.name.startswith("fp8") or d.kv.name == "bfloat16":
            words += ["--kv-cache-dtype", "bf16" if d.kv.name == "bfloat16" else d.kv.name]
        else:
            notes.append(f"KV cache {d.kv.name}: SGLang has no such --kv-cache-dtype (auto = the model dtype)")
    line = " ".join(shlex.quote(w) for w in words)
    if o.allow_long_context:
        line = f"{LONG_CONTEXT_ENV}=1 {line}"
    return ServeCommand(line, "bash", tuple(notes))


def trtllm_serve(model: str, d: Deployment) -> ServeCommand:
    """``trtllm-serve MODEL ...`` for a TensorRT-LLM deployment (tensorrt_llm/commands/serve.py names), with
    the ``kv_cache_config`` YAML for the fields the command line has no flag for."""
    o = d.trtllm
    model, picked = checkpoint_to_serve(model, d.config, d.dtype)
    words = ["trtllm-serve", model, *_parallel(d, "--tp_size", "--pp_size")]
    for dest in ("max_batch_size", "max_num_tokens", "max_seq_len", "free_gpu_memory_fraction"):
        flag, value = serve_flag(dest), getattr(o, dest)
        if value is not None:       # trtllm-serve's click options spell them with underscores
            words += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    notes: list[str] = list(picked)
    if d.dtype is not None and not picked:
        notes.append(f"weights {d.dtype}: serve a checkpoint stored in {d.dtype}")
    yaml = [f"  {k}: {v}" for k, v in (("max_tokens", o.max_tokens_in_paged_kv_cache),
                                       ("tokens_per_block", o.tokens_per_block),
                                       ("dtype", "fp8" if d.kv_dtype is not None and d.kv.name.startswith("fp8")
                                        else None)) if v is not None]
    line = " ".join(shlex.quote(w) for w in words)
    if not yaml:
        return ServeCommand(line, "bash", tuple(notes))
    text = "\n".join(["cat > extra_llm_api_options.yaml <<'EOF'", "kv_cache_config:", *yaml, "EOF",
                      f"{line} --extra_llm_api_options extra_llm_api_options.yaml"])
    return ServeCommand(text, "bash", tuple(notes))


def llama_server(model: str, d: Deployment) -> ServeCommand:
    """``llama-server -hf REPO:QUANT ...`` (or ``-m FILE.gguf``; ``llama-cli`` when that is the program) for a
    llama.cpp deployment, flags as common/arg.cpp spells them; only the ones that differ from its defaults."""
    o, dflt = d.llama_cpp, LlamaCppOptions()
    quant = d.gguf.file_type if d.gguf is not None else o.hf_quant
    words: list[str] = [o.program]
    notes: list[str] = []
    if o.model and o.hf_quant:
        words += ["-hf", f"{o.model}:{o.hf_quant}"]
    elif o.model:
        words += ["-m", o.model]
    else:
        name = model.rsplit("/", 1)[-1] or "model"
        words += ["-m", f"/path/to/{name}-{quant}.gguf"]
        notes.append(f"a {quant} GGUF file of {model} (llama.cpp reads GGUF, not the safetensors checkpoint)")
    declared = [opt for opt in LLAMA_OPTIONS if opt.command]
    for opt in declared:                # value flags (-c, -np, -ctk, -ctv, -fa, -ngl, -ts, -b, -ub) not at the default
        value = getattr(o, opt.dest)
        if opt.kind != "bool" and value != getattr(dflt, opt.dest):
            words += [opt.flag, list_text(value) if opt.kind == "list" else str(value)]
    for opt in declared:                # switches (-kvu, --swa-full, -nkvo), where set
        if opt.kind == "bool" and getattr(o, opt.dest) != getattr(dflt, opt.dest):
            words.append(opt.flag)
    if o.n_ctx == 0:
        notes.append("no -c: llama.cpp allocates the model's training context (n_ctx_train) in cells")
    return ServeCommand(" ".join(shlex.quote(w) for w in words), "bash", tuple(notes))


def engine_command(model: str, d: Deployment) -> ServeCommand:
    """The launch line of a deployment, in its engine's words (``Engine.launch_command``)."""
    cmd: ServeCommand = d.engine.launch_command(model, d)
    return cmd
