"""How fast will it serve: decode tokens/s and time to first token, estimated from the same deployment.

Always an **estimate**: a roofline over the per-layer model kvcalc already has, with efficiency
factors taken from published measurements (kvcalc.speed_reference lists them with their sources).
Units: bytes, FLOP, seconds; bandwidth in GB/s = 1e9 bytes/s and tensor rate in TFLOP/s = 1e12
FLOP/s, as GPU datasheets (and ``data/gpus.csv``) give them.

Decode (one new token for each of ``batch`` sequences, each ``context`` tokens long):
    Every step reads the weights it touches and every sequence's whole cache, once (``r`` times where the
    engine's generation kernel reads a KV head once per query head: ``Engine.kv_reads``, TensorRT-LLM
    without XQA)::

        w_s     = weights_s x touched(batch) - unread embedding rows                per GPU of stage s
        gemm_s  = 2 x active_params x batch x n_s / L / tp,  attn_s = attention FLOPs of the rank
        step    = sum over pipeline stages of
                    max(w_s / (bandwidth x eta_bw x q), gemm_s / (rate x eta_c))      the weight GEMMs
                  + max(r x kv_s(batch, context) / (bandwidth x eta_bw), attn_s / (rate x eta_c))  attention
                  + layers_s x (layer_overhead + top_k x expert_overhead)              fixed per-layer cost
                    (llama.cpp / ideal: + moe_layer_overhead per MoE layer instead of top_k x expert_overhead,
                     + mla_layer_overhead per latent-attention layer on a CUDA-class GPU;
                     a llama.cpp prefill also + FUSED_EXPERT_OVERHEAD_S per distinct expert its tokens touch)
                  + 2 x layers_s x (ALLREDUCE_LATENCY_S + 2 (tp-1)/tp x batch x hidden x 2 B / link)   tp > 1
                  + scores_s / (bandwidth x eta_bw)      an engine that writes its attention scores to memory

    ``kv_s`` is the ideal cache one rank of the stage holds (kvcalc.kv ``ideal``: full layers T
    tokens, sliding min(T, W), MLA the latent, recurrent states their fixed size), in the KV dtype:
    a step reads the tokens held, not a paged pool's empty slots. ``touched(batch)`` is 1 for dense
    models; for MoE it is ``1 - f_experts x (1 - E_b / E)``, with ``E_b = E x (1 - (1 - k / E)^batch)``
    the expected number of distinct experts ``batch`` tokens activate per layer under uniform
    routing (each token picks ``k`` of ``E``) and ``f_experts`` the routed experts' share of the
    parameters. Of an input embedding table that is not also the LM head on that GPU, a step reads
    only the ``batch`` rows it looks up. The attention term per layer and sequence is
    ``2 x query_heads x (k_dim + v_dim) x tokens attended`` (MLA: ``2 x query_heads x 2 x latent``).
    The GEMMs and the attention are separate kernels that run one after the other, so each is its
    own roofline (a large batch's GEMMs can be compute-bound while its attention streams the cache).
    ``q`` is QUANTIZED_BANDWIDTH_SHARE for integer-quantized weights (their unpacking), else 1. A decode step's
    ``bandwidth`` is :func:`decode_bandwidth_gbps`: the datasheet's, or under llama.cpp on an NVIDIA GPU at most
    LLAMA_CPP_SM_STREAM_GBPS x its SMs (the loads in flight its one-token kernels keep per SM).
    Tokens/s per sequence ``1 / step``; aggregate ``batch / step``. Pipeline stages run one after
    another within a step (no micro-batch overlap). ``link`` is the catalog's GPU-to-GPU bandwidth per
    direction (NVLink or PCIe, data/gpus.csv ``link_gbps``), ``top_k`` 0 for a dense model.
    ``layer_overhead`` is LAYER_OVERHEAD_S (CUDA graphs) or METAL_LAYER_OVERHEAD_S on an Apple GPU;
    ``expert_overhead`` EXPERT_OVERHEAD_S in vLLM / SGLang / transformers (EARLIER_RELEASE_EXPERT_OVERHEAD_S in
    SGLang 0.4 and vLLM 0.10: :func:`expert_path`), TRTLLM_EXPERT_OVERHEAD_S in TensorRT-LLM; ``moe_layer_overhead``
    MOE_LAYER_OVERHEAD_S (METAL_MOE_LAYER_OVERHEAD_S on Apple) in llama.cpp and ``ideal``, plus MLA_LAYER_OVERHEAD_S
    per MLA layer there (:func:`layer_overhead`, :func:`expert_overhead`, :func:`moe_layer_overhead`,
    :func:`mla_layer_overhead`). ``scores_s`` is the traffic of attention scores written and read back where the
    engine materializes them (``Engine.materialized_scores``: llama.cpp without FlashAttention, bytes a score x
    query heads x batch x cells attended, + on an MLA layer the copy of the V it views inside its latent,
    ``viewed_v_passes x kv_lora_rank x cells`` elements; :func:`_materialized_bytes`), 0 elsewhere.
Prefill (time to first token, ``batch`` prompts of ``prompt`` tokens in one forward pass):
    ``flops = 2 x active_params x batch x prompt + attention`` with causal attention over
    ``sum_{t=1..P} min(t, W)`` tokens per query position; per stage ``c = flops_s / (tp x rate x eta_c)``
    and ``m = (weights_s + kv written_s) / (bandwidth x eta_bw)``, ``time = max(c, m) +
    PREFILL_OVERLAP x min(c, m)`` + the same fixed per-layer cost + ``layers x PREFILL_LAYER_OVERHEAD_S``
    (a prefill runs outside the decode CUDA graphs; under SGLang + SGLANG_PREFILL_LAYER_OVERHEAD_S, its eager
    extend pass and the request's handling: :func:`prefill_layer_overhead`) + the all-reduce of ``batch x prompt``
    tokens + TTFT_FIXED_S once + the prompt's materialized scores and MLA V copies (pass by pass, :func:`_passes`)
    + where the engine converts quantized weights to F16 before a pass's GEMMs (llama.cpp's cuBLAS path:
    ``Engine.dequantized_prompt``) their stored bytes + 2 B a weight per longer pass (:func:`_dequantized_bytes`).
    ``rate`` is the catalog's dense bf16 rate (fp16 on a GPU without bf16), or its FP8 / FP4 rate x FP8_RATE_SHARE
    for fp8 / nvfp4 weights, or under llama.cpp on an NVIDIA GPU LLAMA_CPP_RATE_SHARE x its FP16-accumulate rate.
    ``ttft_seconds`` is the whole batch's prefill,
    ``ttft_seconds_per_prompt`` one prompt's.
An AMD GPU (:func:`vendor_factors`): ``bandwidth`` is divided by AMD_BANDWIDTH_FACTOR in both, and every fixed cost
and all-reduce is x AMD_FIXED_FACTOR; the tensor rate is the NVIDIA-fitted share (no AMD row is compute-bound).
Range: every figure has a low-high from the spread of its category on the published rows
(:data:`SPREAD`, :func:`speed_category`).

Not modelled (each stated in the assumptions): the dequantization cost of quantized weights beyond
one fitted bandwidth share (such estimates fall in the ``quantized`` category, with its own range),
scheduling and sampling overheads beyond the fitted fixed costs, engine-version kernel differences beyond XQA
(docs/speed.md lists the outliers), speculative decoding, pipeline-stage transfers.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .deployment import Deployment
from .dtypes import ceil_div
from .engines.base import ScoreTraffic
from .errors import InputError, KVCalcError
from .gpus import get_gpu
from .limits import MAX_BATCH, MAX_CONTEXT, MIN_EFFICIENCY, check_count, check_finite
from .parallel import stage_specs
from .spec import AttentionCache, ModelSpec
from .sweep import CompiledCache, cache_bytes, compile_cache

DEFAULT_BANDWIDTH_EFFICIENCY = 0.78
"""Share of the datasheet memory bandwidth a decode step achieves: the median, rounded to 0.01, of
the shares implied by the published decode figures with nothing unmodelled (6 rows: 0.71-0.82 on
A100, H100, L40S, RTX 4090 / 5090, fixed costs taken off; the RTX 3090's, whose llama.cpp rows
:data:`LLAMA_CPP_SM_STREAM_GBPS` is fitted on, no longer);
``kvcalc.speed_reference.derived_efficiencies()[0]``."""

DEFAULT_COMPUTE_EFFICIENCY = 0.84
"""Share of the datasheet dense bf16 tensor rate a compute-bound prefill achieves: the median,
rounded to 0.01, of the shares implied by the published prefill figures with nothing unmodelled
(10 rows, fixed costs taken off: 0.72 A100 and 0.76 H100 / 0.93 L40S (their FP8 rate x FP8_RATE_SHARE)
TensorRT-LLM at 2,048 tokens, 0.91 / 1.29 RTX 3090 / 4090 llama.cpp pp512 and 0.81-0.91 A100 PCIe llama.cpp
pp512-pp8192 (PR #6017), of their FP16-accumulate rate x LLAMA_CPP_RATE_SHARE, with their materialized attention
scores taken off as well; 0.91 before PR #6017's five rows came in); the rate of the engine's GEMMs
(:func:`_tensor_rate`); ``kvcalc.speed_reference.derived_efficiencies()[1]``."""

LAYER_OVERHEAD_S = 10e-6
"""Fixed seconds per decoder layer per forward pass (kernel launches, norms, rotary, sampling share):
fitted (benchmarks/fit_speed_constants.py) on the batch-1 dense decode rows of
data/speed_measurements.csv; launch latency is 2-5 us per kernel and a layer runs 8-12 of them
(CUDA Programming Guide, 'CUDA Graphs'; vLLM and llama.cpp capture graphs, which removes most of it)."""

EXPERT_OVERHEAD_S = 8e-6
"""Fixed seconds per MoE layer and per routed expert a token runs (top-k) in vLLM, SGLang and transformers
(TensorRT-LLM: :data:`TRTLLM_EXPERT_OVERHEAD_S`; SGLang 0.4 and vLLM 0.10:
:data:`EARLIER_RELEASE_EXPERT_OVERHEAD_S`): the router GEMM, top-k / softmax, the token sort and block alignment
(fused_moe: ``moe_align_block_size`` then one program per (expert, tile)), the gather / scatter and one small GEMV
pair per expert, none of them enough to fill the GPU at batch 1. Fitted (benchmarks/fit_speed_constants.py) on the
batch-1 MoE decode rows of recent SGLang builds in data/ (sgl-cookbook): SGLang 0.5.6's Qwen3-235B-A22B and
0.5.6.post1's DeepSeek-R1-0528 on 8 x B200 (three runs each) and the gemma-4 branch's (April 2026) gemma-4-26B-A4B
on one H200 (its MI300X run is an AMD GPU's: :data:`UNCALIBRATED_VENDORS`). The held-out SGLang 0.5.7
DeepSeek-R1 on 8 x H200 and vLLM gpt-oss-120b on H100 (its Marlin MXFP4 path) rows check it. transformers has
no rows: its per-expert loop is given the same cost, an extrapolation."""

EARLIER_RELEASE_EXPERT_OVERHEAD_S = 58e-6
"""The same cost in the serving releases up to August 2025 that kvcalc plans by version: SGLang 0.4
(``sglang_version="0.4"``: v0.4.1-0.4.2, kvcalc.sglang.defaults), whose DeepSeek-V3 decode ran its FP8
block-quantized experts through that release's Triton kernels, and vLLM 0.10 (``vllm_version="0.10"``, which the
validation also gives the earlier vLLM releases; gpt-oss came with 0.10.1, first as the ``vllm/vllm-openai:gptoss``
image). Fitted on SGLang v0.4.1's batch-1 DeepSeek-V3 row on 8 x H200 (PR 2643's release note) alone, so it
describes that row; its batch 8 / 32 rows, vLLM's gpt-oss launch image on one and two A100s (gpt-oss-120b at batch
1: 1.08 and 1.16 under this cost, 3.3 and 3.1 under :data:`EXPERT_OVERHEAD_S`) and dstack's vLLM 0.7.4 DeepSeek-R1
sweep on 8 x H200 (concurrency 4-128: 0.73-1.18 but its capacity-bound 6,400-token run, 1.5-2.8 under
:data:`EXPERT_OVERHEAD_S`) check it. That the vLLM rows share SGLang 0.4's cost was tried on those rows before it
was kept: they check it across engines, not blind."""

MOE_LAYER_OVERHEAD_S = 56e-6
"""Fixed seconds per decoder layer of a MoE model in a llama.cpp (and ``ideal``) forward pass on a CUDA-class
GPU, whatever its top-k: the router matmul, ``ggml_top_k`` / softmax, the ``ggml_mul_mat_id`` launches that run
every selected expert of a token inside one matrix-vector kernel per projection (ggml-cuda mmvq with ids, under a
captured CUDA graph) and the weighted sum of the experts' outputs (llama.cpp ``llm_graph_context::build_moe_ffn``).
Charged on every layer of the model (a ModelSpec has no per-layer MoE flag: DeepSeek's 1-3 dense first layers
pay it too). One cost per layer, not per expert: with the bytes a step reads counted from the GGUF's own
tensors, this form fitted data/'s 9 llama.cpp MoE rows of the time it was chosen with a squared log error of 0.66
against 0.90 for a cost per expert x top-k (docs/speed.md). Fitted, together with :data:`MLA_LAYER_OVERHEAD_S`,
on the 12 llama.cpp batch-1 MoE decode rows of data/speed_measurements.csv on CUDA-class GPUs (gpt-oss-20b,
Qwen3-30B-A3B and DeepSeek-V2-Lite on RTX 3090 / 4090 / 5090 and V100, CUDA and Vulkan)."""

MLA_LAYER_OVERHEAD_S = 84e-6
"""Fixed seconds per decoder layer with multi-head latent attention (DeepSeek's MLA) in a llama.cpp (and
``ideal``) forward pass on a CUDA-class GPU, beyond :data:`LAYER_OVERHEAD_S` and the MoE cost: the absorbed
decode path (llama.cpp ``src/models/deepseek2.cpp``, ``is_mla``) runs, besides a GQA layer's projections, the
per-head ``wk_b`` and ``wv_b`` products as batched 3-D matmuls, the latent's own norm and RoPE, and two
concats building the 576-wide query and key, each a kernel too small to fill the GPU at batch 1. Fitted
together with :data:`MOE_LAYER_OVERHEAD_S` (coordinate-wise, benchmarks/fit_speed_constants.py) on the
llama.cpp batch-1 MoE decode rows of data/speed_measurements.csv on CUDA-class GPUs, of which the MLA ones are
DeepSeek-V2-Lite's (RTX 3090 / 4090 / 5090, V100): with one cost per MoE layer alone, DeepSeek-V2-Lite came
out 0.95-1.84 and the GQA models (gpt-oss-20b, Qwen3-30B-A3B) 0.68-0.87. 100 us until the copy of the V an MLA
layer views inside its latent without FlashAttention was counted (:func:`_materialized_bytes`): the V100 row at 32K
depth, which runs without it, had carried that copy; 88 us until :data:`LLAMA_CPP_SM_STREAM_GBPS`. Not charged on an
Apple GPU (its
constants are fitted on its own rows, DeepSeek-R1 among them) nor in the serving engines (their MoE cost per
expert is fitted on DeepSeek-V3, an MLA model)."""

METAL_MOE_LAYER_OVERHEAD_S = 68e-6
"""The same cost per layer on an Apple GPU (llama.cpp's Metal backend, ``kernel_mul_mv_id``; one dispatch per
graph node, no graph replay). Fitted on the Apple batch-1 MoE decode rows (DeepSeek-R1 Q4_K_M on an M3 Ultra,
Qwen3-Coder-30B-A3B Q8_0 on an M2 Ultra)."""

FUSED_EXPERT_OVERHEAD_S = 32.5e-6
"""Fixed seconds per MoE layer and per expert a llama.cpp (and ``ideal``) **prefill** touches: with many
tokens ``ggml_mul_mat_id`` runs each used expert's rows as their own matmul (ggml-cuda
``ggml_cuda_mul_mat_id``), so the cost grows with the experts the prompt's tokens activate. Fitted on the
llama.cpp MoE prompt-processing rows (gpt-oss-20b and DeepSeek-V2-Lite pp512 on an RTX 3090)."""

TRTLLM_EXPERT_OVERHEAD_S = 6e-6
"""The same per-expert cost in TensorRT-LLM, whose MoE layers run its own fused kernels (CUTLASS / trtllm-gen
grouped GEMMs with the routing fused in: tensorrt_llm/_torch/modules/fused_moe), not vLLM's Triton fused_moe.
Fitted on TensorRT-LLM's batch-1 MoE decode rows (DeepSeek-R1 NVFP4 on 8 x B200, TensorRT-LLM issue 5929);
the same issue's 8 x H200 FP8 rows, kept aside, decode 1.5-1.9x slower than it predicts (docs/speed.md)."""

