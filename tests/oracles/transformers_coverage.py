"""Measure the KV cache of every text-generating architecture transformers ships (dev-only oracle).

For every model type of transformers' own auto mappings (``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES``,
``MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES``, ``MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES``)
this script

1. shrinks the config class's DEFAULT config to a tiny one: widths only (hidden 64, 4 heads,
   head_dim 16, small FFN / experts / MLA ranks / SSM states / vocabulary, windows of 6 tokens);
   the number of layers and every per-layer list (layer_types, KV sharing, hybrid patterns) are
   kept as the default has them, so every structural feature of the type is kept;
2. builds the random-init model (same class choice as tests/hf_reference.py: image-text-to-text,
   then seq2seq, then causal LM), runs one prefill of ``PREFILL`` tokens and ``DECODE`` one-token
   decode steps on CPU, and counts the bytes of every distinct tensor storage the returned
   ``Cache`` holds, per layer (tests/cache_probe.py's rule: a view pins its whole base storage);
3. builds the default (full-size) model on the meta device and counts its parameters
   (``sum(p.numel() for p in model.parameters())``: tied weights once, as tests/reference/test_params.py).

The result goes to tests/fixtures/transformers_5_24_coverage.json (see ``FORMAT`` below). Run:

    python tests/oracles/transformers_coverage.py            # everything (resumes: done types kept)
    python tests/oracles/transformers_coverage.py --restart  # everything, from scratch
    python tests/oracles/transformers_coverage.py --only llama --only gemma3   # re-measure, merge
    python tests/oracles/transformers_coverage.py --sample 5 # re-measure 5 types, compare, exit 1 on drift

Needs the dev stack: torch 2.13 (CPU) and transformers 5.24.0. No network: nothing is downloaded.
The three types with a timm vision tower (fast_vlm, gemma3n, perception_lm: TimmWrapperModel) also need
timm, which imports torchvision; PyPI's torchvision 0.28.0 (the one for torch 2.13) is a CUDA build that
cannot load against the CPU torch (its _C.so links libtorch_cuda), so they are measured in a separate
environment with PyPI's CUDA build of torch 2.13.0 (run on CPU), torchvision 0.28.0 and timm 1.0.31;
each record names its torch build. timm is therefore not in requirements-dev.txt: installing it there
would leave `import torchvision` broken beside the CPU torch.
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import random
import re
import resource
import signal
import sys
import time
import traceback
import warnings
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
FIXTURE = os.path.join(TESTS, "fixtures", "transformers_5_24_coverage.json")
TRANSFORMERS_VERSION = "5.24.0"

BATCH, PREFILL, DECODE, DTYPE = 2, 9, 2, "bfloat16"
ENCODER_TOKENS = 7          # encoder input tokens of encoder-decoder models
WINDOW = 6                  # sliding windows / attention chunks shrink to this (< PREFILL + DECODE)
TINY_TIMEOUT_S = 180        # per type: build the tiny model and feed it
META_TIMEOUT_S = 180        # per type: build the default model on the meta device
MEMORY_LIMIT_BYTES = 12 * 2**30   # address space of the whole run (GiB = 2**30)

FORMAT = """{"transformers": version, "torch": version, "inputs": {batch, prefill, decode, dtype, encoder_tokens},
 "mappings": {mapping name: [model types]},
 "types": {model_type: {"status": "measured", "class", "config" (config.to_dict() of the tiny model),
            "inputs", "cache_class", "layer_classes", "layer_bytes" [per layer, int], "total_bytes"
            (distinct storages of the whole cache), "default_config" (to_diff_dict() of the config
            class's default: what save_pretrained writes), "default_fill" (DEFAULT_FILLS, where the bare
            default cannot be built), "default_params" (meta device, that
            default config) or "default_params_error", "seconds"}
          | {"status": "excluded", "reason": one line}}}"""

# Out of scope, decided before measuring (one line each). Everything else that generates text is
# attempted; a type that fails is recorded with its exception text (status "excluded", reason
# starting "failed:") so the failure is visible, never silently dropped.
OUT_OF_SCOPE: dict[str, str] = {
    **{mt: "encoder-only masked-LM model registered as a causal LM head (is_decoder flag); not a text generator"
       for mt in ("bert", "bert-generation", "big_bird", "camembert", "data2vec-text", "electra", "ernie",
                  "megatron-bert", "rembert", "roberta", "roberta-prelayernorm", "roc_bert", "roformer",
                  "xlm-roberta", "xlm-roberta-xl", "xmod")},
    "xlm": "encoder-only masked-LM (XLMWithLMHeadModel): no KV cache",
    "xlnet": "keeps its state in `mems` tensors outside Cache",
    "rwkv": "keeps its recurrent state in `state` tensors outside Cache (RwkvForCausalLM.forward(state=...))",
    "openai-gpt": "has no KV cache: OpenAIGPTLMHeadModel.forward takes no past_key_values (recomputes the sequence)",
    "musicgen": "music (audio token) generator",
    "musicgen_melody": "music (audio token) generator",
    "moshi": "speech-audio generator (audio codebooks, depth decoder)",
    "pi0": "robot-action generator (flow-matching action expert), not a text generator",
    "reformer": "keeps its state in ReformerDynamicCache (past_buckets_states: LSH buckets and hidden states), "
                "a class of its own that is not a transformers Cache",
    "recurrent_gemma": "keeps state outside Cache: its RG-LRU and conv1d states live in module attributes "
                       "(RecurrentGemmaRglru.recurrent_states, RecurrentGemmaRecurrentBlock.conv1d_state, "
                       "_setup_cache), and RecurrentGemmaModel.forward returns a BaseModelOutput without the "
                       "DynamicCache its attention layers fill",
    **{mt: "speculative-decoding drafter with no KV cache of its own: its forward requires the target model's "
           "inputs_embeds and shared_kv_states (num_kv_shared_layers = num_hidden_layers: every layer reads the "
           "target's KV)" for mt in ("gemma4_assistant", "gemma4_unified_assistant")},
}

# Encoder-decoder types whose decoder rejects a plain BaseModelOutput as encoder_outputs (NLLB-MoE, Switch read
# their router_logits): their decode steps pass the encoder input again instead. The cross-attention
# cache is filled once at prefill either way (EncoderDecoderCache.is_updated), so the cache is the same.
RE_ENCODE = ("nllb-moe", "switch_transformers")
# Wrappers whose own forward cannot run in transformers 5.24, measured through the text model they hold
# (built from the tiny config's text_config; the recorded config stays the wrapper's, the meta-device
# count the wrapper's): Llama4ForConditionalGeneration.forward reads ``outputs.image_outputs``, which its
# language model's MoeCausalLMOutputWithPast lacks (modeling_llama4.py), on every call.
TEXT_MODEL_FALLBACK = {"llama4": "Llama4ForCausalLM"}
# Types whose model forwards ``use_cache`` to its encoder stack too, which raises for use_cache=True
# (SwitchTransformersStack: "can only be set to True if ... used as a decoder"): they get an empty
# EncoderDecoderCache(DynamicCache, DynamicCache), the one their decoder stack builds itself, and no flag.
PREBUILT_CACHE = ("switch_transformers",)

# --------------------------------------------------------------------------- shrinking rules
H = 64
_HIDDEN = re.compile(r"^(hidden_size|d_model|n_embd|n_embed|dim|embed_dim|model_dim|word_embed_proj_dim|hidden_dim|"
                     r"d_embed|embedding_size|text_hidden_size|vision_hidden_size|out_hidden_size|"
                     r"projector_hidden_size|adapter_in_dim|adapter_input_size|codebook_dim|.*_hidden_size)$")
_FFN = re.compile(r"(intermediate_size|ffn_dim|^d_ff$|^n_inner$|ffn_hidden_size|^mlp_dim$|^ffn_size$|"
                  r"^intermediate_size_mlp$|^dim_ff$)")
_HEADS = re.compile(r"^(num_attention_heads|n_head|n_heads|num_heads|encoder_attention_heads|"
                    r"decoder_attention_heads|num_attention_heads_per_layer)$")
_KV_HEADS = re.compile(r"^(num_key_value_heads|num_kv_heads|n_kv_heads|multi_query_group_num|n_head_kv|"
                       r"num_key_value_heads_per_layer)$")
_FIXED: dict[str, int] = {
    "head_dim": 16, "d_kv": 16, "attention_head_dim": 16, "kv_channels": 16, "global_head_dim": 32,
    "kv_lora_rank": 16, "q_lora_rank": 24, "qk_rope_head_dim": 8, "qk_nope_head_dim": 16, "v_head_dim": 16,
    "index_head_dim": 16, "index_n_heads": 2, "index_topk": 4,
    "num_experts": 4, "num_local_experts": 4, "n_routed_experts": 4, "moe_num_experts": 4,
    "num_experts_per_tok": 2, "num_experts_per_token": 2, "moe_topk": 2, "moe_k": 2, "top_k": 2,
    "num_selected_experts": 2, "n_group": 1, "topk_group": 1,
    "state_size": 8, "ssm_state_size": 8, "mamba_d_state": 8, "d_state": 8,
    "linear_num_value_heads": 4, "linear_num_key_heads": 2, "linear_key_head_dim": 16,
    "linear_value_head_dim": 16, "mamba_d_head": 16, "mamba_head_dim": 16, "mamba_headdim": 16,
    "mamba_n_heads": 8, "mamba_num_heads": 8, "n_mamba_heads": 8, "mamba_d_ssm": 128,
    "mamba_n_groups": 1, "mamba_ngroups": 1, "n_groups": 1, "mamba_dt_rank": 8,
    "hidden_size_per_layer_input": 8, "laurel_rank": 4, "projection_dim": 64,
    "sliding_window": WINDOW, "attention_chunk_size": WINDOW, "sliding_window_size": WINDOW,
    "local_window_size": WINDOW, "window_size": WINDOW, "rotary_dim": 8,
}
_VOCAB = re.compile(r"^(vocab_size|vocab_size_per_layer_input|n_vocab)$")
_TOKEN_ID = re.compile(r"(_token_id|_token_index|_token_ids|token_id)$")


def _special_ids(d: Any, out: set[int]) -> set[int]:
    """Every token id a config names (pad/bos/eos/image/... ids), recursively."""
    if isinstance(d, dict):
        for k, v in d.items():
            if isinstance(k, str) and _TOKEN_ID.search(k):
                for x in v if isinstance(v, list) else [v]:
                    if isinstance(x, int) and not isinstance(x, bool) and x >= 0:
                        out.add(x)
            _special_ids(v, out)
    return out


# Recipe "fill" (tried when the plain shrink fails): fields a default leaves None although its
# model needs them (Dots1Config / DiffusionGemmaConfig experts, HunYuan head_dim) get a small value.
_FILL_MOE: dict[str, int] = {"n_routed_experts": 4, "num_experts": 4, "num_local_experts": 4, "num_experts_per_tok": 2,
                             "top_k_experts": 2, "moe_intermediate_size": 32, "n_shared_experts": 1, "head_dim": 16}
# ... and fields a default lacks although its modeling file reads them (transformers 5.24 defects
# found by this script; each only names what the code reads).
# Lfm2MoeConfig's default layer_types is None, which Lfm2MoeDecoderLayer indexes: the oracle's own
# pattern for its 32 layers, both kinds kept (a short-conv layer, then every 4th layer full attention).
_LFM2_MOE_LAYERS = ["conv", "conv", "full_attention", "conv"] * 8
_DEEPSEEK_OCR2_MLP = ["dense"] + ["sparse"] * 31
TWEAKS: dict[str, dict[str, Any]] = {
    # modeling_dbrx.py reads attn_config.rope_theta, and clamps by attn_config.clip_qkv (default None)
    "dbrx": {"attn_config": {"rope_theta": 500000.0, "clip_qkv": 8.0}},
    "nemotron": {"num_key_value_heads": 4},   # default None, read as is (modeling_nemotron.py): MHA, 4 heads
    "lfm2_moe": {"layer_types": _LFM2_MOE_LAYERS},
    # HyV4VLTextConfig: mrope_section (default [12, 10, 10]) must sum to qk_rope_head_dim // 2 (8 // 2)
    "hy_v4_vl": {"text_config": {"rope_parameters": {"mrope_section": [2, 1, 1]}}},
    # Dots3NoteConfig: the vision and audio adapters' output width must equal the text hidden size
    "dots3_note": {"vision_config": {"adapter_out_dim": H}, "audio_config": {"adapter_out_dim": H}},
    # Apertus1p5Config: the image + audio token ranges (ending at id 266,440) must lie inside the vocabulary
    "apertus1p5": {"text_config": {"vocab_size": 266440}},
    # ZambaConfig: the shared attention block runs on [hidden, original embeddings] (2 x hidden_size); its
    # default attention_hidden_size = 2 x 3712 is shrunk like any width, so it is set to 2 x 64 (4 heads x 32)
    "zamba": {"attention_hidden_size": 2 * H, "attention_head_dim": 2 * H // 4},
    # Mistral4Config keeps rope_parameters.partial_rotary_factor = 64 / (64 + 64) from its default: a qk_nope
    # equal to qk_rope (8) keeps it true for the shrunk head (q / k heads of 16, 8 of them rotary)
    "mistral4": {"qk_nope_head_dim": 8},
    # LongcatFlashConfig: head_dim is the rotary width (default 64 = qk_rope_head_dim) and qk_head_dim is kept
    # from the default's 128 + 64: both follow the shrunk qk_rope 8 / qk_nope 16
    "longcat_flash": {"qk_head_dim": 24, "head_dim": 8},
    # DeepseekOcr2TextConfig: mlp_layer_types defaults to None and is indexed per layer: DeepSeek's
    # first_k_dense_replace = 1 convention (one dense MLP, then MoE) for its 32 layers
    "deepseek_ocr2": {"text_config": {"mlp_layer_types": _DEEPSEEK_OCR2_MLP}},
    # HunYuanVLTextConfig: head_dim None is read as None (modeling_hunyuan_vl.py: head_dim ** -0.5), and
    # its M-RoPE reads rope_parameters.mrope_section (sum = head_dim 16 // 2)
    "hunyuan_vl": {"text_config": {"head_dim": 16, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                                                       "mrope_section": [2, 3, 3]}}},
    "cohere_compass_text": {"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10000.0}}},
    "cohere_compass": {"text_config": {"rope_parameters": {"full_attention": {"rope_type": "default",
                                                                               "rope_theta": 10000.0}}}},
    # PerceptionLMConfig's default timm tower (resnet50, model_args None) cannot be built: the projector reads
    # vision_config.model_args["embed_dim"] (modeling_perception_lm.py); the tiny model gets the smallest
    # Perception Encoder ViT timm ships, narrowed like any width (the cache is the text model's either way)
    "perception_lm": {"vision_config": {"architecture": "vit_pe_core_tiny_patch16_384",
                                        "model_args": {"embed_dim": H, "depth": 1, "num_heads": 4,
                                                       "img_size": [32, 32]}}},
    # Image inputs (MEDIA): images of 28 x 28 pixels (2 x 2 patches of 14), placeholder ids past the probe's
    # token pool (a real checkpoint's are its first added tokens: Salesforce/blip2-opt-2.7b's 50265)
    **{mt: {"vision_config": {"image_size": 28}, "image_token_index": 100}
       for mt in ("blip-2", "instructblip")},
    "instructblipvideo": {"vision_config": {"image_size": 28}, "video_token_index": 100},
    **{mt: {"vision_config": {"image_size": 28}} for mt in ("idefics", "kosmos-2")},
    # MllamaVisionConfig: the projector's input is the last state and the 5 intermediate layers' (6 x 64)
    "mllama": {"vision_config": {"image_size": 28, "vision_output_dim": 6 * H}},
    "vision-encoder-decoder": {"encoder": {"image_size": 32}},    # ViT: 2 x 2 patches of 16, + CLS
    "pp_formulanet": {"vision_config": {"image_size": 64}},
    "udop": {"image_size": 32},
    "whisper": {"max_source_positions": 8},     # the encoder's output length (1500 by default)
    # Qwen2_5OmniThinkerConfig / Qwen3OmniMoeThinkerConfig lack vision_start_token_id, which the thinker's
    # get_rope_index reads: <|vision_start|>, 151652, as the Talker config's default names it; their M-RoPE
    # falls back to mrope_section [16, 24, 24] (half of head_dim 128): head_dim 16 needs 8
    **{mt: {"vision_start_token_id": 151652, "text_config": {"rope_parameters": {
        "rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [2, 3, 3]}}}
       for mt in ("qwen2_5_omni_thinker", "qwen3_omni_moe_thinker")},
    "chameleon": {"vocabulary_map": {"<image>": 8711}},      # ChameleonImageVocabularyMapping needs a map
    "emu3": {"vocabulary_map": {"<image>": 151851}},
    "reformer": {"is_decoder": True},                         # ReformerModelWithLMHead asserts it
    "step3p7": {"text_config": {"sliding_window": WINDOW}},  # its sliding layers' default window is None
    # modeling_glm4v.py falls back to mrope_section [8, 12, 12] (half of head_dim 64); head_dim 16 needs 8
    **{mt: {"text_config": {"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                                "mrope_section": [2, 3, 3]}}}
       for mt in ("glm46v", "glm4v", "glm_ocr", "glmga")},
    "glm4v_moe": {"text_config": {"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                                      "partial_rotary_factor": 0.5, "mrope_section": [1, 2, 1]}}},
}
_HEAD_DIMS = ("head_dim", "d_kv", "attention_head_dim", "kv_channels")


# The meta-device count of a type whose class default cannot be built: the default plus these fields
# (recorded as "default_fill" beside "default_config"; kvcalc replays the same filled config). Each
# fills only what the default leaves None or inconsistent, with the convention a real config of the
# type uses (head_dim = hidden_size / num_attention_heads; SigLIP-so400m's 16 heads of 72 for 1152).
DEFAULT_FILLS: dict[str, dict[str, Any]] = {
    **{mt: {"head_dim": 128} for mt in ("hunyuan_v1_dense", "hunyuan_v1_moe", "ministral")},  # 4096 / 32
    "dots1": {"n_routed_experts": 128, "num_experts_per_tok": 6, "n_shared_experts": 2},  # Dots1Config: None
    "diffusion_gemma": {"text_config": {"num_experts": 128, "top_k_experts": 8, "moe_intermediate_size": 704}},
    "aya_vision": {"vision_config": {"model_type": "siglip_vision_model", "num_attention_heads": 16}},  # 1152/14
    **{mt: TWEAKS[mt] for mt in ("chameleon", "emu3", "cohere_compass", "cohere_compass_text", "lfm2_moe")},
    "dbrx": {"attn_config": {"rope_theta": 500000.0}},
    "deepseek_ocr2": TWEAKS["deepseek_ocr2"],
    "hunyuan_vl": {"text_config": {"head_dim": 128}},   # 4096 / 32; its default mrope_section stays None
    "nemotron": {"num_key_value_heads": 48},   # None: multi-head, as LlamaConfig reads a missing value
}


def _apportion(parts: list[int], total: int) -> list[int]:
    """``parts`` scaled to sum to ``total`` (largest remainders; each part at least 1 where possible)."""
    scale = total / sum(parts)
    raw = [p * scale for p in parts]
    out = [max(1, int(r)) if total >= len(parts) else int(r) for r in raw]
    order = sorted(range(len(parts)), key=lambda i: raw[i] - int(raw[i]), reverse=True)
    i = 0
    while sum(out) != total and i < 4 * len(parts):
        j = order[i % len(parts)]
        if sum(out) < total:
            out[j] += 1
        elif out[j] > 1:
            out[j] -= 1
        i += 1
    return out


@dataclasses.dataclass(frozen=True)
class Rules:
    """How one recipe shrinks: vocabulary (tokens), hidden width, None-filling, head_dim kept."""

    vocab: int
    hidden: int = H
    fill: bool = False
    keep_head_dim: bool = False


def _small(key: str, value: Any, full: dict, rules: Rules) -> Any:
    """The tiny value for one config field, or ``value`` unchanged (only ever shrinks)."""
    vocab, fill = rules.vocab, rules.fill
    if fill and value is None and key in _FILL_MOE:
        return _FILL_MOE[key]
    if fill and key == "mrope_section" and isinstance(value, list) and not rules.keep_head_dim:
        # multimodal RoPE sections must sum to the rotary half of the (shrunk) head_dim
        half = int(_FIXED["head_dim"] * full.get("partial_rotary_factor", 1.0)) // 2
        return _apportion(value, half)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        # plain nested dicts (per-layer overrides, linear-attention settings): shrink their fields too
        return {k: _small(k, v, value, rules) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        if _FFN.search(key) or _HEADS.match(key) or _KV_HEADS.match(key) or key in ("sliding_window", "window_size"):
            return [_small(key, x, full, rules) for x in value]
        return value
    if value is None and key in ("num_experts_per_tok", "num_experts_per_token") and any(
            isinstance(full.get(k), int) for k in ("n_routed_experts", "num_experts", "num_local_experts")):
        return 2    # DeepseekV2Config's default router picks None experts: give it a top-k
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return value
    if key in _FIXED:
        return min(value, _FIXED[key])
    if _VOCAB.match(key):
        return min(value, vocab)
    if _HIDDEN.match(key):
        return min(value, rules.hidden)
    if _FFN.search(key):
        return min(value, 32 if ("moe" in key or "expert" in key) else 96)
    if _HEADS.match(key):
        return min(value, 4)
    if _KV_HEADS.match(key):
        heads = next((v for k, v in full.items() if _HEADS.match(k) and isinstance(v, int)), None)
        if value == 1:
            return 1
        return 4 if value == heads else min(value, 2)
    return value


def _is_config(obj: Any) -> bool:
    from transformers import PreTrainedConfig

    return isinstance(obj, PreTrainedConfig)


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in extra.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def shrink(config: Any, rules: Rules) -> dict[str, Any]:
    """Constructor kwargs of a tiny copy of ``config``: its non-default fields, widths shrunk."""
    fields = {f.name for f in dataclasses.fields(config)} if dataclasses.is_dataclass(config) else set()
    full = config.to_dict()
    out: dict[str, Any] = {}
    diff = config.to_diff_dict()
    for k in full:
        try:
            v = getattr(config, k, full[k])
        except Exception:  # noqa: BLE001 - 5.x per-layer attributes refuse a global read
            v = full[k]
        if _is_config(v):
            # a timm backbone (TimmWrapperConfig) is built by timm from `architecture` + `model_args`: its
            # widths are no config fields, so it is kept as the default has it (the projector reads its
            # hidden_size, the timm model's feature width)
            out[k] = v.to_dict() if v.model_type == "timm_wrapper" else shrink(v, rules)
            continue
        if k not in fields or k in ("transformers_version", "architectures", "dtype"):
            continue
        new = full[k] if rules.keep_head_dim and k in _HEAD_DIMS else _small(k, full[k], full, rules)
        if new != full[k] or k in diff:
            out[k] = new
    if {"expand", "num_heads", "head_dim"} <= fields and isinstance(full.get("expand"), int):
        # Mamba-2 style mixers: num_heads * head_dim must equal expand * hidden_size
        hidden = out.get("hidden_size", full.get("hidden_size", rules.hidden))
        out["num_heads"] = full["expand"] * hidden // out.get("head_dim", 16)
    kpool = full.get("index_kpool")
    if isinstance(kpool, int) and isinstance(out.get("index_topk"), int) and out["index_topk"] % kpool:
        out["index_topk"] = kpool     # GLM-MoE-DSA: the indexer's top-k is whole pools
    out["model_type"] = config.model_type
    return out


# --------------------------------------------------------------------------- building
def mappings() -> dict[str, list[str]]:
    from transformers.models.auto import modeling_auto as auto

    return {"MODEL_FOR_CAUSAL_LM_MAPPING_NAMES": sorted(auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES),
            "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES": sorted(auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES),
            "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES": sorted(auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES)}


def class_name(model_type: str) -> str:
    """The class measured: tests/hf_reference.py's order (image-text-to-text, seq2seq, causal LM)."""
    from transformers.models.auto import modeling_auto as auto

    return (auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.get(model_type)
            or auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES.get(model_type)
            or auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[model_type])


