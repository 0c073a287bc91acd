"""dots3 Note: its MLA + MoE text decoder (sliding and full layers with their own geometry), its MoE vision
tower and its Whisper-style audio encoder.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import ConfigReader
from ..errors import ConfigError, UnsupportedError
from .blocks import gated_mlp, linear, lm_head
from .counts import Tally
from .moe import mlp_kinds
from .registry import typed
from .subconfigs import sub_config

# Dots3NoteTextConfig.__post_init__: the sliding layers' MLA geometry when the config gives no per_layer_config
# (each read from the config's swa_<field>, else this value; swa_qk_rope_head_dim defaults to head_dim - nope)
_DOTS3_SWA = {"num_attention_heads": 64, "q_lora_rank": 1024, "kv_lora_rank": 1024, "head_dim": 256,
              "qk_nope_head_dim": 192, "v_head_dim": 128}


_DOTS3_MLA = ("num_attention_heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
              "v_head_dim", "attention_bias")


# per_layer_config fields that hold no parameters (or none of these layers' shapes), read as such
_DOTS3_INERT = ("num_key_value_heads", "head_dim", "sliding_window", "rope_parameters", "rope_theta",
                "partial_rotary_factor", "attention_dropout", "rms_norm_eps", "layer_types", "use_cache")


def _per_layer_config(f: ConfigReader, n_layers: int, counted: tuple[str, ...]) -> list[dict[str, Any]]:
    """transformers' ``per_layer_config`` (layer index -> overridden fields; integer or zero-padded keys,
    ``integrations/heterogeneity``), one dict per layer (empty where the config has none). A field outside
    ``counted`` (the ones the caller reads per layer, or knows to hold no parameters) is refused."""
    overrides: list[dict[str, Any]] = [{} for _ in range(n_layers)]
    if not f.has("per_layer_config"):
        return overrides
    plc = f.raw("per_layer_config")
    if not isinstance(plc, Mapping):
        raise ConfigError(f.field_name("per_layer_config"), plc, "must be an object of layer index -> fields")
    for key, fields in plc.items():
        field = f"{f.path}per_layer_config.{key}"
        try:
            idx = int(key)
        except (TypeError, ValueError):
            raise ConfigError(field, key, "layer index must be an integer") from None
        if not 0 <= idx < n_layers or not isinstance(fields, Mapping):
            raise ConfigError(field, fields, f"must name a layer below {n_layers} and hold an object")
        for name in fields:
            if name not in counted:
                raise UnsupportedError(f"{field}.{name}: a per-layer {name} is not counted for {f.model_type} "
                                       "(kvcalc never guesses a count)")
        overrides[idx] = dict(fields)
    return overrides


def _dots3_layers(f: ConfigReader, n_layers: int) -> tuple[list[str], list[dict[str, Any]]]:
    """Per layer of a Dots3-Note decoder: its attention type and the fields its per-layer config overrides,
    as Dots3NoteTextConfig.__post_init__ derives them: layer_types (default: indexed on layers 0, 1 and
    ``i % 4 == 1``, sliding elsewhere; all indexed with use_sliding_window false); with use_dsa (default true
    unless the config has per_layer_config) "full_attention" reads as "indexed_attention", with use_dsa false
    the other way; per_layer_config (integer layer keys), else the swa_* geometry on every sliding layer."""
    use_dsa = f.data.get("use_dsa", None if f.has("per_layer_config") else True)
    if f.has("layer_types"):
        kinds = list(f.opt_str_list("layer_types") or [])[:n_layers]
        if len(kinds) < n_layers:
            raise ConfigError(f.field_name("layer_types"), f"<{len(kinds)} entries>",
                              f"lists fewer entries than the {n_layers} layers")
    else:
        window = f.get_bool("use_sliding_window", default=True)
        full = "full_attention" if use_dsa is False else "indexed_attention"
        kinds = [full if not window or i < 2 or i % 4 == 1 else "sliding_attention" for i in range(n_layers)]
    if use_dsa is not None:
        old, new = ("full_attention", "indexed_attention") if use_dsa else ("indexed_attention", "full_attention")
        kinds = [new if k == old else k for k in kinds]
    for i, kind in enumerate(kinds):
        if kind not in ("full_attention", "indexed_attention", "sliding_attention"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind,
                              "must be full_attention, indexed_attention or sliding_attention")
    overrides = _per_layer_config(f, n_layers, _DOTS3_MLA + _DOTS3_INERT)
    if not f.has("per_layer_config"):
        swa = {name: f.data.get(f"swa_{name}", value) for name, value in _DOTS3_SWA.items()}
        swa["qk_rope_head_dim"] = f.data.get("swa_qk_rope_head_dim", swa["head_dim"] - swa["qk_nope_head_dim"])
        for i, kind in enumerate(kinds):
            if kind == "sliding_attention":
                overrides[i] = swa
    return kinds, overrides


def dots3_note_text(f: ConfigReader, t: Tally) -> None:
    """Dots3-Note text decoder (transformers/models/dots3_note/modeling_dots3_note.py Dots3NoteTextDecoderLayer,
    Dots3NoteTextAttention, Dots3NoteTextIndexer, Dots3NoteTextMoE). Each layer's attention takes its own
    per-layer geometry (:func:`_dots3_layers`): q_a ``H*r_q`` + norm ``r_q``, q_b ``r_q*n*(nope+rope)``, kv_a
    ``H*(r_kv+rope)`` + norm ``r_kv``, kv_b ``r_kv*n*(nope+v)``, o ``n*v*H`` (biases on q_a, kv_a, o with
    attention_bias), k_rope_only_layernorm ``rope``, g_proj ``H*n``; indexed layers add the DSA indexer (wq_b
    ``r_q*n_i*d_i``, wk ``H*d_i``, k_norm LayerNorm ``2*d_i``, weights_proj ``H*n_i``). Two norms ``2*H`` per
    layer; dense MLP ``3*H*I``; MoE layers (:func:`mlp_kinds`): router ``E*H`` (e_score_correction_bias is a
    buffer), ``E`` experts ``3*H*I_e``, shared experts ``3*H*(n_shared*shared_experts_intermediate_size)``.
    Final norm ``H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
    kinds, overrides = _dots3_layers(f, n_layers)
    t.add("embedding", vocab * hidden)
    for i, kind in enumerate(kinds):
        o = overrides[i]

        def get(name: str, minimum: int = 1, o: dict[str, Any] = o, i: int = i) -> int:
            if name in o:
                return ConfigReader.check_int(f"{f.path}per_layer_config.{i}.{name}", o[name], minimum=minimum)
            return f.get_int(name, minimum=minimum)

        n, q_rank, kv_rank, v = (get("num_attention_heads"), get("q_lora_rank"), get("kv_lora_rank"),
                                 get("v_head_dim"))
        rope, nope = get("qk_rope_head_dim", 0), get("qk_nope_head_dim", 0)
        bias = bool(o["attention_bias"]) if "attention_bias" in o else f.get_bool("attention_bias")
        t.add("attention", linear(hidden, q_rank, bias) + linear(q_rank, n * (nope + rope))
              + linear(hidden, kv_rank + rope, bias) + linear(kv_rank, n * (nope + v)) + linear(n * v, hidden, bias)
              + hidden * n)
        t.add("norms", q_rank + kv_rank + rope + 2 * hidden)
        if kind == "indexed_attention":
            t.add("attention", q_rank * n_i * d_i + hidden * d_i + hidden * n_i)
            t.add("norms", 2 * d_i)
    sparse = mlp_kinds(f, n_layers)
    t.add("mlp", (n_layers - len(sparse)) * gated_mlp(hidden, f.get_int("intermediate_size")))
    n_exp, inter_e = f.get_int("n_routed_experts"), f.get_int("moe_intermediate_size")
    shared = f.get_int("n_shared_experts") * f.get_int("moe_shared_expert_intermediate_size",
                                                       "shared_experts_intermediate_size")
    for _ in sparse:
        t.add("mlp", n_exp * hidden + gated_mlp(hidden, shared))
        t.experts(3 * hidden * inter_e, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    t.add("norms", hidden)
    lm_head(f, t, hidden, vocab)


# Dots3NoteVisionConfig.__post_init__: routed experts per layer when the config lists neither mlp_layer_types nor
# pyramid_num_routed (-1: a dense layer)
_DOTS3_PYRAMID = [-1] * 25 + list(range(4, 65, 4)) + [64]


_DOTS3_VISION_LAYER = ("num_local_experts", "num_experts_per_tok", "moe_intermediate_size", "intermediate_size")


def _dots3_vision(v: ConfigReader) -> tuple[int, int, int]:
    """Dots3-Note's vision tower (modeling_dots3_note.py Dots3NoteVisionModel, VisionPatchEmbed, VisionBlock,
    VisionAttention, VisionMLP, VisionMoE, VisionMerger). Patch conv ``C*p*p*H + H`` + RMSNorm ``H``; per block
    norm1, norm2 ``2*H``, qkv ``H*3H`` and proj ``H*H`` (+ biases with attention_bias), q/k norms ``2*H/n``, then a
    dense MLP ``3*H*I`` (+ biases with mlp_bias) or, on "sparse" layers, a router ``E_i*H`` and ``E_i`` experts
    ``3*H*I_e`` (no shared expert; e_score_correction_bias is a buffer); per-layer ``E_i`` / widths from
    per_layer_config, else from pyramid_num_routed (default 25 dense layers, then 4, 8, ..., 64, 64 experts);
    final RMSNorm ``H``; merger: LayerNorm ``2*A`` and two linears ``A s^2 -> A s^2 -> O`` with biases
    (``A`` = adapter_in_dim, ``s`` = adapter_merge_size, ``O`` = adapter_out_dim). Legacy embed_dim / num_heads /
    use_bias override hidden_size / num_attention_heads / attention_bias, as the config class does. Returns
    (tower parameters, of which routed experts, of those the ones a token uses: ``k_i`` experts per layer, ``k_i``
    = the layer's num_experts_per_tok, default capacity_factor or 2, at most ``E_i``)."""
    hidden, heads = v.get_int("embed_dim", "hidden_size"), v.get_int("num_heads", "num_attention_heads")
    if hidden % heads:
        raise ConfigError(v.field_name("hidden_size"), hidden, f"is not divisible by num_attention_heads ({heads})")
    bias, mlp_bias = v.get_bool("use_bias", "attention_bias"), v.get_bool("mlp_bias")
    n_layers, patch = v.get_int("num_hidden_layers"), v.get_int("patch_size")
    pyramid = v.opt_int_list("pyramid_num_routed", minimum=-1)
    if pyramid is None and not v.has("mlp_layer_types"):
        pyramid = _DOTS3_PYRAMID
    if pyramid is not None:
        kinds = ["sparse" if count > 0 else "dense" for count in pyramid][:n_layers]
    else:
        kinds = (v.opt_str_list("mlp_layer_types") or [])[:n_layers]
    if len(kinds) < n_layers:
        raise ConfigError(v.field_name("mlp_layer_types"), f"<{len(kinds)} entries>",
                          f"lists fewer entries than the {n_layers} layers")
    overrides = _per_layer_config(v, n_layers, _DOTS3_VISION_LAYER)
    top_k = v.opt_int("num_experts_per_tok") or v.get_int("capacity_factor", default=2)
    if pyramid is not None and not v.has("per_layer_config"):
        overrides = [{"num_local_experts": count, "num_experts_per_tok": min(top_k, count)} if count > 0 else {}
                     for count in pyramid[:n_layers]]
    experts = active = 0
    n = linear(v.get_int("num_channels") * patch * patch, hidden, True) + hidden
    n += n_layers * (2 * hidden + linear(hidden, 3 * hidden, bias) + linear(hidden, hidden, bias)
                     + 2 * (hidden // heads))
    for i, kind in enumerate(kinds):
        o = overrides[i]

        def get(name: str, o: dict[str, Any] = o, i: int = i, default: int | None = None) -> int:
            if name in o:
                return ConfigReader.check_int(f"{v.path}per_layer_config.{i}.{name}", o[name])
            return v.get_int(name, default=default)

        if kind == "sparse":
            n_exp, per_expert = get("num_local_experts"), 3 * hidden * get("moe_intermediate_size")
            n += n_exp * hidden + n_exp * per_expert
            experts += n_exp * per_expert
            active += min(get("num_experts_per_tok", default=top_k), n_exp) * per_expert
        elif kind == "dense":
            n += gated_mlp(hidden, get("intermediate_size"), mlp_bias)
        else:
            raise ConfigError(f"{v.path}mlp_layer_types[{i}]", kind, "must be 'dense' or 'sparse'")
    ctx, merge, out = v.get_int("adapter_in_dim"), v.get_int("adapter_merge_size"), v.get_int("adapter_out_dim")
    wide = ctx * merge * merge
    return n + hidden + 2 * ctx + linear(wide, wide, True) + linear(wide, out, True), experts, active


_WHISPER_NAMES = {"hidden_size": "d_model", "num_attention_heads": "encoder_attention_heads",
                  "num_hidden_layers": "encoder_layers", "intermediate_size": "encoder_ffn_dim",
                  "feature_size": "num_mel_bins"}


def _dots3_audio(a: ConfigReader) -> dict[str, int]:
    """Dots3-Note's audio tower (modeling_dots3_note.py Dots3NoteAudioModel, AudioConvStem, AudioLayer,
    AudioAttention, AudioMLP, AudioAdapter). Conv stem: three 3x3 convs ``1 -> D -> D -> D`` with biases
    (``D`` = downsample_hidden_size), conv_out ``D*ceil(F/8)*H`` (``F`` = feature_size); per layer q, v, o
    ``H*H`` + biases with attention_bias, k ``H*H`` without, 2 RMSNorms ``2*H``, gate_up ``H*2I + 2I``, down
    ``I*H + H``; final RMSNorm ``H``; adapter LayerNorm ``2*A_in``, fc1 ``A_in*A_out + A_out``, fc2
    ``A_out*A_out + A_out``. The released checkpoints' whisper_config (d_model, encoder_layers, ...) and
    whisper_adapter_* / adapter_output_size fields override, as Dots3NoteAudioConfig.__post_init__ does.
    By part, as for the other audio towers: convs in other, attention, MLPs and adapter linears in mlp, norms."""
    whisper = a.sub("whisper_config")

    def get(name: str) -> int:
        legacy = _WHISPER_NAMES.get(name)
        if whisper is not None and legacy is not None and whisper.has(legacy):
            return whisper.get_int(legacy)
        return a.get_int(name)

    hidden, heads, n_layers, inter = (get("hidden_size"), get("num_attention_heads"), get("num_hidden_layers"),
                                      get("intermediate_size"))
    if hidden % heads:
        raise ConfigError(a.field_name("hidden_size"), hidden, f"is not divisible by num_attention_heads ({heads})")
    bias, down = a.get_bool("attention_bias"), a.get_int("downsample_hidden_size")
    a_in = a.get_int("whisper_adapter_in_dim", "adapter_input_size")
    a_out = a.get_int("whisper_adapter_out_dim", "adapter_output_size", "adapter_out_dim")
    return {"other": (9 + 1) * down + 2 * (9 * down * down + down) + down * ((get("feature_size") + 7) // 8) * hidden,
            "attention": n_layers * (3 * linear(hidden, hidden, bias) + hidden * hidden),
            "mlp": n_layers * (linear(hidden, 2 * inter, True) + linear(inter, hidden, True))
            + linear(a_in, a_out, True) + linear(a_out, a_out, True),
            "norms": n_layers * 2 * hidden + hidden + 2 * a_in}


def dots3_note(top: ConfigReader, t: Tally) -> None:
    """Dots3NoteForConditionalGeneration: the dots3_note_text decoder (:func:`dots3_note_text`; without a
    text_config, the top-level fields, where the published checkpoints keep them: Dots3NoteConfig.__post_init__),
    the vision tower and its merger (:func:`_dots3_vision`, counted as vision; its routed experts also in
    ``moe_experts``, with their top-k in ``active``), the audio tower and adapter
    (:func:`_dots3_audio`); lm_head ``V*H`` unless the top-level tie_word_embeddings
    (default false) ties it."""
    text = typed(top, "dots3_note_text") if top.data.get("text_config") is None else sub_config(
        top, "text_config", "dots3_note_text", {})
    if text.model_type != "dots3_note_text":
        raise UnsupportedError(f"{top.path}text_config.model_type '{text.model_type}' is not counted for dots3_note "
                               "(expected dots3_note_text)")
    inner = Tally()
    dots3_note_text(text, inner)
    t.add_decoder(inner)
    t.tied = top.get_bool("tie_word_embeddings")
    if not t.tied:
        t.add("lm_head", text.get_int("vocab_size") * text.get_int("hidden_size"))
    tower, experts, active = _dots3_vision(sub_config(top, "vision_config", "dots3_note_vision_encoder", {}))
    t.add("vision", tower)
    t.moe_experts += experts        # routed experts of the tower: in moe_experts and active, though counted as vision
    t.moe_active += active
    for part, n in _dots3_audio(sub_config(top, "audio_config", "dots3_note_audio_encoder", {})).items():
        t.add(part, n)
