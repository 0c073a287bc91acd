"""Scenario builders for the pages (pure: no Streamlit): one rule from inputs to a judged plan.

Every surface that answers "does it fit" goes through :func:`plan_scenario`: the Planner's headline
and its runtimes table, GPU fit's headline, heatmap and GPU table (:func:`gpu_fit`) and Compare's
longest contexts (:func:`compare`). The defaults are the Planner's (:func:`served_options`): vLLM's
``max_model_len`` is the one set, else the context asked for (vLLM itself would take the model's
maximum, which often does not fit and makes it refuse to start); a context longer than vLLM accepts
falls back to the model's default and the verdict says the context is too long. The verdict is
:func:`kvcalc.verdict.judge`, so every page states one answer.

Units: bytes per GPU (busiest rank; GiB = 2**30), tokens per sequence.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from . import read_spec
from .capacity import CurvePoint, Deployment, deploy, memory_curve, plan
from .catalog import bundled_config, find_entry
from .engines import Engine, get_engine
from .errors import InputError, KVCalcError, UnsupportedError
from .gpus import CLASS_REPRESENTATIVES, GPU, custom_gpu, get_gpu, gpu_catalog
from .kv import kv_cache
from .llama_cpp.options import cache_type
from .parallel import resolve_parallel
from .plan import PlanResult, fits
from .spec import ModelSpec
from .speed import estimate_speed
from .units import GiB
from .variants import apply_variant
from .verdict import MaxLenSource, Verdict, judge, with_max_model_len

DEFAULT_GGUF = "Q4_K_M"
"""The GGUF file type a llama.cpp scenario plans with unless one is chosen (the most common download)."""
FIT_BATCHES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""The heatmap's batch rows (GPU fit)."""
FALLBACK_MAX_CONTEXT = 131072
"""The heatmap's and Compare's longest context for a config that states no maximum (tokens)."""
SPEED_CONTEXT = 4096
"""Context at which Compare estimates decode speed and time to first token (tokens per sequence)."""
CLASSES: tuple[int, ...] = tuple(sorted(CLASS_REPRESENTATIVES))
"""The GPU classes (GB) Compare gives a longest context for, each by its representative card."""


# -- what the pages ask a runtime's engine (kvcalc.engines), instead of comparing its name -----------------------

VLLM_OPTION_KEYS = ("gpu_memory_utilization", "max_model_len", "block_size", "max_num_seqs", "max_num_batched_tokens",
                    "vllm_version", "speculative_config", "cpu_offload_gb", "lora", "allow_long_max_model_len")
"""The pages' vLLM options (the "Parallelism and vLLM options" inputs): every one is an option of the vLLM engine."""


def serves_context(runtime: str) -> bool:
    """Whether the pages serve the context asked for as the engine's ``max_model_len`` (unless one is set):
    an engine with a "fits if you serve with a shorter length" verdict (``Engine.length_verdict``), whose
    startup depends on that length (vLLM refuses to start when one ``max_model_len`` request does not fit).

    >>> serves_context("vllm"), serves_context("sglang"), serves_context("ideal")
    (True, False, False)
    """
    return type(get_engine(runtime)).length_verdict is not Engine.length_verdict


def loads_gguf(runtime: str) -> bool:
    """Whether the runtime's weights are a GGUF file's (its engine takes a ``gguf`` option): no checkpoint
    size and no weights / KV dtype apply (the file type and the engine's cache types do).

    >>> loads_gguf("llama_cpp"), loads_gguf("vllm")
    (True, False)
    """
    return "gguf" in get_engine(runtime).option_names()


def takes_vllm_options(runtime: str) -> bool:
    """Whether the runtime's engine declares every one of the pages' vLLM options (:data:`VLLM_OPTION_KEYS`).

    >>> takes_vllm_options("vllm"), takes_vllm_options("tensorrt_llm")
    (True, False)
    """
    return set(VLLM_OPTION_KEYS) <= set(get_engine(runtime).option_names())


def splits_tensors(runtime: str) -> bool:
    """Whether the runtime takes a tensor-parallel split (kvcalc.parallel.resolve_parallel accepts TP 2 on
    2 GPUs); one that does not splits the layers over the GPUs (transformers' ``device_map="auto"``).

    >>> splits_tensors("vllm"), splits_tensors("transformers")
    (True, False)
    """
    try:
        resolve_parallel(cast(Any, get_engine(runtime).name), 2, 2, 1)
    except InputError:
        return False
    return True


# -- one deployment, one verdict ------------------------------------------------------------------------------

