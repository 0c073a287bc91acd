"""One registry entry per model type: everything about a ``model_type`` that is not generic.

Both the spec reader (:func:`kvcalc.architectures.read_spec`) and the parameter counter
(:func:`kvcalc.params.count_params`) take every type-specific fact from here:

* ``kind``: ``"decoder"``, ``"encoder_decoder"`` or ``"no_cache"`` (encoders, vision towers: no KV cache);
* ``same_as``: a Hub model type transformers builds with another type's classes (``kimi_k2`` ->
  ``deepseek_v3``); every other field is then the target's;
* ``text_type``: for a multimodal wrapper, the ``model_type`` of its ``text_config`` decoder (for an encoder-decoder
  with the ``nested_decoder`` quirk, the default ``model_type`` of its ``decoder``);
* ``defaults``: the transformers 5.24 config-class defaults for the fields kvcalc reads (a config that
  omits a field gets these, exactly as when transformers builds the model; ``None`` = derived);
* ``layer_rule``: the per-layer type list the config class derives in ``__post_init__`` when the
  config gives no ``layer_types`` (``None``: transformers' generic rule in
  ``cache_utils.get_layer_types_and_kwargs``);
* ``state_rule`` / ``recurrent_kind``: the conv / SSM / linear-attention state of its recurrent layers
  (elements per sequence) and the kvcalc layer kind of those layers; ``kv_state_rule``: states a hybrid
  layer adds that follow its own attention geometry;
* ``params``: the parameter-count family in :mod:`kvcalc.params` (``None``: not countable, with
  ``not_countable`` saying why), with ``attn_bias``, ``mlp_bias``, ``norms_per_layer`` and ``moe``
  for the Llama-style family;
* ``quirks``: named departures from the family's rule (:data:`QUIRKS`);
* ``vision``: for a vision-language wrapper counted by :mod:`kvcalc.params_vision` (``params="multimodal"``),
  its tower type, projector rule and default sub-configs (:class:`Vision`);
* ``attribute_map``: the config class's own field names for canonical ones (Kosmos-2.5's ``embed_dim`` for
  ``hidden_size``), read by both readers before the generic aliases.

To add a model type, add ONE :class:`ModelType` to :data:`_ENTRIES` (reuse a layer or state rule
when the config class derives its layers the same way), then a tiny config to ``tests/tiny_models.py``
so the ground-truth tests compare it with transformers. ``tests/test_model_types.py`` checks that the
registry is consistent and that its defaults equal transformers' class defaults. A type that
transformers 5.24 ships is also replayed against its measured cache and parameter count by
``tests/test_transformers_coverage.py`` (remove it from that file's miss list once it matches), and
``python tests/oracles/coverage_table.py`` regenerates docs/architectures.md.

A registered type reads as ``quality="exact"``; a type kvcalc does not list is read with the generic
conventions of :mod:`kvcalc.architectures` and marked ``estimated``, every assumption in its warnings.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from .config import ConfigReader
from .errors import ConfigError
from .spec import AttentionCache, RecurrentState

LayerRule = Callable[[ConfigReader, int, "int | None"], "list[str] | None"]
"""(decoder reader, layer count, sliding window or None) -> transformers layer types, one per layer
(None: this config takes transformers' generic rule)."""
StateRule = Callable[[ConfigReader, int], tuple[RecurrentState, ...]]
"""(decoder reader, hidden size) -> the states one recurrent layer holds per sequence (elements)."""
KVStateRule = Callable[[ConfigReader, AttentionCache], tuple[RecurrentState, ...]]
"""(decoder reader, the layer's attention cache) -> further states a hybrid layer holds that depend on its
own attention geometry (Inkling's short convolutions over K and V: sliding layers have other heads)."""

QUIRKS = {
    # spec reader
    "last_layer_full": "transformers forces the last layer to full attention (Gemma 4)",
    "global_head_dim": "without per_layer_config, full-attention layers use global_head_dim (default 512, "
                       "as Gemma 4 checkpoints) and, with attention_k_eq_v, num_global_key_value_heads",
    "falcon_kv": "KV heads from new_decoder_architecture / multi_query; the new architecture caches K/V "
                 "expanded to every query head",
    "multi_query": "multi_query: true means one KV head (GPTBigCode)",
    "multi_query_attention": "KV heads = multi_query_group_num only with multi_query_attention (ChatGLM)",
    "attention_pairs": "each of the num_layers decoder layers holds two MLA sublayers, each with its own "
                       "cache (cache layers 2i and 2i+1: LongCat-Flash)",
    "swa_double_kv": "sliding layers have twice num_key_value_heads; sliding_window_size (the Hub field) "
                     "means a window of sliding_window_size + 1 (MiMo-V2-Flash)",
    "attn_config_kv": "KV heads are attn_config.kv_n_heads (default 1), which DbrxConfig copies over "
                      "num_key_value_heads (DBRX)",
    "shared_indexer": "without indexer_types, only layers 0, 1, 5, 9, ... ((i - 1) % 4 == 0) hold a DSA indexer, "
                      "the others reuse its top-k (HY-V4; parameter counter)",
    "v_head_dim": "v_proj and o_proj use v_head_dim, not head_dim (MiMo-V2-Flash; parameter counter)",
    "nope_mla": "MLA layers flagged 0 in no_rope_layers (default: every 4th) cache kv_lora_rank elements, "
                "no RoPE key (Mistral Large 4)",
    "pooled_indexer": "the DSA indexer caches key, pool-gate scores and a validity channel per token: "
                      "2 * index_head_dim + 1 elements (GLM-5 Next)",
    "float32_indexer": "the DSA indexer keys are cached in float32: the indexer's RoPE uses float32 cos/sin "
                       "and torch.cat promotes the key (Dots3-Note)",
    "loop_passes": "layers loop_layer_index_start..loop_layer_index_end - 1 run loop_num_passes times, each "
                   "pass with its own cache layers, appended after the model's layers (Inkling2-Loop)",
    "doubled_attention_head_dim": "head_dim defaults to 2 * hidden_size / num_attention_heads (Zamba2)",
    # INK (issue 12)
    "prefix_cache": "block diffusion: only the prefix the encoder writes (prompt and finished canvases) is cached; "
                    "the canvas being denoised reads it without writing (DiffusionGemma); kvcalc charges the context "
                    "as an autoregressive decoder's and marks the figure estimated",
    "prompt_prefix": "every layer caches prompt_length learned prompt tokens before each sequence's input "   # PD
                     "(CpmAntModel.forward prepends them; CPM-Ant)",
    "recurrent_depth": "a released layer_types of (attention, mlp) pairs is one decoder layer per pair; with "
                       "recurrent_kv_cache_mode 'per_loop' the n_recurrent_layers after n_input_layers get their own "
                       "cache layers for each of n_recurrent_loops - 1 further loops, appended at the end (Dory)",
    # parameter counter (Llama-style family)
    "qk_norm": "q/k RMSNorms of head_dim on every attention layer",
    "dsa_indexer": "each layer adds the DeepSeek sparse-attention indexer (wq_b, wk, k_norm, weights_proj); "
                   "with indexer_types only the 'full' layers (GLM-MoE-DSA)",
    "dense_mla": "MLA attention with a dense MLP in every layer (MiniCPM3, Youtu)",
    "moe_post_norm": "MoE layers add a post_mlp_layernorm of H (A.X-K1)",
    "head_softplus_gate": "g_proj H -> n_q (gating true / 'per-head') or H -> n_q*d gates the attention output "
                          "(Laguna); num_attention_heads_per_layer must be uniform",
    "floor_head_dim": "head_dim defaults to hidden_size // num_attention_heads even when it does not divide",
    "use_head_qk_norm": "with use_qk_norm, q/k RMSNorms of head_dim (GLM-4.5 MoE)",
    "full_qk_norm": "q/k RMSNorms over all heads (n_q*d and n_kv*d) on every attention layer (OLMo 2 / 3, OLMoE)",
    "use_qk_norm": "with use_qk_norm, q/k norms over all heads, n_q*d and n_kv*d (Cohere)",
    "attention_sinks": "one learned sink per query head",
    "gated_q_proj": "an output gate of n_q*d: q_proj doubled (Qwen3-Next) or a gate_proj (AFMoE)",
    "layer_norm": "LayerNorms with bias and a plain (non-gated) MLP (StarCoder2)",
    "gated_delta_net": "linear_attention layers are gated-DeltaNet mixers (Qwen3-Next)",
    "falcon_h1_mixer": "every layer holds attention and a Mamba-2 mixer of mamba_d_ssm (default expand*H); its "
                       "gated norm only with mamba_rms_norm; out_proj bias with projectors_bias (Falcon-H1)",
    "lightning_attention": "linear_attention layers are MiniMax lightning attention (qkv_proj, out_proj, "
                           "output_gate, norm; counted as attention)",
    "shared_expert_gate": "MoE layers add a shared expert and its sigmoid gate",
    "shared_expert": "MoE layers add a shared expert of intermediate_size",
    "expert_bias": "router and expert projections have biases (gpt-oss)",
    "dense_mlp_width": "dense layers use intermediate_size_mlp (Llama 4)",
    "plain_mlp": "dense MLP of up/down projections only, no gate (Arcee, Apertus)",
    "norm_bias": "every norm is a LayerNorm with a bias (2*H each)",
    "no_norm_weights": "the norms hold no parameters (OLMo's non-affine LayerNorm)",
    "xielu": "the MLP activation xIELU holds 2 scalars (alpha_p, alpha_n) per layer (Apertus)",
    "qk_layernorm": "with qk_layernorm, q/k norms of head_dim (Persimmon, Phi)",
    "per_head_qk_layernorm": "with qk_layernorm, one LayerNorm of head_dim per q and per k head (StableLM)",
    "parallel_residual": "with use_parallel_residual, no post_attention_layernorm (StableLM)",
    "shared_experts": "MoE layers add shared experts: one gated MLP of n_shared x the expert width (Aria)",
    "router_score_bias": "MoE routers hold a score-correction bias of E as a parameter (AFMoE)",
    "no_shared_experts": "dense-first MoE without shared experts (Beam)",
    "head_gate_bias": "the attention output gate has a bias of one value per query head (Beam)",
    "sub_norms": "an RMSNorm of H before o_proj and one of I before down_proj in every layer (BitNet)",
    "diff_lambdas": "differential attention: 4 lambda vectors of head_dim per layer (DiffLlama)",
    "mlp_4h": "an unset MLP width means 4 * hidden_size",
    "no_per_layer_inputs": "no per-layer input embeddings and no MoE block: the config class deletes "
                           "hidden_size_per_layer_input and enable_moe_block (Gemma 4 Unified)",
    "mha": "multi-head attention only: the class has no num_key_value_heads (a config's value is ignored)",
    "sized_shared_expert": "MoE layers add one ungated shared expert of shared_expert_intermediate_size (Flint; "
                           "GraniteMoeShared: shared_intermediate_size, none when 0)",
    # HYB (issue 12): hybrid / linear-attention families (kvcalc.params, HYB section)
    "kda_from_attention": "Kimi delta attention heads / head dim / conv kernel default to num_attention_heads, "
                          "head_dim and short_conv_kernel_size (Bailing hybrid)",
    "kda_full_gates": "Kimi delta attention's forget and output gates are full H -> h*d projections, not "
                      "low-rank pairs (Bailing hybrid)",
    "mla_head_gate": "MLA layers add a per-head output gate g_proj H -> n (Bailing hybrid)",
    "glm5_next_hc": "indexed_attention layers are MLA with a pooled DSA indexer, and every layer holds two "
                    "hyper-connections of hc_mult streams (GLM-5 Next)",
    "flat_text": "a config without text_config holds the decoder's fields at the top level (GLM-5 Next)",
    "zamba2_blocks": "Mamba-2 mixers, num_mem_blocks shared blocks and per-hybrid-layer LoRA adapters (Zamba2)",
    "lfm3_attention": "sliding_attention layers too; attention biases with attention_bias, an output gate "
                      "g_proj H -> n_q with use_attention_gate, sandwich norms with use_sandwich_norm (LFM3)",
    # parameter counter (encoder-decoders: kvcalc.params_seq2seq, kvcalc.params._t5)
    "positions_offset_2": "learned position tables of max_position_embeddings + 2 rows (BART)",
    "positions_buffer": "sinusoidal position tables are buffers, not parameters (M2M100, PEGASUS-X)",
    "positions_pad_offset": "sinusoidal position tables of max_position_embeddings + pad_token_id + 1 rows (FSMT)",
    "led_positions": "learned tables of max_encoder_position_embeddings / max_decoder_position_embeddings rows",
    "layernorm_embedding": "a LayerNorm after the embeddings of each stack",
    "final_layer_norm": "a LayerNorm after the last layer of each stack",
    "no_attention_bias": "attention projections without biases (PEGASUS-X)",
    "use_bias": "attention projections with biases only with use_bias (BigBird-Pegasus)",
    "longformer_global": "encoder attention adds global q/k/v projections (LED)",
    "global_tokens": "embed_global table and a global-token LayerNorm per encoder layer (PEGASUS-X)",
    "marian_embeddings": "share_encoder_decoder_embeddings / decoder_vocab_size decide the token tables (Marian)",
    "fsmt_embeddings": "separate src_vocab_size / tgt_vocab_size tables (FSMT)",
    "relative_bias_every_layer": "every self-attention layer has its own relative-position bias (UMT5)",
    "transient_global": "with encoder_attention_type 'transient-global', a global relative bias (block 0) and "
                        "a global-input LayerNorm per encoder layer (LongT5)",
    "mvp_prompts": "with use_prompt, the decoder's self- and cross-attention prompt networks (MVP)",
    # S2S (issue 12): spec reader
    "nested_decoder": "the decoder is the nested 'decoder' config (default: text_type's class defaults), read by the "
                      "decoder reader; every layer adds a cross-attention cache of its KV heads x head_dim",
}

NOT_COUNTED = "its modules are not counted yet (kvcalc never guesses a count)"


_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Vision:
    """How :mod:`kvcalc.params_vision` counts one vision-language wrapper.

    ``tower``: the ``vision_config`` model_type the config class assumes; ``projector``: the rule in
    ``params_vision.PROJECTORS``; ``vision_defaults`` / ``text_defaults``: the fields the wrapper's config class
    sets on the sub-config it builds when the config has no ``vision_config`` / ``text_config`` (over that
    sub-type's own class defaults; a sub-config the file gives takes only its type's class defaults);
    ``image_newline``: the model holds a learned ``image_newline`` vector of the decoder width (LLaVA-NeXT),
    counted as ``other``; ``optional``: the config class builds no tower without a ``vision_config`` (Gemma 4);
    ``refused``: top-level sub-configs (audio towers) kvcalc does not count, refused when present; ``tie``: whose
    ``tie_word_embeddings`` ties lm_head: the wrapper's (``"top"``), the text_config's (``"text"``: the head lives
    in a text ``...ForCausalLM``, Llama 4) or nobody's (``"never"``: the class declares no ``_tied_weights_keys``);
    ``fixed_tower``: the config class builds ``tower`` whatever model_type the vision_config names.
    """

    tower: str
    projector: str
    vision_defaults: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    text_defaults: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    image_newline: bool = False
    optional: bool = False
    refused: tuple[str, ...] = ()
    tie: Literal["top", "text", "never"] = "top"
    fixed_tower: bool = False


@dataclass(frozen=True)
class Audio:
    """How :mod:`kvcalc.params_seq2seq` counts one audio-language wrapper: ``tower``, the ``audio_config``
    model_type; ``projector``, its rule (``params_seq2seq._audio_projector``); ``text_defaults``, the fields the
    wrapper's config class merges under a given ``text_config`` (Voxtral's ``__post_init__``); ``tied_head``,
    whether tie_word_embeddings can tie lm_head (the class declares ``_tied_weights_keys``); ``absent_text``, the
    text fields its ``SubConfigSpec.init_kwargs`` give when the config has no ``text_config``."""

    tower: str
    projector: Literal["linear", "mlp", "stacked", "qwen3_asr", "merged", "glmasr"]
    text_defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    tied_head: bool = False            # the class declares _tied_weights_keys for lm_head
    absent_text: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # init_kwargs, no text_config


@dataclass(frozen=True)
class ModelType:
    """What is special about one ``model_type`` (module docstring)."""

    name: str
    kind: Literal["decoder", "encoder_decoder", "no_cache"] = "decoder"
    same_as: str | None = None
    text_type: str | None = None
    audio: Audio | None = None         # an audio-language wrapper's tower and projector (kvcalc.params_seq2seq)
    defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    layer_rule: LayerRule | None = None
    state_rule: StateRule | None = None
    kv_state_rule: KVStateRule | None = None
    recurrent_kind: Literal["mamba", "linear", "conv"] = "mamba"
    params: str | None = None
    not_countable: str = NOT_COUNTED
    attn_bias: tuple[str | bool, str | bool] = ("attention_bias", "attention_bias")
    mlp_bias: str | bool = False
    norms_per_layer: int = 2
    moe: Literal["all", "sparse_step", "interleave", "first_dense", "index_range"] | None = None
    quirks: frozenset[str] = frozenset()
    vision: Vision | None = None
    mlp_width: str = "intermediate_size"      # the config field of the dense MLP width (CTRL: dff)
    positions: int | None = None              # learned position table of max_position_embeddings + this rows
    dense_first: int | None = None            # dense-first layers the class fixes when the config lists none
    head_bias: str | bool = False             # the flag (or fixed value) of lm_head's bias (kept when tied)
    expert_width: str | None = None           # the config field of a routed expert's width (None: the moe mode's)
    attribute_map: Mapping[str, str] = field(default_factory=lambda: _EMPTY)  # S2S: the class's attribute_map


# ----------------------------------------------------------------------------- layer rules
def _every(period: int, on: str, off: str) -> Callable[[int], list[str]]:
    """n -> ``on`` for every ``period``-th layer (``(i + 1) % period == 0``), ``off`` for the others."""
    return lambda n: [on if (i + 1) % period == 0 else off for i in range(n)]


def _fixed_pattern(period: int) -> LayerRule:
    """Every ``period``-th layer full, the others sliding (Olmo 3: 4; Gemma 3n: 5; Gemma 4: 6)."""
    return lambda r, n, window: _every(period, "full_attention", "sliding_attention")(n)


def _field_pattern(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Every ``sliding_window_pattern``-th layer full (Gemma 3, Cohere 2, EXAONE 4)."""
    return _every(r.get_int("sliding_window_pattern"), "full_attention", "sliding_attention")(n)


def _qwen_window(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Qwen2/3: with use_sliding_window and a window, layers from ``max_window_layers`` on slide."""
    if not r.get_bool("use_sliding_window", default=False) or window is None:
        return ["full_attention"] * n
    mwl = r.get_int("max_window_layers", minimum=0)
    return ["sliding_attention" if i >= mwl else "full_attention" for i in range(n)]


def _window_all(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Qwen3-MoE: the config class keeps ``sliding_window`` only with use_sliding_window, and then
    transformers' generic rule windows every layer (``max_window_layers`` is not a field)."""
    slide = r.get_bool("use_sliding_window", default=False) and window is not None
    return ["sliding_attention" if slide else "full_attention"] * n


def _qwen2_moe(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Qwen2-MoE: even-numbered layers below ``max_window_layers`` slide, with use_sliding_window."""
    use = r.get_bool("use_sliding_window", default=False)
    mwl = r.get_int("max_window_layers", minimum=0)
    return ["sliding_attention" if (i + 1) % 2 and i < mwl and use else "full_attention" for i in range(n)]


def _linear_interval(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Qwen3-Next: every ``full_attention_interval``-th layer full, the others linear attention."""
    return _every(r.get_int("full_attention_interval"), "full_attention", "linear_attention")(n)


def _kimi_linear(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Kimi Linear: ``linear_attn_config.full_attn_layers`` (1-indexed) full, the others linear; without
    it every 4th layer from layer 4 (``i and i % 4 == 0``) is full (``KimiLinearConfig.__post_init__``, which
    reads the lists only when kda_layers is given too)."""
    lac = r.sub("linear_attn_config")
    if lac is None or not lac.has("full_attn_layers") or not lac.has("kda_layers"):
        return ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(n)]
    full = set(lac.get_int_list("full_attn_layers", default=[], minimum=1))
    return ["full_attention" if i + 1 in full else "linear_attention" for i in range(n)]


def _lfm3(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """LFM3: layer ``i % 4 == 2`` full, ``i % 4 == 0`` (not 0) sliding, the others short convolutions
    (``Lfm3Config.__post_init__``)."""
    return ["full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i else "conv"
            for i in range(n)]


def _lara_mini(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Lara-Mini: the released period-5 pattern linear, sliding, linear, full, sliding
    (``LaraMiniConfig.__post_init__``)."""
    pattern = ("linear_attention", "sliding_attention", "linear_attention", "full_attention", "sliding_attention")
    return [pattern[i % 5] for i in range(n)]


def _olmo_hybrid(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """OLMo Hybrid: every 4th layer (``i % 4 == 3``) full, the others gated DeltaNet; with no full layer
    the last is full (``OlmoHybridConfig.__post_init__``)."""
    types = ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(n)]
    if "full_attention" not in types and types:
        types[-1] = "full_attention"
    return types


def _inkling(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Inkling: the layers in ``local_layer_ids`` (default: all but every 6th) sliding hybrids, the others
    full hybrids (``InklingConfig`` / ``Inkling2Config.__post_init__``; Inkling 2 has no local_layer_ids)."""
    local = set(r.get_int_list("local_layer_ids", default=[i for i in range(n) if (i + 1) % 6]))
    return ["hybrid_sliding" if i in local else "hybrid" for i in range(n)]


def dory_cache_types(r: ConfigReader, types: list[str]) -> list[str]:
    """Dory (INK, issue 12): the cache layer types transformers 5.24 builds, from the config's layer types.

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


def _group_last_full(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Bailing hybrid: the last layer of each ``layer_group_size`` group full, the others KDA
    (``BailingHybridConfig.__post_init__``)."""
    return _every(r.get_int("layer_group_size"), "full_attention", "linear_attention")(n)


def _llama4(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Llama 4: RoPE layers (``no_rope_layers`` flag 1, else all but every ``no_rope_layer_interval``-th)
    are chunked when ``attention_chunk_size`` is set."""
    chunk = r.opt_int("attention_chunk_size")
    flags = r.opt_int_list("no_rope_layers")
    if flags is None:
        interval = r.get_int("no_rope_layer_interval")
        flags = [int((i + 1) % interval != 0) for i in range(n)]
    return ["chunked_attention" if f and chunk is not None else "full_attention" for f in flags[:n]]


def _jamba(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Jamba: attention where ``i % attn_layer_period == attn_layer_offset``, else Mamba."""
    period, offset = r.get_int("attn_layer_period"), r.get_int("attn_layer_offset", minimum=0)
    return ["attention" if i % period == offset else "mamba" for i in range(n)]


def _listed(field_name: str, on: str, off: str, every_by_default: bool = False) -> LayerRule:
    """``on`` for the layer indices listed in ``field_name`` (default: none, or all), else ``off``."""
    def rule(r: ConfigReader, n: int, window: int | None) -> list[str]:
        listed = set(r.get_int_list(field_name, default=list(range(n)) if every_by_default else []))
        return [on if i in listed else off for i in range(n)]
    return rule


def _listed_only(field_name: str) -> LayerRule:
    """Types whose configs list their layers (Zamba2 ``layers_block_type``, Nemotron-H
    ``hybrid_override_pattern``): transformers rejects a config whose layer count differs from its
    default list, so a config without the list is refused rather than guessed."""
    def rule(r: ConfigReader, n: int, window: int | None) -> list[str]:
        raise ConfigError(r.path + field_name, None,
                          f"required field is missing ({r.model_type} configs list their {n} layer types)")
    return rule


def _zamba_layers(r: ConfigReader, n: int, window: int | None) -> list[str]:
    """Zamba: layers 0, 1 Mamba, layer 2 hybrid, then hybrid where ``(i - 3) % attn_layer_period ==
    attn_layer_offset`` (``ZambaConfig.__post_init__``; HYB, issue 12)."""
    period, offset = r.get_int("attn_layer_period"), r.get_int("attn_layer_offset", minimum=0)
    head = ["linear_attention", "linear_attention", "hybrid"][:n]
    return head + ["hybrid" if i % period == offset else "linear_attention" for i in range(n - 3)]


# Zamba2Config.__post_init__'s layers_block_type when the config gives none (54 layers)
_ZAMBA2_LAYERS = (["linear_attention"] + (["linear_attention"] * 5 + ["hybrid"]) * 7 + ["linear_attention"] * 4
                  + ["hybrid"] + ["linear_attention"] * 3 + ["hybrid"] + ["linear_attention"] * 2)


def _zamba2_layers(r: ConfigReader, n: int, window: int | None) -> list[str] | None:
    """Zamba2: without layers_block_type, the class's 54-layer list; transformers rejects any other layer count
    (validate_layer_type), so a config of another count without the list is refused (HYB, issue 12)."""
    if n == len(_ZAMBA2_LAYERS):
        return list(_ZAMBA2_LAYERS)
    return _listed_only("layers_block_type")(r, n, window)


def _all(layer_type: str) -> LayerRule:
    return lambda r, n, window: [layer_type] * n


# ----------------------------------------------------------------------------- state rules
def _conv_ssm(conv: int, ssm: int, kernel: int) -> tuple[RecurrentState, ...]:
    """A conv state of ``conv`` channels x ``kernel`` and an SSM state of ``ssm`` elements."""
    return (RecurrentState("conv", conv * kernel, kernel), RecurrentState("ssm", ssm))


def _mamba_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Mamba: ``I = intermediate_size or expand*H``; conv ``I x conv_kernel``, SSM ``I x state_size``."""
    inter = r.opt_int("intermediate_size") or int(r.get_float("expand") * hidden)
    return _conv_ssm(inter, inter * r.get_int("state_size"), r.get_int("conv_kernel"))


def _jamba_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Jamba: ``I = mamba_expand*H``; conv ``I x mamba_d_conv``, SSM ``I x mamba_d_state``."""
    inter = r.get_int("mamba_expand") * hidden
    return _conv_ssm(inter, inter * r.get_int("mamba_d_state"), r.get_int("mamba_d_conv"))


def _gated_delta_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Gated DeltaNet (Qwen3-Next): conv ``(2*n_k*d_k + n_v*d_v) x K``, state ``n_v x d_k x d_v``."""
    kh, vh = r.get_int("linear_num_key_heads"), r.get_int("linear_num_value_heads")
    kd, vd = r.get_int("linear_key_head_dim"), r.get_int("linear_value_head_dim")
    return _conv_ssm(2 * kh * kd + vh * vd, vh * kd * vd, r.get_int("linear_conv_kernel_dim"))


def olmo_hybrid_linear(r: ConfigReader) -> ConfigReader:
    """``r`` with OlmoHybridConfig.__post_init__'s derived gated-DeltaNet geometry as its class defaults (HYB,
    issue 12): linear key / value heads = num_attention_heads, key head dim ``int(0.75 * H / n_k)``, value head
    dim twice the key head dim, each unless the config gives it."""
    n_q = r.get_int("num_attention_heads")
    n_k = r.opt_int("linear_num_key_heads") or n_q
    d_k = r.opt_int("linear_key_head_dim") or int(0.75 * r.get_int("hidden_size") / n_k)
    derived = dict(linear_num_key_heads=n_k, linear_num_value_heads=r.opt_int("linear_num_value_heads") or n_q,
                   linear_key_head_dim=d_k, linear_value_head_dim=r.opt_int("linear_value_head_dim") or 2 * d_k)
    return r.with_defaults({**r.defaults, **derived}, r.model_type)


def _olmo_hybrid_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """OLMo Hybrid: gated DeltaNet states over the derived geometry of :func:`olmo_hybrid_linear`."""
    return _gated_delta_states(olmo_hybrid_linear(r), hidden)


def kda_dims(r: ConfigReader) -> tuple[int, int, int]:
    """(heads, head dim, conv kernel) of a Kimi delta attention layer (HYB, issue 12): KimiLinearConfig and
    Glm5NextTextConfig.__post_init__ take the Hub's ``linear_attn_config`` (num_heads, head_dim,
    short_conv_kernel_size) over the flat linear_* fields; BailingHybridConfig.__post_init__ sets those from
    num_attention_heads, head_dim and short_conv_kernel_size unless the config gives linear_* itself (quirk
    ``kda_from_attention``)."""
    entry = lookup(r.model_type)
    from_attention = entry is not None and "kda_from_attention" in entry.quirks
    lac = r.sub("linear_attn_config")
    out = []
    for flat, nested, attention in (("linear_num_heads", "num_heads", "num_attention_heads"),
                                    ("linear_head_dim", "head_dim", "head_dim"),
                                    ("linear_conv_kernel_dim", "short_conv_kernel_size", "short_conv_kernel_size")):
        value = lac.opt_int(nested) if lac is not None else None
        if value is None and from_attention and not r.has(flat) and r.has(attention):
            value = r.get_int(attention)
        out.append(value if value is not None else r.get_int(flat))
    return out[0], out[1], out[2]


def _kimi_delta_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Kimi delta attention (KDA): one short conv over the concatenated q, k, v (``3*h*d x K``, model dtype)
    and one ``d x d`` float32 state per head (``modeling_kimi_linear.KimiDeltaAttention.forward``;
    Bailing hybrid and GLM-5 Next use the same mixer), ``h, d, K`` from :func:`kda_dims`."""
    heads, hd, kernel = kda_dims(r)
    return _conv_ssm(3 * heads * hd, heads * hd * hd, kernel)


def _zaya_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Zaya CCA: a conv window over q and k, ``(n_q + n_kv) * d x ((cca_time0 - 1) + (cca_time1 - 1))``, and
    the previous token's delayed value projection, ``n_kv * d / 2``, both in the model dtype
    (``modeling_zaya.ZayaCCA.forward``: ``update_conv_state`` / ``update_recurrent_state``)."""
    heads, kv, hd = r.get_int("num_attention_heads"), r.get_int("num_key_value_heads"), r.get_int("head_dim")
    kernel = r.get_int("cca_time0") - 1 + r.get_int("cca_time1") - 1
    return (RecurrentState("conv", (heads + kv) * hd * kernel, kernel), RecurrentState("linear", kv * hd // 2))


def _inkling_kernel(r: ConfigReader) -> int:
    """The short-convolution width: ``sconv_kernel_size`` (checkpoints), an alias of ``conv_kernel_size``."""
    return r.opt_int("sconv_kernel_size") or r.get_int("conv_kernel_size")


def _inkling_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Inkling (1, 2, 2-Loop): the short convolutions after attention and after the MLP, ``H x K`` each, in
    float32 (``InklingShortConvolution``, conv states 2 and 3)."""
    k = _inkling_kernel(r)
    return (RecurrentState("conv", hidden * k, k, float32=True),) * 2


def _inkling_kv_states(r: ConfigReader, a: AttentionCache) -> tuple[RecurrentState, ...]:
    """Inkling: the short convolutions over the layer's keys and values (conv states 0 and 1),
    ``n_kv * d_k x K`` and ``n_kv * d_v x K`` in float32, with the sliding layers' ``swa_*`` geometry."""
    k = _inkling_kernel(r)
    return (RecurrentState("conv", a.kv_heads * a.k_head_dim * k, k, float32=True),
            RecurrentState("conv", a.kv_heads * a.v_head_dim * k, k, float32=True))


def _lightning_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """MiniMax lightning attention: one ``head_dim x head_dim`` state per head."""
    heads = r.get_int("num_attention_heads")
    hd = r.opt_int("head_dim") or hidden // heads
    return (RecurrentState("linear", heads * hd * hd),)


def _short_conv_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """LFM2 short convolution: ``H x conv_L_cache``."""
    kernel = r.get_int("conv_L_cache")
    return (RecurrentState("conv", hidden * kernel, kernel),)


def _zamba_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Zamba (v1) Mamba-1 mixer (transformers 5.24 ZambaMambaMixer / ZambaHybridDynamicCache): ``I =
    mamba_expand * H``; conv ``I x mamba_d_conv``, SSM ``I x mamba_d_state`` (split over n_mamba_heads)."""
    inter = int(r.get_float("mamba_expand") * hidden)
    return _conv_ssm(inter, inter * r.get_int("mamba_d_state"), r.get_int("mamba_d_conv"))


def _mamba2_like(expand: str, groups: str, state: str, heads: str, head_dim: str, conv: str,
                 inner: str | None = None) -> StateRule:
    """Mamba-2 mixers under each config's field names: ``I`` = ``inner`` or ``expand*H``, conv
    ``(I + 2*G*N) x K``, SSM ``heads x head_dim x N`` (``head_dim`` default ``I / heads``)."""
    def rule(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
        inter = (r.opt_int(inner) if inner else None) or int(r.get_float(expand) * hidden)
        g, n_state, nh = r.get_int(groups), r.get_int(state), r.get_int(heads)
        hd = inter // nh if r.data.get(head_dim) == "auto" else r.get_int(head_dim, default=inter // nh)
        return _conv_ssm(inter + 2 * g * n_state, nh * hd * n_state, r.get_int(conv))
    return rule


def _nemotron_h_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Nemotron-H: ``I = mamba_num_heads x mamba_head_dim`` (not expand x H), otherwise Mamba-2."""
    nh, hd = r.get_int("mamba_num_heads"), r.get_int("mamba_head_dim")
    g, n_state = r.get_int("n_groups"), r.get_int("ssm_state_size")
    return _conv_ssm(nh * hd + 2 * g * n_state, nh * hd * n_state, r.get_int("conv_kernel"))


# ----------------------------------------------------------------------------- class defaults
# transformers 5.24 config-class defaults of the fields kvcalc reads (checked against
# ``AutoConfig.for_model(model_type)`` by tests/test_model_types.py). ``None`` means derived:
# num_key_value_heads -> num_attention_heads, head_dim -> hidden_size // num_attention_heads.
_LLAMA_LIKE = dict(attention_bias=False, mlp_bias=False, tie_word_embeddings=False, head_dim=None)
_MAMBA2_FIELDS = dict(mamba_expand=2, mamba_n_groups=1, mamba_d_state=256, mamba_n_heads=128, mamba_d_conv=4)
_MAMBA2_PARAMS = dict(mamba_conv_bias=True, mamba_proj_bias=False, tie_word_embeddings=False, attention_bias=False)


def _d(*bases: Mapping[str, Any], **kw: Any) -> Mapping[str, Any]:
    """A read-only dict: ``bases`` merged in order, then ``kw`` (later values win)."""
    out: dict[str, Any] = {}
    for base in bases:
        out.update(base)
    return MappingProxyType({**out, **kw})


def _kv(n: int) -> Mapping[str, Any]:
    """Only ``num_key_value_heads`` differs from "= query heads" (a fixed class default)."""
    return _d(num_key_value_heads=n)


_NO_CACHE = ( "distilbert", "albert", "electra", "deberta", "deberta-v2", "xlm-roberta",
             "vit", "deit", "beit", "clip", "siglip", "convnext", "resnet", "swin", "dinov2", "mpnet",
             "camembert", "modernbert", "wav2vec2", "hubert", "sam", "detr", "segformer",
             "bert-generation", "nomic_bert", "xlm-roberta-xl", "longformer", "funnel")
_ENCODER_DECODER = ("blenderbot_small",)
# decoders with the generic layer rule, no fixed class defaults kvcalc needs, and no counter yet
_PLAIN_DECODERS = ("baichuan", "internlm2", "qwen")   # MOE (issue 12): its types moved to the MOE block


# ORA (issue 12): types first measured by the coverage oracle with their real image / audio inputs
# (tests/oracles/transformers_coverage.py MEDIA) whose cache the generic rules reproduce exactly: IDEFICS's
# Llama-style decoder (its gated cross-attention runs with cache=None, modeling_idefics.py), Voxtral
# Realtime's text decoder (the audio embeddings are added to the token embeddings; the audio encoder's
# streaming caches are separate Cache objects, not the text model's); IDEFICS is in the PA block, the
# Qwen2.5-Omni / Qwen3-Omni thinkers in the PB block, Voxtral Realtime in the PC block.
_ORA_DECODERS: tuple[str, ...] = ()
_ORA_WRAPPERS: dict[str, str] = {}
# Encoder-decoders with an image encoder, measured with their images (encoder tokens: the encoder's output
# length). UDOP (top level) and Pix2Struct's text model are T5 stacks (num_layers / num_heads / d_kv:
# UdopStack, Pix2StructTextModel); PP-FormulaNet's text model is an mBART-style decoder (decoder_layers /
# decoder_attention_heads / d_model: PPFormulaNetTextModel). Each decoder layer caches self-attention K/V
# and the cross-attention K/V of the encoder tokens (EncoderDecoderCache).
T5_STYLE = ("udop", "pix2struct_text_model")
_ORA_ENCODER_DECODERS: tuple[str, ...] = ()   # PC: pp_formulanet, pp_formulanet_text moved to _PC_ENTRIES

# PC (issue 12): Voxtral Realtime, counted by kvcalc.params._voxtral_realtime. VoxtralRealtimeConfig's
# sub_configs_defaults["text_config"].init_kwargs, merged under a given text_config too (its __post_init__).
VOXTRAL_REALTIME_TEXT = MappingProxyType(dict(
    vocab_size=131072, hidden_size=3072, intermediate_size=9216, num_hidden_layers=26, num_attention_heads=32,
    num_key_value_heads=8, head_dim=128, tie_word_embeddings=True))
# PC: ViTConfig's class defaults (parameter fields), read for VisionEncoderDecoderModel's encoder
VIT_DEFAULTS = MappingProxyType(dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                     intermediate_size=3072, image_size=224, patch_size=16, num_channels=3,
                                     qkv_bias=True, pooler_output_size=None))
_PC_ENTRIES: tuple[ModelType, ...] = (
    # the text decoder's KV: the generic rule (ORA); its attention and MLP have no biases (modeling_voxtral_realtime.py
    # VoxtralRealtimeTextAttention, VoxtralRealtimeTextMLP)
    ModelType("voxtral_realtime_text", attn_bias=(False, False)),
    ModelType("voxtral_realtime", text_type="voxtral_realtime_text", params="voxtral_realtime",
              defaults=_d(downsample_factor=4, tie_word_embeddings=True)),
    ModelType("voxtral_realtime_encoder", kind="no_cache", defaults=_d(    # VoxtralRealtimeEncoderConfig
        hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=32, num_mel_bins=128,
        head_dim=64)),
    # PP-FormulaNet (ORA's KV rule: an mBART-style decoder caching self- and cross-attention), counted by
    # kvcalc.params._pp_formulanet; defaults: PPFormulaNet(Text|Vision)Config (parameter fields)
    ModelType("pp_formulanet", kind="encoder_decoder", params="pp_formulanet"),
    ModelType("pp_formulanet_text", kind="encoder_decoder", defaults=_d(
        vocab_size=50000, max_position_embeddings=2560, decoder_layers=8, decoder_ffn_dim=2048,
        decoder_attention_heads=16, d_model=512)),
    ModelType("pp_formulanet_vision", kind="no_cache", defaults=_d(
        hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=512, patch_size=16, qkv_bias=True, use_abs_pos=True, use_rel_pos=True, window_size=14,
        global_attn_indexes=(2, 5, 8, 11), mlp_dim=3072, post_conv_in_channels=256, post_conv_out_channels=1024,
        post_conv_mid_channels=512, decoder_hidden_size=512)),
)

# ----------------------------------------------------------------------------- encoder-decoders (P3 block)
# Parameter families in kvcalc.params_seq2seq ("bart") and kvcalc.params ("t5"); the KV cache of every
# one is read by kvcalc.architectures' encoder-decoder rule. Defaults: transformers 5.24 config classes.
_BART_FIELDS = dict(vocab_size=50265, d_model=1024, encoder_layers=12, decoder_layers=12, encoder_ffn_dim=4096,
                    decoder_ffn_dim=4096, encoder_attention_heads=16, decoder_attention_heads=16,
                    max_position_embeddings=1024, tie_word_embeddings=True)


def _bart_like(name: str, quirks: str, **defaults: Any) -> ModelType:
    return ModelType(name, kind="encoder_decoder", params="bart", quirks=frozenset(quirks.split()),
                     defaults=_d(_BART_FIELDS, **defaults))


_T5_FIELDS = dict(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=None,
                  num_heads=8, relative_attention_num_buckets=32, feed_forward_proj="relu")
_MT5_FIELDS = dict(_T5_FIELDS, vocab_size=250112, d_ff=1024, num_layers=8, num_heads=6,
                   feed_forward_proj="gated-gelu")

_SEQ2SEQ_ENTRIES: tuple[ModelType, ...] = (
    ModelType("mt5", kind="encoder_decoder", params="t5", defaults=_d(_MT5_FIELDS)),
    ModelType("umt5", kind="encoder_decoder", params="t5", quirks=frozenset({"relative_bias_every_layer"}),
              defaults=_d(_MT5_FIELDS)),
    ModelType("longt5", kind="encoder_decoder", params="t5", quirks=frozenset({"transient_global"}),
              defaults=_d(_T5_FIELDS, encoder_attention_type="local")),
    _bart_like("bart", "positions_offset_2 layernorm_embedding"),
    _bart_like("mbart", "positions_offset_2 layernorm_embedding final_layer_norm"),
    _bart_like("plbart", "positions_offset_2 layernorm_embedding", vocab_size=50005, d_model=768, encoder_layers=6,
               decoder_layers=6, encoder_ffn_dim=3072, decoder_ffn_dim=3072, encoder_attention_heads=12,
               decoder_attention_heads=12),
    _bart_like("mvp", "positions_offset_2 layernorm_embedding mvp_prompts", vocab_size=50267, use_prompt=False,
               prompt_length=100, prompt_mid_dim=800),
    _bart_like("marian", "marian_embeddings", vocab_size=58101, decoder_vocab_size=None,
               share_encoder_decoder_embeddings=True),
    _bart_like("pegasus", "final_layer_norm"),
    _bart_like("pegasus_x", "positions_buffer final_layer_norm no_attention_bias global_tokens", vocab_size=96103,
               encoder_layers=16, decoder_layers=16, max_position_embeddings=16384, num_global_tokens=32),
    _bart_like("led", "led_positions layernorm_embedding longformer_global", max_encoder_position_embeddings=16384,
               max_decoder_position_embeddings=1024),
    _bart_like("blenderbot", "final_layer_norm", vocab_size=8008, d_model=2560, encoder_layers=2, decoder_layers=24,
               encoder_ffn_dim=10240, decoder_ffn_dim=10240, encoder_attention_heads=32, decoder_attention_heads=32,
               max_position_embeddings=128),
    _bart_like("blenderbot-small", "layernorm_embedding", d_model=512, encoder_layers=8, decoder_layers=8,
               encoder_ffn_dim=2048, decoder_ffn_dim=2048, max_position_embeddings=512),
    _bart_like("m2m_100", "positions_buffer final_layer_norm", vocab_size=128112),
    _bart_like("fsmt", "positions_pad_offset fsmt_embeddings", vocab_size=None, src_vocab_size=42024,
               tgt_vocab_size=42024, pad_token_id=1, tie_word_embeddings=False),
    ModelType("whisper", kind="encoder_decoder", params="whisper", defaults=_d(
        vocab_size=51865, num_mel_bins=80, encoder_layers=4, decoder_layers=4, encoder_attention_heads=6,
        decoder_attention_heads=6, encoder_ffn_dim=1536, decoder_ffn_dim=1536, d_model=384,
        max_source_positions=1500, max_target_positions=448, tie_word_embeddings=True)),
    # audio-language wrappers: text_config decoder + Whisper-style audio tower + projector
    ModelType("qwen2_audio", text_type="qwen2", audio=Audio("qwen2_audio_encoder", "linear"), params="audio"),
    ModelType("voxtral", text_type="llama", params="audio", audio=Audio(
        "voxtral_encoder", "stacked", text_defaults=_d(
            vocab_size=131072, hidden_size=3072, intermediate_size=8192, num_hidden_layers=30, num_key_value_heads=8,
            max_position_embeddings=131072, head_dim=128))),
    *(ModelType(name, text_type="qwen2", audio=Audio("audioflamingo3_encoder", "mlp"), params="audio",
                defaults=_d(projector_bias=True))
      for name in ("audioflamingo3", "musicflamingo")),
    ModelType("qwen3_asr", text_type="qwen3", params="audio", defaults=_d(tie_word_embeddings=True),
              audio=Audio("qwen3_asr_encoder", "qwen3_asr", tied_head=True, absent_text=_d(
                  hidden_size=2048, intermediate_size=6144, num_hidden_layers=28, num_attention_heads=16,
                  num_key_value_heads=8, head_dim=128))),
    ModelType("moss_transcribe_diarize", text_type="qwen3", params="audio", audio=Audio(
        "moss_transcribe_diarize_audio", "merged", tied_head=True, absent_text=_d(
            hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
            num_key_value_heads=8)), defaults=_d(
        tie_word_embeddings=True, projector_bias=True, audio_merge_size=4)),
    ModelType("glmasr", text_type="llama", params="audio", defaults=_d(tie_word_embeddings=True),
              audio=Audio("glmasr_encoder", "glmasr", tied_head=True, absent_text=_d(
                  vocab_size=59264, hidden_size=2048, intermediate_size=6144, num_hidden_layers=28,
                  num_attention_heads=16, num_key_value_heads=4))),
    ModelType("glmasr_encoder", kind="no_cache", defaults=_d(
        hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=20,
        num_key_value_heads=None, num_mel_bins=128)),
    ModelType("qwen3_asr_encoder", kind="no_cache", defaults=_d(
        num_mel_bins=128, encoder_layers=24, encoder_attention_heads=16, encoder_ffn_dim=4096, d_model=1024,
        downsample_hidden_size=480, output_dim=3584)),
    ModelType("moss_transcribe_diarize_audio", kind="no_cache", defaults=_d(
        num_mel_bins=80, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096, hidden_size=1024,
        max_source_positions=1500)),
    ModelType("qwen2_audio_encoder", kind="no_cache", defaults=_d(
        num_mel_bins=128, encoder_layers=32, encoder_attention_heads=20, encoder_ffn_dim=5120, d_model=1280,
        max_source_positions=1500)),
    *(ModelType(name, kind="no_cache", defaults=_d(
        num_mel_bins=128, num_hidden_layers=32, num_attention_heads=20, intermediate_size=5120, hidden_size=1280,
        max_source_positions=1500)) for name in ("voxtral_encoder", "audioflamingo3_encoder")),
    ModelType("trocr", kind="encoder_decoder", params="trocr", defaults=_d(
        vocab_size=50265, d_model=1024, decoder_layers=12, decoder_attention_heads=16, decoder_ffn_dim=4096,
        max_position_embeddings=512, use_learned_position_embeddings=True, layernorm_embedding=True,
        cross_attention_hidden_size=None, tie_word_embeddings=True)),
    ModelType("prophetnet", kind="encoder_decoder", params="prophetnet", defaults=_d(
        vocab_size=30522, hidden_size=1024, encoder_ffn_dim=4096, num_encoder_layers=12,
        num_encoder_attention_heads=16, decoder_ffn_dim=4096, num_decoder_layers=12, num_decoder_attention_heads=16,
        max_position_embeddings=512, ngram=2, num_buckets=32, tie_word_embeddings=True)),
    *(_bart_like(name, "positions_buffer final_layer_norm", vocab_size=256102, d_model=None, hidden_size=1024,
                 encoder_layers=24, decoder_layers=24, encoder_ffn_dim=8192, decoder_ffn_dim=8192,
                 max_position_embeddings=pos) for name, pos in (("seamless_m4t", 1024), ("seamless_m4t_v2", 4096))),
    ModelType("t5gemma", kind="encoder_decoder", params="t5gemma", text_type="t5_gemma_module",
              quirks=frozenset({"nested_decoder"}), defaults=_d(tie_word_embeddings=True)),
    ModelType("t5_gemma_module", norms_per_layer=4, not_countable="counted as part of t5gemma (Llama-style stacks)",
              layer_rule=_fixed_pattern(2), defaults=_d(   # T5GemmaModuleConfig.__post_init__: (i + 1) % 2
                  _LLAMA_LIKE, vocab_size=256000, hidden_size=2304, intermediate_size=9216,
                  num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                  tie_word_embeddings=True, cross_attention_hidden_size=None, sliding_window=4096)),
    # S2S (issue 12)
    ModelType("t5gemma2", kind="encoder_decoder", text_type="t5gemma2_decoder", quirks=frozenset({"nested_decoder"}),
              params="t5gemma2", defaults=_d(tie_word_embeddings=True)),
    # T5Gemma2DecoderConfig / T5Gemma2TextConfig.__post_init__: every sliding_window_pattern-th layer full (the
    # kwarg, default 6); Gemma 3 stacks (4 norms per layer, q / k norms) counted by the Llama-style counter
    *(ModelType(name, layer_rule=_field_pattern, not_countable="counted as part of t5gemma2", norms_per_layer=4,
                quirks=frozenset({"qk_norm"}), defaults=_d(
                    _LLAMA_LIKE, vocab_size=262208, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
                    num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True,
                    sliding_window=4096, sliding_window_pattern=6, max_position_embeddings=131072))
      for name in ("t5gemma2_decoder", "t5gemma2_text")),
    ModelType("encoder-decoder", kind="encoder_decoder", quirks=frozenset({"nested_decoder"}),
              params="encoder_decoder"),
    ModelType("nllb-moe", kind="encoder_decoder", params="nllb_moe", quirks=frozenset({
        "positions_buffer", "final_layer_norm"}), defaults=_d(
        _BART_FIELDS, vocab_size=128112, num_experts=128, router_bias=False, encoder_sparse_step=4,
        decoder_sparse_step=4)),
    ModelType("nllb_moe", kind="encoder_decoder", same_as="nllb-moe"),
    ModelType("switch_transformers", kind="encoder_decoder", params="switch_transformers", defaults=_d(
        vocab_size=32128, d_model=768, d_kv=64, d_ff=2048, num_layers=12, num_decoder_layers=12,
        num_sparse_encoder_layers=3, num_sparse_decoder_layers=3, num_heads=12, num_experts=8, router_bias=False,
        relative_attention_num_buckets=32, tie_word_embeddings=True)),
    *(ModelType(name, text_type="granite", params="granite_speech", defaults=_d(
        tie_word_embeddings=True, window_size=15, downsample_rate=5))
      for name in ("granite_speech", "granite_speech_plus")),
    *(ModelType(f"{name}_encoder", kind="no_cache", attribute_map=_d(
        hidden_size="hidden_dim", num_hidden_layers="num_layers", num_attention_heads="num_heads"), defaults=_d(
        input_dim=160, num_hidden_layers=10, hidden_size=1024, feedforward_mult=4, num_heads=8, dim_head=None,
        output_dim=42, max_pos_emb=512, conv_kernel_size=15, conv_expansion_factor=2))
      for name in ("granite_speech", "granite_speech_plus")),
    ModelType("blip_2_qformer", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, encoder_hidden_size=1408,
        cross_attention_frequency=2, use_qformer_text_input=False)),
    ModelType("omniasr", text_type="llama", params="audio", audio=Audio("omniasr_audio", "linear", absent_text=_d(
        vocab_size=11984, hidden_size=4096, intermediate_size=2816, max_position_embeddings=8192, num_hidden_layers=12,
        num_attention_heads=8, num_key_value_heads=8))),      # OmniASRConfig.sub_configs_defaults init_kwargs
    ModelType("omniasr_audio", kind="no_cache", defaults=_d(
        hidden_size=1024, conv_dim=(512,) * 7, conv_kernel=(10, 3, 3, 3, 3, 2, 2), conv_bias=True,
        num_attention_heads=16, num_hidden_layers=24, num_conv_pos_embeddings=128, num_conv_pos_embedding_groups=16,
        intermediate_size=4096)),
    ModelType("vibevoice_asr", text_type="qwen2", params="vibevoice_asr"),
    ModelType("nemo_speechlm", text_type="nemotron_h", params="nemo_speechlm"),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=h, intermediate_size=i, num_hidden_layers=n, num_attention_heads=a, num_key_value_heads=None,
        num_mel_bins=128, subsampling_factor=8)) for name, h, i, n, a in (
        ("nemotron3_5_transcribe_asr_audio", 1280, 5120, 32, 10), ("nemotron3_diarization_audio", 512, 2048, 31, 8))),
    ModelType("nemotron3_5_transcribe_word_timestamp", kind="no_cache", defaults=_d(
        hidden_size=1280, intermediate_size=640, num_hidden_layers=2, num_attention_heads=16, num_key_value_heads=None,
        vocab_size=23863, upsampling_factor=2)),
    ModelType("vibevoice_acoustic_tokenizer_encoder", kind="no_cache", defaults=_d(
        channels=1, hidden_size=64, kernel_size=7, num_filters=32, downsampling_ratios=(2, 2, 4, 5, 5, 8),
        depths=(3, 3, 3, 3, 3, 3, 8), ffn_expansion=4)),
    ModelType("kosmos-2.5", text_type="kosmos_2_5_text_model", params="kosmos2_5", defaults=_d(
        tie_word_embeddings=True, latent_query_num=2048)),
    ModelType("kosmos_2_5_vision_model", kind="no_cache", defaults=_d(
        hidden_size=1536, patch_embed_hidden_size=768, intermediate_size=3968, head_dim=64, num_hidden_layers=18,
        num_attention_heads=24, max_num_patches=4096)),
    ModelType("kosmos_2_5_text_model", not_countable="counted as part of kosmos-2.5", attribute_map=_d(
        num_attention_heads="attention_heads", hidden_size="embed_dim", num_hidden_layers="layers"), defaults=_d(
        vocab_size=108481, max_position_embeddings=4096, hidden_size=1536, num_hidden_layers=24, intermediate_size=6144,
        num_attention_heads=16, tie_word_embeddings=True)),
    _bart_like("bigbird_pegasus", "layernorm_embedding use_bias", vocab_size=96103, encoder_layers=16,
               decoder_layers=16, max_position_embeddings=4096, use_bias=False),
)

# S2S (issue 12): EncoderDecoderModel decoders whose cross-attention cache has the self-attention geometry
# (modeling_bert.py BertLayer.crossattention, modeling_roberta.py RobertaLayer.crossattention: BertCrossAttention /
# RobertaCrossAttention of num_attention_heads x hidden / heads; modeling_gpt2.py GPT2Block.crossattention:
# GPT2Attention(is_cross_attention=True), n_head x n_embd / n_head), each checked against transformers' real cache
# (tests/test_kv_s2s.py); the first is EncoderDecoderConfig's default decoder (a BERT with add_cross_attention)
CROSS_ATTENTION_DECODERS = ("bert", "roberta", "gpt2")

_KDA_MLA = dict(kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128)   # Kimi / Bailing MLA
_QWEN_MOE = dict(decoder_sparse_step=1, mlp_only_layers=[])

# ============================================================================= vision-language wrappers
# Counted by kvcalc.params_vision (params="multimodal"): the text decoder of text_type, the tower of the
# vision_config's model_type (params_vision.TOWERS), the projector rule named by ``vision``. The decoders
# only these wrappers hold, and the towers, are listed here too. Defaults: transformers 5.24 config classes.
_QWEN_VL_TEXT = dict(_LLAMA_LIKE, vocab_size=152064, hidden_size=8192, intermediate_size=29568,
                     num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8, max_window_layers=80)
_QWEN3_VISION = dict(hidden_size=1152, intermediate_size=4304, depth=27, num_heads=16, in_channels=3,
                     temporal_patch_size=2, patch_size=16, spatial_merge_size=2, out_hidden_size=3584,
                     num_position_embeddings=2304)
_CLIP_L = dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
               image_size=336, patch_size=14)
_LLAVA = dict(tie_word_embeddings=False, vision_feature_layer=-2, multimodal_projector_bias=True)
_QWEN_VL = dict(tie_word_embeddings=False)
_VISION_WRAPPERS: tuple[ModelType, ...] = (
    # ---- wrappers
    *(ModelType(name, text_type="llama", params="multimodal", defaults=_d(_LLAVA),
                vision=Vision("clip_vision_model", "llava", vision_defaults=_d(_CLIP_L), image_newline=newline))
      for name, newline in (("llava", False), ("llava_next", True), ("llava_next_video", True))),
    ModelType("video_llava", text_type="llama", params="multimodal", defaults=_d(_LLAVA), vision=Vision(
        "clip_vision_model", "video_llava", vision_defaults=_d(_CLIP_L, image_size=224))),
    ModelType("vipllava", text_type="llama", params="multimodal", vision=Vision(
        "clip_vision_model", "vipllava", vision_defaults=_d(_CLIP_L)), defaults=_d(
        tie_word_embeddings=False, vision_feature_layers=(-2, -5, -8, -11, 6))),
    ModelType("llava_onevision", text_type="qwen2", params="multimodal", vision=Vision(
        "siglip_vision_model", "llava", image_newline=True, vision_defaults=_d(
            hidden_size=1152, intermediate_size=4304, num_hidden_layers=26, num_attention_heads=16, image_size=384,
            patch_size=14, vision_use_head=False)), defaults=_d(_LLAVA, vision_feature_layer=-1)),
    ModelType("mistral3", text_type="mistral", params="multimodal", vision=Vision(
        "pixtral", "mistral3", vision_defaults=_d(patch_size=14), text_defaults=_d(
            vocab_size=131072, hidden_size=5120, intermediate_size=32768, num_hidden_layers=40, head_dim=128)),
              defaults=_d(tie_word_embeddings=True, vision_feature_layer=-1, multimodal_projector_bias=False,
                          spatial_merge_size=2)),
    ModelType("lighton_ocr", text_type="qwen3", params="multimodal", vision=Vision(
        "pixtral", "mistral3", vision_defaults=_d(patch_size=14), text_defaults=_d(
            hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
            num_key_value_heads=8)), defaults=_d(tie_word_embeddings=True, spatial_merge_size=2)),
    ModelType("paligemma", text_type="gemma", params="multimodal", vision=Vision(
        "siglip_vision_model", "paligemma", vision_defaults=_d(
            hidden_size=1152, intermediate_size=4096, num_hidden_layers=27, num_attention_heads=16, patch_size=14,
            vision_use_head=False), text_defaults=_d(
            vocab_size=257152, hidden_size=2048, intermediate_size=16384, num_hidden_layers=18,
            num_attention_heads=8, num_key_value_heads=1)), defaults=_d(tie_word_embeddings=True, projection_dim=2048)),
    *(ModelType(name, text_type=text, params="multimodal", defaults=_d(_QWEN_VL), vision=Vision(tower, "qwen_vl"))
      for name, text, tower in (
        ("qwen2_vl", "qwen2_vl_text", "qwen2_vl_vision"), ("qwen2_5_vl", "qwen2_5_vl_text", "qwen2_5_vl_vision"),
        ("qwen3_vl", "qwen3_vl_text", "qwen3_vl_vision"), ("cosmos3_omni", "qwen3_vl_text", "qwen3_vl_vision"),
        ("qwen3_vl_moe", "qwen3_vl_moe_text", "qwen3_vl_moe_vision"), ("qwen3_5", "qwen3_5_text", "qwen3_5_vision"),
        ("qwen3_5_moe", "qwen3_5_moe_text", "qwen3_5_moe_vision"))),
    ModelType("deepseek_vl", text_type="llama", params="multimodal",
              vision=Vision("siglip_vision_model", "deepseek_vl"), defaults=_d(tie_word_embeddings=True)),
    *(ModelType(name, text_type="llama", params="multimodal", vision=Vision(f"{name}_vision", "idefics3"),
                defaults=_d(tie_word_embeddings=False, scale_factor=2)) for name in ("idefics3", "smolvlm")),
    ModelType("internvl", text_type="qwen2", params="multimodal", vision=Vision("internvl_vision", "internvl"),
              defaults=_d(tie_word_embeddings=True, downsample_ratio=0.5)),
    ModelType("qianfan_ocr", text_type="qwen3", params="multimodal", vision=Vision("qianfan_ocr_vision", "internvl"),
              defaults=_d(tie_word_embeddings=False, downsample_ratio=0.5)),
    ModelType("cohere2_vision", text_type="cohere2", params="multimodal", vision=Vision(
        "siglip_vision_model", "cohere2_vision", vision_defaults=_d(hidden_size=1152, num_hidden_layers=27,
                                                                   image_size=512)),
              defaults=_d(tie_word_embeddings=True, alignment_intermediate_size=36864, downsample_factor=2)),
    *(ModelType(name, text_type="qwen2", params="multimodal", defaults=_d(tie_word_embeddings=True),
                vision=Vision(f"{name}_vision", "got_ocr2", text_defaults=_d(
                    vocab_size=151860, hidden_size=1024, intermediate_size=2816, num_hidden_layers=24,
                    num_attention_heads=16, num_key_value_heads=16, tie_word_embeddings=True, max_window_layers=21)))
      for name in ("got_ocr2", "pp_chart2table")),
    ModelType("hyperclovax_vision_v2", text_type="hyperclovax", params="multimodal",
              vision=Vision("qwen2_5_vl_vision", "out_to_text"), defaults=_d(tie_word_embeddings=True)),
    ModelType("exaone4_5", text_type="exaone4", params="multimodal", vision=Vision("exaone4_5_vision", "qwen_vl"),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("kimi_k25", text_type="deepseek_v3", params="multimodal", vision=Vision("kimi_k25_vision", "kimi_k25"),
              defaults=_d(tie_word_embeddings=True, projection_hidden_size=1152)),
    ModelType("shieldgemma2", text_type="gemma3_text", params="gemma3", defaults=_d(tie_word_embeddings=True)),
    # Gemma 4: tower and projector verified (tests/test_params_vision.py), the gemma4_text decoder by its
    # counter. No audio tower is counted.
    ModelType("gemma4", text_type="gemma4_text", params="multimodal",
              vision=Vision("gemma4_vision", "gemma4", optional=True, refused=("audio_config",)),
              defaults=_d(tie_word_embeddings=True)),
    # LFM2-VL: tower and projector verified (tests/test_params_vision.py), decoder by the lfm2 counter
    ModelType("lfm2_vl", text_type="lfm2", params="multimodal", vision=Vision("siglip2_vision_model", "lfm2_vl"),
              defaults=_d(tie_word_embeddings=True, downsample_factor=2, projector_bias=True,
                          projector_hidden_size=2560, projector_use_layernorm=True)),
    *(ModelType(name, text_type="qwen3_5_text", params="multimodal", vision=Vision(f"{name}_vision", "minicpmv"),
                defaults=_d(tie_word_embeddings=tied, merger_times=1))
      for name, tied in (("minicpmv4_6", False), ("minicpmv4_7", False), ("minicpm_ocr", True))),
    ModelType("video_llama_3", text_type="qwen2", params="multimodal", vision=Vision("video_llama_3_vision",
                                                                                    "deepseek_vl"),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("paddleocr_vl", text_type="paddleocr_vl_text", params="multimodal",
              vision=Vision("paddleocr_vl_vision", "paddleocr_vl"), defaults=_d(tie_word_embeddings=True)),
    *(ModelType(name, text_type=text, params="multimodal", vision=Vision(tower, "qwen_vl"),
                defaults=_d(tie_word_embeddings=False)) for name, text, tower in (
        ("glm4v", "glm4v_text", "glm4v_vision"), ("glm46v", "glm4v_text", "glm4v_vision"),
        ("glmga", "glm4v_text", "glm4v_vision"), ("glm4v_moe", "glm4v_moe_text", "glm4v_moe_vision"))),
    # ---- VIS1 (issue 12): wrappers matched against transformers 5.24's meta-device counts of the class
    # defaults (tests/fixtures/transformers_5_24_coverage.json), other geometries in tests/test_params_vis1.py
    # AyaVisionConfig: a SigLIP tower (its init_kwargs when the config has none), the cohere2 decoder
    ModelType("aya_vision", text_type="cohere2", params="multimodal", vision=Vision(
        "siglip_vision_model", "aya_vision", vision_defaults=_d(
            hidden_size=1152, intermediate_size=4304, patch_size=14, image_size=384, num_hidden_layers=26,
            num_attention_heads=14, vision_use_head=False)),
              defaults=_d(tie_word_embeddings=True, downsample_factor=2)),
    # Gemma4UnifiedConfig: optional encoder-free vision embedder and audio embedder; text_config is always
    # built as Gemma4UnifiedTextConfig
    ModelType("gemma4_unified", text_type="gemma4_unified_text", params="gemma4_unified", vision=Vision(
        "gemma4_unified_vision", "gemma4_unified", optional=True), defaults=_d(tie_word_embeddings=True)),
    ModelType("gemma4_unified_vision", kind="no_cache", defaults=_d(
        patch_size=16, pooling_kernel_size=3, mm_embed_dim=3840, mm_posemb_size=1120, output_proj_dims=3840)),
    ModelType("gemma4_unified_audio", kind="no_cache", defaults=_d(audio_embed_dim=640)),
    # GraniteDoclingConfig: its own tower (with the connector) and a Granite-style decoder
    ModelType("granite_docling", text_type="granite_docling_text", params="multimodal", vision=Vision(
        "granite_docling_vision", "granite_docling"), defaults=_d(tie_word_embeddings=True,
                                                                 density_router_hidden_size=None)),
    ModelType("granite_docling_text", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=133800, hidden_size=1024, intermediate_size=2048, num_hidden_layers=28,
        num_attention_heads=16, num_key_value_heads=4, tie_word_embeddings=True)),
    ModelType("granite_docling_vision", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=512, patch_size=16, out_hidden_size=1024, scale_factor=4, deepstack_visual_indexes=[3, 7, 10],
        use_fine_route=True)),
    # AriaConfig: an Idefics3 vision tower (AutoConfig idefics3_vision), the AriaProjector, the aria_text MoE decoder
    ModelType("aria", text_type="aria_text", params="multimodal", vision=Vision("idefics3_vision", "aria"),
              defaults=_d(tie_word_embeddings=False, projector_patch_to_query_dict=None)),
    # DeepseekVLHybridConfig: SigLIP (low resolution) and SAM (high_res_vision_config) towers, a llama decoder
    ModelType("deepseek_vl_hybrid", text_type="llama", params="multimodal", vision=Vision(
        "siglip_vision_model", "deepseek_vl_hybrid"), defaults=_d(tie_word_embeddings=True)),
    ModelType("sam_vision_model", kind="no_cache", defaults=_d(   # SamVisionConfig
        hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=1024, patch_size=16, qkv_bias=True, mlp_ratio=4.0, use_abs_pos=True, use_rel_pos=True,
        window_size=14, global_attn_indexes=(2, 5, 8, 11), mlp_dim=None)),
    # Cosmos3EdgeConfig: a SigLIP-2-like tower (linear patch embedding, no head), the patch merger, a dense GQA
    # decoder with an ungated relu2 MLP (fc1 / fc2); lm_head never tied (_tied_weights_keys = {})
    ModelType("cosmos3_edge", text_type="cosmos3_edge_text", params="untied_wrapper", vision=Vision(
        "cosmos3_edge_vision", "cosmos3_edge"), defaults=_d(tie_word_embeddings=False, projector_hidden_size=11520)),
    ModelType("cosmos3_edge_text", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({"plain_mlp"}),
              defaults=_d(_LLAMA_LIKE, vocab_size=131072, hidden_size=2048, intermediate_size=9216,
                          num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128)),
    ModelType("cosmos3_edge_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16, num_channels=3,
        patch_size=16, num_patches=256, spatial_merge_size=2)),
    # GlmOcrConfig: its own tower (merger and downsample inside), a GLM-4-style decoder (4 norms per layer, no
    # attention biases, fused gate_up)
    ModelType("glm_ocr", text_type="glm_ocr_text", params="multimodal", vision=Vision("glm_ocr_vision", "qwen_vl"),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("glm_ocr_text", params="llama_like", attn_bias=(False, False), norms_per_layer=4, defaults=_d(
        _LLAMA_LIKE, vocab_size=59392, hidden_size=1024, intermediate_size=4096, num_hidden_layers=16,
        num_attention_heads=16, num_key_value_heads=8)),
    ModelType("glm_ocr_vision", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, depth=24, num_heads=16, in_channels=3, temporal_patch_size=2,
        patch_size=14, spatial_merge_size=2, out_hidden_size=1536, attention_bias=True)),
    # Apertus1p5Config: the apertus1p5_text decoder, a VQ image tokenizer and a WavTokenizer audio tokenizer
    # (params._apertus1p5); its sub-config classes are fixed (AutoConfig wavtokenizer_encoder for audio)
    ModelType("apertus1p5", text_type="apertus1p5_text", params="apertus1p5", vision=Vision(
        "apertus1p5_vision_tokenizer", "no_projector"), defaults=_d(tie_word_embeddings=False)),
    ModelType("apertus1p5_vision_tokenizer", kind="no_cache", defaults=_d(
        codebook_size=131072, embed_dim=256, latent_channels=256, in_channels=3, base_channels=256,
        channel_multiplier=(1, 1, 2, 2, 4), num_res_blocks=4, attn_resolutions=(16,), resolution=256)),
    ModelType("wavtokenizer_encoder", kind="no_cache", defaults=_d(   # WavTokenizerConfig (encoder fields)
        audio_channels=1, num_filters=32, upsampling_ratios=(6, 5, 5, 4), num_residual_layers=1, compress=2,
        use_conv_shortcut=True, norm_type="weight_norm", kernel_size=7, last_kernel_size=7, residual_kernel_size=3,
        num_lstm_layers=2, hidden_size=512)),
    # Florence2Config: a DaViT tower, its projector and a BART (AutoConfig, default bart) text model
    # (params._florence2); the KV cache is its text_config's, read by the encoder-decoder rule
    ModelType("florence2", kind="encoder_decoder", params="florence2", vision=Vision(
        "florence_vision", "florence2"), defaults=_d(tie_word_embeddings=True)),
    ModelType("florence_vision", kind="no_cache", defaults=_d(   # Florence2VisionConfig
        in_channels=3, depths=(1, 1, 9, 1), patch_size=(7, 3, 3, 3), patch_prenorm=(False, True, True, True),
        embed_dim=(128, 256, 512, 1024), num_heads=(4, 8, 16, 32), num_groups=(4, 8, 16, 32), mlp_ratio=4.0,
        qkv_bias=True, projection_dim=1024, max_position_embeddings=50)),
    # GitConfig: a BERT-style decoder over CLIP-style image tokens (params._git); KV by the generic rule
    ModelType("git", params="git", defaults=_d(
        vocab_size=30522, hidden_size=768, num_hidden_layers=6, num_attention_heads=12, intermediate_size=3072,
        max_position_embeddings=1024, tie_word_embeddings=False, num_image_with_embedding=None)),
    ModelType("git_vision_model", kind="no_cache", defaults=_d(   # GitVisionConfig
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=224, patch_size=16)),
    # Ernie4_5_VLMoeConfig: its vision tower, the variable-resolution resampler, a decoder whose MoE layers hold
    # text and vision experts (params._ernie4_5_vl_moe_text)
    ModelType("ernie4_5_vl_moe", text_type="ernie4_5_vl_moe_text", params="multimodal", vision=Vision(
        "ernie4_5_vl_moe_vision", "ernie4_5_vl_moe"), defaults=_d(tie_word_embeddings=True)),
    ModelType("ernie4_5_vl_moe_text", params="ernie4_5_vl_moe_text", defaults=_d(   # Ernie4_5_VLMoeTextConfig
        vocab_size=103424, hidden_size=2560, intermediate_size=12288, num_hidden_layers=28, num_attention_heads=20,
        num_key_value_heads=4, tie_word_embeddings=True, use_bias=False, moe_intermediate_size=[1536, 512], moe_k=6,
        moe_num_experts=64, moe_num_shared_experts=2, mlp_layer_types=None)),
    ModelType("ernie4_5_vl_moe_vision", kind="no_cache", defaults=_d(   # Ernie4_5_VLMoeVisionConfig
        depth=32, hidden_size=1280, num_heads=16, in_channels=3, patch_size=14, spatial_merge_size=2,
        intermediate_size=5120, temporal_merge_size=2)),
    # DeepseekOcr2Config: a SAM encoder and a Qwen2-style encoder (vision_config.sam_config / encoder_config), a
    # linear projector, a DeepSeek-style MoE decoder (params._deepseek_ocr2 / _deepseek_ocr2_text)
    ModelType("deepseek_ocr2", text_type="deepseek_ocr2_text", params="deepseek_ocr2", vision=Vision(
        "deepseek_ocr2_vision", "deepseek_ocr2"), defaults=_d(tie_word_embeddings=False)),
    ModelType("deepseek_ocr2_text", not_countable="counted as part of deepseek_ocr2: DeepseekOcr2TextConfig has "
              "no mlp_layer_types default, so transformers cannot build the decoder of a bare config",
              defaults=_d(   # DeepseekOcr2TextConfig
        vocab_size=102400, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False, mlp_bias=False,
        n_routed_experts=64, n_shared_experts=2, num_experts_per_tok=None, moe_intermediate_size=1407,
        mlp_layer_types=None)),
    ModelType("deepseek_ocr2_vision", kind="no_cache"),
    ModelType("deepseek_ocr2_sam_vision_model", kind="no_cache", defaults=_d(   # DeepseekOcr2SamVisionConfig
        hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=1024, patch_size=16, qkv_bias=True, mlp_ratio=4.0, use_abs_pos=True, use_rel_pos=True,
        window_size=14, global_attn_indexes=(2, 5, 8, 11), mlp_dim=None, downsample_channels=[512, 896])),
    ModelType("deepseek_ocr2_encoder", kind="no_cache", defaults=_d(   # DeepseekOcr2VisionEncoderConfig
        hidden_size=4096, intermediate_size=22016, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=32)),
    # EvollaConfig: a Llama-style decoder with protein cross-attention adapters, a SaProt protein encoder and
    # its resampler (params._evolla)
    ModelType("evolla", params="evolla", mlp_bias="mlp_bias", defaults=_d(   # EvollaConfig
        _LLAMA_LIKE, vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, aligner_ffn_mult=4, aligner_enable_bias=True,
        aligner_num_add_layers=8, resampler_depth=6, resampler_dim_head=64, resampler_heads=8,
        resampler_num_latents=64, resampler_ff_mult=4)),
    ModelType("saprot", kind="no_cache", defaults=_d(   # SaProtConfig (EvollaConfig.protein_encoder_config)
        vocab_size=446, hidden_size=1280, num_hidden_layers=33, num_attention_heads=20, intermediate_size=5120,
        max_position_embeddings=1026, position_embedding_type="rotary", emb_layer_norm_before=False,
        add_cross_attention=False)),
    # ---- decoders held only by these wrappers (Llama-style: counted by params._llama_like)
    *(ModelType(name, params="llama_like", attn_bias=(True, False), layer_rule=_qwen_window,
                defaults=_d(_QWEN_VL_TEXT)) for name in ("qwen2_vl_text", "qwen2_5_vl_text")),
    ModelType("qwen3_vl_text", params="llama_like", quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, head_dim=128)),
    ModelType("qwen3_vl_moe_text", params="llama_like", moe="sparse_step", quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, _QWEN_MOE, vocab_size=151936, hidden_size=2048, intermediate_size=5632, num_hidden_layers=24,
        num_attention_heads=16, num_key_value_heads=16, head_dim=128, tie_word_embeddings=True,
        moe_intermediate_size=1408, num_experts_per_tok=4, num_experts=60)),
    # GLM-4.1V / 4.5V / 4.6V decoders: q/k/v biases always (o none), GLM-4's four norms per layer
    ModelType("glm4v_text", params="llama_like", attn_bias=(True, False), norms_per_layer=4, defaults=_d(
        _LLAMA_LIKE, vocab_size=151552, hidden_size=4096, intermediate_size=13696, num_hidden_layers=40,
        num_attention_heads=32, num_key_value_heads=2)),
    ModelType("glm4v_moe_text", params="llama_like", moe="first_dense", attn_bias=("attention_bias", False),
              quirks=frozenset({"floor_head_dim"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=151424, hidden_size=4096, intermediate_size=10944, num_hidden_layers=46,
        num_attention_heads=96, num_key_value_heads=8, attention_bias=True, moe_intermediate_size=1408,
        n_routed_experts=128, num_experts_per_tok=8, first_k_dense_replace=1, n_shared_experts=1)),
    # PaddleOCR-VL's ERNIE-4.5 decoder: every projection biased with use_bias
    ModelType("paddleocr_vl_text", params="llama_like", attn_bias=("use_bias", "use_bias"), mlp_bias="use_bias",
              defaults=_d(_LLAMA_LIKE, vocab_size=103424, hidden_size=1024, intermediate_size=3072,
                          num_hidden_layers=18, num_attention_heads=16, num_key_value_heads=2, head_dim=128,
                          use_bias=False, tie_word_embeddings=True)),
    # ---- vision towers (no KV cache; counted by params_vision.TOWERS)
    ModelType("clip_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=224, patch_size=32)),
    ModelType("pixtral", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16, num_channels=3,
        patch_size=16)),
    ModelType("qwen2_vl_vision", kind="no_cache", defaults=_d(
        embed_dim=1280, depth=32, num_heads=16, mlp_ratio=4, in_channels=3, temporal_patch_size=2, patch_size=14,
        spatial_merge_size=2, hidden_size=3584)),
    ModelType("qwen2_5_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=3584, intermediate_size=3420, depth=32, num_heads=16, in_channels=3, temporal_patch_size=2,
        patch_size=14, spatial_merge_size=2, out_hidden_size=3584)),
    *(ModelType(name, kind="no_cache", defaults=_d(_QWEN3_VISION, deepstack_visual_indexes=(8, 16, 24)))
      for name in ("qwen3_vl_vision", "qwen3_vl_moe_vision")),
    *(ModelType(name, kind="no_cache", defaults=_d(_QWEN3_VISION))
      for name in ("qwen3_5_vision", "qwen3_5_moe_vision")),
    ModelType("exaone4_5_vision", kind="no_cache", defaults=_d(
        hidden_size=3584, intermediate_size=3420, depth=32, num_heads=16, num_key_value_heads=8, in_channels=3,
        temporal_patch_size=2, patch_size=14, spatial_merge_size=2, out_hidden_size=3584)),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=hidden, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=heads, num_channels=3,
        image_size=224, patch_size=32)) for name, hidden, heads in (
        ("idefics2_vision", 768, 12), ("idefics3_vision", 1152, 16), ("smolvlm_vision", 1152, 16))),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16, num_channels=3,
        image_size=(448, 448), patch_size=(14, 14), attention_bias=bias, use_absolute_position_embeddings=True,
        use_mask_token=False, norm_type="layer_norm", use_qk_norm=False, use_mean_pooling=True))
      for name, bias in (("internvl_vision", False), ("qianfan_ocr_vision", True))),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, num_channels=3, image_size=1024, patch_size=16,
        mlp_dim=3072, window_size=14, output_channels=256, global_attn_indexes=(2, 5, 8, 11), use_abs_pos=True,
        use_rel_pos=True, qkv_bias=True)) for name in ("got_ocr2_vision", "pp_chart2table_vision")),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=13696, depth=24, num_heads=12, in_channels=3, temporal_patch_size=2,
        patch_size=14, image_size=336, spatial_merge_size=2, out_hidden_size=4096, attention_bias=False))
      for name in ("glm4v_vision", "glm4v_moe_vision")),
    ModelType("paddleocr_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16, num_channels=3,
        image_size=384, patch_size=14, spatial_merge_size=2)),
    ModelType("video_llama_3_vision", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        patch_size=16)),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=224, patch_size=16, window_kernel_size=(2, 2)))
      for name in ("minicpmv4_6_vision", "minicpmv4_7_vision", "minicpm_ocr_vision")),
    ModelType("siglip2_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        num_patches=256, patch_size=16, vision_use_head=True)),
    ModelType("gemma4_vision", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=16, num_attention_heads=12, num_key_value_heads=12,
        head_dim=64, patch_size=16, position_embedding_size=10240, use_clipped_linears=False, standardize=False)),
    ModelType("kimi_k25_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16, patch_size=14,
        pos_emb_height=64, pos_emb_width=64, merge_kernel_size=(2, 2))),
    # ---- VIS2 wrappers (issue 12): towers and projectors in kvcalc.params_vision's VIS2 section
    ModelType("llama4", text_type="llama4_text", params="multimodal",
              vision=Vision("llama4_vision_model", "llama4", tie="text"), defaults=_d(tie_word_embeddings=False)),
    ModelType("llama4_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=5632, num_hidden_layers=34, num_attention_heads=16, num_channels=3,
        image_size=448, patch_size=14, vision_output_dim=7680, projector_input_dim=4096, projector_output_dim=4096)),
    ModelType("idefics2", text_type="mistral", params="multimodal",
              vision=Vision("idefics2_vision", "idefics2", fixed_tower=True), defaults=_d(tie_word_embeddings=False)),
    ModelType("idefics2_perceiver", kind="no_cache", defaults=_d(
        hidden_size=4096, resampler_n_latents=64, resampler_depth=3, resampler_n_heads=16, resampler_head_dim=96,
        num_key_value_heads=4)),
    ModelType("minimax_m3_vl", text_type="minimax_m3_vl_text", params="multimodal",
              vision=Vision("minimax_m3_vl_vision", "minimax_m3_vl"),
              defaults=_d(tie_word_embeddings=False, projector_hidden_size=6144)),
    ModelType("minimax_m3_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=16, num_channels=3,
        patch_size=14, temporal_patch_size=2, spatial_merge_size=2)),
    ModelType("molmo2", text_type="molmo2_text", params="multimodal",
              vision=Vision("molmo2_vision", "molmo2", tie="never", fixed_tower=True),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("molmo2_text", params="molmo2_text", attn_bias=("attention_bias", False), quirks=frozenset({"qk_norm"}),
              defaults=_d(_LLAMA_LIKE, vocab_size=151936, additional_vocab_size=128, hidden_size=4096,
                          intermediate_size=12288, num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8,
                          head_dim=128, attention_bias=False, qk_norm_type="qwen3", tie_word_embeddings=False)),
    ModelType("molmo2_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=25, num_attention_heads=16, num_key_value_heads=16,
        head_dim=72, image_size=[378, 378], patch_size=14, num_position_embeddings=None, num_channels=3,
        attention_bias=True)),
    ModelType("molmo2_adapter", kind="no_cache", defaults=_d(
        vision_feature_layer=[24, 18], hidden_size=1152, num_attention_heads=16, num_key_value_heads=16, head_dim=72,
        attention_bias=True, intermediate_size=18944, text_hidden_size=3584, mlp_bias=False)),
    ModelType("ovis2", text_type="qwen2", params="multimodal", vision=Vision("ovis2_vision", "ovis2"),
              defaults=_d(tie_word_embeddings=True, hidden_size=1536, vocab_size=151643)),
    ModelType("ovis2_vision", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=2816, num_hidden_layers=24, num_attention_heads=8, num_channels=3,
        image_size=224, patch_size=14, qkv_bias=False, mlp_bias=False, vocab_size=16384, hidden_stride=1,
        num_visual_indicator_tokens=5)),
    ModelType("step3p7", text_type="step3p5", params="multimodal",
              vision=Vision("step3p5_vision", "step3p7", fixed_tower=True),
              defaults=_d(tie_word_embeddings=False, projector_bias=False)),
    ModelType("step3p5", params="step3p5", moe="first_dense", dense_first=3, mlp_bias="mlp_bias",
              quirks=frozenset({"qk_norm", "head_softplus_gate", "no_shared_experts", "sized_shared_expert"}),
              defaults=_d(_LLAMA_LIKE, vocab_size=128815, hidden_size=4096, intermediate_size=11264,
                          num_hidden_layers=45, num_attention_heads=64, num_key_value_heads=8, head_dim=128,
                          num_experts_per_tok=8, moe_intermediate_size=1280, n_routed_experts=288,
                          share_expert_dim=1280, gating=True, num_sliding_attention_heads=None)),
    ModelType("step3p5_vision", kind="no_cache", defaults=_d(
        hidden_size=1536, num_hidden_layers=47, num_attention_heads=16, num_channels=3, image_size=728, patch_size=14,
        mlp_ratio=8960 / 1536)),
    ModelType("muse_glimmer", text_type="muse_glimmer_text", params="multimodal",
              vision=Vision("muse_glimmer_vision", "muse"),
              defaults=_d(tie_word_embeddings=False, out_hidden_size=6144, projector_hidden_size=4096)),
    ModelType("muse_glimmer_text", params="muse_text", norms_per_layer=4, quirks=frozenset({"gated_q_proj"}),
              layer_rule=lambda r, n, w: ["full_attention" if (n - 1 - i) % 4 == 0 else "sliding_attention"
                                          for i in range(n)],
              defaults=_d(_LLAMA_LIKE, vocab_size=202048, hidden_size=6656, intermediate_size=19968,
                          num_hidden_layers=52, num_attention_heads=32, num_key_value_heads=2, head_dim=128,
                          sliding_window=2048)),
    ModelType("muse_glimmer_vision", kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=8960, num_hidden_layers=50, num_attention_heads=16, patch_size=14,
        patch_temporal=2, pos_emb_height=32, pos_emb_width=32)),
    ModelType("muse_spark", text_type="muse_spark_text", params="muse_spark",
              vision=Vision("muse_spark_vision", "muse", tie="never"),
              defaults=_d(tie_word_embeddings=False, out_hidden_size=6144, projector_hidden_size=4096)),
    ModelType("muse_spark_text", params="muse_spark_text",
              layer_rule=lambda r, n, w: ["full_attention" if (n - 1 - i) % 4 == 0 else "sliding_attention"
                                          for i in range(n)],
              defaults=_d(vocab_size=202048, hidden_size=8192, intermediate_size=16384, num_hidden_layers=62,
                          num_attention_heads=128, num_key_value_heads=16, head_dim=64, tie_word_embeddings=False,
                          attention_bias=False, sliding_window=2048, moe_intermediate_size=4096,
                          num_local_experts=256, num_experts_per_tok=8, moe_hidden_size=4096, mlp_layer_types=None)),
    ModelType("muse_spark_vision", kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=8960, num_hidden_layers=50, num_attention_heads=16, patch_size=14,
        patch_temporal=2, pos_emb_height=32, pos_emb_width=32)),
    ModelType("muse_spark_audio", kind="no_cache", defaults=_d(
        patch_sizes=(16, 6, 5, 4), hidden_sizes=(256, 512, 1024, 2048), depths=(2, 2, 2, 2), num_hidden_layers=4,
        mlp_ratio=4.0, conv_kernel_size=7, out_hidden_size=8192)),
    ModelType("unlimited_ocr", text_type="unlimited_ocr_text", params="multimodal",
              vision=Vision("unlimited_ocr_vision", "unlimited_ocr", image_newline=True),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("unlimited_ocr_vision", kind="no_cache"),
    ModelType("unlimited_ocr_sam_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, output_channels=256, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=1024, patch_size=16, qkv_bias=True, use_abs_pos=True, use_rel_pos=True, window_size=14,
        global_attn_indexes=(2, 5, 8, 11), mlp_dim=3072, downsample_channels=(512, 1024))),
    ModelType("unlimited_ocr_vision_encoder", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16, image_size=224,
        patch_size=14)),
    ModelType("nemotron_h_omni", text_type="nemotron_h", params="multimodal", vision=Vision(
        "radio", "nemotron_h_omni", vision_defaults=_d(video_temporal_patch_size=2), refused=("audio_config",),
        tie="never"), defaults=_d(downsample_ratio=0.5, projector_hidden_size=4096, vision_hidden_size=1280)),
    ModelType("radio", kind="no_cache", defaults=_d(
        hidden_size=1280, num_hidden_layers=32, num_attention_heads=16, mlp_ratio=4.0, use_swiglu_ffn=False,
        qkv_bias=True, num_channels=3, patch_size=16, max_img_size=2048, num_cls_tokens=3, num_registers=7,
        video_temporal_patch_size=None)),
    ModelType("janus", text_type="llama", params="multimodal", vision=Vision("janus_vision_model", "janus"),
              defaults=_d(tie_word_embeddings=True)),
    ModelType("janus_vision_model", kind="no_cache", defaults=_d(
        hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, num_channels=3, image_size=384, patch_size=16,
        mlp_ratio=4.0, attention_bias=True, projection_dim=2048, use_qk_norm=False, depth=2)),
    ModelType("janus_vqgan", kind="no_cache", defaults=_d(
        embed_dim=8, num_embeddings=16384, double_latent=False, latent_channels=256, in_channels=3, base_channels=128,
        channel_multiplier=(1, 1, 2, 2, 4), num_res_blocks=2, out_channels=3, projection_dim=2048,
        num_hidden_layers=2, image_token_embed_dim=2048)),
    ModelType("phi4_multimodal", params="phi4_multimodal", attn_bias=(False, False), defaults=_d(
        _LLAMA_LIKE, vocab_size=200064, hidden_size=3072, intermediate_size=8192, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8)),
    ModelType("phi4_multimodal_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_hidden_layers=27, num_attention_heads=16, num_channels=3,
        image_size=448, patch_size=14)),
    ModelType("phi4_multimodal_audio", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=1536, num_blocks=24, num_attention_heads=16, ext_pw_out_channel=1024,
        depthwise_separable_out_channel=1024, depthwise_multiplier=1, kernel_size=3, input_size=80, time_reduction=8,
        bias_max_distance=1000, bias_symmetric=False, nemo_conv_channels=1024, downsample_rate=1)),
    # ---- end of VIS2 wrappers
)
# ============================================================================= end of vision-language wrappers

