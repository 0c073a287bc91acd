"""The bundled model with the same architecture as a Hub id that is not bundled.

A fine-tuned or chat variant of a base model shares its config's geometry (layers, heads, widths,
vocabulary): ``meta-llama/Llama-3.1-8B-Instruct`` plans with ``meta-llama/Llama-3.1-8B``'s
config.json. :func:`bundled_match` strips the variant suffixes of :data:`VARIANT_SUFFIXES` from the
name (and the bundled ids' names) and compares the org/name stems, case-insensitive; the same
name under another org (``unsloth/Llama-3.1-8B-Instruct``) matches when exactly one bundled model
has that stem. A local path (``/models/Llama-3.1-8B-Instruct``) is matched on its last part. The geometry is
the same; fields outside it may differ (Qwen2.5-7B's ``max_position_embeddings`` is 131,072, its
Instruct's 32,768), which is why the page labels the substitution.
"""
from __future__ import annotations

from dataclasses import dataclass

from .catalog import catalog

VARIANT_SUFFIXES = ("-instruct", "-it", "-chat", "-hf", "-base", "-pt")
"""Name endings that mark a variant of the same architecture (Hugging Face naming conventions)."""
QUANTIZED_SUFFIXES = {"-awq-int4": "int4", "-gptq-int4": "int4", "-awq": "int4", "-gptq": "int4", "-int4": "int4",
                      "-bnb-4bit": "int4", "-4bit": "int4", "-fp8-dynamic": "fp8_e4m3", "-fp8": "fp8_e4m3",
                      "-int8": "int8", "-w8a8": "int8", "-gptq-int8": "int8"}
"""Name endings of quantized re-uploads (hugging-quants, neuralmagic, unsloth naming) and the weights dtype
(kvcalc.dtypes) their checkpoints store: vLLM reads the format from the checkpoint, so the plan must too."""


@dataclass(frozen=True)
class BundledMatch:
    """``hub_id``: the bundled model to plan with; ``label``: says so, for the page."""

    hub_id: str
    label: str
    weights_dtype: str | None = None    # a quantized re-upload's weights (None: the bundled config's own)


def _strip(name: str) -> tuple[str, str | None]:
    """(stem, quantized weights dtype or None): variant and quantization suffixes removed, lower case,
    and a leading 'meta-' (Meta-Llama-3.1-8B is Llama-3.1-8B)."""
    s = name.strip().lower()
    dtype: str | None = None
    changed = True
    while changed:
        changed = False
        for suffix, d in QUANTIZED_SUFFIXES.items():
            if s.endswith(suffix) and len(s) > len(suffix):
                s, dtype, changed = s[: -len(suffix)], dtype or d, True
        for suffix in VARIANT_SUFFIXES:
            if s.endswith(suffix) and len(s) > len(suffix):
                s, changed = s[: -len(suffix)], True
    return s.removeprefix("meta-"), dtype


def stem(name: str) -> str:
    """The lower-case name without its variant suffixes: 'Llama-3.1-8B-Instruct' -> 'llama-3.1-8b'."""
    return _strip(name)[0]


def _split(model_id: str) -> tuple[str, str]:
    parts = [p for p in model_id.strip().replace("\\", "/").split("/") if p]
    if not parts:
        return "", ""
    if model_id.strip().startswith(("/", ".", "~")) or len(parts) > 2:
        return "", parts[-1]          # a local path: only its last part names the model
    return (parts[0].lower(), parts[1]) if len(parts) == 2 else ("", parts[0])


def bundled_match(model_id: str) -> BundledMatch | None:
    """The bundled model of the same architecture as ``model_id`` (module docstring), or None."""
    if not isinstance(model_id, str) or not model_id.strip() or len(model_id) > 300:
        return None
    org, name = _split(model_id)
    if not name:
        return None
    key, dtype = _strip(name)
    same_org, any_org = [], []
    for e in catalog():
        e_org, e_name = e.hub_id.split("/", 1)
        if stem(e_name) == key:
            any_org.append(e.hub_id)
            if e_org.lower() == org:
                same_org.append(e.hub_id)
    found = same_org[0] if len(same_org) == 1 else any_org[0] if len(any_org) == 1 else None
    if found is None or found.lower() == model_id.strip().lower():
        return None
    label = f"planned with {found}'s config: same architecture as {model_id.strip()[:120]}"
    if dtype:
        label += f", weights planned as {dtype} (the name says the checkpoint is quantized)"
    return BundledMatch(found, label, dtype)
