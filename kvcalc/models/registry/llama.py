"""Registry entries of Llama-style decoders (dense and MoE) and the decoders counted by the same reader.

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.llama`. Counts first matched against transformers 5.24's meta-device counts of
the class defaults (tests/fixtures/transformers_5_24_coverage.json), then at other shapes by
tests/reference/test_params.py and tests/fast/test_params_mixture_of_experts.py."""
from __future__ import annotations

from ..layer_rules import (
    dots1_window,
    every,
    field_pattern,
    fixed_pattern,
    lara_mini_layers,
    linear_interval,
    llama4_layers,
    ministral_window,
    qwen2_moe_layers,
    qwen_window,
    window_all,
)
from ..model_type import ModelType
from ..quirks import Quirk as Q
from ..state_rules import gated_delta_states, lightning_states
from .common import LLAMA_LIKE, QWEN_MOE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

# decoders with the generic layer rule, no fixed class defaults kvcalc needs, and no counter yet
_PLAIN_DECODERS = ("baichuan", "internlm2", "qwen")


# Dense and MoE text decoders matched against transformers 5.24's meta-device counts of the class defaults
# (tests/fixtures/transformers_5_24_coverage.json), non-default shapes in tests/fast/test_params_mixture_of_experts.py.
# Defaults: the transformers 5.24 config classes (parameter fields; None = derived or required).
_HUNYUAN = dict(LLAMA_LIKE, vocab_size=290943, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                num_attention_heads=32, num_key_value_heads=None, head_dim=None, attention_bias=False)


# MPT's attn_config (MptAttentionConfig; kv_n_heads is llm-foundry's, default 1 in its attention.py)
MPT_ATTN_DEFAULTS = _d(attn_type="multihead_attention", kv_n_heads=1)