# PB (issue 12): the Qwen2.5-Omni / Qwen3-Omni thinkers (Qwen2_5OmniThinkerForConditionalGeneration,
# Qwen3OmniMoeThinkerForConditionalGeneration; counted by kvcalc.params' PB family "omni_thinker"): a text decoder
# (text_config), a Qwen-VL vision tower with its merger (vision_config) and an audio encoder (audio_config). The
# cache is the text decoder's (first measured by ORA): head_dim = hidden_size // heads when the config has none
# (Qwen2_5OmniAttention's / Qwen3OmniMoeThinkerTextAttention's getattr fallback; Qwen3-Omni's default 2048 / 28
# floors to 73). Defaults: configuration_qwen2_5_omni.py / configuration_qwen3_omni_moe.py, transformers 5.24.
_PB_OMNI_AUDIO = dict(num_mel_bins=128, encoder_layers=32, encoder_attention_heads=20, encoder_ffn_dim=5120,
                      d_model=1280, max_source_positions=1500, output_dim=3584)
_PB_ENTRIES: tuple[ModelType, ...] = (
    # Qwen2_5OmniThinkerTextModel: Qwen2's modules (q/k/v biases, o none: Qwen2_5OmniAttention)
    ModelType("qwen2_5_omni_text", params="llama_like", attn_bias=(True, False), defaults=_d(
        _LLAMA_LIKE, vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
        num_attention_heads=28, num_key_value_heads=4, tie_word_embeddings=True)),
    # Qwen3OmniMoeThinkerTextModel: Qwen3-MoE's modules (q/k norms over head_dim, routed experts every
    # decoder_sparse_step-th layer not in mlp_only_layers, no shared expert)
    ModelType("qwen3_omni_moe_text", params="llama_like", moe="sparse_step",
              quirks=frozenset({"qk_norm", "floor_head_dim"}), defaults=_d(
        _LLAMA_LIKE, _QWEN_MOE, vocab_size=3584, hidden_size=2048, intermediate_size=18944, num_hidden_layers=28,
        num_attention_heads=28, num_key_value_heads=4, moe_intermediate_size=768, num_experts_per_tok=8,
        num_experts=128)),
    *(ModelType(name, text_type=text, params="omni_thinker", defaults=_d(tie_word_embeddings=False),
                vision=Vision(tower, "qwen_vl"))
      for name, text, tower in (("qwen2_5_omni_thinker", "qwen2_5_omni_text", "qwen2_5_omni_vision_encoder"),
                                ("qwen3_omni_moe_thinker", "qwen3_omni_moe_text", "qwen3_omni_moe_vision_encoder"))),
    ModelType("qwen2_5_omni_vision_encoder", kind="no_cache", defaults=_d(
        hidden_size=3584, intermediate_size=3420, depth=32, num_heads=16, in_channels=3, temporal_patch_size=2,
        patch_size=14, spatial_merge_size=2, out_hidden_size=3584)),
    ModelType("qwen3_omni_moe_vision_encoder", kind="no_cache",
              defaults=_d(_QWEN3_VISION, deepstack_visual_indexes=(8, 16, 24))),
    ModelType("qwen2_5_omni_audio_encoder", kind="no_cache", defaults=_d(_PB_OMNI_AUDIO)),
    ModelType("qwen3_omni_moe_audio_encoder", kind="no_cache",
              defaults=_d(_PB_OMNI_AUDIO, downsample_hidden_size=480)),
)

