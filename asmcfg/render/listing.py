"""The `--list` table: one row per compilation in the input, the same columns at every input size; and its rows as
JSON (`--list --json`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from asmcfg.model import NOT_IN_LOG
from asmcfg.terminal import visible

if TYPE_CHECKING:  # the index listing of a large log writes plain text and needs neither rich nor the labels
    from rich.console import Console

    from asmcfg.model import Compiler, Header, Method, Unprinted

MAIN_CODE = "main code B"
"""What every table calls a compilation's code size: the bytes of HotSpot's `main code` section
(`Method.main_code_size`, `IndexRecord.code_size`); `main_code_bytes` in the JSON."""
COLUMNS = ("compiler", "id", "tier", "osr", "flags", "bytecode", MAIN_CODE, "instructions", "line")
"""The columns before the method (last), in order, whatever the input's size; a listing read in full adds `share`
(measured heat) and `run` (several JMH runs) before it when the input has them."""
_LEFT = ("compiler", "flags", "run", "method")
_PADDED = re.compile(r" +((?:\x1b\[0m)?)$")
"""The blanks that end a line of the table, before the reset of a style that ends it."""


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
    main_code_size: int | None
    """Bytes of `main code`, when the input says (`Method.main_code_size`)."""
    instructions: int
    """How many instructions were read."""
    share: tuple[float, ...] | None
    """Its share of the run per event, when a profile measured it."""
    events: tuple[str, ...] = ()
    """The events of `share`."""


def listed(method: Method, inlined: str | None = None) -> Listed:
    """The row of `method`, listed by its own name or (`inlined`) for a method it inlines."""
    profile = method.profile
    share = profile.run_share if profile is not None else None
    events = profile.events if profile is not None else ()
    return Listed(method.header, inlined, method.main_code_size, len(method.instructions), share, events)


def write_table(
    rows: Sequence[Listed], out: TextIO, unprinted: Sequence[Unprinted] = (), runs: Sequence[str] = ()
) -> int:
    """`write_listing` on `out`, plain text as wide as its rows; the rows written."""
    from rich.console import Console

    console = Console(file=out, width=300, no_color=True, highlight=False, markup=False, emoji=False)
    return write_listing(rows, console, unprinted, runs)


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
    for column in (*COLUMNS, *(("share",) if shares else ()), *(("run",) if several else ()), "method"):
        table.add_column(column, justify="left" if column in _LEFT else "right")
    for n, row in enumerate(rows):
        header = row.header
        name = header.name + (f" (inlines {row.inlined})" if row.inlined else "")
        share = [describe.percent(row.share) if row.share is not None else ""] if shares else []
        run = [runs[n] if n < len(runs) else ""] if several else []
        literal.add_row(table, *_header_cells(header), _cell(row.main_code_size), str(row.instructions),
                        _cell(header.line), *share, *run, name)
    for item, label in zip(unprinted, unprinted_runs, strict=True):
        header = item.header
        literal.add_row(table, *_header_cells(header), "", f"not printed ({item.lines} lines > {item.threshold})",
                        _cell(header.line), describe.percent(item.share), *([label] if several else []), header.name)
    with console.capture() as captured:
        console.print(table)
    # the method is last and left-aligned: no blanks after it (a terminal's header ends in a style's reset)
    console.file.write("".join(_PADDED.sub(r"\1", line) + "\n" for line in captured.get().splitlines()))
    return len(rows) + len(unprinted)


def _header_cells(header: Header) -> tuple[str, ...]:
    return (header.compiler, _cell(header.compile_id), _cell(header.level), _cell(header.osr_bci), header.flags,
            _cell(header.bytecode_size))


class IndexRow(Protocol):
    """What the index listing shows of a compilation (`Log.indexed`'s rows)."""

    @property
    def compiler(self) -> Compiler: ...
    @property
    def compile_id(self) -> int | None: ...
    @property
    def level(self) -> int | None: ...
    @property
    def osr_bci(self) -> int | None: ...
    @property
    def flags(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def bytecode_size(self) -> int | None: ...
    @property
    def code_size(self) -> int | None: ...
    @property
    def printed(self) -> bool: ...
    @property
    def line(self) -> int | None: ...


_WIDTHS = (8, 6, 4, 5, 5, 8, len(MAIN_CODE), len("instructions"), 9)
"""The widths of the index listing's COLUMNS: a table measured over every row would hold them all first."""


def write_index(records: Iterable[IndexRow], out: TextIO) -> int:
    """Write the fast index of a large log, rows as they are found, in the table's columns (`instructions` empty:
    nothing is disassembled); count the rows.

    The header goes out with the first row (none when there is no row). Plain text, not a rich table: a table
    would hold every row and measure it before printing the first. Rows
    go out in batches of _BATCH, or one at a time on a terminal, where they show the progress; the text taken from
    the log has its control characters made visible.
    """
    header = "  ".join(c.ljust(w) if c in _LEFT else c.rjust(w) for c, w in zip(COLUMNS, _WIDTHS, strict=True))
    header += "  method\n"
    batch = 1 if out.isatty() else _BATCH
    rows: list[str] = []
    count = 0
    try:
        for r in records:
            if header:  # written with the first row: no header over an input that has none
                out.write(header)
                header = ""
            rows.append(  # _cell written out: this runs once per compilation of a whole log
                f"{r.compiler:8}  {'' if r.compile_id is None else r.compile_id:>6}  "
                f"{'' if r.level is None else r.level:>4}  {'' if r.osr_bci is None else r.osr_bci:>5}  "
                f"{visible(r.flags.strip()):5}  {'' if r.bytecode_size is None else r.bytecode_size:>8}  "
                f"{'' if r.code_size is None else r.code_size:>11}  {'':>12}  {'' if r.line is None else r.line:>9}  "
                f"{visible(r.method)}" + ("\n" if r.printed else _not_printed())
            )
            if len(rows) >= batch:
                out.write("".join(rows))
                count += len(rows)
                rows.clear()
    finally:  # the rows found before an input that ends badly are shown too
        out.write("".join(rows))
    return count + len(rows)




def _not_printed() -> str:
    """The end of the row of a compilation whose code the log does not hold."""
    return f"  ({NOT_IN_LOG})\n"


_BATCH = 512
"""Rows of the index written at once."""


def write_json(
    rows: Sequence[Listed], out: TextIO, unprinted: Sequence[Unprinted] = (), runs: Sequence[str] = ()
) -> int:
    """The rows of `write_listing` as `--list --json` writes them (each with its JMH run when the input names
    runs); count them."""
    from asmcfg import describe

    return write_rows([*(row_dict(row, runs[n] if n < len(runs) else None) for n, row in enumerate(rows)),
                       *(unprinted_dict(u, describe.run_label(u.benchmark, u.parameters)) for u in unprinted)], out)


def row_dict(row: Listed, run: str | None = None) -> dict[str, Any]:
    """One compilation of a listing read in full as `--list --json` writes it."""
    share = None if row.share is None else dict(zip(row.events, (round(v, 4) for v in row.share), strict=False))
    return _row(row.header.name, row.header, row.main_code_size, row.instructions, row.header.line, share, run,
                row.inlined, True)


def unprinted_dict(item: Unprinted, run: str | None = None) -> dict[str, Any]:
    """A compilation perfasm measured but did not print, as `--list --json` writes it."""
    share = dict(zip(item.events, (round(v, 4) for v in item.share), strict=False))
    return _row(item.header.name, item.header, None, None, item.header.line, share, run, None, False)


def index_dict(row: IndexRow) -> dict[str, Any]:
    """One compilation of the index listing as `--list --json` writes it: the keys of `row_dict`, null where the
    index does not know."""
    return _row(row.method, row, row.code_size, None, row.line, None, None, None, row.printed)


def _row(name: str, header: Header | IndexRow, main_code: int | None, instructions: int | None, line: int | None,
         share: dict[str, float] | None, run: str | None, inlines: str | None, printed: bool) -> dict[str, Any]:
    return {"name": name, "compiler": header.compiler.value, "compile_id": header.compile_id, "level": header.level,
            "osr_bci": header.osr_bci, "flags": header.flags.strip(), "bytecode_size": header.bytecode_size,
            "main_code_bytes": main_code, "instructions": instructions, "line": line, "share": share, "run": run,
            "inlines": inlines, "printed": printed}


def write_rows(rows: Iterable[dict[str, Any]], out: TextIO) -> int:
    """Write `{"schema": 1, "compilations": [...]}` as `json.dumps(…, indent=1)` writes it, a row at a time (nothing
    when there is no row); count the rows."""
    from asmcfg.render import indented
    from asmcfg.render.json import SCHEMA

    count = 0
    for row in rows:
        out.write(f'{{\n "schema": {SCHEMA},\n "compilations": [\n  ' if count == 0 else ",\n  ")
        out.write(indented.dumps(row).replace("\n", "\n  "))  # a JSON string holds no raw newline
        count += 1
    if count:
        out.write("\n ]\n}\n")
    return count
