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
    """``tokens x element_bytes x 3 x (hidden + ceil(mlp_width / tp))`` bytes (module docstring).

    Llama 3.1 8B (hidden 4,096, MLP 14,336) in bfloat16 over 8,192 tokens: 8,192 x 2 x 3 x 18,432 =
    905,969,664 B; at tp 2 the MLP share halves: 8,192 x 2 x 3 x (4,096 + 7,168) = 553,648,128 B:

    >>> forward_activation_bytes(8192, 4096, 14336, 2), forward_activation_bytes(8192, 4096, 14336, 2, 2)
    (905969664, 553648128)
    """
    return tokens * element_bytes * 3 * (hidden + ceil_div(mlp_width, tensor_parallel_size))


def generate_logits_bytes(batch: int, vocab: int, element_bytes: int) -> int:
    """Logits of transformers' ``generate`` prefill: ``logits_to_keep=1`` keeps the last position
    only, ``[batch, vocab]`` in the model dtype, plus the float32 copy generate makes of it and
    the float32 probabilities it samples from: ``batch x vocab x (b + 4 + 4)`` bytes.

    4 sequences over Llama 3's 128,256-token vocabulary in bfloat16: 4 x 128,256 x 10 = 5,130,240 B:

    >>> generate_logits_bytes(4, 128256, 2)
    5130240
    """
    return batch * vocab * (element_bytes + 8)
