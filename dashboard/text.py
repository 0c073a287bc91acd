"""The one way text from outside the app reaches the page, and table cells Arrow can carry.

Text from outside (URL keys and values, strings of a pasted or fetched config, Hub error text,
exception messages that embed them) goes through :func:`md` before any Markdown sink
(``st.markdown``, ``st.error`` / ``warning`` / ``info``, ``st.caption``, ``st.metric``,
``st.subheader``, an expander label, ...). Streamlit escapes HTML but interprets Markdown, so
``![x](http://host/t.png)`` would load an image from any host and ``[text](url)`` would be a live
link inside the app's own notice. :func:`md` returns text that renders as itself:

* encodable: a lone surrogate (``"\\ud800"``, legal in a Python str, not in UTF-8) becomes
  U+FFFD, so the page's protobuf message can be serialized at all;
* one line: line breaks and other control characters become spaces (no block structure);
* no reordering: the bidirectional controls (embeddings and overrides U+202A-202E, isolates
  U+2066-2069, the marks U+200E / U+200F / U+061C) become spaces too, so an id such as
  ``"evil\u202efdp.exe"`` cannot show its text reversed (the CLI escapes the same characters);
* every character CommonMark or Streamlit's extensions give a meaning is backslash-escaped
  (links, images, emphasis, code, HTML / autolinks, tables, strikethrough, math, entities),
  and a line-start marker (``-``, ``+``, ``1.``) is escaped;
* bare URLs and e-mail addresses (which GFM links without any markup), Streamlit's ``:name``
  directives and ``:emoji:`` shortcodes get an invisible U+2060 WORD JOINER after the ``:`` /
  ``www`` / ``@`` so they stay text.

:func:`safe_rows` makes table rows Arrow-safe: strings encodable, and a column holding an integer
outside int64 (Arrow's widest integer) shown as exact decimal text with thousands separators.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]+")
# CommonMark backslash-escapable characters with a meaning here: links / images ([ ] !), code (`),
# emphasis (* _), HTML and autolinks (< >), tables (|), strikethrough (~), math ($), entities (&),
# headings (#); the backslash itself first.
_SPECIAL = re.compile(r"([\\`*_\[\]<>|~$&#!])")
_LINE_START = re.compile(r"^(\s*)([-+=])")
_LIST_NUMBER = re.compile(r"^(\s*\d+)([.)])")
# GFM links bare URLs (http://, www.) and e-mail addresses in plain text; Streamlit reads ``:name``
# as a directive (``:red[...]``, ``:material/icon:``) and ``:smile:`` as an emoji. A word joiner
# after the ``:`` / ``www`` / ``@`` breaks each pattern and shows nothing.
_BARE_LINK = re.compile(r"(?i)(:)(?=//|[a-z])|(\bwww)(?=\.)|(@)(?=[\w-])")
WORD_JOINER = "\u2060"
INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def plain(value: object) -> str:
    """``str(value)`` with lone surrogates replaced by U+FFFD (UTF-8 encodable, so sendable) and the
    bidirectional controls by spaces (a table cell cannot show its text reordered either)."""
    return _BIDI.sub(" ", _SURROGATE.sub("\ufffd", str(value)))


def md(value: object) -> str:
    """Outside text as Markdown that renders literally (see the module docstring)."""
    text = _CONTROL.sub(" ", plain(value))
    text = _SPECIAL.sub(r"\\\1", text)
    text = _LIST_NUMBER.sub(r"\1\\\2", _LINE_START.sub(r"\1\\\2", text))
    return _BARE_LINK.sub(lambda m: m.group(0) + WORD_JOINER, text)


def cell(value: Any) -> Any:
    """One table cell: strings made encodable; other values unchanged."""
    return plain(value) if isinstance(value, str) else value


def big_int(n: int) -> str:
    """An integer as exact decimal text with thousands separators (1,234,567)."""
    return f"{n:,}"


def compact(n: int) -> str:
    """A count short enough for a tile's label: exact with thousands separators below a million, else three
    significant digits and M (10**6) or B (10**9); the exact figure belongs in the tile's help.

    >>> compact(131_072), compact(1_048_576), compact(999_499_999), compact(1 << 30)
    ('131,072', '1.05M', '999M', '1.07B')
    """
    if n < 10**6:
        return f"{n:,}"
    value, suffix = (n / 10**6, "M") if n < 999_500_000 else (n / 10**9, "B")
    return f"{value:.3g}{suffix}"


def durations(point: float, *ends: float) -> list[str]:
    """``point`` seconds and each of ``ends`` in the unit that reads best for ``point``: ms below 10 s (no decimals),
    s below 10 minutes, minutes below 2 hours, else hours (one decimal), so a two-hour prefill does not read as
    7,045,554 ms.

    >>> durations(0.998, 0.7, 1.3), durations(19.006), durations(7045.554, 4931.9), durations(36_000)
    (['998 ms', '700 ms', '1,300 ms'], ['19.0 s'], ['117.4 min', '82.2 min'], ['10.0 h'])
    """
    unit, scale, digits = next((u, s, n) for u, s, n, below in (("ms", 1e-3, 0, 10), ("s", 1.0, 1, 600),
                                                                ("min", 60.0, 1, 7200), ("h", 3600.0, 1, float("inf")))
                               if point < below)
    return [f"{x / scale:,.{digits}f} {unit}" for x in (point, *ends)]


def safe_rows(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows for ``st.dataframe``: strings encodable; every column that holds an int outside int64
    becomes exact text (:func:`big_int`) for all its rows, so the column keeps one type and
    Arrow never sees a number it cannot hold (StreamlitDataframeConversionError otherwise)."""
    out = [{plain(k): cell(v) for k, v in r.items()} for r in records]
    wide = {k for r in out for k, v in r.items()
            if isinstance(v, int) and not isinstance(v, bool) and not INT64_MIN <= v <= INT64_MAX}
    for r in out:
        for k in wide:
            v = r.get(k)
            if isinstance(v, int) and not isinstance(v, bool):
                r[k] = big_int(v)
    return out


def count(n: int, word: str, many: str | None = None) -> str:
    """``n`` with thousands separators and ``word`` in the singular for exactly one, else ``many`` (default
    ``word + "s"``): the pages' counts read "1 sequence", "8 sequences", never "1 seqs" or "GPU(s)".

    >>> count(1, "sequence"), count(8, "sequence"), count(32_768, "token"), count(1, "GPU")
    ('1 sequence', '8 sequences', '32,768 tokens', '1 GPU')
    """
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def code(value: object) -> str:
    """Outside text as one inline code span (shown verbatim, monospace): a backtick fence longer
    than any backtick run inside, padded with a space where the text starts or ends with one."""
    text = _CONTROL.sub(" ", plain(value))
    if not text.strip():
        return md(text)
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_BRANDS = ("NVIDIA ", "AMD ", "Apple ", "GeForce ", "Tesla ")
"""Leading words a table cell can drop: the card's model stays ("RTX 4090 24GB", "A100 40GB (SXM4)")."""


def short_name(name: str) -> str:
    """A catalog GPU name without its leading vendor and brand words, so a 75 px phone column shows the model.

    >>> short_name("NVIDIA A100 40GB (SXM4)"), short_name("GeForce RTX 4090 24GB"), short_name("Apple M1 Max 64GB")
    ('A100 40GB (SXM4)', 'RTX 4090 24GB', 'M1 Max 64GB')
    """
    for brand in _BRANDS:
        name = name.removeprefix(brand)
    return name
