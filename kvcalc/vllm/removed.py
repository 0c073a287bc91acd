"""Architectures vLLM 0.33 no longer implements itself, and what it does with them (a refusal or its
Transformers backend).

Source (vllm-project/vllm 0.33.0, read, not copied): ``model_executor/models/registry.py``
``_PREVIOUSLY_SUPPORTED_MODELS`` (architecture -> the last release with its own implementation) and
``_ModelRegistry.inspect_model_cls`` / ``_raise_for_unsupported``: an architecture vLLM does not register
falls back to the Transformers modeling backend when transformers' class supports vLLM's attention
interface (``_supports_attention_backend``), else vLLM refuses it at startup with "Model architecture X was
supported in vLLM until vY, and is not supported anymore." Checked with the oracle (tests/oracles/vllm_oracle.py):
MptForCausalLM is refused; PersimmonForCausalLM is taken by the Transformers backend; BambaForCausalLM's
mamba layers cannot dispatch through it ("does not dispatch through the Transformers attention interface").

Encoder-decoders: vLLM 0.33 implements Whisper and NemotronParse only; BART, mBART and Florence-2 are
``_OOT_SUPPORTED_MODELS`` (the out-of-tree https://github.com/vllm-project/bart-plugin); T5 and BART given to
the Transformers backend fail while the model is built (the oracle, t5-small and BartConfig(): "Argument
position_ids not found in the forward method of T5Stack / BartDecoder").
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from ..errors import UnsupportedError
from ..spec import ModelSpec

REMOVED: Mapping[str, str] = MappingProxyType({
    "MotifForCausalLM": "0.10.2", "Phi3SmallForCausalLM": "0.9.2", "Phi4FlashForCausalLM": "0.10.2",
    "Phi4MultimodalForCausalLM": "0.12.0", "JAISLMHeadModel": "0.22.0", "InternLM2VEForCausalLM": "0.23.0",
    "QWenLMHeadModel": "0.23.0", "QwenVLForConditionalGeneration": "0.23.0", "InternLMForCausalLM": "0.23.0",
    "DonutForConditionalGeneration": "0.10.2", "MllamaForConditionalGeneration": "0.10.2",
    "XverseForCausalLM": "0.23.0", "Dots1ForCausalLM": "0.23.0", "BambaForCausalLM": "0.23.0",
    "MiniMaxForCausalLM": "0.23.0", "MiniMaxText01ForCausalLM": "0.23.0", "MiniMaxM1ForCausalLM": "0.23.0",
    "MiniMaxVL01ForConditionalGeneration": "0.23.0", "BaiChuanForCausalLM": "0.23.0",
    "BaichuanForCausalLM": "0.23.0", "AquilaModel": "0.24.0", "AquilaForCausalLM": "0.24.0",
    "Grok1ModelForCausalLM": "0.24.0", "Grok1ForCausalLM": "0.24.0", "TarsierForConditionalGeneration": "0.24.0",
    "Tarsier2ForConditionalGeneration": "0.23.0", "MantisForConditionalGeneration": "0.24.0",
    "MusicFlamingoForConditionalGeneration": "0.24.0", "AyaVisionForConditionalGeneration": "0.24.0",
    "TeleChatForCausalLM": "0.25.0", "PersimmonForCausalLM": "0.25.0", "FuyuForCausalLM": "0.25.0",
    "Plamo2ForCausalLM": "0.26.0", "OuroForCausalLM": "0.26.0", "ArcticForCausalLM": "0.28.0",
    "ChameleonForConditionalGeneration": "0.28.0", "MPTForCausalLM": "0.28.0", "MptForCausalLM": "0.28.0",
    "RWForCausalLM": "0.28.0", "StableLMEpochForCausalLM": "0.28.0",
})
"""vLLM 0.33's ``_PREVIOUSLY_SUPPORTED_MODELS`` (its text-generation entries)."""

TRANSFORMERS_BACKEND = frozenset({
    "Phi4MultimodalForCausalLM", "MllamaForConditionalGeneration", "Dots1ForCausalLM", "MiniMaxForCausalLM",
    "MusicFlamingoForConditionalGeneration", "AyaVisionForConditionalGeneration", "PersimmonForCausalLM",
    "FuyuForCausalLM", "ChameleonForConditionalGeneration",
})
"""The :data:`REMOVED` architectures whose transformers 5.24 class sets ``_supports_attention_backend``
(read with transformers 5.24 installed: ``getattr(transformers, arch)._supports_attention_backend``); the
others are remote code or False (BambaForCausalLM, MptForCausalLM)."""


VLLM_ENCODER_DECODERS = frozenset({"WhisperForConditionalGeneration", "NemotronParseForConditionalGeneration"})
"""The encoder-decoder architectures vLLM 0.33 registers itself (model_executor/models/registry.py)."""

OUT_OF_TREE = frozenset({"BartModel", "BartForConditionalGeneration", "Florence2ForConditionalGeneration",
                         "MBartForConditionalGeneration"})
"""vLLM 0.33's ``_OOT_SUPPORTED_MODELS``: served only with the bart-plugin installed (not modelled here)."""


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


def served_note(architectures: Sequence[str], spec: ModelSpec, vllm_version: str) -> str | None:
    """None when vLLM implements the model itself (or the config names no architecture); a warning when vLLM
    0.33 serves it through its Transformers backend; UnsupportedError, in vLLM's words, when it refuses it.
    The 0.10 rules predate every removal here but Phi3Small's (last in 0.9.2)."""
    if spec.is_encoder_decoder and vllm_version != "0.10" and spec.model_type != "whisper" \
            and not VLLM_ENCODER_DECODERS & set(architectures):
        plugin = next((a for a in architectures if a in OUT_OF_TREE), None)
        how = (f"{plugin} only through the out-of-tree bart-plugin (https://github.com/vllm-project/bart-plugin), "
               "whose cache kvcalc does not model" if plugin else
               "its Transformers backend fails to build encoder-decoder models (T5Stack / BartDecoder)")
        raise UnsupportedError(f"vLLM {vllm_version} serves no encoder-decoder model but Whisper and NemotronParse "
                               f"({how}); plan it with runtime 'transformers'")
    for arch in architectures:
        last = REMOVED.get(arch)
        if last is None or (vllm_version == "0.10" and _version(last) >= (0, 10)):
            continue
        recurrent = any(layer.states for layer in spec.layers)
        if arch in TRANSFORMERS_BACKEND and not recurrent and vllm_version != "0.10":
            return (f"vLLM {vllm_version} has no implementation of its own for {arch} (removed after v{last}): it "
                    "serves it through its Transformers backend, whose layers kvcalc reads as vLLM's own attention "
                    "layers (not checked against that backend)")
        older = " or vllm_version '0.10'" if _version(last) >= (0, 10) else ""
        raise UnsupportedError(f"vLLM {vllm_version} refuses this model: \"Model architecture {arch} was supported in "
                               f"vLLM until v{last}, and is not supported anymore. Please use an older version of vLLM "
                               "if you want to use this model architecture.\" (its Transformers backend cannot run it "
                               f"either); plan it with runtime 'transformers', 'sglang' or 'llama_cpp'{older}")
    return None
