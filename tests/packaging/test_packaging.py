"""`pip install .` gives a working `kvcalc` command with its bundled data, away from the checkout.

Built offline (no build isolation, no index) from a copy of the package files, installed into a
temporary target, and run from a folder outside the checkout so only the installed copy can answer.
The figure asserted is hand arithmetic: Llama-3.1-8B, bf16, 8,192 tokens = 32 layers x 8 KV heads x
128 x (K + V) x 2 B x 8,192 = 1,073,741,824 bytes.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from paths import ROOT


def test_pip_install_gives_a_working_kvcalc_command(tmp_path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("kvcalc", "data"):
        shutil.copytree(os.path.join(ROOT, name), src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "--target", str(target), str(src)], check=True, capture_output=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(target), HF_HUB_OFFLINE="1")
    run = subprocess.run([str(target / "bin" / "kvcalc"), "kv", "meta-llama/Llama-3.1-8B", "--batch", "1",
                          "--context", "8192", "--offline", "--json"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["total_bytes"] == 1_073_741_824
    # the same command as `python -m kvcalc`, and the installed copy (not the checkout) answered
    where = subprocess.run([sys.executable, "-c", "import kvcalc, kvcalc.data_files as d; "
                            "print(kvcalc.__file__); print(d.data_dir())"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)
    module, data = where.stdout.split()
    assert module.startswith(str(target)) and data.startswith(str(target))
