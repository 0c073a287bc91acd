"""The model-type registry (kvcalc.model_types) is consistent, and its facts are transformers' own.

Consistency: one entry per type; every alias and text-decoder target exists; every type with a
recurrent-state rule has a layer rule; every type read_spec accepts is parameter-counted or says why
not. Ground truth: the class defaults equal ``transformers.AutoConfig.for_model(type)`` attributes,
and ``{"model_type": T}`` alone gives transformers' layer count and attention geometry in both
read_spec and count_params (the two read the same entry).
"""
from __future__ import annotations

import warnings

import pytest

import kvcalc
from kvcalc.config import ConfigReader
from kvcalc.errors import ConfigError, UnsupportedError
from kvcalc.models.counting import COUNTERS, SUPPORTED_MODEL_TYPES, count_params
from kvcalc.models.model_type import QUIRKS, ModelType
from kvcalc.models.registry import ENTRIES, REGISTRY, index_entries, lookup

ACCEPTED = sorted(name for name, e in REGISTRY.items() if e.kind != "no_cache")


def test_one_entry_per_type():
    assert len(REGISTRY) == len(ENTRIES)
    with pytest.raises(ValueError, match="two registry entries for model_type 'x'"):
        index_entries((ModelType("x"), ModelType("x")))


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_entry_is_consistent(name):
    e = REGISTRY[name]
    if e.same_as is not None:
        target = REGISTRY[e.same_as]        # the alias target exists, and is itself no alias
        assert target.same_as is None and target.kind == e.kind
    if e.text_type is not None:
        assert REGISTRY[e.text_type].kind == "decoder" and REGISTRY[e.text_type].text_type is None
    if e.state_rule is not None:
        assert e.layer_rule is not None, "recurrent states without a layer rule: the layers would read as attention"
    assert e.quirks <= set(QUIRKS)
    assert e.params is None or e.params in COUNTERS


@pytest.mark.parametrize("name", ACCEPTED)
def test_accepted_type_is_counted_or_says_why(name):
    e = lookup(name)
    assert e is not None
    if e.params is None:
        assert e.not_countable
        with pytest.raises(UnsupportedError, match=e.not_countable.split(" (")[0]):
            count_params({"model_type": name})
    else:
        assert name in SUPPORTED_MODEL_TYPES


def test_kimi_k2_is_built_as_deepseek_v3():
    """One alias, read by both: transformers has no kimi_k2 class and builds Kimi K2 as DeepSeek-V3."""
    cfg = {"model_type": "kimi_k2", "num_experts_per_tok": 8}
    assert kvcalc.read_spec(cfg).model_type == "deepseek_v3"
    assert count_params(cfg).total == count_params(dict(cfg, model_type="deepseek_v3")).total


