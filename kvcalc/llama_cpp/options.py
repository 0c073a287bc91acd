"""llama.cpp's run options that size memory, with the engine's defaults (llama-server / llama-cli flags).

Defaults follow ggml-org/llama.cpp ``common/common.h`` ``struct common_params`` (``n_ctx = 0``: the
model's training context; ``n_batch = 2048``; ``n_ubatch = 512``; ``kv_unified = false``;
``swa_full = false``; cache types f16; ``flash_attn_type = auto``) and ``llama_model_default_params``
(``n_gpu_layers = -1``: every layer). ``-np`` defaults to auto (-1) for llama-server (``common/arg.cpp``
``common_params_parser_init``: ``params.n_parallel = -1`` for ``LLAMA_EXAMPLE_SERVER``), and the server's
``main`` (``tools/server/server.cpp``) turns auto into four slots sharing a unified cache:
``if (params.n_parallel < 0) { n_parallel = 4; kv_unified = true; }`` ("n_parallel is set to auto, using
n_parallel = 4 and kv_unified = true"), which is why a bare ``llama-server`` log says ``4/1 seqs``; an
explicit ``-np 1`` stays one slot (the older ``n_parallel == 1 && !kv_unified`` rule is gone), and
llama-cli's auto is its one sequence (``common/common.h``: ``n_parallel = 1``).

``-ts`` / ``--tensor-split`` (``common/arg.cpp``: the text split on ``[,/]+``, each part ``std::stof``, fewer
than ``llama_max_devices()`` = 16 parts, the rest 0) is kept as the proportions given; ``()`` (not given) and
all zeros are llama.cpp's default split by each device's free memory (``src/llama-model.cpp``
``llama_model::load_tensors``: ``all_zero``), equal shares on GPUs of one type (kvcalc.llama_cpp.split).

>>> LlamaCppOptions().slots()[:2], LlamaCppOptions(n_parallel=1).slots()[:2]
((4, True), (1, False))
>>> read_tensor_split("3,1"), read_tensor_split("1/1/2")
((3.0, 1.0), (1.0, 1.0, 2.0))
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from ..dtypes import get_dtype
from ..engines.base import Option
from ..errors import InputError, UnsupportedError
from ..limits import MAX_CONTEXT, check_count

KV_CACHE_TYPES = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")
"""``-ctk`` / ``-ctv`` values llama.cpp accepts (``common/arg.cpp`` ``kv_cache_types``)."""

CACHE_TYPE_OF_DTYPE = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}
"""kvcalc's KV dtypes (kvcalc.dtypes names) llama.cpp stores as they are: ``GGML_TYPE_F32`` / ``F16`` / ``BF16``
(4, 2 and 2 bytes an element, ``ggml/src/ggml.c`` ``type_traits``). Its other cache types are block-quantized
(``q8_0``: 32 int8 values and one f16 scale, 34 bytes a block), not kvcalc's int8 / int4 / int2 (groups of 64 with
an fp16 scale and zero point, kvcalc.dtypes), and it has no fp8 type at all."""

_NEAREST = {"int8": "q8_0", "int4": "q4_0"}
"""The block-quantized llama.cpp cache type of the same width as a kvcalc integer KV dtype (a hint, not a mapping:
their bytes differ)."""


class NoCacheType(UnsupportedError):
    """A KV dtype llama.cpp has no ``-ctk`` / ``-ctv`` cache type for (:func:`cache_type`): ``kv_dtype`` is the
    kvcalc dtype asked for (canonical name), ``nearest`` llama.cpp's type of the same width, if any."""

    def __init__(self, kv_dtype: str, nearest: str | None = None):
        self.kv_dtype, self.nearest = kv_dtype, nearest
        family = "fp8" if kv_dtype.startswith("fp8") else kv_dtype
        asked = f" ('{kv_dtype}')" if family != kv_dtype else ""
        hint = (f"; its {nearest} (blocks of 32 values and one f16 scale) is not kvcalc's {kv_dtype} (groups of 64 "
                f"with a scale and zero point): set -ctk / -ctv {nearest} (llama.cpp's options) with KV dtype auto "
                "to plan it" if nearest else "")
        super().__init__(f"llama.cpp has no {family} KV-cache type{asked}: -ctk / -ctv take "
                         f"{', '.join(KV_CACHE_TYPES)} (common/arg.cpp kv_cache_types){hint}")


