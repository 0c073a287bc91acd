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
    ``check_enough_kv_cache_memory``), or a smaller batch.
``does_not_fit``
    Not even one sequence of ``context`` tokens fits on these GPUs; the fix is the fewest GPUs of
    this type that fit (kvcalc.plan.fewest_gpus, in ``PlanResult.min_gpus``), with the engine's own
    tensor-parallel flag (:data:`TP_FLAGS`); under llama.cpp (one GPU) its allocation refusal and fix.

Numbers are written with thousands separators; sizes in GiB (2**30 bytes) with one decimal. The
text is plain (no Markdown): a page escapes it like any other text.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from .deployment import Deployment
from .plan import PlanResult, fits
from .solve import largest_true
from .units import GiB
from .vllm.activation import estimate_activation_bytes

State = Literal["fits", "fits_if", "does_not_fit"]
MaxLenSource = Literal["given", "context", "model"]
"""Where vLLM's ``max_model_len`` came from: set by the user, the context asked for, or the model's default."""


@dataclass(frozen=True)
class Verdict:
    """``sentence``: the answer in plain words; ``fix``: what to change (None when it fits);
    ``max_model_len``: the one the plan used (vLLM only) and ``max_model_len_note`` why;
    ``longest``: the longest context per sequence at this batch (tokens; None when nothing fits);
    ``serve_max_model_len``: the ``--max-model-len`` to serve with (the fix's, under ``fits_if``)."""

    state: State
    sentence: str
    fix: str | None
    max_model_len: int | None = None
    max_model_len_note: str = ""
    longest: int | None = None
    serve_max_model_len: int | None = None


def gib(n: int) -> str:
    """Bytes as GiB with one decimal: '65.7 GiB'."""
    return f"{n / GiB:,.1f} GiB"


def _sequences(n: int) -> str:
    return f"{n:,} sequence" + ("" if n == 1 else "s")


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


def _longest(d: Deployment, p: PlanResult) -> int | None:
    """Longest context per sequence at the plan's batch, on these GPUs."""
    if d.runtime != "vllm":
        return p.max_context
    from .plan import plan_at

    default = with_max_model_len(d, None) if d.max_model_len else d
    hi = plan_at(default, p.batch, 1).max_context if default is not d else p.max_context
    hi = min(hi, default.vllm_max_model_len()) if hi else None
    return longest_served(d, p.batch, hi) if hi else None


def _max_len_note(d: Deployment, source: MaxLenSource) -> tuple[int | None, str]:
    if d.runtime != "vllm":
        return None, ""
    used = d.vllm_plan().max_model_len
    if source == "context":
        return used, f"max_model_len {used:,}: the context asked for (no max_model_len was set)"
    if source == "given":
        return used, f"max_model_len {used:,}: as set"
    return used, f"max_model_len {used:,}: the model's default, derived from its config as vLLM does"


TP_FLAGS = {"vllm": "--tensor-parallel-size", "sglang": "--tp", "tensorrt_llm": "--tp_size"}
"""Each engine's own tensor-parallel flag (vllm/engine/arg_utils.py, sglang server_args.py, trtllm-serve serve.py)."""


def _sampler_fix(d: Deployment) -> str:
    """Under vLLM, when its profiling run's sampler warm-up (one dummy request per ``max_num_seqs``,
    kvcalc.vllm.activation) is the activation peak: the smaller ``--max-num-seqs`` that frees it."""
    if d.runtime != "vllm":
        return ""
    vp = d.vllm_plan()
    est = estimate_activation_bytes(d.spec, max_num_batched_tokens=vp.max_num_batched_tokens,
                                    max_num_seqs=vp.max_num_seqs, dtype=d.dtype, tensor_parallel_size=d.tp,
                                    intermediate_size=d.spec.mlp_width)
    if not vp.activation_estimated or est.sampler_bytes <= est.forward_bytes:
        return ""
    return (f"; or a smaller --max-num-seqs (vLLM's sampler warm-up for {vp.max_num_seqs:,} requests reserves "
            f"{gib(est.sampler_bytes)}, its forward pass {gib(est.forward_bytes)})")


