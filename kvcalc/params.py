"""Exact parameter counts from a config.json, without torch.

:func:`count_params` returns what ``sum(p.numel() for p in model.parameters())`` gives for the
model transformers builds from the config (``AutoModelForCausalLM``; the ``...ForConditionalGeneration``
class for multimodal and encoder-decoder models), split into parts. Fields a config omits take the
defaults of the transformers config class, as transformers itself does. Tied weights are counted once.

What is *not* counted, because transformers does not hold it as a parameter:

* buffers: rotary ``inv_freq``, GPT-2 causal masks, DeepSeek-V3 ``e_score_correction_bias``
  (``n_routed_experts`` float32 values per MoE layer), Gemma's ``embed_scale``;
* layers a checkpoint holds but transformers does not build: DeepSeek-V3's multi-token-prediction
  layer (``num_nextn_predict_layers``), which the Hub safetensors totals include;
* quantization side tensors (FP8 ``weight_scale_inv``, MXFP4 scales): counts are of the
  unquantized architecture. ``moe_experts`` says how many parameters are routed experts, so a
  caller can size e.g. gpt-oss's MXFP4 experts separately from its bf16 rest.

Notation in the docstrings: ``H`` hidden size, ``V`` vocab size, ``L`` layers, ``I`` MLP width,
``n_q`` / ``n_kv`` query / key-value heads, ``d`` head dim, ``E`` routed experts, ``k`` experts per token.
A linear layer ``a -> b`` has ``a*b`` weights (+ ``b`` with bias).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .config import ConfigReader
from .errors import ConfigError, UnsupportedError

PARTS = ("embedding", "lm_head", "attention", "mlp", "norms", "mixer", "vision", "other")


@dataclass(frozen=True)
class ParamCount:
    """Parameter count of one model, by part.

    ``total == embedding + lm_head + attention + mlp + norms + mixer + vision + other``.

    * ``embedding``: input embeddings (token table; learned position tables such as GPT-2's ``wpe``).
    * ``lm_head``: the output projection; 0 when it is tied to the input embedding.
    * ``attention``: q/k/v/o projections and their biases, MLA down/up projections, attention sinks,
      relative-position biases (T5), cross-attention gates (Mllama).
    * ``mlp``: dense MLPs, routed experts, shared experts and routers.
    * ``norms``: every normalization weight and bias, including q/k norms and MLA latent norms.
    * ``mixer``: Mamba / linear-attention mixers (0 for the architectures counted here).
    * ``vision``: the vision tower plus the multimodal projector (0 without a ``vision_config``).
    * ``other``: anything else (0 for the architectures counted here).
    * ``moe_experts``: parameters of the routed experts (part of ``mlp``; shared experts excluded).
    * ``active``: parameters used for one token: ``total - moe_experts`` plus ``k`` experts per MoE
      layer. Equal to ``total`` for dense models.
    """

    model_type: str
    total: int
    embedding: int
    lm_head: int
    attention: int
    mlp: int
    norms: int
    mixer: int
    vision: int
    other: int
    tied_embeddings: bool
    moe_experts: int
    active: int
    fields_used: tuple[str, ...] = ()

    def parts(self) -> dict[str, int]:
        """The parts as a dict, in the order of :data:`PARTS`."""
        return {name: getattr(self, name) for name in PARTS}


# --------------------------------------------------------------------------- class defaults
# Defaults of the transformers (5.x) config classes for the fields counted here: a config.json that
# omits a field gets these, exactly as when transformers builds the model. ``None`` means "derived"
# (num_key_value_heads -> num_attention_heads, head_dim -> hidden_size // num_attention_heads).
_LLAMA_LIKE = dict(attention_bias=False, mlp_bias=False, tie_word_embeddings=False, head_dim=None)
CLASS_DEFAULTS: dict[str, dict[str, Any]] = {
    "llama": dict(_LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                  num_attention_heads=32, num_key_value_heads=None),
    "mistral": dict(_LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                    num_attention_heads=32, num_key_value_heads=8),
    "mixtral": dict(_LLAMA_LIKE, vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                    num_attention_heads=32, num_key_value_heads=8, num_local_experts=8, num_experts_per_tok=2),
    "qwen2": dict(_LLAMA_LIKE, vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
                  num_attention_heads=32, num_key_value_heads=32),
    "qwen3": dict(_LLAMA_LIKE, vocab_size=151936, hidden_size=4096, intermediate_size=22016, num_hidden_layers=32,
                  num_attention_heads=32, num_key_value_heads=32, head_dim=128),
    "qwen3_moe": dict(_LLAMA_LIKE, vocab_size=151936, hidden_size=2048, intermediate_size=6144, num_hidden_layers=24,
                      num_attention_heads=32, num_key_value_heads=4, decoder_sparse_step=1, moe_intermediate_size=768,
                      num_experts_per_tok=8, num_experts=128, mlp_only_layers=[]),
    "gemma2": dict(_LLAMA_LIKE, vocab_size=256000, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
                   num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True),
    "gemma3_text": dict(_LLAMA_LIKE, vocab_size=262208, hidden_size=2304, intermediate_size=9216, num_hidden_layers=26,
                        num_attention_heads=8, num_key_value_heads=4, head_dim=256, tie_word_embeddings=True),
    "phi3": dict(_LLAMA_LIKE, vocab_size=32064, hidden_size=3072, intermediate_size=8192, num_hidden_layers=32,
                 num_attention_heads=32, num_key_value_heads=None),
    "gpt_oss": dict(_LLAMA_LIKE, vocab_size=201088, hidden_size=2880, intermediate_size=2880, num_hidden_layers=36,
                    num_attention_heads=64, num_key_value_heads=8, head_dim=64, attention_bias=True,
                    num_local_experts=128, num_experts_per_tok=4),
    "deepseek_v2": dict(_LLAMA_LIKE, vocab_size=102400, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                        num_attention_heads=32, first_k_dense_replace=0, kv_lora_rank=512, q_lora_rank=1536,
                        n_routed_experts=64, n_shared_experts=2, qk_nope_head_dim=128, qk_rope_head_dim=64,
                        v_head_dim=128, num_experts_per_tok=None, moe_intermediate_size=1407),
    "deepseek_v3": dict(_LLAMA_LIKE, vocab_size=129280, hidden_size=7168, intermediate_size=18432, num_hidden_layers=61,
                        num_attention_heads=128, first_k_dense_replace=3, kv_lora_rank=512, q_lora_rank=1536,
                        n_routed_experts=256, n_shared_experts=1, qk_nope_head_dim=128, qk_rope_head_dim=64,
                        v_head_dim=128, num_experts_per_tok=8, moe_intermediate_size=2048),
    "gpt2": dict(vocab_size=50257, max_position_embeddings=1024, hidden_size=768, num_hidden_layers=12,
                 num_attention_heads=12, intermediate_size=None, tie_word_embeddings=True, add_cross_attention=False),
    "t5": dict(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=None, num_heads=8,
               relative_attention_num_buckets=32, feed_forward_proj="relu"),
    "gemma3": dict(tie_word_embeddings=True),
    "mllama": dict(tie_word_embeddings=False),
    "mllama_text_model": dict(vocab_size=128256, hidden_size=4096, num_hidden_layers=40, num_attention_heads=32,
                              num_key_value_heads=8, intermediate_size=14336,
                              cross_attention_layers=[3, 8, 13, 18, 23, 28, 33, 38]),
    "mllama_vision_model": dict(hidden_size=1280, num_hidden_layers=32, num_global_layers=8, attention_heads=16,
                                num_channels=3, intermediate_size=5120, vision_output_dim=7680, image_size=448,
                                patch_size=14, max_num_tiles=4, supported_aspect_ratios=[[1, 1], [1, 2], [1, 3], [1, 4],
                                                                                        [2, 1], [2, 2], [3, 1], [4, 1]]),
    "siglip_vision_model": dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12,
                                num_channels=3, image_size=224, patch_size=16, vision_use_head=True),
}

# Model types transformers builds with another type's classes.
SAME_ARCHITECTURE = {"kimi_k2": "deepseek_v3"}

_MISSING = object()


class _Fields:
    """One config level read through :class:`ConfigReader`, falling back to the class defaults."""

    def __init__(self, r: ConfigReader, model_type: str):
        self.r = r
        self.mt = model_type
        self.defaults = CLASS_DEFAULTS.get(model_type, {})

    def _default(self, names: tuple[str, ...]) -> Any:
        for name in names:
            if name in self.defaults:
                return self.defaults[name]
        return _MISSING

    def _missing(self, name: str) -> ConfigError:
        return ConfigError(self.r.path + name, None, f"required field is missing (no {self.mt} default)")

    def int(self, *names: str, minimum: int = 1) -> int:
        """A required integer: the config's value, else the class default."""
        value = self.opt_int(*names, minimum=minimum)
        if value is None:
            raise self._missing(names[0])
        return value

    def opt_int(self, *names: str, minimum: int = 1) -> int | None:
        """An integer, or ``None`` when neither the config nor the class default gives one."""
        if self.r.has(*names):
            return self.r.int(*names, minimum=minimum)
        value = self._default(names)
        return None if value is _MISSING else value

    def nullable_int(self, name: str, minimum: int = 1) -> int | None:
        """Like :meth:`opt_int`, but an explicit ``null`` in the config means ``None`` (not the default)."""
        if name in self.r.data and self.r.data[name] is None:
            full = self.r.path + name
            if full not in self.r.used:
                self.r.used.append(full)
            return None
        return self.opt_int(name, minimum=minimum)

    def bool(self, *names: str) -> bool:
        if self.r.has(*names):
            return self.r.bool(*names)
        value = self._default(names)
        if value is _MISSING:
            raise self._missing(names[0])
        return bool(value)

    def str(self, *names: str) -> str:
        if self.r.has(*names):
            return self.r.str(*names)
        value = self._default(names)
        if value is _MISSING:
            raise self._missing(names[0])
        return value

    def int_list(self, *names: str) -> list[int]:
        if self.r.has(*names):
            return self.r.int_list(*names)
        value = self._default(names)
        if value is _MISSING or value is None:
            raise self._missing(names[0])
        return list(value)

    def heads(self) -> tuple[int, int]:
        """(query heads, key-value heads); ``num_key_value_heads`` defaults to the query heads when derived."""
        n_q = self.int("num_attention_heads")
        n_kv = self.opt_int("num_key_value_heads")
        n_kv = n_q if n_kv is None else n_kv
        if n_kv > n_q or n_q % n_kv:
            raise ConfigError(self.r.field_name("num_key_value_heads"), n_kv,
                              f"must divide num_attention_heads ({n_q})")
        return n_q, n_kv

    def head_dim(self, hidden: int, n_q: int) -> int:
        """``head_dim`` from the config or class default; else ``hidden_size // num_attention_heads``."""
        d = self.opt_int("head_dim")
        if d is None:
            if hidden % n_q:
                raise ConfigError(self.r.field_name("hidden_size"), hidden,
                                  f"is not divisible by num_attention_heads ({n_q}) and no head_dim is given")
            d = hidden // n_q
        return d


class _Tally:
    """Running sums per part, plus routed-expert totals for ``moe_experts`` and ``active``."""

    def __init__(self) -> None:
        self.parts = dict.fromkeys(PARTS, 0)
        self.moe_experts = 0
        self.moe_active = 0
        self.tied = False

    def add(self, part: str, n: int) -> None:
        self.parts[part] += n

    def experts(self, per_expert: int, n_experts: int, top_k: int | None, field: str) -> None:
        """One MoE layer's routed experts: ``n_experts * per_expert`` parameters, ``top_k`` used per token."""
        if top_k is None or top_k > n_experts:
            raise ConfigError(field, top_k, f"must be an integer from 1 to the number of experts ({n_experts})")
        self.parts["mlp"] += n_experts * per_expert
        self.moe_experts += n_experts * per_expert
        self.moe_active += top_k * per_expert


def _linear(n_in: int, n_out: int, bias: bool = False) -> int:
    return n_in * n_out + (n_out if bias else 0)


# --------------------------------------------------------------------------- Llama-style decoders
def _gated_mlp(hidden: int, inter: int, bias: bool = False) -> int:
    """gate, up: ``H -> I``; down: ``I -> H`` (Phi-3's fused gate_up has the same count)."""
    return 2 * _linear(hidden, inter, bias) + _linear(inter, hidden, bias)


def _lm_head(f: _Fields, t: _Tally, hidden: int, vocab: int, tied: bool | None = None) -> None:
    t.tied = f.bool("tie_word_embeddings") if tied is None else tied
    if not t.tied:
        t.add("lm_head", vocab * hidden)


def _llama_like(f: _Fields, t: _Tally, head: bool = True) -> None:
    """Llama-style decoders: llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, gemma2, gemma3_text, phi3, gpt_oss.

    embedding ``V*H``; per layer: attention ``H*n_q*d + 2*H*n_kv*d + n_q*d*H`` (+ biases: qwen2 on q/k/v,
    ``attention_bias`` on all four elsewhere; gpt_oss adds ``n_q`` sinks), MLP ``3*H*I`` (+ ``mlp_bias``),
    norms ``2*H`` (gemma2/gemma3: ``4*H``; qwen3/gemma3 add q/k norms ``2*d``); final norm ``H``;
    lm_head ``V*H`` unless tied. MoE layers replace the MLP by a router ``E*H`` and ``E`` experts of ``3*H*I_e``
    (gpt_oss: router bias ``E``, expert biases ``2*I + H`` each).
    """
    mt = f.mt
    vocab, hidden, n_layers = f.int("vocab_size"), f.int("hidden_size"), f.int("num_hidden_layers")
    n_q, n_kv = f.heads()
    d = f.head_dim(hidden, n_q)
    if mt == "qwen2":
        qkv_bias, o_bias = True, False
    elif mt == "phi3":
        qkv_bias = o_bias = False
    else:
        qkv_bias = o_bias = f.bool("attention_bias")
    attn = (_linear(hidden, n_q * d, qkv_bias) + 2 * _linear(hidden, n_kv * d, qkv_bias)
            + _linear(n_q * d, hidden, o_bias))
    if mt == "gpt_oss":
        attn += n_q  # attention sinks
    layer_norms = (4 if mt in ("gemma2", "gemma3_text") else 2) * hidden
    if mt in ("qwen3", "qwen3_moe", "gemma3_text"):
        layer_norms += 2 * d

    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * attn)
    t.add("norms", n_layers * layer_norms + hidden)
    moe = _moe_layers(f, n_layers)
    if moe:
        n_exp, top_k, exp_inter, exp_field = moe
        for i in range(n_layers):
            if moe[0] and _is_moe_layer(f, i):
                if mt == "gpt_oss":
                    t.add("mlp", n_exp * hidden + n_exp)  # router weight + bias
                    per_expert = hidden * 2 * exp_inter + 2 * exp_inter + exp_inter * hidden + hidden
                else:
                    t.add("mlp", n_exp * hidden)  # router
                    per_expert = 3 * hidden * exp_inter
                t.experts(per_expert, n_exp, top_k, exp_field)
            else:
                t.add("mlp", _gated_mlp(hidden, f.int("intermediate_size"), f.bool("mlp_bias")))
    else:
        t.add("mlp", n_layers * _gated_mlp(hidden, f.int("intermediate_size"), f.bool("mlp_bias")))
    if head:
        _lm_head(f, t, hidden, vocab)


