"""llama.cpp startup-log line formats, 2024 to 2026 (``src/llama-kv-cache*.cpp``,
``src/llama-context.cpp``, ``src/llama-model.cpp`` / ``llama-model-loader.cpp``; Ollama's runner logs
the same lines behind its own prefix).

MiB here is ``/ 1024.0 / 1024.0`` (2**20 bytes). ``llama_kv_cache: size = X MiB (C cells, L layers,
S/S seqs), K (t): .., V (t): ..`` is llama_kv_cache::llama_kv_cache (2025-2026);
``llama_kv_cache_init: kv_size = C, ..., n_layer = L`` and ``KV self size = X MiB`` its 2024-2025
forms. Device lines (``CUDA0 KV buffer size``, ``CUDA0 compute buffer size``, ``CUDA0 model buffer
size``) are kept per device: the device is the line's rank.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from kvcalc.startup_log.checks import Geometry, ModelCheck
from kvcalc.startup_log.rules import INT, NUM, Rule, version_rule
from kvcalc.startup_log.types import StartupLog
from kvcalc.startup_log.values import Flags, number, pick

_DEV = r"(?<![A-Za-z0-9_])(?P<device>(?!(?:KV|compute|output|model)\b)[A-Za-z][A-Za-z0-9_]{0,24}) {1,12}"


def _kv_size_rule(prefix: str, source: str) -> Rule:
    """``<prefix>: size = X MiB (C cells, L layers, S seqs), K (t): .. MiB, V (t): .. MiB``: S is the
    sequences (mid-2025, e.g. build 5622), ``S/N`` once the cache has streams (later 2025)."""
    return Rule(
        "kv_size",
        f"{prefix}: size = ",
        rf"{prefix}: size = {{0,8}}(?P<kv_total>{NUM}) MiB \( {{0,8}}(?P<cells>{INT}) cells, "
        rf"{{0,8}}(?P<layers>{INT}) layers, {{0,4}}(?P<seqs>{INT})(?:/{INT})? seqs\), "
        rf"K \((?P<type_k>[a-z0-9_]{{1,16}})\): {{0,8}}"
        rf"(?P<k_size>{NUM}) MiB, V \((?P<type_v>[a-z0-9_]{{1,16}})\): {{0,8}}(?P<v_size>{NUM}) MiB",
        (
            ("kv_total", "MiB"),
            ("cells", "tokens"),
            ("layers", ""),
            ("seqs", ""),
            ("type_k", "text"),
            ("k_size", "MiB"),
            ("type_v", "text"),
            ("v_size", "MiB"),
        ),
        source,
    )


ENGINE = "llama_cpp"
"""The runtime (``StartupLog.engine``, kvcalc.engines.registry) whose log these lines are."""

RULES: tuple[Rule, ...] = (
    Rule(
        "kv_header",
        "kv_size = ",
        rf"kv_size = (?P<cells>{INT}), (?:offload = (?P<offload>[01]), )?type_k = '(?P<type_k>"
        rf"[a-z0-9_]{{1,16}})', type_v = '(?P<type_v>[a-z0-9_]{{1,16}})', n_layer = (?P<n_layer>{INT})",
        (("cells", "tokens"), ("offload", ""), ("type_k", "text"), ("type_v", "text"), ("n_layer", "")),
        "llama_kv_cache_init (2024-2025; llama_kv_cache_unified 2025 drops offload)",
    ),
    Rule(
        "kv_layer",
        ": layer ",
        rf": layer +(?P<layer>{INT}): n_embd_k_gqa = (?P<n_embd_k_gqa>{INT}), n_embd_v_gqa = "
        rf"(?P<n_embd_v_gqa>{INT})",
        (("layer", ""), ("n_embd_k_gqa", ""), ("n_embd_v_gqa", "")),
        "llama_kv_cache_init / llama_kv_cache_unified (2024-2025)",
    ),
    _kv_size_rule("kv_cache", "src/llama-kv-cache.cpp (2025-2026)"),
    _kv_size_rule("kv_cache_unified", "src/llama-kv-cache-unified.cpp (2025)"),
    Rule(
        "kv_self",
        "KV self size ",
        rf"KV self size {{1,4}}= {{0,8}}(?P<kv_total>{NUM}) MiB, K \((?P<type_k>[a-z0-9_]"
        rf"{{1,16}})\): {{0,8}}(?P<k_size>{NUM}) MiB, "
        rf"V \((?P<type_v>[a-z0-9_]{{1,16}})\): {{0,8}}(?P<v_size>{NUM}) MiB",
        (("kv_total", "MiB"), ("type_k", "text"), ("k_size", "MiB"), ("type_v", "text"), ("v_size", "MiB")),
        "llama_new_context_with_model / llama_init_from_model (2024-2025)",
    ),
    Rule(
        "kv_buffer",
        " KV buffer size = ",
        rf"{_DEV}KV buffer size = {{0,8}}(?P<kv_buffer>{NUM}) MiB",
        (("device", "text"), ("kv_buffer", "MiB")),
        "llama_kv_cache_init / llama_kv_cache",
        40,
    ),
    Rule(
        "compute_buffer",
        " compute buffer size = ",
        rf"{_DEV}compute buffer size = {{0,8}}(?P<compute_buffer>{NUM}) MiB",
        (("device", "text"), ("compute_buffer", "MiB")),
        "llama_context / llama_new_context_with_model",
        40,
    ),
    Rule(
        "output_buffer",
        " output buffer size = ",
        rf"{_DEV}output buffer size = {{0,8}}(?P<output_buffer>{NUM}) MiB",
        (("device", "text"), ("output_buffer", "MiB")),
        "llama_context::output_reserve",
        40,
    ),
    Rule(
        "model_buffer",
        " buffer size = ",
        rf"{_DEV}(?:model )?buffer size = {{0,8}}(?P<model_buffer>{NUM}) MiB",
        (("device", "text"), ("model_buffer", "MiB")),
        "load_tensors / llm_load_tensors",
        40,
    ),
    Rule("n_ctx", ": n_ctx ", rf": n_ctx {{1,16}}= (?P<n_ctx>{INT})", (("n_ctx", "tokens"),), "llama_context"),
    Rule(
        "n_ctx_seq",
        "n_ctx_per_seq (",
        rf"n_ctx_per_seq \((?P<n_ctx_seq>{INT})\) < n_ctx_train \((?P<n_ctx_train>{INT})\)",
        (("n_ctx_seq", "tokens"), ("n_ctx_train", "tokens")),
        "llama_init_from_model (2025)",
    ),
    Rule(
        "n_ctx_seq",
        "n_ctx_seq (",
        rf"n_ctx_seq \((?P<n_ctx_seq>{INT})\) < n_ctx_train \((?P<n_ctx_train>{INT})\)",
        (("n_ctx_seq", "tokens"), ("n_ctx_train", "tokens")),
        "llama_context (2025-2026)",
    ),
    Rule(
        "n_batch", ": n_batch ", rf": n_batch {{1,16}}= (?P<n_batch>{INT})", (("n_batch", "tokens"),), "llama_context"
    ),
    Rule(
        "n_ubatch",
        ": n_ubatch ",
        rf": n_ubatch {{1,16}}= (?P<n_ubatch>{INT})",
        (("n_ubatch", "tokens"),),
        "llama_context",
    ),
    Rule(
        "flash_attn",
        ": flash_attn ",
        r": flash_attn {1,16}= (?P<flash_attn>[a-z0-9]{1,8})",
        (("flash_attn", "text"),),
        "llama_context",
    ),
    Rule(
        "swa_cache",
        "creating ",
        rf"creating {{1,8}}(?P<which>non-SWA|SWA) KV cache, size = (?P<cells>{INT}) cells",
        (("which", "text"), ("cells", "tokens")),
        "llama_kv_cache_iswa (2025-2026)",
    ),
    Rule(
        "meta_n_layer",
        ": n_layer ",
        rf": n_layer {{1,16}}= (?P<n_layer>{INT})",
        (("n_layer", ""),),
        "print_info / llm_load_print_meta",
    ),
    Rule(
        "meta_n_head_kv",
        ": n_head_kv ",
        rf": n_head_kv {{1,16}}= (?P<n_head_kv>{INT})",
        (("n_head_kv", ""),),
        "print_info / llm_load_print_meta",
    ),
    Rule(
        "meta_n_embd_k_gqa",
        ": n_embd_k_gqa ",
        rf": n_embd_k_gqa {{1,16}}= (?P<n_embd_k_gqa>{INT})",
        (("n_embd_k_gqa", ""),),
        "print_info / llm_load_print_meta",
    ),
    Rule(
        "meta_n_ctx_train",
        ": n_ctx_train ",
        rf": n_ctx_train {{1,16}}= (?P<n_ctx_train>{INT})",
        (("n_ctx_train", "tokens"),),
        "print_info / llm_load_print_meta",
    ),
    Rule(
        "file_size",
        "file size ",
        rf"file size {{1,16}}= (?P<file_size>{NUM}) (?P<u>GiB|MiB)",
        (("file_size", "@u"),),
        "print_info (2025-2026)",
    ),
    Rule(
        "file_size",
        "model size ",
        rf"model size {{1,16}}= (?P<file_size>{NUM}) (?P<u>GiB|MiB)",
        (("file_size", "@u"),),
        "llm_load_print_meta (2024)",
    ),
    Rule(
        "file_type",
        "file type ",
        r"file type {1,16}= (?P<file_type>[A-Za-z0-9_][A-Za-z0-9_ .()-]{0,47})",
        (("file_type", "text"),),
        "print_info",
    ),
    Rule(
        "file_type",
        "model ftype ",
        r"model ftype {1,16}= (?P<file_type>[A-Za-z0-9_][A-Za-z0-9_ .()-]{0,47})",
        (("file_type", "text"),),
        "llm_load_print_meta",
    ),
)

RULES += (
    Rule(
        "meta_n_embd_head_k",
        ": n_embd_head_k ",
        rf": n_embd_head_k {{1,16}}= (?P<n_embd_head_k>{INT})",
        (("n_embd_head_k", ""),),
        "print_info / llm_load_print_meta",
    ),
    Rule(
        "layer_device",
        " assigned to device ",
        rf"layer {{1,4}}(?P<layer>{INT}) assigned to device "
        r"(?P<device>[A-Za-z][A-Za-z0-9_]{0,24})",
        (("layer", ""), ("device", "text")),
        "load_tensors (2025-2026)",
        20,
    ),
)

VERSION_RULES: tuple[Rule, ...] = (
    version_rule("build: ", r"build: (?P<version>[0-9]{1,6} \([0-9a-f]{4,40}\))", "common/common.cpp build info"),
    version_rule(
        "version: ",
        r"version: (?P<version>[0-9]{1,6} \([0-9a-f]{4,40}\))",
        "common/common.cpp --version (ik_llama.cpp logs)",
    ),
)

EXPECTED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("kv_size", "kv_self", "kv_header"), "KV cache: 'llama_kv_cache: size = X MiB (C cells, L layers, ...)'"),
    (("kv_buffer",), "KV placement: '<device> KV buffer size = X MiB'"),
    (("model_buffer",), "weights: '<device> model buffer size = X MiB'"),
    (("compute_buffer",), "compute: '<device> compute buffer size = X MiB'"),
)

SIGNATURES = ("llama_", "llm_load_", "print_info:", "load_tensors:", "ggml_", "llama_context", "llama_kv_cache")


# ------------------------------------------------------------------ calibration (kvcalc.startup_log.formats)
GIB_KEPT: frozenset[str] = frozenset()
"""No GiB flag: llama.cpp's buffers follow from the cells and the GGUF file."""
_FLOAT_BYTES = {"f32": 4, "f16": 2, "bf16": 2}  # KV element bytes of the unquantized cache types


