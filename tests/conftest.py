"""Shared test setup: one tier per test module (pytest.ini lists the tiers) and the shared fixtures."""
from __future__ import annotations

import os

import pytest
from fake_hub import fake_hub  # noqa: F401  (the local fake Hub fixture, for every test module)

TIERS: dict[str, str] = {
    # fast: the kvcalc tier, `python -m pytest -m fast`
    "test_kv_examples": "fast", "test_capacity": "fast", "test_vllm": "fast", "test_cli": "fast",
    "test_sweep": "fast", "test_gpus": "fast", "test_catalog": "fast", "test_weights": "fast",
    "test_variants": "fast", "test_vllm_command": "fast", "test_layer_table": "fast", "test_imports": "fast",
    "test_model_types": "fast", "test_provenance": "fast", "test_coverage_fixture": "fast",
    "test_vllm_oracle_fixture": "fast", "test_vllm_oracle": "fast",
    "test_verdict": "fast",
    "test_params_moe": "fast",
    "test_params_vis1": "fast",
    "test_speed": "fast", "test_speed_reference": "fast", "test_charts": "fast", "test_pickers": "fast",
    "test_gguf": "fast", "test_llama_cpp": "fast", "test_llama_cpp_runtime": "fast",
    "test_engine_logs": "fast", "test_sglang": "fast", "test_trtllm": "fast",
    "test_cli_io": "io",
    "test_groundtruth_transformers": "reference", "test_params": "reference", "test_params_vision": "reference",
    "test_layer_rules_vs_transformers": "reference", "test_transformers_coverage": "reference",
    "test_hybrid_states": "reference",
    "test_params_seq2seq": "reference",
    "test_params_ink": "fast", "test_kv_ink": "fast",
    "test_kv_s2s": "fast", "test_params_s2s": "fast",
    "test_params_hyb": "fast",
    "test_properties": "property",
    "test_hub": "hub", "test_hub_security": "hub", "test_hub_gguf": "hub",
    "test_pages": "pages", "test_hardening": "pages", "test_planner_page": "pages", "test_app_smoke": "pages",
    "test_link_fuzz": "fuzz",
    "test_browser": "browser", "test_browser_layout": "browser", "test_browser_pages": "browser",
    "test_browser_verdict": "browser",
    "test_params_vis2": "fast",
    "test_engine_commands_roundtrip": "fast", "test_engine_pages": "pages", "test_browser_engines": "browser",
    "test_packaging": "packaging", "test_lint": "packaging",
    "test_kv_ora": "fast", "test_params_ora": "fast",
    "test_params_pb": "fast",
    "test_params_pc": "fast",
    "test_params_pa": "fast",
    "test_params_pd": "fast",
    "test_task_heads": "fast",
    "test_one_reader": "fast",
    "test_earned_labels": "fast",
    "test_golden_plans": "fast", "test_package_list": "fast", "test_cli_startup_log": "fast",
    "test_doctests": "fast",
    "test_engine_registry": "fast", "test_llama_cpp_speed": "fast",
    "test_gguf_bounds": "fast", "test_float_limits": "fast", "test_text_bidi": "fast", "test_shell_tail": "fast",
    "test_gpus_message": "fast", "test_gguf_pipe": "io", "test_hub_param_bounds": "hub",
    "test_gguf_fuzz": "property", "test_gguf_writer_files": "fast",
    "test_startup_log": "fast", "test_startup_log_calibration": "fast",
    "test_engine_registry": "fast", "test_llama_cpp_speed": "fast", "test_real_configs": "fast",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test with its module's tier; a module without one is an error, so none is missed."""
    missing = set()
    for item in items:
        module = os.path.splitext(os.path.basename(str(item.fspath)))[0]
        tier = TIERS.get(module)
        if tier is None:
            missing.add(module)
            continue
        item.add_marker(getattr(pytest.mark, tier))
    if missing:
        raise pytest.UsageError(f"tests/conftest.py TIERS has no tier for {', '.join(sorted(missing))}")