def _moe_layers(f: _Fields, n_layers: int) -> tuple[int, int | None, int, str] | None:
    """(experts, top-k, expert width, top-k field) for MoE model types; None for dense ones."""
    mt = f.mt
    if mt in ("mixtral", "gpt_oss"):
        n_exp, inter = f.int("num_local_experts", "num_experts"), f.int("intermediate_size")
    elif mt == "qwen3_moe":
        n_exp = f.int("num_experts", "num_local_experts", minimum=0)
        if n_exp == 0:
            return None
        inter = f.int("moe_intermediate_size")
    else:
        return None
    return n_exp, f.opt_int("num_experts_per_tok"), inter, f.r.field_name("num_experts_per_tok")


def _is_moe_layer(f: _Fields, i: int) -> bool:
    if f.mt != "qwen3_moe":
        return True
    step = f.int("decoder_sparse_step")
    return i not in f.int_list("mlp_only_layers") and (i + 1) % step == 0


# --------------------------------------------------------------------------- DeepSeek (MLA + MoE)
def _deepseek(f: _Fields, t: _Tally) -> None:
    """DeepSeek-V2 / V3 (and Kimi-K2, which uses the V3 classes): MLA attention, dense then MoE layers.

    Attention per layer (``r_q`` = q_lora_rank, ``r_kv`` = kv_lora_rank, ``d_qk = nope + rope``):
    ``q_proj H*n*d_qk`` when ``r_q`` is null, else ``q_a H*r_q + q_b r_q*n*d_qk`` (+ norm ``r_q``);
    ``kv_a H*(r_kv+rope)``, norm ``r_kv``, ``kv_b r_kv*n*(nope+v)``, ``o n*v*H`` (+ biases with attention_bias
    on q_a, kv_a, o). Layers ``< first_k_dense_replace`` have a dense MLP ``3*H*I``; the others a router ``E*H``,
    ``E`` experts ``3*H*I_e`` and a shared expert ``3*H*(I_e*n_shared)`` (V2: + biases with mlp_bias).
    ``moe_layer_freq`` and the MTP layers (``num_nextn_predict_layers``) are not built by transformers.
    """
    v2 = f.mt == "deepseek_v2"
    vocab, hidden, n_layers = f.int("vocab_size"), f.int("hidden_size"), f.int("num_hidden_layers")
    n = f.int("num_attention_heads")
    q_rank = f.nullable_int("q_lora_rank")
    kv_rank = f.int("kv_lora_rank")
    rope, nope = f.int("qk_rope_head_dim", minimum=0), f.int("qk_nope_head_dim", minimum=0)
    v_dim = f.int("v_head_dim")
    bias = f.bool("attention_bias")
    qk = nope + rope
    if q_rank is None:
        attn, norms = _linear(hidden, n * qk), 0
    else:
        attn, norms = _linear(hidden, q_rank, bias) + _linear(q_rank, n * qk), q_rank
    attn += _linear(hidden, kv_rank + rope, bias) + _linear(kv_rank, n * (nope + v_dim)) + _linear(n * v_dim, hidden, bias)
    norms += kv_rank + 2 * hidden

    t.add("embedding", vocab * hidden)
    t.add("attention", n_layers * attn)
    t.add("norms", n_layers * norms + hidden)
    mlp_bias = f.bool("mlp_bias") if v2 else False
    first_dense = f.int("first_k_dense_replace", minimum=0)
    n_dense = min(first_dense, n_layers)
    if n_dense:
        t.add("mlp", n_dense * _gated_mlp(hidden, f.int("intermediate_size"), mlp_bias))
    if n_layers > n_dense:
        n_exp = f.int("n_routed_experts", "num_local_experts", "num_experts")
        exp_inter = f.int("moe_intermediate_size")
        shared = f.int("n_shared_experts", minimum=0)
        top_k = f.opt_int("num_experts_per_tok")
        for _ in range(n_layers - n_dense):
            t.add("mlp", n_exp * hidden + _gated_mlp(hidden, exp_inter * shared, mlp_bias))
            t.experts(3 * hidden * exp_inter, n_exp, top_k, f.r.field_name("num_experts_per_tok"))
    _lm_head(f, t, hidden, vocab)


