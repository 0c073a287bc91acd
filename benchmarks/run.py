"""Benchmarks: each row a ratio of two things timed in the same run (medians of repetitions).

    python benchmarks/run.py            # prints a table, writes benchmarks/results.json

1. sweep: every bundled model x every catalog GPU x 4 precisions x 8 batch sizes x 256 context
   points, by the vectorized path (kvcalc.sweep) vs a plain per-scenario loop over kv_cache;
   the loop is timed on a fixed sample of the same scenarios and compared per scenario; results
   must be identical on that sample.
2. config vs meta device: our parameter count + KV figure per bundled config vs building the
   model on the meta device with transformers and counting its parameters; counts must match.
3. page rerun: median AppTest rerun of the Planner after a widget change vs an empty page.
4. memory: peak RSS of ``import kvcalc`` and of a Streamlit server serving the Planner.

Nothing here is asserted in the test suite; this script checks that compared results are equal
and exits non-zero if they are not.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import kvcalc  # noqa: E402
from kvcalc.catalog import bundled_config, catalog  # noqa: E402
from kvcalc.gpus import gpu_catalog  # noqa: E402
from kvcalc.sweep import compile_cache, kv_grid  # noqa: E402
from kvcalc.weights import weight_bytes  # noqa: E402

PRECISIONS = ["bfloat16", "fp8_e4m3", "int8", "int4"]   # weights and KV cache
BATCHES = [1, 2, 4, 8, 16, 32, 64, 128]
N_CONTEXTS = 256
LOOP_SAMPLE = 4000
REPS = 5


def contexts() -> list[int]:
    pts = sorted({max(1, round(131_072 ** (i / (N_CONTEXTS - 1)))) for i in range(N_CONTEXTS)})
    k = 2
    while len(pts) < N_CONTEXTS:          # fill duplicates of the log spacing with linear points
        pts = sorted(set(pts) | {k * 1000})
        k += 1
    return pts[:N_CONTEXTS]


def median_time(fn, reps: int = REPS) -> tuple[float, object]:
    times, out = [], None
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
def bench_meta() -> dict:
    from hf_reference import NotBuildable, meta_model

    configs = [bundled_config(e.hub_id) for e in catalog()]

    def ours():
        return [(kvcalc.count_params(c).total, kvcalc.kv_cache(c, batch=1, context=4096).bytes_per_token)
                for c in configs]

    t_ours, counts = median_time(ours)
    meta_model(configs[0])        # import transformers and torch outside the timing
    theirs, skipped = [], []
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


# --------------------------------------------------------------------------- 4. memory
def _peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def bench_memory() -> dict:
    code = ("import kvcalc\nfor l in open('/proc/self/status'):\n    "
            "l.startswith('VmHWM:') and print(l.split()[1])")
    import_kib = int(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                    check=True).stdout.strip())
    baseline = int(subprocess.run([sys.executable, "-c", code.replace("import kvcalc", "import sys")], cwd=ROOT,
                                  capture_output=True, text=True, check=True).stdout.strip())
    out = {"import_kvcalc_peak_rss_mib": import_kib / 1024, "python_alone_peak_rss_mib": baseline / 1024,
           "server_peak_rss_mib": None}
    chromium = "/usr/bin/chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return out | {"server_note": "playwright not installed"}
    if not os.path.exists(chromium):
        return out | {"server_note": "no /usr/bin/chromium"}
    import socket
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.address", "127.0.0.1", "--server.port", str(port),
                             "--browser.gatherUsageStats", "false"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        with sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
            browser = pw.chromium.launch_persistent_context(
                profile, executable_path=chromium, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                      "--disable-background-networking", "--disable-component-update", "--disable-sync"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded")
            page.wait_for_selector("[data-testid='stMetric']", timeout=60_000)
            page.wait_for_timeout(1000)
            browser.close()
        out["server_peak_rss_mib"] = _peak_rss_kib(proc.pid) / 1024
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return out


def main() -> int:
    start = time.perf_counter()
    results = {"cores": os.cpu_count(), "python": sys.version.split()[0]}
    for name, fn in (("sweep", bench_sweep), ("config_vs_meta", bench_meta), ("page_rerun", bench_page),
                     ("memory", bench_memory)):
        t = time.perf_counter()
        results[name] = fn()
        results[name]["bench_s"] = time.perf_counter() - t
    results["total_s"] = time.perf_counter() - start
    s, m, p, mem = results["sweep"], results["config_vs_meta"], results["page_rerun"], results["memory"]
    rows = [
        ("Sweep: vectorized vs per-scenario loop", f"{s['ratio']:,.0f}x", f">= {s['goal']}x",
         f"{s['scenarios']:,} scenarios; {s['vectorized_scenarios_per_s']:,.0f}/s vs {s['loop_scenarios_per_s']:,.0f}/s;"
         f" identical: {s['identical']}"),
        ("Config arithmetic vs meta-device build", f"{m['ratio']:,.0f}x", f">= {m['goal']}x",
         f"{m['configs']} configs ({m['meta_built']} built): {m['ours_s'] * 1000:.1f} ms vs {m['meta_s']:.2f} s;"
         f" identical: {m['identical']}"),
        ("Planner rerun vs empty page", f"{p['ratio']:.2f}x", f"<= {p['goal']}x",
         f"median {p['planner_rerun_s'] * 1000:.0f} ms vs {p['empty_rerun_s'] * 1000:.0f} ms"),
        ("Peak RSS", "-", "-", f"import kvcalc {mem['import_kvcalc_peak_rss_mib']:.0f} MiB (python alone "
         f"{mem['python_alone_peak_rss_mib']:.0f}); Streamlit server with the Planner "
         + (f"{mem['server_peak_rss_mib']:.0f} MiB" if mem["server_peak_rss_mib"] else mem.get("server_note", "n/a"))),
    ]
    print(f"| benchmark ({results['cores']} cores) | ratio | goal | detail |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\ntotal {results['total_s']:.1f} s")
    with open(os.path.join(ROOT, "benchmarks", "results.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2)
    return 0 if s["identical"] and m["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
