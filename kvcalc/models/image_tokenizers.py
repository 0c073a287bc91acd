"""Image tokenizers: the VQ-VAEs of early-fusion models (Chameleon, Emu3, Janus) and Apertus 1.5's image
tokenizer, as parameter counts.

Notation: as in :mod:`kvcalc.models` (``H``, ``V``, ``L``, ``I``, ``n_q`` / ``n_kv``, ``d``, ``E``, ``k``)."""
from __future__ import annotations

import math

from ..config import ConfigReader
from ..errors import ConfigError
from .blocks import conv2d, conv3d, linear


def _chameleon_resnet(n_in: int, n_out: int) -> int:
    """ChameleonVQVAEEncoderResnetBlock: GroupNorm ``2*C_in``, conv 3x3, GroupNorm ``2*C_out``, conv 3x3, and a
    1x1 nin_shortcut when the widths differ."""
    return 2 * n_in + conv2d(n_in, n_out, 3) + 2 * n_out + conv2d(n_out, n_out, 3) + (
        conv2d(n_in, n_out, 1) if n_in != n_out else 0)


def chameleon_vq(vq: ConfigReader) -> int:
    """ChameleonVQVAE (transformers/models/chameleon/modeling_chameleon.py): the encoder only (no decoder is
    built), conv_in ``3x3 C -> B``; per level ``i`` (widths ``B*m_i``) ``num_res_blocks`` resnet blocks, an
    attention block (GroupNorm + four 1x1 convs) after each where the level's resolution is in
    ``attn_resolutions`` (attn_type "vanilla"), a 3x3 downsample conv except on the last level; mid: two
    resnet blocks around an attention block (vanilla); GroupNorm, conv_out to ``latent_channels`` (doubled with
    double_latent); the codebook ``num_embeddings x embed_dim``; quant_conv / post_quant_conv 1x1."""
    base, mults = vq.get_int("base_channels"), vq.get_int_list("channel_multiplier", minimum=1)
    n_res, latent, embed = vq.get_int("num_res_blocks", minimum=0), vq.get_int("latent_channels"), vq.get_int(
        "embed_dim")
    vanilla = vq.get_str("attn_type") == "vanilla"
    attn_at = set(vq.opt_int_list("attn_resolutions") or ())
    resolution = vq.get_int("resolution")
    attention = lambda c: 2 * c + 4 * conv2d(c, c, 1)    # noqa: E731  (ChameleonVQVAEEncoderAttnBlock)
    n = conv2d(vq.get_int("in_channels"), base, 3)
    width = base
    for i, mult in enumerate(mults):
        width, out = base * ((1,) + tuple(mults))[i], base * mult
        for _ in range(n_res):
            n += _chameleon_resnet(width, out)
            width = out
            if vanilla and resolution in attn_at:
                n += attention(width)
        if i != len(mults) - 1:
            n += conv2d(width, width, 3)
            resolution //= 2
    n += 2 * _chameleon_resnet(width, width) + (attention(width) if vanilla else 0)
    n += 2 * width + conv2d(width, 2 * latent if vq.get_bool("double_latent") else latent, 3)
    return n + vq.get_int("num_embeddings") * embed + conv2d(latent, embed, 1) + conv2d(embed, latent, 1)


