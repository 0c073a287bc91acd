"""TensorRT-LLM on kvcalc's engine seam: its options declared once, its refusals, its budget (kvcalc.trtllm.budget).

``free_gpu_memory_fraction x (total - weights - activations)`` in blocks of ``tokens_per_block``; the
activation peak is estimated as one forward pass of ``max_num_tokens`` tokens (TensorRT-LLM profiles
it) unless measured; the rest is kvcalc.engines.paged.

>>> from kvcalc.engines import get_engine
>>> get_engine("tensorrt_llm").tp_flag
'--tp_size'
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..activations import forward_activation_bytes
from ..engines.base import Engine, KvQuantization
from ..engines.paged import PagedEngine
from ..units import GiB
from .budget import trtllm_memory_plan
from .defaults import DEFAULT_MAX_NUM_TOKENS, DEFAULT_RUNTIME_RESERVED_BYTES, TRTLLM_VERSION
from .options import DECLARATIONS, TrtllmOptions, serve_flag, trtllm_options
from .windows import check_uniform_kv_shape, full_length_window_note

FP8_MIN_CAPABILITY = 89
"""Compute capability x 10 from which TensorRT-LLM runs FP8 (its support matrix's Precision rows: FP8 on Ada SM89
and Hopper SM90, not on Ampere SM80 / SM86)."""

if TYPE_CHECKING:
    from ..deployment import Deployment
    from ..gpus import GPU
    from ..spec import AttentionCache, ModelSpec



class TrtllmEngine(PagedEngine):
    """TensorRT-LLM (module docstring)."""

    name = "tensorrt_llm"
    startup_log = "kvcalc.startup_log.tensorrt_llm"
    label = "TensorRT-LLM"
    version = TRTLLM_VERSION
    options_type = TrtllmOptions
    declarations = DECLARATIONS
    concurrency_field = "max_batch_size"
    gpu_vendors = ("NVIDIA",)
    """TensorRT-LLM runs on NVIDIA GPUs only."""
    tp_flag = "--tp_size"
    pp_flag = "--pp_size"
    vllm_names = {"max_model_len": "max_seq_len", "block_size": "tokens_per_block", "max_num_seqs": "max_batch_size",
                  "max_num_batched_tokens": "max_num_tokens", "gpu_memory_utilization": "free_gpu_memory_fraction"}
    kv_dtypes = ("bfloat16", "float16", "fp8_e4m3")
    kv_dtypes_text = "auto, fp8 (e4m3)"
    sliding_ok = True

    def command_flag(self, dest: str) -> str:
        """trtllm-serve's underscore spelling (kvcalc.trtllm.options.serve_flag)."""
        return serve_flag(dest)

    def check_device(self, gpu: GPU, raw: Any, dtype: str | None) -> None:
        """Beside the vendor: FP8 weights (``dtype`` fp8_e4m3, or a checkpoint whose ``quantization_config`` says
        ``fp8``) need FP8 tensor cores, compute capability 8.9 or above (TensorRT-LLM's support matrix: "Ada
        Lovelace (SM89) - FP32, FP16, BF16, FP8, INT8, INT4", "Ampere (SM80, SM86) - FP32, FP16, BF16, INT8,
        INT4"): refused on an A100 or an RTX 3090.

        >>> from kvcalc.gpus import get_gpu
        >>> TrtllmEngine().check_device(get_gpu("l40s"), {}, "fp8_e4m3")    # Ada: planned
        """
        from ..weights import checkpoint_quant_method

        super().check_device(gpu, raw, dtype)
        fp8 = dtype == "fp8_e4m3" or (dtype is None and checkpoint_quant_method(raw) == "fp8")
        if fp8 and gpu.cuda_capability is not None and gpu.cuda_capability < FP8_MIN_CAPABILITY:
            from ..errors import UnsupportedError

            raise UnsupportedError(f"TensorRT-LLM runs FP8 weights on compute capability 8.9 and above (Ada, Hopper, "
                                   f"Blackwell); {gpu.name} is {gpu.cuda_capability / 10:.1f}")

    def check_model(self, raw: Any, spec: ModelSpec, options: Any, dtype: str | None,
                    kv_dtype: str | None) -> None:
        """Sliding-window layers are pooled at full length (kvcalc.trtllm.windows); layers whose KV shapes
        differ are refused (TensorRT-LLM sends them to KVCacheManagerV2)."""
        super().check_model(raw, spec, options, dtype, kv_dtype)
        check_uniform_kv_shape(spec, self.label)

    def build_options(self, flags: dict[str, Any]) -> Any:
        return trtllm_options(**flags)

    def quantized_kv(self, d: Deployment) -> KvQuantization | None:
        """``kv_cache_config.dtype: fp8`` (tensorrt_llm/llmapi/llm_args.py ``KvCacheConfig.dtype``), written in the
        ``--extra_llm_api_options`` file (trtllm-serve has no flag for it)."""
        return None if d.kv.bits <= 8 else KvQuantization("fp8_e4m3", None,
                                                          "kv_cache_config dtype: fp8 (--extra_llm_api_options)")

    def foreign_text(self, key: str) -> str:
        names = [o.dest for o in DECLARATIONS]
        return f"{', '.join(names[:-1])} and {names[-1]} are TensorRT-LLM options: use runtime 'tensorrt_llm'"

    def kv_reads(self, d: Deployment, a: AttentionCache) -> int:
        """``query_heads / kv_heads`` of a GQA / MQA layer when the generation phase runs without XQA
        (``TrtllmOptions.xqa`` False), else 1.

        Without XQA the masked MHA kernel runs "a single CUDA thread-block per head" (TensorRT-LLM
        docs/source/advanced/gpt-attention.md, generation phase; decoderMaskedMultiheadAttentionTemplate.h, one
        block per query head and sequence), and each block streams its KV head's cache: a group of 8 query
        heads reads it 8 times. XQA, in v0.8 and later, serves the group from one read (the XQA blog:
        "reducing data loading", up to 2.4x Llama-70B throughput at 128 in / 2,048 out). MLA layers run their
        own kernels (FlashMLA / XQA's MLA path): 1.

        >>> from kvcalc.spec import AttentionCache
        >>> a = AttentionCache(kv_heads=8, k_head_dim=128, v_head_dim=128, query_heads=64)
        >>> class D: options = TrtllmOptions(xqa=False)
        >>> TrtllmEngine().kv_reads(D(), a)
        8
        """
        o: TrtllmOptions = d.options
        if o.xqa or a.latent_dim or a.kv_heads <= 0:
            return 1
        return max(1, a.query_heads // a.kv_heads)

    def context_cap(self, options: Any) -> int | None:
        cap: int | None = options.max_seq_len
        return cap

    def memory_plan(self, d: Deployment) -> Any:
        """The budget, with the activation peak and runtime buffers estimated unless measured (notes say so)."""
        from ..engine import stage_cell_bytes
        from ..parallel import stage_specs

        o: TrtllmOptions = d.options
        m = d.measured
        notes = []
        act = m.activation_bytes
        if act is None:
            tokens = o.max_num_tokens or DEFAULT_MAX_NUM_TOKENS
            act = forward_activation_bytes(tokens, d.spec.hidden_size, d.spec.mlp_width or 4 * d.spec.hidden_size,
                                           d.model_dtype.bits // 8, d.tp)
            notes.append(f"activation peak estimated as one forward pass of max_num_tokens {tokens:,} tokens "
                         f"({act / GiB:.2f} GiB; TensorRT-LLM profiles it): give activation_gib to use a "
                         "measured one")
        runtime = m.non_torch_bytes
        if runtime is None:
            runtime = DEFAULT_RUNTIME_RESERVED_BYTES
            notes.append(f"assumed {runtime / GiB:.2f} GiB of CUDA context and runtime buffers (memory.md's H100 "
                         "log): give non_torch_gib to use a measured figure")
        model_max = d.spec.max_position_embeddings
        if o.max_seq_len and model_max and o.max_seq_len > model_max:
            notes.append(f"max_seq_len {o.max_seq_len:,} exceeds the config's max_position_embeddings "
                         f"{model_max:,}: quality past the trained length is not assured")
        window_note = full_length_window_note(d.spec)
        if window_note:
            notes.append(window_note)
        cells = stage_cell_bytes(stage_specs(d.rank, d.pp), d.kv)
        return trtllm_memory_plan(max(cells), total_gpu_bytes=d.gpu.memory_bytes, weights_bytes=d.weights_rank,
                                  activation_bytes=act, runtime_bytes=runtime, options=o, max_seq_len=d.context_cap,
                                  notes=tuple(notes))

    def overhead_parts(self, d: Deployment, p: Any) -> dict[str, int]:
        """The activation peak and the CUDA context / runtime buffers :meth:`memory_plan` subtracts before
        the KV fraction, each estimated unless measured."""
        runtime = d.measured.non_torch_bytes
        runtime = DEFAULT_RUNTIME_RESERVED_BYTES if runtime is None else runtime
        return {"activation_peak": p.overhead_bytes - runtime, "runtime_buffers": runtime}

    def launch_command(self, model: str, d: Deployment) -> Any:
        from ..serve_command import trtllm_serve

        return trtllm_serve(model, d)


ENGINE: Engine = TrtllmEngine()
"""TensorRT-LLM (kvcalc.engines.registry)."""
