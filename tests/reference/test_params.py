"""kvcalc.params.count_params == the parameters transformers' nn.Module holds, and == published totals.

(a) Every reference config.json (``../shared/reference/configs`` next to the repo, and ``data/configs`` in
    it) is built by transformers on the meta device (no memory, no download); the total and the split
    into parts must equal kvcalc's. Also tiny and all-defaults configs, and variants of the optional
    features (biases, q_lora_rank null, cross-attention, gated T5, SigLIP pooling head, ...).
(b) Published totals (Hub safetensors totals from ../shared/reference/params.csv) for models whose
    checkpoint holds exactly the module's parameters, as plain numbers; and for the rows whose notes say
    the total includes buffers, the published total minus those buffers.
"""
from __future__ import annotations

import csv
import functools
import json
import os
import re
import warnings
from pathlib import Path

import pytest
from hf_reference import NotBuildable, hf_config, meta_model
from paths import REFERENCE, ROOT, load_config, reference_configs

from kvcalc.errors import ConfigError, UnsupportedError
from kvcalc.params import PARTS, SUPPORTED_MODEL_TYPES, ParamCount, count_params

PARAMS_CSVS = [Path(ROOT) / "data" / "params.csv", Path(REFERENCE) / "params.csv"]
CONFIGS = sorted(os.path.basename(path) for path in reference_configs())
"""Reference configs by file name (a copy in data/configs wins over ../shared)."""


# --------------------------------------------------------------------------- transformers ground truth
def _part_of(name: str) -> str:
    """kvcalc's part for a transformers parameter name."""
    leaf = name.split(".")
    last = leaf[-2] if leaf[-1] in ("weight", "bias") else leaf[-1]
    if last.isdigit() and len(leaf) > 2 and "norm" in leaf[-3]:    # a ModuleList of norms (LongCat-Flash)
        last = leaf[-3]
    # heads: ModernBERT-decoder's lm_head + decoder, BioGPT's output_projection, GPT-NeoX-Japanese's embed_out
    if name.startswith(("lm_head.", "output_projection.", "embed_out.")) or name in ("decoder.weight", "decoder.bias"):
        return "lm_head"
    if name.startswith("language_model.lm_head."):     # a wrapper's text ...ForCausalLM (Llama 4, Nemotron-H Omni)
        return "lm_head"
    if re.search(r"_layernorm\.norms\.\d+\.", name):   # StableLmLayerNormPerHead: one LayerNorm per head
        return "norms"
    # Apertus 1.5's image tokenizer, DeepSeek-VL hybrid's SAM modules, ERNIE-4.5-VL's resampler
    if re.search(r"(^|\.)(vision_tokenizer|high_res_vision_\w+|resampler_model)(\.|$)", name):
        return "vision"
    if ".audio_tokenizer." in name:         # Apertus 1.5's WavTokenizer encoder
        return "other"
    if name.startswith("model.protein_encoder."):  # Evolla's SaProt encoder and resampler: the modality encoder
        return "vision"
    if re.search(r"\.layers\.\d+\.adapter\.(query|key_\w+|value_\w+|out_proj|gate_\w+)\b", name):
        return "attention"                  # Evolla's protein cross-attention adapters
    if name.startswith(("git.", "output.")):     # GIT's BERT-style names
        if name.startswith(("git.image_encoder.", "git.visual_projection.", "git.img_temporal_embedding.")):
            return "vision"
        if name.startswith("output."):
            return "lm_head"
        if last == "LayerNorm":
            return "norms"
        if last in ("word_embeddings", "position_embeddings"):
            return "embedding"
        return "attention" if ".attention." in name else "mlp"
    if re.search(r"(^|\.)(vision_tower|vision_model|multi_modal_projector|visual|image_tower|video_tower"
                 r"|vision_encoder|vision_projection|aligner|connector|projector|mm_projector|merger"
                 r"|vision_embed_tokens"
                 r"|vision_adapter|vqmodel|generation_embeddings|generation_aligner|generation_head"
                 r"|embed_tokens_extend|visual_embeddings_table|embed_vision)\.", name) \
            or name.endswith(".view_separator") \
            or re.search(r"audio_tower\.(layers\.\d+\.(patch_embedder|conv_blocks)|proj|post_proj_norm)\.", name):
        return "vision"    # Unlimited-OCR's view separator, Muse Spark's audio tower but its norm
    if name.endswith("_residual_gate.gate"):            # Muse Spark's MuseSparkResidualGate
        return "other"
    if last in ("input_residual", "post_attention_residual") or re.search(r"_residual_scale\.", name):
        return "norms"                                            # Doge's and Zaya's residual scales
    if re.search(r"\.(attn|ffn)_hc\.", name):                     # GLM-5 Next's hyper-connections
        return "other"
    if last in ("embed_tokens", "embed_tokens_per_layer", "wte", "wpe", "shared", "word_embeddings", "embed_in",
                "embed_positions", "embeddings",
                "tok_embeddings") \
            or name == "transformer.w.weight":  # CTRL's token table
        return "embedding"
    if "norm" in last or last.startswith("ln_"):
        return "norms"
    if ".altup." in name and "norm" not in last:     # Gemma 3n's AltUp coefficients and router
        return "other"
    if re.search(r"\.mixer\.[qkvo]_proj\.", name):      # Nemotron-H: every block's module is its "mixer"
        return "attention"
    if re.search(r"\.mixer\.(experts|gate|shared_experts|up_proj|down_proj|fc[12]_latent_proj)\b", name):
        return "mlp"
    if re.search(r"\.(mixer|linear_attn|mamba|conv)\.", name):
        return "mixer"
    if re.search(r"(mlp|experts|moe|DenseReluDense|feed_forward|router|\.ffn\.)", name) \
            or last in ("gate", "fc1", "fc2"):
        return "mlp"
    if re.search(r"(attn|attention|Attention)", name):
        return "attention"
    return "other"


