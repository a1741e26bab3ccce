"""The `--list` table: one row per compilation in the input."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from asmcfg.terminal import visible

if TYPE_CHECKING:  # the index listing of a large log writes plain text and needs neither rich nor the labels
    from rich.console import Console

    from asmcfg.dialects.base import IndexRecord
    from asmcfg.model import Header, Method, Unprinted


def _cell(value: object) -> str:
    return "" if value is None else str(value)


@dataclass(frozen=True, slots=True)
class Listed:
    """What the table shows of one compilation: a row kept as the compilations stream by, instead of the whole
    compilation, so a listing holds a few small records per compilation whatever the size of its code."""

    header: Header
    """The compilation's header."""
    inlined: str | None
    """The inlined method a pattern matched in it, when that is why it is listed."""
    code_size: int | None
    """Bytes from the start of `main code` to the end of `stub code` (or `main code`), when the dump says."""
    instructions: int
    """How many instructions were read."""
    share: tuple[float, ...] | None
    """Its share of the run per event, when a profile measured it."""


def listed(method: Method, inlined: str | None = None) -> Listed:
    """The row of `method`, listed by its own name or (`inlined`) for a method it inlines."""
    size = method.code_end - method.code_begin if method.code_end and method.code_begin else None
    share = method.profile.run_share if method.profile is not None else None
    return Listed(method.header, inlined, size, len(method.instructions), share)


_COLUMNS = ("compiler", "id", "tier", "osr", "flags", "method", "bytecode", "code bytes", "instructions", "line")
_LEFT = ("compiler", "method", "flags", "run")


def write_listing(
    rows: Sequence[Listed], console: Console, unprinted: Sequence[Unprinted] = (), runs: Sequence[str] = ()
) -> int:
    """Print the table and return how many rows it has. Each row is a compilation, listed by its own name or for
    the inlined method a pattern matched in it; compilations with measured heat get a `share` column (of the run,
    per event), and those perfasm measured but did not print a row of their own. `runs` names the JMH run of
    each compilation (benchmark and parameters); a `run` column shows them when the input holds several runs."""
    from rich.table import Table

    from asmcfg import describe
    from asmcfg.render import literal

    if not rows and not unprinted:
        return 0  # no header over nothing: the caller says why there is no row
    shares = bool(unprinted) or any(row.share is not None for row in rows)
    unprinted_runs = [describe.run_label(u.benchmark, u.parameters) for u in unprinted]
    several = len(set(runs) | set(unprinted_runs)) > 1
    table = Table(title=None, box=None, pad_edge=False)
    columns = _COLUMNS[:5] + (("run",) if several else ()) + _COLUMNS[5:] + (("share",) if shares else ())
    for column in columns:
        table.add_column(column, justify="left" if column in _LEFT else "right")
    for n, row in enumerate(rows):
        header = row.header
        name = header.name + (f" (inlines {row.inlined})" if row.inlined else "")
        share = [describe.percent(row.share) if row.share is not None else ""] if shares else []
        cell = [runs[n] if n < len(runs) else ""] if several else []
        literal.add_row(table, *_header_cells(header, name, cell), _cell(header.bytecode_size), _cell(row.code_size),
                        str(row.instructions), _cell(header.line), *share)
    for item, label in zip(unprinted, unprinted_runs, strict=True):
        header = item.header
        literal.add_row(table, *_header_cells(header, header.name, [label] if several else []),
                        _cell(header.bytecode_size), "", f"not printed ({item.lines} lines > {item.threshold})",
                        _cell(header.line), describe.percent(item.share))
    console.print(table)
    return len(rows) + len(unprinted)


def _header_cells(header: Header, name: str, run: list[str]) -> tuple[str, ...]:
    return (header.compiler, _cell(header.compile_id), _cell(header.level), _cell(header.osr_bci), header.flags,
            *run, name)


def write_index(records: Iterable[IndexRecord], out: TextIO) -> int:
    """Write the fast index of a large log as fixed columns, rows as their headers are found; count the rows.

    The header goes out with the first row (none when there is no row). Plain text, not a rich table: a table
    would hold every row and measure it before printing the first. Rows
    go out in batches of _BATCH, or one at a time on a terminal, where they show the progress; the text taken from
    the log has its control characters made visible.
    """
    header = (
        f"{'compiler':8} {'id':>6} {'tier':>4} {'osr':>5} {'flags':5} {'bytecode':>8} {'main code':>9} "
        f"{'offset':>12}  method\n"
    )
    batch = 1 if out.isatty() else _BATCH
    rows: list[str] = []
    count = 0
    try:
        for r in records:
            if header:  # written with the first row: no header over an input that has none
                out.write(header)
                header = ""
            rows.append(  # _cell written out: this runs once per compilation of a whole log
                f"{r.compiler:8} {'' if r.compile_id is None else r.compile_id:>6} "
                f"{'' if r.level is None else r.level:>4} {'' if r.osr_bci is None else r.osr_bci:>5} "
                f"{visible(r.flags.strip()):5} {'' if r.bytecode_size is None else r.bytecode_size:>8} "
                f"{'' if r.code_size is None else r.code_size:>9} {r.offset:>12}  {visible(r.method)}"
                + ("\n" if r.printed else _not_printed())
            )
            if len(rows) >= batch:
                out.write("".join(rows))
                count += len(rows)
                rows.clear()
    finally:  # the rows found before an input that ends badly are shown too
        out.write("".join(rows))
    return count + len(rows)


def _not_printed() -> str:
    """The end of the row of a compilation whose code the log does not hold (describe is imported only then)."""
    from asmcfg.describe import NOT_IN_LOG

    return f"  ({NOT_IN_LOG})\n"


_BATCH = 512
"""Rows of the index written at once."""
