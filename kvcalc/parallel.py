"""Tensor and pipeline parallelism: what one GPU of a deployment holds.

Tensor parallelism (``tp``) splits attention heads, KV heads, the MLP, the embeddings and the LM
head (vocabulary-parallel) across ``tp`` ranks and replicates norms and the vision tower. KV heads
per rank are ``max(1, kv_heads // tp)`` (vLLM ``ModelConfig.get_num_kv_heads``: replicated when
``tp`` exceeds them); MLA latents are whole on every rank; recurrent states split by ``tp``.
Pipeline parallelism (``pp``) gives each stage its share of decoder layers, as vLLM's
``get_pp_indices`` (vllm/distributed/utils.py) partitions them, the embeddings to the first stage
and the LM head to the last. Decoder weights are taken as uniform across layers (MoE models whose
first layers are dense deviate slightly).
"""
from __future__ import annotations

from dataclasses import replace

from .dtypes import ceil_div
from .engines.registry import get_engine
from .errors import InputError
from .limits import MAX_GPUS, check_count
from .runtimes import Runtime
from .spec import ModelSpec
from .vllm import pp_layer_partition
from .weights import WeightBytes

LAYER_PARTS = ("attention", "mlp", "mixer")
"""Weight parts (kvcalc.weights) that belong to the decoder layers, split by tp and pp."""


def resolve_parallel(runtime: Runtime, gpus: int, tp: int | None, pp: int | None) -> tuple[int, int]:
    """(tp, pp) for ``gpus`` GPUs: all tensor parallel unless told otherwise; transformers has no tp
    (``device_map="auto"`` splits layers, pipeline style). ``tp x pp`` must equal ``gpus``."""
    if not get_engine(runtime).tensor_parallel:
        if tp not in (None, 1):
            raise InputError("the transformers runtime has no tensor parallelism: use pipeline_parallel_size")
        pp = gpus if pp is None else check_count("pipeline_parallel_size", pp, 1, MAX_GPUS)
        if pp != gpus:
            raise InputError(f"pipeline_parallel_size {pp} must equal gpus ({gpus}) under transformers "
                             "(device_map='auto' splits the layers over every GPU)")
        return 1, pp
    if tp is None and pp is None:
        return gpus, 1
    tp = check_count("tensor_parallel_size", tp if tp is not None else gpus // (pp or 1), 1, MAX_GPUS)
    pp = check_count("pipeline_parallel_size", pp if pp is not None else max(1, gpus // tp), 1, MAX_GPUS)
    if tp * pp != gpus:
        raise InputError(f"tensor_parallel_size {tp} x pipeline_parallel_size {pp} must equal gpus ({gpus})")
    return tp, pp


def check_parallel(spec: ModelSpec, tp: int, pp: int, *, from_gpus: bool = False) -> None:
    """vLLM's divisibility rules: heads divide by tp; KV heads divide by tp or tp by KV heads;
    no more pipeline stages than layers. ``from_gpus``: tp is the GPU count itself (no tensor or
    pipeline size was given), so a refusal names the GPU count (``--gpus``), not an option never set."""
    if pp > spec.num_layers:
        raise InputError(f"pipeline_parallel_size {pp} exceeds the model's {spec.num_layers} layers")
    if tp == 1:
        return
    what = (f"the GPU count {tp} (--gpus; all tensor parallel, as no tensor_parallel_size is given)"
            if from_gpus else f"tensor_parallel_size {tp}")
    fix = (": use a GPU count that divides them, or set tensor_parallel_size / pipeline_parallel_size"
           if from_gpus else "")
    heads = spec.num_attention_heads
    if heads and heads % tp:
        raise InputError(f"{what} must divide the {heads} attention heads{fix}")
    kv = next((a.kv_heads for l in spec.layers for a in l.attention if not a.latent_dim), None)
    if kv and kv % tp and tp % kv:
        raise InputError(f"{what} and the {kv} KV heads must divide one another{fix}")


def rank_spec(spec: ModelSpec, tp: int) -> ModelSpec:
    """The cache one tensor-parallel rank holds: KV heads ``max(1, kv // tp)``, MLA whole, states / tp."""
    if tp == 1:
        return spec
    layers = []
    for layer in spec.layers:
        attention = tuple(a if a.latent_dim else replace(a, kv_heads=max(1, a.kv_heads // tp),
                                                           query_heads=max(1, a.query_heads // tp))
                          for a in layer.attention)
        states = tuple(replace(s, elements=ceil_div(s.elements, tp)) for s in layer.states)
        layers.append(replace(layer, attention=attention, states=states))
    return replace(spec, layers=tuple(layers))


def stage_specs(spec: ModelSpec, pp: int) -> list[ModelSpec]:
    """The layers of each pipeline stage (vLLM's partition), as specs of their own."""
    out, start = [], 0
    for n in pp_layer_partition(spec.num_layers, pp):
        out.append(replace(spec, layers=spec.layers[start:start + n]))
        start += n
    return out


def stage_weights(w: WeightBytes, num_layers: int, tp: int, pp: int) -> tuple[int, ...]:
    """Weight bytes on one GPU of each pipeline stage: ``ceil(layer_bytes x n / (L x tp))`` + its
    norms; the first stage also the embeddings / tp + vision + other, the last the LM head / tp (a
    tied head is a second copy when the stages differ)."""
    part = {p.name: p.bytes for p in w.parts}
    layer_bytes = sum(part.get(n, 0) for n in LAYER_PARTS)
    out = []
    for stage, n in enumerate(pp_layer_partition(num_layers, pp)):
        b = ceil_div(layer_bytes * n, num_layers * tp) + ceil_div(part.get("norms", 0) * n, num_layers)
        if stage == 0:
            b += ceil_div(part.get("embedding", 0), tp) + part.get("vision", 0) + part.get("other", 0)
        if stage == pp - 1:
            head = part.get("lm_head", 0) or (part.get("embedding", 0) if w.params.tied_embeddings and pp > 1 else 0)
            b += ceil_div(head, tp)
        out.append(b)
    return tuple(out)


def rank_weights(w: WeightBytes, num_layers: int, tp: int, pp: int) -> int:
    """Weight bytes on the busiest GPU: the largest of :func:`stage_weights`."""
    return max(stage_weights(w, num_layers, tp, pp))
