"""The GPU catalog (``data/gpus.csv``): memory as the driver reports it, bandwidth, and a source per row.

``memory_mib`` is the total nvidia-smi (or rocm-smi) prints, in MiB (2**20 bytes). Serving
engines see slightly less (CUDA context, ECC / display reservations); pass a measured figure with
``custom_gpu`` when you have one.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache

from .data_files import data_path
from .errors import InputError
from .limits import check_finite

CATALOG_PATH = data_path("gpus.csv")
MIB = 1 << 20
MAX_GPU_GIB = 4096.0


@dataclass(frozen=True)
class GPU:
    """One accelerator: ``memory_bytes`` = ``memory_mib`` x 2**20."""

    name: str
    key: str
    vendor: str
    marketed_gb: int
    memory_mib: int
    bandwidth_gbps: float | None = None
    bf16_tflops: float | None = None
    fp8_support: str = ""
    source: str = ""
    note: str = ""
    fp8_tflops: float | None = None     # dense FP8 tensor rate, TFLOP/s (None: none published / no FP8)
    fp4_tflops: float | None = None     # dense FP4 tensor rate, TFLOP/s
    link_gbps: float | None = None      # GPU-to-GPU bandwidth per direction, GB/s (NVLink or PCIe)
    link_kind: str = ""
    fp16_tflops: float | None = None    # dense FP16 tensor rate, TFLOP/s, where there is no bf16 (Turing, Volta)
    fp16_acc16_tflops: float | None = None  # dense FP16 tensor rate with FP16 accumulate, TFLOP/s, where it differs
    #                                     from bf16_tflops (a GeForce card's, twice its FP32-accumulate figure);
    #                                     None: the same as bf16_tflops (data-center and workstation cards)
    cuda_capability: int | None = None  # CUDA compute capability x 10 (NVIDIA's CUDA GPUs table: 70 V100, 75 T4,
    #                                     80 A100, 86 A10 / RTX 3090, 89 L4 / L40S / RTX 40xx, 90 H100 / H200,
    #                                     100 B200, 120 RTX 5090, 121 GB10), as vLLM compares it; None: not NVIDIA
    sm_count: int | None = None         # streaming multiprocessors (NVIDIA's whitepapers / deviceQuery, the row's
    #                                     speed_source); None: not NVIDIA, or not in the catalog

    @property
    def memory_bytes(self) -> int:
        return self.memory_mib * MIB

    @property
    def memory_gib(self) -> float:
        return self.memory_mib / 1024

    @property
    def fp16_accumulate_tflops(self) -> float | None:
        """Dense FP16 tensor rate with FP16 accumulate, TFLOP/s: ``fp16_acc16_tflops`` where the catalog gives one (a
        GeForce card's), else the bf16 figure, else the fp16 one (the two accumulations run at one rate there)."""
        return self.fp16_acc16_tflops or self.bf16_tflops or self.fp16_tflops


def _float(text: str) -> float | None:
    return float(text) if text.strip() else None


def _int(text: str) -> int | None:
    return int(text) if text.strip() else None


def _capability(text: str) -> int | None:
    """"8.6" -> 86 (major x 10 + minor: vLLM's DeviceCapability.to_int), "" -> None."""
    if not text.strip():
        return None
    major, _, minor = text.strip().partition(".")
    return int(major) * 10 + int(minor or 0)


@lru_cache(maxsize=1)
def gpu_catalog() -> tuple[GPU, ...]:
    """Every GPU of data/gpus.csv, in file order (smallest classes first)."""
    with open(CATALOG_PATH, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return tuple(
        GPU(name=r["name"], key=r["key"], vendor=r["vendor"], marketed_gb=int(r["marketed_gb"]),
            memory_mib=int(r["memory_mib"]), bandwidth_gbps=_float(r["bandwidth_gbps"]),
            bf16_tflops=_float(r["bf16_tflops_dense"]), fp8_support=r["fp8_support"], source=r["source"],
            note=r["memory_mib_note"], fp8_tflops=_float(r.get("fp8_tflops_dense", "")),
            fp4_tflops=_float(r.get("fp4_tflops_dense", "")), link_gbps=_float(r.get("link_gbps", "")),
            link_kind=r.get("link_kind", ""), fp16_tflops=_float(r.get("fp16_tflops_dense", "")),
            fp16_acc16_tflops=_float(r.get("fp16_acc16_tflops_dense", "")),
            cuda_capability=_capability(r.get("cuda_compute_capability", "")),
            sm_count=_int(r.get("sm_count", "")))
        for r in rows
    )


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def get_gpu(name: str) -> GPU:
    """Find a GPU by key ('h100-sxm'), full name, or an unambiguous fragment ('4090', 'H200').

    The H100 SXM's row: nvidia-smi's 81,559 MiB total (x 2**20 = 85,520,809,984 B), as its source says:

    >>> g = get_gpu("H100 SXM")
    >>> g.key, g.memory_mib, g.memory_bytes
    ('h100-sxm', 81559, 85520809984)
    >>> g.source.split(";")[0]
    'nvidia-smi totals: github.com/modal-labs/modal-client/pull/2797 (81559MiB = 85520809984 B)'
    >>> get_gpu("4090").name
    'GeForce RTX 4090 24GB'
    """
    if not isinstance(name, str) or not name.strip():
        raise InputError("GPU name must be a non-empty string")
    wanted = _norm(name)
    catalog = gpu_catalog()
    for gpu in catalog:
        if wanted in (_norm(gpu.key), _norm(gpu.name)):
            return gpu
    matches = [g for g in catalog if wanted in _norm(g.name) or wanted in _norm(g.key)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise InputError(f"GPU '{name[:40]}' is ambiguous: {', '.join(g.key for g in matches)}")
    raise InputError(f"unknown GPU '{name[:40]}'; known: {', '.join(g.key for g in catalog)}")


def custom_gpu(memory_gib: float, name: str = "Custom GPU", *, bandwidth_gbps: float | None = None,
               bf16_tflops: float | None = None) -> GPU:
    """A GPU of ``memory_gib`` GiB (2**30 bytes), for cards not in the catalog or measured totals;
    optionally its memory bandwidth (GB/s = 1e9 B/s) and dense bf16 tensor rate (TFLOP/s), which
    speed estimates need (kvcalc.speed).

    24 GiB = 24 x 1,024 MiB = 24,576 MiB = 25,769,803,776 B:

    >>> g = custom_gpu(24)
    >>> g.memory_mib, g.memory_bytes, g.marketed_gb, g.source
    (24576, 25769803776, 24, 'user input')
    """
    for label, value in (("memory bandwidth (GB/s)", bandwidth_gbps), ("bf16 TFLOP/s", bf16_tflops)):
        if value is not None:      # finite, 0.001 .. 1,000,000: a 5e-324 rate would make a step take forever
            check_finite(label, value, 1e-3, 1e6)
    if isinstance(memory_gib, bool) or not isinstance(memory_gib, (int, float)) or not 0 < memory_gib <= MAX_GPU_GIB:
        raise InputError(f"GPU memory must be between 0 and {MAX_GPU_GIB:,.0f} GiB, got {memory_gib!r:.20}")
    mib = int(round(memory_gib * 1024))
    if mib < 1:
        raise InputError("GPU memory must be at least 1 MiB")
    return GPU(name=name, key="custom", vendor="", marketed_gb=int(round(memory_gib)), memory_mib=mib,
               bandwidth_gbps=None if bandwidth_gbps is None else float(bandwidth_gbps),
               bf16_tflops=None if bf16_tflops is None else float(bf16_tflops), source="user input")


def gpus_in_class(marketed_gb: int) -> list[GPU]:
    """Catalog GPUs of one marketed capacity, in catalog order (data/gpus.csv's ``marketed_gb`` column).

    >>> [g.key for g in gpus_in_class(24)]
    ['rtx-3090', 'rtx-4090', 'a10', 'a10g', 'l4']
    """
    return [g for g in gpu_catalog() if g.marketed_gb == marketed_gb]


# The classes the UI and CLI put first, with a representative card for each.
CLASS_REPRESENTATIVES = {16: "t4", 24: "rtx-4090", 80: "h100-sxm"}
