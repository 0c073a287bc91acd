"""Oracle: vLLM 0.33.0's own KV-cache planning code, run on CPU, written to a fixture.

Dev-only. vLLM is never a dependency of kvcalc or of the test suite; this script runs in its own
virtual environment outside the repository and writes ``tests/fixtures/vllm_0_33_oracle.json``::

    python -m venv /work/vllm-venv && /work/vllm-venv/bin/pip install vllm==0.33.0
    /work/vllm-venv/bin/python tests/oracles/vllm_oracle.py            # every case (a few minutes)
    /work/vllm-venv/bin/python tests/oracles/vllm_oracle.py --only llama  # cases whose name contains 'llama'
    /work/vllm-venv/bin/python tests/oracles/vllm_oracle.py --lora     # only tests/fixtures/vllm_0_33_lora.json

What runs, per case (every step is vLLM's code; nothing of kvcalc is imported):

1. ``EngineArgs(model=<temp dir holding only the config.json>, skip_tokenizer_init=True,
   load_format="dummy", kv_cache_memory_bytes=..., ...).create_engine_config(UsageContext.OPENAI_API_SERVER)``
   (``vllm/engine/arg_utils.py``): ModelConfig, the default / checked ``max_model_len``
   (``config/model.py::_get_and_verify_max_len``), the batch defaults, the speculative config.
2. The model is built on the ``meta`` device (no weights, no memory) with vLLM's own
   ``model_loader.utils.initialize_model`` inside ``set_current_vllm_config``; its attention / mamba
   layers register in the static forward context as on a GPU worker. Then, as
   ``UniProcExecutor._init_executor`` does after ``load_model``,
   ``current_platform.update_block_size_for_backend`` picks the block size (per attention backend, and
   the hybrid mamba alignment), and ``vllm/v1/worker/gpu/attn_utils.py::get_kv_cache_spec`` collects
   each layer's ``get_kv_cache_spec`` (the same loop as ``GPUModelRunner.get_kv_cache_spec``).
3. The engine core's ``_initialize_kv_caches`` (``vllm/v1/engine/core.py``) with the worker's
   ``determine_available_memory`` replaced by its ``kv_cache_memory_bytes`` branch
   (``gpu_worker.py``: ``reserve_mm_ipc_gpu_memory(kv_cache_memory_bytes, ...)``, no profiling):
   ``resolve_kv_cache_layout``, ``get_global_kv_cache_groups``, ``get_kv_cache_configs`` (null-block
   reservation, the max_model_len check and its error text, ``estimate_max_model_len``),
   ``generate_scheduler_kv_cache_config``, ``get_kv_cache_capacity`` (the "GPU KV cache size" and
   "Maximum concurrency" line of ``update_kv_cache_capacity``).

The platform: vLLM is installed with its CUDA build but this machine has no GPU, so the CUDA platform is
instantiated with the device queries answered for the case's GPU (``DEVICES``: an H100 80GB HBM3 unless
the case names another; compute capability and the nvidia-smi total); see ``FakeCudaPlatform``. Everything else of
``CudaPlatform`` (backend priorities, block sizes, hybrid alignment) runs unchanged. The complete list of
what differs from a GPU host (each explained where it is done):

* ``ensure_libcuda_stub``: a stub ``libcuda.so.1`` (every driver entry point returns "no device") so the
  CUDA extension modules load;
* ``install_fake_platform``: ``NonNvmlCudaPlatform`` with capability / name / total memory / device count
  answered, ``current_device()`` = meta; Triton's NVIDIA driver reported active but never created; the
  model-class inspection run in this process instead of a subprocess;
* ``VLLM_DISABLE_SHARED_EXPERTS_STREAM=1`` (no ``torch.cuda.Stream`` for MoE shared experts);
* one gloo process (``ensure_distributed``) and ``fake_tp``.

Tensor parallelism:
one process holds TP rank 0; the TP group's ``world_size`` is set to the case's size (``fake_tp``), so
every layer sizes itself exactly as rank 0 of that many ranks does (heads per rank, mamba shards).
Every TP rank of a stage has the same specs, so rank 0's list is repeated ``tp`` times for
``get_kv_cache_configs``, as the executor returns one list per worker.
"""
from __future__ import annotations

import argparse
import atexit
import contextlib
import datetime
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "data", "configs")
ORACLE_CONFIGS = os.path.join(ROOT, "tests", "oracles", "configs")
OUT = os.path.join(ROOT, "tests", "fixtures", "vllm_0_33_oracle.json")
LORA_OUT = os.path.join(ROOT, "tests", "fixtures", "vllm_0_33_lora.json")
GiB = 1 << 30

MiB = 1 << 20
# what the fake device reports: name, total memory (nvidia-smi MiB, ../shared/reference/gpus.csv), capability
DEVICES: dict[str, tuple[str, int, tuple[int, int]]] = {
    "h100": ("NVIDIA H100 80GB HBM3", 81559 * MiB, (9, 0)),
    "h200": ("NVIDIA H200", 143771 * MiB, (9, 0)),
}
# Not emulated: a B200 (sm100, the >= 160 GiB batch tier): its FlashInfer backend queries the device's SM
# count at layer construction. All devices here are sm90, so vLLM's cached backend choice stays valid
# from one case to the next.
_DEVICE = {"key": "h100"}  # the device of the case being run (set by run_case)

os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# MoE shared experts would otherwise create a torch.cuda.Stream at construction (a CUDA call); the
# switch only affects stream overlap, not the KV cache
os.environ.setdefault("VLLM_DISABLE_SHARED_EXPERTS_STREAM", "1")