# ----------------------------------------------------------------------------- MOE block (issue 12)
# Dense and MoE text decoders matched against transformers 5.24's meta-device counts of the class defaults
# (tests/fixtures/transformers_5_24_coverage.json), non-default shapes in tests/test_params_moe.py.
# Defaults: the transformers 5.24 config classes (parameter fields; None = derived or required).
_HUNYUAN = dict(_LLAMA_LIKE, vocab_size=290943, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                num_attention_heads=32, num_key_value_heads=None, head_dim=None, attention_bias=False)   # MOE
# DbrxAttentionConfig / DbrxFFNConfig: the nested attn_config / ffn_config DbrxConfig builds   # MOE
DBRX_ATTN_DEFAULTS: Mapping[str, Any] = _d(kv_n_heads=1)
DBRX_FFN_DEFAULTS: Mapping[str, Any] = _d(ffn_hidden_size=3584, moe_num_experts=4, moe_top_k=1)


def nested(r: ConfigReader, name: str, defaults: Mapping[str, Any]) -> ConfigReader:   # MOE
    """The nested config ``name`` (an empty one when absent) read with ``defaults``, the class defaults of the
    sub-config class its parent builds (DBRX's attn_config / ffn_config)."""
    raw = r.data.get(name)
    if raw is not None and not isinstance(raw, Mapping):
        raise ConfigError(r.field_name(name), raw, "must be a JSON object")
    sub = r.sub(name) or ConfigReader({}, f"{r.path}{name}.", r.used, defaults_used=r.defaults_used)
    return sub.with_defaults(defaults, r.model_type)