def served_options(options: Mapping[str, Any], context: int) -> tuple[dict[str, Any], MaxLenSource]:
    """The plan options the pages serve with, and where vLLM's ``max_model_len`` came from: as set
    (``"given"``; every runtime but vLLM), else the context asked for (``"context"``).

    >>> served_options({"runtime": "vllm"}, 8192)
    ({'runtime': 'vllm', 'max_model_len': 8192}, 'context')
    >>> served_options({"runtime": "vllm", "max_model_len": 4096}, 8192)
    ({'runtime': 'vllm', 'max_model_len': 4096}, 'given')
    >>> served_options({"runtime": "sglang"}, 8192)
    ({'runtime': 'sglang'}, 'given')
    """
    if not serves_context(options.get("runtime", "vllm")) or options.get("max_model_len"):
        return dict(options), "given"
    return {**options, "max_model_len": context}, "context"


@dataclass(frozen=True)
class Planned:
    """One deployment planned and judged: ``setup`` (built once), ``plan`` at the batch and context
    asked, ``verdict`` (kvcalc.verdict.judge) and ``source``, where vLLM's ``max_model_len`` came from."""

    setup: Deployment
    plan: PlanResult
    verdict: Verdict
    source: MaxLenSource


def plan_scenario(model: Mapping[str, Any] | ModelSpec, options: Mapping[str, Any], batch: int, context: int, *,
                  config_dict: Mapping[str, Any] | None = None, solve_gpus: bool = True) -> Planned:
    """Deploy ``model`` (a config.json dict, or a spec read from ``config_dict``) with ``options``
    (kvcalc.deploy keywords) under the pages' defaults (:func:`served_options`), plan ``batch``
    sequences of ``context`` tokens and judge it. Raises KVCalcError when kvcalc refuses it.

    >>> s = plan_scenario(bundled_config("meta-llama/Llama-3.1-8B"), {"gpu": "rtx-4090"}, 1, 8192)
    >>> s.plan.fits, s.verdict.state, s.setup.max_model_len, s.source
    (True, 'fits', 8192, 'context')
    """
    served, source = served_options(options, context)
    try:
        setup = deploy(model, config_dict=config_dict, **served)
    except InputError:
        if source != "context":
            raise
        # longer than vLLM accepts as max_model_len: plan at the model's default; the verdict says so
        served, source = dict(options), "model"
        setup = deploy(model, config_dict=config_dict, **served)
    p = plan(setup, batch=batch, context=context, solve_gpus=solve_gpus)
    return Planned(setup, p, judge(setup, p, source), source)


@dataclass(frozen=True)
class KvPreview:
    """The KV cache of a model planned before its weights are known: ``batch`` x ``context`` tokens hold
    ``total_bytes`` over all GPUs (kvcalc.kv.kv_cache, unpaged: the cache itself, before an engine's pages and
    budget), ``bytes_per_token`` for one sequence, in ``kv_dtype``, ``quality`` as kvcalc reads the config."""

    batch: int
    context: int
    total_bytes: int
    bytes_per_token: int
    kv_dtype: str
    quality: str


def kv_preview(config: Mapping[str, Any], options: Mapping[str, Any], batch: int, context: int) -> KvPreview:
    """:class:`KvPreview` of ``config`` at the plan options' KV dtype (``kv_dtype``; None = the model's): what a
    page shows at once for a model whose weights kvcalc cannot size (its KV cache needs only the config).
    KVCalcError when the cache cannot be read either.

    4 layers x 2 KV heads x (64 + 64) x 2 B = 2,048 B a token; 2 x 4,096 tokens hold 16 MiB:

    >>> cfg = {"model_type": "acme_decoder", "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
    ...        "num_key_value_heads": 2, "head_dim": 64, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
    >>> k = kv_preview(cfg, {}, 2, 4096)
    >>> k.bytes_per_token, k.total_bytes == 16 * 2**20, k.quality
    (2048, True, 'estimated')
    """
    kv = options.get("kv_dtype")
    r = kv_cache(config, batch=batch, context=context, kv_dtype=kv if isinstance(kv, str) else None)
    return KvPreview(batch, context, r.total_bytes, r.bytes_per_token, r.kv_dtype, r.quality)


def budget_use(total: int, budget: int, gpu_memory: int, fit: bool) -> tuple[float, str]:
    """(share, of what) to show beside a verdict: ``total / budget``; when a plan fits with more than
    the budget in use (an engine whose own overhead sits outside its memory fraction, SGLang's
    ``mem_fraction_static``), ``total / gpu_memory`` instead, so "fits" never reads above 100 %.

    >>> budget_use(15 * GiB, 20 * GiB, 24 * GiB, True)
    (0.75, 'budget')
    >>> budget_use(22 * GiB, 20 * GiB, 24 * GiB, True)[1]
    'GPU memory'
    """
    if fit and total > budget:
        return total / gpu_memory, "GPU memory"
    return total / budget, "budget"


