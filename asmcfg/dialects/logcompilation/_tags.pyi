from collections.abc import Callable
from typing import Any

def tags(text: str, tag: type, unescape: Callable[[str], str]) -> list[Any] | None:
    """The tags on one line of markup, as `logxml.tags` reads them, or None for a line it leaves to Python."""

def collect(
    data: bytes | bytearray, number: int, start: int, stop: int, tags: Callable[[str], list[Any]],
    feeds: dict[str, tuple[Callable[[Any, int], None], ...]],
) -> int:
    """Feed the followed tags of data[start:stop] to their feeds, as `inline.collect` does; the last line's number."""
