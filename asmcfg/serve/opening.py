"""Open one compilation of the index: read the input, pick the row's compilation, enrich it as every mode does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asmcfg.model import DialectName, Method, Syntax


@dataclass(frozen=True, slots=True)
class Row:
    """Which compilation of the input a row of the index stands for."""

    compile_id: int | None
    """Its compile id (None when the input prints none)."""
    method: str
    """`pkg.Class::method`, as the index read it."""
    ordinal: int
    """How many earlier rows have the same compile id and method (a log of several runs repeats ids)."""
    printed: bool = True
    """False when the log names the compilation but holds none of its code."""


@dataclass(frozen=True, slots=True)
class Reading:
    """How the input is read: the same for every compilation opened."""

    path: str
    """The input file."""
    dialect: DialectName | None = None
    """`--input-format`, None to sniff."""
    syntax: Syntax | None = None
    """x86 syntax of instructions decoded from hex."""


def open_compilation(reading: Reading, row: Row) -> Method:
    """The row's compilation as read from the input, with what the input says of it after its code; the caller
    enriches it (`enrich.enrich`) as every mode does."""
    from asmcfg import dialects
    from asmcfg.run.compilations import read_compilation

    options = dialects.ReadOptions(reading.syntax) if reading.syntax is not None else dialects.ReadOptions()
    return read_compilation(reading.path, reading.dialect, options, row.compile_id, row.method, row.ordinal,
                            row.printed)
