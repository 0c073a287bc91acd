"""GPU memory vLLM 0.33 allocates for LoRA (``--enable-lora``), in bytes per GPU.

Sources (vllm-project/vllm 0.33.0, read, not copied):

``v1/worker/gpu_model_runner.py`` (``GPUModelRunner.load_model``)
    ``load_lora_model`` runs inside the ``DeviceMemoryProfiler`` that measures "Model loading took X
    GiB", so everything below is counted with the **weights**, before the KV budget is computed.
``lora/model_manager.py`` (``LoRAModelManager._create_lora_modules``, ``_init_punica_wrapper``)
    every supported module is wrapped (``get_supported_lora_modules``: every linear layer, the
    embedding, and the LM head through ``LogitsProcessorWithLoRA``) and preallocates ``max_loras``
    slots of its A and B matrices in ``lora_dtype`` (``LoRAConfig``, config/lora.py: ``auto`` = the
    model dtype). ``max_cpu_loras`` adapters are cached in CPU memory, not on the GPU.
``lora/layers/base_linear.py`` (``create_lora_weights``), ``vocab_parallel_embedding.py``, ``logits_processor.py``
    per slot, rank ``r``, tensor-parallel size ``t``; column-parallel (merged ``qkv_proj``,
    ``gate_up_proj``): A ``r x in`` per slice (``r / t`` when ``fully_sharded_loras``), B ``out / t x r``;
    row-parallel (``o_proj``, ``down_proj``): A ``r x in / t``, B ``out x r`` (``out / t`` fully sharded);
    embedding: A ``vocab x r``, B ``hidden x r``; LM head: A ``r x hidden``, B ``vocab x r`` (never split).
``lora/punica_wrapper/punica_base.py``, ``lora/ops/triton_ops/lora_kernel_metadata.py``
    index buffers: 4 int64 of ``max_num_batched_tokens``, 3 int64 of ``max_num_seqs``, and two
    ``LoRAKernelMeta`` (2 int32 of ``max_num_batched_tokens``, 2 of ``max_loras + 1``, 1 of
    ``max_loras + 2``); with ``t > 1`` the LM head's int64 ``sharded_to_full_mapping`` (vocab entries).

Pinned by the oracle (tests/oracles/vllm_oracle.py ``--lora`` -> tests/fixtures/vllm_0_33_lora.json:
vLLM's own LoRA-wrapped model built on the meta device), 5 cases, all equal: Llama-3.1-8B 4 x rank 16
369,844,352 bytes; TP 2; TP 2 fully sharded in float16; Qwen3-0.6B (tied embeddings) 8 x rank 64; Qwen3-8B
TP 4 fully sharded.
Modelled: dense Llama-layout decoders (:data:`LORA_MODEL_TYPES`, GQA attention + gated MLP);
MoE experts, MLA and hybrid layers are refused. Not counted (stated in the plan's notes): the profile
run's LoRA activation buffers (``num_tokens x r`` float32 per slice, in the activation peak) and the
extra CUDA graphs ``cudagraph_specialize_lora`` captures.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..dtypes import DType, get_dtype
from ..errors import InputError, UnsupportedError
from ..spec import ModelSpec

MAX_LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)
"""``MaxLoRARanks`` (config/lora.py): the ``--max-lora-rank`` values vLLM accepts."""

LORA_DTYPES = ("auto", "float16", "bfloat16")
"""``LoRADType`` (config/lora.py): ``--lora-dtype``."""

MAX_LORA_VOCAB = 258048
"""``LogitsProcessorWithLoRA.create_lora_weights``: "When using LoRA, vocab size must be <= 258048"."""

LORA_MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3")
"""Model types whose vLLM layers are the Llama layout (merged ``qkv_proj`` / ``gate_up_proj``,
``o_proj``, ``down_proj``); oracle-pinned: llama, qwen3."""

MAX_LORAS = 1 << 10


@dataclass(frozen=True)
class LoraConfig:
    """``--enable-lora`` with ``--max-loras``, ``--max-lora-rank``, ``--max-cpu-loras`` (None = max_loras),
    ``--fully-sharded-loras`` and ``--lora-dtype`` (config/lora.py ``LoRAConfig``; vLLM's defaults)."""

    max_loras: int = 1
    max_lora_rank: int = 16
    max_cpu_loras: int | None = None
    fully_sharded_loras: bool = False
    lora_dtype: str = "auto"


def _whole(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"{name} must be a whole number {lo}..{hi}, got {value!r:.30}")
    return value


def check_lora_config(value: LoraConfig | Mapping[str, Any] | None) -> LoraConfig | None:
    """Validate a :class:`LoraConfig` (or a dict of its fields) as vLLM's ``LoRAConfig`` does."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        unknown = set(value) - set(LoraConfig.__dataclass_fields__)
        if unknown:
            raise InputError(f"unknown LoRA option(s): {', '.join(sorted(map(str, unknown)))[:80]}")
        value = LoraConfig(**value)
    if not isinstance(value, LoraConfig):
        raise InputError("lora must be a LoraConfig or a dict of max_loras, max_lora_rank, ...")
    loras = _whole("max_loras", value.max_loras, 1, MAX_LORAS)
    if value.max_lora_rank not in MAX_LORA_RANKS or isinstance(value.max_lora_rank, bool):
        raise InputError(f"max_lora_rank must be one of {', '.join(map(str, MAX_LORA_RANKS))} (vLLM's "
                         f"MaxLoRARanks), got {value.max_lora_rank!r:.20}")
    if value.max_cpu_loras is not None and _whole("max_cpu_loras", value.max_cpu_loras, 1, 1 << 20) < loras:
        raise InputError(f"max_cpu_loras ({value.max_cpu_loras}) must be >= max_loras ({loras})")
    if value.lora_dtype not in LORA_DTYPES:
        raise InputError(f"lora_dtype must be one of {', '.join(LORA_DTYPES)}, got {str(value.lora_dtype)[:20]!r}")
    if not isinstance(value.fully_sharded_loras, bool):
        raise InputError("fully_sharded_loras must be true or false")
    return value


def check_lora_model(config: Mapping[str, Any], spec: ModelSpec) -> None:
    """UnsupportedError unless vLLM's LoRA layout of this model is modelled (a dense Llama-layout decoder,
    vocabulary within vLLM's LoRA limit)."""
    mt = spec.model_type
    if mt not in LORA_MODEL_TYPES:
        raise UnsupportedError(f"LoRA memory is modelled for {', '.join(LORA_MODEL_TYPES)} models, not "
                               f"'{mt[:30]}'")
    moe = any(config.get(k) for k in ("num_experts", "num_local_experts", "n_routed_experts"))
    caches = [a for layer in spec.layers for a in layer.attention]
    if moe or len(caches) != spec.num_layers or any(a.latent_dim or a.source != "self" for a in caches) \
            or any(layer.states for layer in spec.layers) or spec.mlp_width is None:
        raise UnsupportedError("LoRA memory is modelled for dense attention + MLP decoders only "
                               "(MoE experts, MLA and hybrid layers are not)")
    if spec.vocab_size > MAX_LORA_VOCAB:
        raise UnsupportedError(f"When using LoRA, vocab size must be <= {MAX_LORA_VOCAB} (vLLM), this model has "
                               f"{spec.vocab_size:,}")


def lora_dtype(lora: LoraConfig, model_dtype: DType) -> DType:
    """``--lora-dtype``: ``auto`` = the model dtype (``LoRAConfig.verify_with_model_config``)."""
    return model_dtype if lora.lora_dtype == "auto" else get_dtype(lora.lora_dtype)


def _div(name: str, n: int, tp: int) -> int:
    if n % tp:
        raise InputError(f"fully_sharded_loras: {name} {n} is not divisible by tensor_parallel_size {tp} "
                         "(vLLM's divide() asserts)")
    return n // tp


def check_lora_parallel(spec: ModelSpec, lora: LoraConfig, tensor_parallel_size: int,
                        pipeline_parallel_size: int) -> None:
    """vLLM's LoRA layers on this split: ``fully_sharded_loras`` divides the rank and the hidden size by the
    TP size (``divide`` asserts: InputError); pipeline stages are not modelled (UnsupportedError)."""
    if pipeline_parallel_size > 1:
        raise UnsupportedError("LoRA with pipeline parallelism is not modelled (each stage wraps its own layers); "
                               "use tensor parallelism")
    if lora.fully_sharded_loras:
        _div("max_lora_rank", lora.max_lora_rank, tensor_parallel_size)
        _div("hidden_size", spec.hidden_size, tensor_parallel_size)


def lora_bytes(spec: ModelSpec, lora: LoraConfig, model_dtype: DType, *, tensor_parallel_size: int,
               max_num_batched_tokens: int, max_num_seqs: int) -> int:
    """Bytes vLLM's LoRA manager allocates on one GPU (module docstring for every term).

    ``max_loras x (sum over wrapped modules of A + B elements) x lora_dtype bytes`` plus the punica
    index buffers. Counted by vLLM inside "Model loading took" (add it to the weights). The model must
    pass :func:`check_lora_model` (deploy checks it).
    """
    a = spec.layers[0].attention[0]
    qd, kv_heads, d, inter = a.query_heads * a.k_head_dim, a.kv_heads, a.k_head_dim, spec.mlp_width or 0
    t, r, h, v = tensor_parallel_size, lora.max_lora_rank, spec.hidden_size, spec.vocab_size
    fs = lora.fully_sharded_loras
    r_col = _div("max_lora_rank", r, t) if fs else r            # column-parallel A rows
    h_row = _div("hidden_size", h, t) if fs else h              # row-parallel B rows
    kv_rank = max(1, kv_heads // t) * d
    per_layer = (3 * r_col * h + (qd // t + 2 * kv_rank) * r     # qkv_proj (3 slices)
                 + r * (qd // t) + h_row * r                     # o_proj
                 + 2 * r_col * h + 2 * (inter // t) * r          # gate_up_proj (2 slices)
                 + r * (inter // t) + h_row * r)                 # down_proj
    embed_and_head = (v * r + h * r) + (r * h + v * r)
    elements = lora.max_loras * (spec.num_layers * per_layer + embed_and_head)
    n = max_num_batched_tokens
    punica = 4 * n * 8 + 3 * max_num_seqs * 8 + 2 * (2 * n * 4 + 2 * (lora.max_loras + 1) * 4
                                                     + (lora.max_loras + 2) * 4)
    mapping = v * 8 if t > 1 else 0
    return elements * (lora_dtype(lora, model_dtype).bits // 8) + punica + mapping