def _fewest(d: Deployment, p: PlanResult) -> str:
    n = p.min_gpus
    if d.runtime == "llama_cpp":
        return "llama.cpp's multi-GPU split (-ts, --split-mode) is not modelled: one GPU planned"
    if n is None:
        return f"more than 64 {d.gpu.name} GPUs needed"
    return f"fewest {d.gpu.name} GPUs: {n:,}"


def _more_gpus(d: Deployment, p: PlanResult) -> str:
    n = p.min_gpus
    if n is None or n <= d.gpus:
        return ""
    how = "pipeline stages" if d.runtime == "transformers" else f"{TP_FLAGS.get(d.runtime, TP_FLAGS['vllm'])} {n}"
    return f", or serve on {n:,} x {d.gpu.name} ({how})"


def judge(d: Deployment, p: PlanResult, max_model_len_source: MaxLenSource = "given") -> Verdict:
    """The verdict on plan ``p`` of deployment ``d`` (module docstring). ``p`` should come from
    ``kvcalc.plan(d, ...)`` with the fewest-GPUs search (``min_gpus``)."""
    mml, note = _max_len_note(d, max_model_len_source)
    longest = _longest(d, p)
    batch, ctx = p.batch, p.context
    if p.fits:
        up_to = f" (up to {longest:,} tokens each)" if longest and longest > ctx else ""
        more = f"; up to {p.max_batch:,} sequences of this length" if p.max_batch and p.max_batch > batch else ""
        return Verdict("fits", f"Fits: {_sequences(batch)} of {ctx:,} tokens{up_to}{more}", None, mml, note,
                       longest, mml)
    cap = d.vllm_max_model_len() if d.runtime == "vllm" else d.context_cap
    if ctx > cap and (d.runtime != "vllm" or max_model_len_source == "model"):
        refused = " (vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set)" if d.runtime == "vllm" else ""
        return Verdict("does_not_fit", f"Does not fit: {ctx:,} tokens is more than the model's maximum context "
                       f"{cap:,}{refused}",
                       f"lower the context to at most {cap:,} tokens", mml, note, longest, None)
    if d.runtime == "vllm" and mml is not None and longest is not None and longest >= ctx:
        what = "the model's default" if max_model_len_source == "model" else "max_model_len"
        fix = f"--max-model-len {longest}"
        verb = "fits" if batch == 1 else "fit"
        return Verdict("fits_if", f"Fits if you serve with {fix} ({what} {mml:,} does not)",
                       f"serve with {fix}: {_sequences(batch)} of up to {longest:,} tokens {verb}", mml, note,
                       longest, longest)
    per_seq = p.max_batch or 0
    if 1 <= per_seq < batch:
        fix = f"lower the batch to {per_seq:,}{_more_gpus(d, p)}"
        return Verdict("fits_if", f"Fits if you lower the batch to {_sequences(per_seq)} of {ctx:,} tokens"
                       f"{_more_gpus(d, p)}", fix, mml, note, longest, mml)
    if d.runtime == "llama_cpp":          # the engine's own refusal, with its fix (kvcalc.llama_cpp.seam.OOM)
        why, _, engine_fix = p.binding_constraint.partition("); ")
        return Verdict("does_not_fit", f"Does not fit: {why}{')' if engine_fix else ''}; {_fewest(d, p)}",
                       engine_fix or "a smaller GGUF file type or a shorter -c", mml, note, longest, None)
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
    fix = (more[len(", or "):] if more else "more GPUs or a smaller model") + shorter + _sampler_fix(d)
    return Verdict("does_not_fit", f"Does not fit: {why}; {_fewest(d, p)}", fix, mml, note, longest, None)
