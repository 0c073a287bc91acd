"""MLA decoders: DeepSeek-V2 / V3 / V4, Mistral Large 4, LongCat-Flash and DeepSeek-OCR 2's text model
(multi-head latent attention, dense-first MoE).

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..config import ConfigReader, hidden_per_head
from ..errors import ConfigError, UnsupportedError
from .blocks import attention_heads, flag, gated_mlp, linear, lm_head, registry_entry
from .counts import Tally
from .model_type import quirk_flags
from .moe import sparse_layers
from .subconfigs import sub_config
from .wrappers import own_text_wrapper


@dataclass(frozen=True)
class DeepseekQuirks:
    """The departures from DeepSeek-V3's MLA + MoE layout :func:`deepseek` reads, one flag per quirk an entry
    names (:data:`kvcalc.models.model_type.QUIRKS`)."""

    dense_mla: bool = False
    dsa_indexer: bool = False
    moe_post_norm: bool = False
    shared_indexer: bool = False


def deepseek(f: ConfigReader, t: Tally) -> None:
    """DeepSeek-V2 / V3 (and Kimi-K2, which uses the V3 classes): MLA attention, dense then MoE layers.

    Attention per layer (``r_q`` = q_lora_rank, ``r_kv`` = kv_lora_rank, ``d_qk = nope + rope``):
    ``q_proj H*n*d_qk`` when ``r_q`` is null, else ``q_a H*r_q + q_b r_q*n*d_qk`` (+ norm ``r_q``);
    ``kv_a H*(r_kv+rope)``, norm ``r_kv``, ``kv_b r_kv*n*(nope+v)``, ``o n*v*H`` (+ biases with attention_bias
    on q_a, kv_a, o). Dense layers (:func:`sparse_layers`; every layer with ``dense_mla``: MiniCPM3, Youtu) have a
    dense MLP ``3*H*I``; the others a router ``E*H``,
    ``E`` experts ``3*H*I_e`` and a shared expert ``3*H*(I_e*n_shared)`` (V2: + biases with mlp_bias).
    ``moe_layer_freq`` and the MTP layers (``num_nextn_predict_layers``) are not built by transformers.
    A.X-K1 adds a post_mlp_layernorm ``H`` per MoE layer; the DSA indexer (``dsa_indexer``: DeepSeek-V3.2,
    GLM-MoE-DSA) is below. Sources: transformers/models/deepseek_v3/modeling_deepseek_v3.py,
    axk1/modeling_axk1.py, glm_moe_dsa/modeling_glm_moe_dsa.py, minicpm3/modeling_minicpm3.py, youtu/modeling_youtu.py.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n = f.get_int("num_attention_heads")
    q_rank = f.nullable_int("q_lora_rank")
    kv_rank = f.get_int("kv_lora_rank")
    rope, nope = f.get_int("qk_rope_head_dim", minimum=0), f.get_int("qk_nope_head_dim", minimum=0)
    v_dim = f.opt_int("v_head_dim") or hidden // n      # MiniCPM3Config derives H / n_q when null
    bias = f.get_bool("attention_bias")
    qk = nope + rope
    if q_rank is None:
        attn, norms = linear(hidden, n * qk), 0
    else:
        attn, norms = linear(hidden, q_rank, bias) + linear(q_rank, n * qk), q_rank
    attn += (linear(hidden, kv_rank + rope, bias) + linear(kv_rank, n * (nope + v_dim))
             + linear(n * v_dim, hidden, bias))
    norms += kv_rank + 2 * hidden

    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * attn)
    t.add("norms", n_layers * norms + hidden)
    q = quirk_flags(DeepseekQuirks, registry_entry(f))
    mlp_bias = flag(f, registry_entry(f).mlp_bias)
    dense_first = registry_entry(f).dense_first
    n_dense = n_layers if q.dense_mla else n_layers - len(sparse_layers(f, n_layers, dense_first))
    if q.dsa_indexer:
        # DeepSeek sparse-attention indexer per layer: wq_b r_q -> n_i*d_i, wk H -> d_i, k_norm LayerNorm
        # 2*d_i, weights_proj H -> n_i (DeepseekV32Indexer); GLM-MoE-DSA builds it only on its "full"
        # indexer_types layers ("shared" layers reuse another layer's top-k)
        n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
        n_idx = n_layers
        if f.has("indexer_types"):
            kinds = (f.opt_str_list("indexer_types") or [])[:n_layers]
            for i, kind in enumerate(kinds):
                if kind not in ("full", "shared"):
                    raise ConfigError(f"{f.path}indexer_types[{i}]", kind, "must be 'full' or 'shared'")
            n_idx = kinds.count("full") + max(n_layers - len(kinds), 0)
        elif q.shared_indexer:     # HYV4Config's default indexer_types: "full" at 0, 1, 5, 9, ...
            n_idx = sum(1 for i in range(n_layers) if i == 0 or (i - 1) % 4 == 0)
        elif f.has("index_topk_pattern", "index_topk_freq"):
            raise UnsupportedError("index_topk_pattern / index_topk_freq without indexer_types: kvcalc does not "
                                   "derive which layers hold an indexer")
        t.add("attention", n_idx * ((q_rank or hidden) * n_i * d_i + hidden * d_i + hidden * n_i))
        t.add("norms", n_idx * 2 * d_i)
    if n_dense:
        t.add("mlp", n_dense * gated_mlp(hidden, f.get_int("intermediate_size"), mlp_bias))
    if n_layers > n_dense:
        n_exp = f.get_int("n_routed_experts", "num_local_experts", "num_experts")
        exp_inter = f.get_int("moe_intermediate_size")
        shared = f.get_int("n_shared_experts", minimum=0)
        top_k = f.opt_int("num_experts_per_tok")
        for _ in range(n_layers - n_dense):
            t.add("mlp", n_exp * hidden + gated_mlp(hidden, exp_inter * shared, mlp_bias))
            if q.moe_post_norm:
                t.add("norms", hidden)
            t.experts(3 * hidden * exp_inter, n_exp, top_k, f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab)


