"""Every source a reader is shown can be followed: no bare index id stands in for a repository or URL.

An "opaque id" is a bare number of 7+ digits introduced as an id or a copy ("ids 3846184127",
"stored copy 46254032847"): it names a stored copy that no reader can open. Where one appears it
must (1) say plainly that it is an unnamed public copy ("public copy" / "public copies"), (2) not
name the internal tool that found it, and (3) say how it was checked: in data/gpus.csv the same
clause quotes the figure the row gives (memory MiB, bandwidth or bf16 TFLOPS); in
data/configs/SOURCES.md the row's source column names a repository path, a commit or a URL.
"""
from __future__ import annotations

import csv
import os
import re

import pytest
from paths import ROOT

GPUS = os.path.join(ROOT, "data", "gpus.csv")
SOURCES = os.path.join(ROOT, "data", "configs", "SOURCES.md")

OPAQUE = re.compile(r"\b(?:ids?|cop(?:y|ies))[,:]?\s+((?:\d{7,}(?:,\s*)?)+)", re.IGNORECASE)
TOOL_WORDS = ("find_string", "code-index", "code index", "read_file id")
LOCATABLE = re.compile(r"github\.com/|https?://|GitHub `[\w.-]+/[\w.-]+`|\b(?:AIC|KQI|TTM|HFPAGE)\b|[0-9a-f]{40}")


def opaque_problems(text: str, figures: tuple[str, ...] | None = None) -> list[str]:
    """What is wrong with the opaque ids in one source cell ([] when none, or all are explained).

    ``figures``: the row's own numbers; when given, the clause (up to ';') holding an id must quote one."""
    problems = []
    for m in OPAQUE.finditer(text):
        ids = m.group(1).rstrip(", ")
        before = text[max(0, m.start() - 80):m.end()].lower()
        if "public cop" not in before:
            problems.append(f"id {ids} is not called an unnamed public copy")
        if any(w in text.lower() for w in TOOL_WORDS):
            problems.append(f"id {ids} is described by the internal tool that found it")
        if figures is not None:
            start = text.rfind(";", 0, m.start()) + 1
            end = text.find(";", m.end())
            clause = text[start:end if end >= 0 else len(text)]
            if not any(f and f in clause for f in figures):
                problems.append(f"id {ids}: its clause quotes none of the row's figures {figures}")
    return problems


def test_the_rule_catches_what_it_should():
    bare = "MiB: public GitHub file(s) found via code-index find_string, ids 3846184127 (total_memory=16160MB)"
    assert any("internal tool" in p for p in opaque_problems(bare, ("16160",)))
    assert opaque_problems("MiB: stored copy 3846184127", ("16160",))   # not called a public copy, no figure
    ok = "MiB: public GitHub file(s) found as stored public copies, ids 3846184127 (total_memory=16160MB)"
    assert opaque_problems(ok, ("16160",)) == []
    assert opaque_problems(ok, ("99999",))                             # the copy does not show the row's figure
    # hashes, byte counts and commits are not ids
    assert opaque_problems("NVML total 24146608128 B; blob 34f90120 @ 3f44fd30a43d2619146f7bc0aa66c90aa54d78e6") == []


def _gpu_rows() -> list[dict[str, str]]:
    with open(GPUS, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("row", _gpu_rows(), ids=lambda r: r["key"])
def test_gpu_sources_name_no_bare_index_id(row):
    figures = tuple(row[c].strip() for c in ("memory_mib", "bandwidth_gbps", "bf16_tflops_dense"))
    assert opaque_problems(row["source"], figures) == []


def _sources_rows() -> list[list[str]]:
    with open(SOURCES, encoding="utf-8") as f:
        lines = [line for line in f if line.startswith("| ") and not line.startswith("| file |")]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]


@pytest.mark.parametrize("cells", _sources_rows(), ids=lambda c: c[0])
def test_config_sources_name_no_bare_index_id(cells):
    row = " | ".join(cells)
    assert opaque_problems(row) == []
    if OPAQUE.search(row):     # an unnamed copy only corroborates: the row's source column is locatable
        assert LOCATABLE.search(cells[2]), cells[2]


def test_param_sources_name_no_bare_index_id():
    with open(os.path.join(ROOT, "data", "params.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        assert opaque_problems(row["source"], (row["total_params"], f"{int(row['total_params']):,}")) == [], row
