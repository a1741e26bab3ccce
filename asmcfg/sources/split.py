"""Read a log as large binary chunks and cut it between methods, without a Python step per line."""

from __future__ import annotations

import io
import lzma
import mmap
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import IO, Protocol

from asmcfg.errors import InputError
from asmcfg.sources import lines as sources
from asmcfg.sources.lines import Line

CHUNK = 2 << 20
"""Bytes read at a time."""
HEADER = b"Compiled method ("
BANNER = b"-compiled nmethod"
END = b"[/Disassembly]"
ENDS = (END, b"[/MachCode]")
"""The last line of a finished method: `[/Disassembly]` with hsdis, `[/MachCode]` without it (`[MachCode]` hex)."""
_VM_VERSION = re.compile(sources.VM_VERSION.encode())
"""`lines.VM_VERSION` in bytes."""
SPAN_TARGETS, MIN_SPAN = 16, 16 << 20
"""A piece with no method start in it grows to this many targets, at least this many bytes (`text_pieces`)."""
_BANNER_REACH = 400
"""How far before a header the `==== C2-compiled nmethod ====` banner may start."""


class Readable(Protocol):
    """A binary stream: all the splitters need."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to `size` bytes, empty at the end."""
        ...


@contextmanager
def open_binary(path: str, meter: sources.Meter | None = None) -> Iterator[IO[bytes]]:
    """The decompressed bytes of `path` (or stdin for `-`), closed afterwards (stdin stays open)."""
    stream = sources.open_binary(path, meter)
    try:
        yield stream
    finally:
        if path != sources.STDIN:
            stream.close()


@contextmanager
def mapped(path: str) -> Iterator[mmap.mmap | None]:
    """A plain file's bytes mapped read-only into memory, closed afterwards; None for stdin, a compressed file
    or one that cannot be mapped (an empty file, a pipe), which are read as a stream instead."""
    if path == sources.STDIN or not os.path.isfile(path):
        yield None
        return
    with open_binary(path) as stream:
        view = _map(stream) if isinstance(stream, io.BufferedReader) else None
        try:
            yield view
        finally:
            if view is not None:
                view.close()


def _map(stream: IO[bytes]) -> mmap.mmap | None:
    try:
        return mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None


class Fillable(Protocol):
    """A binary stream that can fill a buffer."""

    def readinto(self, buffer: memoryview, /) -> int:
        """Fill `buffer` as far as possible; the count of bytes read, 0 at the end."""
        ...


def fill(stream: Fillable, buf: bytearray, filled: int, source: str = "") -> tuple[int, bool]:
    """Read into `buf` after its first `filled` bytes until it is full or the stream ends: the bytes it holds, and
    whether the stream ended; an input that ends badly raises InputError."""
    view = memoryview(buf)
    try:
        while filled < len(buf):
            count = stream.readinto(view[filled:])
            if not count:
                return filled, True
            filled += count
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise InputError(f"input ends badly: {exc} (is the file complete?)", source) from None
    finally:
        view.release()
    return filled, False


def line_blocks(stream: Fillable, size: int = CHUNK, source: str = "") -> Iterator[tuple[bytearray, int]]:
    """The stream's lines, read into one reused buffer: (buffer, end), the buffer's first `end` bytes being whole
    lines. A last line without its newline ends the last block, and the buffer holds a newline after it. The
    next block overwrites the buffer (and a line longer than it grows it), so each is used before the next."""
    buf = bytearray(size)
    filled = 0
    while True:
        filled, ended = fill(stream, buf, filled, source)
        if ended:
            if filled:
                buf[filled : filled + 1] = b"\n"
                yield buf, filled
            return
        cut = buf.rfind(b"\n", 0, filled) + 1
        if not cut:
            buf.extend(bytes(len(buf)))
            continue
        yield buf, cut
        buf[: filled - cut] = buf[cut:filled]
        filled -= cut


def chunks(stream: Readable, size: int = CHUNK, source: str = "") -> Iterator[bytes]:
    """Successive blocks of `stream`; an input that ends badly raises InputError."""
    while True:
        try:
            block = stream.read(size)
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise InputError(f"input ends badly: {exc} (is the file complete?)", source) from None
        if not block:
            return
        yield block


class Peeked:
    """A stream whose first bytes were read ahead to sniff it."""

    def __init__(self, head: bytes, stream: Readable) -> None:
        self._head = head
        self._stream = stream

    def read(self, size: int = -1, /) -> bytes:
        """The read-ahead bytes first, then the stream."""
        if not self._head:
            return self._stream.read(size)
        if size < 0:
            head, self._head = self._head, b""
            return head + self._stream.read()
        head, self._head = self._head[:size], self._head[size:]
        return head


def line_pieces(stream: Readable, source: str = "") -> Iterator[Piece]:
    """The input as pieces of whole lines, cut wherever a chunk ends."""
    buf = b""
    line, offset = 1, 0
    for block in chunks(stream, CHUNK, source):
        buf += block
        cut = buf.rfind(b"\n") + 1
        if cut:
            yield Piece(line, buf[:cut], offset)
            line += buf.count(b"\n", 0, cut)
            offset += cut
            buf = buf[cut:]
    if buf:
        yield Piece(line, buf, offset)