def model_class(model_type: str) -> Any:
    import transformers

    return getattr(transformers, class_name(model_type))


def default_config(model_type: str, filled: bool = False) -> Any:
    """The config class's default (``filled``: plus DEFAULT_FILLS, for the meta-device count)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    return CONFIG_MAPPING[model_type](**(DEFAULT_FILLS.get(model_type, {}) if filled else {}))


# Tried in order until one builds and runs: "shrink" (widths only), "fill" (+ None fields and
# TWEAKS), "keep-head-dim" (+ the default head_dim: multimodal RoPE sections are sized for it),
# "tiny-models" (tests/tiny_models.py's hand-made config, the 45 ground-truth types only).
RECIPES = ("shrink", "fill", "keep-head-dim", "tiny-models")


def tiny_config(model_type: str, recipe: str = "shrink") -> Any:
    """A tiny config of ``model_type`` by ``recipe`` (see RECIPES): the default's widths shrunk,
    its layer counts and per-layer patterns kept."""
    if recipe == "tiny-models":
        import transformers
        from tiny_models import TINY, TINY_SEQ2SEQ

        if model_type not in TINY and model_type not in TINY_SEQ2SEQ:
            raise ValueError(f"tests/tiny_models.py has no config for {model_type}")
        return transformers.AutoConfig.for_model(model_type, **{**TINY, **TINY_SEQ2SEQ}[model_type])
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    default = default_config(model_type)
    special = _special_ids(default.to_dict(), set())
    vocab = max([128] + [i + 1 for i in special if i < 1_000_000])
    rules = Rules(vocab=vocab, fill=recipe != "shrink")
    if recipe == "keep-head-dim":
        # hidden = 4 heads x the default head_dim, so a derived head_dim keeps its default too
        text = default.get_text_config(decoder=True)
        head_dim = getattr(text, "head_dim", None)
        if not isinstance(head_dim, int):
            head_dim = text.hidden_size // text.num_attention_heads
        rules = dataclasses.replace(rules, keep_head_dim=True, hidden=4 * head_dim)
    kwargs = shrink(default, rules)
    kwargs.pop("model_type")
    if recipe != "shrink":
        kwargs = _merge(kwargs, TWEAKS.get(model_type, {}))
    return CONFIG_MAPPING[model_type](**kwargs)


class Timeout(Exception):
    """The step ran past its time limit."""


class _alarm:
    def __init__(self, seconds: int, what: str) -> None:
        self.seconds, self.what = seconds, what

    def _fire(self, *_: Any) -> None:
        raise Timeout(f"{self.what} ran past {self.seconds} s")

    def __enter__(self) -> None:
        signal.signal(signal.SIGALRM, self._fire)
        signal.alarm(self.seconds)

    def __exit__(self, *_: Any) -> None:
        signal.alarm(0)


def _token_ids(config: Any, n: int, batch: int, gen: Any) -> Any:
    """``batch x n`` ordinary token ids: below 100, never a special (pad, image, ...) id."""
    import torch

    text = config.get_text_config(decoder=True)
    vocab = getattr(text, "vocab_size", None) or 128
    special = _special_ids(config.to_dict(), set())
    pool = [i for i in range(3, min(vocab, 100)) if i not in special]
    idx = torch.randint(0, len(pool), (batch, n), generator=gen)
    return torch.tensor(pool)[idx]


def is_encoder_decoder(model: Any) -> bool:
    """An encoder-decoder model as built: Whisper's config says encoder-decoder, WhisperForCausalLM is not."""
    import inspect

    if getattr(model.config, "use_decoder_only_language_model", False):
        return False     # BLIP-2 / InstructBLIP with a decoder-only language model (OPT, Vicuna)
    return "decoder_input_ids" in inspect.signature(model.forward).parameters


