"""Generic rules: config.json -> per-layer cache spec (:class:`~kvcalc.spec.ModelSpec`).

The rules follow what Hugging Face transformers itself does when it builds a model from a config
(``layer_types`` when present; otherwise the rule each config class applies in ``__post_init__``),
so kvcalc and transformers agree on which layer is full, sliding, chunked, latent or recurrent.
Everything specific to one model type (its text decoder, layer rule, class defaults, recurrent-state
rule, quirks) is its entry in :mod:`kvcalc.models.registry`; this module holds what all types share.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, cast

from .config import ConfigReader, declared_dtype, head_dim_or_derived
from .errors import ConfigError, UnsupportedError
from .models.architecture_names import language_config_key, with_model_types
from .models.blocks import mpt_kv_heads
from .models.deepseek_v4_cache import deepseek_v4_layers
from .models.layer_rules import dory_cache_types
from .models.model_type import ModelType, quirk_flags
from .models.quirks import Quirk
from .models.registry import lookup, nested, typed
from .models.registry.moe_decoders import DBRX_ATTN_DEFAULTS
from .models.registry.seq2seq import CROSS_ATTENTION_DECODERS, T5_STYLE
from .models.remote_heads import remote_kv_heads
from .models.sparse_index import index_key_layers
from .models.subconfigs import DECODER_GEOMETRY, seeds_text, text_view, unseeded_fields
from .models.unread import PARAM_FIELDS, unread_geometry
from .spec import AttentionCache, LayerKind, LayerSpec, ModelSpec, RecurrentState

# transformers layer-type names -> kvcalc kinds.
_LAYER_TYPE_ALIASES = {
    "full_attention": "full", "attention": "full", "global": "full", "global_attention": "full",
    "sliding_attention": "sliding", "reference_sliding_attention": "reference_sliding",
    "local": "sliding", "local_attention": "sliding", "sliding": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "recurrent", "mamba": "recurrent", "mamba2": "recurrent", "conv": "recurrent",
    "hybrid": "hybrid", "hybrid_sliding": "hybrid_sliding", "moe": "none", "mlp": "none", "cross_attention": "cross",
    "indexed_attention": "full", "dummy": "none", "minimax_m3_sparse": "full",
    # transformers 5.24 configuration_utils.py _LEGACY_LAYER_TYPE_REMAP reads it as "indexed_attention"
    "deepseek_sparse_attention": "full",
}
_UNKNOWN = ModelType("")   # the entry of a model type kvcalc does not know: generic rules, no defaults


@dataclass(frozen=True)
class CacheQuirks:
    """The departures from the generic cache rules the spec reader reads, one flag per quirk an entry names
    (:data:`kvcalc.models.model_type.QUIRKS`)."""

    attention_pairs: bool = False
    attn_config_kv: bool = False
    doubled_attention_head_dim: bool = False
    falcon_kv: bool = False
    flat_text: bool = False
    float32_indexer: bool = False
    floor_head_dim: bool = False
    global_head_dim: bool = False
    last_layer_full: bool = False
    loop_passes: bool = False
    multi_query: bool = False
    multi_query_attention: bool = False
    mpt_attn_type: bool = False
    nested_decoder: bool = False
    nope_mla: bool = False
    pooled_indexer: bool = False
    prefix_cache: bool = False
    prompt_prefix: bool = False
    recurrent_depth: bool = False
    swa_double_kv: bool = False


def _cache_quirks(entry: ModelType) -> CacheQuirks:
    """``entry``'s quirks as :class:`CacheQuirks` flags."""
    return quirk_flags(CacheQuirks, entry)


def _uses_mla(r: ConfigReader, assumed: list[str]) -> bool:
    """False where the file sets ``use_mla: false`` (DeepSeek-VL2 / DeepSeek-OCR language models, remote code): their
    modeling_deepseek.py then builds the ``mha_`` attention classes (LlamaAttention), caching num_key_value_heads x
    head_dim keys and values, not the latent; transformers' DeepseekV2Config has no such field, so the figure is
    estimated, the assumption noted in ``assumed``."""
    if r.get_bool("use_mla", default=True):
        return True
    assumed.append(f"{r.path}use_mla is false: read as multi-head attention of num_key_value_heads x head_dim "
                   "(the remote code's LlamaAttention path), not as latent attention")
    return False


def _need(r: ConfigReader, name: str, fallback: int | None, why: str, assumed: list[str]) -> int:
    """A field we must have: config, else class default, else ``fallback`` noted in ``assumed``."""
    value = r.opt_int(name)
    if value is not None:
        return value
    if fallback is None:
        raise ConfigError(r.path + name, None, f"required field is missing ({why})")
    assumed.append(f"{r.path}{name} not in config: assumed {fallback} ({why})")
    return fallback


def read_spec(config: Mapping[str, Any]) -> ModelSpec:
    """Turn a config.json dict into a :class:`ModelSpec`; raise ConfigError on unusable fields.

    ``quality`` is ``exact`` only when no field that looks like cache geometry went unread by both the cache
    rules and the parameter rules (:func:`kvcalc.models.unread.unread_geometry`); such a field makes the
    figure ``estimated`` and is named in ``warnings``."""
    config, inferred = with_model_types(config)
    spec = _read_spec(config)
    if inferred:
        spec = replace(spec, quality="estimated",
                       warnings=tuple(f"estimated: {note}" for note in inferred) + spec.warnings)
    if spec.quality != "exact":
        return spec
    used = set(spec.fields_used) | _param_fields(config) | _unseeded_top(config)
    notes = unread_geometry(config, used, spec.model_type, _resolved(spec))
    if not notes:
        return spec
    return replace(spec, quality="estimated", warnings=spec.warnings + tuple(
        f"estimated: {note} is not read by kvcalc's {spec.model_type} rules, and it may size the cache"
        for note in notes))