def longcat_flash(f: ConfigReader, t: Tally) -> None:
    """LongCat-Flash (transformers/models/longcat_flash/modeling_longcat_flash.py LongcatFlashDecoderLayer,
    LongcatFlashMLA, LongcatFlashMoE, LongcatFlashExperts, LongcatFlashTopkRouter). Each of the ``num_layers``
    layers holds two MLA sublayers: q_a ``H*r_q`` + norm ``r_q``, q_b ``r_q*n*qk_head_dim`` (default nope + rope),
    kv_a ``H*(r_kv+rope)`` + norm ``r_kv``, kv_b ``r_kv*n*(nope+v)``, o ``n*v*H`` (biases on q_a, kv_a, o with
    attention_bias); two dense MLPs ``3*H*ffn_hidden_size``; four norms ``4*H``; one shortcut MoE: router
    ``H*(E+Z)`` (+ bias with router_bias; ``Z`` = zero_expert_num identity experts), gate_up_proj
    ``(E+Z)*2*I_e*H`` (the zero experts hold rows too) and down_proj ``E*H*I_e`` (none when ``E`` is 0). Final
    norm ``H``; lm_head ``V*H`` unless tied. ``active`` is refused when zero experts exist: a token's top-k
    mixes identity and real experts, so the parameters it uses vary from token to token. The zero experts'
    gate_up rows (``Z*2*I_e*H`` per layer, 180B for LongCat-Flash's 28 x 256 x 2 x 2048 x 6144) are parameters
    of transformers' module but not of the released checkpoint (560B total on its model card).
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_layers")
    n = f.get_int("num_attention_heads")
    q_rank, kv_rank = f.get_int("q_lora_rank"), f.get_int("kv_lora_rank")
    rope, nope = f.get_int("qk_rope_head_dim", minimum=0), f.get_int("qk_nope_head_dim", minimum=0)
    qk, v = f.opt_int("qk_head_dim") or nope + rope, f.get_int("v_head_dim")
    bias = f.get_bool("attention_bias")
    mla = (linear(hidden, q_rank, bias) + linear(q_rank, n * qk) + linear(hidden, kv_rank + rope, bias)
           + linear(kv_rank, n * (nope + v)) + linear(n * v, hidden, bias))
    n_exp, zero = f.get_int("n_routed_experts", minimum=0), f.get_int("zero_expert_num", default=0, minimum=0)
    inter_e, top_k = f.get_int("expert_ffn_hidden_size"), f.get_int("moe_topk")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * 2 * mla)
    t.add("norms", n_layers * (2 * (q_rank + kv_rank) + 4 * hidden) + hidden)
    t.add("mlp", n_layers * 2 * gated_mlp(hidden, f.get_int("ffn_hidden_size")))
    router = linear(hidden, n_exp + zero, f.get_bool("router_bias", default=False))
    experts = ((n_exp + zero) * 2 * inter_e * hidden + n_exp * hidden * inter_e) if n_exp else 0
    t.add("mlp", n_layers * (router + experts))
    t.moe_experts += n_layers * experts
    if zero:
        t.null_top_k = f.field_name("moe_topk")
        t.active_reason = (f"active parameters are not counted for longcat_flash with {f.field_name('zero_expert_num')}"
                           f" = {zero}: its top-{top_k} router picks zero-compute (identity) experts too, so the "
                           "parameters a token uses vary from token to token")
    else:
        t.moe_active += n_layers * top_k * 3 * inter_e * hidden
    lm_head(f, t, hidden, vocab)


def mistral_large4_text(f: ConfigReader, t: Tally) -> None:
    """MistralLarge4TextModel (transformers/models/mistral_large4/modeling_mistral_large4.py): DSA attention with
    no q LoRA and NoPE layers, then dense-first MoE.

    Per layer ``i`` (``rope_i`` = qk_rope_head_dim where no_rope_layers[i] is 1, else 0; ``nope_i`` =
    qk_nope_head_dim + rope - rope_i): q_proj ``H*n*(nope+rope)``; unless the layer reuses another's latent
    (kv_source_layers[i] != i) kv_a_proj_with_mqa ``H*(r+rope_i)`` (+ bias) and kv_a_layernorm ``r``; kv_b_proj
    ``r*n*(nope_i+v)``; o_proj ``n*v*H`` (+ bias); softmax_scaling ``2*n``; on "full" indexer_types layers the
    MistralLarge4TextIndexer: wq_b ``H*n_i*d_i``, wk ``H*d_i``, k_norm LayerNorm ``2*d_i``, weights_proj
    ``H*n_i``, q_input_norm LayerNorm ``2*H``, softmax_scaling ``2*n_i``. Two norms ``2*H``; MLP: dense ``3*H*I``
    on the dense layers (:func:`sparse_layers`), else router ``E*H``, shared experts ``3*H*(n_shared*I_e)``,
    ``E`` experts ``3*H*I_e``. Embedding ``V*H``, final norm ``H``, the rotary embedding's LeRoPE ``alpha``
    (one per frequency: ``rope/2``), lm_head ``V*H`` unless tied."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n, rank = f.get_int("num_attention_heads"), f.get_int("kv_lora_rank")
    rope, nope, v_dim = f.get_int("qk_rope_head_dim"), f.get_int("qk_nope_head_dim"), f.get_int("v_head_dim")
    bias = f.get_bool("attention_bias")
    flags = f.opt_int_list("no_rope_layers") or [int((i + 1) % 4 != 0) for i in range(n_layers)]
    sources = f.opt_int_list("kv_source_layers") or list(range(n_layers))
    if f.has("indexer_types"):
        indexed = [kind != "shared" for kind in (f.opt_str_list("indexer_types") or [])]
    elif f.has("index_topk_pattern", "index_topk_freq"):
        raise UnsupportedError("mistral_large4 with index_topk_pattern / index_topk_freq but no indexer_types: "
                               "kvcalc does not derive which layers hold an indexer")
    else:
        indexed = [True] * n_layers
    if min(len(flags), len(sources), len(indexed)) < n_layers:
        raise ConfigError(f.field_name("num_hidden_layers"), n_layers, "exceeds the per-layer lists "
                          "(no_rope_layers, kv_source_layers, indexer_types)")
    n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
    indexer = hidden * n_i * d_i + hidden * d_i + hidden * n_i + 2 * n_i
    t.add("embedding", vocab * hidden)
    for i in range(n_layers):
        rope_i = rope if flags[i] else 0
        attn = hidden * n * (nope + rope) + rank * n * (nope + rope - rope_i + v_dim)
        attn += linear(n * v_dim, hidden, bias) + 2 * n
        if sources[i] == i:
            attn += linear(hidden, rank + rope_i, bias)
            t.add("norms", rank)
        if indexed[i]:
            attn += indexer
            t.add("norms", 2 * d_i + 2 * hidden)
        t.add("attention", attn)
    t.add("norms", 2 * hidden * n_layers + hidden)
    t.add("other", rope // 2)
    sparse = sparse_layers(f, n_layers)
    t.add("mlp", (n_layers - len(sparse)) * gated_mlp(hidden, f.get_int("intermediate_size")))
    n_exp, exp_inter = f.get_int("n_routed_experts"), f.get_int("moe_intermediate_size")
    for _ in sparse:
        t.add("mlp", n_exp * hidden + gated_mlp(hidden, exp_inter * f.get_int("n_shared_experts", minimum=0)))
        t.experts(3 * hidden * exp_inter, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab)


_V4_RATIO_TYPES = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}


