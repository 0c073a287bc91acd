"""SGLang 0.5.23's multimodal (VLM) reservations (MiB as SGLang counts them, bytes, GiB = 2**30).

Sources: the 0.5.23 wheel (``python/sglang/srt/``, read, not run; transcribed in tests/oracles/sglang_oracle.py):

- ``configs/model_config.py`` :690-717: ``enable_multimodal`` unset is on, except for
  Gemma3ForConditionalGeneration, Llama4ForConditionalGeneration, Step3VLForConditionalGeneration and
  InklingForConditionalGeneration (served text-only by default) and a MiMoV2ForCausalLM without both
  ``vision_config`` and ``audio_config``; :820-827 ``is_multimodal`` = on and an architecture of
  ``multimodal_model_archs`` (:2391-2473).
- ``arg_groups/memory_hook.py`` :281-339 ``handle_gpu_memory_settings``: a default ``mem_fraction_static`` is
  multiplied by :417-462 ``adjust_mem_fraction_for_vlm``: ``0.95 x clamp(1 - 0.1 x (ratio - 1), 0.8, 1.05)``,
  ``ratio = vit_layers x vit_hidden**2 / (24 x 1024**2)`` (ViT-L/14), the ViT read from ``vision_config``
  (``num_hidden_layers`` / ``hidden_size``, 24 / 1024 when absent).
- ``arg_groups/cuda_graph_hook.py`` :229-239: the breakable prefill CUDA graph is off for a multimodal model not in
  ``multimodal_breakable_cuda_graph_supported_model_archs`` (:2501-2516), so its reserve has no prefill-graph term.
- ``mem_cache/kv_cache_configurator.py`` :201-218 ``mm_runtime_reservation_gb``: ``SGLANG_VLM_CACHE_SIZE_MB``
  (``environ.py`` :1598, 100 MiB) comes off the KV budget (:3034-3038); the 1,024 MiB feature-transport pool
  only with ``--mm-feature-transport cuda_ipc / cuda_vmm`` (unset = cpu on one node).

Not modelled (refused): Qwen3-VL on a Hopper GPU of 60 GiB or more (``model_overrides/qwen3_vl.py``
``large_hopper_qwen3_vl_model_type`` switches its cache, transport and decode graph) and the architectures whose
chunked prefill SGLang switches off (``is_multimodal_chunked_prefill_supported`` :2553-2566).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..units import MiB

MULTIMODAL_ARCHS = frozenset({
    "BailingMM2NativeForConditionalGeneration", "BailingMMNativeForConditionalGeneration",
    "BailingMoeV3VLForConditionalGeneration", "CLIPModel", "Cohere2VisionForConditionalGeneration",
    "Cosmos3EdgeForConditionalGeneration", "DeepseekOCRForCausalLM", "DeepseekVL2ForCausalLM",
    "DiffusionGemmaForBlockDiffusion", "Dots3NoteForCausalLM", "DotsOCRForCausalLM", "DotsVLMForCausalLM",
    "EmbeddingGemma2Model", "Ernie4_5_VLMoeForConditionalGeneration", "Gemma3ForConditionalGeneration",
    "Gemma3nForConditionalGeneration", "Gemma4ForConditionalGeneration", "Gemma4UnifiedForConditionalGeneration",
    "Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration", "Glm5NextForConditionalGeneration",
    "GlmAsrForConditionalGeneration", "GlmImageForConditionalGeneration", "GlmOcrForConditionalGeneration",
    "Grok1AForCausalLM", "Grok1VForCausalLM", "InternS1ForConditionalGeneration",
    "InternS1ProForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "InternVLChatModel", "JetVLMForConditionalGeneration",
    "KimiK25ForConditionalGeneration", "KimiVLForConditionalGeneration", "Lfm2VlForConditionalGeneration",
    "LightOnOCRForConditionalGeneration", "Llama4ForConditionalGeneration", "LlavaForConditionalGeneration",
    "LlavaLlamaForCausalLM", "LlavaMistralForCausalLM", "LlavaQwenForCausalLM", "LlavaVidForCausalLM",
    "LocateAnythingForConditionalGeneration", "MiDashengLMModel", "MiMoV2ASRForCausalLM", "MiMoV2ForCausalLM",
    "MiniCPMO", "MiniCPMV", "MiniMaxM3SparseForConditionalGeneration", "Mistral3ForConditionalGeneration",
    "MllamaForConditionalGeneration", "MossVLForConditionalGeneration", "MultiModalityCausalLM",
    "MuseGlimmerForConditionalGeneration", "MuseSparkForConditionalGeneration", "NVILAForConditionalGeneration",
    "NVILALiteForConditionalGeneration", "NemotronH_Nano_Omni_Reasoning_V3", "NemotronH_Nano_VL_V2",
    "NemotronH_Omni_Reasoning_V3", "POINTSV15ChatModel", "PaddleOCRVLForConditionalGeneration",
    "Phi4MMForCausalLM", "PixtralForConditionalGeneration", "Qwen2AudioForConditionalGeneration",
    "Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration", "Qwen3ASRForConditionalGeneration",
    "Qwen3OmniMoeForConditionalGeneration", "Qwen3VLForConditionalGeneration",
    "Qwen3VLMoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "Qwen4ExpForConditionalGeneration", "Sarashina2VisionForCausalLM", "Step3VLForConditionalGeneration",
    "Step3p7ForConditionalGeneration", "StepVLForConditionalGeneration", "UnlimitedOCRForCausalLM",
    "VoxtralForConditionalGeneration", "WhisperForConditionalGeneration"})
"""``configs/model_config.py`` ``multimodal_model_archs`` (with ``MIMO_V2_MULTIMODAL_ARCHS``)."""

TEXT_ONLY_BY_DEFAULT = frozenset({"Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration",
                                  "Step3VLForConditionalGeneration", "InklingForConditionalGeneration"})
"""``ModelConfig.__init__``'s ``mm_disabled_models``: multimodal only with ``--enable-multimodal``."""