SERVING_RUNTIMES = ("vllm", "sglang", "tensorrt_llm", "transformers")
"""Runtimes whose MoE layers pay a serving engine's per-expert cost (:data:`EXPERT_OVERHEAD_S`, TensorRT-LLM's
:data:`TRTLLM_EXPERT_OVERHEAD_S`); the others (llama.cpp, ``ideal``) pay :data:`MOE_LAYER_OVERHEAD_S` per layer
and, in a prefill, :data:`FUSED_EXPERT_OVERHEAD_S` per touched expert."""

GROUPED_MOE_RUNTIMES = ("vllm", "sglang")
"""Runtimes whose MoE layer is one grouped launch over every expert a batch touches (vLLM / SGLang
``fused_moe``: one Triton grid of (expert, tile) programs after ``moe_align_block_size``): a prefill pays the
fixed per-expert cost for ``top_k`` experts, as a decode step does, however many experts its tokens touch
(their work is in the GEMM FLOPs). The others pay for each touched expert: llama.cpp's CUDA
``ggml_cuda_mul_mat_id`` and transformers' expert loop run a matmul per expert, and TensorRT-LLM's two
DeepSeek-R1 prefill rows of data/ (8 x B200, 1,600 and 8,192 tokens) follow that form, not the grouped one."""

METAL_LAYER_OVERHEAD_S = 90e-6
"""Fixed seconds per decoder layer per forward pass on an Apple GPU (data/gpus.csv vendor ``Apple``) in
place of :data:`LAYER_OVERHEAD_S`: llama.cpp's Metal backend encodes every graph node as its own compute
dispatch with a memory barrier between dependent ones and has no graph replay like CUDA graphs, so each
of a layer's ~15-20 kernels costs its dispatch (ggml-org/llama.cpp commit 'Much better Q6_K
implementation for metal': on an M2 Max '~9 ms [of 28.3 ms / token for 7B] is spent in other compute
graph operations' than the matrix multiplications). Fitted on the Apple decode rows of
data/speed_measurements.csv (M2 Ultra Llama-3.2-3B F16, M3 Ultra Llama-3.3-70B Q4_K_M)."""

ALLREDUCE_LATENCY_S = 24e-6
"""Fixed seconds per all-reduce of a tensor-parallel layer (two a layer: after attention and after the
MLP; vLLM and TensorRT-LLM RowParallelLinear): fitted on the TP > 1 decode rows; NCCL's small-message
all-reduce latency is ~5-20 us (nccl-tests all_reduce_perf at 8 B-64 KiB)."""

PREFILL_OVERLAP = 0.0
"""Share of the shorter of a prefill's compute and weight-read times that is NOT hidden under the
longer one: ``time = max(c, m) + PREFILL_OVERLAP x min(c, m)``; a short prompt's GEMMs have too few
rows to overlap the weight stream with the tensor cores (the prefill floor). Fitted on the
single-GPU bf16 / fp16 time-to-first-token and prompt-processing rows: 0 since the fixed cost per prefill layer
(:data:`PREFILL_LAYER_OVERHEAD_S`) and per touched expert (:data:`FUSED_EXPERT_OVERHEAD_S`) carry that floor;
kept as a term of the formula."""

FP8_RATE_SHARE = 0.625
"""Share of the datasheet FP8 (or FP4) dense rate a prefill on fp8 weights reaches relative to the bf16
share (``compute_efficiency``): the FP8 GEMMs of the published figures run well below their 2x peak.
Fitted on the FP8 time-to-first-token rows (TensorRT-LLM's H100 / L40S 'Low Latency' tables)."""

LLAMA_CPP_RATE_SHARE = 0.5
"""Share of the FP16-accumulate dense rate llama.cpp's prefill GEMMs are costed at, before ``compute_efficiency``:
its cuBLAS GEMMs accumulate in fp16 (``Engine.fp16_accumulate_gemms``), whose rate on a GeForce card is twice the
FP32-accumulate figure the catalog lists, yet its published RTX 3090 / 4090 prompt figures (data/) run at about that
FP32-accumulate figure. Not a free fit: 0.5 kept the GeForce estimates where data/'s rows set them when it was chosen
(kvcalc.speed_reference.derived_efficiencies, whose median clean prefill row was then llama.cpp's RTX 3090 F16 one),
so data/'s figures were unchanged by the rule; on a data-center or workstation card, whose FP16- and FP32-accumulate
rates are the same, it halves the rate. Since PR #6017's A100 PCIe prompts joined the median (compute share 0.84),
the RTX 3090 F16 pp512 comes out at 0.93 and the RTX 4090's at 0.73: llama.cpp's GeForce prompts run faster than
this estimate, its A100 PCIe ones (0.94-1.03) as fast. The rule was chosen after the held-out llama-bench tables had
been run (an RTX A6000, the RTX 3090's chip with twice its listed rate, ran prompts at the 3090's speed): the held-out
set is not blind to it (docs/speed.md)."""

LLAMA_CPP_RATE_NAME = f"({LLAMA_CPP_RATE_SHARE:g} x fp16-accumulate)"
"""The name of that rate in the estimate (``SpeedEstimate.prefill_tensor_rate``, its formula and efficiency line)."""

RANGE_BAND = (0.7, 1.3)
"""The narrowest range shown, as r = measured / estimated seconds: the +-30 % the estimate is validated to
(tests/fast/test_speed_validation.py). A category's spread over its 3-21 published rows understates how far
a setup those rows do not cover can fall, so no range is narrower than that band."""