# --------------------------------------------------------------------------- GPT-2
def _gpt2(f: _Fields, t: _Tally) -> None:
    """GPT-2: ``wte V*H`` + ``wpe P*H``; per layer: ``ln_1, ln_2`` (``2*H`` each), ``c_attn H*3H+3H``,
    ``c_proj H*H+H``, MLP ``H*I+I + I*H+H`` (``I = n_inner or 4*H``); with add_cross_attention also
    ``c_attn H*2H+2H, q_attn H*H+H, c_proj H*H+H`` and a LayerNorm; ``ln_f 2*H``; lm_head tied by default.
    """
    vocab, hidden, n_layers = f.int("vocab_size"), f.int("hidden_size"), f.int("num_hidden_layers")
    positions = f.int("max_position_embeddings")
    heads = f.int("num_attention_heads")
    if hidden % heads:
        raise ConfigError(f.r.field_name("hidden_size"), hidden, f"is not divisible by n_head ({heads})")
    inter = f.opt_int("intermediate_size") or 4 * hidden
    attn = _linear(hidden, 3 * hidden, True) + _linear(hidden, hidden, True)
    norms = 4 * hidden
    if f.bool("add_cross_attention"):
        attn += _linear(hidden, 2 * hidden, True) + 2 * _linear(hidden, hidden, True)
        norms += 2 * hidden
    t.add("embedding", vocab * hidden + positions * hidden)
    t.add("attention", n_layers * attn)
    t.add("mlp", n_layers * (_linear(hidden, inter, True) + _linear(inter, hidden, True)))
    t.add("norms", n_layers * norms + 2 * hidden)
    _lm_head(f, t, hidden, vocab)


