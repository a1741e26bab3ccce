"""Numbers in input text: a run of digits longer than any HotSpot or JMH prints is refused, never converted.

Python's `int()` of a decimal text of over 4,300 digits raises, and one of thousands of digits is no compile id,
bci, line, timestamp, size or count any JVM wrote: the readers' patterns take at most `MAX_DIGITS` digits, and a
longer run does not match them at all (it is not cut short to a smaller number).
"""

from __future__ import annotations

MAX_DIGITS = 20
"""Digits of the largest number HotSpot or JMH prints (an unsigned 64-bit value)."""
DIGITS = rf"\d{{1,{MAX_DIGITS}}}(?!\d)"
"""A pattern's decimal number: at most MAX_DIGITS digits, and not followed by another."""
ADDRESS = r"0x[0-9a-fA-F]{1,16}"
"""A code address, at most 64 bits: a row whose address has more hex digits is no row of code."""
HEX = rf"{ADDRESS}(?![0-9a-fA-F])"
"""A hex number of at most 64 bits, not followed by another hex digit: a longer run does not match at all."""
BYTES_DIGITS = rf"[0-9]{{1,{MAX_DIGITS}}}(?![0-9])".encode()
"""`DIGITS` for a bytes pattern."""


def number(text: str | None, base: int = 10) -> int | None:
    """`text` as an int (a sign allowed, and `0x` in base 16), None when absent, not a number, or longer than any
    number HotSpot prints."""
    if text is None or len(text) > MAX_DIGITS + 2:
        return None
    try:
        return int(text, base)
    except ValueError:
        return None
