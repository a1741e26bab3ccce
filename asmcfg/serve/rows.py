"""The index of `asmcfg serve`: one row per compilation, from the same fast header index `--list` uses."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asmcfg.serve import links
from asmcfg.serve.opening import Reading, Row

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

COLUMNS = ("compiler", "id", "tier", "osr", "method", "bytecode", "code")
"""The index columns known from the headers, in the order of each row's cells (after the row's number); `code` is
the bytes of `main code`, as `--list` shows it."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One row of the index."""

    row: Row
    """Which compilation it is."""
    cells: tuple[Any, ...]
    """Its cells: row number, then COLUMNS, then whether its code is in the log."""


class Index:
    """Every compilation of the input, in input order, and where each is among those of the same name and id."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        """The rows, in input order."""
        self._keys = {(e.row.compile_id, e.row.method, e.row.ordinal): n for n, e in enumerate(entries)}

    def find(self, compile_id: int | None, method: str, ordinal: int) -> int | None:
        """The row number of the `ordinal`-th compilation of that id and method, if the index has it."""
        return self._keys.get((compile_id, method, ordinal))

    def name(self, n: int) -> str:
        """The method of row `n`."""
        return self.entries[n].row.method

    def cells(self) -> list[tuple[Any, ...]]:
        """Every row's cells, for the page's JSON."""
        return [e.cells for e in self.entries]

    def links(self) -> list[str]:
        """Every row's address, naming its compilation by compile id (`links.compilation`)."""
        ids = [e.row.compile_id for e in self.entries]
        return [links.compilation(i, place, n) for n, (i, place) in enumerate(zip(ids, links.places(ids), strict=True))]


def build(reading: Reading) -> Index:
    """The index of the input: its headers found by the byte search `--list` uses; read in full only for an
    input whose dialect has no header index (perfasm output)."""
    from asmcfg.dialects.index import index_file

    found = [
        (r.compile_id, r.compiler.value, r.level, r.osr_bci, r.method, r.bytecode_size, r.code_size, r.printed)
        for r in index_file(reading.path, None, reading.dialect)
    ]
    if not found:
        found = list(_read(reading))
    return Index(list(_entries(found)))


def _entries(found: Iterable[tuple[Any, ...]]) -> Iterator[Entry]:
    seen: Counter[tuple[int | None, str]] = Counter()
    for n, (compile_id, compiler, level, osr, method, bytecode, code, printed) in enumerate(found):
        key = (compile_id, method)
        row = Row(compile_id, method, seen[key], printed)
        seen[key] += 1
        yield Entry(row, (n, compiler, compile_id, level, osr, method, bytecode, code, printed))


def _read(reading: Reading) -> Iterator[tuple[Any, ...]]:
    """The rows of an input read method by method."""
    from asmcfg import dialects
    from asmcfg.run.pipeline import open_input

    options = dialects.ReadOptions(reading.syntax) if reading.syntax is not None else None
    for method in open_input(reading.path, reading.dialect, options).methods:
        header = method.header
        yield (header.compile_id, header.compiler.value, header.level, header.osr_bci, header.name,
               header.bytecode_size, method.main_code_size, True)