def _deepseek_v4_types(f: ConfigReader, n_layers: int) -> tuple[list[str], dict[str, int]]:
    """DeepseekV4Config.__post_init__: the attention type of each layer (layer_types, else the legacy Hub
    compress_ratios 0 / 4 / 128, else two HCA layers then CSA / HCA alternating) and the compress rate of
    each compressed type (compress_rates, else 4 and 128; the legacy compress_rate_csa / _hca override)."""
    if f.has("layer_types"):
        types = (f.opt_str_list("layer_types") or [])[:n_layers]
    elif f.has("compress_ratios"):
        ratios = f.get_int_list("compress_ratios")[:n_layers]
        if any(r not in _V4_RATIO_TYPES for r in ratios):
            raise ConfigError(f.field_name("compress_ratios"), ratios, "entries must be 0, 4 or 128")
        types = [_V4_RATIO_TYPES[r] for r in ratios]
    else:
        types = (["heavily_compressed_attention"] * min(n_layers, 2)
                 + ["compressed_sparse_attention" if i % 2 else "heavily_compressed_attention"
                    for i in range(max(n_layers - 2, 0))])
    for i, kind in enumerate(types):
        if kind not in _V4_RATIO_TYPES.values():
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be sliding_attention, "
                              "compressed_sparse_attention or heavily_compressed_attention")
    raw = f.value("compress_rates")
    rates = dict(raw) if isinstance(raw, Mapping) else {"compressed_sparse_attention": 4,
                                                          "heavily_compressed_attention": 128}
    for field, kind in (("compress_rate_csa", "compressed_sparse_attention"),
                        ("compress_rate_hca", "heavily_compressed_attention")):
        if f.has(field):
            rates[kind] = f.get_int(field)
    return types, {k: ConfigReader.check_int(f"{f.path}compress_rates.{k}", v) for k, v in rates.items()}


