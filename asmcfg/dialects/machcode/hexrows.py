"""A `[MachCode]` hex row's text: HotSpot's layout of a row's bytes, and the bytes of a text laid out so."""

from __future__ import annotations

import re

_HEX = re.compile(r"^[0-9a-f]*$")


def layout(data: bytes) -> str:
    """`data` laid out as HotSpot prints a row: 2-byte blocks, 4-byte groups joined by ` | `."""
    groups = (data[i : i + 4] for i in range(0, len(data), 4))
    return " | ".join(" ".join(g[j : j + 2].hex() for j in range(0, len(g), 2)) for g in groups)


def parse_hex(body: str) -> bytes | None:
    """The bytes of a row body when it is laid out exactly as HotSpot prints it, else None."""
    text = body.strip().lower()
    digits = text.replace("|", "").replace(" ", "")
    if not digits or len(digits) % 2 or not _HEX.match(digits):
        return None
    data = bytes.fromhex(digits)
    return data if layout(data) == text else None