def _resolved(spec: ModelSpec) -> dict[str, int]:
    """The KV heads and head width every attention layer resolved to (when they all agree), by field name."""
    caches = [a for layer in spec.layers for a in layer.attention]
    out: dict[str, int] = {}
    if len({a.kv_heads for a in caches}) == 1:
        out["num_key_value_heads"] = caches[0].kv_heads
    if len({a.k_head_dim for a in caches}) == 1:
        out["kv_channels"] = out["head_dim"] = caches[0].k_head_dim
    return out


def _param_fields(config: Mapping[str, Any]) -> set[str]:
    """The fields the parameter rules read (a field they read sizes weights, not an unread cache field), through
    the reader :mod:`kvcalc.models.counting` registers in :data:`kvcalc.models.unread.PARAM_FIELDS` (it imports
    this module, so this one cannot import it)."""
    from .errors import KVCalcError

    try:
        return set().union(*(reader(config) for reader in PARAM_FIELDS))
    except KVCalcError:
        return set()


def _unseeded_top(config: Mapping[str, Any]) -> set[str]:
    """A wrapper file without text_config whose class ignores its top-level decoder fields: those fields, which
    :func:`kvcalc.models.subconfigs.unseeded_fields` already compares with the text config built."""
    entry = lookup(str(config.get("model_type") or ""))
    if entry is None or entry.text_type is None or config.get("text_config") is not None:
        return set()
    top = ConfigReader(config)
    if seeds_text(top, entry):
        return set()
    return {name for field in DECODER_GEOMETRY if (name := top.present(field)) is not None}


def _read_spec(config: Mapping[str, Any]) -> ModelSpec:
    """:func:`read_spec` before the unread-field check."""
    top = ConfigReader(config)
    model_type = top.get_str("model_type", default="")
    entry = lookup(model_type)
    warnings: list[str] = []
    if (entry is not None and entry.kind == "no_cache") or (
            not model_type and top.has("is_decoder") and not top.get_bool("is_decoder")):
        raise ConfigError("model_type", model_type,
                          "this is not a decoder language model: it has no KV cache to plan")
    dtype = declared_dtype(top)
    if (entry is not None and entry.kind == "encoder_decoder") or (
            top.get_bool("is_encoder_decoder", default=False) and top.has("decoder_layers", "num_decoder_layers")):
        text = top.sub("text_config")
        inner = lookup(text.get_str("model_type", default="")) if text is not None else None
        if text is not None and inner is not None and inner.kind == "encoder_decoder":   # Florence-2: a BART
            return _encoder_decoder(text, inner.name, dtype)
        if entry is not None and _cache_quirks(entry).nested_decoder:
            return _nested_decoder(top, entry, dtype)
        return _encoder_decoder(top, model_type, dtype)

    dec, built = top, None
    text_type = model_type
    key = language_config_key(config, remote=entry is None)
    text = top.sub(key) if key is not None else None
    if text is not None:
        dec = text
        wrapped = entry.text_type if entry is not None and entry.text_type else model_type
        text_type = text.get_str("model_type", default="") or wrapped
    elif entry is not None and seeds_text(top, entry):
        dec = text_view(top, entry)     # the top-level fields are the text config (Glm5NextConfig.__post_init__)
        text_type = dec.model_type
    elif entry is not None and entry.text_type:
        # the config class builds its text config from class defaults: the same view the parameter rules read
        dec = built = text_view(top, entry)
        text_type = dec.model_type
        warnings.extend(f"estimated: {note}" for note in unseeded_fields(top, dec, entry.name))
    text_entry = lookup(text_type)
    if text_entry is None and text_type.endswith("_text"):
        # a nested ``X_text`` type kvcalc does not list: X's decoder when X is a known decoder or wrapper
        base = lookup(text_type[:-len("_text")])
        if base is not None and base.text_type:
            base = lookup(base.text_type)
        if base is not None and base.kind == "decoder" and base.text_type is None:
            text_entry = base
            warnings.append(f"estimated: '{text_type[:60]}' read as '{base.name}' (the nested text type of a "
                            "known model)")
    known = text_entry is not None and text_entry.kind == "decoder" and text_entry.text_type is None
    if text_entry is not None:
        text_type = text_entry.name   # a same_as alias (kimi_k2) is built as its target (deepseek_v3)
    else:
        warnings.append(f"estimated: unknown architecture '{text_type or '(no model_type)'}': read as standard "
                        "decoder attention from the fields below")
    r = built if built is not None and built.model_type == text_type else typed(dec, text_type)
    assumed: list[str] = []
    layers, quirks = _decoder_layers(r, text_entry if known and text_entry else _UNKNOWN, known, assumed)
    warnings.extend(a if a.startswith("estimated: ") else f"estimated: {a}" for a in assumed)
    moe_experts, moe_top_k = _moe_shape(dec)
    return ModelSpec(
        model_type=text_type or "unknown",
        dtype=dtype or "bfloat16",
        layers=tuple(layers),
        hidden_size=_need(r, "hidden_size", None, "model width", assumed),
        vocab_size=r.opt_int("vocab_size") or 0,
        num_attention_heads=r.opt_int("num_attention_heads") or 0,
        mlp_width=_mlp_width(dec),
        moe_experts=moe_experts,
        moe_top_k=moe_top_k,
        mamba_ssm_dtype=r.opt_str("mamba_ssm_dtype"),
        max_position_embeddings=r.opt_int("max_position_embeddings"),
        known_architecture=known,
        default_encoder_tokens=_vision_tokens(top) if any(l.kind == "cross" for l in layers) else None,
        fields_used=tuple(top.used),
        warnings=tuple(warnings) + (() if dtype else ("no torch_dtype/dtype in config: assumed bfloat16",)),
        quirks=tuple(quirks),
        quality="exact" if known and not any(w.startswith("estimated: ") for w in warnings) else "estimated",
    )


