from typing import Any

def newlines(buffer: Any, start: int, stop: int, /) -> int:
    """The number of b'\\n' bytes in buffer[start:stop] (any object with the buffer protocol), without a copy."""

def percent_blank(buffer: Any, pos: int, endpos: int, /) -> int:
    """Where the first `%` followed by what may start a blank in UTF-8 lies in buffer[pos:endpos], or -1."""