def _no_window(r: ConfigReader, window: int | None) -> bool:   # MOE
    """No sliding window: none resolved, or the config's explicit ``"sliding_window": null`` (which the config
    class keeps as None, though a missing field takes its default)."""
    return window is None or ("sliding_window" in r.data and r.data["sliding_window"] is None)


def _dots1_window(r: ConfigReader, n: int, window: int | None) -> list[str]:   # MOE
    """Dots1: with a window, layers from ``max_window_layers`` on slide (Dots1Config.__post_init__; no
    use_sliding_window flag of its own)."""
    mwl = r.get_int("max_window_layers", minimum=0)
    return ["sliding_attention" if not _no_window(r, window) and i >= mwl else "full_attention" for i in range(n)]


def _ministral_window(r: ConfigReader, n: int, window: int | None) -> list[str]:   # MOE
    """Ministral: every layer slides when sliding_window is set (class default 4096), else none
    (MinistralConfig.__post_init__)."""
    return ["full_attention" if _no_window(r, window) else "sliding_attention"] * n


_MOE_ENTRIES: tuple[ModelType, ...] = (
    # DBRX: fields d_model / n_heads / n_layers (DbrxConfig.attribute_map), KV heads and experts nested
    ModelType("dbrx", params="dbrx", quirks=frozenset({"attn_config_kv"}), defaults=_d(
        vocab_size=32000, hidden_size=2048, num_attention_heads=16, num_hidden_layers=24,
        tie_word_embeddings=False)),
    ModelType("ministral", params="llama_like", attn_bias=(False, False), layer_rule=_ministral_window, defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, head_dim=None, tie_word_embeddings=False,
        sliding_window=4096)),
    # NemotronLayerNorm1P (LayerNorm with bias), relu2 MLP of up/down only (modeling_nemotron.py)
    ModelType("nemotron", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({"norm_bias", "plain_mlp"}),
              defaults=_d(
        _LLAMA_LIKE, vocab_size=256000, hidden_size=6144, intermediate_size=24576, num_hidden_layers=32,
        num_attention_heads=48, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    # HunYuan: query_layernorm / key_layernorm of head_dim; MoE: router wg, experts of intermediate_size and a
    # shared_mlp of intermediate_size in every layer (modeling_hunyuan_v1_moe.py HunYuanMoEV1Moe)
    # A.X-K2: its own MLA (fused q_gate_proj), a DSA indexer on every layer, gated RMSNorms (params._axk2)
    ModelType("axk2", params="axk2", defaults=_d(
        _LLAMA_LIKE, vocab_size=163840, hidden_size=2048, intermediate_size=5120, moe_intermediate_size=512,
        num_hidden_layers=48, num_attention_heads=32, num_key_value_heads=32, n_shared_experts=1,
        n_routed_experts=128, kv_lora_rank=128, q_lora_rank=384, qk_rope_head_dim=32, v_head_dim=64,
        qk_nope_head_dim=64, num_experts_per_tok=8, tie_word_embeddings=False, attention_bias=False,
        index_head_dim=128, index_n_heads=16, index_topk=2048, gated_norm_rank=16, head_dim=None)),
    # HY-V4: DeepSeek-V3.2-style MLA + DSA indexer (only on "full" indexer_types layers) + output gate, sinks and
    # hyper-connections (params._hy_v4)
    ModelType("hy_v4", params="hy_v4", dense_first=1, quirks=frozenset({"dsa_indexer", "shared_indexer"}),
              defaults=_d(
        _LLAMA_LIKE, vocab_size=120832, hidden_size=2816, intermediate_size=6912, moe_intermediate_size=768,
        num_hidden_layers=34, num_attention_heads=32, num_key_value_heads=None, head_dim=None,
        tie_word_embeddings=False, attention_bias=False, n_routed_experts=256, n_shared_experts=1,
        num_experts_per_tok=8, q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64,
        v_head_dim=256, index_topk=2048, index_head_dim=128, index_n_heads=16, hc_mult=4)),
    ModelType("hunyuan_v1_dense", params="llama_like", quirks=frozenset({"qk_norm"}), defaults=_d(_HUNYUAN)),
    ModelType("hunyuan_vl_text", params="llama_like", quirks=frozenset({"qk_norm"}), defaults=_d(
        _HUNYUAN, tie_word_embeddings=True)),
    ModelType("hy_v4_vl_text", params="hy_v4", dense_first=1, quirks=frozenset({"dsa_indexer", "shared_indexer"}),
              defaults=_d(
        _LLAMA_LIKE, vocab_size=120832, hidden_size=6144, intermediate_size=18432, moe_intermediate_size=2048,
        num_hidden_layers=78, num_attention_heads=64, num_key_value_heads=None, head_dim=None,
        tie_word_embeddings=False, attention_bias=False, n_routed_experts=256, n_shared_experts=1,
        num_experts_per_tok=8, q_lora_rank=2048, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64,
        v_head_dim=256, index_topk=2048, index_head_dim=128, index_n_heads=32, hc_mult=4)),
    # HunYuan-VL / HY-V4-VL: decoder + HunYuan vision tower with its patch merger (params._hunyuan_vl)
    ModelType("hunyuan_vl", text_type="hunyuan_vl_text", params="hunyuan_vl", defaults=_d(tie_word_embeddings=True)),
    ModelType("hy_v4_vl", text_type="hy_v4_vl_text", params="hunyuan_vl", defaults=_d(tie_word_embeddings=False)),
    ModelType("hunyuan_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1152, intermediate_size=4304, num_attention_heads=16, num_channels=3, num_hidden_layers=27,
        patch_size=16, spatial_merge_size=2, max_image_size=2048)),
    ModelType("hy_v4_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=6144, num_attention_heads=16, num_channels=3, num_hidden_layers=40,
        out_hidden_size=6144, patch_size=16, spatial_merge_size=2, max_image_size=2048)),
    # Dots3-Note: the dots3_note_text decoder + a vision tower with routed experts + an audio tower (params._dots3_note)
    ModelType("dots3_note", text_type="dots3_note_text", params="dots3_note", defaults=_d(tie_word_embeddings=False)),
    ModelType("dots3_note_vision_encoder", kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=4224, num_hidden_layers=42, num_attention_heads=24, num_channels=3,
        patch_size=14, moe_intermediate_size=2112, attention_bias=False, mlp_bias=False, num_local_experts=64,
        adapter_in_dim=1536, adapter_out_dim=5120, adapter_merge_size=2)),
    ModelType("dots3_note_audio_encoder", kind="no_cache", defaults=_d(
        hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=20, feature_size=128,
        downsample_hidden_size=480, attention_bias=True, adapter_input_size=1280, adapter_out_dim=5120)),
    ModelType("hunyuan_v1_moe", params="llama_like", moe="all", quirks=frozenset({"qk_norm", "shared_expert"}),
              defaults=_d(_HUNYUAN, num_experts=1, moe_topk=1)),
    # Dots1: Qwen3-style attention (q/k norms of head_dim) and DeepSeek-V3-style MoE from first_k_dense_replace
    # (router E*H; e_score_correction_bias is a buffer; shared experts n_shared x moe_intermediate_size)
    ModelType("dots1", params="llama_like", moe="first_dense", quirks=frozenset({"qk_norm"}), layer_rule=_dots1_window,
              defaults=_d(
        _LLAMA_LIKE, vocab_size=152064, hidden_size=4608, intermediate_size=10944, moe_intermediate_size=1408,
        num_hidden_layers=62, num_attention_heads=32, num_key_value_heads=32, head_dim=None,
        n_shared_experts=None, n_routed_experts=None, num_experts_per_tok=None, first_k_dense_replace=0,
        tie_word_embeddings=False, attention_bias=False, sliding_window=4096, max_window_layers=62)),
)

