"""A runtime registered at run time (kvcalc.engines.register) reaches the Planner's runtimes table with no
dashboard change: the table asks the registry for its rows and each engine for its label and plan.

The toy engine's rule (hand arithmetic): the KV pool is ``0.5 x GPU memory - weights``, in pages of 16
tokens. Llama-3.1-8B: 8,030,261,248 bf16 parameters = 16,060,522,496 B of weights; K + V per token
32 layers x 8 KV heads x 128 x 2 x 2 B = 131,072 B. H100 SXM: 81,559 MiB (data/gpus.csv).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from apptest import PLANNER, run_page

from kvcalc.engine import EngineMemoryPlan, stage_cell_bytes
from kvcalc.engines import Option, register, unregister
from kvcalc.engines.paged import PagedEngine
from kvcalc.parallel import stage_specs

pytest.importorskip("streamlit.testing.v1")
H100 = 81_559 * 2**20
WEIGHTS, CELL = 8_030_261_248 * 2, 131_072


@dataclass(frozen=True)
class HalfOptions:
    page_size: int = 16


class HalfEngine(PagedEngine):
    """Keeps half the GPU for weights + KV, in pages of ``page_size`` tokens."""

    name = "half_gpu"
    label = "Half-GPU"
    version = "1.0"
    options_type = HalfOptions
    declarations = (Option("page_size", ("--page",), "int", "tokens per page", "tokens", 1, 1024, 16),)

    def memory_plan(self, d: Any) -> EngineMemoryPlan:
        budget = d.gpu.memory_bytes // 2
        cell = max(stage_cell_bytes(stage_specs(d.rank, d.pp), d.kv))
        available = budget - d.weights_rank
        pool = max(available, 0) // cell // d.options.page_size * d.options.page_size
        return EngineMemoryPlan(engine=self.name, version=self.version, total_gpu_bytes=d.gpu.memory_bytes,
                                budget_bytes=budget, weights_bytes=d.weights_rank, overhead_bytes=0,
                                available_kv_bytes=available, cell_bytes=cell, page_size=d.options.page_size,
                                pool_tokens=pool, pool_bytes=pool * cell, max_context=d.context_cap,
                                max_running=64)


@pytest.fixture
def half_gpu():
    engine = register(HalfEngine())
    yield engine
    unregister("half_gpu")


def test_a_registered_engine_gets_its_row_in_the_runtimes_table(half_gpu):
    at = run_page(PLANNER, model="meta-llama/Llama-3.1-8B", gpu="h100-sxm", batch="1", ctx="8192")
    table = next(t.value for t in at.dataframe if "binding constraint or refusal" in t.value.columns)
    row = table.set_index("runtime").loc["Half-GPU"]
    pool = (H100 // 2 - WEIGHTS) // CELL // 16 * 16
    assert row["KV pool (tokens)"] == f"{pool:,}"
    assert row["fits 1 x 8,192"] == "yes"
    assert row["longest context @ batch 1"] == 131_072          # the pool holds more than the model's maximum
