"""GGUF file-type mixes (Q4_K_M, Q5_K_M, Q8_0, ...): the ggml type llama.cpp's quantizer gives each tensor.

Source: ggml-org/llama.cpp ``src/llama-quant.cpp`` (commit 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714),
read, not copied:

* ``llama_ftype_get_default_type``: the file type's base type (Q4_K_M -> Q4_K, Q3_K_M -> Q3_K, IQ4_XS -> IQ4_XS).
* ``tensor_allows_quantization``: only 2-D / 3-D tensors whose name ends in ``weight`` and is not a norm,
  ``ffn_gate_inp`` (router) or position embedding; 1-D tensors keep their type (F32 in a converted file).
* ``llama_tensor_get_type_impl``: per category. ``output.weight`` (and ``token_embd`` when the
  embeddings are tied) -> Q6_K unless the base is Q8_0 (or ``ne[0]`` is not a multiple of the block,
  then Q8_0); ``attn_v`` / ``ffn_down`` get more bits in some layers (``use_more_bits(i, n) = i < n/8 or
  i >= 7n/8 or (i - n/8) % 3 == 2``: Q6_K in Q4_K_M / Q5_K_M; Q3_K_M: attn_v Q5_K for the first 2 then
  Q4_K, ffn_down Q5_K below n/16 then Q4_K; Q2_K: attn_v Q4_K (n_gqa >= 4) else Q3_K, ffn_down and
  attn_output Q3_K; ...); the 70B special case (attn_v Q3_K / Q4_K -> Q5_K); 8-expert models
  (attn_v, attn_k -> Q8_0).
* The counters ``i_attention_wv`` / ``i_ffn_down`` advance in the loader's tensor order, which
  ``src/llama-model-loader.h`` ``weight_name_comparer`` sorts by block number (then name), so for a dense
  model the counter is the block index.
* ``tensor_type_fallback``: a tensor whose row length is not a multiple of the type's block falls back
  (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, Q2_K / Q3_K -> Q4_0, IQ4_XS -> IQ4_NL), then to F16.

The tensor list is rebuilt from the config for the llama-like decoders whose GGUF layout is known
(:data:`EXACT_TYPES`): token_embd, output_norm, output (unless tied), rope_freqs (Llama 3 rope scaling),
per block attn_norm, attn_q/k/v(+bias for Qwen2)/attn_q_norm/attn_k_norm (Qwen3, Gemma 3)/attn_output,
ffn_norm (+ Gemma's post norms), ffn_gate/up/down (or the experts' ``*_exps`` and ``ffn_gate_inp``).
For those the tensor-data bytes are exact; the file adds its header and metadata (tokenizer, a few MiB),
which only a real header (:mod:`kvcalc.gguf.reader`) gives. Other types are estimated.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..architectures import read_spec
from ..config import ConfigReader
from ..errors import ConfigError, InputError, UnsupportedError
from ..params import count_params
from ..spec import Quality
from .tensor import TensorInfo
from .types import ggml_type

# file type -> its default (base) tensor type (llama_ftype_get_default_type)
FILE_TYPES: dict[str, str] = {
    "F32": "F32", "F16": "F16", "BF16": "BF16",
    "Q4_0": "Q4_0", "Q4_1": "Q4_1", "Q5_0": "Q5_0", "Q5_1": "Q5_1", "Q8_0": "Q8_0",
    "Q2_K": "Q2_K", "Q3_K_S": "Q3_K", "Q3_K_M": "Q3_K", "Q3_K_L": "Q3_K",
    "Q4_K_S": "Q4_K", "Q4_K_M": "Q4_K", "Q5_K_S": "Q5_K", "Q5_K_M": "Q5_K", "Q6_K": "Q6_K",
    "IQ3_S": "IQ3_S", "IQ3_M": "IQ3_S", "IQ4_NL": "IQ4_NL", "IQ4_XS": "IQ4_XS", "MXFP4_MOE": "MXFP4",
}
"""The file types modelled; IQ1 / IQ2 / IQ3_XXS / IQ3_XS mixes (imatrix-dependent rules) are refused."""

EXACT_TYPES = frozenset({"llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "mixtral", "gemma3", "gemma3_text"})
"""Model types whose GGUF tensor list kvcalc rebuilds tensor for tensor."""

_FALLBACK = {"IQ4_XS": "IQ4_NL", "Q2_K": "Q4_0", "Q3_K": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}


@dataclass(frozen=True)
class GgufWeights:
    """Weight bytes of a model as a GGUF file of one file type (bytes; tensor data only).

    ``layer_bytes[i]`` = bytes of the ``blk.i.*`` tensors; ``input_bytes`` = token_embd (llama.cpp keeps
    it in host memory); ``output_bytes`` = output_norm + output (+ rope_freqs): the output layer, on the GPU
    for any ``-ngl`` >= 1, with a second copy of token_embd where the file has no output.weight
    (:attr:`duplicated_output_bytes`)."""

    file_type: str
    tensors: tuple[TensorInfo, ...]
    layer_bytes: tuple[int, ...]
    input_bytes: int
    output_bytes: int
    quality: Quality
    notes: tuple[str, ...] = ()

    @property
    def total_bytes(self) -> int:
        return sum(t.nbytes for t in self.tensors)

    def type_counts(self) -> dict[str, int]:
        """Tensors per ggml type, as llama.cpp's loader prints them (``- type q4_K: 193 tensors``)."""
        out: dict[str, int] = {}
        for t in self.tensors:
            out[t.type.name] = out.get(t.type.name, 0) + 1
        return out

    @property
    def duplicated_output_bytes(self) -> int:
        """Bytes llama.cpp loads a second time as the output layer of a GGUF without ``output.weight`` (tied
        embeddings): token_embd's. ``llama_model::load_tensors`` then creates ``output`` from ``token_embd``
        with ``TENSOR_DUPLICATED`` ("if output is NULL, init from the input tok embed"), and
        ``llama_model_loader::create_tensor`` reuses the tensor only when the output layer's buffer type is
        token_embd's; with the output layer on a GPU (any ``-ngl`` >= 1) and token_embd in host memory it
        allocates a second copy there (ggml-org/llama.cpp src/llama-model.cpp, src/llama-model-loader.cpp).
        0 when the file has an ``output.weight``.

        Llama-3.2-1B ties its embeddings; as Q4_0 its token_embd is Q6_K (128,256 rows of 2,048):

        >>> from kvcalc.catalog import bundled_config
        >>> w = gguf_weights(bundled_config("meta-llama/Llama-3.2-1B"), "Q4_0")
        >>> w.duplicated_output_bytes == w.input_bytes == 128256 * 2048 // 256 * 210
        True
        """
        if any(t.name == "output.weight" for t in self.tensors):
            return 0
        return self.input_bytes

    @property
    def bits_per_weight(self) -> float:
        """``total bytes * 8 / elements`` (llama.cpp's "BPW" in ``file size = X GiB (Y BPW)``); InputError
        for weights without tensors (nothing to divide by)."""
        elements = sum(t.elements for t in self.tensors)
        if not elements:
            raise InputError("the GGUF weights list no tensors: bits per weight are undefined")
        return self.total_bytes * 8 / elements


