"""What every runtime kvcalc plans for provides: the :class:`Engine` seam and its option declarations.

One engine object per runtime (``ideal``, ``transformers``, ``vllm``, ``sglang``, ``tensorrt_llm``,
``llama_cpp``), each in its own package (kvcalc.ideal, kvcalc.hf_transformers, kvcalc.vllm,
kvcalc.sglang, kvcalc.trtllm, kvcalc.llama_cpp) and found by name in kvcalc.engines.registry.
kvcalc.deployment, kvcalc.plan, kvcalc.curve, kvcalc.layer_table, kvcalc.verdict and the CLI ask
the engine (its methods and capability attributes) and never compare a runtime's name.

An engine owns:

* its options: a frozen dataclass (``options_type``), the :class:`Option` declarations of its flags
  (flag names in the engine's own spelling, type, unit, bounds, default, help, URL key) and
  :meth:`Engine.options_from_flags`, which validates flat flags into that dataclass;
* its deploy-time rules: :meth:`Engine.check_model` (what it refuses to serve), :meth:`Engine.dtypes`
  (the KV dtypes it has), its context cap and whether it splits over several GPUs;
* its memory plan on a :class:`~kvcalc.deployment.Deployment` (:meth:`Engine.memory_plan`), the plan at
  a batch and context (:meth:`Engine.plan_at`), :meth:`Engine.fits`, the per-layer rows
  (:meth:`Engine.layer_rows`) and the memory curve (:meth:`Engine.curve`);
* its words: startup lines, launch command, the parser of its own command line, its verdict hooks.

Units: bytes (GiB = 2**30), tokens.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..errors import InputError
from .rules import CacheRules

if TYPE_CHECKING:
    from ..dtypes import DType
    from ..gguf.mixes import GgufWeights
    from ..gpus import GPU
    from ..spec import ModelSpec
    from ..weights import WeightBytes

# The core modules an engine answers for import this module (kvcalc.deployment -> kvcalc.engines.registry),
# so it names their records without importing them (an import, even under TYPE_CHECKING, would be a
# cycle of the import graph tests/fast/test_imports.py checks); engine subclasses annotate the real types.
Deployment = Any        # kvcalc.deployment.Deployment
MeasuredOverrides = Any  # kvcalc.deployment.MeasuredOverrides
PlanResult = Any        # kvcalc.plan.PlanResult
LayerRow = Any          # kvcalc.layer_table.LayerRow
CurvePoint = Any        # kvcalc.curve.CurvePoint
Verdict = Any           # kvcalc.verdict.Verdict
MaxLenSource = Literal["given", "context", "model"]
"""Where vLLM's ``max_model_len`` came from: set by the user, the context asked for, or the model's default."""

_VLLM_SHARED = ("max_model_len", "block_size", "max_num_seqs", "max_num_batched_tokens", "kv_cache_memory",
                "gpu_memory_utilization")
"""vLLM's options other serving engines have an equivalent of, or say they have none (``vllm_names``)."""

OptionType = Literal["int", "float", "bool", "text", "choice", "json", "length", "list"]
"""How an option's text is read; ``length`` is a token count where -1 / ``auto`` asks the engine to fit it;
``list`` a comma-separated list its ``parse`` reads into a tuple (llama.cpp's ``-ts 3,1``)."""


