"""Options declared once: every interface of an engine option is generated from its declaration
(kvcalc.engines.base.Option), so each declared URL key has exactly one URL row and one widget with the
engine's own bounds and default, and a toy engine's option reaches the URL schema and the CLI with no other
file changing.

Expected bounds come from the engines' own rules as kvcalc.*.options cite them: SGLang refuses
``--mem-fraction-static 1`` (server_args keeps a share for activations), TensorRT-LLM's ``tokens_per_block``
is a power of two, llama.cpp's ``-np`` is at most 256 (src/llama-cparams.h).
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from kvcalc.engines import Engine, Option, get_engine, names, register, unregister
from kvcalc.limits import MAX_CONTEXT

pytest.importorskip("streamlit")


def test_every_declared_url_key_is_one_url_row_with_the_declared_bounds():
    from dashboard import state
    from dashboard.option_params import COMPOSED

    rows = [p.key for p in state.PARAMS]
    declared = {o.url_key: o for n in names() for o in get_engine(n).declarations if o.url_key}
    for key, o in declared.items():
        assert rows.count(key) == 1, key
        if o.kind in COMPOSED:
            continue                            # vLLM's --speculative-config: the page composes it
        param = next(p for p in state.OPTION_PARAMS if p.key == key)
        assert param.dest == o.dest
        check = state.SCHEMA[key].check
        if param.widget == "number":
            lo, hi = param.bounds()
            assert check(str(hi)) is None and check(str(lo)) is None, key
            assert check(str(hi + 1)) is not None, key            # one past the engine's bound
        if param.widget == "select":
            assert param.default in param.choices, key
        else:
            text = str(param.default).lower() if isinstance(param.default, bool) else str(param.default)
            assert check(text) is None, key                      # the widget's default is a valid link value


@pytest.mark.parametrize("key, good, bad", [
    ("sg_mem", "0.995", "1"),              # below 1, not at most 0.99
    ("trt_tpb", "256", "48"),              # any power of two the kernels take
    ("ll_np", "256", "257"),
    ("mml", str(MAX_CONTEXT), str(MAX_CONTEXT + 1)),   # vLLM's own bound (kvcalc.limits), 0 = not set
])
def test_a_link_takes_what_the_engine_takes(key, good, bad):
    from dashboard import state

    assert state.SCHEMA[key].check(good) is None
    assert state.SCHEMA[key].check(bad) is not None


def test_the_paste_mapping_and_resets_come_from_the_declarations():
    from dashboard import engine_inputs, paste, state

    vllm = {o.dest: o.url_key for o in get_engine("vllm").declarations if o.url_key and o.kind != "json"}
    assert {k: v for k, v in state.VLLM_OPTIONS.items() if k in vllm} == vllm
    assert paste.PASTE_RESET["block"] == 16 and paste.PASTE_RESET["util"] == 0.9    # vLLM's defaults
    assert engine_inputs.ENGINE_RESET["sg_page"] == 1 and engine_inputs.ENGINE_RESET["trt_mbs"] == 2048
    assert engine_inputs.BY_KEY["ll_np"].flag == "-np" and engine_inputs.BY_KEY["sg_mem"].flag == \
        "--mem-fraction-static"


@dataclass(frozen=True)
class ToyOptions:
    slots: int = 4


class ToyEngine(Engine):
    name = "toy_options"
    label = "Toy"
    options_type = ToyOptions
    declarations = (Option("slots", ("--toy-slots",), "int", "slots run at once", "requests", 1, 512, 4, "toy_slots"),)


def test_a_toy_option_reaches_the_url_schema_and_the_cli_from_its_declaration_alone():
    from dashboard.option_params import option_params
    from kvcalc.cli import build_parser

    register(ToyEngine())
    try:
        rows = [p for p in option_params() if p.key == "toy_slots"]
        assert len(rows) == 1 and rows[0].runtimes == ("toy_options",)
        p = rows[0]
        assert (p.flag, p.widget, p.bounds(), p.default) == ("--toy-slots", "number", (1, 512), 4)
        check = p.param().check
        assert check("512") is None and check("513") is not None and check("0") is not None
        args = build_parser().parse_args(["plan", "cfg.json", "--runtime", "toy_options", "--toy-slots", "8"])
        assert args.slots == 8
    finally:
        unregister("toy_options")