def cache_type(kv_dtype: str) -> str:
    """llama.cpp's ``-ctk`` / ``-ctv`` type that stores a KV cache in ``kv_dtype`` (a kvcalc dtype name or alias,
    or one of :data:`KV_CACHE_TYPES` itself): bf16 is ``bf16``, fp16 ``f16``, fp32 ``f32``
    (:data:`CACHE_TYPE_OF_DTYPE`). :class:`NoCacheType` for a dtype it has no type for (fp8, kvcalc's grouped
    integers), InputError for an unknown one.

    >>> cache_type("bfloat16"), cache_type("fp16"), cache_type("fp32"), cache_type("q8_0")
    ('bf16', 'f16', 'f32', 'q8_0')
    >>> cache_type("fp8")
    Traceback (most recent call last):
    ...
    kvcalc.llama_cpp.options.NoCacheType: llama.cpp has no fp8 KV-cache type ('fp8_e4m3'): -ctk / -ctv take \
f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1 (common/arg.cpp kv_cache_types)
    """
    if isinstance(kv_dtype, str) and kv_dtype.strip().lower() in KV_CACHE_TYPES:
        return kv_dtype.strip().lower()
    name = get_dtype(kv_dtype).name
    if name not in CACHE_TYPE_OF_DTYPE:
        raise NoCacheType(name, _NEAREST.get(name))
    return CACHE_TYPE_OF_DTYPE[name]

LLAMA_MAX_SEQ = 256
"""``src/llama-cparams.h``: at most 256 parallel sequences (``n_seq_max must be <= 256``)."""

DEFAULT_N_BATCH = 2048
DEFAULT_N_UBATCH = 512
SERVER_AUTO_SLOTS = 4
AUTO_PARALLEL = -1
"""``-np -1`` (llama-server's default): the program picks the slots (:meth:`LlamaCppOptions.slots`)."""
CTX_PAD = 256
"""``llama_context`` pads ``n_ctx`` (and per-sequence ``n_ctx_seq``) to 256 cells (PR #17046)."""

LLAMA_MAX_DEVICES = 16
"""``src/llama.cpp`` ``llama_max_devices()``: ``-ts`` takes fewer parts than this (``common/arg.cpp``: ``if
(split_arg.size() >= llama_max_devices()) throw ... "got %d input configs, but system only has %d devices"``)."""


def read_tensor_split(text: str) -> tuple[float, ...]:
    """``-ts`` text as llama.cpp's ``common/arg.cpp`` reads it: split on runs of ``,`` or ``/`` (a trailing one
    ends the list), each part a number; ValueError naming the part or the count otherwise (kvcalc refuses a
    negative, infinite or NaN part and an empty one, which ``std::stof`` would throw on or misplace layers with).
    """
    parts = re.split(r"[,/]+", text.strip()) if isinstance(text, str) and len(text) <= 400 else None
    if parts is None or parts == [""]:
        raise ValueError("takes comma-separated proportions, one per GPU (e.g. 3,1)")
    if parts[-1] == "":
        parts.pop()
    if len(parts) >= LLAMA_MAX_DEVICES:
        raise ValueError(f"got {len(parts)} input configs, but llama.cpp has at most {LLAMA_MAX_DEVICES - 1} "
                         "(llama_max_devices() is 16)")
    return tuple(_share(x) for x in parts)


def _share(part: Any) -> float:
    try:
        value = float(part.strip() if isinstance(part, str) else part)
    except (TypeError, ValueError):
        raise ValueError(f"'{str(part)[:20]}' is not a number (-ts takes proportions such as 3,1)") from None
    if not math.isfinite(value) or value < 0 or isinstance(part, bool):
        raise ValueError(f"'{str(part)[:20]}' is not a non-negative proportion")
    return value


FlashAttn = Literal["on", "off", "auto"]
Program = Literal["llama-server", "llama-cli"]


