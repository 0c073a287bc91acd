"""The llama.cpp architecture a Hugging Face checkpoint is converted to, and which config fields it reads.

llama.cpp plans the GGUF file, not the config.json: ``convert_hf_to_gguf.py`` (now the ``conversion/``
package) picks one converter class per HF ``architectures`` entry (``@ModelBase.register(...)``), and the
class's ``set_gguf_parameters`` writes only what its llama.cpp architecture reads back in
``src/llama-model.cpp`` ``llama_model::load_hparams``. A field the converted architecture does not read
has no effect on llama.cpp's cache, whatever the config says (ggml-org/llama.cpp, read, not copied):

``conversion/llama.py`` ``LlamaModel``
    registered for ``LlamaForCausalLM``, ``MistralForCausalLM``, ``MixtralForCausalLM`` (and LLaVA /
    Voxtral text towers); ``model_arch = MODEL_ARCH.LLAMA`` and no ``add_sliding_window``: ``LLM_ARCH_LLAMA``
    reads no ``attention.sliding_window``, so Mistral-7B-v0.1's ``sliding_window: 4096`` is dropped and every
    layer is a full layer of ``n_ctx_seq`` cells (one ``llama_kv_cache``, no iSWA cache).
``src/models/phi3.cpp`` ``llama_model_phi3::load_arch_hparams``
    the ``phi3`` architecture (``Phi3ForCausalLM``) reads ``attention.sliding_window`` but switches it off
    ("Phi SWA is currently disabled"; ``swa_type = NONE``, ``n_swa = 0``), so Phi-3-mini's window of 2047
    gives one full cache too (llama.cpp commit 0c1e57098).
``conversion/gemma.py`` ``Gemma2Model`` / ``Gemma3Model``, ``conversion/gpt_oss.py`` ``GptOssModel``
    write ``add_sliding_window`` (gemma2, gemma3, gemma4, gpt-oss read it and build ``llama_kv_cache_iswa``).

Architectures not listed are read as kvcalc reads their config (kvcalc.architectures).

>>> converted_arch({"architectures": ["MistralForCausalLM"]})
LlamaArch(name='llama', sliding_window=False)
>>> converted_arch({"architectures": ["Gemma3ForCausalLM"]}).sliding_window
True
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..spec import LayerSpec, ModelSpec


@dataclass(frozen=True)
class LlamaArch:
    """A llama.cpp architecture (``general.architecture``) and whether it reads a sliding window."""

    name: str
    sliding_window: bool


_LLAMA = LlamaArch("llama", sliding_window=False)
CONVERTED: dict[str, LlamaArch] = {
    "LlamaForCausalLM": _LLAMA, "LLaMAForCausalLM": _LLAMA, "MistralForCausalLM": _LLAMA,
    "MixtralForCausalLM": _LLAMA, "Phi3ForCausalLM": LlamaArch("phi3", sliding_window=False),
    "Gemma2ForCausalLM": LlamaArch("gemma2", sliding_window=True),
    "Gemma3ForCausalLM": LlamaArch("gemma3", sliding_window=True),
    "Gemma3ForConditionalGeneration": LlamaArch("gemma3", sliding_window=True),
    "Gemma4ForConditionalGeneration": LlamaArch("gemma4", sliding_window=True),
    "GptOssForCausalLM": LlamaArch("gpt-oss", sliding_window=True),
}
"""HF ``architectures[0]`` -> the llama.cpp architecture its converter writes (module docstring)."""


_WHY = {"phi3": "src/models/phi3.cpp: Phi SWA is currently disabled"}
"""Where a non-llama architecture drops the window (the note's source)."""


def converted_arch(config: Mapping[str, Any]) -> LlamaArch | None:
    """The llama.cpp architecture ``config``'s checkpoint converts to (None: not in :data:`CONVERTED`)."""
    names = config.get("architectures") or ()
    first = names[0] if isinstance(names, (list, tuple)) and names else None
    return CONVERTED.get(first) if isinstance(first, str) else None


def _full(layer: LayerSpec) -> LayerSpec:
    """``layer`` with its sliding windows dropped (a full layer)."""
    attention = tuple(replace(a, window=None) for a in layer.attention)
    return replace(layer, kind="full" if layer.kind == "sliding" else layer.kind, attention=attention)


def gguf_view(config: Mapping[str, Any], spec: ModelSpec) -> tuple[ModelSpec, str | None]:
    """(``spec`` as llama.cpp reads the converted GGUF, a note when that differs from the config): an
    architecture that reads no sliding window gets full layers."""
    arch = converted_arch(config)
    if arch is None or arch.sliding_window:
        return spec, None
    if not any(a.window is not None for layer in spec.layers for a in layer.attention):
        return spec, None
    why = _WHY.get(arch.name, "convert_hf_to_gguf LlamaModel")
    note = (f"llama.cpp converts {config['architectures'][0]} to its '{arch.name}' architecture, which reads no "
            f"sliding window ({why}): every layer caches the whole context")
    return replace(spec, layers=tuple(_full(layer) for layer in spec.layers),
                   warnings=spec.warnings + (note,)), note
