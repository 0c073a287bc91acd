"""The head an ``architectures`` entry puts in place of the causal-LM head (sequence classification).

transformers builds ``<Name>ForSequenceClassification`` as the base model plus ``score = nn.Linear(H,
num_labels, bias=False)`` and no lm_head (modeling_gpt_neox.py GPTNeoXForSequenceClassification, modeling_gpt2.py,
modeling_bloom.py, modeling_falcon.py, modeling_mpt.py and GenericForSequenceClassification in
modeling_layers.py, 5.24). ``num_labels`` is ``len(id2label)`` when the file gives labels, else ``num_labels``,
else 2 (PreTrainedConfig).
"""
from __future__ import annotations

from ..config import ConfigReader
from ..errors import UnsupportedError
from .counts import Tally
from .model_type import ModelType

# counter families whose ForSequenceClassification class is the base model + score Linear(H, num_labels)
SCORE_HEAD_FAMILIES = frozenset({"llama_like", "gpt_neox", "gpt2", "bloom", "falcon"})
SEQ_CLS = "ForSequenceClassification"


def num_labels(top: ConfigReader) -> int:
    """``len(id2label)``, else ``num_labels``, else 2: the classes a score head has.

    >>> num_labels(ConfigReader({"id2label": {"0": "neg", "1": "neutral", "2": "pos"}}))
    3
    """
    labels = top.raw("id2label", default=None)
    if isinstance(labels, dict) and labels:
        return len(labels)
    return top.get_int("num_labels", default=2)


def sequence_classification(top: ConfigReader, fields: ConfigReader, entry: ModelType, t: Tally) -> None:
    """With a ``*ForSequenceClassification`` first architecture, the lm_head is replaced by the score head
    ``num_labels * H`` (nothing tied); other counted families' score heads differ and are refused."""
    archs = top.raw("architectures", default=None)
    if not (isinstance(archs, list) and archs and isinstance(archs[0], str) and archs[0].endswith(SEQ_CLS)):
        return
    if entry.params not in SCORE_HEAD_FAMILIES or top.has("text_config"):
        raise UnsupportedError(f"architectures {archs[0]}: kvcalc does not count this classification head")
    t.parts["lm_head"] = num_labels(top) * fields.get_int("hidden_size")
    t.tied = False
