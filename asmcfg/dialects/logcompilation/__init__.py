"""-XX:+LogCompilation XML, with the PrintAssembly text it holds and the compiler's trap records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from asmcfg.dialects.base import Chunk, Counts, Cut, IndexRecord, Reader, ReadOptions, Scan
from asmcfg.dialects.pieces import Piecewise
from asmcfg.model import DialectName

if TYPE_CHECKING:
    import mmap

    from asmcfg.dialects.base import Seek
    from asmcfg.model import Method


class LogCompilation(Piecewise):
    """Cut per compiler thread; listed from its `<nmethod>` records; a compilation of a large log is opened from its
    record and its thread's text; the trap records and inlining decisions follow all the code."""

    name = DialectName.LOGCOMPILATION
    signs = ("<hotspot_log", "<tty>", "<writer thread=", "<print_nmethod")
    trap_records = True

    def sniff(self, sample: list[str]) -> float:
        from asmcfg.dialects.logcompilation.reader import sniff

        return sniff(sample)

    def reader(self, source: str, options: ReadOptions | None = None) -> Reader:
        from asmcfg.dialects.logcompilation.reader import Reader

        return Reader(source, options or ReadOptions())

    def cutter(self) -> Cut | None:
        from asmcfg.dialects.logcompilation.split import cut

        return cut

    def _read_piece(self, piece: Chunk, source: str, options: ReadOptions | None, counts: Counts) -> Iterator[Method]:
        from asmcfg.dialects.logcompilation.split import Unit, read_piece

        assert isinstance(piece, Unit), "a log is cut into units of one thread's text"
        return read_piece(piece, source, options, counts)

    def index(self, scan: Scan) -> Iterator[IndexRecord]:
        from asmcfg.dialects.logcompilation.index import records

        return records(scan)

    def seek(self, view: mmap.mmap, path: str, source: str, options: ReadOptions) -> Seek | None:
        from asmcfg.dialects.logcompilation.seek import LogSeek

        return LogSeek(self, view, path, source, options)

    def completed(self, reader: Reader, method: Method, rest: Iterator[Method]) -> Method:
        for _ in rest:
            pass  # the trap records and inlining decisions follow all the code
        return reader.complete(method)
