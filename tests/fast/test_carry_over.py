"""Carried-over inputs survive a rerun on a page that does not have them (Planner -> Compare -> GPU fit)."""
from dashboard import state


def test_a_page_without_the_model_keeps_the_carried_model():
    session: dict = {}
    planner = state.page_keys(state.PLANNER)
    compare = state.page_keys(state.COMPARE)
    gpu_fit = state.page_keys(state.GPU_FIT)
    assert "model" in planner and "model" not in compare and "model" in gpu_fit
    state.carry_over(session, {"model": "Qwen/Qwen3-0.6B"}, planner, arrived=False)      # on the Planner
    state.carry_over(session, {}, compare, arrived=True)                                 # arrive on Compare
    state.carry_over(session, {}, compare, arrived=False)                                # a rerun there
    query: dict = {}
    state.carry_over(session, query, gpu_fit, arrived=True)                              # on to GPU fit
    assert query["model"] == "Qwen/Qwen3-0.6B"


def test_the_page_that_has_the_key_still_forgets_a_removed_value():
    session: dict = {}
    planner = state.page_keys(state.PLANNER)
    state.carry_over(session, {"model": "Qwen/Qwen3-0.6B"}, planner, arrived=False)
    state.carry_over(session, {}, planner, arrived=False)        # the Planner removed it (back to the default)
    query: dict = {}
    state.carry_over(session, query, state.page_keys(state.GPU_FIT), arrived=True)
    assert "model" not in query
