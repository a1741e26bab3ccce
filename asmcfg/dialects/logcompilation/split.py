"""Cut a LogCompilation log into units of one thread's whole methods, working on large binary chunks.

Only markup lines (those holding `<`) are looked at one by one; the text between them is handed on
as bytes. A unit is read later, in any process, with `read_unit`, and gives what the line-by-line
`logcompilation.Reader` gives for the same methods.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from asmcfg.dialects.logcompilation.logxml import NMethodRecord, feature_version, tags, unescape
from asmcfg.dialects.logcompilation.machine import TtyMachine
from asmcfg.dialects.logcompilation.reader import QUIET_BYTES, Context, read_text
from asmcfg.dialects.logcompilation.tasks import LogIndex, LogPart, index_log
from asmcfg.model import Method
from asmcfg.sources.lines import STDIN
from asmcfg.sources.numbers import BYTES_DIGITS
from asmcfg.sources.split import CHUNK, ENDS, Piece, Readable, chunks, to_texts

if TYPE_CHECKING:
    from asmcfg.dialects.base import Counts, ReadOptions

HEADERLESS_BYTES = 8 << 20
"""Bytes of a thread's text without a method header after which they are handed on anyway."""
_CODE_LINE = b"\n  0x"
"""The start of an instruction line (an address after two blanks)."""
_FOLLOWED = re.compile(rb"</?(?:writer|print_nmethod|nmethod|tty|release)")
"""The start of every tag `TtyMachine` follows (and of some others: any name these begin)."""
_HEADER_ID = re.compile(rb"Compiled method \([^)]{0,64}\)\s+%s\s+(?:\S+:\s*)?(%s) " % (BYTES_DIGITS, BYTES_DIGITS))
"""`header._HEADER`'s compile id, linear as it is."""


def last_end(data: bytes) -> int:
    """The offset just past the last line of `data` that ends a method (`ENDS`, as `reader.is_end` reads them),
    0 when there is none."""
    return max(_last_line_of(data, marker) for marker in ENDS)


def _last_line_of(data: bytes, marker: bytes) -> int:
    """The offset just past the last line of `data` that is `marker` alone, 0 when there is none."""
    found = data.rfind(marker)
    while found >= 0:
        start = data.rfind(b"\n", 0, found) + 1
        end = data.find(b"\n", found) + 1 or len(data)
        if data[start:end].strip() == marker:
            return end
        found = data.rfind(marker, 0, found)
    return 0


@dataclass(frozen=True, slots=True)
class Unit:
    """Text one compiler thread wrote, holding whole methods, with the records that name them."""

    segments: tuple[Piece, ...]
    """The thread's text, XML-escaped, in order."""
    printing: int | None
    """Compile id of the thread's `<print_nmethod>` open when the unit was cut."""
    records: tuple[NMethodRecord, ...]
    """`<nmethod>` records of the compile ids in the text."""
    jdk_hint: int | None
    """Feature version from `<release>`."""
    log: LogPart | None = None
    """The log's `<uncommon_trap>` records and inlining decisions of the compile ids in the text, or where they
    are in the file; None when the log could not be read ahead (stdin)."""

    @property
    def size(self) -> int:
        """Bytes of text."""
        return sum(len(s.data) for s in self.segments)

    def mapped(self, change: Callable[[int, bytes], bytes]) -> Unit:
        """The unit with each segment's bytes replaced by `change(first_line, data)` (as `Piece.mapped`)."""
        return replace(self, segments=tuple(s.mapped(change) for s in self.segments))


def read_piece(unit: Unit, source: str, options: ReadOptions | None, counts: Counts) -> Iterator[Method]:
    """The unit's methods (a `ReadPiece`); its lines outside any method go to `counts`."""
    methods, outside = read_unit(unit, source, options)
    counts.outside += outside
    yield from methods


def read_unit(unit: Unit, source: str, options: ReadOptions | None = None) -> tuple[list[Method], int]:
    """The unit's methods and the count of its lines outside any method."""
    lines = [(segment.first_line, to_texts(segment.data, unescape)) for segment in unit.segments]
    traps, inlines, branches = (None, None, None) if unit.log is None else unit.log.all_records()
    ctx = Context(source, options, unit.jdk_hint, {r.compile_id: r for r in unit.records}, traps, inlines, branches)
    return read_text(lines, ctx, unit.printing, any(b"[MachCode]" in segment.data for segment in unit.segments))


@dataclass(slots=True)
class _Thread:
    pending: list[Piece] = field(default_factory=list)
    size: int = 0
    header: bool = False
    printing: int | None = None
    quiet: int = 0
    """Bytes since the last instruction line (or header) of the pending text, as `reader.ThreadText.quiet`."""


