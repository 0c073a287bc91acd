"""Weight bytes: parameter counts x storage format, from the config's quantization or a chosen dtype.

Formats (bytes for ``P`` quantized parameters; ``g`` = group size):

* 16/32-bit float: ``P x 2`` / ``P x 4``.
* ``fp8`` checkpoints with block scales (DeepSeek-V3 ``weight_block_size`` [128, 128]):
  ``P x 1 + ceil(P / (128 x 128)) x 4`` (one float32 ``weight_scale_inv`` per block; counted per
  part, so exact when every matrix dimension is a multiple of 128). fp8 chosen by the user
  (vLLM ``--quantization fp8``): ``P x 1``, with one float32 scale per tensor (not counted).
* GPTQ / AWQ ``bits`` with ``group_size`` g: packed weights ``P x bits / 8``, fp16 scales
  ``P / g x 2``, packed zero points ``P / g x bits / 8`` (GPTQ's ``g_idx`` is not counted).
  Integer dtypes chosen by the user (int8 / int4 / int2) use this layout with g = 128.
* bitsandbytes 4-bit: ``P / 2`` + absmax per 64 values (float32, or 8-bit + float32 per 256
  blocks with double quantization); 8-bit: ``P x 1`` (+ a float32 scale per output row, not counted).
* MXFP4 (gpt-oss): only the routed experts, 4-bit values + one 8-bit scale per 32: ``P x 17 / 32``.

Quantization applies to the linear layers of the decoder (attention, MLP / experts, recurrent
mixers). Embeddings, the LM head, norms and vision towers stay in 16 bits, as the checkpoints and
quantizers above leave them.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .config import ConfigReader, declared_dtype
from .dtypes import ceil_div, get_dtype
from .errors import ConfigError, UnsupportedError
from .params import ParamCount, count_params

QUANTIZED_PARTS = ("attention", "mlp", "mixer")
USER_INT_GROUP = 128


@dataclass(frozen=True)
class WeightPart:
    """Bytes of one part of the model (``attention``, ``mlp``, ...) in its storage format."""

    name: str
    params: int
    format: str
    bytes: int


@dataclass(frozen=True)
class WeightBytes:
    """Weight bytes of a whole model, by part, with the format each part is stored in."""

    total_bytes: int
    scheme: str                      # e.g. "bfloat16", "fp8 block 128x128", "awq 4-bit g128"
    parts: tuple[WeightPart, ...]
    params: ParamCount
    unquantized: tuple[str, ...]     # parts kept in 16 bits under a quantized scheme
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"total_bytes": self.total_bytes, "scheme": self.scheme, "params": self.params.total,
                "parts": [vars(p) for p in self.parts], "unquantized": list(self.unquantized),
                "notes": list(self.notes)}


def _ceil(x: Fraction) -> int:
    return ceil_div(x.numerator, x.denominator)


def gptq_bytes(params: int, bits: int, group_size: int) -> int:
    """GPTQ / AWQ layout: packed weights + fp16 scales + packed zero points (see module docstring).

    One 4,096 x 4,096 matrix at 4 bits in groups of 128: 16,777,216 / 2 = 8,388,608 B of weights,
    131,072 groups x 2 B of scales = 262,144 B and 131,072 x 4 / 8 = 65,536 B of zero points:

    >>> gptq_bytes(4096 * 4096, 4, 128)
    8716288
    """
    groups = ceil_div(params, group_size) if group_size > 0 else 1
    return _ceil(Fraction(params * bits, 8)) + groups * 2 + _ceil(Fraction(groups * bits, 8))


def _float_bytes(params: int, bits: int) -> int:
    return params * bits // 8


@dataclass(frozen=True)
class _Scheme:
    name: str
    quantized: Any                   # callable(params) -> bytes for quantized parts
    fmt: str
    parts: tuple[str, ...] = QUANTIZED_PARTS
    experts_only: bool = False


def _quantization_config(top: ConfigReader) -> ConfigReader | None:
    """The config's ``quantization_config``, or None. A wrapper's checkpoint may declare it in its ``text_config``
    (Kimi-K2.5: compressed-tensors there, none at the top level): read there too, never ignored."""
    q = top.sub("quantization_config")
    if q is None and isinstance(top.data.get("text_config"), Mapping):
        q = top.sub("text_config").sub("quantization_config")   # type: ignore[union-attr]
    return q


def checkpoint_quant_method(config: Mapping[str, Any]) -> str | None:
    """The ``quant_method`` the checkpoint's ``quantization_config`` declares, lower case (None: none), where
    :func:`weight_bytes` reads it; the engines' device checks compare it (vLLM's minimum compute capability,
    TensorRT-LLM's FP8).

    >>> checkpoint_quant_method({"text_config": {"quantization_config": {"quant_method": "FP8"}}})
    'fp8'
    """
    q = _quantization_config(ConfigReader(config))
    method = str(q.raw("quant_method", default="") or "").lower() if q is not None else ""
    return method or None


def _config_scheme(top: ConfigReader) -> _Scheme | None:
    """The storage format the config's ``quantization_config`` (:func:`_quantization_config`) declares, or None."""
    q = _quantization_config(top)
    if q is None:
        return None
    method = str(q.raw("quant_method", default="") or "").lower()
    if method == "fp8":
        block = q.opt_int_list("weight_block_size", minimum=1)
        if block:
            size = 1
            for b in block:
                size *= b
            return _Scheme(f"fp8 block {'x'.join(map(str, block))}", lambda p: p + ceil_div(p, size) * 4,
                           f"fp8 + f32 scale per {'x'.join(map(str, block))}")
        return _Scheme("fp8", lambda p: p, "fp8 (per-tensor scale)")
    if method in ("gptq", "awq"):
        bits = q.get_int("bits", "w_bit", default=4)
        group = q.raw("group_size", "q_group_size", default=128)
        group = ConfigReader.check_int(q.field_name("group_size", "q_group_size"), group, minimum=-1)
        if group == 0 or group < -1:
            raise ConfigError(q.field_name("group_size", "q_group_size"), group, "must be a positive size or -1")
        # -1 = per output channel: one scale per row of each matrix. Rows are not known per matrix
        # here, so one group per hidden_size inputs is used (exact for matrices that read the hidden
        # state; an approximation of a few KiB for the MLP down-projection).
        text = top.sub("text_config") if isinstance(top.data.get("text_config"), Mapping) else None
        hidden = (text or top).opt_int("hidden_size")
        g = group if group > 0 else (hidden or 4096)
        return _Scheme(f"{method} {bits}-bit g{group}", lambda p: gptq_bytes(p, bits, g),
                       f"{bits}-bit + fp16 scales/zeros per {group if group > 0 else 'output row'}")
    if method == "bitsandbytes":
        if q.get_bool("load_in_4bit", default=False):
            double = q.get_bool("bnb_4bit_use_double_quant", default=False)
            if double:
                return _Scheme("bnb 4-bit (double quant)",
                               lambda p: _ceil(Fraction(p, 2)) + ceil_div(p, 64) + ceil_div(p, 64 * 256) * 4,
                               "nf4/fp4 + 8-bit absmax per 64")
            return _Scheme("bnb 4-bit", lambda p: _ceil(Fraction(p, 2)) + ceil_div(p, 64) * 4,
                           "nf4/fp4 + f32 absmax per 64")
        if q.get_bool("load_in_8bit", default=False):
            return _Scheme("bnb 8-bit", lambda p: p, "int8 (LLM.int8)")
    if method == "mxfp4":
        return _Scheme("mxfp4 experts", lambda p: _ceil(Fraction(p * 17, 32)), "mxfp4 (4-bit + e8m0 per 32)",
                       parts=("mlp",), experts_only=True)
    raise UnsupportedError(f"quantization method '{method[:40] or '(none)'}' is not modelled; "
                           "choose a weights dtype instead")


