"""Raw `[MachCode]` hex, printed by PrintAssembly without hsdis; asmcfg decodes it with capstone."""

from asmcfg.dialects.base import Dialect
from asmcfg.model import DialectName

DIALECT: Dialect = Dialect(DialectName.MACHCODE, signs=("[MachCode]",), cutter="asmcfg.sources.split:method_pieces")
