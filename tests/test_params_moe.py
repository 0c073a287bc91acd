"""Parameter counts of the MOE helper's types (issue 12) at shapes other than the class defaults.

tests/test_transformers_coverage.py replays each type's class-default config against transformers' count;
here each family gets at least one non-default shape (other sizes, biases, tying, MoE layouts). Every
expected number is transformers 5.24's own: the model built on the meta device by
``tests/hf_reference.meta_model(cfg)`` (``AutoModelForCausalLM`` / the image-text class), then
``sum(p.numel() for p in model.parameters())`` for ``total`` and the same sum over the parameters whose name
holds ``.experts.`` (the routed experts; shared experts are named otherwise) for ``experts``.
"""
from __future__ import annotations

import pytest

from kvcalc.errors import ConfigError
from kvcalc.params import count_params

# (config, transformers' total, transformers' routed-expert parameters)
CASES: list[tuple[dict, int, int]] = [
    # ministral: head_dim 48 != 256/8, GQA 8/2, tied head
    ({"model_type": "ministral", "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 512,
      "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 48,
      "tie_word_embeddings": True}, 2174720, 0),
    # nemotron: attention and MLP biases on, GQA
    ({"model_type": "nemotron", "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 768,
      "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 2, "attention_bias": True,
      "mlp_bias": True}, 2191744, 0),
    # hunyuan_v1_dense: attention biases, head_dim 64, tied head
    ({"model_type": "hunyuan_v1_dense", "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 640,
      "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 64,
      "attention_bias": True, "tie_word_embeddings": True}, 2916224, 0),
    # hunyuan_v1_moe: 8 experts, top-2
    ({"model_type": "hunyuan_v1_moe", "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 320,
      "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 32, "num_experts": 8,
      "moe_topk": 2}, 7647168, 5898240),
    # dots1: 2 dense-first layers, 1 shared expert, attention biases
    ({"model_type": "dots1", "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 640,
      "moe_intermediate_size": 96, "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 4,
      "n_routed_experts": 16, "n_shared_experts": 1, "num_experts_per_tok": 4, "first_k_dense_replace": 2,
      "attention_bias": True}, 4802048, 2359296),
    # dbrx: 2 KV heads, 6 experts of 384, top-2
    ({"model_type": "dbrx", "vocab_size": 1000, "d_model": 256, "n_heads": 8, "n_layers": 3,
      "attn_config": {"kv_n_heads": 2, "clip_qkv": 8, "rope_theta": 500000.0},
      "ffn_config": {"ffn_hidden_size": 384, "moe_num_experts": 6, "moe_top_k": 2}}, 6318336, 5308416),
    # mimo_v2_flash: v_head_dim 32 != head_dim 48, biases, mixed dense / sparse layers, 5 sliding of 7
    ({"model_type": "mimo_v2_flash", "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 640,
      "moe_intermediate_size": 96, "num_hidden_layers": 7, "num_attention_heads": 8, "num_key_value_heads": 2,
      "head_dim": 48, "v_head_dim": 32, "n_routed_experts": 8, "num_experts_per_tok": 2, "attention_bias": True,
      "mlp_layer_types": ["dense", "dense", "sparse", "sparse", "sparse", "dense", "sparse"]}, 6000936, 2359296),
]


@pytest.mark.parametrize("cfg, total, experts", CASES, ids=[c[0]["model_type"] for c in CASES])
def test_variant_equals_meta_device_count(cfg, total, experts):
    count = count_params(cfg)
    assert count.total == total
    assert count.moe_experts == experts
    assert count.quality == "exact"


def test_dots1_without_experts_is_refused():
    """Dots1Config leaves n_routed_experts None; transformers cannot build that model, kvcalc names the field."""
    with pytest.raises(ConfigError, match="n_routed_experts"):
        count_params({"model_type": "dots1"})


def test_dbrx_kv_heads_come_from_attn_config():
    """DbrxConfig copies attn_config.kv_n_heads over num_key_value_heads (configuration_dbrx.py __post_init__)."""
    import kvcalc
    spec = kvcalc.read_spec({"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40,
                             "attn_config": {"kv_n_heads": 8}})
    assert spec.layers[0].attention[0].kv_heads == 8
