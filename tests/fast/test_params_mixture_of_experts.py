"""Parameter counts of mixture-of-experts decoders at shapes other than the class defaults.

tests/reference/test_transformers_coverage.py replays each type's class-default config against transformers' count;
here each family gets at least one non-default shape (other sizes, biases, tying, MoE layouts). Every
expected number is transformers 5.24's own: the model built on the meta device by
``tests/hf_reference.meta_model(cfg)`` (``AutoModelForCausalLM`` / the image-text class), then
``sum(p.numel() for p in model.parameters())`` for ``total`` and the same sum over the parameters whose name
holds ``.experts.`` (the routed experts, Dots3-Note's vision-tower experts included; shared experts are named
otherwise) for ``experts``.
"""
from __future__ import annotations

import pytest

from kvcalc.errors import ConfigError, UnsupportedError
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
    # longcat_flash: no zero experts, attention biases
    ({"model_type": "longcat_flash", "vocab_size": 1000, "hidden_size": 256, "num_layers": 2, "num_attention_heads": 4,
      "q_lora_rank": 64, "kv_lora_rank": 32, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 24,
      "ffn_hidden_size": 384, "expert_ffn_hidden_size": 64, "n_routed_experts": 6, "zero_expert_num": 0,
      "moe_topk": 2, "attention_bias": True}, 2579520, 589824),
    # longcat_flash: 3 zero experts (their gate_up_proj rows are parameters), router bias, tied head
    (LONGCAT_ZERO := {"model_type": "longcat_flash", "vocab_size": 1000, "hidden_size": 256, "num_layers": 3,
                      "num_attention_heads": 4, "q_lora_rank": 64, "kv_lora_rank": 32, "qk_nope_head_dim": 32,
                      "qk_rope_head_dim": 16, "v_head_dim": 24, "ffn_hidden_size": 384, "expert_ffn_hidden_size": 64,
                      "n_routed_experts": 6, "zero_expert_num": 3, "moe_topk": 2, "router_bias": True,
                      "tie_word_embeddings": True}, 3652187, 1179648),
    # axk2: legacy first_k_dense_replace 2 / moe_layer_freq 2 (MoE on layers 2 and 4), 2 shared experts,
    # attention biases, tied head
    ({"model_type": "axk2", "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 512,
      "moe_intermediate_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 4,
      "n_shared_experts": 2, "n_routed_experts": 8, "num_experts_per_tok": 2, "kv_lora_rank": 32, "q_lora_rank": 48,
      "qk_rope_head_dim": 16, "qk_nope_head_dim": 32, "v_head_dim": 24, "index_head_dim": 32, "index_n_heads": 4,
      "gated_norm_rank": 8, "first_k_dense_replace": 2, "moe_layer_freq": 2, "attention_bias": True,
      "tie_word_embeddings": True}, 3451040, 786432),
    # axk2: an explicit mlp_layer_types with a sparse first layer
    ({"model_type": "axk2", "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 512,
      "moe_intermediate_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4,
      "n_shared_experts": 1, "n_routed_experts": 8, "num_experts_per_tok": 2, "kv_lora_rank": 32, "q_lora_rank": 48,
      "qk_rope_head_dim": 16, "qk_nope_head_dim": 32, "v_head_dim": 24, "index_head_dim": 32, "index_n_heads": 4,
      "gated_norm_rank": 8, "mlp_layer_types": ["sparse", "dense", "sparse", "sparse"]}, 2667328, 1179648),
    # hy_v4: default rules at 6 layers (indexers on layers 0, 1, 5; dense layer 0), hc_mult 2, 2 shared experts
    ({"model_type": "hy_v4", "vocab_size": 1000, "pad_token_id": 0, "hidden_size": 256, "intermediate_size": 512,
      "moe_intermediate_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4, "n_shared_experts": 2,
      "n_routed_experts": 8, "num_experts_per_tok": 2, "kv_lora_rank": 32, "q_lora_rank": 48, "qk_rope_head_dim": 16,
      "qk_nope_head_dim": 32, "v_head_dim": 24, "index_head_dim": 32, "index_n_heads": 4, "hc_mult": 2},
     3989507, 1966080),
    # hy_v4: explicit indexer_types / mlp_layer_types, hc_mult 3, attention biases
    ({"model_type": "hy_v4", "vocab_size": 1000, "pad_token_id": 0, "hidden_size": 256, "intermediate_size": 512,
      "moe_intermediate_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "n_shared_experts": 1,
      "n_routed_experts": 8, "num_experts_per_tok": 2, "kv_lora_rank": 32, "q_lora_rank": 48, "qk_rope_head_dim": 16,
      "qk_nope_head_dim": 32, "v_head_dim": 24, "index_head_dim": 32, "index_n_heads": 4, "hc_mult": 3,
      "attention_bias": True, "indexer_types": ["full", "shared", "full", "shared"],
      "mlp_layer_types": ["dense", "dense", "sparse", "sparse"], "layer_types": ["indexed_attention"] * 4},
     2621844, 786432),
]

