"""How fast will it serve: decode tokens/s and time to first token, estimated from the same deployment.

Always an **estimate**: a roofline over the per-layer model kvcalc already has, with efficiency
factors taken from published measurements (kvcalc.speed_reference lists them with their sources).
Units: bytes, FLOP, seconds; bandwidth in GB/s = 1e9 bytes/s and tensor rate in TFLOP/s = 1e12
FLOP/s, as GPU datasheets (and ``data/gpus.csv``) give them.

Decode (one new token for each of ``batch`` sequences, each ``context`` tokens long):
    Every step reads the weights it touches and every sequence's whole cache, once::

        bytes_s = weights_s x touched(batch) - unread embedding rows + kv_s(batch, context)   per GPU of stage s
        flops_s = (2 x active_params x batch x n_s / L + attention_s) / tp
        step    = sum over pipeline stages of max(bytes_s / (bandwidth x eta_bw), flops_s / (rate x eta_c))

    ``kv_s`` is the ideal cache one rank of the stage holds (kvcalc.kv ``ideal``: full layers T
    tokens, sliding min(T, W), MLA the latent, recurrent states their fixed size), in the KV dtype:
    a step reads the tokens held, not a paged pool's empty slots. ``touched(batch)`` is 1 for dense
    models; for MoE it is ``1 - f_experts x (1 - E_b / E)``, with ``E_b = E x (1 - (1 - k / E)^batch)``
    the expected number of distinct experts ``batch`` tokens activate per layer under uniform
    routing (each token picks ``k`` of ``E``) and ``f_experts`` the routed experts' share of the
    parameters. Of an input embedding table that is not also the LM head on that GPU, a step reads
    only the ``batch`` rows it looks up. The attention term per layer and sequence is
    ``2 x query_heads x (k_dim + v_dim) x tokens attended`` (MLA: ``2 x query_heads x 2 x latent``).
    Tokens/s per sequence ``1 / step``; aggregate ``batch / step``. Pipeline stages run one after
    another within a step (no micro-batch overlap); tensor-parallel communication is not modelled.
Prefill (time to first token, ``batch`` prompts of ``prompt`` tokens in one forward pass):
    ``flops = 2 x active_params x batch x prompt + attention`` with causal attention over
    ``sum_{t=1..P} min(t, W)`` tokens per query position; ``time = sum over stages of max(flops_s /
    (tp x rate x eta_c), (weights_s + kv written_s) / (bandwidth x eta_bw))``.

Not modelled (each stated in the assumptions): dequantization cost of quantized weights (their
bytes are counted, their unpacking is not), fp8 tensor rates (the bf16 rate is used), kernel launch
and scheduling overheads, speculative decoding, communication between GPUs.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .deployment import Deployment
from .dtypes import ceil_div
from .errors import InputError, KVCalcError
from .limits import MAX_BATCH, MAX_CONTEXT, MIN_EFFICIENCY, check_count, check_finite
from .parallel import stage_specs
from .spec import AttentionCache, ModelSpec
from .sweep import CompiledCache, cache_bytes, compile_cache

DEFAULT_BANDWIDTH_EFFICIENCY = 0.76
"""Share of the datasheet memory bandwidth a decode step achieves: the median, rounded to 0.01, of
the shares implied by the published decode figures with nothing unmodelled (7 rows: 0.70-0.90 on
A100, H100, L40S, RTX 3090 / 4090 / 5090); ``kvcalc.speed_reference.derived_efficiencies()[0]``."""

DEFAULT_COMPUTE_EFFICIENCY = 0.8
"""Share of the datasheet dense bf16 tensor rate a compute-bound prefill achieves: the median,
rounded to 0.01, of the shares implied by the published prefill figures with nothing unmodelled
(3 rows: 0.69 A100 TensorRT-LLM, 0.80 / 0.91 RTX 3090 / 4090 llama.cpp);
``kvcalc.speed_reference.derived_efficiencies()[1]``."""

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
    ttft_seconds: float | None
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
    table: int                       # bytes of an input embedding table a step does not read whole (stage 0)
    row_bytes: int                   # bytes of one row of that table
    cache: CompiledCache             # the ideal cache of one rank (what a step reads)
    share: float                     # the stage's share of the decoder layers
    width_by_cap: tuple[tuple[int, int], ...]   # (window or 0 = unbounded, attention FLOP per attended token)
    cross_width: int                 # attention FLOP per encoder token (cross-attention layers)
    spec: ModelSpec


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
    n_layers = max(d.spec.num_layers, 1)
    out = []
    for i, (spec, w) in enumerate(zip(stage_specs(d.rank, d.pp), weights)):
        widths: dict[int, int] = {}
        cross = 0
        for layer in spec.layers:
            for a in layer.attention:
                if a.source == "cross":
                    cross += _attention_width(a)
                else:
                    widths[a.window or 0] = widths.get(a.window or 0, 0) + _attention_width(a)
        out.append(_Stage(w, table if i == 0 else 0, row if i == 0 else 0,
                          compile_cache(spec, dtype=d.model_dtype, kv_dtype=d.kv, runtime="ideal"),
                          spec.num_layers / n_layers, tuple(sorted(widths.items())), cross, spec))
    d._memo["speed_stages"] = tuple(out)
    return tuple(out)


def _touched(d: Deployment, batch: int) -> tuple[float, float | None]:
    """(share of the weights a step at ``batch`` reads, expected experts per MoE layer or None)."""
    params = d.weights.params
    num_experts, top_k = d.spec.moe_experts, d.spec.moe_top_k       # read once, by kvcalc.architectures
    if params.moe_experts and num_experts and top_k:
        experts = expected_experts(num_experts, top_k, batch)
        return 1.0 - params.moe_experts / params.total * (1.0 - experts / num_experts), experts
    return 1.0, None


def _step_weights(st: _Stage, touched: float, batch: int, vocab: int) -> int:
    """Weight bytes one GPU of the stage reads in a step at ``batch``."""
    skipped = max(st.table - min(batch, vocab) * st.row_bytes, 0) if st.table else 0
    return int(st.weights * touched) - skipped


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
                 compute_efficiency: float) -> list[str]:
    """What the estimate assumes, in words (module docstring: what is not modelled)."""
    params = d.weights.params
    num_experts, top_k = d.spec.moe_experts, d.spec.moe_top_k
    assumptions = [f"efficiency: {bandwidth_efficiency:.0%} of the memory bandwidth, {compute_efficiency:.0%} of the "
                   "dense bf16 tensor rate (defaults from published measurements; kvcalc.speed_reference)"]
    if experts is not None:
        assumptions.append(f"MoE: uniform routing, {top_k} of {num_experts} experts per token; {batch} "
                           f"token{'s' if batch != 1 else ''} activate{'s' if batch == 1 else ''} {experts:.1f} "
                           "experts per layer on average")
    elif params.moe_experts:
        assumptions.append("MoE: expert count or top-k not found in the config; every expert assumed read each step")
    if d.weights.scheme not in ("bfloat16", "float16", "float32") and not d.weights.scheme.startswith(("bfloat16",
                                                                                                       "float16")):
        assumptions.append(f"weights {d.weights.scheme}: their bytes are counted, their dequantization cost is not")
    if d.tp > 1:
        assumptions.append(f"tensor parallel {d.tp}: bytes and FLOPs split evenly; communication not modelled")
    if d.pp > 1:
        assumptions.append(f"pipeline parallel {d.pp}: stages run one after another within a step")
    assumptions.append("no kernel launch, scheduling or sampling overhead; no speculative decoding")
    return assumptions


def estimate_speed(d: Deployment, batch: int, context: int, *, prompt_tokens: int | None = None,
                   bandwidth_efficiency: float = DEFAULT_BANDWIDTH_EFFICIENCY,
                   compute_efficiency: float = DEFAULT_COMPUTE_EFFICIENCY) -> SpeedEstimate:
    """Decode and prefill estimate for ``batch`` sequences at ``context`` tokens (module docstring).

    ``prompt_tokens`` (default ``context``) is the prompt length the time to first token is for."""
    batch = check_count("batch", batch, 1, MAX_BATCH)
    context = check_count("context", context, 1, MAX_CONTEXT)
    prompt = context if prompt_tokens is None else check_count("prompt_tokens", prompt_tokens, 1, MAX_CONTEXT)
    _check_efficiency(bandwidth_efficiency, compute_efficiency)
    gpu = d.gpu
    params = d.weights.params
    touched, experts = _touched(d, batch)
    assumptions = _assumptions(d, batch, experts, bandwidth_efficiency, compute_efficiency)
    enc = d.spec.default_encoder_tokens or context
    bw = gpu.bandwidth_gbps * GB * bandwidth_efficiency if gpu.bandwidth_gbps else None
    rate = gpu.bf16_tflops * TFLOP * compute_efficiency if gpu.bf16_tflops else None
    unavailable = []
    if bw is None:
        unavailable.append(f"no speed estimate for {gpu.name}: memory bandwidth unknown")
    if rate is None:
        unavailable.append(f"no compute floor or time to first token for {gpu.name}: tensor FLOP/s unknown")
    active = params.active_count
    if active is None:      # a null top-k or LongCat's zero experts: no FLOP count (the ParamCount says why)
        rate, active = None, 0
        unavailable.append(f"no compute floor or time to first token: {_active_refusal(params)}")

    step = prefill = 0.0
    dec_bytes = dec_w = dec_kv = dec_flops = pre_flops = 0
    dec_compute_bound = pre_compute_bound = False
    for st in _stages(d):
        w, share, spec = st.weights, st.share, st.spec
        kv = cache_bytes(st.cache, batch, context)
        wt = _step_weights(st, touched, batch, d.spec.vocab_size)
        # the rank's spec already holds heads / tp: its attention term is per GPU
        attended = sum(width * (context if cap == 0 else min(context, cap)) for cap, width in st.width_by_cap)
        flops = 2 * active * batch * share / d.tp + batch * (attended + st.cross_width * enc)
        dec_bytes, dec_w, dec_kv, dec_flops = dec_bytes + wt + kv, dec_w + wt, dec_kv + kv, dec_flops + int(flops)
        pflops = (2 * active * batch * prompt * share / d.tp
                  + batch * _attention_flops(spec, lambda a: _causal_attended(a, prompt, enc)))
        pre_flops += int(pflops * d.tp)
        written = cache_bytes(st.cache, batch, prompt)
        if bw is not None:
            mem_t, comp_t = (wt + kv) / bw, (flops / rate if rate else 0.0)
            step += max(mem_t, comp_t)
            dec_compute_bound |= comp_t > mem_t
        if rate is not None:
            comp_t = pflops / rate
            mem_t = (w + written) / bw if bw else 0.0
            prefill += max(comp_t, mem_t)
            pre_compute_bound |= comp_t >= mem_t
    decode_ok, prefill_ok = bw is not None, rate is not None
    formulas = (
        f"decode step = ({dec_w:,} B weights read + {dec_kv:,} B KV read) / ({gpu.bandwidth_gbps or 0:g} GB/s x "
        f"{bandwidth_efficiency:g})" + (f" = {step * 1e3:.2f} ms" if decode_ok else " (bandwidth unknown)"),
        "tokens/s per sequence = 1 / step" + (f" = {1 / step:,.1f}; total = {batch} / step = {batch / step:,.1f}"
                                               if decode_ok and step else ""),
        f"time to first token = {pre_flops:,} FLOP / ({d.tp} x {gpu.bf16_tflops or 0:g} TFLOP/s x "
        f"{compute_efficiency:g})" + (f" = {prefill * 1e3:.1f} ms" if prefill_ok else " (tensor rate unknown)"),
    )
    return SpeedEstimate(
        batch=batch, context=context, prompt_tokens=prompt, bandwidth_efficiency=float(bandwidth_efficiency),
        compute_efficiency=float(compute_efficiency),
        decode_step_seconds=step if decode_ok else None,
        decode_tokens_per_s_per_sequence=1 / step if decode_ok and step else None,
        decode_tokens_per_s_total=batch / step if decode_ok and step else None,
        decode_bytes_per_step=dec_bytes, decode_weight_bytes=dec_w, decode_kv_bytes=dec_kv,
        decode_flops_per_step=dec_flops,
        decode_bound=("compute" if dec_compute_bound else "memory bandwidth") if decode_ok else None,
        ttft_seconds=prefill if prefill_ok else None, prefill_flops=pre_flops,
        prefill_bound=("compute" if pre_compute_bound else "memory bandwidth") if prefill_ok else None,
        experts_touched=experts, formulas=formulas, assumptions=tuple(assumptions), unavailable=tuple(unavailable))


def decode_rate_grid(d: Deployment, batches: Sequence[int], contexts: Sequence[int], *,
                     bandwidth_efficiency: float = DEFAULT_BANDWIDTH_EFFICIENCY,
                     compute_efficiency: float = DEFAULT_COMPUTE_EFFICIENCY) -> Any:
    """``float64[len(batches), len(contexts)]`` of decode tokens/s per sequence (module docstring), the
    vectorized twin of ``estimate_speed(...).decode_tokens_per_s_per_sequence`` (equal point by point,
    tests/test_speed.py). InputError when the GPU's bandwidth is unknown."""
    import numpy as np

    from .sweep import kv_grid

    _check_efficiency(bandwidth_efficiency, compute_efficiency)
    if not d.gpu.bandwidth_gbps:
        raise InputError(f"no speed estimate for {d.gpu.name}: memory bandwidth unknown")
    bs = [check_count("batch", b, 1, MAX_BATCH) for b in batches]
    ts = [check_count("context", t, 1, MAX_CONTEXT) for t in contexts]
    bw = d.gpu.bandwidth_gbps * GB * bandwidth_efficiency
    rate = d.gpu.bf16_tflops * TFLOP * compute_efficiency if d.gpu.bf16_tflops else None
    b = np.asarray(bs, dtype=np.float64)[:, None]
    t = np.asarray(ts, dtype=np.int64)
    enc = np.full_like(t, d.spec.default_encoder_tokens) if d.spec.default_encoder_tokens else t
    touched = [_touched(d, x)[0] for x in bs]
    active = d.weights.params.active_count or 0
    if d.weights.params.active_count is None:    # no FLOP count: the memory-bound rate only
        rate = None
    step = np.zeros((len(bs), len(ts)))
    for st in _stages(d):
        wt = np.asarray([_step_weights(st, f, x, d.spec.vocab_size) for f, x in zip(touched, bs)],
                        dtype=np.float64)[:, None]
        mem = (wt + kv_grid(st.cache, bs, ts).astype(np.float64)) / bw
        if rate is None:
            step += mem
            continue
        attended = np.zeros(len(ts))
        for cap, width in st.width_by_cap:
            attended += width * (t if cap == 0 else np.minimum(t, cap))
        flops = 2 * active * b * st.share / d.tp + b * (attended + st.cross_width * enc)[None, :]
        step += np.maximum(mem, flops / rate)
    return 1.0 / step