SPREAD: dict[str, tuple[float, float]] = {
    "AMD GPU": (0.7, 1.37), "dense": (0.7, 1.3), "long prefill": (0.7, 1.3), "moe": (0.7, 1.56),
    "quantized": (0.7, 1.4), "short prefill": (0.67, 1.3), "tensor parallel": (0.7, 1.83),
}
"""Per category (:func:`speed_category`), the lowest and highest r = measured seconds / estimated seconds
over the published rows of ``data/speed_measurements.csv`` in that category (but the client-timed times to first
token of the engines other than SGLang: kvcalc.speed_reference.Measurement.sets_range), rounded outward to 0.01 and
widened to at least :data:`RANGE_BAND` (kvcalc.speed_reference.measured_spread() recomputes them;
tests/fast/test_speed_range.py checks the two agree). The shown range is the estimate divided by that
spread: tokens/s from ``point / r_high`` to ``point / r_low``, seconds from ``point x r_low`` to
``point x r_high``; the fast end stops where the datasheet bandwidth and tensor rate would (the step's
bytes at ``bandwidth_gbps``, its FLOPs at the full rate, no fixed cost): ``point / r_low`` assumes
0.78 / 0.7 = 1.1x the bandwidth on a memory-bound step, which no GPU reaches."""

UNCALIBRATED_VENDORS: dict[str, str] = {"AMD": "AMD GPU"}
"""GPU vendors (data/gpus.csv ``vendor``) the per-kernel constants are not fitted on, each with its own category:
their published rows in data/ (ROCm builds of vLLM and SGLang on an MI300X, all of MoE models) set no constant but
:data:`AMD_BANDWIDTH_FACTOR` and :data:`AMD_FIXED_FACTOR` (benchmarks/fit_speed_constants.py leaves them out of the
rest) and their own category's range: under the NVIDIA-fitted rules they spread from r 1.0 to 2.4 in data/, the ROCm
kernels and releases varying more than two factors describe."""

LLAMA_CPP_FITTED_GPUS = frozenset({"rtx-3090", "rtx-4090", "rtx-5090", "v100-32gb", "a100-80gb-pcie",
                                   "m2-ultra-192gb", "m3-ultra-512gb"})
"""The GPUs (data/gpus.csv keys) of data/'s llama.cpp rows, on which llama.cpp's constants are fitted. A llama.cpp
estimate on another GPU names that in its assumptions, with how far the figures kept aside on such GPUs went
(XiongjieDai's May 2024 llama-bench tables, data/speed_heldout.csv: decode 0.72-1.21 on an A100 SXM and H100 PCIe
under :data:`LLAMA_CPP_SM_STREAM_GBPS` (1.2-2.0x before it), within +-30 % on an RTX 4080, L40S and RTX A6000, up to
1.6x on an M1 Max; prefill up to 11.7x, on the A100 SXM's F16 prompts). tests/fast/test_speed_range.py
checks this set against data/ and the line's figures against the held-out rows. Not on an AMD GPU, whose own line
(:data:`UNCALIBRATED_VENDORS`) covers it."""

AMD_BANDWIDTH_FACTOR = 2.3
"""Factor on an AMD GPU's memory-bound seconds (the weights, KV and materialized scores a step or a prefill reads):
its bandwidth share is ``bandwidth_efficiency`` / this, 0.78 / 2.3 = a third of the datasheet; the fixed seconds take
:data:`AMD_FIXED_FACTOR`. Fitted with it on one 2-D grid (benchmarks/fit_speed_constants.py), minimising the squared
log of r = measured / estimated seconds over the data/ rows on an AMD GPU (24: vLLM 0.7.3 and SGLang 0.4.2 DeepSeek-R1
on 8 x MI300X at concurrency 4-128, dstack's March 2025 sweep; vLLM 0.17 gpt-oss-120b on one, InferenceX PR 1061;
SGLang's gemma-4 branch gemma-4-26B-A4B, sgl-cookbook; all of them MoE models) under the rules fitted on NVIDIA GPUs:
an MI300X's ROCm kernels of those releases stream its 5.3 TB/s at about a third, while their fixed per-layer and
per-expert costs are about the NVIDIA ones. One factor on every second (1.6, their geometric mean, before) left
SGLang's concurrency-4 run at 0.62 (fixed-cost bound) and its concurrency-128 run at 1.40 (bandwidth-bound); the two
factors put 22 of the 24 within +-30 % (squared log error 0.70 against 1.37). Every one of those rows is
bandwidth-bound, so the compute-bound side keeps the NVIDIA-fitted share of the tensor rate: a compute-bound AMD
estimate (a long prompt's prefill) is an extrapolation, and says so. The same sweep's vLLM rows on 8 x H200 (data/)
come out at 0.73-1.18 under the NVIDIA rules: the gap is the MI300X's kernels, not the benchmark. A dense model on an
AMD GPU is an extrapolation too: the only dense AMD rows (held out: llama.cpp, SGLang and vLLM 0.6.3 builds of
October 2024) ran 1.0-3.1x this estimate."""

AMD_FIXED_FACTOR = 1.1
"""Factor on the fixed seconds on an AMD GPU (per layer, per expert, once per prefill: :func:`_fixed_seconds`,
:func:`prefill_layer_overhead`) and its all-reduces (RCCL, :func:`_allreduce_seconds`): fitted with
:data:`AMD_BANDWIDTH_FACTOR` on the same rows."""

LLAMA_CPP_SM_STREAM_GBPS = 10.9
"""GB/s per streaming multiprocessor (SM) that llama.cpp's one-token decode kernels stream at most on an NVIDIA GPU,
at a batch of up to :data:`LLAMA_CPP_VECTOR_BATCH` (``Engine.sm_stream_limited``; :func:`decode_bandwidth_gbps`). The
mechanism is inferred, not read from a kernel: a kernel streams at most the bytes it keeps in flight per SM over the
memory latency (Little's law), and the matrix-vector kernels (dequantize_mul_mat_vec in the March 2024 build of the
row below; mul_mat_vec / mul_mat_vec_q today) run a weight row or two per small block. Fitted
(benchmarks/fit_speed_constants.py) on data/'s 23 llama.cpp decode rows on NVIDIA GPUs, all at batch 1. 10.9 is a
compromise: llama.cpp PR #6017's A100 80GB PCIe tg128 (Llama-2-7B F16, 74.77 tok/s: 1.0 TB/s of the 1,935 datasheet;
1.45x the estimate at the constants before the limit, 1.47 at today's with it lifted) alone gives 12.0, the RTX 3090
and V100 rows, which the limit binds a little (82 SMs: 894 of 936 GB/s; 872 of 900), alone 10.7; at 10.9 the A100 row
comes out at 0.91, and the RTX 5090's rows (10.5 GB/s per SM), which reach the full share, bound it from below. On
an A100 it is 1,177 GB/s of 1,555-2,039, on an H100 PCIe 1,243 of 2,000; on an H100 SXM, H200 or B200 (25-54 GB/s per
SM), where no published llama.cpp figure was found, an extrapolation. Not binding on the catalog's other NVIDIA cards
(5-10.5 GB/s per SM), nor on AMD or Apple GPUs (no SM count in the catalog); a llama.cpp Vulkan build on an NVIDIA card
is planned the same way (no data/ row checks that: its Vulkan rows are on an RTX 5090, below the limit)."""

QUANTIZED_SHARE = 0.6
"""A measured weight size below this share of the 16-bit count is an integer-quantized checkpoint
(8-bit weights are 0.5 of it, 4-bit about 0.3): read at QUANTIZED_BANDWIDTH_SHARE, with its own
category and spread."""

QUANTIZED_BANDWIDTH_SHARE = 0.82
"""Share of the bandwidth efficiency the weight read of a decode step on integer-quantized weights
reaches (the GEMV unpacks every weight: int8 / int4 / GGUF Q-types / MXFP4 on cards without FP4 tensor
cores): fitted (benchmarks/fit_speed_constants.py) on the dense quantized batch-1 decode rows. The
gpt-fast README's own achieved-bandwidth column shows the effect on one A100: 1,397 GB/s bf16,
1,069 GB/s int8, 863 GB/s int4 on Llama-2-7B."""

TTFT_FIXED_S = 0.0
"""Fixed seconds of a time to first token once per prefill beyond its forward pass (the first token's
sampling, the logits copy and host round trip). Fitted jointly with :data:`PREFILL_LAYER_OVERHEAD_S` on the
time-to-first-token rows (TensorRT-LLM's 'Low Latency' tables: Llama 7B on A100 / H100 / L40S, Llama-2-70B
at TP 4 on A100 / H100, 128 and 2,048 tokens): the fit puts all of the fixed cost per layer (the 70B rows'
80 layers take proportionally more than the 7B rows' 32), so this is 0; kept as a term of the formula."""

PREFILL_LAYER_OVERHEAD_S = 160e-6
"""Fixed seconds per decoder layer of a prefill beyond :data:`LAYER_OVERHEAD_S`: the engines capture CUDA
graphs for decode batches only (vLLM ``cudagraph_capture_sizes``, SGLang ``cuda_graph_max_bs``;
TensorRT-LLM's context phase enqueues its plugins without one), so a prefill pays each of a layer's
kernels' host launch (2-5 us a launch, CUDA C Programming Guide 'CUDA Graphs'; 160 us is some 30-80 of
them, with the small-M GEMM tiles of a short prompt). Fitted jointly with :data:`TTFT_FIXED_S` on the
time-to-first-token rows (Llama 7B on one GPU, Llama-2-70B at TP 4), whose layer counts (32, 80)
separate the two."""

SGLANG_PREFILL_LAYER_OVERHEAD_S = 0.94e-3
"""Fixed seconds per decoder layer of an SGLang prefill beyond :data:`PREFILL_LAYER_OVERHEAD_S` (fitted on
TensorRT-LLM's C++ runtime): SGLang runs its extend (prefill) pass eagerly by default (SGLang 0.5.6
``server_args.ServerArgs.enable_piecewise_cuda_graph = False``; ``model_runner.forward_extend`` replays a graph
only when it is on), so each of a layer's kernels pays PyTorch's Python dispatch as well as its launch; FP8
block-quantized linears add a per-token-group quantization kernel each. Fitted (benchmarks/fit_speed_constants.py)
on SGLang's times to first token in data/ (sgl-cookbook, bench_serving at concurrency 1: Qwen3-235B-A22B and
DeepSeek-R1-0528 on 8 x B200 at 610 and 4,194 tokens, gemma-4-26B-A4B on one H200). Those are
client-timed, so this also carries the request's tokenization, scheduling and HTTP round trip, which those rows
do not separate from the forward pass; their nearly flat TTFT over prompt length (Qwen3-235B-A22B: 92 ms at 610
tokens, 115 ms at 4,194) is what puts it per layer, not per token."""

GB = 10**9
TFLOP = 10**12



