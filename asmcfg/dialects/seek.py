"""One compilation read from its own bytes of a plain file, found through the header index.

PrintAssembly text (hsdis or `[MachCode]` hex) is read as the parallel path reads it: a `Piece` that starts and ends
where a method starts after a finished one (`[/Disassembly]` before it, as `split.next_cut` cuts), with the JDK the
last `# VM version` line before it named. A LogCompilation log is read as a `Unit` its `Splitter` cuts, starting at
the `<writer>` line of the thread that wrote the compilation's `<nmethod>` record, with the log's `<release>`, and
with the trap records and inlining decisions `tasks.index_log` finds for it. Line numbers count from the file's
start, so the method is the one the whole-input reader gives.
"""

from __future__ import annotations

import functools
import mmap
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from asmcfg.dialects.base import Dialect, IndexRecord, ReadOptions
from asmcfg.dialects.scan import FORK, Forked
from asmcfg.model import DialectName, Method
from asmcfg.sources.split import END, Piece, method_start, named_jdk

if TYPE_CHECKING:
    from asmcfg.dialects.logcompilation.tasks import LogIndex

REACH = 256
"""Records looked at before and after the compilation for a clean cut; past them the input is read whole."""
COUNT_BYTES = 16 << 20
SHARED_BYTES = 64 << 20
"""Bytes from which a pass over a file is shared with a forked process (forking costs more than it saves on less)."""
T = TypeVar("T")
"""Bytes whose newlines are counted at a time."""
_RELEASE: int | None = getattr(mmap, "MADV_DONTNEED", None)
"""How counted pages are let go (the file stays cached); None where mmap cannot advise."""
_CLEAN = 256
"""Bytes before a method start in which a finished method's `[/Disassembly]` is looked for (as `split.next_cut`)."""
_VM_VERSION = b"# VM version: JDK "
_VM_REACH = 64
"""Bytes of the next chunk a `# VM version: JDK N` line that starts in a chunk may reach into."""
_WRITER = b"<writer thread="
_TTY = b"<tty>"


@dataclass(slots=True)
class _Counts:
    outside: int = 0


PIECE_BYTES = 16 << 20
"""Text around the chosen method beyond which it is not read as one piece (a method followed by tens of MB of a
program's output, say): the whole-input read streams it in bounded memory instead."""

def chunks(view: mmap.mmap, end: int | None = None, overlap: int = 0) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes) of successive COUNT_BYTES of the mapped file up to `end`, each with `overlap` bytes of the
    next; each chunk's pages are let go once copied, so the process never holds the file."""
    end = len(view) if end is None else end
    for start in range(0, end, COUNT_BYTES):
        stop = min(start + COUNT_BYTES, end)
        data = view[start : min(stop + overlap, end)]
        if _RELEASE is not None:
            view.madvise(_RELEASE, start, stop - start)
        yield start, data


def line_of(view: mmap.mmap, offset: int) -> int:
    """The 1-based number of the line that starts at byte `offset`."""
    return _before(view, offset)[0]


def _before(view: mmap.mmap, offset: int) -> tuple[int, int | None]:
    """The number of the line that starts at byte `offset`, and the JDK the last `# VM version: JDK N` line before
    it names (as `split.method_pieces` hints a piece), in one pass (shared with a forked process on a large file)."""
    middle = _shared(offset)
    later = _forked(functools.partial(_counted, view, middle, offset)) if middle else None
    lines, named = _counted(view, 0, middle if later is not None else offset, offset)
    if later is not None:
        rest = later.result() or _counted(view, middle, offset)
        lines += rest[0]
        named = named if rest[1] is None else rest[1]
    return 1 + lines, named


def _counted(view: mmap.mmap, begin: int, end: int, limit: int | None = None) -> tuple[int, int | None]:
    """The newlines in [begin, end) (begin: 0 or a COUNT_BYTES boundary, as `chunks` cuts), and the JDK the last
    `# VM version: JDK N` line that starts there names, reading up to `limit` (default `end`) for its digits."""
    limit = end if limit is None else limit
    lines, named = 0, None
    for start in range(begin, end, COUNT_BYTES):
        stop = min(start + COUNT_BYTES, end)
        data = view[start : min(stop + _VM_REACH, limit)]
        if _RELEASE is not None:
            view.madvise(_RELEASE, start, stop - start)
        lines += data.count(b"\n", 0, stop - start)
        found = named_jdk(data) if _VM_VERSION in data else None
        named = named if found is None else found
    return lines, named


def _shared(end: int) -> int:
    """Where a forked process takes over a pass over bytes [0, end): a COUNT_BYTES boundary near the middle; 0 to
    make it all here (a small file; no fork; other threads running, as in `serve`: a forked copy of a threaded
    process may wait forever on a lock one of them held)."""
    if not FORK or end < SHARED_BYTES or threading.active_count() > 1:
        return 0
    return end // 2 // COUNT_BYTES * COUNT_BYTES


def _forked(function: Callable[[], T]) -> Forked[T] | None:
    try:
        return Forked(function, {})
    except OSError:  # no process can be forked now: the pass is made here
        return None


def count(view: mmap.mmap, needle: bytes) -> int:
    """How many times `needle` occurs in the mapped file."""
    total = 0
    for _, data in chunks(view, overlap=len(needle) - 1):
        at = data.find(needle)
        while 0 <= at < COUNT_BYTES:
            total += 1
            at = data.find(needle, at + 1)
    return total


