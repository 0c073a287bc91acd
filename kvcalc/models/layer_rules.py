"""Layer rules: the per-layer type list a config class derives in ``__post_init__`` when the config gives no
``layer_types`` (one function per derivation; a registry entry's ``layer_rule``)."""
from __future__ import annotations

from collections.abc import Callable

from ..config import ConfigReader
from ..errors import ConfigError
from .model_type import LayerRule


def every(period: int, on: str, off: str) -> Callable[[int], list[str]]:
    """n -> ``on`` for every ``period``-th layer (``(i + 1) % period == 0``), ``off`` for the others."""
    return lambda n: [on if (i + 1) % period == 0 else off for i in range(n)]


def fixed_pattern(period: int) -> LayerRule:
    """Every ``period``-th layer full, the others sliding (Olmo 3: 4; Gemma 3n: 5; Gemma 4: 6)."""
    return lambda r, n, window: every(period, "full_attention", "sliding_attention")(n)


def field_pattern(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Every ``sliding_window_pattern``-th layer full (Gemma 3, Cohere 2, EXAONE 4)."""
    return every(r.get_int("sliding_window_pattern"), "full_attention", "sliding_attention")(n)


def qwen_window(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Qwen2/3: with use_sliding_window and a window, layers from ``max_window_layers`` on slide."""
    if not r.get_bool("use_sliding_window", default=False) or window is None:
        return ["full_attention"] * n
    mwl = r.get_int("max_window_layers", minimum=0)
    return ["sliding_attention" if i >= mwl else "full_attention" for i in range(n)]


def window_all(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Qwen3-MoE: the config class keeps ``sliding_window`` only with use_sliding_window, and then
    transformers' generic rule windows every layer (``max_window_layers`` is not a field)."""
    slide = r.get_bool("use_sliding_window", default=False) and window is not None
    return ["sliding_attention" if slide else "full_attention"] * n


def qwen2_moe_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Qwen2-MoE: even-numbered layers below ``max_window_layers`` slide, with use_sliding_window."""
    use = r.get_bool("use_sliding_window", default=False)
    mwl = r.get_int("max_window_layers", minimum=0)
    return ["sliding_attention" if (i + 1) % 2 and i < mwl and use else "full_attention" for i in range(n)]


def linear_interval(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Qwen3-Next: every ``full_attention_interval``-th layer full, the others linear attention."""
    return every(r.get_int("full_attention_interval"), "full_attention", "linear_attention")(n)


def kimi_linear_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Kimi Linear: ``linear_attn_config.full_attn_layers`` (1-indexed) full, the others linear; without
    it every 4th layer from layer 4 (``i and i % 4 == 0``) is full (``KimiLinearConfig.__post_init__``, which
    reads the lists only when kda_layers is given too)."""
    lac = r.sub("linear_attn_config")
    if lac is None or not lac.has("full_attn_layers") or not lac.has("kda_layers"):
        return ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(n)]
    full = set(lac.get_int_list("full_attn_layers", default=[], minimum=1))
    return ["full_attention" if i + 1 in full else "linear_attention" for i in range(n)]


def lfm3_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """LFM3: layer ``i % 4 == 2`` full, ``i % 4 == 0`` (not 0) sliding, the others short convolutions
    (``Lfm3Config.__post_init__``)."""
    return ["full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i else "conv"
            for i in range(n)]


def lara_mini_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Lara-Mini: the released period-5 pattern linear, sliding, linear, full, sliding
    (``LaraMiniConfig.__post_init__``)."""
    pattern = ("linear_attention", "sliding_attention", "linear_attention", "full_attention", "sliding_attention")
    return [pattern[i % 5] for i in range(n)]


def olmo_hybrid_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """OLMo Hybrid: every 4th layer (``i % 4 == 3``) full, the others gated DeltaNet; with no full layer
    the last is full (``OlmoHybridConfig.__post_init__``)."""
    types = ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(n)]
    if "full_attention" not in types and types:
        types[-1] = "full_attention"
    return types


def inkling_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Inkling: the layers in ``local_layer_ids`` (default: all but every 6th) sliding hybrids, the others
    full hybrids (``InklingConfig`` / ``Inkling2Config.__post_init__``; Inkling 2 has no local_layer_ids)."""
    local = set(r.get_int_list("local_layer_ids", default=[i for i in range(n) if (i + 1) % 6]))
    return ["hybrid_sliding" if i in local else "hybrid" for i in range(n)]


def dory_cache_types(r: ConfigReader, types: list[str]) -> list[str]:
    """Dory: the cache layer types transformers 5.24 builds, from the config's layer types.

    ``DoryConfig.__post_init__``: a layer_types that lists "mlp" blocks (the released ``config.json`` layout,
    ``to_dict``) is halved, ``types[::2]``, as are ``n_input_layers`` / ``n_recurrent_layers`` /
    ``n_output_layers`` (the recurrent count, when null, is the rest). ``DoryModel.forward`` with
    ``recurrent_kv_cache_mode == "per_loop"`` appends ``cache.layers[n_in : n_in + n_rec] * (loops - 1)``
    (deep copies: each further loop writes its own), so those layers' caches repeat; "last_loop" reuses the
    first loops' keys without writing them (``shared_kv_states``): no extra layers."""
    n_in, n_out = r.get_int("n_input_layers", minimum=0), r.get_int("n_output_layers", minimum=0)
    n_rec = r.nullable_int("n_recurrent_layers")
    if "mlp" in types:
        types, n_in, n_out = types[::2], n_in // 2, n_out // 2
        n_rec = None if n_rec is None else n_rec // 2
    n_rec = len(types) - n_in - n_out if n_rec is None else n_rec
    if n_in + n_rec + n_out != len(types) or n_rec < 0:
        raise ConfigError(r.field_name("n_recurrent_layers"), n_rec, f"n_input_layers ({n_in}) + n_recurrent_layers "
                          f"+ n_output_layers ({n_out}) must equal the {len(types)} decoder layers")
    loops = r.get_int("n_recurrent_loops")
    mode = r.get_str("recurrent_kv_cache_mode")
    if mode not in ("per_loop", "last_loop"):
        raise ConfigError(r.field_name("recurrent_kv_cache_mode"), mode, "must be 'per_loop' or 'last_loop'")
    return types + (types[n_in:n_in + n_rec] * (loops - 1) if mode == "per_loop" else [])


def group_last_full(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Bailing hybrid: the last layer of each ``layer_group_size`` group full, the others KDA
    (``BailingHybridConfig.__post_init__``)."""
    return every(r.get_int("layer_group_size"), "full_attention", "linear_attention")(n)


def llama4_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Llama 4: RoPE layers (``no_rope_layers`` flag 1, else all but every ``no_rope_layer_interval``-th)
    are chunked when ``attention_chunk_size`` is set."""
    chunk = r.opt_int("attention_chunk_size")
    flags = r.opt_int_list("no_rope_layers")
    if flags is None:
        interval = r.get_int("no_rope_layer_interval")
        flags = [int((i + 1) % interval != 0) for i in range(n)]
    return ["chunked_attention" if f and chunk is not None else "full_attention" for f in flags[:n]]


def jamba_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Jamba: attention where ``i % attn_layer_period == attn_layer_offset``, else Mamba."""
    period, offset = r.get_int("attn_layer_period"), r.get_int("attn_layer_offset", minimum=0)
    return ["attention" if i % period == offset else "mamba" for i in range(n)]


def listed(field_name: str, on: str, off: str, every_by_default: bool = False) -> LayerRule:
    """``on`` for the layer indices listed in ``field_name`` (default: none, or all), else ``off``."""
    def rule(r: ConfigReader, n: int, window: int | None) -> list[str]:
        listed = set(r.get_int_list(field_name, default=list(range(n)) if every_by_default else []))
        return [on if i in listed else off for i in range(n)]
    return rule


def listed_only(field_name: str) -> LayerRule:
    """Types whose configs list their layers (Zamba2 ``layers_block_type``, Nemotron-H
    ``hybrid_override_pattern``): transformers rejects a config whose layer count differs from its
    default list, so a config without the list is refused rather than guessed."""
    def rule(r: ConfigReader, n: int, window: int | None) -> list[str]:
        raise ConfigError(r.path + field_name, None,
                          f"required field is missing ({r.model_type} configs list their {n} layer types)")
    return rule


def zamba_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Zamba: layers 0, 1 Mamba, layer 2 hybrid, then hybrid where ``(i - 3) % attn_layer_period ==
    attn_layer_offset`` (``ZambaConfig.__post_init__``)."""
    period, offset = r.get_int("attn_layer_period"), r.get_int("attn_layer_offset", minimum=0)
    head = ["linear_attention", "linear_attention", "hybrid"][:n]
    return head + ["hybrid" if i % period == offset else "linear_attention" for i in range(n - 3)]


# Zamba2Config.__post_init__'s layers_block_type when the config gives none (54 layers)
_ZAMBA2_LAYERS = (["linear_attention"] + (["linear_attention"] * 5 + ["hybrid"]) * 7 + ["linear_attention"] * 4
                  + ["hybrid"] + ["linear_attention"] * 3 + ["hybrid"] + ["linear_attention"] * 2)


def zamba2_layers(r: ConfigReader, n: int, window: int | None) -> list[str] | None:
    """Zamba2: without layers_block_type, the class's 54-layer list; transformers rejects any other layer count
    (validate_layer_type), so a config of another count without the list is refused."""
    if n == len(_ZAMBA2_LAYERS):
        return list(_ZAMBA2_LAYERS)
    return listed_only("layers_block_type")(r, n, window)


def all_layers(layer_type: str) -> LayerRule:
    return lambda r, n, window: [layer_type] * n


def _no_window(r: ConfigReader, window: int | None) -> bool:
    """No sliding window: none resolved, or the config's explicit ``"sliding_window": null`` (which the config
    class keeps as None, though a missing field takes its default)."""
    return window is None or ("sliding_window" in r.data and r.data["sliding_window"] is None)


def dots1_window(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Dots1: with a window, layers from ``max_window_layers`` on slide (Dots1Config.__post_init__; no
    use_sliding_window flag of its own)."""
    mwl = r.get_int("max_window_layers", minimum=0)
    return ["sliding_attention" if not _no_window(r, window) and i >= mwl else "full_attention" for i in range(n)]


def ministral_window(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Ministral: every layer slides when sliding_window is set (class default 4096), else none
    (MinistralConfig.__post_init__)."""
    return ["full_attention" if _no_window(r, window) else "sliding_attention"] * n
