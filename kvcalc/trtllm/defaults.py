"""TensorRT-LLM's defaults and its own words (tokens, bytes), pinned to the LLM API of the 1.x line.

Pinned: stored copies of NVIDIA/TensorRT-LLM (code index): ``tensorrt_llm/llmapi/llm_args.py``
(``KvCacheConfig``, ``BaseLlmArgs``; commit fcd3f31682808ae56118ae43c1d7864a3a945e6f),
``tensorrt_llm/_torch/pyexecutor/_util.py`` (``KvCacheCreator._cal_max_memory``; commit
d8ae02caed59708512e5aa578a09bb09f365bfed), ``docs/source/reference/memory.md`` (the C++ runtime's
pool and log lines) and the C++ ``kvCacheManager`` behaviour the public logs show.
"""
from __future__ import annotations

from ..units import GiB

TRTLLM_VERSION = "1.3"
"""The release line whose rules apply by default: the pinned commits above, of TensorRT-LLM's main in
mid-2026 (the 1.3 line; :data:`TRTLLM_VERSIONS` says why)."""

TRTLLM_VERSIONS = ("1.3", "1.0")
"""Release lines whose rules kvcalc keeps (``--trtllm-version``). "1.0": the mid-2025 PyTorch backend (the
1.0 release candidates; NVIDIA/TensorRT-LLM#6294's trtllm-bench log of July 2025), whose
``resource_manager.py`` ``KVCacheManager.calculate_max_num_blocks`` rounded its token count UP to whole
blocks, ``math.ceil(max_tokens / tokens_per_block)``, after ``_util.py`` ``estimate_max_kv_cache_tokens``
took ``min(int(available_kv_mem // kv_size_per_token), kv_cache_config.max_tokens)`` (stored copies whose
"Both free_gpu_memory_fraction and max_tokens are set (to F and N, respectively)" warning is the log's own
words). At 0004396 (the default) it is ``int(max_tokens // tokens_per_block)``, rounded down (the August-2025 rework
NVIDIA/TensorRT-LLM#5933, "improve kvcache allocation in PyTorch runtime", once taken as the change, predates
1.1.0rc3, which still rounds up). The 1.0 rule still holds for 1.1.0rc3 (the DGX
Spark image of December 2025: jeansblog/trt_llm's gpt-oss-120b log, max_tokens 86,711 -> 2,710 blocks = 86,720
tokens), so the round-down came after it: "1.0" covers 1.0 through 1.1.0rc3.
Commit 0004396 itself is a main-branch commit of mid-2026, not a 1.1 tag: its ``_util.py`` carries a 2026
copyright and routes Gemma 4 (``is_gemma4_hybrid``), which reached main on 2026-05-09
(NVIDIA/TensorRT-LLM#12932); the 1.3.0 release candidates serve Gemma 4 (NVIDIA/TensorRT-LLM#14942 runs
1.3.0rc17's container), so 0004396's rules are those of the 1.3 line or a later main. Which release first
contains it is not established here (the stored ``tensorrt_llm/version.py`` is one copy, 1.0.0rc4; the
repository's 2.5 GB snapshot, with its tags, could not be fetched), so the default is named "1.3" (it was "1.1"
until 1.1.0rc3's log contradicted that); 1.1 final and 1.2 are not pinned to either rule."""

TRTLLM_BACKENDS = ("pytorch", "cpp")
"""``trtllm_backend``: the PyTorch backend of the 1.x LLM API / ``trtllm-serve`` (the default; ``_util.py``
``KvCacheCreator`` and ``resource_manager.py`` ``KVCacheManager`` at commit
0004396720054fd8e205cbf616f21f0b57c6b412) or the C++ runtime of ``trtllm-build`` engines (the 0.x logs)."""

DEFAULT_FREE_GPU_MEMORY_FRACTION = 0.9
"""``KvCacheConfig.free_gpu_memory_fraction`` (llm_args.py; ge 0, le 1): the share of the memory
free after the weights and the profiled activations that the KV cache takes ("Default is 90%")."""

DEFAULT_TOKENS_PER_BLOCK = 32
"""``KvCacheConfig.tokens_per_block`` of the LLM API / ``trtllm-serve`` (llm_args.py). Engines built
by ``trtllm-build`` for the C++ runtime of the 0.x releases used 64 (the memory.md log shows it):
pass ``tokens_per_block=64`` for those."""

DEFAULT_MAX_BATCH_SIZE = 2048
"""``BaseLlmArgs.max_batch_size`` (``trtllm-serve --max_batch_size``)."""

DEFAULT_MAX_NUM_TOKENS = 8192
"""``BaseLlmArgs.max_num_tokens``: tokens of one forward pass, what the activation profile runs."""

DEFAULT_RUNTIME_RESERVED_BYTES = round(0.75 * GiB)
"""Memory outside weights, KV and the activation peak (CUDA context, runtime and decoder buffers,
NCCL): an assumption, from memory.md's H100 log: 79.10 GiB total - 70.48 GiB available - 6695 MiB
engine - 1134.01 MiB execution context - 43.29 MB runtime buffers - 180.30 MB decoder = 0.75 GiB.
Measure it with ``non_torch_gib``."""

KV_CACHE_DTYPES = ("auto", "fp8")
"""``KvCacheConfig.dtype`` values kvcalc models (nvfp4 is not)."""

REDUCED_WINDOW_WARNING = ("maxAttentionWindow and maxSequenceLen are too large for at least one sequence to fit "
                          "in kvCache. they are reduced to {n}")
REDUCED_WINDOW_WARNING_PYTORCH = REDUCED_WINDOW_WARNING.replace("they are", "They are")
"""The PyTorch backend's words (``KVCacheManager.__init__``): it reduces to ``blocks x tokens_per_block``
(``get_max_atten_window_upper_bound``, beam width 1, no sink tokens)."""
"""The C++ runtime's warning when one ``max_seq_len`` request does not fit the pool; it then serves
``blocks x tokens_per_block - tokens_per_block + 1`` tokens at most (the 22.18 GiB card log:
82 blocks x 64 -> 5185)."""
