"""Ground-truth probe: build a tiny random-init transformers model and measure its real cache.

Used by the ground-truth tests only (needs the dev stack: torch + transformers).
Bytes are counted per distinct storage (a view keeps its whole base tensor alive), so the
figure is the memory the cache really pins, not the logical size of its views.
"""
from __future__ import annotations

import torch


def _tensors(obj, seen_objs, out, depth=0):
    if depth > 6 or id(obj) in seen_objs:
        return
    seen_objs.add(id(obj))
    if isinstance(obj, torch.Tensor):
        out.append(obj)
        return
    if isinstance(obj, (list, tuple, set)):
        for item in obj:
            _tensors(item, seen_objs, out, depth + 1)
        return
    if isinstance(obj, dict):
        for item in obj.values():
            _tensors(item, seen_objs, out, depth + 1)
        return
    if isinstance(obj, (int, float, str, bool, type(None), torch.device, torch.dtype)):
        return
    if hasattr(obj, "__dict__"):
        for item in vars(obj).values():
            _tensors(item, seen_objs, out, depth + 1)


def storage_bytes(obj) -> int:
    """Bytes of every distinct tensor storage reachable from ``obj``."""
    found: list[torch.Tensor] = []
    _tensors(obj, set(), found)
    storages = {}
    for t in found:
        s = t.untyped_storage()
        storages[s.data_ptr(), s.device] = s.nbytes()
    return sum(storages.values())


def layer_storage_bytes(cache) -> list[int]:
    """Storage bytes per decoder layer; encoder-decoder caches add self- and cross-attention,
    MiniMax's cache adds its separate ``linear_cache`` list."""
    if hasattr(cache, "self_attention_cache"):
        own = layer_storage_bytes(cache.self_attention_cache)
        cross = layer_storage_bytes(cache.cross_attention_cache)
        return [a + b for a, b in zip(own, cross)]
    layers = list(getattr(cache, "layers", []))
    linear = list(getattr(cache, "linear_cache", []))
    n = max(len(layers), len(linear))
    return [(storage_bytes(layers[i]) if i < len(layers) else 0) + (storage_bytes(linear[i]) if i < len(linear) else 0)
            for i in range(n)]


def feed(model, *, batch: int, prefill: int, decode: int, encoder_tokens: int = 0, cache=None):
    """Run one prefill forward of ``prefill`` tokens then ``decode`` one-token forwards; return the cache.

    Encoder-decoder models get ``encoder_tokens`` encoder inputs (token ids, or Whisper features
    that the encoder downsamples 2x); Mllama's text model gets that many cross-attention states.
    ``cache``: a cache to fill (a ``StaticCache``); default: the model's own (``DynamicCache``).
    """
    g = torch.Generator().manual_seed(0)
    cfg = model.config
    vocab = cfg.get_text_config(decoder=True).vocab_size
    dtype = next(model.parameters()).dtype
    first: dict = {}
    ids_key = "input_ids"
    if cfg.is_encoder_decoder:
        ids_key = "decoder_input_ids"
        if cfg.model_type == "whisper":
            first["input_features"] = torch.randn(batch, cfg.num_mel_bins, 2 * encoder_tokens, generator=g).to(dtype)
        else:
            first["input_ids"] = torch.randint(3, min(vocab, 100), (batch, encoder_tokens), generator=g)
    elif cfg.model_type == "mllama_text_model":
        first["cross_attention_states"] = torch.randn(batch, encoder_tokens, cfg.hidden_size, generator=g).to(dtype)
    ids = torch.randint(3, min(vocab, 100), (batch, prefill), generator=g)
    with torch.no_grad():
        if cache is not None:
            first["past_key_values"] = cache
        out = model(**{ids_key: ids}, use_cache=True, **first)
        cache = out.past_key_values
        for _ in range(decode):
            nxt = torch.randint(3, min(vocab, 100), (batch, 1), generator=g)
            extra = {"encoder_outputs": (out.encoder_last_hidden_state,)} if cfg.is_encoder_decoder else {}
            out = model(**{ids_key: nxt}, past_key_values=cache, use_cache=True, **extra)
            cache = out.past_key_values
    return cache