# dots3_note_text without per_layer_config or layer_types: Dots3NoteTextConfig.__post_init__ makes layers 0, 1 and 5
# indexed and 2-4 sliding with the swa_* geometry; a per-layer list of MoE flags (moe_layer_freq)
DOTS3_SWA = {"model_type": "dots3_note_text", "vocab_size": 1000, "pad_token_id": 0, "bos_token_id": 1,
             "eos_token_id": 2, "hidden_size": 256, "intermediate_size": 512, "moe_intermediate_size": 64,
             "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 4, "n_shared_experts": 2,
             "shared_experts_intermediate_size": 48, "n_routed_experts": 8, "num_experts_per_tok": 2,
             "kv_lora_rank": 32, "q_lora_rank": 48, "qk_rope_head_dim": 16, "qk_nope_head_dim": 32,
             "v_head_dim": 24, "head_dim": 48, "index_head_dim": 32, "index_n_heads": 4,
             "swa_num_attention_heads": 2, "swa_num_key_value_heads": 2, "swa_q_lora_rank": 40,
             "swa_kv_lora_rank": 24, "swa_head_dim": 40, "swa_qk_nope_head_dim": 24, "swa_v_head_dim": 16,
             "moe_layer_freq": [0, 1, 1, 0, 1, 1], "first_k_dense_replace": 1}
# dots3_note_text with an explicit per_layer_config, layer_types and mlp_layer_types, attention biases, tied head
DOTS3_PER_LAYER = {"model_type": "dots3_note_text", "vocab_size": 1000, "pad_token_id": 0, "bos_token_id": 1,
                   "eos_token_id": 2, "hidden_size": 256, "intermediate_size": 512, "moe_intermediate_size": 64,
                   "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4,
                   "n_shared_experts": 1, "n_routed_experts": 8, "num_experts_per_tok": 2, "kv_lora_rank": 32,
                   "q_lora_rank": 48, "qk_rope_head_dim": 16, "qk_nope_head_dim": 32, "v_head_dim": 24,
                   "head_dim": 48, "index_head_dim": 32, "index_n_heads": 4, "attention_bias": True,
                   "tie_word_embeddings": True,
                   "layer_types": ["indexed_attention", "sliding_attention", "indexed_attention", "sliding_attention"],
                   "mlp_layer_types": ["dense", "sparse", "sparse", "sparse"],
                   "per_layer_config": {str(i): {"num_attention_heads": 2, "num_key_value_heads": 2, "kv_lora_rank": 16,
                                                 "q_lora_rank": 32, "head_dim": 40, "qk_nope_head_dim": 24,
                                                 "qk_rope_head_dim": 16, "v_head_dim": 20} for i in (1, 3)}}
CASES += [(DOTS3_SWA, 3527120, 1572864), (DOTS3_PER_LAYER, 5604096, 1179648)]