@dataclass(frozen=True)
class ScoreTraffic:
    """How an engine that writes its attention scores to memory pays for them (``Engine.materialized_scores``):
    bytes of traffic per score (query head x query token x cached cell) in a one-token forward pass and in a
    longer one, ``ubatch`` prompt tokens a pass, and the cells a sliding-window layer's scores span: its window +
    ``ubatch``, rounded up to ``window_pad`` cells (llama.cpp's SWA cache; None: every cell, ``--swa-full``).
    ``viewed_v_passes``: times a forward pass moves each cached V element of a layer whose V is a view inside its
    cached latent (MLA, ``AttentionCache.latent_rank``) besides the cache read already counted; the engine's
    figure for such a layer, unused on a model without one (0: the engine copies none).

    >>> ScoreTraffic(16, 24, 512, 256).span_cap(4096), ScoreTraffic(16, 24, 512, None).span_cap(4096)
    (4608, 0)
    """

    one_token: int
    longer: int
    ubatch: int
    window_pad: int | None
    viewed_v_passes: int = 0

    def per_score(self, tokens: int) -> int:
        """Bytes a score in a forward pass of ``tokens`` tokens."""
        return self.one_token if tokens <= 1 else self.longer

    def span_cap(self, window: int) -> int:
        """Cells a layer with ``window`` (0 = full attention) spans at most; 0 = no cap."""
        if window == 0 or self.window_pad is None:
            return 0
        return -(-(window + self.ubatch) // self.window_pad) * self.window_pad


@dataclass(frozen=True)
class KvQuantization:
    """An engine's 8-bit KV cache: ``kv_dtype`` to deploy with (None: the cache type is an engine option,
    llama.cpp's ``-ctk`` / ``-ctv``), ``options`` the engine options that say so (None: unchanged) and
    ``words``, how a user asks for it ("--kv-cache-dtype fp8")."""

    kv_dtype: str | None
    options: Any
    words: str


@dataclass(frozen=True)
class Option:
    """One engine option, declared once.

    ``dest``: the field of the engine's options dataclass and the flat keyword (``deploy(...,
    mem_fraction_static=0.8)``, the CLI's dest); ``flags``: the engine's own spellings on its command
    line, canonical first (``--mem-fraction-static``); ``kind``: how a flag's text is read (``bool`` is a
    switch; ``negate`` a switch that turns the option off, llama.cpp's ``-nkvo``); ``unit``: of the value
    (``tokens``, ``bytes``, ``GiB``, ``fraction``, ``requests``, ``cells``, ``layers``); ``low`` / ``high``:
    the engine's bounds; ``default``: the options dataclass's (None = the engine picks, per GPU or
    model); ``url_key``: the short key a page link uses; ``const``: the value of a bare flag whose value
    is optional (llama.cpp's bare ``-fa`` = on); ``cli``: False where the CLI builds the value from
    other flags (vLLM's ``lora`` from ``--enable-lora`` and ``--max-loras`` ...) or declares it itself;
    ``parse``: how the engine reads the flag's text where the kind's reader does not say it (vLLM's
    ``human_readable_int`` sizes: '32k', '20G'; kvcalc.engines.readers); ``command``: False for a flag
    kvcalc's CLI has but the engine's own command line does not (``--vllm-version``), which the launch-line
    readers then do not read; ``usual``: the one value the engine takes when the option is not set, where
    ``default`` is None because the dataclass keeps "not set" apart (SGLang's page size 1), which a widget
    shows; ``open_high``: ``high`` itself is refused (SGLang's ``--mem-fraction-static`` is below 1);
    ``choices`` of an int option: the only values the engine takes (TensorRT-LLM's powers of two).

    Every interface is generated from these fields: the CLI's flags (kvcalc.cli), the launch-line readers
    (:meth:`read`), the printers' spellings and, in the dashboard, the URL parameter, its check and the widget
    (dashboard.option_params)."""

    dest: str
    flags: tuple[str, ...]
    kind: OptionType
    help: str
    unit: str = ""
    low: float | None = None
    high: float | None = None
    default: Any = None
    url_key: str | None = None
    choices: tuple[str, ...] = ()
    negate: bool = False
    const: str | None = None
    cli: bool = True
    parse: Callable[[str], Any] | None = None
    command: bool = True
    usual: Any = None
    open_high: bool = False

    def read(self, text: str) -> Any:
        """One command-line value of this option (kvcalc.engines.readers.read_option; ValueError if invalid)."""
        from .readers import read_option

        return read_option(self, text)

    @property
    def flag(self) -> str:
        """The canonical flag (the engine's own long spelling)."""
        return self.flags[0]


class Engine:
    """The seam one runtime implements (module docstring). Defaults suit an unpaged runtime; a
    subclass overrides what its engine does differently. Stateless: one instance per runtime."""

    name: ClassVar[str]
    """The runtime's key (``--runtime``, ``Deployment.runtime``)."""
    label: ClassVar[str]
    """The engine's name in text ("SGLang")."""
    article: ClassVar[str] = "a"
    """The indefinite article before :attr:`label` ("an SGLang option")."""
    version: ClassVar[str] = ""
    """The release (or source snapshot) whose rules are followed."""
    options_type: ClassVar[type] = type(None)
    declarations: ClassVar[tuple[Option, ...]] = ()
    tp_flag: ClassVar[str] = "--tensor-parallel-size"
    """The engine's tensor-parallel flag (the verdict's fix names it)."""
    pp_flag: ClassVar[str | None] = "--pipeline-parallel-size"
    """The engine's pipeline-parallel flag (kvcalc.fixes' pipeline fix names it); None where the engine has no
    separate pipeline split to offer (transformers: its GPUs already are stages; llama.cpp: its -ts layer split)."""
    gpu_vendors: ClassVar[tuple[str, ...] | None] = None
    """The GPU vendors (data/gpus.csv ``vendor``) the engine has a backend for; None: any (llama.cpp's CUDA / ROCm /
    Metal / Vulkan backends, transformers' torch devices, the ideal minimum). :meth:`check_device` refuses others."""
    concurrency_field: ClassVar[str | None] = None
    """The options field that caps the requests run at once (vLLM ``max_num_seqs``, SGLang
    ``max_running_requests``, TensorRT-LLM ``max_batch_size``): the verdict raises it to a batch above it
    (kvcalc.verdict.raised_concurrency); None where the engine has no such cap (llama.cpp's slots: its sized run)."""
    multi_gpu: ClassVar[bool] = True
    """Whether the fewest GPUs are searched and a plan may span several GPUs (llama.cpp: a GPU count is planned
    with its -ts layer split, Engine.check_gpus, but not searched)."""
    tensor_parallel: ClassVar[bool] = True
    """Whether the engine splits layers by tensor parallelism (transformers' ``device_map="auto"`` only
    pipelines whole layers: kvcalc.parallel.resolve_parallel)."""
    overhead_outside_budget: ClassVar[bool] = False
    """Whether the engine's own overhead (activations, CUDA graphs, buffers) sits outside its budget, so a plan
    that fits may show a total above it (SGLang: ``mem_fraction_static`` covers the weights and the KV pool
    only); kvcalc.scenarios.total_limit."""
    counts_overhead: ClassVar[bool] = True
    """Whether memory beside weights and KV (activations, non-torch memory) is counted (not under ``ideal``)."""
    cli_flags: ClassVar[tuple[str, ...]] = ()
    """CLI dests beside :attr:`declarations` that only this engine has (the CLI builds them into options or
    measurements: vLLM's ``--enable-lora``, ``--cuda-graph-gib``; llama.cpp's ``--gguf-type`` / ``--gguf``)."""
    prefill_cache: ClassVar[bool] = False
    """Whether ``kvcalc kv --prefill`` applies (the cache right after a prefill: transformers' generate)."""
    compiles_caches: ClassVar[bool] = False
    """Whether a deployment compiles the unpaged per-stage caches (kvcalc.sweep) for it."""
    vllm_names: ClassVar[Mapping[str, str] | None] = None
    """A serving engine's names for vLLM's options it has an equivalent of (a refusal names them; an
    option without one "has no such option"); None where vLLM's options are not compared (vLLM itself,
    the library runtimes)."""
    single_gpu_error: ClassVar[str] = ""
    """The UnsupportedError text of an engine that plans one GPU only (:attr:`multi_gpu` False)."""
    pooled: ClassVar[bool] = False
    """Whether the engine's cache is its own token pool planned through kvcalc.engine.EngineMemoryPlan
    (SGLang, TensorRT-LLM, llama.cpp: kvcalc.engines.paged), so ``kvcalc.kv_cache`` lists no per-layer
    bytes for it (kvcalc.layer_bytes on a deployment does)."""
    cache_rules: ClassVar[CacheRules | None] = CacheRules()
    serves_gguf: ClassVar[bool] = False
    fp16_accumulate_gemms: ClassVar[bool] = False
    """Whether the engine's prefill GEMMs on an NVIDIA GPU run in fp16 with fp16 accumulation (llama.cpp's), so
    kvcalc.speed costs them at the GPU's FP16-accumulate rate (twice the FP32-accumulate one on a GeForce card) x
    kvcalc.speed.LLAMA_CPP_RATE_SHARE; False: at the checkpoint's bf16 / fp8 / fp4 rate (kvcalc.speed._tensor_rate)."""
    sm_stream_limited: ClassVar[bool] = False
    """Whether the engine's decode kernels keep too little memory traffic in flight per SM to stream a large
    data-center GPU's bandwidth (llama.cpp's), so kvcalc.speed caps a decode step's bandwidth at
    kvcalc.speed.LLAMA_CPP_SM_STREAM_GBPS x the GPU's SMs (kvcalc.speed.decode_bandwidth_gbps)."""
    startup_log: ClassVar[str | None] = None
    """The module of kvcalc.startup_log that reads the engine's startup log: its line formats, calibration
    and model check (kvcalc.startup_log.formats); None where the engine prints none."""
    """Whether the engine serves GGUF files, whose weights kvcalc sizes from the file type (kvcalc.gguf.mixes)."""
    colocates: ClassVar[bool] = False
    """Whether instances side by side on one GPU are modelled (kvcalc.workload.colocate: vLLM's shares of
    ``--gpu-memory-utilization``)."""
    kv_bytes_all_ranks: ClassVar[bool] = False
    """Whether the KV bytes per token the engine's plan gives are all tensor-parallel ranks' together (vLLM's),
    so each rank moves its share over its own link (kvcalc.workload.offload)."""
    """The unpaged cache rules kvcalc.kv's terms follow; None where the engine's per-layer bytes come from its
    own paging (:meth:`layer_kv`) or pool (:attr:`pooled`)."""

    # ------------------------------------------------------------------ options
    def default_options(self) -> Any:
        """The options with every default (the engine's own)."""
        return self.options_type() if self.options_type is not type(None) else None

    def option_names(self) -> tuple[str, ...]:
        """The flat keywords :meth:`options_from_flags` takes (its declarations' ``dest``)."""
        return tuple(o.dest for o in self.declarations)

    def options_from_flags(self, flags: Mapping[str, Any], base: Any = None) -> Any:
        """The engine's validated options from flat flags (dest -> value; absent = the default, or ``base``'s
        value when ``base`` options are given). InputError naming the flag and its bound; a flag of
        another engine is refused naming that engine (:meth:`foreign_error`)."""
        own = self._own_flags(flags)
        if base is not None:
            if not isinstance(base, self.options_type):
                raise InputError(f"options for runtime {self.name!r} are {self.options_type.__name__}, "
                                 f"not {type(base).__name__}")
            if not own:
                return base
            own = {**self.flags_of(base), **own}
        return self.build_options(own)

    def _own_flags(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        """``flags`` less those of other engines (each refused: :meth:`foreign_error`)."""
        mine = self.option_names()
        for key, value in flags.items():
            if key not in mine and not self.ignores(key, value):
                raise InputError(self.foreign_error(key))
        return {k: v for k, v in flags.items() if k in mine}

    def ignores(self, key: str, value: Any) -> bool:
        """Whether a flag of another engine is accepted and ignored (kept from the flat keywords' past:
        vLLM's default ``gpu_memory_utilization``)."""
        return False

    def flags_of(self, options: Any) -> dict[str, Any]:
        """``options`` as flat flags (its declared fields)."""
        return {o.dest: getattr(options, o.dest) for o in self.declarations if hasattr(options, o.dest)}

    def build_options(self, flags: dict[str, Any]) -> Any:
        """The options dataclass from this engine's own validated flags (default: its constructor)."""
        return self.options_type(**flags) if self.options_type is not type(None) else None

    def foreign_error(self, key: str) -> str:
        """The InputError text for flat flag ``key``, which is not this engine's: the owner engine's words
        (its :meth:`foreign_text`), else an unknown option."""
        from .registry import owner_of

        owner = owner_of(key)
        if owner is None:
            return f"deploy() got an unknown option {key[:40]!r}"
        if self.vllm_names is not None and key in _VLLM_SHARED:
            theirs = self.vllm_names.get(key)
            hint = f"{self.label}'s option is {theirs}" if theirs else f"{self.label} has no such option"
            return f"{key} is a vLLM option: {hint}"
        return owner.foreign_text(key)

    def foreign_text(self, key: str) -> str:
        """What to say when this engine's option ``key`` is given to another runtime."""
        return f"{key} is {self.article} {self.label} option: use runtime '{self.name}'"

    def max_model_len(self, options: Any) -> int | None:
        """The context cap the options set (``max_model_len`` where the engine has one)."""
        return getattr(options, "max_model_len", None)

    def layer_kv(self, spec: ModelSpec, *, batch: int, context: int, dtype: Any, kv_dtype: Any,
                 encoder_tokens: int | None) -> Any:
        """``kvcalc.kv_cache``'s result for an engine that pages its cache itself (vLLM), else None (kvcalc.kv
        applies :attr:`cache_rules`); UnsupportedError for a :attr:`pooled` engine."""
        if self.pooled:
            from ..errors import UnsupportedError

            raise UnsupportedError(f"{self.name}'s per-layer bytes come from its pool: use kvcalc.layer_bytes("
                                   f"kvcalc.deploy(config, runtime={self.name!r}), batch, context)")
        return None

    # ------------------------------------------------------------------ deploy-time rules
    def model_spec(self, raw: Mapping[str, Any], spec: ModelSpec) -> ModelSpec:
        """The model as the engine reads it (default: ``spec``, the config's reading); llama.cpp's is the
        converted GGUF's (kvcalc.llama_cpp.arches)."""
        return spec

    def check_model(self, raw: Mapping[str, Any], spec: ModelSpec, options: Any, dtype: str | None,
                    kv_dtype: str | None) -> None:
        """UnsupportedError / InputError for a model or setting the engine refuses at startup (default: none)."""

    def weights(self, raw: Mapping[str, Any], spec: ModelSpec, dtype: str | None, measured: MeasuredOverrides,
                options: Any, gguf: Any, gpus: int) -> tuple[WeightBytes, GgufWeights | None]:
        """(the weights the plan uses, the GGUF weights where the engine loads a GGUF file): the measured
        per-GPU bytes x GPUs, else the config's count (re-quantized to ``dtype``) or, with no dtype chosen,
        the Hub checkpoint's own size."""
        from ..weights import plan_weights

        if measured.weights_bytes is not None:     # an uncountable model never blocks a plan
            return plan_weights(raw, dtype, measured.weights_bytes * gpus), None
        checkpoint = measured.checkpoint_bytes if dtype is None else None
        return plan_weights(raw, dtype, checkpoint, "checkpoint size"), None

    def weights_on_gpu(self, spec: ModelSpec, options: Any, gguf: GgufWeights | None, weights_rank: int) -> int:
        """Weight bytes on the busiest GPU (default: the rank's share, as kvcalc.parallel places it)."""
        return weights_rank

    def check_device(self, gpu: GPU, raw: Mapping[str, Any], dtype: str | None) -> None:
        """UnsupportedError when the engine has no backend for ``gpu``'s vendor (:attr:`gpu_vendors`; a custom GPU,
        vendor unknown, passes), or refuses the weights (``dtype``, else the checkpoint ``raw`` declares) on it."""
        if self.gpu_vendors is not None and gpu.vendor and gpu.vendor not in self.gpu_vendors:
            from ..errors import UnsupportedError
            from .registry import ENGINES

            others = [e.label for e in ENGINES.values()
                      if e.name != "ideal" and (e.gpu_vendors is None or gpu.vendor in e.gpu_vendors)]
            raise UnsupportedError(f"{self.label} has no backend for {gpu.vendor} GPUs ({gpu.name}): it runs on "
                                   f"{' and '.join(self.gpu_vendors)} GPUs; {', '.join(others)} plan this one")

    def check_gpus(self, gpus: int, tp: int | None, pp: int | None) -> None:
        """UnsupportedError when the engine cannot run on this many GPUs (:attr:`multi_gpu`)."""
        if not self.multi_gpu and (gpus != 1 or tp not in (None, 1) or pp not in (None, 1)):
            from ..errors import UnsupportedError

            raise UnsupportedError(self.single_gpu_error)

    def check_prefix_tokens(self, spec: ModelSpec) -> None:
        """InputError for a model whose prompts carry prefix tokens the engine has no rule for (CPM-Ant;
        kvcalc.kv.check_no_prefix_tokens)."""
        from ..kv import check_no_prefix_tokens

        check_no_prefix_tokens(spec, self.label)

    def check_parallel(self, spec: ModelSpec, options: Any, tp: int, pp: int) -> None:
        """Refusals that depend on the parallel sizes (default: none)."""

    def dtypes(self, spec: ModelSpec, dtype: str | None, kv_dtype: str | None) -> tuple[DType, DType]:
        """(model dtype, KV dtype) the engine computes and caches in (kvcalc.kv.resolve_dtypes)."""
        from ..kv import resolve_dtypes

        return resolve_dtypes(spec, dtype, kv_dtype)

    def context_cap(self, options: Any) -> int | None:
        """The longest request the options allow (None: ``max_model_len`` or the model's maximum)."""
        return None

    # ------------------------------------------------------------------ planning
    def memory_plan(self, d: Deployment) -> Any:
        """The engine's startup budget and pool for ``d`` (None for an unpaged runtime)."""
        return None

    def request_length(self, d: Deployment) -> int:
        """The longest request ``d`` serves (tokens): the engine plan's ``max_context``."""
        return int(d.engine_plan().max_context)

    def default_context(self, d: Deployment) -> int | None:
        """The context :func:`kvcalc.plan.plan` uses when none is given (None: the deployment's)."""
        return None

    def plan_at(self, d: Deployment, batch: int, context: int, warnings: list[str]) -> PlanResult:
        """The plan at validated ``batch`` x ``context`` (kvcalc.plan.plan_at), without the fewest-GPUs search."""
        raise NotImplementedError

    def fits(self, d: Deployment, batch: int, context: int) -> bool:
        """Whether ``batch`` requests of ``context`` tokens run on ``d``."""
        raise NotImplementedError

    def one_gpu_fits(self, d: Deployment, batch: int, context: int) -> bool:
        """For an engine that plans one GPU (:attr:`multi_gpu` False): whether one GPU of ``d``'s type serves
        ``batch`` x ``context`` (kvcalc.plan.fewest_gpus then answers 1, else None)."""
        return self.fits(d, batch, context)

    def layer_rows(self, d: Deployment, batch: int, context: int) -> list[LayerRow]:
        """The per-layer rows of kvcalc.layer_table at ``batch`` x ``context``."""
        raise NotImplementedError

    def busiest_stage(self, d: Deployment) -> int | None:
        """The stage (GPU) whose bytes the plan reports, where the engine decides it by more than its KV
        (llama.cpp's layer split: the GPU with the most weights + KV + compute); None = the stage with the
        most KV bytes (kvcalc.layer_table.LayerTable.busiest_stage)."""
        return None

    def curve(self, d: Deployment, batch: int, contexts: Sequence[int]) -> list[CurvePoint]:
        """Memory on the busiest GPU at each context (kvcalc.curve.memory_curve)."""
        raise NotImplementedError

    def stage_weights(self, d: Deployment) -> tuple[int, ...]:
        """Weight bytes on one GPU of each pipeline stage, before the checkpoint / measured scaling the speed
        estimate applies (kvcalc.speed: what a decode step reads): kvcalc.parallel.stage_weights of the count."""
        from ..parallel import stage_weights

        return stage_weights(d.weights_computed, d.spec.num_layers, d.tp, d.pp)

    def kv_reads(self, d: Deployment, a: Any) -> int:
        """How many times one decode step reads each cached K/V head of attention ``a`` (a
        kvcalc.spec.AttentionCache; kvcalc.speed multiplies its KV bytes by it): 1, a generation kernel that
        serves every query head of a GQA group from one read of its KV head (FlashAttention, FlashInfer,
        TensorRT-LLM's XQA, llama.cpp's), as the published figures of every engine bear out."""
        return 1

    def kv_read_dtype(self, d: Deployment) -> Any:
        """The element type (a kvcalc.dtypes.DType) of the cache a decode step reads, for kvcalc.speed: the
        deployment's KV dtype (``d.kv``), unless the engine sizes its cache by options of its own (llama.cpp's
        ``-ctk`` / ``-ctv``)."""
        return d.kv

    def dequantized_prompt(self, d: Deployment) -> tuple[int, int] | None:
        """(tokens a prompt pass runs, most tokens a pass multiplies the stored quantized weights directly) where the
        engine's prompt GEMMs on quantized weights first convert every weight matrix to F16 (llama.cpp's cuBLAS path:
        kvcalc.speed adds that conversion's traffic to each longer pass); None where they multiply the stored
        weights (MMQ, Marlin, the serving engines' W4A16 / W8A8 kernels)."""
        return None

    def materialized_scores(self, d: Deployment) -> ScoreTraffic | None:
        """How the engine pays for each layer's attention scores when it writes them to memory and reads them back
        (:class:`ScoreTraffic`); None: a fused attention kernel keeps them on chip (FlashAttention, FlashInfer,
        XQA), and kvcalc.speed adds no traffic for them."""
        return None

    def speculative(self, d: Deployment) -> str | None:
        """The speculative decoding the run is configured with, in words (None: none): kvcalc.speed names it as
        not modelled, since its speed-up depends on the acceptance rate, which no config gives."""
        return None

    def startup_lines(self, d: Deployment) -> tuple[str, ...]:
        """What the engine prints about memory at startup (empty for a library runtime)."""
        return ()

    def overhead_parts(self, d: Deployment, p: PlanResult) -> dict[str, int]:
        """``p.overhead_bytes`` split into what it is: part name -> bytes per GPU (busiest GPU), summing
        exactly to it (``plan --json``'s ``overhead_parts``). Default: one ``runtime_overhead`` part, none
        when the plan counts no overhead (``ideal``)."""
        return {"runtime_overhead": p.overhead_bytes} if p.overhead_bytes else {}

    def report_lines(self, p: PlanResult) -> list[str]:
        """The lines the CLI's text report adds for this engine after the solvers (its startup log)."""
        return []

    def launch_command(self, model: str, d: Deployment) -> Any:
        """The command that serves ``d`` (kvcalc.serve_command.ServeCommand)."""
        raise InputError(f"{self.label} has no launch command")

    def plan_command(self, model: str, d: Deployment, batch: int, context: int) -> Any:
        """The command that serves a plan of ``batch`` x ``context`` tokens on ``d`` (default: the launch command,
        which does not depend on the request)."""
        return self.launch_command(model, d)

    def parse_command(self, text: str) -> Any:
        """The engine's own command line read into options (None when the engine has no command line)."""
        return None

    # ------------------------------------------------------------------ the verdict's words (kvcalc.verdict)
    def context_limit(self, d: Deployment) -> int:
        """The longest context the verdict compares the request with."""
        return d.context_cap

    def over_context(self, source: MaxLenSource) -> str | None:
        """The note after "more than the model's maximum context" (None: the verdict looks further)."""
        return ""

    def served_longest(self, d: Deployment, p: PlanResult) -> int | None:
        """Longest context per sequence at the plan's batch, on these GPUs."""
        return p.max_context

    def max_len_note(self, d: Deployment, source: MaxLenSource) -> tuple[int | None, str]:
        """(the max_model_len the plan used, why) where the engine has one."""
        return None, ""

    def length_verdict(self, d: Deployment, p: PlanResult, mml: int | None, note: str, longest: int | None,
                       source: MaxLenSource) -> Verdict | None:
        """A 'fits if you serve with a shorter length' verdict (None: not this engine's)."""
        return None

    def refusal_verdict(self, d: Deployment, p: PlanResult, mml: int | None, note: str,
                        longest: int | None) -> Verdict | None:
        """The engine's own refusal and fix when nothing fits (None: the generic wording)."""
        return None

    def more_gpus(self, n: int) -> str:
        """How to serve on ``n`` GPUs (the tensor-parallel flag)."""
        return f"{self.tp_flag} {n}"

    def fewest_text(self, d: Deployment, n: int | None) -> str:
        """The verdict's 'fewest GPUs' clause."""
        if n is None:
            return f"more than 64 {d.gpu.name} GPUs needed"
        return f"fewest {d.gpu.name} GPUs: {n:,}"

    def command_flag(self, dest: str) -> str:
        """The flag of option ``dest`` as the engine's launch command spells it (default: its declaration's)."""
        return next(o.flag for o in self.declarations if o.dest == dest)

    def longest_words(self, mml: int | None, longest: int) -> str:
        """What serves the verdict's longest context when the engine's own length limit is below it (vLLM's
        " with --max-model-len 131072"); default: nothing, the longest runs as configured."""
        return ""

    def request_words(self, d: Deployment, batch: int, context: int) -> str:
        """What to set so ``d`` serves ``batch`` requests of ``context`` tokens, after kvcalc.fixes' lower-batch and
        shorter-context fixes (" (--max-model-len 5136)"; default: nothing, the requests are just fewer or shorter)."""
        return ""

    def quantized_kv(self, d: Deployment) -> KvQuantization | None:
        """The 8-bit KV cache the engine offers instead of ``d``'s (kvcalc.fixes' quantized-KV fix), or None:
        the engine has none, or ``d``'s cache already is 8 bits or fewer. Default: none."""
        return None

    def serving_hint(self, d: Deployment) -> str:
        """An engine-specific extra fix appended to 'does not fit' (default none)."""
        return ""

    def __repr__(self) -> str:
        return f"<engine {self.name}>"
