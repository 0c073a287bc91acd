"""The page's sanitiser neutralises bidirectional controls, as the CLI escapes them (issue 26).

The characters are Unicode's explicit directional formatting characters (UAX #9 section 2: the
embeddings and overrides U+202A-202E, the isolates U+2066-2069) and the implicit marks U+200E,
U+200F and U+061C; ``"evil\\u202efdp.exe"`` displays as "evilexe.pdf" where they are honoured.
"""
from __future__ import annotations

import pytest

from dashboard.text import code, md
from kvcalc.cli import terminal_safe

BIDI = [chr(c) for c in range(0x202A, 0x202F)] + [chr(c) for c in range(0x2066, 0x206A)] + ["\u200e", "\u200f",
                                                                                             "\u061c"]


@pytest.mark.parametrize("ch", BIDI, ids=lambda ch: f"U+{ord(ch):04X}")
def test_md_and_code_drop_every_bidi_control(ch: str) -> None:
    text = f"org/evil{ch}fdp.exe"
    assert ch not in md(text) and ch not in code(text)
    assert "evil" in md(text) and "fdp.exe" in md(text).replace("\\", "")
    assert ch not in terminal_safe(text)          # the CLI's escaping of the same text, for comparison


def test_a_notice_with_an_override_keeps_its_order() -> None:
    assert md("model \u202eacme/x\u202c not found") == "model  acme/x  not found"


def test_ordinary_right_to_left_text_is_kept() -> None:
    """Hebrew and Arabic letters are text, not controls: only the formatting characters go."""
    hello = "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627"
    assert md(hello) == hello