def deepseek_v4(f: ConfigReader, t: Tally) -> None:
    """DeepseekV4ForCausalLM (transformers/models/deepseek_v4/modeling_deepseek_v4.py). Per layer (``d`` head_dim,
    ``r_q`` q_lora_rank, ``g`` o_groups, ``r_o`` o_lora_rank, ``N`` hc_mult, ``E`` experts of width ``I_e``):
    DeepseekV4Attention q_a ``H*r_q`` + q_a_norm ``r_q``, q_b ``r_q*n*d``, kv_proj ``H*d`` + kv_norm ``d``,
    the grouped o_a ``(n*d/g)*(g*r_o)``, o_b ``g*r_o*H``, sinks ``n``; the compressor of its type
    (:func:`_deepseek_v4_types`; none on sliding_attention): HCA kv / gate ``H*d`` each, position_bias
    ``rate*d``, kv_norm ``d``; CSA the same at ``2*d`` (kv_norm ``d``) plus its DeepseekV4Indexer (kv / gate
    ``H*2*d_i``, position_bias ``rate*2*d_i``, kv_norm ``d_i``, q_b ``r_q*n_i*d_i``, weights_proj ``H*n_i``);
    DeepseekV4SparseMoeBlock: router ``E*H`` (hash or top-k: the hash table tid2eid is a buffer), ``E`` experts
    ``3*H*I_e``, a shared expert ``3*H*I_e`` (intermediate_size is an alias of moe_intermediate_size); two norms
    ``2*H``; two DeepseekV4HyperConnection (fn ``(2+N)*N x N*H``, base ``(2+N)*N``, scale 3). Model: embedding
    ``V*H``, norm ``H``, DeepseekV4HyperHead (``N x N*H`` + ``N`` + 1), lm_head ``V*H`` unless tied. The MTP
    layers (num_nextn_predict_layers) are not built."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n, d, q_rank = f.get_int("num_attention_heads"), f.get_int("head_dim"), f.get_int("q_lora_rank")
    groups, o_rank, hc = f.get_int("o_groups"), f.get_int("o_lora_rank"), f.get_int("hc_mult")
    n_i, d_i = f.get_int("index_n_heads"), f.get_int("index_head_dim")
    n_exp, exp_inter = f.get_int("n_routed_experts", "num_local_experts"), f.get_int("moe_intermediate_size",
                                                                                     "intermediate_size")
    mlp_bias = f.get_bool("mlp_bias")
    if (n * d) % groups:
        raise ConfigError(f.field_name("o_groups"), groups, f"must divide num_attention_heads x head_dim ({n * d})")
    types, rates = _deepseek_v4_types(f, n_layers)
    if len(types) < n_layers:
        raise ConfigError(f.field_name("layer_types"), f"<{len(types)} entries>", f"lists fewer than {n_layers}")
    attn = (hidden * q_rank + q_rank * n * d + hidden * d + (n * d // groups) * groups * o_rank
            + groups * o_rank * hidden + n)
    mix = (2 + hc) * hc
    t.add("embedding", vocab * hidden)
    for kind in types:
        t.add("attention", attn)
        t.add("norms", q_rank + d + 2 * hidden)
        if kind == "heavily_compressed_attention":
            t.add("attention", 2 * hidden * d + rates[kind] * d)
            t.add("norms", d)
        elif kind == "compressed_sparse_attention":
            t.add("attention", 4 * hidden * d + rates[kind] * 2 * d + 4 * hidden * d_i + rates[kind] * 2 * d_i
                  + q_rank * n_i * d_i + hidden * n_i)
            t.add("norms", d + d_i)
        t.add("mlp", n_exp * hidden + gated_mlp(hidden, exp_inter, mlp_bias))
        t.experts(3 * hidden * exp_inter, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
        t.add("other", 2 * (mix * hc * hidden + mix + 3))   # attn_hc and ffn_hc (hyper-connections: other)
    t.add("norms", hidden)
    t.add("other", hc * hc * hidden + hc + 1)
    lm_head(f, t, hidden, vocab)


def _deepseek_ocr2_text(f: ConfigReader, t: Tally) -> None:
    """DeepSeek-OCR-2's decoder (transformers/models/deepseek_ocr2/modeling_deepseek_ocr2.py,
    DeepseekOcr2TextModel): embedding ``V*H``; per layer q/k/v/o ``H*n_q*d + 2*H*n_kv*d + n_q*d*H`` with
    ``d = H/n_q`` (DeepseekOcr2TextConfig overwrites head_dim) and biases with attention_bias, 2 RMSNorms
    ``2H``; a "dense" layer of mlp_layer_types a gated MLP ``3*H*I`` (biases with mlp_bias), a "sparse" one
    DeepseekOcr2TextMoe: router ``E*H``, ``E`` experts ``3*H*I_e`` (moe_intermediate_size), shared experts one
    gated MLP of ``n_shared*I_e``; final norm ``H``; lm_head ``V*H`` unless tied. mlp_layer_types has no class
    default (transformers cannot build the decoder without it); a null num_experts_per_tok (the class default)
    leaves ``active`` undefined."""
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = attention_heads(f)
    d = hidden_per_head(f, hidden, n_q)
    attn_bias, mlp_bias = f.get_bool("attention_bias"), f.get_bool("mlp_bias")
    kinds = f.opt_str_list("mlp_layer_types")
    if kinds is None:
        raise ConfigError(f.field_name("mlp_layer_types"), None, "is required: DeepseekOcr2TextConfig has no default "
                                                                 "and transformers cannot build the decoder without it")
    if len(kinds) != n_layers or not set(kinds) <= {"dense", "sparse"}:
        raise ConfigError(f.field_name("mlp_layer_types"), f"<{len(kinds)} entries>",
                          f"must list 'dense' or 'sparse' for each of the {n_layers} layers")
    n_experts, width = f.get_int("n_routed_experts"), f.get_int("moe_intermediate_size")
    shared = f.get_int("n_shared_experts", minimum=0)
    top_k = f.opt_int("num_experts_per_tok")
    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * (linear(hidden, n_q * d, attn_bias) + 2 * linear(hidden, n_kv * d, attn_bias)
                                   + linear(n_q * d, hidden, attn_bias)))
    t.add("norms", n_layers * 2 * hidden + hidden)
    for kind in kinds:
        if kind == "dense":
            t.add("mlp", gated_mlp(hidden, f.get_int("intermediate_size"), mlp_bias))
            continue
        t.add("mlp", n_experts * hidden + gated_mlp(hidden, width * shared, mlp_bias))
        t.experts(3 * hidden * width, n_experts, top_k, f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab)


def deepseek_ocr2(f: ConfigReader, t: Tally) -> None:
    """DeepseekOcr2ForConditionalGeneration (modeling_deepseek_ocr2.py): :func:`own_text_wrapper` over the
    text_config, always built as DeepseekOcr2TextConfig (:func:`_deepseek_ocr2_text`), with the SAM + Qwen2-style
    vision tower and projector."""
    text = sub_config(f, "text_config", "deepseek_ocr2_text", {})
    if text.model_type != "deepseek_ocr2_text":
        raise UnsupportedError(f"{f.path}text_config.model_type '{text.model_type}': deepseek_ocr2 builds its "
                               "text_config as deepseek_ocr2_text whatever type it names; kvcalc will not guess")
    own_text_wrapper(f, t, text, _deepseek_ocr2_text)