MOE_EXPERT_FIELDS = ("num_local_experts", "num_experts", "n_routed_experts")
MOE_TOP_K_FIELDS = ("num_experts_per_tok", "num_experts_per_token", "moe_topk", "top_k", "top_k_experts")
"""The spellings configs use for the routed-expert count and the experts each token picks (Gemma 4:
``top_k_experts``, transformers ``Gemma4TextConfig``)."""


def _positive_int(r: ConfigReader, *names: str) -> int | None:
    """The first of ``names`` the config has, as a positive int (the widest of a per-layer list); else None."""
    value = r.raw(*names, default=None) if r.has(*names) else None
    if isinstance(value, list):
        value = max((v for v in value if isinstance(v, int) and not isinstance(v, bool)), default=None)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _moe_shape(r: ConfigReader) -> tuple[int | None, int | None]:
    """(routed experts, experts per token), both or neither; neither where the config turns its MoE block
    off (Gemma 4's ``enable_moe_block: false``, whose expert fields transformers then ignores)."""
    if r.has("enable_moe_block") and not r.get_bool("enable_moe_block"):
        return None, None
    experts, topk = _positive_int(r, *MOE_EXPERT_FIELDS), _positive_int(r, *MOE_TOP_K_FIELDS)
    return (experts, topk) if experts and topk else (None, None)


def _mlp_width(r: ConfigReader) -> int | None:
    """Per-token MLP intermediate width: dense ``intermediate_size`` (the widest, for per-layer lists),
    or for MoE ``top_k x expert width + shared-expert width``. None when the config does not say."""
    def width(*names: str) -> int | None:
        return _positive_int(r, *names)

    dense = width("intermediate_size")
    experts, topk = _moe_shape(r)
    if not (topk and experts):
        return dense
    expert = width("moe_intermediate_size") or dense
    if expert is None:
        return dense
    shared = width("shared_expert_intermediate_size", "moe_shared_expert_intermediate_size") or 0
    if not shared and r.has("enable_moe_block"):     # Gemma 4: the dense MLP runs beside the experts
        shared = dense or 0
    if not shared and width("n_shared_experts"):
        shared = (width("n_shared_experts") or 0) * expert
    return topk * expert + shared


# ----------------------------------------------------------------------------- layer types
def layer_types(r: ConfigReader, entry: ModelType, n: int) -> list[str]:
    """The per-layer type list in transformers' vocabulary: the config's own list (``layer_types``,
    ``layers_block_type`` or a Nemotron-H ``hybrid_override_pattern``), else the entry's layer rule,
    else transformers' generic rule (``cache_utils.get_layer_types_and_kwargs``); with the
    ``last_layer_full`` quirk the last layer is full attention either way."""
    explicit = r.opt_str_list("layer_types") if r.has("layer_types") else None
    if explicit is None and r.has("layers_block_type"):
        explicit = r.opt_str_list("layers_block_type")
    if explicit is None and r.has("hybrid_override_pattern"):
        pattern = r.get_str("hybrid_override_pattern")
        table = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
        if any(c not in table for c in pattern):
            raise ConfigError(r.field_name("hybrid_override_pattern"), pattern, "only M, *, - and E are known")
        explicit = [table[c] for c in pattern]
    if explicit is None and entry.layer_rule is None:
        explicit = _convention_types(r, n)
    if explicit is not None:
        if len(explicit) < n:
            raise ConfigError(r.path + "layer_types", f"<{len(explicit)} entries>",
                              f"lists fewer entries than the {n} layers")
        types = list(explicit[:n])
    else:
        window = _window(r)
        types = (entry.layer_rule(r, n, window) if entry.layer_rule else None) or _generic_types(r, n, window)
    if _cache_quirks(entry).last_layer_full and types:
        types[-1] = "full_attention"
    return types


def _convention_types(r: ConfigReader, n: int) -> list[str] | None:
    """Layer types from conventions of remote-code configs (types without a transformers rule):

    * ``hybrid_layer_pattern`` (MiMo-V2-Flash): one 0/1 per layer, 1 = sliding window, 0 = full;
    * ``block_configs`` (DeciLM / Nemotron-NAS): per block ``attention.no_op`` or
      ``attention.replace_with_linear`` means no attention (no cache), ``attention.window_length``
      a sliding window, otherwise full attention.
    None when the config uses neither."""
    if r.has("hybrid_layer_pattern"):
        pattern = r.get_int_list("hybrid_layer_pattern")
        for i, v in enumerate(pattern):
            if v not in (0, 1):
                raise ConfigError(f"{r.field_name('hybrid_layer_pattern')}[{i}]", v, "must be 0 (full) or 1 (sliding)")
        return ["sliding_attention" if v else "full_attention" for v in pattern]
    if r.has("block_configs"):
        out = []
        for attention in _block_attention(r):
            if attention.get("no_op") or attention.get("replace_with_linear"):
                out.append("mlp")
            elif attention.get("window_length") is not None:
                out.append("sliding_attention")
            else:
                out.append("full_attention")
        return out
    return None


