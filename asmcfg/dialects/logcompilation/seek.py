"""One compilation of a large plain LogCompilation log read from its own bytes (`LogSeek`, a `base.Seek`).

The log is listed from its `<nmethod>` records, and a compile id's record is found by a search for the lines that
name it. A compilation is read as a `Unit` the `Splitter` cuts, starting at the `<writer>` line of the thread that
wrote its `<nmethod>` record, with the log's `<release>`, and with the trap records and inlining decisions of its
compile id (`one.index_one`, or the whole log's `tasks.index_log` when the log is not laid out as HotSpot writes it).
Line numbers count from the file's start, so the method is the one the whole-input reader gives. The default choice
indexes only the log's tail when its last printed C2 compilation lies there.
"""

from __future__ import annotations

import mmap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from asmcfg.dialects.base import IndexRecord, ReadOptions
from asmcfg.dialects.dialect import Dialect
from asmcfg.dialects.passes import line_of
from asmcfg.dialects.seek import Counts, TextSeek
from asmcfg.model import Compiler, Method

if TYPE_CHECKING:
    from asmcfg.dialects.logcompilation.tasks import LogIndex
    from asmcfg.dialects.passes import Look
    from asmcfg.sources.lines import Meter

_WRITER = b"<writer thread="
_TTY = b"<tty>"
_HEADER = b"Compiled method ("


class LogSeek(TextSeek):
    """A mapped LogCompilation log: its records indexed, a compilation read from its record and its thread's text."""

    def last_c2(self, tails: Sequence[int]) -> IndexRecord | None:
        """The last printed C2 compilation, found in the index of a tail of the log from a line start on; None when
        the log's second half holds none."""
        from asmcfg.dialects.index import index_view

        size = len(self.view)
        for tail in tails:
            floor = self.view.rfind(b"\n", 0, max(size - tail, 0)) + 1
            if floor < size // 2:
                return None
            records = list(index_view(self.view, floor, self.dialect.name))
            chosen = next((r for r in reversed(records) if r.printed and r.compiler is Compiler.C2), None)
            if chosen is not None and chosen.compile_id is not None:
                return chosen
        return None

    def direct(self, compile_id: int) -> list[IndexRecord] | None:
        """The index record of `compile_id`, found by a search for its `<nmethod>` record and an index of the bytes
        after it; None when there is no such record."""
        from asmcfg.dialects.index import BUFFER, windows
        from asmcfg.dialects.logcompilation.index import STALE, records
        from asmcfg.dialects.scan import Serial

        start = self._nmethod(compile_id)
        if start is None:
            return None
        end = min(len(self.view), start + STALE + BUFFER)
        found = [r for r in records(Serial(windows(self.view, start, end))) if r.compile_id == compile_id]
        return found[:1] or None

    def index(self, meter: Meter | None, choosing: bool) -> list[IndexRecord]:
        from asmcfg.dialects.index import index_file

        return list(index_file(self.path, meter, self.dialect.name))

    def _printed(self) -> Look | None:
        from asmcfg.dialects import passes

        return passes.occurrences(_HEADER)

    def _naming(self, compile_id: int) -> bytes | None:
        from asmcfg.dialects.logcompilation.one import needle

        return needle(compile_id)

    def _lines(self, compile_id: int) -> list[tuple[int, int]]:
        """(start, number) of the lines of the log that name `compile_id` (`one.needle`), found once."""
        from asmcfg.dialects.logcompilation.one import needle
        from asmcfg.dialects.passes import lines_with

        if self._named is None or self._named[0] != compile_id:
            self._named = (compile_id, lines_with(self.view, needle(compile_id), self.path))
        return self._named[1]

    def _nmethod(self, compile_id: int) -> int | None:
        """Where the line of the first `<nmethod>` record of `compile_id` starts (blanks only before it on its line),
        None when there is none."""
        from asmcfg.dialects.logcompilation.one import needle
        from asmcfg.dialects.passes import line_end

        tag = b"<nmethod " + needle(compile_id)
        for start, _ in self._lines(compile_id):
            at = self.view.find(tag, start, line_end(self.view, start))
            if at >= 0:
                return start if not self.view[start:at].strip() else None
        return None

    def read(self, records: Sequence[IndexRecord], chosen: IndexRecord) -> Method | None:
        """The chosen compilation, with the records of its compile id found by a search for it (the whole log's
        index when the log is not laid out as HotSpot writes it)."""
        from asmcfg.dialects.logcompilation.one import index_one
        from asmcfg.dialects.logcompilation.tasks import index_log

        lines = [] if chosen.compile_id is None else self._lines(chosen.compile_id)
        log = None if chosen.compile_id is None else index_one(self.view, self.path, chosen.compile_id, lines)
        numbers = dict(lines)
        if log is None:
            log, numbers = index_log(self.path), {}
        return read_log(self.view, chosen, self.dialect, log, self.source, self.options, numbers.get(chosen.offset),
                        self.path)


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
        for method in dialect.read_piece(unit, source, options, Counts()):
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