def _hf_counts(cfg: dict) -> tuple[int, dict[str, int], int]:
    """(total, per-part totals, routed-expert total) of the model transformers builds on the meta device."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    try:
        model = meta_model(cfg)
    except NotBuildable as exc:
        pytest.skip(str(exc))
    parts = dict.fromkeys(PARTS, 0)
    experts = 0
    for name, p in model.named_parameters():
        parts[_part_of(name)] += p.numel()
        # routed experts: ".experts." tensors (not shared experts; not JetMoE's MoA bias and router; not Muse Spark's
        # post_expert_norm, one norm every routed token passes), and
        # ParallelExperts' input_linear / output_linear (JetMoE; GraniteMoE-Shared's shared_mlp excepted)
        routed = ".experts." in name and "shared_expert" not in name and not re.search(
            r"\.experts\.(bias|router\.|post_expert_norm\.)", name)
        routed = routed or re.search(r"\.mlp\.(down|up)_embed\.", name) is not None   # Doge's retrieval experts
        if routed or (re.search(r"\.(input|output)_linear\.weight$", name) and "shared" not in name):
            experts += p.numel()
    return sum(parts.values()), parts, experts


@functools.cache
def _hf_counts_cached(key: str) -> tuple[int, dict[str, int], int]:
    return _hf_counts(json.loads(key))


# Encoder-decoders and speech models: module names _part_of does not split as kvcalc does (BERT's intermediate /
# output dense and LayerNorm, audio conv towers read as mixers, Granite's conformer input_linear read as routed
# experts): totals only here; their parts follow the modules' docstrings in kvcalc.params_seq2seq
# (tests/fast/test_params_seq2seq_and_speech.py checks totals and routed experts on other shapes)
_TOTALS_ONLY = frozenset({"encoder-decoder", "granite_speech", "granite_speech_plus", "omniasr", "vibevoice_asr",
                          "nemo_speechlm",
                          # Q-Former dense / LayerNorm layers (BLIP-2 family) and Pix2Struct's
                          # decoder.lm_head / unprefixed vision encoder; totals also in
                          # tests/fast/test_params_blip2_udop_pix2struct.py
                          "blip-2", "instructblip", "instructblipvideo", "pix2struct",
                          # the name rule reads VisionEncoderDecoder's and PP-FormulaNet's
                          # unprefixed "encoder." vision stacks as attention / mlp, Voxtral Realtime's ada norms as
                          # other, CPM-Ant's input_embedding as other; totals also in
                          # tests/fast/test_params_image_encoder_decoders_voxtral_realtime.py and
                          # tests/fast/test_params_cpmant_fastvlm_gemma3n.py
                          "vision-encoder-decoder", "pp_formulanet", "voxtral_realtime", "cpmant"})


def _assert_matches_transformers(cfg: dict) -> ParamCount:
    total, parts, experts = _hf_counts_cached(json.dumps(cfg, sort_keys=True))  # first: skipped if not buildable
    ours = count_params(cfg)
    assert ours.total == total
    if cfg.get("model_type") in _TOTALS_ONLY:
        return ours
    assert ours.parts() == parts
    assert ours.moe_experts == experts
    return ours


@pytest.mark.parametrize("name", CONFIGS or ["(no reference configs found)"])
def test_reference_config_matches_transformers(name):
    cfg = load_config(name)
    ours = _assert_matches_transformers(cfg)
    assert ours.total == sum(ours.parts().values())


# --------------------------------------------------------------------------- tiny and default configs
def _tiny() -> dict[str, dict]:
    from tiny_models import TINY

    return {mt: dict(cfg, model_type=mt) for mt, cfg in TINY.items() if mt in SUPPORTED_MODEL_TYPES}


@pytest.mark.parametrize("model_type", sorted(_tiny()))
def test_tiny_config_matches_transformers(model_type):
    """Configs that give only a few fields: the rest must come from the transformers class defaults."""
    _assert_matches_transformers(_tiny()[model_type])


@pytest.mark.parametrize("model_type", sorted(set(SUPPORTED_MODEL_TYPES) - {"kimi_k2"}))
def test_all_defaults_config_matches_transformers(model_type):
    """``{"model_type": ...}`` alone: every counted field comes from the class defaults.

    DeepseekV2Config's default num_experts_per_tok is null (a router that cannot route), and HRM's
    num_hidden_layers has no registry default (HrmTextConfig rewrites it), and LFM2-MoE's layer_types has no class
    default transformers can build: given here."""
    moe = {"num_experts": 128, "top_k_experts": 8, "moe_intermediate_size": 704}  # DiffusionGemma's default_fill
    extra = {"deepseek_v2": {"num_experts_per_tok": 6}, "hrm_text": {"num_hidden_layers": 16},
             # Dots1Config leaves its experts None (no model builds): the coverage oracle's default_fill
             "dots1": {"n_routed_experts": 128, "n_shared_experts": 2, "num_experts_per_tok": 6},
             "diffusion_gemma_text": moe, "diffusion_gemma": {"text_config": moe},
             "lfm2_moe": {"layer_types": ["conv", "conv", "full_attention", "conv"] * 8}}.get(model_type, {})
    _assert_matches_transformers({"model_type": model_type, **extra})


@pytest.mark.parametrize("model_type", sorted(_tiny()))
def test_tiny_config_as_saved_matches_transformers(model_type):
    """The same configs as ``save_pretrained`` writes them: every derived attribute spelled out."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        saved = hf_config(_tiny()[model_type]).to_dict()  # (to_json_string would mangle mamba2's inf limit)
    _assert_matches_transformers(saved)


