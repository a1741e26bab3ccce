"""A fast list of the compilations in a log: find method headers with a byte search over large blocks.

Only the header lines (`Compiled method (`, or `<nmethod compile_id=` records in a LogCompilation log)
and the few lines after each are decoded, so listing costs about as much as `grep -c` on the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from asmcfg.dialects.header import parse_header, parse_section
from asmcfg.dialects.logcompilation.logxml import NMethodRecord, nmethod_record, unescape
from asmcfg.errors import InputError
from asmcfg.model import Header
from asmcfg.sources.lines import Meter
from asmcfg.sources.split import open_binary

BUFFER = 4 << 20
"""Bytes of a stream scanned at a time."""

CONTEXT = 4 << 10
"""Bytes after a header kept for it across buffers."""
TABLE = 1536
"""Bytes after a header that are decoded with it: its section table."""
STALE = 16 << 20
"""Bytes after an `<nmethod>` record within which its printed header is awaited."""
HEADER = b"Compiled method"
NMETHOD = b"<nmethod compile_id="
_MAIN_CODE = b"main code"
_SIMPLE_ATTR = re.compile(r"(\w+)='([^']*)'")
"""HotSpot writes every attribute in single quotes."""


class Stream(Protocol):
    """A binary stream that can fill a buffer."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to `size` bytes."""
        ...

    def readinto(self, buffer: memoryview, /) -> int:
        """Fill `buffer` as far as possible; the count of bytes read."""
        ...


@dataclass(frozen=True, slots=True)
class IndexRecord:
    """One compilation found by the index."""

    compile_id: int | None
    """Compile id, None when the layout does not print it."""
    compiler: str
    """`c1`, `c2`, `jvmci`, `native` or `unknown`."""
    level: int | None
    """Tier level (0-4), None without tiered compilation."""
    osr_bci: int | None
    """Bytecode index of an OSR compilation's entry, None for a normal one."""
    flags: str
    """Attribute characters as printed: `%` OSR, `s` synchronized, `!` handlers, `b` blocking, `n` native."""
    method: str
    """`pkg.Class::method`."""
    bytecode_size: int | None
    """Size of the method's bytecode in bytes."""
    code_size: int | None
    """Size of `main code` from the section table (or the `<nmethod>` offsets), None if not printed."""
    code_begin: int | None
    """Address of the first byte of `main code`."""
    offset: int
    """Byte offset of the header line (or the `<nmethod>` record) in the decompressed input."""
    printed: bool
    """True when the log holds the compilation's assembly (always for PrintAssembly text)."""


def index_file(path: str, meter: Meter | None = None) -> Iterator[IndexRecord]:
    """Every compilation in `path` (plain, .gz, .xz or `-` for stdin), in input order; `meter` counts bytes read."""
    with open_binary(path, meter) as stream:
        yield from index_stream(stream, path)  # type: ignore[arg-type]


def index_stream(stream: Stream, source: str = "") -> Iterator[IndexRecord]:
    """Every compilation in a decompressed binary stream, in input order."""
    try:
        head = stream.read(1 << 16)
    except (OSError, EOFError) as exc:
        raise InputError(f"input ends badly: {exc} (is the file complete?)", source) from None
    yield from _records(head, _buffered(head, stream, source))


def _records(head: bytes, windows: Iterator[Window]) -> Iterator[IndexRecord]:
    if b"<hotspot_log" in head or b"<tty>" in head or b"<writer thread=" in head:
        yield from _xml(hits(windows, (NMETHOD, HEADER), wide=(1,)))
        return
    for offset, _, context in hits(windows, (HEADER,)):
        header = parse_header(_first_line(context), 0)
        if header is not None:
            begin, size = _main_code(context, context.find(b"\n") + 1)
            yield _record(header, offset, begin, size, True)


Window = tuple[int, bytearray, int, int, int]
"""(offset of the buffer in the input, buffer, where the needles may start: from, to, bytes in the buffer)."""


def hits(windows: Iterator[Window], needles: tuple[bytes, ...], wide: tuple[int, ...] = (0,)) -> Iterator[Hit]:
    """(offset of the line, which needle, its text) for each needle found, in order.

    The text is the line, and for the needles numbered in `wide` up to TABLE bytes after the needle.
    """
    for base, buf, start, stop, filled in windows:
        for found, which in _found(buf, needles, start, stop, filled):
            line = buf.rfind(b"\n", 0, found) + 1
            end = found + TABLE
            if which not in wide:
                end = buf.find(b"\n", found, end) + 1 or end
            yield base + line, which, bytes(buf[line:end])