def _user_scheme(dtype: str) -> _Scheme | None:
    d = get_dtype(dtype)
    if d.is_float and d.bits >= 16:
        return None
    if d.is_float:
        return _Scheme(d.name, lambda p: p, f"{d.name} (per-tensor scale)")
    return _Scheme(f"{d.name} g{USER_INT_GROUP}", lambda p: gptq_bytes(p, d.bits, USER_INT_GROUP),
                   f"{d.bits}-bit + fp16 scales/zeros per {USER_INT_GROUP}")


def weight_bytes(config: Mapping[str, Any], dtype: str | None = None, params: ParamCount | None = None) -> WeightBytes:
    """Bytes of the model's weights.

    ``dtype`` (a name from the dtype table) overrides the checkpoint; without it the config's
    ``quantization_config`` decides, else its ``torch_dtype`` / ``dtype``, else bfloat16.

    Llama 3.1 8B: 8,030,261,248 parameters (the Hub's safetensors total, data/params.csv; by hand:
    2 x 128,256 x 4,096 embedding + LM head, 32 x (2 x 4,096**2 + 2 x 4,096 x 1,024) attention,
    32 x 3 x 4,096 x 14,336 MLP, 65 x 4,096 norms) x 2 bytes of bfloat16. With int4 weights
    (GPTQ layout, groups of 128) the attention's 1,342,177,280 parameters take
    :func:`gptq_bytes` = 671,088,640 + 20,971,520 + 5,242,880 B while embeddings stay 16-bit:

    >>> from kvcalc.data_files import read_data_json
    >>> llama = read_data_json("configs", "meta-llama__Llama-3.1-8B.json")
    >>> w = weight_bytes(llama)
    >>> w.params.total, w.total_bytes, w.scheme
    (8030261248, 16060522496, 'bfloat16')
    >>> q = weight_bytes(llama, "int4")
    >>> q.scheme, [(p.name, p.bytes) for p in q.parts if p.name == "attention"], q.unquantized
    ('int4 g128', [('attention', 697303040)], ('embedding', 'lm_head', 'norms'))
    """
    top = ConfigReader(config)
    params = params or count_params(config)
    notes: list[str] = []
    base_name = declared_dtype(top)
    if base_name is None:
        base_name = "bfloat16"
        notes.append("no torch_dtype in config: weights assumed bfloat16")
    if dtype is not None:
        scheme = _user_scheme(dtype)
        d = get_dtype(dtype)
        kept_bits = d.bits if d.is_float and d.bits >= 16 else 16
        kept_name = (d.name if d.is_float and d.bits >= 16
                     else ("bfloat16" if base_name not in ("float16",) else base_name))
    else:
        kept_bits = get_dtype(base_name).bits
        kept_name = base_name
        scheme = _config_scheme(top)
        if scheme is not None and kept_bits > 16:
            kept_bits, kept_name = 16, "bfloat16"

    parts: list[WeightPart] = []
    for name in ("embedding", "lm_head", "attention", "mlp", "norms", "mixer", "vision", "other"):
        n = getattr(params, name)
        if not n:
            continue
        if scheme is not None and name in scheme.parts:
            q = params.moe_experts if scheme.experts_only else n
            rest = n - q
            nbytes = scheme.quantized(q) + _float_bytes(rest, kept_bits)
            fmt = scheme.fmt if not rest else f"{scheme.fmt} ({q:,} expert params); rest {kept_name}"
            parts.append(WeightPart(name, n, fmt, nbytes))
        else:
            parts.append(WeightPart(name, n, kept_name, _float_bytes(n, kept_bits)))
    unquantized = tuple(p.name for p in parts if scheme is not None and p.name not in scheme.parts)
    return WeightBytes(total_bytes=sum(p.bytes for p in parts), scheme=scheme.name if scheme else kept_name,
                       parts=tuple(parts), params=params, unquantized=unquantized, notes=tuple(notes))


