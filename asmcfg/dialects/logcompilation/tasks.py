"""A whole log's records for a run over its code: compiler tasks left in the file until a unit needs them.

The `<uncommon_trap>` records and inlining decisions of a LogCompilation log follow all its code, most of
them inside the compiler `<task>` elements at its end. Reading them all before the first method is analysed
holds every record in memory and reads them on one core. Instead, one fast pass notes where each task is
(`Span`) and reads only the tags outside tasks (the traps that fired at run time); each unit of code then reads
the tasks of its own compile ids, in whichever process analyses it (`LogPart.records`). The records are those
`inline.read_log` gives, in the same order.
"""

from __future__ import annotations

import functools
import io
import os
from dataclasses import dataclass, field, replace
from typing import TypeVar

from asmcfg.dialects.logcompilation.inline import InlineCollector, LogRecords, collect, read_log
from asmcfg.dialects.logcompilation.logxml import TrapCollector
from asmcfg.dialects.logcompilation.tasklines import task_id, task_line
from asmcfg.model import LogBranch, LogInline, LogTrap
from asmcfg.processes import start
from asmcfg.processes.child import Child, Send
from asmcfg.sources.split import Fillable, line_blocks, open_binary

BLOCK = 4 << 20
"""Bytes the index reads at a time, into one buffer. Freeing it at the end also has glibc's malloc, whose threshold
for mapping a block afresh rises to the largest mapped block freed, serve the cutter's 2 MB blocks that follow from
its heap: with a 2 MB buffer each of them was mapped anew, and cutting the 336 MB log took 40,000 page faults
more (0.1 s)."""
SPLIT_BYTES = 64 << 20
"""Logs larger than this are indexed on two cores (the fork costs more than it saves on a smaller one)."""
_TASK_END = b"</task>"


@dataclass(frozen=True, slots=True)
class Span:
    """One compiler task's lines in the log file."""

    start: int
    """Offset of the `<task>` line."""
    end: int
    """Offset just past the line that closes the task."""
    line: int
    """Line number of the `<task>` line."""


@dataclass(frozen=True, slots=True)
class LogPart:
    """The log's records of some compile ids: those read already, and the tasks still to read from the file."""

    traps: tuple[LogTrap, ...]
    """Trap records read already, in log order."""
    inlines: tuple[LogInline, ...]
    """Inlining decisions read already, in log order."""
    path: str
    """The log file the spans are in."""
    spans: tuple[Span, ...]
    """The compiler tasks of these compile ids, in file order."""
    branches: tuple[LogBranch, ...] = ()
    """`<branch>` records read already, in log order."""

    def records(self) -> tuple[dict[int, list[LogTrap]], dict[int, list[LogInline]]]:
        """Trap records and inlining decisions per compile id, each list in log order."""
        traps, inlines, _ = self.all_records()
        return traps, inlines

    def all_records(self) -> tuple[dict[int, list[LogTrap]], dict[int, list[LogInline]], dict[int, list[LogBranch]]]:
        """Trap records, inlining decisions and branch records per compile id, each list in log order."""
        traps, inlines = TrapCollector(), InlineCollector()
        if self.spans:
            with open(self.path, "rb") as log:
                for span in self.spans:
                    log.seek(span.start)
                    collect((traps, inlines), log.read(span.end - span.start), span.line - 1)
        return (_merged(self.traps, traps.traps), _merged(self.inlines, inlines.inlines),
                _merged(self.branches, inlines.branches))


R = TypeVar("R", LogTrap, LogInline, LogBranch)


def _merged(known: tuple[R, ...], read: dict[int, list[R]]) -> dict[int, list[R]]:
    """Records per compile id: those known first, and those read from tasks after them, in line order."""
    grouped: dict[int, list[R]] = {}
    for record in known:
        grouped.setdefault(record.compile_id, []).append(record)
    for compile_id, records in read.items():
        mine = grouped.setdefault(compile_id, [])
        mine.extend(records)
        mine.sort(key=_line)
    return grouped