LLAMA_ENTRIES: tuple[ModelType, ...] = (
    # ---- dense decoders
    ModelType("llama", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None)),
    ModelType("mistral", params="llama_like", attn_bias=(False, False), defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, sliding_window=4096)),
    ModelType("qwen2", params="llama_like", attn_bias=(True, False), layer_rule=qwen_window, defaults=_d(
        LLAMA_LIKE, vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, max_window_layers=28)),
    ModelType("qwen3", params="llama_like", layer_rule=qwen_window, quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, head_dim=128, max_window_layers=28)),
    ModelType("phi3", params="llama_like", attn_bias=(False, False), defaults=_d(
        LLAMA_LIKE, vocab_size=32064, hidden_size=3072, intermediate_size=8192, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None)),
    ModelType("cohere2", params="llama_like", layer_rule=field_pattern, norms_per_layer=1, defaults=_d(
        LLAMA_LIKE, vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
        num_attention_heads=64, num_key_value_heads=None, tie_word_embeddings=True, sliding_window=4096,
        sliding_window_pattern=4)),
    ModelType("starcoder2", params="llama_like", attn_bias=("use_bias", "use_bias"), mlp_bias="use_bias",
              quirks=frozenset({Q.LAYER_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=49152, hidden_size=3072, intermediate_size=12288, num_hidden_layers=30,
        num_attention_heads=24, num_key_value_heads=2, use_bias=True, tie_word_embeddings=True)),
    ModelType("cohere", params="llama_like", quirks=frozenset({Q.USE_QK_NORM}), norms_per_layer=1, defaults=_d(
        LLAMA_LIKE, vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
        num_attention_heads=64, num_key_value_heads=None, tie_word_embeddings=True, attention_bias=False,
        use_qk_norm=False)),
    ModelType("cwm", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=128256, hidden_size=6144, intermediate_size=21504, num_hidden_layers=64,
        num_attention_heads=48, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        mlp_bias=False)),
    ModelType("ernie4_5", params="llama_like", defaults=_d(
        LLAMA_LIKE, vocab_size=103424, hidden_size=1024, intermediate_size=3072, num_hidden_layers=18,
        num_attention_heads=16, num_key_value_heads=2, head_dim=128, tie_word_embeddings=True)),
    ModelType("exaone", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("exaone4", params="llama_like", quirks=frozenset({Q.QK_NORM}), layer_rule=field_pattern, defaults=_d(
        LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=16384, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, tie_word_embeddings=False, sliding_window_pattern=4,
        sliding_window=4096)),
    ModelType("glm", params="llama_like", attn_bias=("attention_bias", False), defaults=_d(
        LLAMA_LIKE, vocab_size=151552, hidden_size=4096, intermediate_size=13696, num_hidden_layers=40,
        num_attention_heads=32, num_key_value_heads=2, head_dim=128, tie_word_embeddings=False,
        attention_bias=True)),
    ModelType("glm4", params="llama_like", norms_per_layer=4, attn_bias=("attention_bias", False), defaults=_d(
        LLAMA_LIKE, vocab_size=151552, hidden_size=4096, intermediate_size=13696, num_hidden_layers=40,
        num_attention_heads=32, num_key_value_heads=2, head_dim=128, tie_word_embeddings=False,
        attention_bias=True)),
    ModelType("granite", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        mlp_bias=False)),
    ModelType("hyperclovax", params="llama_like", norms_per_layer=4, mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("internlm3", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=128512, hidden_size=4096, intermediate_size=10240, num_hidden_layers=48,
        num_attention_heads=32, num_key_value_heads=2, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("iquestcoder", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=76800, hidden_size=5120, intermediate_size=27648, num_hidden_layers=80,
        num_attention_heads=40, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("ministral3", params="llama_like", defaults=_d(
        LLAMA_LIKE, vocab_size=131072, hidden_size=4096, intermediate_size=14336, num_hidden_layers=34,
        num_attention_heads=32, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False)),
    ModelType("olmo2", params="llama_like", quirks=frozenset({Q.FULL_QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=50304, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False)),
    ModelType("olmo3", params="llama_like", quirks=frozenset({Q.FULL_QK_NORM}),
              layer_rule=fixed_pattern(4), defaults=_d(
        LLAMA_LIKE, vocab_size=50304, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        sliding_window=4096)),
    ModelType("seed_oss", params="llama_like", attn_bias=("attention_bias", "attention_out_bias"),
              mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=155136, hidden_size=4096, intermediate_size=27648, num_hidden_layers=64,
        num_attention_heads=80, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=True, attention_out_bias=False, mlp_bias=False)),
    ModelType("smollm3", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=128256, hidden_size=2048, intermediate_size=11008, num_hidden_layers=36,
        num_attention_heads=16, num_key_value_heads=4, tie_word_embeddings=True, attention_bias=False,
        mlp_bias=False)),
    ModelType("arcee", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({Q.PLAIN_MLP}), defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=2560, intermediate_size=18432, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    *(ModelType(name, params="llama_like", quirks=frozenset({Q.PLAIN_MLP, Q.XIELU, Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=vocab, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False))
      for name, vocab in (("apertus", 131072), ("apertus1p5_text", 266752))),
    ModelType("helium", params="llama_like", attn_bias=("attention_bias", False), mlp_bias="mlp_bias", defaults=_d(
        LLAMA_LIKE, vocab_size=48000, hidden_size=2560, intermediate_size=7040, num_hidden_layers=24,
        num_attention_heads=20, num_key_value_heads=20, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("olmo", params="llama_like", quirks=frozenset({Q.NO_NORM_WEIGHTS}), defaults=_d(
        LLAMA_LIKE, vocab_size=50304, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False)),
    ModelType("bitnet", params="llama_like", quirks=frozenset({Q.SUB_NORMS}), defaults=_d(
        LLAMA_LIKE, vocab_size=128256, hidden_size=2560, intermediate_size=6912, num_hidden_layers=30,
        num_attention_heads=20, num_key_value_heads=5, tie_word_embeddings=False, attention_bias=False)),
    ModelType("diffllama", params="llama_like", quirks=frozenset({Q.DIFF_LAMBDAS}), defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
        num_attention_heads=32, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False)),
    # classic decoders (LayerNorms with bias, plain MLP with bias): the same reader, other flags
    ModelType("biogpt", params="llama_like", attn_bias=(True, True), mlp_bias=True, positions=2,
              quirks=frozenset({Q.MHA, Q.NORM_BIAS, Q.PLAIN_MLP}), defaults=_d(
        vocab_size=42384, hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
        max_position_embeddings=1024, tie_word_embeddings=True)),
    ModelType("xglm", params="llama_like", attn_bias=(True, True), mlp_bias=True,
              quirks=frozenset({Q.MHA, Q.NORM_BIAS, Q.PLAIN_MLP}), defaults=_d(
        vocab_size=256008, hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
        tie_word_embeddings=True)),
    ModelType("ctrl", params="llama_like", attn_bias=(True, True), mlp_bias=True, mlp_width="dff", head_bias=True,
              quirks=frozenset({Q.MHA, Q.NORM_BIAS, Q.PLAIN_MLP}), defaults=_d(
        vocab_size=246534, hidden_size=1280, dff=8192, num_hidden_layers=48, num_attention_heads=16,
        tie_word_embeddings=True)),
    ModelType("codegen", params="llama_like", attn_bias=(False, False), mlp_bias=True, norms_per_layer=1,
              head_bias=True, quirks=frozenset({Q.MHA, Q.NORM_BIAS, Q.PLAIN_MLP, Q.MLP_4H}), defaults=_d(
        vocab_size=50400, hidden_size=4096, intermediate_size=None, num_hidden_layers=28, num_attention_heads=16,
        tie_word_embeddings=False)),
    ModelType("gptj", params="llama_like", attn_bias=(False, False), mlp_bias=True, norms_per_layer=1, head_bias=True,
              quirks=frozenset({Q.MHA, Q.NORM_BIAS, Q.PLAIN_MLP, Q.MLP_4H}), defaults=_d(
        vocab_size=50400, hidden_size=4096, intermediate_size=None, num_hidden_layers=28, num_attention_heads=16,
        tie_word_embeddings=False)),
    ModelType("gpt_neo", params="llama_like", attn_bias=(False, True), mlp_bias=True, positions=0,
              quirks=frozenset({Q.MHA, Q.NORM_BIAS, Q.PLAIN_MLP, Q.MLP_4H}), defaults=_d(
        vocab_size=50257, hidden_size=2048, intermediate_size=None, num_hidden_layers=24, num_attention_heads=16,
        max_position_embeddings=2048, tie_word_embeddings=True)),
    ModelType("granite_swa", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({Q.ATTENTION_SINKS}),
              defaults=_d(
        LLAMA_LIKE, vocab_size=100352, hidden_size=2560, intermediate_size=8192, num_hidden_layers=24,
        num_attention_heads=20, num_key_value_heads=4, tie_word_embeddings=True, attention_bias=False,
        mlp_bias=False)),
    ModelType("jais2", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({Q.NORM_BIAS, Q.PLAIN_MLP}),
              defaults=_d(
        LLAMA_LIKE, vocab_size=150272, hidden_size=3328, intermediate_size=26624, num_hidden_layers=32,
        num_attention_heads=26, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=True, mlp_bias=True)),
    ModelType("nanochat", params="llama_like", quirks=frozenset({Q.PLAIN_MLP, Q.NO_NORM_WEIGHTS}), defaults=_d(
        LLAMA_LIKE, vocab_size=50304, hidden_size=768, intermediate_size=8192, num_hidden_layers=12,
        num_attention_heads=6, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False)),
    ModelType("mpt", params="llama_like", attn_bias=(False, False),
              quirks=frozenset({Q.MPT_ATTN_TYPE, Q.PLAIN_MLP, Q.MLP_4H}),
              defaults=_d(vocab_size=50368, tie_word_embeddings=True, hidden_size=2048, num_attention_heads=16,
                          num_hidden_layers=24)),
    ModelType("persimmon", params="llama_like", attn_bias=(True, True), mlp_bias=True,
              quirks=frozenset({Q.MHA, Q.NORM_BIAS, Q.PLAIN_MLP, Q.QK_LAYERNORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=262144, hidden_size=4096, intermediate_size=16384, num_hidden_layers=36,
        num_attention_heads=64, tie_word_embeddings=False, qk_layernorm=True)),
    ModelType("phi", params="llama_like", attn_bias=(True, True), mlp_bias=True, norms_per_layer=1, head_bias=True,
              quirks=frozenset({Q.NORM_BIAS, Q.PLAIN_MLP, Q.QK_LAYERNORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=51200, hidden_size=2048, intermediate_size=8192, num_hidden_layers=24,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, qk_layernorm=False)),
    ModelType("stablelm", params="llama_like", attn_bias=("use_qkv_bias", False),
              quirks=frozenset({Q.NORM_BIAS, Q.PER_HEAD_QK_LAYERNORM, Q.PARALLEL_RESIDUAL}), defaults=_d(
        LLAMA_LIKE, vocab_size=50304, hidden_size=2560, intermediate_size=6912, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, tie_word_embeddings=False, use_qkv_bias=False,
        qk_layernorm=False, use_parallel_residual=False)),
    ModelType("kimi_k2", same_as="deepseek_v3"),
    *(ModelType(name) for name in _PLAIN_DECODERS),
    ModelType("ministral", params="llama_like", attn_bias=(False, False), layer_rule=ministral_window, defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, head_dim=None, tie_word_embeddings=False,
        sliding_window=4096)),
    # NemotronLayerNorm1P (LayerNorm with bias), relu2 MLP of up/down only (modeling_nemotron.py)
    ModelType("nemotron", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({Q.NORM_BIAS, Q.PLAIN_MLP}),
              defaults=_d(
        LLAMA_LIKE, vocab_size=256000, hidden_size=6144, intermediate_size=24576, num_hidden_layers=32,
        num_attention_heads=48, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("hunyuan_v1_dense", params="llama_like", quirks=frozenset({Q.QK_NORM}), defaults=_d(_HUNYUAN)),
    ModelType("hunyuan_vl_text", params="llama_like", quirks=frozenset({Q.QK_NORM}), defaults=_d(
        _HUNYUAN, tie_word_embeddings=True)),
    # Cohere Compass (modeling_cohere_compass.py): Cohere-2's modules (one weight-only LayerNorm per layer, no
    # biases, all layers full attention by default); the wrapper holds a Qwen3-VL vision tower
    # (CohereCompassVisionModel: the same blocks, mergers and deepstack mergers) and an untied lm_head
    ModelType("cohere_compass_text", params="llama_like", norms_per_layer=1, defaults=_d(
        LLAMA_LIKE, vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
        num_attention_heads=64, num_key_value_heads=None, tie_word_embeddings=True, sliding_window=4096)),
    # Emu3 (modeling_emu3.py): a Llama decoder in text_config and the VQ-VAE of vq_config
    # (kvcalc.models.multimodal.emu3)
    ModelType("emu3_text_model", params="llama_like", defaults=_d(
        LLAMA_LIKE, vocab_size=184622, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8)),
    # Qwen2_5OmniThinkerTextModel: Qwen2's modules (q/k/v biases, o none: Qwen2_5OmniAttention)
    ModelType("qwen2_5_omni_text", params="llama_like", attn_bias=(True, False), defaults=_d(
        LLAMA_LIKE, vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
        num_attention_heads=28, num_key_value_heads=4, tie_word_embeddings=True)),
    # ---- MoE decoders (the MoE block: kvcalc.models.moe.moe_shape)
    ModelType("mixtral", params="llama_like", attn_bias=(False, False), moe="all", defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, num_local_experts=8, num_experts_per_tok=2)),
    ModelType("qwen2_moe", params="llama_like", attn_bias=("qkv_bias", False), layer_rule=qwen2_moe_layers,
              moe="sparse_step", quirks=frozenset({Q.SHARED_EXPERT_GATE}), defaults=_d(
        LLAMA_LIKE, QWEN_MOE, vocab_size=151936, hidden_size=2048, intermediate_size=5632,
        num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=16, qkv_bias=True,
        moe_intermediate_size=1408, shared_expert_intermediate_size=5632, num_experts_per_tok=4, num_experts=60,
        max_window_layers=28)),
    ModelType("qwen3_moe", params="llama_like", layer_rule=window_all, moe="sparse_step",
              quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, QWEN_MOE, vocab_size=151936, hidden_size=2048, intermediate_size=6144,
        num_hidden_layers=24, num_attention_heads=32, num_key_value_heads=4, moe_intermediate_size=768,
        num_experts_per_tok=8, num_experts=128)),
    ModelType("gpt_oss", params="llama_like", layer_rule=fixed_pattern(2), moe="all",
              quirks=frozenset({Q.ATTENTION_SINKS, Q.EXPERT_BIAS}), defaults=_d(
        LLAMA_LIKE, vocab_size=201088, hidden_size=2880, intermediate_size=2880, num_hidden_layers=36,
        num_attention_heads=64, num_key_value_heads=8, head_dim=64, attention_bias=True, num_local_experts=128,
        num_experts_per_tok=4, sliding_window=128)),
    ModelType("llama4_text", params="llama_like", layer_rule=llama4_layers, moe="interleave",
              quirks=frozenset({Q.SHARED_EXPERT, Q.DENSE_MLP_WIDTH}), defaults=_d(
        LLAMA_LIKE, vocab_size=202048, hidden_size=5120, intermediate_size=8192, intermediate_size_mlp=16384,
        num_hidden_layers=48, num_attention_heads=40, num_key_value_heads=8, head_dim=128, num_experts_per_tok=1,
        num_local_experts=16, interleave_moe_layer_step=1, attention_chunk_size=8192, no_rope_layer_interval=4)),
    ModelType("cohere2_moe", params="llama_like", moe="all", norms_per_layer=1, defaults=_d(
        LLAMA_LIKE, vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
        num_attention_heads=64, num_key_value_heads=None, head_dim=128, tie_word_embeddings=True,
        attention_bias=False, num_experts=8, num_experts_per_tok=2)),
    ModelType("flex_olmo", params="llama_like", moe="all", quirks=frozenset({Q.FULL_QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=100352, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        num_experts=7, num_experts_per_tok=5)),
    ModelType("granitemoe", params="llama_like", moe="all", defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        num_local_experts=8, num_experts_per_tok=2)),
    ModelType("mellum", params="llama_like", moe="sparse_step", quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, QWEN_MOE, vocab_size=98304, hidden_size=2304, intermediate_size=7168,
        num_hidden_layers=28, num_attention_heads=32, num_key_value_heads=4, head_dim=128,
        tie_word_embeddings=False, attention_bias=False, num_local_experts=64, num_experts_per_tok=8,
        moe_intermediate_size=896)),
    ModelType("olmoe", params="llama_like", moe="all", quirks=frozenset({Q.FULL_QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=50304, hidden_size=2048, intermediate_size=2048, num_hidden_layers=16,
        num_attention_heads=16, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        num_experts=64, num_experts_per_tok=8)),
    ModelType("glm4_moe", params="llama_like", moe="first_dense", attn_bias=("attention_bias", False),
              quirks=frozenset({Q.USE_HEAD_QK_NORM, Q.FLOOR_HEAD_DIM}), defaults=_d(
        LLAMA_LIKE, vocab_size=151552, hidden_size=4096, intermediate_size=10944, num_hidden_layers=46,
        num_attention_heads=96, num_key_value_heads=8, n_routed_experts=128, n_shared_experts=1,
        first_k_dense_replace=1, moe_intermediate_size=1408, num_experts_per_tok=8, use_qk_norm=False)),
    ModelType("aria_text", params="llama_like", mlp_bias="mlp_bias", moe="all", quirks=frozenset({Q.SHARED_EXPERTS}),
              defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=4096, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False, moe_num_experts=8, moe_num_shared_experts=2, moe_topk=2)),
    ModelType("afmoe", params="llama_like", moe="first_dense", norms_per_layer=4,
              quirks=frozenset({Q.QK_NORM, Q.GATED_Q_PROJ, Q.ROUTER_SCORE_BIAS}), defaults=_d(
        LLAMA_LIKE, vocab_size=200192, hidden_size=2048, intermediate_size=6144, num_hidden_layers=32,
        num_attention_heads=16, num_key_value_heads=None, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, num_experts=64, num_shared_experts=2, num_experts_per_tok=6, num_dense_layers=1,
        moe_intermediate_size=1408)),
    ModelType("beam", params="llama_like", moe="first_dense", norms_per_layer=4, dense_first=3,
              quirks=frozenset({Q.QK_NORM, Q.GATED_Q_PROJ, Q.HEAD_GATE_BIAS, Q.NO_SHARED_EXPERTS}), defaults=_d(
        LLAMA_LIKE, vocab_size=151936, hidden_size=5120, intermediate_size=20480, num_hidden_layers=52,
        num_attention_heads=48, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, moe_intermediate_size=2560, num_experts=256, num_experts_per_tok=8)),
    ModelType("exaone_moe", params="llama_like", attn_bias=(False, False), moe="first_dense",
              quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=16384, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, tie_word_embeddings=False, num_experts=64,
        num_shared_experts=1, num_experts_per_tok=8, first_k_dense_replace=1, moe_intermediate_size=1024)),
    ModelType("flint", params="llama_like", moe="sparse_step",
              quirks=frozenset({Q.QK_NORM, Q.ATTENTION_SINKS, Q.SIZED_SHARED_EXPERT}), defaults=_d(
        LLAMA_LIKE, vocab_size=150144, hidden_size=2048, intermediate_size=6144, num_hidden_layers=49,
        num_attention_heads=32, num_key_value_heads=4, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, num_experts=256, num_experts_per_tok=6, moe_intermediate_size=512,
        shared_expert_intermediate_size=1024, decoder_sparse_step=1, mlp_only_layers=[0, 1])),
    ModelType("ernie4_5_moe", params="llama_like", attn_bias=("use_bias", "use_bias"), mlp_bias="use_bias",
              head_bias="use_bias", moe="index_range", quirks=frozenset({Q.SHARED_EXPERTS, Q.ROUTER_SCORE_BIAS}),
              defaults=_d(
        LLAMA_LIKE, vocab_size=103424, hidden_size=2560, intermediate_size=12288, num_hidden_layers=28,
        num_attention_heads=20, num_key_value_heads=4, tie_word_embeddings=True, moe_num_experts=64,
        moe_num_shared_experts=2, moe_k=6, moe_intermediate_size=1536, moe_layer_start_index=1,
        moe_layer_end_index=None, moe_layer_interval=1, use_bias=False)),
    *(ModelType(name, params="llama_like", moe="all", quirks=quirks, defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        num_local_experts=8, num_experts_per_tok=2, shared_intermediate_size=0))
      for name, quirks in (("granitemoe_swa", frozenset({Q.ATTENTION_SINKS, Q.SIZED_SHARED_EXPERT})),
                           ("granitemoeshared", frozenset({Q.SIZED_SHARED_EXPERT})))),
    ModelType("hy_v3", params="llama_like", mlp_bias="mlp_bias", moe="first_dense", dense_first=1,
              quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=120832, hidden_size=4096, intermediate_size=13312, num_hidden_layers=80,
        num_attention_heads=64, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False, num_experts=192, num_experts_per_tok=8, num_shared_experts=1,
        moe_intermediate_size=1536)),
    ModelType("kolibri1", params="llama_like", moe="all", norms_per_layer=4,
              expert_width="moe_intermediate_size",
              quirks=frozenset({Q.QK_NORM, Q.SIZED_SHARED_EXPERT}), defaults=_d(
        LLAMA_LIKE, vocab_size=128000, hidden_size=2560, num_hidden_layers=50, num_attention_heads=48,
        num_key_value_heads=4, head_dim=128, tie_word_embeddings=False, num_local_experts=384, num_experts_per_tok=6,
        moe_intermediate_size=512, shared_expert_intermediate_size=512)),
    ModelType("laguna", params="llama_like", moe="first_dense", dense_first=1,
              quirks=frozenset({Q.QK_NORM, Q.HEAD_SOFTPLUS_GATE, Q.ROUTER_SCORE_BIAS, Q.NO_SHARED_EXPERTS,
                                Q.SIZED_SHARED_EXPERT}), defaults=_d(
        LLAMA_LIKE, vocab_size=100352, hidden_size=2048, intermediate_size=8192, num_hidden_layers=40,
        num_attention_heads=48, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, num_experts=256, num_experts_per_tok=8, moe_intermediate_size=512,
        shared_expert_intermediate_size=512, gating=True)),
    ModelType("minimax_m3_vl_text", params="llama_like", moe="first_dense", dense_first=0,
              mlp_width="dense_intermediate_size", expert_width="intermediate_size",
              quirks=frozenset({Q.QK_NORM, Q.NO_SHARED_EXPERTS, Q.SIZED_SHARED_EXPERT}), defaults=_d(
        LLAMA_LIKE, vocab_size=200064, hidden_size=6144, intermediate_size=3072, num_hidden_layers=60,
        num_attention_heads=64, num_key_value_heads=4, head_dim=128, tie_word_embeddings=False,
        dense_intermediate_size=12288, num_local_experts=128, num_experts_per_tok=4, shared_intermediate_size=3072)),
    ModelType("phimoe", params="llama_like", moe="all", head_bias="lm_head_bias", quirks=frozenset({Q.NORM_BIAS}),
              defaults=_d(
        LLAMA_LIKE, vocab_size=32064, hidden_size=4096, intermediate_size=6400, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=False, attention_bias=False,
        num_local_experts=16, num_experts_per_tok=2, lm_head_bias=False)),
    ModelType("solar_open", params="llama_like", moe="first_dense", dense_first=0, defaults=_d(
        LLAMA_LIKE, vocab_size=196608, hidden_size=4096, num_hidden_layers=48, num_attention_heads=64,
        num_key_value_heads=8, head_dim=128, tie_word_embeddings=False, attention_bias=False, n_routed_experts=128,
        n_shared_experts=1, moe_intermediate_size=1280, num_experts_per_tok=8)),
    ModelType("minimax_m2", params="llama_like", moe="all", quirks=frozenset({Q.FULL_QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=200064, hidden_size=3072, intermediate_size=1536, num_hidden_layers=62,
        num_attention_heads=48, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        num_local_experts=256, num_experts_per_tok=8)),
    ModelType("sarvam_moe", params="llama_like", moe="first_dense", quirks=frozenset({Q.QK_NORM}), defaults=_d(
        LLAMA_LIKE, vocab_size=262144, hidden_size=4096, intermediate_size=8192, num_hidden_layers=19,
        num_attention_heads=64, num_key_value_heads=4, head_dim=64, tie_word_embeddings=False,
        attention_bias=False, n_routed_experts=128, n_shared_experts=1, first_k_dense_replace=1,
        moe_intermediate_size=1024, num_experts_per_tok=6)),
    # MiMoV2FlashAttention (v_head_dim values, o_proj without bias; sliding layers 2 x KV heads
    # + sinks), MiMoV2FlashMoE from layer 1 (mlp_layer_types; router E*H, no shared expert)
    ModelType("mimo_v2_flash", layer_rule=lambda r, n, w: [
        "full_attention" if i == 0 or (i + 1) % 6 == 0 else "sliding_attention" for i in range(n)],
              params="llama_like", attn_bias=("attention_bias", False), moe="first_dense", dense_first=1,
              quirks=frozenset({Q.SWA_DOUBLE_KV, Q.V_HEAD_DIM, Q.NO_SHARED_EXPERTS}), defaults=_d(
        LLAMA_LIKE, num_key_value_heads=4, head_dim=192, v_head_dim=128, sliding_window=129, vocab_size=152576,
        hidden_size=4096, intermediate_size=16384, num_hidden_layers=48, num_attention_heads=64,
        tie_word_embeddings=False, attention_bias=False, moe_intermediate_size=2048, num_experts_per_tok=8,
        n_routed_experts=256)),
    ModelType("hunyuan_v1_moe", params="llama_like", moe="all", quirks=frozenset({Q.QK_NORM, Q.SHARED_EXPERT}),
              defaults=_d(_HUNYUAN, num_experts=1, moe_topk=1)),
    # Dots1: Qwen3-style attention (q/k norms of head_dim) and DeepSeek-V3-style MoE from first_k_dense_replace
    # (router E*H; e_score_correction_bias is a buffer; shared experts n_shared x moe_intermediate_size)
    ModelType("dots1", params="llama_like", moe="first_dense", quirks=frozenset({Q.QK_NORM}), layer_rule=dots1_window,
              defaults=_d(
        LLAMA_LIKE, vocab_size=152064, hidden_size=4608, intermediate_size=10944, moe_intermediate_size=1408,
        num_hidden_layers=62, num_attention_heads=32, num_key_value_heads=32, head_dim=None,
        n_shared_experts=None, n_routed_experts=None, num_experts_per_tok=None, first_k_dense_replace=0,
        tie_word_embeddings=False, attention_bias=False, sliding_window=4096, max_window_layers=62)),
    # Qwen3OmniMoeThinkerTextModel: Qwen3-MoE's modules (q/k norms over head_dim, routed experts every
    # decoder_sparse_step-th layer not in mlp_only_layers, no shared expert)
    ModelType("qwen3_omni_moe_text", params="llama_like", moe="sparse_step",
              quirks=frozenset({Q.QK_NORM, Q.FLOOR_HEAD_DIM}), defaults=_d(
        LLAMA_LIKE, QWEN_MOE, vocab_size=3584, hidden_size=2048, intermediate_size=18944, num_hidden_layers=28,
        num_attention_heads=28, num_key_value_heads=4, moe_intermediate_size=768, num_experts_per_tok=8,
        num_experts=128)),
    ModelType("unlimited_ocr_text", layer_rule=lambda r, n, w: [
        "reference_sliding_attention" if w is not None else "full_attention"] * n,
              params="llama_like", moe="first_dense", mlp_bias="mlp_bias",
              defaults=_d(LLAMA_LIKE, vocab_size=129280, hidden_size=1280, intermediate_size=6848,
                          num_hidden_layers=12, num_attention_heads=10, num_key_value_heads=10, sliding_window=128,
                          n_routed_experts=64, n_shared_experts=2, num_experts_per_tok=6, moe_intermediate_size=896,
                          first_k_dense_replace=1)),
    # ---- decoders with linear-attention layers (gated DeltaNet, lightning attention; their states:
    # kvcalc.models.state_rules)
    ModelType("qwen3_next", params="llama_like", layer_rule=linear_interval, state_rule=gated_delta_states,
              recurrent_kind="linear", moe="sparse_step",
              quirks=frozenset({Q.QK_NORM, Q.GATED_Q_PROJ, Q.GATED_DELTA_NET, Q.SHARED_EXPERT_GATE}), defaults=_d(
        LLAMA_LIKE, QWEN_MOE, vocab_size=151936, hidden_size=2048, intermediate_size=5632,
        num_hidden_layers=48, num_attention_heads=16, num_key_value_heads=2, head_dim=256,
        linear_conv_kernel_dim=4, linear_key_head_dim=128, linear_value_head_dim=128, linear_num_key_heads=16,
        linear_num_value_heads=32, moe_intermediate_size=512, shared_expert_intermediate_size=512,
        num_experts_per_tok=10, num_experts=512, full_attention_interval=4)),
    # Qwen3.5: Qwen3-Next's layers (gated DeltaNet + gated full attention), dense or MoE
    ModelType("qwen3_5_text", params="llama_like", layer_rule=linear_interval, state_rule=gated_delta_states,
              recurrent_kind="linear", quirks=frozenset({Q.QK_NORM, Q.GATED_Q_PROJ, Q.GATED_DELTA_NET}), defaults=_d(
        LLAMA_LIKE, vocab_size=248320, hidden_size=4096, intermediate_size=12288, num_hidden_layers=32,
        num_attention_heads=16, num_key_value_heads=4, head_dim=256, linear_conv_kernel_dim=4,
        linear_key_head_dim=128, linear_value_head_dim=128, linear_num_key_heads=16, linear_num_value_heads=32,
        full_attention_interval=4)),
    ModelType("qwen3_5_moe_text", params="llama_like", layer_rule=linear_interval, state_rule=gated_delta_states,
              recurrent_kind="linear", moe="sparse_step",
              quirks=frozenset({Q.QK_NORM, Q.GATED_Q_PROJ, Q.GATED_DELTA_NET, Q.SHARED_EXPERT_GATE}), defaults=_d(
        QWEN_MOE,
        LLAMA_LIKE, vocab_size=248320, hidden_size=2048, num_hidden_layers=40, num_attention_heads=16,
        num_key_value_heads=2, head_dim=256, linear_conv_kernel_dim=4, linear_key_head_dim=128,
        linear_value_head_dim=128, linear_num_key_heads=16, linear_num_value_heads=32, moe_intermediate_size=512,
        shared_expert_intermediate_size=512, num_experts_per_tok=8, num_experts=256, full_attention_interval=4)),
    ModelType("minimax", layer_rule=lambda r, n, w: every(2, "linear_attention", "full_attention")(n),
              state_rule=lightning_states, recurrent_kind="linear", params="llama_like", moe="all",
              quirks=frozenset({Q.LIGHTNING_ATTENTION}), defaults=_d(
        LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, head_dim=None, tie_word_embeddings=False,
        num_local_experts=8, num_experts_per_tok=2)),
    # Lara-Mini and OLMo Hybrid count as Llama-style decoders with Qwen3-Next's gated-DeltaNet
    # (LaraMiniGatedDeltaNet's in_proj_qkv / z / b / a and OlmoHybridGatedDeltaNet's q / k / v / g / a / b
    # projections hold the same numbers as in_proj_qkvz + in_proj_ba)
    ModelType("lara_mini", layer_rule=lara_mini_layers, state_rule=gated_delta_states, recurrent_kind="linear",
              params="llama_like", moe="all", expert_width="moe_intermediate_size",
              quirks=frozenset({Q.GATED_DELTA_NET, Q.QK_NORM, Q.SIZED_SHARED_EXPERT}),
              defaults=_d(num_key_value_heads=4, head_dim=128, sliding_window=512, linear_conv_kernel_dim=4,
                          linear_key_head_dim=128, linear_value_head_dim=128, linear_num_key_heads=8,
                          linear_num_value_heads=16,
                          # parameter fields (LaraMiniConfig)
                          vocab_size=151936, hidden_size=1024, num_hidden_layers=34, num_attention_heads=16,
                          tie_word_embeddings=True, attention_bias=False, moe_intermediate_size=512,
                          shared_expert_intermediate_size=512, num_experts=128, num_experts_per_tok=4)),
)
