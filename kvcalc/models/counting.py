"""Exact parameter counts from a config.json, without torch: the entry point and the table of counters.

:func:`count_params` returns what ``sum(p.numel() for p in model.parameters())`` gives for the
model transformers builds from the config (``AutoModelForCausalLM``; the ``...ForConditionalGeneration``
class for multimodal and encoder-decoder models), split into parts. Fields a config omits take the
defaults of the transformers config class, as transformers itself does. Tied weights are counted once.

What is *not* counted, because transformers does not hold it as a parameter:

* buffers: rotary ``inv_freq``, GPT-2 causal masks, DeepSeek-V3 ``e_score_correction_bias``
  (``n_routed_experts`` float32 values per MoE layer), Gemma's ``embed_scale``;
* layers a checkpoint holds but transformers does not build: DeepSeek-V3's multi-token-prediction
  layer (``num_nextn_predict_layers``), which the Hub safetensors totals include;
* quantization side tensors (FP8 ``weight_scale_inv``, MXFP4 scales): counts are of the
  unquantized architecture. ``moe_experts`` says how many parameters are routed experts, so a
  caller can size e.g. gpt-oss's MXFP4 experts separately from its bf16 rest.

Notation in the docstrings: ``H`` hidden size, ``V`` vocab size, ``L`` layers, ``I`` MLP width,
``n_q`` / ``n_kv`` query / key-value heads, ``d`` head dim, ``E`` routed experts, ``k`` experts per token.
A linear layer ``a -> b`` has ``a*b`` weights (+ ``b`` with bias).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, cast

from ..config import ConfigReader
from ..errors import UnsupportedError
from .architecture_names import with_model_types
from .audio import audio_wrapper, granite_speech, nemo_speechlm, omni_thinker, vibevoice_asr, voxtral_realtime, whisper
from .classic_decoders import (
    bloom,
    cpmant,
    doge,
    dory,
    falcon,
    gpt2,
    gpt_neox,
    gpt_neox_japanese,
    hrm_text,
    modernbert_decoder,
    opt,
)
from .counts import Decoder, ParamCount, Tally
from .deepseek import deepseek, deepseek_ocr2, deepseek_v4, longcat_flash, mistral_large4_text
from .dots3 import dots3_note, dots3_note_text
from .gemma import diffusion_gemma, gemma3, gemma3n, gemma3n_text, gemma4_text, gemma4_unified
from .hybrids import glm5_next, inkling2, inkling2_text, inkling_text, kda_hybrid, lfm2, lfm3_vl, olmo_hybrid
from .llama import llama_like
from .moe_decoders import axk2, dbrx, ernie4_5_vl_moe_text, hunyuan_vl, hy_v4, jetmoe, step3p5
from .multimodal import (
    apertus1p5,
    blip2,
    chameleon,
    emu3,
    florence2,
    fuyu,
    git,
    idefics,
    kosmos2,
    mllama,
    molmo2_text,
    multimodal,
    muse_spark,
    muse_spark_text,
    muse_text,
    phi4_multimodal,
)
from .protein import evolla
from .registry import REGISTRY, lookup, typed
from .seq2seq import (
    bart,
    encoder_decoder,
    kosmos2_5,
    nllb_moe,
    pix2struct,
    pp_formulanet,
    prophetnet,
    switch_transformers,
    t5,
    t5gemma,
    t5gemma2,
    trocr,
    udop,
    vision_encoder_decoder,
)
from .ssm import jamba, mamba, mamba2, mamba2_hybrid, nemotron_h, zamba, zaya
from .subconfigs import text_only
from .task_heads import sequence_classification
from .unread import PARAM_FIELDS
from .wrappers import COUNTERS_BY_FAMILY, untied_wrapper

WRAPPERS: dict[str, Callable[[Decoder, ConfigReader, Tally], None]] = {
    "audio": audio_wrapper, "t5gemma": t5gemma, "t5gemma2": t5gemma2, "granite_speech": granite_speech,
    "vibevoice_asr": vibevoice_asr}
"""families that count a nested text decoder with the counter kvcalc.models.counting binds first (``decoder``)."""


# parameter-count family (a registry entry's ``params``) -> counter
COUNTERS: dict[str, Callable[[ConfigReader, Tally], None]] = {
    "llama_like": llama_like,
    "deepseek": deepseek,
    "gpt2": gpt2,
    "gpt_neox": gpt_neox,
    "falcon": falcon,
    "bloom": bloom,
    "gpt_neox_japanese": gpt_neox_japanese,
    "modernbert_decoder": modernbert_decoder,
    "opt": opt,
    "mamba": mamba,
    "mamba2": mamba2,
    "mamba2_hybrid": mamba2_hybrid,
    "lfm2": lfm2,
    "nemotron_h": nemotron_h,
    "gemma4_text": gemma4_text,
    "gemma3n_text": gemma3n_text,
    "jetmoe": jetmoe,
    "doge": doge,
    "fuyu": fuyu,
    "hrm_text": hrm_text,
    "jamba": jamba,
    "t5": t5,
    "gemma3": gemma3,
    "mllama": mllama,
    "multimodal": multimodal,
    "dbrx": dbrx,
    "longcat_flash": longcat_flash,
    "axk2": axk2,
    "hy_v4": hy_v4,
    "dots3_note_text": dots3_note_text,
    "hunyuan_vl": hunyuan_vl,
    "dots3_note": dots3_note,
    "emu3": emu3,
    "deepseek_v4": deepseek_v4,
    "inkling2": inkling2,
    "inkling2_text": inkling2_text,
    "inkling_text": inkling_text,
    "mistral_large4_text": mistral_large4_text,
    "chameleon": chameleon,
    "dory": dory,
    "diffusion_gemma": diffusion_gemma,
    "gemma4_unified": gemma4_unified,
    "untied_wrapper": untied_wrapper,
    "apertus1p5": apertus1p5,
    "florence2": florence2,
    "git": git,
    "ernie4_5_vl_moe_text": ernie4_5_vl_moe_text,
    "deepseek_ocr2": deepseek_ocr2,
    "evolla": evolla,
    "muse_spark": muse_spark,
    "phi4_multimodal": phi4_multimodal,
    "muse_spark_text": muse_spark_text,
    "muse_text": muse_text,
    "molmo2_text": molmo2_text,
    "step3p5": step3p5,
    "nemo_speechlm": functools.partial(nemo_speechlm, nemotron_h),
    "encoder_decoder": functools.partial(encoder_decoder, {"gpt2": gpt2}),
    "kda_hybrid": kda_hybrid,
    "lfm3_vl": lfm3_vl,
    "zamba": zamba,
    "olmo_hybrid": olmo_hybrid,
    "zaya": zaya,
    "glm5_next": glm5_next,
    "blip2": blip2,
    "udop": udop,
    "pix2struct": pix2struct,
    "omni_thinker": omni_thinker,
    "voxtral_realtime": voxtral_realtime,
    "vision_encoder_decoder": vision_encoder_decoder,
    "pp_formulanet": pp_formulanet,
    "idefics": idefics,
    "kosmos2": kosmos2,
    "cpmant": cpmant,
    "gemma3n": gemma3n,
    "bart": bart,
    "whisper": whisper,
    "trocr": trocr,
    "prophetnet": prophetnet,
    "switch_transformers": switch_transformers,
    "nllb_moe": nllb_moe,
    "kosmos2_5": kosmos2_5,
    **{family: functools.partial(fn, llama_like) for family, fn in WRAPPERS.items()},
}
COUNTERS_BY_FAMILY.update(COUNTERS)   # the wrappers count their text decoders through it


SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(sorted(
    name for name in REGISTRY if (entry := lookup(name)) is not None and entry.params is not None))


def count_params(config: Mapping[str, Any]) -> ParamCount:
    """The exact parameter count of the model transformers builds from ``config`` (a config.json dict).

    Raises :class:`ConfigError` for unusable fields and :class:`UnsupportedError` for model types
    whose modules are not counted here (see :data:`SUPPORTED_MODEL_TYPES`): no estimate is ever guessed.

    >>> count = count_params({"model_type": "llama"})   # LlamaConfig's defaults: the Llama-2-7B shape
    >>> count.total, count.embedding, count.lm_head     # 6.74 B, as Meta's model card; V*H = 32000 * 4096 twice
    (6738415616, 131072000, 131072000)
    """
    config, inferred = with_model_types(config)   # no model_type: the one its architectures class reads
    top = ConfigReader(config)
    model_type = top.opt_str("model_type")
    if not model_type:
        raise UnsupportedError("parameter counting needs the config's model_type, or an architectures class "
                               "transformers defines: this config names neither")
    entry = lookup(model_type)
    if entry is None or entry.params is None:
        reason = entry.not_countable if entry is not None else "kvcalc does not know this model type"
        raise UnsupportedError(f"parameter counting is not implemented for model_type '{model_type}': {reason} "
                               f"({len(SUPPORTED_MODEL_TYPES)} model types are counted: "
                               "kvcalc.models.SUPPORTED_MODEL_TYPES, docs/architectures.md)")
    family = entry.params
    if text_only(top, entry) and entry.text_type is not None:
        text_entry = lookup(entry.text_type)    # the file names the text-only class: count that model alone
        if text_entry is not None and text_entry.params is not None:
            entry, family = text_entry, text_entry.params
    tally = Tally()
    fields = typed(top, entry.name)
    COUNTERS[family](fields, tally)
    sequence_classification(top, fields, entry, tally)
    parts = tally.parts
    total = sum(parts.values())
    return ParamCount(
        model_type=model_type, total=total, **cast(dict[str, Any], parts), tied_embeddings=tally.tied,
        moe_experts=tally.moe_experts,
        active_count=None if tally.null_top_k else total - tally.moe_experts + tally.moe_active,
        active_refused=tally.null_top_k, active_reason=tally.active_reason, fields_used=tuple(top.used),
        defaults_used=tuple(fields.defaults_used), quality="estimated" if inferred else "exact",
    )


PARAM_FIELDS.append(lambda config: count_params(config).fields_used)   # the KV label check reads them
