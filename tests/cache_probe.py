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
    layers = getattr(cache, "layers", None)
    if layers is None:
        return [storage_bytes(cache)]
    return [storage_bytes(layer) for layer in layers]


def feed(model, *, batch: int, prefill: int, decode: int, encoder_tokens: int | None = None, extra=None):
    """Run one prefill forward of ``prefill`` tokens then ``decode`` one-token forwards; return the cache."""
    g = torch.Generator().manual_seed(0)
    vocab = model.config.get_text_config(decoder=True).vocab_size
    ids = torch.randint(3, min(vocab, 100), (batch, prefill), generator=g)
    kwargs = dict(extra or {})
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True, **kwargs)
        cache = out.past_key_values
        for _ in range(decode):
            nxt = torch.randint(3, min(vocab, 100), (batch, 1), generator=g)
            step_kwargs = {k: v for k, v in kwargs.items() if k in ("encoder_outputs",)}
            out = model(input_ids=nxt, past_key_values=cache, use_cache=True, **step_kwargs)
            cache = out.past_key_values
    return cache