def emu3_vq(vq: ConfigReader) -> int:
    """Emu3VQVAE (transformers/models/emu3/modeling_emu3.py): encoder, decoder, codebook and the two 3x1x1 quant
    convs. ``B`` base_channels, ``m`` channel_multiplier, ``q`` embed_dim, ``l`` latent_channels, ``R``
    num_res_blocks, ``a`` the attention block (q / k / v / out over hidden_size: ``4*(h*h + h)``).
    Resnet block: two norms (GroupNorm ``2C``, or in the decoder Emu3VQVAESpatialNorm ``2C + 2*(q*C + C)``), two
    3x3 convs, a 1x1 nin_shortcut when the widths differ. Encoder: conv_in, per level ``R`` blocks (an attention
    block + GroupNorm after each on levels listed in attn_resolutions) and a 3x3 downsample but on the last; the
    middle block (resnet, attention + its norm, resnet) at ``B*m[-1]``; GroupNorm, conv_out to ``l`` (doubled
    with double_latent); ``log2(temporal_downsample_factor)`` 4x3x3 temporal downsample convs and ``R`` temporal
    resnets (two BatchNorm3d ``2C``, two 3x3x3 convs). Decoder: ``R`` temporal resnets and ``log2(t)`` 3x3x3
    temporal upsample convs on ``l``, conv_in ``l -> B*m[-1]``, the middle block with spatial norms, per level
    (from the last) ``R + 1`` blocks (attention + spatial norm on attn_resolutions levels) and a 3x3 upsample but
    on level 0; spatial norm_out, conv_out to out_channels."""
    base, mults = vq.get_int("base_channels"), vq.get_int_list("channel_multiplier", minimum=1)
    n_res, latent, q = vq.get_int("num_res_blocks", minimum=0), vq.get_int("latent_channels"), vq.get_int("embed_dim")
    attn_at = set(vq.opt_int_list("attn_resolutions") or ())
    h = vq.get_int("hidden_size")
    attention = 4 * linear(h, h, True)
    steps = int(math.log2(vq.get_int("temporal_downsample_factor")))

    def spatial(c: int) -> int:
        return 2 * c + 2 * conv2d(q, c, 1)

    def resnet(n_in: int, n_out: int, quant: bool) -> int:
        norms = spatial(n_in) + spatial(n_out) if quant else 2 * n_in + 2 * n_out
        shortcut = conv2d(n_in, n_out, 1) if n_in != n_out else 0
        return norms + conv2d(n_in, n_out, 3) + conv2d(n_out, n_out, 3) + shortcut

    def temporal(c: int) -> int:
        return 4 * c + 2 * conv3d(c, c, 3, 3, 3)

    top = base * mults[-1]
    out = 2 * latent if vq.get_bool("double_latent") else latent
    n = conv2d(vq.get_int("in_channels"), base, 3)
    for i, mult in enumerate(mults):
        width = base * ((1,) + tuple(mults))[i]
        for _ in range(n_res):
            n += resnet(width, base * mult, False)
            width = base * mult
            if i in attn_at:
                n += attention + 2 * width
        if i != len(mults) - 1:
            n += conv2d(width, width, 3)
    n += 2 * resnet(top, top, False) + attention + 2 * top + 2 * top + conv2d(top, out, 3)
    n += steps * conv3d(out, out, 4, 3, 3) + n_res * temporal(out)
    # decoder
    n += n_res * temporal(latent) + steps * conv3d(latent, latent, 3, 3, 3) + conv2d(latent, top, 3)
    n += 2 * resnet(top, top, True) + attention + spatial(top)
    width = top
    for i in reversed(range(len(mults))):
        for _ in range(n_res + 1):
            n += resnet(width, base * mults[i], True)
            width = base * mults[i]
            if i in attn_at:
                n += attention + spatial(width)
        if i != 0:
            n += conv2d(width, width, 3)
    n += spatial(base * mults[0]) + conv2d(base * mults[0], vq.get_int("out_channels"), 3)
    return n + vq.get_int("codebook_size") * q + conv3d(latent, q, 3, 1, 1) + conv3d(q, latent, 3, 1, 1)


def _vq_resnet(c_in: int, c_out: int) -> int:
    """Apertus1p5VisionTokenizerResnetBlock (and JanusVQVAEResnetBlock, the same modules): 2 GroupNorms
    ``2*c_in + 2*c_out``, 3x3 convs ``c_in -> c_out -> c_out`` with biases, a 1x1 nin_shortcut
    ``c_in*c_out + c_out`` when the widths differ."""
    n = 2 * c_in + 9 * c_in * c_out + c_out + 2 * c_out + 9 * c_out * c_out + c_out
    return n + (c_in * c_out + c_out if c_in != c_out else 0)


def _vq_attention(c: int) -> int:
    """Apertus1p5VisionTokenizerAttnBlock (and JanusVQVAEAttnBlock): GroupNorm ``2c``, 1x1 convs
    q/k/v/proj_out ``4*(c*c + c)``."""
    return 2 * c + 4 * (c * c + c)


