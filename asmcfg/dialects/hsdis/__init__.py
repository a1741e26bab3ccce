"""PrintAssembly text disassembled by hsdis (JDK 6-25, AT&T or Intel, capstone or binutils)."""

from asmcfg.dialects.base import Dialect
from asmcfg.model import DialectName

DIALECT: Dialect = Dialect(
    DialectName.HSDIS,
    cutter="asmcfg.sources.split:method_pieces",
    piece_reader="asmcfg.dialects.hsdis.reader:read_piece",
)
