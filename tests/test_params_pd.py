"""CPM-Ant (issue 12, helper PD) against transformers 5.24 on a NON-default shape.

The class defaults are replayed from the coverage fixture by tests/test_transformers_coverage.py; here a
smaller shape with other prompt / segment / bucket sizes and dim_head != hidden_size / heads. The expected
numbers were obtained in transformers 5.24 (CPU):

* parameters: ``CpmAntForCausalLM(CpmAntConfig(**CPMANT))`` built under ``torch.device("meta")``, summing
  ``p.numel()`` over ``model.parameters()``: 115,548;
* cache: the same config, random init, ``.to(torch.bfloat16)``, one forward of ``input_ids`` of shape (2, 7)
  with ``use_cache=True``; every ``DynamicCache`` layer holds keys and values of shape (2, 3, 12, 20)
  (5 prompt + 7 input tokens, 3 heads x dim_head 20): 5,760 bytes of key + value storage per layer.
"""
from __future__ import annotations

import pytest

import kvcalc

CPMANT = dict(vocab_size=500, hidden_size=48, num_attention_heads=3, dim_head=20, dim_ff=72, num_hidden_layers=3,
              position_bias_num_buckets=64, position_bias_max_distance=128, prompt_types=4, prompt_length=5,
              segment_types=6)
CONFIG = {"model_type": "cpmant", **CPMANT}


def test_cpmant_non_default_shape_equals_meta_device_count():
    count = kvcalc.count_params(CONFIG)
    assert count.total == 115_548
    assert count.quality == "exact" and not count.tied_embeddings   # CpmAntForCausalLM: _tied_weights_keys = {}


@pytest.mark.parametrize("runtime", ["transformers", "ideal"])
def test_cpmant_cache_holds_the_prompt_tokens_with_dim_head_wide_heads(runtime):
    r = kvcalc.kv_cache(CONFIG, batch=2, context=7, dtype="bfloat16", runtime=runtime)
    assert [layer.bytes for layer in r.layers] == [5_760] * 3
    assert r.quality == "exact"


@pytest.mark.parametrize("runtime", ["vllm", "sglang", "llama_cpp"])
def test_cpmant_serving_engines_are_refused(runtime):
    # vLLM 0.33 registers no CpmAntForCausalLM and transformers 5.24's class has no _supports_attention_backend
    with pytest.raises(kvcalc.UnsupportedError, match="CPM-Ant"):
        if runtime == "vllm":
            kvcalc.kv_cache(CONFIG, batch=1, context=8, runtime=runtime)
        kvcalc.deploy(CONFIG, runtime=runtime)


def test_cpmant_static_cache_is_refused():
    with pytest.raises(kvcalc.UnsupportedError, match="prompt_length"):
        kvcalc.kv_cache(CONFIG, batch=1, context=8, runtime="transformers", cache_implementation="static")
