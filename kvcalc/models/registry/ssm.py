"""Registry entries of state-space models and Mamba hybrids (Mamba, Mamba-2, Jamba, Zamba, Nemotron-H, Falcon-H1,
ZAYA).

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.ssm`."""
from __future__ import annotations

from ..layer_rules import all_layers, jamba_layers, listed, listed_only, zamba2_layers, zamba_layers
from ..model_type import ModelType
from ..quirks import Quirk as Q
from ..state_rules import jamba_states, mamba2_like, mamba_states, nemotron_h_states, zamba_states, zaya_states
from .common import LLAMA_LIKE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

_MAMBA2_FIELDS = dict(mamba_expand=2, mamba_n_groups=1, mamba_d_state=256, mamba_n_heads=128, mamba_d_conv=4)


_MAMBA2_PARAMS = dict(mamba_conv_bias=True, mamba_proj_bias=False, tie_word_embeddings=False, attention_bias=False)


SSM_ENTRIES: tuple[ModelType, ...] = (
    # ---- recurrent and hybrid
    ModelType("mamba", params="mamba", layer_rule=all_layers("mamba"), state_rule=mamba_states, defaults=_d(
        vocab_size=50280, hidden_size=768, state_size=16, num_hidden_layers=32, expand=2, conv_kernel=4,
        use_bias=False, use_conv_bias=True, time_step_rank="auto", tie_word_embeddings=True)),
    ModelType("falcon_mamba", params="mamba", layer_rule=all_layers("mamba"), state_rule=mamba_states, defaults=_d(
        vocab_size=50280, hidden_size=768, num_hidden_layers=32, tie_word_embeddings=True, state_size=16, expand=2,
        conv_kernel=4, use_bias=False, use_conv_bias=True, time_step_rank="auto")),
    ModelType("mamba2", params="mamba2", layer_rule=all_layers("mamba"),
              state_rule=mamba2_like("expand", "n_groups", "state_size", "num_heads", "head_dim", "conv_kernel"),
              defaults=_d(num_heads=128, head_dim=64, vocab_size=32768, hidden_size=4096, state_size=128,
                          num_hidden_layers=64, expand=2, conv_kernel=4, n_groups=8, use_bias=False,
                          use_conv_bias=True, tie_word_embeddings=False)),
    ModelType("jamba", layer_rule=jamba_layers, state_rule=jamba_states, params="jamba", defaults=_d(
        num_key_value_heads=8, mamba_expand=2, mamba_d_state=16, mamba_d_conv=4, attn_layer_period=8,
        attn_layer_offset=4, vocab_size=65536, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, tie_word_embeddings=False, mamba_dt_rank="auto", mamba_conv_bias=True,
        mamba_proj_bias=False, num_experts=16, num_experts_per_tok=2, expert_layer_period=2, expert_layer_offset=1)),
    *(ModelType(name, layer_rule=listed("attn_layer_indices", "attention", "mamba"),
                state_rule=mamba2_like("mamba_expand", "mamba_n_groups", "mamba_d_state", "mamba_n_heads",
                                        "mamba_d_head", "mamba_d_conv"),
                params="mamba2_hybrid", mlp_bias="mlp_bias" if name == "bamba" else False,
                moe="all" if name == "granitemoehybrid" else None, defaults=defaults)
      for name, defaults in (
          ("bamba", _d(LLAMA_LIKE, _MAMBA2_FIELDS, _MAMBA2_PARAMS, vocab_size=128000, hidden_size=4096,
                       intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                       mlp_bias=False)),
          ("granitemoehybrid", _d(LLAMA_LIKE, _MAMBA2_FIELDS, _MAMBA2_PARAMS, vocab_size=32000, hidden_size=4096,
                                  intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                                  num_key_value_heads=None, num_local_experts=8, num_experts_per_tok=2,
                                  shared_intermediate_size=1024)))),
    ModelType("falcon_h1", layer_rule=all_layers("hybrid"),
              state_rule=mamba2_like("mamba_expand", "mamba_n_groups", "mamba_d_state", "mamba_n_heads",
                                      "mamba_d_head", "mamba_d_conv", inner="mamba_d_ssm"),
              params="mamba2_hybrid", mlp_bias="mlp_bias", quirks=frozenset({Q.FALCON_H1_MIXER}), defaults=_d(
        LLAMA_LIKE, _MAMBA2_FIELDS, _MAMBA2_PARAMS, num_key_value_heads=8, vocab_size=128000, hidden_size=4096,
        intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32, mlp_bias=False, mamba_d_ssm=1024,
        projectors_bias=False, mamba_rms_norm=False)),
    # Zamba (v1): layers_block_type lists "linear_attention" (Mamba-1) and "hybrid" (Mamba-1 + the shared
    # attention block on 2 x hidden_size); verified by the coverage fixture
    ModelType("zamba", layer_rule=zamba_layers, quirks=frozenset({Q.DOUBLED_ATTENTION_HEAD_DIM}),
              state_rule=zamba_states, params="zamba", defaults=_d(
        mamba_expand=2, mamba_d_state=16, mamba_d_conv=4, num_key_value_heads=16,
        # parameter fields (ZambaConfig)
        vocab_size=32000, hidden_size=3712, intermediate_size=14848, num_hidden_layers=76, num_attention_heads=16,
        tie_word_embeddings=True, mamba_dt_rank="auto", mamba_conv_bias=True, mamba_proj_bias=False,
        attn_layer_period=6, attn_layer_offset=4)),
    ModelType("zamba2", layer_rule=zamba2_layers, quirks=frozenset({Q.DOUBLED_ATTENTION_HEAD_DIM, Q.ZAMBA2_BLOCKS}),
              state_rule=mamba2_like("mamba_expand", "mamba_ngroups", "mamba_d_state", "n_mamba_heads",
                                      "mamba_headdim", "mamba_d_conv"), params="zamba", defaults=_d(
        mamba_expand=2, mamba_ngroups=1, mamba_d_state=64, n_mamba_heads=8, mamba_d_conv=4,
        # parameter fields (Zamba2Config; intermediate_size: None = 4 * hidden_size)
        vocab_size=32000, hidden_size=2560, num_hidden_layers=54, num_attention_heads=32, intermediate_size=None,
        tie_word_embeddings=True, add_bias_linear=False, num_mem_blocks=1, adapter_rank=128,
        use_shared_attention_adapter=False)),
    ModelType("nemotron_h", layer_rule=listed_only("hybrid_override_pattern"), state_rule=nemotron_h_states,
              params="nemotron_h", defaults=_d(
        num_key_value_heads=8, mamba_num_heads=128, mamba_head_dim=64, n_groups=8, ssm_state_size=128, conv_kernel=4,
        # parameter fields (NemotronHConfig)
        vocab_size=131072, hidden_size=4096, num_attention_heads=32, head_dim=128, intermediate_size=21504,
        mlp_bias=False, use_bias=False, use_conv_bias=True, n_routed_experts=8, moe_intermediate_size=7688,
        moe_shared_expert_intermediate_size=7688, moe_latent_size=None, num_experts_per_tok=2)),
    ModelType("zaya", layer_rule=all_layers("hybrid"), state_rule=zaya_states, recurrent_kind="linear", params="zaya",
              defaults=_d(num_key_value_heads=2, head_dim=128, cca_time0=2, cca_time1=2,
                          # parameter fields (ZayaConfig)
                          vocab_size=262272, hidden_size=2048, num_hidden_layers=40, num_attention_heads=8,
                          tie_word_embeddings=True, attention_bias=False, lm_head_bias=False,
                          moe_intermediate_size=2048, num_experts=16, num_experts_per_tok=1, router_hidden_size=256)),
)
