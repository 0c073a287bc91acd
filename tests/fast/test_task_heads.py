"""Sequence-classification checkpoints: transformers builds the base model plus ``score = Linear(H, num_labels,
bias=False)`` in place of the lm_head (modeling_gpt_neox.py GPTNeoXForSequenceClassification, modeling_layers.py
GenericForSequenceClassification, 5.24)."""
from __future__ import annotations

import pytest

import kvcalc
from kvcalc.errors import UnsupportedError

# LlamaConfig's defaults: Llama-2-7B, 6,738,415,616 parameters (Meta's model card) with a 32000 x 4096 lm_head
LLAMA_7B, LM_HEAD = 6_738_415_616, 32000 * 4096


def test_score_head_replaces_lm_head_with_default_two_labels():
    cfg = {"model_type": "llama", "architectures": ["LlamaForSequenceClassification"]}
    count = kvcalc.count_params(cfg)
    assert count.total == LLAMA_7B - LM_HEAD + 2 * 4096
    assert count.lm_head == 2 * 4096 and not count.tied_embeddings


def test_id2label_sets_the_number_of_labels():
    cfg = {"model_type": "llama", "architectures": ["LlamaForSequenceClassification"],
           "id2label": {str(i): f"L{i}" for i in range(5)}, "num_labels": 2}
    assert kvcalc.count_params(cfg).total == LLAMA_7B - LM_HEAD + 5 * 4096


def test_causal_lm_architectures_keep_the_lm_head():
    assert kvcalc.count_params({"model_type": "llama", "architectures": ["LlamaForCausalLM"]}).total == LLAMA_7B


def test_score_head_of_an_uncounted_family_is_refused():
    with pytest.raises(UnsupportedError, match="classification head"):
        kvcalc.count_params({"model_type": "opt", "architectures": ["OPTForSequenceClassification"]})