_DEC = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=4, num_attention_heads=4,
            num_key_value_heads=2, vocab_size=128, max_position_embeddings=256)
_MLA = dict(_DEC, kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=12,
            moe_intermediate_size=32, n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=2,
            first_k_dense_replace=1, n_group=1, topk_group=1)
_SIGLIP = dict(model_type="siglip_vision_model", hidden_size=32, intermediate_size=48, num_hidden_layers=2,
               num_attention_heads=4, image_size=28, patch_size=14)
_MLLAMA_VISION = dict(hidden_size=32, num_hidden_layers=2, num_global_layers=1, attention_heads=4,
                      intermediate_size=48, vision_output_dim=64, image_size=28, patch_size=14, max_num_tiles=2,
                      supported_aspect_ratios=[[1, 1], [1, 2]])

VARIANTS: dict[str, dict] = {
    "llama-biases-tied": dict(_DEC, model_type="llama", attention_bias=True, mlp_bias=True, tie_word_embeddings=True),
    "llama-head_dim": dict(_DEC, model_type="llama", head_dim=24),
    "mistral-head_dim-null": dict(_DEC, model_type="mistral", head_dim=None),
    "mixtral-8e": dict(_DEC, model_type="mixtral", num_local_experts=8, num_experts_per_tok=2),
    "qwen2-tied": dict(_DEC, model_type="qwen2", tie_word_embeddings=True),
    "qwen3-bias": dict(_DEC, model_type="qwen3", attention_bias=True, head_dim=40),
    "qwen3_moe-sparse-step": dict(_DEC, model_type="qwen3_moe", num_hidden_layers=6, decoder_sparse_step=2,
                                  mlp_only_layers=[3], num_experts=4, num_experts_per_tok=2, moe_intermediate_size=24),
    "qwen3_moe-no-experts": dict(_DEC, model_type="qwen3_moe", num_experts=0),
    "gemma2-untied": dict(_DEC, model_type="gemma2", head_dim=16, tie_word_embeddings=False),
    "gemma3_text-bias": dict(_DEC, model_type="gemma3_text", head_dim=16, attention_bias=True),
    "phi3-kv": dict(_DEC, model_type="phi3", num_key_value_heads=1, tie_word_embeddings=True, pad_token_id=0),
    "gpt_oss-no-bias": dict(_DEC, model_type="gpt_oss", head_dim=16, attention_bias=False, num_local_experts=4,
                            num_experts_per_tok=1),
    "gpt2-cross-n_inner": dict(model_type="gpt2", n_embd=64, n_layer=2, n_head=4, vocab_size=128, n_positions=32,
                               n_inner=80, add_cross_attention=True, tie_word_embeddings=False),
    "deepseek_v2-q_lora-null-mlp_bias": dict(_MLA, model_type="deepseek_v2", q_lora_rank=None, mlp_bias=True),
    "deepseek_v2-q_lora-attn_bias": dict(_MLA, model_type="deepseek_v2", q_lora_rank=24, attention_bias=True),
    "deepseek_v3-q_lora-null": dict(_MLA, model_type="deepseek_v3", q_lora_rank=None),
    "deepseek_v3-all-dense": dict(_MLA, model_type="deepseek_v3", q_lora_rank=24, first_k_dense_replace=9),
    "kimi_k2": dict(_MLA, model_type="kimi_k2", q_lora_rank=24, architectures=["DeepseekV3ForCausalLM"]),
    "t5-is_gated_act-overrides": dict(model_type="t5", d_model=32, d_kv=8, d_ff=48, num_layers=2, num_heads=4,
                                      vocab_size=100, feed_forward_proj="gated-gelu", is_gated_act=False),
    "t5-gated-decoder-layers": dict(model_type="t5", d_model=32, d_kv=8, d_ff=48, num_layers=2, num_decoder_layers=3,
                                    num_heads=4, vocab_size=100, feed_forward_proj="gated-gelu",
                                    tie_word_embeddings=False),
    "gemma3-head-untied": dict(model_type="gemma3", tie_word_embeddings=False,
                               vision_config=dict(_SIGLIP, vision_use_head=True),
                               text_config=dict(_DEC, head_dim=16, model_type="gemma3_text"), mm_tokens_per_image=4),
    "gemma3-text-untied-top-tied": dict(model_type="gemma3", vision_config=dict(_SIGLIP, vision_use_head=False),
                                        text_config=dict(_DEC, head_dim=16, tie_word_embeddings=False),
                                        mm_tokens_per_image=4),
    "mllama-small": dict(model_type="mllama", vision_config=_MLLAMA_VISION,
                         text_config=dict(_DEC, cross_attention_layers=[1, 3, 7], pad_token_id=0, bos_token_id=1,
                                          eos_token_id=2)),
    "gemma-bias": dict(_DEC, model_type="gemma", head_dim=16, attention_bias=True),
    "qwen2_moe-no-qkv-bias-sparse": dict(_DEC, model_type="qwen2_moe", qkv_bias=False, num_experts=4,
                                         num_experts_per_tok=2, moe_intermediate_size=24, decoder_sparse_step=2,
                                         shared_expert_intermediate_size=40, mlp_only_layers=[1]),
    "qwen2_moe-no-experts": dict(_DEC, model_type="qwen2_moe", num_experts=0),
    "qwen3_next-layer_types": dict(_DEC, model_type="qwen3_next", head_dim=16, attention_bias=True,
                                   layer_types=["full_attention", "linear_attention"] * 2, linear_num_value_heads=4,
                                   linear_num_key_heads=2, linear_key_head_dim=8, linear_value_head_dim=12,
                                   linear_conv_kernel_dim=3, num_experts=4, num_experts_per_tok=2,
                                   moe_intermediate_size=24, shared_expert_intermediate_size=16, mlp_only_layers=[0]),
    "cohere2-head_dim-ignored": dict(_DEC, model_type="cohere2", head_dim=6, attention_bias=True),
    "starcoder2-no-bias": dict(_DEC, model_type="starcoder2", use_bias=False, head_dim=24, tie_word_embeddings=False),
    "llama4_text-moe_layers": dict(_DEC, model_type="llama4_text", head_dim=16, intermediate_size_mlp=80,
                                   num_local_experts=3, num_experts_per_tok=1, moe_layers=[0, 3, 9]),
    "llama4_text-interleave": dict(_DEC, model_type="llama4_text", head_dim=8, intermediate_size_mlp=80,
                                   num_local_experts=3, num_experts_per_tok=2, interleave_moe_layer_step=2),
    "gpt_bigcode-mha-cross": dict(model_type="gpt_bigcode", n_embd=64, n_layer=2, n_head=4, vocab_size=128,
                                  n_positions=32, multi_query=False, add_cross_attention=True),
    "gpt_neox-no-bias-tied": dict(model_type="gpt_neox", hidden_size=64, intermediate_size=80, num_hidden_layers=2,
                                  num_attention_heads=4, vocab_size=128, attention_bias=False,
                                  tie_word_embeddings=True),
    "falcon-new-arch-bias": dict(model_type="falcon", hidden_size=64, num_hidden_layers=2, num_attention_heads=8,
                                 num_kv_heads=2, new_decoder_architecture=True, bias=True, ffn_hidden_size=80,
                                 vocab_size=128, tie_word_embeddings=False),
    "falcon-new-arch-one-ln": dict(model_type="falcon", hidden_size=64, num_hidden_layers=2, num_attention_heads=8,
                                   num_kv_heads=4, new_decoder_architecture=True, num_ln_in_parallel_attn=1,
                                   vocab_size=128),
    "falcon-sequential-mha": dict(model_type="falcon", n_embed=64, num_hidden_layers=2, num_attention_heads=4,
                                  multi_query=False, parallel_attn=False, vocab_size=128),
    "bloom-n_embed": dict(model_type="bloom", n_embed=64, n_layer=2, n_head=4, vocab_size=128,
                          tie_word_embeddings=False),
    "opt-proj-no-bias-no-affine": dict(model_type="opt", hidden_size=64, ffn_dim=80, num_hidden_layers=2,
                                       num_attention_heads=4, vocab_size=128, word_embed_proj_dim=32,
                                       enable_bias=False, layer_norm_elementwise_affine=False,
                                       max_position_embeddings=40),
    "opt-post-ln": dict(model_type="opt", hidden_size=64, ffn_dim=80, num_hidden_layers=2, num_attention_heads=4,
                        vocab_size=128, do_layer_norm_before=False, tie_word_embeddings=False),
    "opt-remove-final-ln": dict(model_type="opt", hidden_size=64, ffn_dim=80, num_hidden_layers=2,
                                num_attention_heads=4, vocab_size=128, _remove_final_layer_norm=True),
    "mamba-intermediate_size": dict(model_type="mamba", hidden_size=64, num_hidden_layers=2, vocab_size=128,
                                    intermediate_size=100, state_size=4),
    "mamba-rank-bias-expand": dict(model_type="mamba", hidden_size=64, num_hidden_layers=2, vocab_size=128,
                                   state_size=8, expand=3, time_step_rank=6, use_bias=True, use_conv_bias=False,
                                   tie_word_embeddings=False),
    "mamba2-bias": dict(model_type="mamba2", hidden_size=64, num_hidden_layers=2, vocab_size=128, state_size=8,
                        num_heads=8, head_dim=16, n_groups=2, use_bias=True, use_conv_bias=False, conv_kernel=3,
                        tie_word_embeddings=True),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_matches_transformers(name):
    _assert_matches_transformers(VARIANTS[name])


# Issue 12: the text decoders counted through the registry (kvcalc.model_types). Each variant turns
# on what the class-default fixture (tests/fixtures/transformers_5_24_coverage.json) leaves off: biases, tied
# heads, per-layer MoE lists, shared experts, q/k norms, gates. Reference: transformers 5.24's meta-device
# build of the same config (its modeling_<type>.py modules), never kvcalc's own output.
_MOE = dict(moe_intermediate_size=24, num_experts_per_tok=2)
_MLA_DENSE = dict(_DEC, kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=12, q_lora_rank=24)
ISSUE12_VARIANTS: dict[str, dict] = {
    "arcee-biases-tied": dict(_DEC, model_type="arcee", attention_bias=True, mlp_bias=True, tie_word_embeddings=True),
    "apertus-head_dim": dict(_DEC, model_type="apertus", head_dim=24, tie_word_embeddings=True),
    "olmo-bias": dict(_DEC, model_type="olmo", attention_bias=True),
    "helium-qkv-bias": dict(_DEC, model_type="helium", head_dim=16, attention_bias=True, mlp_bias=True),
    "aria_text-shared": dict(_DEC, model_type="aria_text", moe_num_experts=4, moe_topk=2, moe_num_shared_experts=3,
                             mlp_bias=True),
    "afmoe-dense-first": dict(_DEC, **_MOE, model_type="afmoe", head_dim=16, num_dense_layers=2, num_experts=4,
                              num_shared_experts=1, sliding_window=8),
    "beam-mlp_layer_types": dict(_DEC, **_MOE, model_type="beam", head_dim=16, num_experts=4,
                                 mlp_layer_types=["sparse", "dense", "sparse", "sparse"], sliding_window=8),
    "bitnet-kv": dict(_DEC, model_type="bitnet", num_key_value_heads=1),
    "diffllama-head_dim": dict(_DEC, model_type="diffllama", head_dim=8, num_key_value_heads=4),
    "biogpt-untied": dict(_DEC, model_type="biogpt", tie_word_embeddings=False),
    "xglm-untied": dict(model_type="xglm", d_model=64, ffn_dim=96, num_layers=2, attention_heads=4, vocab_size=128,
                        max_position_embeddings=64, tie_word_embeddings=False),
    "ctrl-untied": dict(model_type="ctrl", n_embd=64, dff=96, n_layer=2, n_head=4, vocab_size=128, n_positions=64,
                        tie_word_embeddings=False),
    "codegen-n_inner-tied": dict(model_type="codegen", n_embd=64, n_inner=80, n_layer=2, n_head=4, vocab_size=128,
                                 rotary_dim=8, tie_word_embeddings=True),
    "gptj-4h": dict(model_type="gptj", n_embd=64, n_layer=2, n_head=4, vocab_size=128, rotary_dim=8),
    "gpt_neo-width": dict(model_type="gpt_neo", hidden_size=64, intermediate_size=80, num_layers=2, num_heads=4,
                          vocab_size=128, max_position_embeddings=64, attention_types=[[["global", "local"], 1]],
                          tie_word_embeddings=False),
    "exaone_moe-layers": dict(_DEC, **_MOE, model_type="exaone_moe", num_experts=4, num_shared_experts=2,
                              mlp_layer_types=["dense", "sparse", "dense", "sparse"], sliding_window=8,
                              layer_types=["sliding_attention", "full_attention"] * 2),
    "flint-mlp_only": dict(_DEC, **_MOE, model_type="flint", head_dim=16, num_experts=4, mlp_only_layers=[1],
                           shared_expert_intermediate_size=40, sliding_window=8,
                           layer_types=["full_attention", "sliding_attention"] * 2),
    "ernie4_5_moe-bias-range": dict(_DEC, **_MOE, model_type="ernie4_5_moe", use_bias=True, moe_num_experts=4,
                                    moe_k=2, moe_num_shared_experts=1, moe_layer_start_index=1, moe_layer_end_index=2,
                                    tie_word_embeddings=False),
    "granite_swa-untied": dict(_DEC, model_type="granite_swa", mlp_bias=True, tie_word_embeddings=False,
                               sliding_window=8),
    "granitemoeshared-shared": dict(_DEC, model_type="granitemoeshared", num_local_experts=4, num_experts_per_tok=2,
                                    shared_intermediate_size=40),
    "hy_v3-layers": dict(_DEC, **_MOE, model_type="hy_v3", head_dim=16, num_experts=4, num_shared_experts=2,
                         mlp_layer_types=["dense", "dense", "sparse", "sparse"]),
    "gpt_neox_japanese-multiple": dict(model_type="gpt_neox_japanese", hidden_size=64, num_hidden_layers=3,
                                       num_attention_heads=4, vocab_size=128, intermediate_multiple_size=2,
                                       tie_word_embeddings=False),
    "jais2-no-bias": dict(_DEC, model_type="jais2", attention_bias=False, mlp_bias=False, tie_word_embeddings=True),
    "glm_moe_dsa-shared-indexer": dict(_MLA, model_type="glm_moe_dsa", q_lora_rank=24, index_n_heads=2,
                                       index_head_dim=8, indexer_types=["full", "shared", "full", "shared"]),
    "axk1-layers": dict(_MLA, model_type="axk1", q_lora_rank=24,
                        mlp_layer_types=["dense", "sparse", "sparse", "dense"]),
    "sarvam_mla-q_lora": dict(_MLA, model_type="sarvam_mla", q_lora_rank=24),
    "youtu-untied": dict(_MLA_DENSE, model_type="youtu", tie_word_embeddings=False),
    "minicpm3-v_head_dim-derived": dict(_MLA_DENSE, model_type="minicpm3", v_head_dim=None),
    "kolibri1-small": dict(_DEC, **_MOE, model_type="kolibri1", head_dim=16, num_local_experts=4,
                           shared_expert_intermediate_size=40, sliding_window=8),
    "laguna-full-gate": dict(_DEC, **_MOE, model_type="laguna", head_dim=16, num_experts=4, gating=False,
                             shared_expert_intermediate_size=40, sliding_window=8,
                             mlp_layer_types=["dense", "sparse", "dense", "sparse"]),
    "falcon_mamba-bias": dict(model_type="falcon_mamba", hidden_size=64, num_hidden_layers=2, vocab_size=128,
                              state_size=4, use_bias=True, tie_word_embeddings=False),
    "minimax_m3_vl_text-dense": dict(_DEC, model_type="minimax_m3_vl_text", head_dim=16, num_local_experts=4,
                                     num_experts_per_tok=2, dense_intermediate_size=80, shared_intermediate_size=40,
                                     mlp_layer_types=["dense", "sparse", "sparse", "dense"], rotary_dim=8),
    "nanochat-tied": dict(_DEC, model_type="nanochat", tie_word_embeddings=True),
    "mpt-small": dict(model_type="mpt", d_model=64, n_heads=4, n_layers=2, vocab_size=128, max_seq_len=64),
    "modernbert-decoder-biases": dict(model_type="modernbert-decoder", hidden_size=64, intermediate_size=96,
                                      num_hidden_layers=3, num_attention_heads=4, vocab_size=128,
                                      attention_bias=True, mlp_bias=True, norm_bias=True, classifier_bias=True,
                                      tie_word_embeddings=False, local_attention=8, sliding_window=4, pad_token_id=0,
                                      bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2),
    "persimmon-no-qk-ln": dict(_DEC, model_type="persimmon", num_key_value_heads=4, qk_layernorm=False),
    "phi-qk-ln-tied": dict(_DEC, model_type="phi", num_key_value_heads=4, qk_layernorm=True,
                           tie_word_embeddings=True),
    "phimoe-head-bias": dict(_DEC, model_type="phimoe", num_local_experts=4, num_experts_per_tok=2,
                             lm_head_bias=True, attention_bias=True),
    "stablelm-qk-ln-parallel": dict(_DEC, model_type="stablelm", qk_layernorm=True, use_parallel_residual=True,
                                    use_qkv_bias=True),
    "bamba-attn-biases": dict(_DEC, model_type="bamba", attn_layer_indices=[1, 3], mamba_n_heads=8, mamba_d_head=16,
                              mamba_d_state=8, mamba_proj_bias=True, attention_bias=True, mlp_bias=True),
    "granitemoehybrid-layers": dict(_DEC, model_type="granitemoehybrid", mamba_n_heads=8, mamba_d_head=16,
                                    mamba_d_state=8, mamba_n_groups=2, mamba_conv_bias=False, num_local_experts=4,
                                    num_experts_per_tok=2, shared_intermediate_size=40,
                                    layer_types=["linear_attention", "full_attention"] * 2),
    "lfm2-conv-bias-multiplier": dict(_DEC, model_type="lfm2", layer_types=["conv", "full_attention", "conv", "conv"],
                                      conv_bias=True, block_ffn_dim_multiplier=1.3, tie_word_embeddings=False),
    "lfm2-no-adjust": dict(_DEC, model_type="lfm2", layer_types=["conv", "full_attention"] * 2,
                           block_auto_adjust_ff_dim=False),
    "minimax-head_dim": dict(_DEC, model_type="minimax", head_dim=24, num_local_experts=4, num_experts_per_tok=2,
                             layer_types=["linear_attention", "full_attention", "full_attention", "linear_attention"]),
    "jamba-periods": dict(_DEC, model_type="jamba", attn_layer_period=2, attn_layer_offset=1, expert_layer_period=3,
                          expert_layer_offset=0, mamba_dt_rank=8, mamba_proj_bias=True, num_experts=4,
                          mamba_d_state=4),
    "falcon_h1-rms-norm-biases": dict(_DEC, model_type="falcon_h1", mamba_n_heads=8, mamba_d_head=16, mamba_d_ssm=None,
                                      mamba_d_state=8, mamba_rms_norm=True, projectors_bias=True,
                                      mamba_proj_bias=True, mlp_bias=True),
    "falcon_h1-d_ssm": dict(_DEC, model_type="falcon_h1", mamba_n_heads=4, mamba_d_head=16, mamba_d_ssm=64,
                            mamba_d_state=8, mamba_n_groups=2),
    "solar_open-small": dict(_DEC, **_MOE, model_type="solar_open", head_dim=16, n_routed_experts=4,
                             n_shared_experts=2),
}

# hybrid and MoE decoders
_GEMMA4 = dict(_DEC, num_hidden_layers=6, head_dim=16, hidden_size_per_layer_input=8, vocab_size_per_layer_input=96,
               layer_types=["sliding_attention", "sliding_attention", "full_attention"] * 2, sliding_window=8)
_NEMOTRON_H = dict(_DEC, head_dim=16, mamba_num_heads=4, mamba_head_dim=16, n_groups=2, ssm_state_size=8,
                   n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=24,
                   moe_shared_expert_intermediate_size=40)
ISSUE12_VARIANTS.update({
    "nemotron_h-pattern-latent-biases": dict(_NEMOTRON_H, model_type="nemotron_h", hybrid_override_pattern="M*-EM-E",
                                             moe_latent_size=16, mlp_bias=True, use_bias=True, mamba_conv_bias=False),
    "gemma4_text-shared-kv-double-wide-k_eq_v": dict(_GEMMA4, model_type="gemma4_text", num_kv_shared_layers=3,
                                                      use_double_wide_mlp=True, attention_k_eq_v=True,
                                                      num_global_key_value_heads=1, global_head_dim=32),
    "gemma4_text-moe-bias-per-layer-config": dict(_GEMMA4, model_type="gemma4_text", enable_moe_block=True,
                                                   num_experts=4, top_k_experts=2, moe_intermediate_size=24,
                                                   attention_bias=True, tie_word_embeddings=False,
                                                   per_layer_config={"2": {"head_dim": 32, "num_key_value_heads": 1},
                                                                     "5": {"head_dim": 32, "num_key_value_heads": 1}}),
    "gemma4_text-no-per-layer-input": dict(_GEMMA4, model_type="gemma4_text", hidden_size_per_layer_input=0,
                                           num_kv_shared_layers=6),
    "gemma4_unified_text-shared-kv-k_eq_v": dict(_DEC, model_type="gemma4_unified_text", num_hidden_layers=6,
                                                  layer_types=_GEMMA4["layer_types"],
                                                  head_dim=16, num_kv_shared_layers=3, attention_k_eq_v=True,
                                                  num_global_key_value_heads=1, global_head_dim=32,
                                                  tie_word_embeddings=False),
    "gemma3n_text-widths-bias-untied": dict(_DEC, model_type="gemma3n_text", num_hidden_layers=5, head_dim=16,
                                            intermediate_size=[96, 64, 96, 32, 48], num_kv_shared_layers=2,
                                            layer_types=["sliding_attention", "full_attention"] * 2
                                            + ["sliding_attention"], attention_bias=True, tie_word_embeddings=False,
                                            altup_num_inputs=3, laurel_rank=8, hidden_size_per_layer_input=8,
                                            vocab_size_per_layer_input=96),
    "gemma3n_text-no-sharing": dict(_DEC, model_type="gemma3n_text", head_dim=16, num_kv_shared_layers=0,
                                    hidden_size_per_layer_input=8, vocab_size_per_layer_input=96, laurel_rank=4),
    "jetmoe-small-untied": dict(_DEC, model_type="jetmoe", kv_channels=8, num_local_experts=4, num_experts_per_tok=2,
                                tie_word_embeddings=False),
    "doge-moe-biases-tied": dict(_DEC, model_type="doge", is_moe=True, num_experts=50, num_experts_per_tok=4,
                                 attention_bias=True, mlp_bias=True, tie_word_embeddings=True),
    "doge-head_dim": dict(_DEC, model_type="doge", head_dim=24),
    "fuyu-small-tied": dict(model_type="fuyu", patch_size=8, num_channels=2, tie_word_embeddings=True,
                            text_config=dict(_DEC, model_type="persimmon", qk_layernorm=False)),
    "hrm_text-biases-tied": dict(_DEC, model_type="hrm_text", head_dim=24, num_layers_per_stack=3,
                                 attention_bias=True, mlp_bias=True, tie_word_embeddings=True),
    "nemotron_h-block-types-tied": dict(_NEMOTRON_H, model_type="nemotron_h", tie_word_embeddings=True,
                                        layers_block_type=["moe", "linear_attention", "full_attention", "mlp", "moe"]),
})


@pytest.mark.parametrize("name", sorted(ISSUE12_VARIANTS))
def test_issue12_variant_matches_transformers(name):
    _assert_matches_transformers(ISSUE12_VARIANTS[name])


# --------------------------------------------------------------------------- (b) published totals
# Hub safetensors totals (params.csv) whose checkpoints hold exactly the module's parameters.
# config file -> (params.csv model, published total). Instruct configs stand in for base models of
# the same architecture where only the Instruct config was saved.
PUBLISHED = {
    "meta-llama__Llama-3.1-8B.json": ("meta-llama/Llama-3.1-8B", 8030261248),
    "meta-llama__Llama-3.1-70B.json": ("meta-llama/Llama-3.1-70B", 70553706496),
    "meta-llama__Llama-3.1-405B.json": ("meta-llama/Llama-3.1-405B", 405853388800),
    "meta-llama__Llama-3.2-1B.json": ("meta-llama/Llama-3.2-1B", 1235814400),
    "meta-llama__Llama-3.2-3B-Instruct.json": ("meta-llama/Llama-3.2-3B", 3212749824),
    "meta-llama__Meta-Llama-3-8B.json": ("meta-llama/Meta-Llama-3-8B", 8030261248),
    "mistralai__Mistral-7B-v0.1.json": ("mistralai/Mistral-7B-v0.1", 7241732096),
    "mistralai__Mistral-7B-Instruct-v0.3.json": ("mistralai/Mistral-7B-Instruct-v0.3", 7248023552),
    "mistralai__Mixtral-8x7B-v0.1.json": ("mistralai/Mixtral-8x7B-v0.1", 46702792704),
    "Qwen__Qwen2.5-7B-Instruct.json": ("Qwen/Qwen2.5-7B", 7615616512),
    "Qwen__Qwen2.5-32B.json": ("Qwen/Qwen2.5-32B", 32763876352),
    "Qwen__Qwen3-8B.json": ("Qwen/Qwen3-8B", 8190735360),
    "Qwen__Qwen3-32B.json": ("Qwen/Qwen3-32B", 32762123264),
    "Qwen__Qwen3-235B-A22B.json": ("Qwen/Qwen3-235B-A22B", 235093634560),
    "google__gemma-2-9b-it.json": ("google/gemma-2-9b-it", 9241705984),
    "google__gemma-3-1b-it.json": ("google/gemma-3-1b-it", 999885952),
    "google__gemma-3-4b-it.json": ("google/gemma-3-4b-it", 4300079472),
    "google__gemma-3-27b-it.json": ("google/gemma-3-27b-it", 27432406640),
    "deepseek-ai__DeepSeek-V2-Lite.json": ("deepseek-ai/DeepSeek-V2-Lite", 15706484224),
}

# Published totals that include stored buffers (per the params.csv notes): total - buffers == parameters.
PUBLISHED_WITH_BUFFERS = {
    # 32 layers x 64 rotary inv_freq values
    "meta-llama__Llama-2-7b-hf.json": ("meta-llama/Llama-2-7b-hf", 6738417664, 32 * 64),
    # 12 layers x 1024 x 1024 causal-mask buffers (attn.bias)
    "openai-community__gpt2.json": ("openai-community/gpt2", 137022720, 12 * 1024 * 1024),
}
# Not asserted: DeepSeek-V3 / R1 (684,531,386,000 includes the MTP layer transformers does not build and
# the FP8 weight_scale_inv tensors); gpt-oss (MXFP4 blocks and scales are counted as stored elements).


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_total(name):
    _, total = PUBLISHED[name]
    assert count_params(load_config(name)).total == total


@pytest.mark.parametrize("name", sorted(PUBLISHED_WITH_BUFFERS))
def test_published_total_minus_buffers(name):
    _, total, buffers = PUBLISHED_WITH_BUFFERS[name]
    assert count_params(load_config(name)).total == total - buffers


def test_published_numbers_are_those_of_params_csv():
    """The numbers typed above are the ones in params.csv (guards against typos in this file)."""
    path = next((p for p in PARAMS_CSVS if p.is_file()), None)
    if path is None:
        pytest.skip("params.csv not found")
    with path.open(newline="") as fh:
        rows = {row["model"]: int(row["total_params"]) for row in csv.DictReader(fh)}
    for model, total, *_ in list(PUBLISHED.values()) + list(PUBLISHED_WITH_BUFFERS.values()):
        assert rows[model] == total, model


# --------------------------------------------------------------------------- behaviour without torch
def _llama(**kw) -> dict:
    return dict(_DEC, model_type="llama", **kw)


def test_parts_sum_and_active_for_dense():
    c = count_params(_llama())
    assert c.total == sum(c.parts().values())
    assert c.active == c.total and c.moe_experts == 0
    assert not c.tied_embeddings and c.lm_head == 128 * 64
    assert c.mixer == c.vision == c.other == 0


def test_tied_embeddings_zero_head():
    c = count_params(_llama(tie_word_embeddings=True))
    assert c.tied_embeddings and c.lm_head == 0
    assert c.total == count_params(_llama()).total - 128 * 64


def test_moe_active_is_top_k_experts():
    cfg = dict(_DEC, model_type="mixtral", num_local_experts=8, num_experts_per_tok=2)
    c = count_params(cfg)
    per_expert = 3 * 64 * 96
    assert c.moe_experts == 4 * 8 * per_expert
    assert c.active == c.total - c.moe_experts + 4 * 2 * per_expert
    assert c.moe_experts < c.mlp


def test_published_active_counts():
    """Active counts quoted by the model authors (embedding table included, as defined here)."""
    ds = count_params(load_config("deepseek-ai__DeepSeek-V3.json"))
    assert round(ds.active / 1e9) == 38 and ds.total == 671026404352  # "671B total, 37B activated"
    q = count_params(load_config("Qwen__Qwen3-30B-A3B.json"))
    assert round(q.active / 1e8) == 34  # "30.5B total, 3.3B activated"
    oss = count_params(load_config("openai__gpt-oss-120b.json"))
    assert round((oss.active - oss.embedding) / 1e7) == 513  # model card: 5.13B active (without the embedding)


def test_fields_used_are_recorded():
    c = count_params(load_config("google__gemma-3-4b-it.json"))
    assert "text_config.hidden_size" in c.fields_used
    assert "vision_config.image_size" in c.fields_used
    c = count_params(load_config("deepseek-ai__DeepSeek-V2-Lite.json"))
    assert "q_lora_rank" in c.fields_used  # read as an explicit null
    assert "n_embd" in count_params({"model_type": "gpt2", "n_embd": 64, "n_head": 4}).fields_used


def test_defaults_used_are_reported():
    """gemma-3-4b-it's config.json omits most text fields: the Gemma3TextConfig defaults fill them in."""
    c = count_params(load_config("google__gemma-3-4b-it.json"))
    assert "text_config.num_attention_heads=8" in c.defaults_used
    assert "tie_word_embeddings=True" in c.defaults_used
    assert count_params(load_config("meta-llama__Llama-3.1-8B.json")).defaults_used == ()


def test_unsupported_model_type():
    # a type no registry entry names (zamba2, the example before, is counted since issue 12; falcon_mamba too)
    with pytest.raises(UnsupportedError, match="zamba3"):
        count_params({"model_type": "zamba3", "hidden_size": 64})


def test_missing_model_type():
    # neither model_type nor an architectures class: refused as unsupported, so measured weights can plan it
    with pytest.raises(UnsupportedError, match="model_type"):
        count_params(dict(_DEC))


@pytest.mark.parametrize("bad, field", [
    (dict(hidden_size="4096"), "hidden_size"),
    (dict(num_hidden_layers=-1), "num_hidden_layers"),
    (dict(num_key_value_heads=3), "num_key_value_heads"),
    (dict(hidden_size=65, head_dim=None), "hidden_size"),
    (dict(tie_word_embeddings="yes"), "tie_word_embeddings"),
    (dict(vocab_size=1.5), "vocab_size"),
])
def test_bad_fields_raise_config_error(bad, field):
    with pytest.raises(ConfigError) as err:
        count_params(_llama(**bad))
    assert err.value.field == field


def test_moe_without_top_k_counts_total_but_refuses_active():
    """DeepseekV2Config's class default num_experts_per_tok is null: transformers still builds the model (its
    meta-device count, tests/fixtures/transformers_5_24_coverage.json deepseek_v2 default_params, is
    38612307968), but its router (modeling_deepseek_v2.DeepseekV2TopkRouter.forward: torch.topk with k=None)
    picks no experts: the total is exact, the active count is refused."""
    cfg = dict(_MLA, model_type="deepseek_v2", q_lora_rank=None)
    del cfg["num_experts_per_tok"]
    c = count_params(cfg)
    assert c.active_count is None and c.active_refused == "num_experts_per_tok"
    with pytest.raises(ConfigError, match="num_experts_per_tok"):
        c.active  # noqa: B018 - the property raises
    assert count_params({"model_type": "deepseek_v2"}).total == 38612307968


def test_flat_fuyu_config_counts_as_transformers_builds_it():
    """FuyuConfig moves top-level decoder fields into text_config (configuration_fuyu.FuyuConfig.__post_init__);
    kvcalc's one text view (kvcalc.models.subconfigs.text_view) does the same, so a flat file counts as
    transformers builds it on the meta device."""
    cfg = {"model_type": "fuyu", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
           "intermediate_size": 128, "vocab_size": 1000}
    model = meta_model(cfg)
    assert count_params(cfg).total == sum(p.numel() for p in model.parameters())


def test_bad_nested_configs():
    with pytest.raises(UnsupportedError, match="clip_vision_model"):
        count_params({"model_type": "gemma3", "vision_config": {"model_type": "clip_vision_model"}})
    with pytest.raises(ConfigError, match="text_config"):
        count_params({"model_type": "gemma3", "text_config": [1, 2]})
    with pytest.raises(ConfigError, match="feed_forward_proj"):
        count_params({"model_type": "t5", "feed_forward_proj": "gated-gelu-x"})
