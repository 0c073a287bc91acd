"""The reference stack: build a config's model with transformers on the meta device.

Shared by the parameter-count tests and the benchmark ("from config vs meta device"). Raises
:class:`NotBuildable` (with the reason) when transformers itself cannot build the config.
"""
from __future__ import annotations

import warnings


class NotBuildable(Exception):
    """transformers has no class for, or rejects, this config."""


def hf_config(cfg: dict):
    """The transformers config object for a config.json dict (no trust_remote_code)."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    fields = {k: v for k, v in cfg.items() if k not in ("model_type", "auto_map", "quantization_config")}
    model_type = cfg["model_type"]
    if model_type not in CONFIG_MAPPING:
        # e.g. kimi_k2: a Hub model_type transformers builds with the class its `architectures` names
        arch = next((getattr(transformers, a, None) for a in cfg.get("architectures") or []), None)
        if arch is None:
            raise NotBuildable(f"transformers {transformers.__version__} has no config class for '{model_type}'")
        model_type = arch.config_class.model_type
    try:
        return transformers.AutoConfig.for_model(model_type, **fields)
    except Exception as exc:  # noqa: BLE001 - transformers' config class rejects this config
        raise NotBuildable(f"transformers {transformers.__version__} rejects this config: {exc!r:.200}") from exc


def meta_model(cfg: dict):
    """The model transformers builds for ``cfg`` on the meta device (no memory, no download)."""
    import torch
    import transformers
    from transformers.models.auto import modeling_auto as auto

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = hf_config(cfg)
        mt = config.model_type
        class_name = (auto.MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.get(mt)
                      or auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES.get(mt)
                      or auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(mt))
        if class_name is None:
            raise NotBuildable(f"transformers {transformers.__version__} has no causal-LM class for '{mt}'")
        try:
            with torch.device("meta"):
                return getattr(transformers, class_name)._from_config(config)
        except Exception as exc:  # noqa: BLE001 - transformers itself cannot build this config
            raise NotBuildable(f"transformers {transformers.__version__} cannot build {class_name}: "
                               f"{exc!r:.200}") from exc
