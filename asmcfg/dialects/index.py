"""A fast list of the compilations in a log: find method headers with a byte search over large blocks.

The registry picks the input's dialect from its first lines and asks for its indexer. Only the header lines
(`Compiled method (` here, `<nmethod compile_id=` records in a LogCompilation log) and the few lines after each
are decoded, so listing costs about as much as `grep -c` on the file.
"""

from __future__ import annotations

import functools
import mmap
from collections.abc import Callable, Iterator, Sequence
from itertools import starmap
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from asmcfg.dialects.base import Buffer, IndexRecord, Scan, Search, Window
from asmcfg.dialects.dialect import indexer
from asmcfg.dialects.header import header_fields, section_bounds
from asmcfg.dialects.scan import Serial, Split
from asmcfg.errors import InputError
from asmcfg.hotspot.printcompilation import sample_of
from asmcfg.model import Compiler, DialectName
from asmcfg.model.make import compiled
from asmcfg.processes.start import forkable
from asmcfg.sources.lines import Meter
from asmcfg.sources.split import fill, mapped, open_binary

if TYPE_CHECKING:
    from asmcfg.dialects.passes import Found, Look

T = TypeVar("T")

__all__ = ["IndexRecord", "headers", "hits", "index_file", "index_looking", "index_stream", "index_view", "windows"]

BUFFER = 4 << 20
"""Bytes of a stream (or of a mapped file) scanned at a time."""
SPLIT_BYTES = 32 << 20
"""Mapped files larger than this are searched on two cores (a smaller one costs less than the fork)."""
SHARE = 0.5
"""The part of a file split in two that this process searches (the forked one searches the rest)."""
HEAD = 1 << 16
"""Bytes at the start of the input whose lines pick its dialect."""

CONTEXT = 4 << 10
"""Bytes after a header kept for it across buffers."""
TABLE = 1536
"""Bytes after a header that are decoded with it: its section table."""
_RELEASE: int | None = getattr(mmap, "MADV_DONTNEED", None)
"""How a searched window's pages are let go (the file stays cached); None where mmap cannot advise."""
_FIND_ALL: Callable[[Buffer, bytes, int, int, int], list[int]] | None = compiled("asmcfg.dialects._lines", "find_all")
"""`find_all(buffer, needle, start, stop, end)` of the C module `_lines` where it is built (`_found`); None without."""
HEADER = b"Compiled method"
_MAIN_CODE = b"main code"


class Stream(Protocol):
    """A binary stream that can fill a buffer."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to `size` bytes."""
        ...

    def readinto(self, buffer: memoryview, /) -> int:
        """Fill `buffer` as far as possible; the count of bytes read."""
        ...


def index_file(
    path: str, meter: Meter | None = None, forced: DialectName | None = None, cut: int | None = None
) -> Iterator[IndexRecord]:
    """Every compilation in `path` (plain, .gz, .xz or `-` for stdin), in input order; `meter` counts bytes read,
    `forced` names the dialect instead of sniffing. A plain file is searched where it is mapped into memory; one
    over SPLIT_BYTES on two cores, a forked process taking the windows from its middle window boundary on, or from
    byte `cut` when given (any byte: a test's small file)."""
    with mapped(path) as view:
        if view is not None:
            yield from _indexed(view[:HEAD], _mapped_scan(view, meter, cut), forced)
            return
    with open_binary(path, meter) as stream:
        yield from index_stream(stream, path, forced)  # type: ignore[arg-type]


Looked = tuple[int, int, "Found"]
"""What the looks found in one window: (its offset, its length, what each look found)."""


def index_looking(
    view: mmap.mmap, meter: Meter | None, forced: DialectName | None, looks: Sequence[Look]
) -> tuple[list[IndexRecord], list[Looked]]:
    """The index of a mapped file, as `index_file` makes it, and what `looks` (`passes`) find in each window it
    searches, in input order, in the same pass: a window's looks run while its pages are in memory, before they
    are let go."""
    looked: list[Looked] = []
    records = list(_indexed(view[:HEAD], _Looking(_mapped_scan(view, meter, None), looks, looked), forced))
    return records, sorted(looked, key=lambda window: window[0])


