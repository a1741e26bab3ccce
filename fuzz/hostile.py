"""Mutations of a crafted log rather than a corrupted one: what a hostile author writes into a dump.

Long lines (up to LONG_MAX bytes) built from the shapes that make a backtracking pattern slow, decimal numbers
of thousands of digits in the fields asmcfg converts to integers, character references HotSpot never writes,
and terminal control sequences and bidi controls inside method, class and file names. Each takes the lines of
a dump (bytes, without their newlines) and a random.Random, like the mutations of fuzz/mutations.py.
"""

from __future__ import annotations

import random
import re

Lines = list[bytes]

LONG_MAX = 1 << 20
"""Longest line `long_line` builds (1 MiB); lengths are log-uniform, so most are far shorter."""
LONG_MIN = 1 << 10

SHAPES: tuple[bytes, ...] = (
    b"a", b"a.b:c-_", b"java.lang.String::", b" ", b"\t ", b"[", b"[a ", b"0", b"0x", b"0x0", b"<", b"<a ",
    b"&#", b"&#x", b"&", b";", b"'", b"=", b"%", b"4.35%  ", b"@", b"(line ", b"\xc3\xa9",
)
"""Units repeated into a long line: runs of name characters without `=`, of spaces, `[`, digits, `0x`, `<`,
`&#`, and a non-ASCII one (the C tag reader hands any non-ASCII line to the Python pattern)."""

PREFIXES: tuple[bytes, ...] = (
    b"", b"  ", b"<task ", b"<print_nmethod ", b"<tty>", b"<uncommon_trap ", b"<inline_fail reason='",
    b"  0x00007f0000000000:   ", b"  0x00007f0000000000:   mov ", b"  ;   {", b"  ; - ", b"  ;*", b"  # ",
    b"Compiled method (c2)      59   12       4       ", b"[", b"a", b" [", b"....[Hottest Region 1]",
    b"  4.35%   0x00007f0000000000:   ", b"c2, level 4, ", b"Decoding compiled method ",
)
"""What a long line starts with: the line kinds each reader tries its patterns on."""

SUFFIXES: tuple[bytes, ...] = (b"", b"", b"=", b"]", b"'/>", b">", b"\xc3\xa9", b" (1 bytes)", b":", b"x")

CHAR_REFERENCES: tuple[bytes, ...] = (
    b"&#99999999999999999999;", b"&#x110000;", b"&#xD800;", b"&#xDFFF;", b"&#0;", b"&#x0;", b"&#x;", b"&#;",
    b"&#-1;", b"&#x1b;", b"&#27;", b"&#x9b;", b"&#x202e;", b"&#xFFFE;", b"&#x" + b"f" * 40 + b";",
    b"&#" + b"9" * 5000 + b";", b"&bogus;", b"&#65", b"&amp",
)
"""Character references no HotSpot writes: out of range, surrogates, controls, unterminated, unknown."""

CONTROLS: tuple[bytes, ...] = (
    b"\x1b]0;owned\x07", b"\x1b]52;c;b3duZWQ=\x07", b"\x1b[8m", b"\x1b[2J", b"\x1b[31m", b"\x1bP", b"\x1b",
    b"\x07", b"\x08\x08\x08", b"\r", b"\x0b\x0c", b"\x7f", b"\x00",
    "\u009b31m".encode(), "\u009d0;x\u009c".encode(), b"\x9b",
    "\u202e".encode(), "\u2066\u2069".encode(), "\u200f".encode(), "\u2028".encode(), "\ufeff".encode(),
    b"&#x1b;]0;owned&#x7;", b"&#x202e;", b"&#x9b;",
)
"""Terminal control sequences (OSC 0 title, OSC 52 clipboard, SGR 8 hidden, C1 CSI in UTF-8 and raw), bidi
controls, and the same as character references (which only a LogCompilation log decodes)."""

_NAME_SPOT = re.compile(rb"::|(?:method|name|holder|klass|reason|file)='|\bin '|\.java|Compiled method \(c\d\)\s+")
"""Places in a line right after which a name (method, class, file or reason) starts."""