def apertus1p5_vision(v: ConfigReader) -> int:
    """Apertus1p5VisionTokenizerModel (modeling_apertus1p5.py), a VQ image tokenizer: conv_in ``C*B*9 + B``;
    one stage per channel_multiplier entry ``m_i`` (width ``B*m_i``, input ``B*m_{i-1}``): num_res_blocks
    resnet blocks (:func:`_vq_resnet`), each with an attention block (:func:`_vq_attention`) where the stage's
    resolution ``resolution / 2^i`` is in attn_resolutions, and a 3x3 downsample conv ``c*c*9 + c`` on every
    stage but the last; middle block: 2 resnet blocks and an attention block; norm_out ``2c``; conv_out
    ``c*latent*9 + latent``; quantize embedding ``embed_dim*codebook_size`` (no bias); quant_conv
    ``latent*embed_dim + embed_dim``."""
    base, blocks = v.get_int("base_channels"), v.get_int("num_res_blocks", minimum=0)
    mults = v.get_int_list("channel_multiplier", minimum=1)
    if not mults:
        raise ConfigError(v.field_name("channel_multiplier"), mults, "must list at least one stage")
    attn_at = set(v.get_int_list("attn_resolutions"))
    resolution, latent, embed = v.get_int("resolution"), v.get_int("latent_channels"), v.get_int("embed_dim")
    n = 9 * v.get_int("in_channels") * base + base
    for i, mult in enumerate(mults):
        c_in, c_out = base * (mults[i - 1] if i else 1), base * mult
        attention = resolution // 2 ** i in attn_at
        for _ in range(blocks):
            n += _vq_resnet(c_in, c_out) + (_vq_attention(c_out) if attention else 0)
            c_in = c_out
        if i < len(mults) - 1:
            n += 9 * c_out * c_out + c_out
    c = base * mults[-1]
    n += 2 * _vq_resnet(c, c) + _vq_attention(c) + 2 * c + 9 * c * latent + latent
    return n + embed * v.get_int("codebook_size") + linear(latent, embed, True)


def janus_vqvae(q: ConfigReader) -> int:
    """JanusVQVAE (modeling_janus.py; a VQGAN): JanusVQVAEEncoder (conv_in, per level ``num_res_blocks``
    resnet blocks, attention blocks on the last level, a stride-2 downsample conv on the others, a mid block of
    2 resnets + attention, GroupNorm, conv_out to latent_channels (x2 with double_latent)), the codebook
    ``num_embeddings*embed_dim``, 1x1 quant_conv / post_quant_conv, JanusVQVAEDecoder (its mirror with
    ``num_res_blocks + 1`` blocks per level and upsample convs)."""
    base, blocks = q.get_int("base_channels"), q.get_int("num_res_blocks", minimum=0)
    mult = q.get_int_list("channel_multiplier", minimum=1)
    if not mult:
        raise ConfigError(q.field_name("channel_multiplier"), mult, "must list at least one level")
    latent, embed = q.get_int("latent_channels"), q.get_int("embed_dim")
    last = len(mult) - 1
    n = conv2d(q.get_int("in_channels"), base)                       # encoder
    ins = (1, *mult)
    for i, m in enumerate(mult):
        c_in, c_out = base * ins[i], base * m
        for _ in range(blocks):
            n += _vq_resnet(c_in, c_out) + (_vq_attention(c_out) if i == last else 0)
            c_in = c_out
        if i != last:
            n += conv2d(c_out, c_out)
    top = base * mult[last]
    mid = 2 * _vq_resnet(top, top) + _vq_attention(top)
    n += mid + 2 * top + conv2d(top, 2 * latent if q.get_bool("double_latent") else latent)
    n += q.get_int("num_embeddings") * embed + conv2d(latent, embed, 1) + conv2d(embed, latent, 1)
    n += conv2d(latent, top) + mid                                   # decoder
    c_in = top
    for i in reversed(range(len(mult))):
        c_out = base * mult[i]
        for _ in range(blocks + 1):
            n += _vq_resnet(c_in, c_out) + (_vq_attention(c_out) if i == last else 0)
            c_in = c_out
        if i != 0:
            n += conv2d(c_out, c_out)
    return n + 2 * c_in + conv2d(c_in, q.get_int("out_channels"))
