"""The `--list` table: one row per compilation in the input."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:  # the index listing of a large log writes plain text and needs neither rich nor the model
    from rich.console import Console

    from asmcfg.dialects.index import IndexRecord
    from asmcfg.model import Method


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def write_listing(methods: Iterable[Method], console: Console) -> int:
    """Print the table and return how many rows it has."""
    from rich.table import Table

    from asmcfg.render import literal

    table = Table(title=None, box=None, pad_edge=False)
    for column in (
        "compiler",
        "id",
        "tier",
        "osr",
        "flags",
        "method",
        "bytecode",
        "code bytes",
        "instructions",
        "line",
    ):
        table.add_column(column, justify="right" if column not in ("compiler", "method", "flags") else "left")
    rows = 0
    for method in methods:
        header = method.header
        size = method.code_end - method.code_begin if method.code_end and method.code_begin else None
        literal.add_row(
            table,
            header.compiler,
            _cell(header.compile_id),
            _cell(header.level),
            _cell(header.osr_bci),
            header.flags,
            header.name,
            _cell(header.bytecode_size),
            _cell(size),
            str(len(method.instructions)),
            _cell(header.line),
        )
        rows += 1
    console.print(table)
    return rows


def write_index(records: Iterable[IndexRecord], out: TextIO) -> int:
    """Write the fast index of a large log as fixed columns, a row as each header is found; count the rows.

    Plain text, not a rich table: a table would hold every row and measure it before printing the first.
    """
    out.write(
        f"{'compiler':8} {'id':>6} {'tier':>4} {'osr':>5} {'flags':5} {'bytecode':>8} {'main code':>9} "
        f"{'offset':>12}  method\n"
    )
    rows = 0
    for r in records:
        out.write(
            f"{r.compiler:8} {_cell(r.compile_id):>6} {_cell(r.level):>4} {_cell(r.osr_bci):>5} {r.flags.strip():5} "
            f"{_cell(r.bytecode_size):>8} {_cell(r.code_size):>9} {r.offset:>12}  {r.method}\n"
        )
        rows += 1
    return rows