class _Looking:
    """A scan whose search also runs looks on each window it is given, sending what they find with its finds
    (from a forked process too) and keeping it in `looked`."""

    __slots__ = ("_looked", "_looks", "_scan")

    def __init__(self, scan: Scan, looks: Sequence[Look], looked: list[Looked]) -> None:
        self._scan, self._looks, self._looked = scan, looks, looked

    def __call__(self, search: Search[T], /) -> Iterator[T]:
        for item in self._scan(functools.partial(_looking, search, self._looks)):
            if item[0]:
                yield item[1]
            else:
                self._looked.append(item[1])


def _looking(search: Search[T], looks: Sequence[Look], windows: Iterator[Window]) -> Iterator[tuple[bool, Any]]:
    """What `search` finds in `windows`, as (True, it), and what `looks` find in each window, as (False, Looked):
    a window's looks run once the search has moved on from it, before the window's pages are let go."""
    done: list[Looked] = []

    def watched() -> Iterator[Window]:
        for window in windows:
            yield window
            _, view, start, stop, _ = window
            assert isinstance(view, mmap.mmap)  # the windows of a mapped file
            done.append((start, stop - start, tuple(look(view, start, stop - start) for look in looks)))

    for item in search(watched()):
        yield from ((False, found) for found in done)
        done.clear()
        yield True, item
    yield from ((False, found) for found in done)


def index_stream(stream: Stream, source: str = "", forced: DialectName | None = None) -> Iterator[IndexRecord]:
    """Every compilation in a decompressed binary stream, in input order, found by its dialect's indexer."""
    try:
        head = stream.read(HEAD)
    except (OSError, EOFError) as exc:
        raise InputError(f"input ends badly: {exc} (is the file complete?)", source) from None
    yield from _indexed(head, Serial(_buffered(head, stream, source)), forced)


def _indexed(head: bytes, scan: Scan, forced: DialectName | None) -> Iterator[IndexRecord]:
    """The compilations `scan` finds with the indexer of the dialect the input's `head` is written in."""
    sample = sample_of(text.rstrip("\r") for text in head.decode("utf-8", "replace").split("\n"))
    yield from indexer(sample, forced)(scan)


def index_view(view: mmap.mmap, begin: int, forced: DialectName | None = None) -> Iterator[IndexRecord]:
    """Every compilation of a mapped file whose header (or `<nmethod>` record) starts at or after `begin`, a line
    start: the index of the file's tail, as `index_file` finds it there."""
    return _indexed(view[:HEAD], _mapped_scan(view, None, None, begin), forced)


def _mapped_scan(view: mmap.mmap, meter: Meter | None, cut: int | None, begin: int = 0) -> Scan:
    """The scan of a mapped file from byte `begin`: on two cores when `cut` (counted from `begin`) is given or the
    bytes are over SPLIT_BYTES."""
    size = len(view) - begin
    if cut is None:
        if size <= SPLIT_BYTES or not forkable():
            return Serial(_mapped(view, meter, begin))
        step = _step()
        cut = round(size * SHARE / step) * step
    return Split(lambda start, end, counted: _mapped(view, counted, begin + start, begin + end), size, cut, meter)


Fields = tuple[int, Compiler, int | None, int | None, str, str, int | None, int | None, int | None]
"""An IndexRecord's fields from its compile id to its code begin (all but the offsets and `printed`)."""


def headers(scan: Scan) -> Iterator[IndexRecord]:
    """PrintAssembly text's compilations: each `Compiled method` header and its section table."""
    return starmap(IndexRecord, scan(_header_fields))


def _header_fields(windows: Iterator[Window]) -> Iterator[tuple[Any, ...]]:
    """The fields of an IndexRecord for each header in `windows`, as a tuple (cheap to send between processes)."""
    for offset, _, context in hits(windows, (HEADER,)):
        fields = printed_fields(first_line(context), context)
        if fields is not None:
            yield *fields, offset, True, offset


def printed_fields(header: str, context: bytes) -> Fields | None:
    """The fields of the record a printed `header` line and the section table after it in `context` give; None
    when the line is not a header."""
    fields = header_fields(header)
    if fields is None:
        return None
    compiler, compile_id, level, flags, name, osr_bci, bytecode_size, _ = fields
    begin, size = main_code(context, context.find(b"\n") + 1)
    return compile_id, compiler, level, osr_bci, flags, name, bytecode_size, size, begin