def _line(record: LogTrap | LogInline | LogBranch) -> int:
    return record.line


@dataclass(frozen=True, slots=True)
class LogIndex:
    """A log's records outside its compiler tasks, and where each task is."""

    path: str
    """The log file."""
    outside: LogRecords
    """Records read from the lines outside the spans (all of them when there are no spans)."""
    spans: dict[int, list[Span]] = field(default_factory=dict)
    """The tasks left in the file, per compile id."""

    def part(self, compile_ids: list[int]) -> LogPart:
        """The records of `compile_ids`, in that order."""
        outside = self.outside
        return LogPart(
            tuple(t for i in compile_ids for t in outside.traps.get(i, ())),
            tuple(d for i in compile_ids for d in outside.inlines.get(i, ())),
            self.path,
            tuple(sorted((s for i in compile_ids for s in self.spans.get(i, ())), key=_start)),
            tuple(b for i in compile_ids for b in outside.branches.get(i, ())),
        )


def _start(span: Span) -> int:
    return span.start


def index_log(path: str, chunk: int = BLOCK, cut: int | None = None) -> LogIndex:
    """The log at `path` indexed in one pass, `chunk` bytes at a time; a compressed log is read whole instead (it
    cannot be read in place). A file over SPLIT_BYTES is indexed on two cores: a second process indexes it from
    the first line after its middle (after byte `cut` when given, for a test's small file) while this one indexes
    up to there."""
    indexer = _Indexer()
    with open_binary(path) as stream:
        if not isinstance(stream, io.BufferedReader):
            return LogIndex(path, read_log(path))
        half = _half(stream, cut)
        later = None if half is None else _forked(path, half, chunk)
        if half is None or later is None:
            indexer.read(stream, chunk, path)
        else:
            indexer.read_halves(stream, half, later, chunk, path)
        indexer.finish()
    return LogIndex(path, LogRecords(indexer.traps.traps, indexer.inlines.inlines, indexer.inlines.tasks,
                                     branches=indexer.inlines.branches),
                    indexer.spans)