def file_type_names() -> list[str]:
    return list(FILE_TYPES)


_ALIASES = {"MXFP4": "MXFP4_MOE"}
"""File names' spellings of a file type (ggml-org/gpt-oss-20b-GGUF's ``gpt-oss-20b-mxfp4.gguf``)."""


def _file_type(name: str) -> str:
    key = str(name).strip().upper()
    key = _ALIASES.get(key, key)
    if key not in FILE_TYPES:
        raise UnsupportedError(f"GGUF file type '{str(name)[:20]}' is not modelled; known: {', '.join(FILE_TYPES)}")
    return key


def _use_more_bits(i: int, n: int) -> bool:
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _text(config: Mapping[str, Any]) -> ConfigReader:
    top = ConfigReader(config)
    sub = top.sub("text_config") if isinstance(config.get("text_config"), Mapping) else None
    return sub or top


def _tied(config: Mapping[str, Any]) -> bool:
    """Whether the LM head is the input embedding (kvcalc.params' reading of tie_word_embeddings and the
    model type's default); the config's own field when kvcalc cannot count the model."""
    try:
        return count_params(config).tied_embeddings
    except UnsupportedError:
        return bool(config.get("tie_word_embeddings", False))


def source_tensors(config: Mapping[str, Any]) -> tuple[list[tuple[str, tuple[int, ...]]], str, int, int, int]:
    """The tensors of a converted (F16) GGUF for a llama-like decoder: (name, dims) in llama.cpp's
    tensor order, with the model type, layer count, n_gqa and expert count. Geometry comes from the
    per-layer spec (kvcalc.architectures, class defaults applied), widths of routed experts from the config."""
    spec = read_spec(config)
    r = _text(config)
    mt = str(config.get("model_type") or "")
    sub_mt = spec.model_type
    hidden, vocab, n_layer = spec.hidden_size, spec.vocab_size, spec.num_layers
    experts = spec.moe_experts or 0
    inter = spec.mlp_width or 4 * hidden
    moe_inter = r.opt_int("moe_intermediate_size", "intermediate_size") or inter
    beside = r.get_bool("enable_moe_block", default=False)      # llama.cpp src/models/gemma4.cpp load_arch_tensors
    inter_dense = r.opt_int("intermediate_size") or inter
    k_is_v = r.get_bool("attention_k_eq_v", default=False)
    qk_norm = sub_mt.startswith("qwen3") or sub_mt.startswith("gemma3")
    bias = sub_mt.startswith("qwen2") and bool(r.data.get("attention_bias", True))
    gemma = sub_mt.startswith("gemma")
    rope = r.data.get("rope_scaling")
    first = next((a for layer in spec.layers for a in layer.attention), None)
    if first is None:
        raise UnsupportedError("a GGUF tensor list needs attention layers; this model has none kvcalc can list")
    hd = first.k_head_dim
    out: list[tuple[str, tuple[int, ...]]] = [("token_embd.weight", (hidden, vocab)), ("output_norm.weight", (hidden,))]
    if not _tied(config):
        out.append(("output.weight", (hidden, vocab)))
    if isinstance(rope, Mapping) and rope.get("rope_type") == "llama3":
        out.append(("rope_freqs.weight", (hd // 2,)))
    for layer in spec.layers:
        i = layer.index
        a = layer.attention[0] if layer.attention else first
        heads, kv, kd, vd = a.query_heads, a.kv_heads, a.k_head_dim, a.v_head_dim
        b = f"blk.{i}."
        out += [(b + "attn_norm.weight", (hidden,)), (b + "attn_q.weight", (hidden, heads * kd)),
                (b + "attn_k.weight", (hidden, kv * kd))]
        if not (k_is_v and a.window is None):   # Gemma 4's full layers: V is K (no v_proj, gemma4.cpp wv optional)
            out.append((b + "attn_v.weight", (hidden, kv * vd)))
        out.append((b + "attn_output.weight", (heads * vd, hidden)))
        if bias:
            out += [(b + "attn_q.bias", (heads * kd,)), (b + "attn_k.bias", (kv * kd,)),
                    (b + "attn_v.bias", (kv * vd,))]
        if qk_norm:
            out += [(b + "attn_q_norm.weight", (kd,)), (b + "attn_k_norm.weight", (kd,))]
        if gemma:
            out += [(b + "post_attention_norm.weight", (hidden,)), (b + "post_ffw_norm.weight", (hidden,))]
        out.append((b + "ffn_norm.weight", (hidden,)))
        if experts > 1 and beside:       # Gemma 4: the dense MLP as a shared expert, then the routed block
            out += [(b + "ffn_gate.weight", (hidden, inter_dense)), (b + "ffn_up.weight", (hidden, inter_dense)),
                    (b + "ffn_down.weight", (inter_dense, hidden)), (b + "ffn_gate_inp.scale", (hidden,)),
                    (b + "pre_ffw_norm_2.weight", (hidden,)), (b + "post_ffw_norm_1.weight", (hidden,)),
                    (b + "post_ffw_norm_2.weight", (hidden,))]
        if experts > 1:
            out += [(b + "ffn_gate_inp.weight", (hidden, experts)),
                    (b + "ffn_gate_exps.weight", (hidden, moe_inter, experts)),
                    (b + "ffn_up_exps.weight", (hidden, moe_inter, experts)),
                    (b + "ffn_down_exps.weight", (moe_inter, hidden, experts))]
        else:
            out += [(b + "ffn_gate.weight", (hidden, inter)), (b + "ffn_up.weight", (hidden, inter)),
                    (b + "ffn_down.weight", (inter, hidden))]
    return out, mt, n_layer, max(1, first.query_heads // max(1, first.kv_heads)), experts


def _allows_quantization(name: str, dims: tuple[int, ...]) -> bool:
    """``tensor_allows_quantization`` for the tensors :func:`source_tensors` lists."""
    return (len(dims) >= 2 and name.endswith("weight") and "_norm.weight" not in name
            and "ffn_gate_inp.weight" not in name)


def _category(name: str) -> str:
    """``tensor_get_category``."""
    if name == "output.weight":
        return "output"
    if name == "token_embd.weight":
        return "token_embd"
    for key, cat in (("attn_qkv.weight", "qkv"), ("attn_kv_b.weight", "kv_b"), ("attn_v.weight", "attn_v"),
                     ("attn_k.weight", "attn_k"), ("attn_q.weight", "attn_q"),
                     ("attn_output.weight", "attn_output"), ("ffn_up", "ffn_up"), ("ffn_gate", "ffn_gate"),
                     ("ffn_down", "ffn_down")):
        if key in name:
            return cat
    return "other"


@dataclass
class _State:
    """The quantizer's counters (``quantize_state_impl``)."""

    n_layer: int
    n_gqa: int
    n_expert: int
    is_70b: bool
    imatrix: bool
    tied: bool
    i_attention_wv: int = 0
    i_ffn_down: int = 0


def _layer_of(name: str) -> int:
    try:
        return int(name.split(".")[1])
    except (IndexError, ValueError):
        raise ConfigError("tensor", name, "expected blk.N.* for an expert tensor") from None


def _pick(qs: _State, ftype: str, default: str, name: str, cols: int) -> str:
    """``llama_tensor_get_type_impl`` for the file types in :data:`FILE_TYPES` (no Falcon rules)."""
    cat = _category(name)
    t = default
    if cat == "output" or (qs.tied and cat == "token_embd"):
        if cols % ggml_type(default).block_size:
            return "Q8_0"
        return default if default == "Q8_0" else "Q6_K"
    if cat == "token_embd":
        return t
    if cat in ("attn_v", "qkv", "kv_b"):
        return _pick_attn_v(qs, ftype, t)
    if cat == "attn_k":
        return "Q8_0" if qs.n_expert == 8 else t
    if cat == "ffn_down":
        return _pick_ffn_down(qs, ftype, t, name)
    if cat == "attn_output":
        if qs.n_expert == 8:
            if ftype in ("Q2_K", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S", "Q4_K_M", "IQ3_S", "IQ3_M", "IQ4_XS"):
                t = "Q5_K"
        elif ftype == "Q2_K":
            t = "Q3_K"
        elif ftype == "Q3_K_M":
            t = "Q4_K"
        elif ftype == "Q3_K_L":
            t = "Q5_K"
        elif ftype == "IQ3_M":
            t = "Q4_K"
        return t
    if cat == "qkv":
        if ftype in ("Q3_K_M", "Q3_K_L", "IQ3_M"):
            t = "Q4_K"
        elif ftype == "Q4_K_M":
            t = "Q5_K"
        elif ftype == "Q5_K_M":
            t = "Q6_K"
    return t


def _pick_mxfp4_moe(dims: tuple[int, ...]) -> str:
    """``llama_tensor_get_type_impl`` for ``LLAMA_FTYPE_MOSTLY_MXFP4_MOE`` (``src/llama-quant.cpp``, commit
    0c1e57098; gpt-oss's native format): a merged expert tensor (``ne[2] > 1``) is MXFP4 (``block_mxfp4``: an
    E8M0 scale byte + 16 bytes of 32 FP4 values, 17 bytes per 32), every other quantizable tensor Q8_0 (the
    output and a tied embedding too)."""
    return "MXFP4" if len(dims) == 3 and dims[2] > 1 else "Q8_0"


def _pick_attn_v(qs: _State, ftype: str, t: str) -> str:
    """:func:`_pick`'s rule for ``attn_v`` / ``qkv`` / ``kv_b`` (counts the tensor in ``qs.i_attention_wv``)."""
    i, n = qs.i_attention_wv, qs.n_layer
    if ftype == "Q2_K":
        t = "Q4_K" if qs.n_gqa >= 4 else "Q3_K"
    elif ftype == "Q3_K_M":
        t = "Q5_K" if i < 2 else "Q4_K"
    elif ftype == "Q3_K_L":
        t = "Q5_K"
    elif ftype == "IQ3_S" and qs.n_gqa >= 4:
        t = "Q4_K"
    elif ftype == "IQ3_M":
        t = "Q4_K"
    elif ftype in ("IQ4_NL", "IQ4_XS") and qs.n_gqa >= 4:
        t = "Q5_K"
    elif ftype in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i, n):
        t = "Q6_K"
    elif ftype == "Q4_K_S" and i < 4:
        t = "Q5_K"
    if qs.is_70b and t in ("Q3_K", "Q4_K"):
        t = "Q5_K"
    if qs.n_expert == 8:
        t = "Q8_0"
    qs.i_attention_wv += 1
    return t


def _pick_ffn_down(qs: _State, ftype: str, t: str, name: str) -> str:
    """:func:`_pick`'s rule for ``ffn_down`` (counts the tensor in ``qs.i_ffn_down``)."""
    i = _layer_of(name) if qs.n_expert > 1 else qs.i_ffn_down
    n = qs.n_layer
    if ftype == "Q2_K":
        t = "Q3_K"
    elif ftype == "Q3_K_M":
        t = "Q5_K" if i < n // 16 else "Q4_K"
    elif ftype == "IQ3_M" and (i < n // 8 or (qs.n_expert == 8 and _use_more_bits(i, n))):
        t = "Q4_K"
    elif ftype == "Q3_K_L":
        t = "Q5_K"
    elif ftype == "Q4_K_M":
        if _use_more_bits(i, n):
            t = "Q6_K"
    elif i < n // 8 and ftype in ("IQ4_NL", "IQ4_XS") and not qs.imatrix:
        t = "Q5_K"
    elif ftype == "Q5_K_M" and _use_more_bits(i, n):
        t = "Q6_K"
    elif ftype == "Q4_K_S" and i < n // 8:
        t = "Q5_K"
    elif ftype in ("Q4_0", "Q5_0") and qs.imatrix and i < n // 8:
        t = "Q4_1" if ftype == "Q4_0" else "Q5_1"
    qs.i_ffn_down += 1
    return t


def _fallback(t: str, cols: int) -> str:
    """``tensor_type_fallback``: a row that does not fill whole blocks takes a smaller-block type."""
    if cols % ggml_type(t).block_size == 0:
        return t
    if t not in _FALLBACK:
        raise UnsupportedError(f"llama.cpp defines no fallback for {t} (row of {cols} values)")
    t = _FALLBACK[t]
    return t if cols % ggml_type(t).block_size == 0 else "F16"


def gguf_weights(config: Mapping[str, Any], file_type: str, *, imatrix: bool = False) -> GgufWeights:
    """Tensor types and bytes of the model quantized as ``file_type`` (``Q4_K_M``, ``Q8_0``, ``F16``...).

    ``imatrix``: whether the quantization used an importance matrix (changes IQ4_* ffn_down and the
    Q4_0 / Q5_0 first layers; published IQ files usually do)."""
    ftype = _file_type(file_type)
    default = FILE_TYPES[ftype]
    listed, mt, n_layer, n_gqa, n_expert = source_tensors(config)
    names = {n for n, _ in listed}
    qs = _State(n_layer=n_layer, n_gqa=n_gqa, n_expert=n_expert,
                is_70b=mt in ("llama", "qwen2") and n_layer == 80, imatrix=imatrix,
                tied="output.weight" not in names)
    quantized = ggml_type(default).quantized
    tensors: list[TensorInfo] = []
    for name, dims in listed:
        if len(dims) < 2:
            t = "F32"
        elif not _allows_quantization(name, dims):
            t = "F32" if "ffn_gate_inp" in name else "F16"
        elif not quantized:
            t = default
        elif ftype == "MXFP4_MOE":
            t = _fallback(_pick_mxfp4_moe(dims), dims[0])
        else:
            t = _fallback(_pick(qs, ftype, default, name, dims[0]), dims[0])
        tensors.append(TensorInfo(name, dims, ggml_type(t)))
    layer = [0] * n_layer
    input_bytes = output_bytes = 0
    for info in tensors:
        if info.name.startswith("blk."):
            layer[_layer_of(info.name)] += info.nbytes
        elif info.name == "token_embd.weight":
            input_bytes += info.nbytes
        else:
            output_bytes += info.nbytes
    notes = ["tensor data only: the file's header and metadata (tokenizer) add a few MiB"]
    quality: Quality = "exact"
    if mt not in EXACT_TYPES:
        quality = "estimated"
        notes.append(f"model type '{mt[:40]}': tensor list assumed llama-like (attention + gated MLP per block)")
    if n_expert > 1:
        notes.append("router (ffn_gate_inp) kept in F32 as convert_hf_to_gguf.py writes it")
    return GgufWeights(ftype, tuple(tensors), tuple(layer), input_bytes, output_bytes, quality, tuple(notes))
