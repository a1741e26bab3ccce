"""Open one compilation of the index: read the input, pick the row's compilation, enrich it as every mode does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from asmcfg.errors import InputError

if TYPE_CHECKING:
    from asmcfg.dialects import ReadOptions
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
    if not row.printed:
        raise InputError(f"compile id {row.compile_id} ({row.method}): the log holds none of its code",
                         reading.path)
    from asmcfg import dialects
    from asmcfg.run.pipeline import open_input

    options = dialects.ReadOptions(reading.syntax) if reading.syntax is not None else None
    indexed = _indexed(reading, row, options or dialects.ReadOptions())
    if indexed is not None:
        return indexed
    stream = open_input(reading.path, reading.dialect, options)
    trailing = dialects.BY_NAME[stream.dialect].trailing
    seen = 0
    found: Method | None = None
    for method in stream.methods:
        header = method.header
        if found is None and header.compile_id == row.compile_id and header.name == row.method:
            if seen == row.ordinal:
                found = method
                if not trailing:  # nothing the input says of it is left to read
                    break
            seen += 1
    if found is None:
        raise InputError(f"compile id {row.compile_id} ({row.method}) is not in the input", reading.path)
    return stream.complete(found)


def _indexed(reading: Reading, row: Row, options: ReadOptions) -> Method | None:
    """The row's compilation read from its own bytes, found by the header index (`run.opening`, as `--compile-id`
    opens it) when the input is a large plain file; None when it must be read whole (a small or compressed input,
    or a compile id the log repeats)."""
    if row.compile_id is None or row.ordinal:
        return None
    from asmcfg.run.opening import open_one
    from asmcfg.run.pipeline import Selector

    picked = open_one(reading.path, Selector(None, row.compile_id, None), options, forced=reading.dialect)
    if picked is None or picked.candidates != 1 or picked.method.header.name != row.method:
        return None
    return picked.method
