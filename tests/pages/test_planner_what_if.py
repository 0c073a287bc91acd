"""An attention what-if on the Planner is a model that does not exist: its verdict says hypothetical and the
page gives no launch command (issue: a green "Fits" with a vllm serve line for a model nobody can download).

Hand arithmetic: Llama-3.1-8B as MQA keeps 1 KV head of 8, so 32 layers x 1 x (128 + 128) x 2 B = 16,384 B
per token; at 1 x 8,192 tokens that is 128 MiB.
"""
from __future__ import annotations

from apptest import run_page

LLAMA = "meta-llama/Llama-3.1-8B"


def _texts(at, kind: str) -> list[str]:
    return [e.value for e in getattr(at, kind)]


def test_what_if_verdict_is_hypothetical_without_a_command():
    at = run_page(model=LLAMA, gpu="rtx-4090", attn="mqa", batch="1", ctx="8192")
    infos = _texts(at, "info")
    assert any(t.startswith("**Hypothetical** (attention what-if mqa") for t in infos), infos
    assert not _texts(at, "success") and not _texts(at, "error")
    assert not [c for c in at.code if "serve" in c.value], "a what-if model got a launch command"
    kv = next(m for m in at.metric if m.label == "KV cache / GPU")
    assert kv.value == "128.00 MiB"          # 8,192 x 16,384 B


def test_the_model_as_configured_keeps_its_command():
    at = run_page(model=LLAMA, gpu="rtx-4090", batch="1", ctx="8192")
    assert [c for c in at.code if c.value.startswith("vllm serve")]
    assert _texts(at, "success")