@dataclass(frozen=True)
class LlamaCppOptions:
    """One llama.cpp run. ``n_ctx = 0`` means the model's training context; ``n_gpu_layers = -1``
    means every layer (and the output layer) on the GPU."""

    n_ctx: int = 0                      # -c / --ctx-size: total cells, shared by the slots
    n_parallel: int = AUTO_PARALLEL     # -np / --parallel: slots (sequences); -1 = auto
    kv_unified: bool = False            # -kvu / --kv-unified: one stream for all slots
    cache_type_k: str = "f16"           # -ctk
    cache_type_v: str = "f16"           # -ctv
    flash_attn: FlashAttn = "auto"      # -fa on|off|auto
    n_gpu_layers: int = -1              # -ngl
    n_cpu_moe: int = 0                  # --n-cpu-moe: the MoE experts of the first N layers stay in host memory
    swa_full: bool = False              # --swa-full
    tensor_split: tuple[float, ...] = ()  # -ts: one proportion per GPU; () = by free memory (module docstring)
    kv_offload: bool = True             # -nkvo / --no-kv-offload turns it off
    speculative: bool = False           # a draft model (-md / -hfd) was given (no memory of its own modelled)
    n_batch: int = DEFAULT_N_BATCH      # -b
    n_ubatch: int = DEFAULT_N_UBATCH    # -ub
    force_cublas: bool = False          # a CUDA build that multiplies quantized prompts with cuBLAS (see DECLARATIONS)
    program: Program = "llama-server"
    model: str | None = None            # -m path or -hf repo[:quant], as text (never opened)
    hf_quant: str | None = None         # the ':Q4_K_M' tail of -hf

    def __post_init__(self) -> None:
        for name in ("cache_type_k", "cache_type_v"):
            value = getattr(self, name)
            if value not in KV_CACHE_TYPES:
                raise InputError(f"Unsupported cache type: {str(value)[:20]} (llama.cpp accepts "
                                 f"{', '.join(KV_CACHE_TYPES)})")
        if self.flash_attn not in ("on", "off", "auto"):
            raise InputError(f"-fa takes on, off or auto, not '{str(self.flash_attn)[:20]}'")
        check_count("n_ctx", self.n_ctx, 0, MAX_CONTEXT)
        check_count("n_parallel", self.n_parallel, AUTO_PARALLEL, 1 << 20)
        if self.n_parallel == 0:
            raise InputError("-np takes a number of slots of at least 1, or -1 (auto)")
        if self.n_parallel > LLAMA_MAX_SEQ:
            raise InputError(f"n_seq_max must be <= {LLAMA_MAX_SEQ} (-np {self.n_parallel})")
        check_count("n_gpu_layers", self.n_gpu_layers, -1, 1 << 20)
        check_count("n_cpu_moe", self.n_cpu_moe, 0, 1 << 20)
        check_count("n_batch", self.n_batch, 1, MAX_CONTEXT)
        check_count("n_ubatch", self.n_ubatch, 1, MAX_CONTEXT)
        ts = self.tensor_split
        try:
            shares = read_tensor_split(ts) if isinstance(ts, str) else tuple(_share(x) for x in ts)
            if len(shares) >= LLAMA_MAX_DEVICES:
                raise ValueError(f"got {len(shares)} input configs, but llama.cpp has at most "
                                 f"{LLAMA_MAX_DEVICES - 1}")
        except (TypeError, ValueError) as e:
            raise InputError(f"-ts / --tensor-split: {e}") from None
        object.__setattr__(self, "tensor_split", shares)     # typed: a list or "3,1" becomes (3.0, 1.0)

    def split_shares(self, gpus: int) -> tuple[float, ...]:
        """The ``-ts`` proportions over ``gpus`` GPUs as ``llama_model::load_tensors`` reads them: missing parts
        are 0 (``common/arg.cpp`` fills the rest with 0.0f), none or all zero is the split by free memory (equal
        on GPUs of one type). InputError when more parts than GPUs are given (llama.cpp would ignore them).

        >>> LlamaCppOptions(tensor_split=(3, 1)).split_shares(2), LlamaCppOptions().split_shares(2)
        ((3.0, 1.0), (1.0, 1.0))
        """
        ts = self.tensor_split
        if len(ts) > gpus:
            raise InputError(f"-ts {','.join(f'{x:g}' for x in ts)} gives {len(ts)} proportions for {gpus} GPU(s): "
                             "give one per GPU")
        if not any(ts):
            return (1.0,) * gpus
        return ts + (0.0,) * (gpus - len(ts))

    def slots(self) -> tuple[int, bool, str | None]:
        """(sequences, unified, note): ``-np`` auto resolved (module docstring): llama-server's 4 unified
        slots, llama-cli's one sequence; an explicit count as given."""
        if self.n_parallel >= 1:
            return self.n_parallel, self.kv_unified, None
        if self.program == "llama-server":
            return SERVER_AUTO_SLOTS, True, (f"llama-server: n_parallel is set to auto, using n_parallel = "
                                             f"{SERVER_AUTO_SLOTS} and kv_unified = true")
        return 1, self.kv_unified, None

    @property
    def flash_attention(self) -> bool:
        """Whether FA runs: ``auto`` is taken as on (llama.cpp enables it when every layer's device
        supports it, the case for CUDA, Metal and Vulkan builds)."""
        return self.flash_attn != "off"


