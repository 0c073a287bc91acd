"""vLLM's startup, step 3: the KV-cache pool the budget holds (bytes, blocks, tokens).

Sources (vllm-project/vllm 0.33.0, read, not copied): ``v1/engine/core.py``
(``EngineCore._initialize_kv_caches``: the layers' specs, then the budget, then the pool),
``v1/worker/gpu_model_runner.py`` (``GPUModelRunner.get_kv_cache_spec``), ``v1/core/kv_cache_planning.py``
(``get_global_kv_cache_groups``, ``get_kv_cache_configs``: per pipeline stage ``available //
page_size // group_size`` blocks, the minimum over stages, and 0.33's null block held back before
the fit check). The grouping itself is kvcalc.vllm.grouping; hybrid block sizes kvcalc.vllm.hybrid.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import UnsupportedError
from ..spec import ModelSpec
from .grouping import Worker, group_caches, kv_layer_partition, workers
from .hybrid import attention_free, engine_caches
from .specs import KVCacheSpec
from .startup import VllmEngineConfig


@dataclass(frozen=True)
class VllmKvPool:
    """Step 3's record: the pool of KV blocks one GPU allocates (bytes, blocks, tokens).

    ``block_size``: tokens per block after the hybrid allocator's alignment; ``groups``: the layer
    specs of each KV-cache group (``uniform_type``: vLLM's ``UniformTypeKVCacheSpecs``);
    ``partition``: KV layers per pipeline stage; ``stages``: the stages holding KV layers (their
    ``needed_bytes`` at the requested length, or 1 token for auto-fit); ``binding`` indexes the
    stage with the fewest blocks, which sets ``num_gpu_blocks``. ``check_kv_bytes``: per stage, the
    budget the one-request fit check compares with (``available`` less the null block in 0.33).
    """

    available_kv_bytes: int
    block_size: int
    caches: tuple[KVCacheSpec, ...]
    groups: tuple[tuple[KVCacheSpec, ...], ...]
    uniform_type: bool
    partition: tuple[int, ...]
    stages: tuple[Worker, ...]
    binding: int
    num_gpu_blocks: int
    check_kv_bytes: tuple[int, ...]

    @property
    def binding_stage(self) -> Worker:
        """The stage with the fewest blocks (ties: the one with the most layers)."""
        return self.stages[self.binding]


def pool_caches(spec: ModelSpec, config: VllmEngineConfig) -> tuple[tuple[KVCacheSpec, ...], int]:
    """(the layer specs vLLM allocates, the block size), ``GPUModelRunner.get_kv_cache_spec`` after the platform's
    block-size update (kvcalc.vllm.hybrid.engine_caches). An attention-free model holds one state page of
    ``max_model_len`` tokens per request (``MambaModelConfig.verify_and_update_config``, prefix caching off)."""
    caches, block_size = engine_caches(spec, config.model_dtype, config.kv_dtype, config.block_size,
                                       config.tensor_parallel_size, config.engine.version, config.draft_layers)
    if attention_free(spec):
        if config.auto_fit:
            raise UnsupportedError("max_model_len -1 (auto-fit) for an attention-free model is not modelled: vLLM "
                                   "sizes its state blocks by max_model_len")
        caches = tuple(replace(c, block_size=config.max_model_len) for c in caches)
    if not caches:
        raise UnsupportedError("this model has no KV cache layers for vLLM to allocate")
    return caches, block_size


def vllm_kv_pool(spec: ModelSpec, config: VllmEngineConfig, available_kv_bytes: int) -> VllmKvPool:
    """Step 3: the block pool ``available_kv_bytes`` holds on each pipeline stage (``get_kv_cache_configs``).

    Per stage ``num_blocks = available // page_bytes // group_size`` (uniform-type groups:
    ``available // sum of the layers' pages``); the pool has the fewest over stages. 0.33 holds one
    block back (the null block) from the budget the fit check uses: ``check = available - block_bytes``.

    Llama 3.1 8B in bfloat16: a 16-token block of one layer holds 16 x 8 KV heads x (128 + 128) x 2 B
    = 65,536 B; the 32 layers form one group, so a pool block costs 32 x 65,536 B = 2 MiB and an
    8 GiB budget holds 8 GiB / 2 MiB = 4,096 blocks:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> from kvcalc.vllm.startup import vllm_engine_config
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> c = vllm_engine_config(spec, total_gpu_bytes=80 * 2**30, max_model_len=8192)
    >>> pool = vllm_kv_pool(spec, c, 8 * 2**30)
    >>> len(pool.groups), pool.groups[0][0].page_size_bytes, pool.binding_stage.block_bytes
    (1, 65536, 2097152)
    >>> pool.num_gpu_blocks, pool.check_kv_bytes == (8 * 2**30 - 2**21,)
    (4096, True)
    """
    caches, block_size = pool_caches(spec, config)
    groups, uniform = group_caches(caches)
    partition = kv_layer_partition(spec.num_layers, config.pipeline_parallel_size, config.draft_layers)
    budget = max(available_kv_bytes, 0)
    stages = workers(groups, uniform, partition, budget, max(config.max_model_len, 1), config.max_in_flight_tokens,
                     config.encoder_tokens)
    binding = min(range(len(stages)), key=lambda i: (stages[i].num_blocks, -stages[i].layers))
    reserves = [w.block_bytes if config.engine.reserves_null_block else 0 for w in stages]
    return VllmKvPool(available_kv_bytes=available_kv_bytes, block_size=block_size, caches=caches,
                      groups=tuple(tuple(g) for g in groups), uniform_type=uniform, partition=partition,
                      stages=tuple(stages), binding=binding, num_gpu_blocks=stages[binding].num_blocks,
                      check_kv_bytes=tuple(budget - r for r in reserves))
