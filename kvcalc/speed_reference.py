"""Published speed measurements (``data/speed_measurements.csv``) and the efficiencies they imply.

Each row is one public figure - decode tokens/s at a batch, or time to first token - with the
deployment it was measured on (model, GPU from ``data/gpus.csv``, GPU count, weights and KV
format, batch, prompt and generated tokens) and its source. No Streamlit.

The two defaults of :mod:`kvcalc.speed` come from here (:func:`derived_efficiencies`):

* bandwidth efficiency of a decode row = bytes the step reads / (the bandwidth the step streams at x measured
  step), the step being 1 / (tokens/s per sequence) = batch / (aggregate tokens/s), bytes from
  ``kvcalc.speed.estimate_speed`` (weights touched + every sequence's ideal cache, per GPU), the bandwidth
  ``kvcalc.speed.decode_bandwidth_gbps`` (the datasheet's, or llama.cpp's per-SM limit);
* compute efficiency of a prefill row = prefill FLOPs / (GPUs x datasheet dense bf16 rate x
  measured time to first token).

The default is the median over the rows that exercise nothing the estimate leaves out
(:func:`unmodelled_effects` empty): integer-quantized weights (unpacking cost), tensor parallelism
(all-reduce time), MoE routing, llama.cpp's per-SM streaming limit where it binds (fitted on those rows), and
prefills too short to be compute-bound (fixed per-kernel costs) are such
effects; rows with them are kept as checks of the direction of the error, not used to set the
defaults.

A decode figure is for a context that grows from ``prompt_tokens`` to ``prompt_tokens +
generated_tokens``; the cache read grows linearly with it, so the mean step is the step at the
mean context, ``prompt_tokens + generated_tokens / 2`` (:attr:`Measurement.context_tokens`).
"""
from __future__ import annotations

import csv
import functools
import math
import re
import statistics
from dataclasses import dataclass
from typing import Any

from .catalog import bundled_config
from .data_files import data_path
from .deployment import Deployment, deploy
from .engines import get_engine
from .errors import ConfigError
from .gpus import get_gpu
from .speed import GB, TFLOP, UNCALIBRATED_VENDORS, SpeedEstimate, decode_stream_limit_binds, estimate_speed

MEASUREMENTS_PATH = data_path("speed_measurements.csv")
XQA_RELEASE = (0, 8)
"""The first TensorRT-LLM release line with the XQA generation kernel (docs/source/blogs/XQA-kernel.md: "will be
included in the v0.8 releases"): rows of earlier releases are planned with ``xqa=False``."""
HELDOUT_PATH = data_path("speed_heldout.csv")
"""Figures kept aside: no constant is fitted on them (benchmarks/fit_speed_constants.py reads only
MEASUREMENTS_PATH); benchmarks/speed_validation.py and the tests judge the estimate on them apart."""

METRICS = ("decode_tokens_per_s_per_sequence", "decode_tokens_per_s_total", "prefill_tokens_per_s", "ttft_ms",
           "generate_tokens_per_s_total", "decode_tokens_per_s_no_logits")
"""What a row's ``value`` is: decode tokens/s of one sequence or of the whole batch; prompt tokens/s of
the whole batch's prefill (batch x prompt / time to first token); time to first token in ms; a static
batch's generated tokens/s, prefill included (batch x generated / (time to first token of the whole
batch + generated x mean decode step), TensorRT-LLM's gptSessionBenchmark); llama-bench's prompt test at
microbatch 1 (``-ub 1``): tokens/s of single-token forward passes over the growing cache that output no
logits (only the prompt's last token does), so each is a decode step without the LM head
(kvcalc.speed.estimate_speed ``logits=False``)."""

RUNTIMES = (("llama.cpp", "llama_cpp"), ("TensorRT-LLM", "tensorrt_llm"), ("vLLM", "vllm"), ("SGLang", "sglang"))
"""Engine name prefix -> the kvcalc runtime a row is planned with; other engines (gpt-fast, MLC LLM) use
``ideal``."""

FLOAT_WEIGHT_FORMATS = ("bf16", "fp16", "f16", "fp32", "f32", "fp8")
"""Weight formats the estimate models fully (read as stored, no unpacking); a GGUF file is named by
its tensor type after ``GGUF`` (``GGUF F16`` is float, ``GGUF Q4_0`` integer-quantized)."""