def total_limit(runtime: str, budget: int, overhead: int) -> int:
    """Bytes per GPU the total (weights + overhead + KV) may reach before the engine's KV pool is full: its
    budget, plus its overhead where that sits outside the budget (``Engine.overhead_outside_budget``: SGLang's
    ``mem_fraction_static`` covers the weights and the KV pool). The line a chart of totals is read against.

    >>> total_limit("vllm", 20 * GiB, 2 * GiB) // GiB, total_limit("sglang", 16 * GiB, 7 * GiB) // GiB
    (20, 23)
    """
    return budget + (overhead if get_engine(runtime).overhead_outside_budget else 0)


def kv_budget(p: PlanResult) -> int:
    """Bytes per GPU the runtime leaves for the KV cache, never negative (0 when the weights and the
    runtime's own reservations already exceed its budget).

    >>> s = plan_scenario(bundled_config("meta-llama/Llama-3.1-70B"), {"gpu": "rtx-4090"}, 1, 8192)
    >>> kv_budget(s.plan)
    0
    """
    left = p.available_kv_bytes if p.available_kv_bytes is not None else \
        p.budget_bytes - p.weights_bytes - p.overhead_bytes
    return max(left, 0)


# -- GPU fit --------------------------------------------------------------------------------------------------

def heat_contexts(max_context: int) -> list[int]:
    """Log-spaced context lengths up to ``max_context``: 2^k and 1.5 x 2^k over the top ~9 octaves,
    plus the maximum itself.

    >>> heat_contexts(8192)
    [16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192]
    """
    hi = max(1, max_context)
    lo = min(hi, max(16, 2 ** (hi.bit_length() - 1 - 9)))
    grid = {v for k in range(0, 31) for v in (2 ** k, 3 * 2 ** k) if lo <= v <= hi}
    return sorted(grid | {hi})


@dataclass(frozen=True)
class HeatCell:
    """One heatmap cell: the share shown (:func:`budget_use`), of what, and whether it fits."""

    share: float
    of: str
    fits: bool


def heat_grid(planned: Planned, batches: Sequence[int], contexts: Sequence[int]) -> list[list[HeatCell]]:
    """cells[i][j] at ``batches[i]`` x ``contexts[j]`` (rows = batch), each served as the headline is:
    under vLLM without a ``max_model_len`` set, each column with ``max_model_len`` = its context.

    >>> s = plan_scenario(bundled_config("meta-llama/Llama-3.1-8B"), {"gpu": "rtx-4090"}, 1, 8192)
    >>> [[c.fits for c in row] for row in heat_grid(s, [1, 64], [8192, 131072])]
    [[True, False], [False, False]]
    """
    grid: list[list[HeatCell]] = [[] for _ in batches]
    for c in contexts:
        d = planned.setup if planned.source == "given" else with_max_model_len(planned.setup, c)
        for i, b in enumerate(batches):
            pt = memory_curve(d, b, [c])[0]
            ok = fits(d, b, c)
            share, of = budget_use(pt.total, pt.budget, d.gpu.memory_bytes, ok)
            grid[i].append(HeatCell(share, of, ok))
    return grid


def gpu_row(planned: Planned, g: GPU) -> dict[str, Any]:
    """The GPU table's row for card ``g``: the same deployment (GPU count, runtime, options, the
    ``max_model_len`` served) moved to it, planned and judged as the headline is.

    >>> s = plan_scenario(bundled_config("meta-llama/Llama-3.1-8B"), {"gpu": "h100-sxm"}, 1, 8192)
    >>> row = gpu_row(s, get_gpu("rtx-4090"))
    >>> row["fits 1 x 8,192"], row["GPU"]
    ('yes', 'GeForce RTX 4090 24GB')
    """
    batch, context = planned.plan.batch, planned.plan.context
    d = planned.setup.with_gpu(g)
    p = plan(d, batch=batch, context=context, solve_gpus=False)
    return {
        "GPU": g.name, "key": g.key, "memory GiB": round(g.memory_gib, 2),
        "budget GiB": round(p.budget_bytes / GiB, 2), "weights GiB / GPU": round(p.weights_bytes / GiB, 2),
        "KV budget GiB": round(kv_budget(p) / GiB, 2),
        f"fits {batch:,} x {context:,}": "yes" if p.fits else "no",
        f"longest context @ batch {batch:,}": judge(d, p, planned.source).longest or 0,
        f"largest batch @ {context:,} tokens": p.max_batch or 0,
        "binding constraint": p.binding_constraint,
    }


