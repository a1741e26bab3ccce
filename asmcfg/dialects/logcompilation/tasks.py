"""A whole log's records for a run over its code: compiler tasks left in the file until a unit needs them.

The `<uncommon_trap>` records and inlining decisions of a LogCompilation log follow all its code, most of
them inside the compiler `<task>` elements at its end. Reading them all before the first method is analysed
holds every record in memory and reads them on one core. Instead, one fast pass notes where each task is
(`Span`) and reads only the tags outside tasks (the traps that fired at run time); each unit of code then reads
the tasks of its own compile ids, in whichever process analyses it (`LogPart.records`). The records are those
`inline.read_log` gives, in the same order.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TypeVar

from asmcfg.dialects.logcompilation.inline import InlineCollector, LogRecords, collect, read_log
from asmcfg.dialects.logcompilation.logxml import TrapCollector, tags, to_int
from asmcfg.model import LogInline, LogTrap
from asmcfg.sources.split import CHUNK, chunks, open_binary

_TASK = b"\n<task"
_TASK_NEXT = frozenset(b" \t/>")
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

    def records(self) -> tuple[dict[int, list[LogTrap]], dict[int, list[LogInline]]]:
        """Trap records and inlining decisions per compile id, each list in log order."""
        traps, inlines = TrapCollector(), InlineCollector()
        if self.spans:
            with open(self.path, "rb") as log:
                for span in self.spans:
                    log.seek(span.start)
                    collect((traps, inlines), log.read(span.end - span.start), span.line - 1)
        return _merged(self.traps, traps.traps), _merged(self.inlines, inlines.inlines)


R = TypeVar("R", LogTrap, LogInline)


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


def _line(record: LogTrap | LogInline) -> int:
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
        )


def _start(span: Span) -> int:
    return span.start


def index_log(path: str, chunk: int = CHUNK) -> LogIndex:
    """The log at `path` indexed in one pass, `chunk` bytes at a time; a compressed log is read whole instead (it
    cannot be read in place)."""
    indexer = _Indexer()
    with open_binary(path) as stream:
        if not isinstance(stream, io.BufferedReader):
            return LogIndex(path, read_log(path))
        for block in chunks(stream, chunk, path):
            indexer.feed(block)
        indexer.finish()
    return LogIndex(path, LogRecords(indexer.traps.traps, indexer.inlines.inlines, indexer.inlines.tasks),
                    indexer.spans)


@dataclass(slots=True)
class _Indexer:
    traps: TrapCollector = field(default_factory=TrapCollector)
    inlines: InlineCollector = field(default_factory=InlineCollector)
    spans: dict[int, list[Span]] = field(default_factory=dict)
    _rest: bytes = b""
    _offset: int = 0
    """File offset of `_rest`."""
    _line: int = 0
    """Lines before `_rest`."""
    _open: tuple[int, Span] | None = None
    """The task being passed over: its compile id and where it starts."""

    def feed(self, block: bytes) -> None:
        data = self._rest + block
        cut = data.rfind(b"\n") + 1
        self._lines(data[:cut])
        self._offset += cut
        self._rest = data[cut:]

    def finish(self) -> None:
        if self._rest:
            self._lines(self._rest + b"\n", len(self._rest))
        if self._open is not None:  # a task the log ends inside: its span runs to the end
            compile_id, span = self._open
            self.spans.setdefault(compile_id, []).append(Span(span.start, self._offset + len(self._rest), span.line))
            self._open = None

    def _lines(self, data: bytes, size: int | None = None) -> None:
        """Whole lines of `data` (`size` of them real bytes): tasks noted, the rest read."""
        size = len(data) if size is None else size
        pos, line = 0, self._line
        while pos < size:
            if self._open is not None:
                close = data.find(_TASK_END, pos, size)
                if close < 0:
                    break
                end = data.find(b"\n", close) + 1
                task_id, span = self._open
                self.spans.setdefault(task_id, []).append(Span(span.start, self._offset + end, span.line))
                line += data.count(b"\n", pos, end)
                self._open, pos = None, end
                continue
            stop = _task_line(data, pos, size)
            line = collect((self.traps, self.inlines), data[pos:stop], line)
            if stop == size:
                break
            pos = stop
            compile_id = _compile_id(data[pos : data.find(b"\n", pos)])
            if compile_id is None or self.traps.in_runtime_trap():
                end = data.find(b"\n", pos) + 1
                line = collect((self.traps, self.inlines), data[pos:end], line)
                pos = end
                continue
            self._open = (compile_id, Span(self._offset + pos, -1, line + 1))
        self._line = line + (data.count(b"\n", pos, size) if self._open is not None and pos < size else 0)


def _compile_id(line: bytes) -> int | None:
    """The compile id of a line that holds one opening `<task>` tag and nothing else; None for any other line."""
    found = tags(line.decode("utf-8", "replace"))
    if len(found) != 1 or found[0].closing or found[0].empty:
        return None
    return to_int(found[0].attrs.get("compile_id"))


def _task_line(data: bytes, pos: int, size: int) -> int:
    """Where the first line from `pos` (a line start) that opens with a `<task>` tag starts; `size` if none does."""
    if data.startswith(_TASK[1:], pos) and data[pos + 5] in _TASK_NEXT:
        return pos
    found = data.find(_TASK, pos, size)
    while found >= 0:
        if data[found + 6] in _TASK_NEXT:
            return found + 1
        found = data.find(_TASK, found + 1, size)
    return size
