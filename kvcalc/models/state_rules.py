"""State rules: the conv / SSM / linear-attention states one recurrent layer holds per sequence (elements), one
function per mixer family (a registry entry's ``state_rule`` / ``kv_state_rule``)."""
from __future__ import annotations

from ..config import ConfigReader
from ..spec import AttentionCache, RecurrentState
from .model_type import StateRule


def _conv_ssm(conv: int, ssm: int, kernel: int) -> tuple[RecurrentState, ...]:
    """A conv state of ``conv`` channels x ``kernel`` and an SSM state of ``ssm`` elements."""
    return (RecurrentState("conv", conv * kernel, kernel), RecurrentState("ssm", ssm))


def mamba_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Mamba: ``I = intermediate_size or expand*H``; conv ``I x conv_kernel``, SSM ``I x state_size``."""
    inter = r.opt_int("intermediate_size") or int(r.get_float("expand") * hidden)
    return _conv_ssm(inter, inter * r.get_int("state_size"), r.get_int("conv_kernel"))


def jamba_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Jamba: ``I = mamba_expand*H``; conv ``I x mamba_d_conv``, SSM ``I x mamba_d_state``."""
    inter = r.get_int("mamba_expand") * hidden
    return _conv_ssm(inter, inter * r.get_int("mamba_d_state"), r.get_int("mamba_d_conv"))


def gated_delta_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Gated DeltaNet (Qwen3-Next): conv ``(2*n_k*d_k + n_v*d_v) x K``, state ``n_v x d_k x d_v``."""
    kh, vh = r.get_int("linear_num_key_heads"), r.get_int("linear_num_value_heads")
    kd, vd = r.get_int("linear_key_head_dim"), r.get_int("linear_value_head_dim")
    return _conv_ssm(2 * kh * kd + vh * vd, vh * kd * vd, r.get_int("linear_conv_kernel_dim"))


def olmo_hybrid_linear(r: ConfigReader) -> ConfigReader:
    """``r`` with OlmoHybridConfig.__post_init__'s derived gated-DeltaNet geometry as its class defaults:
    linear key / value heads = num_attention_heads, key head dim ``int(0.75 * H / n_k)``, value head
    dim twice the key head dim, each unless the config gives it."""
    n_q = r.get_int("num_attention_heads")
    n_k = r.opt_int("linear_num_key_heads") or n_q
    d_k = r.opt_int("linear_key_head_dim") or int(0.75 * r.get_int("hidden_size") / n_k)
    derived = dict(linear_num_key_heads=n_k, linear_num_value_heads=r.opt_int("linear_num_value_heads") or n_q,
                   linear_key_head_dim=d_k, linear_value_head_dim=r.opt_int("linear_value_head_dim") or 2 * d_k)
    return r.with_defaults({**r.defaults, **derived}, r.model_type)


def olmo_hybrid_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """OLMo Hybrid: gated DeltaNet states over the derived geometry of :func:`olmo_hybrid_linear`."""
    return gated_delta_states(olmo_hybrid_linear(r), hidden)


def kda_dims(r: ConfigReader, from_attention: bool = False) -> tuple[int, int, int]:
    """(heads, head dim, conv kernel) of a Kimi delta attention layer : KimiLinearConfig and
    Glm5NextTextConfig.__post_init__ take the Hub's ``linear_attn_config`` (num_heads, head_dim,
    short_conv_kernel_size) over the flat linear_* fields; BailingHybridConfig.__post_init__ sets those from
    num_attention_heads, head_dim and short_conv_kernel_size unless the config gives linear_* itself (quirk
    ``kda_from_attention``, given as ``from_attention``)."""
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


def kimi_delta_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Kimi delta attention (KDA): one short conv over the concatenated q, k, v (``3*h*d x K``, model dtype)
    and one ``d x d`` float32 state per head (``modeling_kimi_linear.KimiDeltaAttention.forward``;
    Bailing hybrid and GLM-5 Next use the same mixer), ``h, d, K`` from :func:`kda_dims`."""
    heads, hd, kernel = kda_dims(r)
    return _conv_ssm(3 * heads * hd, heads * hd * hd, kernel)


def bailing_delta_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """:func:`_kimi_delta_states` of BailingHybridConfig, whose KDA geometry defaults to the attention fields
    (quirk ``kda_from_attention``)."""
    heads, hd, kernel = kda_dims(r, from_attention=True)
    return _conv_ssm(3 * heads * hd, heads * hd * hd, kernel)


