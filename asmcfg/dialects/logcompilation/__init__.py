"""-XX:+LogCompilation XML, with the PrintAssembly text it holds and the compiler's trap records."""

from asmcfg.dialects.base import Dialect

DIALECT = Dialect(
    "logcompilation",
    signs=("<hotspot_log", "<tty>", "<writer thread=", "<print_nmethod"),
    cutter="asmcfg.dialects.logcompilation.split:cut",
)
