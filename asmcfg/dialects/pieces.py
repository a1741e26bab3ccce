"""`Piecewise`: the base of the dialects whose input is cut into pieces of whole methods for the parallel engine,
listed from the byte search for its `Compiled method` headers, and opened one compilation at a time from the text
between method starts around its header (`seek.TextSeek`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from asmcfg.dialects.dialect import Dialect, Numbered

if TYPE_CHECKING:
    import mmap

    from asmcfg.dialects.base import Cut, IndexRecord, ReadOptions, Scan, Seek
    from asmcfg.sources.lines import Meter


class Piecewise(Dialect):
    """A dialect read in pieces, listed from its headers and opened one compilation at a time; a subclass changes
    what differs (a LogCompilation log's units, records and random access)."""

    def cutter(self) -> Cut | None:
        from asmcfg.sources.split import method_pieces

        return method_pieces

    def index(self, scan: Scan) -> Iterator[IndexRecord]:
        from asmcfg.dialects.index import headers

        return headers(scan)

    def listing(self, path: str, meter: Meter | None) -> Iterator[Numbered] | None:
        from asmcfg.dialects.numbering import numbered_index

        return numbered_index(path, meter, self.name)

    def seek(self, view: mmap.mmap, path: str, source: str, options: ReadOptions) -> Seek | None:
        from asmcfg.dialects.seek import TextSeek

        return TextSeek(self, view, path, source, options)
