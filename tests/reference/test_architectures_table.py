"""data/architectures.csv is what tests/oracles/architectures_table.py writes from the installed transformers
(each model class's config_class.model_type): the table kvcalc reads for a config without model_type."""
from __future__ import annotations

from paths import load_oracle


def test_architectures_table_is_current():
    assert load_oracle("architectures_table").main(["--check"]) == 0
