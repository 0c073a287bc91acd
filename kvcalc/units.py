"""Byte formatting used by the CLI and the pages (GiB = 2**30 bytes, MiB = 2**20, KiB = 2**10)."""
from __future__ import annotations

GiB = 1 << 30
MiB = 1 << 20
KiB = 1 << 10


def human_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit it reaches, two decimals (whole bytes below 1 KiB).

    1.5 x 2**30 B is 1.50 GiB; 2**28 B = 256 x 2**20 B is 256.00 MiB; 512 B stays bytes:

    >>> human_bytes(1.5 * 2**30), human_bytes(2**28), human_bytes(512)
    ('1.50 GiB', '256.00 MiB', '512 B')
    """
    for unit, size in (("TiB", 1 << 40), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if abs(n) >= size:
            return f"{n / size:,.2f} {unit}"
    return f"{int(n):,} B"
