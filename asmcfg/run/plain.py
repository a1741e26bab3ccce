"""Which plain file a compilation is opened from: a large plain input itself, or the cache's decompressed copy of a
large compressed one. Apart from `run.opening` so that `--list` of a large file loads nothing more."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from asmcfg.sources.lines import STDIN, display_name

if TYPE_CHECKING:
    from collections.abc import Callable

OPEN_BYTES = 8 << 20
"""Plain files at least this large are opened through the index; smaller ones are read whole (it costs little)."""
COMPRESSED_BYTES = 1 << 20
"""Compressed files at least this large are decompressed once into the cache and opened from there."""
_COMPRESSED = (b"\x1f\x8b", b"\xfd7zXZ", b"BZh")
"""How a gzip, xz and bzip2 file starts (`sources.lines` decompresses by content as well)."""


def plain_copy(path: str, say: Callable[[str], None] | None = None) -> str | None:
    """The plain file to open the input's compilation from: the input when it is a large plain file, the copy the
    cache keeps of a large compressed one (made now, and said, the first time); None to read the input whole."""
    try:
        if path == STDIN or not os.path.isfile(path):
            return None
        size = os.path.getsize(path)
        with open(path, "rb") as file:
            compressed = file.read(6).startswith(_COMPRESSED)
    except OSError:
        return None
    if not compressed:
        return path if size >= OPEN_BYTES else None
    if size < COMPRESSED_BYTES:
        return None
    from asmcfg.sources import cache

    made = cache.plain_copy(path)
    if made is None:
        return None
    copy, fresh = made
    if fresh and say is not None:
        say(f"decompressed {display_name(path)} once into {copy}: later runs open its compilations from there")
    return copy
