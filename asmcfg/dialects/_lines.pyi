from typing import Any

def newlines(buffer: Any, start: int, stop: int, /) -> int:
    """The number of b'\\n' bytes in buffer[start:stop] (any object with the buffer protocol), without a copy."""

def block_newlines(buffer: Any, start: int, stop: int, block: int, /) -> list[int]:
    """The number of b'\\n' bytes in each `block` bytes of buffer[start:stop] (the last one shorter), from `start`."""

def find_all(buffer: Any, needle: bytes, start: int, stop: int, end: int, /) -> list[int]:
    """Where `needle` starts in buffer[start:stop], searched in buffer[start:end], each after the one before."""

def percent_blank(buffer: Any, pos: int, endpos: int, /) -> int:
    """Where the first `%` followed by what may start a blank in UTF-8 lies in buffer[pos:endpos], or -1."""
