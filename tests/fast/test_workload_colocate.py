"""Several vLLM instances on one GPU (kvcalc.workload.colocate), by hand from vLLM 0.33.0's startup check:
v1/worker/utils.py request_memory, requested = ceil(total x gpu_memory_utilization) <= free memory."""
from math import ceil

import pytest

from kvcalc import deploy
from kvcalc.catalog import bundled_config
from kvcalc.errors import InputError, UnsupportedError
from kvcalc.workload.colocate import colocate

H100 = 85520809984          # memory_mib 81,559 x 2**20, what the driver reports
CTX = 512 * 2**20


def inst(model, util, **kw):
    return model, deploy(bundled_config(model), max_model_len=8192, gpu_memory_utilization=util, **kw)


def test_two_instances_fit_in_launch_order():
    c = colocate([inst("meta-llama/Llama-3.1-8B", 0.6), inst("Qwen/Qwen3-0.6B", 0.3)])
    a, b = c.instances
    assert a.requested_bytes == ceil(H100 * 0.6) and b.requested_bytes == ceil(H100 * 0.3)
    assert a.free_at_start == H100 - CTX
    assert b.free_at_start == H100 - ceil(H100 * 0.6) - 2 * CTX
    assert a.starts and b.starts and c.fits
    assert c.headroom_bytes == H100 - ceil(H100 * 0.6) - ceil(H100 * 0.3) - 2 * CTX
    assert a.command.endswith("--gpu-memory-utilization 0.6 --port 8000") and b.command.endswith("--port 8001")


def test_second_instance_refused_when_the_first_left_too_little():
    # 0.5 + 0.5: the second asks ceil(0.5 x total) but sees total - ceil(0.5 x total) - 2 contexts
    c = colocate([inst("Qwen/Qwen3-0.6B", 0.5), inst("Qwen/Qwen3-0.6B", 0.5)])
    assert c.instances[0].starts and not c.instances[1].starts and not c.fits
    # with no context counted, the halves exactly meet: H100 is even, so ceil(0.5 x H100) = H100 / 2
    assert colocate([inst("Qwen/Qwen3-0.6B", 0.5), inst("Qwen/Qwen3-0.6B", 0.5)], context_bytes=0).fits


def test_each_instance_keeps_its_own_plan():
    pair = inst("meta-llama/Llama-3.1-8B", 0.6)
    c = colocate([pair, inst("Qwen/Qwen3-0.6B", 0.3)])
    assert c.instances[0].kv_cache_tokens == pair[1].vllm_plan().kv_cache_tokens


def test_refusals():
    with pytest.raises(InputError):
        colocate([])
    with pytest.raises(UnsupportedError):
        colocate([("Qwen/Qwen3-8B", deploy(bundled_config("Qwen/Qwen3-8B"), runtime="sglang"))])
    with pytest.raises(InputError):
        colocate([inst("Qwen/Qwen3-0.6B", 0.3), inst("Qwen/Qwen3-0.6B", 0.3, gpu="a100-80gb")])
