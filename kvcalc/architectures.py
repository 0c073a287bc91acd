"""Per-architecture rules: config.json -> per-layer cache spec (:class:`~kvcalc.spec.ModelSpec`).

The rules follow what Hugging Face transformers itself does when it builds a model from a config
(``layer_types`` when present; otherwise the rule each config class applies in ``__post_init__``),
so kvcalc and transformers agree on which layer is full, sliding, chunked, latent or recurrent.
The defaults below are those of the transformers config classes, used only for fields a config
omits (the official Gemma 3 files omit most of theirs).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .config import ConfigReader, declared_dtype
from .errors import ConfigError
from .spec import AttentionCache, LayerSpec, ModelSpec, RecurrentState

# Multimodal wrappers whose decoder lives in ``text_config``: wrapper -> text model_type.
TEXT_MODEL_TYPES = {
    "gemma3": "gemma3_text", "gemma3n": "gemma3n_text", "mllama": "mllama_text_model",
    "llama4": "llama4_text", "gemma4": "gemma4_text", "qwen2_vl": "qwen2_vl_text", "qwen2_5_vl": "qwen2_5_vl_text",
    "mistral3": "mistral", "llava": "llama", "paligemma": "gemma",
}

# transformers' class default for num_key_value_heads where it is a fixed number, not "= heads"
# (read off transformers 5.24 config classes; e.g. Qwen2Config() has 32 whatever the head count).
_KV_HEAD_DEFAULTS = {"qwen2": 32, "qwen2_moe": 16, "qwen3": 32, "qwen3_moe": 4, "mistral": 8, "mixtral": 8,
                     "gemma": 16, "gemma2": 4, "gemma3_text": 4, "starcoder2": 2, "gpt_oss": 8, "deepseek_v3": 128,
                     "exaone4": 32, "stablelm": 32, "qwen3_next": 2, "minimax": 8, "jamba": 8, "bamba": 8,
                     "falcon_h1": 8, "nemotron_h": 8, "llama4_text": 8, "smollm3": 4, "glm4": 2, "internlm3": 2,
                     "helium": 20}

# Defaults of transformers config classes for fields official files are known to omit.
MODEL_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": dict(num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                        hidden_size=2304, vocab_size=262208, sliding_window=4096, sliding_window_pattern=6,
                        max_position_embeddings=131072, intermediate_size=9216),
    "gemma2": dict(num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                   hidden_size=2304, vocab_size=256000, sliding_window=4096),
    "gpt_oss": dict(sliding_window=128, head_dim=64),
    "cohere2": dict(sliding_window=4096, sliding_window_pattern=4),
    "llama4_text": dict(attention_chunk_size=8192, no_rope_layer_interval=4, head_dim=128),
    "qwen2": dict(max_window_layers=28), "qwen3": dict(max_window_layers=28), "qwen2_moe": dict(max_window_layers=28),
    "qwen3_moe": dict(max_window_layers=28),
    "gemma3n_text": dict(sliding_window=512, num_kv_shared_layers=15, head_dim=256),
    "falcon": dict(multi_query=True, new_decoder_architecture=False),
    "gpt_bigcode": dict(multi_query=True),
    "qwen3_next": dict(full_attention_interval=4),
}
for _mt, _kv in _KV_HEAD_DEFAULTS.items():
    MODEL_DEFAULTS.setdefault(_mt, {}).setdefault("num_key_value_heads", _kv)

ENCODER_DECODER = {"t5", "mt5", "umt5", "longt5", "bart", "mbart", "whisper", "pegasus", "marian",
                   "m2m_100", "nllb_moe", "blenderbot", "blenderbot_small", "plbart", "fsmt", "switch_transformers"}

# Model types whose configs carry no decoder KV cache at all (encoders, vision models).
NO_KV_CACHE = {"bert", "roberta", "distilbert", "albert", "electra", "deberta", "deberta-v2", "xlm-roberta",
               "vit", "deit", "beit", "clip", "siglip", "convnext", "resnet", "swin", "dinov2", "mpnet",
               "camembert", "modernbert", "wav2vec2", "hubert", "sam", "detr", "segformer", "clip_vision_model",
               "siglip_vision_model", "bert-generation", "nomic_bert", "xlm-roberta-xl", "longformer", "funnel"}

KNOWN_DECODERS = {
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3_text",
    "cohere", "cohere2", "gpt_oss", "phi", "phi3", "phimoe", "starcoder2", "gpt2", "gpt_bigcode", "gpt_neox",
    "gptj", "falcon", "bloom", "opt", "deepseek_v2", "deepseek_v3", "kimi_k2", "llama4_text", "mamba", "mamba2",
    "falcon_mamba", "jamba", "bamba", "falcon_h1", "zamba2", "nemotron_h", "granitemoehybrid", "qwen3_next",
    "mllama_text_model", "gemma3n_text", "olmo", "olmo2", "olmo3", "granite", "granitemoe", "stablelm",
    "internlm3", "glm", "glm4", "glm4_moe", "exaone4", "smollm3", "minimax", "kimi_linear", "lfm2", "ministral", "gemma4_text", "deepseek_v32", "helium",
    "qwen2_vl_text", "qwen2_5_vl_text", "persimmon", "codegen", "gpt_neo", "nemotron", "dbrx", "olmoe",
    "hunyuan_v1_dense", "hunyuan_v1_moe", "ernie4_5", "ernie4_5_moe", "seed_oss", "arcee", "apertus",
    "dots1", "bitnet", "cohere2_moe", "chatglm", "baichuan", "internlm2", "qwen", "mpt",
}

# transformers layer-type names -> kvcalc kinds.
_LAYER_TYPE_ALIASES = {
    "full_attention": "full", "attention": "full", "global": "full", "global_attention": "full",
    "sliding_attention": "sliding", "local": "sliding", "local_attention": "sliding", "sliding": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "recurrent", "mamba": "recurrent", "mamba2": "recurrent", "conv": "recurrent",
    "hybrid": "hybrid", "moe": "none", "mlp": "none", "cross_attention": "cross",
    "indexed_attention": "full",
}


class _Ctx:
    """Reader for the decoder config plus the model type and defaults in force."""

    def __init__(self, r: ConfigReader, model_type: str):
        self.r = r
        self.mt = model_type
        self.defaults = MODEL_DEFAULTS.get(model_type, {})
        self.assumed: list[str] = []

    def int(self, *names: str, default: Any = None, minimum: int = 1) -> Any:
        if self.r.has(*names):
            return self.r.int(*names, minimum=minimum)
        for name in names:
            if name in self.defaults:
                return self.defaults[name]
        return default

    def opt_int(self, *names: str, minimum: int = 1) -> int | None:
        return self.int(*names, default=None, minimum=minimum)

    def need(self, name: str, fallback: Any, why: str) -> Any:
        """A field we must have: config, else class default, else ``fallback`` with a warning."""
        value = self.int(name)
        if value is not None:
            return value
        if fallback is None:
            raise ConfigError(self.r.path + name, None, f"required field is missing ({why})")
        self.assumed.append(f"{self.r.path}{name} not in config: assumed {fallback} ({why})")
        return fallback


def read_spec(config: Mapping[str, Any]) -> ModelSpec:
    """Turn a config.json dict into a :class:`ModelSpec`; raise ConfigError on unusable fields."""
    top = ConfigReader(config)
    model_type = top.str("model_type", default="")
    warnings: list[str] = []
    if model_type in NO_KV_CACHE or (not model_type and top.has("is_decoder") and not top.bool("is_decoder")):
        raise ConfigError("model_type", model_type,
                          "this is not a decoder language model: it has no KV cache to plan")
    dtype = declared_dtype(top)
    if model_type in ENCODER_DECODER or (top.bool("is_encoder_decoder") and top.has("decoder_layers", "num_decoder_layers")):
        return _encoder_decoder(top, model_type, dtype)

    dec = top
    text_type = model_type
    text = top.sub("text_config") if isinstance(config.get("text_config"), Mapping) else None
    if text is not None:
        dec = text
        text_type = text.str("model_type", default="") or TEXT_MODEL_TYPES.get(model_type, model_type)
    if text_type == "kimi_k2":
        text_type = "deepseek_v3"
    ctx = _Ctx(dec, text_type)
    known = text_type in KNOWN_DECODERS
    if not known:
        warnings.append(f"unknown architecture '{text_type or '(no model_type)'}': estimated as standard "
                        "decoder attention from the fields below")

    layers, quirks = _decoder_layers(ctx)
    warnings.extend(ctx.assumed)
    return ModelSpec(
        model_type=text_type or "unknown",
        dtype=dtype or "bfloat16",
        layers=tuple(layers),
        hidden_size=ctx.need("hidden_size", None, "model width"),
        vocab_size=ctx.int("vocab_size", default=0, minimum=1) or 0,
        num_attention_heads=ctx.int("num_attention_heads", default=0) or 0,
        mlp_width=_mlp_width(dec),
        max_position_embeddings=ctx.opt_int("max_position_embeddings"),
        known_architecture=known,
        default_encoder_tokens=_vision_tokens(top) if any(l.kind == "cross" for l in layers) else None,
        fields_used=tuple(top.used),
        warnings=tuple(warnings) + (() if dtype else ("no torch_dtype/dtype in config: assumed bfloat16",)),
        quirks=tuple(quirks),
    )


def _mlp_width(r: ConfigReader) -> int | None:
    """Per-token MLP intermediate width: dense ``intermediate_size`` (the widest, for per-layer lists),
    or for MoE ``top_k x expert width + shared-expert width``. None when the config does not say."""
    def width(*names: str) -> int | None:
        value = r.raw(*names, default=None) if r.has(*names) else None
        if isinstance(value, list):
            value = max((v for v in value if isinstance(v, int) and not isinstance(v, bool)), default=None)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

    dense = width("intermediate_size")
    topk = width("num_experts_per_tok", "num_experts_per_token", "moe_topk", "top_k")
    experts = width("num_local_experts", "num_experts", "n_routed_experts")
    if not (topk and experts):
        return dense
    expert = width("moe_intermediate_size") or dense
    if expert is None:
        return dense
    shared = width("shared_expert_intermediate_size", "moe_shared_expert_intermediate_size") or 0
    if not shared and width("n_shared_experts"):
        shared = (width("n_shared_experts") or 0) * expert
    return topk * expert + shared


# ----------------------------------------------------------------------------- layer types
def _layer_types(ctx: _Ctx, n: int) -> list[str]:
    """The per-layer type list in transformers' vocabulary, by the rule transformers applies."""
    r, mt = ctx.r, ctx.mt
    explicit = r.str_list("layer_types") if r.has("layer_types") else None
    if explicit is None and r.has("layers_block_type"):
        explicit = r.str_list("layers_block_type")
    if explicit is None and r.has("hybrid_override_pattern"):
        pattern = r.str("hybrid_override_pattern")
        table = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
        if any(c not in table for c in pattern):
            raise ConfigError(r.field_name("hybrid_override_pattern"), pattern, "only M, *, - and E are known")
        explicit = [table[c] for c in pattern]
    if explicit is not None:
        if len(explicit) < n:
            raise ConfigError(r.path + "layer_types", f"<{len(explicit)} entries>",
                              f"lists fewer entries than the {n} layers")
        return list(explicit[:n])

    window = _window(ctx)
    if mt in ("qwen2", "qwen3", "qwen2_vl_text", "qwen2_5_vl_text", "qwen3_moe"):
        if not r.bool("use_sliding_window") or window is None:
            return ["full_attention"] * n
        mwl = ctx.int("max_window_layers", minimum=0)
        return ["sliding_attention" if i >= mwl else "full_attention" for i in range(n)]
    if mt == "qwen2_moe":
        use = r.bool("use_sliding_window")
        mwl = ctx.int("max_window_layers", minimum=0)
        return ["sliding_attention" if (i + 1) % 2 and i < mwl and use else "full_attention" for i in range(n)]
    if mt in ("gemma2", "gpt_oss"):
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(n)]
    if mt in ("gemma3_text", "cohere2", "exaone4"):
        pattern = ctx.int("sliding_window_pattern", default=4, minimum=1)
        return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]
    if mt == "olmo3":
        return ["sliding_attention" if (i + 1) % 4 else "full_attention" for i in range(n)]
    if mt == "gemma4_text":
        out = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(n)]
        return out[:-1] + ["full_attention"]
    if mt == "gemma3n_text":
        return ["full_attention" if (i + 1) % 5 == 0 else "sliding_attention" for i in range(n)]
    if mt == "minimax":
        return ["full_attention" if (i + 1) % 2 else "linear_attention" for i in range(n)]
    if mt == "kimi_linear" and r.has("linear_attn_config"):
        lac = r.sub("linear_attn_config")
        assert lac is not None
        full = set(lac.int_list("full_attn_layers", default=[], minimum=1))   # 1-indexed in checkpoints
        return ["full_attention" if i + 1 in full else "linear_attention" for i in range(n)]
    if mt == "qwen3_next":
        interval = ctx.int("full_attention_interval", minimum=1)
        return ["full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(n)]
    if mt == "llama4_text":
        chunk = ctx.opt_int("attention_chunk_size")
        flags = r.int_list("no_rope_layers") if r.has("no_rope_layers") else None
        if flags is None:
            interval = ctx.int("no_rope_layer_interval", minimum=1)
            flags = [int((i + 1) % interval != 0) for i in range(n)]
        return ["chunked_attention" if f and chunk is not None else "full_attention" for f in flags[:n]]
    if mt in ("mamba", "mamba2", "falcon_mamba"):
        return ["mamba"] * n
    if mt == "jamba":
        period, offset = ctx.int("attn_layer_period", default=8), ctx.int("attn_layer_offset", default=4, minimum=0)
        return ["attention" if i % period == offset else "mamba" for i in range(n)]
    if mt == "bamba" or mt == "granitemoehybrid":
        attn = set(r.int_list("attn_layer_indices", default=[]))
        return ["attention" if i in attn else "mamba" for i in range(n)]
    if mt == "falcon_h1":
        return ["hybrid"] * n
    if mt == "lfm2":
        idxs = set(r.int_list("full_attn_idxs", default=list(range(n))))
        return ["full_attention" if i in idxs else "conv" for i in range(n)]
    if mt == "mllama_text_model":
        cross = set(r.int_list("cross_attention_layers", default=[]))
        return ["cross_attention" if i in cross else "full_attention" for i in range(n)]
    # transformers' generic rule (cache_utils.get_layer_types_and_kwargs)
    if window is not None:
        return ["sliding_attention"] * n
    if ctx.opt_int("attention_chunk_size") is not None:
        return ["chunked_attention"] * n
    return ["full_attention"] * n


def _window(ctx: _Ctx) -> int | None:
    r = ctx.r
    if r.has("sliding_window"):
        value = r.raw("sliding_window")
        if isinstance(value, bool):
            raise ConfigError(r.field_name("sliding_window"), value, "must be an integer number of tokens")
        w = ConfigReader.check_int(r.field_name("sliding_window"), value, minimum=0)
        return w or None
    return ctx.defaults.get("sliding_window")


# ----------------------------------------------------------------------------- geometry
def _attention_geometry(ctx: _Ctx) -> tuple[int, int, int, int, list[str]]:
    """(query heads, kv heads, k head dim, v head dim, quirks) of a standard attention layer."""
    r, mt = ctx.r, ctx.mt
    quirks: list[str] = []
    heads = ctx.need("num_attention_heads", 32 if mt not in KNOWN_DECODERS else None, "attention heads")
    hidden = ctx.need("hidden_size", None, "model width")
    if mt == "falcon":
        if r.bool("new_decoder_architecture", default=False):
            kv = ctx.int("num_kv_heads", default=heads)
            quirks.append("kv_expanded_to_query_heads")
        elif r.bool("multi_query", default=True):
            kv = 1
        else:
            kv = heads
    elif mt == "gpt_bigcode":
        kv = 1 if r.bool("multi_query", default=True) else heads
    elif mt == "chatglm" and not r.bool("multi_query_attention", default=False):
        kv = heads
    elif r.has("num_key_value_heads"):
        kv = r.int("num_key_value_heads")
    elif "num_key_value_heads" in ctx.defaults:
        kv = ctx.defaults["num_key_value_heads"]
    else:
        if mt not in KNOWN_DECODERS:
            ctx.assumed.append(f"{r.path}num_key_value_heads not in config: assumed {heads} (multi-head attention)")
        kv = heads
    if kv > heads:
        raise ConfigError(r.field_name("num_key_value_heads"), kv, f"exceeds num_attention_heads ({heads})")
    if mt == "zamba2":
        head_dim = ctx.int("attention_head_dim", "head_dim", default=2 * hidden // heads)
    else:
        head_dim = ctx.int("head_dim")
    if head_dim is None:
        if hidden % heads:
            raise ConfigError(r.field_name("hidden_size"), hidden,
                              f"is not divisible by num_attention_heads ({heads}) and no head_dim is given")
        head_dim = hidden // heads
        if mt not in KNOWN_DECODERS:
            ctx.assumed.append(f"{r.path}head_dim not in config: assumed hidden_size / num_attention_heads = {head_dim}")
    return heads, kv, head_dim, head_dim, quirks


def _mla(ctx: _Ctx, heads: int) -> AttentionCache:
    r = ctx.r
    rank = r.int("kv_lora_rank")
    rope = r.int("qk_rope_head_dim", minimum=0)
    nope = r.int("qk_nope_head_dim", default=0, minimum=0)
    v_dim = r.int("v_head_dim", default=nope + rope)
    indexer = r.int("index_head_dim", default=0, minimum=0) if r.has("index_topk") else 0
    return AttentionCache(kv_heads=heads, k_head_dim=nope + rope, v_head_dim=v_dim, query_heads=heads,
                          latent_dim=rank + rope, indexer_dim=indexer)


def _recurrent_states(ctx: _Ctx) -> tuple[RecurrentState, ...]:
    """Conv and SSM state sizes (elements per sequence) for the model's recurrent mixer."""
    r, mt = ctx.r, ctx.mt
    hidden = ctx.need("hidden_size", None, "model width")

    def states(conv: int, ssm: int, kernel: int) -> tuple[RecurrentState, ...]:
        return (RecurrentState("conv", conv * kernel, kernel), RecurrentState("ssm", ssm))

    if mt == "lfm2":
        kernel = r.int("conv_L_cache", default=3)
        return (RecurrentState("conv", hidden * kernel, kernel),)
    if mt in ("mamba", "falcon_mamba"):
        inter = r.int("intermediate_size", default=int(r.raw("expand", default=2) * hidden))
        return states(inter, inter * r.int("state_size", default=16), r.int("conv_kernel", default=4))
    if mt == "jamba":
        inter = r.int("mamba_expand", default=2) * hidden
        return states(inter, inter * r.int("mamba_d_state", default=16), r.int("mamba_d_conv", default=4))
    if mt in ("qwen3_next", "qwen3_5", "qwen3_5_moe"):
        kh, vh = r.int("linear_num_key_heads"), r.int("linear_num_value_heads")
        kd, vd = r.int("linear_key_head_dim"), r.int("linear_value_head_dim")
        conv_dim = 2 * kh * kd + vh * vd
        return states(conv_dim, vh * kd * vd, r.int("linear_conv_kernel_dim", default=4))
    if mt == "kimi_linear":
        lac = r.sub("linear_attn_config") or r
        heads = lac.int("num_heads", default=None) or r.int("linear_num_heads")
        hd = lac.int("head_dim", default=None) or r.int("linear_head_dim", default=128)
        k = lac.int("short_conv_kernel_size", default=None) or r.int("linear_conv_kernel_dim", default=4)
        # Kimi delta attention: separate short convs on q, k and v; one (head_dim x head_dim) state per head
        return states(3 * heads * hd, heads * hd * hd, k)
    if mt == "minimax":
        heads = ctx.need("num_attention_heads", None, "attention heads")
        hd = ctx.int("head_dim") or hidden // heads
        return (RecurrentState("linear", heads * hd * hd),)
    if mt == "mamba2":
        inter = int(r.raw("expand", default=2) * hidden)
        groups, n_state = r.int("n_groups", default=8), r.int("state_size", default=128)
        nh, hd, k = r.int("num_heads", default=128), r.int("head_dim", default=64), r.int("conv_kernel", default=4)
    elif mt in ("bamba", "granitemoehybrid"):
        inter = r.int("mamba_expand", default=2) * hidden
        groups, n_state = r.int("mamba_n_groups", default=1), r.int("mamba_d_state", default=256)
        nh = r.int("mamba_n_heads", default=128)
        hd = r.int("mamba_d_head", default=inter // nh) if not r.data.get("mamba_d_head") == "auto" else inter // nh
        k = r.int("mamba_d_conv", default=4)
    elif mt == "falcon_h1":
        inter = r.int("mamba_d_ssm", default=r.int("mamba_expand", default=2) * hidden)
        groups, n_state = r.int("mamba_n_groups", default=1), r.int("mamba_d_state", default=256)
        nh = r.int("mamba_n_heads", default=128)
        hd = r.int("mamba_d_head", default=inter // nh)
        k = r.int("mamba_d_conv", default=4)
    elif mt == "zamba2":
        inter = r.int("mamba_expand", default=2) * hidden
        groups, n_state = r.int("mamba_ngroups", default=1), r.int("mamba_d_state", default=64)
        nh = r.int("n_mamba_heads", default=8)
        hd = r.int("mamba_headdim", default=inter // nh)
        k = r.int("mamba_d_conv", default=4)
    elif mt == "nemotron_h":
        nh, hd = r.int("mamba_num_heads", default=128), r.int("mamba_head_dim", default=64)
        inter = nh * hd
        groups, n_state = r.int("n_groups", default=8), r.int("ssm_state_size", default=128)
        k = r.int("conv_kernel", default=4)
    else:
        raise ConfigError(r.path + "model_type", mt, "has recurrent layers kvcalc has no state rule for")
    return states(inter + 2 * groups * n_state, nh * hd * n_state, k)


def _decoder_layers(ctx: _Ctx) -> tuple[list[LayerSpec], list[str]]:
    r, mt = ctx.r, ctx.mt
    n = ctx.int("num_hidden_layers")
    if n is None:
        # Nemotron-H style configs give only the per-layer pattern
        listed = next((r.raw(f) for f in ("layers_block_type", "hybrid_override_pattern", "layer_types")
                       if r.has(f) and isinstance(r.data[f], (list, str))), None)
        n = len(listed) if listed else ctx.need("num_hidden_layers", None, "layer count")
    if n > 4096:
        raise ConfigError(r.field_name("num_hidden_layers"), n, "must be at most 4,096")
    types = _layer_types(ctx, n)
    if mt == "gemma4_text" and types[-1] != "full_attention":
        types[-1] = "full_attention"  # transformers forces Gemma 4's last layer to full attention
    kinds = []
    for i, t in enumerate(types):
        kind = _LAYER_TYPE_ALIASES.get(t)
        if kind is None:
            raise ConfigError(f"{r.path}layer_types[{i}]", t, "is not a layer type kvcalc knows")
        kinds.append(kind)

    needs_attention = any(k in ("full", "sliding", "chunked", "hybrid", "cross") for k in kinds)
    quirks: list[str] = []
    attn: AttentionCache | None = None
    if needs_attention:
        heads, kv, kd, vd, quirks = _attention_geometry(ctx)
        if r.has("kv_lora_rank"):
            attn = _mla(ctx, heads)
        else:
            attn = AttentionCache(kv_heads=kv, k_head_dim=kd, v_head_dim=vd, query_heads=heads)
    window = _window(ctx)
    chunk = ctx.opt_int("attention_chunk_size")
    states = _recurrent_states(ctx) if any(k in ("recurrent", "hybrid") for k in kinds) else ()

    shared_from = _kv_sharing(ctx, n, types)
    overrides = _per_layer_overrides(ctx, n, types)
    layers: list[LayerSpec] = []
    for i, kind in enumerate(kinds):
        if i in shared_from:
            layers.append(LayerSpec(i, "shared", shares_with=shared_from[i]))
        elif kind in ("full", "sliding", "chunked"):
            assert attn is not None
            a = _replace(attn, **overrides[i]) if overrides.get(i) else attn
            if kind == "sliding":
                if window is None:
                    raise ConfigError(r.path + "sliding_window", None, f"layer {i} is sliding but no window is set")
                a = _replace(a, window=window)
            elif kind == "chunked":
                if chunk is None:
                    raise ConfigError(r.path + "attention_chunk_size", None, f"layer {i} is chunked but no chunk size is set")
                a = _replace(a, window=chunk, chunked=True)
            layers.append(LayerSpec(i, "mla" if a.latent_dim else kind, attention=(a,)))
        elif kind == "recurrent":
            layers.append(LayerSpec(i, _recurrent_kind(types[i], mt), states=states))
        elif kind == "hybrid":
            assert attn is not None
            layers.append(LayerSpec(i, "hybrid", attention=(attn,), states=states))
        elif kind == "cross":
            assert attn is not None
            layers.append(LayerSpec(i, "cross", attention=(_replace(attn, source="cross"),)))
        else:
            layers.append(LayerSpec(i, "none"))
    return layers, quirks


def _per_layer_overrides(ctx: _Ctx, n: int, types: list[str]) -> dict[int, dict[str, int]]:
    """Per-layer attention geometry overrides: transformers' ``per_layer_config`` ({"5": {"head_dim": 512}}),
    or, for Gemma 4 configs without it, ``global_head_dim`` / ``num_global_key_value_heads`` on full layers."""
    r = ctx.r
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
        return out
    if ctx.mt == "gemma4_text":
        head_dim = ctx.int("global_head_dim", default=512)
        kv = ctx.opt_int("num_global_key_value_heads") if r.bool("attention_k_eq_v") else None
        for i, t in enumerate(types):
            if t == "full_attention":
                out[i] = {"k_head_dim": head_dim, "v_head_dim": head_dim, **({"kv_heads": kv} if kv else {})}
    return out


def _recurrent_kind(layer_type: str, mt: str) -> str:
    """"conv" (LFM2 short conv), "linear" (linear attention / gated delta net) or "mamba"."""
    if mt == "lfm2":
        return "conv"
    if layer_type == "linear_attention" and mt in ("qwen3_next", "qwen3_5", "qwen3_5_moe", "minimax", "kimi_linear"):
        return "linear"
    return "mamba"


def _kv_sharing(ctx: _Ctx, n: int, types: list[str]) -> dict[int, int]:
    """Layers that reuse an earlier layer's KV cache (Gemma 3n ``num_kv_shared_layers``): index -> source."""
    shared = ctx.int("num_kv_shared_layers", default=0, minimum=0)
    if not shared:
        return {}
    first = n - shared
    if first <= 0:
        raise ConfigError(ctx.r.field_name("num_kv_shared_layers"), shared, f"must be below num_hidden_layers ({n})")
    out = {}
    for i in range(first, n):
        # the last non-shared layer of the same type provides the cache (transformers Gemma3n rule)
        src = max(j for j in range(first) if types[j] == types[i]) if types[i] in types[:first] else first - 1
        out[i] = src
    return out


def _replace(a: AttentionCache, **kw: Any) -> AttentionCache:
    from dataclasses import replace

    return replace(a, **kw)


def _vision_tokens(top: ConfigReader) -> int | None:
    """Vision tokens one image adds to an Mllama cross-attention cache: tiles x (patches + 1)."""
    vision = top.sub("vision_config")
    if vision is None:
        return None
    tiles = vision.int("max_num_tiles", default=4)
    image, patch = vision.int("image_size", default=448), vision.int("patch_size", default=14)
    return tiles * ((image // patch) ** 2 + 1)


# ----------------------------------------------------------------------------- encoder-decoder
def _encoder_decoder(top: ConfigReader, mt: str, dtype: str | None) -> ModelSpec:
    """Decoder self-attention (grows with generated tokens) + cross-attention (encoder tokens)."""
    if mt in ("t5", "mt5", "umt5", "longt5", "switch_transformers"):
        n = top.int("num_decoder_layers", "num_layers", default=None) or top.int("num_layers")
        heads = top.int("num_heads")
        head_dim = top.int("d_kv")
        hidden = top.int("d_model")
        default_enc = None
    else:
        n = top.int("decoder_layers")
        heads = top.int("decoder_attention_heads")
        hidden = top.int("d_model")
        if hidden % heads:
            raise ConfigError("d_model", hidden, f"is not divisible by decoder_attention_heads ({heads})")
        head_dim = hidden // heads
        default_enc = top.int("max_source_positions", default=None) if mt == "whisper" else None
    self_attn = AttentionCache(kv_heads=heads, k_head_dim=head_dim, v_head_dim=head_dim, query_heads=heads)
    cross = _replace(self_attn, source="cross")
    layers = tuple(LayerSpec(i, "full", attention=(self_attn, cross)) for i in range(n))
    return ModelSpec(
        model_type=mt, dtype=dtype or "float32", layers=layers, hidden_size=hidden,
        vocab_size=top.int("vocab_size", default=0) or 0, num_attention_heads=heads, is_encoder_decoder=True,
        default_encoder_tokens=default_enc,
        max_position_embeddings=top.int("max_target_positions", "max_position_embeddings", default=None),
        fields_used=tuple(top.used),
        warnings=() if dtype else ("no torch_dtype/dtype in config: assumed float32",),
    )