def _half(stream: io.BufferedReader, cut: int | None) -> int | None:
    """Where the second process starts to index: the first line start after the middle of the file (or after
    `cut`); None to index it all here."""
    size = os.fstat(stream.fileno()).st_size
    if not start.FORK or (cut is None and size <= SPLIT_BYTES):
        return None
    stream.seek(size // 2 if cut is None else cut)
    stream.readline()
    half = stream.tell()
    stream.seek(0)
    return half if 0 < half < size else None


def _forked(path: str, half: int, chunk: int) -> Child[_Indexer] | None:
    """The index of the lines from `half` on, made in a process of its own; None when none can be started."""
    try:
        return Child(functools.partial(_send_indexed, path, half, chunk), "asmcfg-index")
    except OSError:
        return None


def _send_indexed(path: str, start: int, chunk: int, send: Send) -> None:
    send(_indexed_from(path, start, chunk))


def _indexed_from(path: str, start: int, chunk: int) -> _Indexer:
    """The index of the lines from offset `start` (a line start) on, their numbers counted from there."""
    indexer = _Indexer(_offset=start)
    with open(path, "rb") as stream:
        stream.seek(start)
        indexer.read(stream, chunk, path)
    indexer.finish()
    return indexer


class _Upto:
    """A stream's bytes up to an offset."""

    __slots__ = ("_left", "_stream")

    def __init__(self, stream: io.BufferedReader, end: int) -> None:
        self._stream = stream
        self._left = end - stream.tell()

    def readinto(self, buffer: memoryview, /) -> int:
        count = self._stream.readinto(buffer[: self._left]) if self._left > 0 else 0
        self._left -= count
        return count


@dataclass(slots=True)
class _Indexer:
    traps: TrapCollector = field(default_factory=TrapCollector)
    inlines: InlineCollector = field(default_factory=InlineCollector)
    spans: dict[int, list[Span]] = field(default_factory=dict)
    _offset: int = 0
    """File offset of the lines still to come."""
    _line: int = 0
    """Lines before them."""
    _open: tuple[int, Span] | None = None
    """The task being passed over: its compile id and where it starts."""

    def read(self, stream: Fillable, chunk: int, source: str) -> None:
        """The lines of `stream` to its end."""
        for data, end in line_blocks(stream, chunk, source):
            self.feed(data, end)

    def read_halves(self, stream: io.BufferedReader, half: int, later: Child[_Indexer], chunk: int,
                    source: str) -> None:
        """The lines of `stream` up to offset `half` here, and those after it from `later`, which indexes them in
        a process of its own; here too when that process fails, or when a task or a trap is open at `half` (a fresh
        start there would not read the same)."""
        try:
            self.read(_Upto(stream, half), chunk, source)
            rest = later.result() if self._idle() else None
        finally:
            later.cancel()
        if rest is None:
            self.read(stream, chunk, source)
        else:
            self._join(rest)

    def feed(self, data: bytearray, end: int) -> None:
        """The next lines, `data[:end]` (`line_blocks`)."""
        self._lines(data, end)
        self._offset += end

    def finish(self) -> None:
        if self._open is not None:  # a task the log ends inside: its span runs to the end
            compile_id, span = self._open
            self.spans.setdefault(compile_id, []).append(Span(span.start, self._offset, span.line))
            self._open = None

    def _idle(self) -> bool:
        """No task or trap is open: what comes next reads the same from a fresh start."""
        return self._open is None and self.traps.idle() and self.inlines.idle()

    def _join(self, rest: _Indexer) -> None:
        """Take the index of the lines after these, whose numbers `rest` counted from there."""
        shift = self._line
        for compile_id, traps in rest.traps.traps.items():
            self.traps.traps.setdefault(compile_id, []).extend(replace(t, line=t.line + shift) for t in traps)
        for compile_id, inlines in rest.inlines.inlines.items():
            self.inlines.inlines.setdefault(compile_id, []).extend(replace(d, line=d.line + shift) for d in inlines)
        for compile_id, branches in rest.inlines.branches.items():
            self.inlines.branches.setdefault(compile_id, []).extend(replace(b, line=b.line + shift) for b in branches)
        self.inlines.tasks.update(rest.inlines.tasks)
        for compile_id, spans in rest.spans.items():
            self.spans.setdefault(compile_id, []).extend(Span(s.start, s.end, s.line + shift) for s in spans)
        self._offset, self._line = rest._offset, rest._line + shift

    def _lines(self, data: bytearray, size: int) -> None:
        """The whole lines `data[:size]`: tasks noted, the rest read."""
        pos, line = 0, self._line
        while pos < size:
            if self._open is not None:  # pos is past the task's own line
                close = data.find(_TASK_END, pos, size)
                following = task_line(data, pos, size if close < 0 else close)
                if close < 0 and following == size:
                    break
                # it ends at its closing tag's line, or where the next task opens (one a compiler thread's log
                # left open, a `<fragment>`, ends there: the next task's records are its own)
                end = following if following < (size if close < 0 else close) else data.find(b"\n", close) + 1
                open_id, span = self._open
                self.spans.setdefault(open_id, []).append(Span(span.start, self._offset + end, span.line))
                line += data.count(b"\n", pos, end)
                self._open, pos = None, end
                continue
            stop = task_line(data, pos, size)
            line = collect((self.traps, self.inlines), data, line, pos, stop)
            if stop == size:
                break
            pos = stop
            compile_id = task_id(data[pos : data.find(b"\n", pos)])
            if compile_id is None or self.traps.in_runtime_trap():
                end = data.find(b"\n", pos) + 1
                line = collect((self.traps, self.inlines), data, line, pos, end)
                pos = end
                continue
            self._open = (compile_id, Span(self._offset + pos, -1, line + 1))
            pos, line = data.find(b"\n", pos) + 1, line + 1
        self._line = line + (data.count(b"\n", pos, size) if self._open is not None and pos < size else 0)