@dataclass(frozen=True)
class SpeedEstimate:
    """Decode and prefill speed of one deployment at one batch and context (module docstring).

    A part whose GPU figure is unknown is None, with the reason in ``unavailable``."""

    batch: int
    context: int
    prompt_tokens: int
    bandwidth_efficiency: float
    compute_efficiency: float
    decode_step_seconds: float | None
    decode_tokens_per_s_per_sequence: float | None
    decode_tokens_per_s_total: float | None
    decode_bytes_per_step: int          # summed over pipeline stages, one tensor-parallel rank
    decode_weight_bytes: int
    decode_kv_bytes: int
    decode_flops_per_step: int
    decode_bound: str | None            # "memory bandwidth" or "compute"
    decode_fixed_seconds: float | None  # per-layer (and per-expert) fixed cost (an AMD GPU's x AMD_FIXED_FACTOR)
    decode_allreduce_seconds: float | None   # tensor-parallel all-reduce (an AMD GPU's x AMD_FIXED_FACTOR)
    prefill_tensor_rate: str            # "bf16", "fp16", "fp8", "fp4" or LLAMA_CPP_RATE_NAME: the catalog rate
    #                                     the prefill uses (times its share: FP8_RATE_SHARE, LLAMA_CPP_RATE_SHARE)
    decode_category: str                # speed_category of the decode (its range's spread)
    prefill_category: str               # speed_category of the whole batch's prefill
    decode_tokens_per_s_per_sequence_low: float | None
    decode_tokens_per_s_per_sequence_high: float | None
    decode_tokens_per_s_total_low: float | None
    decode_tokens_per_s_total_high: float | None
    ttft_seconds: float | None          # the whole batch's prefill: ``batch`` prompts in one forward pass
    ttft_seconds_per_prompt: float | None   # one prompt alone (batch 1)
    ttft_seconds_low: float | None
    ttft_seconds_high: float | None
    ttft_seconds_per_prompt_low: float | None
    ttft_seconds_per_prompt_high: float | None
    prefill_flops: int
    prefill_bound: str | None
    experts_touched: float | None       # expected distinct routed experts per MoE layer at this batch
    formulas: tuple[str, ...]
    assumptions: tuple[str, ...]
    unavailable: tuple[str, ...] = ()
    quality: str = "estimated"

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


def quantized_weights(d: Deployment) -> bool:
    """Integer-quantized weights: a GGUF or checkpoint scheme that is not a float format, or a measured
    size below :data:`QUANTIZED_SHARE` of the 16-bit count."""
    scheme = d.weights.scheme.lower().removeprefix("gguf").strip()
    if not scheme.startswith(("bfloat16", "float16", "float32", "bf16", "f16", "f32", "fp16", "fp32", "fp8", "float8")):
        return True
    measured = d.measured.weights_bytes
    return measured is not None and measured < QUANTIZED_SHARE * d.weights_computed.total_bytes


def speed_category(d: Deployment, *, decode: bool, tokens: int) -> str:
    """The validation category an estimate falls in (its range comes from that category's spread):
    ``AMD GPU`` on an AMD GPU whatever the rest (:data:`UNCALIBRATED_VENDORS`); ``tensor parallel`` on more
    than one GPU; for decode ``moe``, ``quantized`` (dense, integer weights) or ``dense``; for a prefill of
    ``tokens`` prompt tokens in all ``short prefill`` up to 512, ``long prefill`` beyond."""
    if d.gpu.vendor in UNCALIBRATED_VENDORS:
        return UNCALIBRATED_VENDORS[d.gpu.vendor]
    if d.tp * d.pp > 1:
        return "tensor parallel"
    if decode:
        return "moe" if d.spec.moe_experts else "quantized" if quantized_weights(d) else "dense"
    return "short prefill" if tokens <= 512 else "long prefill"


def _spread(category: str) -> tuple[float, float]:
    return SPREAD.get(category, (min(lo for lo, _ in SPREAD.values()), max(hi for _, hi in SPREAD.values())))


def expected_experts(num_experts: int, top_k: int, tokens: int) -> float:
    """Expected distinct experts ``tokens`` tokens activate when each picks ``top_k`` of
    ``num_experts`` uniformly: ``E x (1 - (1 - k / E)^tokens)``."""
    k = min(top_k, num_experts)
    return num_experts * (1.0 - (1.0 - k / num_experts) ** tokens)


def _causal_attended(a: AttentionCache, prompt: int, encoder_tokens: int) -> int:
    """Sum over query positions 1..P of the tokens each attends to (causal, windowed)."""
    if a.source == "cross":
        return prompt * encoder_tokens
    w = a.window
    if w is None or prompt <= w:
        return prompt * (prompt + 1) // 2
    return w * (w + 1) // 2 + (prompt - w) * w


def _passes(prompt: int, ubatch: int, cap: int) -> tuple[int, int]:
    """Over a prompt of ``prompt`` tokens fed ``ubatch`` tokens a forward pass, each pass spanning every cell written
    so far, its own included (``cap`` a sliding window's span, 0 none): (``sum_k min(k u, cap)`` cells the passes
    span, ``sum_k tokens_k x min(k u, cap)`` the scores one query head computes over them, masked, not causal within
    a pass), in closed form (a -ub 1 prompt of a million tokens is a million passes).

    >>> _passes(1024, 512, 0), _passes(1000, 512, 0), _passes(4096, 1024, 2048)   # 512 + 1,024 cells; ...
    ((1536, 786432), (1512, 750144), (7168, 7340032))
    """
    u = max(1, min(ubatch, prompt))
    full, rest = divmod(prompt, u)
    below = full if cap == 0 else min(full, cap // u)
    tail = _span(prompt, cap) if rest else 0
    cells = u * below * (below + 1) // 2 + (full - below) * cap + tail
    return cells, u * (cells - tail) + rest * tail


def _span(cells: int, cap: int) -> int:
    """The cells a layer attends over: ``cells``, or at most ``cap`` (0 = no cap)."""
    return cells if cap == 0 else min(cells, cap)


def _conversion_rule(d: Deployment) -> tuple[int, int] | None:
    """``Engine.dequantized_prompt`` of the deployment, memoized on it (the decode grid asks it per batch and stage)."""
    if "conversion_rule" not in d._memo:
        d._memo["conversion_rule"] = d.engine.dequantized_prompt(d)
    rule: tuple[int, int] | None = d._memo["conversion_rule"]
    return rule


def _score_traffic(d: Deployment) -> ScoreTraffic | None:
    """``Engine.materialized_scores`` of the deployment, memoized on it (a decode grid asks it per point)."""
    if "score_traffic" not in d._memo:
        d._memo["score_traffic"] = d.engine.materialized_scores(d)
    traffic: ScoreTraffic | None = d._memo["score_traffic"]
    return traffic


def _copies_viewed_v(d: Deployment) -> bool:
    """Whether the deployment's materialized attention traffic includes an MLA layer's V copy (the engine copies a
    viewed V and a layer views one): the assumption line and the formula name it then."""
    t = _score_traffic(d)
    return bool(t and t.viewed_v_passes and any(st.viewed_v for st in _stages(d)))


def _materialized_bytes(d: Deployment, st: _Stage, batch: int, *, context: int = 0, prompt: int = 0) -> int:
    """Memory traffic of the attention tensors one GPU of stage ``st`` writes and reads back when the engine
    materializes them, its scores and an MLA layer's V copy (``Engine.materialized_scores``: llama.cpp without
    FlashAttention; 0 otherwise): in a decode step ``batch`` tokens x each sequence's ``context`` cells per query
    head, in a prefill ``batch`` prompts of ``prompt`` tokens in microbatches (:func:`_passes`), a sliding-window
    layer over its cache's cells (``ScoreTraffic.span_cap``), at the engine's bytes per score. Each sequence over
    its own cells only: a lower bound where one unified cache holds every slot (llama.cpp ``--kv-unified``),
    whose scores span them all. Where a layer's V is a view inside its cached MLA latent, each pass also moves
    ``ScoreTraffic.viewed_v_passes`` x its ``latent_rank`` columns of every cell it spans, in the cache's element
    type (``Engine.kv_read_dtype``)."""
    t = _score_traffic(d)
    if t is None:
        return 0
    if prompt:
        scores = t.per_score(min(prompt, t.ubatch)) * batch * sum(
            h * _passes(prompt, t.ubatch, t.span_cap(cap))[1] for cap, h in st.score_heads)
        cells = [(w, _passes(prompt, t.ubatch, t.span_cap(cap))[0]) for cap, w in st.viewed_v]
    else:
        scores = t.per_score(batch) * batch * sum(h * _span(context, t.span_cap(cap)) for cap, h in st.score_heads)
        cells = [(w, _span(context, t.span_cap(cap))) for cap, w in st.viewed_v]
    views = t.viewed_v_passes * batch * sum(st.kv_dtype.nbytes(w * n) for w, n in cells) if t.viewed_v_passes else 0
    return scores + views


def _converted_experts(n: int, experts: int, top_k: int, most: int) -> float:
    """Expected number of a MoE layer's ``experts`` that more than ``most`` of ``n`` tokens pick (each token picks
    ``top_k``, uniform routing): ``experts x P(Binomial(n, top_k / experts) > most)``; :func:`expected_experts` is
    its ``most = 0`` case (any expert a token picks), in closed form.

    >>> round(_converted_experts(512, 128, 8, 63), 3), round(_converted_experts(512, 8, 2, 63), 3)
    (0.0, 8.0)
    """
    p = top_k / experts
    if p >= 1:
        return float(experts) if n > most else 0.0
    at_most = sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(p)
                           + (n - i) * math.log1p(-p)) for i in range(min(most, n) + 1))
    return experts * max(0.0, 1.0 - at_most)


def _dequantized_bytes(d: Deployment, st: _Stage, tokens: int) -> int:
    """Bytes one GPU of the stage moves converting its quantized weight matrices to F16 for a forward pass of
    ``tokens`` tokens (a prompt, or a decode step of that many sequences), where the engine does so before a GEMM
    (``Engine.dequantized_prompt``: llama.cpp's cuBLAS path): the tokens run in passes of ``-ub``; in each pass of
    more than the MMQ limit every dense matrix is read at its stored bytes and written at 2 B a weight
    (``to_fp16_cuda``), a kernel of its own before the GEMM; a MoE layer's experts each by the rows routed to them
    (``ggml_cuda_mul_mat_id`` multiplies each used expert's rows on their own, so an expert converts when more than
    the limit pick it: :func:`_converted_experts`). The stored bytes are the stage's, less its LM head and input table
    (a prompt's last token alone takes the logits, through the matrix-vector kernel); 0 where the engine multiplies
    the stored weights. Partial offload (``-ngl``, ``-ncmoe``) is not modelled: the parameters are the stage's all."""
    rule = _conversion_rule(d)
    if rule is None or tokens <= 0:
        return 0
    ubatch, most = rule
    p = d.weights.params
    matrices = (p.attention + p.mlp + p.mixer + p.other) * st.share / d.tp
    if matrices <= 0:
        return 0
    full, rest = divmod(tokens, ubatch)
    passes = [(n, times) for n, times in ((ubatch, full), (rest, 1)) if n and times]    # (tokens, how many)
    e, k = d.spec.moe_experts or 0, d.spec.moe_top_k or 0
    experts = p.moe_experts * st.share / d.tp if e and k else 0.0
    per_param = max(st.weights - st.head - st.table, 0) / matrices + 2         # stored bytes + the F16 write
    moved = 0.0
    for n, times in passes:
        used = (matrices - experts) if n > most else 0.0
        if experts:
            used += experts * _converted_experts(n, e, k, most) / e
        moved += times * used * per_param
    return int(moved)


def _attention_width(a: AttentionCache) -> int:
    """FLOP per attended token per query position: 2 x heads x (k_dim + v_dim) (MLA: 2 x 2 x latent)."""
    if a.latent_dim:
        return 2 * a.query_heads * 2 * a.latent_dim
    return 2 * a.query_heads * (a.k_head_dim + a.v_head_dim)


def _attention_flops(spec: ModelSpec, per_attention: Any) -> int:
    return sum(_attention_width(a) * per_attention(a) for l in spec.layers for a in l.attention)