def flags(log: StartupLog, block_bytes: int | None) -> Flags:
    """``-c`` (the cells, else n_ctx), ``-ctk``, ``-ctv``, ``-b``, ``-ub``, ``-np`` (more than one
    sequence), ``-fa`` and ``--gguf-type`` (print_info's file type)."""
    out = pick(
        log,
        (
            ("cells", "-c", int),
            ("type_k", "-ctk", str),
            ("type_v", "-ctv", str),
            ("n_batch", "-b", int),
            ("n_ubatch", "-ub", int),
        ),
    )
    n_ctx = log.value("n_ctx")
    if "-c" not in out and n_ctx is not None:
        out["-c"] = number(n_ctx, int)
    seqs = log.value("seqs")
    if seqs is not None and int(seqs.amount or 1) > 1:
        out["-np"] = int(seqs.amount or 1)
    fa = log.value("flash_attn")
    if fa is not None:
        out["-fa"] = {"0": "off", "1": "on"}.get(fa.text, fa.text)
    file_type = log.value("file_type")
    if file_type is not None:
        out["--gguf-type"] = gguf_type_name(file_type.text)
    return out


_K_SIZES = {"Small": "S", "Medium": "M", "Large": "L"}


def gguf_type_name(printed: str) -> str:
    """The GGUF file type's name for the words llama.cpp prints (``src/llama-model-loader.cpp``
    ``llama_model_ftype_name``, 2024-2026: "Q4_K - Medium", "Q2_K - Medium" is Q2_K, "IQ3_S mix - 3.66 bpw"
    is IQ3_M, "IQ4_XS - 4.25 bpw", " (guessed)" appended when the header has no file type).

    >>> gguf_type_name("Q4_K - Medium"), gguf_type_name("IQ4_XS - 4.25 bpw"), gguf_type_name("Q8_0")
    ('Q4_K_M', 'IQ4_XS', 'Q8_0')
    """
    text = printed.strip().removesuffix("(guessed)").strip()
    k = re.fullmatch(r"(Q[2-6]_K) - (Small|Medium|Large)", text)
    if k:
        return "Q2_K" if text == "Q2_K - Medium" else f"{k.group(1)}_{_K_SIZES[k.group(2)]}"
    if text.startswith("IQ3_S mix"):
        return "IQ3_M"
    bpw = re.fullmatch(r"([A-Z0-9_]{2,16}) - [0-9.]{1,8}(?: bpw.*)?", text)
    return bpw.group(1) if bpw else text