# --------------------------------------------------------------------------- against transformers
def _tf_config(name: str):
    transformers = pytest.importorskip("transformers")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    if name not in CONFIG_MAPPING_NAMES:
        pytest.skip(f"transformers has no config class for {name}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.for_model(name)
    config.allow_global_per_layer_attribute_access = True   # the global head_dim of a per-layer config (Gemma 4)
    return config


@pytest.mark.parametrize("name", sorted(n for n, e in REGISTRY.items() if e.defaults))
def test_class_defaults_are_transformers_defaults(name):
    """Each default the registry holds == the attribute of transformers' config class (5.24).

    Skipped: ``None`` (derived), Mamba's ``time_step_rank="auto"`` (the class turns it into ceil(H/16)),
    and flags a class hard-codes instead of holding (e.g. MistralConfig has no attention_bias)."""
    tf = _tf_config(name)
    checked = 0
    for field, value in REGISTRY[name].defaults.items():
        if value is None or value == "auto" or not hasattr(tf, field):
            continue
        got = getattr(tf, field)
        if isinstance(got, list) and not isinstance(value, list):   # one value expanded per layer (Gemma 3n widths)
            got = got[0] if len(set(got)) == 1 else got
        assert got == value, field
        checked += 1
    assert checked


COUNTED_DECODERS = sorted(n for n in SUPPORTED_MODEL_TYPES
                          if REGISTRY[n].kind == "decoder" and not REGISTRY[n].same_as and not REGISTRY[n].text_type)


@pytest.mark.parametrize("name", COUNTED_DECODERS)
def test_type_alone_reads_transformers_geometry(name):
    """``{"model_type": T}`` alone: read_spec takes the same class defaults as count_params, so its layer
    count, KV heads and head dim (MLA: latent width) are those of ``AutoConfig.for_model(T)``."""
    tf = _tf_config(name)
    extra = {"num_experts_per_tok": 6} if name == "deepseek_v2" else {}
    if name == "dots1":     # Dots1Config leaves the experts None: no model builds (the coverage oracle's default_fill)
        extra = {"n_routed_experts": 128, "n_shared_experts": 2, "num_experts_per_tok": 6}
    if name == "diffusion_gemma_text":    # its class default has no experts, which it cannot build
        extra = {"num_experts": 128, "top_k_experts": 8, "moe_intermediate_size": 704}   # the fixture's default_fill
    # the spec reader refuses these bare configs: Nemotron-H's layer list (_listed_only), JetMoE's
    # num_attention_heads (JetMoeConfig derives it from num_key_value_heads x num_experts_per_tok), HRM's
    # num_hidden_layers (HrmTextConfig rewrites it to the cache-slot count; the counter is given the per-stack 16)
    if name in ("nemotron_h", "jetmoe", "hrm_text", "lfm2_moe"):
        with pytest.raises(ConfigError):
            kvcalc.read_spec({"model_type": name})
        if name == "lfm2_moe":      # Lfm2MoeConfig's default layer_types is None: transformers builds no model either
            with pytest.raises(ConfigError):
                count_params({"model_type": name})
            return
        count_params({"model_type": name, **({"num_hidden_layers": 16} if name == "hrm_text" else {})})
        return
    if name == "deepseek_v4":       # counted, but its compressed-KV layers are refused by the spec reader
        with pytest.raises(UnsupportedError):
            kvcalc.read_spec({"model_type": name})
        count_params({"model_type": name})
        return
    spec = kvcalc.read_spec({"model_type": name, **extra})
    # Dory / Inkling2-Loop: each further loop pass adds its own cache layers (DoryModel.forward; loop_passes)
    loops = tf.n_recurrent_layers * (tf.n_recurrent_loops - 1) if name == "dory" else 0
    if name == "inkling2_loop_text":
        loops = (tf.loop_layer_index_end - tf.loop_layer_index_start) * (tf.loop_num_passes - 1)
    assert spec.num_layers == tf.num_hidden_layers + loops
    attn = next((layer.attention[0] for layer in spec.layers if layer.attention), None)
    if attn is None:
        assert name in ("mamba", "mamba2", "falcon_mamba", "bamba", "granitemoehybrid")  # default: no attention layer
    elif attn.latent_dim:
        assert attn.latent_dim == tf.kv_lora_rank + tf.qk_rope_head_dim
    else:
        # Falcon and GPTBigCode default to multi_query: one KV head
        kv = 1 if name in ("falcon", "gpt_bigcode") else getattr(tf, "num_key_value_heads", None)
        if name == "inkling_text":      # layer 0 is a sliding hybrid: the swa_* geometry
            kv = tf.swa_num_key_value_heads
        assert attn.kv_heads == (kv or tf.num_attention_heads)
        assert attn.k_head_dim == (getattr(tf, "head_dim", None) or tf.hidden_size // tf.num_attention_heads)
    count_params({"model_type": name, **extra})  # and the counter accepts it (totals: tests/reference/test_params.py)


# --------------------------------------------------------------------------- reader and messages
def test_accessors_do_not_shadow_builtins():
    for name in ("int", "str", "bool", "list", "float"):
        assert not hasattr(ConfigReader, name)


def test_reader_with_defaults():
    """Config value, else class default (recorded), else the call's default, else a typed error."""
    r = ConfigReader({"a": 3, "n": None}, defaults={"b": 7, "c": None}, model_type="toy")
    assert (r.get_int("a"), r.get_int("b"), r.get_int("c", default=5), r.opt_int("c")) == (3, 7, 5, None)
    assert r.defaults_used == ["b=7"] and r.used == ["a"]
    assert r.nullable_int("n") is None and "n" in r.used
    with pytest.raises(ConfigError, match=r"'d' = None: required field is missing \(no toy default\)"):
        r.get_bool("d")


def test_sliding_window_zero_is_reported_as_zero():
    """Issue 11 item 15: Gemma 2 alternates sliding layers; ``sliding_window: 0`` sets no window.
    Before, the error said ``'sliding_window' = None``; it names the value the config holds."""
    cfg = {"model_type": "gemma2", "num_hidden_layers": 2, "num_attention_heads": 8, "hidden_size": 2048,
           "sliding_window": 0}
    with pytest.raises(ConfigError) as err:
        kvcalc.read_spec(cfg)
    assert err.value.field == "sliding_window" and err.value.value == 0
    assert "'sliding_window' = 0: layer 0 is sliding but no window is set" in str(err.value)


@pytest.mark.parametrize("name, field", [("zamba2", "layers_block_type"), ("nemotron_h", "hybrid_override_pattern")])
def test_listed_layer_types_are_required(name, field):
    """Zamba2 / Nemotron-H configs list their layers (transformers rejects a count that differs from its
    default list); without the list kvcalc refuses instead of reading every layer as attention."""
    with pytest.raises(ConfigError) as err:
        kvcalc.read_spec({"model_type": name, "num_hidden_layers": 6, "hidden_size": 64, "num_attention_heads": 4})
    assert err.value.field == field


def test_typed_quirk_flags_name_registered_quirks():
    """The typed quirk views of the spec reader and the family counters hold only quirks QUIRKS documents, and
    read an entry's Quirk members as their flags (Qwen3-Next: gated DeltaNet, gated q_proj, q/k norms)."""
    import dataclasses

    from kvcalc.architectures import CacheQuirks
    from kvcalc.models.classic_decoders import ClassicQuirks
    from kvcalc.models.deepseek import DeepseekQuirks
    from kvcalc.models.gemma import GemmaQuirks
    from kvcalc.models.hybrids import HybridQuirks
    from kvcalc.models.llama import LlamaQuirks
    from kvcalc.models.model_type import quirk_flags
    from kvcalc.models.moe import MoeQuirks
    from kvcalc.models.seq2seq import Seq2SeqQuirks
    from kvcalc.models.ssm import SsmQuirks
    for cls in (CacheQuirks, ClassicQuirks, DeepseekQuirks, GemmaQuirks, HybridQuirks, LlamaQuirks, MoeQuirks,
                Seq2SeqQuirks, SsmQuirks):
        assert {f.name for f in dataclasses.fields(cls)} <= {q.value for q in QUIRKS}, cls.__name__
    flags = quirk_flags(LlamaQuirks, REGISTRY["qwen3_next"])
    assert flags.gated_delta_net and flags.gated_q_proj and flags.qk_norm and not flags.plain_mlp


def test_quirks_are_typed_members_each_documented():
    """Every entry declares Quirk members (a misspelt name is an AttributeError when the registry loads), and
    every member says what it changes."""
    from kvcalc.models.quirks import Quirk

    assert set(QUIRKS) == set(Quirk) and all(text.strip() for text in QUIRKS.values())
    for entry in REGISTRY.values():
        assert all(isinstance(q, Quirk) for q in entry.quirks), entry.name
    with pytest.raises(AttributeError):
        Quirk.QK_NROM  # noqa: B018 - the typo the string form let pass
    with pytest.raises(ValueError):
        Quirk("qk_nrom")