def zaya_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Zaya CCA: a conv window over q and k, ``(n_q + n_kv) * d x ((cca_time0 - 1) + (cca_time1 - 1))``, and
    the previous token's delayed value projection, ``n_kv * d / 2``, both in the model dtype
    (``modeling_zaya.ZayaCCA.forward``: ``update_conv_state`` / ``update_recurrent_state``)."""
    heads, kv, hd = r.get_int("num_attention_heads"), r.get_int("num_key_value_heads"), r.get_int("head_dim")
    kernel = r.get_int("cca_time0") - 1 + r.get_int("cca_time1") - 1
    return (RecurrentState("conv", (heads + kv) * hd * kernel, kernel), RecurrentState("linear", kv * hd // 2))


def _inkling_kernel(r: ConfigReader) -> int:
    """The short-convolution width: ``sconv_kernel_size`` (checkpoints), an alias of ``conv_kernel_size``."""
    return r.opt_int("sconv_kernel_size") or r.get_int("conv_kernel_size")


def inkling_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Inkling (1, 2, 2-Loop): the short convolutions after attention and after the MLP, ``H x K`` each, in
    float32 (``InklingShortConvolution``, conv states 2 and 3)."""
    k = _inkling_kernel(r)
    return (RecurrentState("conv", hidden * k, k, float32=True),) * 2


def inkling_kv_states(r: ConfigReader, a: AttentionCache) -> tuple[RecurrentState, ...]:
    """Inkling: the short convolutions over the layer's keys and values (conv states 0 and 1),
    ``n_kv * d_k x K`` and ``n_kv * d_v x K`` in float32, with the sliding layers' ``swa_*`` geometry."""
    k = _inkling_kernel(r)
    return (RecurrentState("conv", a.kv_heads * a.k_head_dim * k, k, float32=True),
            RecurrentState("conv", a.kv_heads * a.v_head_dim * k, k, float32=True))


def lightning_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """MiniMax lightning attention: one ``head_dim x head_dim`` state per head."""
    heads = r.get_int("num_attention_heads")
    hd = r.opt_int("head_dim") or hidden // heads
    return (RecurrentState("linear", heads * hd * hd),)


def short_conv_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """LFM2 short convolution: ``H x conv_L_cache``."""
    kernel = r.get_int("conv_L_cache")
    return (RecurrentState("conv", hidden * kernel, kernel),)


def zamba_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Zamba (v1) Mamba-1 mixer (transformers 5.24 ZambaMambaMixer / ZambaHybridDynamicCache): ``I =
    mamba_expand * H``; conv ``I x mamba_d_conv``, SSM ``I x mamba_d_state`` (split over n_mamba_heads)."""
    inter = int(r.get_float("mamba_expand") * hidden)
    return _conv_ssm(inter, inter * r.get_int("mamba_d_state"), r.get_int("mamba_d_conv"))


def mamba2_like(expand: str, groups: str, state: str, heads: str, head_dim: str, conv: str,
                 inner: str | None = None) -> StateRule:
    """Mamba-2 mixers under each config's field names: ``I`` = ``inner`` or ``expand*H``, conv
    ``(I + 2*G*N) x K``, SSM ``heads x head_dim x N`` (``head_dim`` default ``I / heads``)."""
    def rule(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
        inter = (r.opt_int(inner) if inner else None) or int(r.get_float(expand) * hidden)
        g, n_state, nh = r.get_int(groups), r.get_int(state), r.get_int(heads)
        hd = inter // nh if r.data.get(head_dim) == "auto" else r.get_int(head_dim, default=inter // nh)
        return _conv_ssm(inter + 2 * g * n_state, nh * hd * n_state, r.get_int(conv))
    return rule


def nemotron_h_states(r: ConfigReader, hidden: int) -> tuple[RecurrentState, ...]:
    """Nemotron-H: ``I = mamba_num_heads x mamba_head_dim`` (not expand x H), otherwise Mamba-2."""
    nh, hd = r.get_int("mamba_num_heads"), r.get_int("mamba_head_dim")
    g, n_state = r.get_int("n_groups"), r.get_int("ssm_state_size")
    return _conv_ssm(nh * hd + 2 * g * n_state, nh * hd * n_state, r.get_int("conv_kernel"))