def _buffered(head: bytes, stream: Stream, source: str) -> Iterator[Window]:
    """Windows over a stream, read into one reused buffer; each keeps CONTEXT bytes for the next."""
    buf = bytearray(max(BUFFER, 4 * CONTEXT, len(head)))
    buf[: len(head)] = head
    filled, base, start, eof = len(head), 0, 0, not head
    while True:
        filled, eof = _fill(stream, buf, filled, source) if not eof else (filled, eof)
        stop = filled if eof else filled - CONTEXT
        yield base, buf, start, stop, filled
        if eof:
            return
        keep = buf.rfind(b"\n", 0, stop) + 1 or stop
        buf[: filled - keep] = buf[keep:filled]
        base, filled, start = base + keep, filled - keep, stop - keep


Hit = tuple[int, int, bytes]
"""(offset of the line, needle number, text)."""


def _found(buf: bytearray, needles: tuple[bytes, ...], start: int, stop: int, end: int) -> list[tuple[int, int]]:
    """(position, needle index) of each needle that starts in [start, stop), by position."""
    found = []
    for which, needle in enumerate(needles):
        at = buf.find(needle, start, end)
        while 0 <= at < stop:
            found.append((at, which))
            at = buf.find(needle, at + len(needle), end)
    if len(needles) > 1:
        found.sort()
    return found


def _fill(stream: Stream, buf: bytearray, filled: int, source: str) -> tuple[int, bool]:
    view = memoryview(buf)
    try:
        while filled < len(buf):
            count = stream.readinto(view[filled:])
            if not count:
                return filled, True
            filled += count
    except (OSError, EOFError) as exc:
        raise InputError(f"input ends badly: {exc} (is the file complete?)", source) from None
    finally:
        view.release()
    return filled, False


def _first_line(context: bytes, start: int = 0) -> str:
    end = context.find(b"\n", start)
    return context[start : end if end >= 0 else len(context)].decode("utf-8", "replace").rstrip("\r")


def _main_code(context: bytes, start: int) -> tuple[int | None, int | None]:
    """Begin and size of `main code` from the section table that follows a header line."""
    found = context.find(_MAIN_CODE, start)
    if found < 0 or HEADER in context[start:found]:
        return None, None
    line = context.rfind(b"\n", 0, found) + 1
    section = parse_section(_first_line(context, line))
    return (section[1], section[2] - section[1]) if section else (None, None)


@dataclass(slots=True)
class _Pending:
    record: NMethodRecord
    offset: int
    result: IndexRecord | None = None


def _xml(found: Iterator[Hit]) -> Iterator[IndexRecord]:
    """Records in `<nmethod>` order, completed by the printed header of the same compile id when it comes."""
    pending: dict[int, _Pending] = {}
    for offset, which, context in found:
        if which == 0:
            record = _nmethod(context)
            if record is not None:
                pending[record.compile_id] = _Pending(record, offset)
        else:
            _printed(pending, context)
        yield from _ready(pending, offset)
    yield from _ready(pending, None)


def _nmethod(line: bytes) -> NMethodRecord | None:
    attrs = dict(_SIMPLE_ATTR.findall(line.decode("utf-8", "replace")))
    attrs["method"] = unescape(attrs.get("method", ""))
    return nmethod_record(attrs, 0)


def _printed(pending: dict[int, _Pending], context: bytes) -> None:
    header = parse_header(unescape(_first_line(context)), 0)
    entry = pending.get(header.compile_id if header and header.compile_id is not None else -1)
    if header is None or entry is None:
        return
    begin, size = _main_code(context, context.find(b"\n") + 1)
    record = entry.record
    entry.result = _record(header, entry.offset, begin or record.code_begin, size or record.code_size, True)


def _ready(pending: dict[int, _Pending], now: int | None) -> Iterator[IndexRecord]:
    """Take records from the front once printed, or once `STALE` bytes passed without their header."""
    while pending:
        key = next(iter(pending))
        entry = pending[key]
        if entry.result is None and now is not None and now - entry.offset < STALE:
            return
        del pending[key]
        record = entry.record
        yield entry.result or _record(_header_of(record), entry.offset, record.code_begin, record.code_size, False)


def _header_of(record: NMethodRecord) -> Header:
    flags = {"osr": "%", "c2n": "n"}.get(record.kind, "")
    return Header(record.compiler, record.compile_id, record.level, flags, record.method, None, record.bytecode_size)


def _record(header: Header, offset: int, begin: int | None, size: int | None, printed: bool) -> IndexRecord:
    return IndexRecord(
        compile_id=header.compile_id, compiler=header.compiler, level=header.level, osr_bci=header.osr_bci,
        flags=header.flags, method=header.name, bytecode_size=header.bytecode_size, code_size=size,
        code_begin=begin, offset=offset, printed=printed,
    )