def _required(model: Any, name: str) -> bool:
    import inspect

    param = inspect.signature(model.forward).parameters.get(name)
    return param is not None and param.default is inspect.Parameter.empty


def _cache_of(out: Any) -> Any:
    """The cache a forward returned (``past_key_values``, renamed ``cache`` in 5.x, or the language
    model's own output for BLIP-style wrappers); None when there is none."""
    for holder in (out, getattr(out, "language_model_outputs", None)):
        if holder is None:
            continue
        for name in ("past_key_values", "cache"):
            try:
                value = holder[name] if name in holder else None
            except (TypeError, KeyError):
                value = getattr(holder, name, None)
            if value is not None:
                return value
    return None


def _image(vision: Any, batch: int, gen: Any, dtype: Any, *lead: int) -> Any:
    """``batch x *lead x channels x size x size`` random pixels at the vision config's image size."""
    import torch

    size = vision.image_size if isinstance(vision.image_size, int) else vision.image_size[0]
    return torch.randn(batch, *lead, getattr(vision, "num_channels", 3), size, size, generator=gen).to(dtype)


@dataclasses.dataclass
class Media:
    """What a model reads beside its prompt tokens (images, audio, encoder states), for ``feed``.

    ``first``: extra inputs of the prefill call; ``prefix``: placeholder token ids (``batch x n``) put
    before the prompt's tokens (the image tokens a processor inserts); ``step``: extra inputs of every
    decode call, or a function of the previous output giving them (None: no decode step is run);
    ``used``: what the record's ``inputs`` says about them (shapes, image tokens, encoder tokens);
    ``reencode``: an encoder-decoder whose decode steps get the encoder inputs again instead of a plain
    BaseModelOutput (as RE_ENCODE)."""

    first: dict[str, Any]
    prefix: Any = None
    step: Any = None     # a dict, or a function of the previous call's output giving one
    used: dict[str, Any] = dataclasses.field(default_factory=dict)
    reencode: bool = False