def hits(windows: Iterator[Window], needles: tuple[bytes, ...], wide: tuple[int, ...] = (0,)) -> Iterator[Hit]:
    """(offset of the line, which needle, its text) for the first of each needle found on a line, in order.

    The text is the line, and for the needles numbered in `wide` up to TABLE bytes after the needle. A needle found
    again on its line is passed over, and a line's start is looked for back to the last needle only: a crafted line
    holding a needle thousands of times costs one read of it, not one per needle.
    """
    line, last, seen, place = 0, -1, set[int](), (-1, -1)
    for base, buf, start, stop, filled in windows:
        if place != (base, id(buf)):  # another buffer, or a stream's moved on: its positions are new
            place, last = (base, id(buf)), -1
        for found, which in _found(buf, needles, start, stop, filled):
            newline = buf.rfind(b"\n", max(last, 0), found)
            if newline >= 0 or last < 0:
                line, seen = newline + 1, set()
            last = found
            if which in seen:
                continue
            seen.add(which)
            end = min(found + TABLE, filled)
            if which not in wide:
                end = buf.find(b"\n", found, end) + 1 or end
            yield base + line, which, bytes(buf[line:end])


def windows(view: mmap.mmap, begin: int, end: int) -> Iterator[Window]:
    """Windows over bytes [begin, end) of a mapped file, as `index_file` searches it."""
    return _mapped(view, None, begin, end)


def _mapped(view: mmap.mmap, meter: Meter | None, begin: int = 0, end: int | None = None) -> Iterator[Window]:
    """Windows of BUFFER bytes over bytes [begin, end) of a mapped file (all of it by default), each reaching
    CONTEXT bytes into the next; nothing is copied. Each window's pages are let go once searched, so the process
    holds one window of the file, not all of it."""
    size = len(view)
    end = size if end is None else end
    step = _step()
    for start in range(begin, end, step):
        stop = min(start + step, end)
        if meter is not None:
            meter(stop - start)
        yield 0, view, start, stop, min(stop + CONTEXT, size)
        if _RELEASE is not None:
            page = start - start % mmap.PAGESIZE
            view.madvise(_RELEASE, page, stop - page)


def _step() -> int:
    """BUFFER rounded down to whole pages: where the windows of a mapped file start."""
    return max(BUFFER // mmap.PAGESIZE, 1) * mmap.PAGESIZE


def _buffered(head: bytes, stream: Stream, source: str) -> Iterator[Window]:
    """Windows over a stream, read into one reused buffer; each keeps CONTEXT bytes for the next."""
    buf = bytearray(max(BUFFER, 4 * CONTEXT, len(head)))
    buf[: len(head)] = head
    filled, base, start, eof = len(head), 0, 0, not head
    while True:
        filled, eof = fill(stream, buf, filled, source) if not eof else (filled, eof)
        stop = filled if eof else filled - CONTEXT
        yield base, buf, start, stop, filled
        if eof:
            return
        keep = buf.rfind(b"\n", 0, stop) + 1 or stop
        buf[: filled - keep] = buf[keep:filled]
        base, filled, start = base + keep, filled - keep, stop - keep


Hit = tuple[int, int, bytes]
"""(offset of the line, needle number, text)."""


def _found(buf: Buffer, needles: tuple[bytes, ...], start: int, stop: int, end: int) -> list[tuple[int, int]]:
    """(position, needle index) of each needle that starts in [start, stop), by position (found by the C module
    `_lines` where it is built, twice as fast)."""
    found = []
    for which, needle in enumerate(needles):
        if _FIND_ALL is not None:
            found += [(at, which) for at in _FIND_ALL(buf, needle, start, stop, end)]
            continue
        at = buf.find(needle, start, end)
        while 0 <= at < stop:
            found.append((at, which))
            at = buf.find(needle, at + len(needle), end)
    if len(needles) > 1:
        found.sort()
    return found


def first_line(context: bytes, start: int = 0) -> str:
    end = context.find(b"\n", start)
    return context[start : end if end >= 0 else len(context)].decode("utf-8", "replace").rstrip("\r")


def main_code(context: bytes, start: int) -> tuple[int | None, int | None]:
    """Begin and size of `main code` from the section table that follows a header line."""
    found = context.find(_MAIN_CODE, start)
    if found < 0 or context.find(HEADER, start, found) >= 0:
        return None, None
    bounds = section_bounds(first_line(context, context.rfind(b"\n", 0, found) + 1))
    return (bounds[0], bounds[1] - bounds[0]) if bounds else (None, None)