def unsupported_row(planned: Planned, g: GPU, reason: str) -> dict[str, Any]:
    """The GPU table's row for a card the runtime refuses (Engine.check_device: no backend for its vendor, or a
    quantization below its compute capability): nothing fits and the runtime has nothing to use there (0 GiB of
    budget, weights and KV: a table's numbers stay finite), the reason in ``binding constraint``, the columns of
    :func:`gpu_row`."""
    batch, context = planned.plan.batch, planned.plan.context
    return {"GPU": g.name, "key": g.key, "memory GiB": round(g.memory_gib, 2), "budget GiB": 0.0,
            "weights GiB / GPU": 0.0, "KV budget GiB": 0.0, f"fits {batch:,} x {context:,}": "refused",
            f"longest context @ batch {batch:,}": 0, f"largest batch @ {context:,} tokens": 0,
            "binding constraint": reason}


@dataclass(frozen=True)
class FitView:
    """Everything the GPU fit page lays out: the headline (``planned``), the heatmap and the GPU table."""

    planned: Planned
    batches: tuple[int, ...]
    contexts: tuple[int, ...]
    cells: tuple[tuple[HeatCell, ...], ...]
    rows: tuple[dict[str, Any], ...]
    errors: tuple[str, ...] = ()

    @property
    def share(self) -> tuple[float, str]:
        """The headline's :func:`budget_use`."""
        p = self.planned.plan
        return budget_use(p.total_bytes, p.budget_bytes, p.gpu_memory_bytes, p.fits)


def gpu_fit(model: Mapping[str, Any] | ModelSpec, options: Mapping[str, Any], batch: int, context: int, *,
            config_dict: Mapping[str, Any] | None = None, batches: Sequence[int] = FIT_BATCHES,
            gpus: Sequence[GPU] | None = None, max_context: int = 1 << 24) -> FitView:
    """GPU fit for one model: the headline at ``batch`` x ``context`` (:func:`plan_scenario`), the
    heatmap over ``batches`` x :func:`heat_contexts` up to the model's maximum (at most
    ``max_context``), one row per card of ``gpus`` (default: the catalog). Raises KVCalcError when
    the headline is refused; a card that refuses is one line of ``errors``.

    >>> v = gpu_fit(bundled_config("meta-llama/Llama-3.1-8B"), {"gpu": "rtx-4090"}, 1, 8192,
    ...             batches=[1], gpus=[get_gpu("rtx-4090")])
    >>> v.planned.verdict.state, v.rows[0]["fits 1 x 8,192"], v.share[0] <= 1
    ('fits', 'yes', True)
    """
    planned = plan_scenario(model, options, batch, context, config_dict=config_dict)
    spec_max = planned.setup.spec.max_position_embeddings
    cap = planned.setup.max_model_len if planned.source == "given" and planned.setup.max_model_len else spec_max
    contexts = heat_contexts(min(cap or max(context, FALLBACK_MAX_CONTEXT), max_context))
    cells = heat_grid(planned, batches, contexts)
    rows, errors = [], []
    for g in gpu_catalog() if gpus is None else gpus:
        try:
            planned.setup.engine.check_device(g, planned.setup.config, planned.setup.dtype)
        except KVCalcError as e:          # the runtime refuses the card (its vendor, a quantization's capability)
            rows.append(unsupported_row(planned, g, str(e)))
            continue
        try:
            rows.append(gpu_row(planned, g))
        except KVCalcError as e:
            errors.append(f"{g.name}: {e}")
    return FitView(planned, tuple(batches), tuple(contexts), tuple(tuple(r) for r in cells), tuple(rows),
                   tuple(errors))


# -- Compare --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scenario:
    """One Compare scenario: a bundled model (Hub id), an attention variant (kvcalc.variants.VARIANTS),
    a KV dtype ("auto" = the model's) and a runtime."""

    model: str
    attn: str
    kvdtype: str
    runtime: str


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario's curve on the chosen GPU and its figures (bytes per GPU, tokens)."""

    scenario: Scenario
    label: str
    curve: list[CurvePoint]
    weights_bytes: int              # per GPU on the chosen GPU
    kv_bytes_per_token: int         # ideal layout, batch 1, below every window
    kv_dtype: str
    budget_bytes: int               # the chosen GPU's budget under this runtime
    longest: dict[str, int]         # column name -> longest context (0 = nothing fits)
    decode_tokens_per_s: float | None = None   # estimated, per sequence at speed_context (None: GPU figure unknown)
    ttft_ms: float | None = None               # estimated time to first token of one speed_context-token prompt
    decode_tokens_per_s_total: float | None = None   # estimated, the whole batch at speed_context
    ttft_batch_ms: float | None = None         # estimated prefill of the whole batch's prompts in one pass
    speed_context: int = SPEED_CONTEXT         # the context (tokens) the speed figures are for
    speed_runs: bool = True                    # the batch runs at speed_context on the chosen GPU
                                               # (kvcalc.verdict.Verdict.runs_as_asked); else the figures
                                               # are what it would reach if it did
    note: str = ""                             # why the speed is not shown (the verdict's sentence) and which
                                               # class cards the runtime refuses