NUMBER_FIELDS = re.compile(
    rb"(?:bci|line|compile_id|stamp|bytes|osr_bci|count|iicount|id|level|size|entry)='(\d+)'"
    rb"|@(\d+)|\(line (\d+)\)|\((\d+) bytes\)|^Compiled method \(c\d\)\s+(\d+)\s+(\d+)|^\s+(\d+)\s"
    rb"|compile id (\d+)|version (\d+)|\s(\d+\.\d+)%"
)
"""Decimal numbers asmcfg turns into ints: bci, line, compile id, time stamp, bytecode size, OSR bci, counts."""
_DIGITS = re.compile(rb"\d+")


def _line_at(lines: Lines, rng: random.Random) -> int:
    return rng.randrange(len(lines))


def long_line(lines: Lines, rng: random.Random, longest: int = LONG_MAX) -> Lines:
    """Insert (or glue into a line) a line of up to `longest` bytes: a prefix, one or two shapes repeated, and a
    suffix."""
    size = int(LONG_MIN * (max(longest, LONG_MIN) / LONG_MIN) ** rng.random())
    unit = rng.choice(SHAPES) + (rng.choice(SHAPES) if rng.random() < 0.3 else b"")
    body = (unit * (size // len(unit) + 1))[:size]
    piece = rng.choice(PREFIXES) + body + rng.choice(SUFFIXES)
    at = rng.randrange(len(lines) + 1)
    if rng.random() < 0.3 and at < len(lines):
        cut = rng.randrange(len(lines[at]) + 1)
        return [*lines[:at], lines[at][:cut] + piece + lines[at][cut:], *lines[at + 1 :]]
    return [*lines[:at], piece, *lines[at:]]


def huge_number(lines: Lines, rng: random.Random) -> Lines:
    """Replace a number in a field (any digit run when no field is found) by thousands of digits, or by one just
    past 64 bits."""
    spots = [(n, m.start(g), m.end(g)) for n, line in enumerate(lines) for m in NUMBER_FIELDS.finditer(line)
             for g in range(1, (m.lastindex or 0) + 1) if m.group(g) is not None]
    if not spots or rng.random() < 0.2:
        spots = [(n, m.start(), m.end()) for n, line in enumerate(lines) for m in _DIGITS.finditer(line)]
    if not spots:
        return lines
    n, start, end = rng.choice(spots)
    count = rng.choice((rng.randint(4_301, 7_000), rng.randint(19, 40)))
    digits = str(rng.randint(1, 9)).encode() + bytes(rng.choice(b"0123456789") for _ in range(count - 1))
    return [*lines[:n], lines[n][:start] + digits + lines[n][end:], *lines[n + 1 :]]


def bad_reference(lines: Lines, rng: random.Random) -> Lines:
    """Put a character reference HotSpot never writes inside an attribute value or element text."""
    return _insert(lines, rng, rng.choice(CHAR_REFERENCES), re.compile(rb"='|>[^<]"))


def control_in_name(lines: Lines, rng: random.Random) -> Lines:
    """Put terminal control sequences or bidi controls at the start or inside a method, class or file name."""
    piece = b"".join(rng.choice(CONTROLS) for _ in range(rng.randint(1, 3)))
    return _insert(lines, rng, piece, _NAME_SPOT)


def _insert(lines: Lines, rng: random.Random, piece: bytes, where: re.Pattern[bytes]) -> Lines:
    """`piece` just after a match of `where` (a few bytes further at most), else anywhere in a random line."""
    spots = [(n, m.end()) for n, line in enumerate(lines) for m in where.finditer(line)]
    if spots:
        n, at = rng.choice(spots)
        at = min(len(lines[n]), at + rng.choice((0, 0, 1, 3)))
    else:
        n = _line_at(lines, rng)
        at = rng.randrange(len(lines[n]) + 1)
    return [*lines[:n], lines[n][:at] + piece + lines[n][at:], *lines[n + 1 :]]
