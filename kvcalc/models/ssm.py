"""State-space models and Mamba hybrids: Mamba, Mamba-2, Mamba-2 hybrids (Granite 4, Falcon-H1, ...),
Nemotron-H, Jamba, Zamba (1 and 2) and ZAYA.

Ground truth: ``sum(p.numel() for p in model.parameters())`` of the class transformers 5.24 builds on the
meta device (tests/fixtures/transformers_5_24_coverage.json for the class defaults, the tests/test_params_*.py
files for other geometries).

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

from dataclasses import dataclass

from ..architectures import layer_types
from ..config import ConfigReader, head_dim_or_derived, hidden_per_head
from ..dtypes import ceil_div
from ..errors import ConfigError
from .blocks import attention_heads, flag, gated_mlp, linear, lm_head, registry_entry
from .counts import Tally
from .model_type import quirk_flags
from .moe import moe_shape


@dataclass(frozen=True)
class SsmQuirks:
    """The quirks the state-space counters read, one flag per quirk an entry names
    (:data:`kvcalc.models.model_type.QUIRKS`)."""

    falcon_h1_mixer: bool = False
    zamba2_blocks: bool = False


def mamba(f: ConfigReader, t: Tally) -> None:
    """Mamba: ``V*H`` embedding; per layer an RMSNorm ``H`` and a mixer with ``I`` = intermediate_size or
    ``expand*H``, ``N`` = state_size, ``K`` = conv_kernel, ``R`` = time_step_rank (``ceil(H/16)`` for "auto"):
    ``in_proj H*2I``, conv1d ``I*K`` (+ ``I`` with use_conv_bias), ``x_proj I*(R+2N)``, ``dt_proj R*I+I``,
    ``A_log I*N``, ``D I``, ``out_proj I*H`` (in/out biases with use_bias); final norm ``H``; lm_head tied by
    default.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    # MambaConfig derives intermediate_size = expand * hidden_size, but a value in the file overrides it
    inter = f.opt_int("intermediate_size") or f.get_int("expand") * hidden
    n_state, kernel = f.get_int("state_size"), f.get_int("conv_kernel")
    rank_value = f.value("time_step_rank")
    rank = ceil_div(hidden, 16) if rank_value == "auto" else ConfigReader.check_int(
        f.field_name("time_step_rank"), rank_value)
    bias = f.get_bool("use_bias")
    mixer = (linear(hidden, 2 * inter, bias) + inter * kernel + (inter if f.get_bool("use_conv_bias") else 0)
             + linear(inter, rank + 2 * n_state) + linear(rank, inter, True) + inter * n_state + inter
             + linear(inter, hidden, bias))
    t.add("embedding", vocab * hidden)
    t.add("mixer", n_layers * mixer)
    t.add("norms", n_layers * hidden + hidden)
    lm_head(f, t, hidden, vocab)


