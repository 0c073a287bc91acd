"""Property tests (hypothesis, fixed seed): bad configs give a typed error, never a crash; the
arithmetic is monotone where physics says it must be; the solvers' answers are tight.

Each property runs at least 1,000 generated cases in CI (``max_examples``), derandomized so a
failure reproduces.
"""
from __future__ import annotations

import copy
import math
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import load_json

import kvcalc
from kvcalc.catalog import catalog
from kvcalc.variants import apply_variant

SETTINGS = settings(max_examples=1000, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CONFIGS = [load_json(entry.path) for entry in catalog()]

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                         st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12))
json_values = st.recursive(
    json_scalars,
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=8), kids, max_size=4)),
    max_leaves=12)
FIELDS = sorted({k for c in CONFIGS for k in c} | {k for c in CONFIGS for k in c.get("text_config", {}) or {}})


def assert_sane(result: kvcalc.KVCacheResult) -> None:
    assert isinstance(result.total_bytes, int) and result.total_bytes >= 0
    assert all(isinstance(l.bytes, int) and l.bytes >= 0 and l.tokens >= 0 for l in result.layers)
    assert sum(l.bytes for l in result.layers) == result.total_bytes


def attempt(config, **kw):
    """kv_cache, where only a kvcalc typed error is an acceptable failure."""
    try:
        r = kvcalc.kv_cache(config, **kw)
    except kvcalc.KVCalcError:
        return None
    assert_sane(r)
    return r


@SETTINGS
@given(st.dictionaries(st.sampled_from(FIELDS + ["model_type", "text_config", "layer_types"]), json_values,
                       max_size=12))
def test_arbitrary_objects_give_a_result_or_a_typed_error(obj):
    attempt(obj, batch=1, context=100)
    attempt(obj, batch=2, context=5000, runtime="transformers")


MUTATIONS = ["remove", "string", "zero", "negate", "huge", "float", "null", "list", "bool", "nan", "dict"]


def mutate(value, how):
    return {"string": str(value), "zero": 0, "negate": (-value if isinstance(value, (int, float)) and
                                                          not isinstance(value, bool) else -1),
            "huge": 10**30, "float": 1.5, "null": None, "list": [value], "bool": True, "nan": float("nan"),
            "dict": {"x": value}}[how]


@SETTINGS
@given(st.integers(0, len(CONFIGS) - 1), st.lists(st.tuples(st.sampled_from(FIELDS), st.sampled_from(MUTATIONS),
                                                             st.booleans()), min_size=1, max_size=3),
       st.sampled_from(["ideal", "transformers", "vllm"]))
def test_mutated_bundled_configs_give_a_result_or_a_typed_error(index, edits, runtime):
    cfg = copy.deepcopy(CONFIGS[index])
    for field, how, nested in edits:
        target = cfg["text_config"] if nested and isinstance(cfg.get("text_config"), dict) else cfg
        if how == "remove":
            target.pop(field, None)
        else:
            target[field] = mutate(target.get(field, 7), how)
    attempt(cfg, batch=3, context=4096, runtime=runtime)
    try:
        p = kvcalc.plan(cfg, gpu="rtx-4090", runtime="ideal", batch=1, context=2048, solve_gpus=False)
    except kvcalc.KVCalcError:
        return
    for value in (p.weights_bytes, p.kv_bytes, p.total_bytes):
        assert isinstance(value, int) and value >= 0
    assert p.max_context is None or p.max_context >= 1


@SETTINGS
@given(st.integers(0, len(CONFIGS) - 1), st.integers(1, 64), st.integers(1, 1 << 20), st.integers(0, 1 << 16),
       st.integers(0, 7), st.sampled_from(["ideal", "transformers", "vllm"]))
def test_bytes_never_decrease_with_context_or_batch(index, batch, context, more, more_batch, runtime):
    cfg = CONFIGS[index]
    a = attempt(cfg, batch=batch, context=context, runtime=runtime)
    if a is None:
        return
    assert attempt(cfg, batch=batch, context=context + more, runtime=runtime).total_bytes >= a.total_bytes
    assert attempt(cfg, batch=batch + more_batch, context=context, runtime=runtime).total_bytes >= a.total_bytes