_COLUMNS = ("id", "model", "config", "gpu", "gpus", "engine", "engine_version", "weights_format",
            "weights_dtype", "weights_gib", "kv_dtype", "batch", "prompt_tokens", "generated_tokens",
            "metric", "value", "source", "notes")


@dataclass(frozen=True)
class Measurement:
    """One published figure. Units: ``weights_gib`` GiB (2**30 bytes) per GPU, None = computed from
    the config in ``weights_dtype`` (None = the checkpoint's); token counts per sequence; ``value``
    in the unit ``metric`` names (tokens/s or ms)."""

    id: str
    model: str
    config: str            # bundled model whose config.json has the measured model's shape
    gpu: str               # data/gpus.csv key
    gpus: int              # all tensor parallel
    engine: str
    engine_version: str
    weights_format: str
    weights_dtype: str | None
    weights_gib: float | None
    kv_dtype: str | None
    batch: int
    prompt_tokens: int
    generated_tokens: int
    metric: str
    value: float
    source: str
    notes: str

    @property
    def is_decode(self) -> bool:
        """A decode figure (the static-batch metric counts as decode: its generation dominates)."""
        return self.metric.startswith(("decode", "generate"))

    @property
    def outputs_logits(self) -> bool:
        """Whether each measured step computes logits (reads the LM head): not in llama-bench's prompt test
        at microbatch 1 (metric ``decode_tokens_per_s_no_logits``)."""
        return self.metric != "decode_tokens_per_s_no_logits"

    @property
    def timed_by_client(self) -> bool:
        """A figure a benchmark client timed against a server (LLMPerf against ``trtllm-serve``, SGLang's
        ``bench_serving``, the InferenceX sweeps): its time to
        first token includes the request's HTTP, tokenization and scheduling, which the estimate leaves out."""
        return "LLMPerf" in self.notes or "bench_serving" in self.engine or "InferenceX" in self.engine

    @property
    def client_timed_prefill(self) -> bool:
        """A prefill figure (time to first token) a client timed (:attr:`timed_by_client`): it sets none of the
        engine-timed prefill constants nor, but SGLang's, a range (:attr:`sets_range`), and is judged like every
        row."""
        return self.timed_by_client and not self.is_decode

    @property
    def sets_range(self) -> bool:
        """Whether the row bounds its category's shown range (:func:`measured_spread`): every row but a
        :attr:`client_timed_prefill` of an engine whose estimated time to first token is its own prefill time.
        SGLang's is estimated as its ``bench_serving`` client times it (kvcalc.speed.SGLANG_PREFILL_LAYER_OVERHEAD_S
        is fitted on such rows), so its client-timed rows bound the range."""
        return not self.client_timed_prefill or self.runtime == "sglang"

    @property
    def runtime(self) -> str:
        """The row's engine as a kvcalc runtime (:data:`RUNTIMES`)."""
        return next((r for prefix, r in RUNTIMES if self.engine.startswith(prefix)), "ideal")

    @property
    def engine_options(self) -> dict[str, Any]:
        """The engine options the row's release implies (deploy() flags): a TensorRT-LLM release before v0.8
        ran no XQA kernel (``xqa=False``; the XQA blog: "will be included in the v0.8 releases"); an SGLang 0.4.x
        row runs under ``sglang_version="0.4"`` and a vLLM row of 0.10.x or an earlier release under
        ``vllm_version="0.10"``, the earliest release line kvcalc has rules for (kvcalc.sglang.defaults,
        kvcalc.vllm.defaults): for speed, the earlier releases' per-expert cost
        (kvcalc.speed.EARLIER_RELEASE_EXPERT_OVERHEAD_S)."""
        found = re.match(r"v?(\d+)\.(\d+)", self.engine_version)
        if self.runtime == "tensorrt_llm" and found and (int(found[1]), int(found[2])) < XQA_RELEASE:
            return {"xqa": False}
        if self.runtime == "sglang" and found and (int(found[1]), int(found[2])) == (0, 4):
            return {"sglang_version": "0.4"}
        if self.runtime == "vllm" and found and (int(found[1]), int(found[2])) <= (0, 10):
            return {"vllm_version": "0.10"}
        out: dict[str, Any] = {}
        if self.llama_bench_without_flash_attention:
            out["flash_attn"] = "off"
        if self.llama_cpp_before_mmq_default:
            out["force_cublas"] = True
        return out

    @property
    def version_prs(self) -> list[int]:
        """The pull-request numbers ``engine_version`` names ('PR #6017 (March 2024)' -> [6017])."""
        return [int(n) for n in re.findall(r"#(\d+)", self.engine_version)]

    @property
    def llama_cpp_before_mmq_default(self) -> bool:
        """A llama.cpp CUDA row of a build from PR #3776 (27 Oct 2023: FP16 cuBLAS above 32 tokens) to PR #8075
        (June 2024, "by default mul_mat_q instead of FP16 cuBLAS GEMM is used"): its version names a month of 2024
        before June (or "early 2024"), or only PRs from #3776 to #8074; planned with ``force_cublas`` (its quantized
        passes converted to F16 for cuBLAS: ``Engine.dequantized_prompt``), unless its notes say the figure is the MMQ
        kernels' (PR #7676's column). Earlier builds (MMQ at every size from August 2023, an F32 conversion before)
        are planned as today's; no row is of one."""
        if self.runtime != "llama_cpp" or any(x in self.engine for x in ("Vulkan", "Metal", "ROCm", "HIP")):
            return False
        if get_gpu(self.gpu).vendor != "NVIDIA" or "MMQ" in self.notes:
            return False
        version = self.engine_version
        if re.search(r"early 2024|\b(Jan|Feb|March|Mar|April|Apr|May)\w* 2024\b", version):
            return True
        pr = self.version_prs
        return bool(pr) and min(pr) >= 3776 and max(pr) < 8075

    @property
    def llama_bench_without_flash_attention(self) -> bool:
        """A llama-bench row that names no FlashAttention (its engine or a quoted ``fa 1`` / ``-fa 1``) and whose
        build predates llama.cpp PR #23714 (May 2026: "the default is still kept as -fa off"; llama-bench's
        ``cmd_params_defaults`` flash_attn false at 4426e298, May 2024, and c392e509, Feb 2025): it ran llama-bench's
        default ``-fa 0``, its attention scores written to memory (kvcalc.speed: ``Engine.materialized_scores``). A
        later build's default is not known here, so its rows keep kvcalc's default (FlashAttention where supported)."""
        if "llama-bench" not in self.engine or "FlashAttention" in self.engine or "-fa 1" in self.engine:
            return False
        if re.search(r"-fa 1\b|\bfa[ =]1\b|FlashAttention on", self.notes):
            return False
        version, pr = self.engine_version, self.version_prs
        build = [int(n) for n in re.findall(r"\((\d{4,5})\)", version)]
        return bool(re.search(r"\b202[345]\b", version) or (pr and max(pr) < 23714) or (build and max(build) < 8000))

    @property
    def gguf_type(self) -> str | None:
        """The GGUF file type of a llama.cpp row that kvcalc's GGUF mixes size (kvcalc.gguf.mixes.FILE_TYPES, MXFP4
        as MXFP4_MOE): the row is planned under the llama_cpp runtime with that file's tensors (its experts, its
        output layer: what a step reads), the published size (``weights_gib``) left as a check; None otherwise."""
        from .gguf.mixes import FILE_TYPES

        fmt = self.weights_format
        if not (get_engine(self.runtime).serves_gguf and fmt.startswith("GGUF ")):
            return None
        name = fmt.removeprefix("GGUF ").strip().upper()
        name = "MXFP4_MOE" if name == "MXFP4" else name
        return name if name in FILE_TYPES else None

    @property
    def context_tokens(self) -> int:
        """Context the estimate is evaluated at: the mean over the generation for decode
        (``prompt + generated // 2``), the prompt for time to first token."""
        return self.prompt_tokens + self.generated_tokens // 2 if self.is_decode else self.prompt_tokens

    @property
    def quantized_weights(self) -> bool:
        """Integer-quantized weights (unpacked on the fly), as opposed to a float format."""
        fmt = self.weights_format.lower().removeprefix("gguf").strip()
        return not fmt.startswith(FLOAT_WEIGHT_FORMATS)

    @property
    def measured_seconds(self) -> float:
        """Measured decode step (s per step of the whole batch) or time to first token (s)."""
        if self.metric in ("decode_tokens_per_s_per_sequence", "decode_tokens_per_s_no_logits"):
            return 1.0 / self.value
        if self.metric == "decode_tokens_per_s_total":
            return self.batch / self.value
        if self.metric == "prefill_tokens_per_s":
            return self.batch * self.prompt_tokens / self.value
        if self.metric == "generate_tokens_per_s_total":
            return self.batch * self.generated_tokens / self.value
        return self.value / 1000.0


