"""Benchmarks: each row a ratio of two things timed in the same run (medians of repetitions).

    python benchmarks/run.py            # prints a table, writes benchmarks/results.json

1. sweep: every bundled model x every catalog GPU x 4 precisions x 8 batch sizes x 256 context
   points, by the vectorized path (kvcalc.sweep) vs a plain per-scenario loop over kv_cache;
   the loop is timed on a fixed sample of the same scenarios and compared per scenario; results
   must be identical on that sample.
2. config vs meta device: our parameter count + KV figure per bundled config vs building the
   model on the meta device with transformers and counting its parameters; counts must match.
   2b: the same per model type, for every type the coverage fixture counts exactly (class-default configs):
   the ratio of the totals, and the lowest ratio of one type (small class defaults build in milliseconds).
   2c: longest context: the longest context of every reference config on a T4, an RTX 4090 and an H100
   (kvcalc.plan, ideal runtime, batch 1) vs one KV figure of the same configs (kv_cache at 4,096 tokens):
   what solving for the length costs over one evaluation.
3. page rerun: median AppTest rerun of the Planner after a widget change vs an empty page.
4. widget change in a browser (headless Debian Chromium, benchmarks/browser.py): Enter in the Planner's
   Batch input to the new text of its "KV cache / GPU" metric, measured in the page, vs the same on an
   empty page (one number input, one metric echoing it), each page in its own browser context; median
   of 12 changes each after 2 warm-up changes, the two pages alternated.
4b. first visit (browser): a fresh browser context opening the Planner's URL on a running server to the same
   metric visible, vs the same for the empty page; median of 8 visits each after 1 warm-up visit (the
   server's first run imports the page's modules: the cold start row), the two pages alternated.
5. cold start: ``streamlit run`` spawned fresh to that metric visible in a fresh browser context, Planner
   vs the empty page; median of 3 starts each, alternated.
6. memory: peak RSS of ``import kvcalc``, and of the Planner's server after its first render (row 5).

Rows 4, 4b and 5 need /usr/bin/chromium and the playwright package (never ``playwright install``); without
them they are skipped with the reason. Their goals: a widget change and a cold start at most 2x the empty page
(issues 10 and 25), a first visit at most 1.5x (issue 25).
kvcalc is imported as installed (``pip install -e .``), else from this checkout.

Nothing here is asserted in the test suite; this script checks that compared results are equal
and exits non-zero if they are not, or if a browser row failed (its page or server broke).
"""
from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import TypeVar

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

try:
    import kvcalc
except ImportError:           # a plain checkout without ``pip install -e .``: use the checkout's package
    sys.path.insert(0, ROOT)
    import kvcalc
from kvcalc.catalog import bundled_config, catalog  # noqa: E402 - after the fallback above
from kvcalc.gpus import gpu_catalog  # noqa: E402 - after the fallback above
from kvcalc.sweep import compile_cache, kv_grid  # noqa: E402 - after the fallback above
from kvcalc.weights import weight_bytes  # noqa: E402 - after the fallback above

try:                          # python -m benchmarks.run from the repository root
    from benchmarks import browser
except ImportError:           # python benchmarks/run.py: this folder is sys.path[0]
    import browser  # type: ignore[no-redef, import-not-found]

PRECISIONS = ["bfloat16", "fp8_e4m3", "int8", "int4"]   # weights and KV cache
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128]
N_CONTEXTS = 256
LOOP_SAMPLE = 4000
REPS = 5
ONLY = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")]
"""``--only=NAME`` (repeatable): run those rows only (e.g. --only=config_vs_meta_types) and print them as JSON."""


def contexts() -> list[int]:
    pts = sorted({max(1, round(131_072 ** (i / (N_CONTEXTS - 1)))) for i in range(N_CONTEXTS)})
    k = 2
    while len(pts) < N_CONTEXTS:          # fill duplicates of the log spacing with linear points
        pts = sorted(set(pts) | {k * 1000})
        k += 1
    return pts[:N_CONTEXTS]


T = TypeVar("T")