def config_flags(log: StartupLog, config: Mapping[str, Any], found: Flags) -> Flags:
    """``-c`` from "KV self size = X MiB" when the log prints no cell count: X MiB / (2 x layers x KV heads x
    head_dim x element bytes) cells of an unquantized (f16 / bf16 / f32) cache of a uniform full-attention
    model (llama_kv_cache_init allocates ``n_embd_k_gqa x kv_size`` elements per layer for K, the same for
    V), when that is a whole number."""
    from kvcalc.startup_log.vllm import vllm_block_bytes

    total, k, v = log.value("kv_total"), log.value("type_k"), log.value("type_v")
    if "-c" in found or total is None or k is None or v is None or k.text != v.text:
        return {}
    cell = vllm_block_bytes(config, kv_bytes=_FLOAT_BYTES.get(k.text, 0), block_size=1)
    amount = int(total.amount or 0)
    return {"-c": amount // cell} if cell and amount and amount % cell == 0 else {}


def direct_check(log: StartupLog, g: Geometry) -> ModelCheck:
    """The log's n_layer, n_embd_k_gqa and n_head_kv against the config's geometry."""
    reasons: list[str] = []
    layers = log.value("n_layer") or log.value("layers")
    if layers is not None and int(layers.amount or 0) not in (0, g.layers):
        reasons.append(f"the log's KV cache has {layers.text} layers; the config has {g.layers}")
    k = log.value("n_embd_k_gqa")
    if k is not None and int(k.amount or 0) != g.kv_heads * g.head_dim:
        reasons.append(
            f"the log's n_embd_k_gqa is {k.text}; the config gives {g.kv_heads} KV heads x {g.head_dim}"
            f" = {g.kv_heads * g.head_dim}"
        )
    kv = log.value("n_head_kv")
    if kv is not None and int(kv.amount or 0) != g.kv_heads:
        reasons.append(f"the log's n_head_kv is {kv.text}; the config has {g.kv_heads} KV heads")
    tested = any(x is not None for x in (layers, k, kv))
    if reasons:
        return ModelCheck(False, tuple(reasons) + ("the log is of another model",))
    return ModelCheck(True if tested else None, () if tested else ("the log prints no layer or KV-head figure",))
