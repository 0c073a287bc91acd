"""data/architectures.csv from transformers 5.24: each model class name a config's ``architectures`` can give,
and the ``model_type`` of that class's ``config_class``.

A config.json without ``model_type`` still loads when the model class is named: ``LlamaForCausalLM.from_pretrained``
reads the file with ``LlamaForCausalLM.config_class`` (LlamaConfig, model_type ``llama``), which is how the real-
config oracle loads such a file (tests/oracles/real_config_oracle.py, ``load_config``). kvcalc reads the table
(kvcalc.models.architecture_names) and never imports transformers. Rows: every class of the text-generation,
multimodal, seq2seq, speech-seq2seq, sequence-classification, pretraining and base-model mappings of
``transformers.models.auto.modeling_auto`` (``*_MAPPING_NAMES``), each class once, in that order.

    python tests/oracles/architectures_table.py          # rewrite data/architectures.csv (about a minute)
    python tests/oracles/architectures_table.py --check  # exit 1 when it is out of date
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TABLE = os.path.join(ROOT, "data", "architectures.csv")
MAPPINGS = ("MODEL_FOR_CAUSAL_LM_MAPPING_NAMES", "MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES",
            "MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES", "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
            "MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES", "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES",
            "MODEL_FOR_PRETRAINING_MAPPING_NAMES", "MODEL_MAPPING_NAMES")


def rows() -> list[tuple[str, str, str]]:
    """(architecture class, its config class's model_type, the mapping it was found in)."""
    import transformers
    import transformers.models.auto.modeling_auto as auto

    out: dict[str, tuple[str, str]] = {}
    for mapping in MAPPINGS:
        for names in getattr(auto, mapping).values():
            for name in (names if isinstance(names, (tuple, list)) else (names,)):
                if name in out:
                    continue
                try:
                    model_type = getattr(transformers, name).config_class.model_type
                except (AttributeError, ImportError):   # an optional backend missing: not a text model here
                    continue
                if model_type:
                    out[name] = (model_type, mapping)
    return [(name, mt, mapping) for name, (mt, mapping) in out.items()]


def render() -> str:
    import transformers

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["architecture", "model_type", "mapping"])
    w.writerows(rows())
    return f"# transformers {transformers.__version__}: tests/oracles/architectures_table.py\n" + buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 when data/architectures.csv is out of date")
    args = p.parse_args(argv)
    text = render()
    if args.check:
        with open(TABLE, encoding="utf-8") as f:
            current = f.read() == text
        print("up to date" if current else "out of date: run python tests/oracles/architectures_table.py")
        return 0 if current else 1
    with open(TABLE, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