def _block_attention(r: ConfigReader) -> list[Mapping[str, Any]]:
    """The ``attention`` object of every entry of ``block_configs`` (ConfigError when malformed)."""
    blocks = r.opt_list("block_configs") or []
    out = []
    for i, block in enumerate(blocks):
        attention = block.get("attention") if isinstance(block, Mapping) else None
        if not isinstance(attention, Mapping):
            raise ConfigError(f"{r.path}block_configs[{i}].attention", attention, "must be an object")
        out.append(attention)
    return out


def _generic_types(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """transformers' generic rule: all sliding with a window, all chunked with a chunk size, else all full."""
    if window is not None:
        return ["sliding_attention"] * n
    if r.opt_int("attention_chunk_size") is not None:
        return ["chunked_attention"] * n
    return ["full_attention"] * n


def _window(r: ConfigReader) -> int | None:
    """``sliding_window`` in tokens (config, else class default); 0 or null mean no window, and so does
    ``use_sliding_window: false`` for every type (the Qwen config classes drop the window then)."""
    if r.has("use_sliding_window") and not r.get_bool("use_sliding_window"):
        return None
    if _cache_quirks(lookup(r.model_type) or _UNKNOWN).swa_double_kv and r.has("sliding_window_size"):
        return r.get_int("sliding_window_size") + 1
    if r.has("sliding_window"):
        value = r.raw("sliding_window")
        if isinstance(value, bool):
            raise ConfigError(r.field_name("sliding_window"), value, "must be an integer number of tokens")
        return ConfigReader.check_int(r.field_name("sliding_window"), value, minimum=0) or None
    if "sliding_window" in r.data:      # an explicit null: the config class keeps None (no window)
        r.raw("sliding_window", default=None)
        return None
    # Inkling's config classes map sliding_window onto sliding_window_size (attribute_map)
    return r.opt_int("sliding_window") or r.opt_int("sliding_window_size")


# ----------------------------------------------------------------------------- geometry
def _attention_geometry(r: ConfigReader, entry: ModelType, known: bool,
                        assumed: list[str]) -> tuple[AttentionCache, list[Quirk]]:
    """The attention cache of a standard (or MLA) layer, and the quirks it implies."""
    quirks: list[Quirk] = []
    heads = _need(r, "num_attention_heads", None if known else 32, "attention heads", assumed)
    hidden = _need(r, "hidden_size", None, "model width", assumed)
    if _cache_quirks(entry).falcon_kv:
        if r.get_bool("new_decoder_architecture"):
            kv = r.get_int("num_kv_heads", default=heads)
            quirks.append(Quirk.KV_EXPANDED_TO_QUERY_HEADS)
        else:
            kv = 1 if r.get_bool("multi_query") else heads
    elif _cache_quirks(entry).multi_query:
        kv = 1 if r.get_bool("multi_query") else heads
    elif _cache_quirks(entry).attn_config_kv:      # DBRX
        kv = nested(r, "attn_config", DBRX_ATTN_DEFAULTS).get_int("kv_n_heads")
    elif _cache_quirks(entry).mpt_attn_type:
        kv = mpt_kv_heads(r, heads)
    elif _cache_quirks(entry).multi_query_attention and not r.get_bool("multi_query_attention", default=False):
        kv = heads
    else:
        given = r.opt_int("num_key_value_heads")
        if given is None:
            given = remote_kv_heads(r, assumed)      # CogVLM2's num_multi_query_heads
        if given is None and not known and not r.has("block_configs"):
            assumed.append(f"{r.path}num_key_value_heads not in config: assumed {heads} (multi-head attention)")
        kv = heads if given is None else given
    if kv > heads:
        raise ConfigError(r.field_name("num_key_value_heads"), kv, f"exceeds num_attention_heads ({heads})")
    if r.opt_int("kv_lora_rank") is not None and _uses_mla(r, assumed):
        mla = _mla(r, heads, pooled_indexer=_cache_quirks(entry).pooled_indexer)
        return replace(mla, indexer_float32=_cache_quirks(entry).float32_indexer), quirks
    if _cache_quirks(entry).doubled_attention_head_dim:
        head_dim = r.get_int("attention_head_dim", "head_dim", default=2 * hidden // heads)
    else:
        head_dim = head_dim_or_derived(r, hidden, heads, floor=_cache_quirks(entry).floor_head_dim)
        if not known and not r.has("head_dim"):
            assumed.append(f"{r.path}head_dim not in config: assumed hidden_size / num_attention_heads = {head_dim}")
    # MiMo-V2-Flash: values narrower than keys; an MLA config run as LlamaAttention (use_mla false) ignores it
    mha = r.has("use_mla") and not r.get_bool("use_mla", default=True)
    v_dim = head_dim if mha else r.get_int("v_head_dim", default=head_dim)
    return AttentionCache(kv_heads=kv, k_head_dim=head_dim, v_head_dim=v_dim, query_heads=heads), quirks


def _mla(r: ConfigReader, heads: int, pooled_indexer: bool = False) -> AttentionCache:
    """DeepSeek multi-head latent attention: one ``kv_lora_rank + qk_rope_head_dim`` latent per token
    (+ the DSA indexer key ``index_head_dim`` when ``index_topk`` is set; a pooled indexer, GLM-5 Next,
    caches its key, its ``index_head_dim`` pool-gate scores and a validity channel: ``2 * d + 1``,
    ``modeling_glm5_next.Glm5NextIndexer.forward``)."""
    rank = r.get_int("kv_lora_rank")
    rope = r.get_int("qk_rope_head_dim", minimum=0)
    nope = r.get_int("qk_nope_head_dim", default=0, minimum=0)
    v_dim = r.get_int("v_head_dim", default=nope + rope)
    # the config's index_topk, else the class default's (DeepSeek-V3.2, Mistral Large 4 build the indexer then)
    indexer = r.get_int("index_head_dim", default=0, minimum=0) if r.opt_int("index_topk") is not None else 0
    if pooled_indexer and indexer:
        indexer = 2 * indexer + 1
    return AttentionCache(kv_heads=heads, k_head_dim=nope + rope, v_head_dim=v_dim, query_heads=heads,
                          latent_dim=rank + rope, indexer_dim=indexer, latent_rank=rank)


def _recurrent_states(r: ConfigReader, entry: ModelType, model_type: str,
                      assumed: list[str]) -> tuple[RecurrentState, ...]:
    """Conv and SSM state sizes (elements per sequence) of the entry's recurrent mixer."""
    if entry.state_rule is None:
        raise UnsupportedError(f"config field '{r.path}model_type' = {model_type or None!r:.60}: has recurrent "
                               "layers kvcalc has no state rule for, so their state size is not bounded")
    return entry.state_rule(r, _need(r, "hidden_size", None, "model width", assumed))


def _decoder_types(r: ConfigReader, entry: ModelType, assumed: list[str]) -> tuple[int, list[str]]:
    """(cache layers, their transformers layer types): the layer count (doubled for LongCat-Flash's attention pairs;
    from the per-layer pattern when only that is given), the layer rule's types, looped layers repeated (Inkling
    loop), Dory's cache layers; compressed-KV layers refused but DeepSeek-V4's legacy compress_ratios."""
    n = r.opt_int("num_hidden_layers")
    if _cache_quirks(entry).attention_pairs:
        n = 2 * r.get_int("num_layers")     # two cache layers per decoder layer (LongCat-Flash)
    if n is None:
        # Nemotron-H style configs give only the per-layer pattern
        listed = next((r.raw(f) for f in ("layers_block_type", "hybrid_override_pattern", "layer_types",
                                          "block_configs", "hybrid_layer_pattern")
                       if r.has(f) and isinstance(r.data[f], (list, str))), None)
        n = len(listed) if listed else _need(r, "num_hidden_layers", None, "layer count", assumed)
    if n > 4096:
        raise ConfigError(r.field_name("num_hidden_layers"), n, "must be at most 4,096")
    if r.has("compress_ratios", "compress_rates") and not (entry.name == "deepseek_v4" and r.has("compress_ratios")):
        # DeepSeek-V4 (transformers 5.24: DeepseekV4HCACache / DeepseekV4CSACache): a sliding window plus one
        # compressed entry per N source tokens, a partial buffer of the last < N tokens, CSA indexer entries
        raise UnsupportedError(f"config field '{r.field_name('compress_ratios', 'compress_rates')}': compressed-KV "
                               "layers (a KV entry per N tokens on top of a sliding window, a buffer of the "
                               "tokens not yet compressed, indexer caches) are not modelled; kvcalc will not "
                               "guess their cache size")
    types = layer_types(r, entry, n)
    if _cache_quirks(entry).loop_passes:
        start, end = r.get_int("loop_layer_index_start", minimum=0), r.get_int("loop_layer_index_end")
        if not start < end <= n:
            raise ConfigError(r.field_name("loop_layer_index_end"), end,
                              f"must lie above loop_layer_index_start ({start}) and at most {n}")
        types += types[start:end] * (r.get_int("loop_num_passes") - 1)
        n = len(types)
    if _cache_quirks(entry).prefix_cache:         # DiffusionGemma's encoder-written prefix (QUIRKS)
        assumed.append("estimated: DiffusionGemma caches only the prefix its encoder writes (prompt and finished "
                       "canvases; sliding layers keep a whole encoder pass as one view), never the canvas being "
                       "denoised; kvcalc charges the context as an autoregressive decoder's")
    if _cache_quirks(entry).recurrent_depth:     # Dory's halved (attention, mlp) pairs and per-loop caches
        types = dory_cache_types(r, types)
        n = len(types)
    return n, types


def _layer_kinds(r: ConfigReader, types: list[str]) -> tuple[list[str], dict[str, int]]:
    """The kvcalc kind of each layer type, and the unknown types (first index each), read as full attention."""
    kinds = []
    unknown: dict[str, int] = {}
    for i, t in enumerate(types):
        kind = _LAYER_TYPE_ALIASES.get(t)
        if kind is None and "compress" in t:
            raise UnsupportedError(f"config field '{r.path}layer_types[{i}]' = {t!r:.60}: compressed-KV layers "
                                   "are not modelled; kvcalc will not guess their cache size")
        if kind is None:
            unknown.setdefault(t, i)
            kind = "full"
        kinds.append(kind)

    return kinds, unknown


def _decoder_layers(r: ConfigReader, entry: ModelType, known: bool,
                    assumed: list[str]) -> tuple[list[LayerSpec], list[Quirk]]:
    if entry.name == "deepseek_v4" and r.has("compress_ratios"):
        return deepseek_v4_layers(r), []    # its cache classes: kvcalc.models.deepseek_v4_cache
    n, types = _decoder_types(r, entry, assumed)
    kinds, unknown = _layer_kinds(r, types)
    quirks: list[Quirk] = []
    attn: AttentionCache | None = None
    if any(k in ("full", "sliding", "reference_sliding", "chunked", "hybrid", "hybrid_sliding", "cross")
           for k in kinds):
        attn, quirks = _attention_geometry(r, entry, known, assumed)
        if _cache_quirks(entry).prompt_prefix:     # CPM-Ant's learned prompt tokens
            attn = replace(attn, prefix_tokens=r.get_int("prompt_length", minimum=0))
    for t in unknown:
        assert attn is not None
        assumed.append(f"estimated: {t[:60]!r} layers are unknown; assumed full attention with {attn.kv_heads} KV "
                       f"heads x {attn.k_head_dim}")
    window = _window(r)
    chunk = r.opt_int("attention_chunk_size")
    states = (_recurrent_states(r, entry, r.model_type, assumed)
              if any(k in ("recurrent", "hybrid", "hybrid_sliding") for k in kinds) else ())

    shared_from = _kv_sharing(r, n, types)
    overrides = per_layer_overrides(r, entry, n, types)
    layers: list[LayerSpec] = []
    for i, kind in enumerate(kinds):
        if i in shared_from:
            layers.append(LayerSpec(i, "shared", shares_with=shared_from[i]))
        elif kind in ("full", "sliding", "reference_sliding", "chunked"):
            assert attn is not None
            a = _replace(attn, overrides[i]) if overrides.get(i) else attn
            if kind in ("sliding", "reference_sliding"):
                if a.window is None and window is None:
                    raise ConfigError(r.path + "sliding_window", r.raw("sliding_window", default=None),
                                      f"layer {i} is sliding but no window is set")
                a = replace(a, window=a.window or window, keeps_prefill=kind == "reference_sliding")
                kind = "sliding"
            elif kind == "chunked":
                if chunk is None:
                    raise ConfigError(r.path + "attention_chunk_size", r.raw("attention_chunk_size", default=None),
                                      f"layer {i} is chunked but no chunk size is set")
                a = replace(a, window=chunk, chunked=True)
            layers.append(LayerSpec(i, "mla" if a.latent_dim else cast(LayerKind, kind), attention=(a,)))
        elif kind == "recurrent":
            layers.append(LayerSpec(i, entry.recurrent_kind, states=states))
        elif kind in ("hybrid", "hybrid_sliding"):
            assert attn is not None
            a = _replace(attn, overrides[i]) if overrides.get(i) else attn
            if kind == "hybrid_sliding":
                if a.window is None and window is None:
                    raise ConfigError(r.path + "sliding_window", r.raw("sliding_window", default=None),
                                      f"layer {i} is sliding but no window is set")
                a = replace(a, window=a.window or window)
            extra = entry.kv_state_rule(r, a) if entry.kv_state_rule else ()
            layers.append(LayerSpec(i, "hybrid", attention=(a,), states=states + extra))
        elif kind == "cross":
            assert attn is not None
            layers.append(LayerSpec(i, "cross", attention=(replace(attn, source="cross"),)))
        else:
            layers.append(LayerSpec(i, "none"))
    return layers, quirks


def per_layer_overrides(r: ConfigReader, entry: ModelType, n: int, types: list[str]) -> dict[int, dict[str, int]]:
    """Per-layer attention geometry overrides: transformers' ``per_layer_config`` ({"5": {"head_dim": 512}}),
    or, with the ``global_head_dim`` quirk (Gemma 4) and no per_layer_config, ``global_head_dim`` /
    ``num_global_key_value_heads`` on full layers."""
    out: dict[int, dict[str, int]] = {}
    table = {"head_dim": ("k_head_dim", "v_head_dim"), "num_key_value_heads": ("kv_heads",),
             "num_attention_heads": ("query_heads",)}
    if r.has("per_layer_config"):
        plc = r.raw("per_layer_config")
        if not isinstance(plc, Mapping):
            raise ConfigError(r.field_name("per_layer_config"), plc, "must be an object of layer index -> fields")
        for key, fields in plc.items():
            field = f"{r.path}per_layer_config.{key}"
            try:
                idx = int(key)
            except (TypeError, ValueError):
                raise ConfigError(field, key, "layer index must be an integer") from None
            if not 0 <= idx < n or not isinstance(fields, Mapping):
                raise ConfigError(field, fields, f"must name a layer below {n} and hold an object")
            for name, value in fields.items():
                for attr in table.get(name, ()):
                    out.setdefault(idx, {})[attr] = ConfigReader.check_int(f"{field}.{name}", value)
            if r.opt_int("kv_lora_rank") is not None and ("kv_lora_rank" in fields or "qk_rope_head_dim" in fields):
                # a per-layer MLA geometry (Dots3-Note's sliding layers): the latent is rank + RoPE key
                rank = ConfigReader.check_int(f"{field}.kv_lora_rank", fields.get("kv_lora_rank", r.get_int(
                    "kv_lora_rank")))
                rope = ConfigReader.check_int(f"{field}.qk_rope_head_dim", fields.get(
                    "qk_rope_head_dim", r.get_int("qk_rope_head_dim", minimum=0)), minimum=0)
                out.setdefault(idx, {}).update(latent_dim=rank + rope, latent_rank=rank)
        _indexed_layers_only(types, out)
        return out
    if r.has("block_configs"):
        heads = r.get_int("num_attention_heads")
        for i, attention in enumerate(_block_attention(r)[:n]):
            field = f"{r.path}block_configs[{i}].attention"
            group = attention.get("n_heads_in_group")
            if group is not None:
                group = ConfigReader.check_int(f"{field}.n_heads_in_group", group)
                if heads % group:
                    raise ConfigError(f"{field}.n_heads_in_group", group,
                                      f"must divide num_attention_heads ({heads})")
                out.setdefault(i, {})["kv_heads"] = heads // group
            if attention.get("window_length") is not None:
                out.setdefault(i, {})["window"] = ConfigReader.check_int(f"{field}.window_length",
                                                                         attention["window_length"])
    if _cache_quirks(entry).swa_double_kv:
        swa_kv = 2 * r.get_int("num_key_value_heads")
        for i, t in enumerate(types):
            if t == "sliding_attention":
                out.setdefault(i, {})["kv_heads"] = swa_kv
    elif any(r.opt_int(f) is not None for f in _SWA_FIELDS):    # the config's, else the class defaults
        swa = {attr: value for name, attr in _SWA_FIELDS.items() if (value := r.opt_int(name)) is not None}
        if "k_head_dim" in swa and "v_head_dim" not in swa:
            swa["v_head_dim"] = swa["k_head_dim"]
        for i, t in enumerate(types):
            if t in ("sliding_attention", "hybrid_sliding"):
                out.setdefault(i, {}).update(swa)
    if r.has("indexer_types"):
        # DSA indexer per layer (HunYuan V4): "shared" layers reuse another layer's indexer keys
        for i, kind in enumerate((r.opt_str_list("indexer_types") or [])[:n]):
            if kind not in ("full", "shared"):
                raise ConfigError(f"{r.path}indexer_types[{i}]", kind, "must be 'full' or 'shared'")
            if kind == "shared":
                out.setdefault(i, {})["indexer_dim"] = 0
    if _cache_quirks(entry).nope_mla and r.opt_int("kv_lora_rank") is not None:
        # NoPE layers cache the latent only, without the RoPE key (MistralLarge4Attention: qk_rope_head_dim 0)
        flags = r.opt_int_list("no_rope_layers")
        if flags is None:
            flags = [int((i + 1) % 4 != 0) for i in range(n)]     # no_rope_layer_interval 4
        for i, flag in enumerate(flags[:n]):
            if not flag:
                out.setdefault(i, {})["latent_dim"] = r.get_int("kv_lora_rank")
    _indexed_layers_only(types, out)
    for i, dim in index_key_layers(r, entry.name, n).items():     # MiniMax-M3's index keys
        out.setdefault(i, {})["indexer_dim"] = dim
    if _cache_quirks(entry).global_head_dim:
        head_dim = r.get_int("global_head_dim", default=512)
        kv = r.opt_int("num_global_key_value_heads") if r.get_bool("attention_k_eq_v", default=False) else None
        for i, t in enumerate(types):
            if t == "full_attention":
                out[i] = {"k_head_dim": head_dim, "v_head_dim": head_dim, **({"kv_heads": kv} if kv else {})}
    return out


def _indexed_layers_only(types: list[str], out: dict[int, dict[str, int]]) -> None:
    """Where the layer types name ``indexed_attention``, only those layers hold DSA indexer keys
    (transformers builds ``DynamicIndexedLayer`` for them alone)."""
    if "indexed_attention" in types:
        for i, t in enumerate(types):
            if t != "indexed_attention":
                out.setdefault(i, {})["indexer_dim"] = 0


_SWA_FIELDS = {"swa_num_key_value_heads": "kv_heads", "swa_head_dim": "k_head_dim", "swa_v_head_dim": "v_head_dim",
               "swa_num_attention_heads": "query_heads"}
"""Sliding-layer geometry overrides of remote-code hybrid configs (MiMo-V2-Flash) -> AttentionCache field."""


def _replace(a: AttentionCache, fields: Mapping[str, int]) -> AttentionCache:
    """``a`` with per-layer geometry overrides (``kv_heads``, ``k_head_dim``, ...) applied."""
    return replace(a, **cast(dict[str, Any], fields))


def _kv_sharing(r: ConfigReader, n: int, types: list[str]) -> dict[int, int]:
    """Layers that reuse an earlier layer's KV cache (Gemma 3n ``num_kv_shared_layers``): index -> source."""
    if r.has("kv_source_layers"):
        sources = r.opt_int_list("kv_source_layers") or []
        if any(src != i for i, src in enumerate(sources[:n])):
            raise UnsupportedError(f"config field '{r.field_name('kv_source_layers')}': layers that attend to "
                                   "another layer's latent KV cache are not modelled; kvcalc will not guess what "
                                   "they hold")
    shared = r.get_int("num_kv_shared_layers", default=0, minimum=0)
    if not shared:
        return {}
    first = n - shared
    if first <= 0:
        raise ConfigError(r.field_name("num_kv_shared_layers"), shared, f"must be below num_hidden_layers ({n})")
    out = {}
    for i in range(first, n):
        # the last non-shared layer of the same type provides the cache (transformers Gemma3n rule)
        src = max(j for j in range(first) if types[j] == types[i]) if types[i] in types[:first] else first - 1
        out[i] = src
    return out


def _vision_tokens(top: ConfigReader) -> int | None:
    """Vision tokens one image adds to an Mllama cross-attention cache: tiles x (patches + 1)."""
    sub = top.sub("vision_config")
    if sub is None:
        return None
    vision = typed(sub, "mllama_vision_model")
    tiles = vision.get_int("max_num_tiles")
    image, patch = vision.get_int("image_size"), vision.get_int("patch_size")
    return tiles * ((image // patch) ** 2 + 1)


# ----------------------------------------------------------------------------- encoder-decoder
def _encoder_decoder(top: ConfigReader, mt: str, dtype: str | None) -> ModelSpec:
    """Decoder self-attention (grows with generated tokens) + cross-attention (encoder tokens)."""
    if mt in ("t5", "mt5", "umt5", "longt5", "switch_transformers") + T5_STYLE:
        n = top.opt_int("num_decoder_layers", "num_layers") or top.get_int("num_layers")
        heads = top.get_int("num_heads")
        head_dim = top.get_int("d_kv")
        hidden = top.get_int("hidden_size")    # d_model (T5); Pix2Struct's text model names it hidden_size
        default_enc = None
    else:
        n = top.get_int("decoder_layers", "num_decoder_layers")   # ProphetNet: num_decoder_*
        heads = top.get_int("decoder_attention_heads", "num_decoder_attention_heads")
        hidden = top.get_int("hidden_size")   # its aliases include d_model (SeamlessM4T names it hidden_size)
        if hidden % heads:
            raise ConfigError(top.field_name("hidden_size"), hidden,
                              f"is not divisible by decoder_attention_heads ({heads})")
        head_dim = hidden // heads
        default_enc = top.opt_int("max_source_positions") if mt == "whisper" else None
    self_attn = AttentionCache(kv_heads=heads, k_head_dim=head_dim, v_head_dim=head_dim, query_heads=heads)
    cross = replace(self_attn, source="cross")
    layers = tuple(LayerSpec(i, "full", attention=(self_attn, cross)) for i in range(n))
    return ModelSpec(
        model_type=mt, dtype=dtype or "float32", layers=layers, hidden_size=hidden,
        vocab_size=top.opt_int("vocab_size") or 0, num_attention_heads=heads, is_encoder_decoder=True,
        default_encoder_tokens=default_enc,
        max_position_embeddings=top.opt_int("max_target_positions", "max_position_embeddings"),
        fields_used=tuple(top.used),
        warnings=(() if dtype else ("no torch_dtype/dtype in config: assumed float32",)) + (
            () if lookup(mt) else (f"estimated: unknown encoder-decoder '{mt or '(no model_type)'}': read as "
                                   "BART-style self- and cross-attention from the fields above",)),
        quality="exact" if lookup(mt) else "estimated",
    )


def _nested_decoder(top: ConfigReader, entry: ModelType, dtype: str | None) -> ModelSpec:
    """Encoder-decoders whose decoder is the nested ``decoder`` config (registry quirk ``nested_decoder``; its
    class defaults when absent, of the entry's ``text_type``): the decoder reader reads its layers (types,
    windows, KV heads, head_dim) and every layer adds a cross-attention cache of the same KV heads x head_dim
    over the encoder tokens.

    * T5Gemma (modeling_t5gemma.py ``T5GemmaDecoderLayer``): ``T5GemmaCrossAttention``'s k / v projections give
      ``num_key_value_heads * head_dim``; self-attention sliding / full by ``layer_types``.
    * T5Gemma 2 (modeling_t5gemma2.py ``T5Gemma2MergedAttention``): one k_proj / v_proj for self- and
      cross-attention, so the same geometry.
    * EncoderDecoderModel (modeling_encoder_decoder.py): the decoder is ``AutoModelForCausalLM`` of the nested
      config (default BERT with ``add_cross_attention``, the first of the list below); only the decoders of
      :data:`kvcalc.models.registry.seq2seq.CROSS_ATTENTION_DECODERS` are read (BERT: ``BertCrossAttention``
      has the heads of ``BertSelfAttention``), others are refused.
    """
    sub = top.sub("decoder")
    if sub is None:
        if top.data.get("decoder") is not None:
            raise ConfigError("decoder", top.data["decoder"], "must be a JSON object")
        sub = ConfigReader({}, "decoder.", top.used, defaults_used=top.defaults_used)
    dec_type = sub.get_str("model_type", default=entry.text_type or CROSS_ATTENTION_DECODERS[0])
    dec_entry = lookup(dec_type)
    if entry.text_type is None and dec_type not in CROSS_ATTENTION_DECODERS:
        raise UnsupportedError(f"config field 'decoder.model_type' = {dec_type!r:.60}: the cross-attention cache of "
                               f"this {top.model_type or entry.name} decoder is not verified (read: "
                               f"{', '.join(CROSS_ATTENTION_DECODERS)})")
    if dec_entry is None or (entry.text_type is not None and dec_entry.name != entry.text_type):
        raise UnsupportedError(f"config field 'decoder.model_type' = {dec_type!r:.60}: not a decoder kvcalc reads "
                               f"for {entry.name} (expected {entry.text_type})")
    r = typed(sub, dec_entry.name)
    # a given decoder without add_cross_attention: true builds no cross-attention (EncoderDecoderConfig sets the flag
    # only on the BERT it builds itself), and its forward then rejects the encoder's states
    if entry.text_type is None and top.data.get("decoder") is not None and not r.get_bool("add_cross_attention",
                                                                                              default=False):
        raise ConfigError(r.field_name("add_cross_attention"), r.raw("add_cross_attention", default=None),
                          "must be true: without it the decoder has no cross-attention layers for the encoder's states")
    assumed: list[str] = []
    layers, quirks = _decoder_layers(r, dec_entry, True, assumed)
    dtype = dtype or declared_dtype(r)
    out = []
    cross: dict[AttentionCache, AttentionCache] = {}      # one cross-attention cache per distinct geometry
    for layer in layers:
        if not layer.attention or layer.kind not in ("full", "sliding"):
            raise UnsupportedError(f"{entry.name}: decoder layer {layer.index} ({layer.kind}) is not read with a "
                                   "cross-attention cache")
        own = layer.attention[0]
        if own not in cross:
            cross[own] = replace(own, window=None, source="cross")
        out.append(LayerSpec(layer.index, layer.kind, attention=(own, cross[own]), states=layer.states))
    return ModelSpec(
        model_type=entry.name, dtype=dtype or "float32", layers=tuple(out),
        hidden_size=r.get_int("hidden_size"), vocab_size=r.opt_int("vocab_size") or 0,
        num_attention_heads=r.get_int("num_attention_heads"), is_encoder_decoder=True,
        max_position_embeddings=r.opt_int("max_position_embeddings"), fields_used=tuple(top.used),
        warnings=tuple(assumed) + (() if dtype else ("no torch_dtype/dtype in config: assumed float32",)),
        quirks=tuple(quirks), quality="exact" if not assumed else "estimated",
    )
