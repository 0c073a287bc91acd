"""kvcalc's estimate of the "peak activation" vLLM profiles at startup (bytes).

Source (vllm-project/vllm, read, not copied): ``v1/worker/gpu_model_runner.py``
(``profile_run``, ``_dummy_run``, ``_dummy_sampler_run``), ``v1/sample/sampler.py`` and
``v1/sample/ops/topk_topp_sampler.py``. The forward term is kvcalc's one activation formula
(:mod:`kvcalc.activations`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..activations import forward_activation_bytes
from ..dtypes import DType
from ..limits import MAX_BATCH, MAX_CONTEXT, check_count
from ..spec import ModelSpec
from .defaults import SAMPLER_BYTES_PER_LOGIT, element_bytes, vllm_dtypes


@dataclass(frozen=True)
class ActivationEstimate:
    """kvcalc's estimate of vLLM's profiled "peak activation" (torch peak increase), in bytes.

    ``forward_bytes`` = ``N * b * 3 * (hidden + ceil(I / tp))``, ``sampler_bytes`` =
    ``28 * S * V + N * hidden * b``, ``peak_bytes = max(forward, sampler)`` with ``N`` =
    ``max_num_batched_tokens``, ``S`` = ``min(max_num_seqs, N)``, ``b`` activation bytes per element,
    ``I`` the MLP width, ``V`` the vocabulary. See :func:`estimate_activation_bytes`.
    """

    peak_bytes: int
    forward_bytes: int
    sampler_bytes: int
    tokens: int
    sampler_requests: int
    intermediate_size: int
    intermediate_assumed: bool


def estimate_activation_bytes(spec: ModelSpec, *, max_num_batched_tokens: int, max_num_seqs: int,
                              dtype: "str | DType | None" = None, tensor_parallel_size: int = 1,
                              intermediate_size: int | None = None) -> ActivationEstimate:
    """Estimate the torch memory peak of vLLM's profiling run (``GPUModelRunner.profile_run``).

    The run does one forward pass of ``N = max_num_batched_tokens`` dummy tokens
    (``_dummy_run(max_num_tokens)``), then samples ``S = min(max_num_seqs, N)`` requests from the
    last hidden states (``_dummy_sampler_run``) while the ``[N, hidden]`` output is still held. The
    peak is the larger of:

    * forward: per token, the attention output, the residual and the normed hidden state
      (``3 * hidden``) plus the MLP's gate/up output and the activated product (``2I + I`` per
      rank, ``I / tp`` under tensor parallelism): ``N * b * 3 * (hidden + I / tp)`` bytes, ``b`` the
      activation dtype width;
    * sampler: ``SAMPLER_BYTES_PER_LOGIT`` (28) bytes per ``[S, V]`` logit (see that constant) plus
      the held ``[N, hidden]`` output.

    ``intermediate_size`` is the dense MLP width (for MoE layers pass ``experts_per_token *
    moe_intermediate_size``); without it ``4 * hidden`` is assumed. Not modelled: vision / audio
    encoders of multimodal models (their dummy outputs are held during the language-model pass),
    attention-backend workspaces, fused-MoE chunking, LoRA.

    Llama 3.1 8B (hidden 4,096, MLP 14,336, vocabulary 128,256, bfloat16), 8,192 tokens and 1,024
    requests (an 80 GiB GPU's defaults): forward 8,192 x 2 x 3 x 18,432 = 905,969,664 B; sampler
    28 x 1,024 x 128,256 + 8,192 x 4,096 x 2 = 3,677,356,032 + 67,108,864 = 3,744,464,896 B, the peak:

    >>> from kvcalc import read_spec
    >>> from kvcalc.data_files import read_data_json
    >>> spec = read_spec(read_data_json("configs", "meta-llama__Llama-3.1-8B.json"))
    >>> est = estimate_activation_bytes(spec, max_num_batched_tokens=8192, max_num_seqs=1024,
    ...                                 intermediate_size=spec.mlp_width)
    >>> est.forward_bytes, est.sampler_bytes, est.peak_bytes == est.sampler_bytes
    (905969664, 3744464896, True)
    """
    n = check_count("max_num_batched_tokens", max_num_batched_tokens, 1, MAX_CONTEXT)
    s = min(check_count("max_num_seqs", max_num_seqs, 1, MAX_BATCH), n)
    tp = check_count("tensor_parallel_size", tensor_parallel_size, 1, 4096)
    model, _ = vllm_dtypes(spec, dtype, None)
    b = element_bytes(model)
    hidden = spec.hidden_size
    assumed = intermediate_size is None
    inter = 4 * hidden if intermediate_size is None else check_count("intermediate_size", intermediate_size, 1, 1 << 24)
    forward = forward_activation_bytes(n, hidden, inter, b, tp)
    sampler = SAMPLER_BYTES_PER_LOGIT * s * spec.vocab_size + n * hidden * b if spec.vocab_size else 0
    return ActivationEstimate(peak_bytes=max(forward, sampler), forward_bytes=forward, sampler_bytes=sampler,
                              tokens=n, sampler_requests=s, intermediate_size=inter, intermediate_assumed=assumed)
