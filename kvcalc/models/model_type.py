"""What a registry entry says about one ``model_type``: :class:`ModelType` and its parts (:class:`Vision`,
:class:`Audio`), the rule signatures, and the named quirks (:data:`QUIRKS`)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from ..config import ConfigReader
from ..spec import AttentionCache, RecurrentState

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
    "prefix_cache": "block diffusion: only the prefix the encoder writes (prompt and finished canvases) is cached; "
                    "the canvas being denoised reads it without writing (DiffusionGemma); kvcalc charges the context "
                    "as an autoregressive decoder's and marks the figure estimated",
    "prompt_prefix": "every layer caches prompt_length learned prompt tokens before each sequence's input "
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
    "mpt_attn_type": "KV heads from attn_config.attn_type: multihead n_heads, multiquery 1, grouped_query "
                     "attn_config.kv_n_heads (MPT, llm-foundry)",
    "mha": "multi-head attention only: the class has no num_key_value_heads (a config's value is ignored)",
    "sized_shared_expert": "MoE layers add one ungated shared expert of shared_expert_intermediate_size (Flint; "
                           "GraniteMoeShared: shared_intermediate_size, none when 0)",
    # hybrid / linear-attention families (kvcalc.models.hybrids)
    "kda_from_attention": "Kimi delta attention heads / head dim / conv kernel default to num_attention_heads, "
                          "head_dim and short_conv_kernel_size (Bailing hybrid)",
    "kda_full_gates": "Kimi delta attention's forget and output gates are full H -> h*d projections, not "
                      "low-rank pairs (Bailing hybrid)",
    "mla_head_gate": "MLA layers add a per-head output gate g_proj H -> n (Bailing hybrid)",
    "glm5_next_hc": "indexed_attention layers are MLA with a pooled DSA indexer, and every layer holds two "
                    "hyper-connections of hc_mult streams (GLM-5 Next)",
    "flat_text": "a config without text_config holds the decoder's fields at the top level: the config class "
                 "seeds text_config from them (GLM-5 Next, Qwen2-VL, Qwen2.5-VL, PaddleOCR-VL)",
    "zamba2_blocks": "Mamba-2 mixers, num_mem_blocks shared blocks and per-hybrid-layer LoRA adapters (Zamba2)",
    "lfm3_attention": "sliding_attention layers too; attention biases with attention_bias, an output gate "
                      "g_proj H -> n_q with use_attention_gate, sandwich norms with use_sandwich_norm (LFM3)",
    # parameter counter (encoder-decoders: kvcalc.models.seq2seq)
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
    # spec reader
    "nested_decoder": "the decoder is the nested 'decoder' config (default: text_type's class defaults), read by the "
                      "decoder reader; every layer adds a cross-attention cache of its KV heads x head_dim",
}


NOT_COUNTED = "its modules are not counted yet (kvcalc never guesses a count)"


EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Vision:
    """How :mod:`kvcalc.models.wrappers` counts one vision-language wrapper.

    ``tower``: the ``vision_config`` model_type the config class assumes; ``projector``: the rule in
    ``kvcalc.models.projectors.PROJECTORS``; ``vision_defaults`` / ``text_defaults``: the fields the wrapper's config
    class sets on the sub-config it builds when the config has no ``vision_config`` / ``text_config`` (over that
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
    vision_defaults: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    text_defaults: Mapping[str, Any] = field(default_factory=lambda: EMPTY)
    image_newline: bool = False
    optional: bool = False
    refused: tuple[str, ...] = ()
    tie: Literal["top", "text", "never"] = "top"
    fixed_tower: bool = False


@dataclass(frozen=True)
class Audio:
    """How :mod:`kvcalc.models.audio` counts one audio-language wrapper: ``tower``, the ``audio_config``
    model_type; ``projector``, its rule (``kvcalc.models.audio_towers.audio_projector``); ``text_defaults``, the
    fields the wrapper's config class merges under a given ``text_config`` (Voxtral's ``__post_init__``); ``tied_head``,
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
    audio: Audio | None = None         # an audio-language wrapper's tower and projector (kvcalc.models.audio)
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
    attribute_map: Mapping[str, str] = field(default_factory=lambda: EMPTY)  # the class's attribute_map


_Flags = TypeVar("_Flags")


def quirk_flags(cls: type[_Flags], entry: ModelType) -> _Flags:
    """The typed view ``cls`` (a frozen dataclass of bool fields, one per quirk of :data:`QUIRKS` a family's counter
    reads) of ``entry.quirks``: each field True when the entry names that quirk. A family's counter reads its
    quirks as attributes, so a misspelt quirk is a type error, not a silent False.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Norms:
    ...     qk_norm: bool = False
    ...     norm_bias: bool = False
    >>> quirk_flags(Norms, ModelType("toy", quirks=frozenset({"qk_norm"})))
    Norms(qk_norm=True, norm_bias=False)
    """
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{name: True for name in entry.quirks & names})
