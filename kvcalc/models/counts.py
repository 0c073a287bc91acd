"""What a parameter count returns (:class:`ParamCount`), its parts, and the running sums counters add to
(:class:`Tally`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ConfigError, UnsupportedError

PARTS = ("embedding", "lm_head", "attention", "mlp", "norms", "mixer", "vision", "other")


@dataclass(frozen=True)
class ParamCount:
    """Parameter count of one model, by part.

    ``total == embedding + lm_head + attention + mlp + norms + mixer + vision + other``.

    * ``embedding``: input embeddings (token table; learned position tables such as GPT-2's ``wpe``).
    * ``lm_head``: the output projection; 0 when it is tied to the input embedding.
    * ``attention``: q/k/v/o projections and their biases, MLA down/up projections, attention sinks,
      relative-position biases (T5), cross-attention gates (Mllama).
    * ``mlp``: dense MLPs, routed experts, shared experts and routers.
    * ``norms``: every normalization weight and bias, including q/k norms and MLA latent norms.
    * ``mixer``: Mamba mixers and Qwen3-Next gated-DeltaNet (linear-attention) layers, norms excepted.
    * ``vision``: the vision tower plus the multimodal projector (0 without a ``vision_config``); the modality
      encoder of a wrapper without one (Apertus 1.5's image tokenizer, Evolla's protein encoder and resampler).
    * ``other``: anything else (OPT's project_in / project_out; 0 for the other architectures).
    * ``moe_experts``: parameters of the routed experts (part of ``mlp``; shared experts excluded).
    * ``active``: parameters used for one token: ``total - moe_experts`` plus ``k`` experts per MoE
      layer (embedding table included; gpt-oss's model card quotes it without). Equal to ``total`` for
      dense models. Reading it raises :class:`ConfigError` when the experts-per-token field is null
      (DeepseekV2Config's class default: transformers builds the model, but its router cannot pick
      experts, so there is no active count); ``active_count`` is then None and ``active_refused`` says why.
    * ``fields_used``: the config fields read (dotted for nested configs); ``defaults_used``:
      ``"field=value"`` for each field the config omits and a transformers class default supplied.
    """

    model_type: str
    total: int
    embedding: int
    lm_head: int
    attention: int
    mlp: int
    norms: int
    mixer: int
    vision: int
    other: int
    tied_embeddings: bool
    moe_experts: int
    active_count: int | None
    fields_used: tuple[str, ...] = ()
    defaults_used: tuple[str, ...] = ()
    quality: str = "exact"            # kvcalc.spec.Quality: the counter is verified against transformers
    active_refused: str = ""          # the null experts-per-token field, when active_count is None
    active_reason: str = ""           # why active is undefined although that field is set (UnsupportedError)

    @property
    def active(self) -> int:
        """Parameters used for one token (see the class docstring); ConfigError when top-k is null."""
        if self.active_count is None and self.active_reason:
            raise UnsupportedError(self.active_reason)
        if self.active_count is None:
            raise ConfigError(self.active_refused, None, "is null: the router picks no experts, so the active "
                                                         "parameter count is undefined (give experts per token)")
        return self.active_count

    def parts(self) -> dict[str, int]:
        """The parts as a dict, in the order of :data:`PARTS`."""
        return {name: getattr(self, name) for name in PARTS}

    @classmethod
    def not_counted(cls, model_type: str) -> ParamCount:
        """A placeholder for a model kvcalc cannot count (every part 0, ``quality="estimated"``):
        a plan then takes its weights from the user (:func:`kvcalc.weights.given_weights`)."""
        return cls(model_type=model_type, total=0, embedding=0, lm_head=0, attention=0, mlp=0, norms=0, mixer=0,
                   vision=0, other=0, tied_embeddings=False, moe_experts=0, active_count=None, quality="estimated",
                   active_reason="parameters not counted (the weights were given as bytes): no FLOP count")


class Tally:
    """Running sums per part, plus routed-expert totals for ``moe_experts`` and ``active``."""

    def __init__(self) -> None:
        self.parts = dict.fromkeys(PARTS, 0)
        self.moe_experts = 0
        self.moe_active = 0
        self.tied = False
        self.null_top_k = ""            # the experts-per-token field, when a MoE layer's is null
        self.active_reason = ""         # why active is undefined though top-k is set (LongCat's zero experts)

    def add(self, part: str, n: int) -> None:
        self.parts[part] += n

    def add_decoder(self, inner: Tally) -> None:
        """A wrapper's text decoder, counted into ``inner`` by its own counter: every part but its lm_head (the
        wrapper decides its own head and tying), its routed experts and any reason ``active`` is undefined."""
        for part, n in inner.parts.items():
            if part != "lm_head":
                self.add(part, n)
        self.moe_experts += inner.moe_experts
        self.moe_active += inner.moe_active
        self.null_top_k = self.null_top_k or inner.null_top_k
        self.active_reason = self.active_reason or inner.active_reason

    def experts(self, per_expert: int, n_experts: int, top_k: int | None, field: str) -> None:
        """One MoE layer's routed experts: ``n_experts * per_expert`` parameters, ``top_k`` used per token
        (None: a null field, which leaves the total exact but ``active`` undefined)."""
        if top_k is None:
            self.null_top_k = field
        elif top_k > n_experts:
            raise ConfigError(field, top_k, f"must be an integer from 1 to the number of experts ({n_experts})")
        self.parts["mlp"] += n_experts * per_expert
        self.moe_experts += n_experts * per_expert
        self.moe_active += (top_k or 0) * per_expert


Parts = dict[str, int]
"""parameters by part (the parts of :class:`kvcalc.models.counts.ParamCount`)."""


Decoder = Callable[..., None]
"""``(text_config reader, tally, head)``: kvcalc.models.counting' Llama-style decoder counter, which it passes in."""
