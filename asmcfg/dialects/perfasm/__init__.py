"""JMH `-prof perfasm` output: the hottest regions' code with the share of samples per instruction."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from asmcfg.dialects.base import Reader, ReadOptions
from asmcfg.dialects.dialect import Dialect
from asmcfg.dialects.pieces import Piecewise
from asmcfg.model import DialectName

if TYPE_CHECKING:
    from asmcfg.model import Method
    from asmcfg.sources.lines import Line


class Perfasm(Dialect):
    """Read in one process: a region's code and its method are found across the whole output, which carries its
    measured heat itself (no saveLog columns are looked for)."""

    name = DialectName.PERFASM
    signs = ("[Hottest Region", "....[Hottest", "PrintAssembly processed")

    def sniff(self, sample: list[str]) -> float:
        from asmcfg.dialects.perfasm.reader import sniff

        return sniff(sample)

    def reader(self, source: str, options: ReadOptions | None = None) -> Reader:
        from asmcfg.dialects.perfasm.reader import Reader

        return Reader(source, options or ReadOptions())

    index = Piecewise.index
    """The `Compiled method` headers it prints, if any."""

    def methods(self, reader: Reader, lines: Iterable[Line], source: str) -> Iterator[Method]:
        return reader.methods(lines)