class Splitter(TtyMachine[_Thread, Unit]):
    """Turns the bytes of a LogCompilation log into Units, in the order the serial reader yields methods."""

    def __init__(self, source: str = "", log: LogIndex | None = None, line: int = 1, inside: bool = False) -> None:
        self.source = source
        self.log = log
        """Where the log's trap records and inlining decisions are (`tasks.index_log`), handed to the units
        that need them."""
        self.jdk_hint: int | None = None
        self._line = line
        """The number of the next line (`line`: the first line's, when the bytes start inside the log)."""
        super().__init__({})
        if inside:  # the bytes start inside the `<tty>`
            self._section = "tty"

    def units(self, stream: Readable) -> Iterator[Unit]:
        """Units until `</tty>` (the compiler tasks after it hold no assembly)."""
        buf = b""
        for block in chunks(stream, CHUNK, self.source):
            buf += block
            pos = yield from self._scan(buf)
            buf = buf[pos:]
            if self._section == "log":
                return
        if buf:
            yield from self._last_line(buf)
        yield from self._flush_all()

    def _scan(self, buf: bytes) -> Generator[Unit, None, int]:
        """Handle every complete line of `buf`; return where the unhandled rest starts."""
        pos = 0
        while self._section != "log":
            lt = buf.find(b"<", pos)
            end = buf.rfind(b"\n", pos, len(buf) if lt < 0 else lt) + 1
            if end > pos:
                yield from self._text(buf[pos:end])
                pos = end
            if lt < 0:
                break
            line_end = buf.find(b"\n", lt)
            if line_end < 0:
                break
            yield from self._markup(buf[pos:line_end])
            pos = line_end + 1
        return pos

    def _last_line(self, buf: bytes) -> Iterator[Unit]:
        if b"<" in buf:
            yield from self._markup(buf)
        else:
            yield from self._text(buf)

    def _text(self, data: bytes) -> Iterator[Unit]:
        first = self._line
        self._line += data.count(b"\n")
        if self._section == "head":
            if self._release:
                self.jdk_hint = feature_version(data.split(b"\n", 1)[0].decode("ascii", "replace"))
                self._release = False
            return
        thread = self._current
        cut = last_end(data)
        if not cut:
            self._add(thread, Piece(first, data))
            if thread.quiet >= QUIET_BYTES if thread.header else thread.size >= HEADERLESS_BYTES:
                yield from self._flush(thread)
            return
        self._add(thread, Piece(first, data[:cut]))
        yield from self._flush(thread)
        if cut < len(data):
            self._add(thread, Piece(first + data.count(b"\n", 0, cut), data[cut:]))

    def _add(self, thread: _Thread, piece: Piece) -> None:
        data = piece.data
        thread.pending.append(piece)
        thread.size += len(data)
        header = b"Compiled method (" in data or b"Decoding compiled" in data
        thread.header = thread.header or header
        code = data.rfind(_CODE_LINE)
        thread.quiet = len(data) - code if code >= 0 else 0 if header else thread.quiet + len(data)

    def _markup(self, data: bytes) -> Iterator[Unit]:
        number = self._line
        self._line += 1 + data.count(b"\n")
        if not _FOLLOWED.search(data):  # the machine passes the other tags on to `_other`, which ignores them here
            return
        for tag in tags(data.decode("utf-8", "replace")):
            yield from self._tag(tag, number)

    def _new_thread(self) -> _Thread:
        return _Thread()

    def _first_line(self, thread: _Thread) -> int | None:
        return thread.pending[0].first_line if thread.pending else None

    def _flush(self, thread: _Thread) -> Iterator[Unit]:
        if not thread.pending:
            return
        segments = tuple(thread.pending)
        ids = {int(m.group(1)) for s in segments for m in _HEADER_ID.finditer(s.data)}
        if thread.printing is not None:
            ids.add(thread.printing)
        order = sorted(ids)
        records = tuple(self._records[i] for i in order if i in self._records)
        part = None if self.log is None else self.log.part(order)
        thread.pending, thread.size, thread.header, thread.quiet = [], 0, False, 0
        yield Unit(segments, thread.printing, records, self.jdk_hint, part)


def cut(stream: Readable, path: str, source: str, target: int) -> Iterator[Unit]:
    """The log as units of whole compilations, with the trap records and inlining decisions of a file found
    in one fast pass (they follow the code) and read with each unit; stdin is read once, so its units carry none."""
    return Splitter(source, None if path == STDIN else index_log(path)).units(stream)