def given_weights(config: Mapping[str, Any], total_bytes: int, reason: str, source: str = "weights_gib") -> WeightBytes:
    """Weights measured elsewhere (``source``: the user's ``weights_gib`` x GPUs, or the checkpoint's
    safetensors size; bytes) for a model kvcalc cannot count.

    The bytes are charged as one per-layer part (so pipeline stages and other GPU counts split them
    evenly across layers, kvcalc.parallel.stage_weights); the note says where they come from."""
    model_type = str(config.get("model_type") or "unknown")[:60]
    return WeightBytes(total_bytes=total_bytes, scheme=f"given ({source})",
                       parts=(WeightPart("mlp", 0, "given", total_bytes),),
                       params=ParamCount.not_counted(model_type), unquantized=(),
                       notes=(f"weights: {total_bytes:,} bytes as given ({source}): kvcalc cannot count this "
                              f"model's parameters ({reason})",))


def plan_weights(config: Mapping[str, Any], dtype: str | None, given_bytes: int | None,
                 source: str = "weights_gib") -> WeightBytes:
    """The weights a plan uses: counted from the config (:func:`weight_bytes`), else, when kvcalc
    cannot count the model (UnsupportedError), ``given_bytes`` from ``source`` (:func:`given_weights`);
    without them the refusal says how to give them."""
    try:
        return weight_bytes(config, dtype, count_params(config))
    except UnsupportedError as e:
        if given_bytes is None:
            raise UnsupportedError(f"{e}; give the measured weights (weights_gib, --weights-gib GiB per GPU) "
                                   "to plan this model anyway") from None
        reason = re.split(r" \(\d+ model types are counted", str(e).split(": ", 1)[-1])[0][:200]
        return given_weights(config, given_bytes, reason, source)
