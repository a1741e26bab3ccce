"""The header index's records as a full read lists them: in the order of their header lines, each with that line's
number (the fast `--list` of a large input). The newlines between one header and the next are counted as the
records go by (in C where `pip install .` could build the module `_lines`), in the mapping the index searches: the
pages of this process's part of the search are counted while they are still in memory, and a page is let go once
counted, so the listing holds no more of the file."""

from __future__ import annotations

import heapq
import mmap
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from asmcfg.dialects.base import IndexRecord
from asmcfg.dialects.index import index_file, index_mapped
from asmcfg.dialects.passes import newline_count
from asmcfg.sources.split import mapped

if TYPE_CHECKING:
    from asmcfg.model import DialectName
    from asmcfg.sources.lines import Meter

Numbered = tuple[IndexRecord, "int | None"]
"""A record and the number of its header line (None where the lines are not counted)."""
_RELEASE: int | None = getattr(mmap, "MADV_DONTNEED", None)
"""How counted pages are let go (the file stays cached); None where mmap cannot advise."""
_HELD = 4 << 20
"""Bytes counted before their pages are let go, at once (one release per record would cost more than the count)."""


def numbered_index(path: str, meter: Meter | None = None, forced: DialectName | None = None) -> Iterator[Numbered]:
    """The records of `index_file` in the order of their header lines (`in_line_order`), each with its number; an
    input read as a stream (a compressed file) has none."""
    with mapped(path) as view:
        if view is not None:
            yield from numbered(in_line_order(index_mapped(view, meter, forced)), view)
            return
    yield from numbered(in_line_order(index_file(path, meter, forced)), None)


def in_line_order(records: Iterable[IndexRecord]) -> Iterator[IndexRecord]:
    """`records` (in the order of their `offset`s, as an indexer gives them) in the order of their header lines. A
    LogCompilation log prints a compilation's header after its `<nmethod>` record, and another compilation's may
    come between them: a record is held until no later record can have a header before its own (every record's
    header is at or after its offset), so the few records held are those whose headers are still ahead."""
    held: list[tuple[int, int, IndexRecord]] = []
    for n, record in enumerate(records):
        while held and held[0][0] < record.offset:
            yield heapq.heappop(held)[2]
        if not held and record.header_offset == record.offset:
            yield record  # PrintAssembly text: every record, at once
        else:
            heapq.heappush(held, (record.header_offset, n, record))
    while held:
        yield heapq.heappop(held)[2]


def numbered(records: Iterable[IndexRecord], view: mmap.mmap | None) -> Iterator[Numbered]:
    """Each record with the 1-based number of its header line in the mapped file `view` (None without one), counted
    from the previous record's: in line order the file is read once, each page let go once counted."""
    if view is None:
        yield from ((record, None) for record in records)
        return
    at, line, kept = 0, 1, 0
    for record in records:
        to = record.header_offset
        if to < at:  # not in line order
            line -= newline_count(view, to, at)
            at = to
        while at < to:  # counted _HELD bytes at a time: a copy (without `_lines`) is no larger
            step = min(to, at + _HELD)
            line += newline_count(view, at, step)
            at = step
            if at - kept >= _HELD:
                kept = _release(view, kept, at)
        yield record, line


def _release(view: mmap.mmap, start: int, stop: int) -> int:
    """Let go of the pages of bytes [start, stop) that were counted (the one holding `stop` is read on); where the
    next release starts."""
    first = start - start % mmap.PAGESIZE
    last = stop - stop % mmap.PAGESIZE
    if _RELEASE is not None and last > first:
        view.madvise(_RELEASE, first, last - first)
    return last