_ENTRIES: tuple[ModelType, ...] = (
    # ---- Llama-style decoders (parameter-counted by params._llama_like)
    ModelType("llama", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None)),
    ModelType("mistral", params="llama_like", attn_bias=(False, False), defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8)),
    ModelType("mixtral", params="llama_like", attn_bias=(False, False), moe="all", defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, num_local_experts=8, num_experts_per_tok=2)),
    ModelType("qwen2", params="llama_like", attn_bias=(True, False), layer_rule=_qwen_window, defaults=_d(
        _LLAMA_LIKE, vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, max_window_layers=28)),
    ModelType("qwen2_moe", params="llama_like", attn_bias=("qkv_bias", False), layer_rule=_qwen2_moe,
              moe="sparse_step", quirks=frozenset({"shared_expert_gate"}), defaults=_d(
        _LLAMA_LIKE, _QWEN_MOE, vocab_size=151936, hidden_size=2048, intermediate_size=5632,
        num_hidden_layers=24, num_attention_heads=16, num_key_value_heads=16, qkv_bias=True,
        moe_intermediate_size=1408, shared_expert_intermediate_size=5632, num_experts_per_tok=4, num_experts=60,
        max_window_layers=28)),
    ModelType("qwen3", params="llama_like", layer_rule=_qwen_window, quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, head_dim=128, max_window_layers=28)),
    ModelType("qwen3_moe", params="llama_like", layer_rule=_window_all, moe="sparse_step",
              quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, _QWEN_MOE, vocab_size=151936, hidden_size=2048, intermediate_size=6144,
        num_hidden_layers=24, num_attention_heads=32, num_key_value_heads=4, moe_intermediate_size=768,
        num_experts_per_tok=8, num_experts=128)),
    ModelType("qwen3_next", params="llama_like", layer_rule=_linear_interval, state_rule=_gated_delta_states,
              recurrent_kind="linear", moe="sparse_step",
              quirks=frozenset({"qk_norm", "gated_q_proj", "gated_delta_net", "shared_expert_gate"}), defaults=_d(
        _LLAMA_LIKE, _QWEN_MOE, vocab_size=151936, hidden_size=2048, intermediate_size=5632,
        num_hidden_layers=48, num_attention_heads=16, num_key_value_heads=2, head_dim=256,
        linear_conv_kernel_dim=4, linear_key_head_dim=128, linear_value_head_dim=128, linear_num_key_heads=16,
        linear_num_value_heads=32, moe_intermediate_size=512, shared_expert_intermediate_size=512,
        num_experts_per_tok=10, num_experts=512, full_attention_interval=4)),
    # Qwen3.5: Qwen3-Next's layers (gated DeltaNet + gated full attention), dense or MoE
    ModelType("qwen3_5_text", params="llama_like", layer_rule=_linear_interval, state_rule=_gated_delta_states,
              recurrent_kind="linear", quirks=frozenset({"qk_norm", "gated_q_proj", "gated_delta_net"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=248320, hidden_size=4096, intermediate_size=12288, num_hidden_layers=32,
        num_attention_heads=16, num_key_value_heads=4, head_dim=256, linear_conv_kernel_dim=4,
        linear_key_head_dim=128, linear_value_head_dim=128, linear_num_key_heads=16, linear_num_value_heads=32,
        full_attention_interval=4)),
    ModelType("qwen3_5_moe_text", params="llama_like", layer_rule=_linear_interval, state_rule=_gated_delta_states,
              recurrent_kind="linear", moe="sparse_step",
              quirks=frozenset({"qk_norm", "gated_q_proj", "gated_delta_net", "shared_expert_gate"}), defaults=_d(
        _QWEN_MOE,
        _LLAMA_LIKE, vocab_size=248320, hidden_size=2048, num_hidden_layers=40, num_attention_heads=16,
        num_key_value_heads=2, head_dim=256, linear_conv_kernel_dim=4, linear_key_head_dim=128,
        linear_value_head_dim=128, linear_num_key_heads=16, linear_num_value_heads=32, moe_intermediate_size=512,
        shared_expert_intermediate_size=512, num_experts_per_tok=8, num_experts=256, full_attention_interval=4)),
    ModelType("gemma", params="llama_like", defaults=_d(
        _LLAMA_LIKE, vocab_size=256000, hidden_size=3072, intermediate_size=24576, num_hidden_layers=28,
        num_attention_heads=16, num_key_value_heads=16, head_dim=256, tie_word_embeddings=True)),
    ModelType("gemma2", params="llama_like", layer_rule=_fixed_pattern(2), norms_per_layer=4, defaults=_d(
        _LLAMA_LIKE, vocab_size=256000, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
        num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True, sliding_window=4096)),
    ModelType("gemma3_text", params="llama_like", layer_rule=_field_pattern, norms_per_layer=4,
              quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=262208, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
        num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True,
        sliding_window=4096, sliding_window_pattern=6, max_position_embeddings=131072)),
    ModelType("phi3", params="llama_like", attn_bias=(False, False), defaults=_d(
        _LLAMA_LIKE, vocab_size=32064, hidden_size=3072, intermediate_size=8192, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None)),
    ModelType("gpt_oss", params="llama_like", layer_rule=_fixed_pattern(2), moe="all",
              quirks=frozenset({"attention_sinks", "expert_bias"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=201088, hidden_size=2880, intermediate_size=2880, num_hidden_layers=36,
        num_attention_heads=64, num_key_value_heads=8, head_dim=64, attention_bias=True, num_local_experts=128,
        num_experts_per_tok=4, sliding_window=128)),
    ModelType("cohere2", params="llama_like", layer_rule=_field_pattern, norms_per_layer=1, defaults=_d(
        _LLAMA_LIKE, vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
        num_attention_heads=64, num_key_value_heads=None, tie_word_embeddings=True, sliding_window=4096,
        sliding_window_pattern=4)),
    ModelType("starcoder2", params="llama_like", attn_bias=("use_bias", "use_bias"), mlp_bias="use_bias",
              quirks=frozenset({"layer_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=49152, hidden_size=3072, intermediate_size=12288, num_hidden_layers=30,
        num_attention_heads=24, num_key_value_heads=2, use_bias=True, tie_word_embeddings=True)),
    ModelType("llama4_text", params="llama_like", layer_rule=_llama4, moe="interleave",
              quirks=frozenset({"shared_expert", "dense_mlp_width"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=202048, hidden_size=5120, intermediate_size=8192, intermediate_size_mlp=16384,
        num_hidden_layers=48, num_attention_heads=40, num_key_value_heads=8, head_dim=128, num_experts_per_tok=1,
        num_local_experts=16, interleave_moe_layer_step=1, attention_chunk_size=8192, no_rope_layer_interval=4)),
    # ---- Llama-style decoders whose counts were first matched against transformers 5.24's meta-device
    # counts of the class defaults (tests/fixtures/transformers_5_24_coverage.json), then checked by test_params
    ModelType("cohere", params="llama_like", quirks=frozenset({"use_qk_norm"}), norms_per_layer=1, defaults=_d(
        _LLAMA_LIKE, vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
        num_attention_heads=64, num_key_value_heads=None, tie_word_embeddings=True, attention_bias=False,
        use_qk_norm=False)),
    ModelType("cohere2_moe", params="llama_like", moe="all", norms_per_layer=1, defaults=_d(
        _LLAMA_LIKE, vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
        num_attention_heads=64, num_key_value_heads=None, head_dim=128, tie_word_embeddings=True,
        attention_bias=False, num_experts=8, num_experts_per_tok=2)),
    ModelType("cwm", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=128256, hidden_size=6144, intermediate_size=21504, num_hidden_layers=64,
        num_attention_heads=48, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        mlp_bias=False)),
    ModelType("ernie4_5", params="llama_like", defaults=_d(
        _LLAMA_LIKE, vocab_size=103424, hidden_size=1024, intermediate_size=3072, num_hidden_layers=18,
        num_attention_heads=16, num_key_value_heads=2, head_dim=128, tie_word_embeddings=True)),
    ModelType("exaone", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("exaone4", params="llama_like", quirks=frozenset({"qk_norm"}), layer_rule=_field_pattern, defaults=_d(
        _LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=16384, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, tie_word_embeddings=False, sliding_window_pattern=4,
        sliding_window=4096)),
    ModelType("flex_olmo", params="llama_like", moe="all", quirks=frozenset({"full_qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=100352, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        num_experts=7, num_experts_per_tok=5)),
    ModelType("glm", params="llama_like", attn_bias=("attention_bias", False), defaults=_d(
        _LLAMA_LIKE, vocab_size=151552, hidden_size=4096, intermediate_size=13696, num_hidden_layers=40,
        num_attention_heads=32, num_key_value_heads=2, head_dim=128, tie_word_embeddings=False,
        attention_bias=True)),
    ModelType("glm4", params="llama_like", norms_per_layer=4, attn_bias=("attention_bias", False), defaults=_d(
        _LLAMA_LIKE, vocab_size=151552, hidden_size=4096, intermediate_size=13696, num_hidden_layers=40,
        num_attention_heads=32, num_key_value_heads=2, head_dim=128, tie_word_embeddings=False,
        attention_bias=True)),
    ModelType("granite", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        mlp_bias=False)),
    ModelType("granitemoe", params="llama_like", moe="all", defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        num_local_experts=8, num_experts_per_tok=2)),
    ModelType("hyperclovax", params="llama_like", norms_per_layer=4, mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("internlm3", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=128512, hidden_size=4096, intermediate_size=10240, num_hidden_layers=48,
        num_attention_heads=32, num_key_value_heads=2, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("iquestcoder", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=76800, hidden_size=5120, intermediate_size=27648, num_hidden_layers=80,
        num_attention_heads=40, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("mellum", params="llama_like", moe="sparse_step", quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, _QWEN_MOE, vocab_size=98304, hidden_size=2304, intermediate_size=7168,
        num_hidden_layers=28, num_attention_heads=32, num_key_value_heads=4, head_dim=128,
        tie_word_embeddings=False, attention_bias=False, num_local_experts=64, num_experts_per_tok=8,
        moe_intermediate_size=896)),
    ModelType("ministral3", params="llama_like", defaults=_d(
        _LLAMA_LIKE, vocab_size=131072, hidden_size=4096, intermediate_size=14336, num_hidden_layers=34,
        num_attention_heads=32, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False)),
    ModelType("olmo2", params="llama_like", quirks=frozenset({"full_qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=50304, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False)),
    ModelType("olmo3", params="llama_like", quirks=frozenset({"full_qk_norm"}),
              layer_rule=_fixed_pattern(4), defaults=_d(
        _LLAMA_LIKE, vocab_size=50304, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        sliding_window=4096)),
    ModelType("olmoe", params="llama_like", moe="all", quirks=frozenset({"full_qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=50304, hidden_size=2048, intermediate_size=2048, num_hidden_layers=16,
        num_attention_heads=16, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        num_experts=64, num_experts_per_tok=8)),
    ModelType("seed_oss", params="llama_like", attn_bias=("attention_bias", "attention_out_bias"),
              mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=155136, hidden_size=4096, intermediate_size=27648, num_hidden_layers=64,
        num_attention_heads=80, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=True, attention_out_bias=False, mlp_bias=False)),
    ModelType("smollm3", params="llama_like", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=128256, hidden_size=2048, intermediate_size=11008, num_hidden_layers=36,
        num_attention_heads=16, num_key_value_heads=4, tie_word_embeddings=True, attention_bias=False,
        mlp_bias=False)),
    ModelType("vaultgemma", params="llama_like", defaults=_d(
        _LLAMA_LIKE, vocab_size=256000, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
        num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True,
        attention_bias=False)),
    ModelType("glm4_moe", params="llama_like", moe="first_dense", attn_bias=("attention_bias", False),
              quirks=frozenset({"use_head_qk_norm", "floor_head_dim"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=151552, hidden_size=4096, intermediate_size=10944, num_hidden_layers=46,
        num_attention_heads=96, num_key_value_heads=8, n_routed_experts=128, n_shared_experts=1,
        first_k_dense_replace=1, moe_intermediate_size=1408, num_experts_per_tok=8, use_qk_norm=False)),
    # ---- P1 (issue 12): text decoders matched against transformers 5.24's meta-device counts of the class
    # defaults (tests/fixtures/transformers_5_24_coverage.json), then checked by tests/test_params.py
    ModelType("arcee", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({"plain_mlp"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=2560, intermediate_size=18432, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    *(ModelType(name, params="llama_like", quirks=frozenset({"plain_mlp", "xielu", "qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=vocab, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False))
      for name, vocab in (("apertus", 131072), ("apertus1p5_text", 266752))),
    ModelType("helium", params="llama_like", attn_bias=("attention_bias", False), mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=48000, hidden_size=2560, intermediate_size=7040, num_hidden_layers=24,
        num_attention_heads=20, num_key_value_heads=20, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False)),
    ModelType("olmo", params="llama_like", quirks=frozenset({"no_norm_weights"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=50304, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False)),
    ModelType("aria_text", params="llama_like", mlp_bias="mlp_bias", moe="all", quirks=frozenset({"shared_experts"}),
              defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=4096, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False, moe_num_experts=8, moe_num_shared_experts=2, moe_topk=2)),
    ModelType("afmoe", params="llama_like", moe="first_dense", norms_per_layer=4,
              quirks=frozenset({"qk_norm", "gated_q_proj", "router_score_bias"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=200192, hidden_size=2048, intermediate_size=6144, num_hidden_layers=32,
        num_attention_heads=16, num_key_value_heads=None, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, num_experts=64, num_shared_experts=2, num_experts_per_tok=6, num_dense_layers=1,
        moe_intermediate_size=1408)),
    ModelType("beam", params="llama_like", moe="first_dense", norms_per_layer=4, dense_first=3,
              quirks=frozenset({"qk_norm", "gated_q_proj", "head_gate_bias", "no_shared_experts"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=151936, hidden_size=5120, intermediate_size=20480, num_hidden_layers=52,
        num_attention_heads=48, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, moe_intermediate_size=2560, num_experts=256, num_experts_per_tok=8)),
    ModelType("bitnet", params="llama_like", quirks=frozenset({"sub_norms"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=128256, hidden_size=2560, intermediate_size=6912, num_hidden_layers=30,
        num_attention_heads=20, num_key_value_heads=5, tie_word_embeddings=False, attention_bias=False)),
    ModelType("diffllama", params="llama_like", quirks=frozenset({"diff_lambdas"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
        num_attention_heads=32, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=False)),
    # classic decoders (LayerNorms with bias, plain MLP with bias): the same reader, other flags
    ModelType("biogpt", params="llama_like", attn_bias=(True, True), mlp_bias=True, positions=2,
              quirks=frozenset({"mha", "norm_bias", "plain_mlp"}), defaults=_d(
        vocab_size=42384, hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
        max_position_embeddings=1024, tie_word_embeddings=True)),
    ModelType("xglm", params="llama_like", attn_bias=(True, True), mlp_bias=True,
              quirks=frozenset({"mha", "norm_bias", "plain_mlp"}), defaults=_d(
        vocab_size=256008, hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16,
        tie_word_embeddings=True)),
    ModelType("ctrl", params="llama_like", attn_bias=(True, True), mlp_bias=True, mlp_width="dff", head_bias=True,
              quirks=frozenset({"mha", "norm_bias", "plain_mlp"}), defaults=_d(
        vocab_size=246534, hidden_size=1280, dff=8192, num_hidden_layers=48, num_attention_heads=16,
        tie_word_embeddings=True)),
    ModelType("codegen", params="llama_like", attn_bias=(False, False), mlp_bias=True, norms_per_layer=1,
              head_bias=True, quirks=frozenset({"mha", "norm_bias", "plain_mlp", "mlp_4h"}), defaults=_d(
        vocab_size=50400, hidden_size=4096, intermediate_size=None, num_hidden_layers=28, num_attention_heads=16,
        tie_word_embeddings=False)),
    ModelType("gptj", params="llama_like", attn_bias=(False, False), mlp_bias=True, norms_per_layer=1, head_bias=True,
              quirks=frozenset({"mha", "norm_bias", "plain_mlp", "mlp_4h"}), defaults=_d(
        vocab_size=50400, hidden_size=4096, intermediate_size=None, num_hidden_layers=28, num_attention_heads=16,
        tie_word_embeddings=False)),
    ModelType("gpt_neo", params="llama_like", attn_bias=(False, True), mlp_bias=True, positions=0,
              quirks=frozenset({"mha", "norm_bias", "plain_mlp", "mlp_4h"}), defaults=_d(
        vocab_size=50257, hidden_size=2048, intermediate_size=None, num_hidden_layers=24, num_attention_heads=16,
        max_position_embeddings=2048, tie_word_embeddings=True)),
    ModelType("exaone_moe", params="llama_like", attn_bias=(False, False), moe="first_dense",
              quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=16384, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, tie_word_embeddings=False, num_experts=64,
        num_shared_experts=1, num_experts_per_tok=8, first_k_dense_replace=1, moe_intermediate_size=1024)),
    ModelType("flint", params="llama_like", moe="sparse_step",
              quirks=frozenset({"qk_norm", "attention_sinks", "sized_shared_expert"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=150144, hidden_size=2048, intermediate_size=6144, num_hidden_layers=49,
        num_attention_heads=32, num_key_value_heads=4, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, num_experts=256, num_experts_per_tok=6, moe_intermediate_size=512,
        shared_expert_intermediate_size=1024, decoder_sparse_step=1, mlp_only_layers=[0, 1])),
    ModelType("ernie4_5_moe", params="llama_like", attn_bias=("use_bias", "use_bias"), mlp_bias="use_bias",
              head_bias="use_bias", moe="index_range", quirks=frozenset({"shared_experts", "router_score_bias"}),
              defaults=_d(
        _LLAMA_LIKE, vocab_size=103424, hidden_size=2560, intermediate_size=12288, num_hidden_layers=28,
        num_attention_heads=20, num_key_value_heads=4, tie_word_embeddings=True, moe_num_experts=64,
        moe_num_shared_experts=2, moe_k=6, moe_intermediate_size=1536, moe_layer_start_index=1,
        moe_layer_end_index=None, moe_layer_interval=1, use_bias=False)),
    ModelType("granite_swa", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({"attention_sinks"}),
              defaults=_d(
        _LLAMA_LIKE, vocab_size=100352, hidden_size=2560, intermediate_size=8192, num_hidden_layers=24,
        num_attention_heads=20, num_key_value_heads=4, tie_word_embeddings=True, attention_bias=False,
        mlp_bias=False)),
    *(ModelType(name, params="llama_like", moe="all", quirks=quirks, defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        num_local_experts=8, num_experts_per_tok=2, shared_intermediate_size=0))
      for name, quirks in (("granitemoe_swa", frozenset({"attention_sinks", "sized_shared_expert"})),
                           ("granitemoeshared", frozenset({"sized_shared_expert"})))),
    ModelType("hy_v3", params="llama_like", mlp_bias="mlp_bias", moe="first_dense", dense_first=1,
              quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=120832, hidden_size=4096, intermediate_size=13312, num_hidden_layers=80,
        num_attention_heads=64, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False, num_experts=192, num_experts_per_tok=8, num_shared_experts=1,
        moe_intermediate_size=1536)),
    ModelType("gpt_neox_japanese", params="gpt_neox_japanese", defaults=_d(
        vocab_size=32000, hidden_size=2560, num_hidden_layers=32, num_attention_heads=32, tie_word_embeddings=True,
        intermediate_multiple_size=4)),
    ModelType("jais2", params="llama_like", mlp_bias="mlp_bias", quirks=frozenset({"norm_bias", "plain_mlp"}),
              defaults=_d(
        _LLAMA_LIKE, vocab_size=150272, hidden_size=3328, intermediate_size=26624, num_hidden_layers=32,
        num_attention_heads=26, num_key_value_heads=None, head_dim=None, tie_word_embeddings=False,
        attention_bias=True, mlp_bias=True)),
    # MLA decoders (params._deepseek)
    ModelType("glm_moe_dsa", params="deepseek", quirks=frozenset({"dsa_indexer"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=154880, hidden_size=6144, intermediate_size=12288, num_hidden_layers=78,
        num_attention_heads=64, num_key_value_heads=64, tie_word_embeddings=False, attention_bias=False,
        mlp_bias=False, q_lora_rank=2048, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64,
        v_head_dim=256, n_routed_experts=256, n_shared_experts=1, first_k_dense_replace=3,
        moe_intermediate_size=2048, num_experts_per_tok=8, index_n_heads=32, index_head_dim=128)),
    ModelType("axk1", params="deepseek", quirks=frozenset({"moe_post_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=163840, hidden_size=7168, intermediate_size=18432, num_hidden_layers=61,
        num_attention_heads=64, num_key_value_heads=64, tie_word_embeddings=False, attention_bias=False,
        q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
        n_routed_experts=192, n_shared_experts=1, moe_intermediate_size=2048, num_experts_per_tok=8,
        first_k_dense_replace=1)),
    ModelType("sarvam_mla", params="deepseek", defaults=_d(
        _LLAMA_LIKE, vocab_size=262144, hidden_size=4096, intermediate_size=16384, num_hidden_layers=32,
        num_attention_heads=64, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False,
        q_lora_rank=None, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128,
        n_routed_experts=128, n_shared_experts=1, first_k_dense_replace=1, moe_intermediate_size=2048,
        num_experts_per_tok=8)),
    ModelType("youtu", params="deepseek", quirks=frozenset({"dense_mla"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=128256, hidden_size=2048, intermediate_size=6144, num_hidden_layers=32,
        num_attention_heads=16, num_key_value_heads=16, tie_word_embeddings=True, attention_bias=False,
        q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)),
    ModelType("minicpm3", params="deepseek", quirks=frozenset({"dense_mla"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=73448, hidden_size=2560, intermediate_size=6400, num_hidden_layers=62,
        num_attention_heads=40, num_key_value_heads=40, head_dim=None, tie_word_embeddings=True,
        attention_bias=False, mlp_bias=False, q_lora_rank=768, kv_lora_rank=256, qk_nope_head_dim=64,
        qk_rope_head_dim=32, v_head_dim=None)),
    ModelType("kolibri1", params="llama_like", moe="all", norms_per_layer=4,
              expert_width="moe_intermediate_size",
              quirks=frozenset({"qk_norm", "sized_shared_expert"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=128000, hidden_size=2560, num_hidden_layers=50, num_attention_heads=48,
        num_key_value_heads=4, head_dim=128, tie_word_embeddings=False, num_local_experts=384, num_experts_per_tok=6,
        moe_intermediate_size=512, shared_expert_intermediate_size=512)),
    ModelType("laguna", params="llama_like", moe="first_dense", dense_first=1,
              quirks=frozenset({"qk_norm", "head_softplus_gate", "router_score_bias", "no_shared_experts",
                                "sized_shared_expert"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=100352, hidden_size=2048, intermediate_size=8192, num_hidden_layers=40,
        num_attention_heads=48, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        attention_bias=False, num_experts=256, num_experts_per_tok=8, moe_intermediate_size=512,
        shared_expert_intermediate_size=512, gating=True)),
    ModelType("minimax_m3_vl_text", params="llama_like", moe="first_dense", dense_first=0,
              mlp_width="dense_intermediate_size", expert_width="intermediate_size",
              quirks=frozenset({"qk_norm", "no_shared_experts", "sized_shared_expert"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=200064, hidden_size=6144, intermediate_size=3072, num_hidden_layers=60,
        num_attention_heads=64, num_key_value_heads=4, head_dim=128, tie_word_embeddings=False,
        dense_intermediate_size=12288, num_local_experts=128, num_experts_per_tok=4, shared_intermediate_size=3072)),
    ModelType("nanochat", params="llama_like", quirks=frozenset({"plain_mlp", "no_norm_weights"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=50304, hidden_size=768, intermediate_size=8192, num_hidden_layers=12,
        num_attention_heads=6, num_key_value_heads=None, tie_word_embeddings=False, attention_bias=False)),
    ModelType("mpt", params="llama_like", attn_bias=(False, False), quirks=frozenset({"mha", "plain_mlp", "mlp_4h"}),
              defaults=_d(vocab_size=50368, tie_word_embeddings=True, hidden_size=2048, num_attention_heads=16,
                          num_hidden_layers=24)),
    ModelType("modernbert-decoder", params="modernbert_decoder", defaults=_d(
        _LLAMA_LIKE, vocab_size=50368, hidden_size=768, intermediate_size=1152, num_hidden_layers=22,
        num_attention_heads=12, tie_word_embeddings=True, attention_bias=False, mlp_bias=False, norm_bias=False,
        classifier_bias=False, decoder_bias=True)),
    ModelType("persimmon", params="llama_like", attn_bias=(True, True), mlp_bias=True,
              quirks=frozenset({"mha", "norm_bias", "plain_mlp", "qk_layernorm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=262144, hidden_size=4096, intermediate_size=16384, num_hidden_layers=36,
        num_attention_heads=64, tie_word_embeddings=False, qk_layernorm=True)),
    ModelType("phi", params="llama_like", attn_bias=(True, True), mlp_bias=True, norms_per_layer=1, head_bias=True,
              quirks=frozenset({"norm_bias", "plain_mlp", "qk_layernorm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=51200, hidden_size=2048, intermediate_size=8192, num_hidden_layers=24,
        num_attention_heads=32, num_key_value_heads=None, tie_word_embeddings=False, qk_layernorm=False)),
    ModelType("phimoe", params="llama_like", moe="all", head_bias="lm_head_bias", quirks=frozenset({"norm_bias"}),
              defaults=_d(
        _LLAMA_LIKE, vocab_size=32064, hidden_size=4096, intermediate_size=6400, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=False, attention_bias=False,
        num_local_experts=16, num_experts_per_tok=2, lm_head_bias=False)),
    ModelType("stablelm", params="llama_like", attn_bias=("use_qkv_bias", False),
              quirks=frozenset({"norm_bias", "per_head_qk_layernorm", "parallel_residual"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=50304, hidden_size=2560, intermediate_size=6912, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32, tie_word_embeddings=False, use_qkv_bias=False,
        qk_layernorm=False, use_parallel_residual=False)),
    ModelType("solar_open", params="llama_like", moe="first_dense", dense_first=0, defaults=_d(
        _LLAMA_LIKE, vocab_size=196608, hidden_size=4096, num_hidden_layers=48, num_attention_heads=64,
        num_key_value_heads=8, head_dim=128, tie_word_embeddings=False, attention_bias=False, n_routed_experts=128,
        n_shared_experts=1, moe_intermediate_size=1280, num_experts_per_tok=8)),
    # ---- end P1 block
    # ---- MLA decoders
    ModelType("deepseek_v2", params="deepseek", mlp_bias="mlp_bias", defaults=_d(
        _LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, first_k_dense_replace=0, kv_lora_rank=512, q_lora_rank=1536, n_routed_experts=64,
        n_shared_experts=2, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, num_experts_per_tok=None,
        moe_intermediate_size=1407)),
    ModelType("deepseek_v3", params="deepseek", defaults=_d(
        _LLAMA_LIKE, vocab_size=129280, hidden_size=7168, intermediate_size=18432, num_hidden_layers=61,
        num_attention_heads=128, num_key_value_heads=128, first_k_dense_replace=3, kv_lora_rank=512,
        q_lora_rank=1536, n_routed_experts=256, n_shared_experts=1, qk_nope_head_dim=128, qk_rope_head_dim=64,
        v_head_dim=128, num_experts_per_tok=8, moe_intermediate_size=2048)),
    # INK (issue 12): DeepSeek-V4 (DeepseekV4Config): parameters by params.py _deepseek_v4; its cache is refused
    # (the HCA / CSA compressed layers, kvcalc.architectures), the class-default layer list included
    ModelType("deepseek_v4", params="deepseek_v4", layer_rule=lambda r, n, w: (
        ["heavily_compressed_attention"] * min(n, 2)
        + ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention" for i in range(max(n - 2, 0))]),
              defaults=_d(_LLAMA_LIKE, vocab_size=129280, hidden_size=4096, moe_intermediate_size=2048,
                          num_hidden_layers=43, num_attention_heads=64, num_key_value_heads=1, head_dim=512,
                          q_lora_rank=1024, num_experts_per_tok=6, n_routed_experts=256, n_shared_experts=1,
                          hc_mult=4, sliding_window=128, o_groups=8, o_lora_rank=1024, index_n_heads=64,
                          index_head_dim=128, index_topk=512)),
    # INK (issue 12): Mistral 4 (transformers 5.24 modeling_mistral4.py): DeepSeek-V3's MLA + MoE modules
    # (Mistral4Attention caches the normed kv_lora_rank latent and the RoPE key, expanded by expand_kv after the
    # cache read); vLLM 0.33 has no Mistral4 class, its Transformers backend's MLAFuser fuses Mistral4Attention
    # into MLAAttention (checked: fusers/mla.py MLAFuser.match and update_forward accept it), so it caches the
    # same latent as DeepSeek
    ModelType("mistral4", params="deepseek", defaults=_d(
        _LLAMA_LIKE, vocab_size=131072, hidden_size=4096, intermediate_size=12288, num_hidden_layers=36,
        num_attention_heads=32, num_key_value_heads=32, head_dim=128, first_k_dense_replace=0, kv_lora_rank=256,
        q_lora_rank=1024, n_routed_experts=128, n_shared_experts=1, qk_nope_head_dim=64, qk_rope_head_dim=64,
        v_head_dim=128, num_experts_per_tok=4, moe_intermediate_size=2048)),
    ModelType("minimax_m2", params="llama_like", moe="all", quirks=frozenset({"full_qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=200064, hidden_size=3072, intermediate_size=1536, num_hidden_layers=62,
        num_attention_heads=48, num_key_value_heads=8, head_dim=128, tie_word_embeddings=False,
        num_local_experts=256, num_experts_per_tok=8)),
    ModelType("glm4_moe_lite", params="deepseek", defaults=_d(
        _LLAMA_LIKE, first_k_dense_replace=1, vocab_size=154880, hidden_size=2048, intermediate_size=10240,
        num_hidden_layers=47,
        num_attention_heads=20, num_key_value_heads=20, tie_word_embeddings=False, attention_bias=False,
        n_routed_experts=64, n_shared_experts=1, moe_intermediate_size=1536, num_experts_per_tok=4,
        q_lora_rank=768, kv_lora_rank=512, qk_nope_head_dim=192, qk_rope_head_dim=64, v_head_dim=256)),
    ModelType("deepseek_v32", params="deepseek", quirks=frozenset({"dsa_indexer"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=129280, hidden_size=7168, intermediate_size=18432, num_hidden_layers=61,
        num_attention_heads=128, num_key_value_heads=128, head_dim=64, tie_word_embeddings=False,
        attention_bias=False, n_routed_experts=256, n_shared_experts=1, first_k_dense_replace=3,
        moe_intermediate_size=2048, num_experts_per_tok=8, q_lora_rank=1536, kv_lora_rank=512,
        qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, index_n_heads=64, index_head_dim=128,
        index_topk=2048, mlp_bias=False)),
    ModelType("sarvam_moe", params="llama_like", moe="first_dense", quirks=frozenset({"qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=262144, hidden_size=4096, intermediate_size=8192, num_hidden_layers=19,
        num_attention_heads=64, num_key_value_heads=4, head_dim=64, tie_word_embeddings=False,
        attention_bias=False, n_routed_experts=128, n_shared_experts=1, first_k_dense_replace=1,
        moe_intermediate_size=1024, num_experts_per_tok=6)),
    ModelType("kimi_k2", same_as="deepseek_v3"),
    ModelType("longcat_flash", quirks=frozenset({"attention_pairs"}), params="longcat_flash", defaults=_d(   # MOE
        num_layers=28, num_attention_heads=64, kv_lora_rank=512, q_lora_rank=1536, qk_nope_head_dim=128,
        qk_rope_head_dim=64, v_head_dim=128, head_dim=64, vocab_size=131072, hidden_size=6144,
        tie_word_embeddings=False, attention_bias=False, ffn_hidden_size=12288, qk_head_dim=None, moe_topk=12,
        n_routed_experts=512, zero_expert_num=256, expert_ffn_hidden_size=2048)),
    # ---- classic decoders
    ModelType("gpt2", params="gpt2", defaults=_d(
        vocab_size=50257, max_position_embeddings=1024, hidden_size=768, num_hidden_layers=12,
        num_attention_heads=12, intermediate_size=None, tie_word_embeddings=True, add_cross_attention=False)),
    # GPT-SW3: transformers maps the type to GPT2LMHeadModel (MODEL_FOR_CAUSAL_LM_MAPPING_NAMES; its Hub configs
    # say model_type "gpt2"): GPT-2's modules and rules
    ModelType("gpt-sw3", same_as="gpt2"),
    ModelType("gpt_bigcode", params="gpt2", quirks=frozenset({"multi_query"}), defaults=_d(
        vocab_size=50257, max_position_embeddings=1024, hidden_size=768, num_hidden_layers=12,
        num_attention_heads=12, intermediate_size=None, tie_word_embeddings=True, add_cross_attention=False,
        multi_query=True)),
    ModelType("gpt_neox", params="gpt_neox", defaults=_d(
        vocab_size=50432, hidden_size=6144, num_hidden_layers=44, num_attention_heads=64, intermediate_size=24576,
        tie_word_embeddings=False, attention_bias=True)),
    ModelType("falcon", params="falcon", quirks=frozenset({"falcon_kv"}), defaults=_d(
        vocab_size=65024, hidden_size=4544, num_hidden_layers=32, num_attention_heads=71,
        num_ln_in_parallel_attn=None, num_kv_heads=None, new_decoder_architecture=False, multi_query=True,
        parallel_attn=True, bias=False, ffn_hidden_size=None, tie_word_embeddings=True)),
    ModelType("bloom", params="bloom", defaults=_d(
        vocab_size=250880, hidden_size=64, num_hidden_layers=2, num_attention_heads=8, tie_word_embeddings=True)),
    ModelType("opt", params="opt", defaults=_d(
        vocab_size=50272, hidden_size=768, num_hidden_layers=12, ffn_dim=3072, max_position_embeddings=2048,
        do_layer_norm_before=True, _remove_final_layer_norm=False, word_embed_proj_dim=None,
        num_attention_heads=12, enable_bias=True, layer_norm_elementwise_affine=True, tie_word_embeddings=True)),
    ModelType("chatglm", quirks=frozenset({"multi_query_attention"}),
              not_countable="remote-code model (no transformers class to count against)"),
    # MOE (issue 12): MiMoV2FlashAttention (v_head_dim values, o_proj without bias; sliding layers 2 x KV heads
    # + sinks), MiMoV2FlashMoE from layer 1 (mlp_layer_types; router E*H, no shared expert)
    ModelType("mimo_v2_flash", layer_rule=lambda r, n, w: [
        "full_attention" if i == 0 or (i + 1) % 6 == 0 else "sliding_attention" for i in range(n)],
              params="llama_like", attn_bias=("attention_bias", False), moe="first_dense", dense_first=1,
              quirks=frozenset({"swa_double_kv", "v_head_dim", "no_shared_experts"}), defaults=_d(
        _LLAMA_LIKE, num_key_value_heads=4, head_dim=192, v_head_dim=128, sliding_window=129, vocab_size=152576,
        hidden_size=4096, intermediate_size=16384, num_hidden_layers=48, num_attention_heads=64,
        tie_word_embeddings=False, attention_bias=False, moe_intermediate_size=2048, num_experts_per_tok=8,
        n_routed_experts=256)),
    *(ModelType(name) for name in _PLAIN_DECODERS),
    *_MOE_ENTRIES,
    # ---- INK (issue 12): decoders and wrappers matched against transformers 5.24's meta-device counts
    # Cohere Compass (modeling_cohere_compass.py): Cohere-2's modules (one weight-only LayerNorm per layer, no
    # biases, all layers full attention by default); the wrapper holds a Qwen3-VL vision tower
    # (CohereCompassVisionModel: the same blocks, mergers and deepstack mergers) and an untied lm_head
    ModelType("cohere_compass_text", params="llama_like", norms_per_layer=1, defaults=_d(
        _LLAMA_LIKE, vocab_size=256000, hidden_size=8192, intermediate_size=22528, num_hidden_layers=40,
        num_attention_heads=64, num_key_value_heads=None, tie_word_embeddings=True, sliding_window=4096)),
    ModelType("cohere_compass", text_type="cohere_compass_text", params="multimodal",
              vision=Vision("cohere_compass_vision", "qwen_vl"), defaults=_d(tie_word_embeddings=False)),
    # Dory (modeling_dory.py): nGPT-style recurrent-depth decoder; cache layers: dory_cache_types; parameters:
    # params.py _dory
    ModelType("dory", params="dory", quirks=frozenset({"recurrent_depth"}), layer_rule=_fixed_pattern(4), defaults=_d(
        _LLAMA_LIKE, vocab_size=131072, hidden_size=2560, intermediate_size=7168, num_hidden_layers=36,
        num_attention_heads=16, num_key_value_heads=4, head_dim=256, sliding_window=1024, n_input_layers=8,
        n_recurrent_layers=None, n_output_layers=8, n_recurrent_loops=2, recurrent_kv_cache_mode="per_loop")),
    # DiffusionGemma (modeling_diffusion_gemma.py): Gemma 4's decoder modules with the MoE block in every layer and
    # keys as values on full layers (DiffusionGemmaEncoderTextAttention: no v_proj unless sliding); the wrapper adds
    # the Gemma 4 tower and the self-conditioning MLP (params.py _diffusion_gemma). Its KV is estimated (quirk
    # prefix_cache)
    ModelType("diffusion_gemma_text", layer_rule=_fixed_pattern(6),
              quirks=frozenset({"last_layer_full", "global_head_dim", "prefix_cache"}),
              params="gemma4_text", defaults=_d(
        vocab_size=262144, hidden_size=2304, intermediate_size=9216, num_hidden_layers=30, num_attention_heads=8,
        num_key_value_heads=4, head_dim=256, tie_word_embeddings=True, attention_bias=False, sliding_window=512,
        num_experts=None, top_k_experts=None, moe_intermediate_size=None,
        # fields DiffusionGemmaTextConfig does not have: what its modules hard-code
        attention_k_eq_v=True, enable_moe_block=True, num_kv_shared_layers=0, use_double_wide_mlp=False,
        hidden_size_per_layer_input=None)),
    ModelType("diffusion_gemma", text_type="diffusion_gemma_text", params="diffusion_gemma",
              vision=Vision("gemma4_vision", "gemma4"), defaults=_d(tie_word_embeddings=True)),
    # Emu3 (modeling_emu3.py): a Llama decoder in text_config and the VQ-VAE of vq_config (params.py _emu3)
    ModelType("emu3_text_model", params="llama_like", defaults=_d(
        _LLAMA_LIKE, vocab_size=184622, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8)),
    ModelType("emu3", text_type="emu3_text_model", params="emu3", defaults=_d(tie_word_embeddings=False)),
    ModelType("emu3_vqgan", kind="no_cache", defaults=_d(
        codebook_size=32768, embed_dim=4, latent_channels=4, double_latent=False, in_channels=3, out_channels=3,
        temporal_downsample_factor=4, base_channels=256, channel_multiplier=(1, 2, 2, 4), num_res_blocks=2,
        attn_resolutions=(3,), hidden_size=1024, num_attention_heads=1)),
    # Chameleon (modeling_chameleon.py): Llama modules + q/k LayerNorms over (heads, head_dim), and the VQ-VAE
    # image tokenizer of vq_config (params.py _chameleon)
    ModelType("chameleon", params="chameleon", mlp_bias="mlp_bias", quirks=frozenset({"full_qk_norm"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=65536, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=32)),
    ModelType("chameleon_vqgan", kind="no_cache", defaults=_d(
        embed_dim=256, num_embeddings=8192, double_latent=False, latent_channels=256, resolution=512, in_channels=3,
        base_channels=128, channel_multiplier=(1, 1, 2, 2, 4), num_res_blocks=2, attn_resolutions=None,
        attn_type="vanilla")),
    ModelType("cohere_compass_vision", kind="no_cache",
              defaults=_d(_QWEN3_VISION, deepstack_visual_indexes=(8, 16, 24))),
    *(ModelType(name) for name in _ORA_DECODERS),                                   # ORA
    *(ModelType(name, text_type=text) for name, text in _ORA_WRAPPERS.items()),    # ORA
    *(ModelType(name, kind="encoder_decoder") for name in _ORA_ENCODER_DECODERS),  # ORA
    *_PB_ENTRIES,                                                                   # PB
    *_PC_ENTRIES,                                                                   # PC
    # ORA: Pix2Struct, counted by kvcalc.params._pix2struct; defaults: Pix2Struct(Vision|Text)Config
    ModelType("pix2struct", kind="encoder_decoder", params="pix2struct", defaults=_d(tie_word_embeddings=False)),
    ModelType("pix2struct_text_model", kind="encoder_decoder", defaults=_d(
        vocab_size=50244, hidden_size=768, d_kv=64, d_ff=2048, num_layers=12, num_heads=12,
        relative_attention_num_buckets=32)),
    ModelType("pix2struct_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, patch_embed_hidden_size=768, d_ff=2048, d_kv=64, num_hidden_layers=12,
        num_attention_heads=12, seq_len=4096)),
    # ORA: UDOP, counted by kvcalc.params._udop; defaults: UdopConfig
    ModelType("udop", kind="encoder_decoder", params="udop", defaults=_d(
        vocab_size=33201, d_model=1024, d_kv=64, d_ff=4096, num_layers=24, num_decoder_layers=24, num_heads=16,
        relative_attention_num_buckets=32, feed_forward_proj="relu", max_2d_position_embeddings=1024, patch_size=16,
        num_channels=3, tie_word_embeddings=True)),
    # ORA: Kosmos-2's text decoder, read through Kosmos2TextConfig's attribute_map (embed_dim / layers /
    # attention_heads), multi-head attention (Kosmos2TextAttention); defaults: Kosmos2TextConfig
    ModelType("kosmos_2_text_model", attribute_map=_d(
        num_attention_heads="attention_heads", hidden_size="embed_dim", num_hidden_layers="layers"), defaults=_d(
        vocab_size=65037, hidden_size=2048, num_hidden_layers=24, num_attention_heads=32, intermediate_size=8192,
        max_position_embeddings=2048, ffn_dim=8192, tie_word_embeddings=True, add_cross_attention=False)),  # PA
    # PA (issue 12): counted by kvcalc.params._kosmos2; defaults: Kosmos2Config, Kosmos2VisionConfig
    ModelType("kosmos-2", text_type="kosmos_2_text_model", params="kosmos2", defaults=_d(
        latent_query_num=64, tie_word_embeddings=True)),
    ModelType("kosmos_2_vision_model", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=4096, num_hidden_layers=24, num_attention_heads=16, num_channels=3,
        image_size=224, patch_size=14)),
    # PA (issue 12): IDEFICS, counted by kvcalc.params._idefics (its Llama-style decoder's cache is the generic
    # rule's: the gated cross-attention runs with cache=None, modeling_idefics.py); defaults: IdeficsConfig,
    # IdeficsVisionConfig (attribute_map hidden_size -> embed_dim), IdeficsPerceiverConfig ("idefics_perciever",
    # transformers' spelling)
    ModelType("idefics", params="idefics", defaults=_d(
        vocab_size=32000, additional_vocab_size=0, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
        num_attention_heads=32, alpha_type="float", tie_word_embeddings=False, cross_layer_interval=1,
        qk_layer_norms=False, use_resampler=False, max_position_embeddings=2048)),
    ModelType("idefics_vision", kind="no_cache", attribute_map=_d(hidden_size="embed_dim"), defaults=_d(
        hidden_size=768, image_size=224, intermediate_size=5120, patch_size=14, num_hidden_layers=32,
        num_attention_heads=16, num_channels=3)),
    ModelType("idefics_perciever", kind="no_cache", defaults=_d(
        resampler_n_latents=64, resampler_depth=6, resampler_n_heads=16, resampler_head_dim=96,
        qk_layer_norms_perceiver=False)),
    # ORA: BLIP-2 / InstructBLIP(-Video) (kvcalc.params._blip2); their towers' and InstructBLIP's Q-Formers'
    # class defaults (Blip2VisionConfig, InstructBlip(Video)VisionConfig, InstructBlip(Video)QFormerConfig)
    *(ModelType(name, text_type="opt", params="blip2", defaults=_d(
        num_query_tokens=32, use_decoder_only_language_model=True))
      for name in ("blip-2", "instructblip", "instructblipvideo")),
    *(ModelType(name, kind="no_cache", defaults=_d(
        hidden_size=1408, intermediate_size=6144, num_hidden_layers=39, num_attention_heads=16, image_size=224,
        patch_size=14, qkv_bias=True))
      for name in ("blip_2_vision_model", "instructblip_vision_model", "instructblipvideo_vision_model")),
    *(ModelType(name, kind="no_cache", defaults=_d(
        vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        max_position_embeddings=512, cross_attention_frequency=2, encoder_hidden_size=1408))
      for name in ("instructblip_qformer", "instructblipvideo_qformer")),
    # ORA: VisionEncoderDecoderModel's decoder is its nested 'decoder' config (default a BERT with
    # add_cross_attention: CROSS_ATTENTION_DECODERS), read as EncoderDecoderModel's (kvcalc.architectures);
    # PC: counted by kvcalc.params._vision_encoder_decoder
    ModelType("vision-encoder-decoder", kind="encoder_decoder", quirks=frozenset({"nested_decoder"}),
              params="vision_encoder_decoder"),
    # ---- KV sharing (Gemma 3n / 4)
    ModelType("gemma3n_text", layer_rule=_fixed_pattern(5), params="gemma3n_text", defaults=_d(
        sliding_window=512, num_kv_shared_layers=15, head_dim=256,
        # parameter fields (Gemma3nTextConfig)
        vocab_size=262400, hidden_size=2048, intermediate_size=16384, num_hidden_layers=35, num_attention_heads=8,
        num_key_value_heads=2, tie_word_embeddings=True, attention_bias=False, vocab_size_per_layer_input=262144,
        hidden_size_per_layer_input=256, altup_num_inputs=4, laurel_rank=64)),
    ModelType("gemma4_text", layer_rule=_fixed_pattern(6), quirks=frozenset({"last_layer_full", "global_head_dim"}),
              params="gemma4_text", defaults=_d(      # Gemma4TextConfig (parameter fields)
        vocab_size=262144, hidden_size=2304, intermediate_size=9216, num_hidden_layers=30, num_attention_heads=8,
        num_key_value_heads=4, head_dim=256, tie_word_embeddings=True, attention_bias=False, sliding_window=512,
        vocab_size_per_layer_input=262144, hidden_size_per_layer_input=256, attention_k_eq_v=False,
        num_kv_shared_layers=0, enable_moe_block=False, use_double_wide_mlp=False, num_experts=None,
        top_k_experts=None, moe_intermediate_size=None)),
    ModelType("fuyu", text_type="persimmon", params="fuyu", defaults=_d(     # FuyuConfig (parameter fields)
        tie_word_embeddings=False, patch_size=30, num_channels=3)),
    # HRM: num_hidden_layers has no registry default (HrmTextConfig rewrites it to the cache-slot count)
    ModelType("hrm_text", params="hrm_text", defaults=_d(     # HrmTextConfig (parameter fields)
        vocab_size=151808, hidden_size=1536, intermediate_size=4096, num_attention_heads=12, head_dim=128,
        attention_bias=False, mlp_bias=False, tie_word_embeddings=False)),
    ModelType("doge", params="doge", defaults=_d(      # DogeConfig (parameter fields)
        vocab_size=32768, hidden_size=1024, intermediate_size=2048, num_hidden_layers=32, num_attention_heads=8,
        num_key_value_heads=None, head_dim=None, attention_bias=False, mlp_bias=False, tie_word_embeddings=False,
        is_moe=False, num_experts=16384, num_experts_per_tok=64)),
    ModelType("jetmoe", params="jetmoe", defaults=_d(      # JetMoeConfig (parameter fields)
        vocab_size=32000, hidden_size=2048, num_hidden_layers=12, num_key_value_heads=16, kv_channels=128,
        intermediate_size=5632, num_local_experts=8, num_experts_per_tok=2, tie_word_embeddings=True)),
    # Gemma 4 Unified: Gemma4UnifiedTextConfig derives its layers and full-layer head dims as Gemma4TextConfig
    # does, and deletes hidden_size_per_layer_input and enable_moe_block (no per-layer inputs, no MoE block)
    ModelType("gemma4_unified_text", layer_rule=_fixed_pattern(6),
              quirks=frozenset({"last_layer_full", "global_head_dim", "no_per_layer_inputs"}),
              params="gemma4_text", defaults=_d(      # Gemma4UnifiedTextConfig (parameter fields)
        vocab_size=262144, hidden_size=2304, intermediate_size=9216, num_hidden_layers=30, num_attention_heads=8,
        num_key_value_heads=4, head_dim=256, tie_word_embeddings=True, attention_bias=False, sliding_window=1024,
        attention_k_eq_v=False, num_kv_shared_layers=0, use_double_wide_mlp=False)),
    # ---- recurrent and hybrid
    ModelType("mamba", params="mamba", layer_rule=_all("mamba"), state_rule=_mamba_states, defaults=_d(
        vocab_size=50280, hidden_size=768, state_size=16, num_hidden_layers=32, expand=2, conv_kernel=4,
        use_bias=False, use_conv_bias=True, time_step_rank="auto", tie_word_embeddings=True)),
    ModelType("falcon_mamba", params="mamba", layer_rule=_all("mamba"), state_rule=_mamba_states, defaults=_d(
        vocab_size=50280, hidden_size=768, num_hidden_layers=32, tie_word_embeddings=True, state_size=16, expand=2,
        conv_kernel=4, use_bias=False, use_conv_bias=True, time_step_rank="auto")),
    ModelType("mamba2", params="mamba2", layer_rule=_all("mamba"),
              state_rule=_mamba2_like("expand", "n_groups", "state_size", "num_heads", "head_dim", "conv_kernel"),
              defaults=_d(num_heads=128, head_dim=64, vocab_size=32768, hidden_size=4096, state_size=128,
                          num_hidden_layers=64, expand=2, conv_kernel=4, n_groups=8, use_bias=False,
                          use_conv_bias=True, tie_word_embeddings=False)),
    ModelType("jamba", layer_rule=_jamba, state_rule=_jamba_states, params="jamba", defaults=_d(
        num_key_value_heads=8, mamba_expand=2, mamba_d_state=16, mamba_d_conv=4, attn_layer_period=8,
        attn_layer_offset=4, vocab_size=65536, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, tie_word_embeddings=False, mamba_dt_rank="auto", mamba_conv_bias=True,
        mamba_proj_bias=False, num_experts=16, num_experts_per_tok=2, expert_layer_period=2, expert_layer_offset=1)),
    *(ModelType(name, layer_rule=_listed("attn_layer_indices", "attention", "mamba"),
                state_rule=_mamba2_like("mamba_expand", "mamba_n_groups", "mamba_d_state", "mamba_n_heads",
                                        "mamba_d_head", "mamba_d_conv"),
                params="mamba2_hybrid", mlp_bias="mlp_bias" if name == "bamba" else False,
                moe="all" if name == "granitemoehybrid" else None, defaults=defaults)
      for name, defaults in (
          ("bamba", _d(_LLAMA_LIKE, _MAMBA2_FIELDS, _MAMBA2_PARAMS, vocab_size=128000, hidden_size=4096,
                       intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                       mlp_bias=False)),
          ("granitemoehybrid", _d(_LLAMA_LIKE, _MAMBA2_FIELDS, _MAMBA2_PARAMS, vocab_size=32000, hidden_size=4096,
                                  intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                                  num_key_value_heads=None, num_local_experts=8, num_experts_per_tok=2,
                                  shared_intermediate_size=1024)))),
    ModelType("falcon_h1", layer_rule=_all("hybrid"),
              state_rule=_mamba2_like("mamba_expand", "mamba_n_groups", "mamba_d_state", "mamba_n_heads",
                                      "mamba_d_head", "mamba_d_conv", inner="mamba_d_ssm"),
              params="mamba2_hybrid", mlp_bias="mlp_bias", quirks=frozenset({"falcon_h1_mixer"}), defaults=_d(
        _LLAMA_LIKE, _MAMBA2_FIELDS, _MAMBA2_PARAMS, num_key_value_heads=8, vocab_size=128000, hidden_size=4096,
        intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, mlp_bias=False, mamba_d_ssm=1024,
        projectors_bias=False, mamba_rms_norm=False)),
    # Zamba (v1): layers_block_type lists "linear_attention" (Mamba-1) and "hybrid" (Mamba-1 + the shared
    # attention block on 2 x hidden_size); helper M, issue 12, verified by the coverage fixture
    ModelType("zamba", layer_rule=_zamba_layers, quirks=frozenset({"doubled_attention_head_dim"}),
              state_rule=_zamba_states, params="zamba", defaults=_d(
        mamba_expand=2, mamba_d_state=16, mamba_d_conv=4, num_key_value_heads=16,
        # HYB: parameter fields (ZambaConfig)
        vocab_size=32000, hidden_size=3712, intermediate_size=14848, num_hidden_layers=76, num_attention_heads=16,
        tie_word_embeddings=True, mamba_dt_rank="auto", mamba_conv_bias=True, mamba_proj_bias=False,
        attn_layer_period=6, attn_layer_offset=4)),
    ModelType("zamba2", layer_rule=_zamba2_layers, quirks=frozenset({"doubled_attention_head_dim", "zamba2_blocks"}),
              state_rule=_mamba2_like("mamba_expand", "mamba_ngroups", "mamba_d_state", "n_mamba_heads",
                                      "mamba_headdim", "mamba_d_conv"), params="zamba", defaults=_d(
        mamba_expand=2, mamba_ngroups=1, mamba_d_state=64, n_mamba_heads=8, mamba_d_conv=4,
        # HYB: parameter fields (Zamba2Config; intermediate_size: None = 4 * hidden_size)
        vocab_size=32000, hidden_size=2560, num_hidden_layers=54, num_attention_heads=32, intermediate_size=None,
        tie_word_embeddings=True, add_bias_linear=False, num_mem_blocks=1, adapter_rank=128,
        use_shared_attention_adapter=False)),
    ModelType("nemotron_h", layer_rule=_listed_only("hybrid_override_pattern"), state_rule=_nemotron_h_states,
              params="nemotron_h", defaults=_d(
        num_key_value_heads=8, mamba_num_heads=128, mamba_head_dim=64, n_groups=8, ssm_state_size=128, conv_kernel=4,
        # parameter fields (NemotronHConfig)
        vocab_size=131072, hidden_size=4096, num_attention_heads=32, head_dim=128, intermediate_size=21504,
        mlp_bias=False, use_bias=False, use_conv_bias=True, n_routed_experts=8, moe_intermediate_size=7688,
        moe_shared_expert_intermediate_size=7688, moe_latent_size=None, num_experts_per_tok=2)),
    ModelType("minimax", layer_rule=lambda r, n, w: _every(2, "linear_attention", "full_attention")(n),
              state_rule=_lightning_states, recurrent_kind="linear", params="llama_like", moe="all",
              quirks=frozenset({"lightning_attention"}), defaults=_d(
        _LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, head_dim=None, tie_word_embeddings=False,
        num_local_experts=8, num_experts_per_tok=2)),
    ModelType("kimi_linear", layer_rule=_kimi_linear, state_rule=_kimi_delta_states, recurrent_kind="linear",
              params="kda_hybrid", moe="first_dense",
              defaults=_d(_KDA_MLA, linear_head_dim=128, linear_num_heads=32, linear_conv_kernel_dim=4,
                          # HYB: parameter fields (KimiLinearConfig; first_k_dense_replace: its __post_init__ kwarg)
                          vocab_size=163840, hidden_size=2304, intermediate_size=9216, moe_intermediate_size=1024,
                          num_hidden_layers=27, num_attention_heads=32, num_local_experts=256, n_shared_experts=1,
                          num_experts_per_tok=8, first_k_dense_replace=1, tie_word_embeddings=False,
                          attention_bias=False)),
    # ---- recurrent and hybrid types first measured in transformers 5.24 (tests/test_transformers_coverage.py)
    ModelType("bailing_hybrid", layer_rule=_group_last_full, state_rule=_kimi_delta_states, recurrent_kind="linear",
              params="kda_hybrid", moe="first_dense",
              quirks=frozenset({"kda_from_attention", "kda_full_gates", "mla_head_gate"}),
              defaults=_d(_KDA_MLA, layer_group_size=6, linear_head_dim=128, linear_num_heads=32,
                          linear_conv_kernel_dim=4,
                          # HYB: parameter fields (BailingHybridConfig)
                          vocab_size=157184, hidden_size=2560, intermediate_size=6144, moe_intermediate_size=768,
                          num_hidden_layers=42, num_attention_heads=32, num_local_experts=512, n_shared_experts=1,
                          num_experts_per_tok=8, first_k_dense_replace=2, tie_word_embeddings=False,
                          attention_bias=False)),
    # HYB (issue 12): Lara-Mini and OLMo Hybrid count as Llama-style decoders with Qwen3-Next's gated-DeltaNet
    # (LaraMiniGatedDeltaNet's in_proj_qkv / z / b / a and OlmoHybridGatedDeltaNet's q / k / v / g / a / b
    # projections hold the same numbers as in_proj_qkvz + in_proj_ba)
    ModelType("lara_mini", layer_rule=_lara_mini, state_rule=_gated_delta_states, recurrent_kind="linear",
              params="llama_like", moe="all", expert_width="moe_intermediate_size",
              quirks=frozenset({"gated_delta_net", "qk_norm", "sized_shared_expert"}),
              defaults=_d(num_key_value_heads=4, head_dim=128, sliding_window=512, linear_conv_kernel_dim=4,
                          linear_key_head_dim=128, linear_value_head_dim=128, linear_num_key_heads=8,
                          linear_num_value_heads=16,
                          # HYB: parameter fields (LaraMiniConfig)
                          vocab_size=151936, hidden_size=1024, num_hidden_layers=34, num_attention_heads=16,
                          tie_word_embeddings=True, attention_bias=False, moe_intermediate_size=512,
                          shared_expert_intermediate_size=512, num_experts=128, num_experts_per_tok=4)),
    ModelType("olmo_hybrid", layer_rule=_olmo_hybrid, state_rule=_olmo_hybrid_states, recurrent_kind="linear",
              params="olmo_hybrid", quirks=frozenset({"gated_delta_net", "full_qk_norm"}),
              # num_key_value_heads and the linear_* geometry: derived (olmo_hybrid_linear)
              defaults=_d(num_key_value_heads=None, linear_conv_kernel_dim=4, linear_key_head_dim=None,
                          linear_value_head_dim=None, linear_num_key_heads=None, linear_num_value_heads=None,
                          # HYB: parameter fields (OlmoHybridConfig)
                          vocab_size=100352, hidden_size=3840, intermediate_size=11008, num_hidden_layers=32,
                          num_attention_heads=30, tie_word_embeddings=False, attention_bias=False)),
    # xLSTM (modeling_xlstm.py): every block an mLSTM / sLSTM cell whose recurrent state lives in xLSTMCache;
    # no state rule is modelled, so the spec reader refuses it instead of reading attention fields
    ModelType("xlstm", layer_rule=_all("linear_attention"), recurrent_kind="linear",
              not_countable="its mLSTM blocks are not counted (no measurement: the coverage oracle could not "
                            "shrink its default config)"),
    ModelType("zaya", layer_rule=_all("hybrid"), state_rule=_zaya_states, recurrent_kind="linear", params="zaya",
              defaults=_d(num_key_value_heads=2, head_dim=128, cca_time0=2, cca_time1=2,
                          # HYB: parameter fields (ZayaConfig)
                          vocab_size=262272, hidden_size=2048, num_hidden_layers=40, num_attention_heads=8,
                          tie_word_embeddings=True, attention_bias=False, lm_head_bias=False,
                          moe_intermediate_size=2048, num_experts=16, num_experts_per_tok=1, router_hidden_size=256)),
    # INK (issue 12): Inkling 2 parameters by params.py _inkling2_text (fields: Inkling2TextConfig and the loop
    # variant's; the same weights either way)
    *(ModelType(name, layer_rule=_inkling, state_rule=_inkling_states, params="inkling2_text",
                kv_state_rule=_inkling_kv_states, quirks=frozenset({"loop_passes"}) if "loop" in name else frozenset(),
                defaults=_d(num_key_value_heads=8, head_dim=128, conv_kernel_size=4, vocab_size=201024,
                            unpadded_vocab_size=200058, d_rel=16, rel_extent=1024, num_experts_per_tok=8, **swa))
      for name, swa in (
          ("inkling2_text", dict(swa_num_attention_heads=48, swa_num_key_value_heads=8, swa_head_dim=128,
                                 sliding_window_size=1024, hidden_size=4608, num_attention_heads=48,
                                 num_hidden_layers=48, moe_intermediate_size=2304, n_routed_experts=384)),
          ("inkling2_loop_text", dict(swa_num_attention_heads=24, swa_num_key_value_heads=8, swa_head_dim=128,
                                      sliding_window_size=1024, loop_layer_index_start=6, loop_layer_index_end=18,
                                      loop_num_passes=3, hidden_size=2304, num_attention_heads=24,
                                      num_hidden_layers=24, moe_intermediate_size=1152, n_routed_experts=128,
                                      loop_gate_rank=64)))),
    # INK (issue 12): Inkling's parameters by params.py _inkling_text (fields: InklingTextConfig)
    ModelType("inkling_text", layer_rule=_inkling, state_rule=_inkling_states, kv_state_rule=_inkling_kv_states,
              params="inkling_text", defaults=_d(
        num_key_value_heads=8, head_dim=128, conv_kernel_size=4, swa_num_attention_heads=64,
        swa_num_key_value_heads=16, swa_head_dim=128, sliding_window_size=512, vocab_size=201024, hidden_size=6144,
        num_hidden_layers=66, num_attention_heads=64, d_rel=16, rel_extent=1024, intermediate_size=24576,
        moe_intermediate_size=3072, n_routed_experts=256, num_experts_per_tok=6, n_shared_experts=2)),
    *(ModelType(name, text_type=f"{name}_text", params="inkling2") for name in ("inkling2", "inkling2_loop")),
    ModelType("inkling2_vision", kind="no_cache", defaults=_d(   # Inkling2VisionConfig
        hidden_size=1024, intermediate_size=None, num_hidden_layers=23, num_attention_heads=16, num_channels=3,
        patch_size=20, mlp_ratio=4.0, posemb_grid_size=32, projection_hidden_dim=4096, projector_bias=False,
        spatial_merge_size=2, text_hidden_size=4608)),
    ModelType("glm5_next_text", layer_rule=lambda r, n, w: [
        "indexed_attention" if i % 4 == 3 else "linear_attention" for i in range(n)],
              state_rule=_kimi_delta_states, recurrent_kind="linear",
              quirks=frozenset({"pooled_indexer", "glm5_next_hc"}), params="kda_hybrid", moe="first_dense",
              dense_first=3,
              defaults=_d(num_key_value_heads=64, kv_lora_rank=512, qk_rope_head_dim=0, qk_nope_head_dim=256,
                          v_head_dim=256, index_head_dim=128, index_topk=2048, linear_head_dim=128,
                          linear_num_heads=64, linear_conv_kernel_dim=4,
                          # HYB: parameter fields (Glm5NextTextConfig)
                          vocab_size=154880, hidden_size=4096, intermediate_size=12288, moe_intermediate_size=2048,
                          num_hidden_layers=45, num_attention_heads=64, n_shared_experts=1, n_routed_experts=288,
                          q_lora_rank=1536, num_experts_per_tok=8, tie_word_embeddings=False, attention_bias=False,
                          index_n_heads=32, index_kpool=16, hc_mult=4)),
    # HYB (issue 12): GLM-5 Next, counted by kvcalc.params._glm5_next (Glm5NextConfig / Glm5NextVisionConfig)
    ModelType("glm5_next", text_type="glm5_next_text", params="glm5_next", quirks=frozenset({"flat_text"}),
              defaults=_d(tie_word_embeddings=False)),
    ModelType("glm5_next_vision", kind="no_cache", defaults=_d(
        depth=24, hidden_size=1024, attention_bias=True, num_heads=16, in_channels=3, patch_size=14,
        spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=1536, intermediate_size=4096,
        projection_intermediate_size=10240)),
    ModelType("dots3_note_text", quirks=frozenset({"float32_indexer"}), params="dots3_note_text", defaults=_d(   # MOE
        _LLAMA_LIKE, vocab_size=152064, hidden_size=5120, intermediate_size=13824, moe_intermediate_size=1536,
        num_hidden_layers=46, num_attention_heads=128, num_key_value_heads=128, n_shared_experts=1,
        n_routed_experts=256, kv_lora_rank=512, q_lora_rank=1024, qk_rope_head_dim=64, v_head_dim=128,
        qk_nope_head_dim=128, num_experts_per_tok=8, tie_word_embeddings=False, attention_bias=False,
        index_topk=2048, index_head_dim=128, index_n_heads=64, head_dim=256, shared_experts_intermediate_size=1536)),
    # INK (issue 12): parameters by params.py _mistral_large4_text (fields: MistralLarge4TextConfig); the wrapper
    # holds Mistral 3's Pixtral tower and projector
    ModelType("mistral_large4_text", quirks=frozenset({"nope_mla"}), params="mistral_large4_text", defaults=_d(
        num_key_value_heads=64, kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=64, v_head_dim=128,
        index_head_dim=128, index_topk=2048, vocab_size=204800, hidden_size=6144, intermediate_size=24576,
        moe_intermediate_size=6144, num_hidden_layers=72, num_attention_heads=64, n_shared_experts=1,
        n_routed_experts=128, num_experts_per_tok=4, tie_word_embeddings=False, attention_bias=False,
        index_n_heads=32, first_k_dense_replace=1)),
    ModelType("mistral_large4", text_type="mistral_large4_text", params="multimodal", vision=Vision(
        "pixtral", "mistral3", vision_defaults=_d(hidden_size=2048, intermediate_size=6144, num_hidden_layers=30,
                                                  num_attention_heads=16, patch_size=14, image_size=1540)),
              defaults=_d(tie_word_embeddings=False, vision_feature_layer=-1, multimodal_projector_bias=False,
                          spatial_merge_size=2)),
    ModelType("unlimited_ocr_text", layer_rule=lambda r, n, w: [
        "reference_sliding_attention" if w is not None else "full_attention"] * n,
              params="llama_like", moe="first_dense", mlp_bias="mlp_bias",   # VIS2: counted (issue 12)
              defaults=_d(_LLAMA_LIKE, vocab_size=129280, hidden_size=1280, intermediate_size=6848,
                          num_hidden_layers=12, num_attention_heads=10, num_key_value_heads=10, sliding_window=128,
                          n_routed_experts=64, n_shared_experts=2, num_experts_per_tok=6, moe_intermediate_size=896,
                          first_k_dense_replace=1)),
    # HYB (issue 12): LFM3-VL, counted by kvcalc.params._lfm3_vl (Lfm3VlConfig / Lfm3VlVisionConfig defaults)
    ModelType("lfm3_vl", text_type="lfm3", params="lfm3_vl", defaults=_d(
        tie_word_embeddings=True, projector_hidden_size=4096, projector_bias=True)),
    ModelType("lfm3_vl_vision", kind="no_cache", defaults=_d(
        hidden_size=1024, intermediate_size=2560, in_channels=3, patch_size=16, spatial_merge_size=2,
        temporal_patch_size=2, num_hidden_layers=14, num_attention_heads=16, num_key_value_heads=8,
        conv_kernel_size=3)),
    ModelType("lfm3", layer_rule=_lfm3, state_rule=_short_conv_states, recurrent_kind="conv",
              params="lfm2", quirks=frozenset({"lfm3_attention"}),
              defaults=_d(num_key_value_heads=4, head_dim=128, sliding_window=256, conv_L_cache=7,
                          # HYB: parameter fields (Lfm3Config)
                          vocab_size=128000, hidden_size=2048, intermediate_size=7680, num_hidden_layers=24,
                          num_attention_heads=16, tie_word_embeddings=True, conv_bias=False, attention_bias=False,
                          use_attention_gate=True, use_sandwich_norm=True)),
    ModelType("lfm2", layer_rule=_listed("full_attn_idxs", "full_attention", "conv", every_by_default=True),
              state_rule=_short_conv_states, recurrent_kind="conv", params="lfm2", defaults=_d(
        vocab_size=65536, hidden_size=2560, intermediate_size=12288, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=8, tie_word_embeddings=True, conv_L_cache=3, conv_bias=False,
        block_auto_adjust_ff_dim=True, block_ffn_dim_multiplier=1.0, block_multiple_of=256)),
    # LFM2-MoE (transformers 5.24 Lfm2MoeConfig): its layers listed in layer_types ("conv" / "full_attention"),
    # each conv layer holding LFM2's short-conv state (Lfm2MoeShortConv, conv_L_cache); its class default
    # layer_types is None, which Lfm2MoeDecoderLayer cannot build, so a config without the list is refused
    ModelType("lfm2_moe", layer_rule=_listed_only("layer_types"), state_rule=_short_conv_states,
              recurrent_kind="conv", params="lfm2", moe="first_dense", quirks=frozenset({"no_shared_experts"}),
              defaults=_d(   # HYB: moe_intermediate_size .. num_experts_per_tok are parameter fields
        moe_intermediate_size=1792, num_experts=32, num_dense_layers=2, num_experts_per_tok=4,
        vocab_size=65536, hidden_size=2048, intermediate_size=7168, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=8, tie_word_embeddings=True, conv_L_cache=3, conv_bias=False)),
    # PD (issue 12): CPM-Ant (transformers 5.24 CpmAntConfig): dim_head-wide heads (attribute_map), dim_ff MLP,
    # prompt_length learned prompt tokens cached in every layer before the input
    ModelType("cpmant", params="cpmant", quirks=frozenset({"prompt_prefix"}),
              attribute_map=_d(head_dim="dim_head", intermediate_size="dim_ff"), defaults=_d(
        vocab_size=30720, hidden_size=4096, num_attention_heads=32, dim_head=128, dim_ff=10240, num_hidden_layers=48,
        position_bias_num_buckets=512, position_bias_max_distance=2048, prompt_types=32, prompt_length=32,
        segment_types=32, tie_word_embeddings=True)),
    # PD (issue 12): FastVLM (FastVlmConfig: its sub_configs_defaults build a Qwen2 text_config and a timm_wrapper
    # vision_config of timm's fastvit_mci3 in inference mode); TimmWrapperConfig's own defaults
    ModelType("fast_vlm", text_type="qwen2", params="multimodal", defaults=_d(
        tie_word_embeddings=False, vision_feature_layer=-1, multimodal_projector_bias=True), vision=Vision(
        "timm_wrapper", "llava", vision_defaults=_d(architecture="fastvit_mci3", hidden_size=3072,
                                                    model_args={"inference_mode": True}),
        text_defaults=_d(hidden_size=3584, vocab_size=152128, intermediate_size=18944, num_attention_heads=28,
                         num_key_value_heads=4, num_hidden_layers=28))),
    ModelType("timm_wrapper", kind="no_cache", not_countable="a timm vision model: counted as part of its wrapper",
              defaults=_d(architecture="resnet50", do_pooling=True, model_args=None)),
    # ---- multimodal wrappers (decoder in text_config) and their parts
    ModelType("gemma3", text_type="gemma3_text", params="gemma3", defaults=_d(tie_word_embeddings=True)),
    # PD (issue 12): Gemma 3n: gemma3n_text + a timm MobileNetV5 vision tower + a Conformer audio tower (kvcalc.params
    # _gemma3n); Gemma3nVisionConfig's and Gemma3nAudioConfig's class defaults
    ModelType("gemma3n", text_type="gemma3n_text", params="gemma3n", defaults=_d(tie_word_embeddings=True)),
    ModelType("gemma3n_vision", kind="no_cache", not_countable="counted as part of gemma3n", defaults=_d(
        architecture="mobilenetv5_300m_enc", hidden_size=2048, vocab_size=128, model_args=None, do_pooling=False)),
    ModelType("gemma3n_audio", kind="no_cache", not_countable="counted as part of gemma3n", defaults=_d(
        vocab_size=128, input_feat_size=128, hidden_size=1536, conf_num_attention_heads=8, conf_num_hidden_layers=12,
        conf_conv_kernel_size=5, sscp_conv_channel_size=(128, 32), sscp_conv_kernel_size=((3, 3), (3, 3)),
        sscp_conv_stride_size=((2, 2), (2, 2)))),
    ModelType("mllama", text_type="mllama_text_model", params="mllama"),
    ModelType("mllama_text_model", layer_rule=_listed("cross_attention_layers", "cross_attention", "full_attention"),
              not_countable="counted as part of mllama", defaults=_d(
        vocab_size=128256, hidden_size=4096, num_hidden_layers=40, num_attention_heads=32, num_key_value_heads=8,
        intermediate_size=14336, cross_attention_layers=[3, 8, 13, 18, 23, 28, 33, 38])),
    ModelType("mllama_vision_model", kind="no_cache", defaults=_d(
        hidden_size=1280, num_hidden_layers=32, num_global_layers=8, attention_heads=16, num_channels=3,
        intermediate_size=5120, vision_output_dim=7680, image_size=448, patch_size=14, max_num_tiles=4,
        supported_aspect_ratios=[[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]])),
    ModelType("siglip_vision_model", kind="no_cache", defaults=_d(
        hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, num_channels=3,
        image_size=224, patch_size=16, vision_use_head=True)),
    *_VISION_WRAPPERS,
    # ---- encoder-decoders and models without a KV cache
    ModelType("t5", kind="encoder_decoder", params="t5", defaults=_d(
        vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=None, num_heads=8,
        relative_attention_num_buckets=32, feed_forward_proj="relu")),
    *(ModelType(name, kind="encoder_decoder") for name in _ENCODER_DECODER),
    *_SEQ2SEQ_ENTRIES,
    *(ModelType(name, kind="no_cache", not_countable="no decoder: kvcalc counts decoder language models")
      for name in _NO_CACHE),
    # S2S (issue 12): BERT's and RoBERTa's class defaults, for an EncoderDecoderModel's encoder / decoder
    *(ModelType(name, kind="no_cache", not_countable="no decoder: kvcalc counts decoder language models", defaults=_d(
        vocab_size=vocab, hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        max_position_embeddings=512, type_vocab_size=2, tie_word_embeddings=True))
      for name, vocab in (("bert", 30522), ("roberta", 50265))),
)


def _index(entries: tuple[ModelType, ...]) -> Mapping[str, ModelType]:
    out: dict[str, ModelType] = {}
    for entry in entries:
        if entry.name in out:
            raise ValueError(f"two registry entries for model_type '{entry.name}'")
        out[entry.name] = entry
    return MappingProxyType(out)


REGISTRY: Mapping[str, ModelType] = _index(_ENTRIES)
"""model_type -> its entry; every type kvcalc knows by name."""


def lookup(model_type: str) -> ModelType | None:
    """The entry for ``model_type`` with ``same_as`` followed (``kimi_k2`` -> ``deepseek_v3``); None if unknown."""
    entry = REGISTRY.get(model_type)
    while entry is not None and entry.same_as is not None:
        entry = REGISTRY.get(entry.same_as)
    return entry


def typed(r: ConfigReader, model_type: str) -> ConfigReader:
    """``r`` (same config level and records) reading the class defaults of ``model_type``
    (none for an unknown type); ``same_as`` is followed."""
    entry = lookup(model_type)
    return r.with_defaults(entry.defaults if entry else MappingProxyType({}), entry.name if entry else model_type,
                           entry.attribute_map if entry else None)