@SETTINGS
@given(st.integers(0, len(CONFIGS) - 1), st.integers(1, 1 << 18), st.integers(1, 1 << 16), st.integers(1, 8))
def test_sliding_never_exceeds_full_and_fewer_kv_heads_never_exceed_more(index, context, window, batch):
    spec = kvcalc.read_spec(CONFIGS[index])
    if not any(a.source == "self" for l in spec.layers for a in l.attention):
        return
    full = kvcalc.kv_cache(apply_variant(spec, "full"), batch=batch, context=context).total_bytes
    slid = kvcalc.kv_cache(apply_variant(spec, "sliding", window=window), batch=batch, context=context).total_bytes
    assert slid <= full
    assert kvcalc.kv_cache(spec, batch=batch, context=context).total_bytes <= full
    heads = spec.num_attention_heads or 1
    divisors = [d for d in range(1, heads + 1) if heads % d == 0]
    sizes = [kvcalc.kv_cache(apply_variant(spec, "gqa", kv_heads=d), batch=batch, context=context).total_bytes
             for d in divisors]
    assert sizes == sorted(sizes)
    assert kvcalc.kv_cache(apply_variant(spec, "mqa"), batch=batch, context=context).total_bytes == sizes[0]


@SETTINGS
@given(st.integers(0, len(CONFIGS) - 1), st.integers(1, 1 << 18), st.sampled_from(["fp8_e4m3", "fp8_e5m2", "int8",
                                                                                    "int4", "int2"]),
       st.sampled_from(["ideal", "vllm"]))
def test_quantized_cache_never_exceeds_bf16(index, context, kv_dtype, runtime):
    cfg = CONFIGS[index]
    base = attempt(cfg, batch=1, context=context, dtype="bfloat16", runtime=runtime)
    q = attempt(cfg, batch=1, context=context, dtype="bfloat16", kv_dtype=kv_dtype, runtime=runtime)
    if base is not None and q is not None:
        assert q.total_bytes <= base.total_bytes


@SETTINGS
@given(st.integers(0, len(CONFIGS) - 1), st.sampled_from([2, 4, 8]), st.integers(1, 1 << 17))
def test_tensor_parallel_rank_never_exceeds_single_gpu(index, tp, context):
    cfg = CONFIGS[index]
    try:
        one = kvcalc.plan(cfg, gpu="h100-sxm", runtime="ideal", batch=1, context=context, solve_gpus=False)
        many = kvcalc.plan(cfg, gpu="h100-sxm", runtime="ideal", gpus=tp, batch=1, context=context,
                           solve_gpus=False)
    except kvcalc.KVCalcError:
        return
    assert many.kv_bytes <= one.kv_bytes
    assert many.weights_bytes <= one.weights_bytes


@SETTINGS
@given(st.integers(0, len(CONFIGS) - 1), st.sampled_from(["t4", "rtx-4090", "a100-80gb", "h100-sxm", "h200"]),
       st.integers(1, 64), st.sampled_from(["ideal", "transformers", "vllm"]))
def test_solvers_are_consistent(index, gpu, batch, runtime):
    cfg = CONFIGS[index]
    try:
        p = kvcalc.plan(cfg, gpu=gpu, runtime=runtime, batch=batch, context=1024, max_model_len=32_768,
                        solve_gpus=False)
    except kvcalc.KVCalcError:
        return
    # vLLM's answers hold with max_model_len set to the context in question (it refuses to start otherwise)
    def mml(context: int) -> int:
        return context if runtime == "vllm" else 32_768

    if p.max_context is not None:
        assert kvcalc.plan(cfg, gpu=gpu, runtime=runtime, batch=batch, context=p.max_context,
                           max_model_len=mml(p.max_context), solve_gpus=False).fits
        if p.max_context < 32_768 and p.max_context < (p.model_max_context or math.inf):
            assert not kvcalc.plan(cfg, gpu=gpu, runtime=runtime, batch=batch, context=p.max_context + 1,
                                   max_model_len=mml(p.max_context + 1), solve_gpus=False).fits
    if p.max_batch:
        assert kvcalc.plan(cfg, gpu=gpu, runtime=runtime, batch=p.max_batch, context=1024, max_model_len=mml(1024),
                           solve_gpus=False).fits
        if p.max_batch < 65_536:
            assert not kvcalc.plan(cfg, gpu=gpu, runtime=runtime, batch=p.max_batch + 1, context=1024,
                                   max_model_len=mml(1024), solve_gpus=False).fits


def test_property_budget_is_at_least_1000_cases():
    assert SETTINGS.max_examples >= 1000
    assert os.environ.get("HYPOTHESIS_PROFILE") in (None, "", "ci")
