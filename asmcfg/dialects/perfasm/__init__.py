"""JMH `-prof perfasm` output: the hottest regions' code with the share of samples per instruction."""

from asmcfg.dialects.base import Dialect

DIALECT = Dialect("perfasm", signs=("[Hottest Region", "....[Hottest", "PrintAssembly processed"))
"""Read in one process: a region's code and its method are found across the whole output."""