def scenarios(models: Sequence[str], attns: Sequence[str], kvdtypes: Sequence[str],
              runtimes: Sequence[str]) -> list[Scenario]:
    """Every combination, models outermost, in the order picked.

    >>> [s.runtime for s in scenarios(["m"], ["as configured"], ["auto"], ["vllm", "sglang"])]
    ['vllm', 'sglang']
    """
    return [Scenario(*c) for c in itertools.product(models, attns, kvdtypes, runtimes)]


def display_name(hub_id: str) -> str:
    """A bundled model's display name (the id itself when it is not bundled).

    >>> display_name("meta-llama/Llama-3.1-8B")
    'Llama-3.1-8B'
    """
    e = find_entry(hub_id)
    return e.display_name if e else hub_id


def label(s: Scenario, varying: Mapping[str, bool]) -> str:
    """Legend text: the model plus only the dimensions that differ between scenarios (``varying``:
    models / attns / kvdtypes / runtimes -> more than one picked).

    >>> label(Scenario("meta-llama/Llama-3.1-8B", "gqa", "fp8_e4m3", "vllm"),
    ...       {"models": False, "attns": False, "kvdtypes": True, "runtimes": True})
    'KV fp8_e4m3 · vllm'
    """
    parts = [display_name(s.model)] if varying["models"] or not any(varying.values()) else []
    if varying["attns"]:
        parts.append(s.attn)
    if varying["kvdtypes"]:
        parts.append(f"KV {s.kvdtype}")
    if varying["runtimes"]:
        parts.append(s.runtime)
    return " · ".join(parts)


def gpu_class_label(gb: int) -> str:
    """The longest-context column of one GPU class.

    >>> gpu_class_label(24)
    'longest context, 24 GB (GeForce RTX 4090 24GB)'
    """
    return f"longest context, {gb} GB ({get_gpu(CLASS_REPRESENTATIVES[gb]).name})"


def runtime_defaults(runtime: str) -> dict[str, Any]:
    """deploy() keywords a scenario of ``runtime`` needs beyond the shared ones when none are chosen:
    llama.cpp's GGUF file type (:data:`DEFAULT_GGUF`).

    >>> runtime_defaults("llama_cpp"), runtime_defaults("vllm")
    ({'gguf': 'Q4_K_M'}, {})
    """
    return {"gguf": DEFAULT_GGUF} if loads_gguf(runtime) else {}


def plan_options(gpu: Mapping[str, Any], dtypes: Mapping[str, Any], runtime: Mapping[str, Any]) -> dict[str, Any]:
    """Merge the pages' input groups into kvcalc.deploy keywords: ``gpu`` (gpu / gpu_mem_gib, gpus),
    ``dtypes`` (dtype, kv_dtype), ``runtime`` (runtime, ``parallel`` = (TP, PP), the vLLM options,
    ``engine`` = an engine's own keywords). The split is passed when the runtime takes it
    (kvcalc.parallel.resolve_parallel); else (transformers' layer split, a TP x PP that is not the GPU
    count) deploy's default split applies.

    >>> plan_options({"gpu": "h100-sxm", "gpus": 2}, {"dtype": None}, {"runtime": "vllm", "parallel": (2, 1)})
    {'gpu': 'h100-sxm', 'gpus': 2, 'dtype': None, 'runtime': 'vllm', 'tensor_parallel_size': 2, \
'pipeline_parallel_size': 1}
    """
    opts: dict[str, Any] = {**gpu, **dtypes}
    opts["runtime"] = runtime["runtime"]
    tp, pp = runtime.get("parallel", (1, 1))
    try:
        opts["tensor_parallel_size"], opts["pipeline_parallel_size"] = resolve_parallel(
            cast(Any, get_engine(opts["runtime"]).name), opts["gpus"], tp, pp)
    except InputError:
        pass
    for k in VLLM_OPTION_KEYS:
        if runtime.get(k) is not None:
            opts[k] = runtime[k]
    opts.update(runtime.get("engine", {}))
    return opts


