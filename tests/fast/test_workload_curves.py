"""The workload page's curves (kvcalc.workload.curves): hand values of the issue's case, and the physics every
point keeps: never negative, never above the engine's running cap (vLLM's max_num_seqs)."""
import pytest

from kvcalc import deploy
from kvcalc.catalog import bundled_config
from kvcalc.errors import InputError
from kvcalc.workload.curves import length_curve, prefix_curve, scaled, shared

KV = 10240 * 2 * 2**20          # 10,240 blocks of 16 tokens x 2 MiB (Llama-3.1-8B, bf16)


def llama(**kw):
    return deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=KV, **kw)


def test_prefix_curve_hand_values_and_the_current_point():
    pts = {p.tokens: p for p in prefix_curve(llama(), extra=[4096, 1000])}
    assert pts[0].concurrency == 10240 / 512 == 20.0
    assert pts[4096].concurrency == (10240 - 256) / 256 == 39.0 and pts[4096].whole == 38
    # 1,000 tokens: 62 full blocks shared (1,000 // 16): (10,240 - 62) / (512 - 62)
    assert pts[1000].concurrency == pytest.approx((10240 - 62) / (512 - 62))
    assert max(pts) == 8191                    # the prefix stays shorter than the request


@pytest.mark.parametrize("seqs", [16, 64, None])
def test_curves_never_negative_never_above_max_num_seqs(seqs):
    d = llama(**({"max_num_seqs": seqs} if seqs else {}))
    for p in (*prefix_curve(d), *prefix_curve(d, hit_rate=0.3), *length_curve(d, 1500, 3000, 300, 600)):
        assert p.running_cap == (seqs or 1024)
        for y in (p.concurrency, p.whole, p.worst_case):
            assert 0 <= y <= p.running_cap
    if seqs == 16:                             # 39 at once is capped at the 16 vLLM runs
        assert [p.concurrency for p in prefix_curve(d, extra=[4096]) if p.tokens == 4096] == [16.0]


def test_prefix_caching_off_shares_nothing_but_still_checks_the_prefix():
    d = llama()
    off = shared(d, 4096, caching=False)
    assert off.effective_concurrency == 20.0 and off.shared_blocks == 0 and off.shared_prefix_tokens == 4096
    with pytest.raises(InputError):
        shared(d, 8192, caching=False)         # not shorter than the 8,192-token request


def test_length_curve_scales_the_distribution_and_marks_the_given_lengths():
    assert scaled(1000, 2500, 200, 500, 2400) == (2000, 5000, 400, 1000)
    pts = length_curve(llama(), 1500, 3000, 300, 600)
    xs = [p.tokens for p in pts]
    assert 1800 in xs and xs == sorted(xs) and xs[0] == 8192 // 64 and xs[-1] == 8192
    expected = [p.concurrency for p in pts]
    assert all(a >= b for a, b in zip(expected, expected[1:]))    # longer requests: fewer at once