@dataclass(frozen=True)
class _Stage:
    """What one GPU of a pipeline stage reads and computes per decode step, before batch and context."""

    weights: int                     # bytes on one GPU of the stage (scaled to the checkpoint / measured size)
    head: int                        # of which the LM head (the last stage's output projection), scaled alike
    table: int                       # bytes of an input embedding table a step does not read whole (stage 0)
    row_bytes: int                   # bytes of one row of that table
    cache: CompiledCache             # the ideal cache of one rank (what a step reads)
    share: float                     # the stage's share of the decoder layers
    width_by_cap: tuple[tuple[int, int], ...]   # (window or 0 = unbounded, attention FLOP per attended token)
    cross_width: int                 # attention FLOP per encoder token (cross-attention layers)
    spec: ModelSpec
    kv_reads: float                  # times a step reads each cached byte (the engine's kv_reads, by bytes)
    score_heads: tuple[tuple[int, int], ...]    # (window or 0 = unbounded, query heads of the rank over its layers)
    viewed_v: tuple[tuple[int, int], ...]       # (window or 0, MLA V columns a cell holds over its layers: latent_rank)
    kv_dtype: Any                    # the cache's element type (Engine.kv_read_dtype: llama.cpp's -ctk / -ctv)


def _stages(d: Deployment) -> tuple[_Stage, ...]:
    """Per-stage constants of :func:`estimate_speed` and :func:`decode_rate_grid`, memoized on ``d``."""
    if "speed_stages" in d._memo:
        cached: tuple[_Stage, ...] = d._memo["speed_stages"]
        return cached
    params = d.weights.params
    raw = d.engine.stage_weights(d)      # the engine's placement (llama.cpp: the GGUF weights on the GPU)
    weights = raw
    if d.weights.total_bytes != d.weights_computed.total_bytes:      # the Hub checkpoint's size
        scale = d.weights.total_bytes / max(d.weights_computed.total_bytes, 1)
        weights = tuple(int(w * scale) for w in weights)
    if d.measured.weights_bytes is not None:
        scale = d.measured.weights_bytes / max(max(weights), 1)
        weights = tuple(int(w * scale) for w in weights)
    # a step gathers only ``batch`` rows of the input embedding table (all of it only when it doubles
    # as the LM head on the same GPU)
    emb = next((p for p in d.weights_computed.parts if p.name == "embedding"), None)
    table = row = 0
    if emb is not None and emb.params and (not params.tied_embeddings or d.pp > 1):
        table = ceil_div(emb.bytes, d.tp) * weights[0] // max(raw[0], 1)   # scaled as the stage is
        row = ceil_div(d.spec.hidden_size * emb.bytes, max(emb.params, 1))
    head = _head_bytes(d, params.tied_embeddings) * weights[-1] // max(raw[-1], 1)     # on the last stage
    n_layers = max(d.spec.num_layers, 1)
    kv = d.engine.kv_read_dtype(d)       # the cache's own element type (llama.cpp: -ctk / -ctv)
    out = []
    for i, (spec, w) in enumerate(zip(stage_specs(d.rank, d.pp), weights)):
        widths: dict[int, int] = {}
        heads: dict[int, int] = {}
        views: dict[int, int] = {}
        cross = 0
        held = reads = 0
        for layer in spec.layers:
            for a in layer.attention:
                held += a.elements_per_token
                reads += a.elements_per_token * d.engine.kv_reads(d, a)
                if a.source == "cross":
                    cross += _attention_width(a)
                else:
                    widths[a.window or 0] = widths.get(a.window or 0, 0) + _attention_width(a)
                    heads[a.window or 0] = heads.get(a.window or 0, 0) + a.query_heads
                    if a.latent_rank:
                        views[a.window or 0] = views.get(a.window or 0, 0) + a.latent_rank
        out.append(_Stage(w, head if i == len(weights) - 1 else 0, table if i == 0 else 0, row if i == 0 else 0,
                          compile_cache(spec, dtype=d.model_dtype, kv_dtype=kv, runtime="ideal"),
                          spec.num_layers / n_layers, tuple(sorted(widths.items())), cross, spec,
                          reads / held if held else 1.0, tuple(sorted(heads.items())), tuple(sorted(views.items())),
                          kv))
    d._memo["speed_stages"] = tuple(out)
    return tuple(out)


def _head_bytes(d: Deployment, tied: bool) -> int:
    """Bytes of the LM head one GPU of the last stage reads when a step computes logits (under a llama.cpp layer
    split taken as the last GPU's, where llama.cpp puts the output layer unless that GPU has no share): under
    llama.cpp the GGUF's output layer (output.weight, or a tied model's second token_embd copy:
    GgufWeights.duplicated_output_bytes); else the ``lm_head`` part (a tied model's embedding table) / tp."""
    if d.gguf is not None:
        return d.gguf.output_bytes + d.gguf.duplicated_output_bytes
    name = "embedding" if tied else "lm_head"
    part = next((p for p in d.weights_computed.parts if p.name == name), None)
    return ceil_div(part.bytes, d.tp) if part is not None else 0


def _expert_share(d: Deployment) -> float:
    """The routed experts' share of the bytes a GPU holds: of a GGUF's GPU-resident weights, its merged
    ``ffn_*_exps`` tensors (quantized apart from the rest: gpt-oss-20b's MXFP4 experts are 74 % of its bytes,
    91 % of its parameters); else their share of the parameters."""
    if d.gguf is not None:
        if "expert_share" not in d._memo:      # every _touched call asks: a scan of the file's tensors, once
            from .llama_cpp.plan import expert_bytes

            d._memo["expert_share"] = min(sum(expert_bytes(d.gguf)) / max(d.weights_rank, 1), 1.0)
        share: float = d._memo["expert_share"]
        return share
    params = d.weights.params
    return params.moe_experts / params.total if params.total else 0.0


def _touched(d: Deployment, batch: int) -> tuple[float, float | None]:
    """(share of the weights a step at ``batch`` reads, expected experts per MoE layer or None)."""
    params = d.weights.params
    num_experts, top_k = d.spec.moe_experts, d.spec.moe_top_k       # read once, by kvcalc.architectures
    if params.moe_experts and num_experts and top_k:
        experts = expected_experts(num_experts, top_k, batch)
        return 1.0 - _expert_share(d) * (1.0 - experts / num_experts), experts
    return 1.0, None


def _step_weights(st: _Stage, touched: float, batch: int, vocab: int) -> int:
    """Weight bytes one GPU of the stage reads in a step at ``batch``."""
    skipped = max(st.table - min(batch, vocab) * st.row_bytes, 0) if st.table else 0
    return int(st.weights * touched) - skipped


def _tensor_rate(d: Deployment) -> tuple[float | None, str]:
    """(dense tensor TFLOP/s a prefill runs at, its name): under an engine whose GEMMs accumulate in fp16
    (``Engine.fp16_accumulate_gemms``: llama.cpp) on an NVIDIA or custom GPU, :data:`LLAMA_CPP_RATE_SHARE` of its
    FP16-accumulate rate (``GPU.fp16_acc16_tflops``, twice the FP32-accumulate rate on a GeForce card; elsewhere
    the bf16 or fp16 figure); else the FP8 rate for fp8 weights and the FP4 rate
    for nvfp4 weights where the catalog has one (vLLM and TensorRT-LLM run W8A8 / W4A4 GEMMs there),
    else the bf16 rate, or on a GPU without bf16 (Turing, Volta) its fp16 rate: the engines run a bf16
    checkpoint there in fp16 (vLLM's dtype check: bfloat16 needs compute capability 8.0)."""
    g, scheme = d.gpu, d.weights.scheme
    if d.engine.fp16_accumulate_gemms and g.vendor not in ("AMD", "Apple"):
        full = g.fp16_accumulate_tflops
        return (full * LLAMA_CPP_RATE_SHARE if full else None), LLAMA_CPP_RATE_NAME
    if scheme.startswith(("fp8", "float8")) and g.fp8_tflops:
        return g.fp8_tflops * FP8_RATE_SHARE, "fp8"
    if scheme.startswith(("nvfp4", "fp4")) and g.fp4_tflops:
        return g.fp4_tflops * FP8_RATE_SHARE, "fp4"
    if g.bf16_tflops is None and g.fp16_tflops:
        return g.fp16_tflops, "fp16"
    return g.bf16_tflops, "bf16"


def _allreduce_seconds(d: Deployment, layers: int, tokens: float) -> float:
    """Two all-reduces per layer of ``tokens`` x hidden x 2 B (bf16 activations), ring algorithm:
    each GPU sends and receives 2 (tp - 1) / tp of the buffer over its link (NCCL's ring all-reduce
    bus bandwidth, nccl-tests doc/PERFORMANCE.md), plus ALLREDUCE_LATENCY_S per collective; x AMD_FIXED_FACTOR on
    an AMD GPU (:func:`vendor_factors`)."""
    tp = d.tp
    if tp <= 1:
        return 0.0
    link = (d.gpu.link_gbps or 16.0) * GB          # unknown link: PCIe 3.0 x16
    per = ALLREDUCE_LATENCY_S + 2 * (tp - 1) / tp * tokens * d.spec.hidden_size * 2 / link
    return 2 * layers * per * vendor_factors(d)[1]


def _fixed_seconds(d: Deployment, layers: int, experts: float | None = None) -> float:
    """Per-forward fixed cost of ``layers`` decoder layers: :func:`layer_overhead` each, plus, for a MoE
    model, in a serving engine :func:`expert_overhead` per expert run: in a decode step the top-k of one
    token (the router, top-k and per-expert GEMV launches; a larger batch runs its experts in the same grouped
    kernels, so the cost does not grow with the batch), and the same top-k in a prefill of the grouped engines
    (:data:`GROUPED_MOE_RUNTIMES`; transformers: ``experts``, the distinct experts its tokens touch); in
    llama.cpp and ``ideal`` :func:`moe_layer_overhead` per layer, and in a prefill
    :data:`FUSED_EXPERT_OVERHEAD_S` per touched expert (``experts``: ggml_cuda_mul_mat_id's matmul per expert);
    x AMD_FIXED_FACTOR on an AMD GPU (:func:`vendor_factors`)."""
    per_layer = layer_overhead(d) + mla_layer_overhead(d)
    vendor = vendor_factors(d)[1]
    if not (d.spec.moe_experts and d.spec.moe_top_k):
        return layers * per_layer * vendor
    if d.runtime not in SERVING_RUNTIMES:
        touched = 0.0 if experts is None else experts * FUSED_EXPERT_OVERHEAD_S
        return layers * (per_layer + moe_layer_overhead(d) + touched) * vendor
    used = d.spec.moe_top_k if experts is None or d.runtime in GROUPED_MOE_RUNTIMES else experts
    return layers * (per_layer + used * expert_overhead(d)) * vendor


def prefill_layer_overhead(d: Deployment) -> float:
    """Fixed seconds per decoder layer a prefill pays beyond :func:`layer_overhead`:
    :data:`PREFILL_LAYER_OVERHEAD_S`, + :data:`SGLANG_PREFILL_LAYER_OVERHEAD_S` under SGLang (its eager extend pass);
    x AMD_FIXED_FACTOR on an AMD GPU (:func:`vendor_factors`).

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> cfg = bundled_config("meta-llama/Llama-3.1-8B")
    >>> round(prefill_layer_overhead(deploy(cfg, gpu="h100-sxm", runtime="sglang")) * 1e6)
    1100
    """
    extra = SGLANG_PREFILL_LAYER_OVERHEAD_S if d.runtime == "sglang" else 0.0
    return (PREFILL_LAYER_OVERHEAD_S + extra) * vendor_factors(d)[1]