def takes_cache_types(runtime: str) -> bool:
    """Whether the runtime's engine sizes its KV cache by llama.cpp's ``-ctk`` / ``-ctv`` cache types
    (``cache_type_k`` / ``cache_type_v`` options) instead of a ``kv_dtype``.

    >>> takes_cache_types("llama_cpp"), takes_cache_types("vllm")
    (True, False)
    """
    return {"cache_type_k", "cache_type_v"} <= set(get_engine(runtime).option_names())


def scenario_options(s: Scenario, gpu: Mapping[str, Any], options: Mapping[str, Any] | None = None,
                     dtype: str | None = None) -> dict[str, Any]:
    """deploy() keywords of one scenario: the GPU, the weights dtype, the scenario's KV dtype and
    runtime, the shared parallelism / engine options (the vLLM ones for a vLLM scenario only) and the
    runtime's defaults (:func:`runtime_defaults`), merged by :func:`plan_options`. Under llama.cpp
    (:func:`takes_cache_types`) a KV dtype other than auto is its ``-ctk`` / ``-ctv`` cache type
    (kvcalc.llama_cpp.options.cache_type: bfloat16 -> bf16), over the options' own; NoCacheType (an
    UnsupportedError, as the other engines refuse a KV dtype they lack) where llama.cpp has none (fp8). A runtime
    that reads a GGUF file (:func:`loads_gguf`) takes no weights dtype: the file's types are its weights (the
    Planner greys the select out there, dashboard.inputs.dtype_inputs).

    >>> scenario_options(Scenario("m", "as configured", "int8", "sglang"), {"gpu": "t4", "gpus": 1},
    ...                  {"max_model_len": 4096})
    {'gpu': 't4', 'gpus': 1, 'dtype': None, 'kv_dtype': 'int8', 'runtime': 'sglang', 'tensor_parallel_size': 1, \
'pipeline_parallel_size': 1}
    >>> o = scenario_options(Scenario("m", "as configured", "bfloat16", "llama_cpp"), {"gpu": "t4", "gpus": 1})
    >>> o["cache_type_k"], o["cache_type_v"], "kv_dtype" in o
    ('bf16', 'bf16', False)
    """
    vllm = takes_vllm_options(s.runtime)
    runtime = {k: v for k, v in (options or {}).items() if vllm or k not in VLLM_OPTION_KEYS}
    kv_dtype = None if s.kvdtype == "auto" else s.kvdtype
    cache = cache_type(kv_dtype) if kv_dtype is not None and takes_cache_types(s.runtime) else None
    if loads_gguf(s.runtime):
        dtype = None
    dtypes = {"dtype": dtype} if cache else {"dtype": dtype, "kv_dtype": kv_dtype}
    opts = plan_options(gpu, dtypes, {**runtime, "runtime": s.runtime})
    if cache:
        opts["cache_type_k"] = opts["cache_type_v"] = cache     # the scenario's KV dtype, over the options' own
    for k, v in runtime_defaults(s.runtime).items():
        opts.setdefault(k, v)
    return opts


def chosen_gpu(gpu: Mapping[str, Any]) -> GPU:
    """The card of a GPU input group (a catalog key in ``gpu``, or ``gpu_mem_gib`` for a custom one).

    >>> chosen_gpu({"gpu": "rtx-4090"}).name, chosen_gpu({"gpu_mem_gib": 48.0}).memory_gib
    ('GeForce RTX 4090 24GB', 48.0)
    """
    return get_gpu(gpu["gpu"]) if "gpu" in gpu else custom_gpu(gpu["gpu_mem_gib"])