def lines_with(view: mmap.mmap, needle: bytes) -> list[tuple[int, int]]:
    """(start, 1-based number) of each line of the mapped file holding `needle` (which holds no newline), in one
    pass that counts the lines as it goes (shared with a forked process on a large file)."""
    middle = _shared(len(view))
    later = _forked(functools.partial(_lines_with, view, needle, middle, len(view))) if middle else None
    found, lines = _lines_with(view, needle, 0, middle if later is not None else len(view))
    if later is not None:
        rest, _ = later.result() or _lines_with(view, needle, middle, len(view))
        for start, number in rest:
            if not found or start != found[-1][0]:  # a line across the middle is found by both halves
                found.append((start, lines + number))
    return found


def _lines_with(view: mmap.mmap, needle: bytes, begin: int, end: int) -> tuple[list[tuple[int, int]], int]:
    """(start, number counted from the line at `begin`) of each line holding `needle` that starts in [begin, end)
    (begin: 0 or a COUNT_BYTES boundary), and the newlines in [begin, end)."""
    found: list[tuple[int, int]] = []
    number, line_start = 1, view.rfind(b"\n", 0, begin) + 1
    for base in range(begin, end, COUNT_BYTES):
        limit = min(base + COUNT_BYTES, end) - base
        data = view[base : base + limit + len(needle) - 1]
        if _RELEASE is not None:
            view.madvise(_RELEASE, base, limit)
        done = 0
        at = data.find(needle)
        while 0 <= at < limit:
            newlines = data.count(b"\n", done, at)
            if newlines:
                number += newlines
                line_start = base + data.rfind(b"\n", done, at) + 1
            if not found or found[-1][0] != line_start:
                found.append((line_start, number))
            done = at
            at = data.find(needle, at + 1)
        newlines = data.count(b"\n", done, limit)
        if newlines:
            number += newlines
            line_start = base + data.rfind(b"\n", done, limit) + 1
    return found, number - 1


def read_text(
    view: mmap.mmap, offsets: Sequence[int], chosen: int, dialect: Dialect, source: str, options: ReadOptions
) -> Method | None:
    """The method whose `Compiled method` header line starts at `offsets[chosen]` (the index's offsets of every
    header, in order), read from a piece of whole methods around it; None when no clean cut is near."""
    bounds = _bounds(view, offsets, chosen)
    if bounds is None:
        return None
    start, end = bounds
    if end - start > PIECE_BYTES:  # read as one piece, its lines would all be held at once: stream the input
        return None
    first, jdk = _before(view, start)
    header_line = first + view[start : offsets[chosen]].count(b"\n")
    piece = Piece(first, view[start:end], start, jdk)
    for method in dialect.read_piece(piece, source, options, _Counts()):
        if method.header.line == header_line:
            return method
    return None


def _bounds(view: mmap.mmap, offsets: Sequence[int], chosen: int) -> tuple[int, int] | None:
    """Where the piece holding the chosen method starts and ends: method starts after a finished method (or the
    input's ends)."""
    start = end = None
    for j in range(chosen, max(chosen - REACH, -1), -1):
        cut = method_start(view, offsets[j], offsets[j - 1] if j else 0)
        if j == 0 or _clean(view, cut):
            start = 0 if j == 0 else cut
            break
    for k in range(chosen + 1, min(chosen + 1 + REACH, len(offsets) + 1)):
        if k == len(offsets):
            end = len(view)
            break
        cut = method_start(view, offsets[k], offsets[k - 1])
        if _clean(view, cut):
            end = cut
            break
    return None if start is None or end is None else (start, end)


def _clean(view: mmap.mmap, cut: int) -> bool:
    return view[max(0, cut - _CLEAN) : cut].rstrip().endswith(END)


def _line_start(view: mmap.mmap, at: int) -> int | None:
    """The start of the line `at` is on, when only blanks come before it there (a saveLog indents every line)."""
    start = view.rfind(b"\n", 0, at) + 1
    return start if not view[start:at].strip() else None


def read_log(
    view: mmap.mmap, record: IndexRecord, dialect: Dialect, log: LogIndex, source: str, options: ReadOptions,
    record_line: int | None = None,
) -> Method | None:
    """The printed method of `record` (an `<nmethod>` record of a LogCompilation log, on line `record_line` when
    known), read from the unit the cutter makes of its thread's text from the `<writer>` line before the record on
    (from the record, in a log with one writer); None when it is not found."""
    from asmcfg.dialects.logcompilation.split import Splitter

    assert dialect.name is DialectName.LOGCOMPILATION
    found = view.rfind(_WRITER, 0, record.offset)
    start = _line_start(view, record.offset if found < 0 else found)  # a log with one writer names none
    tty = view.find(_TTY)
    if start is None or tty < 0 or tty > start:
        return None
    head = Splitter(source)
    for _ in head.units(_Bytes(view, 0, tty)):
        pass  # the head holds no unit: it is read for its `<release>`
    first = line_of(view, start) if record_line is None else record_line - view[start : record.offset].count(b"\n")
    cutter = Splitter(source, log, line=first, inside=True)
    cutter.jdk_hint = head.jdk_hint
    wanted = record.compile_id
    for unit in cutter.units(_Bytes(view, start, len(view))):
        if unit.printing != wanted and not any(str(wanted).encode() in s.data for s in unit.segments):
            continue
        for method in dialect.read_piece(unit, source, options, _Counts()):
            if method.header.compile_id == wanted:
                return method
    return None


class _Bytes:
    """Bytes [start, end) of a mapped file as a binary stream."""

    __slots__ = ("_end", "_pos", "_view")

    def __init__(self, view: mmap.mmap, start: int, end: int) -> None:
        self._view, self._pos, self._end = view, start, max(start, end)

    def read(self, size: int = -1, /) -> bytes:
        stop = self._end if size < 0 else min(self._end, self._pos + size)
        data = self._view[self._pos : stop]
        self._pos = stop
        return data