def vendor_factors(d: Deployment) -> tuple[float, float]:
    """(bandwidth, fixed) factors for the deployment's GPU vendor: :data:`AMD_BANDWIDTH_FACTOR` (the bandwidth share
    is divided by it) and :data:`AMD_FIXED_FACTOR` (on the fixed seconds) on an AMD GPU, else (1, 1).

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> cfg = bundled_config("meta-llama/Llama-3.1-8B")
    >>> vendor_factors(deploy(cfg, gpu="mi300x")), vendor_factors(deploy(cfg, gpu="h100-sxm"))
    ((2.3, 1.1), (1.0, 1.0))
    """
    return (AMD_BANDWIDTH_FACTOR, AMD_FIXED_FACTOR) if d.gpu.vendor == "AMD" else (1.0, 1.0)


LLAMA_CPP_VECTOR_BATCH = 8
"""The most sequences a llama.cpp decode step runs through ggml-cuda's one-token (matrix-vector) kernels
(``MMVQ_MAX_BATCH_SIZE`` 8, ggml/src/ggml-cuda/mmvq.cuh at c392e509); a larger batch runs MMQ / cuBLAS GEMMs, which
:data:`LLAMA_CPP_SM_STREAM_GBPS` does not limit (no published figure measures one on an HBM card)."""

LLAMA_CPP_MEASURED_GPU = "a100-80gb"
"""The GPU (data/gpus.csv key) with the most datasheet bandwidth per SM on which a llama.cpp decode figure was
published (the A100 SXM's 2,039 GB/s over 108 SMs, held out; data/'s A100 PCIe has 1,935): on a GPU with more (an H100
SXM, H200, B200) the per-SM limit is an extrapolation, and the assumption line says so."""


def decode_bandwidth_gbps(d: Deployment, batch: int = 1) -> float | None:
    """Datasheet bandwidth a decode step of ``batch`` sequences can stream, GB/s (before ``bandwidth_efficiency`` and
    :func:`vendor_factors`): ``bandwidth_gbps``, or, under an engine whose one-token kernels keep too little in flight
    per SM (``Engine.sm_stream_limited``: llama.cpp) at a batch they run (at most :data:`LLAMA_CPP_VECTOR_BATCH`) on a
    GPU whose SM count the catalog has, at most :data:`LLAMA_CPP_SM_STREAM_GBPS` x its SMs. None where the bandwidth
    is unknown.

    >>> from kvcalc import deploy
    >>> from kvcalc.catalog import bundled_config
    >>> cfg = bundled_config("meta-llama/Llama-3.1-8B")
    >>> [round(decode_bandwidth_gbps(deploy(cfg, gpu=g, runtime="llama_cpp", gguf="Q4_K_M")))
    ...  for g in ("rtx-4090", "a100-80gb-pcie")]
    [1008, 1177]
    >>> decode_bandwidth_gbps(deploy(cfg, gpu="a100-80gb-pcie", runtime="llama_cpp", gguf="Q4_K_M"), 16)
    1935.0
    >>> decode_bandwidth_gbps(deploy(cfg, gpu="a100-80gb-pcie", runtime="vllm"))
    1935.0
    """
    full = d.gpu.bandwidth_gbps
    if full and d.engine.sm_stream_limited and d.gpu.sm_count and batch <= LLAMA_CPP_VECTOR_BATCH:
        return min(full, LLAMA_CPP_SM_STREAM_GBPS * d.gpu.sm_count)
    return full


def decode_stream_limit_binds(d: Deployment, batch: int = 1) -> bool:
    """Whether :func:`decode_bandwidth_gbps` at ``batch`` is below the datasheet bandwidth (the per-SM limit binds on
    this GPU), as opposed to ``Engine.sm_stream_limited``, the engine's trait."""
    full, limited = d.gpu.bandwidth_gbps, decode_bandwidth_gbps(d, batch)
    return full is not None and limited is not None and limited < full


def _decode_bytes_per_s(d: Deployment, batch: int, bandwidth_efficiency: float) -> float | None:
    """Bytes/s a decode step of ``batch`` sequences reads at: :func:`decode_bandwidth_gbps` x ``bandwidth_efficiency``
    / an AMD GPU's bandwidth factor (:func:`vendor_factors`); None where the bandwidth is unknown."""
    gbps = decode_bandwidth_gbps(d, batch)
    return gbps * GB * bandwidth_efficiency / vendor_factors(d)[0] if gbps else None


def layer_overhead(d: Deployment) -> float:
    """Fixed seconds per decoder layer per forward pass: :data:`METAL_LAYER_OVERHEAD_S` on an Apple GPU,
    else :data:`LAYER_OVERHEAD_S`."""
    return METAL_LAYER_OVERHEAD_S if d.gpu.vendor == "Apple" else LAYER_OVERHEAD_S


def expert_overhead(d: Deployment) -> float:
    """Fixed seconds per MoE layer and routed expert in a serving engine (:data:`SERVING_RUNTIMES`), by
    :func:`expert_path`: :data:`TRTLLM_EXPERT_OVERHEAD_S` under TensorRT-LLM,
    :data:`EARLIER_RELEASE_EXPERT_OVERHEAD_S` under ``sglang_version="0.4"`` and ``vllm_version="0.10"``, else
    :data:`EXPERT_OVERHEAD_S`; llama.cpp and ``ideal`` pay :func:`moe_layer_overhead` per layer instead (0 here)."""
    return {"trtllm": TRTLLM_EXPERT_OVERHEAD_S, "sglang 0.4": EARLIER_RELEASE_EXPERT_OVERHEAD_S,
            "vllm 0.10": EARLIER_RELEASE_EXPERT_OVERHEAD_S, "fused_moe": EXPERT_OVERHEAD_S, "": 0.0}[expert_path(d)]


def expert_path(d: Deployment) -> str:
    """Which per-expert cost a serving engine's MoE layer pays (:func:`expert_overhead`): ``trtllm``,
    ``sglang 0.4`` (``sglang_version="0.4"``), ``vllm 0.10`` (``vllm_version="0.10"``) or ``fused_moe`` (vLLM,
    SGLang, transformers); ``""`` outside the serving engines."""
    if d.runtime not in SERVING_RUNTIMES:
        return ""
    if d.runtime == "tensorrt_llm":
        return "trtllm"
    if d.runtime == "sglang" and d.options.sglang_version == "0.4":
        return "sglang 0.4"
    if d.runtime == "vllm" and d.options.vllm_version == "0.10":
        return "vllm 0.10"
    return "fused_moe"


def moe_layer_overhead(d: Deployment) -> float:
    """Fixed seconds per MoE layer of a llama.cpp / ``ideal`` forward pass: :data:`METAL_MOE_LAYER_OVERHEAD_S`
    on an Apple GPU, else :data:`MOE_LAYER_OVERHEAD_S`; 0 in the serving engines (they pay per expert)."""
    if d.runtime in SERVING_RUNTIMES:
        return 0.0
    return METAL_MOE_LAYER_OVERHEAD_S if d.gpu.vendor == "Apple" else MOE_LAYER_OVERHEAD_S


def mla_layer_overhead(d: Deployment) -> float:
    """Fixed seconds per decoder layer a llama.cpp / ``ideal`` forward pass of an MLA model pays beyond a GQA
    layer's: :data:`MLA_LAYER_OVERHEAD_S` on a CUDA-class GPU; 0 on an Apple GPU, in the serving engines and
    for a model without latent attention."""
    if d.runtime in SERVING_RUNTIMES or d.gpu.vendor == "Apple":
        return 0.0
    return MLA_LAYER_OVERHEAD_S if latent_attention(d.spec) else 0.0


def latent_attention(spec: ModelSpec) -> bool:
    """Whether any layer of ``spec`` caches a latent (DeepSeek's multi-head latent attention)."""
    return any(a.latent_dim for layer in spec.layers for a in layer.attention)


def _weight_share(d: Deployment) -> float:
    """Share of the bandwidth efficiency a decode step's weight read reaches: QUANTIZED_BANDWIDTH_SHARE
    for integer-quantized weights (:func:`quantized_weights`: unpacked in the GEMV), else 1."""
    return QUANTIZED_BANDWIDTH_SHARE if quantized_weights(d) else 1.0


def _kernel_seconds(memory_s: float, flops: float, rate: float | None) -> tuple[float, bool]:
    """(seconds, compute-bound) of one kernel group of a decode step: the roofline max of its memory
    time and its FLOPs at ``rate`` (FLOP/s; None = memory only)."""
    comp = flops / rate if rate else 0.0
    return max(memory_s, comp), comp > memory_s


def _check_efficiency(bandwidth_efficiency: float, compute_efficiency: float) -> None:
    check_finite("bandwidth_efficiency", bandwidth_efficiency, MIN_EFFICIENCY, 1.0)
    check_finite("compute_efficiency", compute_efficiency, MIN_EFFICIENCY, 1.0)


def _active_refusal(params: Any) -> str:
    """Why ``params.active`` is undefined (its ConfigError / UnsupportedError message)."""
    try:
        _ = params.active
    except KVCalcError as exc:
        return str(exc)
    return "active parameters unknown"


