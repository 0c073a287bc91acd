"""Length distributions (kvcalc.workload.lengths): lognormal fits and the token-budget model, by hand."""
from math import exp, log, sqrt
from statistics import NormalDist

import pytest

from kvcalc import deploy
from kvcalc.catalog import bundled_config
from kvcalc.errors import InputError
from kvcalc.workload.lengths import Histogram, length_concurrency, lognormal_stats


def test_lognormal_fit_reproduces_mean_and_p95():
    s = lognormal_stats(1500, 3000)
    z = NormalDist().inv_cdf(0.95)
    sigma = sqrt(log(1 + s.variance / 1500 ** 2))
    mu = log(1500) - sigma ** 2 / 2
    assert exp(mu + z * sigma) == pytest.approx(3000, rel=1e-9)
    assert s.variance == pytest.approx(0.279260 * 1500 ** 2, rel=1e-5)   # (exp(0.49627**2) - 1) at p95/mean = 2


def test_no_lognormal_beyond_ratio_3_87():
    with pytest.raises(InputError, match="histogram"):
        lognormal_stats(1500, 6000)
    with pytest.raises(InputError):
        lognormal_stats(1500, 1000)


def test_llama_8b_expected_concurrency_and_wait_chance_by_hand():
    d = deploy(bundled_config("meta-llama/Llama-3.1-8B"), max_model_len=8192, kv_cache_memory=10240 * 2 * 2**20)
    c = length_concurrency(d, 1500, 3000, 300, 600)
    assert c.pool_tokens == (10240 - 1) * 16 == 163824           # less vLLM's null block
    assert c.occupancy_mean == 1500 + 300 / 2 + 16 / 2 == 1658
    assert c.expected_concurrency == pytest.approx(163824 / 1658)  # 98.8
    assert c.worst_case_concurrency == 20.0
    # std = sqrt(0.27926 x 1,500**2 + 0.27926 x 300**2 / 4) = 796.6; n = 91: (163,824 - 91 x 1,658) / (sqrt(91)
    # x 796.6) = 1.704 >= 1.645; n = 92: 1.477 < 1.645
    assert c.occupancy_std == pytest.approx(796.63, abs=0.01)
    assert c.concurrency_at_5pct == 91
    assert c.wait_probability(0) == 0.0 and c.wait_probability(2000) == 1.0   # above max_num_seqs 1,024


def test_histogram_input_and_sglang_pool():
    d = deploy(bundled_config("Qwen/Qwen3-8B"), runtime="sglang", page_size=1)
    ep = d.engine_plan()
    c = length_concurrency(d, input_histogram=Histogram(((1000, 1), (3000, 1))),
                           output_histogram=Histogram(((200, 1),)))
    assert c.input.mean == 2000 and c.input.variance == 1000 ** 2 and c.output.variance == 0
    assert c.occupancy_mean == 2000 + 100 + 0.5
    assert c.expected_concurrency == pytest.approx(min(ep.pool_tokens / 2100.5, ep.max_running))
