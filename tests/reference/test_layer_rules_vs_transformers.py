"""For every real config: kvcalc's per-layer kinds and windows == the cache layers transformers builds.

transformers turns a config into cache layers with ``get_layer_types_and_kwargs`` (after each
config class's own ``__post_init__`` rules). This checks the official files as published (e.g.
Gemma 3's minimal files that rely on class defaults), not only configs transformers wrote.
"""
from __future__ import annotations

import os
import warnings

import pytest

transformers = pytest.importorskip("transformers")
from paths import load_json, reference_configs  # noqa: E402
from transformers.cache_utils import get_layer_types_and_kwargs  # noqa: E402

import kvcalc  # noqa: E402

_KIND = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked",
         "indexed_attention": "full", "dummy": "shared", "linear_attention": "linear"}
# transformers' "linear_attention" cache layers are kvcalc's recurrent kinds (gated-DeltaNet "linear", Mamba
# "mamba"); its "dummy" layers (no cache: Nemotron-H's MLP / MoE blocks) are kvcalc's "none" or "shared"
_SAME = {("linear", "mamba"), ("shared", "none")}


def transformers_text_config(cfg: dict):
    fields = {k: v for k, v in cfg.items() if k not in ("model_type", "auto_map", "quantization_config")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Kimi K2 checkpoints name their own model_type; transformers builds them as DeepSeek-V3
        model_type = {"kimi_k2": "deepseek_v3"}.get(cfg["model_type"], cfg["model_type"])
        tf = transformers.AutoConfig.for_model(model_type, **fields)
    return tf.get_text_config(decoder=True)


@pytest.mark.parametrize("path", reference_configs(), ids=os.path.basename)
def test_layer_kinds_match_transformers(path):
    cfg = load_json(path)
    spec = kvcalc.read_spec(cfg)
    if spec.is_encoder_decoder:
        pytest.skip("encoder-decoder: every decoder layer is full self-attention + cross-attention")
    text = transformers_text_config(cfg)
    types, kwargs = get_layer_types_and_kwargs(text)
    cross = set(getattr(text, "cross_attention_layers", None) or [])
    ours = [(l.kind, l.attention[0].window if l.attention else None) for l in spec.layers]
    theirs = []
    for i, (t, kw) in enumerate(zip(types, kwargs)):
        kind = "cross" if i in cross else _KIND[t]
        if kind == "full" and spec.layers[i].kind == "mla":
            kind = "mla"
        if (kind, spec.layers[i].kind) in _SAME:
            kind = spec.layers[i].kind
        theirs.append((kind, kw.get("sliding_window")))
    assert ours == theirs
    attn = next(l.attention[0] for l in spec.layers if l.attention)
    if getattr(text, "per_layer_config", None):     # heterogeneous (Gemma 4): no global head count to compare
        return
    if not attn.latent_dim:
        assert attn.kv_heads == getattr(text, "num_key_value_heads", text.num_attention_heads)
        head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
        assert attn.k_head_dim == head_dim


@pytest.mark.parametrize("model_type", ["llama", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "mistral", "gemma",
                                        "gemma2", "gemma3_text", "starcoder2", "gpt_oss", "stablelm", "olmo2"])
def test_missing_kv_heads_default_like_transformers(model_type):
    cfg = {"model_type": model_type, "num_attention_heads": 64, "hidden_size": 8192, "num_hidden_layers": 2,
           "head_dim": 128}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = transformers.AutoConfig.for_model(**cfg).num_key_value_heads
    spec = kvcalc.read_spec(cfg)
    assert spec.layers[0].attention[0].kv_heads == expected
