"""PrintAssembly text disassembled by hsdis (JDK 6-25, AT&T or Intel, capstone or binutils)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from asmcfg.dialects.base import Chunk, Counts, Reader, ReadOptions
from asmcfg.dialects.pieces import Piecewise
from asmcfg.model import DialectName

if TYPE_CHECKING:
    from asmcfg.model import Method


class Hsdis(Piecewise):
    """Read in pieces of whole methods, each by the reader's own loop over their texts."""

    name = DialectName.HSDIS

    def sniff(self, sample: list[str]) -> float:
        from asmcfg.dialects.hsdis.reader import sniff

        return sniff(sample)

    def reader(self, source: str, options: ReadOptions | None = None) -> Reader:
        from asmcfg.dialects.hsdis.reader import Reader

        return Reader(source, options or ReadOptions())

    def _read_piece(self, piece: Chunk, source: str, options: ReadOptions | None, counts: Counts) -> Iterator[Method]:
        from asmcfg.dialects.hsdis.reader import read_piece

        return read_piece(piece, source, options, counts)