def _field(row: dict[str, str], line: int, name: str, kind: str) -> object:
    raw = (row.get(name) or "").strip()
    where = f"speed_measurements.csv line {line}.{name}"
    if kind == "str":
        if not raw and name not in ("engine_version", "notes"):
            raise ConfigError(where, raw, "must not be empty")
        return raw
    if kind == "opt_str":
        return raw or None
    try:
        if kind in ("int", "count"):
            n = int(raw)
            if n < (1 if kind == "int" else 0):
                raise ValueError
            return n
        if kind == "opt_float" and not raw:
            return None
        x = float(raw)
        if not math.isfinite(x) or x <= 0:
            raise ValueError
        return x
    except ValueError:
        raise ConfigError(where, raw, "must be a non-negative integer" if kind == "count"
                          else "must be a positive number") from None


def read_measurements(path: str = MEASUREMENTS_PATH) -> tuple[Measurement, ...]:
    """Parse a measurements CSV (lines starting with '#' are comments); ConfigError names the bad cell."""
    kinds = {"gpus": "int", "batch": "int", "prompt_tokens": "count", "generated_tokens": "count",
             "weights_gib": "opt_float", "value": "float", "weights_dtype": "opt_str", "kv_dtype": "opt_str"}
    with open(path, newline="", encoding="utf-8") as f:
        lines = [(n, text) for n, text in enumerate(f, 1) if not text.lstrip().startswith("#")]
    reader = csv.DictReader(text for _, text in lines)
    missing = [c for c in _COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise ConfigError("speed_measurements.csv header", reader.fieldnames, f"missing columns {missing}")
    out = []
    for row in reader:
        line = lines[reader.line_num - 1][0] if reader.line_num - 1 < len(lines) else reader.line_num
        values = {c: _field(row, line, c, kinds.get(c, "str")) for c in _COLUMNS}
        if values["metric"] not in METRICS:
            raise ConfigError(f"speed_measurements.csv line {line}.metric", values["metric"],
                              f"must be one of {', '.join(METRICS)}")
        m = Measurement(**values)  # type: ignore[arg-type]
        needed = "generated_tokens" if m.is_decode else "prompt_tokens"
        if not getattr(m, needed):
            raise ConfigError(f"speed_measurements.csv line {line}.{needed}", 0,
                              f"a {m.metric} figure needs {needed} > 0")
        out.append(m)
    ids = [m.id for m in out]
    if len(set(ids)) != len(ids):
        raise ConfigError("speed_measurements.csv id", sorted(i for i in ids if ids.count(i) > 1)[0], "duplicate id")
    return tuple(out)


@functools.lru_cache(maxsize=1)
def published_measurements() -> tuple[Measurement, ...]:
    """Every row of ``data/speed_measurements.csv``, in file order."""
    return read_measurements()


@functools.lru_cache(maxsize=1)
def heldout_measurements() -> tuple[Measurement, ...]:
    """Every row of ``data/speed_heldout.csv`` (the set kept aside), in file order."""
    return read_measurements(HELDOUT_PATH)


GGUF_SIZE_TOLERANCE = 0.02
"""A llama.cpp row is planned with kvcalc's GGUF mix of its file type when that mix's total is within this share
of the published size (or no size is published); else (a third party's own mix: DeepSeek-R1 Q4_K_M, 376.65 GiB
published against the mix's 408.58) with the published size as plain weights under ``ideal``."""


def measured_deployment(m: Measurement) -> Deployment:
    """The deployment a row was measured on: a llama.cpp row under its own runtime with its file type's tensors
    (:attr:`Measurement.gguf_type`, :data:`GGUF_SIZE_TOLERANCE`); a quantized checkpoint's measured size goes in
    as ``weights_gib`` (kvcalc.deployment's measured override, GiB per GPU)."""
    config = bundled_config(m.config)
    if m.gguf_type:
        d = deploy(config, gpu=m.gpu, gpus=m.gpus, runtime=m.runtime, gguf=m.gguf_type, **m.engine_options)
        if m.weights_gib is None or abs(d.weights.total_bytes / 2**30 / m.weights_gib - 1) <= GGUF_SIZE_TOLERANCE:
            return d
    runtime = _planned_runtime(m)
    return deploy(config, gpu=m.gpu, gpus=m.gpus, dtype=m.weights_dtype, kv_dtype=m.kv_dtype,
                  weights_gib=m.weights_gib, runtime=runtime, **(m.engine_options if runtime == m.runtime else {}))


def _planned_runtime(m: Measurement) -> str:
    """The runtime of a row not planned with GGUF tensors: its own, or ``ideal`` for a GGUF engine's row (its
    measured size planned as plain weights)."""
    return "ideal" if get_engine(m.runtime).serves_gguf else m.runtime


def estimate_for(m: Measurement, **efficiencies: float) -> SpeedEstimate:
    """kvcalc.speed's estimate for the row's batch and context (``efficiencies``: its keyword arguments)."""
    return estimate_speed(measured_deployment(m), m.batch, m.context_tokens, prompt_tokens=m.prompt_tokens or None,
                          logits=m.outputs_logits, **efficiencies)


def estimated_seconds(m: Measurement, e: SpeedEstimate) -> float | None:
    """The estimate in the unit of :attr:`Measurement.measured_seconds`: the decode step, the time to
    first token, or a static batch's prefill + ``generated`` steps."""
    if m.metric == "generate_tokens_per_s_total":
        if e.decode_step_seconds is None or e.ttft_seconds is None:
            return None
        return e.ttft_seconds + m.generated_tokens * e.decode_step_seconds
    return e.decode_step_seconds if m.is_decode else e.ttft_seconds


def estimated_value(m: Measurement, e: SpeedEstimate) -> float:
    """The estimate in the row's unit (tokens/s or ms)."""
    if m.metric == "generate_tokens_per_s_total":
        seconds = estimated_seconds(m, e)
        value = m.batch * m.generated_tokens / seconds if seconds else None
    elif m.metric in ("decode_tokens_per_s_per_sequence", "decode_tokens_per_s_no_logits"):
        value = e.decode_tokens_per_s_per_sequence
    elif m.metric == "decode_tokens_per_s_total":
        value = e.decode_tokens_per_s_total
    elif e.ttft_seconds is None:
        value = None
    elif m.metric == "prefill_tokens_per_s":
        value = m.batch * m.prompt_tokens / e.ttft_seconds
    else:
        value = e.ttft_seconds * 1000.0
    if value is None:
        raise ConfigError(f"speed_measurements.csv {m.id}.gpu", m.gpu, "; ".join(e.unavailable))
    return value


def implied_efficiency(m: Measurement) -> float:
    """The efficiency that makes the estimate equal the figure (module docstring): bandwidth share
    for a decode row, dense tensor-rate share (the rate kvcalc.speed picks: bf16, fp8, fp4) for a
    time-to-first-token row, once the modelled fixed costs (per layer, per expert, all-reduce; for a
    prefill the un-hidden weight read, kvcalc.speed.PREFILL_OVERLAP) are taken off the measured time. On an AMD
    GPU it is the share its kernels reached, the fixed costs taken off with their AMD factor (those rows set no
    efficiency: :func:`unmodelled_effects`)."""
    from . import speed

    d = measured_deployment(m)
    e = estimate_speed(d, m.batch, m.context_tokens, prompt_tokens=m.prompt_tokens or None, logits=m.outputs_logits,
                       bandwidth_efficiency=speed.DEFAULT_BANDWIDTH_EFFICIENCY, compute_efficiency=1.0)
    rate = speed.decode_bandwidth_gbps(d, m.batch) if m.is_decode else speed._tensor_rate(d)[0]
    if not rate or e.decode_step_seconds is None or e.ttft_seconds is None:
        raise ConfigError(f"speed_measurements.csv {m.id}.gpu", m.gpu, "; ".join(e.unavailable))
    if m.is_decode:
        fixed = (e.decode_fixed_seconds or 0.0) + (e.decode_allreduce_seconds or 0.0)
        return e.decode_bytes_per_step / (rate * GB * (m.measured_seconds - fixed))
    compute = e.prefill_flops / (d.tp * rate * TFLOP)          # at 100 %: the rest of the estimate is fixed
    return compute / (m.measured_seconds - (e.ttft_seconds - compute))


def unmodelled_effects(m: Measurement) -> tuple[str, ...]:
    """What the row exercises that kvcalc.speed leaves out; each can only make the real system
    slower than the roofline: unpacking integer-quantized weights, tensor-parallel all-reduce, a server's
    request handling in a time to first token its client timed (:attr:`Measurement.timed_by_client`), and
    the fixed per-kernel costs of a prefill too short to be compute-bound (below the GPU's ridge
    point: memory-bound even at 100 % of both datasheet rates), an Apple GPU's Metal dispatch cost
    (kvcalc.speed.METAL_LAYER_OVERHEAD_S) and a MoE model's routing and per-expert launches
    (kvcalc.speed.EXPERT_OVERHEAD_S, MOE_LAYER_OVERHEAD_S and the rest) and a decode whose kernels' per-SM streaming
    limit binds (kvcalc.speed.LLAMA_CPP_SM_STREAM_GBPS): those costs are fitted on the
    same rows, so the rows do not set the efficiencies; and the kernels of a GPU no constant is fitted on
    (kvcalc.speed.UNCALIBRATED_VENDORS)."""
    out = []
    if m.quantized_weights:
        out.append("weight dequantization")
    if get_gpu(m.gpu).vendor == "Apple":
        out.append("Metal dispatch overhead")
    if get_gpu(m.gpu).vendor in UNCALIBRATED_VENDORS:
        out.append(f"{get_gpu(m.gpu).vendor} GPU kernels (no constant is fitted on them)")
    if measured_deployment(m).spec.moe_experts:
        out.append("MoE routing overhead")
    if m.is_decode and decode_stream_limit_binds(measured_deployment(m), m.batch):
        out.append("the decode kernels' per-SM streaming limit (kvcalc.speed.LLAMA_CPP_SM_STREAM_GBPS)")
    if m.gpus > 1:
        out.append("tensor-parallel communication")
    if m.client_timed_prefill:
        out.append("client-side serving overhead")
    if not m.is_decode:
        full = estimate_for(m, bandwidth_efficiency=1.0, compute_efficiency=1.0)
        if full.prefill_bound != "compute":
            out.append("launch overhead of a memory-bound prefill")
    return tuple(out)


def speed_ratio(m: Measurement, e: SpeedEstimate) -> float:
    """Estimated speed over measured speed (measured seconds / estimated seconds): above 1 the
    estimate is optimistic, below 1 pessimistic."""
    seconds = estimated_seconds(m, e)
    if not seconds:
        raise ConfigError(f"speed_measurements.csv {m.id}.gpu", m.gpu, "; ".join(e.unavailable) or "no estimate")
    return m.measured_seconds / seconds


def derived_efficiencies(rows: tuple[Measurement, ...] | None = None) -> tuple[float, float]:
    """(bandwidth, compute) efficiency: the median implied efficiency over the decode rows and over
    the time-to-first-token rows with nothing left unmodelled."""
    rows = published_measurements() if rows is None else rows
    clean = [m for m in rows if not unmodelled_effects(m) and m.metric != "generate_tokens_per_s_total"]
    bw = [implied_efficiency(m) for m in clean if m.is_decode]
    comp = [implied_efficiency(m) for m in clean if not m.is_decode]
    if not bw or not comp:
        raise ConfigError("speed_measurements.csv", len(clean), "needs decode and prefill rows with nothing unmodelled")
    return statistics.median(bw), statistics.median(comp)



def category(m: Measurement, e: SpeedEstimate | None = None) -> str:
    """The row's kvcalc.speed category: the estimate's decode category for a decode or static-batch
    row, its prefill category for a time-to-first-token row."""
    e = estimate_for(m) if e is None else e
    return e.decode_category if m.is_decode else e.prefill_category


def ratios_by_category(rows: tuple[Measurement, ...] | None = None) -> dict[str, list[float]]:
    """:func:`speed_ratio` of every row, grouped by :func:`category`."""
    out: dict[str, list[float]] = {}
    for m in published_measurements() if rows is None else rows:
        e = estimate_for(m)
        out.setdefault(category(m, e), []).append(speed_ratio(m, e))
    return out


def measured_spread(rows: tuple[Measurement, ...] | None = None) -> dict[str, tuple[float, float]]:
    """Per category the lowest and highest ratio, rounded outward to 0.01 and widened to at least
    kvcalc.speed.RANGE_BAND (the +-30 % the estimate is validated to): kvcalc.speed.SPREAD. A time to first
    token a client timed against a server sets no range (:attr:`Measurement.sets_range`): it includes the
    request's HTTP, tokenization and scheduling, which the estimated engine time leaves out (SGLang's, whose
    estimate carries them, are the exception); it is judged like every row."""
    from .speed import RANGE_BAND

    band_lo, band_hi = RANGE_BAND
    rows = published_measurements() if rows is None else rows
    bounding = tuple(m for m in rows if m.sets_range)
    return {c: (min(math.floor(min(rs) * 100) / 100, band_lo), max(math.ceil(max(rs) * 100) / 100, band_hi))
            for c, rs in sorted(ratios_by_category(bounding).items())}