def model_path(file_name: str) -> str:
    """A config file by name: data/configs first, then tests/oracles/configs."""
    for folder in (DATA, ORACLE_CONFIGS):
        path = os.path.join(folder, file_name)
        if os.path.exists(path):
            return path
    raise FileNotFoundError(file_name)


def rel(path: str) -> str:
    return os.path.relpath(path, ROOT)


@dataclass(frozen=True)
class Case:
    """One planning question: a model file and vLLM's flags (None = vLLM's default)."""

    name: str
    model_file: str
    kv_cache_memory: int
    max_model_len: int | None = None
    block_size: int | None = None
    tensor_parallel_size: int = 1
    kv_cache_dtype: str = "auto"
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    speculative_config: dict[str, Any] | None = None
    device: str = "h100"
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def inputs(self) -> dict[str, Any]:
        return {
            "model_file": rel(model_path(self.model_file)),
            "kv_cache_memory": self.kv_cache_memory,
            "max_model_len": self.max_model_len,
            "block_size": self.block_size,
            "tensor_parallel_size": self.tensor_parallel_size,
            "kv_cache_dtype": self.kv_cache_dtype,
            "max_num_batched_tokens": self.max_num_batched_tokens,
            "max_num_seqs": self.max_num_seqs,
            "speculative_config": self.speculative_config,
            "usage_context": "OPENAI_API_SERVER",
            "device": self.device,
            **self.extra,
        }


# ----------------------------------------------------------------------------- vLLM set-up
STUB_DIR = os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "libcuda-stub")