# --------------------------------------------------------------------------- T5
def _t5(f: _Fields, t: _Tally) -> None:
    """T5ForConditionalGeneration: shared ``V*d_model``; encoder blocks: self-attention ``4*d_model*n*d_kv``
    + norm, FF ``2*d_model*d_ff`` (gated: ``3*...``) + norm; decoder blocks add cross-attention ``4*d_model*n*d_kv``
    + norm; block 0 of each stack has a relative-attention bias ``buckets*n``; each stack has a final norm.
    transformers 5 always ties lm_head to the shared embedding (``tie_word_embeddings: false`` only turns
    off output scaling), so lm_head is 0.
    """
    vocab, d_model = f.int("vocab_size"), f.int("d_model", "hidden_size")
    d_kv, d_ff, heads = f.int("d_kv"), f.int("d_ff"), f.int("num_heads")
    n_enc = f.int("num_layers")
    n_dec = f.opt_int("num_decoder_layers") or n_enc
    buckets = f.int("relative_attention_num_buckets")
    proj = f.str("feed_forward_proj")
    parts = proj.split("-")
    if (len(parts) > 1 and parts[0] != "gated") or len(parts) > 2:
        raise ConfigError(f.r.field_name("feed_forward_proj"), proj, "must be 'ACT' or 'gated-ACT'")
    ff = (3 if parts[0] == "gated" else 2) * d_model * d_ff
    attn = 4 * d_model * heads * d_kv
    t.add("embedding", vocab * d_model)
    t.add("attention", (n_enc + 2 * n_dec) * attn + (buckets * heads if n_enc else 0) + (buckets * heads if n_dec else 0))
    t.add("mlp", (n_enc + n_dec) * ff)
    t.add("norms", (2 * n_enc + 3 * n_dec + 2) * d_model)
    t.tied = True