def evaluate(s: Scenario, config: Mapping[str, Any], *, gpu: Mapping[str, Any], batch: int,
             variant: Mapping[str, Any], contexts: Sequence[int], name: str,
             options: Mapping[str, Any] | None = None, dtype: str | None = None,
             speed_context: int = SPEED_CONTEXT) -> ScenarioResult:
    """Curve + longest contexts of one scenario: on the chosen GPU (column ``longest context, <name>``)
    and on each class representative (:func:`gpu_class_label`), each the verdict's longest
    (kvcalc.verdict.judge: under vLLM the longest ``--max-model-len`` that starts and holds the batch);
    its estimated speed at ``speed_context`` tokens (capped at the model's maximum).
    Raises KVCalcError when kvcalc refuses the scenario.

    >>> r = evaluate(Scenario("meta-llama/Llama-3.1-8B", "as configured", "auto", "ideal"),
    ...              bundled_config("meta-llama/Llama-3.1-8B"), gpu={"gpu": "h100-sxm", "gpus": 1}, batch=1,
    ...              variant={}, contexts=[1024, 131072], name="H100")
    >>> r.kv_bytes_per_token, r.longest["longest context, H100"]
    (131072, 131072)
    """
    spec = apply_variant(read_spec(config), s.attn, kv_heads=variant.get("kv_heads"),
                         window=variant.get("window"), pattern=variant.get("pattern"))
    kv_dtype = None if s.kvdtype == "auto" else s.kvdtype
    setup = deploy(spec, config_dict=config, **scenario_options(s, gpu, options, dtype))   # once
    pts = [c for c in contexts if c <= setup.context_cap] or [setup.context_cap]
    curve = memory_curve(setup, batch, pts)
    here = plan(setup, batch=batch, context=pts[-1], solve_gpus=False)
    longest = {f"longest context, {name}": judge(setup, here).longest or 0}
    notes = []
    for gb in CLASSES:
        try:
            there = setup.with_gpu(CLASS_REPRESENTATIVES[gb])
        except UnsupportedError as e:    # the runtime refuses that card (its vendor, a quantization's capability)
            longest[gpu_class_label(gb)] = 0
            notes.append(f"{gb} GB class: {e}")
            continue
        longest[gpu_class_label(gb)] = judge(there, plan(there, batch=batch, context=pts[-1],
                                                         solve_gpus=False)).longest or 0
    per_token = kv_cache(spec, batch=1, context=1, kv_dtype=kv_dtype).bytes_per_token
    speed = estimate_speed(setup, batch, min(speed_context, setup.context_cap))
    at = here if speed.context == pts[-1] else plan(setup, batch=batch, context=speed.context, solve_gpus=False)
    verdict = judge(setup, at)
    if not verdict.runs_as_asked:
        notes.insert(0, f"speed not shown: {verdict.sentence}")
    return ScenarioResult(s, "", curve, setup.weights_rank, per_token, here.kv_dtype, here.budget_bytes, longest,
                          speed.decode_tokens_per_s_per_sequence,
                          None if speed.ttft_seconds_per_prompt is None else speed.ttft_seconds_per_prompt * 1e3,
                          speed.decode_tokens_per_s_total,
                          None if speed.ttft_seconds is None else speed.ttft_seconds * 1e3, speed.context,
                          verdict.runs_as_asked, "; ".join(notes))


def context_points(max_context: int, log_x: bool, extra: Sequence[int] = (), n: int = 72) -> list[int]:
    """Context lengths a chart evaluates: ``n`` points (log- or linearly spaced) up to ``max_context``,
    plus ``extra`` points (windows, the chosen context, model maxima) and the one after each, so
    plateaus and steps show.

    >>> context_points(4096, log_x=False, n=3, extra=[1000])
    [1, 1000, 1001, 2048, 4096]
    """
    max_context = max(2, max_context)
    if log_x:
        pts = {max(1, round(max_context ** (i / (n - 1)))) for i in range(n)}
    else:
        pts = {max(1, round(max_context * i / (n - 1))) for i in range(n)}
    pts |= {p for p in extra if 1 <= p <= max_context}
    pts |= {p + 1 for p in extra if 1 <= p < max_context}
    return sorted(pts)


@dataclass(frozen=True)
class ComparePicks:
    """What Compare's inputs picked: the scenario dimensions, the GPU group (:func:`chosen_gpu`), the
    batch, the attention what-if's parameters, the shared options (:func:`scenario_options`) and the
    weights dtype (None = the checkpoint's)."""

    models: tuple[str, ...]
    attns: tuple[str, ...]
    kvdtypes: tuple[str, ...]
    runtimes: tuple[str, ...]
    gpu: Mapping[str, Any]
    batch: int = 1
    variant: Mapping[str, Any] = field(default_factory=dict)
    log_x: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)
    dtype: str | None = None
    context: int = SPEED_CONTEXT      # tokens per sequence the speed columns are estimated at

    @property
    def varying(self) -> dict[str, bool]:
        """Which dimensions have more than one pick."""
        return {k: len(getattr(self, k)) > 1 for k in ("models", "attns", "kvdtypes", "runtimes")}


