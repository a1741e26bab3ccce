"""JMH `-prof perfasm` output: the hottest regions' code with the share of samples per instruction."""

from asmcfg.dialects.base import Dialect
from asmcfg.model import DialectName

DIALECT: Dialect = Dialect(
    DialectName.PERFASM, signs=("[Hottest Region", "....[Hottest", "PrintAssembly processed"), measured=True
)
"""Read in one process: a region's code and its method are found across the whole output."""
