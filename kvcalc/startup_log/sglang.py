"""SGLang startup-log line formats, 0.4 to 0.5 (``model_executor/model_runner.py``,
``mem_cache/memory_pool.py``, ``managers/scheduler.py``).

SGLang's "GB" is ``/ (1 << 30)`` (``get_available_gpu_memory``), i.e. GiB. ``KV Cache is allocated.
#tokens: N, K size: X GB, V size: Y GB`` (memory_pool.MHATokenToKVPool._create_buffers; 0.5 adds
``dtype: ...,`` before ``#tokens``) counts the pool's token slots N; its K / V buffers hold N +
page_size slots; 0.3-0.4.2 print ``KV Cache is allocated. K size: X GB, V size: Y GB.`` without N.
``max_total_num_tokens=N, ... context_len=L`` is the scheduler's line.
"""

from __future__ import annotations

from kvcalc.startup_log.rules import INT, NUM, Rule, version_rule
from kvcalc.startup_log.types import StartupLog
from kvcalc.startup_log.values import Flags, gib_flags, number, pick


def _arg(kind: str, name: str, value: str, unit: str) -> Rule:
    """``name=value`` of the ``server_args=ServerArgs(...)`` line (server_args.py, printed at launch)."""
    pattern = rf"{name}=(?P<{name}>{value})"
    return Rule(f"arg_{kind}", f"{name}=", pattern, ((name, unit),), "server_args=ServerArgs(...)")


ENGINE = "sglang"
"""The runtime (``StartupLog.engine``, kvcalc.engines.registry) whose log these lines are."""

RULES: tuple[Rule, ...] = (
    Rule(
        "load_begin",
        "Load weight begin. avail mem=",
        rf"Load weight begin\. avail mem=(?P<free_before_load>{NUM}) GB",
        (("free_before_load", "GB"),),
        "model_executor/model_runner.py load_model",
    ),
    Rule(
        "load_end",
        "Load weight end. ",
        rf"Load weight end\. (?:elapsed=(?P<load_s>{NUM}) s, )?type=(?P<arch>[A-Za-z0-9_]"
        rf"{{1,80}})(?:, dtype=(?P<dtype>[a-z0-9_.]{{1,40}}))?, avail mem=(?P<free_after_load>{NUM}) GB(?:, mem usage="
        rf"(?P<weights>{NUM}) GB)?",
        (("load_s", "s"), ("arch", "text"), ("dtype", "text"), ("free_after_load", "GB"), ("weights", "GB")),
        "model_runner.py load_model",
    ),
    Rule(
        "kv_alloc",
        "KV Cache is allocated. ",
        rf"KV Cache is allocated\. (?:dtype: (?P<kv_dtype>[a-z0-9_.]{{1,40}}), )?"
        rf"#tokens: (?P<kv_tokens>{INT}), K size: (?P<k_size>{NUM}) GB, V size: (?P<v_size>{NUM}) GB",
        (("kv_dtype", "text"), ("kv_tokens", "tokens"), ("k_size", "GB"), ("v_size", "GB")),
        "mem_cache/memory_pool.py MHATokenToKVPool._create_buffers",
    ),
    Rule(
        "kv_alloc_old",
        "KV Cache is allocated. ",
        rf"KV Cache is allocated\. K size: (?P<k_size>{NUM}) GB, V size: (?P<v_size>{NUM}) GB",
        (("k_size", "GB"), ("v_size", "GB")),
        "memory_pool.py MHATokenToKVPool._create_buffers (0.3-0.4.2: no #tokens; the scheduler line has it)",
    ),
    Rule(
        "kv_alloc_mla",
        "KV Cache is allocated. ",
        rf"KV Cache is allocated\. (?:dtype: [a-z0-9_.]{{1,40}}, )?"
        rf"#tokens: (?P<kv_tokens>{INT}), KV size: (?P<kv_size>{NUM}) GB",
        (("kv_tokens", "tokens"), ("kv_size", "GB")),
        "memory_pool.py MLATokenToKVPool",
    ),
    Rule(
        "pool_end",
        "Memory pool end. avail mem=",
        rf"Memory pool end\. avail mem=(?P<free_after_pool>{NUM}) GB",
        (("free_after_pool", "GB"),),
        "model_runner.py init_memory_pool",
    ),
    Rule(
        "scheduler",
        "max_total_num_tokens=",
        rf"max_total_num_tokens=(?P<max_total_num_tokens>{INT})"
        rf"(?:, chunked_prefill_size=(?P<chunked_prefill_size>-?{INT}))?(?:, max_prefill_tokens=(?P<max_prefill_tokens>"
        rf"{INT}))?(?:, max_running_requests=(?P<max_running_requests>{INT}))?(?:, context_len=(?P<context_len>{INT}))?"
        rf"(?:, available_gpu_mem=(?P<available_gpu_mem>{NUM}) GB)?",
        (
            ("max_total_num_tokens", "tokens"),
            ("chunked_prefill_size", "tokens"),
            ("max_prefill_tokens", "tokens"),
            ("max_running_requests", ""),
            ("context_len", "tokens"),
            ("available_gpu_mem", "GB"),
        ),
        "managers/scheduler.py Scheduler.__init__",
    ),
    Rule(
        "dist_end",
        "Init torch distributed ends. mem usage=",
        rf"Init torch distributed ends\. mem usage="
        rf"(?P<dist_mem>{NUM}) GB",
        (("dist_mem", "GB"),),
        "model_runner.py init_torch_distributed",
    ),
    Rule(
        "cuda_graph",
        "Capture cuda graph end. ",
        rf"Capture cuda graph end\. Time elapsed: (?P<graph_s>{NUM}) s\.? "
        rf"(?:mem usage=(?P<cuda_graph>{NUM}) GB)?",
        (("graph_s", "s"), ("cuda_graph", "GB")),
        "model_runner.py init_cuda_graphs",
    ),
    _arg("mem_fraction", "mem_fraction_static", NUM, ""),
    _arg("tp", "tp_size", INT, ""),
    _arg("context_length", "context_length", INT, "tokens"),
    _arg("page_size", "page_size", INT, "tokens"),
)

