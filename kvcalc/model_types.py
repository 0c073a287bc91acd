"""The model-type registry's public names, kept here for importers: the registry lives in :mod:`kvcalc.models.registry`
(one module of entries per family), the entry type in :mod:`kvcalc.models.model_type`."""
from __future__ import annotations

from .models.model_type import NOT_COUNTED, QUIRKS, Audio, ModelType, Vision
from .models.registry import REGISTRY, lookup, nested, typed

__all__ = ["NOT_COUNTED", "QUIRKS", "REGISTRY", "Audio", "ModelType", "Vision", "lookup", "nested", "typed"]
