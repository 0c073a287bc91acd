"""SGLang 0.5.23's multimodal reservations, for tests/oracles/sglang_oracle.py (dev-only; nothing of kvcalc).

The architecture lists are read from the unpacked wheel itself (``python/sglang/srt/configs/model_config.py``,
parsed, not imported: it needs CUDA), the vision tower through transformers as SGLang reads it
(``getattr(hf_config.vision_config, ...)``); each rule cites ``file:line`` of the 0.5.23 wheel::

    SGLANG_SRC=/work/sglang-src/src python tests/oracles/sglang_oracle.py
"""
from __future__ import annotations

import ast
import os
from functools import cache
from typing import Any

SRC = os.environ.get("SGLANG_SRC", "/work/sglang-src/src")
MODEL_CONFIG = os.path.join(SRC, "sglang", "srt", "configs", "model_config.py")
VLM_CACHE_SIZE_MB = 100            # environ.py:1598 SGLANG_VLM_CACHE_SIZE_MB = EnvInt(100)
MM_DISABLED = ("Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration",   # model_config.py:692-697
               "Step3VLForConditionalGeneration", "InklingForConditionalGeneration")


@cache
def _lists() -> dict[str, list[str]]:
    """model_config.py's module-level architecture lists (``*MIMO_V2_MULTIMODAL_ARCHS`` expanded)."""
    with open(MODEL_CONFIG, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    consts: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if isinstance(node.value, (ast.List, ast.Tuple)):
                out: list[str] = []
                for e in node.value.elts:
                    if isinstance(e, ast.Constant):
                        out.append(e.value)
                    elif isinstance(e, ast.Starred) and isinstance(e.value, ast.Name):
                        out.extend(consts.get(e.value.id, []))
                consts[name] = out
    return consts


def is_multimodal(config: dict[str, Any]) -> bool:
    """model_config.py:690-717 (enable_multimodal unset) and :820-827 is_multimodal (default model_impl)."""
    archs = config.get("architectures") or []
    if not archs or archs[0] in MM_DISABLED:
        return False
    if archs[0] in _lists()["MIMO_V2_MULTIMODAL_ARCHS"] and not ("vision_config" in config
                                                                 and "audio_config" in config):
        return False
    return any(a in _lists()["multimodal_model_archs"] for a in archs)            # :2522-2529


def keeps_prefill_graph(config: dict[str, Any]) -> bool:
    """arg_groups/cuda_graph_hook.py:229-239: breakable prefill graph off for a multimodal model outside
    ``multimodal_breakable_cuda_graph_supported_model_archs`` (model_config.py:2501-2516)."""
    archs = config.get("architectures") or []
    return not is_multimodal(config) or any(
        a in _lists()["multimodal_breakable_cuda_graph_supported_model_archs"] for a in archs)


def adjust_mem_fraction_for_vlm(mf: float, config: dict[str, Any]) -> float:
    """arg_groups/memory_hook.py:417-462 (post-capture sizing off, environ.py:640)."""
    from transformers import AutoConfig

    vision = getattr(AutoConfig.for_model(**config), "vision_config", None)
    if vision is None:
        return mf
    layers = getattr(vision, "num_hidden_layers", 24)                            # :436
    hidden = getattr(vision, "hidden_size", 1024)                                # :437
    ratio = layers * hidden ** 2 / (24 * 1024 ** 2)                              # :444-452
    factor = max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))                      # :455-457
    return mf * (0.95 * factor)                                                  # :459-460


def mm_reservation_gb(config: dict[str, Any]) -> float:
    """mem_cache/kv_cache_configurator.py:201-218 mm_runtime_reservation_gb (feature transport cpu)."""
    return VLM_CACHE_SIZE_MB / 1024 if is_multimodal(config) else 0.0


def gemma4_shapes(config: dict[str, Any]) -> dict[str, tuple[int, int]] | None:
    """utils/hf_transformers/config.py:76-146: a Gemma 4 config's (head_dim, kv_heads) per layer type, from
    transformers' per-layer view (full attention -> head_dim / num_key_value_heads, sliding -> swa_*)."""
    tc = config.get("text_config") or config
    if not str(tc.get("model_type", "")).startswith("gemma4"):
        return None
    from transformers import AutoConfig

    text = AutoConfig.for_model(**config).text_config
    shapes: dict[str, tuple[int, int]] = {}
    for i, kind in enumerate(text.layer_types):
        layer = text.per_layer_config[i]
        shapes.setdefault(kind, (layer.head_dim, layer.num_key_value_heads))
    return shapes


@cache
def _class_defaults(key: str) -> dict[str, Any]:
    import json

    from transformers import AutoConfig

    text = AutoConfig.for_model(**json.loads(key)).get_text_config()
    out = {k: v for k, v in text.to_dict().items() if v is not None and k in TEXT_FIELDS}
    out["rope_scaling"] = getattr(text, "rope_scaling", None)   # transformers 5's per-layer-type form (Gemma 3)
    return out


TEXT_FIELDS = ("num_attention_heads", "num_key_value_heads", "head_dim", "hidden_size", "num_hidden_layers",
               "max_position_embeddings", "sliding_window", "layer_types")


def text_class_defaults(config: dict[str, Any]) -> dict[str, Any]:
    """The text config class's values of :data:`TEXT_FIELDS` for a multimodal file, and ``rope_scaling`` as
    transformers rewrites it (``get_context_length`` reads ``rope_scaling.get("factor")`` of that object)."""
    import json

    return _class_defaults(json.dumps(config, sort_keys=True))
