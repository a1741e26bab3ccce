from collections.abc import Callable
from typing import Any

def tags(text: str, tag: type, unescape: Callable[[str], str]) -> list[Any] | None:
    """The tags on one line of markup, as `logxml.tags` reads them, or None for a line it leaves to Python."""