VERSION_RULES: tuple[Rule, ...] = (
    version_rule(
        "sglang version",
        r"sglang version[:=]? ?(?P<version>[0-9][0-9a-z.+_-]{0,40})",
        "python -m sglang.check_env / launch banner",
    ),
)

EXPECTED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("load_end",), "weights: 'Load weight end. ... mem usage=X GB'"),
    (
        ("kv_alloc", "kv_alloc_mla", "kv_alloc_old"),
        "KV pool: 'KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB'",
    ),
    (("scheduler",), "scheduler: 'max_total_num_tokens=N, ... context_len=L'"),
)

SIGNATURES = (
    "Load weight begin",
    "Load weight end",
    "KV Cache is allocated",
    "max_total_num_tokens",
    "Memory pool end",
    "mem_fraction_static",
    "Init torch distributed",
    "sglang",
)


# ------------------------------------------------------------------ calibration (kvcalc.startup_log.formats)
GIB_KEPT = frozenset({"--weights-gib"})
"""SGLang's log measures the weights ("Load weight end. ... mem usage=X GB")."""


def flags(log: StartupLog, block_bytes: int | None) -> Flags:
    """``--max-total-tokens`` (the pool's #tokens, else the scheduler's max_total_num_tokens: the same count),
    ``--mem-fraction-static``, ``--context-length``, ``-tp``, ``--page-size`` and ``--weights-gib``."""
    out = pick(
        log,
        (
            ("kv_tokens", "--max-total-tokens", int),
            ("mem_fraction_static", "--mem-fraction-static", float),
            ("context_len", "--context-length", int),
            ("tp_size", "-tp", int),
            ("page_size", "--page-size", int),
        ),
    )
    total = log.value("max_total_num_tokens")
    if "--max-total-tokens" not in out and total is not None:   # the same count (0.3-0.4.2 print it only here)
        out["--max-total-tokens"] = number(total, int)
    return {**out, **gib_flags(log, GIB_KEPT)}


def band(log: StartupLog, tp: int, block: int) -> tuple[float, float, str] | None:
    """(low, high) KV bytes per token: K size = (N + page) slots x the K bytes per token, V the same."""
    k, tokens = log.value("k_size"), log.value("kv_tokens") or log.value("max_total_num_tokens")
    if k is None or tokens is None or not tokens.amount:
        return None
    count = float(tokens.amount)
    lo, hi = 2 * (float(k.amount or 0) - k.tolerance), 2 * (float(k.amount or 0) + k.tolerance)
    return lo / (count + 64), hi / count, f"K size {k.text} GB for {int(count):,} tokens"
