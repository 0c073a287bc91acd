"""The Planner's advice works: fixes with their numbers in the verdict, an int4 command that names a real AWQ
checkpoint, and a model whose weights kvcalc cannot size shows its KV cache at once beside the inline weights ask.

Hand arithmetic (ideal runtime: no overhead, the whole GPU): Llama-3.1-8B's 16,060,522,496 B of bf16 weights on
an RTX 4090's 25,757,220,864 B leave room for 73,979 tokens of 131,072 B: at 8 x 32,768 the largest batch is 2,
the longest context at batch 8 is 9,247 tokens, an fp8 cache reaches 18,494, and two GPUs fit (50.4 GB split in
two is 25.2 GB each).
"""
from __future__ import annotations

from apptest import run_page

from kvcalc.units import MiB

LLAMA = "meta-llama/Llama-3.1-8B"


def test_verdict_lists_each_fix_with_its_number():
    at = run_page(model=LLAMA, gpu="rtx-4090", runtime="ideal", batch="8", ctx="32768")
    box = next(w.value for w in list(at.warning) + list(at.error) if "Other changes" in w.value)
    for line in ("batch 8 -> 2 fits", "context 32,768 -> 9,247 fits", "max context 18,494 at batch 8",
                 "--tensor-parallel-size 2 fits on 2 x", "--pipeline-parallel-size 2 fits on 2 x"):
        assert line in box.replace("\\", ""), (line, box)


def test_int4_command_names_the_awq_checkpoint():
    at = run_page(model=LLAMA, gpu="rtx-4090", wdtype="int4", batch="1", ctx="8192")
    cmd = next(c.value for c in at.code if c.value.startswith("vllm serve"))
    assert cmd.split()[2] == "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4" and "--quantization awq" in cmd


def test_unknown_type_shows_its_kv_at_once_and_asks_for_weights_inline():
    """4 layers x 2 KV heads x (64 + 64) x 2 B = 2,048 B a token: 4,096 tokens hold 8 MiB."""
    from dashboard.config_link import encode_config

    cfg = {"model_type": "acme_decoder", "architectures": ["AcmeForCausalLM"], "hidden_size": 256,
           "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
           "intermediate_size": 512, "vocab_size": 1000, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
    at = run_page(source="paste", cfg=encode_config(cfg), runtime="ideal", gpu="rtx-4090", ctx="4096")
    kv = next(m for m in at.metric if m.label.startswith("KV cache, 1 x 4,096 tokens"))
    assert kv.value == f"{4096 * 2048 / MiB:,.2f} MiB"
    assert any(n.key == "wgib" for n in at.number_input)
    assert not any("choose a weights dtype" in w.value for w in at.warning)
