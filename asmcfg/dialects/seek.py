"""One compilation read from its own bytes of a plain file, found through the header index.

PrintAssembly text (hsdis or `[MachCode]` hex) is read as the parallel path reads it: a `Piece` that starts and ends
where a method starts after a finished one (`[/Disassembly]` before it, as `split.next_cut` cuts), with the JDK the
last `# VM version` line before it named. A LogCompilation log is read as a `Unit` its `Splitter` cuts, starting at
the `<writer>` line of the thread that wrote the compilation's `<nmethod>` record, with the log's `<release>`, and
with the trap records and inlining decisions `tasks.index_log` finds for it. Line numbers count from the file's
start, so the method is the one the whole-input reader gives.
"""

from __future__ import annotations

import mmap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from asmcfg.dialects.base import Dialect, IndexRecord, ReadOptions
from asmcfg.dialects.passes import before, line_of
from asmcfg.model import DialectName, Method
from asmcfg.sources.split import ENDS, Piece, method_start

if TYPE_CHECKING:
    from asmcfg.dialects.logcompilation.tasks import LogIndex

REACH = 256
"""Records looked at before and after the compilation for a clean cut; past them the input is read whole."""
_CLEAN = 256
"""Bytes before a method start in which a finished method's end is looked for (as `split.next_cut` does)."""
_WRITER = b"<writer thread="
_TTY = b"<tty>"


@dataclass(slots=True)
class _Counts:
    outside: int = 0


PIECE_BYTES = 16 << 20
"""Text around the chosen method beyond which it is not read as one piece (a method followed by tens of MB of a
program's output, say): the whole-input read streams it in bounded memory instead."""


def read_text(
    view: mmap.mmap, offsets: Sequence[int], chosen: int, dialect: Dialect, source: str, options: ReadOptions,
    path: str | None = None,
) -> Method | None:
    """The method whose `Compiled method` header line starts at `offsets[chosen]` (the index's offsets of every
    header, in order), read from a piece of whole methods around it; None when no clean cut is near."""
    bounds = _bounds(view, offsets, chosen)
    if bounds is None:
        return None
    start, end = bounds
    if end - start > PIECE_BYTES:  # read as one piece, its lines would all be held at once: stream the input
        return None
    first, jdk = before(view, start, path)
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
    return view[max(0, cut - _CLEAN) : cut].rstrip().endswith(ENDS)


def _line_start(view: mmap.mmap, at: int) -> int | None:
    """The start of the line `at` is on, when only blanks come before it there (a saveLog indents every line)."""
    start = view.rfind(b"\n", 0, at) + 1
    return start if not view[start:at].strip() else None


def read_log(
    view: mmap.mmap, record: IndexRecord, dialect: Dialect, log: LogIndex, source: str, options: ReadOptions,
    record_line: int | None = None, path: str | None = None,
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
    ahead = view[start : record.offset].count(b"\n")  # the `<writer>` line is near its record
    first = line_of(view, start, path) if record_line is None else record_line - ahead
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