@dataclass(frozen=True)
class CompareView:
    """Everything the Compare page lays out: the results (labelled), each refused scenario with its label and
    reason (``not_compared``, in the order picked: the page lists them; :attr:`refused` groups them by reason),
    the models that could not be loaded, the chart's capacity lines and title, the chosen GPU's name."""

    results: tuple[ScenarioResult, ...]
    not_compared: tuple[tuple[Scenario, str, str], ...]
    load_errors: tuple[str, ...]
    capacities: tuple[tuple[str, int], ...]
    title: str
    gpu_name: str
    picked: int
    shown: int

    @property
    def refused(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The refusals as (reason, the labels refused for it), reasons in the order first met."""
        grouped: dict[str, list[str]] = {}
        for _, lab, reason in self.not_compared:
            grouped.setdefault(reason, []).append(lab)
        return tuple((k, tuple(v)) for k, v in grouped.items())


def _budget_lines(results: Sequence[ScenarioResult], memory: int) -> list[tuple[str, int]]:
    """One budget line per runtime whose budget is not the GPU's memory (the first scenario's)."""
    lines: dict[str, int] = {}
    for r in results:
        if r.budget_bytes != memory and r.scenario.runtime not in lines:
            lines[r.scenario.runtime] = r.budget_bytes
    return [(f"{rt} budget", b) for rt, b in lines.items()]


def compare(picks: ComparePicks, *, max_scenarios: int = 12, curve_points: int = 96,
            max_context: int = 1 << 24, evaluator: Callable[..., ScenarioResult] | None = None) -> CompareView:
    """Compare: every scenario of ``picks`` (the first ``max_scenarios``) evaluated on the chosen GPU
    (:func:`evaluate`, or ``evaluator`` with its signature: a page's cached one), the bundled configs read
    once; a scenario kvcalc refuses is listed under its reason, a model that cannot be read under
    ``load_errors``.

    >>> v = compare(ComparePicks(("meta-llama/Llama-3.1-8B",), ("as configured",), ("auto",),
    ...                          ("ideal", "llama_cpp"), {"gpu": "h100-sxm", "gpus": 1}), curve_points=8)
    >>> [(r.label, r.longest[f"longest context, chosen: {v.gpu_name}"]) for r in v.results]
    [('ideal', 131072), ('llama_cpp', 131072)]
    """
    every = scenarios(picks.models, picks.attns, picks.kvdtypes, picks.runtimes)
    shown = every[:max_scenarios]
    configs: dict[str, Mapping[str, Any]] = {}
    errors: list[str] = []
    caps: list[int] = []
    for m in dict.fromkeys(s.model for s in shown):
        try:
            configs[m] = bundled_config(m)
            caps.append(read_spec(configs[m]).max_position_embeddings or FALLBACK_MAX_CONTEXT)
        except KVCalcError as e:
            errors.append(f"{display_name(m)}: {e}")
            configs.pop(m, None)
    device = chosen_gpu(picks.gpu)
    gpu_name = device.name if "gpu" in picks.gpu else f"Custom GPU ({picks.gpu['gpu_mem_gib']:g} GiB)"
    contexts = context_points(min(max(caps or [FALLBACK_MAX_CONTEXT]), max_context), picks.log_x, extra=caps,
                              n=curve_points)
    results: list[ScenarioResult] = []
    skipped: list[tuple[Scenario, str, str]] = []
    for s in shown:
        if s.model not in configs:
            continue
        lab = label(s, picks.varying)
        try:
            r = (evaluator or evaluate)(s, configs[s.model], gpu=picks.gpu, batch=picks.batch, variant=picks.variant,
                         contexts=contexts, name=f"chosen: {gpu_name}", options=picks.options, dtype=picks.dtype,
                         speed_context=picks.context)
        except KVCalcError as e:
            skipped.append((s, lab, str(e)))
            continue
        results.append(replace(r, label=lab))
    capacities = [(gpu_name, device.memory_bytes), *_budget_lines(results, device.memory_bytes)]
    for gb in CLASSES:
        g = get_gpu(CLASS_REPRESENTATIVES[gb])
        if g.key != picks.gpu.get("gpu"):
            capacities.append((f"{gb} GB class ({g.name})", g.memory_bytes))
    return CompareView(tuple(results), tuple(skipped), tuple(errors), tuple(capacities), _title(picks, gpu_name),
                       gpu_name, len(every), len(shown))


def _title(picks: ComparePicks, gpu_name: str) -> str:
    varying = picks.varying
    fixed = [display_name(picks.models[0])] if not varying["models"] else []
    fixed += [picks.attns[0]] if not varying["attns"] else []
    fixed += [f"KV {picks.kvdtypes[0]}"] if not varying["kvdtypes"] else []
    fixed += [picks.runtimes[0]] if not varying["runtimes"] else []
    title = f"Total memory per GPU vs context, batch {picks.batch:,}, {picks.gpu.get('gpus', 1)} x {gpu_name}"
    return title + (" - " + ", ".join(fixed) if fixed else "")
