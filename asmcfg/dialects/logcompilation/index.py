"""The fast `--list` of a LogCompilation log: its `<nmethod>` records, completed by the printed headers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from asmcfg.dialects.base import IndexRecord, Window
from asmcfg.dialects.header import parse_header
from asmcfg.dialects.index import HEADER, Hit, first_line, hits, index_record, main_code
from asmcfg.dialects.logcompilation.logxml import NMethodRecord, nmethod_record, unescape
from asmcfg.model import Header

STALE = 16 << 20
"""Bytes after an `<nmethod>` record within which its printed header is awaited."""
NMETHOD = b"<nmethod compile_id="
_SIMPLE_ATTR = re.compile(r"(\w+)='([^']*)'")
"""HotSpot writes every attribute in single quotes."""


def records(windows: Iterator[Window]) -> Iterator[IndexRecord]:
    """The log's compilations, in `<nmethod>` order, each with its printed header when the log holds one."""
    yield from _xml(hits(windows, (NMETHOD, HEADER), wide=(1,)))


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
    header = parse_header(unescape(first_line(context)), 0)
    entry = pending.get(header.compile_id if header and header.compile_id is not None else -1)
    if header is None or entry is None:
        return
    begin, size = main_code(context, context.find(b"\n") + 1)
    record = entry.record
    entry.result = index_record(header, entry.offset, begin or record.code_begin, size or record.code_size, True)


def _ready(pending: dict[int, _Pending], now: int | None) -> Iterator[IndexRecord]:
    """Take records from the front once printed, or once `STALE` bytes passed without their header."""
    while pending:
        key = next(iter(pending))
        entry = pending[key]
        if entry.result is None and now is not None and now - entry.offset < STALE:
            return
        del pending[key]
        record = entry.record
        yield entry.result or index_record(_header_of(record), entry.offset, record.code_begin, record.code_size, False)


def _header_of(record: NMethodRecord) -> Header:
    flags = {"osr": "%", "c2n": "n"}.get(record.kind, "")
    return Header(record.compiler, record.compile_id, record.level, flags, record.method, None, record.bytecode_size)
