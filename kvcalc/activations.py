"""Transient activation memory of one forward pass: the one estimate every runtime uses.

For ``N`` tokens in one forward pass, the largest live set inside a decoder layer is the
attention output, the residual and the normed hidden state (``3 x hidden`` per token) plus the
MLP's gate/up output and the activated product (``3 x I`` per token, ``I / tp`` per
tensor-parallel rank)::

    forward_bytes = N x b x 3 x (hidden + ceil(I / tp))

with ``b`` the activation dtype width in bytes and ``I`` the per-token MLP width (MoE: top-k x
expert width + shared experts). Attention scores are not materialised (flash / memory-efficient
SDPA kernels). The estimate was checked against vLLM's profiled peaks (see kvcalc.vllm.activation).
"""
from __future__ import annotations

from .dtypes import ceil_div


def forward_activation_bytes(tokens: int, hidden: int, mlp_width: int, element_bytes: int,
                             tensor_parallel_size: int = 1) -> int:
    """``tokens x element_bytes x 3 x (hidden + ceil(mlp_width / tp))`` bytes (module docstring)."""
    return tokens * element_bytes * 3 * (hidden + ceil_div(mlp_width, tensor_parallel_size))


def generate_logits_bytes(batch: int, vocab: int, element_bytes: int) -> int:
    """Logits of transformers' ``generate`` prefill: ``logits_to_keep=1`` keeps the last position
    only, ``[batch, vocab]`` in the model dtype, plus the float32 copy generate makes of it and
    the float32 probabilities it samples from: ``batch x vocab x (b + 4 + 4)`` bytes."""
    return batch * vocab * (element_bytes + 8)
