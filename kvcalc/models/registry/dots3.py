"""Registry entries of dots3 Note (text decoder, vision and audio towers).

Defaults: the transformers 5.24 config classes (parameter and cache fields; ``None`` = derived). Counted by
:mod:`kvcalc.models.dots3`."""
from __future__ import annotations

from ..model_type import ModelType
from ..quirks import Quirk as Q
from .common import LLAMA_LIKE
from .common import class_defaults as _d  # every entry's defaults (short: hundreds of uses)

DOTS3_ENTRIES: tuple[ModelType, ...] = (
    # Dots3-Note: the dots3_note_text decoder + a vision tower with routed experts + an audio tower
    # (kvcalc.models.dots3.dots3_note)
    ModelType("dots3_note", text_type="dots3_note_text", params="dots3_note", defaults=_d(tie_word_embeddings=False)),
    ModelType("dots3_note_vision_encoder", kind="no_cache", defaults=_d(
        hidden_size=1536, intermediate_size=4224, num_hidden_layers=42, num_attention_heads=24, num_channels=3,
        patch_size=14, moe_intermediate_size=2112, attention_bias=False, mlp_bias=False, num_local_experts=64,
        adapter_in_dim=1536, adapter_out_dim=5120, adapter_merge_size=2)),
    ModelType("dots3_note_audio_encoder", kind="no_cache", defaults=_d(
        hidden_size=1280, intermediate_size=5120, num_hidden_layers=32, num_attention_heads=20, feature_size=128,
        downsample_hidden_size=480, attention_bias=True, adapter_input_size=1280, adapter_out_dim=5120)),
    ModelType("dots3_note_text", quirks=frozenset({Q.FLOAT32_INDEXER}), params="dots3_note_text", defaults=_d(
        LLAMA_LIKE, vocab_size=152064, hidden_size=5120, intermediate_size=13824, moe_intermediate_size=1536,
        num_hidden_layers=46, num_attention_heads=128, num_key_value_heads=128, n_shared_experts=1,
        n_routed_experts=256, kv_lora_rank=512, q_lora_rank=1024, qk_rope_head_dim=64, v_head_dim=128,
        qk_nope_head_dim=128, num_experts_per_tok=8, tie_word_embeddings=False, attention_bias=False,
        index_topk=2048, index_head_dim=128, index_n_heads=64, head_dim=256, shared_experts_intermediate_size=1536)),
)
