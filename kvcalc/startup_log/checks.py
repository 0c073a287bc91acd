"""Does a startup log come from the model it is planned with? The KV figures a log prints fix the
model's KV bytes per token per GPU (layers x KV heads x head_dim x 2 x element bytes); a config whose
figure falls outside what the log's own rounding allows is another model (or another KV dtype)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kvcalc.startup_log.formats import log_module
from kvcalc.startup_log.types import StartupLog

KV_BYTES_CANDIDATES = (2, 1)  # bf16 / fp16 and fp8 KV caches (the log rarely says which)


@dataclass(frozen=True)
class Geometry:
    """A config's attention geometry: layers, KV heads, head_dim."""

    layers: int
    kv_heads: int
    head_dim: int

    def token_bytes(self, tp: int, kv_bytes: int) -> int:
        """KV bytes of one token on one GPU: 2 x layers x max(1, kv_heads // tp) x head_dim x kv_bytes."""
        return 2 * self.layers * max(1, self.kv_heads // max(1, tp)) * self.head_dim * kv_bytes


@dataclass(frozen=True)
class ModelCheck:
    """``consistent`` is True / False when the log's figures could / could not come from the config,
    None when the log has no figure to test; ``reasons`` says why in sentences."""

    consistent: bool | None
    reasons: tuple[str, ...]


def model_geometry(config: Mapping[str, Any]) -> Geometry | None:
    """The layers, KV heads and head_dim of a config.json (text_config for multimodal ones), or None.

    >>> model_geometry({"num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128})
    Geometry(layers=28, kv_heads=8, head_dim=128)
    """
    text = config.get("text_config") or config
    try:
        heads = int(text["num_attention_heads"])
        return Geometry(
            int(text["num_hidden_layers"]),
            int(text.get("num_key_value_heads") or heads),
            int(text.get("head_dim") or int(text["hidden_size"]) // heads),
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def _kv_bytes(log: StartupLog) -> tuple[int, ...]:
    dtype = log.value("kv_cache_dtype") or log.value("kv_dtype") or log.value("type_k")
    if dtype is None:
        return KV_BYTES_CANDIDATES
    text = dtype.text.lower()
    return (1,) if "fp8" in text or "8" in text.replace("bf16", "").replace("f16", "") else (2,)


def _band(log: StartupLog, tp: int, block: int) -> tuple[float, float, str] | None:
    """(low, high) bytes per token the log allows, and the figures used (the engine's log module's ``band``)."""
    module = log_module(log.engine)
    band = getattr(module, "band", None)
    return band(log, tp, block) if band is not None else None


def check_model(
    log: StartupLog, config: Mapping[str, Any], *, tensor_parallel_size: int | None = None, block_size: int = 16
) -> ModelCheck:
    """Whether the log's KV figures fit ``config`` (layers, KV heads, head_dim) at the log's TP.

    vLLM: "Available KV cache memory: A GiB" with "GPU KV cache size: N tokens" bound the bytes per
    token to (A - rounding) / (N + block_size) .. (A + rounding) / N (blocks are whole:
    ``num_blocks = available // page_bytes``, vllm/v1/core/kv_cache_utils.py). TensorRT-LLM:
    "Allocated X GiB ... (N)" gives X / N. At TP > 1 vLLM sizes the pool from the smallest rank's
    memory (vllm/v1/core/kv_cache_utils.py get_kv_cache_configs) while the log shows one rank's, so
    the lower bound is halved there. SGLang: K size = (N + page) slots x layers x heads x
    head_dim x bytes. llama.cpp: n_layer and n_embd_k_gqa are compared directly. The KV element is 2
    or 1 byte (fp8) unless the log names its KV dtype. Uniform full-attention models only for the
    byte bands (sliding-window and hybrid models pad or share blocks).

    >>> from kvcalc.startup_log.parse import parse_startup_log
    >>> log = parse_startup_log("Available KV cache memory: 3.81 GiB\\nGPU KV cache size: 31,232 tokens")
    >>> llama8b = {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096}
    >>> check_model(log, llama8b).consistent, check_model(log, dict(llama8b, num_hidden_layers=40)).consistent
    (True, False)
    """
    g = model_geometry(config)
    if g is None:
        return ModelCheck(None, ("the config has no layers / heads to compare",))
    direct = getattr(log_module(log.engine), "direct_check", None)
    if direct is not None:
        return direct(log, g)
    from kvcalc.startup_log.vllm import vllm_block_bytes

    if vllm_block_bytes(config) is None:
        return ModelCheck(None, ("the model has sliding-window, hybrid or latent-attention layers: the log's KV "
                                 "bytes per token are not compared with one per-token figure",))
    tp_q = log.value("tensor_parallel_size") or log.value("tp_size")
    tp = tensor_parallel_size or (int(tp_q.amount or 1) if tp_q is not None else 1)
    band = _band(log, tp, block_size)
    if band is None:
        return ModelCheck(None, ("the log has no KV memory and KV size pair to compare",))
    lo, hi, used = band
    options = [(b, g.token_bytes(tp, b)) for b in _kv_bytes(log)]
    fitting = [(b, t) for b, t in options if lo - 1e-6 <= t <= hi + 1e-6]
    if fitting:
        b, t = fitting[0]
        return ModelCheck(
            True,
            (
                f"{used}: {lo:,.0f}-{hi:,.0f} B per token per GPU; the config gives {t:,} B "
                f"({g.layers} layers x {max(1, g.kv_heads // tp)} KV heads x {g.head_dim} x 2 x "
                f"{b} B at TP {tp})",
            ),
        )
    shown = ", ".join(f"{t:,} B ({b}-byte KV)" for b, t in options)
    return ModelCheck(
        False,
        (
            f"{used} means {lo:,.0f}-{hi:,.0f} B per token per GPU, but the config gives {shown} "
            f"at TP {tp}: the log is of another model, KV dtype or parallel size",
        ),
    )
