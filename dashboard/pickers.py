"""Picker labels and search for the GPU and model selectboxes (pure: no Streamlit).

A label is what the user sees; the widget's value stays the catalog key / Hub id (the URL value).
:func:`matches` is the search: every whitespace-separated fragment of the query must occur in the
option's search text, case-insensitively, in any order ("a100 80", "24gb", "qwen3 30b"); a fragment
also matches with separators ignored ("llama3.1" finds "Llama-3.1-8B", "24 gb" finds "24GB").
:func:`narrow` lists the matches best first (:func:`score`: whole words before word starts before
fragments inside a word), the current choice after them when it does not match.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kvcalc.catalog import CatalogEntry
from kvcalc.gpus import GPU

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
CUSTOM_GPU_LABEL = "Custom memory (type the GiB)"


def _compact(text: str) -> str:
    return _NON_ALNUM.sub("", text.lower())


def fragments(query: str) -> list[str]:
    """The query's fragments: lower-cased, split on white space and commas; empty ones dropped."""
    return [f for f in re.split(r"[\s,]+", query.lower()) if f]


def matches(query: str, text: str) -> bool:
    """True when every fragment of ``query`` occurs in ``text`` (case-insensitive, any order; a
    fragment also matches ``text`` with both stripped of everything but letters and digits). An
    empty query matches everything."""
    low, compact = text.lower(), _compact(text)
    for f in fragments(query):
        c = _compact(f)
        if f not in low and not (c and c in compact):
            return False
    return True


def gpu_label(g: GPU) -> str:
    """'NVIDIA H100 80GB HBM3 (SXM) — 79.6 GiB': the vendor (when the name lacks it), the catalog
    name and the memory nvidia-smi reports, in GiB (2**30 bytes)."""
    name = g.name if g.name.lower().startswith(g.vendor.lower()) else f"{g.vendor} {g.name}"
    return f"{name} — {g.memory_gib:.1f} GiB"


def gpu_search_text(g: GPU) -> str:
    """What a GPU is found by: its label, its catalog key and its marketed size ('24 GB', '24GB')."""
    return f"{gpu_label(g)} {g.key} {g.marketed_gb}GB {g.marketed_gb} GB"


def params_text(n: int | None) -> str:
    """A parameter count as people write it: 8.0B, 685B, 596M; '? params' when unknown."""
    if n is None:
        return "? params"
    if n >= 10**11:
        return f"{n / 1e9:.0f}B params"
    if n >= 995_000_000:                       # 999,885,952 reads 1.0B, not 1000M
        return f"{n / 1e9:.1f}B params"
    return f"{n / 1e6:.0f}M params"


def model_label(e: CatalogEntry) -> str:
    """'Llama-3.1-8B — 8.0B params · llama': display name, parameter count and family."""
    return f"{e.display_name} — {params_text(e.params)} · {e.family}"


def model_search_text(e: CatalogEntry) -> str:
    """What a model is found by: its label and its Hub id."""
    return f"{model_label(e)} {e.hub_id}"


def score(query: str, text: str) -> int:
    """How well ``text`` matches ``query`` (0: it does not, :func:`matches`): per fragment 3 when it is a whole
    word of ``text`` ("a10" in "NVIDIA A10 24GB"), 2 when a word starts with it ("a10" in "A100"), 1 when it only
    occurs inside one (or across separators); words are the runs of letters and digits, lower-cased.

    >>> score("a10", "NVIDIA A10 24GB"), score("a10", "NVIDIA A100 80GB"), score("100", "NVIDIA A100 80GB")
    (3, 2, 1)
    >>> score("a10 24", "NVIDIA A10 24GB"), score("h200", "NVIDIA A10 24GB")
    (5, 0)
    """
    if not matches(query, text):
        return 0
    words = [w for w in _NON_ALNUM.split(text.lower()) if w]
    total = 0
    for f in fragments(query):
        c = _compact(f)
        total += 3 if c in words else 2 if any(w.startswith(c) for w in words) else 1
    return total


def narrow(query: str, options: Sequence[str], search_text: Callable[[str], str], keep: str | None = None) -> list[str]:
    """The options whose search text matches ``query``, best first (:func:`score`; equal scores keep the
    options' order); ``keep`` (the current choice) stays in the list even when it does not match, last, so
    narrowing never changes the choice and never pushes it above what was typed for. An empty query keeps
    every option in its order."""
    if not fragments(query):
        return list(options)
    scored = [(score(query, search_text(o)), k, o) for k, o in enumerate(options)]
    out = [o for sc, _, o in sorted((t for t in scored if t[0]), key=lambda t: (-t[0], t[1]))]
    if keep is not None and keep in options and keep not in out:
        out.append(keep)
    return out