def _blip(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """BLIP-2 / InstructBLIP (-Video): one image (a video: 4 frames, modeling_instructblipvideo.py's
    fixed count), whose ``num_query_tokens`` Q-Former outputs (x frames) replace as many image / video
    placeholder tokens of the prompt (get_placeholder_mask); the image is passed again at every step,
    as ``generate`` does (its forward requires pixel_values)."""
    import torch

    cfg = model.config
    dtype = next(model.parameters()).dtype
    video = cfg.model_type == "instructblipvideo"
    frames = 4 if video else 1
    pixels = _image(cfg.vision_config, batch, gen, dtype, *((frames,) if video else ()))
    n = cfg.num_query_tokens * frames
    token = cfg.video_token_index if video else cfg.image_token_index
    extra: dict[str, Any] = {"pixel_values": pixels}
    if _required(model, "qformer_input_ids"):           # InstructBLIP: the Q-Former reads the prompt too
        extra["qformer_input_ids"] = _token_ids(cfg, prefill, batch, gen)
    return Media(extra, torch.full((batch, n), token), dict(extra),
                 {"pixel_values": list(pixels.shape), "image_tokens": n})


def _idefics(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """IDEFICS: one image per sequence that every text token attends to (image_attention_mask of ones);
    its gated cross-attention runs with ``cache=None`` (modeling_idefics.py: "not implemented"), so the
    image is passed again at every step."""
    import torch

    cfg = model.config
    pixels = _image(cfg.vision_config, batch, gen, next(model.parameters()).dtype, 1)
    first = {"pixel_values": pixels, "image_attention_mask": torch.ones(batch, prefill, 1, dtype=torch.long)}
    step = {"pixel_values": pixels, "image_attention_mask": torch.ones(batch, 1, 1, dtype=torch.long)}
    return Media(first, None, step, {"pixel_values": list(pixels.shape)})


def _kosmos2(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """Kosmos-2: one image whose ``latent_query_num`` embeddings replace the prompt positions flagged by
    image_embeds_position_mask (Kosmos2TextTransformer.forward); later steps pass the image again with
    a mask of zeros (its forward requires pixel_values or image_embeds on every call)."""
    import torch

    cfg = model.config
    pixels = _image(cfg.vision_config, batch, gen, next(model.parameters()).dtype)
    n = cfg.latent_query_num
    mask = torch.cat([torch.ones(batch, n, dtype=torch.long), torch.zeros(batch, prefill, dtype=torch.long)], 1)
    first = {"pixel_values": pixels, "image_embeds_position_mask": mask}
    step = {"pixel_values": pixels, "image_embeds_position_mask": torch.zeros(batch, 1, dtype=torch.long)}
    return Media(first, _token_ids(cfg, n, batch, gen), step, {"pixel_values": list(pixels.shape), "image_tokens": n})


def _mllama(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """Mllama: one image of ``max_num_tiles`` tiles (aspect ratio 1 x 1: the first tile valid, the rest
    padding, as MllamaImageProcessor pads), one <|image|> token first in the prompt that every text
    token's cross_attention_mask lets see it. The vision tower's output (tiles x (patches + 1) tokens,
    MllamaVisionModel.forward; its 8-multiple padding is sliced off) fills the cross-attention layers
    once; decode steps pass only their row of the mask (the cross layers are updated already)."""
    import torch

    cfg = model.config
    vision = cfg.vision_config
    tiles = vision.max_num_tiles
    pixels = _image(vision, batch, gen, next(model.parameters()).dtype, 1, tiles)
    valid = torch.zeros(batch, 1, tiles, dtype=torch.long)
    valid[:, :, 0] = 1
    n_prompt = prefill + 1
    first = {"pixel_values": pixels, "aspect_ratio_ids": torch.ones(batch, 1, dtype=torch.long),
             "aspect_ratio_mask": valid, "cross_attention_mask": valid[:, None].expand(batch, n_prompt, 1, tiles)}
    vision_tokens = tiles * ((vision.image_size // vision.patch_size) ** 2 + 1)
    return Media(first, torch.full((batch, 1), cfg.image_token_index), {"cross_attention_mask": valid[:, None]},
                 {"pixel_values": list(pixels.shape), "image_tokens": 1, "encoder_tokens": vision_tokens})


def _encoder_states(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """A decoder whose cross-attention reads an encoder it does not hold (TrOCRForCausalLM, the decoder of
    a VisionEncoderDecoderModel; WhisperForCausalLM, Whisper's decoder): random encoder states of the
    encoder's length, passed at every step as generate does (the cross layers fill once: is_updated).
    Whisper's encoder yields ``max_source_positions`` states (its mel input of 2x that many frames,
    halved by the second conv); TrOCR's encoder is any ViT: ``ENCODER_TOKENS`` image tokens."""
    import torch

    cfg = model.config
    dtype = next(model.parameters()).dtype
    if cfg.model_type == "whisper":
        n = cfg.max_source_positions
        states = torch.randn(batch, n, cfg.d_model, generator=gen).to(dtype)
        extra: dict[str, Any] = {"encoder_outputs": (states,)}
    else:
        n = ENCODER_TOKENS
        width = cfg.cross_attention_hidden_size or cfg.d_model
        extra = {"encoder_hidden_states": torch.randn(batch, n, width, generator=gen).to(dtype)}
    return Media(extra, None, dict(extra), {"encoder_tokens": n})


def _pix2struct(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """Pix2Struct: ``ENCODER_TOKENS`` flattened patches (row id, column id, then patch_embed_hidden_size
    pixel values: Pix2StructVisionEmbeddings; ids from 1, as Pix2StructImageProcessor numbers them)."""
    import torch

    cfg = model.config
    n = ENCODER_TOKENS
    pixels = torch.randn(batch, n, cfg.vision_config.patch_embed_hidden_size, generator=gen)
    rows = torch.arange(n) // 3 + 1
    cols = torch.arange(n) % 3 + 1
    ids = torch.stack([rows, cols], -1).float().expand(batch, n, 2)
    patches = torch.cat([ids, pixels], -1).to(next(model.parameters()).dtype)
    return Media({"flattened_patches": patches, "attention_mask": torch.ones(batch, n, dtype=torch.long)}, None, {},
                 {"flattened_patches": list(patches.shape)})


def _pixels(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """An image encoder-decoder (VisionEncoderDecoderModel: a ViT encoder; PP-FormulaNet): one image of
    the (shrunk) vision config's size."""
    cfg = model.config
    vision = getattr(cfg, "vision_config", None) or cfg.encoder
    pixels = _image(vision, batch, gen, next(model.parameters()).dtype)
    return Media({"pixel_values": pixels}, None, {}, {"pixel_values": list(pixels.shape)})


def _udop(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """UDOP: ``ENCODER_TOKENS`` text tokens with their boxes (bbox: x0, y0, x1, y1 in [0, 1], the layout
    a processor gives each word) and one image (UdopConfig's image_size); the encoder reads both."""
    import torch

    cfg = model.config
    n = ENCODER_TOKENS
    x0 = torch.arange(n, dtype=torch.float) / (2 * n)
    box = torch.stack([x0, torch.full((n,), 0.1), x0 + 0.05, torch.full((n,), 0.2)], -1).expand(batch, n, 4)
    pixels = torch.randn(batch, cfg.num_channels, cfg.image_size, cfg.image_size, generator=gen).to(
        next(model.parameters()).dtype)
    first = {"input_ids": _token_ids(cfg, n, batch, gen), "attention_mask": torch.ones(batch, n, dtype=torch.long),
             "bbox": box, "pixel_values": pixels}
    # UdopForConditionalGeneration.forward reads encoder_outputs.attention_mask (its own output class)
    return Media(first, None, {}, {"pixel_values": list(pixels.shape), "text_tokens": n}, reencode=True)


def _voxtral_realtime(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """Voxtral Realtime: streaming audio added to the token embeddings position by position
    (VoxtralRealtimeModel.forward: inputs_embeds += audio_embeds), so the prompt's ``prefill`` tokens
    come with ``audio_length_per_tok`` mel frames each (the encoder's conv halves them, the projector
    stacks ``downsample_factor`` of those). Each decode step gets the next token's frames and the audio
    encoder's own streaming caches (encoder_cache, padding_cache) back, as in real-time transcription;
    the record's cache is the text model's."""
    import torch

    cfg = model.config
    dtype = next(model.parameters()).dtype
    mels = cfg.audio_config.num_mel_bins
    features = torch.randn(batch, mels, cfg.audio_length_per_tok * prefill, generator=gen).to(dtype)

    def step(out: Any) -> dict[str, Any]:
        nxt = torch.randn(batch, mels, cfg.audio_length_per_tok, generator=gen).to(dtype)
        return {"input_features": nxt, "encoder_cache": out.encoder_cache, "padding_cache": out.padding_cache}

    return Media({"input_features": features}, None, step, {"input_features": list(features.shape)})


def _omni_thinker(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """Qwen2.5-Omni / Qwen3-Omni thinkers, text only: a plain forward (no cache_position, no rope_deltas)
    recomputes the 3-D M-RoPE positions from the whole attention mask, so each decode step gets its
    position explicitly: a text-only prompt's three rows (temporal, height, width) are all the token's
    index (get_rope_index: rope_deltas 0 without media)."""
    import torch

    seen = [prefill]

    def step(out: Any) -> dict[str, Any]:
        seen[0] += 1
        return {"position_ids": torch.full((3, batch, 1), seen[0] - 1, dtype=torch.long)}

    return Media({}, None, step, {})


def _cpmant(model: Any, batch: int, prefill: int, gen: Any) -> Media:
    """CPM-Ant: its forward puts ``prompt_length`` learned prompt tokens before the input and recomputes
    the whole sequence on every call, keeping only the positions past the cache (CpmAntModel.forward:
    hidden_states[:, past_length:]), so a decode step would take the full sequence again; the cache is
    read after the prefill (prompt_length + prefill tokens in every layer)."""
    return Media({}, None, None, {"prompt_tokens": model.config.prompt_length})


MEDIA: dict[str, Any] = {
    "cpmant": _cpmant,
    "qwen2_5_omni_thinker": _omni_thinker, "qwen3_omni_moe_thinker": _omni_thinker,
    "blip-2": _blip, "instructblip": _blip, "instructblipvideo": _blip, "idefics": _idefics, "kosmos-2": _kosmos2,
    "mllama": _mllama, "trocr": _encoder_states, "whisper": _encoder_states, "pix2struct": _pix2struct,
    "pp_formulanet": _pixels, "vision-encoder-decoder": _pixels, "udop": _udop, "voxtral_realtime": _voxtral_realtime,
}


def feed(model: Any, batch: int, prefill: int, decode: int, encoder_tokens: int) -> tuple[Any, dict[str, Any]]:
    """One prefill forward, then ``decode`` one-token forwards: (the cache the last one returns, the
    inputs used beyond the token ids: encoder tokens, speech features, images, as shapes).

    A type in MEDIA gets its images / audio / encoder states from there (placeholder tokens first in
    the prompt, whose length ``prefill`` then records: the tokens the text model caches); a model that
    requires ``pixel_values`` otherwise gets one random image of its vision config's size and no decode
    steps."""
    import torch
    from transformers.modeling_outputs import BaseModelOutput

    gen = torch.Generator().manual_seed(0)
    cfg = model.config
    dtype = next(model.parameters()).dtype
    first: dict[str, Any] = {}
    used: dict[str, Any] = {}
    ids_key = "input_ids"
    media: Media | None = MEDIA[cfg.model_type](model, batch, prefill, gen) if cfg.model_type in MEDIA else None
    if is_encoder_decoder(model):
        ids_key = "decoder_input_ids"
        if media is not None:
            pass
        elif getattr(cfg, "num_mel_bins", None):    # speech encoders (Whisper-like): features, 2x downsampled
            first["input_features"] = torch.randn(batch, cfg.num_mel_bins, 2 * cfg.max_source_positions,
                                                  generator=gen).to(dtype)
        else:
            first["input_ids"] = _token_ids(cfg, encoder_tokens, batch, gen)
            first["attention_mask"] = torch.ones(batch, encoder_tokens, dtype=torch.long)
            used["encoder_tokens"] = encoder_tokens
    if media is not None:
        first.update(media.first)
        used.update(media.used)
        if media.step is None:
            decode = 0
    elif _required(model, "pixel_values"):
        first["pixel_values"] = _image(cfg.vision_config, batch, gen, dtype)
        decode = 0
    if media is None and _required(model, "qformer_input_ids"):
        first["qformer_input_ids"] = _token_ids(cfg, prefill, batch, gen)
    used.update({k: list(v.shape) for k, v in first.items() if k in ("input_features", "pixel_values")})
    used["decode"] = decode
    ids = _token_ids(cfg, prefill, batch, gen)
    if media is not None and media.prefix is not None:
        ids = torch.cat([media.prefix, ids], dim=1)
        prefill = ids.shape[1]
        used["prefill"] = prefill
    mask_key = "decoder_attention_mask" if ids_key == "decoder_input_ids" else "attention_mask"
    flag: dict[str, Any] = {"use_cache": True}
    if cfg.model_type in PREBUILT_CACHE:
        from transformers import DynamicCache, EncoderDecoderCache

        flag = {"past_key_values": EncoderDecoderCache(DynamicCache(config=cfg), DynamicCache(config=cfg))}
    with torch.no_grad():
        out = model(**{ids_key: ids, mask_key: torch.ones(batch, prefill, dtype=torch.long)}, **flag, **first)
        cache = _cache_of(out)
        if ids_key == "decoder_input_ids" and media is not None:
            # the encoder tokens the cross-attention cache holds (PP-FormulaNet's decoder reads the encoder's
            # pooler_output, shorter than its last_hidden_state): the first filled cross layer's keys
            cross = [layer for layer in cache.cross_attention_cache.layers if getattr(layer, "keys", None) is not None]
            used["encoder_tokens"] = int(cross[0].keys.shape[-2])
        for step in range(decode):
            nxt = _token_ids(cfg, 1, batch, gen)
            extra: dict[str, Any] = {}
            if media is not None:
                extra = media.step(out) if callable(media.step) else dict(media.step or {})
            if ids_key == "decoder_input_ids":
                extra = ({"input_ids": first["input_ids"]} if cfg.model_type in RE_ENCODE else
                         dict(first) if media is not None and media.reencode else
                         {"encoder_outputs": BaseModelOutput(last_hidden_state=out.encoder_last_hidden_state)})
                if "attention_mask" in first:
                    extra["attention_mask"] = first["attention_mask"]
            mask = torch.ones(batch, prefill + step + 1, dtype=torch.long)
            out = model(**{ids_key: nxt, mask_key: mask}, **{**flag, "past_key_values": cache}, **extra)
            cache = _cache_of(out)
    return cache, used


def _json_safe(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=str))


def measure(model_type: str) -> dict[str, Any]:
    """One type's record (see FORMAT); raises on any failure (the caller records it)."""
    import torch
    import transformers
    from cache_probe import layer_storage_bytes, storage_bytes

    start = time.monotonic()
    # the torch build per record: timm types are measured where a torchvision matching torch 2.13 loads
    # (a CUDA build of torch 2.13.0, run on CPU), the rest with the CPU build
    rec: dict[str, Any] = {"status": "measured", "class": class_name(model_type), "torch": torch.__version__}
    cls = model_class(model_type)
    errors: list[str] = []
    # bfloat16 first (shows which states stay float32); float32 where a bf16 model cannot run on CPU
    for recipe, dtype in [(r, DTYPE) for r in RECIPES] + [("shrink", "float32"), ("fill", "float32")]:
        try:
            with _alarm(TINY_TIMEOUT_S, "tiny model build and feed"):
                config = tiny_config(model_type, recipe)
                torch.manual_seed(0)
                built = (getattr(transformers, TEXT_MODEL_FALLBACK[model_type])(config.get_text_config())
                         if model_type in TEXT_MODEL_FALLBACK else cls(config))
                model = built.to(getattr(torch, dtype)).eval()
                cache, used = feed(model, BATCH, PREFILL, DECODE, ENCODER_TOKENS)
            rec["recipe"] = recipe
            break
        except Exception as exc:  # noqa: BLE001 - the next recipe; all failures reported together
            last = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{os.path.basename(last.filename)}:{last.lineno}"
            errors.append(f"{recipe}/{dtype}: {type(exc).__name__}: {str(exc)[:160]} ({where})")
    else:
        raise RuntimeError(" | ".join(" ".join(e.split()) for e in errors))
    if not isinstance(cache, transformers.Cache):
        raise RuntimeError(f"keeps state outside Cache: past_key_values is {type(cache).__name__}")
    layers = layer_storage_bytes(cache)
    if model_type in TEXT_MODEL_FALLBACK:
        rec["class"] = TEXT_MODEL_FALLBACK[model_type]
    rec["config"] = _json_safe((config if model_type in TEXT_MODEL_FALLBACK else model.config).to_dict())
    rec["inputs"] = {"batch": BATCH, "prefill": PREFILL, "dtype": dtype, **used}
    try:
        rec["cached_tokens"] = int(cache.get_seq_length())   # the cache's own count (image tokens included)
    except Exception:  # noqa: BLE001 - not every cache class can say
        rec["cached_tokens"] = None
    inner = getattr(cache, "self_attention_cache", cache)
    rec["cache_class"] = type(cache).__name__
    rec["layer_classes"] = [type(layer).__name__ for layer in getattr(inner, "layers", [])]
    rec["layer_bytes"] = [int(b) for b in layers]
    rec["total_bytes"] = int(storage_bytes(cache))
    del model, cache
    try:
        with _alarm(META_TIMEOUT_S, "default model build on the meta device"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            default = default_config(model_type, filled=True)
            rec["default_config"] = _json_safe(default.to_diff_dict())
            if model_type in DEFAULT_FILLS:
                rec["default_fill"] = _json_safe(DEFAULT_FILLS[model_type])
            with torch.device("meta"):
                big = cls._from_config(default)
            rec["default_params"] = int(sum(p.numel() for p in big.parameters()))
            del big
    except Exception as exc:  # noqa: BLE001 - recorded as a finding
        rec["default_params"] = None
        rec["default_params_error"] = f"{type(exc).__name__}: {exc}"[:300]
    gc.collect()
    rec["seconds"] = round(time.monotonic() - start, 2)
    return rec


def _default_builds(model_type: str) -> str:
    """Whether transformers builds the type's DEFAULT config on the meta device (triage of a failure)."""
    import torch

    try:
        with _alarm(META_TIMEOUT_S, "default model build on the meta device"), torch.device("meta"):
            model_class(model_type)._from_config(default_config(model_type))
        return "the default config builds on the meta device"
    except Exception as exc:  # noqa: BLE001 - part of the finding
        return " ".join(f"the default config fails too: {type(exc).__name__}: {str(exc)[:160]}".split())


def record(model_type: str) -> dict[str, Any]:
    """``measure`` with failures turned into an excluded record carrying the exception text."""
    if model_type in OUT_OF_SCOPE:
        return {"status": "excluded", "reason": OUT_OF_SCOPE[model_type]}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return measure(model_type)
    except Exception as exc:  # noqa: BLE001 - every failure is a recorded finding
        last = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{os.path.basename(last.filename)}:{last.lineno}"
        reason = " ".join(f"failed: {type(exc).__name__}: {str(exc)[:300]} ({where})".split())
        return {"status": "excluded", "reason": reason + "; " + _default_builds(model_type)}
    finally:
        gc.collect()


# --------------------------------------------------------------------------- the fixture file
def all_types() -> list[str]:
    return sorted(set().union(*mappings().values()))


def load(path: str) -> dict[str, Any]:
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def header() -> dict[str, Any]:
    import torch
    import transformers

    return {"transformers": transformers.__version__, "torch": torch.__version__,
            "inputs": {"batch": BATCH, "prefill": PREFILL, "decode": DECODE, "dtype": DTYPE,
                       "encoder_tokens": ENCODER_TOKENS, "window": WINDOW},
            "mappings": mappings()}


def save(path: str, data: dict[str, Any]) -> None:
    """Write atomically: one type per line, so diffs stay readable."""
    tmp = path + ".tmp"
    types = data.get("types", {})
    with open(tmp, "w") as f:
        f.write("{\n")
        for k in ("transformers", "torch", "inputs", "mappings"):
            f.write(f"{json.dumps(k)}: {json.dumps(data[k], sort_keys=True)},\n")
        f.write('"types": {\n')
        f.write(",\n".join(f"{json.dumps(mt)}: {json.dumps(types[mt], sort_keys=True)}" for mt in sorted(types)))
        f.write("\n}\n}\n")
    os.replace(tmp, path)


def run(path: str, only: list[str], restart: bool) -> None:
    data = {} if restart else load(path)
    types = data.get("types", {})
    kept = data.get("torch")
    data.update(header())
    if kept and kept.split("+")[0] == data["torch"].split("+")[0]:
        data["torch"] = kept     # the bulk's build; a record measured with another build names its own
    # resume: a type already in the file is kept, a crash marker included (re-measure it with --only)
    todo = only or [mt for mt in all_types() if mt not in types]
    for mt in todo:
        # marker first: a hard crash (segfault, OOM kill) leaves it, and --resume moves on
        types[mt] = {"status": "excluded", "reason": "crashed: the process died measuring this type"}
        data["types"] = types
        save(path, data)
        print(f"{mt} ...", end=" ", flush=True)
        types[mt] = record(mt)
        r = types[mt]
        print(r["status"], r.get("seconds", ""), r.get("reason", "")[:160], flush=True)
        data["types"] = types
        save(path, data)


def _comparable(rec: dict[str, Any]) -> dict[str, Any]:
    return {k: rec.get(k) for k in ("status", "class", "layer_bytes", "total_bytes", "default_params", "cache_class")}


def sample(path: str, n: int, seed: int) -> int:
    """Re-measure ``n`` measured types from the committed file; print differences; 1 if any drifted."""
    data = load(path)
    measured = sorted(mt for mt, r in data["types"].items() if r["status"] == "measured")
    picked = random.Random(seed).sample(measured, min(n, len(measured)))
    drift = 0
    for mt in picked:
        now, then = _comparable(record(mt)), _comparable(data["types"][mt])
        ok = now == then
        drift += not ok
        print(f"{mt}: {'same' if ok else f'DRIFT committed={then} now={now}'}", flush=True)
    return 1 if drift else 0


def _kvcalc_outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("ok", value) or ("refused", message) for a KVCalcError, ("crashed", message) for anything else."""
    from kvcalc.errors import KVCalcError

    try:
        return "ok", call(*args, **kwargs)
    except KVCalcError as exc:
        return "refused", f"{type(exc).__name__}: {exc}"[:200]
    except Exception as exc:  # noqa: BLE001 - a crash is a kvcalc bug to report
        return "crashed", f"{type(exc).__name__}: {exc}"[:200]


def report(path: str) -> dict[str, Any]:
    """Replay every measured type through kvcalc (read-only use): cache bytes and parameter count.

    Cache: ``kvcalc.kv_cache(config, batch, context=prefill + decode, dtype, runtime="transformers",
    prefill)`` per layer and in total against the measured bytes. Parameters:
    ``kvcalc.count_params(default_config).total`` against the meta-device count."""
    import kvcalc

    data = load(path)
    out: dict[str, Any] = {"kv": {}, "params": {}}
    for mt, rec in sorted(data["types"].items()):
        if rec["status"] != "measured":
            continue
        i = rec["inputs"]
        enc = None if rec["config"].get("num_mel_bins") else i.get("encoder_tokens")
        status, value = _kvcalc_outcome(
            kvcalc.kv_cache, rec["config"], batch=i["batch"], context=i["prefill"] + i["decode"], dtype=i["dtype"],
            runtime="transformers", prefill=i["prefill"], encoder_tokens=enc)
        if status == "ok":
            ours = [layer.bytes for layer in value.layers]
            same = ours == rec["layer_bytes"] and value.total_bytes == sum(rec["layer_bytes"])
            status, value = ("match", None) if same else (
                "differ", f"kvcalc {value.total_bytes} B {ours[:6]} vs measured {sum(rec['layer_bytes'])} B "
                          f"{rec['layer_bytes'][:6]}")
        out["kv"][mt] = [status, value]
        if rec.get("default_params") is None:
            out["params"][mt] = ["unmeasured", rec.get("default_params_error")]
            continue
        cfg = {**rec.get("default_config", {}), "model_type": mt}
        status, value = _kvcalc_outcome(kvcalc.count_params, cfg)
        if status == "ok":
            value = value.total
            status, value = ("match", None) if value == rec["default_params"] else (
                "differ", f"kvcalc {value:,} vs transformers {rec['default_params']:,}")
        out["params"][mt] = [status, value]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default=FIXTURE, help="the coverage JSON file (default: the committed fixture)")
    p.add_argument("--only", action="append", default=[], metavar="TYPE", help="re-measure this type (repeatable)")
    p.add_argument("--restart", action="store_true", help="ignore the existing file; measure everything")
    p.add_argument("--sample", type=int, metavar="N", help="re-measure N types and compare with the file")
    p.add_argument("--seed", type=int, default=0, help="which types --sample picks")
    p.add_argument("--report", action="store_true",
                   help="replay the file through kvcalc; print JSON {kv, params: {type: [outcome, detail]}}")
    args = p.parse_args(argv)
    if args.report:
        sys.path.insert(0, os.path.dirname(TESTS))
        print(json.dumps(report(args.out), indent=1))
        return 0
    import torch
    import transformers

    torch.set_num_threads(1)    # tiny tensors on shared cores: threads only add overhead
    # memory guard: an unshrunk width fails with an allocation error instead of an OOM kill
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, resource.getrlimit(resource.RLIMIT_AS)[1]))
    if transformers.__version__ != TRANSFORMERS_VERSION:
        print(f"warning: transformers {transformers.__version__}, the fixture is for {TRANSFORMERS_VERSION}",
              file=sys.stderr)
    if args.sample is not None:
        return sample(args.out, args.sample, args.seed)
    unknown = [mt for mt in args.only if mt not in all_types()]
    if unknown:
        p.error(f"not in the three mappings: {', '.join(unknown)}")
    run(args.out, args.only, args.restart)
    return 0


if __name__ == "__main__":
    sys.exit(main())