def _assumptions(d: Deployment, batch: int, experts: float | None, bandwidth_efficiency: float,
                 compute_efficiency: float, rate_name: str) -> list[str]:
    """What the estimate assumes, in words (module docstring: what is not modelled); ``rate_name`` the tensor rate
    the prefill runs at (:func:`_tensor_rate`)."""
    params = d.weights.params
    num_experts, top_k = d.spec.moe_experts, d.spec.moe_top_k
    assumptions = [f"efficiency: {bandwidth_efficiency:.0%} of the memory bandwidth, {compute_efficiency:.0%} of the "
                   f"dense {rate_name} tensor rate (defaults from published measurements; "
                   "kvcalc.speed_reference)"]
    if experts is not None:
        assumptions.append(f"MoE: uniform routing, {top_k} of {num_experts} experts per token; {batch} "
                           f"token{'s' if batch != 1 else ''} activate{'s' if batch == 1 else ''} {experts:.1f} "
                           "experts per layer on average")
    elif params.moe_experts:
        assumptions.append("MoE: expert count or top-k not found in the config; every expert assumed read each step")
    g = d.gpu
    full = g.fp16_accumulate_tflops
    if rate_name == LLAMA_CPP_RATE_NAME and full:
        assumptions.append(f"{d.engine.label}'s prefill GEMMs accumulate in fp16 (cuBLAS CUBLAS_COMPUTE_16F): costed "
                           f"at {LLAMA_CPP_RATE_SHARE:.0%} of {g.name}'s FP16-accumulate dense rate ({full:g} TFLOP/s"
                           + (", twice its FP32-accumulate figure" if g.fp16_acc16_tflops else "")
                           + "), the share its published GeForce prompt figures run at")
    scores = _score_traffic(d)
    if scores is not None:
        assumptions.append(f"{d.engine.label} without FlashAttention: each layer's attention scores go through memory, "
                           f"{scores.one_token} B a score in a one-token pass and {scores.longer} B in a longer one, a "
                           f"prompt {scores.ubatch:,} token{'s' if scores.ubatch != 1 else ''} a pass, each "
                           "sequence over its own cells"
                           + (f"; each latent-attention layer copies the V it views inside its latent, "
                              f"{scores.viewed_v_passes} passes over its kv_lora_rank columns of every cell"
                              if _copies_viewed_v(d) else ""))
    dequant = _conversion_rule(d)
    if dequant is not None:
        ubatch, most = dequant
        per_pass = sum(_dequantized_bytes(d, st, ubatch) for st in _stages(d))
        assumptions.append(f"{d.engine.label}'s quantized prompt GEMMs run through cuBLAS here ("
                           + ("a build with GGML_CUDA_FORCE_CUBLAS or before PR #8075" if d.llama_cpp.force_cublas
                              else f"{g.name} has no int8 tensor-core MMQ")
                           + f"): each pass of more than {most} tokens (a prompt's, or a decode step's of as many "
                           f"sequences) first converts the quantized weight matrices to F16 (a MoE expert when more "
                           f"than {most} tokens pick it), {per_pass / 1e9:,.1f} GB read and written a {ubatch}-token "
                           "pass")
    if any(a.indexer_dim for layer in d.spec.layers for a in layer.attention):
        assumptions.append("sparse attention (an indexer picks the cached tokens each query attends) is not modelled: "
                           "every cached token is read and attended, so at long contexts the decode and prefill "
                           "times here are upper bounds")
    if quantized_weights(d):
        assumptions.append(f"weights {d.weights.scheme}: integer-quantized, read at {QUANTIZED_BANDWIDTH_SHARE:.0%} of "
                           "that bandwidth share (their unpacking, fitted on published figures)")
    if d.gpu.vendor in UNCALIBRATED_VENDORS:
        lo, hi = _spread(UNCALIBRATED_VENDORS[d.gpu.vendor])
        slow, fix = vendor_factors(d)
        assumptions.append(f"{d.gpu.vendor} GPU: the fixed costs and efficiencies are fitted on NVIDIA and Apple GPUs; "
                           f"here memory is read at 1/{slow:g} of their bandwidth share and the fixed costs are "
                           f"{fix:g}x theirs (fitted on 24 published MI300X figures, vLLM and SGLang serving MoE "
                           f"models, all bandwidth-bound: a compute-bound part keeps their share of the tensor rate, "
                           f"an extrapolation); those figures took {lo:g}-{hi:g}x this estimate's time (its range); "
                           "older ROCm stacks and the dense sets kept aside took up to 3.2x")
    if decode_stream_limit_binds(d, batch) and g.bandwidth_gbps and g.sm_count:
        ref = get_gpu(LLAMA_CPP_MEASURED_GPU)
        beyond = g.bandwidth_gbps * (ref.sm_count or 1) > (ref.bandwidth_gbps or 0.0) * g.sm_count
        assumptions.append(f"{d.engine.label}'s one-token decode kernels (up to {LLAMA_CPP_VECTOR_BATCH} sequences) "
                           f"stream at most {LLAMA_CPP_SM_STREAM_GBPS:g} GB/s per SM (the loads in flight an SM "
                           f"keeps; fitted on published batch-1 A100 PCIe, RTX 3090 and V100 figures): on {g.name}'s "
                           f"{g.sm_count} SMs {decode_bandwidth_gbps(d, batch):,.0f} GB/s of its "
                           f"{g.bandwidth_gbps:,.0f}"
                           + (", an extrapolation (no published llama.cpp figure on a GPU with this much bandwidth "
                              "per SM)" if beyond else ""))
    if d.runtime == "llama_cpp" and d.gpu.key not in LLAMA_CPP_FITTED_GPUS and d.gpu.vendor not in UNCALIBRATED_VENDORS:
        assumptions.append(f"llama.cpp on {d.gpu.name}: no published llama.cpp figure on this GPU is among the fitted "
                           "ones (GeForce RTX 3090 / 4090 / 5090, V100, A100 PCIe, Apple M2 / M3 Ultra); llama-bench "
                           "figures kept aside on GPUs outside them (May 2024 builds) took up to 1.6x this decode's "
                           "time (an M1 Max) and up to 11.7x this prefill's (an A100 SXM's F16 prompts; docs/speed.md)")
    if d.tp > 1:
        assumptions.append(f"tensor parallel {d.tp}: bytes and FLOPs split evenly; two all-reduces per layer over "
                           f"{d.gpu.link_kind or 'an unknown link (PCIe 3.0 x16 assumed)'}")
    if d.pp > 1:
        assumptions.append(f"pipeline parallel {d.pp}: stages run one after another within a step")
    reads = max(st.kv_reads for st in _stages(d))
    if reads > 1:
        assumptions.append(f"{d.engine.label} generation attention without a GQA-grouped kernel (no XQA): each KV "
                           f"head is read once per query head, {reads:g}x the KV cache per step")
    moe = ""
    if d.spec.moe_experts:
        moe = (f" + {expert_overhead(d) * 1e6:g} us per routed expert" if d.runtime in SERVING_RUNTIMES else
               f" + {moe_layer_overhead(d) * 1e6:g} us per MoE layer (a prefill: + {FUSED_EXPERT_OVERHEAD_S * 1e6:g}"
               " us per expert its tokens touch)")
    mla = mla_layer_overhead(d)
    moe += f" + {mla * 1e6:g} us per latent-attention (MLA) layer" if mla else ""
    spec = d.engine.speculative(d)
    assumptions.append(f"fixed cost {layer_overhead(d) * 1e6:g} us per layer per forward pass" + moe
                       + " (fitted on published figures); "
                       + ("no speculative decoding" if spec is None else
                          f"speculative decoding ({spec}) not modelled: one token per sequence a step, its "
                          "speed-up depends on the acceptance rate"))
    return assumptions


def _rate_text(value: float | None, unit: str) -> str:
    """A catalog rate in a formula: ``1008 GB/s``, or ``unknown GB/s`` where the GPU has no figure (a custom
    card), never a 0 that reads as a measured value."""
    return f"{value:g} {unit}" if value else f"unknown {unit}"


def _vendor_text(d: Deployment) -> str:
    slow, fix = vendor_factors(d)
    if (slow, fix) == (1.0, 1.0):
        return ""
    return (f", memory read at 1/{slow:g} of that bandwidth and the fixed costs above already x {fix:g} "
            f"({d.gpu.vendor} GPU: kvcalc.speed.AMD_BANDWIDTH_FACTOR, AMD_FIXED_FACTOR)")


def _formulas(d: Deployment, batch: int, dec: tuple[int, int, float, float, float | None],
              pre: tuple[int, float | None, str, float | None], bandwidth_efficiency: float,
              compute_efficiency: float, scores: tuple[int, int] = (0, 0),
              dequantized: tuple[int, int] = (0, 0)) -> tuple[str, ...]:
    """The estimate's arithmetic in words: ``dec`` = (weight bytes, KV bytes, fixed s, all-reduce s, step s
    or None), ``pre`` = (FLOPs, TFLOP/s, rate name, seconds of the whole batch's prefill or None: at batch 1
    the time to first token), ``scores`` = (bytes of materialized attention scores a decode step and the prefill
    move, per GPU: :func:`_materialized_bytes`), ``dequantized`` = (bytes a decode step and the prefill move
    converting quantized weights to F16: :func:`_dequantized_bytes`)."""
    dec_w, dec_kv, fixed, comm, step = dec
    pre_flops, tflops, rate_name, prefill = pre
    bw_text = f"{_rate_text(d.gpu.bandwidth_gbps, 'GB/s')} x {bandwidth_efficiency:g}"
    dec_rate = _rate_text(d.gpu.bandwidth_gbps, 'GB/s')
    if decode_stream_limit_binds(d, batch):
        dec_rate = f"min({dec_rate}, {d.gpu.sm_count} SMs x {LLAMA_CPP_SM_STREAM_GBPS:g} GB/s)"
    what = "attention scores" + (" and MLA V copies" if _copies_viewed_v(d) else "")
    dec_bw_text = f"{dec_rate} x {bandwidth_efficiency:g}"
    dec_sc = f" + {scores[0]:,} B of {what} through memory / ({dec_bw_text})" if scores[0] else ""
    pre_sc = f", + {scores[1]:,} B of {what} through memory / ({bw_text})" if scores[1] else ""
    if dequantized[0]:
        dec_sc += f" + {dequantized[0]:,} B converting the quantized weights to F16 / ({dec_bw_text})"
    if dequantized[1]:
        pre_sc += f", + {dequantized[1]:,} B converting the quantized weights to F16 / ({bw_text})"
    return (
        f"decode step = {dec_w:,} B weights read / ({dec_bw_text}"
        + (f" x {QUANTIZED_BANDWIDTH_SHARE:g}" if quantized_weights(d) else "") + ") or the GEMM FLOPs if longer"
        f" + {dec_kv:,} B KV read (or the attention FLOPs) + {fixed * 1e3:.2f} ms fixed per-layer cost + "
        f"{comm * 1e3:.2f} ms tensor-parallel all-reduce" + dec_sc + _vendor_text(d)
        + (f" = {step * 1e3:.2f} ms" if step is not None else " (bandwidth unknown)"),
        "tokens/s per sequence = 1 / step" + (f" = {1 / step:,.1f}; total = {batch} / step = {batch / step:,.1f}"
                                               if step else ""),
        ("time to first token" if batch == 1 else f"prefill of the whole batch, {batch:,} prompts in one pass")
        + f" = {pre_flops:,} FLOP / ({d.tp} x {_rate_text(tflops, rate_name + ' TFLOP/s')} x "
        f"{compute_efficiency:g}), + {PREFILL_OVERLAP:g} x the weight read where shorter, + fixed per-layer "
        f"and all-reduce costs + {TTFT_FIXED_S * 1e3:g} ms once" + pre_sc + _vendor_text(d)
        + (f" = {prefill * 1e3:.1f} ms" if prefill is not None else " (tensor rate unknown)"),
    )


def _prefill(d: Deployment, batch: int, prompt: int, enc: int, active: int, bw: float | None,
             rate: float | None, *, fixed: bool = True) -> tuple[float, int, bool]:
    """(seconds, FLOPs over all GPUs, compute-bound) of ``batch`` prompts of ``prompt`` tokens in one
    forward pass: per stage ``max(c, m) + PREFILL_OVERLAP x min(c, m)`` + the fixed per-layer cost +
    the all-reduce of ``batch x prompt`` tokens + any materialized attention scores at ``bw``
    (:func:`_materialized_bytes`); ``c`` the FLOPs at ``rate``, ``m`` the weights and the
    written cache at ``bw`` (an AMD GPU's already divided by its bandwidth factor, the fixed costs times its fixed one:
    :func:`vendor_factors`). 0 seconds when ``rate`` is None. ``fixed=False``: ``max(c, m)`` alone (at the
    datasheet rates, the physical floor :func:`estimate_speed` caps a range at)."""
    seconds, flops_all, compute_bound = (TTFT_FIXED_S * vendor_factors(d)[1] if fixed else 0.0), 0, False
    experts = _touched(d, batch * prompt)[1]
    for st in _stages(d):
        flops = (2 * active * batch * prompt * st.share / d.tp
                 + batch * _attention_flops(st.spec, lambda a: _causal_attended(a, prompt, enc)))
        flops_all += int(flops * d.tp)
        if rate is None:
            continue
        comp_t = flops / rate
        mem_t = (st.weights + cache_bytes(st.cache, batch, prompt)) / bw if bw else 0.0
        seconds += _materialized_bytes(d, st, batch, prompt=prompt) / bw if bw else 0.0     # kernels of their own
        seconds += _dequantized_bytes(d, st, batch * prompt) / bw if bw else 0.0
        layers = st.spec.num_layers
        if not fixed:
            seconds += max(comp_t, mem_t)
        else:
            seconds += (max(comp_t, mem_t) + PREFILL_OVERLAP * min(comp_t, mem_t) + _fixed_seconds(d, layers, experts)
                        + layers * prefill_layer_overhead(d) + _allreduce_seconds(d, layers, batch * prompt))
        compute_bound |= comp_t >= mem_t
    return seconds, flops_all, compute_bound