def median_time(fn: Callable[[], T], reps: int = REPS) -> tuple[float, T]:
    times: list[float] = []
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


# --------------------------------------------------------------------------- 1. sweep
def bench_sweep() -> dict:
    import numpy as np

    specs = [(e.hub_id, kvcalc.read_spec(bundled_config(e.hub_id)), bundled_config(e.hub_id)) for e in catalog()]
    gpus = np.array([g.memory_bytes for g in gpu_catalog()], dtype=np.int64)
    ctx = contexts()
    weights = {(name, p): weight_bytes(cfg, p).total_bytes for name, _, cfg in specs for p in PRECISIONS}
    n = len(specs) * len(gpus) * len(PRECISIONS) * len(BATCHES) * len(ctx)

    def vectorized():
        fits = {}
        for name, spec, _ in specs:
            for p in PRECISIONS:
                kv = kv_grid(compile_cache(spec, dtype="bfloat16", kv_dtype=p), BATCHES, ctx)   # [batch, ctx]
                total = weights[(name, p)] + kv
                fits[(name, p)] = total[None, :, :] <= gpus[:, None, None]                     # [gpu, batch, ctx]
        return fits

    t_vec, fits = median_time(vectorized)
    # the loop: the same question per scenario through the public API, on a fixed sample
    step = max(1, n // LOOP_SAMPLE)
    sample = []
    idx = 0
    for name, spec, _ in specs:
        for gi, mem in enumerate(gpus):
            for p in PRECISIONS:
                for bi, b in enumerate(BATCHES):
                    for ci, t in enumerate(ctx):
                        if idx % step == 0:
                            sample.append((name, spec, gi, int(mem), p, bi, b, ci, t))
                        idx += 1

    def loop():
        return [weights[(name, p)] + kvcalc.kv_cache(spec, batch=b, context=t, dtype="bfloat16",
                                                      kv_dtype=p).total_bytes <= mem
                for name, spec, gi, mem, p, bi, b, ci, t in sample]

    t_loop, loop_fits = median_time(loop, reps=3)
    identical = all(bool(fits[(name, p)][gi, bi, ci]) == f
                    for (name, spec, gi, mem, p, bi, b, ci, t), f in zip(sample, loop_fits))
    vec_rate, loop_rate = n / t_vec, len(sample) / t_loop
    return {"scenarios": n, "loop_sample": len(sample), "vectorized_s": t_vec, "loop_s_sample": t_loop,
            "vectorized_scenarios_per_s": vec_rate, "loop_scenarios_per_s": loop_rate,
            "ratio": vec_rate / loop_rate, "goal": 50, "identical": identical}


# --------------------------------------------------------------------------- 2. config vs meta device
# --------------------------------------------------------------------------- 1b. speed sweep
def bench_speed() -> dict:
    """Decode tokens/s over the full context grid: kvcalc.speed.decode_rate_grid (vectorized) against
    estimate_speed point by point, every bundled model on an H100, all batches x contexts."""
    from kvcalc.speed import decode_rate_grid, estimate_speed

    deployments = [kvcalc.deploy(bundled_config(e.hub_id), gpu="h100-sxm", runtime="ideal") for e in catalog()]
    ctx = contexts()
    n = len(deployments) * len(BATCHES) * len(ctx)

    def vectorized():
        return [decode_rate_grid(d, BATCHES, ctx) for d in deployments]

    t_vec, grids = median_time(vectorized)
    step = max(1, n // LOOP_SAMPLE)
    sample = [(di, bi, ci) for di in range(len(deployments)) for bi in range(len(BATCHES)) for ci in range(len(ctx))
              ][::step]

    def loop():
        return [estimate_speed(deployments[di], BATCHES[bi], ctx[ci]).decode_tokens_per_s_per_sequence
                for di, bi, ci in sample]

    t_loop, rates = median_time(loop, reps=3)
    identical = all(abs(grids[di][bi, ci] - r) <= 1e-9 * r for (di, bi, ci), r in zip(sample, rates))
    vec_rate, loop_rate = n / t_vec, len(sample) / t_loop
    # what the estimate adds to a plan: one estimate against one plan of the same deployment and point
    pairs = [(d, 8, 8192) for d in deployments]
    t_plan, _ = median_time(lambda: [kvcalc.plan(d, batch=b, context=min(t, d.context_cap), solve_gpus=False)
                                     for d, b, t in pairs])
    t_est, _ = median_time(lambda: [estimate_speed(d, b, min(t, d.context_cap)) for d, b, t in pairs])
    return {"estimate_ms_per_plan": t_est / len(pairs) * 1e3, "plan_ms": t_plan / len(pairs) * 1e3,
            "estimate_vs_plan": t_est / t_plan, "points": n, "loop_sample": len(sample), "vectorized_s": t_vec,
            "loop_s_sample": t_loop,
            "vectorized_points_per_s": vec_rate, "loop_points_per_s": loop_rate, "ratio": vec_rate / loop_rate,
            "goal": 50, "identical": identical}


def _tests_module(name: str):
    """tests/NAME.py loaded by path (tests/ is not a package and is not put on sys.path)."""
    spec = importlib.util.spec_from_file_location(f"kvp_tests_{name}", os.path.join(ROOT, "tests", f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_meta() -> dict:
    ref = _tests_module("hf_reference")
    NotBuildable, meta_model = ref.NotBuildable, ref.meta_model

    configs = [bundled_config(e.hub_id) for e in catalog()]

    def ours():
        return [(kvcalc.count_params(c).total, kvcalc.kv_cache(c, batch=1, context=4096).bytes_per_token)
                for c in configs]

    t_ours, counts = median_time(ours)
    meta_model(configs[0])        # import transformers and torch outside the timing
    theirs: list[int | None] = []
    skipped: list[str] = []
    t = time.perf_counter()
    for c in configs:
        try:
            m = meta_model(c)
        except NotBuildable as e:
            skipped.append(str(e)[:80])
            theirs.append(None)
            continue
        theirs.append(sum(p.numel() for p in m.parameters()))
    t_meta = time.perf_counter() - t
    identical = all(h is None or h == o[0] for o, h in zip(counts, theirs))
    return {"configs": len(configs), "meta_built": sum(h is not None for h in theirs), "ours_s": t_ours,
            "meta_s": t_meta, "ratio": t_meta / t_ours, "goal": 100, "identical": identical, "skipped": skipped}


def bench_meta_types() -> dict:
    """Row 2b: row 2 over every model type the coverage fixture counts exactly (each type's class-default
    config, tests/fixtures/transformers_5_24_coverage.json), timed per type: the ratio of the totals (issue 12:
    >= 100x across every covered type), the lowest single type's, and the types under the goal."""
    ref = _tests_module("hf_reference")
    NotBuildable, meta_model = ref.NotBuildable, ref.meta_model
    with open(os.path.join(ROOT, "tests", "fixtures", "transformers_5_24_coverage.json"), encoding="utf-8") as f:
        types = json.load(f)["types"]
    meta_model(types["llama"]["default_config"])        # import transformers and torch outside the timing
    per_type: dict[str, dict] = {}
    skipped: list[str] = []
    identical = True
    for mt, rec in sorted(types.items()):
        cfg, expected = rec.get("default_config"), rec.get("default_params")
        if rec.get("status") != "measured" or cfg is None or expected is None:
            continue
        try:
            if kvcalc.count_params(cfg).total != expected:
                continue
        except kvcalc.KVCalcError:
            continue            # not counted exactly: not a covered type for this row

        def ours(c=cfg):
            total = kvcalc.count_params(c).total
            try:
                return total, kvcalc.read_spec(c).num_layers
            except kvcalc.KVCalcError:      # KV refused (the coverage table says why): the count alone
                return total, None

        ours()                              # warm-up: a first call may import or compile what later ones reuse
        t_ours, (count, _) = median_time(ours, reps=2 * REPS + 1)
        t = time.perf_counter()
        try:
            m = meta_model(cfg)
        except NotBuildable as e:
            skipped.append(f"{mt}: {str(e)[:80]}")
            continue
        theirs = sum(p.numel() for p in m.parameters())
        t_meta = time.perf_counter() - t
        identical = identical and theirs == count
        per_type[mt] = {"ours_s": t_ours, "meta_s": t_meta, "ratio": t_meta / t_ours}
    slowest = min(per_type, key=lambda k: per_type[k]["ratio"])
    ours_s, meta_s = sum(r["ours_s"] for r in per_type.values()), sum(r["meta_s"] for r in per_type.values())
    return {"types": len(per_type), "ours_s": ours_s, "meta_s": meta_s, "ratio": meta_s / ours_s,
            "min_ratio": per_type[slowest]["ratio"], "min_type": slowest,
            "min_type_meta_ms": per_type[slowest]["meta_s"] * 1000,
            "under_goal": sorted(k for k, r in per_type.items() if r["ratio"] < 100),
            "max_ours_ms": max(r["ours_s"] for r in per_type.values()) * 1000,
            "goal": 100, "identical": identical, "skipped": skipped, "per_type": per_type}


def bench_longest_context() -> dict:
    """Row 2c: the longest-context plan per (reference config, GPU class) against one kv_cache call of the same
    config, medians of REPS runs over all pairs (the plan solves for the length: it should cost a few KV
    evaluations, not one per context)."""
    from kvcalc.capacity import plan

    data = _tests_module("paths")          # tests/paths.py: the tests' one config loader
    configs = [data.load_json(path) for path in data.reference_configs()]
    pairs = []
    for cfg in configs:
        for gpu in ("t4", "rtx-4090", "h100-sxm"):
            try:
                plan(cfg, gpu=gpu, runtime="ideal", batch=1, solve_gpus=False)
            except kvcalc.UnsupportedError:
                continue
            pairs.append((cfg, gpu))

    t_plan, lengths = median_time(lambda: [plan(c, gpu=g, runtime="ideal", batch=1, solve_gpus=False).max_context
                                           for c, g in pairs])
    t_kv, _ = median_time(lambda: [kvcalc.kv_cache(c, batch=1, context=4096).total_bytes for c, _g in pairs])
    return {"configs": len(configs), "pairs": len(pairs), "plan_s": t_plan, "kv_s": t_kv, "ratio": t_plan / t_kv,
            "plan_ms_per_pair": t_plan / len(pairs) * 1e3, "goal": 10,
            "answered": all(n is None or n >= 1 for n in lengths)}


# --------------------------------------------------------------------------- 3. page rerun
def bench_page() -> dict:
    from streamlit.testing.v1 import AppTest

    def reruns(at, change) -> float:
        at.run()
        times = []
        for i in range(7):
            change(at, i)
            t = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - t)
        assert not at.exception, at.exception
        return statistics.median(times)

    planner = AppTest.from_file(os.path.join(ROOT, "app.py"), default_timeout=120)
    t_planner = reruns(planner, lambda at, i: at.number_input(key="batch").set_value(1 + i % 4))
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write("import streamlit as st; st.number_input('x', key='x')\n")
    empty = AppTest.from_file(f.name, default_timeout=60)
    t_empty = reruns(empty, lambda at, i: at.number_input(key="x").set_value(i))
    os.unlink(f.name)
    return {"planner_rerun_s": t_planner, "empty_rerun_s": t_empty, "ratio": t_planner / t_empty, "goal": 3}


# --------------------------------------------------------------------------- 4 + 5. the page in a browser
HEADLINE = "KV cache / GPU"   # the Planner's headline metric that a batch change updates (dashboard/planner.py)
BATCH_INPUT = "Batch"         # the Planner's batch number input (dashboard/inputs.py, workload_inputs)
BROWSER_GOAL = 2              # the Planner at most 2x the empty one-widget page (issue 10)
WARMUP_CHANGES = 2
CHANGES = 12
COLD_STARTS = 3
FIRST_VISITS = 8
FIRST_VISIT_GOAL = 1.5         # a fresh visit to a running server at most 1.5x the empty page (issue 25)


def _ratio_row(planner: list[float], empty: list[float], goal: float, load: float) -> dict:
    """Medians (seconds), their ratio against the goal, the samples, and the 1-minute load average before
    the row (other work on the machine shows up here first)."""
    p, e = statistics.median(planner), statistics.median(empty)
    return {"planner_s": p, "empty_s": e, "ratio": p / e, "goal": goal, "met": p / e <= goal,
            "planner_samples_s": planner, "empty_samples_s": empty, "loadavg_1min_before": load}


def bench_browser_change(folder: str) -> dict:
    """Widget change to updated headline, in the browser: the Planner vs the empty page, changes alternated."""
    from playwright.sync_api import sync_playwright

    empty_script = browser.write_empty_page(folder, BATCH_INPUT, HEADLINE)
    load = os.getloadavg()[0]
    with sync_playwright() as pw, browser.StreamlitServer("app.py", ROOT) as planner_srv, \
            browser.StreamlitServer(empty_script, folder) as empty_srv:
        b = browser.launch(pw)
        try:
            planner, empty = b.new_context().new_page(), b.new_context().new_page()   # no shared cache/storage
            browser.open_page(planner, planner_srv.url + "/", HEADLINE)
            browser.open_page(empty, empty_srv.url + "/", HEADLINE)
            times: dict[str, list[float]] = {"planner": [], "empty": []}
            for i in range(WARMUP_CHANGES + CHANGES):
                value = 2 + i % 8                                      # batch 2..9, never the value before
                for name, page in (("planner", planner), ("empty", empty)):
                    dt = browser.time_change(page, BATCH_INPUT, HEADLINE, value)
                    if i >= WARMUP_CHANGES:
                        times[name].append(dt)
        finally:
            b.close()
    return _ratio_row(times["planner"], times["empty"], BROWSER_GOAL, load) | {"changes": CHANGES,
                                                                       "warmup_changes": WARMUP_CHANGES}


def bench_first_visit(folder: str) -> dict:
    """A fresh browser context opening the page of a running server to the headline visible: Planner vs empty
    page, visits alternated, one warm-up visit each first."""
    from playwright.sync_api import sync_playwright

    empty_script = browser.write_empty_page(folder, BATCH_INPUT, HEADLINE)
    load = os.getloadavg()[0]
    times: dict[str, list[float]] = {"planner": [], "empty": []}
    with sync_playwright() as pw, browser.StreamlitServer("app.py", ROOT) as planner_srv, \
            browser.StreamlitServer(empty_script, folder) as empty_srv:
        b = browser.launch(pw)
        try:
            for i in range(1 + FIRST_VISITS):
                for name, srv in (("planner", planner_srv), ("empty", empty_srv)):
                    dt = browser.time_first_visit(b, srv.url + "/", HEADLINE)
                    if i:
                        times[name].append(dt)
        finally:
            b.close()
    return _ratio_row(times["planner"], times["empty"], FIRST_VISIT_GOAL, load) | {"visits": FIRST_VISITS,
                                                                                  "warmup_visits": 1}


def bench_cold_start(folder: str) -> dict:
    """Fresh ``streamlit run`` to the headline visible in a fresh browser context: Planner vs empty page,
    starts alternated; also the Planner server's peak RSS after its first render."""
    from playwright.sync_api import sync_playwright

    empty_script = browser.write_empty_page(folder, BATCH_INPUT, HEADLINE)
    times: dict[str, list[float]] = {"planner": [], "empty": []}
    rss: list[int] = []
    load = os.getloadavg()[0]
    with sync_playwright() as pw:
        b = browser.launch(pw)
        try:
            for _ in range(COLD_STARTS):
                t, kib = browser.time_cold_start(b, "app.py", ROOT, "/", HEADLINE)
                times["planner"].append(t)
                rss.append(kib)
                times["empty"].append(browser.time_cold_start(b, empty_script, folder, "/", HEADLINE)[0])
        finally:
            b.close()
    return _ratio_row(times["planner"], times["empty"], BROWSER_GOAL, load) | {
        "starts": COLD_STARTS, "planner_server_peak_rss_mib": statistics.median(rss) / 1024}


# --------------------------------------------------------------------------- 6. memory
def bench_memory() -> dict:
    """Peak RSS of ``import kvcalc`` vs Python alone (the server's comes from the cold-start row)."""
    code = ("import kvcalc\nfor l in open('/proc/self/status'):\n    "
            "l.startswith('VmHWM:') and print(l.split()[1])")
    import_kib = int(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                    check=True).stdout.strip())
    baseline = int(subprocess.run([sys.executable, "-c", code.replace("import kvcalc", "import sys")], cwd=ROOT,
                                  capture_output=True, text=True, check=True).stdout.strip())
    return {"import_kvcalc_peak_rss_mib": import_kib / 1024, "python_alone_peak_rss_mib": baseline / 1024}


def _in_browser(bench: Callable[[str], dict], folder: str) -> dict:
    """Run a browser row: {"skipped": why} without Chromium or playwright, {"failed": what} if the page or
    server broke (a headline that never appears or never changes), else the row."""
    reason = browser.unavailable()
    if reason:
        return {"skipped": reason}
    try:
        return bench(folder)
    except Exception as e:  # noqa: BLE001 - playwright's errors, RuntimeError from the server helper
        return {"failed": f"{type(e).__name__}: {e}"[:3000]}


def _browser_row(title: str, r: dict, what: str) -> tuple[str, str, str, str]:
    if "skipped" in r or "failed" in r:
        status = "skipped" if "skipped" in r else "failed"
        return (title, status, "-", r[status].splitlines()[0])
    return (title, f"{r['ratio']:.2f}x", f"<= {r['goal']}x",
            f"median {r['planner_s'] * 1000:,.0f} ms vs {r['empty_s'] * 1000:,.0f} ms ({what}); "
            f"goal {'met' if r['met'] else 'not met'}; load average {r['loadavg_1min_before']:.1f} before")


def main() -> int:
    start = time.perf_counter()
    results: dict = {"cores": os.cpu_count(), "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory(prefix="kvp-bench-") as folder:
        for name, fn in (("sweep", bench_sweep), ("speed_sweep", bench_speed), ("config_vs_meta", bench_meta),
                         ("config_vs_meta_types", bench_meta_types), ("longest_context", bench_longest_context),
                         ("page_rerun", bench_page),
                         ("browser_change", lambda: _in_browser(bench_browser_change, folder)),
                         ("first_visit", lambda: _in_browser(bench_first_visit, folder)),
                         ("cold_start", lambda: _in_browser(bench_cold_start, folder)), ("memory", bench_memory)):
            if ONLY and name not in ONLY:
                continue
            t = time.perf_counter()
            results[name] = fn()
            results[name]["bench_s"] = time.perf_counter() - t
    results["total_s"] = time.perf_counter() - start
    if ONLY:                  # a subset of rows (--only): print them as JSON, leave results.json alone
        print(json.dumps({k: v for k, v in results.items() if k != "config_vs_meta_types"} | {
            "config_vs_meta_types": {k: v for k, v in results.get("config_vs_meta_types", {}).items()
                                     if k != "per_type"}}, indent=1, default=str))
        return 0
    s, m, p, mem = results["sweep"], results["config_vs_meta"], results["page_rerun"], results["memory"]
    mt, lc = results["config_vs_meta_types"], results["longest_context"]
    sp = results["speed_sweep"]
    change, cold, visit = results["browser_change"], results["cold_start"], results["first_visit"]
    mem["server_peak_rss_mib"] = cold.get("planner_server_peak_rss_mib")
    rows = [
        ("Sweep: vectorized vs per-scenario loop", f"{s['ratio']:,.0f}x", f">= {s['goal']}x",
         f"{s['scenarios']:,} scenarios; {s['vectorized_scenarios_per_s']:,.0f}/s vs "
         f"{s['loop_scenarios_per_s']:,.0f}/s; identical: {s['identical']}"),
        ("Decode tokens/s grid: vectorized vs per-point estimate", f"{sp['ratio']:,.0f}x", f">= {sp['goal']}x",
         f"{sp['points']:,} (model, batch, context) points on an H100; {sp['vectorized_points_per_s']:,.0f}/s vs "
         f"{sp['loop_points_per_s']:,.0f}/s; identical: {sp['identical']}"),
        ("Speed estimate added to a plan", f"{sp['estimate_vs_plan']:.2f}x", "< 1 ms",
         f"estimate {sp['estimate_ms_per_plan']:.3f} ms vs plan {sp['plan_ms']:.3f} ms per deployment (median)"),
        ("Config arithmetic vs meta-device build", f"{m['ratio']:,.0f}x", f">= {m['goal']}x",
         f"{m['configs']} configs ({m['meta_built']} built): {m['ours_s'] * 1000:.1f} ms vs {m['meta_s']:.2f} s;"
         f" identical: {m['identical']}"),
        ("Config arithmetic vs meta-device build, every covered type", f"{mt['ratio']:,.0f}x",
         f">= {mt['goal']}x", f"{mt['types']} types counted exactly (class-default configs): {mt['meta_s']:.1f} s vs "
         f"{mt['ours_s'] * 1000:.0f} ms; ours at most {mt['max_ours_ms']:.2f} ms per config; per type the lowest is "
         f"{mt['min_ratio']:,.0f}x ({mt['min_type']}: transformers builds its class default in "
         f"{mt['min_type_meta_ms']:.0f} ms), {len(mt['under_goal'])} types under {mt['goal']}x; "
         f"identical: {mt['identical']}"),
        ("Longest context per GPU class vs one KV figure", f"{lc['ratio']:.1f}x", f"<= {lc['goal']}x",
         f"{lc['pairs']} (config, GPU) pairs of {lc['configs']} reference configs: {lc['plan_ms_per_pair']:.2f} ms "
         f"per plan; every pair answered: {lc['answered']}"),
        ("Planner rerun vs empty page", f"{p['ratio']:.2f}x", f"<= {p['goal']}x",
         f"median {p['planner_rerun_s'] * 1000:.0f} ms vs {p['empty_rerun_s'] * 1000:.0f} ms"),
        _browser_row("Planner widget change vs empty page (browser)", change,
                     f"Enter in Batch to new '{HEADLINE}' text, {CHANGES} changes, headless Chromium"),
        _browser_row("First visit to the headline vs empty page (browser)", visit,
                     f"fresh browser context to '{HEADLINE}' visible on a running server, {FIRST_VISITS} visits"),
        _browser_row("Cold start to first headline vs empty page", cold,
                     f"streamlit run to '{HEADLINE}' visible, {COLD_STARTS} starts"),
        ("Peak RSS", "-", "-", f"import kvcalc {mem['import_kvcalc_peak_rss_mib']:.0f} MiB (python alone "
         f"{mem['python_alone_peak_rss_mib']:.0f}); Streamlit server with the Planner "
         + (f"{mem['server_peak_rss_mib']:.0f} MiB" if mem["server_peak_rss_mib"] else "not measured (see above)")),
    ]
    print(f"| benchmark ({results['cores']} cores) | ratio | goal | detail |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    for title, r in (("browser widget-change row", change), ("first-visit row", visit), ("cold-start row", cold)):
        if "skipped" in r:
            print(f"skipped the {title}: {r['skipped']}")
        if "failed" in r:
            print(f"the {title} failed: {r['failed']}")
    print(f"\ntotal {results['total_s']:.1f} s")
    with open(os.path.join(ROOT, "benchmarks", "results.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2)
    broken = "failed" in change or "failed" in cold or "failed" in visit
    ok = s["identical"] and sp["identical"] and m["identical"] and mt["identical"] and lc["answered"]
    return 0 if ok and not broken else 1


if __name__ == "__main__":
    sys.exit(main())
