"""Raw `[MachCode]` hex, printed by PrintAssembly without hsdis; asmcfg decodes it with capstone."""

from asmcfg.dialects.base import Dialect

DIALECT = Dialect("machcode", signs=("[MachCode]",), cutter="asmcfg.sources.split:method_pieces")
