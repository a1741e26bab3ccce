"""The header index's records as a full read lists them: in the order of their header lines, each with that line's
number (the fast `--list` of a large input). The newlines between one header and the next are counted as the
records go by (in C where `pip install .` could build the module `_lines`). In a mapped file the search counts
them itself, in each process that searches, a page at a time while its windows are still in memory
(`block_newlines`): a record's number is then the count before its header's page and the newlines of that page
before the header. Where those counts do not cover the file, the newlines are counted here between one header and
the next, in the mapping the index searches, each page let go once counted, so the listing holds no more of the
file."""

from __future__ import annotations

import heapq
import mmap
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from asmcfg.dialects.base import IndexRecord
from asmcfg.dialects.index import Looked, index_file, index_looking
from asmcfg.dialects.passes import newline_count
from asmcfg.model.make import compiled
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
BLOCK = mmap.PAGESIZE
"""Bytes whose newlines the search counts together (`block_newlines`): a page, so the windows of a mapped file (whole
pages) start on a block."""
_BLOCKS: Callable[[Any, int, int, int], list[int]] | None = compiled("asmcfg.dialects._lines", "block_newlines")
"""`block_newlines(buffer, start, stop, block)` of the C module `_lines` where it is built; None without it."""


def numbered_index(path: str, meter: Meter | None = None, forced: DialectName | None = None) -> Iterator[Numbered]:
    """The records of `index_file` in the order of their header lines (`in_line_order`), each with its number; an
    input read as a stream (a compressed file) has none."""
    with mapped(path) as view:
        if view is not None:
            records, looked = index_looking(view, meter, forced, (block_newlines,))
            before = blocks_before(looked, len(view))
            if before is not None:
                yield from numbered_from(in_line_order(records), view, before)
            else:
                yield from numbered(in_line_order(records), view)
            return
    yield from numbered(in_line_order(index_file(path, meter, forced)), None)


def block_newlines(view: mmap.mmap, start: int, limit: int) -> list[int]:
    """The look (`passes.Look`) that counts the newlines of each BLOCK bytes of the `limit` bytes from `start` (a
    window the index searches): in C where `_lines` is built, else a copy of each block at a time."""
    if _BLOCKS is not None:
        return _BLOCKS(view, start, start + limit, BLOCK)
    stop = start + limit
    return [view[at : min(at + BLOCK, stop)].count(b"\n") for at in range(start, stop, BLOCK)]


def blocks_before(looked: Sequence[Looked], size: int) -> list[int] | None:
    """The newlines before each BLOCK of a file of `size` bytes, from the `block_newlines` looks of windows that
    cover it in order, each starting on a block; None when the windows are not so."""
    counts: list[int] = []
    reached = 0
    for offset, length, found in looked:
        if offset != reached or offset % BLOCK or len(found[0]) != -(-length // BLOCK):
            return None
        counts += found[0]
        reached += length
    if reached != size:
        return None
    return list(accumulate(counts, initial=0))


def numbered_from(records: Iterable[IndexRecord], view: mmap.mmap, before: list[int]) -> Iterator[Numbered]:
    """Each record with the 1-based number of its header line in `view`, from `before` (`blocks_before`): the
    newlines before the header's block, and those of the block before the header, counted now."""
    for record in records:
        to = record.header_offset
        block = to // BLOCK
        yield record, 1 + before[block] + newline_count(view, block * BLOCK, to)


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
