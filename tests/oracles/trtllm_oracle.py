"""Oracle: TensorRT-LLM's PyTorch-backend KV-cache sizing, reproduced line by line, written to a fixture.

Dev-only; nothing of kvcalc is imported. TensorRT-LLM needs CUDA to import, so its code is read, not run:
the public source NVIDIA/TensorRT-LLM at the stored commits below (the 1.x line's PyTorch backend, what
``trtllm-serve`` / the LLM API run by default)::

    python tests/oracles/trtllm_oracle.py        # writes tests/fixtures/trtllm_oracle.json

``tensorrt_llm/_torch/pyexecutor/_util.py`` (commit 0004396720054fd8e205cbf616f21f0b57c6b412), ``KvCacheCreator``:
    ``_cal_max_memory``: ``available_kv_mem = int((total_gpu_memory - peak_memory + allocated_bytes) x fraction)``
    (``peak_memory`` = the profiled torch peak + memory outside torch; ``allocated_bytes`` the estimation run's
    temporary KV cache, added back: the case's ``peak_without_kv`` is weights + activation peak + non-torch);
    ``configure_kv_cache_capacity``: with a user ``max_tokens``, ``max_memory = min(max_memory,
    bytes_for_tokens(max_tokens))``; then ``kv_cache_config.max_tokens = tokens_for_budget(max_memory)``
    (``max_memory // bytes_per_token``).
``tensorrt_llm/_torch/pyexecutor/resource_manager.py`` (commit of the same stored copy), ``KVCacheManager``:
    ``get_cache_size_per_token``: ``kv_factor x layers(pp) x head_dim x kv_heads // tp`` (MLA: ``kv_factor``
    1, ``kv_lora_rank + qk_rope_head_dim``, not split by TP) x 2 bytes (fp8 KV: x 1);
    ``calculate_max_num_blocks``: ``blocks_in_primary_pool = int(max_tokens // tokens_per_block)`` (rounded
    DOWN: the fraction x free-memory bound it is min'ed with is the larger one once the activations are freed);
    ``get_max_atten_window_upper_bound``: ``blocks x tokens_per_block`` (beam 1, no sink tokens); a
    ``max_seq_len`` above it is reduced to it ("maxAttentionWindow and maxSequenceLen are too large ...").
``tensorrt_llm/llmapi/llm_args.py``: ``KvCacheConfig.free_gpu_memory_fraction`` 0.9, ``tokens_per_block`` 32.

``resource_manager.py`` ``KVCacheManager.__init__``: with ``KvCacheConfig.max_attention_window`` unset (the
    default), ``max_attention_window_vec = [max_seq_len]``: one window, so a sliding-window model (Gemma 2 / 3,
    Mistral v0.1, gpt-oss) takes the single-pool ``calculate_max_num_blocks`` above with every layer counted;
    ``_util.py`` ``_create_kv_cache_manager`` derives per-layer windows from ``layer_types`` only for
    ``KVCacheManagerV2`` (which ``_non_hybrid_kv_cache_manager_cls`` picks for Gemma 4's per-layer head dims).

Scope: a single window (a user ``max_attention_window`` with several windows, VSWA, goes through the C++
``calculateMaxNumBlocks`` per window; KVCacheManagerV2 is not transcribed: its split of the quota over pool
groups is made by the runtime storage manager, C++ by default and not stored at this commit, see
kvcalc.trtllm.windows), no speculative decoding, no
attention DP, beam width 1.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any

from oracle_fixture import write_fixture

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONFIGS = os.path.join(ROOT, "data", "configs")
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "trtllm_oracle.json")
COMMIT = "0004396720054fd8e205cbf616f21f0b57c6b412"
MiB = 1 << 20
GiB = 1 << 30


# fields a config file leaves to its transformers class (TensorRT-LLM reads the config through transformers):
# Gemma3TextConfig's max_position_embeddings (transformers models/gemma3/configuration_gemma3.py)
CLASS_DEFAULTS = {"gemma3_text": {"max_position_embeddings": 131072}}


def text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The text model's config with its class defaults filled in."""
    tc = config.get("text_config") or config
    return {**CLASS_DEFAULTS.get(tc.get("model_type", ""), {}), **{k: v for k, v in tc.items() if v is not None}}


