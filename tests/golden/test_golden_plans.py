"""Every scenario of the golden file gives the same ``plan --json`` / ``kv --json`` output (or the same
error) as when it was recorded: the guard under which kvcalc is refactored (tests/golden/record_plans.py)."""
from __future__ import annotations

import gzip
import json
from collections import defaultdict

import pytest
from record_plans import GOLDEN, run

with gzip.open(GOLDEN, "rt", encoding="utf-8") as _f:
    _RECORDED: list[dict[str, object]] = json.load(_f)
_BY_MODEL: dict[str, list[dict[str, object]]] = defaultdict(list)
for _r in _RECORDED:
    _BY_MODEL[str(_r["argv"][1])].append(_r)  # type: ignore[index]


def test_golden_file_is_large_enough() -> None:
    assert len(_RECORDED) >= 500
    assert sum(1 for r in _RECORDED if r["rc"] == 0) >= 500


@pytest.mark.parametrize("model", sorted(_BY_MODEL))
def test_plans_unchanged(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for recorded in _BY_MODEL[model]:
        now = run(list(recorded["argv"]))  # type: ignore[call-overload]
        assert now == recorded, " ".join(recorded["argv"])  # type: ignore[arg-type]