# hunyuan_vl: untied head (top-level and text_config tie_word_embeddings false), a small tower
HUNYUAN_VL = {
    "model_type": "hunyuan_vl",
    "tie_word_embeddings": False,
    "text_config": {"model_type": "hunyuan_vl_text", "vocab_size": 1000, "hidden_size": 256,
                    "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
                    "num_key_value_heads": 2, "head_dim": 64, "tie_word_embeddings": False},
    "vision_config": {"model_type": "hunyuan_vl_vision", "hidden_size": 128, "intermediate_size": 320,
                      "num_attention_heads": 4, "num_hidden_layers": 2, "patch_size": 16, "spatial_merge_size": 2,
                      "max_image_size": 256},
}
# hunyuan_vl in the legacy flat layout: decoder fields at the top level (HunYuanVLConfig folds them into
# text_config), attention biases, tied by the class default
HUNYUAN_VL_FLAT = {
    "model_type": "hunyuan_vl",
    "vocab_size": 1000,
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "head_dim": 64,
    "attention_bias": True,
    "vision_config": {"hidden_size": 128, "intermediate_size": 320, "num_attention_heads": 2,
                      "num_hidden_layers": 1, "patch_size": 14, "spatial_merge_size": 2, "max_image_size": 224},
}
# hy_v4_vl: HY-V4 decoder (dense layer 0, MoE after), tied head, out_hidden_size = the text width
HY_V4_VL = {
    "model_type": "hy_v4_vl",
    "tie_word_embeddings": True,
    "text_config": {"model_type": "hy_v4_vl_text", "vocab_size": 1000, "pad_token_id": 0, "hidden_size": 256,
                    "intermediate_size": 512, "moe_intermediate_size": 64, "num_hidden_layers": 3,
                    "num_attention_heads": 4, "n_shared_experts": 1, "n_routed_experts": 8,
                    "num_experts_per_tok": 2, "kv_lora_rank": 32, "q_lora_rank": 48, "qk_rope_head_dim": 16,
                    "qk_nope_head_dim": 32, "v_head_dim": 24, "index_head_dim": 32, "index_n_heads": 4,
                    "hc_mult": 2,
                    "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [4, 2, 2]}},
    "vision_config": {"hidden_size": 128, "intermediate_size": 320, "num_attention_heads": 4,
                      "num_hidden_layers": 2, "out_hidden_size": 256, "patch_size": 16, "spatial_merge_size": 2,
                      "max_image_size": 256},
}
CASES += [(HUNYUAN_VL, 2518272, 0), (HUNYUAN_VL_FLAT, 2223424, 0), (HY_V4_VL, 2678179, 786432)]

# dots3_note as the released checkpoints write it: decoder fields at the top level (no text_config), the vision
# tower's legacy embed_dim / num_heads / use_bias and pyramid_num_routed, the audio tower's whisper_config
DOTS3_NOTE_LEGACY = {
    "model_type": "dots3_note", "vocab_size": 1000, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
    "hidden_size": 256, "intermediate_size": 512, "moe_intermediate_size": 64, "num_hidden_layers": 4,
    "num_attention_heads": 4, "num_key_value_heads": 4, "n_shared_experts": 1, "n_routed_experts": 8,
    "num_experts_per_tok": 2, "kv_lora_rank": 32, "q_lora_rank": 48, "qk_rope_head_dim": 16, "qk_nope_head_dim": 32,
    "v_head_dim": 24, "head_dim": 48, "index_head_dim": 32, "index_n_heads": 4, "swa_num_attention_heads": 2,
    "swa_num_key_value_heads": 2, "swa_q_lora_rank": 40, "swa_kv_lora_rank": 24, "swa_head_dim": 40,
    "swa_qk_nope_head_dim": 24, "swa_v_head_dim": 16,
    "vision_config": {"embed_dim": 128, "num_heads": 4, "use_bias": True, "intermediate_size": 320,
                      "moe_intermediate_size": 96, "num_hidden_layers": 4, "patch_size": 14,
                      "spatial_merge_size": 2, "pyramid_num_routed": [-1, 4, -1, 6], "adapter_in_dim": 128,
                      "adapter_out_dim": 256, "adapter_merge_size": 2},
    "audio_config": {"downsample_hidden_size": 32, "whisper_adapter_in_dim": 128, "whisper_adapter_out_dim": 256,
                     "whisper_config": {"d_model": 128, "encoder_attention_heads": 4, "encoder_layers": 2,
                                        "encoder_ffn_dim": 256, "num_mel_bins": 80}},
}
# dots3_note with nested configs: tied head, vision mlp_layer_types with a per-layer expert count and width
DOTS3_NOTE = {
    "model_type": "dots3_note", "tie_word_embeddings": True,
    "text_config": {"model_type": "dots3_note_text", "vocab_size": 1000, "pad_token_id": 0, "bos_token_id": 1,
                    "eos_token_id": 2, "hidden_size": 256, "intermediate_size": 512, "moe_intermediate_size": 64,
                    "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 4,
                    "n_shared_experts": 1, "n_routed_experts": 8, "num_experts_per_tok": 2, "kv_lora_rank": 32,
                    "q_lora_rank": 48, "qk_rope_head_dim": 16, "qk_nope_head_dim": 32, "v_head_dim": 24,
                    "head_dim": 48, "index_head_dim": 32, "index_n_heads": 4, "use_sliding_window": False},
    "vision_config": {"hidden_size": 128, "num_attention_heads": 2, "intermediate_size": 320,
                      "moe_intermediate_size": 96, "num_hidden_layers": 3, "patch_size": 16,
                      "spatial_merge_size": 2, "num_local_experts": 4,
                      "mlp_layer_types": ["dense", "sparse", "sparse"], "adapter_in_dim": 128,
                      "adapter_out_dim": 256, "adapter_merge_size": 2,
                      "per_layer_config": {"2": {"num_local_experts": 6, "moe_intermediate_size": 48}}},
    "audio_config": {"hidden_size": 128, "num_attention_heads": 4, "num_hidden_layers": 1, "intermediate_size": 192,
                     "feature_size": 64, "downsample_hidden_size": 16, "attention_bias": False,
                     "adapter_input_size": 128, "adapter_out_dim": 256},
}
CASES += [(DOTS3_NOTE_LEGACY, 7705440, 1548288), (DOTS3_NOTE, 5380384, 1044480)]


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


def test_longcat_active_without_zero_experts_by_hand():
    """2 layers x top-2 experts of gate_up 2*64*256 + down 256*64 = 196,608 used of the 589,824 routed."""
    count = count_params(CASES[7][0])
    assert count.active == 2579520 - 589824 + 2 * 2 * 3 * 64 * 256


def test_longcat_active_with_zero_experts_is_refused():
    """Identity experts in the top-k: the parameters a token uses vary, so only ``active`` is refused."""
    count = count_params(LONGCAT_ZERO)
    assert count.active_count is None
    with pytest.raises(UnsupportedError, match="zero_expert_num"):
        _ = count.active


def test_dots1_layers_slide_from_max_window_layers():
    """Dots1Config.__post_init__ (transformers 5.24) without layer_types: ``sliding_attention`` where
    ``i >= max_window_layers`` when a window is set (class default 4096); AutoConfig.for_model("dots1",
    num_hidden_layers=4, max_window_layers=2).layer_types == [full, full, sliding, sliding]."""
    import kvcalc
    cfg = {"model_type": "dots1", "num_hidden_layers": 4, "max_window_layers": 2, "n_routed_experts": 4,
           "n_shared_experts": 1, "num_experts_per_tok": 2}
    spec = kvcalc.read_spec(cfg)
    assert [layer.kind for layer in spec.layers] == ["full", "full", "sliding", "sliding"]
    assert [layer.attention[0].window for layer in spec.layers] == [None, None, 4096, 4096]
    # the class default max_window_layers (62) keeps every layer of the released 62-layer model full
    assert {layer.kind for layer in kvcalc.read_spec({**cfg, "num_hidden_layers": 62,
                                                      "max_window_layers": 62}).layers} == {"full"}


def test_speed_without_active_keeps_the_memory_bound_decode():
    """A refused ``active`` (LongCat's zero experts) leaves no FLOP count: no compute floor and no time to first
    token, said in words; the bandwidth-bound decode estimate and the plan still answer."""
    from kvcalc.deployment import deploy
    from kvcalc.speed import decode_rate_grid, estimate_speed
    d = deploy(LONGCAT_ZERO, gpu="h100-sxm", runtime="ideal")
    e = estimate_speed(d, 1, 1024)
    assert e.ttft_seconds is None and e.decode_tokens_per_s_per_sequence
    assert any("zero_expert_num" in u for u in e.unavailable)
    assert decode_rate_grid(d, [1], [1024])[0, 0] == pytest.approx(e.decode_tokens_per_s_per_sequence)


def test_dbrx_published_total_and_active():
    """databricks/dbrx-instruct's config.json geometry; its model card: "132B total parameters of which 36B
    parameters are active on any input" (16 experts, 4 per token)."""
    cfg = {"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40, "vocab_size": 100352,
           "max_seq_len": 32768, "attn_config": {"kv_n_heads": 8, "clip_qkv": 8, "rope_theta": 500000},
           "ffn_config": {"ffn_hidden_size": 10752, "moe_num_experts": 16, "moe_top_k": 4}}
    count = count_params(cfg)
    assert round(count.total / 1e9) == 132
    assert round(count.active / 1e9) == 36


@pytest.mark.parametrize("model_type, base, window, kinds", [
    # AutoConfig.for_model(type, **fields).layer_types / .sliding_window in transformers 5.24: a missing
    # sliding_window takes the class default (4096), an explicit null means no window at all
    ("ministral", {"num_hidden_layers": 3}, {}, ["sliding"] * 3),
    ("ministral", {"num_hidden_layers": 3}, {"sliding_window": None}, ["full"] * 3),
    ("dots1", {"num_hidden_layers": 4, "max_window_layers": 2}, {"sliding_window": None}, ["full"] * 4),
    ("dots1", {"num_hidden_layers": 4, "max_window_layers": 2}, {"sliding_window": 64},
     ["full", "full", "sliding", "sliding"]),
])
def test_window_default_and_explicit_null(model_type, base, window, kinds):
    import kvcalc
    spec = kvcalc.read_spec({"model_type": model_type, **base, **window})
    assert [layer.kind for layer in spec.layers] == kinds
    expected = window.get("sliding_window", 4096)
    assert {layer.attention[0].window for layer in spec.layers if layer.kind == "sliding"} <= {expected}