def pp_layers(n: int, rank: int, pp: int) -> int:
    """tensorrt_llm/mapping.py ``pp_layers``: an even split (the cases use layer counts divisible by ``pp``)."""
    assert n % pp == 0, "uneven pipeline splits are not transcribed"
    return n // pp


def cache_size_per_token(config: dict[str, Any], tp: int, layers: int, fp8: bool) -> int:
    """resource_manager.py KVCacheManager.get_cache_size_per_token."""
    tc = text_config(config)
    kv_heads = tc.get("num_key_value_heads") or tc["num_attention_heads"]
    if "kv_lora_rank" in tc and tc.get("kv_lora_rank"):          # mla = hasattr(config, "kv_lora_rank")
        head_dim = tc["kv_lora_rank"] + tc["qk_rope_head_dim"]
        kv_factor = 1
    else:
        head_dim = tc.get("head_dim")
        if not isinstance(head_dim, int):
            head_dim = tc["hidden_size"] // tc["num_attention_heads"]
        head_dim = head_dim * kv_heads // tp
        kv_factor = 2
    mem = kv_factor * layers * head_dim
    return mem * (1 if fp8 else 2)


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    with open(os.path.join(CONFIGS, case["config"]), encoding="utf-8") as f:
        config = json.load(f)
    tc = text_config(config)
    tp, pp = case.get("tp", 1), case.get("pp", 1)
    tpb = case.get("tokens_per_block") or 32
    fraction = case.get("free_gpu_memory_fraction") or 0.9
    total = case["gpu_mib"] * MiB
    per_stage = []
    for rank in range(pp):
        c = cache_size_per_token(config, tp, pp_layers(tc["num_hidden_layers"], rank, pp), case.get("fp8_kv", False))
        max_memory = int((total - case["peak_without_kv_bytes"]) * fraction)        # _cal_max_memory
        if max_memory <= 0:
            return {"refused": "no memory for the KV cache", "bytes_per_token": c}
        if case.get("max_tokens") is not None:                                    # configure_kv_cache_capacity
            max_memory = min(max_memory, case["max_tokens"] * c)
        max_tokens = max_memory // c                                              # tokens_for_budget
        blocks = int(max_tokens // tpb)                                           # calculate_max_num_blocks
        per_stage.append((blocks, c))
    blocks, c = min(per_stage)          # mapping.world_size > 1: allreduce MIN of max_tokens
    if blocks == 0:
        return {"refused": "Impossible to fit in any sequence in kvCache", "bytes_per_token": c}
    upper = blocks * tpb                                                          # get_max_atten_window_upper_bound
    max_seq_len = case.get("max_seq_len") or tc.get("max_position_embeddings")
    return {"bytes_per_token": c, "blocks": blocks, "tokens": blocks * tpb,
            "max_seq_len": min(max_seq_len, upper), "reduced": max_seq_len > upper}


GPUS = {"l4": 23034, "a10": 23028, "rtx-4090": 24564, "a100-40gb": 40960, "l40s": 46068, "a100-80gb": 81920,
        "h100-sxm": 81559, "h200": 143771, "b200": 183359}


def _c(name: str, config: str, gpu: str, peak_mib: int, **kw: Any) -> dict[str, Any]:
    return {"name": name, "config": config, "gpu": gpu, "gpu_mib": GPUS[gpu], "peak_without_kv_bytes": peak_mib * MiB,
            **kw}


G3_1, G3_27, G2_9 = "google__gemma-3-1b-it.json", "google__gemma-3-27b-it.json", "google__gemma-2-9b-it.json"
M7_01, OSS20, OSS120 = "mistralai__Mistral-7B-v0.1.json", "openai__gpt-oss-20b.json", "openai__gpt-oss-120b.json"
L8, L70, Q8, Q32 = ("meta-llama__Llama-3.1-8B.json", "meta-llama__Llama-3.1-70B.json", "Qwen__Qwen3-8B.json",
                    "Qwen__Qwen3-32B.json")
def _family(prefix: str, config: str, gpu: str, peak_mib: int, variants: dict[str, dict[str, Any]]) -> list[Any]:
    """One case per variant of one deployment: ``prefix + suffix`` with the variant's inputs."""
    return [_c(prefix + suffix, config, gpu, peak_mib, **kw) for suffix, kw in variants.items()]


CASES = [
    *_family("llama8-h100", L8, "h100-sxm", 19000, {
        "": {}, "-fp8": {"fp8_kv": True}, "-frac05": {"free_gpu_memory_fraction": 0.5},
        "-maxtok": {"max_tokens": 100000}, "-maxtok-odd": {"max_tokens": 8191}, "-tpb64": {"tokens_per_block": 64},
        "-maxtok-odd-tpb64": {"tokens_per_block": 64, "max_tokens": 10000}}),
    _c("llama8-4090", L8, "rtx-4090", 19800),
    _c("llama8-4090-seq-reduced", L8, "rtx-4090", 22500),
    _c("llama8-l4-fp8", L8, "l4", 19500, fp8_kv=True),
    _c("llama8-a100-40-seq32k", L8, "a100-40gb", 19000, max_seq_len=32768),
    _c("llama8-l40s-tpb16", L8, "l40s", 19200, tokens_per_block=16),
    _c("llama8-h200-maxtok-1000", L8, "h200", 19000, max_tokens=1000),
    _c("llama70-4xh100", L70, "h100-sxm", 38500, tp=4),
    _c("llama70-8xh100-fp8", L70, "h100-sxm", 21000, tp=8, fp8_kv=True),
    _c("llama70-2xh200", L70, "h200", 70500, tp=2),
    _c("llama70-pp2-tp4", L70, "h100-sxm", 21500, tp=4, pp=2),
    _c("llama70-8xa100-40", L70, "a100-40gb", 21000, tp=8),
    _c("qwen3-8b-h100", Q8, "h100-sxm", 19300),
    _c("qwen3-8b-a100-80-frac095", Q8, "a100-80gb", 19300, free_gpu_memory_fraction=0.95),
    _c("qwen3-8b-4090-fp8", Q8, "rtx-4090", 19500, fp8_kv=True),
    _c("qwen3-32b-2xh100", Q32, "h100-sxm", 34500, tp=2),
    _c("qwen3-32b-4xl40s", Q32, "l40s", 19500, tp=4),
    _c("qwen3-32b-h200", Q32, "h200", 68000),
    _c("qwen3-30b-a3b-h100", "Qwen__Qwen3-30B-A3B.json", "h100-sxm", 62000),
    _c("qwen3-235b-4xh200", "Qwen__Qwen3-235B-A22B.json", "h200", 120000, tp=4),
    _c("mixtral-2xh100", "mistralai__Mixtral-8x7B-v0.1.json", "h100-sxm", 48500, tp=2),
    _c("mistral7-v03-a10", "mistralai__Mistral-7B-Instruct-v0.3.json", "a10", 17500),
    _c("phi4-h100", "microsoft__phi-4.json", "h100-sxm", 31500),
    _c("llama1b-l4", "meta-llama__Llama-3.2-1B.json", "l4", 4200),
    _c("qwen25-7b-l40s", "Qwen__Qwen2.5-7B-Instruct.json", "l40s", 18000),
    _c("dsv2-lite-h100", "deepseek-ai__DeepSeek-V2-Lite.json", "h100-sxm", 34000),
    _c("dsv3-8xh200", "deepseek-ai__DeepSeek-V3.json", "h200", 92000, tp=8),
    _c("dsv3-8xb200-fp8", "deepseek-ai__DeepSeek-V3.json", "b200", 92000, tp=8, fp8_kv=True),
    _c("kimi-k2-8xh200-fp8", "moonshotai__Kimi-K2-Instruct.json", "h200", 130000, tp=8, fp8_kv=True),
    _c("llama8-4090-no-room", L8, "rtx-4090", 24600),
    # sliding windows, max_attention_window unset: one window of max_seq_len, every layer pooled at full length
    _c("gemma3-1b-l4", G3_1, "l4", 4500),
    _c("gemma3-1b-4090-fp8-tpb64", G3_1, "rtx-4090", 4500, fp8_kv=True, tokens_per_block=64),
    _c("gemma3-27b-h100-seq-reduced", G3_27, "h100-sxm", 58000),
    _c("gemma3-27b-2xh100-seq32k", G3_27, "h100-sxm", 30000, tp=2, max_seq_len=32768),
    _c("gemma2-9b-a100-40", G2_9, "a100-40gb", 21000),
    _c("gemma2-9b-l40s-maxtok", G2_9, "l40s", 21000, max_tokens=30000),
    _c("mistral7-v01-4090", M7_01, "rtx-4090", 17500),
    _c("mistral7-v01-h100-fp8", M7_01, "h100-sxm", 17500, fp8_kv=True),
    _c("gpt-oss-20b-h100", OSS20, "h100-sxm", 16000),
    _c("gpt-oss-20b-4090-seq-reduced", OSS20, "rtx-4090", 21000),
    _c("gpt-oss-120b-h100", OSS120, "h100-sxm", 68000),
    _c("gpt-oss-120b-4xh200-tp4", OSS120, "h200", 20000, tp=4),
    _c("gpt-oss-120b-pp2-b200", OSS120, "b200", 36000, pp=2),
]

ASIDE = [   # kept aside: not looked at while fixing kvcalc
    _c("aside-llama8-a100-80", L8, "a100-80gb", 19100),
    _c("aside-llama8-h100-maxtok-tpb32", L8, "h100-sxm", 19000, max_tokens=50001),
    _c("aside-qwen3-8b-l4-seq-reduced", Q8, "l4", 21500),
    _c("aside-qwen3-32b-2xa100-80-fp8", Q32, "a100-80gb", 34500, tp=2, fp8_kv=True),
    _c("aside-llama70-4xh200-tpb64", L70, "h200", 38500, tp=4, tokens_per_block=64),
    _c("aside-dsv2-lite-a100-80-maxtok", "deepseek-ai__DeepSeek-V2-Lite.json", "a100-80gb", 34000, max_tokens=77777),
    _c("aside-mixtral-4xl40s", "mistralai__Mixtral-8x7B-v0.1.json", "l40s", 26000, tp=4),
    _c("aside-phi4-a100-40-frac08", "microsoft__phi-4.json", "a100-40gb", 31500, free_gpu_memory_fraction=0.8),
    _c("aside-qwen3-30b-2xh100-seq8k", "Qwen__Qwen3-30B-A3B.json", "h100-sxm", 33000, tp=2, max_seq_len=8192),
    _c("aside-llama1b-4090-fp8-maxtok", "meta-llama__Llama-3.2-1B.json", "rtx-4090", 4200, fp8_kv=True,
       max_tokens=123457),
    _c("aside-gemma3-1b-a10-frac05", G3_1, "a10", 4500, free_gpu_memory_fraction=0.5),
    _c("aside-gemma2-9b-2xl4-tp2", G2_9, "l4", 12000, tp=2),
    _c("aside-gpt-oss-20b-l40s-maxtok", OSS20, "l40s", 16000, max_tokens=99999),
    _c("aside-mistral7-v01-a100-80-tpb16", M7_01, "a100-80gb", 17500, tokens_per_block=16),
    _c("aside-gemma3-27b-h200-fp8", G3_27, "h200", 58000, fp8_kv=True),
]


def main(argv: list[str]) -> int:
    header = {"engine": "tensorrt_llm", "backend": "pytorch", "repo": "NVIDIA/TensorRT-LLM", "commit": COMMIT,
              "script": "tests/oracles/trtllm_oracle.py",
              "units": "gpu_mib: MiB (nvidia-smi); peak_without_kv_bytes: weights + activation peak + non-torch, bytes"}
    return write_fixture(FIXTURE, header, CASES, ASIDE, run_case)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