def ensure_libcuda_stub() -> None:
    """Let vLLM's CUDA extension modules load on a machine without an NVIDIA driver.

    vLLM's CUDA build links its extensions (``vllm/_C_stable_libtorch.abi3.so`` ...) against the
    driver library ``libcuda.so.1``, which only a GPU machine has. This builds, outside the repository
    (next to the venv), a stub ``libcuda.so.1`` whose every driver entry point (the ``cu*`` symbols the
    extensions import, listed with ``nm -D``) returns ``CUDA_ERROR_NO_DEVICE`` (100), and re-executes
    this script with it on ``LD_LIBRARY_PATH``. No kernel runs in the oracle; the extensions only
    need to load so that vLLM's attention-backend selection sees the same modules as on a GPU.
    """
    import ctypes
    import glob
    import subprocess

    try:
        ctypes.CDLL("libcuda.so.1")
        return
    except OSError:
        pass
    if os.environ.get("VLLM_ORACLE_STUB") == "1":
        raise SystemExit("libcuda.so.1 stub not loadable")
    import vllm

    names: set[str] = set()
    for lib in glob.glob(os.path.join(os.path.dirname(vllm.__file__), "**", "*.so"), recursive=True):
        run = subprocess.run(["nm", "-D", "--undefined-only", lib], capture_output=True, text=True)
        names.update(m.group(1) for m in re.finditer(r"\bU (cu[A-Z]\w*)", run.stdout))
    os.makedirs(STUB_DIR, exist_ok=True)
    source = os.path.join(STUB_DIR, "libcuda_stub.c")
    with open(source, "w") as f:
        f.write("/* generated by tests/oracles/vllm_oracle.py: every entry point returns CUDA_ERROR_NO_DEVICE */\n")
        for name in sorted(names):
            f.write(f"int {name}(void) {{ return 100; }}\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(STUB_DIR, "libcuda.so.1"), source], check=True)
    env = dict(os.environ, VLLM_ORACLE_STUB="1",
               LD_LIBRARY_PATH=STUB_DIR + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


def install_fake_platform() -> None:
    """Make vLLM's current_platform the CUDA platform, its device queries answered for ``_DEVICE``.

    Also reports Triton's NVIDIA driver active (it checks ``torch.cuda.is_available()``), as on a GPU
    host: vLLM then keeps Triton (``vllm/triton_utils/importing.py::HAS_TRITON``) and chooses the V2
    model runner (``VllmConfig.use_v2_model_runner``) as it does there. No Triton kernel is launched:
    creating Triton's active driver raises ``RuntimeError`` (code that probes the device through Triton,
    such as the flash-linear-attention utilities, then takes its CPU answer).
    """
    from triton.backends import backends

    backends["nvidia"].driver.is_active = staticmethod(lambda: True)
    import triton.runtime.driver  # noqa: F401  (the name is shadowed by the DriverConfig instance)

    triton_driver = sys.modules["triton.runtime.driver"]

    def no_device() -> Any:
        raise RuntimeError("no GPU: the vLLM oracle never launches a Triton kernel")

    triton_driver._create_driver = no_device  # a device query through Triton fails as on a CPU host
    import vllm.platforms as platforms
    from vllm.platforms.cuda import NonNvmlCudaPlatform
    from vllm.platforms.interface import DeviceCapability

    class FakeCudaPlatform(NonNvmlCudaPlatform):
        @classmethod
        def get_device_capability(cls, device_id: int = 0) -> DeviceCapability:
            return DeviceCapability(*DEVICES[_DEVICE["key"]][2])

        @classmethod
        def get_device_name(cls, device_id: int = 0) -> str:
            return DEVICES[_DEVICE["key"]][0]

        @classmethod
        def get_device_total_memory(cls, device_id: int = 0) -> int:
            return DEVICES[_DEVICE["key"]][1]

        @classmethod
        def is_fully_connected(cls, physical_device_ids: list[int]) -> bool:
            return True

        @classmethod
        def device_count(cls) -> int:
            return 8

        def current_device(self) -> Any:  # torch.cuda.current_device(): layers built with it stay on meta
            import torch

            return torch.device("meta")

    platforms._current_platform = FakeCudaPlatform()
    # vLLM inspects a model class in a fresh subprocess "to avoid initializing CUDA"
    # (registry.py::_run_in_subprocess); that process would not have this fake device, and there is
    # no CUDA to initialize here, so the inspection runs in this process.
    from vllm.model_executor.models import registry

    registry._run_in_subprocess = lambda fn: fn()


_DIST_READY = False


def ensure_distributed() -> None:
    """One-process gloo world (rank 0 of 1) and vLLM's model-parallel groups, once."""
    global _DIST_READY
    if _DIST_READY:
        return
    from vllm.config import VllmConfig, set_current_vllm_config
    from vllm.distributed import parallel_state as ps

    init_file = tempfile.NamedTemporaryFile(prefix="vllm_oracle_dist_", delete=False)
    init_file.close()
    os.unlink(init_file.name)
    atexit.register(lambda: os.path.exists(init_file.name) and os.unlink(init_file.name))
    ps.init_distributed_environment(world_size=1, rank=0, local_rank=0,
                                    distributed_init_method=f"file://{init_file.name}", backend="gloo")
    # a VllmConfig without a model: initialize_model_parallel then also creates the expert-parallel group
    with set_current_vllm_config(VllmConfig()):
        ps.initialize_model_parallel(1, 1, backend="gloo")
    _DIST_READY = True


@contextlib.contextmanager
def fake_tp(tp: int):
    """Rank 0 of a TP group of ``tp`` ranks: the TP group coordinator reports ``world_size = tp``.

    ``get_tensor_model_parallel_world_size()`` reads ``get_tp_group().world_size``; layers size
    themselves from it at construction (no collective runs on the meta device).
    """
    from vllm.distributed import parallel_state as ps

    group = ps.get_tp_group()
    saved = group.world_size
    group.world_size = tp
    try:
        yield
    finally:
        group.world_size = saved


def engine_config(case: Case, folder: str) -> Any:
    """``EngineArgs(...).create_engine_config`` for the OpenAI server (``vllm serve``)."""
    from vllm.engine.arg_utils import EngineArgs
    from vllm.usage.usage_lib import UsageContext

    args = EngineArgs(
        model=folder, skip_tokenizer_init=True, load_format="dummy", tensor_parallel_size=case.tensor_parallel_size,
        max_model_len=case.max_model_len, block_size=case.block_size, kv_cache_dtype=case.kv_cache_dtype,
        max_num_batched_tokens=case.max_num_batched_tokens, max_num_seqs=case.max_num_seqs,
        kv_cache_memory_bytes=case.kv_cache_memory, speculative_config=case.speculative_config,
        distributed_executor_backend="uni" if case.tensor_parallel_size == 1 else "mp",
        **case.extra.get("engine_args", {}),
    )
    return args.create_engine_config(UsageContext.OPENAI_API_SERVER)


def build_specs(vllm_config: Any) -> tuple[dict[str, Any], list[str]]:
    """Layer name -> KVCacheSpec of TP rank 0, built as a GPU worker builds them (see the module docstring)."""
    import torch
    from vllm.config import set_current_vllm_config
    from vllm.model_executor.model_loader.utils import initialize_model
    from vllm.platforms import current_platform
    from vllm.utils.torch_utils import set_default_torch_dtype
    from vllm.v1.worker.gpu.attn_utils import get_kv_cache_spec

    with set_current_vllm_config(vllm_config), set_default_torch_dtype(vllm_config.model_config.dtype), \
            torch.device("meta"), fake_tp(vllm_config.parallel_config.tensor_parallel_size):
        initialize_model(vllm_config=vllm_config)
        spec_config = vllm_config.speculative_config
        if spec_config is not None and spec_config.draft_model_config is not None:
            # SpecDecodeBaseProposer.load_model: build the drafter, mark the attention layers it added as draft
            context = vllm_config.compilation_config.static_forward_context
            target_layers = set(context)
            initialize_model(vllm_config=vllm_config, model_config=spec_config.draft_model_config)
            for name in set(context) - target_layers:
                context[name].is_draft_layer = True
        current_platform.update_block_size_for_backend(vllm_config)
        specs = get_kv_cache_spec(vllm_config)
    backends = sorted({layer.get_attn_backend().get_name()
                       for layer in vllm_config.compilation_config.static_forward_context.values()
                       if hasattr(layer, "get_attn_backend")})
    return specs, backends


def spec_summary(spec: Any) -> dict[str, Any]:
    """The fields of one KVCacheSpec that size it (class name, block size, page bytes, window...)."""
    out: dict[str, Any] = {"spec": type(spec).__name__, "block_size": spec.block_size,
                           "page_size_bytes": spec.page_size_bytes}
    for name in ("num_kv_heads", "head_size", "head_size_v", "sliding_window", "attention_chunk_size",
                 "cache_dtype_str", "page_size_padded", "num_speculative_blocks", "mamba_type", "shapes"):
        value = getattr(spec, name, None)
        if value is not None:
            out[name] = value if isinstance(value, (int, str, float)) else str(value)
    dtype = getattr(spec, "dtype", None)
    if dtype is not None:
        out["dtype"] = str(dtype).replace("torch.", "")
    dtypes = getattr(spec, "dtypes", None)
    if dtypes is not None:
        out["dtypes"] = [str(d).replace("torch.", "") for d in dtypes]
    return out


def distinct_layer_specs(specs: dict[str, Any]) -> list[dict[str, Any]]:
    """Each distinct layer spec once, with how many layers carry it and the first layer name."""
    seen: dict[str, dict[str, Any]] = {}
    for name, spec in specs.items():
        summary = spec_summary(spec)
        key = json.dumps(summary, sort_keys=True)
        if key not in seen:
            seen[key] = {**summary, "layers": 0, "first_layer": name}
        seen[key]["layers"] += 1
    return list(seen.values())


def group_summary(vllm_config: Any, group: Any) -> dict[str, Any]:
    """One KV-cache group of the scheduler config: its spec class, layers, block and page size, blocks per request."""
    from vllm.utils.math_utils import cdiv

    spec = group.kv_cache_spec
    return {
        "spec": type(spec).__name__, "num_layers": len(group.layer_names),
        "layer_names": [group.layer_names[0], group.layer_names[-1]] if group.layer_names else [],
        "block_size": spec.block_size, "page_size_bytes": spec.page_size_bytes,
        "sliding_window": getattr(spec, "sliding_window", None),
        "max_memory_usage_bytes": spec.max_memory_usage_bytes(vllm_config),
        "blocks_per_request": cdiv(spec.max_memory_usage_bytes(vllm_config), spec.page_size_bytes),
    }


def plan(vllm_config: Any, specs: dict[str, Any], kv_cache_memory: int) -> dict[str, Any]:
    """``EngineCore._initialize_kv_caches`` with ``kv_cache_memory_bytes`` given (see the module docstring)."""
    from vllm.multimodal.gpu_ipc_memory import reserve_mm_ipc_gpu_memory
    from vllm.v1.attention.backends.utils import get_supported_kv_cache_layouts, resolve_kv_cache_layout
    from vllm.v1.core.kv_cache_planning import (
        _pool_bytes_per_block_from_builder,
        get_global_kv_cache_groups,
        get_kv_cache_configs,
    )
    from vllm.v1.core.kv_cache_utils import generate_scheduler_kv_cache_config, get_kv_cache_capacity
    from vllm.v1.core.single_type_kv_cache_manager import register_all_kvcache_specs

    tp = vllm_config.parallel_config.tensor_parallel_size
    register_all_kvcache_specs(vllm_config)
    workers = [dict(specs) for _ in range(tp)]
    backends = list({layer.get_attn_backend(): None
                     for layer in vllm_config.compilation_config.static_forward_context.values()
                     if hasattr(layer, "get_attn_backend")})
    layouts = [layout.name for layout in get_supported_kv_cache_layouts(backends)]
    layout = resolve_kv_cache_layout(vllm_config, [layouts] * tp, [s for w in workers for s in w.values()])
    vllm_config.cache_config.kv_cache_layout = layout.name
    groups = get_global_kv_cache_groups(vllm_config, workers)
    available = reserve_mm_ipc_gpu_memory(kv_cache_memory, vllm_config.model_config.multimodal_config, 1)
    out: dict[str, Any] = {"available_kv_cache_memory": available, "kv_cache_layout": layout.name}
    from vllm.v1.core.kv_cache_config_builder import get_kv_cache_config_builder

    out["bytes_per_block"] = _pool_bytes_per_block_from_builder(get_kv_cache_config_builder(vllm_config),
                                                                vllm_config, groups)
    configs = get_kv_cache_configs(vllm_config, workers, [available] * tp, groups)
    sched = generate_scheduler_kv_cache_config(configs)
    participating = [g.kv_cache_spec.block_size for g in sched.kv_cache_groups if g.kv_cache_spec.prefix_cacheable]
    vllm_config.cache_config.block_size = min(participating or [g.kv_cache_spec.block_size
                                                                for g in sched.kv_cache_groups])
    tokens, concurrency = get_kv_cache_capacity(vllm_config, sched)
    max_model_len = vllm_config.model_config.max_model_len
    out.update({
        "max_model_len": max_model_len,  # after get_kv_cache_configs: auto-fit (-1) may have lowered it
        "num_gpu_blocks": sched.num_blocks,
        "kv_cache_size_tokens": tokens,
        "max_concurrency": concurrency,
        "log_line": (f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {max_model_len:,} tokens "
                     f"per request: {concurrency:.2f}x"),
        "scheduler_block_size": vllm_config.cache_config.block_size,
        "kv_cache_groups": [group_summary(vllm_config, g) for g in sched.kv_cache_groups],
        "kv_cache_tensors": len(configs[0].kv_cache_tensors),
        "kv_cache_tensor_bytes": sum(t.size for t in configs[0].kv_cache_tensors),
    })
    return out


def resolved_settings(vllm_config: Any) -> dict[str, Any]:
    """What vLLM resolved from the flags (the defaults it chose)."""
    sc, cc, mc = vllm_config.scheduler_config, vllm_config.cache_config, vllm_config.model_config
    spec = vllm_config.speculative_config
    return {
        "max_model_len": mc.max_model_len, "dtype": str(mc.dtype).replace("torch.", ""),
        "cache_dtype": cc.cache_dtype, "block_size_before_backend": cc.block_size,
        "max_num_batched_tokens": sc.max_num_batched_tokens, "max_num_seqs": sc.max_num_seqs,
        "async_scheduling": sc.async_scheduling, "max_concurrent_batches": vllm_config.max_concurrent_batches,
        "max_in_flight_tokens": vllm_config.max_in_flight_tokens, "enable_prefix_caching": cc.enable_prefix_caching,
        "mamba_cache_mode": getattr(cc, "mamba_cache_mode", None), "is_hybrid": mc.is_hybrid,
        "num_speculative_tokens": spec.num_speculative_tokens if spec is not None else 0,
        "speculative_method": spec.method if spec is not None else None,
        "architecture": mc.architecture, "num_kv_heads_per_rank": mc.get_num_kv_heads(vllm_config.parallel_config),
        "head_size": mc.get_head_size(), "use_mla": mc.use_mla,
    }


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TEMP_DIR = re.compile(r"/[\w/.-]*vllm_oracle_\w+")  # this run's temp folder: replaced, so reruns compare equal


ERROR_CHARS = 1500


def error_text(exc: BaseException) -> dict[str, str]:
    """vLLM's exception text (ANSI codes and the temp folder removed; cut at ``ERROR_CHARS``: some list every
    architecture)."""
    text = _TEMP_DIR.sub("<config dir>", _ANSI.sub("", str(exc))).strip()
    if len(text) > ERROR_CHARS:
        text = text[:ERROR_CHARS] + " [...]"
    return {"error_type": type(exc).__name__, "error": text}


def run_case(case: Case) -> dict[str, Any]:
    """Inputs and vLLM's outputs for one case; a refusal or failure is recorded with vLLM's text."""
    _DEVICE["key"] = case.device
    folder = tempfile.mkdtemp(prefix="vllm_oracle_")
    shutil.copy(model_path(case.model_file), os.path.join(folder, "config.json"))
    record: dict[str, Any] = {"name": case.name, "note": case.note, "inputs": case.inputs()}
    try:
        try:
            vllm_config = engine_config(case, folder)
        except Exception as exc:  # vLLM refuses the flags (e.g. max_model_len over the derived limit)
            record["outputs"] = {"status": "config_refused", **error_text(exc)}
            return record
        ensure_distributed()
        settings = resolved_settings(vllm_config)
        specs, backend_names = build_specs(vllm_config)
        settings["block_size_after_backend"] = vllm_config.cache_config.block_size
        settings["attention_backends"] = backend_names
        outputs: dict[str, Any] = {"resolved": settings, "layer_specs": distinct_layer_specs(specs),
                                   "num_layer_specs": len(specs)}
        try:
            outputs.update(plan(vllm_config, specs, case.kv_cache_memory))
            outputs["status"] = "ok"
        except ValueError as exc:  # _check_enough_kv_cache_memory: vLLM refuses to start
            outputs.update({"status": "refused", **error_text(exc)})
            found = re.search(r"estimated maximum model length is (\d+)", str(exc))
            outputs["estimated_max_model_len"] = int(found.group(1)) if found else None
        record["outputs"] = outputs
    except Exception as exc:  # the oracle could not run vLLM's code for this case
        record["outputs"] = {"status": "oracle_error", **error_text(exc),
                             "traceback_tail": traceback.format_exc().strip().splitlines()[-6:]}
        print(traceback.format_exc(), file=sys.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return record


# ----------------------------------------------------------------------------- the grid
LLAMA = "meta-llama__Llama-3.1-8B.json"
LLAMA_BLOCK = 32 * 16 * 8 * 128 * 2 * 2  # 32 layers x 16 tokens x 8 heads x (K+V 128) x 2 B = 2 MiB per block
FIT_131072 = (131072 // 16 + 1) * LLAMA_BLOCK  # 8192 blocks for one request + the null block


def grid() -> list[Case]:
    """The cases (names are stable keys for the later replay against kvcalc)."""
    g = GiB
    return [
        # full attention
        Case("llama31_8b_default_len_20gib", LLAMA, 20 * g, note="default max_model_len (rope llama3: 131072)"),
        Case("llama31_8b_len8192_10gib", LLAMA, 10 * g, max_model_len=8192),
        Case("llama31_8b_exact_fit", LLAMA, FIT_131072, max_model_len=131072,
             note="kv_cache_memory = (8192 + 1 null) blocks x 2 MiB: one 131072-token request exactly"),
        Case("llama31_8b_one_byte_short", LLAMA, FIT_131072 - 1, max_model_len=131072,
             note="one byte less than the exact fit: vLLM refuses"),
        Case("llama31_8b_no_null_block_room", LLAMA, FIT_131072 - LLAMA_BLOCK, max_model_len=131072,
             note="exactly 8192 blocks: enough without the null block, refused with it"),
        Case("llama31_8b_len_over_derived", LLAMA, 20 * g, max_model_len=131073,
             note="one token over the derived 131072: refused by the config check"),
        Case("llama31_8b_autofit", LLAMA, 10 * g, max_model_len=-1, note="max_model_len -1: auto-fit"),
        Case("llama31_8b_fp8", LLAMA, 10 * g, max_model_len=32768, kv_cache_dtype="fp8"),
        Case("llama31_8b_tp2", LLAMA, 10 * g, max_model_len=32768, tensor_parallel_size=2),
        Case("llama31_8b_tp8", LLAMA, 10 * g, max_model_len=32768, tensor_parallel_size=8),
        Case("llama31_8b_block32_batch", LLAMA, 10 * g, max_model_len=16384, block_size=32,
             max_num_batched_tokens=4096, max_num_seqs=64),
        Case("llama31_8b_h200_defaults", LLAMA, 10 * g, max_model_len=32768, device="h200",
             note="H200 (140.4 GiB): the >= 70 GiB batch defaults"),
        Case("qwen3_8b_default_len", "Qwen__Qwen3-8B.json", 16 * g, note="default max_model_len 40960"),
        Case("qwen3_8b_tp8_fp8", "Qwen__Qwen3-8B.json", 4 * g, max_model_len=40960, tensor_parallel_size=8,
             kv_cache_dtype="fp8"),
        # sliding window / interleaved
        Case("mistral_7b_v01_default", "mistralai__Mistral-7B-v0.1.json", 8 * g,
             note="every layer sliding (4096)"),
        Case("mistral_7b_v01_mnbt2048", "mistralai__Mistral-7B-v0.1.json", 2 * g, max_model_len=32768,
             max_num_batched_tokens=2048),
        Case("gemma2_9b_default", "google__gemma-2-9b-it.json", 8 * g),
        Case("gemma2_9b_tp2_len4096", "google__gemma-2-9b-it.json", 2 * g, max_model_len=4096,
             tensor_parallel_size=2),
        Case("gemma3_27b_len32768", "google__gemma-3-27b-it.json", 20 * g, max_model_len=32768),
        Case("gemma3_27b_default_len", "google__gemma-3-27b-it.json", 20 * g,
             note="default max_model_len (gemma3: no rope factor applied)"),
        Case("gemma3_27b_small_refused", "google__gemma-3-27b-it.json", 1 * g, max_model_len=131072),
        Case("gpt_oss_20b_default", "openai__gpt-oss-20b.json", 16 * g),
        Case("gpt_oss_20b_tp2_len8192", "openai__gpt-oss-20b.json", 4 * g, max_model_len=8192,
             tensor_parallel_size=2),
        # MLA
        Case("deepseek_v2_lite_len32768", "deepseek-ai__DeepSeek-V2-Lite.json", 8 * g, max_model_len=32768),
        Case("deepseek_v2_lite_default_len", "deepseek-ai__DeepSeek-V2-Lite.json", 8 * g,
             note="default max_model_len: max_position_embeddings 163840, the YaRN factor 40 not applied again"),
        Case("deepseek_v3_tp8_len65536", "deepseek-ai__DeepSeek-V3.json", 40 * g, max_model_len=65536,
             tensor_parallel_size=8),
        Case("deepseek_v3_tp8_fp8", "deepseek-ai__DeepSeek-V3.json", 40 * g, max_model_len=65536,
             tensor_parallel_size=8, kv_cache_dtype="fp8"),
        Case("deepseek_v3_tp8_mtp1", "deepseek-ai__DeepSeek-V3.json", 40 * g, max_model_len=65536,
             tensor_parallel_size=8, speculative_config={"method": "mtp", "num_speculative_tokens": 1},
             note="MTP speculative decoding (the checkpoint's num_nextn_predict_layers = 1)"),
        Case("kimi_k2_tp8_default_len", "moonshotai__Kimi-K2-Instruct.json", 40 * g, tensor_parallel_size=8),
        # MoE
        Case("mixtral_8x7b_tp2_len32768", "mistralai__Mixtral-8x7B-v0.1.json", 20 * g, max_model_len=32768,
             tensor_parallel_size=2),
        Case("qwen3_30b_a3b_default", "Qwen__Qwen3-30B-A3B.json", 12 * g),
        Case("qwen3_30b_a3b_tp8", "Qwen__Qwen3-30B-A3B.json", 12 * g, max_model_len=40960, tensor_parallel_size=8,
             note="4 KV heads on 8 ranks: one replicated head per rank"),
        # hybrid mamba / linear attention
        Case("jamba_v01_len65536", "ai21labs__Jamba-v0.1.json", 8 * g, max_model_len=65536),
        Case("jamba_v01_tp2_len32768", "ai21labs__Jamba-v0.1.json", 4 * g, max_model_len=32768,
             tensor_parallel_size=2),
        Case("qwen3_next_80b_len65536", "Qwen__Qwen3-Next-80B-A3B-Thinking.json", 8 * g, max_model_len=65536),
        Case("qwen3_next_80b_tp4_default_len", "Qwen__Qwen3-Next-80B-A3B-Thinking.json", 8 * g,
             tensor_parallel_size=4),
        # transformers 5.24 class-default configs of hybrid types (tests/oracles/configs/SOURCES.md)
        Case("zamba2_default_len4096", "transformers-5.24__Zamba2Config.json", 4 * g, max_model_len=4096),
        Case("olmo_hybrid_default_len32768", "transformers-5.24__OlmoHybridConfig.json", 4 * g, max_model_len=32768),
        Case("lfm2_moe_default_len32768", "transformers-5.24__Lfm2MoeConfig.json", 4 * g, max_model_len=32768),
        # Qwen3.5 (a qwen3_5 / qwen3_5_moe wrapper over a Gated-DeltaNet hybrid text_config)
        Case("qwen3_5_27b_len65536", "Qwen__Qwen3.5-27B.json", 8 * g, max_model_len=65536),
        Case("qwen3_5_27b_tp4_len131072", "Qwen__Qwen3.5-27B.json", 8 * g, max_model_len=131072,
             tensor_parallel_size=4),
        Case("qwen3_5_35b_a3b_len65536", "Qwen__Qwen3.5-35B-A3B.json", 8 * g, max_model_len=65536),
        Case("qwen3_5_397b_a17b_tp8_len131072", "Qwen__Qwen3.5-397B-A17B.json", 20 * g, max_model_len=131072,
             tensor_parallel_size=8),
    ]


# ----------------------------------------------------------------------------- default max_model_len
def default_max_model_len(file_name: str) -> dict[str, Any]:
    """vLLM's derived max_model_len for a config (no flag), and its refusal one token over it.

    ``ModelConfig`` -> ``config/model.py::_get_and_verify_max_len`` (rope_scaling factor applied
    except for llama3 / YaRN / longrope types and gemma3, sliding-window and tokenizer limits).
    """
    from vllm.engine.arg_utils import EngineArgs

    folder = tempfile.mkdtemp(prefix="vllm_oracle_len_")
    shutil.copy(model_path(file_name), os.path.join(folder, "config.json"))
    record: dict[str, Any] = {"model_file": rel(model_path(file_name))}
    try:
        try:
            model_config = EngineArgs(model=folder, skip_tokenizer_init=True).create_model_config()
        except Exception as exc:
            # a multimodal processor needs files beyond config.json: a limit of this oracle, not a refusal
            status = "oracle_error" if "preprocessor_config.json" in str(exc) else "config_refused"
            record.update({"status": status, **error_text(exc)})
            return record
        derived = model_config.max_model_len
        record.update({"status": "ok", "max_model_len": derived,
                       "architecture": model_config.architecture,
                       "max_len_key": model_config.model_arch_config.derived_max_model_len_and_key[1]})
        try:
            EngineArgs(model=folder, skip_tokenizer_init=True, max_model_len=derived + 1).create_model_config()
            record["over_by_one"] = {"max_model_len": derived + 1, "status": "accepted"}
        except Exception as exc:
            record["over_by_one"] = {"max_model_len": derived + 1, "status": "config_refused", **error_text(exc)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return record


def all_config_files() -> list[str]:
    names = {n for folder in (DATA, ORACLE_CONFIGS) for n in os.listdir(folder) if n.endswith(".json")}
    return sorted(names)


# ----------------------------------------------------------------------------- LoRA (--enable-lora)
LORA_DOC = """What vLLM 0.33 allocates on one GPU for ``--enable-lora``, measured on its own LoRA-wrapped model.

The model is built on the meta device as for the KV cases (``build_specs``); then, as
``GPUModelRunner.load_model`` does inside its ``DeviceMemoryProfiler`` (so the bytes land in "Model
loading took X GiB"), ``LoRAModelRunnerMixin.load_lora_model`` -> ``LRUCacheWorkerLoRAManager.create_lora_manager``
wraps every supported module (``LoRAModelManager._create_lora_modules``: each layer's ``create_lora_weights``)
and builds the punica wrapper (``_init_punica_wrapper``). Every tensor created on the device meanwhile
is recorded (a ``TorchFunctionMode``); the bytes of those still alive afterwards, views excluded, are
``lora_bytes``; ``stacked_bytes`` is the part held in the layers' ``lora_a_stacked`` / ``lora_b_stacked``."""


def lora_cases() -> list[Case]:
    """LoRA cases: (model, TP, LoRA flags); kv_cache_memory is unused here."""
    qwen8, qwen06 = "Qwen__Qwen3-8B.json", "Qwen__Qwen3-0.6B.json"
    return [
        Case("lora_llama31_8b_r16_x4", LLAMA, GiB, max_model_len=4096,
             extra={"engine_args": {"enable_lora": True, "max_loras": 4, "max_lora_rank": 16}}),
        Case("lora_llama31_8b_tp2_r8_x2", LLAMA, GiB, max_model_len=4096, tensor_parallel_size=2,
             extra={"engine_args": {"enable_lora": True, "max_loras": 2, "max_lora_rank": 8}}),
        Case("lora_llama31_8b_tp2_fully_sharded_fp16", LLAMA, GiB, max_model_len=4096, tensor_parallel_size=2,
             extra={"engine_args": {"enable_lora": True, "max_loras": 2, "max_lora_rank": 8,
                                    "fully_sharded_loras": True, "lora_dtype": "float16"}}),
        Case("lora_qwen3_06b_tied_r64_x8", qwen06, GiB, max_model_len=4096, max_num_batched_tokens=4096,
             max_num_seqs=128,
             extra={"engine_args": {"enable_lora": True, "max_loras": 8, "max_lora_rank": 64, "max_cpu_loras": 16}}),
        Case("lora_qwen3_8b_tp4_fully_sharded_r32", qwen8, GiB, max_model_len=4096, tensor_parallel_size=4,
             extra={"engine_args": {"enable_lora": True, "max_loras": 3, "max_lora_rank": 32,
                                    "fully_sharded_loras": True}}),
    ]


def lora_bytes(vllm_config: Any) -> dict[str, Any]:
    """Bytes vLLM's LoRA manager allocates on the device for this config (see :data:`LORA_DOC`)."""
    import gc
    import weakref

    import torch
    from torch.overrides import TorchFunctionMode
    from vllm.config import set_current_vllm_config
    from vllm.lora.layers import BaseLayerWithLoRA
    from vllm.lora.worker_manager import LRUCacheWorkerLoRAManager
    from vllm.model_executor.model_loader.utils import initialize_model
    from vllm.utils.torch_utils import set_default_torch_dtype

    class Track(TorchFunctionMode):
        def __init__(self) -> None:
            super().__init__()
            self.refs: list[Any] = []

        def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            out = func(*args, **(kwargs or {}))
            if isinstance(out, torch.Tensor) and out.device.type != "cpu":
                self.refs.append(weakref.ref(out))
            return out

    tp = vllm_config.parallel_config.tensor_parallel_size
    with set_current_vllm_config(vllm_config), set_default_torch_dtype(vllm_config.model_config.dtype), \
            torch.device("meta"), fake_tp(tp):
        model = initialize_model(vllm_config=vllm_config)
        manager = LRUCacheWorkerLoRAManager(vllm_config, torch.device("meta"), model.embedding_modules)
        track = Track()
        with track:
            model = manager.create_lora_manager(model, vllm_config)
        gc.collect()
        alive = {id(t): t for t in (r() for r in track.refs) if t is not None and t._base is None}
        stacked: dict[int, Any] = {}
        modules: dict[str, dict[str, Any]] = {}
        for name, module in model.named_modules():
            if not isinstance(module, BaseLayerWithLoRA):
                continue
            parts = []
            for attr in ("lora_a_stacked", "lora_b_stacked"):
                value = getattr(module, attr)
                tensors = list(value) if isinstance(value, (tuple, list)) else [value]
                stacked.update({id(t): t for t in tensors})
                parts.append([list(t.shape) for t in tensors])
            key = f"{type(module).__name__}:{name.split('.')[-1]}"
            entry = modules.setdefault(key, {"count": 0, "lora_a_shapes": parts[0], "lora_b_shapes": parts[1],
                                             "dtype": str(tensors[0].dtype).replace("torch.", "")})
            entry["count"] += 1
    nbytes = lambda ts: sum(t.numel() * t.element_size() for t in ts)  # noqa: E731
    other = [t for i, t in alive.items() if i not in stacked]
    return {"lora_bytes": nbytes(alive.values()), "stacked_bytes": nbytes(stacked.values()),
            "other_bytes": nbytes(other),
            "other_tensors": sorted([list(t.shape), str(t.dtype).replace("torch.", "")] for t in other),
            "wrapped_modules": modules}


def run_lora_case(case: Case) -> dict[str, Any]:
    """Inputs, vLLM's resolved LoRA config and :func:`lora_bytes` for one case."""
    _DEVICE["key"] = case.device
    folder = tempfile.mkdtemp(prefix="vllm_oracle_")
    shutil.copy(model_path(case.model_file), os.path.join(folder, "config.json"))
    inputs = {k: v for k, v in case.inputs().items() if k not in ("kv_cache_memory", "kv_cache_dtype", "block_size",
                                                                   "speculative_config")}
    record: dict[str, Any] = {"name": case.name, "inputs": inputs}
    try:
        vllm_config = engine_config(case, folder)
        ensure_distributed()
        lc, sc = vllm_config.lora_config, vllm_config.scheduler_config
        record["resolved"] = {"max_loras": lc.max_loras, "max_lora_rank": lc.max_lora_rank,
                              "max_cpu_loras": lc.max_cpu_loras, "fully_sharded_loras": lc.fully_sharded_loras,
                              "lora_dtype": str(lc.lora_dtype).replace("torch.", ""),
                              "max_num_batched_tokens": sc.max_num_batched_tokens, "max_num_seqs": sc.max_num_seqs,
                              "architecture": vllm_config.model_config.architecture}
        record["outputs"] = {"status": "ok", **lora_bytes(vllm_config)}
    except Exception as exc:
        record["outputs"] = {"status": "oracle_error", **error_text(exc)}
        print(traceback.format_exc(), file=sys.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return record


def write_lora_fixture(path: str) -> int:
    records = []
    for case in lora_cases():
        records.append(run_lora_case(case))
        out = records[-1]["outputs"]
        print(f"{case.name:45s} {out['status']:10s} {out.get('lora_bytes', out.get('error', ''))}", flush=True)
    fixture = {"vllm_version": versions()["vllm"], "versions": versions(),
               "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "produced_by": "tests/oracles/vllm_oracle.py --lora, run with the vllm==0.33.0 venv's python",
               "method": LORA_DOC, "cases": records}
    with open(path, "w") as f:
        json.dump(fixture, f, indent=1, default=str)
        f.write("\n")
    print(f"wrote {rel(path)}: {len(records)} LoRA cases")
    return 0


# ----------------------------------------------------------------------------- main
def versions() -> dict[str, str]:
    import torch
    import transformers
    import vllm

    return {"vllm": vllm.__version__, "torch": torch.__version__, "transformers": transformers.__version__,
            "python": sys.version.split()[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=OUT, help="fixture path (default: %(default)s)")
    parser.add_argument("--only", default="", help="run only cases whose name contains this text (no write)")
    parser.add_argument("--lora", action="store_true",
                        help=f"write only the LoRA fixture ({rel(LORA_OUT)}); the KV fixture is untouched")
    opts = parser.parse_args(argv)
    ensure_libcuda_stub()
    install_fake_platform()
    logging.getLogger("vllm").setLevel(logging.WARNING)
    if opts.lora:
        return write_lora_fixture(LORA_OUT)
    cases = [c for c in grid() if opts.only in c.name]
    records = []
    for case in cases:
        record = run_case(case)
        out = record["outputs"]
        print(f"{case.name:40s} {out['status']:15s} {out.get('log_line') or out.get('error', '')[:150]}",
              flush=True)
        records.append(record)
    if opts.only:
        json.dump(records, sys.stdout, indent=1, default=str)
        return 0
    lengths = []
    for name in all_config_files():
        lengths.append(default_max_model_len(name))
        print(f"default max_model_len {name:50s} {lengths[-1].get('max_model_len', lengths[-1].get('error', ''))}",
              flush=True)
    fixture = {
        "vllm_version": versions()["vllm"],
        "versions": versions(),
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "produced_by": "tests/oracles/vllm_oracle.py, run with the vllm==0.33.0 venv's python "
                       "(see the script's docstring for exactly which vLLM functions run)",
        "devices": {key: {"name": name, "total_memory_bytes": total, "compute_capability": list(cap)}
                    for key, (name, total, cap) in DEVICES.items()},
        "device_note": "CUDA platform with the device queries faked (each case's inputs.device); no GPU, "
                       "no profiling: kv_cache_memory_bytes is given",
        "cases": records,
        "default_max_model_len": lengths,
    }
    os.makedirs(os.path.dirname(opts.out), exist_ok=True)
    with open(opts.out, "w") as f:
        json.dump(fixture, f, indent=1, default=str)
        f.write("\n")
    print(f"wrote {rel(opts.out)}: {len(records)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