# --------------------------------------------------------------------------- multimodal
def _sub(top: ConfigReader, name: str, model_type: str, expected: tuple[str, ...]) -> _Fields:
    """The nested config ``name`` (class defaults when the config omits it)."""
    r = top.sub(name) if isinstance(top.data.get(name), Mapping) else None
    if r is None:
        if top.data.get(name) is not None:
            raise ConfigError(name, top.data[name], "must be a JSON object")
        r = ConfigReader({}, f"{top.path}{name}.", top.used)
    sub_type = r.str("model_type", default=model_type)
    if sub_type not in expected:
        raise UnsupportedError(f"{top.path}{name}.model_type '{sub_type}' is not counted (expected {', '.join(expected)})")
    return _Fields(r, sub_type)


def _siglip_vision(v: _Fields, use_head_default: bool | None = None) -> int:
    """SigLIP vision tower: patch conv ``C*p*p*H + H``, positions ``(img/p)^2 * H``; per layer 2 LayerNorms
    ``4*H``, q/k/v/out ``4*(H*H+H)``, MLP ``H*I+I + I*H+H``; post LayerNorm ``2*H``; with vision_use_head a
    pooling head: probe ``H``, MultiheadAttention ``4*H*H + 4*H``, LayerNorm ``2*H``, MLP.
    """
    hidden, inter, n_layers = v.int("hidden_size"), v.int("intermediate_size"), v.int("num_hidden_layers")
    heads = v.int("num_attention_heads")
    if hidden % heads:
        raise ConfigError(v.r.field_name("hidden_size"), hidden, f"is not divisible by num_attention_heads ({heads})")
    channels, image, patch = v.int("num_channels"), v.int("image_size"), v.int("patch_size")
    mlp = _linear(hidden, inter, True) + _linear(inter, hidden, True)
    n = channels * patch * patch * hidden + hidden + (image // patch) ** 2 * hidden
    n += n_layers * (4 * hidden + 4 * _linear(hidden, hidden, True) + mlp) + 2 * hidden
    if v.bool("vision_use_head"):
        n += hidden + 4 * hidden * hidden + 4 * hidden + 2 * hidden + mlp
    return n


def _gemma3(top: _Fields, t: _Tally) -> None:
    """Gemma3ForConditionalGeneration: the gemma3_text decoder (``text_config``), a SigLIP tower
    (``vision_config``) and the projector ``H_v*H_t`` + RMSNorm ``H_v``. Tying follows the top-level
    ``tie_word_embeddings`` (default true), not the text_config's.
    """
    text = _sub(top.r, "text_config", "gemma3_text", ("gemma3_text",))
    vision = _sub(top.r, "vision_config", "siglip_vision_model", ("siglip_vision_model",))
    _llama_like(text, t, head=False)
    _lm_head(top, t, text.int("hidden_size"), text.int("vocab_size"))
    hv = vision.int("hidden_size")
    t.add("vision", _siglip_vision(vision) + hv * text.int("hidden_size") + hv)


def _mllama_vision(v: _Fields) -> int:
    """Mllama vision encoder (no biases on attention):
    patch conv ``C*p*p*H``, class embedding ``H``, gated position embedding ``1 + P*H + (R+1)*T*P*H``
    (``P = (img/p)^2 + 1`` patches, ``R`` aspect ratios, ``T`` tiles), two gated tile embeddings
    ``(R+1)*T*H + 1``, two LayerNorms ``2*H``; ``num_hidden_layers`` layers of ``4*H*H`` attention,
    MLP ``H*I+I + I*H+H``, 2 LayerNorms ``4*H``; ``num_global_layers`` more with 2 scalar gates each.
    """
    hidden, inter = v.int("hidden_size"), v.int("intermediate_size")
    n_local, n_global = v.int("num_hidden_layers", minimum=0), v.int("num_global_layers", minimum=0)
    heads = v.int("attention_heads", "num_attention_heads")
    if hidden % heads:
        raise ConfigError(v.r.field_name("hidden_size"), hidden, f"is not divisible by attention_heads ({heads})")
    channels, image, patch, tiles = v.int("num_channels"), v.int("image_size"), v.int("patch_size"), v.int("max_num_tiles")
    ratios = v.r.list("supported_aspect_ratios") if v.r.has("supported_aspect_ratios") else v.defaults["supported_aspect_ratios"]
    n_ratios = len(ratios)
    patches = (image // patch) ** 2 + 1
    n = channels * patch * patch * hidden + hidden
    n += 1 + patches * hidden + (n_ratios + 1) * tiles * patches * hidden
    n += 2 * ((n_ratios + 1) * tiles * hidden + 1) + 4 * hidden
    layer = 4 * hidden * hidden + _linear(hidden, inter, True) + _linear(inter, hidden, True) + 4 * hidden
    n += n_local * layer + n_global * (layer + 2)
    return n


def _mllama(top: _Fields, t: _Tally) -> None:
    """MllamaForConditionalGeneration: text decoder with ``V+8`` embedding rows, self-attention layers
    (Llama-style, ``d = H/n_q``, no biases) and cross-attention layers (same projections + q/k norms ``2*d``
    + 2 scalar gates); vision encoder; projector ``vision_output_dim*H + H``; lm_head ``V*H``.
    """
    text = _sub(top.r, "text_config", "mllama_text_model", ("mllama_text_model",))
    vision = _sub(top.r, "vision_config", "mllama_vision_model", ("mllama_vision_model",))
    vocab, hidden, n_layers = text.int("vocab_size"), text.int("hidden_size"), text.int("num_hidden_layers")
    inter = text.int("intermediate_size")
    n_q, n_kv = text.heads()
    d = hidden // n_q
    cross = {i for i in text.int_list("cross_attention_layers") if 0 <= i < n_layers}
    attn = _linear(hidden, n_q * d) + 2 * _linear(hidden, n_kv * d) + _linear(n_q * d, hidden)
    t.add("embedding", (vocab + 8) * hidden)
    t.add("attention", n_layers * attn + len(cross) * 1)
    t.add("norms", n_layers * 2 * hidden + len(cross) * 2 * d + hidden)
    t.add("mlp", n_layers * _gated_mlp(hidden, inter) + len(cross) * 1)
    tied = top.bool("tie_word_embeddings")
    if tied:
        raise UnsupportedError("mllama with a top-level tie_word_embeddings: true (embedding has V+8 rows, lm_head V)")
    _lm_head(top, t, hidden, vocab, tied=False)
    t.add("vision", _mllama_vision(vision) + _linear(vision.int("vision_output_dim"), hidden, True))


# --------------------------------------------------------------------------- entry point
_COUNTERS: dict[str, Callable[[_Fields, _Tally], None]] = {
    **dict.fromkeys(("llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "gemma2", "gemma3_text", "phi3",
                     "gpt_oss"), _llama_like),
    "deepseek_v2": _deepseek, "deepseek_v3": _deepseek,
    "gpt2": _gpt2, "t5": _t5, "gemma3": _gemma3, "mllama": _mllama,
}

SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(sorted(set(_COUNTERS) | set(SAME_ARCHITECTURE)))


def count_params(config: Mapping[str, Any]) -> ParamCount:
    """The exact parameter count of the model transformers builds from ``config`` (a config.json dict).

    Raises :class:`ConfigError` for unusable fields and :class:`UnsupportedError` for model types
    whose modules are not counted here (see :data:`SUPPORTED_MODEL_TYPES`): no estimate is ever guessed.
    """
    top = ConfigReader(config)
    model_type = top.str("model_type", default=None)
    if model_type is None:
        raise ConfigError("model_type", None, "required field is missing (it names the architecture to count)")
    arch = SAME_ARCHITECTURE.get(model_type, model_type)
    counter = _COUNTERS.get(arch)
    if counter is None:
        raise UnsupportedError(f"parameter counting is not implemented for model_type '{model_type}' "
                               f"(supported: {', '.join(SUPPORTED_MODEL_TYPES)})")
    tally = _Tally()
    counter(_Fields(top, arch), tally)
    parts = tally.parts
    total = sum(parts.values())
    return ParamCount(
        model_type=model_type, total=total, **parts, tied_embeddings=tally.tied, moe_experts=tally.moe_experts,
        active=total - tally.moe_experts + tally.moe_active, fields_used=tuple(top.used),
    )
