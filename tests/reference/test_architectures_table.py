"""data/architectures.csv is what tests/oracles/architectures_table.py writes from the installed transformers
(each model class's config_class.model_type): the table kvcalc reads for a config without model_type."""
from __future__ import annotations

import importlib.util
import os

from paths import ROOT


def test_architectures_table_is_current():
    spec = importlib.util.spec_from_file_location(
        "architectures_table", os.path.join(ROOT, "tests", "oracles", "architectures_table.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0
