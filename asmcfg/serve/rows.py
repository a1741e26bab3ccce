"""The index of `asmcfg serve`: one row per compilation, from the same fast header index `--list` uses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asmcfg import describe
from asmcfg.serve import links
from asmcfg.serve.opening import Row

if TYPE_CHECKING:
    from asmcfg.dialects import Dialect
    from asmcfg.run.log import Log

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

    def __init__(self, entries: list[Entry], known: dict[str, bool] | None = None) -> None:
        self.entries = entries
        """The rows, in input order."""
        self.known = known
        """Of the analysis columns that need more than the code, whether the input can fill them: `fired` (a
        LogCompilation log's trap records: the input's own or `--log`), `heat` (measured samples); None where the
        page decides from the analysis it carries (a folder export's index)."""
        self._keys = {(e.row.compile_id, e.row.method, e.row.ordinal): n for n, e in enumerate(entries)}

    def find(self, compile_id: int | None, method: str, ordinal: int) -> int | None:
        """The row number of the `ordinal`-th compilation of that id and method, if the index has it."""
        return self._keys.get((compile_id, method, ordinal))

    def name(self, n: int) -> str:
        """The method of row `n`."""
        return self.entries[n].row.method

    def cells(self) -> list[tuple[Any, ...]]:
        """Every row's cells, for the page's JSON, each followed by its method's short name (`describe.short_name`)
        where it differs, else None."""
        shown = []
        for e in self.entries:
            short = describe.short_name(e.row.method)
            shown.append((*e.cells, None if short == e.row.method else short))
        return shown

    def links(self) -> list[str]:
        """Every row's address, naming its compilation by compile id (`links.compilation`)."""
        ids = [e.row.compile_id for e in self.entries]
        return [links.compilation(i, place, n) for n, (i, place) in enumerate(zip(ids, links.places(ids), strict=True))]


def build(log: Log) -> Index:
    """The index of the input: the rows `Log.compilations` gives, found by the byte search `--list` uses (read in
    full only for an input whose dialect has no header index, perfasm output)."""
    entries = []
    measured = False
    for n, c in enumerate(log.iter_compilations()):
        entries.append(Entry(Row(c.compile_id, c.method, c.ordinal, c.printed),
                             (n, c.compiler.value, c.compile_id, c.level, c.osr_bci, c.method, c.bytecode_size,
                              c.code_size, c.printed)))
        measured = measured or c.share is not None
    dialect = _dialect(log)
    return Index(entries, {"fired": log.log is not None or (dialect is not None and dialect.trap_records),
                           "heat": measured or log.profile is not None})


def _dialect(log: Log) -> Dialect | None:
    """The input's dialect: `--input-format`, else the one its first lines name."""
    from itertools import islice

    from asmcfg import dialects
    from asmcfg.sources.lines import read_lines

    if log.input_format is not None:
        return dialects.BY_NAME[log.input_format]
    head = [line.text for line in islice(read_lines(log.path), dialects.SAMPLE_LINES)]
    return dialects.BY_NAME[dialects.choose(head).name] if head else None