@dataclass(frozen=True, slots=True)
class Piece:
    """Consecutive whole lines of the input."""

    first_line: int
    """1-based number of the first line."""
    data: bytes
    """The lines, each ending in a newline (the last may lack it at the end of input)."""
    offset: int = 0
    """Byte offset of the first line in the decompressed input."""
    jdk_hint: int | None = None
    """The JDK that the last `# VM version: JDK N` line before the piece named (JMH prints one before each run):
    what a reader of the whole text would know when it reaches the piece."""

    @property
    def size(self) -> int:
        """Bytes of text."""
        return len(self.data)

    def lines(self) -> list[Line]:
        """The piece as Line records, decoded like `sources.read_lines`."""
        return to_lines(self.first_line, self.data)

    def mapped(self, change: Callable[[int, bytes], bytes]) -> Piece:
        """The piece with `change(first_line, data)` for its bytes (holding as many lines)."""
        return replace(self, data=change(self.first_line, self.data))

    def texts(self) -> list[str]:
        """The texts of the piece's lines (the first is line `first_line`), decoded like `lines`."""
        return to_texts(self.data)


def to_lines(first_line: int, data: bytes, unescape: Callable[[str], str] | None = None) -> list[Line]:
    """Decode `data` into numbered lines, as `sources.read_lines` would; `unescape` replaces XML entities."""
    return [Line(number, text) for number, text in enumerate(to_texts(data, unescape), first_line)]


def to_texts(data: bytes, unescape: Callable[[str], str] | None = None) -> list[str]:
    """The texts of `to_lines`: `data` decoded and split into lines without their endings."""
    texts = data.decode("utf-8", "replace").split("\n")
    if texts and texts[-1] == "":
        texts.pop()
    if b"\r" in data:
        texts = [t.rstrip("\r") for t in texts]
    if unescape and b"&" in data:
        texts = [unescape(t) if "&" in t else t for t in texts]
    return texts


def method_start(buf: bytes | mmap.mmap, header: int, floor: int) -> int:
    """Where the method with its header at offset `header` starts: its banner line if close, else the header line."""
    start = buf.rfind(b"\n", floor, header) + 1 or floor
    banner = buf.rfind(BANNER, max(floor, start - _BANNER_REACH), start)
    if banner < 0:
        return start
    return buf.rfind(b"\n", floor, banner) + 1 or floor


def method_pieces(stream: Readable, path: str, source: str, target: int) -> Iterator[Piece]:
    """`text_pieces`, each with the JDK a `# VM version` line before it named: for readers new at each header."""
    hint = None
    for piece in text_pieces(stream, target, source):
        yield piece if hint is None else replace(piece, jdk_hint=hint)
        named = named_jdk(piece.data)
        hint = hint if named is None else named


def named_jdk(data: bytes, end: int | None = None) -> int | None:
    """The JDK the last `# VM version: JDK N` line in `data` (that starts before offset `end`) names, or None."""
    named = [int(found.group(1)) for found in _VM_VERSION.finditer(data) if end is None or found.start() < end]
    return named[-1] if named else None


def text_pieces(stream: Readable, target: int = 1 << 20, source: str = "") -> Iterator[Piece]:
    """Cut PrintAssembly text into pieces of about `target` bytes that start at a method (or the input's start).

    Text with no method header for more than `SPAN_TARGETS` times `target` bytes (lines outside any method, or one
    method of that much text) is cut at the end of its last `[/Disassembly]` line, else of its last whole line, so
    that no piece, and no buffer here, grows with the input."""
    buf = b""
    line, offset = 1, 0
    span = max(SPAN_TARGETS * target, MIN_SPAN)
    for block in chunks(stream, CHUNK, source):
        buf += block
        start = 0
        cut = next_cut(buf, start, target)
        while cut > start or len(buf) - start > span:
            cut = cut if cut > start else headerless_cut(buf, start)
            piece = buf[start:cut]
            yield Piece(line, piece, offset)
            line, offset, start = line + piece.count(b"\n"), offset + len(piece), cut
            cut = next_cut(buf, start, target)
        buf = buf[start:]
    if buf:
        yield Piece(line, buf, offset)


def headerless_cut(buf: bytes, start: int) -> int:
    """Where to cut text after `start` in which no method starts: after its last `[/Disassembly]` line, where a
    reader holds nothing of a method, else after its last whole line."""
    end = buf.rfind(END, start)
    line_end = buf.find(b"\n", end) + 1 if end >= 0 else 0
    return line_end if line_end > start else buf.rfind(b"\n", start) + 1 or len(buf)


def next_cut(buf: bytes, start: int, target: int) -> int:
    """The first method start at least `target` bytes after `start` that follows a finished method, or -1. A
    start right after `[/Disassembly]` keeps interleaved output of two threads inside one piece; when none comes
    within four times `target`, the first method start is used."""
    found = buf.find(HEADER, start + target)
    fallback = -1
    while found >= 0:
        cut = method_start(buf, found, start)
        if cut > start:
            if buf[max(start, cut - 256) : cut].rstrip().endswith(END):
                return cut
            fallback = cut if fallback < 0 else fallback
            if found - start > 4 * target:
                return fallback
        found = buf.find(HEADER, found + len(HEADER))
    return -1
