"""Raw `[MachCode]` hex, printed by PrintAssembly without hsdis; asmcfg decodes it with capstone."""

from __future__ import annotations

from asmcfg.dialects.base import Reader, ReadOptions
from asmcfg.dialects.pieces import Piecewise
from asmcfg.model import DialectName


class Machcode(Piecewise):
    """Read in pieces of whole methods, each by a fresh reader."""

    name = DialectName.MACHCODE
    signs = ("[MachCode]",)

    def sniff(self, sample: list[str]) -> float:
        from asmcfg.dialects.machcode.reader import sniff

        return sniff(sample)

    def reader(self, source: str, options: ReadOptions | None = None) -> Reader:
        from asmcfg.dialects.machcode.reader import Reader

        return Reader(source, options or ReadOptions())
