"""llama.cpp on kvcalc's engine seam: its flags declared once, GGUF weights, the preallocated run.

The GPU holds the ``-ngl`` share of the GGUF weights, the KV cells of its layers and the (estimated)
compute buffer, the host the rest (``host_bytes``); a plan fits when that allocation fits the GPU and
the requests fit the cells (``context <= n_ctx_seq``, ``batch <= n_seq_max``, ``batch x context <=
n_ctx``). ``kv_bytes`` is what the requests occupy (sliding-window layers at most their window); the
solvers answer for a run sized to the request (``-np batch -c batch x context``, other flags as given)
(kvcalc.llama_cpp.seam). Defaults: ``common/common.h`` (kvcalc.llama_cpp.options).

Several GPUs (``gpus > 1``) are llama.cpp's ``--split-mode layer``: the ``-ts`` proportions (default: by free
memory, equal here) place whole layers on each GPU (kvcalc.llama_cpp.split), one pipeline stage per GPU; each
GPU's weights, KV and compute are in the formulas, and the busiest GPU's bytes are the plan's and decide the
verdict. The fewest GPUs are not searched (``multi_gpu`` stays False): plan a count with ``--gpus``.

>>> from kvcalc.engines import get_engine
>>> get_engine("llama_cpp").options_from_flags({"n_ctx": 8192, "n_parallel": 2}).slots()[:2]
(2, False)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..engines.base import Engine, KvQuantization, ScoreTraffic
from ..engines.paged import PagedEngine
from ..errors import InputError
from ..gguf.mixes import GgufWeights, gguf_weights
from ..gguf.reader import GGUFHeader
from ..weights import WeightBytes, WeightPart, plan_weights
from .arches import gguf_view
from .options import DECLARATIONS, LlamaCppOptions
from .plan import LlamaCppPlan, llama_cpp_plan
from .seam import VERSION, LayerCells, largest_batch, layer_cells, longest_context, to_engine_plan
from .split import Split, plan_split

if TYPE_CHECKING:
    from ..curve import CurvePoint
    from ..deployment import Deployment, MeasuredOverrides
    from ..layer_table import LayerRow
    from ..plan import PlanResult
    from ..spec import ModelSpec
    from ..verdict import Verdict

MMQ_MAX_BATCH_SIZE = 32
"""The most tokens a prompt pass ran through llama.cpp's quantized MMQ kernels before PR #8075 on a GPU with FP16
tensor cores (ggml-cuda/common.cuh at 4426e298: "max batch size to use MMQ kernels when tensor cores are
available"); more went to FP16 cuBLAS."""

MMQ_DP4A_MAX_BATCH_SIZE = 64
"""Tokens from which today's llama.cpp multiplies quantized weights by FP16 cuBLAS on a GPU with FP16 but no int8
tensor cores (a V100; ggml/src/ggml-cuda/mmq.cu ``ggml_cuda_should_use_mmq``)."""

SINGLE_GPU = ("llama.cpp splits whole layers over the GPUs (--split-mode layer, -ts): give the GPU count only "
              "(gpus=N), not tensor_parallel_size / pipeline_parallel_size; --split-mode row is not modelled")


def _gguf(raw: Mapping[str, Any], gguf: object) -> GgufWeights:
    """The GGUF weights a llama.cpp deployment uses (deploy's ``gguf``)."""
    if isinstance(gguf, GgufWeights):
        return gguf
    if isinstance(gguf, GGUFHeader):
        return gguf.as_weights()
    if isinstance(gguf, str) and gguf.strip():
        return gguf_weights(raw, gguf)
    raise InputError("runtime 'llama_cpp' needs the GGUF weights: a file type (gguf='Q4_K_M', --gguf-type) "
                     "or the file's header (--gguf FILE)")


def _gguf_weight_bytes(counted: WeightBytes, gw: GgufWeights) -> WeightBytes:
    """The GGUF file's bytes as the plan's weights (the parameter count kept from ``counted``)."""
    return WeightBytes(total_bytes=gw.total_bytes, scheme=f"GGUF {gw.file_type}",
                       parts=(WeightPart("gguf", counted.params.total, gw.file_type, gw.total_bytes),),
                       params=counted.params, unquantized=(),
                       notes=(f"weights: GGUF {gw.file_type}, {gw.total_bytes:,} bytes of tensor data "
                              f"({gw.bits_per_weight:.2f} BPW; {gw.quality})",))


def llama_plan(d: Deployment) -> LlamaCppPlan:
    """llama.cpp's allocation for the deployment (kvcalc.llama_cpp.plan.llama_cpp_plan), memoized on it."""
    if "llama_plan" not in d._memo:
        if not isinstance(d.options, LlamaCppOptions) or d.gguf is None:
            raise InputError(f"runtime {d.runtime!r} has no llama.cpp plan; use runtime 'llama_cpp'")
        d._memo["llama_plan"] = llama_cpp_plan(d.spec, d.options, d.gguf, d.gpu.memory_bytes)
    lp: LlamaCppPlan = d._memo["llama_plan"]
    return lp


def llama_split(d: Deployment) -> Split | None:
    """The deployment's layer split over its GPUs (kvcalc.llama_cpp.split; None on one GPU), memoized."""
    if d.gpus == 1:
        return None
    if "llama_split" not in d._memo:
        assert d.gguf is not None
        d._memo["llama_split"] = plan_split(llama_plan(d), d.spec, d.gguf, d.llama_cpp.split_shares(d.gpus))
    got: Split = d._memo["llama_split"]
    return got


def llama_layer_cells(d: Deployment) -> tuple[LayerCells, ...]:
    """The deployment's llama.cpp layers (kvcalc.llama_cpp.seam.layer_cells), memoized."""
    if "llama_cells" not in d._memo:
        d._memo["llama_cells"] = layer_cells(d.spec, llama_plan(d))
    cells: tuple[LayerCells, ...] = d._memo["llama_cells"]
    return cells


def llama_solvers(d: Deployment, batch: int, context: int) -> tuple[int | None, int | None]:
    """(longest context at ``batch``, largest batch at ``context``) for runs sized to the request, memoized."""
    key = ("llama_solvers", batch, context)
    if key not in d._memo:
        assert d.gguf is not None
        args = (d.spec, d.llama_cpp, d.gguf, d.gpu.memory_bytes)
        d._memo[key] = (longest_context(*args, batch, d.context_cap, d.gpus),
                        largest_batch(*args, context, d.gpus) if context <= d.context_cap else None)
    got: tuple[int | None, int | None] = d._memo[key]
    return got

_WIDE_CACHE = ("f32", "f16", "bf16")
"""llama.cpp cache types wider than 8 bits (``-ctk`` / ``-ctv``)."""


class LlamaCppEngine(PagedEngine):
    """llama.cpp's ``llama-server`` / ``llama-cli`` (module docstring)."""

    name = "llama_cpp"
    startup_log = "kvcalc.startup_log.llama_cpp"
    label = "llama.cpp"
    version = VERSION
    options_type = LlamaCppOptions
    declarations = DECLARATIONS
    multi_gpu = False
    tensor_parallel = False          # whole layers per GPU (--split-mode layer): kvcalc's pipeline stages
    pp_flag = None
    single_gpu_error = SINGLE_GPU
    cli_flags = ("gguf_type", "gguf_file")
    serves_gguf = True
    fp16_accumulate_gemms = True
    """ggml-cuda.cu ggml_cuda_op_mul_mat_cublas: on Volta and later, F16 weights are multiplied as fp16 with
    ``CUBLAS_COMPUTE_16F`` (llama.cpp 4426e298, May 2024, and ggml/src/ggml-cuda at c392e509, Feb 2025; since PR 3370,
    Sept 2023), and so were quantized weights above MMQ's batch, converted to F16 first (:meth:`dequantized_prompt`),
    until the int8 tensor-core MMQ kernels became the default (PRs 7860 / 8062 / 8075, June 2024); later builds run
    quantized prompts through int8 MMQ on Turing and later, where the rule rests on the published prompt figures
    alone (kvcalc.speed.LLAMA_CPP_RATE_SHARE)."""
    sm_stream_limited = True
    """ggml-cuda's one-token kernels stream an A100's HBM at about half its datasheet (PR #6017's figure): taken as a
    limit on the loads in flight per SM (kvcalc.speed.decode_bandwidth_gbps, an inferred mechanism): the matrix-vector
    kernels run a weight row or two per small block (mmvq.cu ``mul_mat_vec_q`` at c392e509: one row per 4-warp block
    at batch 1, ``__launch_bounds__(..., 1)`` letting the compiler trade occupancy for registers)."""
    vllm_names = {"max_model_len": "n_ctx (-c)", "max_num_seqs": "n_parallel (-np)",
                  "max_num_batched_tokens": "n_batch (-b)"}

    # ------------------------------------------------------------------ options, refusals, weights
    def options_from_flags(self, flags: Mapping[str, Any], base: Any = None) -> Any:
        flags = dict(flags)
        base = flags.pop("llama_cpp", None) or base
        own = self._own_flags(flags)
        own.pop("gguf", None)
        if base is not None and not isinstance(base, LlamaCppOptions):
            raise InputError(f"llama_cpp options are LlamaCppOptions, not {type(base).__name__}")
        opts = base or LlamaCppOptions()
        return replace(opts, **own) if own else opts

    def foreign_text(self, key: str) -> str:
        return ("n_ctx, n_parallel, cache_type_k / cache_type_v, n_gpu_layers, swa_full, flash_attn, tensor_split "
                "and gguf are llama.cpp options: use runtime 'llama_cpp'")

    def check_model(self, raw: Mapping[str, Any], spec: ModelSpec, options: Any, dtype: str | None,
                    kv_dtype: str | None) -> None:
        if dtype is not None:
            raise InputError("dtype is not a llama.cpp option: the weights are the GGUF file's (gguf='Q4_K_M', ...)")
        if kv_dtype is not None:
            raise InputError("kv_dtype is not a llama.cpp option: llama.cpp's are cache_type_k / cache_type_v "
                             "(-ctk / -ctv: f16, q8_0, q4_0, ...)")
        self.check_prefix_tokens(spec)

    def weights(self, raw: Mapping[str, Any], spec: ModelSpec, dtype: str | None, measured: MeasuredOverrides,
                options: Any, gguf: Any, gpus: int) -> tuple[WeightBytes, GgufWeights | None]:
        if measured.weights_bytes is not None or measured.checkpoint_bytes is not None:
            raise InputError("llama.cpp's weights are the GGUF file's: give gguf (a file type or the header), "
                             "not weights_gib / checkpoint_bytes")
        gw = _gguf(raw, gguf if gguf is not None else options.hf_quant)
        return _gguf_weight_bytes(plan_weights(raw, None, gw.total_bytes, "GGUF file"), gw), gw

    def weights_on_gpu(self, spec: ModelSpec, options: Any, gguf: GgufWeights | None, weights_rank: int) -> int:
        """The GPU's share of the GGUF file (-ngl), as llama.cpp loads it."""
        return weights_rank if gguf is None else llama_cpp_plan(spec, options, gguf).gpu.weights

    def check_gpus(self, gpus: int, tp: int | None, pp: int | None) -> None:
        """Any GPU count (the layer split); a tensor or pipeline size is not llama.cpp's (:data:`SINGLE_GPU`)."""
        if tp not in (None, 1) or pp not in (None, gpus):
            from ..errors import UnsupportedError

            raise UnsupportedError(SINGLE_GPU)

    # ------------------------------------------------------------------ planning
    def model_spec(self, raw: Mapping[str, Any], spec: ModelSpec) -> ModelSpec:
        """The config read through the llama.cpp architecture it converts to (kvcalc.llama_cpp.arches:
        Mistral-7B-v0.1 becomes 'llama', which reads no sliding window)."""
        return gguf_view(raw, spec)[0]

    def memory_plan(self, d: Deployment) -> Any:
        return to_engine_plan(d.spec, llama_plan(d), d.gpu.memory_bytes, llama_split(d))

    def plan_at(self, d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
        """The configured run's allocation, the cells the requests occupy (module docstring)."""
        from ..explain import engine_binding
        from ..explain import gib as gib_text
        from ..layer_table import layer_bytes
        from ..plan import PlanResult, common_fields

        ep = d.engine_plan()
        lp = llama_plan(d)
        split = llama_split(d)
        table = layer_bytes(d, batch, context)
        kv = table.per_gpu_bytes                          # the busiest GPU's (LlamaCppEngine.busiest_stage)
        ok = ep.fits(batch, context)
        max_context, max_batch = llama_solvers(d, batch, context)
        binding = engine_binding(ep, batch, context, ok, None)
        if ok:
            c = lp.cells
            binding = (f"the cells llama.cpp allocates at startup: n_ctx {c.n_ctx:,} ({c.n_ctx_seq:,} per sequence, "
                       f"{c.n_seq_max} sequences), {gib_text(ep.available_kv_bytes)} of KV on the GPU, of which the "
                       "requests occupy the KV figure")
        elif max_context is not None and max_context >= context:
            binding += f"; a run sized to the request fits: -np {batch} -c {batch * context:,}"
        offloaded = lp.host.weights - (d.gguf.input_bytes if d.gguf else 0)
        if offloaded > 0:
            warnings.append(f"-ngl leaves {gib_text(offloaded)} of layer weights in host memory: llama.cpp runs "
                            "those layers on the CPU, which the speed estimate (all weights at GPU bandwidth) does "
                            "not model")
        o = d.llama_cpp
        common = common_fields(d, batch, context)
        common.update(quality=lp.quality, kv_quality=lp.kv_quality)     # the compute buffer is estimated
        if split is not None:
            common["weights_bytes"] = ep.weights_bytes                   # the busiest GPU's layers
        return PlanResult(
            **common, kv_dtype=f"{o.cache_type_k}/{o.cache_type_v}", kv_bytes=kv,
            kv_bytes_total=table.all_gpus_bytes, overhead_bytes=ep.overhead_bytes, budget_bytes=ep.budget_bytes,
            total_bytes=ep.weights_bytes + kv + ep.overhead_bytes, fits=ok, max_context=max_context,
            max_batch=max_batch, min_gpus=None, binding_constraint=binding, kv_cache_tokens=ep.pool_tokens,
            num_gpu_blocks=ep.pool_pages, max_concurrency=ep.max_concurrency,
            available_kv_bytes=ep.available_kv_bytes, formulas=ep.formulas, engine_lines=ep.log_lines,
            warnings=tuple(warnings) + ep.notes, host_bytes=lp.host.total)

    def overhead_parts(self, d: Deployment, p: PlanResult) -> dict[str, int]:
        """The compute buffer (estimated; llama.cpp sizes it from its graph) and the recurrent state on the GPU."""
        g, split = llama_plan(d).gpu, llama_split(d)
        if split is not None:
            return {"compute_buffer": split.shares[split.busiest].compute, "recurrent_state": split.recurrent}
        return {"compute_buffer": g.compute, "recurrent_state": g.recurrent}

    def one_gpu_fits(self, d: Deployment, batch: int, context: int) -> bool:
        """Whether a run sized to the request fits one GPU of ``d``'s type (no fewer-GPUs search)."""
        if d.gpus == 1:
            return (llama_solvers(d, batch, context)[1] or 0) >= batch
        assert d.gguf is not None
        one = replace(d.llama_cpp, tensor_split=())
        return (largest_batch(d.spec, one, d.gguf, d.gpu.memory_bytes, context) or 0) >= batch

    def busiest_stage(self, d: Deployment) -> int | None:
        """Under a layer split the GPU with the most weights + KV + compute (Split.busiest): its KV is the
        plan's, whether or not it holds the most KV (the output layer, with a tied token_embd's copy, can
        outweigh a layer or two)."""
        split = llama_split(d)
        return None if split is None else split.busiest

    def layer_rows(self, d: Deployment, batch: int, context: int) -> list[LayerRow]:
        """The cells the requests occupy per layer; layers ``-ngl`` / ``-nkvo`` leave on the host are
        ``device = "host"`` rows."""
        from ..layer_table import LayerRow

        cached: dict[int, list[LayerCells]] = {}
        for c in llama_layer_cells(d):
            cached.setdefault(c.index, []).append(c)
        split = llama_split(d)
        rows = []
        for layer in d.spec.layers:
            held = cached.get(layer.index, [])
            tokens = max((c.tokens(context) for c in held), default=0)
            nbytes = sum(batch * c.tokens(context) * c.cell_bytes for c in held)
            device = "gpu" if not held or held[0].on_gpu else "host"
            stage = (split.devices[layer.index] or 0) if split is not None else 0     # the layer's GPU
            rows.append(LayerRow(layer.index, layer.kind, stage, tokens, nbytes, device))
        return rows

    def curve(self, d: Deployment, batch: int, contexts: Sequence[int]) -> list[CurvePoint]:
        """The cells ``batch`` requests occupy per GPU layer, the ``-ngl`` weights and the compute buffer."""
        from ..curve import CurvePoint

        ep = d.engine_plan()
        split = llama_split(d)                 # several GPUs: the busiest GPU's layers, as its weights
        cells = [c for c in llama_layer_cells(d) if c.on_gpu
                 and (split is None or split.devices[c.index] == split.busiest)]
        return [CurvePoint(t, ep.weights_bytes, ep.overhead_bytes,
                           batch * sum(c.tokens(t) * c.cell_bytes for c in cells), ep.budget_bytes) for t in contexts]

    def stage_weights(self, d: Deployment) -> tuple[int, ...]:
        """The GGUF weights resident on the GPU (the ``-ngl`` share, output layer included; the token
        embedding table stays on the host): what a decode step reads at GPU bandwidth. One stage per GPU, each
        GPU's layers under a split (kvcalc.llama_cpp.split)."""
        split = llama_split(d)
        return (d.weights_rank,) if split is None else tuple(s.weights for s in split.shares)

    def report_lines(self, p: PlanResult) -> list[str]:
        """Its startup lines, then the allocation's formulas (cells, KV, GPU and host memory)."""
        return ["", *p.engine_lines, "", *p.formulas]

    def launch_command(self, model: str, d: Deployment) -> Any:
        from ..serve_command import llama_server

        return llama_server(model, d)

    # ------------------------------------------------------------------ the verdict's words
    def refusal_verdict(self, d: Deployment, p: PlanResult, mml: int | None, note: str,
                        longest: int | None) -> Verdict | None:
        """The engine's allocation refusal and its fix (kvcalc.llama_cpp.seam.OOM); where the configured run does
        not hold the requests (too few slots or cells, or an allocation that fails: ``-c 0`` is the model's whole
        training context) but a run sized to the request (``-np batch -c batch x context``) fits the GPU, "fits
        if you serve with" those flags, planned with them (``Verdict.serve_options``)."""
        from ..verdict import Verdict

        sized = self.sized_run(d, p.batch, p.context)
        if sized is not None:
            why = p.binding_constraint.split("; a run sized to the request fits")[0]
            why, _, own_fix = why.partition("); ")          # llama.cpp's own fix (OOM): the flags replace it
            why += ")" if own_fix else ""
            flags = f"-np {p.batch} -c {sized.n_ctx}"
            return Verdict("fits_if", f"Fits if you serve with {flags} (as configured, {why})",
                           f"serve with {flags}", mml, note, longest, None, sized)
        why, _, engine_fix = p.binding_constraint.partition("); ")
        return Verdict("does_not_fit", f"Does not fit: {why}{')' if engine_fix else ''}; {self.fewest_text(d, None)}",
                       engine_fix or "a smaller GGUF file type or a shorter -c", mml, note, longest, None)

    def sized_run(self, d: Deployment, batch: int, context: int) -> LlamaCppOptions | None:
        """``d``'s options with ``-np batch -c batch x context`` (the other flags as given) where that run fits the
        GPUs of ``d`` (under a layer split, split as ``d`` is) and ``d``'s own does not hold the requests (module
        docstring), else None."""
        if context > d.context_cap or (llama_solvers(d, batch, context)[1] or 0) < batch:
            return None
        sized = replace(d.llama_cpp, n_parallel=batch, n_ctx=batch * context)
        return None if sized == d.llama_cpp else sized

    def kv_read_dtype(self, d: Deployment) -> Any:
        """llama.cpp's cache holds ``-ctk`` / ``-ctv`` elements (kvcalc.llama_cpp.cache.cache_dtype), whatever the
        model dtype: ``-ctk q8_0 -ctv q8_0`` reads 34 B per 32 values a step, not 64."""
        from .cache import cache_dtype

        return cache_dtype(d.llama_cpp)

    def dequantized_prompt(self, d: Deployment) -> tuple[int, int] | None:
        """On an NVIDIA GPU with FP16 tensor cores (compute capability 7.0 and later) and a GGUF of quantized tensors,
        a pass of more tokens than MMQ takes (a MoE expert: more rows routed to it) runs
        ``ggml_cuda_op_mul_mat_cublas``, which converts each whole weight matrix to F16 in a pool buffer
        (``to_fp16_cuda(src0_dd_i, src0_as_f16...)``, ggml-cuda.cu at 4426e298) before ``cublasGemmEx``: above 32
        tokens (``MMQ_MAX_BATCH_SIZE``) in a build from PR #3776 (October 2023) to PR #8075 (June 2024: "by default
        mul_mat_q instead of FP16 cuBLAS GEMM is used"), ``--cuda-force-cublas`` (a build with
        ``GGML_CUDA_FORCE_CUBLAS`` converts from 9 tokens, taken as the same); in today's builds only where there is
        no int8 tensor-core MMQ (a V100:
        ``ggml_cuda_should_use_mmq`` returns ``!fp16_mma_hardware_available(cc) || ne11 < MMQ_DP4A_MAX_BATCH_SIZE``,
        64, ggml/src/ggml-cuda/mmq.cu at c392e509 and 027ef876). A float GGUF (F16 / BF16 / F32) is multiplied as
        stored. Returns (``-ub``, the most tokens a pass keeps on the quantized kernels).

        >>> from kvcalc import deploy
        >>> from kvcalc.catalog import bundled_config
        >>> cfg = bundled_config("meta-llama/Llama-3.1-8B")
        >>> v100, rtx = (deploy(cfg, gpu=g, runtime="llama_cpp", gguf="Q4_K_M") for g in ("v100-32gb", "rtx-4090"))
        >>> v100.engine.dequantized_prompt(v100), rtx.engine.dequantized_prompt(rtx)
        ((512, 63), None)
        >>> d = deploy(cfg, gpu="a100-80gb", runtime="llama_cpp", gguf="Q8_0", force_cublas=True)
        >>> d.engine.dequantized_prompt(d)
        (512, 32)
        """
        cc, scheme = d.gpu.cuda_capability, d.weights.scheme.upper().removeprefix("GGUF").strip()
        if d.gpu.vendor != "NVIDIA" or cc is None or cc < 70 or scheme.startswith(("F16", "BF16", "F32")):
            return None
        o = d.llama_cpp
        ubatch = min(o.n_ubatch, o.n_batch)     # llama.cpp clamps n_ubatch to n_batch
        if o.force_cublas:
            return ubatch, MMQ_MAX_BATCH_SIZE
        return (ubatch, MMQ_DP4A_MAX_BATCH_SIZE - 1) if cc < 75 else None

    def materialized_scores(self, d: Deployment) -> ScoreTraffic | None:
        """Without FlashAttention (``-fa off``) llama.cpp's graph computes each layer's scores as tensors
        (src/llama.cpp llm_build_kqv at 4426e298, May 2024: ``kq = ggml_mul_mat(k, q)``, ``ggml_soft_max_ext``,
        ``kqv = ggml_mul_mat(v, kq)``), one microbatch (``-ub``) a forward pass. ggml-cuda.cu at that build: in a
        one-token pass the KQ kernel writes F32 (4 B a score), the softmax reads and writes it (8 B) and the KQV kernel
        reads it (4 B): 16 B; in a longer pass ggml_cuda_mul_mat_batched_cublas writes F16 (2 B), converts it to F32
        (2 + 4 B), the softmax 8 B, and the KQV GEMM converts it back to F16 (4 + 2 B) and reads it (2 B): 24 B. The
        Metal and Vulkan backends are taken to move the same bytes. A sliding-window layer's scores span its cache,
        ``GGML_PAD(n_swa + n_ubatch, 256)`` cells (kvcalc.llama_cpp.cache), every cell with ``--swa-full``. An MLA
        layer caches the latent only and views V inside it (src/llama-graph.cpp ``build_attn`` with
        ``llm_graph_input_attn_k``: ``v = ggml_view_4d(k, v_cur->ne[0], ...)`` with K's strides), so
        ``build_attn_mha``'s ``v_trans = v->nb[1] > v->nb[2]`` is false and its path without FlashAttention copies it
        (``v = ggml_cont(ggml_transpose(v))``, "note: avoid this branch") before ``kqv = ggml_mul_mat(v, kq)``: the
        copy reads the view and writes the copy, the product reads the copy, 3 passes over ``kv_lora_rank`` columns
        of every cell each forward pass (read at commit 00395eb285c7c6821ff372e3ca41dae9da33c2c7).

        >>> from kvcalc import deploy
        >>> from kvcalc.catalog import bundled_config
        >>> d = deploy(bundled_config("meta-llama/Llama-3.2-1B"), gpu="rtx-4090", runtime="llama_cpp", gguf="F16",
        ...            flash_attn="off")
        >>> d.engine.materialized_scores(d)
        ScoreTraffic(one_token=16, longer=24, ubatch=512, window_pad=256, viewed_v_passes=3)
        """
        o = d.llama_cpp
        if o.flash_attention:
            return None
        return ScoreTraffic(16, 24, min(o.n_ubatch, o.n_batch), None if o.swa_full else 256, 3)

    def speculative(self, d: Deployment) -> str | None:
        """A draft model (``-md`` / ``-hfd``: ``LlamaCppOptions.speculative``) runs speculative decoding."""
        return "a draft model, -md" if d.llama_cpp.speculative else None

    def request_words(self, d: Deployment, batch: int, context: int) -> str:
        """The run the solvers size to the request (module docstring): ``-np batch -c batch x context``."""
        return f" (-np {batch} -c {batch * context})"

    def quantized_kv(self, d: Deployment) -> KvQuantization | None:
        """``-ctk q8_0 -ctv q8_0`` (common/arg.cpp ``kv_cache_types``) where either cache is wider than 8 bits."""
        o = d.llama_cpp
        if o.cache_type_k not in _WIDE_CACHE and o.cache_type_v not in _WIDE_CACHE:
            return None
        return KvQuantization(None, replace(o, cache_type_k="q8_0", cache_type_v="q8_0"), "-ctk q8_0 -ctv q8_0")

    def fewest_text(self, d: Deployment, n: int | None) -> str:
        return ("the fewest GPUs are not searched under llama.cpp: plan a GPU count (--gpus N) and its layer "
                "split (-ts)")


ENGINE: Engine = LlamaCppEngine()
"""llama.cpp (kvcalc.engines.registry)."""
