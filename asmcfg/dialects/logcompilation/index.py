"""The fast `--list` of a LogCompilation log: its `<nmethod>` records, completed by the printed headers."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

from asmcfg.dialects.base import IndexRecord, Scan, Window
from asmcfg.dialects.index import HEADER, Fields, first_line, hits, printed_fields
from asmcfg.dialects.logcompilation.logxml import line_attrs, nmethod_record, unescape

STALE = 16 << 20
"""Bytes after an `<nmethod>` record within which its printed header is awaited."""
NMETHOD = b"<nmethod compile_id="


Found = tuple[int, int, Fields | None]
"""(offset, 0 for an `<nmethod>` record or 1 for a printed header, its fields; None when it does not parse)."""


def records(scan: Scan) -> Iterator[IndexRecord]:
    """The log's compilations, in `<nmethod>` order, each with its printed header when the log holds one."""
    yield from _xml(scan(_parsed))


def _parsed(windows: Iterator[Window]) -> Iterator[Found]:
    """Each `<nmethod>` record and printed header in `windows`, parsed (as tuples, cheap to send between
    processes)."""
    for offset, which, context in hits(windows, (NMETHOD, HEADER), wide=(1,)):
        yield offset, which, _nmethod(context) if which == 0 else printed_fields(unescape(first_line(context)), context)


def _nmethod(line: bytes) -> Fields | None:
    """The fields of the record an `<nmethod>` line gives a compilation that is not printed."""
    attrs = line_attrs(line)
    record = nmethod_record(attrs, 0)
    if record is None:
        return None
    flags = {"osr": "%", "c2n": "n"}.get(record.kind, "")
    return (record.compile_id, record.compiler, record.level, None, flags, record.method, record.bytecode_size,
            record.code_size, record.code_begin)


@dataclass(slots=True)
class _Pending:
    fields: Fields
    offset: int
    result: IndexRecord | None = None


def _xml(found: Iterator[Found]) -> Iterator[IndexRecord]:
    """Records in `<nmethod>` order, completed by the printed header of the same compile id when it comes."""
    pending: OrderedDict[int, _Pending] = OrderedDict()  # its oldest is found at once, a dict's after the deleted
    for offset, which, fields in found:
        if fields is not None and which == 0:
            pending[fields[0]] = _Pending(fields, offset)
        elif fields is not None and (entry := pending.get(fields[0])) is not None:
            record = entry.fields
            entry.result = IndexRecord(*fields[:7], fields[7] or record[7], fields[8] or record[8], entry.offset, True,
                                  offset)
        yield from _ready(pending, offset)
    yield from _ready(pending, None)


def _ready(pending: OrderedDict[int, _Pending], now: int | None) -> Iterator[IndexRecord]:
    """Take records from the front once printed, or once `STALE` bytes passed without their header."""
    while pending:
        key = next(iter(pending))
        entry = pending[key]
        if entry.result is None and now is not None and now - entry.offset < STALE:
            return
        del pending[key]
        yield entry.result or IndexRecord(*entry.fields, entry.offset, False, entry.offset)