def mamba2(f: ConfigReader, t: Tally) -> None:
    """Mamba-2: ``V*H`` embedding; per layer an RMSNorm ``H`` and a mixer with ``I = expand*H``, ``h`` heads,
    ``G`` groups, ``N`` state size, ``C = I + 2*G*N``: ``in_proj H*(I + C + h)``, conv1d ``C*K`` (+ ``C`` with
    use_conv_bias), ``dt_bias, A_log, D`` (``h`` each), gated norm ``I``, ``out_proj I*H`` (in/out biases with
    use_bias); final norm ``H``; lm_head ``V*H`` unless tied.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    inter = f.get_int("expand") * hidden
    heads, groups, n_state = f.get_int("num_heads"), f.get_int("n_groups"), f.get_int("state_size")
    if inter != heads * f.get_int("head_dim"):
        raise ConfigError(f.field_name("num_heads"), heads,
                          f"times head_dim must equal expand * hidden_size ({inter}), as Mamba2Config requires")
    kernel, bias = f.get_int("conv_kernel"), f.get_bool("use_bias")
    conv = inter + 2 * groups * n_state
    mixer = (linear(hidden, inter + conv + heads, bias) + conv * kernel + (conv if f.get_bool("use_conv_bias") else 0)
             + 3 * heads + linear(inter, hidden, bias))
    t.add("embedding", vocab * hidden)
    t.add("mixer", n_layers * mixer)
    t.add("norms", n_layers * (hidden + inter) + hidden)
    lm_head(f, t, hidden, vocab)


def mamba2_hybrid(f: ConfigReader, t: Tally) -> None:
    """Bamba and GraniteMoeHybrid (transformers/models/bamba/modeling_bamba.py BambaDecoderLayer,
    granitemoehybrid/modeling_granitemoehybrid.py GraniteMoeHybridDecoderLayer): ``V*H`` embedding; per layer
    two RMSNorms ``2*H`` and either attention (q/k/v/o ``H*n_q*d + 2*H*n_kv*d + n_q*d*H``, + biases with
    attention_bias) or a Mamba-2 mixer (``I = mamba_expand*H``, ``h`` heads, ``G`` groups, ``N`` state,
    ``C = I + 2*G*N``: in_proj ``H*(I + C + h)``, conv1d ``C*K`` (+ ``C`` with mamba_conv_bias), dt_bias, A_log,
    D ``h`` each, gated norm ``I``, out_proj ``I*H``; in/out biases with mamba_proj_bias); then Bamba's gated
    MLP ``3*H*I_mlp`` (+ biases with mlp_bias), or GraniteMoeHybrid's MoE (:func:`moe_shape`, none with 0 experts)
    plus its shared MLP ``3*H*shared_intermediate_size``; final norm ``H``; lm_head ``V*H`` unless tied.
    Layer kinds: "mamba" / "linear_attention" are mixers, "attention" / "full_attention" attention; Falcon-H1
    (falcon_h1/modeling_falcon_h1.py FalconH1DecoderLayer, quirk ``falcon_h1_mixer``): every layer is "hybrid"
    (both), ``I`` = mamba_d_ssm when set, the gated norm only with mamba_rms_norm, out_proj's bias from
    projectors_bias, and a gated MLP like Bamba's.
    """
    m = registry_entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = layer_types(f, m, n_layers)
    for i, kind in enumerate(kinds):
        if kind not in ("mamba", "linear_attention", "attention", "full_attention", "hybrid"):
            raise ConfigError(f"{f.path}layer_types[{i}]", kind, "must be mamba / linear_attention or attention")
    n_attn = sum(kind in ("attention", "full_attention", "hybrid") for kind in kinds)
    n_mixer = sum(kind in ("mamba", "linear_attention", "hybrid") for kind in kinds)
    falcon = quirk_flags(SsmQuirks, m).falcon_h1_mixer
    n_q, n_kv = attention_heads(f)
    d = head_dim_or_derived(f, hidden, n_q)
    bias = f.get_bool("attention_bias")
    attn = linear(hidden, n_q * d, bias) + 2 * linear(hidden, n_kv * d, bias) + linear(n_q * d, hidden, bias)
    # an explicit null mamba_d_ssm means expand*H (FalconH1Mixer); omitted, the class default (1024) applies
    explicit_null = "mamba_d_ssm" in f.data and f.data["mamba_d_ssm"] is None
    inter = (f.opt_int("mamba_d_ssm") if falcon and not explicit_null else None) or f.get_int("mamba_expand") * hidden
    heads, groups, n_state = f.get_int("mamba_n_heads"), f.get_int("mamba_n_groups"), f.get_int("mamba_d_state")
    kernel, proj_bias = f.get_int("mamba_d_conv"), f.get_bool("mamba_proj_bias")
    out_bias = f.get_bool("projectors_bias") if falcon else proj_bias
    conv = inter + 2 * groups * n_state
    mixer = (linear(hidden, inter + conv + heads, proj_bias) + conv * kernel
             + (conv if f.get_bool("mamba_conv_bias") else 0) + 3 * heads + linear(inter, hidden, out_bias))
    mixer_norm = inter if not falcon or f.get_bool("mamba_rms_norm") else 0
    t.add("embedding", vocab * hidden)
    t.add("attention", n_attn * attn)
    t.add("mixer", n_mixer * mixer)
    t.add("norms", n_layers * 2 * hidden + n_mixer * mixer_norm + hidden)
    if m.moe is None:
        t.add("mlp", n_layers * gated_mlp(hidden, f.get_int("intermediate_size"), flag(f, m.mlp_bias)))
    else:
        moe = moe_shape(f, m, hidden, n_layers)
        if moe is not None:
            for _ in moe.layers:
                t.add("mlp", moe.fixed)
                t.experts(moe.per_expert, moe.n_experts, moe.top_k, moe.top_k_field)
        t.add("mlp", n_layers * gated_mlp(hidden, f.get_int("shared_intermediate_size", minimum=0)))
    lm_head(f, t, hidden, vocab)


_NEMOTRON_H_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}


_LEGACY_LAYER_TYPES = {"mamba": "linear_attention", "attention": "full_attention"}   # configuration_utils


def nemotron_h(f: ConfigReader, t: Tally) -> None:
    """Nemotron-H (transformers/models/nemotron_h/modeling_nemotron_h.py NemotronHBlock, MIXER_TYPES): one mixer
    per block, its kind from ``layers_block_type`` (else ``hybrid_override_pattern`` M/E/*/-, else the class
    default [linear_attention, moe, full_attention, mlp]; num_hidden_layers is ignored, as in NemotronHConfig;
    legacy names "mamba" / "attention" are remapped as configuration_utils.remap_legacy_layer_types does).
    ``V*H`` embedding; per block a norm ``H``; Mamba-2 mixers with ``I = mamba_num_heads*mamba_head_dim``,
    ``c = I + 2*n_groups*N``: in_proj ``H*(I+c+h)``, conv1d ``c*K`` (+ ``c`` with use_conv_bias), dt_bias,
    A_log, D ``h`` each, gated norm ``I``, out_proj ``I*H`` (in/out biases with use_bias); attention q/k/v/o
    ``2*H*n_q*d + 2*H*n_kv*d`` (no biases); MLP up/down ``2*H*I_ff`` (+ biases with mlp_bias); MoE: router
    ``E*H`` (its e_score_correction_bias is a buffer), ``E`` ungated experts ``2*I_e*D`` (``D`` =
    moe_latent_size or ``H``; with a latent size, fc1/fc2_latent_proj ``2*H*D`` + biases with mlp_bias), a
    shared MLP of moe_shared_expert_intermediate_size; norm_f ``H``; lm_head ``V*H``, never tied
    (NemotronHForCausalLM._tied_weights_keys is empty). The MTP layers (``mtp.*``) are not built.
    """
    vocab, hidden = f.get_int("vocab_size"), f.get_int("hidden_size")
    if f.has("layers_block_type", "layer_types"):
        kinds = [_LEGACY_LAYER_TYPES.get(k, k) for k in f.opt_str_list("layers_block_type", "layer_types") or []]
        where = f.field_name("layers_block_type", "layer_types")
    elif f.has("hybrid_override_pattern"):
        pattern = f.get_str("hybrid_override_pattern")
        kinds, where = [_NEMOTRON_H_PATTERN.get(c, c) for c in pattern], f.field_name("hybrid_override_pattern")
    else:
        kinds, where = ["linear_attention", "moe", "full_attention", "mlp"], "layers_block_type"
    for i, kind in enumerate(kinds):
        if kind not in _NEMOTRON_H_PATTERN.values():
            raise ConfigError(f"{where}[{i}]", kind, "must be linear_attention (M), moe (E), full_attention (*) "
                                                     "or mlp (-)")
    n_q, n_kv = attention_heads(f)
    d = f.get_int("head_dim")
    heads, head_dim = f.get_int("mamba_num_heads"), f.get_int("mamba_head_dim")
    groups, n_state = f.get_int("mamba_n_groups", "n_groups"), f.get_int("ssm_state_size")
    kernel = f.get_int("mamba_d_conv", "conv_kernel")
    conv_bias = f.get_bool("mamba_conv_bias") if f.has("mamba_conv_bias") else f.get_bool("use_conv_bias")
    bias, mlp_bias = f.get_bool("use_bias"), f.get_bool("mlp_bias")
    inter = heads * head_dim
    conv = inter + 2 * groups * n_state
    counts = {kind: kinds.count(kind) for kind in _NEMOTRON_H_PATTERN.values()}
    t.add("embedding", vocab * hidden)
    t.add("norms", len(kinds) * hidden + hidden + counts["linear_attention"] * inter)
    t.add("mixer", counts["linear_attention"] * (
        linear(hidden, inter + conv + heads, bias) + conv * kernel + (conv if conv_bias else 0) + 3 * heads
        + linear(inter, hidden, bias)))
    t.add("attention", counts["full_attention"] * (2 * hidden * n_q * d + 2 * hidden * n_kv * d))
    ff = f.get_int("intermediate_size")
    t.add("mlp", counts["mlp"] * (linear(hidden, ff, mlp_bias) + linear(ff, hidden, mlp_bias)))
    if counts["moe"]:
        n_exp, exp_inter = f.get_int("n_routed_experts", "num_local_experts"), f.get_int("moe_intermediate_size")
        latent = f.opt_int("moe_latent_size")
        shared = f.get_int("moe_shared_expert_intermediate_size")
        fixed = n_exp * hidden + linear(hidden, shared, mlp_bias) + linear(shared, hidden, mlp_bias)
        if latent is not None:
            fixed += linear(hidden, latent, mlp_bias) + linear(latent, hidden, mlp_bias)
        for _ in range(counts["moe"]):
            t.add("mlp", fixed)
            t.experts(2 * exp_inter * (latent or hidden), n_exp, f.opt_int("num_experts_per_tok"),
                      f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab, tied=False)


def jamba(f: ConfigReader, t: Tally) -> None:
    """Jamba (transformers/models/jamba/modeling_jamba.py JambaAttentionDecoderLayer / JambaMambaDecoderLayer):
    ``V*H`` embedding; per layer input_layernorm and pre_ff_layernorm ``2*H``; attention layers
    (``i % attn_layer_period == attn_layer_offset``) q/k/v/o without biases; Mamba layers with ``I =
    mamba_expand*H``, ``R`` = mamba_dt_rank ("auto": ``ceil(H/16)``), ``N`` = mamba_d_state, ``K`` = mamba_d_conv:
    in_proj ``H*2I``, conv1d ``I*K`` (+ ``I`` with mamba_conv_bias), x_proj ``I*(R+2N)``, dt_proj ``R*I + I``,
    A_log ``I*N``, D ``I``, out_proj ``I*H`` (in/out biases with mamba_proj_bias), dt/b/c RMSNorms ``R + 2N``;
    feed-forward: a MoE (router ``E*H``, ``E`` experts ``3*H*I_ff``) where ``i % expert_layer_period ==
    expert_layer_offset`` and num_experts > 1, else a gated MLP ``3*H*I_ff``; final norm ``H``; lm_head.
    """
    m = registry_entry(f)
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = layer_types(f, m, n_layers)
    n_attn = sum(kind in ("attention", "full_attention") for kind in kinds)
    n_q, n_kv = attention_heads(f)
    d = hidden_per_head(f, hidden, n_q)
    inter, n_state, kernel = f.get_int("mamba_expand") * hidden, f.get_int("mamba_d_state"), f.get_int("mamba_d_conv")
    rank_value = f.value("mamba_dt_rank")
    rank = ceil_div(hidden, 16) if rank_value == "auto" else ConfigReader.check_int(
        f.field_name("mamba_dt_rank"), rank_value)
    bias = f.get_bool("mamba_proj_bias")
    mixer = (linear(hidden, 2 * inter, bias) + inter * kernel + (inter if f.get_bool("mamba_conv_bias") else 0)
             + linear(inter, rank + 2 * n_state) + linear(rank, inter, True) + inter * n_state + inter
             + linear(inter, hidden, bias))
    ff = f.get_int("intermediate_size")
    n_exp = f.get_int("num_experts")
    period, offset = f.get_int("expert_layer_period"), f.get_int("expert_layer_offset", minimum=0)
    n_moe = sum(1 for i in range(n_layers) if i % period == offset) if n_exp > 1 else 0
    t.add("embedding", vocab * hidden)
    t.add("attention", n_attn * (2 * hidden * n_q * d + 2 * hidden * n_kv * d))
    t.add("mixer", (n_layers - n_attn) * mixer)
    t.add("norms", n_layers * 2 * hidden + (n_layers - n_attn) * (rank + 2 * n_state) + hidden)
    t.add("mlp", (n_layers - n_moe) * gated_mlp(hidden, ff))
    for _ in range(n_moe):
        t.add("mlp", n_exp * hidden)
        t.experts(3 * hidden * ff, n_exp, f.opt_int("num_experts_per_tok"), f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab)


def zamba(f: ConfigReader, t: Tally) -> None:
    """Zamba and Zamba2 (transformers/models/zamba/modeling_zamba.py ZambaModel, ZambaMambaMixer,
    ZambaAttentionDecoderLayer; zamba2/modeling_zamba2.py Zamba2Model.get_layers, Zamba2MambaMixer, Zamba2Attention,
    Zamba2MLP). ``V*H`` embedding; every layer (``layers_block_type``, legacy "mamba" = "linear_attention") holds
    an input norm ``H`` and a Mamba mixer, "hybrid" layers also a linear ``H*H`` and a shared attention block.

    Zamba's mixer (``I = mamba_expand*H``, ``R`` = mamba_dt_rank, "auto" ``ceil(H/16)``, ``N`` = mamba_d_state):
    in_proj ``H*2I``, conv1d ``I*K`` (+ ``I`` with mamba_conv_bias), x_proj ``I*(R+2N)``, dt_proj ``I*R + I``, A_log
    ``I*N``, D ``I``, out_proj ``I*H`` (in/out biases with mamba_proj_bias). Zamba2's (quirk ``zamba2_blocks``; ``h``
    = n_mamba_heads, ``C = I + 2*G*N``): in_proj ``H*(I + C + h)``, conv1d ``C*K + C`` (always a bias), dt_bias,
    A_log, D ``h`` each, gated norm ``I``, out_proj ``I*H`` (biases with add_bias_linear).

    Shared blocks (``A`` = attention_hidden_size, default ``2H``; ``d`` = attention_head_dim, default ``2H/n``):
    q/k/v from ``A``: ``A*n*d + 2*A*n_kv*d``, o_proj ``n*d*H``, norms ``A + H``; Zamba: one block for all hybrid
    layers (tied to the first), gated MLP ``3*H*I_ff``; Zamba2: min(num_mem_blocks, hybrids) blocks (the others
    tied), MLP gate_up ``H*2I_ff`` + down ``I_ff*H`` (+ biases with add_bias_linear); block ``b`` holds a LoRA
    adapter ``H*r + r*2I_ff`` on gate_up (+ ``3*2*A*r`` on q/k/v with use_shared_attention_adapter; ``r`` =
    adapter_rank; counted with the MLP and the attention) for each hybrid layer ``i`` with
    ``i % num_mem_blocks == b``. Without tie_word_embeddings
    transformers ties nothing (PreTrainedModel.get_expanded_tied_weights_keys), so every hybrid layer keeps its
    own block, adapters included. Final norm ``H``; lm_head ``V*H`` unless tied (default tied).
    """
    m = registry_entry(f)
    zamba2 = quirk_flags(SsmQuirks, m).zamba2_blocks
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    kinds = [_LEGACY_LAYER_TYPES.get(k, k) for k in layer_types(f, m, n_layers)]
    for i, kind in enumerate(kinds):
        if kind not in ("linear_attention", "hybrid"):
            raise ConfigError(f"{f.path}layers_block_type[{i}]", kind, "must be linear_attention (mamba) or hybrid")
    n_hybrid = kinds.count("hybrid")
    n_q, n_kv = attention_heads(f)
    width = f.opt_int("attention_hidden_size") or 2 * hidden
    d = f.opt_int("attention_head_dim") or 2 * hidden // n_q
    inter = int(f.get_float("mamba_expand") * hidden)
    n_state, kernel = f.get_int("mamba_d_state"), f.get_int("mamba_d_conv")
    ff = f.opt_int("intermediate_size") or 4 * hidden
    tied = f.get_bool("tie_word_embeddings")    # without it transformers ties nothing, the shared blocks neither
    attn = width * n_q * d + 2 * width * n_kv * d + n_q * d * hidden
    if zamba2:
        heads, bias = f.get_int("n_mamba_heads"), f.get_bool("add_bias_linear")
        conv = inter + 2 * f.get_int("mamba_ngroups") * n_state
        mixer = (linear(hidden, inter + conv + heads, bias) + conv * kernel + conv + 3 * heads
                 + linear(inter, hidden, bias))
        n_mem = f.get_int("num_mem_blocks")
        n_blocks = min(n_mem, n_hybrid) if tied else n_hybrid
        rank = f.get_int("adapter_rank")
        adapter = hidden * rank + rank * 2 * ff
        if f.get_bool("use_shared_attention_adapter"):
            adapter += 3 * 2 * width * rank
        mlp = linear(hidden, 2 * ff, bias) + linear(ff, hidden, bias)
        # block b holds the adapters of the hybrid layers i with i % num_mem_blocks == b (c_b of them)
        per_block = [len(range(b, n_hybrid, n_mem)) for b in range(min(n_mem, n_hybrid))]
        n_adapters = sum(per_block) if tied else sum(c * c for c in per_block)
        t.add("mlp", n_adapters * (hidden * rank + rank * 2 * ff))
        t.add("attention", n_adapters * (adapter - hidden * rank - rank * 2 * ff))
        t.add("norms", n_layers * inter)
    else:
        rank_value = f.value("mamba_dt_rank")
        rank = ceil_div(hidden, 16) if rank_value == "auto" else ConfigReader.check_int(
            f.field_name("mamba_dt_rank"), rank_value)
        bias = f.get_bool("mamba_proj_bias")
        mixer = (linear(hidden, 2 * inter, bias) + inter * kernel + (inter if f.get_bool("mamba_conv_bias") else 0)
                 + inter * (rank + 2 * n_state) + inter * rank + inter + inter * n_state + inter
                 + linear(inter, hidden, bias))
        n_blocks = min(1, n_hybrid) if tied else n_hybrid
        mlp = gated_mlp(hidden, ff)
    t.add("embedding", vocab * hidden)
    t.add("mixer", n_layers * mixer)
    t.add("other", n_hybrid * hidden * hidden)
    t.add("attention", n_blocks * attn)
    t.add("mlp", n_blocks * mlp)
    t.add("norms", n_layers * hidden + n_blocks * (width + hidden) + hidden)
    lm_head(f, t, hidden, vocab, tied)


def zaya(f: ConfigReader, t: Tally) -> None:
    """Zaya (transformers/models/zaya/modeling_zaya.py ZayaModel, ZayaDecoderLayer, ZayaCCAProjection, ZayaQKNorm,
    ZayaRouter, ZayaRouterMLP, ZayaExperts, ZayaResidualScaling). ``V*H`` embedding and the input scale / bias
    ``2*H`` (other). Per layer: CCA attention (``d`` = head_dim, ``C = (n_q + n_kv)*d``): q_proj ``H*n_q*d``,
    k_proj ``H*n_kv*d``, v_proj_current and v_proj_delayed ``H*n_kv*d/2`` each, o_proj ``n_q*d*H`` (biases on
    all with attention_bias), a depthwise conv ``C*k_0 + C`` and a grouped conv (``n_q + n_kv`` groups)
    ``C*d*k_1 + C`` (``k_0, k_1`` = cca_time0, cca_time1), the q/k norm's temp ``n_kv``; 2 norms ``2*H`` and two
    residual scalings ``8*H`` (counted as norms, as Doge's); a MoE of ``E`` experts ``3*H*I_e`` and its router
    (``R`` = router_hidden_size): down_proj ``H*R + R``, router_states_scale ``R`` on every layer but the first,
    an MLP of a norm ``R`` (norms), fc1 / fc2 ``2*(R*R + R)`` and out_proj ``R*(E+1)`` (a skip expert). Final
    norm ``H``; lm_head ``V*H`` unless tied (default tied), + a bias ``V`` with lm_head_bias. The balancing
    biases are buffers.
    """
    vocab, hidden, n_layers = f.get_int("vocab_size"), f.get_int("hidden_size"), f.get_int("num_hidden_layers")
    n_q, n_kv = attention_heads(f)
    d, bias = f.get_int("head_dim"), f.get_bool("attention_bias")
    channels = (n_q + n_kv) * d
    attn = (linear(hidden, n_q * d, bias) + linear(hidden, n_kv * d, bias) + 2 * linear(hidden, n_kv * d // 2, bias)
            + linear(n_q * d, hidden, bias) + channels * f.get_int("cca_time0") + channels
            + channels * d * f.get_int("cca_time1") + channels + n_kv)
    n_exp, inter, router = f.get_int("num_experts"), f.get_int("moe_intermediate_size"), f.get_int("router_hidden_size")
    gate = linear(hidden, router, True) + 2 * linear(router, router, True) + router * (n_exp + 1)
    t.add("embedding", vocab * hidden)
    t.add("other", 2 * hidden)
    t.add("attention", n_layers * attn)
    t.add("norms", n_layers * (2 * hidden + 8 * hidden + router) + hidden)
    top_k = f.opt_int("num_experts_per_tok")
    if top_k != 1:      # ZayaConfig.validate_architecture
        raise ConfigError(f.field_name("num_experts_per_tok"), top_k, "must be 1: transformers' Zaya routes one expert")
    for i in range(n_layers):
        t.add("mlp", gate + (router if i else 0))
        t.experts(3 * hidden * inter, n_exp, top_k, f.field_name("num_experts_per_tok"))
    lm_head(f, t, hidden, vocab)
    if f.get_bool("lm_head_bias"):
        t.add("lm_head", vocab)