BREAKABLE_PREFILL_GRAPH_ARCHS = frozenset({
    "Cohere2VisionForConditionalGeneration", "Glm5NextForConditionalGeneration",
    "InternS2MobiusForConditionalGeneration", "KimiK25ForConditionalGeneration", "KimiK3ForConditionalGeneration",
    "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration", "MuseGlimmerForConditionalGeneration",
    "MuseSparkForConditionalGeneration", "PaddleOCRVLForConditionalGeneration", "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration", "Qwen4ExpForConditionalGeneration"})
"""``multimodal_breakable_cuda_graph_supported_model_archs``: multimodal models that keep the prefill graph."""

NO_CHUNKED_PREFILL_ARCHS = frozenset({"Grok1VForCausalLM", "Grok1AForCausalLM", "LlavaLlamaForCausalLM",
                                      "MllamaForConditionalGeneration", "MossVLForConditionalGeneration",
                                      "CLIPModel"})
"""``is_multimodal_chunked_prefill_supported``'s list (chunked prefill off: a reserve kvcalc does not model)."""

HOPPER_QWEN3_VL_TYPES = ("qwen3_vl", "qwen3_vl_moe")
"""``model_overrides/qwen3_vl.py`` ``_HOPPER_QWEN3_VL_TYPES``: large-Hopper serving overrides."""

VLM_CACHE_BYTES = 100 * MiB
"""``SGLANG_VLM_CACHE_SIZE_MB`` (environ.py, default 100): the multimodal embedding cache, off the KV budget."""

VIT_BASELINE = (24, 1024)
"""ViT-L/14 (layers, hidden size): ``adjust_mem_fraction_for_vlm``'s baseline and its fallback."""


@dataclass(frozen=True)
class VlmRule:
    """What SGLang reserves for a multimodal model: the ViT ``(layers, hidden)`` that scales a default
    ``mem_fraction_static``, whether the prefill CUDA graph stays on, the embedding cache (bytes)."""

    vit_layers: int
    vit_hidden: int
    prefill_graph: bool
    cache_bytes: int = VLM_CACHE_BYTES

    def mem_fraction(self, mem_fraction_static: float) -> float:
        """``adjust_mem_fraction_for_vlm`` (module docstring).

        >>> round(VlmRule(27, 1152, False).mem_fraction(0.848), 6)  # Gemma 4's SigLIP: ratio 1.423828
        0.771456
        """
        ratio = self.vit_layers * self.vit_hidden ** 2 / (VIT_BASELINE[0] * VIT_BASELINE[1] ** 2)
        factor = max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
        return mem_fraction_static * (0.95 * factor)


def _is_multimodal(config: Mapping[str, Any]) -> bool:
    archs = config.get("architectures") or []
    if not archs or archs[0] in TEXT_ONLY_BY_DEFAULT:
        return False
    if archs[0] == "MiMoV2ForCausalLM" and not ("vision_config" in config and "audio_config" in config):
        return False
    return any(a in MULTIMODAL_ARCHS for a in archs)


def _vit(config: Mapping[str, Any]) -> tuple[int, int]:
    vc = config.get("vision_config")
    if not isinstance(vc, Mapping):
        return VIT_BASELINE
    layers = vc.get("num_hidden_layers")
    if layers is None and vc.get("model_type", "").startswith(("qwen2_vl", "qwen2_5_vl", "qwen3")):
        layers = vc.get("depth")          # the Qwen-VL vision configs' attribute_map: num_hidden_layers -> depth
    return int(layers or VIT_BASELINE[0]), int(vc.get("hidden_size") or VIT_BASELINE[1])


def vlm_rule(config: Mapping[str, Any]) -> VlmRule | None:
    """The reservations SGLang 0.5.23 makes for ``config`` (None: served as a text model).

    >>> vlm_rule({"architectures": ["Gemma3ForConditionalGeneration"]}) is None   # text-only by default
    True
    >>> vlm_rule({"architectures": ["Gemma4ForConditionalGeneration"],
    ...           "vision_config": {"num_hidden_layers": 27, "hidden_size": 1152}})
    VlmRule(vit_layers=27, vit_hidden=1152, prefill_graph=False, cache_bytes=104857600)
    """
    if not _is_multimodal(config):
        return None
    archs = config.get("architectures") or []
    layers, hidden = _vit(config)
    return VlmRule(layers, hidden, prefill_graph=any(a in BREAKABLE_PREFILL_GRAPH_ARCHS for a in archs))


def unmodelled_vlm(config: Mapping[str, Any], gpu_name: str, gpu_mib: float) -> str | None:
    """Why SGLang's VLM serving of ``config`` on that GPU is not modelled (None: it is)."""
    if not _is_multimodal(config):
        return None
    archs = config.get("architectures") or []
    if any(a in NO_CHUNKED_PREFILL_ARCHS for a in archs):
        return f"{archs[0]} runs without chunked prefill in SGLang (is_multimodal_chunked_prefill_supported)"
    model_type = str(config.get("model_type", ""))
    hopper = any(k in gpu_name.lower() for k in ("h100", "h200", "h20", "h800", "gh200"))
    if model_type in HOPPER_QWEN3_VL_TYPES and hopper and gpu_mib >= 60 * 1024:
        return ("Qwen3-VL on a Hopper GPU of 60 GiB or more gets SGLang's large-Hopper overrides "
                "(model_overrides/qwen3_vl.py: embedding cache off, cuda_ipc feature pool, decode graph)")
    return None
