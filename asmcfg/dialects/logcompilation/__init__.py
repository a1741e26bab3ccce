"""-XX:+LogCompilation XML, with the PrintAssembly text it holds and the compiler's trap records."""

from asmcfg.dialects.base import Dialect
from asmcfg.model import DialectName

DIALECT: Dialect = Dialect(
    DialectName.LOGCOMPILATION,
    signs=("<hotspot_log", "<tty>", "<writer thread=", "<print_nmethod"),
    cutter="asmcfg.dialects.logcompilation.split:cut",
    piece_reader="asmcfg.dialects.logcompilation.split:read_piece",
    indexer="asmcfg.dialects.logcompilation.index:records",
    by_record=True,
    trailing=True,
)