def estimate_speed(d: Deployment, batch: int, context: int, *, prompt_tokens: int | None = None,
                   bandwidth_efficiency: float = DEFAULT_BANDWIDTH_EFFICIENCY,
                   compute_efficiency: float = DEFAULT_COMPUTE_EFFICIENCY, logits: bool = True) -> SpeedEstimate:
    """Decode and prefill estimate for ``batch`` sequences at ``context`` tokens (module docstring).

    ``prompt_tokens`` (default ``context``) is the prompt length the time to first token is for.
    ``logits=False``: the decode steps output no logits, so they read no LM head (a prompt fed one token a
    forward pass, as llama-bench's ``-ub 1`` prompt test does: only the prompt's last token outputs logits,
    llama.cpp ``llama_batch_allocr`` with no logits array)."""
    batch = check_count("batch", batch, 1, MAX_BATCH)
    context = check_count("context", context, 1, MAX_CONTEXT)
    prompt = context if prompt_tokens is None else check_count("prompt_tokens", prompt_tokens, 1, MAX_CONTEXT)
    _check_efficiency(bandwidth_efficiency, compute_efficiency)
    gpu = d.gpu
    params = d.weights.params
    touched, experts = _touched(d, batch)
    wshare = _weight_share(d)
    tflops, rate_name = _tensor_rate(d)
    assumptions = _assumptions(d, batch, experts, bandwidth_efficiency, compute_efficiency, rate_name)
    enc = d.spec.default_encoder_tokens or context
    fitted_bw = gpu.bandwidth_gbps * GB * bandwidth_efficiency if gpu.bandwidth_gbps else None
    bw = fitted_bw / vendor_factors(d)[0] if fitted_bw is not None else None    # an AMD GPU's kernels stream less
    dec_bw = _decode_bytes_per_s(d, batch, bandwidth_efficiency)       # llama.cpp's per-SM limit at a small batch
    rate = tflops * TFLOP * compute_efficiency if tflops else None
    unavailable = []
    if bw is None:
        unavailable.append(f"no speed estimate for {gpu.name}: memory bandwidth unknown")
    if rate is None:
        unavailable.append(f"no compute floor or time to first token for {gpu.name}: tensor FLOP/s unknown")
    active = params.active_count
    if active is None:      # a null top-k or LongCat's zero experts: no FLOP count (the ParamCount says why)
        rate, active = None, 0
        unavailable.append(f"no compute floor or time to first token: {_active_refusal(params)}")

    # the datasheet rates: no end of a range may be faster than they allow (``floor``, ``pre_floor``)
    peak_bw = fitted_bw / bandwidth_efficiency if fitted_bw is not None else None
    peak_rate = rate / compute_efficiency if rate is not None else None
    step = fixed = comm = floor = 0.0       # floor: the step at the datasheet rates, no fixed cost
    dec_bytes = dec_w = dec_kv = dec_flops = dec_scores = dec_conv = 0
    dec_compute_bound = False
    for st in _stages(d):
        share, spec = st.share, st.spec
        kv = cache_bytes(st.cache, batch, context)
        if st.kv_reads != 1:
            kv = int(kv * st.kv_reads)
        wt = _step_weights(st, touched, batch, d.spec.vocab_size) - (0 if logits else st.head)
        # the rank's spec already holds heads / tp: its attention term is per GPU
        attended = sum(width * (context if cap == 0 else min(context, cap)) for cap, width in st.width_by_cap)
        gemm, attn = 2 * active * batch * share / d.tp, batch * (attended + st.cross_width * enc)
        dec_bytes, dec_w, dec_kv = dec_bytes + wt + kv, dec_w + wt, dec_kv + kv
        dec_flops += int(gemm + attn)
        layers = spec.num_layers
        scores = _materialized_bytes(d, st, batch, context=context)
        conv = _dequantized_bytes(d, st, batch)         # a step of many sequences on llama.cpp's cuBLAS path
        dec_scores, dec_conv = dec_scores + scores, dec_conv + conv
        if dec_bw is not None and peak_bw is not None:
            parts = _kernel_seconds(wt / (dec_bw * wshare), gemm, rate), _kernel_seconds(kv / dec_bw, attn, rate)
            extra = _fixed_seconds(d, layers), _allreduce_seconds(d, layers, batch)
            step += parts[0][0] + parts[1][0] + sum(extra) + (scores + conv) / dec_bw
            floor += (_kernel_seconds(wt / peak_bw, gemm, peak_rate)[0]
                      + _kernel_seconds(kv / peak_bw, attn, peak_rate)[0] + (scores + conv) / peak_bw)
            fixed, comm = fixed + extra[0], comm + extra[1]
            dec_compute_bound |= parts[0][1] or parts[1][1]
    prefill, pre_flops, pre_compute_bound = _prefill(d, batch, prompt, enc, active, bw, rate)
    one_prompt = _prefill(d, 1, prompt, enc, active, bw, rate)[0]
    pre_floor = _prefill(d, batch, prompt, enc, active, peak_bw, peak_rate, fixed=False)[0]
    one_floor = _prefill(d, 1, prompt, enc, active, peak_bw, peak_rate, fixed=False)[0]
    decode_ok, prefill_ok = bw is not None, rate is not None
    score_bytes = (dec_scores, sum(_materialized_bytes(d, st, batch, prompt=prompt) for st in _stages(d)))
    dequantized = (dec_conv, sum(_dequantized_bytes(d, st, batch * prompt) for st in _stages(d)))
    formulas = _formulas(d, batch, (dec_w, dec_kv, fixed, comm, step if decode_ok else None),
                         (pre_flops, tflops, rate_name, prefill if prefill_ok else None),
                         bandwidth_efficiency, compute_efficiency, score_bytes, dequantized)
    dec_cat = speed_category(d, decode=True, tokens=batch)
    pre_cat, one_cat = (speed_category(d, decode=False, tokens=n) for n in (batch * prompt, prompt))
    (d_lo, d_hi), (p_lo, p_hi), (o_lo, o_hi) = _spread(dec_cat), _spread(pre_cat), _spread(one_cat)
    rate_ok, pre_ok = decode_ok and step > 0, prefill_ok
    return SpeedEstimate(
        decode_category=dec_cat, prefill_category=pre_cat,
        decode_tokens_per_s_per_sequence_low=1 / (step * d_hi) if rate_ok else None,
        decode_tokens_per_s_per_sequence_high=1 / max(step * d_lo, floor) if rate_ok else None,
        decode_tokens_per_s_total_low=batch / (step * d_hi) if rate_ok else None,
        decode_tokens_per_s_total_high=batch / max(step * d_lo, floor) if rate_ok else None,
        ttft_seconds_low=max(prefill * p_lo, pre_floor) if pre_ok else None,
        ttft_seconds_high=prefill * p_hi if pre_ok else None,
        ttft_seconds_per_prompt_low=max(one_prompt * o_lo, one_floor) if pre_ok else None,
        ttft_seconds_per_prompt_high=one_prompt * o_hi if pre_ok else None,
        batch=batch, context=context, prompt_tokens=prompt, bandwidth_efficiency=float(bandwidth_efficiency),
        compute_efficiency=float(compute_efficiency),
        decode_step_seconds=step if decode_ok else None,
        decode_tokens_per_s_per_sequence=1 / step if decode_ok and step else None,
        decode_tokens_per_s_total=batch / step if decode_ok and step else None,
        decode_bytes_per_step=dec_bytes, decode_weight_bytes=dec_w, decode_kv_bytes=dec_kv,
        decode_flops_per_step=dec_flops, decode_fixed_seconds=fixed if decode_ok else None,
        decode_allreduce_seconds=comm if decode_ok else None, prefill_tensor_rate=rate_name,
        decode_bound=("compute" if dec_compute_bound else "memory bandwidth") if decode_ok else None,
        ttft_seconds=prefill if prefill_ok else None, ttft_seconds_per_prompt=one_prompt if prefill_ok else None,
        prefill_flops=pre_flops,
        prefill_bound=("compute" if pre_compute_bound else "memory bandwidth") if prefill_ok else None,
        experts_touched=experts, formulas=formulas, assumptions=tuple(assumptions), unavailable=tuple(unavailable))


def decode_rate_grid(d: Deployment, batches: Sequence[int], contexts: Sequence[int], *,
                     bandwidth_efficiency: float = DEFAULT_BANDWIDTH_EFFICIENCY,
                     compute_efficiency: float = DEFAULT_COMPUTE_EFFICIENCY) -> Any:
    """``float64[len(batches), len(contexts)]`` of decode tokens/s per sequence (module docstring), the
    vectorized twin of ``estimate_speed(...).decode_tokens_per_s_per_sequence`` (equal point by point,
    tests/fast/test_speed.py). InputError when the GPU's bandwidth is unknown."""
    import numpy as np

    from .sweep import kv_grid

    _check_efficiency(bandwidth_efficiency, compute_efficiency)
    if not d.gpu.bandwidth_gbps:
        raise InputError(f"no speed estimate for {d.gpu.name}: memory bandwidth unknown")
    bs = [check_count("batch", b, 1, MAX_BATCH) for b in batches]
    ts = [check_count("context", t, 1, MAX_CONTEXT) for t in contexts]
    bw = np.asarray([_decode_bytes_per_s(d, x, bandwidth_efficiency) for x in bs], dtype=np.float64)[:, None]
    tflops = _tensor_rate(d)[0]
    rate = tflops * TFLOP * compute_efficiency if tflops else None
    b = np.asarray(bs, dtype=np.float64)[:, None]
    t = np.asarray(ts, dtype=np.int64)
    enc = np.full_like(t, d.spec.default_encoder_tokens) if d.spec.default_encoder_tokens else t
    touched = [_touched(d, x)[0] for x in bs]
    wshare = _weight_share(d)
    active = d.weights.params.active_count or 0
    if d.weights.params.active_count is None:    # no FLOP count: the memory-bound rate only
        rate = None
    step = np.zeros((len(bs), len(ts)))
    for st in _stages(d):
        wt = np.asarray([_step_weights(st, f, x, d.spec.vocab_size) for f, x in zip(touched, bs)],
                        dtype=np.float64)[:, None]
        wt, kv = wt / bw, kv_grid(st.cache, bs, ts).astype(np.float64) * st.kv_reads / bw
        layers = st.spec.num_layers
        step += np.asarray([_fixed_seconds(d, layers) + _allreduce_seconds(d, layers, x) for x in bs])[:, None]
        if _score_traffic(d) is not None:
            step += np.asarray([[_materialized_bytes(d, st, x, context=c) for c in ts] for x in bs],
                               dtype=np.float64) / bw
        if _conversion_rule(d) is not None:
            step += np.asarray([_dequantized_bytes(d, st, x) for x in bs], dtype=np.float64)[:, None] / bw
        if rate is None:
            step += wt / wshare + kv
            continue
        attended = np.zeros(len(ts))
        for cap, width in st.width_by_cap:
            attended += width * (t if cap == 0 else np.minimum(t, cap))
        gemm = 2 * active * b * st.share / d.tp
        attn = b * (attended + st.cross_width * enc)[None, :]
        step += np.maximum(wt / wshare, gemm / rate) + np.maximum(kv, attn / rate)
    return 1.0 / step