DECLARATIONS: tuple[Option, ...] = (
    Option("n_ctx", ("-c", "--ctx-size"), "int",
           "cells in the context, shared by the slots (default 0: the model's training context)", "cells", 0,
           MAX_CONTEXT, 0, "ll_ctx"),
    Option("n_parallel", ("-np", "--parallel"), "int", "slots (default -1: auto, llama-server's 4 unified, "
           "llama-cli's 1; an explicit -np 1 stays one slot)", "sequences", -1, 256, -1, "ll_np"),
    Option("kv_unified", ("-kvu", "--kv-unified"), "bool", "one KV stream shared by every slot", "", None, None,
           False, "ll_kvu"),
    Option("cache_type_k", ("-ctk", "--cache-type-k"), "text", "K cache type (default f16)", "", None, None, "f16",
           "ll_ctk", KV_CACHE_TYPES),
    Option("cache_type_v", ("-ctv", "--cache-type-v"), "text", "V cache type (default f16)", "", None, None, "f16",
           "ll_ctv", KV_CACHE_TYPES),
    Option("flash_attn", ("-fa", "--flash-attn"), "choice", "Flash Attention (bare -fa: on; default auto)", "",
           None, None, "auto", "ll_fa", ("on", "off", "auto"), const="on"),
    Option("n_gpu_layers", ("-ngl", "--n-gpu-layers", "--gpu-layers"), "int",
           "layers on the GPU, the output layer first (default -1: all)", "layers", -1, 1 << 20, -1, "ll_ngl"),
    Option("n_cpu_moe", ("-ncmoe", "--n-cpu-moe"), "int", "keep the MoE expert weights (ffn_*_exps) of the first N "
           "layers in host memory (default 0)", "layers", 0, 1 << 20, 0, None),
    Option("swa_full", ("--swa-full",), "bool", "full-size cache for sliding-window layers", "", None, None, False,
           "ll_swa_full"),
    Option("tensor_split", ("-ts", "--tensor-split"), "list", "--split-mode layer over several GPUs: the share of "
           "the layers each GPU holds, comma-separated proportions (e.g. 3,1; default: by free memory, equal on "
           "GPUs of one type)", "proportions", 0, None, (), "ll_ts", parse=read_tensor_split),
    Option("kv_offload", ("-nkvo", "--no-kv-offload"), "bool", "keep the KV cache in host memory", "", None, None,
           True, None, negate=True),
    Option("n_batch", ("-b", "--batch-size"), "int", "logical batch (default 2048)", "tokens", 1, MAX_CONTEXT,
           DEFAULT_N_BATCH, None),
    Option("n_ubatch", ("-ub", "--ubatch-size"), "int", "physical batch (default 512)", "tokens", 1, MAX_CONTEXT,
           DEFAULT_N_UBATCH, None),
    Option("force_cublas", ("--cuda-force-cublas",), "bool", "a CUDA build whose quantized passes of more than 32 "
           "tokens are converted to F16 and multiplied by cuBLAS: a build from PR #3776 (Oct 2023) to PR #8075 (June "
           "2024), which made the quantized MMQ kernels the default; one built with -DGGML_CUDA_FORCE_CUBLAS=ON is "
           "taken as the same (a build option, not a llama-server flag)",
           "", None, None, False, "ll_cublas", command=False),
    Option("program", ("llama-server", "llama-cli"), "choice", "the program run: llama-server (4 unified slots "
           "for a bare -np 1) or llama-cli (one sequence)", "", None, None, "llama-server", "ll_prog",
           ("llama-server", "llama-cli"), cli=False, command=False),
    Option("gguf", ("--gguf-type",), "text", "the GGUF weights: a file type (Q4_K_M, Q8_0, F16, ...), a parsed "
           "header or GgufWeights", "", None, None, None, "ll_gguf", cli=False, command=False),
    Option("llama_cpp", ("llama_cpp",), "json", "LlamaCppOptions the flags apply over (a parsed llama-server "
           "command); a keyword of deploy(), no command-line flag", "", None, None, None, None, cli=False,
           command=False),
)
"""llama-server's flags kvcalc models (``common/arg.cpp``), under LlamaCppOptions' names, declared once."""
