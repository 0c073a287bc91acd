"""The answer in one sentence: does this plan fit, and if not, what to change.

``judge(deployment, plan_result)`` -> :class:`Verdict` with one of three states:

``fits``
    ``batch`` sequences of ``context`` tokens fit: "Fits: 8 sequences of 8,192 tokens (up to 46,672
    tokens each)". "up to" is the longest context per sequence at this batch; under vLLM the
    longest ``max_model_len`` with which vLLM still starts and holds the batch (kvcalc.plan.fits on
    the deployment with that ``max_model_len``).
``fits_if``
    One change on the same GPUs makes it fit: a shorter ``--max-model-len`` (vLLM refuses to start
    when one ``max_model_len`` request does not fit its KV pool: vllm/v1/core/kv_cache_utils.py
    ``check_enough_kv_cache_memory``), a flag of the run (the engine's concurrency cap raised to the batch,
    :func:`raised_concurrency`; llama.cpp's run sized to the request, ``-np batch -c batch x context``), or a
    smaller batch. All but the last run the batch as asked (:attr:`Verdict.runs_as_asked`).
``does_not_fit``
    Not even one sequence of ``context`` tokens fits on these GPUs; the fix is the fewest GPUs of
    this type that fit (kvcalc.plan.fewest_gpus, in ``PlanResult.min_gpus``), with the engine's own
    tensor-parallel flag (``Engine.tp_flag``); under llama.cpp (one GPU) its allocation refusal and fix.

The engine-specific words (vLLM's ``--max-model-len``, llama.cpp's refusal, each engine's tensor-parallel
flag) come from the deployment's engine (kvcalc.engines). Numbers are written with thousands
separators; sizes in GiB (2**30 bytes) with one decimal. The text is plain (no Markdown): a page
escapes it like any other text.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from .deployment import Deployment
from .engines.base import Engine, MaxLenSource
from .plan import PlanResult, fits
from .solve import largest_true
from .units import GiB

State = Literal["fits", "fits_if", "does_not_fit"]


@dataclass(frozen=True)
class Verdict:
    """``sentence``: the answer in plain words; ``fix``: what to change (None when it fits);
    ``max_model_len``: the one the plan used (vLLM only) and ``max_model_len_note`` why;
    ``longest``: the longest context per sequence at this batch (tokens; None when nothing fits);
    ``serve_max_model_len``: the ``--max-model-len`` to serve with (the fix's, under ``fits_if``);
    ``serve_options``: the engine options a ``fits_if`` fix serves with where it is a flag of the run, not a
    smaller batch (a raised concurrency cap, llama.cpp's ``-np batch -c batch x context``), else None."""

    state: State
    sentence: str
    fix: str | None
    max_model_len: int | None = None
    max_model_len_note: str = ""
    longest: int | None = None
    serve_max_model_len: int | None = None
    serve_options: Any = None

    @property
    def runs_as_asked(self) -> bool:
        """The batch runs at its context on these GPUs: it fits, or fits once served with the fix's shorter
        ``--max-model-len`` or engine flags (``serve_options``); a ``fits_if`` whose fix is a smaller batch does
        not, nor ``does_not_fit``. A speed estimate for a plan that does not run as asked is greyed out.

        >>> Verdict("fits_if", "Fits if you lower the batch to 2 sequences", "lower the batch to 2", 8192,
        ...         "", 8192, 8192).runs_as_asked
        False
        """
        return self.state == "fits" or (self.state == "fits_if" and (
            self.serve_options is not None
            or (self.serve_max_model_len is not None and self.serve_max_model_len != self.max_model_len)))


def fewest_gpus_text(engine: Engine, p: PlanResult) -> str:
    """The plan's fewest GPUs of this type in words (plain text: the CLI's report line, the Planner's caption):
    the count, or why there is none (an engine that plans a given GPU count, a context over the model's
    maximum, more than the counts searched)."""
    if p.min_gpus:
        return f"fewest GPUs of this type: {p.min_gpus}"
    if not engine.multi_gpu:
        return f"fewest GPUs of this type: not one ({engine.label}: the GPU count given is planned, not searched)"
    if p.model_max_context and p.context > p.model_max_context:
        return f"fewest GPUs of this type: no count helps (the context is over the model's maximum " \
               f"{p.model_max_context:,})"
    return "fewest GPUs of this type: more than 64"


def raised_concurrency(d: Deployment, batch: int, context: int) -> tuple[Any, str] | None:
    """(``d``'s options with the engine's concurrency cap (``Engine.concurrency_field``) raised to ``batch``, its
    flag and value) where ``d``'s own cap is below ``batch`` and the raised run holds ``batch`` x ``context`` on
    the same GPUs, else None: the verdict's "fits if you serve with --max-num-seqs 8" (the cap, not the memory,
    binds; raising it is planned again, vLLM's sampler warm-up for the larger batch included)."""
    eng = d.engine
    field = eng.concurrency_field
    cap = getattr(d.options, field, None) if field else None
    if field is None or cap is None or cap >= batch:
        return None
    raised = replace(d.options, **{field: batch})
    if not fits(d.with_cache(d.kv_dtype, raised), batch, context):
        return None
    return raised, f"{eng.command_flag(field)} {batch}"


def gib(n: int) -> str:
    """Bytes as GiB with one decimal: '65.7 GiB'."""
    return f"{n / GiB:,.1f} GiB"


def with_max_model_len(d: Deployment, max_model_len: int | None) -> Deployment:
    """The same deployment served with another vLLM ``max_model_len`` (None = the model's default);
    a fresh object, so its memoized vLLM budget is rebuilt for that length."""
    cap = max_model_len or d.spec.max_position_embeddings or d.context_cap
    return replace(d, max_model_len=max_model_len, context_cap=cap)


def longest_served(d: Deployment, batch: int, hi: int) -> int | None:
    """Under vLLM: the longest ``L <= hi`` such that vLLM started with ``--max-model-len L`` holds
    ``batch`` requests of ``L`` tokens (kvcalc.plan.fits); None when not even 1 token fits.
    ``hi`` is usually the plan's ``max_context`` at the model's default ``max_model_len``."""
    def ok(t: int) -> bool:
        return fits(with_max_model_len(d, t), batch, t)
    if ok(hi):
        return hi
    return largest_true(ok, hi)


def sequences(n: int) -> str:
    """'1 sequence', '8 sequences'."""
    return f"{n:,} sequence" + ("" if n == 1 else "s")


_sequences = sequences


def _more_gpus(d: Deployment, p: PlanResult) -> str:
    n = p.min_gpus
    if n is None or n <= d.gpus:
        return ""
    return f", or serve on {n:,} x {d.gpu.name} ({d.engine.more_gpus(n)})"


def judge(d: Deployment, p: PlanResult, max_model_len_source: MaxLenSource = "given") -> Verdict:
    """The verdict on plan ``p`` of deployment ``d`` (module docstring). ``p`` should come from
    ``kvcalc.plan(d, ...)`` with the fewest-GPUs search (``min_gpus``). The engine-specific words come
    from ``d.engine`` (``max_len_note``, ``served_longest``, ``length_verdict``, ``refusal_verdict``, ...)."""
    eng = d.engine
    mml, note = eng.max_len_note(d, max_model_len_source)
    longest = eng.served_longest(d, p)
    batch, ctx = p.batch, p.context
    if p.fits:
        up_to = (f" (up to {longest:,} tokens each{eng.longest_words(mml, longest)})"
                 if longest and longest > ctx else "")
        more = f"; up to {p.max_batch:,} sequences of this length" if p.max_batch and p.max_batch > batch else ""
        return Verdict("fits", f"Fits: {sequences(batch)} of {ctx:,} tokens{up_to}{more}", None, mml, note,
                       longest, mml)
    cap = eng.context_limit(d)
    refused = eng.over_context(max_model_len_source)
    if ctx > cap and refused is not None:
        return Verdict("does_not_fit", f"Does not fit: {ctx:,} tokens is more than the model's maximum context "
                       f"{cap:,}{refused}",
                       f"lower the context to at most {cap:,} tokens", mml, note, longest, None)
    by_length = eng.length_verdict(d, p, mml, note, longest, max_model_len_source)
    if by_length is not None:
        return by_length
    raised = raised_concurrency(d, batch, ctx)
    if raised is not None:
        return Verdict("fits_if", f"Fits if you serve with {raised[1]} (as configured, {p.binding_constraint})",
                       f"serve with {raised[1]}", mml, note, longest, mml, raised[0])
    per_seq = p.max_batch or 0
    if 1 <= per_seq < batch:
        fix = f"lower the batch to {per_seq:,}{_more_gpus(d, p)}"
        return Verdict("fits_if", f"Fits if you lower the batch to {sequences(per_seq)} of {ctx:,} tokens"
                       f"{_more_gpus(d, p)}", fix, mml, note, longest, mml)
    refusal = eng.refusal_verdict(d, p, mml, note, longest)
    if refusal is not None:
        return refusal
    if p.weights_bytes > p.budget_bytes:
        why = f"weights alone need {gib(p.weights_bytes)} per GPU (budget {gib(p.budget_bytes)})"
    else:
        free = p.available_kv_bytes if p.available_kv_bytes is not None else \
            p.budget_bytes - p.weights_bytes - p.overhead_bytes
        why = (f"weights alone need {gib(p.weights_bytes)} per GPU, the runtime's own reservations "
               f"{gib(p.overhead_bytes)} more, leaving {gib(max(free, 0))} for the KV cache; one sequence of {ctx:,} "
               f"tokens needs {gib(p.kv_bytes // max(batch, 1))}")
    shorter = f"; on {d.gpus:,} GPU(s) at most {longest:,} tokens per sequence at batch {batch:,}" if longest else ""
    more = _more_gpus(d, p)
    # the runtime's reservations are no help where the weights alone are over the budget
    hint = eng.serving_hint(d) if p.weights_bytes <= p.budget_bytes else ""
    fix = (more[len(", or "):] if more else "more GPUs or a smaller model") + shorter + hint
    return Verdict("does_not_fit", f"Does not fit: {why}; {eng.fewest_text(d, p.min_gpus)}", fix, mml, note, longest,
                   None)
